// SPDX-License-Identifier: GPL-2.0-only
/*
 * The data path through the C ABI and the fake, with the test playing
 * LIO: SRP_CMD without data, direct/indirect reads and writes, immediate
 * data, malformed commands answered locally, mapping and submission
 * failures, request credits and send queue slots, completions that fail,
 * responses in unexpected states, IUs waiting for a send context, task
 * management, SRP_I_LOGOUT and unknown IUs.
 */
#include "channel_fixture.h"

#include <srpt/cmd.h>

#include <atomic>
#include <cerrno>
#include <string>
#include <thread>
#include <vector>

using iu::Bytes;
using srpt::CmdState;

namespace {

/* ILLEGAL REQUEST, INVALID FIELD IN COMMAND INFORMATION UNIT (fixed format). */
const Bytes kInvalidIuSense = {0x70, 0, 0x05, 0, 0, 0, 0, 0x0a, 0, 0,
			       0, 0, 0x0e, 0x03, 0, 0, 0, 0};

int cmd_state(srpt_os_cmd *c)
{
	return srpt_core_cmd_state(c->core);
}

} // namespace

class Datapath : public ChannelTest {
protected:
	srpt_os_channel *ch_ = nullptr;

	void live(unsigned max_qp_wr = 32768, std::uint8_t flags = 0, std::uint16_t imm = 0)
	{
		setup_target(SRPT_PORT_ID_GUID, true, max_qp_wr);
		iu::LoginReq req = login_req();
		req.flags = flags;
		req.imm_offset = imm;
		ch_ = &live_channel(req);
		fake::take_trace();
		fake::clear_logs();
	}
	/*
	 * The smallest device a channel can use (kMinDeviceQpWr): a receive
	 * ring, and so send contexts, of kSmallDepth, the drain taking the
	 * last receive slot.
	 */
	static constexpr unsigned kSmallQpWr = 8;
	static constexpr std::uint64_t kSmallDepth = kSmallQpWr - 1;

	srpt::Credits &credits() { return core(*ch_)->io().credits(); }
	int sq() { return static_cast<int>(core(*ch_)->io().sendq().free_slots()); }
};

TEST_F(Datapath, CommandWithoutData)
{
	live();
	const int slots = sq();
	iu::Cmd c;
	c.tag = 0x42;
	c.sol_not = 0x02;
	c.lun = {0x00, 0x05, 0, 0, 0, 0, 0, 0};
	c.task_attr = 0x02;
	srpt_os_cmd *cmd = send_cmd(*ch_, iu::cmd(c));
	ASSERT_NE(nullptr, cmd);
	EXPECT_EQ(127u, posted(*ch_)) << "the command holds its buffer until it is answered";
	EXPECT_EQ(0x42u, cmd->info.tag);
	EXPECT_EQ(5u, cmd->info.lun);
	EXPECT_EQ(0u, cmd->info.data_len);
	EXPECT_EQ(SRPT_DATA_NONE, cmd->info.dir);
	EXPECT_EQ(SRPT_TASK_ORDERED, cmd->info.task_attr);
	EXPECT_TRUE(cmd->submitted);
	EXPECT_EQ(Bytes(16, 0), cmd->cdb) << "TEST UNIT READY from bytes 32-47";
	EXPECT_EQ(0u, cmd->contract.count);
	EXPECT_EQ(static_cast<int>(CmdState::kNew), cmd_state(cmd));

	lio_respond(cmd);
	ASSERT_EQ(1u, cmd->responses.size());
	EXPECT_EQ(128u, posted(*ch_)) << "the buffer went back with the credit that stands for it";
	Bytes want(36, 0);
	want[0] = 0xc1;
	want[1] = 0x01;		/* SCSOLNT asked, GOOD status */
	want[7] = 0x01;		/* REQ_LIM_DELTA */
	want[15] = 0x42;
	EXPECT_EQ(iu::hex(want), iu::hex(cmd->responses[0]));
	EXPECT_EQ(0, cmd->responses_with_data[0]);
	EXPECT_EQ(slots - 1, sq());
	EXPECT_EQ(static_cast<int>(CmdState::kCmdRspSent), cmd_state(cmd));
	lio_finish(cmd);
	EXPECT_EQ(slots, sq());
	EXPECT_EQ(static_cast<int>(CmdState::kDone), cmd_state(cmd));
	EXPECT_EQ(1, cmd->release_data_calls);
}

TEST_F(Datapath, TheCdbWithAnAdditionalCdbGoesToLio)
{
	live();
	iu::Cmd c;
	c.cdb = {0x7f, 0, 0, 0, 0, 0, 0, 0x0c, 0x09, 0x0a};	/* 20-byte variable-length CDB */
	c.add_cdb_len = 0x04;
	c.add_cdb = {0xa1, 0xa2, 0xa3, 0xa4};
	srpt_os_cmd *cmd = send_cmd(*ch_, iu::cmd(c));
	ASSERT_NE(nullptr, cmd);
	ASSERT_TRUE(cmd->submitted);
	/* The CDB pointer the core hands over: the first 16 bytes of it. */
	EXPECT_EQ(0x7f, cmd->cdb[0]);
	EXPECT_EQ(0x0c, cmd->cdb[7]);
	EXPECT_EQ(0x0a, cmd->cdb[9]);
	lio_respond(cmd);
	lio_finish(cmd);
}

TEST_F(Datapath, DirectRead)
{
	live();
	const int slots = sq();
	srpt_os_cmd *c = send_cmd(*ch_, read_cmd(7, 4096));
	ASSERT_NE(nullptr, c);
	EXPECT_EQ(SRPT_DATA_IN, c->info.dir);
	EXPECT_EQ(4096u, c->info.data_len);
	EXPECT_EQ(1u, c->contract.count);
	EXPECT_EQ(SRPT_DATA_IN, static_cast<srpt_data_dir>(c->contract.dir));
	ASSERT_EQ(1u, c->rdma.size());
	EXPECT_EQ(0x7f0000001007ull, c->rdma[0].va);
	EXPECT_EQ(0x1234u, c->rdma[0].rkey);
	EXPECT_EQ(4096u, c->rdma[0].len);
	EXPECT_EQ((Bytes{0x28, 0, 0, 0, 0x12, 0x34, 0, 0, 8, 0, 0, 0, 0, 0, 0, 0}), c->cdb);

	/* LIO reads: no write_pending; the data goes out with the response. */
	EXPECT_EQ(0, c->map_calls) << "mapped only when it goes";
	lio_respond(c, 0, true);
	ASSERT_EQ(1u, c->responses.size());
	EXPECT_EQ(1, c->responses_with_data[0]);
	EXPECT_EQ(1, c->post_calls) << "the data and the response in one post";
	ASSERT_EQ(1u, c->xfers.size());
	EXPECT_EQ(0u, c->xfers[0].buf);
	EXPECT_EQ(0u, c->xfers[0].off);
	EXPECT_EQ(4096u, c->xfers[0].len);
	EXPECT_EQ(slots - 2, sq()) << "the response and one RDMA WRITE";
	EXPECT_EQ(0x07u, last_rsp(c).tag);
	ASSERT_TRUE(fake::complete_send(c, true));
	EXPECT_EQ(1, c->done_calls) << "LIO was not told the response is done";
	ASSERT_EQ(1u, c->rdma.size());
	EXPECT_FALSE(c->rdma[0].mapped) << "unmapped at the send completion";
	srpt_core_release_cmd(c->core);
	EXPECT_TRUE(c->rdma.empty()) << "freed when LIO released the command";
	EXPECT_EQ(slots, sq());
	EXPECT_EQ(0, c->execute_calls);
}

TEST_F(Datapath, DirectWrite)
{
	live();
	const int slots = sq();
	srpt_os_cmd *c = send_cmd(*ch_, write_cmd(8, 8192));
	ASSERT_NE(nullptr, c);
	EXPECT_EQ(SRPT_DATA_OUT, c->info.dir);
	EXPECT_EQ(8192u, c->info.data_len);
	EXPECT_EQ(SRPT_DATA_OUT, static_cast<srpt_data_dir>(c->contract.dir));
	ASSERT_EQ(1u, c->rdma.size());
	EXPECT_EQ(0x5678u, c->rdma[0].rkey);

	EXPECT_EQ(0, srpt_core_write_pending(c->core));
	EXPECT_EQ(1, c->post_calls);
	EXPECT_EQ(0, c->execute_calls) << "not before the data is in";
	EXPECT_EQ(static_cast<int>(CmdState::kNeedData), cmd_state(c));
	EXPECT_EQ(slots - 1, sq());
	ASSERT_TRUE(fake::complete_rdma(c, true));
	EXPECT_EQ(1, c->execute_calls);
	EXPECT_EQ(static_cast<int>(CmdState::kDataIn), cmd_state(c));
	EXPECT_EQ(slots, sq());

	lio_respond(c, 0, true);	/* with_data is meaningless for a write */
	EXPECT_EQ(0, c->responses_with_data.at(0));
	EXPECT_EQ(slots - 1, sq());
	lio_finish(c);
	EXPECT_EQ(slots, sq());
}

TEST_F(Datapath, IndirectReadSkipsZeroLengthDescriptors)
{
	live();
	const int slots = sq();
	iu::Cmd cmd;
	cmd.tag = 9;
	cmd.buf_fmt = 0x02;
	cmd.in_cnt = 3;
	cmd.cdb = iu::read10(3);
	cmd.desc = iu::indirect({iu::direct(0xa000, 1, 512), iu::direct(0xb000, 2, 0),
				 iu::direct(0xc000, 3, 1024)});
	srpt_os_cmd *c = send_cmd(*ch_, iu::cmd(cmd));
	ASSERT_NE(nullptr, c);
	EXPECT_EQ(1536u, c->info.data_len);
	EXPECT_EQ(2u, c->contract.count);
	ASSERT_EQ(2u, c->rdma.size());
	EXPECT_EQ(0xa000u, c->rdma[0].va);
	EXPECT_EQ(0xc000u, c->rdma[1].va);
	EXPECT_EQ(3u, c->rdma[1].rkey);
	lio_respond(c, 0, true);
	EXPECT_EQ(slots - 3, sq());
	lio_finish(c);
	EXPECT_EQ(slots, sq());
}

TEST_F(Datapath, IndirectWrite)
{
	live();
	iu::Cmd cmd;
	cmd.buf_fmt = 0x20;
	cmd.out_cnt = 2;
	cmd.cdb = iu::write10(2);
	cmd.desc = iu::indirect({iu::direct(0xa000, 1, 512), iu::direct(0xb000, 2, 512)});
	srpt_os_cmd *c = send_cmd(*ch_, iu::cmd(cmd));
	ASSERT_NE(nullptr, c);
	EXPECT_EQ(SRPT_DATA_OUT, static_cast<srpt_data_dir>(c->contract.dir));
	EXPECT_EQ(2u, c->rdma.size());
	const int slots = sq();
	EXPECT_EQ(0, srpt_core_write_pending(c->core));
	EXPECT_EQ(slots - 2, sq());
	ASSERT_TRUE(fake::complete_rdma(c, true));
	EXPECT_EQ(slots, sq());
	EXPECT_EQ(1, c->execute_calls);
	lio_respond(c);
	lio_finish(c);
}

TEST_F(Datapath, ZeroLengthTransfers)
{
	live();
	srpt_os_cmd *r = send_cmd(*ch_, read_cmd(1, 0));
	ASSERT_NE(nullptr, r);
	EXPECT_EQ(0u, r->contract.count);
	EXPECT_EQ(0, fake::calls("srpt_os_cmd_buf_add"));
	lio_respond(r, 0, true);
	EXPECT_EQ(0, r->responses_with_data.at(0)) << "nothing to write";
	lio_finish(r);

	srpt_os_cmd *w = send_cmd(*ch_, write_cmd(2, 0));
	ASSERT_NE(nullptr, w);
	const int posts = w->post_calls;
	EXPECT_EQ(0, srpt_core_write_pending(w->core));
	EXPECT_EQ(posts, w->post_calls);
	EXPECT_EQ(1, w->execute_calls) << "nothing to read: executed at once";
	lio_respond(w);
	lio_finish(w);
}

TEST_F(Datapath, ImmediateDataHoldsTheReceiveBufferUntilLioAnswers)
{
	/* ib_srp's offset: SRP_CMD, 16 bytes of additional CDB, the descriptor. */
	live(32768, 0x80, 68);
	iu::Cmd cmd;
	cmd.tag = 0x1d;
	cmd.buf_fmt = 0x30;
	cmd.cdb = iu::write10(1);
	cmd.desc = iu::imm_desc(512);
	Bytes b = iu::cmd(cmd);
	b.resize(68, 0);
	for (int i = 0; i < 512; i++)
		b.push_back(static_cast<std::uint8_t>(i * 7));
	const std::size_t before = posted(*ch_);
	srpt_os_recv *r = ch_->posted.front();
	srpt_os_cmd *c = send_cmd(*ch_, b);
	ASSERT_NE(nullptr, c);
	EXPECT_EQ(SRPT_DATA_OUT, c->info.dir);
	EXPECT_EQ(512u, c->info.data_len);
	EXPECT_EQ(static_cast<void *>(r->iu + 68), c->imm_data);
	EXPECT_EQ(512u, c->imm_len);
	EXPECT_EQ(0u, reinterpret_cast<std::uintptr_t>(c->imm_data) % 512) << "512-byte aligned";
	EXPECT_EQ(0, std::memcmp(c->imm_data, b.data() + 68, 512));
	EXPECT_EQ(0, fake::calls("srpt_os_cmd_buf_add"));
	EXPECT_EQ(before - 1, posted(*ch_)) << "the command holds the buffer";
	EXPECT_EQ(ch_, r->received_on);

	EXPECT_EQ(0, srpt_core_write_pending(c->core));
	EXPECT_EQ(0, c->post_calls);
	EXPECT_EQ(1, c->execute_calls);
	EXPECT_EQ(before - 1, posted(*ch_)) << "still held: LIO has not answered yet";
	/*
	 * LIO's answer means it is done with the data: the buffer goes back
	 * before the response whose credit stands for it (the fake checks
	 * that every credit the initiator holds has a buffer posted).
	 */
	const int posts = r->post_count;
	lio_respond(c);
	EXPECT_EQ(before, posted(*ch_));
	EXPECT_EQ(posts + 1, r->post_count);
	EXPECT_EQ(1u, c->responses.size());
	EXPECT_EQ(1u, last_rsp(c).req_lim_delta);
	ASSERT_TRUE(fake::complete_send(c, true));
	srpt_core_release_cmd(c->core);
	EXPECT_EQ(before, posted(*ch_));
	EXPECT_EQ(posts + 1, r->post_count) << "once";
	EXPECT_EQ(nullptr, c->imm_data);
}

TEST_F(Datapath, ImmediateDataAnsweredSynchronouslyIsRepostedOnce)
{
	/*
	 * LIO fails the command inside target_submit() (an unknown LUN, a bad
	 * CDB), the response cannot be sent, and LIO's last reference goes
	 * with srpt_os_cmd_put(): release_cmd runs inside srpt_os_cmd_submit.
	 */
	live(32768, 0x80, 68);
	fake::fail_call("srpt_os_cmd_post", 1, -ENOMEM);
	fake::config().on_submit = [](srpt_os_cmd *c) {
		lio_respond(c, 0x02, false, {0x70, 0, 0x05, 0, 0, 0, 0, 10, 0, 0, 0, 0, 0x25});
		if (c->put_calls == 1)
			srpt_core_release_cmd(c->core);
	};
	iu::Cmd cmd;
	cmd.buf_fmt = 0x30;
	cmd.cdb = iu::write10(1);
	cmd.desc = iu::imm_desc(512);
	Bytes b = iu::cmd(cmd);
	b.resize(68 + 512, 0);
	const std::size_t before = posted(*ch_);
	srpt_os_recv *r = ch_->posted.front();
	const int posts = r->post_count;
	srpt_os_cmd *c = send_cmd(*ch_, b);
	ASSERT_NE(nullptr, c);
	EXPECT_EQ(1, c->put_calls);
	EXPECT_EQ(posts + 1, r->post_count) << "posted once";
	EXPECT_EQ(before, posted(*ch_));
}

TEST_F(Datapath, MalformedCommandsAreAnsweredLocally)
{
	live();
	const std::uint32_t big = (16u << 20) + 1;
	const struct {
		const char *what;
		Bytes iu;
		const char *log;
	} cases[] = {
		{"short", [] {
			 Bytes b = read_cmd(0x51);
			 b.resize(40);
			 return b;
		 }(), "SRP_CMD shorter than 48 bytes"},
		{"bidirectional", [] {
			 iu::Cmd c;
			 c.tag = 0x51;
			 c.buf_fmt = 0x11;
			 c.desc = iu::cat({iu::direct(1, 1, 512), iu::direct(2, 2, 512)});
			 return iu::cmd(c);
		 }(), "bidirectional commands are not supported"},
		{"additional CDB", [] {
			 iu::Cmd c;
			 c.tag = 0x51;
			 c.add_cdb_len = 0x10;
			 return iu::cmd(c);
		 }(), "additional CDB past the end of the IU"},
		{"direct past the end", [] {
			 Bytes b = read_cmd(0x51);
			 b.resize(60);
			 return b;
		 }(), "direct descriptor past the end of the IU"},
		{"table count", [] {
			 iu::Cmd c;
			 c.tag = 0x51;
			 c.buf_fmt = 0x02;
			 c.in_cnt = 1;
			 c.desc = iu::indirect({iu::direct(1, 1, 512), iu::direct(2, 2, 512)});
			 return iu::cmd(c);
		 }(), "descriptor table not entirely in the IU"},
		{"immediate not negotiated", [] {
			 iu::Cmd c;
			 c.tag = 0x51;
			 c.buf_fmt = 0x30;
			 c.desc = iu::imm_desc(4);
			 Bytes b = iu::cmd(c);
			 b.resize(600);
			 return b;
		 }(), "immediate data was not negotiated at login"},
		{"too much data", read_cmd(0x51, big), "data length above 16 MiB"},
		{"variable-length CDB", [] {
			 iu::Cmd c;
			 c.tag = 0x51;
			 c.cdb = {0x7f, 0, 0, 0, 0, 0, 0, 0x10};
			 return iu::cmd(c);
		 }(), "CDB longer than the CDB and additional CDB fields"},
	};
	for (const auto &k : cases) {
		SCOPED_TRACE(k.what);
		fake::clear_logs();
		const int slots = sq();
		const long inits = fake::calls("srpt_os_cmd_init");
		srpt_os_cmd *c = send_cmd(*ch_, k.iu);
		ASSERT_NE(nullptr, c);
		if (c->responses.size() > 1)
			c->responses.erase(c->responses.begin(), c->responses.end() - 1);
		EXPECT_EQ(inits, fake::calls("srpt_os_cmd_init")) << "LIO never sees it";
		EXPECT_FALSE(c->submitted);
		EXPECT_EQ(128u, posted(*ch_));
		ASSERT_EQ(1u, c->responses.size());
		const iu::Rsp rsp = last_rsp(c);
		EXPECT_EQ(0xc1, rsp.opcode);
		EXPECT_EQ(0x51u, rsp.tag);
		EXPECT_EQ(1u, rsp.req_lim_delta);
		EXPECT_EQ(0x02, rsp.status) << "CHECK CONDITION";
		EXPECT_EQ(0x02, rsp.flags) << "SNSVALID";
		EXPECT_EQ(0u, rsp.resp_len);
		EXPECT_EQ(iu::hex(kInvalidIuSense), iu::hex(rsp.sense));
		EXPECT_EQ(54u, c->responses[0].size());
		EXPECT_EQ(1, fake::log_count(std::string("command 0x51: ") + k.log, SRPT_LOG_ERR)) << fake::log_text();
		const int done = c->done_calls;
		ASSERT_TRUE(fake::complete_send(c, true));
		EXPECT_EQ(done, c->done_calls) << "no LIO command to free";
		EXPECT_EQ(slots, sq());
		EXPECT_EQ(static_cast<int>(CmdState::kDone), cmd_state(c));
	}
	/* The contexts came back: all 128 are usable. */
	std::vector<srpt_os_cmd *> held;
	for (std::uint64_t t = 0; t < 128; t++) {
		srpt_os_cmd *c = send_cmd(*ch_, tur_cmd(t));
		ASSERT_NE(nullptr, c) << t;
		held.push_back(c);
	}
	for (srpt_os_cmd *c : held) {
		lio_respond(c);
		lio_finish(c);
	}
}

TEST_F(Datapath, SenseOfALocalAnswerIsClippedToMaxTiIuLen)
{
	setup_target();
	ASSERT_EQ(3, srpt_core_tpg_attrib_store(tpg_, SRPT_ATTRIB_MAX_RSP_SIZE, "40\n", 3));
	ch_ = &live_channel(login_req());
	EXPECT_EQ(40u, iu::get_be32(ch_->accept_rsp, 20)) << "max_ti_iu_len";
	iu::Cmd c;
	c.tag = 3;
	c.sol_not = 0x04;
	c.buf_fmt = 0x11;
	srpt_os_cmd *cmd = send_cmd(*ch_, iu::cmd(c));
	ASSERT_NE(nullptr, cmd);
	ASSERT_EQ(40u, cmd->responses.at(0).size());
	const iu::Rsp rsp = last_rsp(cmd);
	EXPECT_EQ(0x01, rsp.sol_not) << "UCSOLNT asked, CHECK CONDITION";
	EXPECT_EQ(0x02, rsp.flags);
	EXPECT_EQ(4u, rsp.sense_len);
	EXPECT_EQ((Bytes{0x70, 0, 0x05, 0}), rsp.sense);
	ASSERT_TRUE(fake::complete_send(cmd, true));
}

TEST_F(Datapath, LiosSenseLengthIsBoundedByItsSenseBuffer)
{
	/* A sense length past the buffer LIO writes in must not send what lies beyond it. */
	live();
	iu::Cmd c;
	c.tag = 9;
	srpt_os_cmd *cmd = send_cmd(*ch_, iu::cmd(c));
	ASSERT_NE(nullptr, cmd);
	for (std::size_t i = 0; i < sizeof(cmd->sense); i++)
		cmd->sense[i] = static_cast<std::uint8_t>(0x80 + i);
	srpt_cmd_status st{};
	st.scsi_status = 0x02;
	st.sense_len = 0xffff;
	srpt_core_queue_response(cmd->core, st, 0);
	ASSERT_EQ(1u, cmd->responses.size());
	const iu::Rsp rsp = last_rsp(cmd);
	EXPECT_EQ(0x02, rsp.flags) << "SNSVALID";
	EXPECT_EQ(static_cast<std::uint32_t>(SRPT_SENSE_SIZE), rsp.sense_len);
	EXPECT_EQ(Bytes(cmd->sense, cmd->sense + SRPT_SENSE_SIZE), rsp.sense);
	lio_finish(cmd);
	EXPECT_EQ(0u, in_flight(*ch_));
}

/* The double itself: a context's buffers go back before its next command sets up any. */
TEST_F(Datapath, TheFakeWantsBuffersReleasedBeforeTheNextCommandsBuffers)
{
	live();
	int core;
	void *rsp = nullptr;
	const srpt_u8 *sense = nullptr;
	srpt_os_cmd *c = srpt_os_cmd_alloc(ch_, reinterpret_cast<srpt_cmd *>(&core), 64, &rsp, &sense);
	ASSERT_NE(nullptr, c);
	const auto buf_add = [c] { return srpt_os_cmd_buf_add(c, 1, SRPT_DATA_IN, 0xa000, 1, 512); };
	const auto reported = [] {
		for (const std::string &v : fake::take_violations())
			if (v.find("srpt_os_cmd_buf_add: buf_add after cmd_init or a failed buf_add, before release_data") !=
			    std::string::npos)
				return true;
		return false;
	};

	ASSERT_EQ(0, buf_add());
	ASSERT_EQ(0, srpt_os_cmd_init(c, 0, 0, 0, SRPT_DATA_NONE, SRPT_TASK_SIMPLE));
	(void)buf_add();
	EXPECT_TRUE(reported()) << "after init";
	srpt_os_cmd_release_data(c);
	ASSERT_EQ(0, buf_add());
	EXPECT_TRUE(fake::take_violations().empty()) << "released";

	srpt_os_cmd_release_data(c);
	fake::fail_call("srpt_os_cmd_buf_add", 1, -ENOMEM);
	EXPECT_EQ(-ENOMEM, buf_add());
	(void)buf_add();
	EXPECT_TRUE(reported()) << "after a failed buf_add";
	srpt_os_cmd_release_data(c);
	srpt_os_cmd_free(c);
}

TEST_F(Datapath, MappingFailures)
{
	live();
	/* Out of memory for the data: TASK SET FULL, no sense; the initiator retries. */
	fake::fail_call("srpt_os_cmd_buf_add", 1, -ENOMEM);
	srpt_os_cmd *c = send_cmd(*ch_, read_cmd(0x61));
	ASSERT_NE(nullptr, c);
	EXPECT_EQ(0, c->init_calls);
	iu::Rsp rsp = last_rsp(c);
	EXPECT_EQ(0x28, rsp.status);
	EXPECT_EQ(0x00, rsp.flags);
	EXPECT_EQ(0u, rsp.sense_len);
	EXPECT_EQ(36u, c->responses.at(0).size());
	EXPECT_EQ(1, c->release_data_calls);
	EXPECT_EQ(1, fake::log_count("command 0x61: allocating 4096 bytes for its data failed (-ENOMEM)"))
		<< fake::log_text();
	ASSERT_TRUE(fake::complete_send(c, true));

	/* The second buffer of an indirect table fails: everything is undone. */
	fake::fail_call("srpt_os_cmd_buf_add", 2, -ENOMEM);
	iu::Cmd cmd;
	cmd.tag = 0x62;
	cmd.buf_fmt = 0x02;
	cmd.in_cnt = 2;
	cmd.desc = iu::indirect({iu::direct(0xa000, 1, 512), iu::direct(0xb000, 2, 512)});
	c = send_cmd(*ch_, iu::cmd(cmd));
	ASSERT_NE(nullptr, c);
	EXPECT_EQ(0x28, last_rsp(c).status);
	EXPECT_TRUE(c->rdma.empty()) << "released";
	ASSERT_TRUE(fake::complete_send(c, true));

	/* Another error (a bad R_Key, ...): CHECK CONDITION. */
	fake::fail_call("srpt_os_cmd_buf_add", 1, -EINVAL);
	c = send_cmd(*ch_, write_cmd(0x63));
	ASSERT_NE(nullptr, c);
	rsp = last_rsp(c);
	EXPECT_EQ(0x02, rsp.status);
	EXPECT_EQ(iu::hex(kInvalidIuSense), iu::hex(rsp.sense));
	ASSERT_TRUE(fake::complete_send(c, true));
	EXPECT_EQ(0, fake::calls("srpt_os_cmd_init"));
}

TEST_F(Datapath, SessionStoppingDropsTheCommandAndOwesACredit)
{
	live(32768, 0x80, 68);
	fake::fail_call("srpt_os_cmd_init", 1, -ESHUTDOWN);
	const int owed = credits().owed();
	srpt_os_cmd *c = send_cmd(*ch_, read_cmd(0x71));
	ASSERT_NE(nullptr, c);
	EXPECT_FALSE(c->submitted);
	EXPECT_TRUE(c->responses.empty());
	EXPECT_TRUE(c->rdma.empty()) << "the mapping is undone";
	EXPECT_EQ(owed + 1, credits().owed());
	EXPECT_EQ(128u, posted(*ch_));

	/* With immediate data too: the buffer goes back at once. */
	fake::fail_call("srpt_os_cmd_init", 1, -ESHUTDOWN);
	iu::Cmd imm;
	imm.buf_fmt = 0x30;
	imm.desc = iu::imm_desc(16);
	Bytes b = iu::cmd(imm);
	b.resize(68 + 16, 0);
	c = send_cmd(*ch_, b);
	ASSERT_NE(nullptr, c);
	EXPECT_EQ(nullptr, c->imm_data);
	EXPECT_EQ(128u, posted(*ch_));

	/* The next response returns both credits with its own. */
	c = send_cmd(*ch_, tur_cmd(0x72));
	ASSERT_NE(nullptr, c);
	lio_respond(c);
	EXPECT_EQ(3u, last_rsp(c).req_lim_delta);
	lio_finish(c);
	c = send_cmd(*ch_, tur_cmd(0x73));
	lio_respond(c);
	EXPECT_EQ(1u, last_rsp(c).req_lim_delta);
	lio_finish(c);
}

TEST_F(Datapath, AbortedTasksOweACredit)
{
	live();
	srpt_os_cmd *a = send_cmd(*ch_, read_cmd(1));
	srpt_os_cmd *b = send_cmd(*ch_, read_cmd(2));
	ASSERT_TRUE(a && b);
	srpt_core_aborted_task(a->core);
	srpt_core_release_cmd(a->core);
	EXPECT_EQ(1, credits().owed());
	lio_respond(b, 0, true);
	EXPECT_EQ(2u, last_rsp(b).req_lim_delta);
	EXPECT_EQ(0, credits().owed());
	lio_finish(b);
}

TEST_F(Datapath, AnAbortedTaskPostsItsBufferBeforeItsCreditIsOwed)
{
	/* LIO may answer another command before it releases the aborted one. */
	live();
	const std::size_t before = posted(*ch_);
	srpt_os_cmd *a = send_cmd(*ch_, read_cmd(1));
	srpt_os_cmd *b = send_cmd(*ch_, read_cmd(2));
	ASSERT_TRUE(a && b);
	EXPECT_EQ(before - 2, posted(*ch_));
	srpt_core_aborted_task(a->core);
	EXPECT_EQ(before - 1, posted(*ch_)) << "the aborted command's buffer went back";
	/* Its credit goes with b's response (the fake checks the buffer behind it). */
	lio_respond(b, 0, true);
	EXPECT_EQ(2u, last_rsp(b).req_lim_delta);
	EXPECT_EQ(before, posted(*ch_));
	srpt_core_release_cmd(a->core);
	EXPECT_EQ(before, posted(*ch_)) << "posted once";
	lio_finish(b);
}

TEST_F(Datapath, AFailedPostUndoesEverything)
{
	live();
	const int slots = sq();
	srpt_os_cmd *a = send_cmd(*ch_, read_cmd(1));
	ASSERT_NE(nullptr, a);
	fake::fail_call("srpt_os_cmd_post", 1, -ENOMEM);
	lio_respond(a, 0, true);
	EXPECT_TRUE(a->responses.empty());
	EXPECT_EQ(slots, sq()) << "the slots of the response and its RDMA WRITEs are back";
	EXPECT_EQ(1, a->put_calls) << "LIO's acknowledgement reference is dropped";
	EXPECT_EQ(0, a->done_calls);
	EXPECT_EQ(static_cast<int>(CmdState::kDone), cmd_state(a));
	EXPECT_EQ(1, credits().owed());
	EXPECT_EQ(1, fake::log_count("command 0x1: sending failed (-ENOMEM)")) << fake::log_text();
	srpt_core_release_cmd(a->core);

	/* A second failure keeps the first's credit owed, and adds its own. */
	srpt_os_cmd *b = send_cmd(*ch_, tur_cmd(2));
	fake::fail_call("srpt_os_cmd_post", 1, -EIO);
	lio_respond(b);
	EXPECT_EQ(2, credits().owed());
	srpt_core_release_cmd(b->core);
	srpt_os_cmd *c = send_cmd(*ch_, tur_cmd(3));
	lio_respond(c);
	EXPECT_EQ(3u, last_rsp(c).req_lim_delta);
	lio_finish(c);
	EXPECT_EQ(slots, sq());
}

/* ---- exactly the SCSI transfer, never more ---- */

namespace {

/* queue_data_in as LIO calls it after an underflow: @data_len bytes and a residual. */
void lio_read_done(srpt_os_cmd *c, std::uint32_t data_len, std::uint32_t residual)
{
	srpt_cmd_status st{};
	st.data_len = data_len;
	st.residual = residual ? SRPT_RESIDUAL_UNDERFLOW : SRPT_RESIDUAL_NONE;
	/* As the shim fills it: only with a residual. */
	if (residual)
		st.data_dir = SRPT_DATA_IN;
	st.residual_count = residual;
	fake::lio_queue_response(c, st, true);
}

/* The transfers of @c as "buf:off+len" strings. */
std::vector<std::string> xfers(const srpt_os_cmd *c)
{
	std::vector<std::string> v;
	for (const srpt_os_cmd::Xfer &x : c->xfers)
		v.push_back(std::to_string(x.buf) + ":" + std::to_string(x.off) + "+" +
			    std::to_string(x.len));
	return v;
}

} // namespace

TEST_F(Datapath, ShortReadsSendOnlyTheBytesOfTheScsiTransfer)
{
	live();
	const std::uint64_t read0 = core(*ch_)->io().stats().get(srpt::Stat::kBytesRead);

	/*
	 * READ(10) of one 512-byte block into a 1 MiB buffer: the 1 MiB of
	 * local memory may hold another command's data past byte 512.
	 */
	iu::Cmd cmd;
	cmd.tag = 0x11;
	cmd.buf_fmt = 0x01;
	cmd.in_cnt = 1;
	cmd.cdb = iu::read10(1);
	cmd.desc = iu::direct(0xa0000000, 7, 1u << 20);
	srpt_os_cmd *c = send_cmd(*ch_, iu::cmd(cmd));
	ASSERT_NE(nullptr, c);
	lio_read_done(c, 512, (1u << 20) - 512);
	EXPECT_EQ((std::vector<std::string>{"0:0+512"}), xfers(c));
	iu::Rsp rsp = last_rsp(c);
	EXPECT_EQ(0x20, rsp.flags) << "DIUNDER";
	EXPECT_EQ((1u << 20) - 512, rsp.di_resid);
	EXPECT_EQ(read0, core(*ch_)->io().stats().get(srpt::Stat::kBytesRead)) << "not sent yet";
	lio_finish(c);
	EXPECT_EQ(read0 + 512, core(*ch_)->io().stats().get(srpt::Stat::kBytesRead));

	/* Four buffers of 256 KiB, 300 KiB transferred: two of them, the second in part. */
	cmd.tag = 0x12;
	cmd.buf_fmt = 0x02;
	cmd.in_cnt = 4;
	cmd.cdb = iu::read10(600);
	cmd.desc = iu::indirect({iu::direct(0xa0000000, 1, 256 << 10), iu::direct(0xb0000000, 2, 256 << 10),
				 iu::direct(0xc0000000, 3, 256 << 10), iu::direct(0xd0000000, 4, 256 << 10)});
	c = send_cmd(*ch_, iu::cmd(cmd));
	ASSERT_NE(nullptr, c);
	lio_read_done(c, 300 << 10, (1u << 20) - (300 << 10));
	EXPECT_EQ((std::vector<std::string>{"0:0+262144", "1:0+45056"}), xfers(c));
	EXPECT_EQ((1u << 20) - (300 << 10), last_rsp(c).di_resid);
	EXPECT_FALSE(c->rdma[2].mapped || c->rdma[3].mapped) << "buffers past the transfer are never mapped";
	lio_finish(c);

	/* INQUIRY, allocation length 36, into a 1 MiB buffer. */
	cmd.tag = 0x13;
	cmd.buf_fmt = 0x01;
	cmd.in_cnt = 1;
	cmd.cdb = {0x12, 0, 0, 0, 36, 0};
	cmd.desc = iu::direct(0xa0000000, 7, 1u << 20);
	c = send_cmd(*ch_, iu::cmd(cmd));
	ASSERT_NE(nullptr, c);
	lio_read_done(c, 36, (1u << 20) - 36);
	EXPECT_EQ((std::vector<std::string>{"0:0+36"}), xfers(c));
	lio_finish(c);

	/* No data at all (LIO found nothing to return): a response without a transfer. */
	c = send_cmd(*ch_, read_cmd(0x14, 8192));
	ASSERT_NE(nullptr, c);
	lio_read_done(c, 0, 8192);
	EXPECT_TRUE(c->xfers.empty());
	EXPECT_EQ(0, c->responses_with_data.back());
	lio_finish(c);

	/* LIO never says more than the buffer; if it did, the buffer bounds it. */
	c = send_cmd(*ch_, read_cmd(0x15, 4096));
	ASSERT_NE(nullptr, c);
	lio_read_done(c, 1u << 20, 0);
	EXPECT_EQ((std::vector<std::string>{"0:0+4096"}), xfers(c));
	lio_finish(c);
}

TEST_F(Datapath, AKeptBufferGoesWithoutMappingWhateverTheStep)
{
	setup_target();
	ASSERT_EQ(2, srpt_core_tpg_attrib_store(tpg_, SRPT_ATTRIB_SQ_SIZE, "8\n", 2));
	ch_ = &live_channel(login_req());
	ASSERT_EQ(4, sq());
	fake::config().kept_page = true;

	/* Exactly the bytes of the SCSI transfer, from the kept buffer, with the response. */
	srpt_os_cmd *c = send_cmd(*ch_, read_cmd(1, 4096));
	ASSERT_NE(nullptr, c);
	ASSERT_EQ(1u, c->rdma.size());
	EXPECT_TRUE(c->rdma[0].kept);
	lio_read_done(c, 512, 4096 - 512);
	EXPECT_EQ((std::vector<std::string>{"0:0+512"}), xfers(c));
	EXPECT_EQ(1, c->responses_with_data.at(0));
	EXPECT_EQ(2, sq()) << "one work request for the data, one for the response";
	lio_finish(c);
	EXPECT_EQ(4, sq());

	/* No data at all: the response alone, the buffer untouched. */
	c = send_cmd(*ch_, read_cmd(8, 4096));
	ASSERT_TRUE(c->rdma.at(0).kept);
	const std::size_t sent = c->xfers.size();
	lio_read_done(c, 0, 4096);
	EXPECT_EQ(sent, c->xfers.size());
	EXPECT_EQ(0, c->responses_with_data.back());
	EXPECT_EQ(3, sq());
	lio_finish(c);

	/* Three statuses leave one slot: the read waits for a second, then goes whole. */
	std::vector<srpt_os_cmd *> tur;
	for (std::uint64_t t = 2; t <= 4; t++) {
		tur.push_back(send_cmd(*ch_, tur_cmd(t)));
		lio_respond(tur.back());
	}
	c = send_cmd(*ch_, read_cmd(5, 4096));
	lio_respond(c, 0, true);
	EXPECT_TRUE(c->responses.empty());
	EXPECT_TRUE(c->xfers.empty());
	lio_finish(tur[0]);
	EXPECT_EQ((std::vector<std::string>{"0:0+4096"}), xfers(c));
	ASSERT_EQ(1u, c->responses.size());
	lio_finish(c);
	lio_finish(tur[1]);
	lio_finish(tur[2]);

	/* A failed post takes nothing back from the buffer and loses no slot. */
	c = send_cmd(*ch_, read_cmd(6, 4096));
	const std::size_t responses = c->responses.size();
	const int puts = c->put_calls;
	fake::fail_call("srpt_os_cmd_post", 1, -ENOMEM);
	lio_respond(c, 0, true);
	EXPECT_EQ(responses, c->responses.size());
	EXPECT_EQ(puts + 1, c->put_calls);
	srpt_core_release_cmd(c->core);
	EXPECT_EQ(4, sq());
	EXPECT_EQ(1, credits().owed());

	/* Larger buffers, and more than one, are mapped per transfer as ever. */
	c = send_cmd(*ch_, read_cmd(7, 8192));
	ASSERT_FALSE(c->rdma.at(0).kept);
	lio_respond(c, 0, true);
	EXPECT_EQ(1, c->map_calls);
	lio_finish(c);

	EXPECT_EQ(1, fake::calls("srpt_os_cmd_rdma_map")) << "only the 8 KiB read was mapped";
	EXPECT_EQ(1, fake::calls("srpt_os_cmd_rdma_unmap"));
	EXPECT_EQ(4, sq());
	EXPECT_EQ(0, credits().owed()) << "the next response carried the failed post's credit";
}

/* ---- the send queue: nothing dropped, nothing too big ---- */

TEST_F(Datapath, AReadBlockedByItsDataWaitsForItsResponsesSlotToo)
{
	setup_target();
	ASSERT_EQ(2, srpt_core_tpg_attrib_store(tpg_, SRPT_ATTRIB_SQ_SIZE, "8\n", 2));
	/* A 4 KiB read's data takes two work requests (a registration), its response one. */
	fake::config().rdma_extra_wrs = 1;
	ch_ = &live_channel(login_req());
	ASSERT_EQ(4, sq());

	std::vector<srpt_os_cmd *> turs;
	for (std::uint64_t t = 1; t <= 3; t++) {
		turs.push_back(send_cmd(*ch_, tur_cmd(t)));
		lio_respond(turs.back());
	}
	ASSERT_EQ(1, sq());
	srpt_os_cmd *r = send_cmd(*ch_, read_cmd(4));
	ASSERT_NE(nullptr, r);
	lio_respond(r, 0, true);
	EXPECT_TRUE(r->responses.empty());
	EXPECT_EQ(1, r->map_calls);

	/*
	 * Two free slots hold its data but not its response: the step must
	 * not map again (and unmap) for nothing, but wait for all three.
	 */
	lio_finish(turs[0]);
	EXPECT_TRUE(r->responses.empty());
	EXPECT_EQ(1, r->map_calls) << "mapped again for a step that could not go";
	lio_finish(turs[1]);
	ASSERT_EQ(1u, r->responses.size());
	EXPECT_EQ(1, r->responses_with_data[0]);
	EXPECT_EQ(2, r->map_calls);
	lio_finish(turs[2]);
	lio_finish(r);
	EXPECT_EQ(4, sq());
	EXPECT_EQ(0, credits().owed());
	EXPECT_TRUE(fake::take_violations().empty());
}

TEST_F(Datapath, ResponsesWaitForTheSendQueueInsteadOfBeingDropped)
{
	setup_target();
	ASSERT_EQ(2, srpt_core_tpg_attrib_store(tpg_, SRPT_ATTRIB_SQ_SIZE, "8\n", 2));
	ch_ = &live_channel(login_req());
	ASSERT_EQ(4, sq());
	const srpt::Counters &stats = core(*ch_)->io().stats();

	/* Four statuses take the four slots. */
	std::vector<srpt_os_cmd *> first;
	for (std::uint64_t t = 1; t <= 4; t++) {
		first.push_back(send_cmd(*ch_, tur_cmd(t)));
		lio_respond(first.back());
	}
	EXPECT_EQ(0, sq());

	/* More answers while the queue is full: they wait, none is dropped. */
	std::vector<srpt_os_cmd *> later;
	for (std::uint64_t t = 5; t <= 7; t++) {
		srpt_os_cmd *c = send_cmd(*ch_, tur_cmd(t));
		ASSERT_NE(nullptr, c);
		lio_respond(c);
		EXPECT_TRUE(c->responses.empty());
		EXPECT_EQ(0, c->put_calls);
		later.push_back(c);
	}
	srpt_os_cmd *r = send_cmd(*ch_, read_cmd(8));
	lio_respond(r, 0, true);
	EXPECT_TRUE(r->responses.empty());
	EXPECT_EQ(4u, core(*ch_)->io().sendq().waiting());
	EXPECT_EQ(4u, stats.get(srpt::Stat::kSqWaits));

	/* Each completion posts what fits now, in the order they came. */
	lio_finish(first[0]);
	EXPECT_EQ(1u, later[0]->responses.size());
	EXPECT_TRUE(later[1]->responses.empty());
	lio_finish(first[1]);
	lio_finish(first[2]);
	EXPECT_EQ(1u, later[2]->responses.size());
	lio_finish(first[3]);
	EXPECT_TRUE(r->responses.empty()) << "the read needs two slots, one is free";
	EXPECT_EQ(1, sq());
	lio_finish(later[0]);
	ASSERT_EQ(1u, r->responses.size());
	EXPECT_EQ(1, r->responses_with_data[0]);
	EXPECT_EQ(0u, core(*ch_)->io().sendq().waiting());

	/* Every response returned its request's credit; nothing is owed. */
	std::uint32_t delta = 0;
	for (srpt_os_cmd *c : first)
		delta += iu::parse_rsp(c->responses.at(0)).req_lim_delta;
	for (srpt_os_cmd *c : later)
		delta += last_rsp(c).req_lim_delta;
	delta += last_rsp(r).req_lim_delta;
	EXPECT_EQ(8u, delta);
	lio_finish(later[1]);
	lio_finish(later[2]);
	lio_finish(r);
	EXPECT_EQ(4, sq());
	EXPECT_EQ(0, credits().owed());
	EXPECT_EQ(0u, stats.get(srpt::Stat::kErrSend));
	EXPECT_EQ(0, fake::log_count("send queue full")) << fake::log_text();
}

TEST_F(Datapath, TransfersLargerThanTheSendQueueGoInRounds)
{
	/* srp_sq_size at its minimum; a device that needs a work request per 64 KiB. */
	setup_target();
	ASSERT_EQ(2, srpt_core_tpg_attrib_store(tpg_, SRPT_ATTRIB_SQ_SIZE, "4\n", 2));
	ch_ = &live_channel(login_req());
	ASSERT_EQ(4, sq()) << "room for a registered piece and a response";
	fake::config().rdma_bytes_per_wr = 64 << 10;

	/* A 1 MiB read takes 16 work requests: 256 KiB pieces of 4, one round each. */
	srpt_os_cmd *r = send_cmd(*ch_, read_cmd(0x21, 1u << 20));
	ASSERT_NE(nullptr, r);
	lio_respond(r, 0, true);
	for (int round = 0; round < 4; round++) {
		SCOPED_TRACE(round);
		ASSERT_EQ(static_cast<std::size_t>(round + 1), r->xfers.size());
		EXPECT_TRUE(r->responses.empty()) << "the response goes after all the data";
		EXPECT_LE(fake::send_queue_used(*ch_), 4);
		ASSERT_TRUE(fake::complete_rdma(r, true));
	}
	EXPECT_EQ((std::vector<std::string>{"0:0+262144", "0:262144+262144", "0:524288+262144",
					    "0:786432+262144"}),
		  xfers(r));
	ASSERT_EQ(1u, r->responses.size()) << "then the response alone";
	EXPECT_EQ(0, r->responses_with_data[0]);
	EXPECT_EQ(0x00, last_rsp(r).status);
	lio_finish(r);
	EXPECT_EQ(4, sq());

	/* A 1 MiB write: four RDMA READ rounds, then LIO executes. */
	srpt_os_cmd *w = send_cmd(*ch_, write_cmd(0x22, 1u << 20));
	ASSERT_NE(nullptr, w);
	EXPECT_EQ(0, srpt_core_write_pending(w->core));
	for (int round = 0; round < 4; round++) {
		SCOPED_TRACE(round);
		EXPECT_EQ(0, w->execute_calls) << "not before the last round";
		ASSERT_TRUE(fake::complete_rdma(w, true));
	}
	EXPECT_EQ(4u, w->xfers.size());
	EXPECT_EQ(1, w->execute_calls);
	lio_respond(w);
	lio_finish(w);
	EXPECT_EQ(4, sq());
	EXPECT_EQ(0u, core(*ch_)->io().stats().get(srpt::Stat::kErrNoMemory));
}

TEST_F(Datapath, AWaitingLargeTransferIsNotOvertaken)
{
	setup_target();
	ASSERT_EQ(2, srpt_core_tpg_attrib_store(tpg_, SRPT_ATTRIB_SQ_SIZE, "8\n", 2));
	ch_ = &live_channel(login_req());
	fake::config().rdma_bytes_per_wr = 4096;

	srpt_os_cmd *a = send_cmd(*ch_, tur_cmd(1));
	lio_respond(a);
	srpt_os_cmd *b = send_cmd(*ch_, tur_cmd(2));
	lio_respond(b);
	/* 12 KiB of read data and the response: all four slots; two are free. */
	srpt_os_cmd *big = send_cmd(*ch_, read_cmd(3, 12288));
	lio_respond(big, 0, true);
	EXPECT_TRUE(big->responses.empty());
	/* A status that would fit must wait behind it. */
	srpt_os_cmd *small = send_cmd(*ch_, tur_cmd(4));
	lio_respond(small);
	EXPECT_TRUE(small->responses.empty());
	lio_finish(a);
	EXPECT_TRUE(big->responses.empty());
	EXPECT_TRUE(small->responses.empty()) << "overtook the large transfer at the head";
	lio_finish(b);
	ASSERT_EQ(1u, big->responses.size());
	EXPECT_TRUE(small->responses.empty());
	lio_finish(big);
	ASSERT_EQ(1u, small->responses.size());
	lio_finish(small);
}

/*
 * The step of a command that nobody waits before fails to fit, and before
 * it is queued a completion elsewhere gives back the slots it lacked. That
 * completion found nobody waiting and posted nothing: the submit must see
 * the slots that came back and post the step itself, or it waits for a
 * completion that will never come.
 */
TEST_F(Datapath, SlotsGivenBackWhileAStepIsMappedAreNotMissed)
{
	setup_target();
	ASSERT_EQ(2, srpt_core_tpg_attrib_store(tpg_, SRPT_ATTRIB_SQ_SIZE, "8\n", 2));
	ch_ = &live_channel(login_req());
	ASSERT_EQ(4, sq());
	fake::config().rdma_bytes_per_wr = 4096;

	srpt_os_cmd *a = send_cmd(*ch_, tur_cmd(1));
	lio_respond(a);
	srpt_os_cmd *b = send_cmd(*ch_, tur_cmd(2));
	lio_respond(b);
	ASSERT_EQ(2, sq());
	/* 12 KiB of read data and the response need all four slots. */
	srpt_os_cmd *big = send_cmd(*ch_, read_cmd(3, 12288));
	ASSERT_NE(nullptr, big);
	int completions = 0;
	fake::config().on_rdma_map = [&](srpt_os_cmd *c) {
		if (c != big || completions)
			return;
		completions = 2;
		EXPECT_TRUE(fake::complete_send(a, true));
		EXPECT_TRUE(fake::complete_send(b, true));
	};
	lio_respond(big, 0, true);
	fake::config().on_rdma_map = nullptr;
	ASSERT_EQ(2, completions) << "the hook did not run while the read was mapped";
	EXPECT_EQ(0u, core(*ch_)->io().sendq().waiting());
	ASSERT_EQ(1u, big->responses.size()) << "left waiting with nothing in flight";
	EXPECT_EQ(1, big->responses_with_data[0]);
	EXPECT_EQ(0, sq());

	srpt_core_release_cmd(a->core);
	srpt_core_release_cmd(b->core);
	lio_finish(big);
	EXPECT_EQ(4, sq());
	EXPECT_EQ(0, credits().owed());
}

TEST_F(Datapath, RegistrationsShortForNowWaitForACompletion)
{
	live();
	/* Memory registrations run out while another command's transfer is in flight. */
	srpt_os_cmd *a = send_cmd(*ch_, read_cmd(1));
	lio_respond(a, 0, true);
	fake::fail_call("srpt_os_cmd_rdma_map", 1, -EAGAIN);
	srpt_os_cmd *b = send_cmd(*ch_, read_cmd(2));
	lio_respond(b, 0, true);
	EXPECT_TRUE(b->responses.empty()) << "it waits, it is no error";
	EXPECT_EQ(0, fake::log_count("failed")) << fake::log_text();
	lio_finish(a);
	ASSERT_EQ(1u, b->responses.size());
	EXPECT_EQ(0x00, last_rsp(b).status);
	EXPECT_EQ(1, b->responses_with_data[0]);
	lio_finish(b);

	/* Nothing in flight that would give any back: TASK SET FULL, without the data. */
	fake::fail_call("srpt_os_cmd_rdma_map", 1, -EAGAIN);
	srpt_os_cmd *c = send_cmd(*ch_, read_cmd(3));
	const std::size_t sent = c->responses.size();
	lio_respond(c, 0, true);
	ASSERT_EQ(sent + 1, c->responses.size());
	EXPECT_EQ(0x28, last_rsp(c).status);
	EXPECT_EQ(0, c->responses_with_data.back());
	EXPECT_TRUE(c->xfers.empty());
	EXPECT_EQ(1u, core(*ch_)->io().stats().get(srpt::Stat::kErrNoMemory));
	EXPECT_EQ(1, fake::log_count("command 0x3: mapping 4096 bytes for RDMA failed (-EAGAIN)"))
		<< fake::log_text();
	lio_finish(c);

	/* Write data, at once: LIO retries later (-ENOMEM); the retry goes. */
	srpt_os_cmd *w = send_cmd(*ch_, write_cmd(4));
	fake::fail_call("srpt_os_cmd_rdma_map", 1, -ENOMEM);
	EXPECT_EQ(-ENOMEM, srpt_core_write_pending(w->core));
	EXPECT_TRUE(w->xfers.empty());
	EXPECT_EQ(0, srpt_core_write_pending(w->core));
	ASSERT_TRUE(fake::complete_rdma(w, true));
	EXPECT_EQ(1, w->execute_calls);
	lio_respond(w);
	lio_finish(w);
	EXPECT_EQ(0, credits().owed());
}

TEST_F(Datapath, WriteDataShortOfRegistrationsWhileWaitingIsTaskSetFull)
{
	setup_target();
	ASSERT_EQ(2, srpt_core_tpg_attrib_store(tpg_, SRPT_ATTRIB_SQ_SIZE, "8\n", 2));
	ch_ = &live_channel(login_req());
	std::vector<srpt_os_cmd *> busy;
	for (std::uint64_t t = 1; t <= 4; t++) {
		busy.push_back(send_cmd(*ch_, tur_cmd(t)));
		lio_respond(busy.back());
	}
	srpt_os_cmd *w = send_cmd(*ch_, write_cmd(5));
	EXPECT_EQ(0, srpt_core_write_pending(w->core)) << "queued: LIO need not retry";
	fake::fail_call("srpt_os_cmd_rdma_map", 1, -EAGAIN, 100);
	for (srpt_os_cmd *c : busy) {
		EXPECT_EQ(0, w->abort_calls) << "completions still to come";
		lio_finish(c);
	}
	/* The last completion left nothing in flight: LIO answers TASK SET FULL. */
	EXPECT_EQ(1, w->abort_calls);
	EXPECT_EQ(1, w->abort_transient);
	EXPECT_EQ(0, w->execute_calls);
	fake::fail_call("srpt_os_cmd_rdma_map", 0, 0);
	lio_respond(w, 0x28);
	EXPECT_EQ(0x28, last_rsp(w).status);
	lio_finish(w);
	EXPECT_EQ(4, sq());
}

TEST_F(Datapath, AClosingChannelEndsWhatWaitsForTheSendQueue)
{
	setup_target();
	ASSERT_EQ(2, srpt_core_tpg_attrib_store(tpg_, SRPT_ATTRIB_SQ_SIZE, "8\n", 2));
	ch_ = &live_channel(login_req());
	std::vector<srpt_os_cmd *> busy;
	for (std::uint64_t t = 1; t <= 4; t++) {
		busy.push_back(send_cmd(*ch_, tur_cmd(t)));
		lio_respond(busy.back());
	}
	srpt_os_cmd *s = send_cmd(*ch_, tur_cmd(5));
	lio_respond(s);
	srpt_os_cmd *w = send_cmd(*ch_, write_cmd(6));
	EXPECT_EQ(0, srpt_core_write_pending(w->core));
	EXPECT_EQ(2u, core(*ch_)->io().sendq().waiting());

	/* The initiator leaves: the QP goes to the error state, nothing more is sent. */
	fake::cm_event(*ch_, fake::Cm::kDisconnectRequest);
	EXPECT_EQ(0, s->put_calls);
	/* The next (flushed) completion ends those waiting. */
	ASSERT_TRUE(fake::complete_send(busy[0], false));
	EXPECT_EQ(0u, core(*ch_)->io().sendq().waiting());
	EXPECT_TRUE(s->responses.empty());
	EXPECT_EQ(1, s->put_calls) << "its response will never be sent";
	EXPECT_EQ(1, w->abort_calls) << "its write data will never come";
	EXPECT_EQ(0, w->abort_transient);
	/* LIO answers the aborted write: that cannot go either. */
	lio_respond(w, 0x02);
	EXPECT_TRUE(w->responses.empty());
	EXPECT_EQ(1, w->put_calls);
	srpt_core_release_cmd(busy[0]->core);
	srpt_core_release_cmd(s->core);
	srpt_core_release_cmd(w->core);
	fake::run_work();
	EXPECT_TRUE(ch_->freed());
	EXPECT_EQ(0, fake::log_count("sending failed")) << "a closing channel logs no send errors";
}

TEST_F(Datapath, RdmaReadPostFailure)
{
	live();
	const int slots = sq();
	srpt_os_cmd *w = send_cmd(*ch_, write_cmd(5));
	fake::fail_call("srpt_os_cmd_post", 1, -EIO);
	EXPECT_EQ(-EIO, srpt_core_write_pending(w->core));
	EXPECT_EQ(slots, sq());
	EXPECT_EQ(0, w->rdma_pending);
	lio_respond(w, 0x02);
	ASSERT_EQ(1u, w->responses.size());
	lio_finish(w);
	EXPECT_EQ(slots, sq());
}

TEST_F(Datapath, RdmaReadFailureAbortsTheCommand)
{
	live();
	const int slots = sq();
	srpt_os_cmd *w = send_cmd(*ch_, write_cmd(5));
	ASSERT_EQ(0, srpt_core_write_pending(w->core));
	fake::config().fail_status = SRPT_WC_RETRY_EXC_ERR;
	ASSERT_TRUE(fake::complete_rdma(w, false));
	EXPECT_EQ(1, w->abort_calls);
	EXPECT_EQ(0, w->execute_calls);
	EXPECT_EQ(slots, sq());
	EXPECT_EQ(1, fake::log_count("command 0x5: RDMA READ failed: transport retry counter exceeded"))
		<< fake::log_text();
	/* LIO answers the aborted command. */
	lio_respond(w, 0x02);
	ASSERT_EQ(1u, w->responses.size());
	lio_finish(w);
}

TEST_F(Datapath, AFailedSendCompletionStillFreesTheCommand)
{
	live();
	const int slots = sq();
	srpt_os_cmd *c = send_cmd(*ch_, read_cmd(4));
	lio_respond(c, 0, true);
	lio_finish(c, false);
	EXPECT_EQ(slots, sq());
	/* Flushed: the QP broke, and what broke it said so already. */
	EXPECT_EQ(0, fake::log_count("sending the response failed")) << fake::log_text();
	EXPECT_EQ(1u, core(*ch_)->io().stats().get(srpt::Stat::kErrSend));

	fake::config().fail_status = SRPT_WC_RETRY_EXC_ERR;
	srpt_os_cmd *d = send_cmd(*ch_, read_cmd(5));
	lio_respond(d, 0, true);
	lio_finish(d, false);
	EXPECT_EQ(slots, sq());
	EXPECT_EQ(1, fake::log_count("command 0x5: sending the response failed: transport retry counter exceeded"))
		<< fake::log_text();
	EXPECT_EQ(2u, core(*ch_)->io().stats().get(srpt::Stat::kErrSend));
}

TEST_F(Datapath, ResponsesInUnexpectedStates)
{
	live();
	const int slots = sq();
	srpt_os_cmd *c = send_cmd(*ch_, tur_cmd(0x91));
	lio_respond(c);
	lio_respond(c);	/* twice */
	EXPECT_EQ(1u, c->responses.size());
	EXPECT_EQ(1, fake::log_count("command 0x91: response in state response sent")) << fake::log_text();
	srpt_core_queue_tm_response(c->core, SRPT_TMR_COMPLETE);
	EXPECT_EQ(1u, c->responses.size());
	EXPECT_EQ(1, fake::log_count("task management 0x91: response in state response sent"));
	EXPECT_EQ(slots - 1, sq());
	lio_finish(c);
	EXPECT_EQ(slots, sq());
	lio_respond(c);	/* after it is done */
	EXPECT_EQ(1u, c->responses.size());
	EXPECT_EQ(1, fake::log_count("command 0x91: response in state done"));
	EXPECT_EQ(0u, in_flight(*ch_)) << "the late response took nothing back out";

	/* An RDMA READ completion for a command that is not waiting for data. */
	srpt_os_cmd *d = send_cmd(*ch_, tur_cmd(0x92));
	const int execs = d->execute_calls, dones = d->done_calls;
	const std::size_t rsps = d->responses.size();
	srpt_core_rdma_done(d->core, SRPT_WC_SUCCESS);
	EXPECT_EQ(execs, d->execute_calls);
	EXPECT_EQ(1, fake::log_count("command 0x92: RDMA completion in state new"));
	/* A send completion without a response. */
	srpt_core_send_done(d->core, SRPT_WC_SUCCESS, fake::now_ns());
	EXPECT_EQ(dones, d->done_calls);
	EXPECT_EQ(1, fake::log_count("command 0x92: send completion in state new"));
	EXPECT_EQ(slots, sq());
	/* Neither changed the command: it is still answered and released as usual. */
	EXPECT_EQ(static_cast<int>(CmdState::kNew), cmd_state(d));
	EXPECT_EQ(1u, in_flight(*ch_));
	lio_respond(d);
	ASSERT_EQ(rsps + 1, d->responses.size());
	EXPECT_EQ(0x92u, last_rsp(d).tag);
	EXPECT_EQ(slots - 1, sq());
	lio_finish(d);
	EXPECT_EQ(dones + 1, d->done_calls);
	EXPECT_EQ(slots, sq());
	EXPECT_EQ(0u, in_flight(*ch_));

	/* A response while the write data comes in leaves the command waiting for it. */
	srpt_os_cmd *w = send_cmd(*ch_, write_cmd(0x93));
	ASSERT_NE(nullptr, w);
	const std::size_t w_rsps = w->responses.size();
	const int w_execs = w->execute_calls;
	ASSERT_EQ(0, srpt_core_write_pending(w->core));
	lio_respond(w);
	EXPECT_EQ(1, fake::log_count("command 0x93: response in state need data"))
		<< fake::log_text();
	EXPECT_EQ(static_cast<int>(CmdState::kNeedData), cmd_state(w));
	ASSERT_TRUE(fake::complete_rdma(w, true));
	EXPECT_EQ(w_rsps, w->responses.size()) << "a response LIO never asked for";
	EXPECT_EQ(w_execs + 1, w->execute_calls) << "the data is in: LIO executes";
	lio_respond(w);
	lio_finish(w);
	EXPECT_EQ(w_rsps + 1, w->responses.size());
	EXPECT_EQ(0x93u, last_rsp(w).tag);
	EXPECT_EQ(0u, in_flight(*ch_));
}

TEST_F(Datapath, UnknownIusAreDroppedAndTheirBuffersReposted)
{
	live();
	const struct {
		std::uint8_t op;
		int level;
		const char *log;
	} cases[] = {
		{0x41, SRPT_LOG_DEBUG, "ignoring unsolicited response IU 0x41"},
		{0x42, SRPT_LOG_DEBUG, "ignoring unsolicited response IU 0x42"},
		{0x00, SRPT_LOG_ERR, "ignoring IU with opcode 0"},
		{0x80, SRPT_LOG_ERR, "ignoring IU with opcode 0x80"},
		{0xc1, SRPT_LOG_ERR, "ignoring IU with opcode 0xc1"},
		{0xff, SRPT_LOG_ERR, "ignoring IU with opcode 0xff"},
	};
	for (const auto &c : cases) {
		Bytes b(64, 0);
		b[0] = c.op;
		EXPECT_EQ(nullptr, send_cmd(*ch_, b)) << int{c.op};
		EXPECT_EQ(128u, posted(*ch_));
		EXPECT_EQ(1, fake::log_count(c.log, c.level)) << fake::log_text();
	}
	/* An empty receive. */
	ASSERT_NE(nullptr, fake::receive(*ch_, "", 0));
	EXPECT_EQ(128u, posted(*ch_));
	EXPECT_EQ(0, credits().owed());
	EXPECT_EQ(0, fake::calls("srpt_os_cmd_init"));
	EXPECT_EQ(0u, fake::pending_work());
}

/* ---- waiting for a send context ---- */

TEST_F(Datapath, LatencyRunsFromTheIusArrivalToItsResponsesCompletion)
{
	/* The clock the completions bring, from the IU's receipt, waiting included. */
	const auto latency_of = [](srpt_os_channel &ch) {
		std::vector<std::uint64_t> v;

		for (int i = 0; i < srpt::kLatencyBuckets; i++)
			v.push_back(core(ch)->io().stats().bucket(i));
		return v;
	};
	live(kSmallQpWr);
	fake::advance_ns(1'000'000'000);
	srpt_os_cmd *a = send_cmd(*ch_, read_cmd(1));
	ASSERT_NE(nullptr, a);
	lio_respond(a, 0, true);
	fake::advance_ns(50'000);
	lio_finish(a);
	EXPECT_EQ((std::vector<std::uint64_t>{1, 0, 0, 0, 0, 0}), latency_of(*ch_));

	/* Every context taken: the next IU waits for one, 8 ms, then 3 ms more in LIO. */
	std::vector<srpt_os_cmd *> held;
	for (std::uint64_t t = 10; t < 10 + kSmallDepth - 1; t++)
		held.push_back(send_cmd(*ch_, read_cmd(t)));
	srpt_os_cmd *b = send_cmd(*ch_, read_cmd(2));
	ASSERT_NE(nullptr, b);
	lio_respond(b, 0, true);
	fake::take_trace();
	srpt_os_recv *r = send_iu(*ch_, read_cmd(3));
	ASSERT_NE(nullptr, r);
	EXPECT_TRUE(trace_of({"cmd_init"}).empty()) << "it waits";
	fake::advance_ns(8'000'000);
	ASSERT_TRUE(fake::complete_send(b, true));
	srpt_core_release_cmd(b->core);
	ASSERT_TRUE(fake::complete_zero_write(*ch_, true));
	ASSERT_EQ(std::vector<std::string>{"cmd_init tag 0x3"}, trace_of({"cmd_init"}));
	EXPECT_EQ((std::vector<std::uint64_t>{1, 0, 1, 0, 0, 0}), latency_of(*ch_)) << "b: 8 ms";
	fake::advance_ns(3'000'000);
	srpt_os_cmd *c = nullptr;
	for (srpt_os_cmd *o : fake::cmds_of(*ch_))
		if (o->info.tag == 3)
			c = o;
	ASSERT_NE(nullptr, c);
	lio_respond(c, 0, true);
	lio_finish(c);
	EXPECT_EQ((std::vector<std::uint64_t>{1, 0, 1, 1, 0, 0}), latency_of(*ch_))
		<< "c: 11 ms from its arrival, not 3 from when it got a context";
	fake::advance_ns(100'000'000);
	for (srpt_os_cmd *h : held) {
		lio_respond(h, 0, true);
		lio_finish(h);
	}
	EXPECT_EQ((std::vector<std::uint64_t>{1, 0, 1, 1, kSmallDepth - 1, 0}), latency_of(*ch_))
		<< "111 ms";

	/* A task management function is not timed. */
	iu::TskMgmt t;
	t.tag = 4;
	t.function = 0x08;
	srpt_os_cmd *m = send_cmd(*ch_, iu::tsk_mgmt(t));
	ASSERT_NE(nullptr, m);
	srpt_core_queue_tm_response(m->core, SRPT_TMR_COMPLETE);
	fake::advance_ns(200'000);
	lio_finish(m);
	EXPECT_EQ((std::vector<std::uint64_t>{1, 0, 1, 1, kSmallDepth - 1, 0}), latency_of(*ch_));
	EXPECT_EQ(0u, in_flight(*ch_));
}

TEST_F(Datapath, ASmallDevicesSendQueueHoldsTheCommandsTheZeroWritesAndTheDrain)
{
	/*
	 * rdma_rw_init_qp() clamps the send queue to max_qp_wr: the commands'
	 * share and the core's own WRs (zero-length writes, the drain's)
	 * must fit into max_qp_wr alone, or a full send queue leaves the
	 * close or the drain no slot on a real HCA.
	 */
	live(kSmallQpWr);
	EXPECT_EQ(kSmallQpWr, ch_->qpm.sq_slots);
	EXPECT_EQ(kSmallQpWr - 4, ch_->qp.max_rdma_ctxs);
	std::vector<srpt_os_cmd *> reads;
	for (std::uint64_t t = 1; t <= kSmallDepth; t++)
		reads.push_back(send_cmd(*ch_, read_cmd(t)));
	for (srpt_os_cmd *c : reads)
		lio_respond(c, 0, true);
	EXPECT_EQ(static_cast<int>(ch_->qp.max_rdma_ctxs), fake::send_queue_used(*ch_))
		<< "the commands fill their share; the rest wait";
	logout(*ch_);
	const auto v = fake::take_violations();
	EXPECT_TRUE(v.empty()) << (v.empty() ? "" : v[0]);
}

TEST_F(Datapath, AnIuWaitsForASendContext)
{
	live(kSmallQpWr);
	std::vector<srpt_os_cmd *> held;
	for (std::uint64_t t = 1; t <= kSmallDepth; t++)
		held.push_back(send_cmd(*ch_, read_cmd(t)));
	ASSERT_EQ(0u, posted(*ch_)) << "each command holds its buffer until answered";

	/* The first response gives a credit and its buffer back, not its context. */
	lio_respond(held[0], 0, true);
	ASSERT_EQ(1u, posted(*ch_));
	fake::take_trace();
	srpt_os_recv *r = send_iu(*ch_, read_cmd(0x50));
	EXPECT_EQ(0u, posted(*ch_)) << "the waiting IU keeps its buffer";
	EXPECT_TRUE(trace_of({"cmd_init"}).empty());

	/* A response's completion frees nothing until LIO releases. */
	ASSERT_TRUE(fake::complete_send(held[0], true));
	EXPECT_TRUE(trace_of({"cmd_init"}).empty());
	/* LIO releases outside completion context: a zero-length write kicks. */
	const int zw = ch_->zero_write_calls;
	srpt_core_release_cmd(held[0]->core);
	EXPECT_EQ(zw + 1, ch_->zero_write_calls);
	EXPECT_TRUE(trace_of({"cmd_init"}).empty()) << "not outside completion context";
	ASSERT_TRUE(fake::complete_zero_write(*ch_, true));
	EXPECT_EQ(std::vector<std::string>{"cmd_init tag 0x50"}, trace_of({"cmd_init"}));
	EXPECT_EQ(0u, posted(*ch_)) << "the command holds the buffer it came in";
	EXPECT_EQ(ch_, r->received_on);

	for (srpt_os_cmd *c : fake::cmds_of(*ch_)) {
		lio_respond(c, 0, true);
		lio_finish(c);
	}
	EXPECT_EQ(zw + 1, ch_->zero_write_calls) << "no kick when nothing waits";
}

TEST_F(Datapath, ContextsGivenBackFromAnyContextAreTakenByTheNextIus)
{
	live(kSmallQpWr);
	std::vector<srpt_os_cmd *> held;
	for (std::uint64_t t = 1; t <= kSmallDepth; t++)
		held.push_back(send_cmd(*ch_, read_cmd(t)));
	EXPECT_EQ(kSmallDepth, in_flight(*ch_));

	/*
	 * LIO gives two contexts back (onto the lock-free stack, as from
	 * another CPU); the completion side's own list is empty, so the
	 * next IU takes the whole stack, and the one after it the rest.
	 */
	for (int i = 0; i < 2; i++) {
		lio_respond(held[i], 0, true);
		ASSERT_TRUE(fake::complete_send(held[i], true));
		srpt_core_release_cmd(held[i]->core);
	}
	EXPECT_EQ(kSmallDepth - 2, in_flight(*ch_));
	fake::take_trace();
	const int zw = ch_->zero_write_calls;
	EXPECT_EQ(held[1], send_cmd(*ch_, read_cmd(0x50))) << "the last given back, first";
	EXPECT_EQ(held[0], send_cmd(*ch_, read_cmd(0x60)));
	EXPECT_EQ(zw, ch_->zero_write_calls) << "no kick: nothing waited";
	EXPECT_EQ(kSmallDepth, in_flight(*ch_));

	/*
	 * None left: the next IU (on the credit of the next response) waits,
	 * and the next context given back wakes it.
	 */
	lio_respond(held[2], 0, true);
	srpt_os_recv *r = send_iu(*ch_, read_cmd(0x70));
	EXPECT_EQ((std::vector<std::string>{"cmd_init tag 0x50", "cmd_init tag 0x60"}),
		  trace_of({"cmd_init"}));
	ASSERT_TRUE(fake::complete_send(held[2], true));
	srpt_core_release_cmd(held[2]->core);
	EXPECT_EQ(zw + 1, ch_->zero_write_calls) << "the waiting IU is kicked";
	ASSERT_TRUE(fake::complete_zero_write(*ch_, true));
	EXPECT_EQ((std::vector<std::string>{"cmd_init tag 0x50", "cmd_init tag 0x60",
					    "cmd_init tag 0x70"}),
		  trace_of({"cmd_init"}));
	EXPECT_EQ(ch_, r->received_on) << "the command holds the buffer it came in";
	for (srpt_os_cmd *c : fake::cmds_of(*ch_)) {
		if (c == held[0] || c == held[1] || c == held[2])
			continue;
		lio_respond(c, 0, true);
		lio_finish(c);
	}
	for (srpt_os_cmd *c : {held[0], held[1], held[2]}) {
		lio_respond(c, 0, true);
		lio_finish(c);
	}
	EXPECT_EQ(0u, in_flight(*ch_));
}

TEST_F(Datapath, ACommandCountedInPartIsInTheSampledDepth)
{
	live(kSmallQpWr);
	srpt_os_cmd *c = send_cmd(*ch_, read_cmd(1));
	lio_respond(c, 0, true);

	/* Counted as a read when it arrived; its bytes when the response went. */
	srpt::Counters sample;
	EXPECT_EQ(1u, core(*ch_)->io().fold_stats(sample));
	EXPECT_EQ(1u, sample.get(srpt::Stat::kReads));
	EXPECT_EQ(0u, sample.get(srpt::Stat::kBytesRead));

	ASSERT_TRUE(fake::complete_send(c, true));
	srpt_core_release_cmd(c->core);
	srpt::Counters after;
	EXPECT_EQ(0u, core(*ch_)->io().fold_stats(after));
	EXPECT_EQ(1u, after.get(srpt::Stat::kReads));
	EXPECT_EQ(4096u, after.get(srpt::Stat::kBytesRead));
}

TEST_F(Stats, LatencyGoesToTheBucketOfItsDecade)
{
	const struct {
		std::uint64_t ns;
		int bucket;
	} cases[] = {
		{0, 0}, {99'999, 0}, {100'000, 1}, {999'999, 1}, {1'000'000, 2},
		{9'999'999, 2}, {10'000'000, 3}, {99'999'999, 3}, {100'000'000, 4},
		{999'999'999, 4}, {1'000'000'000, 5}, {~std::uint64_t{0}, 5},
	};
	for (const auto &c : cases) {
		srpt::Counters s;

		s.latency(c.ns);
		for (int i = 0; i < srpt::kLatencyBuckets; i++)
			EXPECT_EQ(i == c.bucket ? 1u : 0u, s.bucket(i)) << c.ns << " ns, bucket " << i;
	}
}

namespace {

/* Busy for about @n loop turns: shifts one side of a race against the other. */
void spin_for(unsigned n)
{
	for (unsigned i = 0; i < n; i++)
		asm volatile("" ::: "memory");
}

/* Waits for @a to reach @v: spins a while first, the two sides start together. */
void wait_until(const std::atomic<std::uint64_t> &a, std::uint64_t v, const std::atomic<bool> &stop)
{
	for (unsigned i = 0; a.load() < v && !stop.load(); i++) {
		if (i > 100000)
			std::this_thread::yield();
	}
}

} // namespace

/*
 * handle_iu() and put_cmd() on two CPUs: an IU that finds no send context
 * while the last one is given back. Either the IU takes it, or put_cmd()
 * sees the IU starved and kicks a zero-length write that hands it over;
 * never an IU left waiting beside a free context, which would hang the
 * initiator. Each round starts both sides together and delays the
 * give-back a little more than the last round, so that it sweeps across
 * the IU's whole path. The test holds that both orders happen and that
 * neither leaves the IU waiting; the narrowest interleaving (the give-back
 * between the IU's two looks) is a few instructions wide and was not
 * seen in 96000 rounds, so it is not asserted.
 */
TEST_F(Datapath, AnIuRacingTheLastContextGivenBackIsNeverLeftWaiting)
{
	live(kSmallQpWr);
	std::vector<srpt_os_cmd *> held;
	for (std::uint64_t t = 1; t <= kSmallDepth; t++)
		held.push_back(send_cmd(*ch_, read_cmd(t)));
	srpt_os_cmd *c = held.back();
	held.pop_back();
	/*
	 * LIO's side is delayed by 0 to 16000 loop turns, in steps of 2 (four
	 * sweeps): from giving back long before the IU looks to long after
	 * the IU waits. Jitter between the two CPUs spreads each sweep's
	 * crossing over many nearby points.
	 */
	constexpr std::uint64_t kRounds = 32000;
	const auto delay = [](std::uint64_t r) { return static_cast<unsigned>(r % 8000) * 2; };
	std::uint64_t kicked = 0;
	/* Round r starts when the step reaches 2r + 1; LIO's side is done at 2r + 2. */
	std::atomic<std::uint64_t> step{0};
	/*
	 * LIO's side is running round r: the IU waits for it, so that both
	 * sides start together even on a loaded machine, where LIO's thread
	 * would otherwise wake late every round and give back only after
	 * the IU waits.
	 */
	std::atomic<std::uint64_t> running{0};
	std::atomic<bool> stop{false};
	std::thread lio([&] {
		for (std::uint64_t r = 0; r < kRounds; r++) {
			wait_until(step, 2 * r + 1, stop);
			if (stop.load())
				return;
			running.store(r + 1);
			spin_for(delay(r));
			srpt_core_release_cmd(c->core);
			step.fetch_add(1);
		}
	});

	/* No ASSERT in the loop: returning would leave LIO's thread joinable. */
	const auto failed = [&](std::uint64_t r, const char *what) {
		ADD_FAILURE() << "round " << r << ": " << what;
		stop.store(true);
	};
	for (std::uint64_t r = 0; r < kRounds; r++) {
		const std::uint64_t tag = kSmallDepth + 1 + r;

		lio_respond(c, 0, true);
		if (!fake::complete_send(c, true)) {
			failed(r, "no response to complete");
			break;
		}
		const int zw = ch_->zero_write_calls;
		step.fetch_add(1);
		wait_until(running, r + 1, stop);
		send_iu(*ch_, read_cmd(tag));
		wait_until(step, 2 * r + 2, stop);
		if (ch_->zero_write_calls != zw) {
			kicked++;
			if (!fake::complete_zero_write(*ch_, true)) {
				failed(r, "no zero-length write to complete");
				break;
			}
		}
		if (in_flight(*ch_) != kSmallDepth || c->info.tag != tag) {
			failed(r, "the IU waits beside a free send context");
			break;
		}
		fake::take_trace();
	}
	lio.join();
	/* Both orders happened, or the race was not tested. */
	EXPECT_GT(kicked, 0u);
	EXPECT_LT(kicked, kRounds);
	held.push_back(c);
	for (srpt_os_cmd *h : held) {
		lio_respond(h, 0, true);
		lio_finish(h);
	}
	EXPECT_EQ(0u, in_flight(*ch_));
}

TEST_F(Datapath, AWaitingIuIsHandledOnTheNextSendCompletion)
{
	live(kSmallQpWr);
	std::vector<srpt_os_cmd *> held;
	for (std::uint64_t t = 1; t < kSmallDepth; t++)
		held.push_back(send_cmd(*ch_, read_cmd(t)));
	/* The last context answers locally: freed by its send completion. */
	iu::Cmd bad;
	bad.tag = 0x40;
	bad.buf_fmt = 0x11;
	srpt_os_cmd *local = send_cmd(*ch_, iu::cmd(bad));
	ASSERT_NE(nullptr, local);
	fake::take_trace();
	send_iu(*ch_, read_cmd(0x50));
	EXPECT_TRUE(trace_of({"cmd_init"}).empty());
	ASSERT_TRUE(fake::complete_send(local, true));
	EXPECT_EQ(std::vector<std::string>{"cmd_init tag 0x50"}, trace_of({"cmd_init"}));
	/* A kick may have been posted meanwhile; its completion finds nothing. */
	while (ch_->zero_writes_pending)
		ASSERT_TRUE(fake::complete_zero_write(*ch_, true));
	EXPECT_EQ(1u, trace_of({"cmd_init"}).size());
}

TEST_F(Datapath, WaitingIusKeepTheirOrder)
{
	/*
	 * The initiator may send a new IU as soon as a response gave its
	 * credit back, before the send context is released. An IU that
	 * arrives while others wait must not overtake them (an ABORT TASK
	 * would overtake the command it aborts).
	 */
	live(kSmallQpWr);
	std::vector<srpt_os_cmd *> held;
	for (std::uint64_t t = 1; t <= kSmallDepth; t++)
		held.push_back(send_cmd(*ch_, read_cmd(t)));
	fake::take_trace();
	lio_respond(held[0], 0, true);			/* a credit and its buffer back */
	send_iu(*ch_, read_cmd(0xa));			/* waits */
	lio_respond(held[1], 0, true);
	ASSERT_TRUE(fake::complete_send(held[0], true));
	srpt_core_release_cmd(held[0]->core);		/* kick posted */
	iu::TskMgmt abort;
	abort.tag = 0xb;
	abort.task_tag = 0xa;
	send_iu(*ch_, iu::tsk_mgmt(abort));		/* before the kick completes */
	std::vector<std::string> order = trace_of({"cmd_init", "cmd_submit_tmr"});
	ASSERT_FALSE(order.empty());
	EXPECT_EQ("cmd_init tag 0xa", order[0]) << "the ABORT TASK overtook the command it aborts";
	while (ch_->zero_writes_pending)
		ASSERT_TRUE(fake::complete_zero_write(*ch_, true));
	EXPECT_EQ(1u, trace_of({"cmd_init", "cmd_submit_tmr"}).size())
		<< "the ABORT TASK still waits for a context";
	EXPECT_EQ(0u, posted(*ch_)) << "the commands and the waiting IU hold every buffer";
}

/* ---- task management ---- */

TEST_F(Datapath, TaskManagementFunctions)
{
	live();
	const struct {
		std::uint8_t fn;
		srpt_tmf want;
	} fns[] = {
		{0x01, SRPT_TMF_ABORT_TASK}, {0x02, SRPT_TMF_ABORT_TASK_SET},
		{0x04, SRPT_TMF_CLEAR_TASK_SET}, {0x08, SRPT_TMF_LUN_RESET},
		{0x40, SRPT_TMF_CLEAR_ACA}, {0x10, SRPT_TMF_UNSUPPORTED}, {0x00, SRPT_TMF_UNSUPPORTED},
	};
	const struct {
		srpt_tmr_response r;
		std::uint8_t code;
	} answers[] = {
		{SRPT_TMR_COMPLETE, 0x00}, {SRPT_TMR_TASK_DOES_NOT_EXIST, 0x00},
		{SRPT_TMR_NOT_SUPPORTED, 0x04}, {SRPT_TMR_REJECTED, 0x04},
		{SRPT_TMR_LUN_DOES_NOT_EXIST, 0x05}, {SRPT_TMR_FAILED, 0x05},
	};
	const int slots = sq();
	std::uint64_t tag = 0x100;
	for (const auto &f : fns) {
		for (const auto &a : answers) {
			SCOPED_TRACE(std::to_string(f.fn) + "/" + std::to_string(a.r));
			iu::TskMgmt t;
			t.tag = ++tag;
			t.sol_not = 0x06;
			t.lun = {0x00, 0x07, 0, 0, 0, 0, 0, 0};
			t.function = f.fn;
			t.task_tag = 0xabc;
			srpt_os_cmd *c = send_cmd(*ch_, iu::tsk_mgmt(t));
			ASSERT_NE(nullptr, c);
			EXPECT_EQ(1, c->submit_tmr_calls);
			EXPECT_EQ(f.want, c->tmr_fn);
			EXPECT_EQ(7u, c->tmr_lun);
			EXPECT_EQ(0xabcu, c->tmr_task_tag);
			EXPECT_EQ(tag, c->tmr_tag);
			EXPECT_EQ(static_cast<int>(CmdState::kMgmt), cmd_state(c));
			EXPECT_EQ(127u, posted(*ch_)) << "held until LIO answers";
			srpt_core_queue_tm_response(c->core, a.r);
			ASSERT_EQ(1u, c->responses.size());
			EXPECT_EQ(128u, posted(*ch_));
			Bytes want(40, 0);
			want[0] = 0xc1;
			want[1] = 0x01;	/* both SOLNT bits asked */
			want[7] = 0x01;
			iu::be64(want, 8, tag);
			want[18] = 0x01;
			want[35] = 0x04;
			want[39] = a.code;
			EXPECT_EQ(iu::hex(want), iu::hex(c->responses[0]));
			EXPECT_EQ(static_cast<int>(CmdState::kMgmtRspSent), cmd_state(c));
			srpt_core_queue_tm_response(c->core, a.r);	/* twice: ignored */
			EXPECT_EQ(1u, c->responses.size());
			lio_finish(c);
			c->submit_tmr_calls = 0;
			c->responses.clear();
		}
	}
	EXPECT_EQ(slots, sq());
	EXPECT_EQ(12, fake::log_count("task management function 0x10 is not supported") +
			      fake::log_count("task management function 0 is not supported"));
}

TEST_F(Datapath, ARefusedTaskManagementFunctionIsAnsweredLocally)
{
	live();
	fake::fail_call("srpt_os_cmd_submit_tmr", 1, -ENOMEM);
	iu::TskMgmt t;
	t.tag = 0x33;
	t.sol_not = 0x04;
	srpt_os_cmd *c = send_cmd(*ch_, iu::tsk_mgmt(t));
	ASSERT_NE(nullptr, c);
	ASSERT_EQ(1u, c->responses.size());
	const iu::Rsp rsp = last_rsp(c);
	EXPECT_EQ(0x01, rsp.sol_not);
	EXPECT_EQ(0x01, rsp.flags);
	EXPECT_EQ(4u, rsp.resp_len);
	EXPECT_EQ((Bytes{0, 0, 0, 0x05}), rsp.resp_data) << "FUNCTION FAILED";
	EXPECT_EQ(1, fake::log_count("task management function 0x1 for 0x33 failed (-ENOMEM)")) << fake::log_text();
	ASSERT_TRUE(fake::complete_send(c, true));
	EXPECT_EQ(0, c->done_calls) << "LIO has no command to free";
	/* The context is reusable. */
	EXPECT_NE(nullptr, send_cmd(*ch_, iu::tsk_mgmt(t)));
}

TEST_F(Datapath, AShortTaskManagementIuIsDroppedAndOwesACredit)
{
	live();
	Bytes b = iu::tsk_mgmt({});
	b.resize(40);
	EXPECT_EQ(nullptr, send_cmd(*ch_, b));
	EXPECT_EQ(128u, posted(*ch_));
	EXPECT_EQ(1, credits().owed());
	EXPECT_EQ(1, fake::log_count("ignoring a 40-byte SRP_TSK_MGMT")) << fake::log_text();
	srpt_os_cmd *c = send_cmd(*ch_, tur_cmd(1));
	lio_respond(c);
	EXPECT_EQ(2u, last_rsp(c).req_lim_delta);
	lio_finish(c);
}
