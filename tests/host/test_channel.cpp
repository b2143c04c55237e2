// SPDX-License-Identifier: GPL-2.0-only
/*
 * Logins and channels through the C ABI and the fake: srpt_core_login()
 * over RDMA/CM and IB/CM (the login response, QP parameters, receive
 * buffers, LIO session names and log lines), every reject and every
 * resource failure (nothing may be left behind), multichannel rules, the
 * channel state machine and its teardown, and the CM/QP event handlers.
 */
#include "channel_fixture.h"

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <atomic>
#include <thread>

using iu::Bytes;
using srpt::ChState;

namespace {

/* SRP_LOGIN_REJ as the fake captured it: reason and tag. */
struct Rej {
	std::uint32_t reason;
	std::uint64_t tag;
};

Rej rej_of(const srpt_os_channel &ch)
{
	const Bytes &b = ch.reject;
	EXPECT_EQ(32u, b.size()) << iu::hex(b);
	if (b.size() != 32)
		return {0, 0};
	Bytes want(32, 0);
	want[0] = 0xc2;
	std::memcpy(want.data() + 4, b.data() + 4, 12);
	want[25] = 0x06;
	EXPECT_EQ(iu::hex(want), iu::hex(b)) << "fixed fields of SRP_LOGIN_REJ";
	return {iu::get_be32(b, 4), iu::get_be64(b, 8)};
}

/* Nothing of a rejected login is left in the core or the fake. */
void expect_nothing_left(const srpt_os_channel &ch, long allocs_before)
{
	EXPECT_EQ(0, srpt::live_count(srpt::Live::kChannel));
	EXPECT_EQ(allocs_before, fake::live_allocs());
	EXPECT_EQ(0u, fake::live_recvs());
	EXPECT_EQ(0u, fake::live_cmds());
	EXPECT_FALSE(ch.accepted());
	EXPECT_FALSE(ch.session_open());
	EXPECT_TRUE(!ch.qp_live()) << "the QP was left";
	EXPECT_TRUE(ch.posted.empty());
	EXPECT_FALSE(ch.cm_destroyed()) << "the CM id is the shim's on a failed login";
	EXPECT_FALSE(ch.freed()) << "the shim frees a rejected channel";
}

} // namespace

using Login = ChannelTest;

TEST_F(Login, RdmaCmLoginResponseQpAndBuffers)
{
	setup_target();
	iu::LoginReq req = login_req();
	req.tag = 0x0102030405060708ull;
	srpt_os_channel &ch = login_ok(req, SRPT_CM_RDMA);
	ASSERT_TRUE(ch.core);

	Bytes want(52, 0);
	want[0] = 0xc0;
	want[7] = 0x80;				/* 128 credits */
	for (int i = 0; i < 8; i++)
		want[8 + i] = static_cast<std::uint8_t>(i + 1);
	want[18] = 0x20, want[19] = 0x54;	/* max_it_iu_len 8276 */
	want[22] = 0x01;			/* max_ti_iu_len 256 */
	want[25] = 0x06;
	want[26] = 0x00;			/* no existing channels, no immediate data */
	EXPECT_EQ(iu::hex(want), iu::hex(ch.accept_rsp));

	EXPECT_EQ(128u + 1u, ch.qp.max_recv_wr) << "and the drain's";
	EXPECT_EQ(2048u, ch.qp.max_rdma_ctxs) << "half of srp_sq_size 4096";
	EXPECT_EQ(2048u + 4u, ch.qp.max_send_wr) << "and the zero-length writes' and the drain's";
	EXPECT_EQ(129u + 2048u + 4u, ch.qp.cq_size) << "a receive per slot, a send per WR";
	EXPECT_EQ(4, ch.qp.initiator_depth);
	EXPECT_EQ(4, ch.qp.responder_resources);
	EXPECT_EQ(16u, ch.qp.max_send_sge) << "not the device's 30: every WQE is sized for them";
	EXPECT_EQ(0, ch.qp.use_srq);
	EXPECT_EQ(7, ch.qp.rnr_retry_count) << "an initiator out of buffers is waited for";
	EXPECT_EQ(1, ch.qp.flow_control);
	ASSERT_EQ(128u, ch.posted.size());
	for (const srpt_os_recv *r : ch.posted) {
		EXPECT_EQ(8276u, r->size);
		EXPECT_EQ(0u, r->align_offset);
	}
	EXPECT_EQ(128u, fake::cmds_of(ch).size());
	for (const srpt_os_cmd *c : fake::cmds_of(ch))
		EXPECT_EQ(256u, c->rsp_size);

	EXPECT_TRUE(ch.session_open());
	EXPECT_EQ(&os_tpg_a_, ch.session_tpg);
	EXPECT_EQ(kPeer, ch.session_initiator) << "a GUID-named target port: the transport's name";
	EXPECT_EQ(std::vector<std::string>{kPeer}, ch.session_tries);
	EXPECT_EQ(ChState::kConnecting, state(ch));
	EXPECT_EQ(0, ch.ready_calls);
	EXPECT_EQ(1, srpt::live_count(srpt::Live::kChannel));
	EXPECT_EQ(1u, port_of(*dev_, 1)->logins().channel_count());
	EXPECT_EQ((std::vector<std::string>{"channel_create_qp", "channel_open_session 192.168.122.7",
					    "channel_accept 52"}),
		  trace_of({"channel_"}));
	EXPECT_EQ(1, fake::log_count("mlx5_0 port 1: RDMA/CM login of 192.168.122.7 (initiator port id "
				     "0x0123456789abcdeffedcba9876543210, it_iu_len 8276, pkey 0xffff)",
				     SRPT_LOG_INFO))
		<< fake::log_text();
	EXPECT_EQ(1, fake::log_count("mlx5_0 port 1: 192.168.122.7 logged in to 0002:c903:00a1:b2c1 "
				     "(128 credits)",
				     SRPT_LOG_INFO))
		<< fake::log_text();
	EXPECT_EQ(0, fake::log_count("rejected"));
}

TEST_F(Login, IbCmLoginOnAGidNamedTargetPort)
{
	setup_target(SRPT_PORT_ID_GID);
	srpt_os_channel &ch = new_channel();
	iu::LoginReq req = login_req();
	req.it_iu_len = 200;
	pkey_index_ = 3;
	ASSERT_EQ(0, login(ch, priv(req, SRPT_CM_IB), SRPT_CM_IB, kIbPeer, 1, 0x8001));
	ASSERT_TRUE(ch.accepted());
	EXPECT_EQ(3, ch.qp.pkey_index) << "the QP on the login's P_Key";
	EXPECT_EQ(200u, iu::get_be32(ch.accept_rsp, 20)) << "max_ti_iu_len: the initiator's 200";
	EXPECT_EQ(8276u, iu::get_be32(ch.accept_rsp, 16));
	EXPECT_EQ(kIPortName, ch.session_initiator) << "a GID-named target port: 0x + the port id";
	EXPECT_EQ(1, fake::log_count("mlx5_0 port 1: IB/CM login of 0002:c903:00ff:0001 (initiator port "
				     "id 0x0123456789abcdeffedcba9876543210, it_iu_len 200, pkey 0x8001)"))
		<< fake::log_text();
	EXPECT_EQ(1, fake::log_count("0002:c903:00ff:0001 logged in to " + fake::gid_name(*dev_, 1)))
		<< fake::log_text();
}

/*
 * A P_Key the port's table lacks (the SM changed it meanwhile): the login
 * goes on with index 0, the default partition, and says so.
 */
TEST_F(Login, IbCmPkeyNotFoundUsesIndexZero)
{
	setup_target();
	srpt_os_channel &ch = new_channel();
	pkey_index_ = -ENOENT;
	ASSERT_EQ(0, login(ch, priv(login_req(), SRPT_CM_IB), SRPT_CM_IB, kIbPeer, 1, 0x8001));
	ASSERT_TRUE(ch.accepted());
	EXPECT_EQ(0, ch.qp.pkey_index);
	EXPECT_EQ(1, fake::log_count("mlx5_0 port 1: P_Key 0x8001 not found (-ENOENT), using index 0",
				     SRPT_LOG_ERR))
		<< fake::log_text();
}

TEST_F(Login, ImmediateDataIsNegotiatedAndAlignsTheBuffers)
{
	setup_target();
	iu::LoginReq req = login_req();
	req.flags = 0x80;
	req.imm_offset = 48;
	srpt_os_channel &ch = login_ok(req);
	ASSERT_EQ(52u, ch.accept_rsp.size());
	EXPECT_EQ(0x80, ch.accept_rsp[26]);
	ASSERT_FALSE(ch.posted.empty());
	for (const srpt_os_recv *r : ch.posted) {
		EXPECT_EQ(464u, r->align_offset);
		EXPECT_EQ(0u, reinterpret_cast<std::uintptr_t>(r->iu + 48) % 512);
	}
	EXPECT_EQ(1, fake::log_count("(128 credits, immediate data)")) << fake::log_text();

	/* Below SRP_CMD's end it is not offered; the login still succeeds. */
	req.imm_offset = 40;
	req.i_port_id = iu::port_id(2, 2);
	srpt_os_channel &ch2 = login_ok(req);
	EXPECT_EQ(0x00, ch2.accept_rsp.at(26));
	EXPECT_EQ(0u, ch2.posted.at(0)->align_offset);
}

TEST_F(Login, SharedReceiveQueue)
{
	ASSERT_EQ(0, srpt_core_param_set(SRPT_PARAM_SRQ_SIZE, "16"));
	setup_target();
	ASSERT_EQ(2, srpt_core_tpg_attrib_store(tpg_, SRPT_ATTRIB_USE_SRQ, "1\n", 2));
	ASSERT_TRUE(dev_->srq);
	EXPECT_EQ(16u, fake::srq_posted(*dev_));

	iu::LoginReq req = login_req();
	req.flags = 0x80;	/* immediate data requested: not with an SRQ */
	req.imm_offset = 48;
	srpt_os_channel &ch = login_ok(req);
	EXPECT_EQ(1, ch.qp.use_srq);
	EXPECT_TRUE(ch.posted.empty()) << "no per-channel receive ring";
	EXPECT_EQ(16u, fake::live_recvs());
	EXPECT_EQ(0x00, ch.accept_rsp.at(26)) << "immediate data is never offered with an SRQ";
	EXPECT_EQ(128u, iu::get_be32(ch.accept_rsp, 4)) << "credits: the send contexts";
	establish(ch);

	/* An IU comes from the SRQ and goes back there. */
	srpt_os_cmd *c = send_cmd(ch, tur_cmd(1), dev_);
	ASSERT_NE(nullptr, c);
	EXPECT_TRUE(c->submitted);
	EXPECT_EQ(16u, fake::srq_posted(*dev_));
	lio_respond(c);
	lio_finish(c);
	logout(ch);
	EXPECT_EQ(16u, fake::srq_posted(*dev_)) << "SRQ buffers stay with the device";
}

/* ---- rejects ---- */

/*
 * The login reads use_srq, takes the SRQ, creates its QP on it, and only
 * then checks again under the logins mutex. A switch in between must
 * neither destroy the SRQ under the QP nor leave a channel of the old
 * kind: at the login's n-th lock release before that check (the
 * parameter), use_srq goes from 1 to 0 on "another thread".
 */
class UseSrqSwitchedDuringLogin : public ChannelTest, public ::testing::WithParamInterface<int> {};

TEST_P(UseSrqSwitchedDuringLogin, TheLoginIsRejectedAndTheSrqOutlivesItsQp)
{
	const int at = GetParam();
	setup_target();
	ASSERT_EQ(2, srpt_core_tpg_attrib_store(tpg_, SRPT_ATTRIB_USE_SRQ, "1\n", 2));
	ASSERT_TRUE(dev_->srq);
	srpt_os_channel &ch = new_channel();
	int unlocks = 0;
	fake::set_mutex_unlock_hook([&] {
		if (fake::mutexes_held() || ++unlocks < at)
			return true;
		EXPECT_EQ(2, srpt_core_tpg_attrib_store(tpg_, SRPT_ATTRIB_USE_SRQ, "0\n", 2));
		return false;
	});
	EXPECT_NE(0, login(ch, priv(login_req(), SRPT_CM_RDMA)));
	EXPECT_EQ(at, unlocks);
	EXPECT_EQ(1, ch.reject_calls);
	EXPECT_FALSE(ch.accepted());
	EXPECT_EQ(1, fake::log_count("use_srq was switched")) << fake::log_text();
	EXPECT_FALSE(dev_->srq) << "the last user of the SRQ is gone";
	/* The next login gets a receive ring of its own. */
	srpt_os_channel &next = login_ok(login_req());
	EXPECT_EQ(0, next.qp.use_srq);
	establish(next);
	logout(next);
}

INSTANTIATE_TEST_SUITE_P(Unlocks, UseSrqSwitchedDuringLogin, ::testing::Values(1, 2));

TEST_F(Login, RaceUseSrqFlipsWhileLoginsRun)
{
	/*
	 * The host analog of the VM storm: logins on this thread while
	 * another flips use_srq (each flip logs the port's initiators out).
	 * The fake reports an SRQ destroyed under a QP, a QP created on a
	 * missing SRQ, and every broken teardown rule; ASan any use after free.
	 */
	ASSERT_EQ(0, srpt_core_param_set(SRPT_PARAM_SRQ_SIZE, "16"));
	setup_target();
	std::atomic<bool> stop{false};
	std::atomic<int> flips{0};
	std::thread flipper([&] {
		for (int i = 0; !stop.load(); i++) {
			EXPECT_EQ(2, srpt_core_tpg_attrib_store(tpg_, SRPT_ATTRIB_USE_SRQ,
								i % 2 ? "0\n" : "1\n", 2));
			flips++;
			std::this_thread::sleep_for(std::chrono::milliseconds(1));
		}
	});
	/* Logins start once the flipper runs, and keep going until it flipped a few times. */
	while (flips.load() == 0)
		std::this_thread::yield();
	int accepted = 0, refused = 0, flips_during = 0;
	for (int i = 0; i < 200 || flips_during < 10; i++) {
		srpt_os_channel &ch = new_channel();
		const int before = flips.load();
		if (login(ch, priv(login_req(), SRPT_CM_RDMA)) == 0 && ch.accepted())
			accepted++;
		else
			refused++;
		flips_during += flips.load() != before;
		ASSERT_LT(i, 20000) << "the flipper stalled";
	}
	stop = true;
	flipper.join();
	fake::run_work();
	/* The race ran: flips landed inside logins, and logins still got through. */
	EXPECT_LE(10, flips_during);
	EXPECT_LT(0, accepted) << refused << " refused";
	for (const char *l : {"use_srq was switched", "logging out"})
		EXPECT_LT(0, fake::log_count(l)) << "no login met a flip: " << l;
	/* Once it settles, a login goes through and serves I/O. */
	srpt_os_channel &ch = live_channel(login_req());
	srpt_os_cmd *c = send_cmd(ch, tur_cmd(1), ch.qp.use_srq ? dev_ : nullptr);
	ASSERT_NE(nullptr, c);
	lio_respond(c);
	lio_finish(c);
	logout(ch);
}

/*
 * The login looks through the port's target ports (GUID form, then GID
 * form) under the logins mutex; an rmdir of one of them, at the n-th
 * lock release inside that section (the parameter), must wait until the
 * login is done with it.
 */
class TportRemovedDuringLogin : public ChannelTest, public ::testing::WithParamInterface<int> {};

TEST_P(TportRemovedDuringLogin, TheLoginNeverTouchesItAfterwards)
{
	const int at = GetParam();
	setup_target(SRPT_PORT_ID_GID);
	srpt_os_tport os_guid{};
	srpt_tport *guid = nullptr;
	ASSERT_EQ(0, srpt_core_tport_create(fake::guid_name(*dev_, 1).c_str(), &os_guid, &guid));
	srpt_os_channel &ch = new_channel();
	int unlocks = 0;
	fake::set_mutex_unlock_hook([&] {
		/* Inside the login's channel-mutex section, before the session opens. */
		if (fake::mutexes_held() != 1 || !ch.core || ch.session_open() || ++unlocks < at)
			return true;
		srpt_core_tport_destroy(guid);
		return false;
	});
	EXPECT_EQ(0, login(ch, priv(login_req(), SRPT_CM_RDMA)));
	EXPECT_EQ(at, unlocks);
	EXPECT_TRUE(ch.accepted());
	EXPECT_EQ(1, fake::log_count("removed target port " + fake::guid_name(*dev_, 1)));
	establish(ch);
	logout(ch);
}

INSTANTIATE_TEST_SUITE_P(Unlocks, TportRemovedDuringLogin, ::testing::Values(1, 2));

TEST_F(Login, EveryRejectOfTheRequestItself)
{
	setup_target();
	const long allocs = fake::live_allocs();
	const struct {
		const char *what;
		void (*mutate)(iu::LoginReq &);
		std::uint32_t reason;
		const char *why;
	} cases[] = {
		{"it_iu_len 63", [](iu::LoginReq &r) { r.it_iu_len = 63; }, 0x00010002,
		 "requested max initiator to target IU length out of range"},
		{"it_iu_len 8277", [](iu::LoginReq &r) { r.it_iu_len = 8277; }, 0x00010002,
		 "requested max initiator to target IU length out of range"},
		{"no buffer format", [](iu::LoginReq &r) { r.buf_fmt = 0x0001; }, 0x00010004,
		 "neither direct nor indirect"},
		{"id_ext", [](iu::LoginReq &r) { r.t_port_id[7] ^= 1; }, 0x00010003,
		 "target port identifier is not this target's"},
		{"ioc_guid", [](iu::LoginReq &r) { r.t_port_id[8] ^= 0x80; }, 0x00010003,
		 "target port identifier is not this target's"},
		{"action 2", [](iu::LoginReq &r) { r.flags = 0x02; }, 0x00010000,
		 "reserved multi-channel action"},
		{"action 3", [](iu::LoginReq &r) { r.flags = 0x83; }, 0x00010000,
		 "reserved multi-channel action"},
		{"opcode", [](iu::LoginReq &r) { r.opcode = 0x02; }, 0x00010000, "not an SRP_LOGIN_REQ"},
	};
	for (srpt_cm_kind cm : {SRPT_CM_RDMA, SRPT_CM_IB}) {
		for (const auto &c : cases) {
			SCOPED_TRACE(std::string(c.what) + (cm == SRPT_CM_IB ? " IB/CM" : " RDMA/CM"));
			fake::clear_logs();
			iu::LoginReq req = login_req();
			req.tag = 0xfeed0000beef0000ull + static_cast<unsigned>(cm);
			c.mutate(req);
			srpt_os_channel &ch = new_channel();
			EXPECT_EQ(-EINVAL, login(ch, priv(req, cm), cm));
			ASSERT_EQ(1, ch.reject_calls);
			const Rej r = rej_of(ch);
			EXPECT_EQ(c.reason, r.reason);
			EXPECT_EQ(req.tag, r.tag);
			EXPECT_TRUE(ch.qp_attempts.empty()) << "rejected before any resource";
			expect_nothing_left(ch, allocs);
			EXPECT_EQ(1, fake::log_count(std::string("mlx5_0 port 1: rejected login of ") +
							     default_peer(cm) + ": " + c.why,
						     SRPT_LOG_INFO))
				<< fake::log_text();
		}
	}
}

TEST_F(Login, MalformedPrivateData)
{
	setup_target();
	const long allocs = fake::live_allocs();
	for (srpt_cm_kind cm : {SRPT_CM_RDMA, SRPT_CM_IB}) {
		Bytes p = priv(login_req(), cm);
		p.resize(cm == SRPT_CM_IB ? 63 : 55);
		for (Bytes b : {p, Bytes{}}) {
			srpt_os_channel &ch = new_channel();
			EXPECT_EQ(-EINVAL, login(ch, b, cm));
			const Rej r = rej_of(ch);
			EXPECT_EQ(0x00010000u, r.reason);
			EXPECT_EQ(0u, r.tag);
			expect_nothing_left(ch, allocs);
		}
	}
	/* Named by the transport even when the request cannot be read: an address, a GUID. */
	EXPECT_EQ(2, fake::log_count("rejected login of 192.168.122.7: malformed login request"));
	EXPECT_EQ(2, fake::log_count("rejected login of 0002:c903:00ff:0001: malformed login request"));
}

TEST_F(Login, NoSuchPort)
{
	setup_target();
	srpt_os_channel &ch = new_channel();
	EXPECT_EQ(-EINVAL, login(ch, priv(login_req(), SRPT_CM_RDMA), SRPT_CM_RDMA, kPeer, 3));
	EXPECT_EQ(0x00010000u, rej_of(ch).reason);
	expect_nothing_left(ch, fake::live_allocs());
	EXPECT_EQ(1, fake::log_count("rejected login of 192.168.122.7: no such port")) << fake::log_text();
}

TEST_F(Login, PortWithoutAnEnabledTpg)
{
	setup_target(SRPT_PORT_ID_GUID, false);
	const long allocs = fake::live_allocs();
	for (unsigned port : {1u, 2u}) {
		srpt_os_channel &ch = new_channel();
		iu::LoginReq req = login_req();
		EXPECT_EQ(-EINVAL, login(ch, priv(req, SRPT_CM_RDMA), SRPT_CM_RDMA, kPeer, port)) << port;
		const Rej r = rej_of(ch);
		EXPECT_EQ(0x00010001u, r.reason) << port;
		EXPECT_EQ(req.tag, r.tag);
		expect_nothing_left(ch, allocs);
		EXPECT_TRUE(ch.session_tries.empty());
		EXPECT_EQ(1, fake::log_count("mlx5_0 port " + std::to_string(port) + ": rejected login of 192.168.122.7 "
						     "(initiator port id 0x0123456789abcdeffedcba9876543210): "
						     "the target port is not enabled"))
			<< fake::log_text();
	}
}

/*
 * An RDMA/CM peer that is neither IPv4 nor IPv6 (an AF_IB listener one
 * day): its address bytes mean something else, and a name made of them
 * could match another initiator's ACL. The login is refused.
 */
TEST_F(Login, AnRdmaCmPeerWithoutAnIpAddressIsRejected)
{
	setup_target(SRPT_PORT_ID_GUID);
	const long allocs = fake::live_allocs();
	srpt_os_channel &ch = new_channel();
	bool asked = false;
	ch.acl = [&](srpt_os_tpg *, const std::string &) {
		asked = true;
		return 0;
	};
	peer_family_ = 0;
	EXPECT_EQ(-EINVAL, login(ch, priv(login_req(), SRPT_CM_RDMA)));
	EXPECT_FALSE(asked) << "an ACL was looked up for a name made of other bytes";
	EXPECT_FALSE(ch.accepted());
	EXPECT_EQ(0x00010000u, rej_of(ch).reason);
	expect_nothing_left(ch, allocs);
	EXPECT_EQ(1, fake::log_count("rejected login of (no IP address): the initiator's address "
				     "is neither IPv4 nor IPv6"))
		<< fake::log_text();
}

TEST_F(Login, AclNamesTriedInOrder)
{
	/* A GUID-named target port: the transport's name of the initiator. */
	setup_target(SRPT_PORT_ID_GUID);
	const long allocs = fake::live_allocs();
	srpt_os_channel &a = new_channel();
	a.acl = [](srpt_os_tpg *, const std::string &) { return -EACCES; };
	EXPECT_EQ(-EACCES, login(a, priv(login_req(), SRPT_CM_RDMA)));
	EXPECT_EQ(std::vector<std::string>{kPeer}, a.session_tries);
	EXPECT_EQ(0x00010000u, rej_of(a).reason);
	expect_nothing_left(a, allocs);
	EXPECT_EQ(1, fake::log_count("rejected login of 192.168.122.7 (initiator port id "
				     "0x0123456789abcdeffedcba9876543210): no ACL of an enabled TPG "
				     "admits the initiator"))
		<< fake::log_text();

	/* The GID-named one on the same port, with a TPG of its own. */
	srpt_tport *gid = create_tport(fake::gid_name(*dev_, 1));
	ASSERT_NE(nullptr, gid);
	srpt_tpg *tpg_b = create_tpg(gid, nullptr, &os_tpg_b_);
	ASSERT_NE(nullptr, tpg_b);
	ASSERT_EQ(0, srpt_core_tpg_enable(tpg_b, 1));
	const long allocs_b = fake::live_allocs();
	srpt_os_channel &b = new_channel();
	std::vector<srpt_os_tpg *> tpgs;
	b.acl = [&](srpt_os_tpg *t, const std::string &) {
		tpgs.push_back(t);
		return -EACCES;
	};
	EXPECT_EQ(-EACCES, login(b, priv(login_req(), SRPT_CM_RDMA)));
	EXPECT_EQ((std::vector<std::string>{kPeer, kIPortName, kIPortName + 2}), b.session_tries);
	EXPECT_EQ((std::vector<srpt_os_tpg *>{&os_tpg_a_, &os_tpg_b_, &os_tpg_b_}), tpgs);
	expect_nothing_left(b, allocs_b);

	/* Only the name without 0x has an ACL. */
	srpt_os_channel &c = new_channel();
	c.acl = [](srpt_os_tpg *t, const std::string &n) {
		return n == "0123456789abcdeffedcba9876543210" ? 0 : -EACCES;
	};
	EXPECT_EQ(0, login(c, priv(login_req(), SRPT_CM_RDMA)));
	EXPECT_TRUE(c.accepted());
	EXPECT_EQ("0123456789abcdeffedcba9876543210", c.session_initiator);
	EXPECT_EQ(&os_tpg_b_, c.session_tpg);
	EXPECT_EQ(1, fake::log_count("192.168.122.7 logged in to " + fake::gid_name(*dev_, 1)))
		<< fake::log_text();

	/* A disabled TPG is not tried at all. */
	ASSERT_EQ(0, srpt_core_tpg_enable(tpg_, 0));
	srpt_os_channel &d = new_channel();
	iu::LoginReq other = login_req();
	other.i_port_id = iu::port_id(0x1111, 0x2222);
	d.acl = [](srpt_os_tpg *, const std::string &) { return -EACCES; };
	EXPECT_EQ(-EACCES, login(d, priv(other, SRPT_CM_RDMA)));
	EXPECT_EQ((std::vector<std::string>{"0x00000000000011110000000000002222",
					    "00000000000011110000000000002222"}),
		  d.session_tries);
	logout(c);
}

TEST_F(Login, ARejectAfterTheQueuePairExistedLogsOnlyTheReject)
{
	/*
	 * Destroying the QP flushes the posted receives (ib_drain_qp): their
	 * failed completions are not news about a broken connection.
	 */
	setup_target();
	srpt_os_channel &ch = new_channel();
	ch.acl = [](srpt_os_tpg *, const std::string &) { return -EACCES; };
	EXPECT_EQ(-EACCES, login(ch, priv(login_req(), SRPT_CM_RDMA)));
	EXPECT_TRUE(ch.qp_destroyed());
	EXPECT_EQ(0u, fake::pending_work());
	for (const fake::LogLine &l : fake::logs())
		EXPECT_NE(SRPT_LOG_ERR, l.level) << l.text;
	EXPECT_EQ(0, fake::log_count("receive failed")) << fake::log_text();
}

TEST_F(Login, ARefusedLoginLeavesItsDrainAReceiveSlot)
{
	/*
	 * srp_daemon scanning a fabric: every initiator without an ACL is
	 * refused right after its receives were posted, and the QP is
	 * destroyed before anything polled their flushed completions. On
	 * an HCA that sizes the receive queue exactly, ib_drain_rq() needs
	 * a slot of its own besides the 128 receives: without it the
	 * kernel warns and frees the QP with completions still due.
	 */
	setup_target();
	srpt_os_channel &ch = new_channel();
	ch.acl = [](srpt_os_tpg *, const std::string &) { return -EACCES; };
	EXPECT_EQ(-EACCES, login(ch, priv(login_req(), SRPT_CM_IB), SRPT_CM_IB));
	EXPECT_EQ(1, ch.reject_calls);
	EXPECT_TRUE(ch.qp_destroyed());
	EXPECT_EQ(129u, ch.qpm.rq_slots) << "the 128 receives and the drain's";
	const auto v = fake::take_violations();
	EXPECT_TRUE(v.empty()) << (v.empty() ? "" : v[0]);
}

TEST_F(Login, SessionOutOfMemoryIsInsufficientResources)
{
	setup_target();
	srpt_os_channel &ch = new_channel();
	ch.acl = [](srpt_os_tpg *, const std::string &) { return -ENOMEM; };
	EXPECT_EQ(-ENOMEM, login(ch, priv(login_req(), SRPT_CM_RDMA)));
	EXPECT_EQ(0x00010001u, rej_of(ch).reason);
	expect_nothing_left(ch, fake::live_allocs());
}

TEST_F(Login, RdmaReadsInFlightStayWithinTheInitiatorsAndTheDevicesLimits)
{
	/* Beyond either end's limit a READ is refused on the wire and the QP breaks. */
	setup_target();
	peer_initiator_depth_ = 2;
	peer_responder_resources_ = 1;
	srpt_os_channel &a = login_ok(login_req());
	EXPECT_EQ(2, a.qp.initiator_depth);
	EXPECT_EQ(1, a.qp.responder_resources);

	peer_initiator_depth_ = 200;
	peer_responder_resources_ = 200;
	iu::LoginReq req = login_req();
	req.i_port_id = iu::port_id(2, 2);
	srpt_os_channel &b = login_ok(req);
	EXPECT_EQ(4, b.qp.initiator_depth) << "no more than ib_srp asks for";
	EXPECT_EQ(4, b.qp.responder_resources);

	/* Write data comes only by RDMA READ: an initiator that allows none is refused. */
	peer_initiator_depth_ = 0;
	peer_responder_resources_ = 4;
	req.i_port_id = iu::port_id(3, 3);
	srpt_os_channel &c = new_channel();
	EXPECT_EQ(-EINVAL, login(c, priv(req, SRPT_CM_IB), SRPT_CM_IB));
	EXPECT_EQ(0x00010000u, rej_of(c).reason) << "unable to establish the channel";
	EXPECT_TRUE(c.qp_attempts.empty());
	EXPECT_EQ(1, fake::log_count("no RDMA READ allowed (initiator depth 0)")) << fake::log_text();
	logout(a);
	logout(b);
}

TEST_F(Login, RdmaReadsInFlightStayWithinTheDevicesLimits)
{
	fake::Device &d = make_device("mlx4_0", 1, kNodeGuid);
	d.info.max_qp_init_rd_atom = 1;
	d.info.max_qp_rd_atom = 2;
	ASSERT_EQ(0, fake::add(d));
	dev_ = &d;
	tport_ = create_tport(fake::guid_name(d, 1));
	tpg_ = create_tpg(tport_, nullptr, &os_tpg_a_);
	ASSERT_EQ(0, srpt_core_tpg_enable(tpg_, 1));
	srpt_os_channel &ch = login_ok(login_req());
	EXPECT_EQ(1, ch.qp.initiator_depth);
	EXPECT_EQ(2, ch.qp.responder_resources);
	logout(ch);
}

TEST_F(Login, ADeviceWhoseQueuesCannotHoldAChannelIsNotUsed)
{
	fake::Device &d = make_device("tiny0", 1, kNodeGuid);
	d.info.max_qp_wr = 7;
	EXPECT_EQ(-EINVAL, fake::add(d));
	EXPECT_EQ(1, fake::log_count("tiny0: not used: queue pairs of 7 work requests with 30 "
				     "scatter/gather entries are too small"))
		<< fake::log_text();
}

TEST_F(Login, SendWrsTakeTheDevicesScatterGatherLimitBelowSixteen)
{
	setup_target(SRPT_PORT_ID_GUID, true, 32768, 3);
	srpt_os_channel &ch = login_ok(login_req(), SRPT_CM_RDMA);
	EXPECT_EQ(3u, ch.qp.max_send_sge);
	logout(ch);
}

TEST_F(Login, QueuePairCreationRetriesWithHalfTheSendQueue)
{
	setup_target();
	const long allocs = fake::live_allocs();
	srpt_os_channel &ch = new_channel();
	fake::fail_call("srpt_os_channel_create_qp", 1, -ENOMEM, 100);
	EXPECT_EQ(-ENOMEM, login(ch, priv(login_req(), SRPT_CM_RDMA)));
	std::vector<unsigned> wrs, cqs;
	for (const srpt_qp_params &p : ch.qp_attempts) {
		wrs.push_back(p.max_rdma_ctxs);
		cqs.push_back(p.cq_size);
		EXPECT_EQ(p.max_rdma_ctxs + 4, p.max_send_wr);
		EXPECT_EQ(129u, p.max_recv_wr);
	}
	EXPECT_EQ((std::vector<unsigned>{2048, 1024, 512, 256, 128, 64, 32, 16, 8}), wrs);
	EXPECT_EQ((std::vector<unsigned>{2181, 1157, 645, 389, 261, 197, 165, 149, 141}), cqs);
	EXPECT_EQ(0x00010001u, rej_of(ch).reason);
	expect_nothing_left(ch, allocs);
	EXPECT_EQ(1, fake::log_count("creating the queue pair or its buffers failed")) << fake::log_text();

	/* Two failures: the third size is used, and the send queue credits follow it. */
	srpt_os_channel &ok = new_channel();
	fake::fail_call("srpt_os_channel_create_qp", 1, -ENOMEM, 2);
	EXPECT_EQ(0, login(ok, priv(login_req(), SRPT_CM_RDMA)));
	EXPECT_EQ(3u, ok.qp_attempts.size());
	EXPECT_EQ(512u, ok.qp.max_rdma_ctxs);
	EXPECT_EQ(129u + 512u + 4u, ok.qp.cq_size);
	EXPECT_EQ(512u, core(ok)->io().sendq().free_slots());

	/* An odd srp_sq_size halves down to 16 and no further. */
	ASSERT_EQ(3, srpt_core_tpg_attrib_store(tpg_, SRPT_ATTRIB_SQ_SIZE, "40\n", 3));
	srpt_os_channel &odd = new_channel();
	fake::fail_call("srpt_os_channel_create_qp", 1, -EINVAL, 100);
	iu::LoginReq req = login_req();
	req.i_port_id = iu::port_id(5, 5);
	EXPECT_EQ(-EINVAL, login(odd, priv(req, SRPT_CM_RDMA)));
	wrs.clear();
	for (const srpt_qp_params &p : odd.qp_attempts)
		wrs.push_back(p.max_rdma_ctxs);
	EXPECT_EQ((std::vector<unsigned>{20, 10, 8}), wrs);
	logout(ok);
}

TEST_F(Login, EveryAllocationFailureRejectsAndLeavesNothing)
{
	/* The smallest device: 7 receive buffers and send contexts, the drain's slot. */
	setup_target(SRPT_PORT_ID_GUID, true, 8);
	const long allocs = fake::live_allocs();
	int failures = 0;
	for (long n = 1; n < 100; n++) {
		SCOPED_TRACE("allocation " + std::to_string(n));
		srpt_os_channel &ch = new_channel();
		fake::fail_alloc(n);
		const long failed = fake::failed_allocs();
		const int ret = login(ch, priv(login_req(), SRPT_CM_RDMA));
		fake::fail_alloc(0);
		if (fake::failed_allocs() == failed) {
			ASSERT_EQ(0, ret);
			ASSERT_TRUE(ch.accepted());
			logout(ch);
			break;
		}
		failures++;
		EXPECT_EQ(-ENOMEM, ret);
		ASSERT_EQ(1, ch.reject_calls);
		EXPECT_EQ(0x00010001u, rej_of(ch).reason);
		expect_nothing_left(ch, allocs);
		EXPECT_EQ(0u, port_of(*dev_, 1)->logins().channel_count());
	}
	/* The channel, the context array, 7 contexts, the receive ring, the nexus. */
	EXPECT_EQ(11, failures);
	EXPECT_EQ(allocs, fake::live_allocs());
}

TEST_F(Login, ShimResourceFailuresRejectAndLeaveNothing)
{
	setup_target(SRPT_PORT_ID_GUID, true, 8);
	const long allocs = fake::live_allocs();
	const struct {
		const char *fn;
		int err;
	} cases[] = {
		{"srpt_os_cmd_alloc", -ENOMEM},
		{"srpt_os_recv_alloc", -ENOMEM},
		{"srpt_os_recv_post", -EIO},
	};
	for (const auto &c : cases) {
		for (long nth = 1; nth <= 7; nth++) {
			SCOPED_TRACE(std::string(c.fn) + " #" + std::to_string(nth));
			srpt_os_channel &ch = new_channel();
			fake::fail_call(c.fn, nth, c.err);
			EXPECT_GT(0, login(ch, priv(login_req(), SRPT_CM_RDMA)));
			EXPECT_EQ(0x00010001u, rej_of(ch).reason);
			expect_nothing_left(ch, allocs);
			fake::fail_call(c.fn, 0, 0);
		}
	}
}

TEST_F(Login, AFailedLoginResponseClosesTheChannel)
{
	setup_target();
	srpt_os_channel &ch = new_channel();
	fake::fail_call("srpt_os_channel_accept", 1, -EIO);
	fake::take_trace();
	iu::LoginReq req = login_req();
	EXPECT_EQ(0, login(ch, priv(req, SRPT_CM_RDMA))) << "the core owns the channel now";
	EXPECT_FALSE(ch.accepted());
	const Rej r = rej_of(ch);
	EXPECT_EQ(0x00010001u, r.reason);
	EXPECT_EQ(req.tag, r.tag);
	EXPECT_EQ(ChState::kDraining, state(ch));
	EXPECT_EQ(1, fake::log_count("sending the login response failed")) << fake::log_text();
	fake::run_work();
	EXPECT_TRUE(ch.freed());
	EXPECT_EQ((std::vector<std::string>{"channel_close_session", "channel_destroy_cm",
					    "channel_destroy_qp", "channel_free"}),
		  trace_of({"channel_close", "channel_destroy", "channel_free"}));
	EXPECT_EQ(0, srpt::live_count(srpt::Live::kChannel));
	EXPECT_EQ(0u, fake::live_recvs());
	EXPECT_EQ(0u, fake::live_cmds());
	EXPECT_EQ(0u, port_of(*dev_, 1)->logins().channel_count());
}

/* ---- multichannel ---- */

TEST_F(Login, SingleLoginOfTheSameNexusTerminatesTheOld)
{
	setup_target();
	srpt_os_channel &first = live_channel(login_req());
	EXPECT_EQ(0x00, first.accept_rsp.at(26)) << "no existing channels";

	srpt_os_channel &second = login_ok(login_req());
	EXPECT_EQ(0x01, second.accept_rsp.at(26)) << "existing channels terminated";
	EXPECT_EQ(1, first.disconnect_calls);
	EXPECT_EQ(ChState::kDisconnecting, state(first));
	EXPECT_EQ(1, fake::log_count("192.168.122.7 logged in again: closing its channel 192.168.122.7"))
		<< fake::log_text();

	/* MULTI keeps the second (and the first is on its way out). */
	iu::LoginReq multi = login_req();
	multi.flags = 0x01;
	srpt_os_channel &third = login_ok(multi);
	EXPECT_EQ(0x02, third.accept_rsp.at(26)) << "existing channels maintained";
	EXPECT_EQ(0, second.disconnect_calls);
	EXPECT_EQ(ChState::kConnecting, state(second));

	/* Another initiator port, or another target port id, is another nexus. */
	iu::LoginReq other = login_req();
	other.i_port_id = iu::port_id(7, 7);
	srpt_os_channel &fourth = login_ok(other);
	EXPECT_EQ(0x00, fourth.accept_rsp.at(26));
	EXPECT_EQ(0, second.disconnect_calls);
	EXPECT_EQ(0, third.disconnect_calls);

	/* The old channel's DREP comes: it goes. */
	fake::cm_event(first, fake::Cm::kTimewaitExit);
	fake::run_work();
	EXPECT_TRUE(first.freed());
	EXPECT_EQ(3u, port_of(*dev_, 1)->logins().channel_count());
}

TEST_F(Login, MultiLoginFirstReportsNoChannels)
{
	setup_target();
	iu::LoginReq multi = login_req();
	multi.flags = 0x01;
	srpt_os_channel &a = login_ok(multi);
	EXPECT_EQ(0x00, a.accept_rsp.at(26));
	srpt_os_channel &b = login_ok(multi);
	EXPECT_EQ(0x02, b.accept_rsp.at(26));
	/* A SINGLE login now ends both. */
	srpt_os_channel &c = login_ok(login_req());
	EXPECT_EQ(0x01, c.accept_rsp.at(26));
	EXPECT_EQ(1, a.disconnect_calls);
	EXPECT_EQ(1, b.disconnect_calls);
}

/* The node ACL's "info" file: what targetcli's "sessions" reads. */
static std::string acl_info(srpt_tpg *tpg, const std::string &acl, std::size_t size = 4096)
{
	std::vector<char> page(size, '\x5a');
	const srpt_ssize_t n = srpt_core_nacl_info_show(tpg, acl.c_str(), page.data(), size);

	EXPECT_GE(n, 0);
	EXPECT_LT(static_cast<std::size_t>(n), size);
	EXPECT_EQ('\0', page[static_cast<std::size_t>(n)]) << "not terminated where it ends";
	return std::string(page.data(), static_cast<std::size_t>(n));
}

TEST_F(Login, AclInfoShowsTheSessionAndEachChannelInRtslibsFormat)
{
	setup_target();
	/* RDMA/CM sessions are named after the initiator's address. */
	const std::string acl = kPeer;
	EXPECT_EQ("No active SRP session for initiator " + acl + "\n", acl_info(tpg_, acl));

	iu::LoginReq multi = login_req();
	multi.flags = 0x01;
	srpt_os_channel &a = live_channel(multi);
	srpt_os_channel &b = login_ok(multi);
	ASSERT_EQ(acl, a.session_initiator);
	ASSERT_EQ(acl, b.session_initiator);
	iu::LoginReq other = login_req();
	other.i_port_id = iu::port_id(7, 7);
	srpt_os_channel &c = live_channel(other, SRPT_CM_IB);

	const std::string info = acl_info(tpg_, acl);
	const std::size_t id_at = info.find("LIO Session ID: ");
	ASSERT_NE(std::string::npos, id_at) << info;
	const unsigned long id = std::stoul(info.substr(id_at + 16));
	EXPECT_GT(id, 0u);
	EXPECT_EQ("InitiatorName: " + acl + "\n" +
			  "InitiatorAlias: " + kIPortName + "\n" +
			  "LIO Session ID: " + std::to_string(id) + "   SessionType: Normal\n"
			  "Session State: TARG_SESS_STATE_LOGGED_IN\n"
			  "[Channel List]\n"
			  "CID: 0  Connection State: TARG_CONN_STATE_LOGGED_IN\n"
			  "   Address " + kPeer + " RDMA/CM\n"
			  "CID: 1  Connection State: TARG_CONN_STATE_IN_LOGIN\n"
			  "   Address " + kPeer + " RDMA/CM\n",
		  info);

	/* Another initiator port is another ACL's session, with its own id. */
	const std::string other_info = acl_info(tpg_, c.session_initiator);
	EXPECT_EQ("InitiatorName: " + c.session_initiator + "\n" +
			  "InitiatorAlias: 0x00000000000000070000000000000007\n"
			  "LIO Session ID: " + std::to_string(id + 1) + "   SessionType: Normal\n"
			  "Session State: TARG_SESS_STATE_LOGGED_IN\n"
			  "[Channel List]\n"
			  "CID: 0  Connection State: TARG_CONN_STATE_LOGGED_IN\n"
			  "   Address " + kIbPeer + " IB/CM\n",
		  other_info);
	/* Nothing of an ACL on another TPG, or of an unknown name. */
	srpt_tpg *tpg_b = create_tpg(tport_, nullptr, &os_tpg_b_);
	ASSERT_NE(nullptr, tpg_b);
	EXPECT_EQ("No active SRP session for initiator " + acl + "\n", acl_info(tpg_b, acl));
	EXPECT_EQ("No active SRP session for initiator x\n", acl_info(tpg_, "x"));

	/* A page too small: cut short, terminated, never past its end. */
	EXPECT_EQ(info.substr(0, 39), acl_info(tpg_, acl, 40));

	/* A channel on its way out says so, then leaves the list. */
	fake::cm_event(a, fake::Cm::kDisconnectRequest);
	const std::string closing = acl_info(tpg_, acl);
	EXPECT_EQ(std::string::npos, closing.find("CID: 0  Connection State: TARG_CONN_STATE_LOGGED_IN\n"))
		<< closing;
	fake::run_work();
	ASSERT_TRUE(a.freed());
	const std::string one = acl_info(tpg_, acl);
	EXPECT_NE(std::string::npos, one.find("Session State: TARG_SESS_STATE_ACTIVE\n")) << one;
	EXPECT_EQ(std::string::npos, one.find("CID: 0")) << one;
	EXPECT_NE(std::string::npos, one.find("CID: 1  Connection State: TARG_CONN_STATE_IN_LOGIN\n")) << one;

	logout(b);
	logout(c);
	EXPECT_EQ("No active SRP session for initiator " + acl + "\n", acl_info(tpg_, acl));
	/* A new nexus is a new session. */
	srpt_os_channel &d = live_channel(login_req());
	const std::string again = acl_info(tpg_, acl);
	EXPECT_NE(std::string::npos, again.find("LIO Session ID: " + std::to_string(id + 2) + " ")) << again;
	EXPECT_NE(std::string::npos, again.find("CID: 0  Connection State: TARG_CONN_STATE_LOGGED_IN\n"))
		<< again;
	logout(d);
}

TEST_F(Login, RaceAReloginBetweenTheTwoCriticalSections)
{
	/*
	 * Another CM handler logs the same nexus in (SINGLE) after the first
	 * login added its channel but before it sent the response: the
	 * first must not be accepted, and must not be leaked.
	 */
	setup_target();
	srpt_os_channel &first = new_channel();
	srpt_os_channel &second = new_channel();
	int second_ret = 1;
	bool fired = false;
	fake::set_mutex_unlock_hook([&] {
		if (fired || !first.session_open() || first.accept_calls || fake::mutexes_held())
			return true;
		fired = true;
		second_ret = login(second, priv(login_req(), SRPT_CM_IB), SRPT_CM_IB, kIbPeer);
		return false;
	});
	EXPECT_EQ(0, login(first, priv(login_req(), SRPT_CM_RDMA)));
	ASSERT_TRUE(fired);
	EXPECT_EQ(0, second_ret);
	EXPECT_TRUE(second.accepted());
	EXPECT_EQ(0x01, second.accept_rsp.at(26));
	EXPECT_FALSE(first.accepted()) << "a channel that is being closed was accepted";
	EXPECT_EQ(0x00010001u, rej_of(first).reason);
	fake::run_work();
	EXPECT_TRUE(first.freed());
	EXPECT_EQ(1, srpt::live_count(srpt::Live::kChannel));
	EXPECT_EQ(1u, port_of(*dev_, 1)->logins().channel_count());
}

TEST_F(Login, RaceTheTpgIsDisabledOnAnotherThreadDuringTheLogin)
{
	/*
	 * configfs disables the TPG while a login is between adding its
	 * channel and sending the response. The disable logs the channel out
	 * and its release runs on the other thread, up to destroying the CM
	 * id, which waits for the login's CM handler to return (as
	 * ib_destroy_cm_id() and rdma_destroy_id() do). The login must then
	 * reject, not accept, and everything must be freed once it returned.
	 */
	setup_target();
	srpt_os_channel &ch = new_channel();
	const std::thread::id me = std::this_thread::get_id();
	std::thread disabler;
	int disable_ret = 1;
	bool fired = false;
	fake::set_mutex_unlock_hook([&] {
		if (std::this_thread::get_id() != me)
			return true;
		if (fired || !ch.session_open() || ch.accept_calls || fake::mutexes_held())
			return true;
		fired = true;
		disabler = std::thread([&] { disable_ret = srpt_core_tpg_enable(tpg_, 0); });
		for (int i = 0; i < 5000; i++) {
			const auto t = fake::trace();
			if (std::find(t.begin(), t.end(), "channel_destroy_cm") != t.end())
				break;
			std::this_thread::sleep_for(std::chrono::milliseconds(1));
		}
		return false;
	});
	EXPECT_EQ(0, login(ch, priv(login_req(), SRPT_CM_RDMA)));
	ASSERT_TRUE(fired);
	disabler.join();
	EXPECT_EQ(0, disable_ret);
	EXPECT_FALSE(ch.accepted()) << "a channel that was being logged out was accepted";
	EXPECT_EQ(0x00010001u, rej_of(ch).reason);
	EXPECT_TRUE(ch.freed());
	EXPECT_EQ(0, srpt::live_count(srpt::Live::kChannel));
	EXPECT_EQ(0u, fake::live_recvs());
	EXPECT_EQ(0u, fake::live_cmds());
	EXPECT_EQ(0u, port_of(*dev_, 1)->logins().channel_count());
	EXPECT_EQ((std::vector<std::string>{"channel_close_session", "channel_destroy_cm", "cm_reject 32",
					    "channel_destroy_qp", "channel_free"}),
		  trace_of({"channel_close", "channel_destroy", "channel_free", "cm_reject"}));
}

/* ---- the channel state machine ---- */

using ChannelStates = ChannelTest;

TEST_F(ChannelStates, IusBeforeEstablishedWaitForTheZeroLengthWrite)
{
	setup_target();
	srpt_os_channel &ch = login_ok(login_req());
	const std::size_t posted_before = posted(ch);
	for (std::uint64_t tag = 1; tag <= 3; tag++)
		send_iu(ch, tur_cmd(tag));
	EXPECT_EQ(posted_before - 3, posted(ch)) << "waiting IUs keep their buffers";
	EXPECT_EQ(0, fake::calls("srpt_os_cmd_init"));
	EXPECT_EQ(ChState::kConnecting, state(ch));

	fake::take_trace();
	fake::cm_event(ch, fake::Cm::kEstablished);
	EXPECT_EQ(1, ch.ready_calls);
	EXPECT_EQ(ChState::kLive, state(ch));
	EXPECT_EQ(0, fake::calls("srpt_os_cmd_init")) << "only in completion context";
	EXPECT_EQ((std::vector<std::string>{"channel_ready", "channel_post_zero_write"}),
		  trace_of({"channel_"}));
	ASSERT_TRUE(fake::complete_zero_write(ch, true));
	EXPECT_EQ((std::vector<std::string>{"cmd_init tag 0x1", "cmd_init tag 0x2", "cmd_init tag 0x3"}),
		  trace_of({"cmd_init"}))
		<< "in the order they came";
	EXPECT_EQ(posted_before - 3, posted(ch)) << "each command holds its buffer until answered";
	for (srpt_os_cmd *c : fake::cmds_of(ch)) {
		if (!c->submitted)
			continue;
		lio_respond(c);
		lio_finish(c);
	}
	EXPECT_EQ(posted_before, posted(ch));
}

TEST_F(ChannelStates, ReleaseOrderAndNothingLeft)
{
	setup_target();
	srpt_os_channel &ch = live_channel(login_req());
	fake::take_trace();
	fake::cm_event(ch, fake::Cm::kDisconnectRequest);
	EXPECT_EQ(1, ch.disconnect_calls) << "the DREP";
	EXPECT_EQ(1, ch.qp_error_calls);
	EXPECT_EQ(ChState::kDraining, state(ch));
	EXPECT_FALSE(ch.freed());
	EXPECT_EQ(1, ch.zero_writes_pending) << "the drain write";
	EXPECT_EQ(0u, fake::pending_work());
	fake::run_work();
	EXPECT_TRUE(ch.freed());
	EXPECT_EQ((std::vector<std::string>{"channel_disconnect DREP", "channel_qp_error",
					    "channel_post_zero_write", "channel_close_session",
					    "channel_destroy_cm", "channel_destroy_qp", "channel_free"}),
		  trace_of({"channel_"}));
	EXPECT_EQ(0, srpt::live_count(srpt::Live::kChannel));
	EXPECT_EQ(0u, fake::live_recvs());
	EXPECT_EQ(0u, fake::live_cmds());
	EXPECT_EQ(0u, port_of(*dev_, 1)->logins().channel_count());
	EXPECT_EQ(1, fake::log_count("mlx5_0 port 1: 192.168.122.7 logged out")) << fake::log_text();
}

TEST_F(ChannelStates, CmEventsThatClose)
{
	setup_target();
	/* Every kernel CM event the core acts on, as each CM numbers it. */
	const struct {
		srpt_cm_kind cm;
		int ev;
		int disconnects;
		const char *failed;	/* logged as a failed connection, with this name */
	} cases[] = {
		{SRPT_CM_IB, SRPT_IB_CM_DREP_RECEIVED, 0, nullptr},
		{SRPT_CM_IB, SRPT_IB_CM_TIMEWAIT_EXIT, 0, nullptr},
		{SRPT_CM_IB, SRPT_IB_CM_DREQ_ERROR, 0, nullptr},
		{SRPT_CM_IB, SRPT_IB_CM_REJ_RECEIVED, 0, "REJ received"},
		{SRPT_CM_IB, SRPT_IB_CM_REP_ERROR, 0, "REP error"},
		{SRPT_CM_IB, SRPT_IB_CM_DREQ_RECEIVED, 1, nullptr},
		{SRPT_CM_RDMA, SRPT_RDMA_CM_TIMEWAIT_EXIT, 0, nullptr},
		{SRPT_CM_RDMA, SRPT_RDMA_CM_REJECTED, 0, "rejected"},
		{SRPT_CM_RDMA, SRPT_RDMA_CM_UNREACHABLE, 0, "unreachable"},
		{SRPT_CM_RDMA, SRPT_RDMA_CM_CONNECT_ERROR, 0, "connect error"},
		{SRPT_CM_RDMA, SRPT_RDMA_CM_DISCONNECTED, 1, nullptr},
	};
	std::uint64_t id = 100;
	for (const auto &c : cases) {
		for (bool live : {false, true}) {
			SCOPED_TRACE(std::string(c.cm == SRPT_CM_IB ? "IB/CM " : "RDMA/CM ") +
				     std::to_string(c.ev) + (live ? " live" : " connecting"));
			fake::clear_logs();
			iu::LoginReq req = login_req();
			req.i_port_id = iu::port_id(id, id);
			id++;
			srpt_os_channel &ch = live ? live_channel(req, c.cm) : login_ok(req, c.cm);
			srpt_core_cm_event(ch.core, c.ev);
			EXPECT_EQ(c.disconnects, ch.disconnect_calls);
			/* The initiator's DREQ (or RDMA/CM disconnect) is answered, not sent anew. */
			if (c.disconnects) {
				EXPECT_EQ(SRPT_DISCONNECT_DREP, ch.disconnects.back());
			}
			EXPECT_EQ(1, ch.qp_error_calls);
			EXPECT_EQ(ChState::kDraining, state(ch));
			EXPECT_EQ(c.failed ? 1 : 0,
				  fake::log_count(std::string("connection failed: ") +
						  (c.failed ? c.failed : "") + " (CM event " +
						  std::to_string(c.ev) + ")"))
				<< fake::log_text();
			fake::run_work();
			EXPECT_TRUE(ch.freed());
		}
	}
	/* Another event changes nothing: MRA, address and route errors, codes unknown yet. */
	const struct {
		srpt_cm_kind cm;
		int ev;
	} others[] = {
		{SRPT_CM_IB, 0 /* REQ_ERROR */}, {SRPT_CM_IB, 10 /* MRA_RECEIVED */}, {SRPT_CM_IB, 1000},
		{SRPT_CM_RDMA, 1 /* ADDR_ERROR */}, {SRPT_CM_RDMA, 4 /* ROUTE_ERROR */}, {SRPT_CM_RDMA, 1000},
	};
	for (const auto &o : others) {
		SCOPED_TRACE(std::string(o.cm == SRPT_CM_IB ? "IB/CM " : "RDMA/CM ") +
			     std::to_string(o.ev));
		iu::LoginReq req = login_req();
		req.i_port_id = iu::port_id(id, id);
		id++;
		srpt_os_channel &ch = live_channel(req, o.cm);
		fake::clear_logs();
		srpt_core_cm_event(ch.core, o.ev);
		EXPECT_EQ(ChState::kLive, state(ch));
		EXPECT_EQ(0, ch.qp_error_calls);
		EXPECT_EQ(1, fake::log_count("ignoring CM event " +
						     std::string(srpt_os_cm_event_msg(o.cm, o.ev)) + " (" +
						     std::to_string(o.ev) + ")",
					     SRPT_LOG_DEBUG));
	}
}

TEST_F(ChannelStates, EstablishedByEitherIbCmEvent)
{
	setup_target();
	/* RTU, or USER_ESTABLISHED after the first packet beat the RTU. */
	for (int ev : {SRPT_IB_CM_RTU_RECEIVED, SRPT_IB_CM_USER_ESTABLISHED}) {
		iu::LoginReq req = login_req();
		req.i_port_id = iu::port_id(ev, ev);
		srpt_os_channel &ch = login_ok(req, SRPT_CM_IB, kIbPeer);
		srpt_core_cm_event(ch.core, ev);
		EXPECT_EQ(ChState::kLive, state(ch)) << ev;
		EXPECT_EQ(1, ch.ready_calls) << ev;
	}
}

TEST_F(ChannelStates, LateEstablishedDoesNotReviveAClosingChannel)
{
	setup_target();
	for (bool was_live : {false, true}) {
		SCOPED_TRACE(was_live ? "after LIVE" : "while connecting");
		iu::LoginReq req = login_req();
		req.i_port_id = iu::port_id(was_live, 9);
		srpt_os_channel &ch = was_live ? live_channel(req) : login_ok(req);
		fake::cm_event(ch, fake::Cm::kDisconnectRequest);
		ASSERT_EQ(ChState::kDraining, state(ch));
		const int ready = ch.ready_calls, zw = ch.zero_write_calls;
		fake::cm_event(ch, fake::Cm::kEstablished);
		EXPECT_EQ(ChState::kDraining, state(ch));
		EXPECT_EQ(zw, ch.zero_write_calls) << "no zero-length write for a closing channel";
		EXPECT_EQ(ready, ch.ready_calls) << "the QP of a closing channel is not moved to RTS";
		fake::run_work();
		EXPECT_TRUE(ch.freed());
	}
}

TEST_F(ChannelStates, ZeroLengthWriteFailures)
{
	setup_target();
	/* Its completion fails while LIVE: the QP broke. Straight to the release. */
	srpt_os_channel &a = live_channel(login_req());
	fake::cm_event(a, fake::Cm::kTimewaitExit);	/* posts the drain write */
	ASSERT_TRUE(fake::complete_zero_write(a, false));
	EXPECT_EQ(ChState::kDisconnected, state(a));
	EXPECT_EQ(1u, fake::pending_work());
	fake::run_work();
	EXPECT_TRUE(a.freed());

	iu::LoginReq req = login_req();
	req.i_port_id = iu::port_id(1, 2);
	srpt_os_channel &b = login_ok(req);
	/* The write posted at ESTABLISHED fails: DISCONNECTED without a DREQ. */
	fake::cm_event(b, fake::Cm::kEstablished);
	ASSERT_EQ(ChState::kLive, state(b));
	ASSERT_TRUE(fake::complete_zero_write(b, false));
	EXPECT_EQ(ChState::kDisconnected, state(b));
	fake::run_work();
	EXPECT_TRUE(b.freed());
	EXPECT_EQ(0, b.disconnect_calls);

	/* Posting the drain write fails: released at once. */
	req.i_port_id = iu::port_id(3, 4);
	srpt_os_channel &c = live_channel(req);
	fake::fail_call("srpt_os_channel_post_zero_write", 1, -EIO);
	fake::cm_event(c, fake::Cm::kTimewaitExit);
	EXPECT_EQ(ChState::kDisconnected, state(c));
	EXPECT_EQ(1, fake::log_count("posting the drain write failed (-EIO)")) << fake::log_text();
	fake::run_work();
	EXPECT_TRUE(c.freed());

	/* Posting the kick after ESTABLISHED fails: the channel closes. */
	req.i_port_id = iu::port_id(5, 6);
	srpt_os_channel &d = login_ok(req);
	fake::fail_call("srpt_os_channel_post_zero_write", 1, -EIO);
	fake::cm_event(d, fake::Cm::kEstablished);
	EXPECT_EQ(ChState::kDraining, state(d));
	fake::run_work();
	EXPECT_TRUE(d.freed());

	/* Moving the QP to RTS fails: the channel closes. */
	req.i_port_id = iu::port_id(7, 8);
	srpt_os_channel &e = login_ok(req);
	fake::fail_call("srpt_os_channel_ready", 1, -EINVAL);
	fake::cm_event(e, fake::Cm::kEstablished);
	EXPECT_EQ(ChState::kDraining, state(e));
	EXPECT_EQ(1, fake::log_count("making the queue pair ready to send failed (-EINVAL)")) << fake::log_text();
	fake::run_work();
	EXPECT_TRUE(e.freed());
}

TEST_F(ChannelStates, QpEvents)
{
	setup_target();
	srpt_os_channel &ch = login_ok(login_req());
	{
		fake::AtomicScope irq;
		srpt_core_qp_event(ch.core, SRPT_IB_EVENT_COMM_EST);
		srpt_core_qp_event(ch.core, 16 /* QP_LAST_WQE_REACHED */);
		srpt_core_qp_event(ch.core, 1000);
	}
	EXPECT_EQ(1, ch.notify_established_calls);
	EXPECT_EQ(ChState::kConnecting, state(ch));
	EXPECT_EQ(0u, fake::pending_work());
	/* Named as ib_event_msg() names them; the double knows neither of these. */
	EXPECT_EQ(2, fake::log_count("QP event unrecognized event in state", SRPT_LOG_DEBUG));
	establish(ch);
	std::uint64_t id = 1;
	const std::pair<int, const char *> errors[] = {
		{SRPT_IB_EVENT_QP_FATAL, "QP fatal error"},
		{SRPT_IB_EVENT_QP_REQ_ERR, "QP request error"},
		{SRPT_IB_EVENT_QP_ACCESS_ERR, "QP access error"},
	};
	for (const auto &[ev, text] : errors) {
		SCOPED_TRACE(ev);
		iu::LoginReq req = login_req();
		req.i_port_id = iu::port_id(id, id);
		id++;
		srpt_os_channel &c = live_channel(req);
		{
			fake::AtomicScope irq;
			srpt_core_qp_event(c.core, ev);
		}
		EXPECT_EQ(ChState::kLive, state(c)) << "nothing that sleeps in the event handler";
		EXPECT_EQ(1, fake::log_count(std::string("queue pair error: ") + text, SRPT_LOG_ERR));
		fake::run_work();
		EXPECT_EQ(1, c.disconnect_calls);
		EXPECT_TRUE(c.freed());
	}
	EXPECT_EQ(ChState::kLive, state(ch));
}

TEST_F(ChannelStates, ReceiveFailures)
{
	setup_target();
	srpt_os_channel &ch = live_channel(login_req());
	/* The peer stopped answering: the message says so, in the kernel's words. */
	fake::config().fail_status = SRPT_WC_RETRY_EXC_ERR;
	ASSERT_NE(nullptr, fake::receive(ch, nullptr, 0, false));
	EXPECT_EQ(1, fake::log_count("mlx5_0 port 1: 192.168.122.7 (0002:c903:00a1:b2c1 ch 0): "
				     "receive failed: transport retry counter exceeded",
				     SRPT_LOG_ERR))
		<< fake::log_text();
	EXPECT_EQ(1u, fake::pending_work());
	fake::run_work();
	EXPECT_EQ(1, ch.disconnect_calls);
	EXPECT_TRUE(ch.freed());

	/*
	 * A QP in the error state flushes every posted receive: one line for
	 * the cause, none for each flushed buffer (a login with 128 credits
	 * logged 128 lines). The flushes alone still end the channel.
	 */
	srpt_os_channel &f = live_channel(login_req());
	fake::clear_logs();
	fake::config().fail_status = SRPT_WC_RETRY_EXC_ERR;
	ASSERT_NE(nullptr, fake::receive(f, nullptr, 0, false));
	fake::config().fail_status = SRPT_WC_WR_FLUSH_ERR;
	for (int i = 0; i < 3; i++)
		ASSERT_NE(nullptr, fake::receive(f, nullptr, 0, false));
	EXPECT_EQ(1, fake::log_count("receive failed")) << fake::log_text();
	EXPECT_EQ(0, fake::log_count("WR flushed")) << fake::log_text();
	fake::run_work();
	EXPECT_TRUE(f.freed());
	srpt_os_channel &g = live_channel(login_req());
	fake::clear_logs();
	ASSERT_NE(nullptr, fake::receive(g, nullptr, 0, false));
	EXPECT_EQ(0, fake::log_count("receive failed")) << fake::log_text();
	EXPECT_EQ(1u, fake::pending_work());
	fake::run_work();
	EXPECT_TRUE(g.freed());

	/* Flushed receives of a draining channel are expected. */
	srpt_os_channel &b = live_channel(login_req());
	fake::cm_event(b, fake::Cm::kDisconnectRequest);
	fake::clear_logs();
	ASSERT_NE(nullptr, fake::receive(b, nullptr, 0, false));
	EXPECT_EQ(0, fake::log_count("receive failed"));
	fake::run_work();
	EXPECT_TRUE(b.freed());
	EXPECT_EQ(1, b.disconnect_calls);
}

TEST_F(ChannelStates, ASharedReceiveBufferThatFailsGoesBackToTheSrq)
{
	/*
	 * With use_srq, a receive that completes in error (an IU longer than
	 * the buffer, a QP that broke under it) took a buffer off the device's
	 * SRQ: a hostile initiator doing that on 80 connections must not
	 * starve every channel of the device.
	 */
	ASSERT_EQ(0, srpt_core_param_set(SRPT_PARAM_SRQ_SIZE, "64"));
	setup_target();
	ASSERT_EQ(2, srpt_core_tpg_attrib_store(tpg_, SRPT_ATTRIB_USE_SRQ, "1\n", 2));
	ASSERT_EQ(64u, fake::srq_posted(*dev_));
	for (int i = 0; i < 80; i++) {
		srpt_os_channel &ch = live_channel(login_req());
		ASSERT_NE(nullptr, fake::receive(ch, nullptr, 0, false, dev_));
		EXPECT_EQ(64u, fake::srq_posted(*dev_)) << "connection " << i;
		fake::run_work();
		ASSERT_TRUE(ch.freed());
	}
	/* A legitimate initiator is served. */
	srpt_os_channel &ok = live_channel(login_req());
	srpt_os_cmd *c = send_cmd(ok, tur_cmd(1), dev_);
	ASSERT_NE(nullptr, c);
	lio_respond(c);
	lio_finish(c);
	logout(ok);
	EXPECT_EQ(64u, fake::srq_posted(*dev_));
}

/*
 * IB/CM: our DREQ cannot go when the initiator's DREQ came first (its
 * event not handled yet): the core answers it with a DREP, so that the
 * initiator does not wait for one. RDMA/CM's one call does both.
 */
TEST_F(ChannelStates, FailedDreqIsAnsweredWithDrep)
{
	setup_target();
	for (srpt_cm_kind cm : {SRPT_CM_IB, SRPT_CM_RDMA}) {
		SCOPED_TRACE(cm == SRPT_CM_IB ? "IB/CM" : "RDMA/CM");
		iu::LoginReq req = login_req();
		req.i_port_id = iu::port_id(7, cm);
		srpt_os_channel &ch = live_channel(req, cm);
		fake::fail_call("srpt_os_channel_disconnect", 1, -EINVAL);
		srpt_core_close_session(ch.core);
		EXPECT_TRUE(ch.freed());
		const std::vector<srpt_disconnect> want =
			cm == SRPT_CM_IB ?
				std::vector<srpt_disconnect>{SRPT_DISCONNECT_DREQ, SRPT_DISCONNECT_DREP} :
				std::vector<srpt_disconnect>{SRPT_DISCONNECT_DREQ};
		EXPECT_EQ(want, ch.disconnects);
	}
}

TEST_F(ChannelStates, CloseSessionWaitsUntilReleased)
{
	setup_target();
	srpt_os_channel &ch = live_channel(login_req());
	srpt_core_close_session(ch.core);
	EXPECT_TRUE(ch.freed()) << "returned before the release";
	EXPECT_EQ(1, ch.disconnect_calls);
	EXPECT_EQ((std::vector<srpt_disconnect>{SRPT_DISCONNECT_DREQ}), ch.disconnects);
	EXPECT_EQ(0, srpt::live_count(srpt::Live::kChannel));
	EXPECT_EQ(1, fake::log_count("mlx5_0 port 1: logging out 192.168.122.7: its ACL or session was removed"))
		<< fake::log_text();

	/* While the initiator's DREP never comes and the drain is slow. */
	srpt_os_channel &b = live_channel(login_req());
	fake::config().flush_errored_qps = false;
	fake::config().max_real_wait_ms = 5;
	std::thread flusher([&] {
		while (b.zero_writes_pending == 0)
			std::this_thread::yield();
		std::this_thread::sleep_for(std::chrono::milliseconds(20));
		fake::complete_zero_write(b, false);
	});
	srpt_core_close_session(b.core);
	flusher.join();
	EXPECT_TRUE(b.freed());
	EXPECT_LE(1, fake::log_count("still waiting for 192.168.122.7 to be released (draining)"))
		<< fake::log_text();
}

/*
 * An ACL rmdir while a login runs out of memory. LIO's
 * target_shutdown_sessions() takes a session off the ACL's list as soon
 * as it is there and calls close_session() on its own thread, which
 * waits for the channel's release. So once a login's session is visible,
 * nothing of the login may fail: for every allocation the login makes,
 * failed in turn, the close returns (the fake reports a wait for what
 * never comes) and nothing is left.
 */
TEST_F(ChannelStates, AnAclRemovedWhileALoginRunsOutOfMemory)
{
	setup_target(SRPT_PORT_ID_GUID, true, 8);
	fake::config().max_real_wait_ms = 20;
	const long allocs = fake::live_allocs();
	const std::thread::id me = std::this_thread::get_id();
	int closes = 0;
	for (long n = 1; n < 100; n++) {
		SCOPED_TRACE("allocation " + std::to_string(n));
		srpt_os_channel &ch = new_channel();
		std::atomic<bool> visible{false};
		ch.acl = [&](srpt_os_tpg *, const std::string &) {
			visible = true;
			return 0;
		};
		std::thread rmdir;
		/*
		 * Only the login's own unlocks: the rmdir thread unlocks too, and
		 * runs this hook before the login's call of it has returned and
		 * removed it.
		 */
		fake::set_mutex_unlock_hook([&] {
			if (std::this_thread::get_id() != me)
				return true;
			if (!visible || fake::mutexes_held())
				return true;
			srpt_channel *core = ch.core;
			rmdir = std::thread([core] { srpt_core_close_session(core); });
			return false;
		});
		fake::fail_alloc(n);
		const long failed = fake::failed_allocs();
		const int ret = login(ch, priv(login_req(), SRPT_CM_RDMA));
		fake::fail_alloc(0);
		fake::set_mutex_unlock_hook(nullptr);
		const bool hit = fake::failed_allocs() != failed;
		if (rmdir.joinable()) {
			rmdir.join();
			closes++;
		}
		fake::run_work();
		EXPECT_EQ(0u, fake::live_channels()) << "the login " << (ret ? "failed" : "succeeded");
		EXPECT_EQ(0, srpt::live_count(srpt::Live::kChannel));
		EXPECT_EQ(0u, port_of(*dev_, 1)->logins().channel_count());
		EXPECT_EQ(allocs, fake::live_allocs());
		const auto v = fake::take_violations();
		ASSERT_TRUE(v.empty()) << v[0];
		if (!hit)
			break;
	}
	EXPECT_LE(1, closes) << "no rmdir found a session";
}

TEST_F(ChannelStates, TpgDisableLogsOutItsChannelsOnly)
{
	setup_target();
	srpt_tport *gid = create_tport(fake::gid_name(*dev_, 1));
	srpt_tpg *tpg_b = create_tpg(gid, nullptr, &os_tpg_b_);
	ASSERT_EQ(0, srpt_core_tpg_enable(tpg_b, 1));

	std::vector<srpt_os_channel *> on_a;
	for (std::uint64_t i = 1; i <= 3; i++) {
		iu::LoginReq req = login_req();
		req.i_port_id = iu::port_id(i, i);
		on_a.push_back(&live_channel(req));
	}
	srpt_os_channel &on_b = new_channel();
	on_b.acl = [this](srpt_os_tpg *t, const std::string &) { return t == &os_tpg_b_ ? 0 : -EACCES; };
	ASSERT_EQ(0, login(on_b, priv(login_req(), SRPT_CM_RDMA)));
	establish(on_b);
	EXPECT_EQ(4u, port_of(*dev_, 1)->logins().channel_count());

	ASSERT_EQ(0, srpt_core_tpg_enable(tpg_, 0));
	for (srpt_os_channel *ch : on_a)
		EXPECT_TRUE(ch->freed());
	EXPECT_FALSE(on_b.freed());
	EXPECT_EQ(ChState::kLive, state(on_b));
	EXPECT_EQ(1u, port_of(*dev_, 1)->logins().channel_count());
	EXPECT_EQ(3, fake::log_count("its TPG was disabled")) << fake::log_text();

	/* The port still takes logins for the other TPG. */
	srpt_os_channel &again = new_channel();
	EXPECT_EQ(0, login(again, priv(login_req(), SRPT_CM_RDMA)));
	EXPECT_EQ(&os_tpg_b_, again.session_tpg);
}

TEST_F(ChannelStates, DeviceRemovalLogsEveryoneOut)
{
	setup_target();
	std::vector<srpt_os_channel *> chs;
	for (std::uint64_t i = 1; i <= 3; i++) {
		iu::LoginReq req = login_req();
		req.i_port_id = iu::port_id(i, i);
		chs.push_back(i == 2 ? &login_ok(req) : &live_channel(req));
	}
	/* A command LIO still holds is released with the channel. */
	srpt_os_cmd *c = send_cmd(*chs[0], read_cmd(1));
	ASSERT_NE(nullptr, c);
	remove_device(*dev_);
	for (srpt_os_channel *ch : chs)
		EXPECT_TRUE(ch->freed());
	EXPECT_EQ(0, srpt::live_count(srpt::Live::kChannel));
	EXPECT_EQ(0u, fake::live_recvs());
	EXPECT_EQ(0u, fake::live_cmds());
	EXPECT_EQ(3, fake::log_count("the RDMA device is going away")) << fake::log_text();
}

/*
 * A device removal waits for the port's listed channels, then destroys
 * the SRQ and frees the device. A release still using them (its QP on
 * the SRQ, its hold on the SRQ) must therefore stay listed until it is
 * done with the device: the removal runs on another thread while the
 * release is paused between destroying its CM id and its QP, and must
 * wait for that release instead of pulling the device out from under it.
 */
TEST_F(ChannelStates, RaceDeviceRemovedWhileAChannelIsReleased)
{
	ASSERT_EQ(0, srpt_core_param_set(SRPT_PARAM_SRQ_SIZE, "16"));
	setup_target();
	ASSERT_EQ(2, srpt_core_tpg_attrib_store(tpg_, SRPT_ATTRIB_USE_SRQ, "1\n", 2));
	srpt_os_channel &ch = live_channel(login_req());
	ASSERT_EQ(1, ch.qp.use_srq);
	fake::cm_event(ch, fake::Cm::kTimewaitExit);
	ASSERT_TRUE(fake::complete_zero_write(ch, false));
	ASSERT_EQ(1u, fake::pending_work()) << "the release";
	/* The removal's wait for the release really blocks, 50 ms at a time. */
	fake::config().max_real_wait_ms = 50;

	const std::string waiting = "still waiting for 192.168.122.7 to be released";
	std::atomic<bool> removed{false};
	bool removal_finished_first = false;
	std::thread remover;
	ch.on_destroy_qp = [&] {
		remover = std::thread([&] {
			fake::remove(*dev_);
			removed = true;
		});
		/* Until the removal is done, or waits for this release (a hang guard, not a timing check). */
		const auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(30);
		while (!removed && fake::log_count(waiting) == 0 &&
		       std::chrono::steady_clock::now() < give_up)
			std::this_thread::sleep_for(std::chrono::milliseconds(1));
		removal_finished_first = removed;
	};
	fake::run_work();
	remover.join();
	EXPECT_FALSE(removal_finished_first)
		<< "the device was removed under a channel that was still being released";
	EXPECT_TRUE(removed);
	EXPECT_TRUE(ch.freed());
	EXPECT_TRUE(ch.qp_destroyed());
	EXPECT_FALSE(dev_->srq) << "destroyed by the removal, after the release";
	EXPECT_EQ(0, srpt::live_count(srpt::Live::kChannel));
	EXPECT_EQ(0u, fake::live_recvs());
	EXPECT_LE(1, fake::log_count(waiting)) << fake::log_text();
}

TEST_F(ChannelStates, EventsAfterTheReleaseIsScheduledAreHarmless)
{
	setup_target();
	srpt_os_channel &ch = live_channel(login_req());
	fake::cm_event(ch, fake::Cm::kTimewaitExit);
	ASSERT_TRUE(fake::complete_zero_write(ch, false));
	ASSERT_EQ(ChState::kDisconnected, state(ch));
	ASSERT_EQ(1u, fake::pending_work());
	const int disc = ch.disconnect_calls, qperr = ch.qp_error_calls, zw = ch.zero_write_calls,
		  ready = ch.ready_calls;
	for (int ev : std::initializer_list<int>{SRPT_RDMA_CM_ESTABLISHED, SRPT_RDMA_CM_DISCONNECTED,
						 SRPT_RDMA_CM_TIMEWAIT_EXIT, SRPT_RDMA_CM_REJECTED,
						 SRPT_RDMA_CM_CONNECT_ERROR, 1000})
		srpt_core_cm_event(ch.core, ev);
	{
		fake::AtomicScope irq;
		srpt_core_qp_event(ch.core, SRPT_IB_EVENT_QP_FATAL);
		srpt_core_qp_event(ch.core, SRPT_IB_EVENT_COMM_EST);
	}
	ASSERT_NE(nullptr, fake::receive(ch, nullptr, 0, false));
	EXPECT_EQ(disc, ch.disconnect_calls);
	EXPECT_EQ(qperr, ch.qp_error_calls);
	EXPECT_EQ(zw, ch.zero_write_calls);
	EXPECT_EQ(ready, ch.ready_calls);
	EXPECT_EQ(ChState::kDisconnected, state(ch));
	fake::run_work();
	EXPECT_TRUE(ch.freed());
	EXPECT_EQ(disc, ch.disconnect_calls) << "the logout work found the channel released";
	EXPECT_EQ(0u, fake::pending_work());
}

TEST_F(ChannelStates, SrpILogoutDisconnects)
{
	setup_target();
	srpt_os_channel &ch = live_channel(login_req());
	Bytes logout(16, 0);
	logout[0] = 0x03;
	iu::be64(logout, 8, 0x99);
	const std::size_t before = posted(ch);
	send_iu(ch, logout);
	EXPECT_EQ(before, posted(ch)) << "the buffer is reposted";
	/* Messages about a session name its device, port, initiator, target port and channel. */
	EXPECT_EQ(1, fake::log_count("mlx5_0 port 1: 192.168.122.7 (0002:c903:00a1:b2c1 ch 0): "
				     "SRP_I_LOGOUT received"))
		<< fake::log_text();
	fake::run_work();
	EXPECT_EQ(1, ch.disconnect_calls);
	EXPECT_TRUE(ch.freed());
}
