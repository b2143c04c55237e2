/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Bookkeeping shared by the fake's source files (fake_os.cpp: kernel
 * services, IB ports, RDMA/CM; fake_channel.cpp: IB/CM, channels,
 * receive buffers, commands). Not for tests: they use fake_os.h.
 */
#pragma once

#include "fake_os.h"

#include <condition_variable>
#include <cstdarg>
#include <deque>
#include <map>
#include <mutex>
#include <set>
#include <string>
#include <thread>

namespace fake::detail {

enum class Kind { kSpin, kMutex, kCompletion, kWork };
const char *kind_name(Kind k);

/* A lock, completion or work item the core initialised, by address. */
struct SyncObj {
	Kind kind;
	std::size_t size;		/* of the opaque storage */
	const void *cls = nullptr;	/* lock class (srpt_os_lock_class) */
	std::string name;		/* of the lock, for reports */
	bool locked = false;		/* spinlock, mutex */
	std::thread::id owner;
	bool destroyed = false;		/* mutex */
	bool pending = false;		/* work */
	bool running = false;		/* work */
	std::thread::id runner;
	unsigned timeouts = 0;		/* completion: waits timed out in a row */
};

/* Calls of a function by name and an injected failure. */
struct CallStat {
	long calls = 0;
	long fail_at = 0;	/* the call number to fail; 0: none */
	long fail_times = 0;	/* ... and how many calls from there */
	int error = 0;
};

struct State {
	Config config;
	/* memory */
	std::map<std::uintptr_t, std::size_t> allocs;	/* address -> requested size */
	std::size_t live_bytes = 0;
	long alloc_calls = 0;
	long failed_allocs = 0;
	long fail_at = 0;				/* alloc_calls value to fail at; 0: off */
	/* sync objects by address */
	std::map<std::uintptr_t, SyncObj> objs;
	/* lock order, as lockdep learns it: class -> classes taken while it was held */
	std::map<const void *, std::set<const void *>> lock_after;
	std::map<const void *, std::string> lock_names;
	std::deque<srpt_os_work *> work;
	/* records */
	std::vector<LogLine> log;
	std::vector<std::string> warnings;
	std::vector<std::string> violations;
	std::vector<std::string> trace;
	std::map<std::string, CallStat> calls;
	/* objects of the shim side */
	std::set<const srpt_os_device *> devices;
	std::set<const srpt_os_channel *> channels;
	std::set<const srpt_os_recv *> recvs;
	std::set<const srpt_os_cmd *> cmds;
	/* rdma_cm */
	std::vector<std::uint16_t> listen_calls;	/* IPv4 */
	std::vector<std::uint16_t> listen6_calls;
	int listening = 0;
	int listening6 = 0;
	/* time */
	std::uint64_t clock_ns = 1000000000ull;
	/* hooks */
	std::function<bool()> unlock_hook;
};

/* g_mu guards S(); never held while calling into the core or blocking. */
extern std::mutex g_mu;
extern std::condition_variable g_cv;
State &S();

std::string vformat(const char *fmt, va_list ap);
std::string strf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* A broken kernel rule (printed at once, in case a crash follows); g_mu held. */
void violation_locked(const std::string &what);
void violation(const std::string &what);
void trace_locked(const std::string &what);
/* might_sleep(): a violation under a spinlock or in atomic context. */
void might_sleep(const char *fn);
/* might_sleep() for the srpt_os_* call @fn (__func__) if the contract says it may sleep. */
void might_sleep_call(const char *fn);
/* A breach of the contract both doubles share (@why non-NULL) is a violation; g_mu held. */
bool breach_locked(const char *fn, const char *why);

/*
 * Counts a call of @fn and returns the error injected for this call
 * (fake::fail_call), or 0; g_mu held.
 */
int count_call_locked(const char *fn);

srpt_os_device *check_device_locked(srpt_os_device *os, const char *fn);

/*
 * Completes, as flushed, the receives posted on @ch and its zero-length
 * writes; with @everything also its commands' sends and RDMA READs (as
 * ib_drain_qp() does). Calls into the core; g_mu not held. Returns the
 * number of completions delivered.
 */
std::size_t flush_qp(srpt_os_channel &ch, bool everything);

} // namespace fake::detail
