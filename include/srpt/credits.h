/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The request credits of a channel (SRP REQUEST LIMIT), accounted here and
 * nowhere else: how many IUs the initiator may send. Each response returns
 * one plus any owed by commands that ended without a response (aborted
 * tasks, failed sends). Send queue slots are the send queue's
 * (send_queue.h).
 */
#pragma once

#include <ktl/atomic.h>
#include <ktl/types.h>

namespace srpt {

class Credits {
public:
	void init(ktl::u32 req_lim)
	{
		req_lim_.store(static_cast<int>(req_lim));
		owed_.store(0);
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

	int req_lim() const { return req_lim_.load(ktl::MemoryOrder::relaxed); }
	int owed() const { return owed_.load(ktl::MemoryOrder::relaxed); }

private:
	ktl::Atomic<int> req_lim_{0};
	ktl::Atomic<int> owed_{0};
};

} // namespace srpt
