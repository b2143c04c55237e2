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

#include <srpt/ioctx.h>

#include <cerrno>

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
	srpt::Credits &credits() { return core(*ch_)->credits(); }
	int sq() { return credits().sq_slots(); }
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
	EXPECT_EQ(128u, posted(*ch_)) << "the buffer went back at once";
	EXPECT_EQ(0x42u, cmd->info.tag);
	EXPECT_EQ(5u, cmd->info.lun);
	EXPECT_EQ(0u, cmd->info.data_len);
	EXPECT_EQ(SRPT_DATA_NONE, cmd->info.dir);
	EXPECT_EQ(SRPT_TASK_ORDERED, cmd->info.task_attr);
	EXPECT_TRUE(cmd->submitted);
	EXPECT_EQ(Bytes(16, 0), cmd->cdb) << "TEST UNIT READY from bytes 32-47";
	EXPECT_EQ(0u, cmd->rdma_count);
	EXPECT_EQ(static_cast<int>(CmdState::kNew), cmd_state(cmd));

	lio_respond(cmd);
	ASSERT_EQ(1u, cmd->responses.size());
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
	EXPECT_EQ(1u, c->rdma_count);
	EXPECT_EQ(SRPT_DATA_IN, c->rdma_dir);
	ASSERT_EQ(1u, c->rdma.size());
	EXPECT_EQ(0x7f0000001007ull, c->rdma[0].va);
	EXPECT_EQ(0x1234u, c->rdma[0].rkey);
	EXPECT_EQ(4096u, c->rdma[0].len);
	EXPECT_EQ((Bytes{0x28, 0, 0, 0, 0x12, 0x34, 0, 0, 8, 0, 0, 0, 0, 0, 0, 0}), c->cdb);

	/* LIO reads: no write_pending; the data goes out with the response. */
	lio_respond(c, 0, true);
	ASSERT_EQ(1u, c->responses.size());
	EXPECT_EQ(1, c->responses_with_data[0]);
	EXPECT_EQ(slots - 2, sq()) << "the response and one RDMA WRITE";
	EXPECT_EQ(0x07u, last_rsp(c).tag);
	lio_finish(c);
	EXPECT_EQ(slots, sq());
	EXPECT_EQ(0, c->rdma_read_calls);
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
	EXPECT_EQ(SRPT_DATA_OUT, c->rdma_dir);
	ASSERT_EQ(1u, c->rdma.size());
	EXPECT_EQ(0x5678u, c->rdma[0].rkey);

	EXPECT_EQ(0, srpt_core_write_pending(c->core));
	EXPECT_EQ(1, c->rdma_read_calls);
	EXPECT_EQ(0, c->execute_calls) << "not before the data is in";
	EXPECT_EQ(static_cast<int>(CmdState::kNeedData), cmd_state(c));
	EXPECT_EQ(slots - 1, sq());
	ASSERT_TRUE(fake::complete_read(c, true));
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
	EXPECT_EQ(2u, c->rdma_count);
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
	EXPECT_EQ(SRPT_DATA_OUT, c->rdma_dir);
	EXPECT_EQ(2u, c->rdma.size());
	const int slots = sq();
	EXPECT_EQ(0, srpt_core_write_pending(c->core));
	EXPECT_EQ(slots - 2, sq());
	ASSERT_TRUE(fake::complete_read(c, true));
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
	EXPECT_EQ(0u, r->rdma_count);
	EXPECT_EQ(0, fake::calls("srpt_os_cmd_rdma_prepare"));
	lio_respond(r, 0, true);
	EXPECT_EQ(0, r->responses_with_data.at(0)) << "nothing to write";
	lio_finish(r);

	srpt_os_cmd *w = send_cmd(*ch_, write_cmd(2, 0));
	ASSERT_NE(nullptr, w);
	EXPECT_EQ(0, srpt_core_write_pending(w->core));
	EXPECT_EQ(0, w->rdma_read_calls);
	EXPECT_EQ(1, w->execute_calls) << "nothing to read: executed at once";
	lio_respond(w);
	lio_finish(w);
}

TEST_F(Datapath, ImmediateDataHoldsTheReceiveBufferUntilRelease)
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
	EXPECT_EQ(0, fake::calls("srpt_os_cmd_rdma_prepare"));
	EXPECT_EQ(before - 1, posted(*ch_)) << "the command holds the buffer";
	EXPECT_EQ(ch_, r->received_on);

	EXPECT_EQ(0, srpt_core_write_pending(c->core));
	EXPECT_EQ(0, c->rdma_read_calls);
	EXPECT_EQ(1, c->execute_calls);
	lio_respond(c);
	ASSERT_TRUE(fake::complete_send(c, true));
	EXPECT_EQ(before - 1, posted(*ch_)) << "still held: LIO did not release the command yet";
	const int posts = r->post_count;
	srpt_core_release_cmd(c->core);
	EXPECT_EQ(before, posted(*ch_));
	EXPECT_EQ(posts + 1, r->post_count);
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
	fake::fail_call("srpt_os_cmd_post_response", 1, -ENOMEM);
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

TEST_F(Datapath, MappingFailures)
{
	live();
	/* Out of memory for the data: BUSY, no sense. */
	fake::fail_call("srpt_os_cmd_rdma_prepare", 1, -ENOMEM);
	srpt_os_cmd *c = send_cmd(*ch_, read_cmd(0x61));
	ASSERT_NE(nullptr, c);
	EXPECT_EQ(0, c->init_calls);
	iu::Rsp rsp = last_rsp(c);
	EXPECT_EQ(0x08, rsp.status);
	EXPECT_EQ(0x00, rsp.flags);
	EXPECT_EQ(0u, rsp.sense_len);
	EXPECT_EQ(36u, c->responses.at(0).size());
	EXPECT_EQ(1, c->release_data_calls);
	EXPECT_EQ(1, fake::log_count("command 0x61: mapping 4096 bytes failed (-12)")) << fake::log_text();
	ASSERT_TRUE(fake::complete_send(c, true));

	/* The second buffer of an indirect table fails: everything is undone. */
	fake::fail_call("srpt_os_cmd_rdma_add", 2, -ENOMEM);
	iu::Cmd cmd;
	cmd.tag = 0x62;
	cmd.buf_fmt = 0x02;
	cmd.in_cnt = 2;
	cmd.desc = iu::indirect({iu::direct(0xa000, 1, 512), iu::direct(0xb000, 2, 512)});
	c = send_cmd(*ch_, iu::cmd(cmd));
	ASSERT_NE(nullptr, c);
	EXPECT_EQ(0x08, last_rsp(c).status);
	EXPECT_TRUE(c->rdma.empty()) << "released";
	ASSERT_TRUE(fake::complete_send(c, true));

	/* Another error (a bad R_Key, ...): CHECK CONDITION. */
	fake::fail_call("srpt_os_cmd_rdma_add", 1, -EINVAL);
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

TEST_F(Datapath, AFailedPostUndoesEverything)
{
	live();
	const int slots = sq();
	srpt_os_cmd *a = send_cmd(*ch_, read_cmd(1));
	ASSERT_NE(nullptr, a);
	fake::fail_call("srpt_os_cmd_post_response", 1, -ENOMEM);
	lio_respond(a, 0, true);
	EXPECT_TRUE(a->responses.empty());
	EXPECT_EQ(slots, sq()) << "the slots of the response and its RDMA WRITEs are back";
	EXPECT_EQ(1, a->put_calls) << "LIO's acknowledgement reference is dropped";
	EXPECT_EQ(0, a->done_calls);
	EXPECT_EQ(static_cast<int>(CmdState::kDone), cmd_state(a));
	EXPECT_EQ(1, credits().owed());
	EXPECT_EQ(1, fake::log_count("command 0x1: sending the response failed (-12)")) << fake::log_text();
	srpt_core_release_cmd(a->core);

	/* A second failure keeps the first's credit owed, and adds its own. */
	srpt_os_cmd *b = send_cmd(*ch_, tur_cmd(2));
	fake::fail_call("srpt_os_cmd_post_response", 1, -EIO);
	lio_respond(b);
	EXPECT_EQ(2, credits().owed());
	srpt_core_release_cmd(b->core);
	srpt_os_cmd *c = send_cmd(*ch_, tur_cmd(3));
	lio_respond(c);
	EXPECT_EQ(3u, last_rsp(c).req_lim_delta);
	lio_finish(c);
	EXPECT_EQ(slots, sq());
}

TEST_F(Datapath, TransferLargerThanTheSendQueueIsBusy)
{
	/* srp_sq_size 4: two send queue slots for the channel. */
	setup_target();
	ASSERT_EQ(2, srpt_core_tpg_attrib_store(tpg_, SRPT_ATTRIB_SQ_SIZE, "4\n", 2));
	ch_ = &live_channel(login_req());
	ASSERT_EQ(2, sq());

	/* 2 RDMA WRITEs + the response: 3 slots of 2, never available. */
	iu::Cmd cmd;
	cmd.buf_fmt = 0x02;
	cmd.in_cnt = 2;
	cmd.tag = 0x81;
	cmd.desc = iu::indirect({iu::direct(0xa000, 1, 512), iu::direct(0xb000, 2, 512)});
	srpt_os_cmd *r = send_cmd(*ch_, iu::cmd(cmd));
	ASSERT_NE(nullptr, r);
	EXPECT_EQ(0x08, last_rsp(r).status) << "BUSY, answered at once";
	EXPECT_EQ(0, fake::calls("srpt_os_cmd_init")) << "LIO never saw it";
	EXPECT_EQ(1, fake::log_count("command 0x81 needs 3 work requests, more than srp_sq_size allows"))
		<< fake::log_text();
	EXPECT_TRUE(r->rdma.empty()) << "its buffers released";
	ASSERT_TRUE(fake::complete_send(r, true));
	EXPECT_EQ(2, sq());
}

TEST_F(Datapath, SendQueueFullForNow)
{
	/* srp_sq_size 8: four send queue slots. */
	setup_target();
	ASSERT_EQ(2, srpt_core_tpg_attrib_store(tpg_, SRPT_ATTRIB_SQ_SIZE, "8\n", 2));
	ch_ = &live_channel(login_req());
	ASSERT_EQ(4, sq());

	/* A read of two buffers takes 3 slots until its send completes. */
	iu::Cmd cmd;
	cmd.buf_fmt = 0x02;
	cmd.in_cnt = 2;
	cmd.tag = 0x81;
	cmd.desc = iu::indirect({iu::direct(0xa000, 1, 512), iu::direct(0xb000, 2, 512)});
	srpt_os_cmd *r = send_cmd(*ch_, iu::cmd(cmd));
	ASSERT_NE(nullptr, r);
	lio_respond(r, 0, true);
	EXPECT_EQ(1, sq());

	/* A write's RDMA READ needs 2 slots: LIO retries later on -ENOMEM. */
	cmd.buf_fmt = 0x20;
	cmd.in_cnt = 0;
	cmd.out_cnt = 2;
	cmd.tag = 0x82;
	srpt_os_cmd *w = send_cmd(*ch_, iu::cmd(cmd));
	ASSERT_NE(nullptr, w);
	EXPECT_EQ(-ENOMEM, srpt_core_write_pending(w->core));
	EXPECT_EQ(0, w->rdma_read_calls);
	EXPECT_EQ(1, sq());

	/* A status takes the last slot; the next one finds the queue full. */
	srpt_os_cmd *a = send_cmd(*ch_, tur_cmd(0x83));
	lio_respond(a);
	EXPECT_EQ(0, sq());
	srpt_os_cmd *b = send_cmd(*ch_, tur_cmd(0x84));
	lio_respond(b);
	EXPECT_TRUE(b->responses.empty());
	EXPECT_EQ(1, b->put_calls);
	EXPECT_EQ(1, credits().owed());
	EXPECT_EQ(1, fake::log_count("command 0x84: send queue full, response dropped")) << fake::log_text();
	srpt_core_release_cmd(b->core);

	/* Completions give the slots back; the retried write goes out. */
	lio_finish(r);
	lio_finish(a);
	EXPECT_EQ(4, sq());
	EXPECT_EQ(0, srpt_core_write_pending(w->core));
	EXPECT_EQ(1, w->rdma_read_calls);
	EXPECT_EQ(2, sq());
}

TEST_F(Datapath, RdmaReadPostFailure)
{
	live();
	const int slots = sq();
	srpt_os_cmd *w = send_cmd(*ch_, write_cmd(5));
	fake::fail_call("srpt_os_cmd_post_rdma_read", 1, -EIO);
	EXPECT_EQ(-EIO, srpt_core_write_pending(w->core));
	EXPECT_EQ(slots, sq());
	EXPECT_EQ(0, w->reads_pending);
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
	ASSERT_TRUE(fake::complete_read(w, false));
	EXPECT_EQ(1, w->abort_calls);
	EXPECT_EQ(0, w->execute_calls);
	EXPECT_EQ(slots, sq());
	EXPECT_EQ(1, fake::log_count("command 0x5: RDMA READ failed")) << fake::log_text();
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
	EXPECT_EQ(1, fake::log_count("command 0x4: sending the response failed")) << fake::log_text();
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

	/* An RDMA READ completion for a command that is not waiting for data. */
	srpt_os_cmd *d = send_cmd(*ch_, tur_cmd(0x92));
	const int execs = d->execute_calls, dones = d->done_calls;
	srpt_core_rdma_read_done(d->core, 1);
	EXPECT_EQ(execs, d->execute_calls);
	EXPECT_EQ(1, fake::log_count("command 0x92: RDMA READ done in state new"));
	/* A send completion without a response. */
	srpt_core_send_done(d->core, 1);
	EXPECT_EQ(dones, d->done_calls);
	EXPECT_EQ(1, fake::log_count("command 0x92: send completion in state new"));
	EXPECT_EQ(slots, sq());
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

TEST_F(Datapath, AnIuWaitsForASendContext)
{
	live(4);	/* four send contexts and receive buffers */
	std::vector<srpt_os_cmd *> held;
	for (std::uint64_t t = 1; t <= 4; t++)
		held.push_back(send_cmd(*ch_, read_cmd(t)));
	ASSERT_EQ(4u, posted(*ch_));

	fake::take_trace();
	srpt_os_recv *r = send_iu(*ch_, read_cmd(5));
	EXPECT_EQ(3u, posted(*ch_)) << "the waiting IU keeps its buffer";
	EXPECT_TRUE(trace_of({"cmd_init"}).empty());

	/* A response's completion frees nothing until LIO releases. */
	lio_respond(held[0], 0, true);
	ASSERT_TRUE(fake::complete_send(held[0], true));
	EXPECT_TRUE(trace_of({"cmd_init"}).empty());
	/* LIO releases outside completion context: a zero-length write kicks. */
	const int zw = ch_->zero_write_calls;
	srpt_core_release_cmd(held[0]->core);
	EXPECT_EQ(zw + 1, ch_->zero_write_calls);
	EXPECT_TRUE(trace_of({"cmd_init"}).empty()) << "not outside completion context";
	ASSERT_TRUE(fake::complete_zero_write(*ch_, true));
	EXPECT_EQ(std::vector<std::string>{"cmd_init tag 0x5"}, trace_of({"cmd_init"}));
	EXPECT_EQ(4u, posted(*ch_));
	EXPECT_EQ(nullptr, r->received_on);

	for (srpt_os_cmd *c : fake::cmds_of(*ch_)) {
		lio_respond(c, 0, true);
		lio_finish(c);
	}
	EXPECT_EQ(zw + 1, ch_->zero_write_calls) << "no kick when nothing waits";
}

TEST_F(Datapath, AWaitingIuIsHandledOnTheNextSendCompletion)
{
	live(4);
	std::vector<srpt_os_cmd *> held;
	for (std::uint64_t t = 1; t <= 3; t++)
		held.push_back(send_cmd(*ch_, read_cmd(t)));
	/* The fourth context answers locally: freed by its send completion. */
	iu::Cmd bad;
	bad.tag = 4;
	bad.buf_fmt = 0x11;
	srpt_os_cmd *local = send_cmd(*ch_, iu::cmd(bad));
	ASSERT_NE(nullptr, local);
	fake::take_trace();
	send_iu(*ch_, read_cmd(5));
	EXPECT_TRUE(trace_of({"cmd_init"}).empty());
	ASSERT_TRUE(fake::complete_send(local, true));
	EXPECT_EQ(std::vector<std::string>{"cmd_init tag 0x5"}, trace_of({"cmd_init"}));
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
	live(4);
	std::vector<srpt_os_cmd *> held;
	for (std::uint64_t t = 1; t <= 4; t++)
		held.push_back(send_cmd(*ch_, read_cmd(t)));
	fake::take_trace();
	send_iu(*ch_, read_cmd(0xa));			/* waits */
	lio_respond(held[0], 0, true);
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
	EXPECT_EQ(3u, posted(*ch_)) << "one IU still waits for a context";
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
			EXPECT_EQ(128u, posted(*ch_));
			srpt_core_queue_tm_response(c->core, a.r);
			ASSERT_EQ(1u, c->responses.size());
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
	EXPECT_EQ(1, fake::log_count("task management function 0x1 for 0x33 failed (-12)")) << fake::log_text();
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
