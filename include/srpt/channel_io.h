/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The data path of a channel: its send contexts and receive buffers, the
 * IUs that wait for LIVE or for a free context, SRP credits, the send
 * queue and the counters. A Channel owns one and runs its life (login,
 * states, release); receive.cpp and its commands (Cmd) use it.
 *
 * Locking: none on the data path. The channel's completions run one at
 * a time (one CQ, polled by one work item), and what only they touch is
 * theirs alone: the wait list, the free send contexts they take from,
 * the counters they keep (stats.h). Send contexts come back from any
 * context onto a lock-free stack (put_cmd), which the completion side
 * takes whole whenever it is not empty (get_cmd).
 */
#pragma once

#include <ktl/atomic.h>
#include <ktl/list.h>
#include <ktl/lock.h>
#include <srpt/abi.h>
#include <srpt/credits.h>
#include <srpt/cmd.h>
#include <srpt/send_queue.h>
#include <srpt/stats.h>

namespace srpt {

class Channel;

/* What the login negotiated and the queue pair got. */
struct IoLimits {
	u32 rq_size = 0;		/* receive buffers, send contexts and credits */
	u32 max_send_wr = 0;		/* the commands' share of the send queue */
	u32 max_ti_iu_len = 0;
	u32 imm_data_offset = 0;	/* 0: no immediate data */
	u32 max_rsp_size = 0;
	bool use_srq = false;
};

class ChannelIo {
public:
	ChannelIo(Channel &ch, const IoLimits &limits);
	~ChannelIo();
	ChannelIo(const ChannelIo &) = delete;
	ChannelIo &operator=(const ChannelIo &) = delete;

	/*
	 * The send contexts and, without SRQ, the posted receive buffers of
	 * the QP of @os; what was made is undone by destroy(), also on failure.
	 */
	[[nodiscard]] int create(srpt_os_channel *os, srpt_os_device *dev_os);
	/* Once the QP is drained and gone: nothing completes any more. */
	void destroy();

	void on_recv(RecvCtx *r, srpt_wc_status status, u32 byte_len, u64 now_ns);
	void repost(RecvCtx *r);
	/* Handles the IUs that wait, in order, while they can go (completion context). */
	void process_wait_list()
	{
		if (!wait_list_.empty())
			drain_wait_list();
	}
	/* A command is done with its send context. */
	void put_cmd(Cmd *c);
	/* LIVE: have what arrived early handled in completion context. */
	[[nodiscard]] int start();
	/* The zero-length write of start(), of put_cmd() or of the drain completed. */
	void on_zero_write_done(bool ok);

	const IoLimits &limits() const { return limits_; }
	Credits &credits() { return credits_; }
	SendQueue &sendq() { return sendq_; }
	Counters &stats() { return stats_; }
	/*
	 * Adds the counters to @total; returns the commands received and
	 * not yet released at any moment of that, so that one counted in
	 * part is among them.
	 */
	u32 fold_stats(Counters &total) const;

private:
	Cmd *get_cmd();
	bool handle_iu(RecvCtx *r);
	/* Hands @c (holding @r, unless an SRQ's) to LIO, or answers it. */
	void handle_cmd(RecvCtx *r, Cmd *c);
	[[gnu::cold, gnu::noinline]] void handle_tsk_mgmt(RecvCtx *r, Cmd *c);
	/* Out of line: the data path's entry points stay small (see Kbuild). */
	[[gnu::noinline]] void drain_wait_list();

	Channel &ch_;
	const IoLimits &limits_;
	srpt_os_channel *os_ = nullptr;
	srpt_os_device *dev_os_ = nullptr;

	Credits credits_;
	SendQueue sendq_{credits_};
	Counters stats_;
	/* Send contexts taken (completion context only) and given back. */
	ktl::Atomic<u32> taken_{0};
	ktl::Atomic<u32> given_back_{0};

	RecvCtx *recv_ring_ = nullptr;	/* rq_size entries unless use_srq */
	Cmd **cmds_ = nullptr;		/* rq_size send contexts */
	/* Stacks through Cmd::next_free: the free (completion context only), the given back. */
	Cmd *free_cmds_ = nullptr;
	ktl::Atomic<Cmd *> returned_{nullptr};
	/* IUs waiting for LIVE or for a free send context; CQ context only. */
	ktl::List<RecvCtx, &RecvCtx::wait_node> wait_list_;
	bool processing_wait_list_ = false;
	/*
	 * The IU at the head of the wait list found no free send context,
	 * and whether a zero-length write will look at it again.
	 */
	ktl::Atomic<bool> starved_{false};
	ktl::Atomic<bool> kick_pending_{false};
};

} // namespace srpt
