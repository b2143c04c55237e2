// SPDX-License-Identifier: GPL-2.0-only
/*
 * KUnit suite "srpt_double": the KUnit double itself enforces the
 * contract it shares with the host double (tests/doubles/contract.h).
 * Each case breaks one rule on purpose, as the host's Fake.* tests do,
 * and checks that the double reported it; a legal sequence reports
 * nothing. Violations here are expected: fake_expect_violations() keeps
 * them from WARNing.
 */
#include <kunit/test.h>
#include <linux/irqflags.h>
#include <linux/string.h>

#include <srpt/abi.h>

#include "fake_datapath.h"
#include "fake_ib.h"

struct dbl {
	struct srpt_os_device dev;
	struct srpt_os_channel ch;
	struct srpt_qp_params p;
	int core;			/* what the double takes for the core's objects */
};

/* A result the case does not look at (the double's violation count tells). */
static void ignore(int ret)
{
}

/* @stmt breaks a rule: one more violation, whose text holds @text. */
#define EXPECT_BREACH(test, stmt, text)						\
	do {									\
		int n_ = fake_violations();					\
		stmt;								\
		KUNIT_EXPECT_GT_MSG(test, fake_violations(), n_, "not caught: %s", text); \
		KUNIT_EXPECT_NOT_NULL_MSG(test, strstr(fake_last_violation(), text), \
					  "reported \"%s\", not \"%s\"",	\
					  fake_last_violation(), text);		\
	} while (0)

/* @stmt keeps every rule. */
#define EXPECT_KEPT(test, stmt)							\
	do {									\
		int n_ = fake_violations();					\
		stmt;								\
		KUNIT_EXPECT_EQ_MSG(test, fake_violations(), n_, "reported \"%s\"", \
				    fake_last_violation());			\
	} while (0)

static int dbl_init(struct kunit *test)
{
	struct dbl *d = kunit_kzalloc(test, sizeof(*d), GFP_KERNEL);

	if (!d)
		return -ENOMEM;
	d->dev.info.port_count = 1;
	d->dev.info.max_qp_wr = 1024;
	d->dev.info.max_send_sge = 30;
	d->dev.info.max_qp_rd_atom = 16;
	d->dev.info.max_qp_init_rd_atom = 16;
	fake_channel_init(&d->ch, &d->dev);
	d->p.max_recv_wr = 8;
	d->p.max_send_wr = 8;
	d->p.max_rdma_ctxs = 4;
	d->p.cq_size = 32;
	d->p.max_send_sge = 1;
	test->priv = d;
	fake_reset_violations();
	fake_expect_violations(true);
	return 0;
}

static void dbl_exit(struct kunit *test)
{
	fake_expect_violations(false);
	fake_reset_violations();
}

/* A channel with a QP (no SRQ), as after a login's create_qp. */
static struct srpt_os_channel *with_qp(struct kunit *test)
{
	struct dbl *d = test->priv;

	KUNIT_ASSERT_EQ(test, srpt_os_channel_create_qp(&d->ch, (void *)&d->core, &d->p), 0);
	return &d->ch;
}

/* The teardown of a channel without a session, nothing posted. */
static void teardown(struct srpt_os_channel *ch)
{
	srpt_os_channel_destroy_cm(ch);
	srpt_os_channel_destroy_qp(ch);
	srpt_os_channel_free(ch);
}

static void double_channel_order(struct kunit *test)
{
	struct dbl *d = test->priv;
	static struct srpt_os_tpg tpg = { .acls = { "initiator" } };

	EXPECT_BREACH(test, ignore(srpt_os_channel_accept(&d->ch, "", 0)), "accept without a QP");
	EXPECT_BREACH(test, ignore(srpt_os_channel_create_qp(&d->ch, NULL, &d->p)),
		      "create_qp without the core's channel");
	d->ch.contract = (struct srpt_contract){};
	d->p.initiator_depth = 1;
	EXPECT_BREACH(test, with_qp(test), "RDMA READ depths beyond the initiator's");
	EXPECT_BREACH(test, ignore(srpt_os_channel_open_session(&d->ch, NULL, "initiator")),
		      "open_session without a TPG or initiator");
	EXPECT_KEPT(test, KUNIT_EXPECT_EQ(test, srpt_os_channel_open_session(&d->ch, &tpg,
									    "initiator"), 0));
	EXPECT_BREACH(test, srpt_os_channel_destroy_cm(&d->ch),
		      "destroy_cm while the LIO session is open");
	EXPECT_BREACH(test, srpt_os_channel_close_session(&d->ch),
		      "close_session after the CM id or the QP was destroyed");
	EXPECT_BREACH(test, srpt_os_channel_free(&d->ch), "free before destroy_qp");
	EXPECT_BREACH(test, ignore(srpt_os_channel_ready(&d->ch)), "after srpt_os_channel_free()");
}

static void double_login_handler_and_zero_writes(struct kunit *test)
{
	struct dbl *d = test->priv;

	d->p.max_send_wr = 6;		/* 4 for commands, 1 for the drain: 1 zero write */
	with_qp(test);
	d->ch.zero_write_err = -EIO;	/* nothing queued: the core is not there to complete */
	EXPECT_KEPT(test, ignore(srpt_os_channel_post_zero_write(&d->ch)));
	d->ch.qp.max_send_wr = 5;
	EXPECT_BREACH(test, ignore(srpt_os_channel_post_zero_write(&d->ch)),
		      "post_zero_write with no room left");
	d->ch.contract.in_cm_handler = 1;
	EXPECT_BREACH(test, srpt_os_channel_destroy_cm(&d->ch),
		      "destroy_cm from its own CM handler");
	d->ch.contract.in_cm_handler = 0;
	srpt_os_channel_destroy_qp(&d->ch);
	EXPECT_BREACH(test, srpt_os_channel_destroy_qp(&d->ch), "destroy_qp twice");
	srpt_os_channel_free(&d->ch);
}

static void double_device_and_ports(struct kunit *test)
{
	struct dbl *d = test->priv;
	struct srpt_port_attr attr;
	int port;

	EXPECT_KEPT(test, KUNIT_EXPECT_EQ(test, srpt_os_port_query(&d->dev, 1, &attr), 0));
	EXPECT_BREACH(test, ignore(srpt_os_port_query(&d->dev, 2, &attr)), "a nonexistent port");
	EXPECT_BREACH(test, ignore(srpt_os_mad_agent_register(&d->dev, 1, NULL)),
		      "a MAD agent without its port");
	srpt_os_mad_agent_unregister(&d->dev, 1);
	EXPECT_KEPT(test, ignore(srpt_os_mad_agent_register(&d->dev, 1, (void *)&port)));
	EXPECT_BREACH(test, ignore(srpt_os_mad_agent_register(&d->dev, 1, (void *)&port)),
		      "a second MAD agent on a port");
	EXPECT_BREACH(test, srpt_os_device_events_stop(&d->dev), "events stopped but not started");
	srpt_os_device_events_start(&d->dev);
	EXPECT_BREACH(test, srpt_os_device_events_start(&d->dev), "events started twice");
	EXPECT_KEPT(test, ignore(srpt_os_ib_cm_listen(&d->dev, 1)));
	EXPECT_BREACH(test, ignore(srpt_os_ib_cm_listen(&d->dev, 1)), "ib_cm_listen while listening");
	d->dev.contract.removed = 1;
	EXPECT_BREACH(test, ignore(srpt_os_port_query(&d->dev, 1, &attr)),
		      "a call after srpt_core_device_remove()");
}

static void double_srq(struct kunit *test)
{
	struct dbl *d = test->priv;
	void *iu;
	struct srpt_os_recv *r = srpt_os_recv_alloc(&d->dev, NULL, 64, 0, &iu);

	KUNIT_ASSERT_NOT_NULL(test, r);
	EXPECT_BREACH(test, srpt_os_srq_destroy(&d->dev), "srq_destroy without an SRQ");
	EXPECT_BREACH(test, ignore(srpt_os_recv_post(&d->dev, NULL, r)),
		      "recv_post on the SRQ of a device without one");
	d->p.use_srq = 1;
	EXPECT_BREACH(test, with_qp(test), "create_qp with use_srq on a device without an SRQ");
	srpt_os_channel_destroy_cm(&d->ch);
	srpt_os_channel_destroy_qp(&d->ch);
	srpt_os_channel_free(&d->ch);

	KUNIT_ASSERT_EQ(test, srpt_os_srq_create(&d->dev, 4), 0);
	EXPECT_BREACH(test, ignore(srpt_os_srq_create(&d->dev, 4)), "while the device has an SRQ");
	fake_channel_init(&d->ch, &d->dev);
	EXPECT_KEPT(test, with_qp(test));
	EXPECT_BREACH(test, ignore(srpt_os_recv_post(&d->dev, &d->ch, r)),
		      "recv_post on the receive queue of a QP on the SRQ");
	EXPECT_BREACH(test, srpt_os_srq_destroy(&d->dev), "srq_destroy while a QP uses the SRQ");
	KUNIT_ASSERT_EQ(test, srpt_os_srq_create(&d->dev, 4), 0);
	teardown(&d->ch);
	EXPECT_KEPT(test, srpt_os_srq_destroy(&d->dev));
	srpt_os_recv_free(r);
}

static void double_receive_buffers(struct kunit *test)
{
	struct dbl *d = test->priv;
	struct srpt_os_device other = { .info = d->dev.info };
	struct srpt_os_recv *r, *theirs;
	void *iu;

	EXPECT_BREACH(test, r = srpt_os_recv_alloc(&d->dev, NULL, 64, 512, &iu),
		      "recv_alloc with an alignment offset of 512 or more");
	srpt_os_recv_free(r);
	r = srpt_os_recv_alloc(&d->dev, NULL, 64, 48, &iu);
	theirs = srpt_os_recv_alloc(&other, NULL, 64, 0, &iu);
	KUNIT_ASSERT_NOT_NULL(test, r);
	KUNIT_ASSERT_NOT_NULL(test, theirs);
	EXPECT_BREACH(test, ignore(srpt_os_recv_post(&d->dev, &d->ch, r)),
		      "recv_post on a channel without a QP");
	with_qp(test);
	EXPECT_KEPT(test, KUNIT_EXPECT_EQ(test, srpt_os_recv_post(&d->dev, &d->ch, r), 0));
	EXPECT_BREACH(test, ignore(srpt_os_recv_post(&d->dev, &d->ch, r)),
		      "recv_post of a buffer already posted");
	EXPECT_BREACH(test, ignore(srpt_os_recv_post(&d->dev, &d->ch, theirs)),
		      "recv_post on another device than the buffer's");
	EXPECT_BREACH(test, srpt_os_recv_free(r), "recv_free of a buffer still posted");
	/* Taken off, as by an IU: the drain finds nothing for the core. */
	KUNIT_EXPECT_PTR_EQ(test, fake_recv_take(&d->dev, &d->ch), theirs);
	teardown(&d->ch);
	srpt_os_recv_free(theirs);
}

/* A send context of a channel with a QP. */
static struct srpt_os_cmd *cmd_of(struct kunit *test)
{
	struct dbl *d = test->priv;
	const u8 *sense;
	void *rsp;
	struct srpt_os_cmd *cmd = srpt_os_cmd_alloc(&d->ch, (void *)&d->core, 64, &rsp, &sense);

	KUNIT_ASSERT_NOT_NULL(test, cmd);
	memset(rsp, 0, 64);
	return cmd;
}

static void double_command_buffers(struct kunit *test)
{
	struct dbl *d = test->priv;
	struct srpt_os_cmd *cmd;

	with_qp(test);
	cmd = cmd_of(test);
	EXPECT_BREACH(test, ignore(srpt_os_cmd_buf_add(cmd, 2, SRPT_DATA_OUT, 0x1000, 1, 0)),
		      "buf_add of an empty buffer");
	srpt_os_cmd_release_data(cmd);
	EXPECT_KEPT(test, ignore(srpt_os_cmd_buf_add(cmd, 2, SRPT_DATA_OUT, 0x1000, 1, 512)));
	EXPECT_BREACH(test, ignore(srpt_os_cmd_buf_add(cmd, 3, SRPT_DATA_OUT, 0x2000, 1, 512)),
		      "another count or direction than the first");
	EXPECT_BREACH(test, ignore(srpt_os_cmd_buf_add(cmd, 2, SRPT_DATA_OUT, 0x3000, 1, 512)),
		      "buf_add beyond the buffer count");
	EXPECT_BREACH(test, ignore(srpt_os_cmd_rdma_map(cmd, 2, 0, 512)),
		      "rdma_map of a buffer buf_add did not allocate");
	EXPECT_BREACH(test, ignore(srpt_os_cmd_rdma_map(cmd, 0, 4096, 512)),
		      "not a piece boundary");
	srpt_os_cmd_rdma_unmap(cmd, 0);
	EXPECT_BREACH(test, ignore(srpt_os_cmd_rdma_map(cmd, 1, 0, 4096)),
		      "rdma_map of bytes beyond the buffer");
	srpt_os_cmd_rdma_unmap(cmd, 1);
	EXPECT_KEPT(test, KUNIT_EXPECT_EQ(test, srpt_os_cmd_init(cmd, 1, 0, 1024, SRPT_DATA_OUT,
								  SRPT_TASK_SIMPLE), 0));
	EXPECT_BREACH(test, ignore(srpt_os_cmd_buf_add(cmd, 2, SRPT_DATA_OUT, 0x1000, 1, 512)),
		      "buf_add after cmd_init");
	EXPECT_KEPT(test, KUNIT_EXPECT_EQ(test, srpt_os_cmd_rdma_map(cmd, 0, 0, 512), 1));
	EXPECT_BREACH(test, ignore(srpt_os_cmd_rdma_map(cmd, 0, 0, 512)),
		      "rdma_map of a buffer mapped already");
	EXPECT_BREACH(test, srpt_os_cmd_execute(cmd), "execute with a buffer still mapped");
	srpt_os_cmd_release_data(cmd);

	/* Read data: mapped only once LIO queued it. */
	EXPECT_KEPT(test, ignore(srpt_os_cmd_buf_add(cmd, 1, SRPT_DATA_IN, 0x1000, 1, 8192)));
	EXPECT_KEPT(test, ignore(srpt_os_cmd_init(cmd, 2, 0, 8192, SRPT_DATA_IN, SRPT_TASK_SIMPLE)));
	EXPECT_BREACH(test, ignore(srpt_os_cmd_rdma_map(cmd, 0, 0, 512)),
		      "rdma_map of read data before LIO queued it");
	srpt_os_cmd_release_data(cmd);
	srpt_os_cmd_free(cmd);
	EXPECT_KEPT(test, teardown(&d->ch));
}

static void double_command_posts(struct kunit *test)
{
	struct dbl *d = test->priv;
	struct srpt_os_cmd *cmd;
	u8 cdb[16] = {};

	with_qp(test);
	cmd = cmd_of(test);
	EXPECT_BREACH(test, srpt_os_cmd_submit(cmd, cdb), "submit before cmd_init");
	d->ch.post_rdma_err = -EIO;	/* nothing queued: the core is not there to complete */
	d->ch.post_response_err = -EIO;
	EXPECT_BREACH(test, ignore(srpt_os_cmd_post(cmd, 0, 0, 0)), "post of nothing");
	EXPECT_BREACH(test, ignore(srpt_os_cmd_post(cmd, 36, 0, 1)),
		      "post of another number of mapped buffers than are");
	EXPECT_BREACH(test, ignore(srpt_os_cmd_post(cmd, 0, 512, 0)),
		      "post of bytes of a buffer that is not kept");
	EXPECT_BREACH(test, ignore(srpt_os_cmd_post(cmd, 65, 0, 0)),
		      "post of a response larger than its buffer");
	cmd->rsp_buf[0] = 0xc1;		/* SRP_RSP, SNSVALID, 97 bytes of sense */
	cmd->rsp_buf[18] = 0x02;
	cmd->rsp_buf[31] = SRPT_SENSE_SIZE + 1;
	EXPECT_BREACH(test, ignore(srpt_os_cmd_post(cmd, 64, 0, 0)),
		      "more sense data than SRPT_SENSE_SIZE");
	cmd->rsp_buf[31] = SRPT_SENSE_SIZE;
	EXPECT_KEPT(test, ignore(srpt_os_cmd_post(cmd, 64, 0, 0)));
	srpt_os_channel_destroy_cm(&d->ch);
	srpt_os_channel_destroy_qp(&d->ch);
	EXPECT_BREACH(test, ignore(srpt_os_cmd_post(cmd, 64, 0, 0)),
		      "cmd_post on a channel without a QP");
	EXPECT_BREACH(test, srpt_os_channel_free(&d->ch), "free with a send context still allocated");
	EXPECT_BREACH(test, srpt_os_cmd_free(cmd), "a call after srpt_os_channel_free()");
}

static void double_sleeping_calls(struct kunit *test)
{
	struct dbl *d = test->priv;
	struct srpt_port_attr attr;
	unsigned long flags;

	local_irq_save(flags);
	EXPECT_BREACH(test, ignore(srpt_os_port_query(&d->dev, 1, &attr)),
		      "srpt_os_port_query may sleep but was called in atomic context");
	EXPECT_KEPT(test, (void)srpt_os_wc_status_msg(SRPT_WC_SUCCESS));
	local_irq_restore(flags);
	EXPECT_KEPT(test, ignore(srpt_os_port_query(&d->dev, 1, &attr)));
}

/* What srpt_core_login() owes the channel, as tf_login() checks it. */
static void double_login_outcomes(struct kunit *test)
{
	struct srpt_contract c = {};

	KUNIT_EXPECT_NOT_NULL(test, srpt_contract_login(&c, 0));
	KUNIT_EXPECT_NOT_NULL(test, srpt_contract_login(&c, -EINVAL));
	c.rejected = 1;
	KUNIT_EXPECT_NULL(test, srpt_contract_login(&c, -EINVAL));
	c.qp = 1;
	KUNIT_EXPECT_STREQ(test, srpt_contract_login(&c, -EINVAL),
			   "srpt_core_login failed but left the QP");
	c = (struct srpt_contract){ .accepted = 1 };
	KUNIT_EXPECT_NULL(test, srpt_contract_login(&c, 0));
}

static struct kunit_case double_cases[] = {
	KUNIT_CASE(double_channel_order),
	KUNIT_CASE(double_login_handler_and_zero_writes),
	KUNIT_CASE(double_device_and_ports),
	KUNIT_CASE(double_srq),
	KUNIT_CASE(double_receive_buffers),
	KUNIT_CASE(double_command_buffers),
	KUNIT_CASE(double_command_posts),
	KUNIT_CASE(double_sleeping_calls),
	KUNIT_CASE(double_login_outcomes),
	{}
};

static struct kunit_suite srpt_double_suite = {
	.name = "srpt_double",
	.init = dbl_init,
	.exit = dbl_exit,
	.test_cases = double_cases,
};

kunit_test_suites(&srpt_double_suite);
