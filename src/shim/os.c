// SPDX-License-Identifier: GPL-2.0-only
/*
 * Kernel services for the C++ core: memory, logging, locks, completions,
 * deferred work, time and reading IP addresses. Each function only
 * translates to the kernel API of the same meaning; see
 * include/ktl/platform.h and include/srpt/abi.h for the contracts.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/bug.h>
#include <linux/build_bug.h>
#include <linux/completion.h>
#include <linux/inet.h>
#include <linux/jiffies.h>
#include <linux/kernel.h>
#include <linux/lockdep.h>
#include <linux/mm.h>
#include <linux/mutex.h>
#include <linux/printk.h>
#include <linux/ratelimit.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/socket.h>
#include <linux/string.h>
#include <linux/workqueue.h>
#include <net/net_namespace.h>

#include <srpt/abi.h>

#include "compat.h"
#include "os.h"

static_assert(sizeof(spinlock_t) <= sizeof(struct srpt_os_spinlock));
static_assert(sizeof(struct mutex) <= sizeof(struct srpt_os_mutex));
static_assert(sizeof(struct completion) <= sizeof(struct srpt_os_completion));
static_assert(sizeof(struct srpt_work) <= sizeof(struct srpt_os_work));
static_assert(sizeof(struct lock_class_key) <= sizeof(struct srpt_os_lock_class));

/* The core's static lock class: lockdep wants it in static memory, which it is. */
static struct lock_class_key *to_key(struct srpt_os_lock_class *cls)
{
	return (struct lock_class_key *)cls->opaque;
}

void *srpt_os_alloc(size_t size, size_t align)
{
	void *p;

	if (align > ARCH_KMALLOC_MINALIGN)
		size = ALIGN(size, align);
	/* vmalloc memory is page aligned, kmalloc memory is checked below. */
	p = kvmalloc(size, GFP_KERNEL);
	if (p && !IS_ALIGNED((unsigned long)p, align)) {
		WARN_ONCE(1, "ib_srpt: allocation of %zu bytes not aligned to %zu\n",
			  size, align);
		kvfree(p);
		return NULL;
	}
	return p;
}

void srpt_os_free(void *p)
{
	kvfree(p);
}

static void srpt_vlog(int level, struct va_format *vaf)
{
	switch (level) {
	case SRPT_LOG_ERR:
		pr_err("%pV", vaf);
		break;
	case SRPT_LOG_WARN:
		pr_warn("%pV", vaf);
		break;
	case SRPT_LOG_NOTICE:
		pr_notice("%pV", vaf);
		break;
	case SRPT_LOG_INFO:
		pr_info("%pV", vaf);
		break;
	default:
		pr_debug("%pV", vaf);
		break;
	}
}

void srpt_os_log(int level, const char *fmt, ...)
{
	struct va_format vaf;
	va_list args;

	va_start(args, fmt);
	vaf.fmt = fmt;
	vaf.va = &args;
	srpt_vlog(level, &vaf);
	va_end(args);
}

/* What a struct srpt_os_ratelimit holds. */
struct srpt_ratelimit {
	struct ratelimit_state rs;
	bool ready;
};

static_assert(sizeof(struct srpt_ratelimit) <= sizeof(struct srpt_os_ratelimit),
	      "struct srpt_os_ratelimit is too small for this kernel's ratelimit_state");
static_assert(__alignof__(struct srpt_ratelimit) <= __alignof__(struct srpt_os_ratelimit),
	      "struct srpt_os_ratelimit is not aligned for this kernel's ratelimit_state");

/* Serialises the first use of each call site's state. */
static DEFINE_SPINLOCK(srpt_ratelimit_setup_lock);

static struct ratelimit_state *srpt_ratelimit_state(struct srpt_os_ratelimit *rl)
{
	struct srpt_ratelimit *r = (struct srpt_ratelimit *)rl;
	unsigned long flags;

	/* Pairs with the release below: a ready state is seen set up. */
	if (!smp_load_acquire(&r->ready)) {
		spin_lock_irqsave(&srpt_ratelimit_setup_lock, flags);
		if (!r->ready) {
			ratelimit_state_init(&r->rs, DEFAULT_RATELIMIT_INTERVAL,
					     DEFAULT_RATELIMIT_BURST);
			/* The count of dropped lines is ours to print, with our prefix. */
			ratelimit_set_flags(&r->rs, RATELIMIT_MSG_ON_RELEASE);
			/* Set up before ready: pairs with the acquire above. */
			smp_store_release(&r->ready, true);
		}
		spin_unlock_irqrestore(&srpt_ratelimit_setup_lock, flags);
	}
	return &r->rs;
}

void srpt_os_log_ratelimited(struct srpt_os_ratelimit *rl, int level, const char *fmt, ...)
{
	struct ratelimit_state *rs = srpt_ratelimit_state(rl);
	struct va_format vaf;
	va_list args;
	int missed;

	if (!__ratelimit(rs))
		return;
	/* Say what was dropped since the last line, once. */
	missed = srpt_ratelimit_take_missed(rs);
	if (missed)
		pr_warn("%d messages like the next one suppressed\n", missed);
	va_start(args, fmt);
	vaf.fmt = fmt;
	vaf.va = &args;
	srpt_vlog(level, &vaf);
	va_end(args);
}

void srpt_os_warn(const char *file, int line, const char *what)
{
	WARN(1, "ib_srpt: %s:%d: %s\n", file, line, what);
}

static spinlock_t *to_spinlock(struct srpt_os_spinlock *l)
{
	return (spinlock_t *)l->opaque;
}

void srpt_os_spin_init(struct srpt_os_spinlock *lock, const char *name,
		       struct srpt_os_lock_class *cls)
{
	spin_lock_init(to_spinlock(lock));
	lockdep_set_class_and_name(to_spinlock(lock), to_key(cls), name);
}

/* The core's guards pair these; sparse sees only the kernel side. */
unsigned long srpt_os_spin_lock_irqsave(struct srpt_os_spinlock *lock)
	__acquires(lock)
{
	unsigned long flags;

	spin_lock_irqsave(to_spinlock(lock), flags);
	return flags;
}

void srpt_os_spin_unlock_irqrestore(struct srpt_os_spinlock *lock,
				    unsigned long flags)
	__releases(lock)
{
	spin_unlock_irqrestore(to_spinlock(lock), flags);
}

static struct mutex *to_mutex(struct srpt_os_mutex *m)
{
	return (struct mutex *)m->opaque;
}

void srpt_os_mutex_init(struct srpt_os_mutex *m, const char *name,
			struct srpt_os_lock_class *cls)
{
	__mutex_init(to_mutex(m), name, to_key(cls));
}

void srpt_os_mutex_lock(struct srpt_os_mutex *m)
{
	mutex_lock(to_mutex(m));
}

void srpt_os_mutex_unlock(struct srpt_os_mutex *m)
{
	mutex_unlock(to_mutex(m));
}

void srpt_os_mutex_destroy(struct srpt_os_mutex *m)
{
	mutex_destroy(to_mutex(m));
}

static struct completion *to_completion(struct srpt_os_completion *c)
{
	return (struct completion *)c->opaque;
}

void srpt_os_completion_init(struct srpt_os_completion *c)
{
	init_completion(to_completion(c));
}

void srpt_os_complete_all(struct srpt_os_completion *c)
{
	complete_all(to_completion(c));
}

int srpt_os_wait_for_completion(struct srpt_os_completion *c,
				unsigned int timeout_ms)
{
	return wait_for_completion_timeout(to_completion(c),
					   msecs_to_jiffies(timeout_ms)) ?
		0 : -ETIMEDOUT;
}

static struct srpt_work *to_work(struct srpt_os_work *w)
{
	return (struct srpt_work *)w->opaque;
}

static void srpt_work_fn_trampoline(struct work_struct *ws)
{
	struct srpt_work *w = container_of(ws, struct srpt_work, work);

	w->fn(w->arg);
}

void srpt_os_work_init(struct srpt_os_work *w, srpt_work_fn fn, void *arg,
		       const char *name, struct srpt_os_lock_class *cls)
{
	struct srpt_work *sw = to_work(w);

	INIT_WORK(&sw->work, srpt_work_fn_trampoline);
	/* The core's class for this work, not this line's for all of them. */
	lockdep_init_map(&sw->work.lockdep_map, name, to_key(cls), 0);
	sw->fn = fn;
	sw->arg = arg;
}

int srpt_os_work_schedule(struct srpt_os_work *w)
{
	return queue_work(srpt_wq, &to_work(w)->work);
}

void srpt_os_work_cancel_sync(struct srpt_os_work *w)
{
	cancel_work_sync(&to_work(w)->work);
}

int srpt_os_inet_pton(const char *name, size_t len)
{
	char buf[INET6_ADDRSTRLEN + 1];
	struct sockaddr_storage sa;
	const char *end;
	u8 addr[16];

	if (len >= sizeof(buf))
		return -EINVAL;
	memcpy(buf, name, len);
	buf[len] = '\0';
	/*
	 * inet_pton_with_scope() also takes an address followed by ':' and
	 * anything ("1.2.3.4:5", "::ffff:1.2.3.4:5"): the address must be
	 * the whole name, or be followed by its scope.
	 */
	if (!(in4_pton(buf, len, addr, -1, &end) && end == buf + len) &&
	    !(in6_pton(buf, len, addr, '%', &end) && (end == buf + len || *end == '%')))
		return -EINVAL;
	return inet_pton_with_scope(&init_net, AF_UNSPEC, buf, NULL, &sa) ? -EINVAL : 0;
}
