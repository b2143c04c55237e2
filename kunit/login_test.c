// SPDX-License-Identifier: GPL-2.0-only
/*
 * KUnit suite "srpt_login": SRP logins over IB/CM and RDMA/CM through
 * srpt_core_login(), against a fake device, a target port and a TPG. An
 * accepted login must send the SRP_LOGIN_RSP the initiator relies on; a
 * rejected one the SRP_LOGIN_REJ with the right reason, and leave nothing
 * behind, not even deferred work.
 */
#include <kunit/test.h>
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

/* What the fake device allows and the port's default attributes give. */
#define DEPTH 128U			/* min(MAX_SRPT_RQ_SIZE, max_qp_wr - 1) */
#define MAX_RSP_SIZE 256U		/* srp_max_rsp_size */
#define SQ_SIZE 4096U			/* srp_sq_size */

static const char * const guid_acls[] = { TF_RDMA_PEER, TF_IB_PEER, NULL };

/*
 * An accepted login asked the shim for exactly this: the QP, @depth
 * receive buffers posted, @sessions session attempts, the response.
 */
static void expect_accept_calls(struct kunit *test, struct srpt_os_channel *ch, u32 depth,
				u32 sessions)
{
	unsigned int i;

	KUNIT_ASSERT_EQ(test, ch->n_log, 1 + depth + sessions + 1);
	KUNIT_EXPECT_EQ(test, ch->log[0], FAKE_CREATE_QP);
	for (i = 1; i <= depth; i++)
		KUNIT_EXPECT_EQ_MSG(test, ch->log[i], FAKE_RECV_POST, "call %u", i);
	for (i = 0; i < sessions; i++)
		KUNIT_EXPECT_EQ(test, ch->log[depth + 1 + i], FAKE_OPEN_SESSION);
	KUNIT_EXPECT_EQ(test, ch->log[depth + 1 + sessions], FAKE_ACCEPT);
	KUNIT_EXPECT_EQ(test, ch->contract.cmds, depth);
}

/* SRP_LOGIN_RSP, byte by byte (SRP r16a, 6.3). */
static void expect_login_rsp(struct kunit *test, struct srpt_os_channel *ch,
			     const struct tf_login *l, u32 req_lim, u32 max_it,
			     u32 max_ti, u8 rsp_flags)
{
	const u8 *rsp = ch->rsp;
	u8 tag[8];

	KUNIT_ASSERT_EQ(test, ch->rsp_len, sizeof(struct srp_login_rsp));
	KUNIT_EXPECT_EQ(test, rsp[0], SRP_LOGIN_RSP);
	KUNIT_EXPECT_NULL(test, memchr_inv(rsp + 1, 0, 3));
	KUNIT_EXPECT_EQ(test, get_unaligned_be32(rsp + 4), req_lim);
	put_unaligned_be64(l->tag, tag);
	tf_expect_bytes(test, rsp + 8, tag, 8, "login response tag");
	KUNIT_EXPECT_EQ(test, get_unaligned_be32(rsp + 16), max_it);
	KUNIT_EXPECT_EQ(test, get_unaligned_be32(rsp + 20), max_ti);
	KUNIT_EXPECT_EQ(test, get_unaligned_be16(rsp + 24),
			SRP_BUF_FORMAT_DIRECT | SRP_BUF_FORMAT_INDIRECT);
	KUNIT_EXPECT_EQ(test, rsp[26], rsp_flags);
	KUNIT_EXPECT_NULL(test, memchr_inv(rsp + 27, 0, 52 - 27));
}

static void login_rdma_cm_accepted(struct kunit *test)
{
	struct srpt_tf *f = test->priv;
	struct srpt_os_channel *ch;
	struct srpt_channel *core;
	struct tf_login l;
	unsigned int mark;
	u32 max_req;

	tf_setup(test, SRPT_PORT_ID_GUID, 16384, guid_acls);
	max_req = tf_max_req_size(test);
	ch = tf_channel(test);
	tf_default_login(&l, SRPT_CM_RDMA, max_req);
	core = tf_login_ok(test, ch, &l);

	expect_accept_calls(test, ch, DEPTH, 1);
	KUNIT_EXPECT_EQ(test, ch->qp.max_recv_wr, DEPTH + 1);	/* and the drain's */
	KUNIT_EXPECT_EQ(test, ch->qp.max_rdma_ctxs, SQ_SIZE / 2);
	KUNIT_EXPECT_EQ(test, ch->qp.max_send_wr, SQ_SIZE / 2 + 4);
	KUNIT_EXPECT_EQ(test, ch->qp.cq_size, DEPTH + 1 + SQ_SIZE / 2 + 4);
	KUNIT_EXPECT_FALSE(test, ch->qp.use_srq);
	KUNIT_EXPECT_EQ(test, fake_recv_posted(&f->os, ch), DEPTH);
	KUNIT_EXPECT_EQ(test, fake_live_recvs(), (int)DEPTH);
	KUNIT_EXPECT_EQ(test, fake_live_cmds(), (int)DEPTH);
	/* A GUID-named target port knows RDMA/CM initiators by address. */
	KUNIT_EXPECT_EQ(test, ch->n_tried, 1U);
	KUNIT_EXPECT_STREQ(test, ch->tried[0], TF_RDMA_PEER);
	KUNIT_EXPECT_PTR_EQ(test, ch->session_tpg, &f->os_tpg);
	expect_login_rsp(test, ch, &l, DEPTH, max_req, MAX_RSP_SIZE,
			 SRP_LOGIN_RSP_MULTICHAN_NO_CHAN);

	KUNIT_EXPECT_EQ(test, srpt_probe_channel_state(core), SRPT_PROBE_CH_CONNECTING);
	KUNIT_EXPECT_EQ(test, srpt_probe_port_channels(f->port), 1U);
	KUNIT_EXPECT_EQ(test, srpt_probe_live_channels(), 1);

	/* The initiator rejects the response: the channel goes. */
	mark = ch->n_log;
	srpt_core_cm_event(core, SRPT_RDMA_CM_REJECTED);
	TF_EXPECT_CALLS(test, ch, mark, FAKE_QP_ERROR, FAKE_ZERO_WRITE);
	KUNIT_ASSERT_EQ(test, fake_channel_complete(ch, FAKE_WR_ZERO_WRITE, false), 0);
	flush_workqueue(srpt_wq);
	TF_EXPECT_CALLS(test, ch, mark, FAKE_QP_ERROR, FAKE_ZERO_WRITE, FAKE_CLOSE_SESSION,
			FAKE_DESTROY_CM, FAKE_DESTROY_QP, FAKE_FREE);
	KUNIT_EXPECT_EQ(test, srpt_probe_live_channels(), 0);
	KUNIT_EXPECT_EQ(test, fake_live_recvs(), 0);
	KUNIT_EXPECT_EQ(test, fake_live_cmds(), 0);
	KUNIT_EXPECT_EQ(test, srpt_probe_port_channels(f->port), 0U);
}

/*
 * IB/CM on a GID-named target port whose ACL names the initiator port id
 * without "0x"; a small device queue, a small request IU and immediate
 * data.
 */
static void login_ib_cm_accepted(struct kunit *test)
{
	static const char * const acls[] = { TF_I_PORT_NAME + 2, NULL };
	const u32 depth = 100, it_iu_len = 200, imm_offset = 80;
	struct srpt_tf *f = test->priv;
	struct srpt_os_channel *ch;
	struct srpt_os_recv *r;
	struct tf_login l;

	/* The drain takes the device's last receive slot. */
	tf_setup(test, SRPT_PORT_ID_GID, depth + 1, acls);
	ch = tf_channel(test);
	tf_default_login(&l, SRPT_CM_IB, it_iu_len);
	l.flags |= SRP_IMMED_REQUESTED;
	l.imm_offset = imm_offset;
	tf_login_ok(test, ch, &l);

	expect_accept_calls(test, ch, depth, 2);
	KUNIT_EXPECT_EQ(test, ch->qp.max_recv_wr, depth + 1);
	/* The commands' share leaves max_qp_wr room for the core's own WRs. */
	KUNIT_EXPECT_EQ(test, ch->qp.max_rdma_ctxs, depth + 1 - 4);
	/* "0x" + the initiator port id first, then without. */
	KUNIT_EXPECT_EQ(test, ch->n_tried, 2U);
	KUNIT_EXPECT_STREQ(test, ch->tried[0], TF_I_PORT_NAME);
	KUNIT_EXPECT_STREQ(test, ch->tried[1], TF_I_PORT_NAME + 2);
	KUNIT_EXPECT_STREQ(test, ch->initiator, TF_I_PORT_NAME + 2);
	expect_login_rsp(test, ch, &l, depth, tf_max_req_size(test), it_iu_len,
			 SRP_LOGIN_RSP_MULTICHAN_NO_CHAN | SRP_LOGIN_RSP_IMMED_SUPP);

	/* Every receive buffer puts immediate data on a 512-byte boundary. */
	r = fake_recv_take(&f->os, ch);
	KUNIT_ASSERT_NOT_NULL(test, r);
	KUNIT_EXPECT_EQ(test, r->size, tf_max_req_size(test));
	KUNIT_EXPECT_EQ(test, ((unsigned long)r->iu + imm_offset) % 512, 0UL);
	/* Back where it came from: the HCA did not use it. */
	KUNIT_EXPECT_EQ(test, srpt_os_recv_post(&f->os, ch, r), 0);

	tf_logout(test, ch);
	KUNIT_EXPECT_EQ(test, srpt_probe_live_channels(), 0);
}

/*
 * The login was rejected with @reason and left nothing behind; @had_qp:
 * it got as far as creating the queue pair.
 */
static void expect_rejected(struct kunit *test, struct srpt_os_channel *ch,
			    const struct tf_login *l, u32 reason, bool had_qp)
{
	struct srpt_tf *f = test->priv;
	struct srpt_channel *core = NULL;
	unsigned int calls;
	const u8 *rej;
	u8 tag[8];

	KUNIT_EXPECT_LT(test, tf_login(test, ch, l, &core), 0);
	KUNIT_EXPECT_EQ(test, ch->calls[FAKE_CM_REJECT], 1U);
	KUNIT_EXPECT_EQ(test, ch->calls[FAKE_ACCEPT], 0U);
	/* SRP_LOGIN_REJ, byte by byte (SRP r16a, 6.4). */
	rej = ch->rej;
	KUNIT_ASSERT_EQ(test, ch->rej_len, sizeof(struct srp_login_rej));
	KUNIT_EXPECT_EQ(test, rej[0], SRP_LOGIN_REJ);
	KUNIT_EXPECT_EQ(test, get_unaligned_be32(rej + 4), reason);
	put_unaligned_be64(l->tag, tag);
	tf_expect_bytes(test, rej + 8, tag, 8, "login rejection tag");
	KUNIT_EXPECT_EQ(test, get_unaligned_be16(rej + 24),
			SRP_BUF_FORMAT_DIRECT | SRP_BUF_FORMAT_INDIRECT);

	/* Nothing of the channel remains, also once deferred work ran. */
	calls = ch->n_log;
	flush_workqueue(srpt_wq);
	KUNIT_EXPECT_EQ_MSG(test, ch->n_log, calls, "calls after the rejection");
	KUNIT_EXPECT_EQ(test, srpt_probe_live_channels(), 0);
	KUNIT_EXPECT_EQ(test, srpt_probe_live(SRPT_PROBE_LIVE_NEXUSES), 0);
	KUNIT_EXPECT_EQ(test, srpt_probe_live(SRPT_PROBE_LIVE_CMDS), 0);
	KUNIT_EXPECT_EQ(test, srpt_probe_live(SRPT_PROBE_LIVE_RECVS), 0);
	KUNIT_EXPECT_EQ(test, fake_live_recvs(), 0);
	KUNIT_EXPECT_EQ(test, fake_live_cmds(), 0);
	KUNIT_EXPECT_EQ(test, srpt_probe_port_channels(f->port), 0U);
	KUNIT_EXPECT_NULL(test, ch->session_tpg);
	/* The shim frees the channel and the CM destroys the id. */
	KUNIT_EXPECT_EQ(test, ch->calls[FAKE_DESTROY_CM] + ch->calls[FAKE_FREE], 0U);
	if (!had_qp)
		KUNIT_EXPECT_EQ(test, ch->calls[FAKE_CREATE_QP], 0U);
	else if (fake_qp_created(ch))
		KUNIT_EXPECT_TRUE(test, ch->contract.qp_destroyed);
	KUNIT_EXPECT_EQ(test, fake_violations(), 0);
}

static const enum srpt_cm_kind cms[] = { SRPT_CM_IB, SRPT_CM_RDMA };

static void login_rejects_it_iu_len_out_of_range(struct kunit *test)
{
	struct srpt_os_channel *ch;
	struct tf_login l;
	u32 max_req, bad[4];
	int i, j;

	tf_setup(test, SRPT_PORT_ID_GUID, 16384, guid_acls);
	max_req = tf_max_req_size(test);
	bad[0] = 0;
	bad[1] = 63;
	bad[2] = max_req + 1;
	bad[3] = U32_MAX;
	for (i = 0; i < ARRAY_SIZE(cms); i++) {
		for (j = 0; j < ARRAY_SIZE(bad); j++) {
			tf_default_login(&l, cms[i], bad[j]);
			expect_rejected(test, tf_channel(test), &l,
					SRP_LOGIN_REJ_REQ_IT_IU_LENGTH_TOO_LARGE, false);
		}
		/* The smallest IU is fine, and bounds what the target sends. */
		ch = tf_channel(test);
		tf_default_login(&l, cms[i], 64);
		tf_login_ok(test, ch, &l);
		expect_login_rsp(test, ch, &l, DEPTH, max_req, 64, SRP_LOGIN_RSP_MULTICHAN_NO_CHAN);
		tf_logout(test, ch);
	}
}

static void login_rejects_other_target_port_id(struct kunit *test)
{
	struct tf_login l;
	int i;

	tf_setup(test, SRPT_PORT_ID_GUID, 16384, guid_acls);
	for (i = 0; i < ARRAY_SIZE(cms); i++) {
		tf_default_login(&l, cms[i], 1024);
		l.id_ext = TF_NODE_GUID + 1;
		expect_rejected(test, tf_channel(test), &l,
				SRP_LOGIN_REJ_UNABLE_ASSOCIATE_CHANNEL, false);
		tf_default_login(&l, cms[i], 1024);
		l.ioc_guid = TF_NODE_GUID ^ (1ULL << 63);
		expect_rejected(test, tf_channel(test), &l,
				SRP_LOGIN_REJ_UNABLE_ASSOCIATE_CHANNEL, false);
	}
}

/* The queue pair exists by then: its teardown must not outlive the login. */
static void login_rejects_disabled_tpg(struct kunit *test)
{
	struct srpt_tf *f = test->priv;
	struct tf_login l;
	int i;

	tf_setup(test, SRPT_PORT_ID_GUID, 16384, guid_acls);
	KUNIT_ASSERT_EQ(test, srpt_core_tpg_enable(f->tpg, 0), 0);
	for (i = 0; i < ARRAY_SIZE(cms); i++) {
		tf_default_login(&l, cms[i], 1024);
		expect_rejected(test, tf_channel(test), &l,
				SRP_LOGIN_REJ_INSUFFICIENT_RESOURCES, true);
	}
}

static void login_rejects_initiator_without_acl(struct kunit *test)
{
	static const char * const acls[] = { "0002:c903:00ab:cdee", "192.0.2.8", NULL };
	struct srpt_os_channel *ch;
	struct tf_login l;
	int i;

	tf_setup(test, SRPT_PORT_ID_GUID, 16384, acls);
	for (i = 0; i < ARRAY_SIZE(cms); i++) {
		ch = tf_channel(test);
		tf_default_login(&l, cms[i], 1024);
		expect_rejected(test, ch, &l, SRP_LOGIN_REJ_UNABLE_ESTABLISH_CHANNEL, true);
		KUNIT_EXPECT_EQ(test, ch->n_tried, 1U);
		KUNIT_EXPECT_STREQ(test, ch->tried[0],
				   cms[i] == SRPT_CM_IB ? TF_IB_PEER : TF_RDMA_PEER);
	}
}

/* create_qp fails at every send queue size down to the smallest. */
static void login_rejects_when_no_queue_pair(struct kunit *test)
{
	struct srpt_os_channel *ch;
	struct tf_login l;

	tf_setup(test, SRPT_PORT_ID_GUID, 16384, guid_acls);
	ch = tf_channel(test);
	ch->create_qp_err = -ENOMEM;
	tf_default_login(&l, SRPT_CM_RDMA, 1024);
	expect_rejected(test, ch, &l, SRP_LOGIN_REJ_INSUFFICIENT_RESOURCES, true);
	KUNIT_EXPECT_FALSE(test, fake_qp_created(ch));
	/* 4096, 2048, ..., 16 */
	KUNIT_EXPECT_EQ(test, ch->calls[FAKE_CREATE_QP], 9U);
	KUNIT_EXPECT_EQ(test, ch->qp.max_rdma_ctxs, 8U);
	KUNIT_EXPECT_EQ(test, ch->qp.cq_size, DEPTH + 1 + 8 + 4);
	KUNIT_EXPECT_EQ(test, ch->calls[FAKE_OPEN_SESSION], 0U);
}

/*
 * Sending the response fails once the channel has a session: the core
 * keeps the channel (the login returns 0), rejects, and closes it.
 */
static void login_accept_failure_closes_channel(struct kunit *test)
{
	struct srpt_tf *f = test->priv;
	struct srpt_os_channel *ch;
	struct srpt_channel *core = NULL;
	struct tf_login l;
	unsigned int mark = 1 + DEPTH + 1;	/* create_qp, recv_post.., open_session */

	tf_setup(test, SRPT_PORT_ID_GUID, 16384, guid_acls);
	ch = tf_channel(test);
	ch->accept_err = -EIO;
	tf_default_login(&l, SRPT_CM_IB, 1024);
	KUNIT_ASSERT_EQ(test, tf_login(test, ch, &l, &core), 0);
	TF_EXPECT_CALLS(test, ch, mark, FAKE_ACCEPT, FAKE_CM_REJECT, FAKE_QP_ERROR,
			FAKE_ZERO_WRITE);
	KUNIT_ASSERT_EQ(test, ch->rej_len, sizeof(struct srp_login_rej));
	KUNIT_EXPECT_EQ(test, ch->rej[0], SRP_LOGIN_REJ);
	KUNIT_EXPECT_EQ(test, get_unaligned_be32(ch->rej + 4),
			(u32)SRP_LOGIN_REJ_INSUFFICIENT_RESOURCES);
	KUNIT_EXPECT_EQ(test, srpt_probe_channel_state(core), SRPT_PROBE_CH_DRAINING);
	KUNIT_EXPECT_EQ(test, srpt_probe_port_channels(f->port), 1U);

	KUNIT_ASSERT_EQ(test, fake_channel_complete(ch, FAKE_WR_ZERO_WRITE, false), 0);
	flush_workqueue(srpt_wq);
	TF_EXPECT_CALLS(test, ch, mark, FAKE_ACCEPT, FAKE_CM_REJECT, FAKE_QP_ERROR,
			FAKE_ZERO_WRITE, FAKE_CLOSE_SESSION, FAKE_DESTROY_CM, FAKE_DESTROY_QP,
			FAKE_FREE);
	KUNIT_EXPECT_EQ(test, srpt_probe_live_channels(), 0);
	KUNIT_EXPECT_EQ(test, srpt_probe_port_channels(f->port), 0U);
}

/* A single-channel login of the same I_T nexus replaces the channel. */
static void login_again_terminates_other_channel(struct kunit *test)
{
	struct srpt_os_channel *ch1, *ch2;
	struct srpt_channel *core1;
	struct tf_login l;
	unsigned int mark;

	tf_setup(test, SRPT_PORT_ID_GUID, 16384, guid_acls);
	ch1 = tf_channel(test);
	ch2 = tf_channel(test);
	tf_default_login(&l, SRPT_CM_RDMA, 1024);
	core1 = tf_login_ok(test, ch1, &l);
	tf_establish(test, ch1);

	mark = ch1->n_log;
	tf_login_ok(test, ch2, &l);
	expect_login_rsp(test, ch2, &l, DEPTH, tf_max_req_size(test), MAX_RSP_SIZE,
			 SRP_LOGIN_RSP_MULTICHAN_TERMINATED);
	/* The old channel got a DREQ; the initiator answers it. */
	TF_EXPECT_CALLS(test, ch1, mark, FAKE_DISCONNECT);
	KUNIT_EXPECT_EQ(test, srpt_probe_channel_state(core1), SRPT_PROBE_CH_DISCONNECTING);
	srpt_core_cm_event(core1, SRPT_RDMA_CM_TIMEWAIT_EXIT);
	TF_EXPECT_CALLS(test, ch1, mark, FAKE_DISCONNECT, FAKE_QP_ERROR, FAKE_ZERO_WRITE);
	KUNIT_ASSERT_EQ(test, fake_channel_complete(ch1, FAKE_WR_ZERO_WRITE, false), 0);
	flush_workqueue(srpt_wq);
	KUNIT_EXPECT_TRUE(test, fake_freed(ch1));
	KUNIT_EXPECT_EQ(test, srpt_probe_live_channels(), 1);
	tf_logout(test, ch2);
}

static void login_multichannel_keeps_other_channel(struct kunit *test)
{
	struct srpt_tf *f = test->priv;
	struct srpt_os_channel *ch1, *ch2;
	struct tf_login l;

	tf_setup(test, SRPT_PORT_ID_GUID, 16384, guid_acls);
	ch1 = tf_channel(test);
	ch2 = tf_channel(test);
	tf_default_login(&l, SRPT_CM_IB, 1024);
	l.flags = SRP_MULTICHAN_MULTI;
	tf_login_ok(test, ch1, &l);
	tf_login_ok(test, ch2, &l);
	expect_login_rsp(test, ch2, &l, DEPTH, tf_max_req_size(test), MAX_RSP_SIZE,
			 SRP_LOGIN_RSP_MULTICHAN_MAINTAINED);
	KUNIT_EXPECT_EQ(test, ch1->calls[FAKE_DISCONNECT], 0U);
	KUNIT_EXPECT_EQ(test, srpt_probe_port_channels(f->port), 2U);
	tf_logout(test, ch1);
	tf_logout(test, ch2);
	KUNIT_EXPECT_EQ(test, srpt_probe_port_channels(f->port), 0U);
}

static struct kunit_case srpt_login_cases[] = {
	KUNIT_CASE(login_rdma_cm_accepted),
	KUNIT_CASE(login_ib_cm_accepted),
	KUNIT_CASE(login_rejects_it_iu_len_out_of_range),
	KUNIT_CASE(login_rejects_other_target_port_id),
	KUNIT_CASE(login_rejects_disabled_tpg),
	KUNIT_CASE(login_rejects_initiator_without_acl),
	KUNIT_CASE(login_rejects_when_no_queue_pair),
	KUNIT_CASE(login_accept_failure_closes_channel),
	KUNIT_CASE(login_again_terminates_other_channel),
	KUNIT_CASE(login_multichannel_keeps_other_channel),
	{}
};

static struct kunit_suite srpt_login_suite = {
	.name = "srpt_login",
	.suite_init = srpt_kunit_suite_init,
	.suite_exit = srpt_kunit_suite_exit,
	.init = tf_init,
	.exit = tf_exit,
	.test_cases = srpt_login_cases,
};

kunit_test_suites(&srpt_login_suite);
