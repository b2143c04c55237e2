/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Intrusive reference counting.
 *
 * An object deriving from RefCounted<T> starts life with one reference,
 * which AdoptRef() turns into the first RefPtr. References cross into C
 * only explicitly: RefPtr::leak_ref() hands one reference to the C side
 * (which must give it back), ImportRef() takes it back. When the last
 * reference goes, the object is deleted through T's destructor.
 */
#pragma once

#include <ktl/assert.h>
#include <ktl/atomic.h>
#include <ktl/utility.h>

namespace ktl {

template <typename T> class RefCounted {
public:
	RefCounted(const RefCounted &) = delete;
	RefCounted &operator=(const RefCounted &) = delete;

	void add_ref() const
	{
		const int old = refs_.fetch_add(1, MemoryOrder::relaxed);
		KTL_WARN_ON(old <= 0);
	}

	/* True when this dropped the last reference. */
	[[nodiscard]] bool release() const
	{
		const int old = refs_.fetch_sub(1, MemoryOrder::release);
		if (old == 1) {
			atomic_thread_fence(MemoryOrder::acquire);
			return true;
		}
		KTL_WARN_ON(old <= 0);
		return false;
	}

	/* For diagnostics and tests only: racy by nature. */
	int ref_count_debug() const { return refs_.load(MemoryOrder::relaxed); }

protected:
	constexpr RefCounted() : refs_(1) {}
	~RefCounted() = default;

private:
	mutable Atomic<int> refs_;
};

template <typename T> class RefPtr {
public:
	constexpr RefPtr() : ptr_(nullptr) {}
	constexpr RefPtr(nullptr_t) : ptr_(nullptr) {}

	/* Takes a new reference. */
	explicit RefPtr(T *p) : ptr_(p)
	{
		if (ptr_)
			ptr_->add_ref();
	}
	RefPtr(const RefPtr &o) : RefPtr(o.ptr_) {}
	RefPtr(RefPtr &&o) : ptr_(o.ptr_) { o.ptr_ = nullptr; }
	~RefPtr() { reset(); }

	RefPtr &operator=(const RefPtr &o)
	{
		RefPtr tmp(o);
		swap(ptr_, tmp.ptr_);
		return *this;
	}
	RefPtr &operator=(RefPtr &&o)
	{
		RefPtr tmp(move(o));
		swap(ptr_, tmp.ptr_);
		return *this;
	}
	RefPtr &operator=(nullptr_t)
	{
		reset();
		return *this;
	}

	void reset()
	{
		T *p = exchange(ptr_, static_cast<T *>(nullptr));
		if (p && p->release())
			delete p;
	}

	T *get() const { return ptr_; }
	T *operator->() const { return ptr_; }
	T &operator*() const { return *ptr_; }
	explicit operator bool() const { return ptr_ != nullptr; }
	bool operator==(const RefPtr &o) const { return ptr_ == o.ptr_; }

	/* Hands this reference to C; give it back with ImportRef(). */
	[[nodiscard]] T *leak_ref() { return exchange(ptr_, static_cast<T *>(nullptr)); }

private:
	template <typename U> friend RefPtr<U> AdoptRef(U *p);
	template <typename U> friend RefPtr<U> ImportRef(U *p);
	struct AdoptTag {};
	RefPtr(T *p, AdoptTag) : ptr_(p) {}

	T *ptr_;
};

/* Wraps the reference an object is born with. */
template <typename T> RefPtr<T> AdoptRef(T *p)
{
	return RefPtr<T>(p, typename RefPtr<T>::AdoptTag{});
}

/* Takes back a reference given out by leak_ref(). */
template <typename T> RefPtr<T> ImportRef(T *p)
{
	return RefPtr<T>(p, typename RefPtr<T>::AdoptTag{});
}

} // namespace ktl
