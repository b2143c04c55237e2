// SPDX-License-Identifier: GPL-2.0-only
/*
 * RDMA channels: login (srpt_cm_req_recv), the channel state machine
 * (srpt_set_ch_state, srpt_disconnect_ch, srpt_close_ch), CM events
 * (srpt_cm_rtu_recv, srpt_cm_handler) and the release in process context.
 */
#include <ktl/errno.h>
#include <ktl/new.h>
#include <srpt/channel.h>
#include <srpt/device.h>
#include <srpt/handles.h>
#include <srpt/initiator_id.h>
#include <srpt/live.h>
#include <srpt/params.h>
#include <srpt/rdma_port.h>
#include <srpt/target.h>

namespace srpt {
namespace {

/* How often a waiter for a release says it is still waiting. */
constexpr unsigned int kReleaseWaitLogMs = 5000;

} // namespace

const char *ch_state_name(ChState s)
{
	switch (s) {
	case ChState::kConnecting:
		return "connecting";
	case ChState::kLive:
		return "live";
	case ChState::kDisconnecting:
		return "disconnecting";
	case ChState::kDraining:
		return "draining";
	case ChState::kDisconnected:
		return "disconnected";
	}
	return "?";
}

/*
 * The initiator as its transport names it: IB/CM by its port GUID (as the
 * in-tree target's ACL names), RDMA/CM by its address.
 */
static void format_peer(const srpt_login_info &info, PeerName *out)
{
	out->clear();
	if (info.cm == SRPT_CM_IB) {
		GuidName guid;

		format_guid_name(info.peer_gid, &guid);
		out->put(guid.c_str());
	} else {
		AddressName addr;

		format_address(static_cast<srpt_inet_family>(info.peer_family), info.peer_addr,
			       &addr);
		out->put(addr.c_str());
	}
}

Channel::Channel(Device *dev, ktl::RefPtr<RdmaPort> port, srpt_os_channel *os,
		 const srpt_login_info &info, const LoginRequest &req)
	: dev_(dev), port_(ktl::move(port)), os_(os), req_(req),
	  cm_(static_cast<srpt_cm_kind>(info.cm))
{
	format_peer(info, &name_);
	label_.put(port_->dev_name()).put(" port ").dec(port_->num()).put(": ").put(name_.c_str());
	format_gid_name(req.initiator_port_id, &i_port_name_);
	KTL_WORK_INIT(release_work_, release_work_fn, this);
	KTL_WORK_INIT(logout_work_, logout_work_fn, this);
	srpt_os_completion_init(&released_);
	live_inc(Live::kChannel);
}

Channel::~Channel()
{
	live_dec(Live::kChannel);
}

bool Channel::set_state(ChState s)
{
	ktl::u8 cur = state_.load();

	/* Only ever forward: a late event never revives a channel. */
	while (static_cast<ktl::u8>(s) > cur) {
		if (state_.compare_exchange(cur, static_cast<ktl::u8>(s)))
			return true;
	}
	return false;
}

void Channel::reject(srp::RejectReason reason, const char *why)
{
	u8 rej[srp::login_rej::kSize];
	const ktl::size_t len = build_login_rej(req_.tag, reason, ktl::MutableBytes(rej));

	srpt_os_log(SRPT_LOG_INFO, "%s port %u: rejected login of %s (initiator port id %s): %s\n",
		    port_->dev_name(), port_->num(), name(), i_port_name_.c_str(), why);
	port_->logins().count_reject(reason);
	srpt_os_cm_reject(os_, rej, len);
}

/* A login that never became a channel: reject it and tell the shim why. */
static int reject_login(RdmaPort *port, srpt_os_channel *os, const srpt_login_info &info, u64 tag,
			srp::RejectReason reason, const char *why, int err)
{
	u8 rej[srp::login_rej::kSize];
	const ktl::size_t len = build_login_rej(tag, reason, ktl::MutableBytes(rej));
	PeerName peer;

	format_peer(info, &peer);
	SRPT_LOG_LIMITED(SRPT_LOG_INFO, "%s port %u: rejected login of %s: %s\n",
			 port ? port->dev_name() : "?", port ? port->num() : 0, peer.c_str(), why);
	if (port)
		port->logins().count_reject(reason);
	srpt_os_cm_reject(os, rej, len);
	return err;
}

int Channel::login(Device *dev, u32 port_num, srpt_os_channel *os, const srpt_login_info &info,
		   Channel **out)
{
	using srp::RejectReason;
	RdmaPort *port = dev->port(port_num);
	LoginRequest req;

	if (!port) {
		SRPT_LOG_LIMITED(SRPT_LOG_ERR, "%s: login on nonexistent port %u\n", dev->name(),
				 port_num);
		return reject_login(nullptr, os, info, 0, RejectReason::kUnableEstablishChannel,
				    "no such port", -ktl::kEINVAL);
	}
	if (parse_login_request(static_cast<srpt_cm_kind>(info.cm),
				ktl::Bytes(static_cast<const u8 *>(info.private_data),
					   info.private_data_len),
				&req))
		return reject_login(port, os, info, 0, RejectReason::kUnableEstablishChannel,
				    "malformed login request", -ktl::kEINVAL);
	/* Its ACL names are made of the address: no name from bytes of another meaning. */
	if (info.cm == SRPT_CM_RDMA && info.peer_family != SRPT_INET4 &&
	    info.peer_family != SRPT_INET6)
		return reject_login(port, os, info, req.tag, RejectReason::kUnableEstablishChannel,
				    "the initiator's address is neither IPv4 nor IPv6", -ktl::kEINVAL);

	const PortAttrib attrib = port->targets().attrib();
	LoginLimits lim;
	lim.max_req_size = max_req_size();
	lim.max_rsp_size = attrib.srp_max_rsp_size;
	lim.service_guid = service_guid();
	lim.use_srq = attrib.use_srq;
	const LoginCheck check = check_login(req, lim);
	if (!check.ok)
		return reject_login(port, os, info, req.tag, check.reason, check.why, -ktl::kEINVAL);
	/* Write data comes by RDMA READ: the initiator and the device must allow one. */
	const PeerReadDepth depth =
		read_depth(dev->attrs(), {info.initiator_depth, info.responder_resources});
	if (!depth.initiator_depth)
		return reject_login(port, os, info, req.tag, RejectReason::kUnableEstablishChannel,
				    "no RDMA READ allowed (initiator depth 0)", -ktl::kEINVAL);

	ktl::AllocChecker ac;
	Channel *ch = new (&ac) Channel(dev, ktl::RefPtr<RdmaPort>(port), os, info, req);
	if (!ac.check())
		return reject_login(port, os, info, req.tag, RejectReason::kInsufficientResources,
				    "out of memory", -ktl::kENOMEM);
	/* From here on the channel's own reference governs its life. */
	ktl::RefPtr<Channel> ref = ktl::AdoptRef(ch);
	ch->limits_.use_srq = attrib.use_srq;
	ch->limits_.max_rsp_size = attrib.srp_max_rsp_size;
	ch->limits_.max_ti_iu_len = check.max_ti_iu_len;
	ch->limits_.imm_data_offset = check.imm_data_offset;
	ch->read_depth_ = depth;
	if (ch->cm_ == SRPT_CM_IB && info.pkey_index < 0)
		srpt_os_log(SRPT_LOG_ERR, "%s port %u: P_Key %#x not found (%pe), using index 0\n",
			    port->dev_name(), port->num(), info.pkey, ktl::err_arg(info.pkey_index));
	else if (ch->cm_ == SRPT_CM_IB)
		ch->pkey_index_ = static_cast<u16>(info.pkey_index);
	srpt_os_log(SRPT_LOG_INFO,
		    "%s port %u: %s login of %s (initiator port id %s, it_iu_len %u, pkey %#x%s)\n",
		    port->dev_name(), port->num(), ch->cm_ == SRPT_CM_IB ? "IB/CM" : "RDMA/CM",
		    ch->name(), ch->i_port_name_.c_str(), req.req_it_iu_len, info.pkey,
		    check.multichannel ? ", multichannel" : "");

	/* The channel never connected: undo it; the shim frees @os. */
	auto abort_login = [ch, os](RejectReason reason, const char *why, int err) {
		ch->reject(reason, why);
		/* The receives the drain flushes are no error. */
		(void)ch->set_state(ChState::kDisconnected);
		srpt_os_channel_destroy_qp(os);
		/* Draining flushed the posted receives, which schedule a logout. */
		srpt_os_work_cancel_sync(&ch->logout_work_);
		ch->free_resources();
		return err;
	};
	/* The SRQ stays while the QP uses it, whatever use_srq does meanwhile. */
	if (ch->limits_.use_srq && !ch->srq_.acquire(dev))
		return abort_login(RejectReason::kInsufficientResources,
				   "use_srq was switched off during the login", -ktl::kEAGAIN);
	int ret = ch->create_resources();
	if (ret)
		return abort_login(RejectReason::kInsufficientResources,
				   "creating the queue pair or its buffers failed", ret);
	/*
	 * Made now: once the session opens, an ACL rmdir may find it and
	 * wait for the channel's release, so nothing after it may fail.
	 */
	SpareNexus spare = Logins::make_spare();
	if (!spare)
		return abort_login(RejectReason::kInsufficientResources, "out of memory",
				   -ktl::kENOMEM);

	/*
	 * A refusal decided under the logins mutex is carried out after it:
	 * undoing the login waits for the logout work, which takes the mutex.
	 */
	struct Refusal {
		RejectReason reason;
		const char *why;
		int err;
	} refusal{RejectReason::kInsufficientResources, nullptr, 0};
	u8 rsp_flags = 0;
	{
		ktl::MutexGuard guard(port->logins().mutex());

		if (!port->logins().accepting_locked()) {
			refusal = {RejectReason::kInsufficientResources, "the target port is not enabled",
				   -ktl::kEINVAL};
		} else if (port->targets().attrib().use_srq != ch->limits_.use_srq) {
			/* A switch that ended meanwhile logged the port's initiators out. */
			refusal = {RejectReason::kInsufficientResources,
				   "use_srq was switched during the login", -ktl::kEAGAIN};
		} else if ((ret = ch->open_session_locked())) {
			refusal = {ret == -ktl::kENOMEM ? RejectReason::kInsufficientResources
							: RejectReason::kUnableEstablishChannel,
				   "no ACL of an enabled TPG admits the initiator", ret};
		} else {
			port->logins().add_channel_locked(ch, check.multichannel, spare, &rsp_flags);
			ch->label_.put(" (").put(ch->tpg_->tport()->name()).put(" ch ").dec(ch->cid).put(')');
		}
	}
	if (refusal.err)
		return abort_login(refusal.reason, refusal.why, refusal.err);

	/*
	 * The channel is on the port's list and has a session: from here a
	 * failure is a normal close, and the release work owns the CM id.
	 */
	LoginResponse rsp;
	rsp.tag = req.tag;
	rsp.req_lim_delta = ch->limits_.rq_size;
	rsp.max_it_iu_len = lim.max_req_size;
	rsp.max_ti_iu_len = ch->limits_.max_ti_iu_len;
	rsp.rsp_flags = rsp_flags | (ch->limits_.imm_data_offset ? srp::kLoginRspImmedSupported : 0);
	u8 rsp_buf[srp::login_rsp::kSize];
	const ktl::size_t rsp_len = build_login_rsp(rsp, ktl::MutableBytes(rsp_buf));
	{
		ktl::MutexGuard guard(port->logins().mutex());

		/* A close may have come first (TPG disabled, relogin). */
		if (ch->state() != ChState::kConnecting || !port->logins().accepting_locked())
			ret = -ktl::kECONNABORTED;
		else
			ret = srpt_os_channel_accept(os, rsp_buf, rsp_len);
	}
	if (ret) {
		ch->reject(RejectReason::kInsufficientResources, "sending the login response failed");
		ch->close();
	} else {
		ch->logged_in_ = true;
		port->logins().count_login();
		srpt_os_log(SRPT_LOG_INFO, "%s port %u: %s logged in to %s (%u credits%s)\n",
			    port->dev_name(), port->num(), ch->name(), ch->tpg_->tport()->name(),
			    ch->limits_.rq_size, ch->limits_.imm_data_offset ? ", immediate data" : "");
	}
	*out = ch;
	return 0;
}

int Channel::create_resources()
{
	u32 sq_size = port_->targets().attrib().srp_sq_size;
	srpt_qp_params p;
	int ret;

	limits_.rq_size = dev_->recv_queue_depth(false);
	for (;;) {
		p = qp_params(dev_->attrs(), limits_.rq_size, limits_.use_srq, sq_size, read_depth_,
			      pkey_index_);
		limits_.max_send_wr = p.max_rdma_ctxs;
		ret = srpt_os_channel_create_qp(os_, to_handle<srpt_channel>(this), &p);
		if (ret == 0)
			break;
		if (sq_size <= kMinSqSize) {
			srpt_os_log(SRPT_LOG_ERR, "%s: creating a queue pair failed (%pe)\n", label(),
				    ktl::err_arg(ret));
			return ret;
		}
		sq_size = ktl::max(sq_size / 2, kMinSqSize);
	}
	return io_.create(os_, dev_->os());
}

void Channel::free_resources()
{
	io_.destroy();
	/* The QP is gone, and with it the last use of the SRQ by this channel. */
	srq_.reset();
}

int Channel::open_session_locked()
{
	int ret = -ktl::kEACCES;

	/*
	 * The names the in-tree target tries, so that existing ACLs keep
	 * working: the transport's name of the initiator on a GUID-named
	 * target port; "0x" + the initiator port id, then without "0x", on a
	 * GID-named one. Only enabled TPGs admit logins.
	 */
	/* Under the target mutex: an rmdir of the target port waits for us. */
	auto try_tport = [&](PortNameKind kind, auto try_names) {
		return port_->targets().with_tport(kind, [&](TargetPort *t) {
			return t && t->find_tpg([&](Tpg *tpg) {
				if (!tpg->enabled())
					return false;
				return try_names(tpg);
			});
		});
	};
	auto open = [&](Tpg *tpg, const char *initiator) {
		ret = srpt_os_channel_open_session(os_, tpg->os(), initiator);
		if (ret == 0) {
			tpg_ = tpg;
			acl_name_.put(initiator);
		}
		return ret == 0;
	};
	if (try_tport(PortNameKind::kGuid, [&](Tpg *tpg) { return open(tpg, name()); }))
		return 0;
	if (try_tport(PortNameKind::kGid, [&](Tpg *tpg) {
		    return open(tpg, i_port_name_.c_str()) || open(tpg, i_port_name_.c_str() + 2);
	    }))
		return 0;
	return ret;
}

int Channel::disconnect(srpt_disconnect how)
{
	if (!set_state(ChState::kDisconnecting))
		return -ktl::kENOTCONN;
	int ret = srpt_os_channel_disconnect(os_, how);
	/* IB/CM: a DREQ that cannot go found the initiator's: answer it. */
	if (ret < 0 && cm_ == SRPT_CM_IB && how == SRPT_DISCONNECT_DREQ)
		ret = srpt_os_channel_disconnect(os_, SRPT_DISCONNECT_DREP);
	if (ret < 0 && close())
		ret = 0;
	return ret;
}

bool Channel::close()
{
	if (!set_state(ChState::kDraining))
		return false;
	int ret = srpt_os_channel_qp_error(os_);
	if (ret)
		srpt_os_log(SRPT_LOG_ERR, "%s: moving the queue pair to the error state failed (%pe)\n",
			    label(), ktl::err_arg(ret));
	/* Nothing new goes out; what waits ends at the next completion or in the release. */
	io_.sendq().stop();
	/* Its completion comes after every earlier work request's. */
	ret = srpt_os_channel_post_zero_write(os_);
	if (ret) {
		srpt_os_log(SRPT_LOG_ERR, "%s: posting the drain write failed (%pe)\n", label(),
			    ktl::err_arg(ret));
		if (set_state(ChState::kDisconnected))
			schedule_release();
	}
	return true;
}

void Channel::disconnect_and_wait(const char *why)
{
	{
		ktl::MutexGuard guard(port_->logins().mutex());

		if (disconnect() >= 0)
			srpt_os_log(SRPT_LOG_INFO, "%s port %u: logging out %s: %s\n", port_->dev_name(),
				    port_->num(), name(), why);
		/* Do not wait for the initiator to answer the DREQ. */
		close();
	}
	while (srpt_os_wait_for_completion(&released_, kReleaseWaitLogMs))
		srpt_os_log(SRPT_LOG_INFO, "%s port %u: still waiting for %s to be released (%s)\n",
			    port_->dev_name(), port_->num(), name(), ch_state_name(state()));
}

void Channel::on_established()
{
	/* A late event: a closing channel's QP is not moved to RTS. */
	if (state() != ChState::kConnecting)
		return;
	const int ret = srpt_os_channel_ready(os_);

	if (ret) {
		srpt_os_log(SRPT_LOG_ERR, "%s: making the queue pair ready to send failed (%pe)\n",
			    label(), ktl::err_arg(ret));
		close();
		return;
	}
	if (!set_state(ChState::kLive))
		return;	/* already closing */
	if (io_.start())
		close();
}

namespace {

/* What a connection manager's event means to a channel. */
enum class CmEvent {
	kEstablished,
	kDisconnectRequest,
	kDisconnected,
	kFailed,	/* rejected, or no RTU will come */
	kOther,
};

CmEvent classify_cm_event(srpt_cm_kind cm, int event)
{
	if (cm == SRPT_CM_IB) {
		switch (event) {
		case SRPT_IB_CM_RTU_RECEIVED:
		case SRPT_IB_CM_USER_ESTABLISHED:
			return CmEvent::kEstablished;
		case SRPT_IB_CM_DREQ_RECEIVED:
			return CmEvent::kDisconnectRequest;
		case SRPT_IB_CM_DREP_RECEIVED:
		case SRPT_IB_CM_TIMEWAIT_EXIT:
		case SRPT_IB_CM_DREQ_ERROR:
			return CmEvent::kDisconnected;
		case SRPT_IB_CM_REJ_RECEIVED:
		case SRPT_IB_CM_REP_ERROR:
			return CmEvent::kFailed;
		}
		return CmEvent::kOther;
	}
	switch (event) {
	case SRPT_RDMA_CM_ESTABLISHED:
		return CmEvent::kEstablished;
	case SRPT_RDMA_CM_DISCONNECTED:
		return CmEvent::kDisconnectRequest;
	case SRPT_RDMA_CM_TIMEWAIT_EXIT:
		return CmEvent::kDisconnected;
	case SRPT_RDMA_CM_REJECTED:
	case SRPT_RDMA_CM_UNREACHABLE:
	case SRPT_RDMA_CM_CONNECT_ERROR:
		return CmEvent::kFailed;
	}
	return CmEvent::kOther;
}

} // namespace

void Channel::on_cm_event(int event)
{
	switch (classify_cm_event(cm_, event)) {
	case CmEvent::kEstablished:
		on_established();
		break;
	case CmEvent::kDisconnectRequest:
		/* Answer (DREP) and drain now; no need to wait for time-wait. */
		disconnect(SRPT_DISCONNECT_DREP);
		close();
		break;
	case CmEvent::kDisconnected:
		close();
		break;
	case CmEvent::kFailed:
		srpt_os_log(SRPT_LOG_INFO, "%s: connection failed: %s (CM event %d)\n", label(),
			    srpt_os_cm_event_msg(cm_, event), event);
		close();
		break;
	case CmEvent::kOther:
		srpt_os_log(SRPT_LOG_DEBUG, "%s: ignoring CM event %s (%d)\n", label(),
			    srpt_os_cm_event_msg(cm_, event), event);
		break;
	}
}

void Channel::on_qp_event(int event)
{
	switch (event) {
	case SRPT_IB_EVENT_COMM_EST:
		srpt_os_channel_notify_established(os_);
		break;
	case SRPT_IB_EVENT_QP_FATAL:
	case SRPT_IB_EVENT_QP_REQ_ERR:
	case SRPT_IB_EVENT_QP_ACCESS_ERR:
		srpt_os_log(SRPT_LOG_ERR, "%s: queue pair error: %s\n", label(),
			    srpt_os_ib_event_msg(event));
		/* Not in atomic context: the logout work disconnects. */
		request_logout();
		break;
	default:
		srpt_os_log(SRPT_LOG_DEBUG, "%s: QP event %s in state %s\n", label(),
			    srpt_os_ib_event_msg(event), ch_state_name(state()));
		break;
	}
}

void Channel::on_zero_write_done(bool ok)
{
	io_.on_zero_write_done(ok);
	if (!ok && set_state(ChState::kDisconnected))
		schedule_release();
}

void Channel::schedule_release()
{
	if (!release_scheduled_.exchange(true))
		srpt_os_work_schedule(&release_work_);
}

void Channel::release_work_fn(void *arg)
{
	static_cast<Channel *>(arg)->run_release();
}

void Channel::request_logout()
{
	srpt_os_work_schedule(&logout_work_);
}

void Channel::logout_work_fn(void *arg)
{
	Channel *ch = static_cast<Channel *>(arg);
	ktl::MutexGuard guard(ch->port_->logins().mutex());

	/* Disconnecting may fail once the QP broke: then drain at once. */
	ch->disconnect();
	ch->close();
}

/*
 * srpt_release_channel_work: each step ends one source of callbacks
 * before the memory they use goes.
 */
void Channel::run_release()
{
	/* Commands still waiting for the send queue end without a response. */
	io_.sendq().flush();
	/* Commands: LIO calls back until the session is gone. */
	srpt_os_channel_close_session(os_);
	/* CM events: none after the CM id is destroyed. */
	srpt_os_channel_destroy_cm(os_);
	/* Completions and QP events: none after the drained QP is destroyed. */
	srpt_os_channel_destroy_qp(os_);
	/* Only QP events and completions schedule it; a late run finds DISCONNECTED. */
	srpt_os_work_cancel_sync(&logout_work_);
	free_resources();
	/*
	 * Off the port's list only now that nothing of the device is in use:
	 * a device removal or a use_srq switch waits for the listed channels
	 * and then destroys the SRQ (and the device).
	 */
	port_->logins().remove_channel(this);
	srpt_os_channel_free(os_);
	os_ = nullptr;
	srpt_os_log(SRPT_LOG_INFO, "%s port %u: %s logged out\n", port_->dev_name(), port_->num(),
		    name());
	srpt_os_complete_all(&released_);
	/* The port list's reference; waiters may hold more. */
	if (release())
		delete this;
}

void Channel::close_session()
{
	ktl::RefPtr<Channel> self(this);

	self->disconnect_and_wait("its ACL or session was removed");
}

} // namespace srpt
