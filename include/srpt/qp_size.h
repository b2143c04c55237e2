/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * What a channel asks of the RDMA device: the sizes of its queue pair and
 * completion queue, and how many RDMA READs may be in flight each way.
 * These are the rules a real HCA holds a target to and soft-RoCE forgives
 * (it rounds queues up): a queue exactly as large as asked, a slot for
 * every drain, a CQ that never overruns, no more RDMA READs than both
 * ends allow. docs/design.md lists them with the tests that hold them.
 */
#pragma once

#include <srpt/abi.h>
#include <srpt/types.h>

namespace srpt {

struct DeviceAttrs;

/* Receive ring entries of a channel without SRQ (the initiator's queue depth). */
constexpr u32 kMaxChannelRecvDepth = 128;
/*
 * The receive ib_drain_qp() posts on a QP without SRQ, besides the ring:
 * it needs a slot of its own while the flushed receives wait to be polled.
 */
constexpr u32 kDrainRecvWrs = 1;
/*
 * Send work requests besides the commands': the zero-length writes (one
 * for waiting IUs, one that drains) and the one ib_drain_qp() posts.
 */
constexpr u32 kExtraSendWrs = 4;
/*
 * The fewest send work requests the commands get: what one piece of a
 * transfer under memory registration takes (registration, RDMA,
 * invalidation) plus a response.
 */
constexpr u32 kMinSendWrs = 4;
/* The smallest send queue a login retries down to (MIN_SRPT_SQ_SIZE). */
constexpr u32 kMinSqSize = 16;
/* The fewest work requests per queue a device must allow to be used at all. */
constexpr u32 kMinDeviceQpWr = kMinSendWrs + kExtraSendWrs;
/* RDMA READs in flight each way when both ends allow it (as ib_srp asks). */
constexpr u8 kRdmaReadDepth = 4;

/* What the initiator's connection request allows, from the CM's REQ event. */
struct PeerReadDepth {
	u8 initiator_depth;		/* RDMA READs we may have in flight to it */
	u8 responder_resources;		/* ... it may have in flight to us */
};

/* The RDMA READ depths of a channel: within the device's limits and the initiator's. */
PeerReadDepth read_depth(const DeviceAttrs &dev, PeerReadDepth peer);

/*
 * The QP and CQ of a channel with @rq_size receive buffers (not posted on
 * the QP with @use_srq) whose send queue has room for @sq_size work
 * requests, half of them the commands' (max_rdma_ctxs); IB/CM's QP on
 * P_Key index @pkey_index.
 */
srpt_qp_params qp_params(const DeviceAttrs &dev, u32 rq_size, bool use_srq, u32 sq_size,
			 PeerReadDepth depth, u16 pkey_index);

} // namespace srpt
