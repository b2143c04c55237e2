// SPDX-License-Identifier: GPL-2.0-only
/*
 * KUnit suite "srpt_channel": the channel state machine in the kernel,
 *
 *   CONNECTING -> LIVE -> DISCONNECTING -> DRAINING -> DISCONNECTED,
 *
 * driven through CM and QP events and completions, with the release on
 * the core's workqueue (src/shim/os.c) and the waits on real completions:
 * IUs that arrive early wait for LIVE, every way out ends in the release
 * work tearing down in the documented order, and whoever waits for a
 * release (close_session, TPG disable, device removal) returns after it.
 */
#include <kunit/test.h>
#include <linux/completion.h>
#include <linux/jiffies.h>
#include <linux/kernel.h>
#include <linux/sched/clock.h>
#include <linux/workqueue.h>
#include <asm/unaligned.h>
#include <scsi/srp.h>

#include <srpt/abi.h>

#include "../src/shim/os.h"
#include "fake_datapath.h"
#include "probe.h"
#include "target_fixture.h"

#define DEPTH 128U

/* A GUID-named target port that admits the RDMA/CM initiator. */
static struct srpt_channel *login(struct kunit *test, struct srpt_os_channel **out)
{
	static const char * const acls[] = { TF_RDMA_PEER, NULL };
	struct srpt_os_channel *ch;
	struct tf_login l;

	tf_setup(test, SRPT_PORT_ID_GUID, 16384, acls);
	ch = tf_channel(test);
	tf_default_login(&l, SRPT_CM_RDMA, 1024);
	*out = ch;
	return tf_login_ok(test, ch, &l);
}

/* LIO answers @cmd with GOOD status at once and lets go of it. */
static void answer(struct kunit *test, struct srpt_os_channel *ch, struct srpt_os_cmd *cmd)
{
	const struct srpt_cmd_status st = { .scsi_status = 0 };

	srpt_core_queue_response(cmd->core, st, 0);
	KUNIT_ASSERT_EQ(test, fake_channel_complete(ch, FAKE_WR_SEND, true), 0);
	srpt_core_release_cmd(cmd->core);
}

static void channel_iu_before_rtu_waits_for_live(struct kunit *test)
{
	struct srpt_tf *f = test->priv;
	struct srpt_probe_credits cr;
	struct srpt_os_channel *ch;
	struct srpt_channel *core;
	struct srpt_os_cmd *cmd;
	struct srpt_os_recv *r;
	unsigned int mark;
	u8 iu[64];
	u32 len;

	core = login(test, &ch);
	mark = ch->n_log;
	/* The first SRP_CMD overtakes the RTU: it waits, with its buffer. */
	len = tf_build_write(iu, 0x42, 0x10000, 0x77, 4096);
	r = tf_send_iu(test, ch, iu, len);
	TF_EXPECT_NO_CALLS(test, ch, mark);
	KUNIT_EXPECT_FALSE(test, fake_recv_is_posted(r));
	KUNIT_EXPECT_EQ(test, srpt_probe_channel_state(core), SRPT_PROBE_CH_CONNECTING);

	/* It arrived before the RTU: the CM is told the connection is up. */
	srpt_core_qp_event(core, SRPT_IB_EVENT_COMM_EST);
	TF_EXPECT_CALLS(test, ch, mark, FAKE_NOTIFY_ESTABLISHED);
	srpt_core_cm_event(core, SRPT_RDMA_CM_ESTABLISHED);
	TF_EXPECT_CALLS(test, ch, mark, FAKE_NOTIFY_ESTABLISHED, FAKE_READY, FAKE_ZERO_WRITE);
	KUNIT_EXPECT_EQ(test, srpt_probe_channel_state(core), SRPT_PROBE_CH_LIVE);

	/* Handled in completion context once the zero-length write completes. */
	KUNIT_ASSERT_EQ(test, fake_channel_complete(ch, FAKE_WR_ZERO_WRITE, true), 0);
	TF_EXPECT_CALLS(test, ch, mark, FAKE_NOTIFY_ESTABLISHED, FAKE_READY, FAKE_ZERO_WRITE,
			FAKE_CMD_BUF_ADD, FAKE_CMD_INIT, FAKE_CMD_SUBMIT);
	cmd = ch->last_cmd;
	KUNIT_ASSERT_NOT_NULL(test, cmd);
	KUNIT_EXPECT_EQ(test, cmd->info.tag, 0x42ULL);
	/* Held until the response that returns its credit. */
	KUNIT_EXPECT_FALSE(test, fake_recv_is_posted(r));
	KUNIT_EXPECT_EQ(test, fake_recv_posted(&f->os, ch), DEPTH - 1);
	srpt_probe_channel_credits(core, &cr);
	KUNIT_EXPECT_EQ(test, cr.req_lim, (int)DEPTH - 1);

	answer(test, ch, cmd);
	TF_EXPECT_CALLS(test, ch, mark, FAKE_NOTIFY_ESTABLISHED, FAKE_READY, FAKE_ZERO_WRITE,
			FAKE_CMD_BUF_ADD, FAKE_CMD_INIT, FAKE_CMD_SUBMIT, FAKE_RECV_POST,
			FAKE_CMD_POST_RESPONSE, FAKE_CMD_DONE, FAKE_CMD_RELEASE_DATA);
	KUNIT_EXPECT_TRUE(test, fake_recv_is_posted(r));
	KUNIT_EXPECT_EQ(test, fake_recv_posted(&f->os, ch), DEPTH);
	srpt_probe_channel_credits(core, &cr);
	KUNIT_EXPECT_EQ(test, cr.req_lim, (int)DEPTH);
	tf_logout(test, ch);
}

static void channel_disconnect_releases_in_order(struct kunit *test)
{
	struct srpt_tf *f = test->priv;
	struct srpt_os_channel *ch;
	struct srpt_channel *core;
	unsigned int mark;

	core = login(test, &ch);
	tf_establish(test, ch);
	/* Ours, to look at the channel after its release. */
	srpt_probe_channel_get(core);

	mark = ch->n_log;
	srpt_core_cm_event(core, SRPT_RDMA_CM_DISCONNECTED);
	TF_EXPECT_CALLS(test, ch, mark, FAKE_DISCONNECT, FAKE_QP_ERROR, FAKE_ZERO_WRITE);
	KUNIT_EXPECT_EQ(test, srpt_probe_channel_state(core), SRPT_PROBE_CH_DRAINING);
	/* Nothing goes before the drain write is back; a late DREP changes nothing. */
	srpt_core_cm_event(core, SRPT_RDMA_CM_TIMEWAIT_EXIT);
	flush_workqueue(srpt_wq);
	TF_EXPECT_CALLS(test, ch, mark, FAKE_DISCONNECT, FAKE_QP_ERROR, FAKE_ZERO_WRITE);
	KUNIT_EXPECT_EQ(test, srpt_probe_channel_state(core), SRPT_PROBE_CH_DRAINING);
	KUNIT_EXPECT_EQ(test, srpt_probe_port_channels(f->port), 1U);

	/* The QP flushed it: DISCONNECTED, and the release runs on srpt_wq. */
	KUNIT_ASSERT_EQ(test, fake_channel_complete(ch, FAKE_WR_ZERO_WRITE, false), 0);
	KUNIT_EXPECT_EQ(test, srpt_probe_channel_state(core), SRPT_PROBE_CH_DISCONNECTED);
	flush_workqueue(srpt_wq);
	TF_EXPECT_CALLS(test, ch, mark, FAKE_DISCONNECT, FAKE_QP_ERROR, FAKE_ZERO_WRITE,
			FAKE_CLOSE_SESSION, FAKE_DESTROY_CM, FAKE_DESTROY_QP, FAKE_FREE);
	KUNIT_EXPECT_TRUE(test, fake_freed(ch));
	KUNIT_EXPECT_EQ(test, fake_live_recvs(), 0);
	KUNIT_EXPECT_EQ(test, fake_live_cmds(), 0);
	KUNIT_EXPECT_EQ(test, srpt_probe_port_channels(f->port), 0U);
	/* Only our reference is left. */
	KUNIT_EXPECT_EQ(test, srpt_probe_channel_state(core), SRPT_PROBE_CH_DISCONNECTED);
	KUNIT_EXPECT_EQ(test, srpt_probe_live_channels(), 1);
	srpt_probe_channel_put(core);
	KUNIT_EXPECT_EQ(test, srpt_probe_live_channels(), 0);
}

/* LIO's close_session() from its own thread returns only after the release. */
static void channel_close_session_waits_for_release(struct kunit *test)
{
	struct srpt_os_channel *ch;
	struct srpt_channel *core;
	struct tf_closer *c;
	unsigned int mark;

	core = login(test, &ch);
	tf_establish(test, ch);
	mark = ch->n_log;
	c = tf_close_session_async(test, ch);
	KUNIT_ASSERT_TRUE_MSG(test, TF_WAIT_FOR(fake_channel_outstanding(ch) == 1),
			      "no drain write was posted");
	TF_EXPECT_CALLS(test, ch, mark, FAKE_DISCONNECT, FAKE_QP_ERROR, FAKE_ZERO_WRITE);
	KUNIT_EXPECT_EQ(test, srpt_probe_channel_state(core), SRPT_PROBE_CH_DRAINING);
	KUNIT_EXPECT_EQ(test, wait_for_completion_timeout(&c->done, msecs_to_jiffies(100)), 0UL);

	KUNIT_ASSERT_EQ(test, fake_channel_complete(ch, FAKE_WR_ZERO_WRITE, false), 0);
	KUNIT_ASSERT_GT_MSG(test, wait_for_completion_timeout(&c->done, 5 * HZ), 0UL,
			    "close_session still waits");
	KUNIT_EXPECT_TRUE(test, c->freed_at_return);
	flush_workqueue(srpt_wq);
	TF_EXPECT_CALLS(test, ch, mark, FAKE_DISCONNECT, FAKE_QP_ERROR, FAKE_ZERO_WRITE,
			FAKE_CLOSE_SESSION, FAKE_DESTROY_CM, FAKE_DESTROY_QP, FAKE_FREE);
	KUNIT_EXPECT_EQ(test, srpt_probe_live_channels(), 0);
}

static void channel_device_removal_logs_out(struct kunit *test)
{
	struct srpt_tf *f = test->priv;
	struct srpt_os_channel *ch;
	unsigned int mark;

	login(test, &ch);
	tf_establish(test, ch);
	/* Removal waits in this thread: the QP must complete on its own. */
	fake_channel_auto_complete(ch);
	mark = ch->n_log;
	fake_ib_device_remove(&f->os, f->dev);
	f->dev = NULL;
	KUNIT_EXPECT_TRUE(test, fake_freed(ch));
	TF_EXPECT_CALLS(test, ch, mark, FAKE_DISCONNECT, FAKE_QP_ERROR, FAKE_ZERO_WRITE,
			FAKE_CLOSE_SESSION, FAKE_DESTROY_CM, FAKE_DESTROY_QP, FAKE_FREE);
	KUNIT_EXPECT_EQ(test, srpt_probe_port_channels(f->port), 0U);
	flush_workqueue(srpt_wq);
	KUNIT_EXPECT_EQ(test, srpt_probe_live_channels(), 0);
	KUNIT_EXPECT_EQ(test, fake_live_recvs(), 0);
	KUNIT_EXPECT_EQ(test, fake_live_cmds(), 0);
}

/* Before the RTU: disabling the TPG logs out a connecting channel too. */
static void channel_tpg_disable_logs_out(struct kunit *test)
{
	struct srpt_tf *f = test->priv;
	struct srpt_os_channel *ch;
	unsigned int mark;

	login(test, &ch);
	fake_channel_auto_complete(ch);
	mark = ch->n_log;
	KUNIT_EXPECT_EQ(test, srpt_core_tpg_enable(f->tpg, 0), 0);
	KUNIT_EXPECT_TRUE(test, fake_freed(ch));
	TF_EXPECT_CALLS(test, ch, mark, FAKE_DISCONNECT, FAKE_QP_ERROR, FAKE_ZERO_WRITE,
			FAKE_CLOSE_SESSION, FAKE_DESTROY_CM, FAKE_DESTROY_QP, FAKE_FREE);
	flush_workqueue(srpt_wq);
	KUNIT_EXPECT_EQ(test, srpt_probe_live_channels(), 0);
}

/* A broken QP logs out from srpt_wq, not from the atomic context it is seen in. */
static void expect_logout_from_wq(struct kunit *test, struct srpt_os_channel *ch,
				  unsigned int mark)
{
	flush_workqueue(srpt_wq);
	TF_EXPECT_CALLS(test, ch, mark, FAKE_DISCONNECT, FAKE_QP_ERROR, FAKE_ZERO_WRITE);
	KUNIT_EXPECT_EQ(test, srpt_probe_channel_state(ch->core), SRPT_PROBE_CH_DRAINING);
	KUNIT_ASSERT_EQ(test, fake_channel_complete(ch, FAKE_WR_ZERO_WRITE, false), 0);
	flush_workqueue(srpt_wq);
	TF_EXPECT_CALLS(test, ch, mark, FAKE_DISCONNECT, FAKE_QP_ERROR, FAKE_ZERO_WRITE,
			FAKE_CLOSE_SESSION, FAKE_DESTROY_CM, FAKE_DESTROY_QP, FAKE_FREE);
	KUNIT_EXPECT_EQ(test, srpt_probe_live_channels(), 0);
}

static void channel_qp_fatal_logs_out(struct kunit *test)
{
	struct srpt_os_channel *ch;
	struct srpt_channel *core;
	unsigned int mark;

	core = login(test, &ch);
	tf_establish(test, ch);
	mark = ch->n_log;
	srpt_core_qp_event(core, SRPT_IB_EVENT_QP_FATAL);
	expect_logout_from_wq(test, ch, mark);
}

static void channel_recv_failure_logs_out(struct kunit *test)
{
	struct srpt_tf *f = test->priv;
	struct srpt_os_channel *ch;
	struct srpt_channel *core;
	struct srpt_os_recv *r;
	unsigned int mark;

	core = login(test, &ch);
	tf_establish(test, ch);
	mark = ch->n_log;
	r = fake_recv_take(&f->os, ch);
	KUNIT_ASSERT_NOT_NULL(test, r);
	srpt_core_recv_done(core, r->core, SRPT_WC_RETRY_EXC_ERR, 0, local_clock());
	expect_logout_from_wq(test, ch, mark);
}

/* SRP_I_LOGOUT: the initiator logs itself out. */
static void channel_i_logout_logs_out(struct kunit *test)
{
	struct srp_i_logout iu = { .opcode = SRP_I_LOGOUT };
	struct srpt_os_channel *ch;
	unsigned int mark;

	login(test, &ch);
	tf_establish(test, ch);
	mark = ch->n_log;
	put_unaligned_be64(7, &iu.tag);
	tf_send_iu(test, ch, &iu, sizeof(iu));
	flush_workqueue(srpt_wq);
	TF_EXPECT_CALLS(test, ch, mark, FAKE_RECV_POST, FAKE_DISCONNECT, FAKE_QP_ERROR,
			FAKE_ZERO_WRITE);
	KUNIT_ASSERT_EQ(test, fake_channel_complete(ch, FAKE_WR_ZERO_WRITE, false), 0);
	flush_workqueue(srpt_wq);
	TF_EXPECT_CALLS(test, ch, mark, FAKE_RECV_POST, FAKE_DISCONNECT, FAKE_QP_ERROR,
			FAKE_ZERO_WRITE, FAKE_CLOSE_SESSION, FAKE_DESTROY_CM, FAKE_DESTROY_QP,
			FAKE_FREE);
	KUNIT_EXPECT_EQ(test, srpt_probe_live_channels(), 0);
}

/* No drain write can be posted, and no DREQ sent: released at once. */
static void channel_unpostable_drain_releases(struct kunit *test)
{
	struct srpt_os_channel *ch;
	struct srpt_channel *core;
	unsigned int mark;

	core = login(test, &ch);
	tf_establish(test, ch);
	ch->disconnect_err = -EINVAL;
	ch->zero_write_err = -EIO;
	mark = ch->n_log;
	/* LIO's close_session, in the test's own thread. */
	srpt_core_close_session(core);
	TF_EXPECT_CALLS(test, ch, mark, FAKE_DISCONNECT, FAKE_QP_ERROR, FAKE_ZERO_WRITE,
			FAKE_CLOSE_SESSION, FAKE_DESTROY_CM, FAKE_DESTROY_QP, FAKE_FREE);
	flush_workqueue(srpt_wq);
	KUNIT_EXPECT_EQ(test, srpt_probe_live_channels(), 0);
}

/*
 * use_srq: switching it logs the port's channels out; SRQ channels take
 * their IUs from the device's buffers and give them back there, also
 * those still waiting when the channel goes.
 */
static void channel_srq_shares_receive_buffers(struct kunit *test)
{
	static const char * const acls[] = { TF_RDMA_PEER, NULL };
	struct srpt_tf *f = test->priv;
	struct srpt_os_channel *ch1, *ch2, *ch3;
	struct srpt_os_recv *r;
	struct srpt_os_cmd *cmd;
	struct tf_login l;
	unsigned int mark;
	u8 iu[64];
	u32 len;

	KUNIT_ASSERT_EQ(test, srpt_core_param_set(SRPT_PARAM_SRQ_SIZE, "16"), 0);
	f->srq_size_changed = true;
	tf_setup(test, SRPT_PORT_ID_GUID, 16384, acls);
	ch1 = tf_channel(test);
	tf_default_login(&l, SRPT_CM_RDMA, 1024);
	l.flags |= SRP_IMMED_REQUESTED;
	l.imm_offset = 80;
	tf_login_ok(test, ch1, &l);
	tf_establish(test, ch1);

	/* The switch logs out the live channel first. */
	fake_channel_auto_complete(ch1);
	KUNIT_ASSERT_EQ(test, srpt_core_tpg_attrib_store(f->tpg, SRPT_ATTRIB_USE_SRQ, "1", 1), 1);
	KUNIT_EXPECT_TRUE(test, fake_freed(ch1));
	KUNIT_ASSERT_TRUE(test, f->os.srq);
	KUNIT_EXPECT_EQ(test, f->os.srq_size, 16U);
	KUNIT_EXPECT_EQ(test, fake_recv_posted(&f->os, NULL), 16U);
	KUNIT_EXPECT_EQ(test, fake_live_recvs(), 16);

	/* No buffers of its own, and no immediate data through the SRQ. */
	ch2 = tf_channel(test);
	tf_login_ok(test, ch2, &l);
	KUNIT_EXPECT_TRUE(test, ch2->qp.use_srq);
	KUNIT_EXPECT_EQ(test, ch2->calls[FAKE_RECV_POST], 0U);
	KUNIT_EXPECT_EQ(test, ch2->rsp[26], SRP_LOGIN_RSP_MULTICHAN_NO_CHAN);
	KUNIT_EXPECT_EQ(test, fake_live_recvs(), 16);
	tf_establish(test, ch2);
	len = tf_build_write(iu, 0x51, 0x4000, 9, 512);
	mark = ch2->n_log;
	r = tf_send_iu(test, ch2, iu, len);
	TF_EXPECT_CALLS(test, ch2, mark, FAKE_CMD_BUF_ADD, FAKE_CMD_INIT, FAKE_CMD_SUBMIT);
	KUNIT_EXPECT_TRUE(test, fake_recv_is_posted(r));
	KUNIT_EXPECT_EQ(test, f->os.srq_posts, 16U + 1);
	cmd = ch2->last_cmd;
	KUNIT_ASSERT_NOT_NULL(test, cmd);
	answer(test, ch2, cmd);
	tf_logout(test, ch2);

	/* An IU waiting for LIVE when the channel goes is the SRQ's again. */
	ch3 = tf_channel(test);
	tf_default_login(&l, SRPT_CM_RDMA, 1024);
	tf_login_ok(test, ch3, &l);
	r = tf_send_iu(test, ch3, iu, len);
	KUNIT_EXPECT_FALSE(test, fake_recv_is_posted(r));
	tf_logout(test, ch3);
	KUNIT_EXPECT_TRUE(test, fake_recv_is_posted(r));
	KUNIT_EXPECT_EQ(test, fake_recv_posted(&f->os, NULL), 16U);
	KUNIT_EXPECT_EQ(test, fake_live_recvs(), 16);
	KUNIT_EXPECT_EQ(test, f->os.contract.srq_qps, 0U);

	/* The last user goes: so does the SRQ with its buffers. */
	KUNIT_ASSERT_EQ(test, srpt_core_tpg_attrib_store(f->tpg, SRPT_ATTRIB_USE_SRQ, "0", 1), 1);
	KUNIT_EXPECT_FALSE(test, f->os.srq);
	KUNIT_EXPECT_EQ(test, f->os.srq_destroy_calls, 1U);
	KUNIT_EXPECT_EQ(test, fake_live_recvs(), 0);
}

static struct kunit_case srpt_channel_cases[] = {
	KUNIT_CASE(channel_iu_before_rtu_waits_for_live),
	KUNIT_CASE(channel_disconnect_releases_in_order),
	KUNIT_CASE(channel_close_session_waits_for_release),
	KUNIT_CASE(channel_device_removal_logs_out),
	KUNIT_CASE(channel_tpg_disable_logs_out),
	KUNIT_CASE(channel_qp_fatal_logs_out),
	KUNIT_CASE(channel_recv_failure_logs_out),
	KUNIT_CASE(channel_i_logout_logs_out),
	KUNIT_CASE(channel_unpostable_drain_releases),
	KUNIT_CASE(channel_srq_shares_receive_buffers),
	{}
};

static struct kunit_suite srpt_channel_suite = {
	.name = "srpt_channel",
	.suite_init = srpt_kunit_suite_init,
	.suite_exit = srpt_kunit_suite_exit,
	.init = tf_init,
	.exit = tf_exit,
	.test_cases = srpt_channel_cases,
};

kunit_test_suites(&srpt_channel_suite);
