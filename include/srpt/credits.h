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
		initial_ = static_cast<int>(req_lim);
		received_.store(0);
		answered_.store(0);
		owed_.store(0);
	}

	/* An IU arrived: the initiator used one credit. Completion context only. */
	void request_received() { received_.add_single_writer(1); }

	/* A response goes out: the REQ_LIM_DELTA it carries. Under the send queue's mutex. */
	ktl::u32 take_response_delta()
	{
		answered_.add_single_writer(1);
		/* Owed credits are rare: no locked instruction when there are none. */
		if (!owed_.load(ktl::MemoryOrder::relaxed))
			return 1;
		return 1 + static_cast<ktl::u32>(owed_.exchange(0));
	}
	/* That response could not be sent: its credits are owed again. Under the same mutex. */
	void response_failed(ktl::u32 delta)
	{
		answered_.add_single_writer(-1);
		owed_.fetch_add(static_cast<int>(delta));
	}
	/* A request ended without a response: from any context. */
	void owe_one() { owed_.fetch_add(1); }

	int req_lim() const
	{
		return initial_ + answered_.load(ktl::MemoryOrder::relaxed) -
		       received_.load(ktl::MemoryOrder::relaxed);
	}
	int owed() const { return owed_.load(ktl::MemoryOrder::relaxed); }

private:
	/* received_ and answered_ have one writer at a time each (see above). */
	int initial_ = 0;
	ktl::Atomic<int> received_{0};
	ktl::Atomic<int> answered_{0};
	ktl::Atomic<int> owed_{0};
};

} // namespace srpt
