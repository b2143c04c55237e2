// SPDX-License-Identifier: GPL-2.0-only
/*
 * KUnit suite "srpt_command": the command state machine of a live
 * channel, end to end. The test plays the initiator (it writes IUs into
 * receive buffers), LIO (it calls write_pending, queue_response, release)
 * and the CQ (it completes RDMA READs and sends); the double records
 * what the core asked of LIO and the HCA and the SRP_RSP bytes it sent.
 */
#include <kunit/test.h>
#include <linux/align.h>
#include <linux/kernel.h>
#include <linux/string.h>
#include <linux/workqueue.h>
#include <asm/unaligned.h>
#include <scsi/srp.h>

#include <srpt/abi.h>

#include "../src/shim/os.h"
#include "fake_datapath.h"
#include "probe.h"
#include "target_fixture.h"

#define DEPTH 128U
#define IU_MAX 1024
#define IMM_OFFSET 80U

/* SRP_CMD TASK ATTRIBUTE and SOL_NOT bits (SRP r16a, 6.8). */
#define TASK_HEAD_OF_QUEUE 1
#define SCSOLNT 0x02
#define SOLNT 0x01

/* Two LUN levels, 0x4012 then 0x0007: scsilun_to_int() gives 0x74012. */
static const u8 lun_bytes[8] = { 0x40, 0x12, 0x00, 0x07 };
#define LUN 0x74012ULL

/* ILLEGAL REQUEST, INVALID FIELD IN COMMAND INFORMATION UNIT (0e/03). */
static const u8 sense_invalid_iu[18] = {
	0x70, 0x00, 0x05, 0x00, 0x00, 0x00, 0x00, 0x0a, 0x00,
	0x00, 0x00, 0x00, 0x0e, 0x03, 0x00, 0x00, 0x00, 0x00,
};

/* A live channel: RDMA/CM, largest IU, optionally immediate data. */
static struct srpt_channel *live_channel(struct kunit *test, u32 max_qp_wr, bool imm,
					 struct srpt_os_channel **out)
{
	static const char * const acls[] = { TF_RDMA_PEER, NULL };
	struct srpt_os_channel *ch;
	struct srpt_channel *core;
	struct tf_login l;

	tf_setup(test, SRPT_PORT_ID_GUID, max_qp_wr, acls);
	ch = tf_channel(test);
	tf_default_login(&l, SRPT_CM_RDMA, tf_max_req_size(test));
	if (imm) {
		l.flags |= SRP_IMMED_REQUESTED;
		l.imm_offset = IMM_OFFSET;
	}
	core = tf_login_ok(test, ch, &l);
	tf_establish(test, ch);
	*out = ch;
	return core;
}

static u8 *iu_buf(struct kunit *test)
{
	u8 *iu = kunit_kzalloc(test, IU_MAX, GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, iu);
	return iu;
}

/* An SRP_CMD without data: @cdb0 is the CDB's operation code. */
static struct srp_cmd *cmd_iu(u8 *iu, u64 tag, u8 cdb0)
{
	struct srp_cmd *c = (struct srp_cmd *)iu;

	memset(iu, 0, IU_MAX);
	c->opcode = SRP_CMD;
	put_unaligned_be64(tag, &c->tag);
	memcpy(c->lun.scsi_lun, lun_bytes, sizeof(lun_bytes));
	c->task_attr = TASK_HEAD_OF_QUEUE;
	c->cdb[0] = cdb0;
	c->cdb[2] = 0x12;		/* LBA */
	c->cdb[5] = 0x34;
	c->cdb[8] = 0x10;		/* transfer length */
	c->cdb[9] = 0x5a;		/* CONTROL, to see the whole CDB arrive */
	return c;
}

/* Adds one direct descriptor for data-out (@out) or data-in. */
static u32 add_direct(struct srp_cmd *c, bool out, u64 va, u32 rkey, u32 len)
{
	struct srp_direct_buf *d = (struct srp_direct_buf *)c->add_data;

	if (out) {
		c->buf_fmt = SRP_DATA_DESC_DIRECT << 4;
		c->data_out_desc_cnt = 1;
	} else {
		c->buf_fmt = SRP_DATA_DESC_DIRECT;
		c->data_in_desc_cnt = 1;
	}
	d->va = cpu_to_be64(va);
	d->key = cpu_to_be32(rkey);
	d->len = cpu_to_be32(len);
	return sizeof(*c) + sizeof(*d);
}

/* Immediate data: @len bytes of @fill at IMM_OFFSET. */
static u32 add_imm(struct srp_cmd *c, u32 len, u8 fill)
{
	struct srp_imm_buf *b = (struct srp_imm_buf *)c->add_data;

	c->buf_fmt = SRP_DATA_DESC_IMM << 4;
	b->len = cpu_to_be32(len);
	memset((u8 *)c + IMM_OFFSET, fill, len);
	return IMM_OFFSET + len;
}

/* The SRP_RSP header (SRP r16a, 6.9). */
static void expect_rsp(struct kunit *test, struct srpt_os_channel *ch, struct srpt_os_cmd *cmd,
		       u64 tag, u8 sol_not, u8 flags, u8 status, u32 len)
{
	const u8 *rsp = ch->sent;
	u8 t[8];

	KUNIT_EXPECT_PTR_EQ(test, ch->sent_cmd, cmd);
	KUNIT_ASSERT_EQ(test, ch->sent_len, len);
	KUNIT_EXPECT_EQ(test, rsp[0], SRP_RSP);
	KUNIT_EXPECT_EQ(test, rsp[1], sol_not);
	KUNIT_EXPECT_EQ(test, get_unaligned_be32(rsp + 4), 1U);	/* req_lim_delta */
	put_unaligned_be64(tag, t);
	tf_expect_bytes(test, rsp + 8, t, 8, "response tag");
	KUNIT_EXPECT_EQ(test, rsp[18], flags);
	KUNIT_EXPECT_EQ(test, rsp[19], status);
}

static void expect_credits(struct kunit *test, struct srpt_channel *core, int req_lim,
			   int owed, int sq_slots)
{
	struct srpt_probe_credits cr;

	srpt_probe_channel_credits(core, &cr);
	KUNIT_EXPECT_EQ(test, cr.req_lim, req_lim);
	KUNIT_EXPECT_EQ(test, cr.owed, owed);
	KUNIT_EXPECT_EQ(test, cr.sq_slots, sq_slots);
}

static void cmd_write_end_to_end(struct kunit *test)
{
	const struct srpt_cmd_status good = { .scsi_status = 0 };
	const u32 sq = 2048;		/* srp_sq_size / 2 */
	struct srpt_os_channel *ch;
	struct srpt_channel *core;
	struct srpt_os_cmd *cmd;
	struct srpt_os_recv *r;
	struct srp_cmd *c;
	unsigned int mark;
	u8 *iu = iu_buf(test);
	u32 len;

	core = live_channel(test, 16384, false, &ch);
	c = cmd_iu(iu, 0xfeedface01ULL, 0x2a);		/* WRITE(10) */
	c->sol_not = SCSOLNT;
	len = add_direct(c, true, 0x123456789aULL, 0xabcd, 8192);

	/*
	 * The initiator's SRP_CMD: LIO gets the command, which holds its
	 * buffer until the response that returns its credit.
	 */
	mark = ch->n_log;
	r = tf_send_iu(test, ch, iu, len);
	TF_EXPECT_CALLS(test, ch, mark, FAKE_CMD_BUF_ADD, FAKE_CMD_INIT, FAKE_CMD_SUBMIT);
	KUNIT_EXPECT_FALSE(test, fake_recv_is_posted(r));
	KUNIT_EXPECT_EQ(test, r->posts, 1U);
	cmd = ch->last_cmd;
	KUNIT_ASSERT_NOT_NULL(test, cmd);
	KUNIT_EXPECT_EQ(test, cmd->contract.dir, SRPT_DATA_OUT);
	KUNIT_EXPECT_EQ(test, cmd->contract.count, 1U);
	KUNIT_EXPECT_EQ(test, cmd->contract.added, 1U);
	KUNIT_EXPECT_EQ(test, cmd->rdma[0].va, 0x123456789aULL);
	KUNIT_EXPECT_EQ(test, cmd->rdma[0].rkey, 0xabcdU);
	KUNIT_EXPECT_EQ(test, cmd->rdma[0].len, 8192U);
	KUNIT_EXPECT_EQ(test, cmd->info.tag, 0xfeedface01ULL);
	KUNIT_EXPECT_EQ(test, cmd->info.lun, LUN);
	KUNIT_EXPECT_EQ(test, cmd->info.data_len, 8192U);
	KUNIT_EXPECT_EQ(test, cmd->info.dir, SRPT_DATA_OUT);
	KUNIT_EXPECT_EQ(test, cmd->info.task_attr, SRPT_TASK_HEAD_OF_QUEUE);
	tf_expect_bytes(test, cmd->cdb, c->cdb, sizeof(c->cdb), "CDB");
	KUNIT_EXPECT_EQ(test, srpt_core_cmd_state(cmd->core), SRPT_PROBE_CMD_NEW);
	expect_credits(test, core, DEPTH - 1, 0, sq);

	/* LIO wants the data: one RDMA READ, holding one send queue slot. */
	mark = ch->n_log;
	KUNIT_EXPECT_EQ(test, srpt_core_write_pending(cmd->core), 0);
	TF_EXPECT_CALLS(test, ch, mark, FAKE_CMD_RDMA_MAP, FAKE_CMD_POST_RDMA);
	KUNIT_EXPECT_EQ(test, srpt_core_cmd_state(cmd->core), SRPT_PROBE_CMD_NEED_DATA);
	expect_credits(test, core, DEPTH - 1, 0, sq - 1);

	/* The data is in: LIO executes. */
	KUNIT_ASSERT_EQ(test, fake_channel_complete(ch, FAKE_WR_RDMA, true), 0);
	TF_EXPECT_CALLS(test, ch, mark, FAKE_CMD_RDMA_MAP, FAKE_CMD_POST_RDMA, FAKE_CMD_RDMA_UNMAP,
			FAKE_CMD_EXECUTE);
	KUNIT_EXPECT_EQ(test, srpt_core_cmd_state(cmd->core), SRPT_PROBE_CMD_DATA_IN);
	expect_credits(test, core, DEPTH - 1, 0, sq);

	/* queue_status: the buffer goes back, then the SRP_RSP returns its credit. */
	mark = ch->n_log;
	srpt_core_queue_response(cmd->core, good, 0);
	TF_EXPECT_CALLS(test, ch, mark, FAKE_RECV_POST, FAKE_CMD_POST_RESPONSE);
	KUNIT_EXPECT_TRUE(test, fake_recv_is_posted(r));
	KUNIT_EXPECT_EQ(test, r->posts, 2U);
	KUNIT_EXPECT_EQ(test, srpt_core_cmd_state(cmd->core), SRPT_PROBE_CMD_RSP_SENT);
	KUNIT_EXPECT_FALSE(test, ch->sent_with_data);
	expect_rsp(test, ch, cmd, 0xfeedface01ULL, SOLNT, 0, 0, sizeof(struct srp_rsp));
	KUNIT_EXPECT_NULL(test, memchr_inv(ch->sent + 20, 0, 16));
	expect_credits(test, core, DEPTH, 0, sq - 1);

	/* Sent: LIO frees the command and releases it. */
	KUNIT_ASSERT_EQ(test, fake_channel_complete(ch, FAKE_WR_SEND, true), 0);
	TF_EXPECT_CALLS(test, ch, mark, FAKE_RECV_POST, FAKE_CMD_POST_RESPONSE, FAKE_CMD_DONE);
	KUNIT_EXPECT_EQ(test, srpt_core_cmd_state(cmd->core), SRPT_PROBE_CMD_DONE);
	srpt_core_release_cmd(cmd->core);
	TF_EXPECT_CALLS(test, ch, mark, FAKE_RECV_POST, FAKE_CMD_POST_RESPONSE, FAKE_CMD_DONE,
			FAKE_CMD_RELEASE_DATA);
	KUNIT_EXPECT_EQ(test, r->posts, 2U);
	KUNIT_EXPECT_EQ(test, fake_recv_posted(NULL, ch), DEPTH);
	expect_credits(test, core, DEPTH, 0, sq);

	/* The send context is free again: the next command gets it. */
	c = cmd_iu(iu, 2, 0x2a);
	len = add_direct(c, true, 0x2000, 1, 512);
	tf_send_iu(test, ch, iu, len);
	KUNIT_EXPECT_PTR_EQ(test, ch->last_cmd, cmd);
	KUNIT_EXPECT_EQ(test, cmd->info.tag, 2ULL);
	KUNIT_EXPECT_EQ(test, srpt_core_cmd_state(cmd->core), SRPT_PROBE_CMD_NEW);
	/* LIO fails it at once (e.g. no such LUN). */
	srpt_core_queue_response(cmd->core, good, 0);
	KUNIT_ASSERT_EQ(test, fake_channel_complete(ch, FAKE_WR_SEND, true), 0);
	srpt_core_release_cmd(cmd->core);
	expect_credits(test, core, DEPTH, 0, sq);
}

/* A read: the data goes out by RDMA WRITE in the same post as the SRP_RSP. */
/*
 * A 4 KiB READ answered 512 bytes short: exactly the 3584 bytes go. The
 * buffer is mapped for the transfer, or @kept mapped by the shim
 * (SRPT_BUF_KEPT), when the core neither maps nor unmaps it.
 */
static void cmd_read(struct kunit *test, bool kept)
{
	const struct srpt_cmd_status st = {
		.scsi_status = 0,
		.residual = SRPT_RESIDUAL_UNDERFLOW,
		.data_dir = SRPT_DATA_IN,
		.residual_count = 512,
		.data_len = 4096 - 512,
	};
	const u32 sq = 2048;
	struct srpt_os_channel *ch;
	struct srpt_channel *core;
	struct srpt_os_cmd *cmd;
	struct srp_cmd *c;
	unsigned int mark;
	u8 *iu = iu_buf(test);
	u32 len;

	core = live_channel(test, 16384, false, &ch);
	ch->rdma_map_wrs = 2;		/* a mapped buffer needs two work requests */
	ch->buf_kept = kept;
	c = cmd_iu(iu, 0x77, 0x28);	/* READ(10) */
	len = add_direct(c, false, 0x9000, 0x55, 4096);
	mark = ch->n_log;
	tf_send_iu(test, ch, iu, len);
	TF_EXPECT_CALLS(test, ch, mark, FAKE_CMD_BUF_ADD, FAKE_CMD_INIT, FAKE_CMD_SUBMIT);
	cmd = ch->last_cmd;
	KUNIT_ASSERT_NOT_NULL(test, cmd);
	KUNIT_EXPECT_EQ(test, cmd->contract.dir, SRPT_DATA_IN);
	KUNIT_EXPECT_EQ(test, cmd->info.dir, SRPT_DATA_IN);
	KUNIT_EXPECT_EQ(test, cmd->info.data_len, 4096U);

	mark = ch->n_log;
	fake_lio_queue_response(cmd, st, 1);
	if (kept)
		TF_EXPECT_CALLS(test, ch, mark, FAKE_RECV_POST, FAKE_CMD_POST_RESPONSE);
	else
		TF_EXPECT_CALLS(test, ch, mark, FAKE_RECV_POST, FAKE_CMD_RDMA_MAP,
				FAKE_CMD_POST_RESPONSE);
	KUNIT_EXPECT_TRUE(test, ch->sent_with_data);
	KUNIT_EXPECT_EQ(test, cmd->sent_bytes, 4096U - 512);
	expect_rsp(test, ch, cmd, 0x77, 0, SRP_RSP_FLAG_DIUNDER, 0, sizeof(struct srp_rsp));
	KUNIT_EXPECT_EQ(test, get_unaligned_be32(ch->sent + 20), 0U);
	KUNIT_EXPECT_EQ(test, get_unaligned_be32(ch->sent + 24), 512U);
	/* The response and the transfer's work requests. */
	expect_credits(test, core, DEPTH, 0, sq - (kept ? 2 : 3));

	KUNIT_ASSERT_EQ(test, fake_channel_complete(ch, FAKE_WR_SEND, true), 0);
	srpt_core_release_cmd(cmd->core);
	if (kept)
		TF_EXPECT_CALLS(test, ch, mark, FAKE_RECV_POST, FAKE_CMD_POST_RESPONSE,
				FAKE_CMD_DONE, FAKE_CMD_RELEASE_DATA);
	else
		TF_EXPECT_CALLS(test, ch, mark, FAKE_RECV_POST, FAKE_CMD_RDMA_MAP,
				FAKE_CMD_POST_RESPONSE, FAKE_CMD_RDMA_UNMAP, FAKE_CMD_DONE,
				FAKE_CMD_RELEASE_DATA);
	expect_credits(test, core, DEPTH, 0, sq);
}

static void cmd_read_end_to_end(struct kunit *test)
{
	cmd_read(test, false);
}

static void cmd_read_kept_buffer(struct kunit *test)
{
	cmd_read(test, true);
}

/* Builds malformed SRP_CMD number @i; its length, 0 past the last. */
static u32 malformed_cmd(u8 *iu, int i, const char **what)
{
	struct srp_cmd *c = cmd_iu(iu, 0x100 + i, 0x2a);
	struct srp_indirect_buf *ind = (struct srp_indirect_buf *)c->add_data;

	switch (i) {
	case 0:
		*what = "data-out and data-in descriptors";
		c->buf_fmt = SRP_DATA_DESC_DIRECT << 4 | SRP_DATA_DESC_DIRECT;
		c->data_out_desc_cnt = 1;
		c->data_in_desc_cnt = 1;
		return sizeof(*c) + 2 * sizeof(struct srp_direct_buf);
	case 1:
		*what = "a reserved descriptor format";
		c->buf_fmt = 4 << 4;
		return sizeof(*c) + sizeof(struct srp_direct_buf);
	case 2:
		*what = "a direct descriptor cut short";
		add_direct(c, true, 0x1000, 1, 512);
		return sizeof(*c) + 8;
	case 3:
		*what = "immediate data that was not negotiated";
		return add_imm(c, 512, 0xa5);
	case 4:
		*what = "an IU shorter than SRP_CMD";
		return 40;
	case 5:
		*what = "a CDB longer than the CDB fields";
		c->cdb[0] = 0x7f;		/* variable length: 8 + 24 bytes */
		c->cdb[7] = 24;
		return sizeof(*c);
	case 6:
		*what = "an indirect table outside the IU";
		c->buf_fmt = SRP_DATA_DESC_INDIRECT << 4;
		ind->table_desc.len = cpu_to_be32(2 * sizeof(struct srp_direct_buf));
		ind->len = cpu_to_be32(8192);
		return sizeof(*c) + sizeof(*ind);
	}
	return 0;
}

/* LIO never hears of these: CHECK CONDITION straight from the core. */
static void cmd_malformed_answered_locally(struct kunit *test)
{
	struct srpt_os_channel *ch;
	struct srpt_channel *core;
	struct srpt_os_cmd *cmd;
	struct srpt_os_recv *r;
	const char *what = "";
	unsigned int mark;
	u8 *iu = iu_buf(test);
	u32 len;
	int i;

	core = live_channel(test, 16384, false, &ch);
	for (i = 0; (len = malformed_cmd(iu, i, &what)); i++) {
		mark = ch->n_log;
		r = tf_send_iu(test, ch, iu, len);
		/* The buffer goes back before the response returns its credit. */
		TF_EXPECT_CALLS(test, ch, mark, FAKE_RECV_POST, FAKE_CMD_POST_RESPONSE);
		cmd = ch->sent_cmd;
		KUNIT_ASSERT_NOT_NULL_MSG(test, cmd, "%s: no response", what);
		KUNIT_EXPECT_TRUE_MSG(test, fake_recv_is_posted(r), "%s", what);
		expect_rsp(test, ch, cmd, 0x100 + i, 0, SRP_RSP_FLAG_SNSVALID, 0x02,
			   sizeof(struct srp_rsp) + sizeof(sense_invalid_iu));
		KUNIT_EXPECT_EQ_MSG(test, get_unaligned_be32(ch->sent + 28),
				    (u32)sizeof(sense_invalid_iu), "%s", what);
		tf_expect_bytes(test, ch->sent + 36, sense_invalid_iu, sizeof(sense_invalid_iu),
				what);
		KUNIT_EXPECT_EQ(test, srpt_core_cmd_state(cmd->core), SRPT_PROBE_CMD_RSP_SENT);

		/* Sent: the core takes the context back itself. */
		KUNIT_ASSERT_EQ(test, fake_channel_complete(ch, FAKE_WR_SEND, true), 0);
		TF_EXPECT_CALLS(test, ch, mark, FAKE_RECV_POST, FAKE_CMD_POST_RESPONSE,
				FAKE_CMD_RELEASE_DATA);
		KUNIT_EXPECT_EQ_MSG(test, fake_lio_calls(ch), 0U, "%s reached LIO", what);
		expect_credits(test, core, DEPTH, 0, 2048);
	}
	KUNIT_EXPECT_EQ(test, i, 7);
}

/*
 * Immediate data stays in its receive buffer until LIO answers the
 * command; the buffer goes back before the response returns its credit.
 */
static void cmd_immediate_data_holds_buffer(struct kunit *test)
{
	const struct srpt_cmd_status good = { .scsi_status = 0 };
	struct srpt_os_channel *ch;
	struct srpt_os_cmd *cmd;
	struct srpt_os_recv *r;
	struct srp_cmd *c;
	unsigned int mark;
	u8 *iu = iu_buf(test);
	u32 len;

	live_channel(test, 16384, true, &ch);
	c = cmd_iu(iu, 0x31, 0x2a);
	len = add_imm(c, 512, 0xa5);
	mark = ch->n_log;
	r = tf_send_iu(test, ch, iu, len);
	TF_EXPECT_CALLS(test, ch, mark, FAKE_CMD_MAP_IMM, FAKE_CMD_INIT, FAKE_CMD_SUBMIT);
	cmd = ch->last_cmd;
	KUNIT_ASSERT_NOT_NULL(test, cmd);
	KUNIT_EXPECT_PTR_EQ(test, cmd->imm_data, (void *)(r->iu + IMM_OFFSET));
	KUNIT_EXPECT_EQ(test, cmd->imm_len, 512U);
	KUNIT_EXPECT_TRUE(test, IS_ALIGNED((unsigned long)cmd->imm_data, 512));
	KUNIT_EXPECT_NULL(test, memchr_inv(cmd->imm_data, 0xa5, 512));
	KUNIT_EXPECT_EQ(test, cmd->info.data_len, 512U);
	KUNIT_EXPECT_FALSE(test, fake_recv_is_posted(r));

	/* The data is there already: no RDMA READ. */
	KUNIT_EXPECT_EQ(test, srpt_core_write_pending(cmd->core), 0);
	KUNIT_EXPECT_EQ(test, srpt_core_cmd_state(cmd->core), SRPT_PROBE_CMD_DATA_IN);
	KUNIT_EXPECT_FALSE(test, fake_recv_is_posted(r));
	srpt_core_queue_response(cmd->core, good, 0);
	KUNIT_ASSERT_EQ(test, fake_channel_complete(ch, FAKE_WR_SEND, true), 0);
	TF_EXPECT_CALLS(test, ch, mark, FAKE_CMD_MAP_IMM, FAKE_CMD_INIT, FAKE_CMD_SUBMIT,
			FAKE_CMD_EXECUTE, FAKE_RECV_POST, FAKE_CMD_POST_RESPONSE, FAKE_CMD_DONE);
	KUNIT_EXPECT_TRUE(test, fake_recv_is_posted(r));

	srpt_core_release_cmd(cmd->core);
	TF_EXPECT_CALLS(test, ch, mark, FAKE_CMD_MAP_IMM, FAKE_CMD_INIT, FAKE_CMD_SUBMIT,
			FAKE_CMD_EXECUTE, FAKE_RECV_POST, FAKE_CMD_POST_RESPONSE, FAKE_CMD_DONE,
			FAKE_CMD_RELEASE_DATA);
	KUNIT_EXPECT_TRUE(test, fake_recv_is_posted(r));
	KUNIT_EXPECT_EQ(test, r->posts, 2U);
}

/*
 * LIO fails the command inside target_submit(), the SRP_RSP cannot be
 * posted, and LIO's last reference goes before submit returns: the
 * receive buffer holding the immediate data goes back exactly once.
 */
static void fail_and_release_in_submit(struct srpt_os_cmd *cmd)
{
	const struct srpt_cmd_status busy = { .scsi_status = 0x08 };

	srpt_core_queue_response(cmd->core, busy, 0);
	/* transport_cmd_check_stop_to_fabric() drops the other reference. */
	srpt_core_release_cmd(cmd->core);
}

static void cmd_released_in_submit_reposts_once(struct kunit *test)
{
	struct srpt_os_channel *ch;
	struct srpt_channel *core;
	struct srpt_os_recv *r;
	struct srp_cmd *c;
	unsigned int mark;
	u8 *iu = iu_buf(test);
	u32 len;

	core = live_channel(test, 16384, true, &ch);
	ch->on_submit = fail_and_release_in_submit;
	ch->post_response_err = -EIO;
	c = cmd_iu(iu, 0x32, 0x2a);
	len = add_imm(c, 512, 0x5a);
	mark = ch->n_log;
	r = tf_send_iu(test, ch, iu, len);
	TF_EXPECT_CALLS(test, ch, mark, FAKE_CMD_MAP_IMM, FAKE_CMD_INIT, FAKE_CMD_SUBMIT,
			FAKE_RECV_POST, FAKE_CMD_POST_RESPONSE, FAKE_CMD_PUT,
			FAKE_CMD_RELEASE_DATA);
	KUNIT_EXPECT_EQ(test, r->posts, 2U);
	KUNIT_EXPECT_TRUE(test, fake_recv_is_posted(r));
	KUNIT_EXPECT_EQ(test, fake_violations(), 0);
	/* The credit of the lost response goes out with the next one. */
	expect_credits(test, core, DEPTH - 1, 1, 2048);
}

/*
 * With four send contexts, a fifth command (sent on the credit of the
 * first response) waits until a context is released, then goes on from
 * completion context through a zero-length write.
 */
static void cmd_waits_for_free_send_context(struct kunit *test)
{
	/* The smallest device (kMinDeviceQpWr): the drain takes a receive slot. */
	const u32 max_qp_wr = 8, n = max_qp_wr - 1, sq = max_qp_wr - 4;
	const struct srpt_cmd_status good = { .scsi_status = 0 };
	struct srpt_os_cmd *cmds[7];
	struct srpt_os_channel *ch;
	struct srpt_channel *core;
	struct srpt_os_recv *r;
	unsigned int mark;
	u8 *iu = iu_buf(test);
	int i;

	core = live_channel(test, max_qp_wr, false, &ch);
	for (i = 0; i < n; i++) {
		cmd_iu(iu, i, 0x00);		/* TEST UNIT READY */
		mark = ch->n_log;
		tf_send_iu(test, ch, iu, sizeof(struct srp_cmd));
		TF_EXPECT_CALLS(test, ch, mark, FAKE_CMD_INIT, FAKE_CMD_SUBMIT);
		cmds[i] = ch->last_cmd;
		KUNIT_ASSERT_NOT_NULL(test, cmds[i]);
		KUNIT_EXPECT_EQ(test, cmds[i]->info.dir, SRPT_DATA_NONE);
	}
	expect_credits(test, core, 0, 0, sq);

	srpt_core_queue_response(cmds[0]->core, good, 0);
	mark = ch->n_log;
	cmd_iu(iu, n, 0x00);
	r = tf_send_iu(test, ch, iu, sizeof(struct srp_cmd));
	TF_EXPECT_NO_CALLS(test, ch, mark);
	KUNIT_EXPECT_FALSE(test, fake_recv_is_posted(r));
	/* Sent, but LIO still holds the context. */
	KUNIT_ASSERT_EQ(test, fake_channel_complete(ch, FAKE_WR_SEND, true), 0);
	TF_EXPECT_CALLS(test, ch, mark, FAKE_CMD_DONE);
	srpt_core_release_cmd(cmds[0]->core);
	TF_EXPECT_CALLS(test, ch, mark, FAKE_CMD_DONE, FAKE_CMD_RELEASE_DATA, FAKE_ZERO_WRITE);
	KUNIT_ASSERT_EQ(test, fake_channel_complete(ch, FAKE_WR_ZERO_WRITE, true), 0);
	TF_EXPECT_CALLS(test, ch, mark, FAKE_CMD_DONE, FAKE_CMD_RELEASE_DATA, FAKE_ZERO_WRITE,
			FAKE_CMD_INIT, FAKE_CMD_SUBMIT);
	KUNIT_EXPECT_PTR_EQ(test, ch->last_cmd, cmds[0]);
	KUNIT_EXPECT_EQ(test, cmds[0]->info.tag, (u64)n);
	KUNIT_EXPECT_FALSE(test, fake_recv_is_posted(r));	/* the command holds it */

	for (i = 0; i < n; i++) {
		srpt_core_queue_response(cmds[i]->core, good, 0);
		KUNIT_ASSERT_EQ(test, fake_channel_complete(ch, FAKE_WR_SEND, true), 0);
		srpt_core_release_cmd(cmds[i]->core);
	}
	KUNIT_EXPECT_TRUE(test, fake_recv_is_posted(r));
	KUNIT_EXPECT_EQ(test, fake_recv_posted(NULL, ch), n);
	expect_credits(test, core, n, 0, sq);
	KUNIT_EXPECT_EQ(test, fake_channel_outstanding(ch), 0U);
}

static u32 tsk_mgmt_iu(u8 *iu, u64 tag, u8 func, u64 task_tag)
{
	struct srp_tsk_mgmt *t = (struct srp_tsk_mgmt *)iu;

	memset(iu, 0, sizeof(*t));
	t->opcode = SRP_TSK_MGMT;
	put_unaligned_be64(tag, &t->tag);
	memcpy(t->lun.scsi_lun, lun_bytes, sizeof(lun_bytes));
	t->tsk_mgmt_func = func;
	put_unaligned_be64(task_tag, &t->task_tag);
	return sizeof(*t);
}

static void cmd_task_management(struct kunit *test)
{
	static const u8 complete[4] = { 0, 0, 0, 0x00 };
	static const u8 failed[4] = { 0, 0, 0, 0x05 };
	struct srpt_os_channel *ch;
	struct srpt_channel *core;
	struct srpt_os_cmd *cmd;
	unsigned int mark;
	u8 *iu = iu_buf(test);
	u32 len;

	core = live_channel(test, 16384, false, &ch);
	len = tsk_mgmt_iu(iu, 0x99, SRP_TSK_ABORT_TASK, 0x42);
	mark = ch->n_log;
	tf_send_iu(test, ch, iu, len);
	TF_EXPECT_CALLS(test, ch, mark, FAKE_CMD_SUBMIT_TMR);
	cmd = ch->last_cmd;
	KUNIT_ASSERT_NOT_NULL(test, cmd);
	KUNIT_EXPECT_EQ(test, cmd->tmr_fn, SRPT_TMF_ABORT_TASK);
	KUNIT_EXPECT_EQ(test, cmd->tmr_lun, LUN);
	KUNIT_EXPECT_EQ(test, cmd->tmr_task_tag, 0x42ULL);
	KUNIT_EXPECT_EQ(test, cmd->tmr_tag, 0x99ULL);
	KUNIT_EXPECT_EQ(test, srpt_core_cmd_state(cmd->core), SRPT_PROBE_CMD_MGMT);

	/* SAM: aborting a task that is gone is a completed abort. */
	srpt_core_queue_tm_response(cmd->core, SRPT_TMR_TASK_DOES_NOT_EXIST);
	expect_rsp(test, ch, cmd, 0x99, 0, SRP_RSP_FLAG_RSPVALID, 0, sizeof(struct srp_rsp) + 4);
	KUNIT_EXPECT_EQ(test, get_unaligned_be32(ch->sent + 32), 4U);
	tf_expect_bytes(test, ch->sent + 36, complete, 4, "TMF response data");
	KUNIT_EXPECT_EQ(test, srpt_core_cmd_state(cmd->core), SRPT_PROBE_CMD_MGMT_RSP_SENT);
	KUNIT_ASSERT_EQ(test, fake_channel_complete(ch, FAKE_WR_SEND, true), 0);
	srpt_core_release_cmd(cmd->core);
	TF_EXPECT_CALLS(test, ch, mark, FAKE_CMD_SUBMIT_TMR, FAKE_RECV_POST,
			FAKE_CMD_POST_RESPONSE, FAKE_CMD_DONE, FAKE_CMD_RELEASE_DATA);
	KUNIT_EXPECT_EQ(test, fake_recv_posted(NULL, ch), DEPTH);

	/* LIO refuses the function: FUNCTION FAILED, and LIO is done with it. */
	ch->submit_tmr_err = -ENOMEM;
	len = tsk_mgmt_iu(iu, 0x9a, SRP_TSK_LUN_RESET, 0);
	mark = ch->n_log;
	tf_send_iu(test, ch, iu, len);
	TF_EXPECT_CALLS(test, ch, mark, FAKE_CMD_SUBMIT_TMR, FAKE_RECV_POST,
			FAKE_CMD_POST_RESPONSE);
	KUNIT_EXPECT_EQ(test, ch->last_cmd->tmr_fn, SRPT_TMF_LUN_RESET);
	expect_rsp(test, ch, ch->last_cmd, 0x9a, 0, SRP_RSP_FLAG_RSPVALID, 0,
		   sizeof(struct srp_rsp) + 4);
	tf_expect_bytes(test, ch->sent + 36, failed, 4, "TMF response data");
	KUNIT_ASSERT_EQ(test, fake_channel_complete(ch, FAKE_WR_SEND, true), 0);
	TF_EXPECT_CALLS(test, ch, mark, FAKE_CMD_SUBMIT_TMR, FAKE_RECV_POST,
			FAKE_CMD_POST_RESPONSE, FAKE_CMD_RELEASE_DATA);
	expect_credits(test, core, DEPTH, 0, 2048);
}

static struct kunit_case srpt_command_cases[] = {
	KUNIT_CASE(cmd_write_end_to_end),
	KUNIT_CASE(cmd_read_end_to_end),
	KUNIT_CASE(cmd_read_kept_buffer),
	KUNIT_CASE(cmd_malformed_answered_locally),
	KUNIT_CASE(cmd_immediate_data_holds_buffer),
	KUNIT_CASE(cmd_released_in_submit_reposts_once),
	KUNIT_CASE(cmd_waits_for_free_send_context),
	KUNIT_CASE(cmd_task_management),
	{}
};

static struct kunit_suite srpt_command_suite = {
	.name = "srpt_command",
	.suite_init = srpt_kunit_suite_init,
	.suite_exit = srpt_kunit_suite_exit,
	.init = tf_init,
	.exit = tf_exit,
	.test_cases = srpt_command_cases,
};

kunit_test_suites(&srpt_command_suite);
