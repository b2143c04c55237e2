/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * An RDMA channel: one connection of an initiator, carrying one LIO
 * session. Its state only moves forward:
 *
 *   CONNECTING -> LIVE -> DISCONNECTING -> DRAINING -> DISCONNECTED
 *
 * CONNECTING until the CM says the connection is established (IUs that
 * arrive earlier wait); DISCONNECTING once a DREQ went out or came in;
 * DRAINING once the QP is in the error state and a zero-length write was
 * posted behind everything else; DISCONNECTED when that write completed,
 * after which the release work frees the channel in process context.
 *
 * Lifetime: the port's channel list holds one reference until the release
 * work ends; whoever waits for a release holds another.
 */
#pragma once

#include <ktl/list.h>
#include <ktl/lock.h>
#include <ktl/refptr.h>
#include <ktl/string.h>
#include <srpt/abi.h>
#include <srpt/channel_io.h>
#include <srpt/live.h>
#include <srpt/login.h>
#include <srpt/port_name.h>
#include <srpt/qp_size.h>
#include <srpt/srq_hold.h>

namespace srpt {

class Device;
class RdmaPort;
class Tpg;

enum class ChState : ktl::u8 {
	kConnecting,
	kLive,
	kDisconnecting,
	kDraining,
	kDisconnected,
};

const char *ch_state_name(ChState s);

/* An initiator as its transport names it: a GUID or an IP address. */
using PeerName = ktl::StrBuf<64>;

class Channel : public ktl::RefCounted<Channel> {
public:
	/* srpt_cm_req_recv: see srpt_core_login() for the ownership rules. */
	[[nodiscard]] static int login(Device *dev, u32 port_num, srpt_os_channel *os,
				       const srpt_login_info &info, Channel **out);

	/* Kernel event codes, as srpt_core_cm_event() and srpt_core_qp_event(). */
	void on_cm_event(int event);
	void on_qp_event(int event);
	void on_zero_write_done(bool ok);

	/*
	 * srpt_disconnect_ch: DREQ/rdma_disconnect, or close() when that is
	 * impossible. -kENOTCONN when already disconnecting. Callers hold
	 * the port's logins mutex or run in a CM callback, so that this
	 * never races with accepting the login.
	 */
	int disconnect(srpt_disconnect how = SRPT_DISCONNECT_DREQ);
	/* srpt_close_ch: QP to error, drain. False when already closing. */
	bool close();
	/* Disconnects and waits until released; any context that may sleep. */
	void disconnect_and_wait(const char *why);
	/* LIO's close_session(): its ACL or session is gone. */
	void close_session();
	/* From any context: the logout work disconnects. */
	[[gnu::cold, gnu::noinline]] void request_logout();

	ChState state() const { return static_cast<ChState>(state_.load()); }
	const char *name() const { return name_.c_str(); }
	/*
	 * What the channel's messages start with: device, port and
	 * initiator, and from the login on its target port and channel
	 * number, so that a line names which of many sessions it is about.
	 */
	const char *label() const { return label_.c_str(); }
	RdmaPort *port() const { return port_.get(); }
	Tpg *tpg() const { return tpg_; }
	const LoginRequest &request() const { return req_; }
	/* The login response went out. */
	bool logged_in() const { return logged_in_; }
	/* The name its session was opened with: its node ACL's name. */
	const char *acl_name() const { return acl_name_.c_str(); }
	ChannelIo &io() { return io_; }

	srpt_cm_kind cm() const { return cm_; }
	ktl::ListNode nexus_node;	/* on its Nexus's list, under the port's logins mutex */
	u32 cid = 0;			/* its number in its nexus, set with nexus_node */

	~Channel();

private:
	Channel(Device *dev, ktl::RefPtr<RdmaPort> port, srpt_os_channel *os, const srpt_login_info &info,
		const LoginRequest &req);

	[[nodiscard]] bool set_state(ChState s);
	void reject(srp::RejectReason reason, const char *why);
	[[nodiscard]] int create_resources();
	void free_resources();
	[[nodiscard]] int open_session_locked();
	void on_established();
	void schedule_release();
	static void release_work_fn(void *arg);
	static void logout_work_fn(void *arg);
	void run_release();

	Device *const dev_;
	ktl::RefPtr<RdmaPort> port_;
	srpt_os_channel *os_;
	Tpg *tpg_ = nullptr;		/* set under the port's logins mutex */
	LoginRequest req_;
	PeerName name_;			/* the initiator, as the transport names it */
	ktl::StrBuf<192> label_;	/* completed before the login response goes out */
	GidName i_port_name_;		/* "0x" + 32 hex digits of the initiator port id */
	ktl::StrBuf<64> acl_name_;
	srpt_cm_kind cm_;
	IoLimits limits_;		/* written by the login, before io_ is created */
	PeerReadDepth read_depth_{};	/* ... as this */
	u16 pkey_index_ = 0;		/* IB/CM: of the login's P_Key */
	ChannelIo io_{*this, limits_};

	ktl::Atomic<ktl::u8> state_{static_cast<ktl::u8>(ChState::kConnecting)};
	bool logged_in_ = false;		/* the login response went out */
	SrqHold srq_;			/* with use_srq, until the QP is gone */

	srpt_os_work release_work_;
	srpt_os_work logout_work_;
	srpt_os_completion released_;
	ktl::Atomic<bool> release_scheduled_{false};
};

} // namespace srpt
