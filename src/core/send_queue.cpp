// SPDX-License-Identifier: GPL-2.0-only
/* The send queue of a channel: slots, and the commands waiting for them. */
#include <ktl/assert.h>
#include <srpt/iu.h>
#include <srpt/send_queue.h>

namespace srpt {

SendQueue::SendQueue()
{
	KTL_LOCK_INIT(mutex_);
	/* A whole transfer in one piece until a piece turns out too big. */
	piece_limit_ = kMaxDataLen;
}

SendQueue::~SendQueue()
{
	KTL_WARN_ON(!waiting_.empty());
	mutex_.destroy();
}

void SendQueue::init(u32 slots)
{
	slots_ = slots;
	free_.store(slots);
}

void SendQueue::take(u32 n)
{
	KTL_WARN_ON(free_.fetch_sub(n) < n);
}

bool SendQueue::shrink_piece_limit()
{
	if (piece_limit_ <= SRPT_RDMA_PIECE_ALIGN)
		return false;
	piece_limit_ /= 2;
	return true;
}

SendQueue::Result SendQueue::submit(Cmd *c)
{
	/* Released below, or by queue_and_unlock(). */
	mutex_.lock();
	const bool first = waiting_.empty();
	const u32 seen = free_slots();

	/* Nobody waits: the step goes now if it fits, never queued. */
	if (first) {
		const Cmd::Step s = c->post_step(*this);

		if (s != Cmd::Step::kWait) {
			mutex_.unlock();
			return s == Cmd::Step::kPosted ? Result::kPosted : Result::kFailed;
		}
	}
	return queue_and_unlock(c, first, seen);
}

SendQueue::Result SendQueue::queue_and_unlock(Cmd *c, bool first, u32 seen)
{
	CmdList failed;
	Result r = Result::kQueued;

	/*
	 * Counted as waiting before its step looks at the free slots
	 * (again): a completion that gives slots back meanwhile sees it
	 * waiting and pumps (release()).
	 */
	waiting_.push_back(c);
	n_waiting_.fetch_add(1);
	/* Slots come back only outside the mutex: none did since the try above. */
	if (!first || free_slots() != seen) {
		pump_locked(&failed);
		if (!CmdList::contains_node(c))
			r = Result::kPosted;
		for (Cmd *f : failed) {
			if (f == c) {
				failed.erase(c);
				r = Result::kFailed;
				break;
			}
		}
	}
	mutex_.unlock();
	end_failed(&failed);
	return r;
}

void SendQueue::release(u32 n)
{
	free_.fetch_add(n);
	/* After giving the slots back (see submit()). */
	if (n_waiting_.load())
		pump();
}

void SendQueue::pump()
{
	CmdList failed;
	{
		ktl::MutexGuard g(mutex_);
		pump_locked(&failed);
	}
	end_failed(&failed);
}

void SendQueue::stop()
{
	ktl::MutexGuard g(mutex_);

	closed_ = true;
}

void SendQueue::flush()
{
	CmdList failed;
	{
		ktl::MutexGuard g(mutex_);

		closed_ = true;
		/* Every step fails once closed: this empties the queue. */
		pump_locked(&failed);
	}
	end_failed(&failed);
}

void SendQueue::pump_locked(CmdList *failed)
{
	/* In order: a large transfer at the head is not starved by small ones. */
	while (Cmd *c = waiting_.front()) {
		const Cmd::Step s = c->post_step(*this);

		if (s == Cmd::Step::kWait)
			return;
		waiting_.erase(c);
		n_waiting_.fetch_sub(1);
		if (s == Cmd::Step::kFailed)
			failed->push_back(c);
	}
}

void SendQueue::end_failed(CmdList *failed)
{
	/* Not under the mutex: ending a command calls LIO. */
	while (Cmd *c = failed->pop_front())
		c->post_failed();
}

} // namespace srpt
