// SPDX-License-Identifier: GPL-2.0-only
/* The channel test fixture; see channel_fixture.h. */
#include <arpa/inet.h>
#include <cstdio>
#include "channel_fixture.h"

#include <srpt/handles.h>

void ChannelTest::TearDown()
{
	/* Disabling and destroying the TPGs logs every channel out. */
	CoreTest::TearDown();
	channels_.clear();
	const auto v = fake::take_violations();
	EXPECT_TRUE(v.empty()) << "kernel rules broken after the test: " << (v.empty() ? "" : v[0]);
}

void ChannelTest::setup_target(srpt_port_id_kind kind, bool enable, unsigned max_qp_wr,
				unsigned max_send_sge)
{
	fake::Device &d = make_device("mlx5_0", 2, kNodeGuid);
	d.info.max_qp_wr = max_qp_wr;
	d.info.max_send_sge = max_send_sge;
	ASSERT_EQ(0, fake::add(d));
	dev_ = &d;
	tport_ = create_tport(kind == SRPT_PORT_ID_GID ? fake::gid_name(d, 1) : fake::guid_name(d, 1));
	ASSERT_NE(nullptr, tport_);
	tpg_ = create_tpg(tport_, nullptr, &os_tpg_a_);
	ASSERT_NE(nullptr, tpg_);
	if (enable) {
		ASSERT_EQ(0, srpt_core_tpg_enable(tpg_, 1));
	}
	fake::clear_logs();
	fake::take_trace();
}

iu::LoginReq ChannelTest::login_req() const
{
	iu::LoginReq r;
	r.t_port_id = iu::port_id(kNodeGuid, kNodeGuid);
	return r;
}

iu::Bytes ChannelTest::priv(const iu::LoginReq &req, srpt_cm_kind cm)
{
	/* IB/CM REQ private data is 92 bytes; RDMA/CM's is the request. */
	return cm == SRPT_CM_IB ? iu::login_ib(req, 28) : iu::login_rdma(req);
}

srpt_os_channel &ChannelTest::new_channel()
{
	channels_.push_back(std::make_unique<srpt_os_channel>());
	return *channels_.back();
}

int ChannelTest::login(srpt_os_channel &ch, const iu::Bytes &p, srpt_cm_kind cm,
		       const char *peer, unsigned port, std::uint16_t pkey)
{
	if (!peer)
		peer = default_peer(cm);
	srpt_login_info info{};
	info.cm = static_cast<srpt_u8>(cm);
	info.initiator_depth = peer_initiator_depth_;
	info.responder_resources = peer_responder_resources_;
	info.pkey = pkey;
	info.pkey_index = pkey_index_;
	info.private_data = p.data();
	info.private_data_len = p.size();
	if (cm == SRPT_CM_IB) {
		unsigned g[4];

		/* The shim hands over the GID; the core names the initiator by its GUID. */
		EXPECT_EQ(4, std::sscanf(peer, "%4x:%4x:%4x:%4x", &g[0], &g[1], &g[2], &g[3]))
			<< "an IB/CM peer is a GUID: " << peer;
		info.peer_gid[0] = 0xfe;
		info.peer_gid[1] = 0x80;
		for (int i = 0; i < 4; i++) {
			info.peer_gid[8 + 2 * i] = static_cast<srpt_u8>(g[i] >> 8);
			info.peer_gid[9 + 2 * i] = static_cast<srpt_u8>(g[i]);
		}
	} else if (inet_pton(AF_INET, peer, info.peer_addr) == 1) {
		info.peer_family = SRPT_INET4;
	} else {
		/* The shim hands over the address; the core writes its name. */
		EXPECT_EQ(1, inet_pton(AF_INET6, peer, info.peer_addr)) << "an RDMA/CM peer is an address: " << peer;
		info.peer_family = SRPT_INET6;
	}
	if (peer_family_ >= 0)
		info.peer_family = static_cast<srpt_u8>(peer_family_);
	return fake::login(*dev_, port, ch, info);
}

srpt_os_channel &ChannelTest::login_ok(const iu::LoginReq &req, srpt_cm_kind cm,
				       const char *peer)
{
	srpt_os_channel &ch = new_channel();
	const int ret = login(ch, priv(req, cm), cm, peer);
	EXPECT_EQ(0, ret) << fake::log_text();
	EXPECT_TRUE(ch.accepted()) << "no login response";
	EXPECT_EQ(0, ch.reject_calls) << iu::hex(ch.reject);
	return ch;
}

void ChannelTest::establish(srpt_os_channel &ch)
{
	const int zw = ch.zero_write_calls;
	fake::cm_event(ch, fake::Cm::kEstablished);
	ASSERT_EQ(zw + 1, ch.zero_write_calls) << "no zero-length write after ESTABLISHED";
	ASSERT_EQ(srpt::ChState::kLive, state(ch));
	ASSERT_TRUE(fake::complete_zero_write(ch, true));
}

srpt_os_channel &ChannelTest::live_channel(const iu::LoginReq &req, srpt_cm_kind cm)
{
	srpt_os_channel &ch = login_ok(req, cm);
	if (ch.core)
		establish(ch);
	return ch;
}

srpt::Channel *ChannelTest::core(srpt_os_channel &ch)
{
	return srpt::from_handle<srpt::Channel>(ch.core);
}

std::uint32_t ChannelTest::in_flight(srpt_os_channel &ch)
{
	srpt::Counters unused;

	return core(ch)->io().fold_stats(unused);
}

srpt::ChState ChannelTest::state(srpt_os_channel &ch)
{
	return core(ch)->state();
}

void ChannelTest::logout(srpt_os_channel &ch)
{
	fake::cm_event(ch, fake::Cm::kDisconnectRequest);
	fake::run_work();
	EXPECT_TRUE(ch.freed()) << "the channel was not released";
}

srpt_os_recv *ChannelTest::send_iu(srpt_os_channel &ch, const iu::Bytes &b, fake::Device *srq)
{
	srpt_os_recv *r = fake::receive(ch, b.data(), b.size(), true, srq);
	EXPECT_NE(nullptr, r) << "no receive buffer posted";
	return r;
}

std::map<srpt_os_cmd *, long> ChannelTest::activity(srpt_os_channel &ch)
{
	std::map<srpt_os_cmd *, long> m;
	for (srpt_os_cmd *c : fake::cmds_of(ch))
		m[c] = c->init_calls + c->submit_tmr_calls + static_cast<long>(c->responses.size());
	return m;
}

srpt_os_cmd *ChannelTest::send_cmd(srpt_os_channel &ch, const iu::Bytes &b, fake::Device *srq)
{
	const auto before = activity(ch);
	if (!send_iu(ch, b, srq))
		return nullptr;
	const auto after = activity(ch);
	srpt_os_cmd *got = nullptr;
	for (const auto &[c, n] : after) {
		if (before.at(c) == n)
			continue;
		EXPECT_EQ(nullptr, got) << "the IU went to two send contexts";
		got = c;
	}
	return got;
}

void ChannelTest::lio_respond(srpt_os_cmd *c, std::uint8_t status, bool with_data,
			      const std::vector<std::uint8_t> &sense, std::uint32_t data_len)
{
	srpt_cmd_status st{};
	st.scsi_status = status;
	st.data_len = data_len == kWholeBuffer ? c->info.data_len : data_len;
	/* Where LIO builds it: the command's sense buffer. */
	ASSERT_LE(sense.size(), sizeof(c->sense));
	std::copy(sense.begin(), sense.end(), c->sense);
	st.sense_len = static_cast<srpt_u16>(sense.size());
	fake::lio_queue_response(c, st, with_data);
}

void ChannelTest::lio_finish(srpt_os_cmd *c, bool send_ok)
{
	const int done = c->done_calls;
	ASSERT_TRUE(fake::complete_send(c, send_ok));
	ASSERT_EQ(done + 1, c->done_calls) << "LIO was not told the response is done";
	srpt_core_release_cmd(c->core);
}

iu::Rsp ChannelTest::last_rsp(const srpt_os_cmd *c)
{
	if (c->responses.empty()) {
		ADD_FAILURE() << "no response posted";
		return iu::Rsp{};
	}
	return iu::parse_rsp(c->responses.back());
}

iu::Bytes read_cmd(std::uint64_t tag, std::uint32_t len)
{
	iu::Cmd c;
	c.tag = tag;
	c.buf_fmt = 0x01;
	c.in_cnt = 1;
	c.cdb = iu::read10(static_cast<std::uint16_t>(len / 512));
	c.desc = iu::direct(0x7f0000001000ull + tag, 0x1234, len);
	return iu::cmd(c);
}

iu::Bytes write_cmd(std::uint64_t tag, std::uint32_t len)
{
	iu::Cmd c;
	c.tag = tag;
	c.buf_fmt = 0x10;
	c.out_cnt = 1;
	c.cdb = iu::write10(static_cast<std::uint16_t>(len / 512));
	c.desc = iu::direct(0x7f0000002000ull + tag, 0x5678, len);
	return iu::cmd(c);
}

iu::Bytes tur_cmd(std::uint64_t tag, std::uint8_t sol_not)
{
	iu::Cmd c;
	c.tag = tag;
	c.sol_not = sol_not;
	return iu::cmd(c);
}
