// SPDX-License-Identifier: GPL-2.0-only
/*
 * A command after LIO has it: transfer (srpt_write_pending,
 * srpt_rdma_read_done) -> respond (srpt_queue_response) -> recycle
 * (srpt_send_done, srpt_release_cmd), and its state machine. Transfers
 * and responses go out through the channel's send queue (send_queue.h),
 * one step at a time, mapped only when they go (but for a send context's
 * kept page, which is mapped for good). The channel's pool of send
 * contexts is in channel_io.cpp.
 */
#include <ktl/errno.h>
#include <srpt/channel.h>
#include <srpt/cmd.h>
#include <srpt/response.h>
#include <srpt/tmf.h>
#include <srpt/send_queue.h>

namespace srpt {

const char *cmd_state_name(CmdState s)
{
	switch (s) {
	case CmdState::kNew:
		return "new";
	case CmdState::kNeedData:
		return "need data";
	case CmdState::kDataIn:
		return "data in";
	case CmdState::kCmdRspSent:
		return "response sent";
	case CmdState::kMgmt:
		return "task management";
	case CmdState::kMgmtRspSent:
		return "task management response sent";
	case CmdState::kDone:
		return "done";
	}
	return "?";
}

CmdState Cmd::set_state(CmdState s)
{
	/* Done stays done: the one state that needs no compare. */
	if (s == CmdState::kDone)
		return static_cast<CmdState>(state_.exchange(static_cast<ktl::u8>(s)));

	ktl::u8 cur = state_.load();

	while (static_cast<CmdState>(cur) != CmdState::kDone) {
		if (state_.compare_exchange(cur, static_cast<ktl::u8>(s)))
			break;
	}
	return static_cast<CmdState>(cur);
}

CmdState Cmd::set_state_from(CmdState a, CmdState b, CmdState s)
{
	ktl::u8 cur = state_.load();

	while (static_cast<CmdState>(cur) == a || static_cast<CmdState>(cur) == b) {
		if (state_.compare_exchange(cur, static_cast<ktl::u8>(s)))
			break;
	}
	return static_cast<CmdState>(cur);
}

bool Cmd::test_and_set_state(CmdState old, CmdState s)
{
	ktl::u8 expected = static_cast<ktl::u8>(old);

	return state_.compare_exchange(expected, static_cast<ktl::u8>(s));
}

void Cmd::reset()
{
	/* Handed to LIO through calls that order it: no full fence here. */
	state_.store(static_cast<ktl::u8>(CmdState::kNew), ktl::MemoryOrder::release);
	tag = 0;
	sol_not = 0;
	dir = SRPT_DATA_NONE;
	data_kind = DataKind::kNone;
	data_len = 0;
	kept = false;
	local = false;
	start_ns = 0;
	rsp_ = Rsp::kNone;
	read_bytes_ = 0;
	need_ = 0;
	step_err_ = 0;
	post_err_ = false;
	failed_with_rsp_ = false;
	KTL_WARN_ON(recv || xfer.buffers() || round_bufs_ || sq_held_);
}

/* ---- map: the data buffers of a request ---- */

int Cmd::add_buffer(u32 count, srpt_data_dir dir, const RemoteBuffer &b)
{
	/* Local memory only: the transfer is mapped when it goes, unless kept (SendQueue::post). */
	const int ret = srpt_os_cmd_buf_add(os.get(), count, dir, b.va, b.key, b.len);

	if (ret < 0)
		return ret;
	kept = ret == SRPT_BUF_KEPT;
	xfer.add(b.len);
	return 0;
}

int Cmd::map_data(RecvCtx *r, const DataLayout &l)
{
	switch (l.kind) {
	case DataKind::kNone:
		return 0;
	case DataKind::kImmediate:
		/* In the buffer the command holds (never an SRQ's: not negotiated there). */
		if (KTL_WARN_ON(recv != r))
			return -ktl::kEINVAL;
		srpt_os_cmd_map_imm(os.get(), r->iu + l.imm_offset, l.data_len);
		return 0;
	case DataKind::kDirect:
		/* Its length is the data length: an empty one asks for no buffer. */
		if (!l.data_len)
			return 0;
		if (!xfer.prepare(1))
			return -ktl::kENOMEM;
		return add_buffer(1, l.dir, l.direct);
	case DataKind::kIndirect:
		break;
	}

	/* A table may hold empty descriptors: they ask for no buffer. */
	const ktl::Bytes iu(r->iu, r->byte_len);
	u32 count = 0;
	for (u32 i = 0; i < l.desc_count; i++)
		if (descriptor_at(iu, l, i).len)
			count++;
	if (!count)
		return 0;
	if (!xfer.prepare(count))
		return -ktl::kENOMEM;
	for (u32 i = 0; i < l.desc_count; i++) {
		const RemoteBuffer b = descriptor_at(iu, l, i);

		if (!b.len)
			continue;
		const int ret = add_buffer(count, l.dir, b);
		if (ret)
			return ret;
	}
	return 0;
}

/* ---- transfer and respond: one step at a time, through the send queue ---- */

void Cmd::submit()
{
	switch (io_.sendq().submit(this)) {
	case SendQueue::Result::kPosted:
		break;
	case SendQueue::Result::kQueued:
		io_.stats().add(Stat::kSqWaits);
		break;
	case SendQueue::Result::kFailed:
		post_failed();
		break;
	}
}

/* srpt_write_pending */
int Cmd::write_pending()
{
	/* Immediate data was counted as it came; no buffers, no bytes. */
	if (data_kind == DataKind::kImmediate || !xfer.buffers()) {
		set_state(CmdState::kDataIn);
		srpt_os_cmd_execute(os.get());
		return 0;
	}
	set_state(CmdState::kNeedData);
	xfer.start(xfer.total());
	need_ = 0;
	switch (io_.sendq().submit(this)) {
	case SendQueue::Result::kPosted:
		return 0;
	case SendQueue::Result::kQueued:
		io_.stats().add(Stat::kSqWaits);
		return 0;
	case SendQueue::Result::kFailed:
		break;
	}
	/* Nothing is in flight that would retry it: LIO does (-ENOMEM) or fails it. */
	set_state(CmdState::kNew);
	SRPT_LOG_LIMITED(SRPT_LOG_ERR,
			 "%s: command %#llx: starting the RDMA READ of its data failed (%pe)\n",
			 ch_->label(), tag, ktl::err_arg(step_err_));
	if (!post_err_ && transient(step_err_))
		return -ktl::kENOMEM;
	return step_err_ == -ktl::kENOMEM ? -ktl::kEIO : step_err_;
}

void Cmd::post_failed()
{
	Channel *ch = ch_;
	const bool data_out = state() == CmdState::kNeedData;

	if (post_err_) {
		/* A closing channel sends nothing: no error of its own. */
		if (ch->state() <= ChState::kLive) {
			io_.stats().add(Stat::kErrSend);
			SRPT_LOG_LIMITED(SRPT_LOG_ERR, "%s: command %#llx: sending failed (%pe)\n",
					 ch->label(), tag, ktl::err_arg(step_err_));
		}
		if (data_out) {
			set_state(CmdState::kDataIn);
			srpt_os_cmd_abort(os.get(), SRPT_WRITE_ABORTED_COMMAND);
			return;
		}
		/* A response that carried the credits owes them again already. */
		if (!failed_with_rsp_)
			io_.credits().owe_one();
		fail_response();
		return;
	}

	const bool retry = transient(step_err_);
	io_.stats().add(retry ? Stat::kErrNoMemory : Stat::kErrSend);
	SRPT_LOG_LIMITED(SRPT_LOG_ERR, "%s: command %#llx: mapping %u bytes for RDMA failed (%pe)\n",
			 ch->label(), tag, xfer.left(), ktl::err_arg(step_err_));
	if (data_out) {
		/* LIO answers TASK SET FULL or ABORTED COMMAND through queue_status. */
		set_state(CmdState::kDataIn);
		srpt_os_cmd_abort(os.get(), retry ? SRPT_WRITE_TASK_SET_FULL : SRPT_WRITE_ABORTED_COMMAND);
		return;
	}
	/* The read data cannot go: answer without it, so that the initiator can retry. */
	st_ = srpt_cmd_status{};
	st_.scsi_status = retry ? kStatusTaskSetFull : kStatusCheckCondition;
	if (!retry) {
		sense_ = kSenseAbortedCommand;
		st_.sense_len = sizeof(kSenseAbortedCommand);
	}
	rsp_ = Rsp::kStatus;
	respond(0);
}

/* srpt_rdma_read_done, and the end of a round of read data */
void Cmd::rdma_done(srpt_wc_status status)
{
	Channel *ch = ch_;
	const u32 held = sq_held_;
	const bool ok = status == SRPT_WC_SUCCESS;

	sq_held_ = 0;
	unmap_round();
	switch (state()) {
	case CmdState::kNeedData:
		io_.sendq().release(held);
		if (!ok) {
			io_.stats().add(Stat::kErrRdmaRead);
			if (ch->state() <= ChState::kLive && status != SRPT_WC_WR_FLUSH_ERR)
				SRPT_LOG_LIMITED(SRPT_LOG_ERR,
						 "%s: command %#llx: RDMA READ failed: %s\n",
						 ch->label(), tag, srpt_os_wc_status_msg(status));
			set_state(CmdState::kDataIn);
			srpt_os_cmd_abort(os.get(), SRPT_WRITE_ABORTED_COMMAND);
			return;
		}
		if (xfer.left()) {
			submit();
			return;
		}
		set_state(CmdState::kDataIn);
		io_.stats().add_cq<Stat::kBytesWritten>(data_len);
		srpt_os_cmd_execute(os.get());
		return;
	case CmdState::kCmdRspSent:
		io_.sendq().release(held);
		if (!ok) {
			if (ch->state() <= ChState::kLive && status != SRPT_WC_WR_FLUSH_ERR)
				SRPT_LOG_LIMITED(SRPT_LOG_ERR,
						 "%s: command %#llx: RDMA WRITE failed: %s\n",
						 ch->label(), tag, srpt_os_wc_status_msg(status));
			io_.stats().add(Stat::kErrSend);
			io_.credits().owe_one();
			fail_response();
			return;
		}
		submit();
		return;
	default:
		srpt_os_log(SRPT_LOG_ERR, "%s: command %#llx: RDMA completion in state %s\n",
			    ch->label(), tag, cmd_state_name(state()));
		io_.sendq().release(held);
		return;
	}
}

void Cmd::release_data()
{
	srpt_os_cmd_release_data(os.get());
	xfer.clear();
	kept = false;
}

void Cmd::return_recv()
{
	if (recv) {
		io_.repost(recv);
		recv = nullptr;
	}
}

/* A command given to LIO that will have no response. */
void Cmd::fail_response()
{
	set_state(CmdState::kDone);
	if (local)
		release();
	else
		srpt_os_cmd_put(os.get());
}

void Cmd::respond(u32 data_bytes)
{
	/* Whoever answers is done with the CDB and any immediate data. */
	return_recv();
	xfer.start(data_bytes);
	need_ = 0;
	submit();
}

ktl::size_t Cmd::build_rsp(u32 delta)
{
	RspHeader h;

	h.tag = tag;
	h.req_lim_delta = delta;
	h.req_sol_not = sol_not;
	if (rsp_ == Rsp::kTmf)
		return build_tmf_rsp(h, tmf_code_, ktl::MutableBytes(rsp_buf, rsp_size));
	return build_cmd_rsp(h, st_, ktl::Bytes(sense_, st_.sense_len), io_.limits().max_ti_iu_len,
			     ktl::MutableBytes(rsp_buf, rsp_size));
}

void Cmd::unmap_round()
{
	for (u32 i = 0; i < round_bufs_; i++)
		srpt_os_cmd_rdma_unmap(os.get(), round_first_ + i);
	round_bufs_ = 0;
}

/* srpt_queue_response for queue_data_in and queue_status */
void Cmd::queue_response(const srpt_cmd_status &st, bool with_data)
{
	/* Not while its write data comes in: that step may be in the send queue. */
	const CmdState prev = set_state_from(CmdState::kNew, CmdState::kDataIn, CmdState::kCmdRspSent);

	if (prev != CmdState::kNew && prev != CmdState::kDataIn) {
		srpt_os_log(SRPT_LOG_ERR, "%s: command %#llx: response in state %s\n", ch_->label(),
			    tag, cmd_state_name(prev));
		return;
	}
	rsp_ = Rsp::kStatus;
	st_ = st;
	sense_ = sense_buf;
	/* LIO's length, bounded by its buffer: never a byte past it. */
	if (st_.sense_len > SRPT_SENSE_SIZE)
		st_.sense_len = SRPT_SENSE_SIZE;
	/* Exactly the bytes of the SCSI transfer, never what lies past them. */
	u32 bytes = 0;
	if (with_data && dir == SRPT_DATA_IN)
		bytes = ktl::min(st.data_len, xfer.total());
	/* Counted when the response is sent: here is LIO's context. */
	read_bytes_ = bytes;
	respond(bytes);
}

void Cmd::respond_local_status(u8 scsi_status, const u8 *sense, u32 sense_len)
{
	local = true;
	set_state(CmdState::kCmdRspSent);
	rsp_ = Rsp::kStatus;
	st_ = srpt_cmd_status{};
	st_.scsi_status = scsi_status;
	sense_ = sense;
	st_.sense_len = static_cast<ktl::u16>(sense_len);
	respond(0);
}

void Cmd::respond_local_tmf(u8 rsp_code)
{
	local = true;
	set_state(CmdState::kMgmtRspSent);
	rsp_ = Rsp::kTmf;
	tmf_code_ = rsp_code;
	respond(0);
}

/* srpt_queue_tm_rsp */
void Cmd::queue_tm_response(srpt_tmr_response r)
{
	if (!test_and_set_state(CmdState::kMgmt, CmdState::kMgmtRspSent)) {
		srpt_os_log(SRPT_LOG_ERR, "%s: task management %#llx: response in state %s\n",
			    ch_->label(), tag, cmd_state_name(state()));
		return;
	}
	rsp_ = Rsp::kTmf;
	tmf_code_ = tmf_rsp_code(r);
	respond(0);
}

/* ---- recycle ---- */

/* srpt_send_done */
void Cmd::send_done(srpt_wc_status status, u64 now_ns)
{
	Channel *ch = ch_;
	const bool ok = status == SRPT_WC_SUCCESS;
	const CmdState prev =
		set_state_from(CmdState::kCmdRspSent, CmdState::kMgmtRspSent, CmdState::kDone);

	/* Only a response posted completes: a stray completion must not end the command. */
	if (prev != CmdState::kCmdRspSent && prev != CmdState::kMgmtRspSent) {
		srpt_os_log(SRPT_LOG_ERR, "%s: command %#llx: send completion in state %s\n",
			    ch->label(), tag, cmd_state_name(prev));
		return;
	}
	const u32 held = sq_held_;

	sq_held_ = 0;
	unmap_round();
	io_.sendq().release(held);
	if (!ok && ch->state() <= ChState::kLive) {
		if (status != SRPT_WC_WR_FLUSH_ERR)
			SRPT_LOG_LIMITED(SRPT_LOG_ERR,
					 "%s: command %#llx: sending the response failed: %s\n",
					 ch->label(), tag, srpt_os_wc_status_msg(status));
		io_.stats().add(Stat::kErrSend);
	}
	if (ok && read_bytes_)
		io_.stats().add_cq<Stat::kBytesRead>(read_bytes_);
	if (start_ns)
		io_.stats().latency(now_ns - start_ns);
	if (local)
		release();
	else
		srpt_os_cmd_done(os.get());	/* LIO releases the command */
	io_.process_wait_list();
}

/* srpt_aborted_task: no response will carry this request's credit. */
void Cmd::aborted()
{
	return_recv();
	io_.credits().owe_one();
	io_.stats().add(Stat::kAbortedTasks);
}

/* srpt_release_cmd */
void Cmd::release()
{
	/* LIO holds a command whose step waits in the send queue. */
	KTL_WARN_ON(send_node.linked());
	/* A command LIO ended without a response or an abort (a stopping session). */
	return_recv();
	release_data();
	io_.put_cmd(this);
}

} // namespace srpt
