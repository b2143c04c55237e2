// SPDX-License-Identifier: GPL-2.0-only
/*
 * The data path of a channel, in the order a command takes it:
 *   receive (srpt_recv_done, srpt_handle_new_iu) -> parse and map
 *   (srpt_handle_cmd) -> transfer (srpt_write_pending,
 *   srpt_rdma_read_done) -> respond (srpt_queue_response) -> recycle
 *   (srpt_send_done, srpt_release_cmd).
 */
#include <ktl/errno.h>
#include <srpt/channel.h>
#include <srpt/device.h>
#include <srpt/handles.h>
#include <srpt/iu.h>
#include <srpt/response.h>
#include <srpt/srp.h>

namespace srpt {

/* ---- receive ---- */

void Channel::on_recv(RecvCtx *r, bool ok, u32 byte_len)
{
	if (!ok) {
		/* Flushed receives are normal while draining; otherwise the QP broke. */
		if (state() <= ChState::kLive) {
			srpt_os_log(SRPT_LOG_ERR | SRPT_LOG_RATELIMITED, "%s: receive failed\n", name());
			srpt_os_work_schedule(&logout_work_);
		}
		return;
	}
	r->byte_len = byte_len;
	/* Never ahead of IUs that wait: the initiator's order is kept. */
	if (!wait_list_.empty()) {
		wait_list_.push_back(r);
		waiting_.fetch_add(1);
		process_wait_list();
		return;
	}
	if (!handle_iu(r)) {
		wait_list_.push_back(r);
		waiting_.fetch_add(1);
	}
}

void Channel::repost(RecvCtx *r)
{
	const int ret = srpt_os_recv_post(dev_->os(), use_srq_ ? nullptr : os_, r->os);

	if (ret && state() <= ChState::kLive)
		srpt_os_log(SRPT_LOG_ERR | SRPT_LOG_RATELIMITED, "%s: reposting a receive buffer failed (%d)\n",
			    name(), ret);
}

/* srpt_handle_new_iu: false when the IU must wait (and was not consumed). */
bool Channel::handle_iu(RecvCtx *r)
{
	if (state() == ChState::kConnecting)
		return false;
	if (r->byte_len == 0) {
		repost(r);
		return true;
	}

	const u8 opcode = r->iu[0];
	Cmd *c = nullptr;
	if (opcode == srp::kCmd || opcode == srp::kTskMgmt) {
		c = get_cmd();
		if (!c)
			return false;
		credits_.request_received();
	}

	bool keep = false;
	switch (opcode) {
	case srp::kCmd:
		keep = handle_cmd(r, c);
		break;
	case srp::kTskMgmt:
		handle_tsk_mgmt(r, c);
		break;
	case srp::kILogout:
		srpt_os_log(SRPT_LOG_INFO, "%s port %u: %s sent SRP_I_LOGOUT\n", port_->dev_name(),
			    port_->num(), name());
		srpt_os_work_schedule(&logout_work_);
		break;
	case srp::kCredRsp:
	case srp::kAerRsp:
		/* Answers to requests this target never sends. */
		srpt_os_log(SRPT_LOG_DEBUG, "%s: ignoring unsolicited response IU %#x\n", name(),
			    opcode);
		break;
	default:
		srpt_os_log(SRPT_LOG_ERR | SRPT_LOG_RATELIMITED, "%s: ignoring IU with opcode %#x\n",
			    name(), opcode);
		stats_.add(Stat::kErrUnknownIu);
		break;
	}
	/* Not c->imm_recv: LIO may have released c, and reposted r, already. */
	if (!keep)
		repost(r);
	return true;
}

void Channel::process_wait_list()
{
	if (processing_wait_list_)
		return;
	processing_wait_list_ = true;
	while (RecvCtx *r = wait_list_.pop_front()) {
		if (!handle_iu(r)) {
			wait_list_.push_front(r);
			break;
		}
		waiting_.fetch_sub(1);
	}
	processing_wait_list_ = false;
}

/* ---- parse and map ---- */

namespace {

/* Maps the command's data buffer; 0 or a negative errno. */
int map_data(Cmd *c, RecvCtx *r, const DataLayout &l)
{
	switch (l.kind) {
	case DataKind::kNone:
		return 0;
	case DataKind::kImmediate:
		srpt_os_cmd_map_imm(c->os, r->iu + l.imm_offset, l.data_len);
		c->imm_recv = r;
		return 0;
	case DataKind::kDirect:
	case DataKind::kIndirect:
		break;
	}

	const ktl::Bytes iu(r->iu, r->byte_len);
	u32 count = 0;
	for (u32 i = 0; i < l.desc_count; i++)
		if (descriptor_at(iu, l, i).len)
			count++;
	if (!count)
		return 0;
	int ret = srpt_os_cmd_rdma_prepare(c->os, count, l.dir);
	if (ret)
		return ret;
	for (u32 i = 0; i < l.desc_count; i++) {
		const RemoteBuffer b = descriptor_at(iu, l, i);

		if (!b.len)
			continue;
		ret = srpt_os_cmd_rdma_add(c->os, b.va, b.key, b.len);
		if (ret < 0)
			return ret;
		c->n_rdma += static_cast<u32>(ret);
	}
	return 0;
}

} // namespace

/* Fixed-format sense data: ILLEGAL REQUEST, INVALID FIELD IN COMMAND INFORMATION UNIT. */
constexpr u8 kSenseInvalidFieldInIu[18] = {0x70, 0, 0x05, 0, 0, 0, 0, 10, 0, 0, 0, 0, 0x0e, 0x03};
constexpr u8 kStatusCheckCondition = 0x02;
constexpr u8 kStatusBusy = 0x08;

/* srpt_handle_cmd */
bool Channel::handle_cmd(RecvCtx *r, Cmd *c)
{
	SrpCmd sc;
	const char *why = nullptr;
	int ret = parse_srp_cmd(ktl::Bytes(r->iu, r->byte_len), imm_data_offset_, &sc, &why);

	c->start_ns = srpt_os_now_ns();
	c->tag = sc.tag;
	c->sol_not = sc.sol_not;
	stats_.add(Stat::kCommands);
	if (ret) {
		srpt_os_log(SRPT_LOG_ERR | SRPT_LOG_RATELIMITED, "%s: command %#llx: %s\n", name(),
			    c->tag, why);
		stats_.add(Stat::kErrMalformed);
		c->respond_local_status(kStatusCheckCondition, kSenseInvalidFieldInIu,
					sizeof(kSenseInvalidFieldInIu));
		return false;
	}
	c->dir = sc.data.dir;
	c->data_kind = sc.data.kind;
	c->data_len = sc.data.data_len;
	if (c->dir == SRPT_DATA_IN)
		stats_.add(Stat::kReads);
	else if (c->dir == SRPT_DATA_OUT)
		stats_.add(Stat::kWrites);
	if (c->data_kind == DataKind::kImmediate)
		stats_.add(Stat::kImmediateWrites);

	ret = map_data(c, r, sc.data);
	/* A transfer the send queue can never hold would wait forever. */
	if (!ret && c->n_rdma + 1 > max_send_wr_) {
		srpt_os_log(SRPT_LOG_ERR | SRPT_LOG_RATELIMITED,
			    "%s: command %#llx needs %u work requests, more than srp_sq_size allows\n",
			    name(), c->tag, c->n_rdma + 1);
		ret = -ktl::kENOMEM;
	}
	if (ret) {
		srpt_os_log(SRPT_LOG_ERR | SRPT_LOG_RATELIMITED,
			    "%s: command %#llx: mapping %u bytes failed (%d)\n", name(), c->tag,
			    c->data_len, ret);
		c->imm_recv = nullptr;
		srpt_os_cmd_release_data(c->os);
		c->n_rdma = 0;
		if (ret == -ktl::kENOMEM) {
			stats_.add(Stat::kErrNoMemory);
			c->respond_local_status(kStatusBusy, nullptr, 0);
		} else {
			stats_.add(Stat::kErrMalformed);
			c->respond_local_status(kStatusCheckCondition, kSenseInvalidFieldInIu,
						sizeof(kSenseInvalidFieldInIu));
		}
		return false;
	}

	srpt_cmd_info info{};
	info.tag = sc.tag;
	info.lun = sc.lun;
	info.task_attr = sc.task_attr;
	info.dir = sc.data.dir;
	info.data_len = sc.data.data_len;
	ret = srpt_os_cmd_init(c->os, &info);
	if (ret) {
		/* The session is stopping: nobody is waiting for an answer. */
		srpt_os_log(SRPT_LOG_DEBUG, "%s: dropping command %#llx (%d)\n", name(), c->tag, ret);
		stats_.add(Stat::kDropped);
		c->imm_recv = nullptr;
		srpt_os_cmd_release_data(c->os);
		credits_.owe_one();
		put_cmd(c);
		return false;
	}
	/* LIO may release c (reposting r) before submit returns. */
	const bool keep = c->imm_recv == r;
	srpt_os_cmd_submit(c->os, r->iu + srp::cmd::kCdb);
	return keep;
}

/* ---- transfer ---- */

/* srpt_write_pending */
int Cmd::write_pending()
{
	if (data_kind == DataKind::kImmediate || n_rdma == 0) {
		ch_->stats().add(Stat::kBytesWritten, data_len);
		set_state(CmdState::kDataIn);
		srpt_os_cmd_execute(os);
		return 0;
	}
	set_state(CmdState::kNeedData);
	/* LIO retries on -ENOMEM: the queue has room again later. */
	if (!ch_->credits().sq_reserve(n_rdma))
		return -ktl::kENOMEM;
	sq_held = n_rdma;
	const int ret = srpt_os_cmd_post_rdma_read(os);
	if (ret) {
		ch_->credits().sq_release(n_rdma);
		sq_held = 0;
		srpt_os_log(SRPT_LOG_ERR | SRPT_LOG_RATELIMITED,
			    "%s: command %#llx: posting the RDMA READ failed (%d)\n", ch_->name(), tag,
			    ret);
	}
	return ret;
}

/* srpt_rdma_read_done */
void Cmd::rdma_read_done(bool ok)
{
	ch_->credits().sq_release(sq_held);
	sq_held = 0;
	if (!test_and_set_state(CmdState::kNeedData, CmdState::kDataIn)) {
		srpt_os_log(SRPT_LOG_ERR, "%s: command %#llx: RDMA READ done in state %s\n",
			    ch_->name(), tag, cmd_state_name(state()));
		return;
	}
	if (ok) {
		ch_->stats().add(Stat::kBytesWritten, data_len);
		srpt_os_cmd_execute(os);
		return;
	}
	ch_->stats().add(Stat::kErrRdmaRead);
	if (ch_->state() <= ChState::kLive)
		srpt_os_log(SRPT_LOG_ERR | SRPT_LOG_RATELIMITED,
			    "%s: command %#llx: RDMA READ failed\n", ch_->name(), tag);
	srpt_os_cmd_abort(os);
}

/* ---- respond ---- */

void Cmd::fail_response()
{
	set_state(CmdState::kDone);
	if (local)
		release();
	else
		srpt_os_cmd_put(os);
}

template <typename Build> void Cmd::respond(u32 extra_wrs, bool with_data, Build build)
{
	Credits &credits = ch_->credits();
	const u32 need = 1 + extra_wrs;

	if (!credits.sq_reserve(need)) {
		srpt_os_log(SRPT_LOG_ERR | SRPT_LOG_RATELIMITED,
			    "%s: command %#llx: send queue full, response dropped\n", ch_->name(), tag);
		credits.owe_one();
		ch_->stats().add(Stat::kErrSend);
		fail_response();
		return;
	}
	const u32 delta = credits.take_response_delta();
	const ktl::size_t len = build(delta);
	/* Before posting: the completion may run before post returns. */
	sq_held = need;
	const int ret = len ? srpt_os_cmd_post_response(os, static_cast<u32>(len), with_data)
			    : -ktl::kEINVAL;
	if (ret) {
		sq_held = 0;
		credits.sq_release(need);
		credits.response_failed(delta);
		ch_->stats().add(Stat::kErrSend);
		if (ch_->state() <= ChState::kLive)
			srpt_os_log(SRPT_LOG_ERR | SRPT_LOG_RATELIMITED,
				    "%s: command %#llx: sending the response failed (%d)\n",
				    ch_->name(), tag, ret);
		fail_response();
	}
}

/* srpt_queue_response for queue_data_in and queue_status */
void Cmd::queue_response(const srpt_cmd_status &st, bool with_data)
{
	const CmdState prev = set_state(CmdState::kCmdRspSent);

	if (prev != CmdState::kNew && prev != CmdState::kDataIn && prev != CmdState::kNeedData) {
		srpt_os_log(SRPT_LOG_ERR, "%s: command %#llx: response in state %s\n", ch_->name(),
			    tag, cmd_state_name(prev));
		return;
	}
	with_data = with_data && dir == SRPT_DATA_IN && n_rdma;
	if (with_data)
		ch_->stats().add(Stat::kBytesRead, data_len);
	respond_status(st, with_data ? n_rdma : 0, with_data);
}

void Cmd::respond_local_status(u8 scsi_status, const u8 *sense, u32 sense_len)
{
	srpt_cmd_status st{};

	local = true;
	set_state(CmdState::kCmdRspSent);
	st.scsi_status = scsi_status;
	st.sense = sense;
	st.sense_len = sense_len;
	respond_status(st, 0, false);
}

/* An SRP_RSP carrying st, behind extra_wrs RDMA WRITEs of read data. */
void Cmd::respond_status(const srpt_cmd_status &st, u32 extra_wrs, bool with_data)
{
	respond(extra_wrs, with_data, [&](u32 delta) {
		RspHeader h;

		h.tag = tag;
		h.req_lim_delta = delta;
		h.req_sol_not = sol_not;
		return build_cmd_rsp(h, st, ch_->max_ti_iu_len(),
				     ktl::MutableBytes(rsp_buf, rsp_size));
	});
}

void Cmd::respond_local_tmf(u8 rsp_code)
{
	local = true;
	set_state(CmdState::kMgmtRspSent);
	respond(0, false, [&](u32 delta) {
		RspHeader h;

		h.tag = tag;
		h.req_lim_delta = delta;
		h.req_sol_not = sol_not;
		return build_tmf_rsp(h, rsp_code, ktl::MutableBytes(rsp_buf, rsp_size));
	});
}

/* srpt_queue_tm_rsp */
void Cmd::queue_tm_response(srpt_tmr_response r)
{
	if (!test_and_set_state(CmdState::kMgmt, CmdState::kMgmtRspSent)) {
		srpt_os_log(SRPT_LOG_ERR, "%s: task management %#llx: response in state %s\n",
			    ch_->name(), tag, cmd_state_name(state()));
		return;
	}
	respond(0, false, [&](u32 delta) {
		RspHeader h;

		h.tag = tag;
		h.req_lim_delta = delta;
		h.req_sol_not = sol_not;
		return build_tmf_rsp(h, tmf_rsp_code(r), ktl::MutableBytes(rsp_buf, rsp_size));
	});
}

/* ---- recycle ---- */

/* srpt_send_done */
void Cmd::send_done(bool ok)
{
	Channel *ch = ch_;
	const CmdState prev = set_state(CmdState::kDone);

	ch->credits().sq_release(sq_held);
	sq_held = 0;
	if (!ok && ch->state() <= ChState::kLive) {
		srpt_os_log(SRPT_LOG_ERR | SRPT_LOG_RATELIMITED,
			    "%s: command %#llx: sending the response failed\n", ch->name(), tag);
		ch->stats().add(Stat::kErrSend);
	}
	if (start_ns)
		ch->stats().latency(srpt_os_now_ns() - start_ns);
	if (prev != CmdState::kCmdRspSent && prev != CmdState::kMgmtRspSent)
		srpt_os_log(SRPT_LOG_ERR, "%s: command %#llx: send completion in state %s\n",
			    ch->name(), tag, cmd_state_name(prev));
	else if (local)
		release();
	else
		srpt_os_cmd_done(os);	/* LIO releases the command */
	ch->process_wait_list();
}

/* srpt_aborted_task: no response will carry this request's credit. */
void Cmd::aborted()
{
	ch_->credits().owe_one();
	ch_->stats().add(Stat::kAbortedTasks);
}

/* srpt_release_cmd */
void Cmd::release()
{
	if (imm_recv) {
		ch_->repost(imm_recv);
		imm_recv = nullptr;
	}
	srpt_os_cmd_release_data(os);
	ch_->put_cmd(this);
}

} // namespace srpt

using namespace srpt;

extern "C" void srpt_core_recv_done(struct srpt_channel *ch, struct srpt_recv *r, int ok,
				    srpt_u32 byte_len)
{
	from_handle<Channel>(ch)->on_recv(from_handle<RecvCtx>(r), ok != 0, byte_len);
}

extern "C" int srpt_core_write_pending(struct srpt_cmd *cmd)
{
	return from_handle<Cmd>(cmd)->write_pending();
}

extern "C" void srpt_core_queue_response(struct srpt_cmd *cmd, const struct srpt_cmd_status *st,
					 int with_data)
{
	from_handle<Cmd>(cmd)->queue_response(*st, with_data != 0);
}

extern "C" void srpt_core_queue_tm_response(struct srpt_cmd *cmd, enum srpt_tmr_response r)
{
	from_handle<Cmd>(cmd)->queue_tm_response(r);
}

extern "C" void srpt_core_aborted_task(struct srpt_cmd *cmd)
{
	from_handle<Cmd>(cmd)->aborted();
}

extern "C" void srpt_core_release_cmd(struct srpt_cmd *cmd)
{
	from_handle<Cmd>(cmd)->release();
}

extern "C" int srpt_core_cmd_state(struct srpt_cmd *cmd)
{
	return static_cast<int>(from_handle<Cmd>(cmd)->state());
}

extern "C" void srpt_core_rdma_read_done(struct srpt_cmd *cmd, int ok)
{
	from_handle<Cmd>(cmd)->rdma_read_done(ok != 0);
}

extern "C" void srpt_core_send_done(struct srpt_cmd *cmd, int ok)
{
	from_handle<Cmd>(cmd)->send_done(ok != 0);
}
