/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The fixture of the login, channel and data path suites: a fake RDMA
 * device with a target port and an enabled TPG, channels logged in
 * through the fake's CM handler, IUs delivered into posted receive
 * buffers, completions delivered as the CQ would, and LIO played by the
 * test through the srpt_core_* fabric callbacks.
 */
#pragma once

#include "fixture.h"
#include "srp_iu.h"

#include <srpt/channel.h>
#include <srpt/target.h>

#include <map>
#include <memory>
#include <string>
#include <vector>

class ChannelTest : public CoreTest {
protected:
	static constexpr std::uint64_t kNodeGuid = 0x0002c90300a1b2c0ull;
	static constexpr const char *kPeer = "192.168.122.7";
	/* An IB/CM initiator's port GUID; login() puts it into a GID. */
	static constexpr const char *kIbPeer = "0002:c903:00ff:0001";
	/* The default initiator port id of iu::LoginReq, as the core names it. */
	static constexpr const char *kIPortName = "0x0123456789abcdeffedcba9876543210";

	void TearDown() override;

	/*
	 * A device "mlx5_0" with 2 ports (its node GUID becomes the service
	 * GUID), a target port named in the @kind form on port 1 and a TPG
	 * that is enabled when @enable. @max_qp_wr bounds the receive ring
	 * (128 at most) and the send queue, @max_send_sge a send WR's
	 * scatter/gather list.
	 */
	void setup_target(srpt_port_id_kind kind = SRPT_PORT_ID_GUID, bool enable = true,
			  unsigned max_qp_wr = 32768, unsigned max_send_sge = 30);
	fake::Device *dev_ = nullptr;
	srpt_tport *tport_ = nullptr;
	srpt_tpg *tpg_ = nullptr;
	srpt_os_tpg os_tpg_a_{}, os_tpg_b_{};

	/* A login request for this target: the service GUID as target port id. */
	iu::LoginReq login_req() const;
	/* The private data of @req in the form of @cm. */
	static iu::Bytes priv(const iu::LoginReq &req, srpt_cm_kind cm);

	srpt_os_channel &new_channel();
	/* The initiator's name under @cm unless a test gives one: kPeer or kIbPeer. */
	static const char *default_peer(srpt_cm_kind cm) { return cm == SRPT_CM_IB ? kIbPeer : kPeer; }
	/* What login() says the initiator's request allows (ib_srp's 4 each way). */
	std::uint8_t peer_initiator_depth_ = 4;
	int pkey_index_ = 0;		/* what the IB/CM shim found for the P_Key */
	std::uint8_t peer_responder_resources_ = 4;
	/* RDMA/CM: the family the shim hands over in place of the peer's (-1: the peer's). */
	int peer_family_ = -1;
	/* srpt_core_login() through the fake's CM handler. */
	int login(srpt_os_channel &ch, const iu::Bytes &priv, srpt_cm_kind cm = SRPT_CM_RDMA,
		  const char *peer = nullptr, unsigned port = 1, std::uint16_t pkey = 0xffff);
	/* A login that must be accepted; the channel is CONNECTING. */
	srpt_os_channel &login_ok(const iu::LoginReq &req, srpt_cm_kind cm = SRPT_CM_RDMA,
				  const char *peer = nullptr);
	/* The CM says established, and the zero-length write it posts completes: LIVE. */
	void establish(srpt_os_channel &ch);
	srpt_os_channel &live_channel(const iu::LoginReq &req, srpt_cm_kind cm = SRPT_CM_RDMA);

	static srpt::Channel *core(srpt_os_channel &ch);
	static srpt::ChState state(srpt_os_channel &ch);
	/* Commands received on @ch and not yet released, as a statistics read finds them. */
	static std::uint32_t in_flight(srpt_os_channel &ch);
	/* The initiator's DREQ: the channel drains and is released. */
	void logout(srpt_os_channel &ch);

	/* An IU arrives on @ch (or @srq's SRQ). */
	srpt_os_recv *send_iu(srpt_os_channel &ch, const iu::Bytes &b, fake::Device *srq = nullptr);
	/*
	 * The same, returning the one send context the IU went to (a
	 * command LIO got, a TMR, or a local response), or nullptr.
	 */
	srpt_os_cmd *send_cmd(srpt_os_channel &ch, const iu::Bytes &b, fake::Device *srq = nullptr);

	/*
	 * LIO: queue_status / queue_data_in for @c, whose SCSI transfer is
	 * @data_len bytes (by default the whole buffer of the request).
	 */
	static constexpr std::uint32_t kWholeBuffer = ~0u;
	static void lio_respond(srpt_os_cmd *c, std::uint8_t status = 0, bool with_data = false,
				const std::vector<std::uint8_t> &sense = {},
				std::uint32_t data_len = kWholeBuffer);
	/* The response's send completes; LIO frees the command; release_cmd. */
	static void lio_finish(srpt_os_cmd *c, bool send_ok = true);
	/* The last response @c posted, parsed. */
	static iu::Rsp last_rsp(const srpt_os_cmd *c);

	/* Receive buffers of @ch posted now. */
	static std::size_t posted(const srpt_os_channel &ch) { return ch.posted.size(); }

	std::vector<std::unique_ptr<srpt_os_channel>> channels_;

private:
	std::map<srpt_os_cmd *, long> activity(srpt_os_channel &ch);
};

/* A default SRP_CMD: READ(10) of 4 KiB into one direct buffer. */
iu::Bytes read_cmd(std::uint64_t tag, std::uint32_t len = 4096);
/* WRITE(10) of 4 KiB from one direct buffer. */
iu::Bytes write_cmd(std::uint64_t tag, std::uint32_t len = 4096);
/* TEST UNIT READY: no data. */
iu::Bytes tur_cmd(std::uint64_t tag, std::uint8_t sol_not = 0);
