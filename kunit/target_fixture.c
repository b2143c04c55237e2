// SPDX-License-Identifier: GPL-2.0-only
/*
 * The fixture of the login, channel and command suites; see
 * target_fixture.h.
 */
#include <kunit/test.h>
#include <linux/err.h>
#include <linux/inet.h>
#include <linux/kernel.h>
#include <linux/kthread.h>
#include <linux/sched/clock.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <asm/unaligned.h>
#include <linux/workqueue.h>
#include <scsi/srp.h>

#include <srpt/abi.h>

#include "../src/shim/os.h"
#include "fake_datapath.h"
#include "fake_ib.h"
#include "probe.h"
#include "target_fixture.h"

/* The wire formats as the SRP standard has them. */
static_assert(sizeof(struct srp_login_req) == 64);
static_assert(sizeof(struct srp_login_req_rdma) == 56);
static_assert(sizeof(struct srp_login_rsp) == 52);
static_assert(sizeof(struct srp_login_rej) == 32);
static_assert(sizeof(struct srp_cmd) == 48);
static_assert(sizeof(struct srp_rsp) == 36);

int tf_init(struct kunit *test)
{
	struct srpt_tf *f = kunit_kzalloc(test, sizeof(*f), GFP_KERNEL);

	if (!f)
		return -ENOMEM;
	fake_ib_port_init(&f->os.port[0], 0xfe80000000000000ULL, TF_NODE_GUID);
	f->os.port[0].attr.lid = 1;
	fake_reset_violations();
	test->priv = f;
	return 0;
}

static u64 param(struct kunit *test, enum srpt_param p)
{
	char buf[32];
	u64 v = 0;

	KUNIT_ASSERT_GT(test, srpt_core_param_get(p, buf, sizeof(buf)), 0);
	KUNIT_ASSERT_EQ(test, kstrtou64(strim(buf), 0, &v), 0);
	return v;
}

u32 tf_max_req_size(struct kunit *test)
{
	return param(test, SRPT_PARAM_MAX_REQ_SIZE);
}

void tf_setup(struct kunit *test, enum srpt_port_id_kind kind, u32 max_qp_wr,
	      const char * const *acls)
{
	struct srpt_tf *f = test->priv;
	const struct srpt_device_info info = {
		.name = "fake0",
		.node_guid = TF_NODE_GUID,
		.port_count = 1,
		.max_qp_wr = max_qp_wr,
		.max_srq_wr = 16384,
		.max_send_sge = 30,
		.max_qp_rd_atom = 16,
		.max_qp_init_rd_atom = 16,
	};
	const char *name = kind == SRPT_PORT_ID_GUID ? TF_PORT_GUID_NAME : TF_PORT_GID_NAME;
	struct port_and_port_id r;
	int i;

	for (i = 0; acls && acls[i]; i++) {
		KUNIT_ASSERT_LT(test, i, FAKE_MAX_ACLS);
		f->os_tpg.acls[i] = acls[i];
	}
	f->os.info = info;
	KUNIT_ASSERT_EQ(test, fake_ib_device_add(&f->os, &info, &f->dev), 0);
	/* The first device of the run named the target; the logins use it. */
	KUNIT_ASSERT_EQ(test, param(test, SRPT_PARAM_SERVICE_GUID), TF_NODE_GUID);
	r = srpt_lookup_port(name);
	f->port = r.sport;
	KUNIT_ASSERT_NOT_NULL(test, f->port);
	KUNIT_ASSERT_EQ(test, r.port_id, kind);
	KUNIT_ASSERT_EQ(test, srpt_core_tport_create(name, NULL, &f->tport), 0);
	KUNIT_ASSERT_EQ(test, srpt_core_tpg_create(f->tport, "tpg_1", &f->os_tpg, &f->tpg), 0);
	KUNIT_ASSERT_EQ(test, srpt_core_tpg_enable(f->tpg, 1), 0);
}

struct srpt_os_channel *tf_channel(struct kunit *test)
{
	struct srpt_tf *f = test->priv;
	struct srpt_os_channel *ch;

	KUNIT_ASSERT_LT(test, f->n_chans, TF_MAX_CHANNELS);
	ch = kunit_kzalloc(test, sizeof(*ch), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, ch);
	fake_channel_init(ch, &f->os);
	f->chans[f->n_chans++] = ch;
	return ch;
}

void tf_default_login(struct tf_login *l, enum srpt_cm_kind cm, u32 it_iu_len)
{
	memset(l, 0, sizeof(*l));
	l->cm = cm;
	l->tag = 0x1122334455667788ULL;
	l->it_iu_len = it_iu_len;
	l->buf_fmt = SRP_BUF_FORMAT_DIRECT | SRP_BUF_FORMAT_INDIRECT;
	l->flags = SRP_MULTICHAN_SINGLE;
	put_unaligned_be64(TF_I_PORT_ID_HI, l->i_port_id);
	put_unaligned_be64(TF_I_PORT_ID_LO, l->i_port_id + 8);
	l->id_ext = TF_NODE_GUID;
	l->ioc_guid = TF_NODE_GUID;
}

/* The two CMs' login requests differ only in where their fields lie. */
#define tf_fill_login_req(r, l) do {					\
	(r)->opcode = SRP_LOGIN_REQ;					\
	put_unaligned_be64((l)->tag, &(r)->tag);			\
	(r)->req_it_iu_len = cpu_to_be32((l)->it_iu_len);		\
	(r)->req_buf_fmt = cpu_to_be16((l)->buf_fmt);			\
	(r)->req_flags = (l)->flags;					\
	(r)->imm_data_offset = cpu_to_be16((l)->imm_offset);		\
	memcpy((r)->initiator_port_id, (l)->i_port_id, 16);		\
	put_unaligned_be64((l)->id_ext, (r)->target_port_id);		\
	put_unaligned_be64((l)->ioc_guid, (r)->target_port_id + 8);	\
} while (0)

int tf_login(struct kunit *test, struct srpt_os_channel *ch, const struct tf_login *l,
	     struct srpt_channel **out)
{
	struct srpt_tf *f = test->priv;
	u8 priv[TF_IB_CM_PRIVATE_DATA] = {};
	struct srpt_login_info info = {
		.cm = l->cm,
		.pkey = 0xffff,
		.private_data = priv,
		.initiator_depth = 4,
		.responder_resources = 4,
	};
	struct srpt_channel *core = NULL;
	int ret;

	if (l->cm == SRPT_CM_IB) {
		struct srp_login_req *r = (struct srp_login_req *)priv;

		tf_fill_login_req(r, l);
		info.private_data_len = sizeof(priv);
		put_unaligned_be64(0xfe80000000000000ULL, info.peer_gid);
		put_unaligned_be64(TF_IB_PEER_GUID, info.peer_gid + 8);
	} else {
		struct srp_login_req_rdma *r = (struct srp_login_req_rdma *)priv;

		tf_fill_login_req(r, l);
		info.private_data_len = sizeof(*r);
		info.peer_family = SRPT_INET4;
		WARN_ON(!in4_pton(TF_RDMA_PEER, -1, info.peer_addr, -1, NULL));
	}
	ch->cm = l->cm;
	/* What the shim's CM handler tells the contract: its request, and that it runs. */
	ch->contract.peer_initiator_depth = info.initiator_depth;
	ch->contract.peer_responder_resources = info.responder_resources;
	ch->contract.in_cm_handler = 1;
	ret = srpt_core_login(f->dev, 1, ch, &info, &core);
	ch->contract.in_cm_handler = 0;
	fake_breach("srpt_core_login", srpt_contract_login(&ch->contract, ret));
	if (ret) {
		/* The shim frees the channel and the CM destroys the id. */
		fake_channel_rejected(ch);
		return ret;
	}
	KUNIT_EXPECT_NOT_NULL(test, core);
	KUNIT_EXPECT_PTR_EQ(test, core, ch->core);
	*out = core;
	return 0;
}

struct srpt_channel *tf_login_ok(struct kunit *test, struct srpt_os_channel *ch,
				 const struct tf_login *l)
{
	struct srpt_channel *core = NULL;

	KUNIT_ASSERT_EQ(test, tf_login(test, ch, l, &core), 0);
	KUNIT_ASSERT_EQ(test, ch->calls[FAKE_ACCEPT], 1U);
	KUNIT_ASSERT_EQ(test, ch->calls[FAKE_CM_REJECT], 0U);
	return core;
}

void tf_establish(struct kunit *test, struct srpt_os_channel *ch)
{
	unsigned int mark = ch->n_log;

	srpt_core_cm_event(ch->core, ch->cm == SRPT_CM_IB ? (int)SRPT_IB_CM_RTU_RECEIVED :
			   (int)SRPT_RDMA_CM_ESTABLISHED);
	TF_EXPECT_CALLS(test, ch, mark, FAKE_READY, FAKE_ZERO_WRITE);
	KUNIT_ASSERT_EQ(test, srpt_probe_channel_state(ch->core), SRPT_PROBE_CH_LIVE);
	KUNIT_ASSERT_EQ(test, fake_channel_complete(ch, FAKE_WR_ZERO_WRITE, true), 0);
}

void tf_logout(struct kunit *test, struct srpt_os_channel *ch)
{
	srpt_core_cm_event(ch->core, ch->cm == SRPT_CM_IB ? (int)SRPT_IB_CM_DREQ_RECEIVED :
			   (int)SRPT_RDMA_CM_DISCONNECTED);
	KUNIT_EXPECT_EQ(test, ch->calls[FAKE_DISCONNECT], 1U);
	KUNIT_EXPECT_EQ(test, ch->calls[FAKE_QP_ERROR], 1U);
	/* The drain write and whatever was outstanding flush. */
	fake_channel_auto_complete(ch);
	flush_work(&ch->cq_work);
	flush_workqueue(srpt_wq);
	KUNIT_EXPECT_TRUE_MSG(test, fake_freed(ch), "the channel was not released");
}

static int tf_closer_fn(void *arg)
{
	struct tf_closer *c = arg;

	srpt_core_close_session(c->core);
	c->freed_at_return = fake_freed(c->ch);
	/* Every wait, the case's and tf_exit()'s, sees it. */
	complete_all(&c->done);
	return 0;
}

struct tf_closer *tf_close_session_async(struct kunit *test, struct srpt_os_channel *ch)
{
	struct srpt_tf *f = test->priv;
	struct task_struct *t;
	struct tf_closer *c;

	KUNIT_ASSERT_NULL(test, f->closer);
	c = kunit_kzalloc(test, sizeof(*c), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, c);
	c->core = ch->core;
	c->ch = ch;
	init_completion(&c->done);
	t = kthread_run(tf_closer_fn, c, "srpt_close_session");
	KUNIT_ASSERT_FALSE(test, IS_ERR(t));
	f->closer = c;
	return c;
}

u32 tf_build_write(u8 *iu, u64 tag, u64 va, u32 rkey, u32 len)
{
	struct srp_cmd *c = (struct srp_cmd *)iu;
	struct srp_direct_buf *d = (struct srp_direct_buf *)c->add_data;

	memset(iu, 0, sizeof(*c) + sizeof(*d));
	c->opcode = SRP_CMD;
	c->buf_fmt = SRP_DATA_DESC_DIRECT << 4;
	c->data_out_desc_cnt = 1;
	put_unaligned_be64(tag, &c->tag);
	c->cdb[0] = 0x2a;			/* WRITE(10) */
	put_unaligned_be16(len / 512, &c->cdb[7]);
	d->va = cpu_to_be64(va);
	d->key = cpu_to_be32(rkey);
	d->len = cpu_to_be32(len);
	return sizeof(*c) + sizeof(*d);
}

struct srpt_os_recv *tf_send_iu(struct kunit *test, struct srpt_os_channel *ch,
				const void *iu, u32 len)
{
	struct srpt_tf *f = test->priv;
	struct srpt_os_recv *r = fake_recv_take(&f->os, ch->qp.use_srq ? NULL : ch);

	KUNIT_ASSERT_NOT_NULL_MSG(test, r, "no receive buffer is posted");
	KUNIT_ASSERT_LE(test, len, r->size);
	memcpy(r->iu, iu, len);
	srpt_core_recv_done(ch->core, r->core, SRPT_WC_SUCCESS, len, local_clock());
	return r;
}

void tf_expect_calls(struct kunit *test, struct srpt_os_channel *ch, unsigned int mark,
		     const u8 *want, unsigned int n)
{
	unsigned int got = ch->n_log - mark;
	unsigned int i, len = 0;
	char *s;

	KUNIT_ASSERT_LE_MSG(test, got, FAKE_LOG_LEN, "the call log overflowed");
	for (i = 0; i < got && i < n; i++)
		if (ch->log[(mark + i) % FAKE_LOG_LEN] != want[i])
			break;
	if (i == got && i == n)
		return;
	s = kunit_kzalloc(test, 1024, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, s);
	for (i = 0; i < got; i++)
		len += scnprintf(s + len, 1024 - len, " %s",
				 fake_call_name(ch->log[(mark + i) % FAKE_LOG_LEN]));
	len += scnprintf(s + len, 1024 - len, "; expected");
	for (i = 0; i < n; i++)
		len += scnprintf(s + len, 1024 - len, " %s", fake_call_name(want[i]));
	KUNIT_FAIL(test, "calls:%s", s);
}

void tf_expect_bytes(struct kunit *test, const u8 *p, const u8 *want, size_t n,
		     const char *what)
{
	if (memcmp(p, want, n))
		KUNIT_FAIL(test, "%s: %*ph, expected %*ph", what, (int)min_t(size_t, n, 64), p,
			   (int)min_t(size_t, n, 64), want);
}

static const char * const live_names[SRPT_PROBE_LIVE_KINDS] = {
	"devices", "ports", "target ports", "TPGs", "nexuses", "channels", "commands",
	"receive contexts",
};

/*
 * Runs after a failed assertion too: log every channel out the way the
 * shims would (the queue pairs now complete work like hardware), then
 * check that the case left nothing behind.
 */
void tf_exit(struct kunit *test)
{
	struct srpt_tf *f = test->priv;
	unsigned int i;

	for (i = 0; i < f->n_chans; i++) {
		struct srpt_os_channel *ch = f->chans[i];

		if (ch->contract.qp && !ch->gone)
			fake_channel_auto_complete(ch);
	}
	/* configfs order: the TPG logs out its channels, the device the rest. */
	if (f->tpg)
		srpt_core_tpg_destroy(f->tpg);
	if (f->tport)
		srpt_core_tport_destroy(f->tport);
	if (f->port)
		srpt_port_put_ref(f->port);
	if (f->dev)
		fake_ib_device_remove(&f->os, f->dev);
	flush_workqueue(srpt_wq);
	for (i = 0; i < f->n_chans; i++)
		fake_channel_quiesce(f->chans[i]);
	if (f->closer)
		KUNIT_EXPECT_GT_MSG(test, wait_for_completion_timeout(&f->closer->done, 10 * HZ),
				    0UL, "close_session did not return");
	if (f->srq_size_changed)
		KUNIT_EXPECT_EQ(test, srpt_core_param_set(SRPT_PARAM_SRQ_SIZE, "4095"), 0);

	for (i = 0; i < f->n_chans; i++) {
		struct srpt_os_channel *ch = f->chans[i];

		if (fake_qp_created(ch) && !ch->gone)
			KUNIT_EXPECT_TRUE_MSG(test, fake_freed(ch), "channel %u was not freed", i);
	}
	for (i = 0; i < SRPT_PROBE_LIVE_KINDS; i++)
		KUNIT_EXPECT_EQ_MSG(test, srpt_probe_live(i), 0, "the core leaked %s",
				    live_names[i]);
	KUNIT_EXPECT_EQ_MSG(test, fake_live_recvs(), 0, "receive buffers leaked");
	KUNIT_EXPECT_EQ_MSG(test, fake_live_cmds(), 0, "send contexts leaked");
	KUNIT_EXPECT_FALSE_MSG(test, f->os.srq, "the SRQ was not destroyed");
	KUNIT_EXPECT_EQ_MSG(test, fake_violations(), 0,
			    "the core misused the shims (see the WARNINGs above)");
	fake_reset_violations();
}
