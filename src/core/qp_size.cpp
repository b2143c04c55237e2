// SPDX-License-Identifier: GPL-2.0-only
/* A channel's queue pair and completion queue sizes; see include/srpt/qp_size.h. */
#include <ktl/utility.h>
#include <srpt/device.h>
#include <srpt/qp_size.h>

namespace srpt {
namespace {

/*
 * Scatter/gather entries per send work request: 64 KiB of 4 KiB pages
 * per RDMA READ or WRITE (a response takes one). Devices size every entry
 * of the send queue for this many, so the device's maximum (32 on
 * soft-RoCE, where that doubles each entry) would cost memory in every
 * slot of every channel; a larger transfer only takes more requests.
 */
constexpr u32 kMaxSendSge = 16;

u8 min3(u32 a, u32 b, u32 c)
{
	return static_cast<u8>(ktl::min(ktl::min(a, b), c));
}

} // namespace

PeerReadDepth read_depth(const DeviceAttrs &dev, PeerReadDepth peer)
{
	return {min3(kRdmaReadDepth, peer.initiator_depth, dev.max_qp_init_rd_atom),
		min3(kRdmaReadDepth, peer.responder_resources, dev.max_qp_rd_atom)};
}

srpt_qp_params qp_params(const DeviceAttrs &dev, u32 rq_size, bool use_srq, u32 sq_size,
			 PeerReadDepth depth, u16 pkey_index)
{
	srpt_qp_params p{};

	p.max_recv_wr = use_srq ? 0 : rq_size + kDrainRecvWrs;
	p.use_srq = use_srq;
	/*
	 * Half the send queue for the commands (responses and RDMA), which
	 * rdma_rw_init_qp() doubles or more and then clamps to max_qp_wr:
	 * so the commands' share and the extra WRs fit into max_qp_wr alone.
	 */
	p.max_rdma_ctxs = ktl::min(ktl::max(sq_size / 2, kMinSendWrs), dev.max_qp_wr - kExtraSendWrs);
	p.max_send_wr = p.max_rdma_ctxs + kExtraSendWrs;
	/*
	 * Every completion that may wait in the CQ at once: a receive per
	 * posted buffer (with SRQ, per credit), a send per command's post
	 * (each signals once and takes a WR of the commands' share), the
	 * zero-length writes and the drain's. The CQ is shared (the CQ pool):
	 * an overrun would break every QP on it.
	 */
	p.cq_size = (use_srq ? rq_size : p.max_recv_wr) + p.max_rdma_ctxs + kExtraSendWrs;
	p.max_send_sge = ktl::min(kMaxSendSge, dev.max_send_sge);
	p.initiator_depth = depth.initiator_depth;
	p.responder_resources = depth.responder_resources;
	p.pkey_index = pkey_index;
	/*
	 * An initiator whose receive queue is empty is retried for ever (7),
	 * never failed: its buffers come back as it handles our responses.
	 * Flow control: our receive queue sends credits (end-to-end, as the
	 * in-tree target and ib_srp's own REP do).
	 */
	p.rnr_retry_count = 7;
	p.flow_control = 1;
	return p;
}

} // namespace srpt
