// SPDX-License-Identifier: GPL-2.0-only
/*
 * The host test double of every srpt_os_* function; see fake_os.h.
 *
 * One mutex (g_mu) guards the fake's bookkeeping. It is never held while
 * the fake calls back into the core (work functions, hooks, events) or
 * blocks on a lock the core holds.
 */
#include "fake_internal.h"
#include "../doubles/names.h"

#include <algorithm>
#include <arpa/inet.h>
#include <cctype>
#include <cerrno>
#include <condition_variable>
#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <map>
#include <mutex>
#include <pthread.h>
#include <set>
#include <thread>
#include <utility>

using namespace fake::detail;

namespace {

/* ---- The kernel objects, placed in the ABI's opaque storage ---- */

constexpr std::uint32_t kSpinMagic = 0x5350494e;	/* "SPIN" */
constexpr std::uint32_t kMutexMagic = 0x4d555458;	/* "MUTX" */
constexpr std::uint32_t kCompletionMagic = 0x434f4d50;	/* "COMP" */
constexpr std::uint32_t kWorkMagic = 0x574f524b;	/* "WORK" */

struct SpinImpl {
	pthread_mutex_t m;
	std::uint32_t magic;
};
struct MutexImpl {
	pthread_mutex_t m;
	std::uint32_t magic;
};
struct CompletionImpl {
	pthread_mutex_t m;
	pthread_cond_t c;
	unsigned int done;
	std::uint32_t magic;
};
struct WorkImpl {
	srpt_work_fn fn;
	void *arg;
	std::uint32_t magic;
};

static_assert(sizeof(SpinImpl) <= sizeof(srpt_os_spinlock));
static_assert(alignof(SpinImpl) <= alignof(srpt_os_spinlock));
static_assert(sizeof(MutexImpl) <= sizeof(srpt_os_mutex));
static_assert(alignof(MutexImpl) <= alignof(srpt_os_mutex));
static_assert(sizeof(CompletionImpl) <= sizeof(srpt_os_completion));
static_assert(alignof(CompletionImpl) <= alignof(srpt_os_completion));
static_assert(sizeof(WorkImpl) <= sizeof(srpt_os_work));
static_assert(alignof(WorkImpl) <= alignof(srpt_os_work));

SpinImpl *impl(srpt_os_spinlock *l) { return reinterpret_cast<SpinImpl *>(l->opaque); }
MutexImpl *impl(srpt_os_mutex *m) { return reinterpret_cast<MutexImpl *>(m->opaque); }
CompletionImpl *impl(srpt_os_completion *c) { return reinterpret_cast<CompletionImpl *>(c->opaque); }
WorkImpl *impl(srpt_os_work *w) { return reinterpret_cast<WorkImpl *>(w->opaque); }

thread_local int t_spin_depth;
/* Lock classes this thread holds, in the order it took them. */
thread_local std::vector<const void *> t_held;
thread_local int t_atomic_depth;
thread_local bool t_in_unlock_hook;

SyncObj *find_obj_locked(const void *p, Kind kind, const char *fn);
SyncObj &register_obj_locked(const void *p, std::size_t size, Kind kind, const char *fn);
srpt_os_device::Port *check_port_locked(srpt_os_device *os, srpt_u32 num, const char *fn);
void run_unlock_hook(std::function<bool()> State::*which);

} // namespace

namespace fake::detail {

std::mutex g_mu;
std::condition_variable g_cv;

State &S()
{
	static State *s = new State;	/* never destroyed: used until exit */
	return *s;
}

const char *kind_name(Kind k)
{
	switch (k) {
	case Kind::kSpin:
		return "spinlock";
	case Kind::kMutex:
		return "mutex";
	case Kind::kCompletion:
		return "completion";
	case Kind::kWork:
		return "work";
	}
	return "?";
}

std::string vformat(const char *fmt, va_list ap)
{
	va_list ap2;
	va_copy(ap2, ap);
	const int n = std::vsnprintf(nullptr, 0, fmt, ap2);
	va_end(ap2);
	if (n < 0)
		return std::string("<bad format: ") + fmt + ">";
	std::string s(static_cast<std::size_t>(n), '\0');
	std::vsnprintf(s.data(), s.size() + 1, fmt, ap);
	return s;
}

std::string strf(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	std::string s = vformat(fmt, ap);
	va_end(ap);
	return s;
}

/* Records a broken kernel rule; g_mu held. Printed at once, in case a crash follows. */
void violation_locked(const std::string &what)
{
	std::fprintf(stderr, "fake_os: VIOLATION: %s\n", what.c_str());
	S().violations.push_back(what);
}

void violation(const std::string &what)
{
	std::lock_guard<std::mutex> g(g_mu);
	violation_locked(what);
}

void might_sleep_call(const char *fn)
{
	if (srpt_contract_may_sleep(fn))
		might_sleep(fn);
}

bool breach_locked(const char *fn, const char *why)
{
	if (!why)
		return false;
	violation_locked(strf("%s: %s", fn, why));
	return true;
}

void trace_locked(const std::string &what)
{
	S().trace.push_back(what);
}

/* might_sleep(): the current context must be allowed to sleep. */
void might_sleep(const char *fn)
{
	if (t_spin_depth > 0 || t_atomic_depth > 0)
		violation(strf("%s may sleep but was called %s", fn,
			       t_spin_depth > 0 ? "under a spinlock" : "in atomic context"));
}

int count_call_locked(const char *fn)
{
	CallStat &c = S().calls[fn];
	c.calls++;
	if (c.fail_at && c.calls >= c.fail_at && c.calls < c.fail_at + c.fail_times) {
		if (c.calls == c.fail_at + c.fail_times - 1)
			c.fail_at = 0;
		return c.error;
	}
	return 0;
}

srpt_os_device *check_device_locked(srpt_os_device *os, const char *fn)
{
	if (!os || !S().devices.count(os)) {
		violation_locked(strf("%s with an unknown device %p", fn, static_cast<void *>(os)));
		return nullptr;
	}
	if (const char *why = srpt_contract_dev_check(&os->contract))
		violation_locked(strf("%s on %s: %s", fn, os->name.c_str(), why));
	return os;
}

} // namespace fake::detail

namespace {

SyncObj *find_obj_locked(const void *p, Kind kind, const char *fn)
{
	auto it = S().objs.find(reinterpret_cast<std::uintptr_t>(p));
	if (it == S().objs.end()) {
		violation_locked(strf("%s on an uninitialised %s %p", fn, kind_name(kind), p));
		return nullptr;
	}
	if (it->second.kind != kind) {
		violation_locked(strf("%s on a %s %p that was initialised as a %s", fn,
				      kind_name(kind), p, kind_name(it->second.kind)));
		return nullptr;
	}
	return &it->second;
}

/* (Re)registers a sync object at @p; g_mu held. */
SyncObj &register_obj_locked(const void *p, std::size_t size, Kind kind, const char *fn)
{
	auto key = reinterpret_cast<std::uintptr_t>(p);
	auto it = S().objs.find(key);
	if (it != S().objs.end()) {
		const SyncObj &o = it->second;
		if (o.locked)
			violation_locked(strf("%s on a locked %s %p", fn, kind_name(o.kind), p));
		if (o.pending || o.running)
			violation_locked(strf("%s on a pending or running work %p", fn, p));
		if (o.pending)
			S().work.erase(std::remove(S().work.begin(), S().work.end(),
						   static_cast<srpt_os_work *>(const_cast<void *>(p))),
				       S().work.end());
	}
	SyncObj &o = S().objs[key];
	o = SyncObj{kind, size};
	return o;
}

srpt_os_device::Port *check_port_locked(srpt_os_device *os, srpt_u32 num, const char *fn)
{
	if (!check_device_locked(os, fn))
		return nullptr;
	const char *why = srpt_contract_port_check(num, os->info.port_count);
	if (why || num > os->ports.size()) {
		violation_locked(strf("%s on %s with port %u: %s", fn, os->name.c_str(), num,
				      why ? why : "a port the fake does not have (test bug)"));
		return nullptr;
	}
	return &os->ports[num - 1];
}

bool lock_reaches_locked(const void *from, const void *to, std::set<const void *> &seen)
{
	if (from == to)
		return true;
	if (!seen.insert(from).second)
		return false;
	const auto it = S().lock_after.find(from);
	if (it == S().lock_after.end())
		return false;
	for (const void *next : it->second)
		if (lock_reaches_locked(next, to, seen))
			return true;
	return false;
}

/*
 * lockdep, in small: taking @o while holding the classes of t_held must
 * agree with every order seen before (include/srpt/locking.h), and two
 * locks of one class never nest. g_mu held.
 */
void check_lock_order_locked(const SyncObj &o)
{
	for (const void *h : t_held) {
		if (h == o.cls) {
			violation_locked(strf("%s %s taken while holding another lock of its class: lockdep reports possible recursive locking",
					      kind_name(o.kind), o.name.c_str()));
			continue;
		}
		std::set<const void *> seen;
		if (lock_reaches_locked(o.cls, h, seen))
			violation_locked(strf("lock order: %s taken while holding %s, but %s was taken (directly or not) while holding %s before",
					      o.name.c_str(), S().lock_names[h].c_str(),
					      S().lock_names[h].c_str(), o.name.c_str()));
	}
	for (const void *h : t_held)
		if (h != o.cls)
			S().lock_after[h].insert(o.cls);
}

void lock_held(const SyncObj &o)
{
	t_held.push_back(o.cls);
}

void lock_released(const void *cls)
{
	for (auto it = t_held.rbegin(); it != t_held.rend(); ++it) {
		if (*it == cls) {
			t_held.erase(std::next(it).base());
			return;
		}
	}
}

void name_lock_locked(SyncObj &o, const void *storage, const char *name,
		      srpt_os_lock_class *cls)
{
	o.cls = cls ? static_cast<const void *>(cls) : storage;
	o.name = name ? name : strf("%p", storage);
	S().lock_names[o.cls] = o.name;
}

void run_unlock_hook(std::function<bool()> State::*which)
{
	if (t_in_unlock_hook)
		return;
	std::function<bool()> hook;
	{
		std::lock_guard<std::mutex> g(g_mu);
		hook = S().*which;
	}
	if (!hook)
		return;
	t_in_unlock_hook = true;
	const bool keep = hook();
	t_in_unlock_hook = false;
	if (!keep) {
		std::lock_guard<std::mutex> g(g_mu);
		S().*which = nullptr;
	}
}

} // namespace

/* ======================================================================
 * The ABI: kernel services.
 * ======================================================================
 */

extern "C" void *srpt_os_alloc(srpt_size_t size, srpt_size_t align)
{
	might_sleep("srpt_os_alloc");

	std::lock_guard<std::mutex> g(g_mu);
	State &s = S();

	if (align == 0 || (align & (align - 1))) {
		violation_locked(strf("srpt_os_alloc with alignment %zu", align));
		return nullptr;
	}
	s.alloc_calls++;
	if (s.fail_at && s.alloc_calls == s.fail_at) {
		s.fail_at = 0;
		s.failed_allocs++;
		return nullptr;
	}
	/* aligned_alloc wants a size that is a multiple of the alignment. */
	const std::size_t a = std::max<std::size_t>(align, 16);
	const std::size_t rounded = (std::max<std::size_t>(size, 1) + a - 1) & ~(a - 1);
	void *p = std::aligned_alloc(a, rounded);
	if (!p)
		return nullptr;
	/* Like slab poisoning: nothing may rely on fresh memory being zero. */
	std::memset(p, 0xa5, rounded);
	s.allocs[reinterpret_cast<std::uintptr_t>(p)] = size;
	s.live_bytes += size;
	return p;
}

extern "C" void srpt_os_free(void *p)
{
	if (!p)
		return;

	std::lock_guard<std::mutex> g(g_mu);
	State &s = S();
	const auto key = reinterpret_cast<std::uintptr_t>(p);
	auto it = s.allocs.find(key);

	if (it == s.allocs.end()) {
		violation_locked(strf("srpt_os_free of %p, which srpt_os_alloc did not return", p));
		return;	/* do not hand a foreign pointer to free() */
	}
	const std::size_t size = it->second;
	/* Sync objects inside the block die with it. */
	auto o = s.objs.lower_bound(key);
	while (o != s.objs.end() && o->first < key + std::max<std::size_t>(size, 1)) {
		const SyncObj &obj = o->second;
		const void *addr = reinterpret_cast<const void *>(o->first);

		if (obj.locked)
			violation_locked(strf("freeing a locked %s %p", kind_name(obj.kind), addr));
		if (obj.pending)
			violation_locked(strf("freeing pending work %p", addr));
		if (obj.running && obj.runner != std::this_thread::get_id())
			violation_locked(strf("freeing work %p while it runs", addr));
		if (obj.pending)
			s.work.erase(std::remove(s.work.begin(), s.work.end(),
						 reinterpret_cast<srpt_os_work *>(o->first)),
				     s.work.end());
		o = s.objs.erase(o);
	}
	s.live_bytes -= size;
	s.allocs.erase(it);
	std::free(p);
}

namespace {

/*
 * vformat() as the kernel's printk formats: "%pe" of an error pointer
 * (ktl::err_arg()) is the errno's name, "-ENOMEM" (CONFIG_SYMBOLIC_ERRNAME,
 * which Debian's kernels have); any other conversion goes to vsnprintf
 * one at a time with its own argument.
 */
std::string kformat(const char *fmt, va_list ap)
{
	std::string out;

	for (const char *p = fmt; *p;) {
		if (*p != '%') {
			out += *p++;
			continue;
		}
		const char *start = p++;
		while (*p && std::strchr("-+ #0", *p))
			p++;
		bool star_width = false, star_prec = false;
		if (*p == '*')
			star_width = true, p++;
		while (std::isdigit(static_cast<unsigned char>(*p)))
			p++;
		if (*p == '.') {
			p++;
			if (*p == '*')
				star_prec = true, p++;
			while (std::isdigit(static_cast<unsigned char>(*p)))
				p++;
		}
		std::string len;
		while (*p && std::strchr("hlzjt", *p))
			len += *p++;
		const char conv = *p ? *p++ : '\0';
		const std::string spec(start, p);
		const int width = star_width ? va_arg(ap, int) : 0;
		const int prec = star_prec ? va_arg(ap, int) : 0;
		char buf[512];
		const auto one = [&](auto v) {
			if (star_width && star_prec)
				std::snprintf(buf, sizeof(buf), spec.c_str(), width, prec, v);
			else if (star_width || star_prec)
				std::snprintf(buf, sizeof(buf), spec.c_str(), star_width ? width : prec, v);
			else
				std::snprintf(buf, sizeof(buf), spec.c_str(), v);
			out += buf;
		};
		switch (conv) {
		case '%':
			out += '%';
			break;
		case 'd':
		case 'i':
			if (len == "ll")
				one(va_arg(ap, long long));
			else if (len == "l" || len == "z")
				one(va_arg(ap, long));
			else
				one(va_arg(ap, int));
			break;
		case 'u':
		case 'x':
		case 'X':
		case 'o':
			if (len == "ll")
				one(va_arg(ap, unsigned long long));
			else if (len == "l" || len == "z")
				one(va_arg(ap, unsigned long));
			else
				one(va_arg(ap, unsigned int));
			break;
		case 'c':
			one(va_arg(ap, int));
			break;
		case 's':
			one(va_arg(ap, const char *));
			break;
		case 'p': {
			void *v = va_arg(ap, void *);
			const long err = reinterpret_cast<long>(v);

			if (*p == 'e' && err < 0 && err >= -4095) {
				p++;
				const char *name = strerrorname_np(static_cast<int>(-err));
				out += name ? std::string("-") + name : std::to_string(err);
			} else {
				one(v);
			}
			break;
		}
		default:
			return std::string("<bad format: ") + fmt + ">";
		}
	}
	return out;
}

/*
 * Every line is kept, limited or not, so that tests can count them; a
 * limited one says which call site's state it used.
 */
void log_line(int level, const srpt_os_ratelimit *rl, const char *fmt, va_list ap)
{
	std::string text = kformat(fmt, ap);

	std::lock_guard<std::mutex> g(g_mu);
	State &s = S();
	const bool ratelimited = rl != nullptr;
	if (level < SRPT_LOG_ERR || level > SRPT_LOG_DEBUG)
		violation_locked(strf("srpt_os_log with level %d: %s", level, text.c_str()));
	if (text.empty() || text.back() != '\n')
		violation_locked("log line without a trailing newline: " + text);
	if (s.config.echo_log)
		std::fprintf(stderr, "fake_os: log<%d> %s", level, text.c_str());
	if (s.config.capture_log)
		s.log.push_back({level, ratelimited, std::move(text)});
}

} // namespace

extern "C" void srpt_os_log(int level, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	log_line(level, nullptr, fmt, ap);
	va_end(ap);
}

extern "C" void srpt_os_log_ratelimited(struct srpt_os_ratelimit *rl, int level, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	log_line(level, rl, fmt, ap);
	va_end(ap);
}

extern "C" void srpt_os_warn(const char *file, int line, const char *what)
{
	std::string w = strf("%s:%d: %s", file ? file : "?", line, what ? what : "?");

	std::lock_guard<std::mutex> g(g_mu);
	std::fprintf(stderr, "fake_os: WARN: %s\n", w.c_str());
	S().warnings.push_back(std::move(w));
}

/* ---- spinlocks ---- */

extern "C" void srpt_os_spin_init(struct srpt_os_spinlock *lock, const char *name,
				  struct srpt_os_lock_class *cls)
{
	std::lock_guard<std::mutex> g(g_mu);
	name_lock_locked(register_obj_locked(lock, sizeof(*lock), Kind::kSpin, "srpt_os_spin_init"),
			 lock, name, cls);
	SpinImpl *l = impl(lock);
	pthread_mutexattr_t attr;
	pthread_mutexattr_init(&attr);
	pthread_mutexattr_settype(&attr, PTHREAD_MUTEX_ERRORCHECK);
	pthread_mutex_init(&l->m, &attr);
	pthread_mutexattr_destroy(&attr);
	l->magic = kSpinMagic;
}

extern "C" unsigned long srpt_os_spin_lock_irqsave(struct srpt_os_spinlock *lock)
{
	{
		std::lock_guard<std::mutex> g(g_mu);
		SyncObj *o = find_obj_locked(lock, Kind::kSpin, "srpt_os_spin_lock_irqsave");
		if (!o)
			return 0;
		if (o->locked && o->owner == std::this_thread::get_id()) {
			violation_locked(strf("spinlock %p taken recursively: deadlock",
					      static_cast<void *>(lock)));
			return 0;
		}
		check_lock_order_locked(*o);
	}
	pthread_mutex_lock(&impl(lock)->m);
	{
		std::lock_guard<std::mutex> g(g_mu);
		SyncObj *o = find_obj_locked(lock, Kind::kSpin, "srpt_os_spin_lock_irqsave");
		if (o) {
			o->locked = true;
			o->owner = std::this_thread::get_id();
			lock_held(*o);
		}
	}
	/* The "flags": the nesting depth before this lock, checked at unlock. */
	return 0xf1a90000ul | static_cast<unsigned long>(t_spin_depth++);
}

extern "C" void srpt_os_spin_unlock_irqrestore(struct srpt_os_spinlock *lock, unsigned long flags)
{
	{
		std::lock_guard<std::mutex> g(g_mu);
		SyncObj *o = find_obj_locked(lock, Kind::kSpin, "srpt_os_spin_unlock_irqrestore");
		if (!o)
			return;
		if (!o->locked || o->owner != std::this_thread::get_id()) {
			violation_locked(strf("spinlock %p unlocked but not held by this thread",
					      static_cast<void *>(lock)));
			return;
		}
		if (flags != (0xf1a90000ul | static_cast<unsigned long>(t_spin_depth - 1)))
			violation_locked(strf("spinlock %p unlocked with flags %#lx of another lock",
					      static_cast<void *>(lock), flags));
		o->locked = false;
		lock_released(o->cls);
	}
	t_spin_depth--;
	pthread_mutex_unlock(&impl(lock)->m);
}

/* ---- mutexes ---- */

extern "C" void srpt_os_mutex_init(struct srpt_os_mutex *m, const char *name,
				   struct srpt_os_lock_class *cls)
{
	std::lock_guard<std::mutex> g(g_mu);
	name_lock_locked(register_obj_locked(m, sizeof(*m), Kind::kMutex, "srpt_os_mutex_init"), m,
			 name, cls);
	MutexImpl *mi = impl(m);
	pthread_mutexattr_t attr;
	pthread_mutexattr_init(&attr);
	pthread_mutexattr_settype(&attr, PTHREAD_MUTEX_ERRORCHECK);
	pthread_mutex_init(&mi->m, &attr);
	pthread_mutexattr_destroy(&attr);
	mi->magic = kMutexMagic;
}

extern "C" void srpt_os_mutex_lock(struct srpt_os_mutex *m)
{
	might_sleep("srpt_os_mutex_lock");
	{
		std::lock_guard<std::mutex> g(g_mu);
		SyncObj *o = find_obj_locked(m, Kind::kMutex, "srpt_os_mutex_lock");
		if (!o)
			return;
		if (o->destroyed) {
			violation_locked(strf("srpt_os_mutex_lock on destroyed mutex %p",
					      static_cast<void *>(m)));
			return;
		}
		if (o->locked && o->owner == std::this_thread::get_id()) {
			violation_locked(strf("mutex %p locked recursively: deadlock",
					      static_cast<void *>(m)));
			return;
		}
		check_lock_order_locked(*o);
	}
	pthread_mutex_lock(&impl(m)->m);
	std::lock_guard<std::mutex> g(g_mu);
	SyncObj *o = find_obj_locked(m, Kind::kMutex, "srpt_os_mutex_lock");
	if (o) {
		o->locked = true;
		o->owner = std::this_thread::get_id();
		lock_held(*o);
	}
}

extern "C" void srpt_os_mutex_unlock(struct srpt_os_mutex *m)
{
	{
		std::lock_guard<std::mutex> g(g_mu);
		SyncObj *o = find_obj_locked(m, Kind::kMutex, "srpt_os_mutex_unlock");
		if (!o)
			return;
		if (!o->locked || o->owner != std::this_thread::get_id()) {
			violation_locked(strf("mutex %p unlocked but not held by this thread",
					      static_cast<void *>(m)));
			return;
		}
		o->locked = false;
		lock_released(o->cls);
	}
	pthread_mutex_unlock(&impl(m)->m);
	run_unlock_hook(&State::unlock_hook);
}

extern "C" void srpt_os_mutex_destroy(struct srpt_os_mutex *m)
{
	std::lock_guard<std::mutex> g(g_mu);
	SyncObj *o = find_obj_locked(m, Kind::kMutex, "srpt_os_mutex_destroy");
	if (!o)
		return;
	if (o->locked)
		violation_locked(strf("destroying locked mutex %p", static_cast<void *>(m)));
	if (o->destroyed)
		violation_locked(strf("destroying mutex %p twice", static_cast<void *>(m)));
	if (!o->locked && !o->destroyed)
		pthread_mutex_destroy(&impl(m)->m);
	o->destroyed = true;
}

/* ---- completions ---- */

extern "C" void srpt_os_completion_init(struct srpt_os_completion *c)
{
	std::lock_guard<std::mutex> g(g_mu);
	register_obj_locked(c, sizeof(*c), Kind::kCompletion, "srpt_os_completion_init");
	CompletionImpl *ci = impl(c);
	pthread_mutex_init(&ci->m, nullptr);
	pthread_cond_init(&ci->c, nullptr);
	ci->done = 0;
	ci->magic = kCompletionMagic;
}

extern "C" void srpt_os_complete_all(struct srpt_os_completion *c)
{
	{
		std::lock_guard<std::mutex> g(g_mu);
		if (!find_obj_locked(c, Kind::kCompletion, "srpt_os_complete_all"))
			return;
	}
	CompletionImpl *ci = impl(c);
	pthread_mutex_lock(&ci->m);
	ci->done = ~0u;	/* every present and future waiter */
	pthread_cond_broadcast(&ci->c);
	pthread_mutex_unlock(&ci->m);
}

extern "C" int srpt_os_wait_for_completion(struct srpt_os_completion *c, unsigned int timeout_ms)
{
	might_sleep("srpt_os_wait_for_completion");
	fake::Config cfg;
	{
		std::lock_guard<std::mutex> g(g_mu);
		if (!find_obj_locked(c, Kind::kCompletion, "srpt_os_wait_for_completion"))
			return -ETIMEDOUT;
		cfg = S().config;
	}
	CompletionImpl *ci = impl(c);
	auto take = [ci]() {
		pthread_mutex_lock(&ci->m);
		const bool ok = ci->done > 0;
		if (ok && ci->done != ~0u)
			ci->done--;
		pthread_mutex_unlock(&ci->m);
		return ok;
	};

	auto taken = [c]() {
		std::lock_guard<std::mutex> g(g_mu);
		if (SyncObj *o = find_obj_locked(c, Kind::kCompletion, "srpt_os_wait_for_completion"))
			o->timeouts = 0;
		return 0;
	};
	if (take())
		return taken();
	/* A workqueue would make progress meanwhile. */
	if (cfg.run_work_on_wait && fake::run_work() && take())
		return taken();
	const unsigned int real_ms = std::min(timeout_ms, cfg.max_real_wait_ms);
	if (real_ms) {
		struct timespec deadline;
		clock_gettime(CLOCK_REALTIME, &deadline);
		deadline.tv_sec += real_ms / 1000;
		deadline.tv_nsec += static_cast<long>(real_ms % 1000) * 1000000;
		if (deadline.tv_nsec >= 1000000000) {
			deadline.tv_sec++;
			deadline.tv_nsec -= 1000000000;
		}
		pthread_mutex_lock(&ci->m);
		while (ci->done == 0 &&
		       pthread_cond_timedwait(&ci->c, &ci->m, &deadline) != ETIMEDOUT) {
		}
		pthread_mutex_unlock(&ci->m);
		if (take())
			return taken();
	}
	fake::advance_ns(static_cast<std::uint64_t>(timeout_ms) * 1000000);
	std::lock_guard<std::mutex> g(g_mu);
	SyncObj *o = find_obj_locked(c, Kind::kCompletion, "srpt_os_wait_for_completion");
	if (o && ++o->timeouts > cfg.max_wait_timeouts) {
		violation_locked(strf("srpt_os_wait_for_completion: %u waits timed out in a row: it "
				      "waits for what never comes",
				      o->timeouts - 1));
		o->timeouts = 0;
		return 0;
	}
	return -ETIMEDOUT;
}

/* ---- deferred work ---- */

extern "C" void srpt_os_work_init(struct srpt_os_work *w, srpt_work_fn fn, void *arg,
				  const char *name, struct srpt_os_lock_class *cls)
{
	std::lock_guard<std::mutex> g(g_mu);
	SyncObj &o = register_obj_locked(w, sizeof(*w), Kind::kWork, "srpt_os_work_init");
	WorkImpl *wi = impl(w);
	wi->fn = fn;
	wi->arg = arg;
	wi->magic = kWorkMagic;
	if (!fn)
		violation_locked("srpt_os_work_init without a function");
	if (!name || !cls)
		violation_locked("srpt_os_work_init without a lock class");
	name_lock_locked(o, w, name, cls);
}

extern "C" int srpt_os_work_schedule(struct srpt_os_work *w)
{
	std::lock_guard<std::mutex> g(g_mu);
	SyncObj *o = find_obj_locked(w, Kind::kWork, "srpt_os_work_schedule");
	if (!o || o->pending)
		return 0;
	o->pending = true;
	S().work.push_back(w);
	return 1;
}

extern "C" void srpt_os_work_cancel_sync(struct srpt_os_work *w)
{
	might_sleep("srpt_os_work_cancel_sync");
	std::unique_lock<std::mutex> g(g_mu);
	SyncObj *o = find_obj_locked(w, Kind::kWork, "srpt_os_work_cancel_sync");
	if (!o)
		return;
	/*
	 * As lockdep sees it, waiting for a work takes it like a lock: a
	 * lock held here that the work takes, or a work of the waiter's own
	 * class, is a deadlock.
	 */
	check_lock_order_locked(*o);
	if (o->pending) {
		o->pending = false;
		S().work.erase(std::remove(S().work.begin(), S().work.end(), w), S().work.end());
	}
	while (o->running) {
		if (o->runner == std::this_thread::get_id()) {
			violation_locked(strf("srpt_os_work_cancel_sync(%p) from its own work function: deadlock",
					      static_cast<void *>(w)));
			return;
		}
		g_cv.wait(g);
		o = find_obj_locked(w, Kind::kWork, "srpt_os_work_cancel_sync");
		if (!o)
			return;
	}
}

/* ======================================================================
 * The ABI: IB device and port callouts.
 * ======================================================================
 */

extern "C" int srpt_os_port_query(struct srpt_os_device *os, srpt_u32 port_num,
				  struct srpt_port_attr *attr)
{
	might_sleep_call(__func__);
	std::lock_guard<std::mutex> g(g_mu);
	srpt_os_device::Port *p = check_port_locked(os, port_num, "srpt_os_port_query");
	if (!p)
		return -EINVAL;
	p->query_calls++;
	trace_locked(strf("query %s/%u", os->name.c_str(), port_num));
	if (p->query_error) {
		/* A failed query leaves garbage behind: the core must not use it. */
		std::memset(attr, 0xa5, sizeof(*attr));
		return p->query_error;
	}
	*attr = p->attr;
	return 0;
}

extern "C" int srpt_os_port_set_devmgmt(struct srpt_os_device *os, srpt_u32 port_num, int enable)
{
	might_sleep_call(__func__);
	std::lock_guard<std::mutex> g(g_mu);
	srpt_os_device::Port *p = check_port_locked(os, port_num, "srpt_os_port_set_devmgmt");
	if (!p)
		return -EINVAL;
	p->devmgmt_calls++;
	trace_locked(strf("devmgmt %s/%u %s", os->name.c_str(), port_num, enable ? "on" : "off"));
	const int err = enable ? p->devmgmt_enable_error : p->devmgmt_disable_error;
	if (err)
		return err;
	p->devmgmt = enable != 0;
	return 0;
}

extern "C" int srpt_os_mad_agent_register(struct srpt_os_device *os, srpt_u32 port_num,
					  struct srpt_port *port)
{
	might_sleep_call(__func__);
	std::lock_guard<std::mutex> g(g_mu);
	srpt_os_device::Port *p = check_port_locked(os, port_num, "srpt_os_mad_agent_register");
	if (!p)
		return -EINVAL;
	p->agent_register_calls++;
	trace_locked(strf("agent_register %s/%u", os->name.c_str(), port_num));
	if (breach_locked(__func__, srpt_contract_mad_agent_register(p->agent, port)) && p->agent)
		return -EINVAL;	/* what the shim returns */
	if (p->agent_register_error)
		return p->agent_register_error;
	p->agent = true;
	p->agent_ctx = port;
	return 0;
}

extern "C" void srpt_os_mad_agent_unregister(struct srpt_os_device *os, srpt_u32 port_num)
{
	might_sleep_call(__func__);
	std::lock_guard<std::mutex> g(g_mu);
	srpt_os_device::Port *p = check_port_locked(os, port_num, "srpt_os_mad_agent_unregister");
	if (!p)
		return;
	p->agent_unregister_calls++;
	trace_locked(strf("agent_unregister %s/%u", os->name.c_str(), port_num));
	p->agent = false;
	p->agent_ctx = nullptr;
}

extern "C" void srpt_os_device_events_start(struct srpt_os_device *os)
{
	might_sleep_call(__func__);
	std::function<void(srpt_os_device &)> hook;
	{
		std::lock_guard<std::mutex> g(g_mu);
		if (!check_device_locked(os, "srpt_os_device_events_start"))
			return;
		os->events_start_calls++;
		trace_locked("events_start " + os->name);
		breach_locked(__func__, srpt_contract_events(&os->contract, 1));
		os->contract.events = 1;
		os->events = true;
		hook = os->on_events_start;
	}
	if (hook)
		hook(*os);
}

extern "C" void srpt_os_device_events_stop(struct srpt_os_device *os)
{
	might_sleep_call(__func__);
	std::function<void(srpt_os_device &)> hook;
	{
		std::lock_guard<std::mutex> g(g_mu);
		if (!check_device_locked(os, "srpt_os_device_events_stop"))
			return;
		os->events_stop_calls++;
		trace_locked("events_stop " + os->name);
		breach_locked(__func__, srpt_contract_events(&os->contract, 0));
		os->contract.events = 0;
		os->events = false;
		hook = os->on_events_stop;
	}
	if (hook)
		hook(*os);
}

/* ======================================================================
 * The ABI: RDMA/CM.
 * ======================================================================
 */

extern "C" int srpt_os_rdma_cm_listen(enum srpt_inet_family af, srpt_u16 port)
{
	might_sleep_call(__func__);
	std::lock_guard<std::mutex> g(g_mu);
	State &s = S();
	if (breach_locked(__func__, srpt_contract_rdma_cm_listen(af)))
		return -EINVAL;
	const bool v6 = af == SRPT_INET6;
	(v6 ? s.listen6_calls : s.listen_calls).push_back(port);
	trace_locked(strf("listen IPv%d %u", v6 ? 6 : 4, port));
	const int err = v6 ? s.config.listen6_error : s.config.listen_error;
	/* Closing never fails; the previous listener stays on a failure. */
	if (port && err)
		return err;
	(v6 ? s.listening6 : s.listening) = port;
	return 0;
}

/* ======================================================================
 * The ABI: node ACL names.
 * ======================================================================
 */

namespace {

/* kstrtouint(@s, 0): "0x" hex, "0" octal or decimal, '+' and one trailing '\n' allowed. */
bool kstrtouint0(std::string s)
{
	if (!s.empty() && s[0] == '+')
		s.erase(0, 1);
	if (!s.empty() && s.back() == '\n')
		s.pop_back();
	if (s.empty() || !std::isdigit(static_cast<unsigned char>(s[0])))
		return false;
	char *end;
	errno = 0;
	const unsigned long long v = std::strtoull(s.c_str(), &end, 0);
	return errno == 0 && *end == '\0' && v <= 0xffffffffull;
}

} // namespace

/*
 * What inet_pton_with_scope() decides, with glibc's inet_pton() reading
 * the address. Unlike the kernel, glibc refuses leading zeros beyond the
 * usual digits: IPv4 parts like "010" and IPv6 groups of more than four
 * digits like "00001" (the kernel reads both).
 */
extern "C" const char *srpt_os_wc_status_msg(enum srpt_wc_status status)
{
	might_sleep_call(__func__);
	return srpt_double_wc_status_msg(status);
}

extern "C" const char *srpt_os_ib_event_msg(int event)
{
	might_sleep_call(__func__);
	return srpt_double_ib_event_msg(event);
}

extern "C" const char *srpt_os_cm_event_msg(enum srpt_cm_kind cm, int event)
{
	might_sleep_call(__func__);
	return srpt_double_cm_event_msg(cm, event);
}

extern "C" int srpt_os_inet_pton(const char *name, srpt_size_t len)
{
	const std::string s(name, len);
	std::vector<std::string> netdevs;
	std::uint8_t a[16];

	might_sleep_call(__func__);
	{
		std::lock_guard<std::mutex> g(g_mu);
		if (s.find('\0') != std::string::npos)
			violation_locked("srpt_os_inet_pton() of a name with a NUL");
		if (const int err = count_call_locked("srpt_os_inet_pton"))
			return err;
		netdevs = S().config.netdevs;
	}
	/* The kernel's INET6_ADDRSTRLEN (glibc's is 46), scope included. */
	if (s.size() > 48)
		return -EINVAL;
	if (inet_pton(AF_INET, s.c_str(), a) == 1)
		return 0;
	const std::size_t pct = s.find('%');
	if (inet_pton(AF_INET6, s.substr(0, pct).c_str(), a) != 1)
		return -EINVAL;
	/* Only a link-local address has its scope checked (ipv6_addr_type()). */
	const bool link_local = (a[0] == 0xfe && (a[1] & 0xc0) == 0x80) ||
				(a[0] == 0xff && (a[1] & 0x0f) == 0x02);
	if (pct == std::string::npos || !link_local)
		return 0;
	/* dev_get_by_name(), else kstrtouint(), of at most 15 characters. */
	const std::string scope = s.substr(pct + 1, 15);
	if (std::count(netdevs.begin(), netdevs.end(), scope) || kstrtouint0(scope))
		return 0;
	return -EINVAL;
}

/* ======================================================================
 * The test side.
 * ======================================================================
 */

srpt_os_device::srpt_os_device()
{
	std::lock_guard<std::mutex> g(g_mu);
	S().devices.insert(this);
}

srpt_os_device::~srpt_os_device()
{
	std::lock_guard<std::mutex> g(g_mu);
	if (core && !contract.removed)
		violation_locked("fake device " + name + " destroyed while added to the core");
	S().devices.erase(this);
}

srpt_os_device::Port &srpt_os_device::port(unsigned num)
{
	if (num < 1 || num > ports.size()) {
		std::fprintf(stderr, "fake_os: test bug: %s has no port %u\n", name.c_str(), num);
		std::abort();
	}
	return ports[num - 1];
}

namespace fake {

Config &config()
{
	return S().config;
}

void reset()
{
	std::lock_guard<std::mutex> g(g_mu);
	State &s = S();

	s.config = Config{};
	if (const char *e = std::getenv("SRPT_FAKE_ECHO"))
		s.config.echo_log = e[0] == '1';
	s.alloc_calls = 0;
	s.failed_allocs = 0;
	s.fail_at = 0;
	for (srpt_os_work *w : s.work) {
		auto it = s.objs.find(reinterpret_cast<std::uintptr_t>(w));
		if (it != s.objs.end())
			it->second.pending = false;
	}
	s.work.clear();
	s.log.clear();
	s.warnings.clear();
	s.violations.clear();
	s.trace.clear();
	s.listen_calls.clear();
	s.listen6_calls.clear();
	s.calls.clear();
	s.unlock_hook = nullptr;
}

static std::string full_name(const std::string &fn)
{
	return fn.rfind("srpt_os_", 0) == 0 ? fn : "srpt_os_" + fn;
}

void fail_call(const std::string &fn, long nth, int err, long times)
{
	std::lock_guard<std::mutex> g(g_mu);
	CallStat &c = S().calls[full_name(fn)];
	c.fail_at = nth > 0 && times > 0 ? c.calls + nth : 0;
	c.fail_times = times;
	c.error = err;
}

long calls(const std::string &fn)
{
	std::lock_guard<std::mutex> g(g_mu);
	auto it = S().calls.find(full_name(fn));
	return it == S().calls.end() ? 0 : it->second.calls;
}

void fail_alloc(long nth)
{
	std::lock_guard<std::mutex> g(g_mu);
	S().fail_at = nth > 0 ? S().alloc_calls + nth : 0;
}

long alloc_calls()
{
	std::lock_guard<std::mutex> g(g_mu);
	return S().alloc_calls;
}

long failed_allocs()
{
	std::lock_guard<std::mutex> g(g_mu);
	return S().failed_allocs;
}

long live_allocs()
{
	std::lock_guard<std::mutex> g(g_mu);
	return static_cast<long>(S().allocs.size());
}

std::size_t live_bytes()
{
	std::lock_guard<std::mutex> g(g_mu);
	return S().live_bytes;
}

std::vector<LogLine> logs()
{
	std::lock_guard<std::mutex> g(g_mu);
	return S().log;
}

int log_count(const std::string &needle, int level)
{
	std::lock_guard<std::mutex> g(g_mu);
	int n = 0;
	for (const LogLine &l : S().log)
		if ((level < 0 || l.level == level) && l.text.find(needle) != std::string::npos)
			n++;
	return n;
}

std::string log_text()
{
	std::lock_guard<std::mutex> g(g_mu);
	std::string s;
	for (const LogLine &l : S().log)
		s += strf("  <%d%s> ", l.level, l.ratelimited ? ",ratelimited" : "") + l.text;
	return s;
}

void clear_logs()
{
	std::lock_guard<std::mutex> g(g_mu);
	S().log.clear();
}

std::vector<std::string> warnings()
{
	std::lock_guard<std::mutex> g(g_mu);
	return S().warnings;
}

std::vector<std::string> take_warnings()
{
	std::lock_guard<std::mutex> g(g_mu);
	return std::exchange(S().warnings, {});
}

std::vector<std::string> violations()
{
	std::lock_guard<std::mutex> g(g_mu);
	return S().violations;
}

std::vector<std::string> take_violations()
{
	std::lock_guard<std::mutex> g(g_mu);
	return std::exchange(S().violations, {});
}

std::vector<std::string> trace()
{
	std::lock_guard<std::mutex> g(g_mu);
	return S().trace;
}

std::vector<std::string> take_trace()
{
	std::lock_guard<std::mutex> g(g_mu);
	return std::exchange(S().trace, {});
}

std::size_t pending_work()
{
	std::lock_guard<std::mutex> g(g_mu);
	return S().work.size();
}

std::size_t run_work()
{
	std::size_t n = 0;

	for (;;) {
		srpt_work_fn fn;
		void *arg;
		srpt_os_work *w;
		const void *cls;
		std::vector<const void *> waiter_held;
		srpt_os_channel *flush = nullptr;
		{
			std::lock_guard<std::mutex> g(g_mu);
			State &s = S();
			if (s.work.empty() && s.config.flush_errored_qps) {
				for (const srpt_os_channel *ch : s.channels)
					if (ch->qp_in_error &&
					    (ch->zero_writes_pending > 0 || !ch->posted.empty()) &&
					    ch->core && !ch->freed() && !ch->qp_destroyed()) {
						flush = const_cast<srpt_os_channel *>(ch);
						break;
					}
			}
			if (s.work.empty() && !flush)
				break;
		}
		if (flush) {
			/* The CQ's work: what the QP in the error state flushed. */
			n += flush_qp(*flush, false);
			continue;
		}
		{
			std::lock_guard<std::mutex> g(g_mu);
			State &s = S();
			if (s.work.empty())
				continue;
			w = s.work.front();
			s.work.pop_front();
			SyncObj *o = find_obj_locked(w, Kind::kWork, "run_work");
			if (!o)
				continue;
			o->pending = false;
			o->running = true;
			o->runner = std::this_thread::get_id();
			fn = impl(w)->fn;
			arg = impl(w)->arg;
			/*
			 * lockdep: a running work holds its class (see
			 * srpt_os_work_cancel_sync), on a worker of its own:
			 * not under the locks of a waiter that runs it here.
			 */
			waiter_held.swap(t_held);
			check_lock_order_locked(*o);
			lock_held(*o);
			cls = o->cls;
		}
		fn(arg);
		n++;
		{
			std::lock_guard<std::mutex> g(g_mu);
			lock_released(cls);
			t_held.swap(waiter_held);
			waiter_held.clear();
			/* The function may have freed its own work item: that is allowed. */
			auto it = S().objs.find(reinterpret_cast<std::uintptr_t>(w));
			if (it != S().objs.end() && it->second.kind == Kind::kWork)
				it->second.running = false;
		}
		g_cv.notify_all();
	}
	return n;
}

void drop_work()
{
	std::lock_guard<std::mutex> g(g_mu);
	for (srpt_os_work *w : S().work) {
		auto it = S().objs.find(reinterpret_cast<std::uintptr_t>(w));
		if (it != S().objs.end())
			it->second.pending = false;
	}
	S().work.clear();
}

std::uint64_t now_ns()
{
	std::lock_guard<std::mutex> g(g_mu);
	return S().clock_ns;
}

void advance_ns(std::uint64_t ns)
{
	std::lock_guard<std::mutex> g(g_mu);
	S().clock_ns += ns;
}

AtomicScope::AtomicScope()
{
	t_atomic_depth++;
}

AtomicScope::~AtomicScope()
{
	t_atomic_depth--;
}

int mutexes_held()
{
	std::lock_guard<std::mutex> g(g_mu);
	int n = 0;
	for (const auto &o : S().objs)
		if (o.second.kind == Kind::kMutex && o.second.locked &&
		    o.second.owner == std::this_thread::get_id())
			n++;
	return n;
}

void set_mutex_unlock_hook(std::function<bool()> hook)
{
	std::lock_guard<std::mutex> g(g_mu);
	S().unlock_hook = std::move(hook);
}

void default_gid(std::uint64_t node_guid, unsigned port, std::uint8_t out[16])
{
	const std::uint64_t ifid = node_guid + port;

	std::memset(out, 0, 16);
	out[0] = 0xfe;
	out[1] = 0x80;
	for (int i = 0; i < 8; i++)
		out[8 + i] = static_cast<std::uint8_t>(ifid >> (56 - 8 * i));
}

std::unique_ptr<Device> make_device(const std::string &name, unsigned ports,
				    std::uint64_t node_guid)
{
	auto d = std::make_unique<Device>();

	d->name = name;
	d->info.name = d->name.c_str();
	d->info.node_guid = node_guid;
	d->info.port_count = ports;
	d->info.vendor_id = 0x0002c9;
	d->info.vendor_part_id = 4119;
	d->info.hw_ver = 0x2a0;
	/* A ConnectX-5's limits (mlx5_ib). */
	d->info.max_qp_wr = 32768;
	d->info.max_srq_wr = 32767;
	d->info.max_send_sge = 30;
	d->info.max_qp_rd_atom = 16;
	d->info.max_qp_init_rd_atom = 16;
	d->ports.resize(ports);
	for (unsigned i = 1; i <= ports; i++) {
		srpt_port_attr &a = d->port(i).attr;
		a.lid = 0x10 + i;
		a.sm_lid = 1;
		default_gid(node_guid, i, a.gid);
		a.link_ib = 1;
		a.iwarp = 0;
		a.ib_cm = 1;
		a.active = 1;
	}
	return d;
}

std::string guid_name(const Device &d, unsigned port)
{
	const std::uint8_t *g = d.ports.at(port - 1).attr.gid;
	char buf[32];

	std::snprintf(buf, sizeof(buf), "%02x%02x:%02x%02x:%02x%02x:%02x%02x", g[8], g[9], g[10],
		      g[11], g[12], g[13], g[14], g[15]);
	return buf;
}

std::string gid_name(const Device &d, unsigned port)
{
	const std::uint8_t *g = d.ports.at(port - 1).attr.gid;
	std::string s = "0x";
	char buf[3];

	for (int i = 0; i < 16; i++) {
		std::snprintf(buf, sizeof(buf), "%02x", g[i]);
		s += buf;
	}
	return s;
}

int add(Device &d)
{
	d.info.name = d.name.c_str();
	d.contract.removed = 0;
	return srpt_core_device_add(&d, &d.info, &d.core);
}

void remove(Device &d)
{
	srpt_core_device_remove(d.core);
	std::lock_guard<std::mutex> g(g_mu);
	d.core = nullptr;
	d.contract.removed = 1;
}

bool deliver_event(Device &d, unsigned port, int event)
{
	{
		std::lock_guard<std::mutex> g(g_mu);
		if (!d.events)
			return false;
		if (!d.core) {
			violation_locked("event on " + d.name +
					 " while events run but the core handle is not set");
			return false;
		}
	}
	AtomicScope atomic;
	srpt_core_port_event(d.core, port, event);
	return true;
}

std::optional<std::size_t> deliver_mad(Device &d, unsigned port, const void *req,
				       std::size_t req_len, void *rsp, std::size_t rsp_len)
{
	srpt_port *ctx;
	{
		std::lock_guard<std::mutex> g(g_mu);
		if (port < 1 || port > d.ports.size() || !d.ports[port - 1].agent)
			return std::nullopt;
		ctx = d.ports[port - 1].agent_ctx;
	}
	/* ib_mad calls receive handlers in process context. */
	return srpt_core_mad_recv(ctx, req, req_len, rsp, rsp_len);
}

std::vector<std::uint16_t> listen6_calls()
{
	std::lock_guard<std::mutex> g(g_mu);

	return S().listen6_calls;
}

int listening6_port()
{
	std::lock_guard<std::mutex> g(g_mu);

	return S().listening6;
}

std::vector<std::uint16_t> listen_calls()
{
	std::lock_guard<std::mutex> g(g_mu);
	return S().listen_calls;
}

int listening_port()
{
	std::lock_guard<std::mutex> g(g_mu);
	return S().listening;
}

} // namespace fake
