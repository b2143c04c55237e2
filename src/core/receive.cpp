// SPDX-License-Identifier: GPL-2.0-only
/*
 * A channel's receive side, where a command begins: receive
 * (srpt_recv_done, srpt_handle_new_iu) -> parse and allocate
 * (srpt_handle_cmd), handing the command to LIO or answering it. Its
 * transfer and response are cmd.cpp's; task management is tmf.cpp's.
 */
#include <ktl/errno.h>
#include <srpt/channel.h>
#include <srpt/handles.h>
#include <srpt/rdma_port.h>
#include <srpt/iu.h>
#include <srpt/response.h>
#include <srpt/send_queue.h>
#include <srpt/srp.h>

namespace srpt {

/* ---- receive ---- */

void ChannelIo::on_recv(RecvCtx *r, srpt_wc_status status, u32 byte_len, u64 now_ns)
{
	if (status != SRPT_WC_SUCCESS) {
		/* Flushed receives are normal while draining; otherwise the QP broke. */
		if (ch_.state() <= ChState::kLive) {
			if (status != SRPT_WC_WR_FLUSH_ERR)
				SRPT_LOG_LIMITED(SRPT_LOG_ERR, "%s: receive failed: %s\n", ch_.label(),
						 srpt_os_wc_status_msg(status));
			ch_.request_logout();
		}
		/*
		 * A buffer of the shared receive queue serves every channel of
		 * the device: an IU too long for it, or a QP that broke under
		 * it, must not take it away from them.
		 */
		if (limits_.use_srq)
			repost(r);
		return;
	}
	r->byte_len = byte_len;
	r->recv_ns = now_ns;
	/* Nothing waits: handle it now, inline (the usual case). */
	if (wait_list_.empty() && !processing_wait_list_) {
		processing_wait_list_ = true;
		const bool done = handle_iu(r);
		processing_wait_list_ = false;
		if (!done)
			wait_list_.push_back(r);
		return;
	}
	/* Behind the IUs that wait already: the initiator's order is kept. */
	wait_list_.push_back(r);
	process_wait_list();
}

void ChannelIo::repost(RecvCtx *r)
{
	const int ret = srpt_os_recv_post(dev_os_, limits_.use_srq ? nullptr : os_, r->os.get());

	if (ret && ch_.state() <= ChState::kLive)
		SRPT_LOG_LIMITED(SRPT_LOG_ERR, "%s: reposting a receive buffer failed (%pe)\n",
				 ch_.label(), ktl::err_arg(ret));
}

/* srpt_handle_new_iu: false when the IU must wait (and was not consumed). */
bool ChannelIo::handle_iu(RecvCtx *r)
{
	if (ch_.state() == ChState::kConnecting)
		return false;

	const u8 opcode = r->byte_len ? r->iu[0] : 0;
	Cmd *c = nullptr;
	if (r->byte_len && (opcode == srp::kCmd || opcode == srp::kTskMgmt)) {
		c = get_cmd();
		if (!c) {
			/*
			 * Say so, then look once more: a concurrent put_cmd()
			 * either gives its context to this look or sees the
			 * flag and kicks (see put_cmd()).
			 */
			starved_.store(true, ktl::MemoryOrder::relaxed);
			ktl::atomic_thread_fence(ktl::MemoryOrder::seq_cst);
			c = get_cmd();
			if (!c)
				return false;
		}
		/* A command released from now on need not kick (unless this flag is set again). */
		if (starved_.load(ktl::MemoryOrder::relaxed))
			starved_.store(false, ktl::MemoryOrder::relaxed);
		credits_.request_received();
		/*
		 * The command holds its buffer until the credit that stands
		 * for it goes back (Cmd::return_recv()); an SRQ's buffers
		 * serve every channel and go back at once.
		 */
		if (!limits_.use_srq)
			c->recv = r;
	}
	if (r->byte_len == 0) {
		repost(r);
		return true;
	}

	/* Not c->recv afterwards: LIO may have released c, and reposted r, already. */
	const bool keep = c && c->recv == r;
	switch (opcode) {
	case srp::kCmd:
		handle_cmd(r, c);
		break;
	case srp::kTskMgmt:
		handle_tsk_mgmt(r, c);
		break;
	case srp::kILogout:
		srpt_os_log(SRPT_LOG_INFO, "%s: SRP_I_LOGOUT received\n", ch_.label());
		ch_.request_logout();
		break;
	case srp::kCredRsp:
	case srp::kAerRsp:
		/* Answers to requests this target never sends. */
		srpt_os_log(SRPT_LOG_DEBUG, "%s: ignoring unsolicited response IU %#x\n", ch_.label(),
			    opcode);
		break;
	default:
		SRPT_LOG_LIMITED(SRPT_LOG_ERR, "%s: ignoring IU with opcode %#x\n", ch_.label(),
				 opcode);
		stats_.add(Stat::kErrUnknownIu);
		break;
	}
	if (!keep)
		repost(r);
	return true;
}

void ChannelIo::drain_wait_list()
{
	if (processing_wait_list_)
		return;
	processing_wait_list_ = true;
	while (RecvCtx *r = wait_list_.pop_front()) {
		if (!handle_iu(r)) {
			wait_list_.push_front(r);
			break;
		}
	}
	processing_wait_list_ = false;
}

/* srpt_handle_cmd */
void ChannelIo::handle_cmd(RecvCtx *r, Cmd *c)
{
	c->start_ns = r->recv_ns;

	SrpCmd sc;
	const char *why = nullptr;
	int ret = parse_srp_cmd(ktl::Bytes(r->iu, r->byte_len), limits_.imm_data_offset, &sc, &why);

	c->tag = sc.tag;
	c->sol_not = sc.sol_not;
	stats_.add_cq<Stat::kCommands>();
	if (ret) {
		SRPT_LOG_LIMITED(SRPT_LOG_ERR, "%s: command %#llx: %s\n", ch_.label(), c->tag, why);
		stats_.add(Stat::kErrMalformed);
		c->respond_local_status(kStatusCheckCondition, kSenseInvalidFieldInIu,
					sizeof(kSenseInvalidFieldInIu));
		return;
	}
	c->dir = sc.data.dir;
	c->data_kind = sc.data.kind;
	c->data_len = sc.data.data_len;
	if (c->dir == SRPT_DATA_IN)
		stats_.add_cq<Stat::kReads>();
	else if (c->dir == SRPT_DATA_OUT)
		stats_.add_cq<Stat::kWrites>();

	ret = c->map_data(r, sc.data);
	if (ret) {
		SRPT_LOG_LIMITED(SRPT_LOG_ERR,
				 "%s: command %#llx: allocating %u bytes for its data failed (%pe)\n",
				 ch_.label(), c->tag, c->data_len, ktl::err_arg(ret));
		c->release_data();
		if (transient(ret)) {
			stats_.add(Stat::kErrNoMemory);
			c->respond_local_status(kStatusTaskSetFull, nullptr, 0);
		} else {
			stats_.add(Stat::kErrMalformed);
			c->respond_local_status(kStatusCheckCondition, kSenseInvalidFieldInIu,
						sizeof(kSenseInvalidFieldInIu));
		}
		return;
	}

	ret = srpt_os_cmd_init(c->os.get(), sc.tag, sc.lun, sc.data.data_len, sc.data.dir,
			       sc.task_attr);
	if (ret) {
		/* The session is stopping: nobody is waiting for an answer. */
		srpt_os_log(SRPT_LOG_DEBUG, "%s: dropping command %#llx (%pe)\n", ch_.label(), c->tag,
			    ktl::err_arg(ret));
		stats_.add(Stat::kDropped);
		c->release_data();
		c->return_recv();
		credits_.owe_one();
		put_cmd(c);
		return;
	}
	if (c->data_kind == DataKind::kImmediate) {
		stats_.add_cq<Stat::kImmediateWrites>();
		/* In already: write_pending() runs in LIO's context, not here. */
		stats_.add_cq<Stat::kBytesWritten>(c->data_len);
	}
	/* LIO may answer and release c (reposting r) before submit returns. */
	srpt_os_cmd_submit(c->os.get(), r->iu + srp::cmd::kCdb);
}

} // namespace srpt
