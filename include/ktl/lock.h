/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Kernel locks for the core, with RAII guards. The lock objects live in
 * core objects as opaque storage (see srpt_os_spinlock in ktl/platform.h) and
 * must be initialised with KTL_LOCK_INIT() before use; that keeps them
 * usable in constinit globals, which the module initialises at load time.
 *
 * The order in which the core takes its locks is written down once, in
 * srpt/locking.h.
 */
#pragma once

#include <ktl/platform.h>
#include <ktl/thread_annotations.h>

namespace ktl {

class SpinGuard;
class MutexGuard;

class KTL_CAPABILITY("spinlock") SpinLock {
public:
	constexpr SpinLock() : lock_{} {}
	SpinLock(const SpinLock &) = delete;
	SpinLock &operator=(const SpinLock &) = delete;

	/* What Guarded<T, SpinLock> holds it with. */
	using Guard = SpinGuard;

	void init(const char *name, srpt_os_lock_class *cls) { srpt_os_spin_init(&lock_, name, cls); }
	[[nodiscard]] unsigned long lock() KTL_ACQUIRE()
	{
		return srpt_os_spin_lock_irqsave(&lock_);
	}
	void unlock(unsigned long flags) KTL_RELEASE()
	{
		srpt_os_spin_unlock_irqrestore(&lock_, flags);
	}

private:
	srpt_os_spinlock lock_;
};

class KTL_CAPABILITY("mutex") Mutex {
public:
	constexpr Mutex() : m_{} {}
	Mutex(const Mutex &) = delete;
	Mutex &operator=(const Mutex &) = delete;

	/* What Guarded<T, Mutex> holds it with. */
	using Guard = MutexGuard;

	void init(const char *name, srpt_os_lock_class *cls) { srpt_os_mutex_init(&m_, name, cls); }
	void destroy() { srpt_os_mutex_destroy(&m_); }
	void lock() KTL_ACQUIRE() { srpt_os_mutex_lock(&m_); }
	void unlock() KTL_RELEASE() { srpt_os_mutex_unlock(&m_); }

private:
	srpt_os_mutex m_;
};

/*
 * Initialises @lock (a SpinLock or Mutex) with a lock class of its own:
 * one static class per use of the macro, as the kernel's mutex_init()
 * makes one per call site, so that lockdep tells the core's locks apart.
 * The class is constant-initialised: no guard variable, no constructor.
 */
#define KTL_LOCK_CLASS()                                                                   \
	([] {                                                                              \
		static constinit srpt_os_lock_class ktl_lock_class{};                      \
		return &ktl_lock_class;                                                    \
	}())
#define KTL_LOCK_INIT(lock) (lock).init(#lock, KTL_LOCK_CLASS())

/*
 * Initialises the srpt_os_work @work to run @fn(@arg), with a lock class
 * of its own per use, as INIT_WORK() makes one per call site: a work that
 * cancels another must not look to lockdep as if it waited for itself.
 */
#define KTL_WORK_INIT(work, fn, arg) srpt_os_work_init(&(work), (fn), (arg), #work, KTL_LOCK_CLASS())

/* Holds a SpinLock (interrupts disabled) for its scope. */
class KTL_SCOPED_CAPABILITY SpinGuard {
public:
	explicit SpinGuard(SpinLock &l) KTL_ACQUIRE(l) : l_(l), flags_(l.lock()) {}
	~SpinGuard() KTL_RELEASE() { l_.unlock(flags_); }
	SpinGuard(const SpinGuard &) = delete;
	SpinGuard &operator=(const SpinGuard &) = delete;

private:
	SpinLock &l_;
	unsigned long flags_;
};

/* Holds a Mutex for its scope. May sleep. */
class KTL_SCOPED_CAPABILITY MutexGuard {
public:
	explicit MutexGuard(Mutex &m) KTL_ACQUIRE(m) : m_(m) { m_.lock(); }
	~MutexGuard() KTL_RELEASE() { m_.unlock(); }
	MutexGuard(const MutexGuard &) = delete;
	MutexGuard &operator=(const MutexGuard &) = delete;

private:
	Mutex &m_;
};

/*
 * A value that lives inside its lock, as Rust-for-Linux's Lock<T>: the lock and
 * the only data it guards, which nothing reaches but with(). Lock is a
 * SpinLock or a Mutex, initialised by KTL_LOCK_INIT(guarded) as a lock
 * of its own would be. A reference @fn keeps past with() escapes the
 * check; the value is not for handing out.
 */
template <typename T, typename Lock> class Guarded {
public:
	/* The value initialised as a member of its own would be: default, or from @value. */
	constexpr Guarded() = default;
	constexpr explicit Guarded(const T &value) : value_(value) {}
	Guarded(const Guarded &) = delete;
	Guarded &operator=(const Guarded &) = delete;

	void init(const char *name, srpt_os_lock_class *cls) { lock_.init(name, cls); }
	void destroy() { lock_.destroy(); }

	/* Runs @fn(the value) with the lock held; returns what @fn returns. */
	template <typename Fn> decltype(auto) with(Fn fn) KTL_EXCLUDES(lock_)
	{
		typename Lock::Guard g(lock_);
		return fn(value_);
	}
	template <typename Fn> decltype(auto) with(Fn fn) const KTL_EXCLUDES(lock_)
	{
		typename Lock::Guard g(lock_);
		return fn(static_cast<const T &>(value_));
	}

private:
	mutable Lock lock_;
	T value_ KTL_GUARDED_BY(lock_);
};

} // namespace ktl
