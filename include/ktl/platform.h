/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * What ktl needs from the platform it runs on: memory, logging, locks,
 * completions and deferred work. C, so that src/shim/os.c implements
 * it in the kernel and the host tests' fake on the host; it includes
 * nothing. The names carry the module's prefix because they are global
 * symbols of the module.
 */
#ifndef KTL_PLATFORM_H
#define KTL_PLATFORM_H

#ifdef __cplusplus
#define SRPT_ABI_BEGIN extern "C" {
#define SRPT_ABI_END }
#define SRPT_NODISCARD [[nodiscard]]
#else
#define SRPT_ABI_BEGIN
#define SRPT_ABI_END
#define SRPT_NODISCARD __attribute__((warn_unused_result))
#endif

#define SRPT_PRINTF(a, b) __attribute__((format(printf, a, b)))

SRPT_ABI_BEGIN

typedef __UINT8_TYPE__ srpt_u8;
typedef __UINT16_TYPE__ srpt_u16;
typedef __UINT32_TYPE__ srpt_u32;
/* unsigned long long, like the kernel's u64 (not __UINT64_TYPE__). */
typedef unsigned long long srpt_u64;
typedef __SIZE_TYPE__ srpt_size_t;
typedef __PTRDIFF_TYPE__ srpt_ssize_t;

/* Aligned to @align (a power of two), not zeroed; may sleep. NULL frees nothing. */
void *srpt_os_alloc(srpt_size_t size, srpt_size_t align);
void srpt_os_free(void *p);

enum srpt_log_level {
	SRPT_LOG_ERR = 3,
	SRPT_LOG_WARN = 4,
	SRPT_LOG_NOTICE = 5,
	SRPT_LOG_INFO = 6,
	SRPT_LOG_DEBUG = 7,
};

/* printk-style; the shim prefixes the module name. */
void srpt_os_log(int level, const char *fmt, ...) SRPT_PRINTF(2, 3);

/*
 * A call site's rate limit (the kernel's ratelimit_state inside): zero
 * as a static object, set up at its first use.
 */
struct srpt_os_ratelimit { unsigned long opaque[24]; };
/*
 * srpt_os_log() at most a burst of times per interval (the kernel's
 * defaults: 10 in 5 s) for @rl; then one line says how many it dropped.
 */
void srpt_os_log_ratelimited(struct srpt_os_ratelimit *rl, int level, const char *fmt, ...)
	SRPT_PRINTF(3, 4);
/*
 * srpt_os_log() of a message an initiator can cause at will: each call
 * site limited on its own, so that a flood of one message does not hide
 * another.
 */
#define SRPT_LOG_LIMITED(level, ...)						\
	do {									\
		static struct srpt_os_ratelimit srpt_call_site_rl_;		\
		srpt_os_log_ratelimited(&srpt_call_site_rl_, (level), __VA_ARGS__);	\
	} while (0)
/* A broken invariant: a WARN in the kernel, a test failure on the host. */
void srpt_os_warn(const char *file, int line, const char *what);

/*
 * Room for kernel synchronisation objects inside core objects, debug
 * kernels' too (lockdep makes a mutex 144 bytes); os.c checks the fit.
 */
struct srpt_os_spinlock { unsigned long opaque[12]; };
struct srpt_os_mutex { unsigned long opaque[24]; };
struct srpt_os_completion { unsigned long opaque[12]; };
struct srpt_os_work { unsigned long opaque[16]; };

/*
 * A lockdep class: one static instance per lock declaration, as
 * mutex_init() makes one per call site (ktl/lock.h's KTL_LOCK_INIT()).
 * @name is what lockdep reports.
 */
struct srpt_os_lock_class { unsigned long opaque[4]; };

void srpt_os_spin_init(struct srpt_os_spinlock *lock, const char *name,
		       struct srpt_os_lock_class *cls);
/* Disables interrupts: safe from any context. Returns the saved flags. */
unsigned long srpt_os_spin_lock_irqsave(struct srpt_os_spinlock *lock);
void srpt_os_spin_unlock_irqrestore(struct srpt_os_spinlock *lock, unsigned long flags);

void srpt_os_mutex_init(struct srpt_os_mutex *m, const char *name, struct srpt_os_lock_class *cls);
void srpt_os_mutex_lock(struct srpt_os_mutex *m);
void srpt_os_mutex_unlock(struct srpt_os_mutex *m);
void srpt_os_mutex_destroy(struct srpt_os_mutex *m);

void srpt_os_completion_init(struct srpt_os_completion *c);
/* Wakes every present and future waiter. */
void srpt_os_complete_all(struct srpt_os_completion *c);
/* 0 once completed, -ETIMEDOUT after @timeout_ms. */
SRPT_NODISCARD int srpt_os_wait_for_completion(struct srpt_os_completion *c,
					       unsigned int timeout_ms);

/*
 * @fn(@arg) in process context on the module's workqueue; schedule returns
 * 0 when already pending. Lockdep treats running a work and waiting for
 * one as taking a lock, so a work that cancels another needs a class of
 * its own (KTL_WORK_INIT() makes one per use).
 */
typedef void (*srpt_work_fn)(void *arg);
void srpt_os_work_init(struct srpt_os_work *w, srpt_work_fn fn, void *arg,
		       const char *name, struct srpt_os_lock_class *cls);
int srpt_os_work_schedule(struct srpt_os_work *w);
/* Waits for a running instance and cancels a pending one. May sleep. */
void srpt_os_work_cancel_sync(struct srpt_os_work *w);

SRPT_ABI_END

#endif /* KTL_PLATFORM_H */
