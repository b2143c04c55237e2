// SPDX-License-Identifier: GPL-2.0-only
/*
 * The data path of a channel, in the order a command takes it:
 *   receive (srpt_recv_done, srpt_handle_new_iu) -> parse and allocate
 *   (srpt_handle_cmd, srpt_handle_tsk_mgmt) -> transfer (srpt_write_pending,
 *   srpt_rdma_read_done) -> respond (srpt_queue_response) -> recycle
 *   (srpt_send_done, srpt_release_cmd).
 * Transfers and responses go out through the channel's send queue
 * (send_queue.h), one step at a time, mapped only when they go (but for
 * a send context's kept page, which is mapped for good).
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
		SRPT_LOG_LIMITED(SRPT_LOG_ERR, "%s: reposting a receive buffer failed (%d)\n",
				 ch_.label(), ret);
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

/* ---- parse and map ---- */

namespace {

/* Remote buffer @b (not empty) as the next of the command's @count; 0 or a negative errno. */
int add_buffer(Cmd *c, u32 count, srpt_data_dir dir, const RemoteBuffer &b)
{
	/* Local memory only: the transfer is mapped when it goes, unless kept (see post_step). */
	const int ret = srpt_os_cmd_buf_add(c->os.get(), count, dir, b.va, b.key, b.len);

	if (ret < 0)
		return ret;
	c->kept = ret == SRPT_BUF_KEPT;
	c->xfer.add(b.len);
	return 0;
}

/* Sets up the command's data buffer; 0 or a negative errno. */
int map_data(Cmd *c, RecvCtx *r, const DataLayout &l)
{
	switch (l.kind) {
	case DataKind::kNone:
		return 0;
	case DataKind::kImmediate:
		/* In the buffer the command holds (never an SRQ's: not negotiated there). */
		if (KTL_WARN_ON(c->recv != r))
			return -ktl::kEINVAL;
		srpt_os_cmd_map_imm(c->os.get(), r->iu + l.imm_offset, l.data_len);
		return 0;
	case DataKind::kDirect:
		/* Its length is the data length: an empty one asks for no buffer. */
		if (!l.data_len)
			return 0;
		if (!c->xfer.prepare(1))
			return -ktl::kENOMEM;
		return add_buffer(c, 1, l.dir, l.direct);
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
	if (!c->xfer.prepare(count))
		return -ktl::kENOMEM;
	for (u32 i = 0; i < l.desc_count; i++) {
		const RemoteBuffer b = descriptor_at(iu, l, i);

		if (!b.len)
			continue;
		const int ret = add_buffer(c, count, l.dir, b);
		if (ret)
			return ret;
	}
	return 0;
}

/* Fixed-format sense data: ILLEGAL REQUEST, INVALID FIELD IN COMMAND INFORMATION UNIT. */
constexpr u8 kSenseInvalidFieldInIu[18] = {0x70, 0, 0x05, 0, 0, 0, 0, 10, 0, 0, 0, 0, 0x0e, 0x03};
/* ABORTED COMMAND, no additional sense: the data could not be moved. */
constexpr u8 kSenseAbortedCommand[18] = {0x70, 0, 0x0b, 0, 0, 0, 0, 10};
constexpr u8 kStatusCheckCondition = 0x02;
constexpr u8 kStatusTaskSetFull = 0x28;

/* Resources short for now: the initiator may retry. */
bool transient(int err)
{
	return err == -ktl::kENOMEM || err == -ktl::kEAGAIN;
}

} // namespace

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

	ret = map_data(c, r, sc.data);
	if (ret) {
		SRPT_LOG_LIMITED(SRPT_LOG_ERR,
				 "%s: command %#llx: allocating %u bytes for its data failed (%d)\n",
				 ch_.label(), c->tag, c->data_len, ret);
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
		srpt_os_log(SRPT_LOG_DEBUG, "%s: dropping command %#llx (%d)\n", ch_.label(), c->tag, ret);
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

/* srpt_handle_tsk_mgmt: LIO answers through queue_tm_rsp. */
void ChannelIo::handle_tsk_mgmt(RecvCtx *r, Cmd *c)
{
	SrpTskMgmt t;

	stats_.add(Stat::kTaskManagement);
	if (parse_srp_tsk_mgmt(ktl::Bytes(r->iu, r->byte_len), &t)) {
		stats_.add(Stat::kErrMalformed);
		/* Too short to carry a tag: there is nobody to answer. */
		SRPT_LOG_LIMITED(SRPT_LOG_ERR, "%s: ignoring a %u-byte SRP_TSK_MGMT\n", ch_.label(),
				 r->byte_len);
		c->return_recv();
		credits_.owe_one();
		put_cmd(c);
		return;
	}
	c->tag = t.tag;
	c->sol_not = t.sol_not;
	c->set_state(CmdState::kMgmt);
	if (t.tmf == SRPT_TMF_UNSUPPORTED)
		SRPT_LOG_LIMITED(SRPT_LOG_INFO,
				 "%s: task management function %#x is not supported\n", ch_.label(),
				 t.function);
	const int ret = srpt_os_cmd_submit_tmr(c->os.get(), t.lun, t.tmf, t.task_tag, t.tag);
	if (ret) {
		SRPT_LOG_LIMITED(SRPT_LOG_ERR,
				 "%s: task management function %#x for %#llx failed (%d)\n",
				 ch_.label(), t.function, t.tag, ret);
		c->respond_local_tmf(srp::kTmfFailed);
	}
}

/* ---- transfer and respond: one step at a time, through the send queue ---- */

void Cmd::submit()
{
	switch (ch_->io().sendq().submit(this)) {
	case SendQueue::Result::kPosted:
		break;
	case SendQueue::Result::kQueued:
		ch_->io().stats().add(Stat::kSqWaits);
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
	switch (ch_->io().sendq().submit(this)) {
	case SendQueue::Result::kPosted:
		return 0;
	case SendQueue::Result::kQueued:
		ch_->io().stats().add(Stat::kSqWaits);
		return 0;
	case SendQueue::Result::kFailed:
		break;
	}
	/* Nothing is in flight that would retry it: LIO does (-ENOMEM) or fails it. */
	set_state(CmdState::kNew);
	SRPT_LOG_LIMITED(SRPT_LOG_ERR,
			 "%s: command %#llx: starting the RDMA READ of its data failed (%d)\n",
			 ch_->label(), tag, step_err_);
	if (!post_err_ && transient(step_err_))
		return -ktl::kENOMEM;
	return step_err_ == -ktl::kENOMEM ? -ktl::kEIO : step_err_;
}

Cmd::Step Cmd::post_step(SendQueue &q) KTL_REQUIRES(q.mutex())
{
	const u32 free = q.free_slots();
	/* Write data comes in before LIO executes; everything else answers. */
	const bool answer = state() != CmdState::kNeedData;
	const Transfer::Mark start = xfer.mark();
	u32 wrs = 0;
	u32 blocked = 0;	/* slots this step would need with the piece that did not fit */
	u32 kept_len = 0;	/* bytes of a kept buffer, which goes by length */

	if (q.closed()) {
		step_err_ = -ktl::kESHUTDOWN;
		post_err_ = true;
		failed_with_rsp_ = false;
		return Step::kFailed;
	}
	if (need_ > free)
		return Step::kWait;
	round_first_ = xfer.cursor();
	round_bufs_ = 0;
	if (kept) {
		/*
		 * One buffer of at most a page, below any piece limit: it
		 * never goes in part, so the rest of it is all of it from its
		 * start, one piece, one work request, nothing to map.
		 */
		kept_len = xfer.left();
		if (kept_len) {
			wrs = 1;
			xfer.advance(Piece{0, 0, kept_len});
		}
	} else {
		while (xfer.left()) {
			const Piece p = xfer.next(q.piece_limit());
			const int n = srpt_os_cmd_rdma_map(os.get(), p.buf, p.off, p.len);

			if (n < 0) {
				if (round_bufs_)
					break;
				/* Work in flight gives registrations and memory back. */
				if (transient(n) && free < q.slots()) {
					need_ = 0;
					return Step::kWait;
				}
				step_err_ = n;
				post_err_ = false;
				return Step::kFailed;
			}
			if (static_cast<u32>(n) > q.slots()) {
				/* It would never fit: smaller pieces for this channel from now on. */
				srpt_os_cmd_rdma_unmap(os.get(), p.buf);
				if (q.shrink_piece_limit())
					continue;
				if (round_bufs_)
					break;
				step_err_ = -ktl::kENOSPC;
				post_err_ = false;
				return Step::kFailed;
			}
			if (wrs + static_cast<u32>(n) > free) {
				srpt_os_cmd_rdma_unmap(os.get(), p.buf);
				blocked = wrs + static_cast<u32>(n);
				/* The response goes with the last piece: wait for its slot too. */
				if (answer && p.len == xfer.left())
					blocked++;
				break;
			}
			wrs += static_cast<u32>(n);
			round_bufs_++;
			xfer.advance(p);
			/* A buffer has one mapping at a time: its next piece next round. */
			if (xfer.left() && xfer.cursor() == p.buf)
				break;
		}
	}
	const bool with_rsp = answer && !xfer.left() && wrs + 1 <= free;
	const bool finishes = answer ? with_rsp : !xfer.left();
	/*
	 * A step that does not finish goes in part only on an idle queue:
	 * rounds are for transfers larger than the whole queue. Otherwise
	 * wait until all of it fits.
	 */
	if (!finishes && (!wrs || free < q.slots())) {
		unmap_round();
		xfer.rewind(start);
		if (!blocked)
			blocked = wrs + 1;
		need_ = ktl::min(blocked, q.slots());
		return Step::kWait;
	}

	const u32 n = wrs + (with_rsp ? 1 : 0);
	u32 delta = 0;
	ktl::size_t len = 0;
	q.take(n);
	sq_held_ = n;
	need_ = 0;
	if (with_rsp) {
		delta = ch_->io().credits().take_response_delta();
		len = build_rsp(delta);
	}
	/* The completion may run before post returns: everything is set. */
	const int ret = with_rsp && !len ? -ktl::kEINVAL :
		srpt_os_cmd_post(os.get(), static_cast<u32>(len), kept_len, round_bufs_);
	if (!ret)
		return Step::kPosted;
	q.untake(n);
	sq_held_ = 0;
	if (with_rsp)
		ch_->io().credits().response_failed(delta);
	unmap_round();
	step_err_ = ret;
	post_err_ = true;
	failed_with_rsp_ = with_rsp;
	return Step::kFailed;
}

void Cmd::post_failed()
{
	Channel *ch = ch_;
	const bool data_out = state() == CmdState::kNeedData;

	if (post_err_) {
		/* A closing channel sends nothing: no error of its own. */
		if (ch->state() <= ChState::kLive) {
			ch->io().stats().add(Stat::kErrSend);
			SRPT_LOG_LIMITED(SRPT_LOG_ERR, "%s: command %#llx: sending failed (%d)\n",
					 ch->label(), tag, step_err_);
		}
		if (data_out) {
			set_state(CmdState::kDataIn);
			srpt_os_cmd_abort(os.get(), SRPT_WRITE_ABORTED_COMMAND);
			return;
		}
		/* A response that carried the credits owes them again already. */
		if (!failed_with_rsp_)
			ch->io().credits().owe_one();
		fail_response();
		return;
	}

	const bool retry = transient(step_err_);
	ch->io().stats().add(retry ? Stat::kErrNoMemory : Stat::kErrSend);
	SRPT_LOG_LIMITED(SRPT_LOG_ERR, "%s: command %#llx: mapping %u bytes for RDMA failed (%d)\n",
			 ch->label(), tag, xfer.left(), step_err_);
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
		ch->io().sendq().release(held);
		if (!ok) {
			ch->io().stats().add(Stat::kErrRdmaRead);
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
		ch->io().stats().add_cq<Stat::kBytesWritten>(data_len);
		srpt_os_cmd_execute(os.get());
		return;
	case CmdState::kCmdRspSent:
		ch->io().sendq().release(held);
		if (!ok) {
			if (ch->state() <= ChState::kLive && status != SRPT_WC_WR_FLUSH_ERR)
				SRPT_LOG_LIMITED(SRPT_LOG_ERR,
						 "%s: command %#llx: RDMA WRITE failed: %s\n",
						 ch->label(), tag, srpt_os_wc_status_msg(status));
			ch->io().stats().add(Stat::kErrSend);
			ch->io().credits().owe_one();
			fail_response();
			return;
		}
		submit();
		return;
	default:
		srpt_os_log(SRPT_LOG_ERR, "%s: command %#llx: RDMA completion in state %s\n",
			    ch->label(), tag, cmd_state_name(state()));
		ch->io().sendq().release(held);
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
		ch_->io().repost(recv);
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
	return build_cmd_rsp(h, st_, ktl::Bytes(sense_, st_.sense_len), ch_->io().limits().max_ti_iu_len,
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
	ch->io().sendq().release(held);
	if (!ok && ch->state() <= ChState::kLive) {
		if (status != SRPT_WC_WR_FLUSH_ERR)
			SRPT_LOG_LIMITED(SRPT_LOG_ERR,
					 "%s: command %#llx: sending the response failed: %s\n",
					 ch->label(), tag, srpt_os_wc_status_msg(status));
		ch->io().stats().add(Stat::kErrSend);
	}
	if (ok && read_bytes_)
		ch->io().stats().add_cq<Stat::kBytesRead>(read_bytes_);
	if (start_ns)
		ch->io().stats().latency(now_ns - start_ns);
	if (local)
		release();
	else
		srpt_os_cmd_done(os.get());	/* LIO releases the command */
	ch->io().process_wait_list();
}

/* srpt_aborted_task: no response will carry this request's credit. */
void Cmd::aborted()
{
	return_recv();
	ch_->io().credits().owe_one();
	ch_->io().stats().add(Stat::kAbortedTasks);
}

/* srpt_release_cmd */
void Cmd::release()
{
	/* LIO holds a command whose step waits in the send queue. */
	KTL_WARN_ON(send_node.linked());
	/* A command LIO ended without a response or an abort (a stopping session). */
	return_recv();
	release_data();
	ch_->io().put_cmd(this);
}

} // namespace srpt
