/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The two kinds of credit of a channel, accounted here and nowhere else:
 *  - request credits (SRP REQUEST LIMIT): how many IUs the initiator may
 *    send; each response returns one plus any owed by commands that ended
 *    without a response (aborted tasks, failed sends);
 *  - send queue slots: work requests the QP's send queue can still take.
 */
#pragma once

#include <ktl/atomic.h>
#include <ktl/types.h>

namespace srpt {

class Credits {
public:
	void init(ktl::u32 req_lim, ktl::u32 sq_slots)
	{
		req_lim_.store(static_cast<int>(req_lim));
		owed_.store(0);
		sq_slots_.store(static_cast<int>(sq_slots));
	}

	/* An IU arrived: the initiator used one credit. */
	void request_received() { req_lim_.fetch_sub(1, ktl::MemoryOrder::relaxed); }

	/* A response goes out: the REQ_LIM_DELTA it carries. */
	ktl::u32 take_response_delta()
	{
		req_lim_.fetch_add(1, ktl::MemoryOrder::relaxed);
		return 1 + static_cast<ktl::u32>(owed_.exchange(0));
	}
	/* That response could not be sent: its credits are owed again. */
	void response_failed(ktl::u32 delta)
	{
		req_lim_.fetch_sub(1, ktl::MemoryOrder::relaxed);
		owed_.fetch_add(static_cast<int>(delta));
	}
	/* A request ended without a response. */
	void owe_one() { owed_.fetch_add(1); }

	[[nodiscard]] bool sq_reserve(ktl::u32 n)
	{
		if (sq_slots_.fetch_sub(static_cast<int>(n)) >= static_cast<int>(n))
			return true;
		sq_slots_.fetch_add(static_cast<int>(n));
		return false;
	}
	void sq_release(ktl::u32 n) { sq_slots_.fetch_add(static_cast<int>(n)); }

	int req_lim() const { return req_lim_.load(ktl::MemoryOrder::relaxed); }
	int owed() const { return owed_.load(ktl::MemoryOrder::relaxed); }
	int sq_slots() const { return sq_slots_.load(ktl::MemoryOrder::relaxed); }

private:
	ktl::Atomic<int> req_lim_{0};
	ktl::Atomic<int> owed_{0};
	ktl::Atomic<int> sq_slots_{0};
};

} // namespace srpt
