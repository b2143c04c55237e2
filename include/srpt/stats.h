/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Statistics. Each channel counts into its own relaxed atomics (no lock,
 * no sharing between channels on the data path); a port folds a channel's
 * counts into its totals when the channel goes, and readers sum the live
 * channels on top. The counts of every command and the latency histogram
 * are kept by the channel's completion context alone (add_cq(): a plain
 * load and store, no locked instruction); the rest, counted wherever they
 * happen, with add().
 */
#pragma once

#include <ktl/assert.h>
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

/* Counted only in the channel's completion context, its one writer. */
constexpr bool completion_only(Stat s)
{
	switch (s) {
	case Stat::kCommands:
	case Stat::kReads:
	case Stat::kWrites:
	case Stat::kBytesRead:
	case Stat::kBytesWritten:
	case Stat::kImmediateWrites:
		return true;
	default:
		return false;
	}
}

/* Command latency, receipt to response completion: < 100 us, < 1 ms, ..., >= 1 s. */
constexpr int kLatencyBuckets = 6;

class Counters {
public:
	/* From any context. */
	void add(Stat s, u64 n = 1)
	{
		KTL_WARN_ON(completion_only(s));
		v_[static_cast<int>(s)].fetch_add(n, ktl::MemoryOrder::relaxed);
	}
	/* From the channel's completion context only. */
	template <Stat S> void add_cq(u64 n = 1)
	{
		static_assert(completion_only(S), "add() counts this statistic");
		v_[static_cast<int>(S)].add_single_writer(n);
	}
	/* From the channel's completion context only. */
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
