/* SPDX-License-Identifier: GPL-2.0-only */
/* A receive context: one posted receive buffer and the IU that arrived in it. */
#pragma once

#include <ktl/list.h>
#include <ktl/owned.h>
#include <ktl/types.h>
#include <srpt/abi.h>
#include <srpt/live.h>

namespace srpt {

/* The kernel side of a receive buffer, owned. */
using OsRecv = ktl::Owned<srpt_os_recv, srpt_os_recv_free>;

/* srpt_recv: a receive buffer and what arrived in it. */
struct RecvCtx {
	RecvCtx() { live_inc(Live::kRecv); }
	~RecvCtx() { live_dec(Live::kRecv); }
	RecvCtx(const RecvCtx &) = delete;
	RecvCtx &operator=(const RecvCtx &) = delete;

	OsRecv os;
	ktl::u8 *iu = nullptr;		/* where the IU is received */
	ktl::u32 byte_len = 0;		/* bytes of the last IU */
	ktl::u64 recv_ns = 0;		/* when it arrived (srpt_core_recv_done()) */
	ktl::ListNode wait_node;	/* on ChannelIo::wait_list_ (CQ context only) */
};

} // namespace srpt
