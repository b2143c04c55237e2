// SPDX-License-Identifier: GPL-2.0-only
/* The send queue of a channel: slots, the commands waiting for them, and posting. */
#include <ktl/assert.h>
#include <srpt/credits.h>
#include <srpt/iu.h>
#include <srpt/send_queue.h>

namespace srpt {

SendQueue::SendQueue(Credits &credits) : credits_(credits)
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
	const u32 seen = free_.load();

	/* Nobody waits: the step goes now if it fits, never queued. */
	if (first) {
		const Step s = post(*c);

		if (s != Step::kWait) {
			mutex_.unlock();
			return s == Step::kPosted ? Result::kPosted : Result::kFailed;
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
	if (!first || free_.load() != seen) {
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
		const Step s = post(*c);

		if (s == Step::kWait)
			return;
		waiting_.erase(c);
		n_waiting_.fetch_sub(1);
		if (s == Step::kFailed)
			failed->push_back(c);
	}
}

SendQueue::Step SendQueue::post(Cmd &c)
{
	const u32 free = free_.load();
	/* Write data comes in before LIO executes; everything else answers. */
	const bool answer = c.state() != CmdState::kNeedData;
	const Transfer::Mark start = c.xfer.mark();
	u32 wrs = 0;
	u32 blocked = 0;	/* slots this step would need with the piece that did not fit */
	u32 kept_len = 0;	/* bytes of a kept buffer, which goes by length */

	if (closed_) {
		c.step_err_ = -ktl::kESHUTDOWN;
		c.post_err_ = true;
		c.failed_with_rsp_ = false;
		return Step::kFailed;
	}
	if (c.need_ > free)
		return Step::kWait;
	c.round_first_ = c.xfer.cursor();
	c.round_bufs_ = 0;
	if (c.kept) {
		/*
		 * One buffer of at most a page, below any piece limit: it
		 * never goes in part, so the rest of it is all of it from its
		 * start, one piece, one work request, nothing to map.
		 */
		kept_len = c.xfer.left();
		if (kept_len) {
			wrs = 1;
			c.xfer.advance(Piece{0, 0, kept_len});
		}
	} else {
		while (c.xfer.left()) {
			const Piece p = c.xfer.next(piece_limit_);
			const int n = srpt_os_cmd_rdma_map(c.os.get(), p.buf, p.off, p.len);

			if (n < 0) {
				if (c.round_bufs_)
					break;
				/* Work in flight gives registrations and memory back. */
				if (transient(n) && free < slots_) {
					c.need_ = 0;
					return Step::kWait;
				}
				c.step_err_ = n;
				c.post_err_ = false;
				return Step::kFailed;
			}
			if (static_cast<u32>(n) > slots_) {
				/* It would never fit: smaller pieces for this channel from now on. */
				srpt_os_cmd_rdma_unmap(c.os.get(), p.buf);
				if (shrink_piece_limit())
					continue;
				if (c.round_bufs_)
					break;
				c.step_err_ = -ktl::kENOSPC;
				c.post_err_ = false;
				return Step::kFailed;
			}
			if (wrs + static_cast<u32>(n) > free) {
				srpt_os_cmd_rdma_unmap(c.os.get(), p.buf);
				blocked = wrs + static_cast<u32>(n);
				/* The response goes with the last piece: wait for its slot too. */
				if (answer && p.len == c.xfer.left())
					blocked++;
				break;
			}
			wrs += static_cast<u32>(n);
			c.round_bufs_++;
			c.xfer.advance(p);
			/* A buffer has one mapping at a time: its next piece next round. */
			if (c.xfer.left() && c.xfer.cursor() == p.buf)
				break;
		}
	}
	const bool with_rsp = answer && !c.xfer.left() && wrs + 1 <= free;
	const bool finishes = answer ? with_rsp : !c.xfer.left();
	/*
	 * A step that does not finish goes in part only on an idle queue:
	 * rounds are for transfers larger than the whole queue. Otherwise
	 * wait until all of it fits.
	 */
	if (!finishes && (!wrs || free < slots_)) {
		c.unmap_round();
		c.xfer.rewind(start);
		if (!blocked)
			blocked = wrs + 1;
		c.need_ = ktl::min(blocked, slots_);
		return Step::kWait;
	}

	const u32 n = wrs + (with_rsp ? 1 : 0);
	u32 delta = 0;
	ktl::size_t len = 0;
	take(n);
	c.sq_held_ = n;
	c.need_ = 0;
	if (with_rsp) {
		delta = credits_.take_response_delta();
		len = c.build_rsp(delta);
	}
	/* The completion may run before post returns: everything is set. */
	const int ret = with_rsp && !len ? -ktl::kEINVAL :
		srpt_os_cmd_post(c.os.get(), static_cast<u32>(len), kept_len, c.round_bufs_);
	if (!ret)
		return Step::kPosted;
	untake(n);
	c.sq_held_ = 0;
	if (with_rsp)
		credits_.response_failed(delta);
	c.unmap_round();
	c.step_err_ = ret;
	c.post_err_ = true;
	c.failed_with_rsp_ = with_rsp;
	return Step::kFailed;
}


void SendQueue::end_failed(CmdList *failed)
{
	/* Not under the mutex: ending a command calls LIO. */
	while (Cmd *c = failed->pop_front())
		c->post_failed();
}

} // namespace srpt
