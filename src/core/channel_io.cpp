// SPDX-License-Identifier: GPL-2.0-only
/*
 * A channel's data path resources: its send contexts (srpt_get_send_ioctx),
 * its receive ring, and the zero-length writes that have IUs waiting for
 * a context handled in completion context.
 */
#include <ktl/errno.h>
#include <ktl/new.h>
#include <srpt/channel.h>
#include <srpt/handles.h>
#include <srpt/params.h>

namespace srpt {

ChannelIo::ChannelIo(Channel &ch, const IoLimits &limits) : ch_(ch), limits_(limits) {}

ChannelIo::~ChannelIo()
{
	KTL_WARN_ON(recv_ring_ || cmds_);
}

int ChannelIo::create(srpt_os_channel *os, srpt_os_device *dev_os)
{
	ktl::AllocChecker ac;
	const u32 n = limits_.rq_size;

	os_ = os;
	dev_os_ = dev_os;
	credits_.init(n);
	sendq_.init(limits_.max_send_wr);

	cmds_ = new (&ac) Cmd *[n]();
	if (!ac.check())
		return -ktl::kENOMEM;
	for (u32 i = 0; i < n; i++) {
		Cmd *c = new (&ac) Cmd(&ch_, *this);
		void *rsp;
		const u8 *sense;

		if (!ac.check())
			return -ktl::kENOMEM;
		cmds_[i] = c;
		c->os.reset(srpt_os_cmd_alloc(os_, to_handle<srpt_cmd>(c), limits_.max_rsp_size, &rsp,
					      &sense));
		if (!c->os)
			return -ktl::kENOMEM;
		c->rsp_buf = static_cast<u8 *>(rsp);
		c->sense_buf = sense;
		c->rsp_size = limits_.max_rsp_size;
	}
	/* The first one on top. */
	for (u32 i = n; i-- > 0;) {
		cmds_[i]->next_free = free_cmds_;
		free_cmds_ = cmds_[i];
	}

	if (limits_.use_srq)
		return 0;
	recv_ring_ = new (&ac) RecvCtx[n];
	if (!ac.check())
		return -ktl::kENOMEM;
	const u32 align = imm_align_offset(limits_.imm_data_offset);
	for (u32 i = 0; i < n; i++) {
		RecvCtx &r = recv_ring_[i];
		void *iu;

		r.os.reset(srpt_os_recv_alloc(dev_os_, to_handle<srpt_recv>(&r), max_req_size(), align,
					      &iu));
		if (!r.os)
			return -ktl::kENOMEM;
		r.iu = static_cast<u8 *>(iu);
		const int ret = srpt_os_recv_post(dev_os_, os_, r.os.get());
		if (ret)
			return ret;
	}
	return 0;
}

void ChannelIo::destroy()
{
	KTL_WARN_ON(sendq_.waiting());
	/* SRQ buffers that waited here belong to the device: give them back. */
	while (RecvCtx *r = wait_list_.pop_front()) {
		if (limits_.use_srq)
			repost(r);
	}
	/* The contexts free their kernel sides as they go. */
	delete[] recv_ring_;
	recv_ring_ = nullptr;
	if (cmds_) {
		free_cmds_ = nullptr;
		returned_.store(nullptr);
		for (u32 i = 0; i < limits_.rq_size; i++)
			delete cmds_[i];
		delete[] cmds_;
		cmds_ = nullptr;
	}
}

u32 ChannelIo::fold_stats(Counters &total) const
{
	/*
	 * Given back before the counters and taken after them: a command
	 * whose arrival is counted and whose data is not (or the reverse)
	 * was taken before the last load and not given back before the
	 * first, so it is in the depth whatever runs meanwhile.
	 */
	const u32 back = given_back_.load(ktl::MemoryOrder::acquire);

	stats_.fold_into(total);
	ktl::atomic_thread_fence(ktl::MemoryOrder::acquire);
	return taken_.load(ktl::MemoryOrder::relaxed) - back;
}

/* Completion context only: the one consumer of the returned stack. */
Cmd *ChannelIo::get_cmd()
{
	/*
	 * Contexts given back go first, the last one first: its memory (and
	 * its page) is the warmest, and only about the queue depth of the
	 * contexts are ever used. The stack is taken whole and put on top of
	 * the free one as it is: one consumer, so it cannot change under a
	 * pop (no ABA).
	 */
	if (returned_.load(ktl::MemoryOrder::relaxed)) {
		Cmd *top = returned_.exchange(nullptr);
		Cmd *last = top;

		while (last->next_free)
			last = last->next_free;
		last->next_free = free_cmds_;
		free_cmds_ = top;
	}
	Cmd *c = free_cmds_;
	if (!c)
		return nullptr;
	free_cmds_ = c->next_free;
	c->next_free = nullptr;
	c->reset();
	taken_.add_single_writer(1);
	return c;
}

void ChannelIo::put_cmd(Cmd *c)
{
	Cmd *head = returned_.load(ktl::MemoryOrder::relaxed);

	do {
		c->next_free = head;
	} while (!returned_.compare_exchange(head, c, ktl::MemoryOrder::seq_cst));
	given_back_.fetch_add(1, ktl::MemoryOrder::release);
	/*
	 * Pairs with handle_iu(): either the IU that found no context sees
	 * this one on the stack, or this sees it starved. The push above
	 * and this load are both seq_cst and handle_iu() fences between
	 * its flag and its look, so one of the two sees the other without
	 * a fence here (the push's locked instruction is one on x86). IUs
	 * waiting for a context are handled in completion context only:
	 * have a zero-length write complete there. Through the send queue,
	 * which posts nothing once the channel drains.
	 */
	if (starved_.load(ktl::MemoryOrder::seq_cst) && ch_.state() == ChState::kLive &&
	    !kick_pending_.exchange(true, ktl::MemoryOrder::seq_cst)) {
		int ret = -ktl::kESHUTDOWN;

		(void)sendq_.if_open([&] { ret = srpt_os_channel_post_zero_write(os_); });
		if (ret)
			kick_pending_.store(false);
	}
}

int ChannelIo::start()
{
	/* Process the IUs that came early, in completion context. */
	kick_pending_.store(true);
	return srpt_os_channel_post_zero_write(os_);
}

void ChannelIo::on_zero_write_done(bool ok)
{
	kick_pending_.store(false);
	/* Pairs with put_cmd(): a context it freed without a kick is found below. */
	ktl::atomic_thread_fence(ktl::MemoryOrder::seq_cst);
	if (ok)
		process_wait_list();
}

} // namespace srpt
