/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Statistics. Each channel counts into its own relaxed atomics (no lock,
 * no sharing between channels on the data path); a port folds a channel's
 * counts into its totals when the channel goes, and readers sum the live
 * channels on top.
 */
#pragma once

#include <ktl/atomic.h>
#include <ktl/string.h>
#include <srpt/types.h>

namespace srpt {

enum class Stat : int {
	kCommands,		/* SRP_CMDs received */
	kReads,			/* with a data-in buffer */
	kWrites,		/* with a data-out buffer */
	kBytesRead,		/* data sent to the initiator */
	kBytesWritten,		/* data received from the initiator */
	kImmediateWrites,	/* writes whose data came inside the IU */
	kTaskManagement,	/* SRP_TSK_MGMTs received */
	kAbortedTasks,		/* commands LIO aborted without a response */
	kErrMalformed,		/* IUs answered with CHECK CONDITION or dropped as malformed */
	kErrNoMemory,		/* commands answered TASK SET FULL: memory or registrations short */
	kErrSend,		/* responses that could not be sent */
	kErrRdmaRead,		/* failed RDMA READs of write data */
	kErrUnknownIu,		/* IUs with an opcode we do not serve */
	kDropped,		/* commands dropped while the session stopped */
	kSqWaits,		/* steps that waited for send queue slots */
	kCount,
};

/* Command latency, receipt to response completion: < 100 us, < 1 ms, ..., >= 1 s. */
constexpr int kLatencyBuckets = 6;

class Counters {
public:
	void add(Stat s, u64 n = 1) { v_[static_cast<int>(s)].fetch_add(n, ktl::MemoryOrder::relaxed); }
	void latency(u64 ns);
	/* Adds this channel's counts to @total. */
	void fold_into(Counters &total) const;
	u64 get(Stat s) const { return v_[static_cast<int>(s)].load(ktl::MemoryOrder::relaxed); }
	u64 bucket(int i) const { return latency_[i].load(ktl::MemoryOrder::relaxed); }
	/* "name value" lines of every counter and latency bucket. */
	void format(ktl::TextBuf &out) const;

private:
	ktl::Atomic<u64> v_[static_cast<int>(Stat::kCount)];
	ktl::Atomic<u64> latency_[kLatencyBuckets];
};

} // namespace srpt
