// SPDX-License-Identifier: GPL-2.0-only
/*
 * The module's own data path shims (src/shim/lio_cmd.c, src/shim/recv.c,
 * src/shim/buf_cache.c) on a strict device (verbs_double.h): every case that
 * moves bytes runs once per DMA profile (virtual as soft-RoCE, direct as
 * an HCA on a coherent bus, bounce buffers as swiotlb), and checks the
 * bytes where they land: the IU as the core reads it, the SEND and RDMA
 * WRITE on the wire, the initiator's memory around them, the data-out as
 * the backend reads it.
 */
#include <kunit/test.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <scsi/scsi_proto.h>

#include "verbs_double.h"
#include "../../src/shim/shim.h"

#define SHIM_RSP_SIZE 256
#define SHIM_RSP_LEN 36

struct shim_env {
	struct srpt_os_device *sdev;
	struct srpt_os_channel ch;
	struct ib_qp *qp;
	/* Markers for the core's objects: the shims pass them through. */
	int core_ch, core_cmd;
};

static const enum vd_dma_profile shim_profiles[] = {
	VD_DMA_VIRT, VD_DMA_DIRECT, VD_DMA_BOUNCE,
};

static void shim_profile_desc(const enum vd_dma_profile *p, char *desc)
{
	static const char * const names[] = { "virt", "direct", "bounce" };

	strscpy(desc, names[*p], KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(shim_profile, shim_profiles, shim_profile_desc);

static enum vd_dma_profile shim_profile(struct kunit *test)
{
	return test->param_value ? *(const enum vd_dma_profile *)test->param_value :
				   VD_DMA_DIRECT;
}

static int shim_init(struct kunit *test)
{
	struct shim_env *env;

	if (vd_reset(shim_profile(test)))
		return -ENOMEM;
	env = kunit_kzalloc(test, sizeof(*env), GFP_KERNEL);
	if (!env)
		return -ENOMEM;
	env->sdev = kunit_kzalloc(test, sizeof(*env->sdev) + sizeof(void *), GFP_KERNEL);
	if (!env->sdev)
		return -ENOMEM;
	env->sdev->ib = vd_device();
	env->sdev->pd = vd_pd();
	env->sdev->port_count = 1;
	env->ch.sdev = env->sdev;
	env->ch.port_num = 1;
	env->ch.core = (struct srpt_channel *)&env->core_ch;
	env->qp = vd_qp_create(&env->ch, 16, 8);
	if (!env->qp)
		return -ENOMEM;
	env->ch.qp = env->qp;
	test->priv = env;
	return 0;
}

/* The channel's QP, replaced by one of @sq send and @rq receive slots. */
static void shim_resize_qp(struct kunit *test, unsigned int sq, unsigned int rq)
{
	struct shim_env *env = test->priv;

	vd_qp_destroy(env->qp);
	env->qp = vd_qp_create(&env->ch, sq, rq);
	KUNIT_ASSERT_NOT_NULL(test, env->qp);
	env->ch.qp = env->qp;
}

static void shim_exit(struct kunit *test)
{
	struct shim_env *env = test->priv;

	if (env && env->qp)
		vd_qp_destroy(env->qp);
	KUNIT_EXPECT_PTR_EQ_MSG(test, vd_leftovers(), NULL, "%s", vd_leftovers());
	KUNIT_EXPECT_EQ_MSG(test, vd_violations(), 0u, "%s", vd_first_violation());
	vd_reset(VD_DMA_DIRECT);
}

static void shim_fill(u8 *p, u32 len, u8 seed)
{
	u32 i;

	for (i = 0; i < len; i++)
		p[i] = (u8)(seed + i * 7 + (i >> 8));
}

static bool shim_all(const u8 *p, u32 len, u8 v)
{
	return !memchr_inv(p, v, len);
}

static struct srpt_os_cmd *shim_cmd(struct kunit *test, u8 **rsp, const u8 **sense)
{
	struct shim_env *env = test->priv;
	struct srpt_os_cmd *cmd;
	const u8 *s;
	void *r;

	cmd = srpt_os_cmd_alloc(&env->ch, (struct srpt_cmd *)&env->core_cmd,
				SHIM_RSP_SIZE, &r, &s);
	KUNIT_ASSERT_NOT_NULL(test, cmd);
	if (rsp)
		*rsp = r;
	if (sense)
		*sense = s;
	return cmd;
}

/* Every byte LIO's scatterlist holds, and their total. */
static u32 shim_sgl_len(struct scatterlist *sgl, u32 count)
{
	struct scatterlist *s;
	u32 i, len = 0;

	for_each_sg(sgl, s, count, i)
		len += s->length;
	return len;
}

/* The backend writes @data into LIO's scatterlist. */
static void shim_sgl_write(struct scatterlist *sgl, u32 count, const u8 *data)
{
	struct scatterlist *s;
	u32 i, off = 0;

	for_each_sg(sgl, s, count, i) {
		memcpy(sg_virt(s), data + off, s->length);
		off += s->length;
	}
}

/* ---- Receives ---- */

static void shim_recv_delivers_the_iu(struct kunit *test)
{
	struct shim_env *env = test->priv;
	struct vd_core_recv owner = {};
	struct srpt_os_recv *r;
	u8 first[200], second[64], big[1100];

	r = srpt_os_recv_alloc(env->sdev, (struct srpt_recv *)&owner, 1024, 48, &owner.iu);
	KUNIT_ASSERT_NOT_NULL(test, r);
	/* Immediate data at a fixed IU offset is aligned as the buffer is. */
	KUNIT_EXPECT_EQ(test, ((uintptr_t)owner.iu - 48) % 512, (uintptr_t)0);

	shim_fill(first, sizeof(first), 1);
	KUNIT_ASSERT_EQ(test, srpt_os_recv_post(env->sdev, &env->ch, r), 0);
	KUNIT_ASSERT_EQ(test, vd_deliver(env->qp, first, sizeof(first)), 0);
	KUNIT_ASSERT_EQ(test, vd_poll(env->qp, 1), 1u);
	KUNIT_EXPECT_EQ(test, vd.rec.recv_done, 1u);
	KUNIT_EXPECT_EQ(test, vd.rec.last_status, SRPT_WC_SUCCESS);
	KUNIT_EXPECT_PTR_EQ(test, vd.rec.last_ch, env->ch.core);
	KUNIT_EXPECT_PTR_EQ(test, vd.rec.last_recv, (struct srpt_recv *)&owner);
	KUNIT_EXPECT_EQ(test, vd.rec.recv_len, (u32)sizeof(first));
	KUNIT_EXPECT_EQ(test, memcmp(vd.rec.iu, first, sizeof(first)), 0);

	/* Reposted, the same buffer shows the next IU, not the last. */
	shim_fill(second, sizeof(second), 99);
	KUNIT_ASSERT_EQ(test, srpt_os_recv_post(env->sdev, &env->ch, r), 0);
	KUNIT_ASSERT_EQ(test, vd_deliver(env->qp, second, sizeof(second)), 0);
	KUNIT_ASSERT_EQ(test, vd_poll(env->qp, 1), 1u);
	KUNIT_EXPECT_EQ(test, vd.rec.recv_len, (u32)sizeof(second));
	KUNIT_EXPECT_EQ(test, memcmp(vd.rec.iu, second, sizeof(second)), 0);

	/* Longer than the buffer: a failed receive of no bytes. */
	memset(big, 0x5a, sizeof(big));
	KUNIT_ASSERT_EQ(test, srpt_os_recv_post(env->sdev, &env->ch, r), 0);
	KUNIT_ASSERT_EQ(test, vd_deliver(env->qp, big, sizeof(big)), 0);
	KUNIT_ASSERT_EQ(test, vd_poll(env->qp, 1), 1u);
	KUNIT_EXPECT_EQ(test, vd.rec.recv_done, 3u);
	KUNIT_EXPECT_EQ(test, (int)vd.rec.last_status, (int)IB_WC_LOC_LEN_ERR);
	KUNIT_EXPECT_EQ(test, vd.rec.recv_len, 0u);

	srpt_os_recv_free(r);
}

static void shim_recv_queue_holds_its_slots(struct kunit *test)
{
	struct shim_env *env = test->priv;
	struct vd_core_recv owners[3] = {};
	struct srpt_os_recv *r[3];
	u8 iu[16] = { 1 };
	int i;

	shim_resize_qp(test, 16, 2);
	for (i = 0; i < 3; i++) {
		r[i] = srpt_os_recv_alloc(env->sdev, (struct srpt_recv *)&owners[i],
					  64, 0, &owners[i].iu);
		KUNIT_ASSERT_NOT_NULL(test, r[i]);
	}
	KUNIT_EXPECT_EQ(test, srpt_os_recv_post(env->sdev, &env->ch, r[0]), 0);
	KUNIT_EXPECT_EQ(test, srpt_os_recv_post(env->sdev, &env->ch, r[1]), 0);
	KUNIT_EXPECT_EQ(test, srpt_os_recv_post(env->sdev, &env->ch, r[2]), -ENOMEM);
	/* A consumed receive holds its slot until its completion is polled. */
	KUNIT_ASSERT_EQ(test, vd_deliver(env->qp, iu, sizeof(iu)), 0);
	KUNIT_EXPECT_EQ(test, srpt_os_recv_post(env->sdev, &env->ch, r[2]), -ENOMEM);
	KUNIT_ASSERT_EQ(test, vd_poll(env->qp, 1), 1u);
	KUNIT_EXPECT_PTR_EQ(test, vd.rec.last_recv, (struct srpt_recv *)&owners[0]);
	KUNIT_EXPECT_EQ(test, srpt_os_recv_post(env->sdev, &env->ch, r[2]), 0);
	for (i = 0; i < 2; i++)
		KUNIT_ASSERT_EQ(test, vd_deliver(env->qp, iu, sizeof(iu)), 0);
	KUNIT_EXPECT_EQ(test, vd_poll(env->qp, 2), 2u);
	KUNIT_EXPECT_PTR_EQ(test, vd.rec.last_recv, (struct srpt_recv *)&owners[2]);
	for (i = 0; i < 3; i++)
		srpt_os_recv_free(r[i]);
}

static void shim_srq_receives(struct kunit *test)
{
	struct shim_env *env = test->priv;
	struct ib_event event = { .event = IB_EVENT_SRQ_LIMIT_REACHED };
	struct vd_core_recv owners[5] = {};
	struct srpt_os_recv *r[5];
	struct ib_srq *srq;
	struct ib_qp *qp;
	u8 iu[100];
	int i;

	KUNIT_ASSERT_EQ(test, srpt_os_srq_create(env->sdev, 4), 0);
	srq = env->sdev->srq;
	/* One SRQ per device: a second is refused, the first kept. */
	KUNIT_EXPECT_EQ(test, srpt_os_srq_create(env->sdev, 4), -EBUSY);
	KUNIT_EXPECT_PTR_EQ(test, env->sdev->srq, srq);
	/* Its events are only logged: the channels' QP events say what broke. */
	srq->event_handler(&event, srq->srq_context);
	qp = vd_qp_create(&env->ch, 16, 0);
	KUNIT_ASSERT_NOT_NULL(test, qp);
	for (i = 0; i < 5; i++) {
		r[i] = srpt_os_recv_alloc(env->sdev, (struct srpt_recv *)&owners[i],
					  128, 0, &owners[i].iu);
		KUNIT_ASSERT_NOT_NULL(test, r[i]);
	}
	for (i = 0; i < 4; i++)
		KUNIT_EXPECT_EQ(test, srpt_os_recv_post(env->sdev, NULL, r[i]), 0);
	KUNIT_EXPECT_EQ(test, srpt_os_recv_post(env->sdev, NULL, r[4]), -ENOMEM);

	shim_fill(iu, sizeof(iu), 3);
	KUNIT_ASSERT_EQ(test, vd_deliver(qp, iu, sizeof(iu)), 0);
	KUNIT_ASSERT_EQ(test, vd_poll(qp, 1), 1u);
	/* The channel is the QP's, whichever buffer the SRQ gave. */
	KUNIT_EXPECT_PTR_EQ(test, vd.rec.last_ch, env->ch.core);
	KUNIT_EXPECT_PTR_EQ(test, vd.rec.last_recv, (struct srpt_recv *)&owners[0]);
	KUNIT_EXPECT_EQ(test, memcmp(vd.rec.iu, iu, sizeof(iu)), 0);
	KUNIT_EXPECT_EQ(test, srpt_os_recv_post(env->sdev, NULL, r[4]), 0);
	for (i = 0; i < 4; i++)
		KUNIT_ASSERT_EQ(test, vd_deliver(qp, iu, sizeof(iu)), 0);
	KUNIT_EXPECT_EQ(test, vd_poll(qp, 4), 4u);
	for (i = 0; i < 5; i++)
		srpt_os_recv_free(r[i]);
	vd_qp_destroy(qp);
	srpt_os_srq_destroy(env->sdev);
	KUNIT_EXPECT_PTR_EQ(test, env->sdev->srq, NULL);
}

static void shim_recv_out_of_memory(struct kunit *test)
{
	struct shim_env *env = test->priv;
	struct vd_core_recv owner = {};

	vd.faults.map = 1;
	KUNIT_EXPECT_PTR_EQ(test, srpt_os_recv_alloc(env->sdev, (struct srpt_recv *)&owner,
						     64, 0, &owner.iu), NULL);
	/* The buffer's cache was put back: the next get makes it anew. */
	KUNIT_EXPECT_EQ(test, vd_live_mappings(), 0u);
}

/* Every allocation of a context and a receive buffer fails in turn: nothing is left behind. */
static void shim_allocations_fail_cleanly(struct kunit *test)
{
	struct shim_env *env = test->priv;
	struct vd_core_recv owner = {};
	struct srpt_os_recv *r;
	struct srpt_os_cmd *cmd;
	const u8 *sense;
	void *rsp;
	int n;

	/* The context, its response buffer. */
	for (n = 1; n <= 2; n++) {
		vd.faults.alloc = n;
		KUNIT_EXPECT_PTR_EQ(test, srpt_os_cmd_alloc(&env->ch, NULL, SHIM_RSP_SIZE,
							    &rsp, &sense), NULL);
		KUNIT_EXPECT_EQ(test, vd.faults.alloc, 0);
	}
	vd.faults.alloc = n;
	cmd = srpt_os_cmd_alloc(&env->ch, NULL, SHIM_RSP_SIZE, &rsp, &sense);
	KUNIT_EXPECT_NOT_NULL(test, cmd);
	vd.faults.alloc = 0;
	srpt_os_cmd_free(cmd);

	/* The receive, its cache's entry, the cache, the buffer. */
	for (n = 1; n <= 4; n++) {
		vd.faults.alloc = n;
		KUNIT_EXPECT_PTR_EQ(test, srpt_os_recv_alloc(env->sdev, (struct srpt_recv *)&owner,
							     64, 0, &owner.iu), NULL);
		KUNIT_EXPECT_EQ(test, vd.faults.alloc, 0);
	}
	vd.faults.alloc = n;
	r = srpt_os_recv_alloc(env->sdev, (struct srpt_recv *)&owner, 64, 0, &owner.iu);
	KUNIT_EXPECT_NOT_NULL(test, r);
	vd.faults.alloc = 0;
	srpt_os_recv_free(r);
}

/* ---- Responses and data-in ---- */

static void shim_response_bytes_on_the_wire(struct kunit *test)
{
	struct shim_env *env = test->priv;
	struct srpt_os_cmd *cmd;
	u8 a[100], b[40];
	u8 *rsp;

	cmd = shim_cmd(test, &rsp, NULL);
	shim_fill(a, sizeof(a), 10);
	memcpy(rsp, a, sizeof(a));
	KUNIT_ASSERT_EQ(test, srpt_os_cmd_post(cmd, sizeof(a), 0, 0), 0);
	KUNIT_ASSERT_EQ(test, vd.nr_wire, 1u);
	KUNIT_EXPECT_EQ(test, vd.wire[0].opcode, IB_WR_SEND);
	KUNIT_EXPECT_EQ(test, vd.wire[0].len, (u32)sizeof(a));
	KUNIT_EXPECT_TRUE(test, vd.wire[0].signaled);
	KUNIT_EXPECT_EQ(test, memcmp(vd.wire[0].bytes, a, sizeof(a)), 0);
	KUNIT_ASSERT_EQ(test, vd_poll(env->qp, 1), 1u);
	KUNIT_EXPECT_EQ(test, vd.rec.send_done, 1u);
	KUNIT_EXPECT_EQ(test, vd.rec.last_status, SRPT_WC_SUCCESS);
	KUNIT_EXPECT_PTR_EQ(test, vd.rec.last_cmd, (struct srpt_cmd *)&env->core_cmd);

	/* The context's next response: its own bytes, and only as many. */
	shim_fill(b, sizeof(b), 77);
	memcpy(rsp, b, sizeof(b));
	KUNIT_ASSERT_EQ(test, srpt_os_cmd_post(cmd, sizeof(b), 0, 0), 0);
	KUNIT_ASSERT_EQ(test, vd.nr_wire, 2u);
	KUNIT_EXPECT_EQ(test, vd.wire[1].len, (u32)sizeof(b));
	KUNIT_EXPECT_EQ(test, memcmp(vd.wire[1].bytes, b, sizeof(b)), 0);

	/* A failed send completes as failed. */
	KUNIT_ASSERT_EQ(test, vd_poll(env->qp, 1), 1u);
	vd_fail_next_send(IB_WC_RETRY_EXC_ERR);
	KUNIT_ASSERT_EQ(test, srpt_os_cmd_post(cmd, sizeof(b), 0, 0), 0);
	KUNIT_ASSERT_EQ(test, vd_poll(env->qp, 1), 1u);
	KUNIT_EXPECT_EQ(test, vd.rec.send_done, 3u);
	KUNIT_EXPECT_EQ(test, vd.rec.last_status, SRPT_WC_RETRY_EXC_ERR);
	KUNIT_EXPECT_EQ(test, vd_sq_used(env->qp), 0u);
	srpt_os_cmd_free(cmd);
}

/*
 * One read of @len bytes into the initiator's buffer at @va, as the core
 * drives it: buffer, LIO, backend, response, transfer and response in
 * one chain, completion, release. Returns what buf_add() returned.
 */
static int shim_read(struct kunit *test, struct srpt_os_cmd *cmd, u8 *rsp,
		     u64 va, u32 rkey, u32 len, u8 seed)
{
	struct shim_env *env = test->priv;
	unsigned int wire = vd.nr_wire, sent = vd.rec.send_done;
	u8 cdb[16] = { READ_10 };
	u8 *remote, *data;
	int kept, ret;

	remote = vd_remote_add(va, rkey, 2 * PAGE_SIZE, 0xee);
	data = kunit_kmalloc(test, len, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, remote);
	KUNIT_ASSERT_NOT_NULL(test, data);
	shim_fill(data, len, seed);

	kept = srpt_os_cmd_buf_add(cmd, 1, SRPT_DATA_IN, va, rkey, len);
	KUNIT_ASSERT_GE(test, kept, 0);
	KUNIT_ASSERT_EQ(test, srpt_os_cmd_init(cmd, 5, 0, len, SRPT_DATA_IN,
					       SRPT_TASK_SIMPLE), 0);
	srpt_os_cmd_submit(cmd, cdb);
	KUNIT_ASSERT_EQ(test, vd.rec.sgl_count, 1u);
	KUNIT_EXPECT_EQ(test, shim_sgl_len(vd.rec.sgl, vd.rec.sgl_count), len);
	shim_sgl_write(vd.rec.sgl, vd.rec.sgl_count, data);
	KUNIT_EXPECT_EQ(test, srpt_queue_data_in(vd.rec.se_cmd), 0);
	KUNIT_EXPECT_EQ(test, vd.rec.with_data, 1);
	KUNIT_EXPECT_EQ(test, vd.rec.st.data_len, len);

	memset(rsp, 0x11, SHIM_RSP_LEN);
	if (kept == SRPT_BUF_KEPT) {
		ret = srpt_os_cmd_post(cmd, SHIM_RSP_LEN, len, 0);
	} else {
		KUNIT_ASSERT_GE(test, srpt_os_cmd_rdma_map(cmd, 0, 0, len), 1);
		ret = srpt_os_cmd_post(cmd, SHIM_RSP_LEN, 0, 1);
	}
	KUNIT_ASSERT_EQ(test, ret, 0);
	KUNIT_ASSERT_EQ(test, vd.nr_wire, wire + 2);
	KUNIT_EXPECT_EQ(test, vd.wire[wire].opcode, IB_WR_RDMA_WRITE);
	KUNIT_EXPECT_EQ(test, vd.wire[wire].len, len);
	KUNIT_EXPECT_EQ(test, vd.wire[wire].remote_addr, va);
	KUNIT_EXPECT_EQ(test, vd.wire[wire].rkey, rkey);
	KUNIT_EXPECT_FALSE(test, vd.wire[wire].signaled);
	KUNIT_EXPECT_EQ(test, vd.wire[wire + 1].opcode, IB_WR_SEND);
	KUNIT_EXPECT_EQ(test, vd.wire[wire + 1].len, (u32)SHIM_RSP_LEN);
	KUNIT_EXPECT_TRUE(test, vd.wire[wire + 1].signaled);
	/* The initiator gets the backend's bytes and not one more. */
	KUNIT_EXPECT_EQ(test, memcmp(remote, data, len), 0);
	KUNIT_EXPECT_TRUE(test, shim_all(remote + len, 2 * PAGE_SIZE - len, 0xee));

	/* One completion: the response's. */
	KUNIT_EXPECT_EQ(test, vd_poll(env->qp, 4), 1u);
	KUNIT_EXPECT_EQ(test, vd.rec.send_done, sent + 1);
	KUNIT_EXPECT_EQ(test, vd.rec.last_status, SRPT_WC_SUCCESS);
	KUNIT_EXPECT_EQ(test, vd_sq_used(env->qp), 0u);
	if (kept != SRPT_BUF_KEPT)
		srpt_os_cmd_rdma_unmap(cmd, 0);
	srpt_os_cmd_release_data(cmd);
	srpt_os_cmd_done(cmd);
	return kept;
}

static void shim_read_single_buffer(struct kunit *test)
{
	struct srpt_os_cmd *cmd;
	u8 *rsp;
	int kept;

	cmd = shim_cmd(test, &rsp, NULL);
	kept = shim_read(test, cmd, rsp, 0x10000, 0x77, 1000, 1);
	/* Kept mapped only where the mapping needs no sync. */
	KUNIT_EXPECT_EQ(test, kept, shim_profile(test) == VD_DMA_BOUNCE ? 0 : SRPT_BUF_KEPT);
	/* The page again, shorter: what the last command left stays home. */
	KUNIT_EXPECT_EQ(test, shim_read(test, cmd, rsp, 0x20000, 0x78, 300, 2), kept);
	KUNIT_EXPECT_EQ(test, shim_read(test, cmd, rsp, 0x30000, 0x79, PAGE_SIZE, 3), kept);
	srpt_os_cmd_free(cmd);
}

static void shim_forced_mr_never_keeps(struct kunit *test)
{
	struct shim_env *env = test->priv;
	struct srpt_os_cmd *cmd;
	u8 *rsp;

	env->ch.rw_forced_mr = true;
	cmd = shim_cmd(test, &rsp, NULL);
	KUNIT_EXPECT_EQ(test, shim_read(test, cmd, rsp, 0x10000, 0x77, 512, 4), 0);
	srpt_os_cmd_free(cmd);
}

/*
 * iWARP: the context's page is never used, so never reused while TCP may
 * still send it (soft-iWARP's zero-copy of unsignalled writes): each
 * small read gets buffers of its own, sent by rdma_rw.
 */
static void shim_iwarp_never_reuses_the_page(struct kunit *test)
{
	struct shim_env *env = test->priv;
	struct srpt_os_cmd *cmd;
	u8 *rsp;

	env->ch.fresh_pages = true;
	cmd = shim_cmd(test, &rsp, NULL);
	KUNIT_EXPECT_EQ(test, shim_read(test, cmd, rsp, 0x10000, 0x77, 512, 4), 0);
	KUNIT_EXPECT_EQ(test, shim_read(test, cmd, rsp, 0x20000, 0x78, PAGE_SIZE, 5), 0);
	srpt_os_cmd_free(cmd);
}

/*
 * Two buffers, the first moved in two pieces, the second short of its end
 * (LIO had less data): rdma_rw sees the entries cut to each piece, LIO
 * its lengths back after.
 */
static void shim_read_buffers_in_pieces(struct kunit *test)
{
	struct shim_env *env = test->priv;
	const u32 len0 = 70000, len1 = 5000, part1 = 3000;
	u8 cdb[16] = { READ_10 };
	struct srpt_os_cmd *cmd;
	u8 *r0, *r1, *data, *rsp;

	r0 = vd_remote_add(0x100000, 0x10, len0, 0xee);
	r1 = vd_remote_add(0x200000, 0x20, len1, 0xee);
	data = kunit_kmalloc(test, len0 + len1, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, r0);
	KUNIT_ASSERT_NOT_NULL(test, r1);
	KUNIT_ASSERT_NOT_NULL(test, data);
	shim_fill(data, len0 + len1, 5);

	cmd = shim_cmd(test, &rsp, NULL);
	KUNIT_ASSERT_EQ(test, srpt_os_cmd_buf_add(cmd, 2, SRPT_DATA_IN, 0x100000, 0x10, len0), 0);
	KUNIT_ASSERT_EQ(test, srpt_os_cmd_buf_add(cmd, 2, SRPT_DATA_IN, 0x200000, 0x20, len1), 0);
	KUNIT_ASSERT_EQ(test, srpt_os_cmd_init(cmd, 6, 0, len0 + len1, SRPT_DATA_IN,
					       SRPT_TASK_SIMPLE), 0);
	srpt_os_cmd_submit(cmd, cdb);
	KUNIT_EXPECT_EQ(test, vd.rec.sgl_count,
			DIV_ROUND_UP(len0, PAGE_SIZE) + DIV_ROUND_UP(len1, PAGE_SIZE));
	KUNIT_ASSERT_EQ(test, shim_sgl_len(vd.rec.sgl, vd.rec.sgl_count), len0 + len1);
	shim_sgl_write(vd.rec.sgl, vd.rec.sgl_count, data);
	KUNIT_EXPECT_EQ(test, srpt_queue_data_in(vd.rec.se_cmd), 0);

	/* Round one: the first piece of buffer 0 and what buffer 1 gets, no response. */
	KUNIT_ASSERT_GE(test, srpt_os_cmd_rdma_map(cmd, 0, 0, SRPT_RDMA_PIECE_ALIGN), 1);
	KUNIT_ASSERT_GE(test, srpt_os_cmd_rdma_map(cmd, 1, 0, part1), 1);
	KUNIT_ASSERT_EQ(test, srpt_os_cmd_post(cmd, 0, 0, 2), 0);
	KUNIT_EXPECT_EQ(test, vd_poll(env->qp, 8), 1u);
	KUNIT_EXPECT_EQ(test, vd.rec.rdma_done, 1u);
	KUNIT_EXPECT_EQ(test, vd.rec.last_status, SRPT_WC_SUCCESS);
	srpt_os_cmd_rdma_unmap(cmd, 0);
	srpt_os_cmd_rdma_unmap(cmd, 1);

	/* Round two: the rest of buffer 0, then the response. */
	KUNIT_ASSERT_GE(test, srpt_os_cmd_rdma_map(cmd, 0, SRPT_RDMA_PIECE_ALIGN,
						   len0 - SRPT_RDMA_PIECE_ALIGN), 1);
	KUNIT_ASSERT_EQ(test, srpt_os_cmd_post(cmd, SHIM_RSP_LEN, 0, 1), 0);
	KUNIT_EXPECT_EQ(test, vd_poll(env->qp, 8), 1u);
	KUNIT_EXPECT_EQ(test, vd.rec.send_done, 1u);
	srpt_os_cmd_rdma_unmap(cmd, 0);

	KUNIT_EXPECT_EQ(test, memcmp(r0, data, len0), 0);
	KUNIT_EXPECT_EQ(test, memcmp(r1, data + len0, part1), 0);
	KUNIT_EXPECT_TRUE(test, shim_all(r1 + part1, len1 - part1, 0xee));
	/* Cut to a piece's end for rdma_rw and restored after. */
	KUNIT_EXPECT_EQ(test, shim_sgl_len(vd.rec.sgl, vd.rec.sgl_count), len0 + len1);
	srpt_os_cmd_release_data(cmd);
	srpt_os_cmd_done(cmd);
	srpt_os_cmd_free(cmd);
}

/* A failed transfer fails its response too: the QP flushes what follows. */
static void shim_failed_transfer_fails_the_response(struct kunit *test)
{
	struct shim_env *env = test->priv;
	struct srpt_os_cmd *cmd;
	u8 cdb[16] = { READ_10 };
	u8 *rsp;

	env->ch.rw_forced_mr = true;
	KUNIT_ASSERT_NOT_NULL(test, vd_remote_add(0x10000, 0x77, PAGE_SIZE, 0xee));
	cmd = shim_cmd(test, &rsp, NULL);
	KUNIT_ASSERT_EQ(test, srpt_os_cmd_buf_add(cmd, 1, SRPT_DATA_IN, 0x10000, 0x77, 512), 0);
	KUNIT_ASSERT_EQ(test, srpt_os_cmd_init(cmd, 7, 0, 512, SRPT_DATA_IN,
					       SRPT_TASK_SIMPLE), 0);
	srpt_os_cmd_submit(cmd, cdb);
	KUNIT_ASSERT_GE(test, srpt_os_cmd_rdma_map(cmd, 0, 0, 512), 1);
	vd_fail_next_send(IB_WC_REM_ACCESS_ERR);
	KUNIT_ASSERT_EQ(test, srpt_os_cmd_post(cmd, SHIM_RSP_LEN, 0, 1), 0);
	/* The WRITE's error has no handler (unsignalled); the SEND's flush does. */
	KUNIT_EXPECT_EQ(test, vd_poll(env->qp, 4), 2u);
	KUNIT_EXPECT_EQ(test, vd.rec.send_done, 1u);
	KUNIT_EXPECT_EQ(test, vd.rec.last_status, SRPT_WC_WR_FLUSH_ERR);
	KUNIT_EXPECT_EQ(test, vd_sq_used(env->qp), 0u);
	srpt_os_cmd_rdma_unmap(cmd, 0);
	srpt_os_cmd_release_data(cmd);
	srpt_os_cmd_free(cmd);
}

/* ---- Data-out ---- */

/*
 * A write of @len bytes: buffer, LIO, write_pending, RDMA READ, its
 * completion; then the backend reads the data before (@early) or after
 * the unmap. Returns whether the backend saw the initiator's bytes.
 */
static bool shim_write(struct kunit *test, bool early)
{
	struct shim_env *env = test->priv;
	const u32 len = 3000;
	u8 cdb[16] = { WRITE_10 };
	struct srpt_os_cmd *cmd;
	bool same;
	u8 *remote;

	remote = vd_remote_add(0x40000, 0x99, len, 0);
	KUNIT_ASSERT_NOT_NULL(test, remote);
	shim_fill(remote, len, 9);
	cmd = shim_cmd(test, NULL, NULL);
	/* Data-out is never the kept page: that mapping is the device's to read only. */
	KUNIT_ASSERT_EQ(test, srpt_os_cmd_buf_add(cmd, 1, SRPT_DATA_OUT, 0x40000, 0x99, len), 0);
	KUNIT_ASSERT_EQ(test, srpt_os_cmd_init(cmd, 8, 2, len, SRPT_DATA_OUT,
					       SRPT_TASK_ORDERED), 0);
	KUNIT_EXPECT_EQ(test, vd.rec.lun, 2ull);
	KUNIT_EXPECT_EQ(test, vd.rec.data_dir, (int)DMA_TO_DEVICE);
	KUNIT_EXPECT_EQ(test, vd.rec.task_attr, TCM_ORDERED_TAG);
	srpt_os_cmd_submit(cmd, cdb);
	KUNIT_EXPECT_EQ(test, vd.rec.cdb[0], (u8)WRITE_10);
	KUNIT_EXPECT_EQ(test, srpt_write_pending(vd.rec.se_cmd), 0);
	KUNIT_EXPECT_EQ(test, vd.rec.write_pending, 1u);

	KUNIT_ASSERT_GE(test, srpt_os_cmd_rdma_map(cmd, 0, 0, len), 1);
	KUNIT_ASSERT_EQ(test, srpt_os_cmd_post(cmd, 0, 0, 1), 0);
	KUNIT_ASSERT_EQ(test, vd.nr_wire, 1u);
	KUNIT_EXPECT_EQ(test, vd.wire[0].opcode, IB_WR_RDMA_READ);
	KUNIT_EXPECT_EQ(test, vd.wire[0].len, len);
	KUNIT_EXPECT_TRUE(test, vd.wire[0].signaled);
	KUNIT_EXPECT_EQ(test, vd_poll(env->qp, 4), 1u);
	KUNIT_EXPECT_EQ(test, vd.rec.rdma_done, 1u);
	KUNIT_EXPECT_EQ(test, vd.rec.last_status, SRPT_WC_SUCCESS);

	if (!early)
		srpt_os_cmd_rdma_unmap(cmd, 0);
	srpt_os_cmd_execute(cmd);
	KUNIT_EXPECT_EQ(test, vd.rec.execute, 1u);
	KUNIT_EXPECT_EQ(test, vd.rec.exec_len, len);
	same = !memcmp(vd.rec.exec_data, remote, len);
	srpt_os_cmd_release_data(cmd);
	srpt_os_cmd_done(cmd);
	srpt_os_cmd_free(cmd);
	return same;
}

static void shim_write_data_reaches_the_backend(struct kunit *test)
{
	KUNIT_EXPECT_TRUE(test, shim_write(test, false));
}

/*
 * The double itself: with bounce buffers, data-out read before the unmap
 * is not there yet. Were this to pass, the bounce model could not catch
 * a misordered sync.
 */
static void shim_bounce_model_needs_the_unmap(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, shim_write(test, true), shim_profile(test) != VD_DMA_BOUNCE);
}

static void shim_immediate_data(struct kunit *test)
{
	u8 cdb[16] = { WRITE_10 };
	struct srpt_os_cmd *cmd;
	u8 *data;

	data = kunit_kmalloc(test, 512, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, data);
	shim_fill(data, 512, 33);
	cmd = shim_cmd(test, NULL, NULL);
	srpt_os_cmd_map_imm(cmd, data, 512);
	KUNIT_ASSERT_EQ(test, srpt_os_cmd_init(cmd, 9, 0, 512, SRPT_DATA_OUT,
					       SRPT_TASK_SIMPLE), 0);
	srpt_os_cmd_submit(cmd, cdb);
	KUNIT_ASSERT_EQ(test, vd.rec.sgl_count, 1u);
	KUNIT_EXPECT_PTR_EQ(test, sg_virt(vd.rec.sgl), (void *)data);
	KUNIT_EXPECT_EQ(test, vd.rec.sgl->length, 512u);
	srpt_os_cmd_execute(cmd);
	KUNIT_EXPECT_EQ(test, memcmp(vd.rec.exec_data, data, 512), 0);
	srpt_os_cmd_release_data(cmd);
	srpt_os_cmd_done(cmd);
	/* Immediate data leaves no buffer behind: the next command adds its own. */
	KUNIT_EXPECT_EQ(test, srpt_os_cmd_buf_add(cmd, 1, SRPT_DATA_OUT, 0x1000, 1, 100), 0);
	srpt_os_cmd_release_data(cmd);
	srpt_os_cmd_free(cmd);
}

/* ---- LIO's callbacks ---- */

static void shim_status_and_sense(struct kunit *test)
{
	struct shim_env *env = test->priv;
	struct srpt_os_cmd *cmd;
	struct se_cmd *se;
	const u8 *sense;

	cmd = shim_cmd(test, NULL, &sense);
	KUNIT_ASSERT_EQ(test, srpt_os_cmd_init(cmd, 11, 0, 4096, SRPT_DATA_IN,
					       SRPT_TASK_SIMPLE), 0);
	se = vd.rec.se_cmd;
	KUNIT_EXPECT_PTR_EQ(test, (const u8 *)se->sense_buffer, sense);
	KUNIT_EXPECT_EQ(test, se->tag, 11ull);

	/* LIO fails the command with sense: status, sense length, no residual. */
	se->scsi_status = SAM_STAT_CHECK_CONDITION;
	se->scsi_sense_length = 18;
	memset(se->sense_buffer, 0x70, 18);
	KUNIT_EXPECT_EQ(test, srpt_queue_status(se), 0);
	KUNIT_EXPECT_EQ(test, vd.rec.with_data, 0);
	KUNIT_EXPECT_EQ(test, vd.rec.st.scsi_status, (u8)SAM_STAT_CHECK_CONDITION);
	KUNIT_EXPECT_EQ(test, vd.rec.st.sense_len, (u16)18);
	KUNIT_EXPECT_EQ(test, vd.rec.st.residual, (u8)SRPT_RESIDUAL_NONE);
	KUNIT_EXPECT_EQ(test, vd.rec.st.data_len, 4096u);

	/* The context's next command starts without the last one's sense. */
	KUNIT_ASSERT_EQ(test, srpt_os_cmd_init(cmd, 12, 0, 4096, SRPT_DATA_IN,
					       SRPT_TASK_SIMPLE), 0);
	KUNIT_EXPECT_TRUE(test, shim_all(sense, SRPT_SENSE_SIZE, 0));
	KUNIT_EXPECT_EQ(test, se->scsi_sense_length, (u16)0);
	KUNIT_EXPECT_EQ(test, se->scsi_status, (u8)0);
	/* Sense said by a flag alone is cleared too. */
	memset(se->sense_buffer, 0x70, 8);
	se->se_cmd_flags |= SCF_EMULATED_TASK_SENSE;
	KUNIT_ASSERT_EQ(test, srpt_os_cmd_init(cmd, 13, 0, 4096, SRPT_DATA_IN,
					       SRPT_TASK_SIMPLE), 0);
	KUNIT_EXPECT_TRUE(test, shim_all(sense, SRPT_SENSE_SIZE, 0));

	/* Residuals, and the direction that says which of the SRP_RSP's. */
	se->se_cmd_flags |= SCF_UNDERFLOW_BIT;
	se->residual_count = 512;
	KUNIT_EXPECT_EQ(test, srpt_queue_data_in(se), 0);
	KUNIT_EXPECT_EQ(test, vd.rec.with_data, 1);
	KUNIT_EXPECT_EQ(test, vd.rec.st.residual, (u8)SRPT_RESIDUAL_UNDERFLOW);
	KUNIT_EXPECT_EQ(test, vd.rec.st.data_dir, (u8)SRPT_DATA_IN);
	KUNIT_EXPECT_EQ(test, vd.rec.st.residual_count, 512u);
	se->se_cmd_flags &= ~SCF_UNDERFLOW_BIT;
	se->se_cmd_flags |= SCF_OVERFLOW_BIT;
	se->data_direction = DMA_TO_DEVICE;
	KUNIT_EXPECT_EQ(test, srpt_queue_status(se), 0);
	KUNIT_EXPECT_EQ(test, vd.rec.st.residual, (u8)SRPT_RESIDUAL_OVERFLOW);
	KUNIT_EXPECT_EQ(test, vd.rec.st.data_dir, (u8)SRPT_DATA_OUT);
	se->data_direction = DMA_NONE;
	KUNIT_EXPECT_EQ(test, srpt_queue_status(se), 0);
	KUNIT_EXPECT_EQ(test, vd.rec.st.data_dir, (u8)SRPT_DATA_NONE);
	KUNIT_EXPECT_EQ(test, vd.rec.queue_response, 4u);
	KUNIT_EXPECT_PTR_EQ(test, vd.rec.last_cmd, (struct srpt_cmd *)&env->core_cmd);

	srpt_os_cmd_done(cmd);
	srpt_os_cmd_free(cmd);
}

static void shim_lio_callbacks_reach_the_core(struct kunit *test)
{
	struct shim_env *env = test->priv;
	struct srpt_cmd *core = (struct srpt_cmd *)&env->core_cmd;
	struct se_tmr_req tmr = { .response = TMR_LUN_DOES_NOT_EXIST };
	struct se_session sess = { .fabric_sess_ptr = &env->ch };
	struct srpt_os_cmd *cmd;
	struct se_cmd *se;

	env->ch.sess = &sess;
	cmd = shim_cmd(test, NULL, NULL);
	KUNIT_ASSERT_EQ(test, srpt_os_cmd_submit_tmr(cmd, 3, SRPT_TMF_LUN_RESET, 41, 42), 0);
	se = vd.rec.se_cmd;
	KUNIT_EXPECT_PTR_EQ(test, se->se_sess, &sess);
	KUNIT_EXPECT_EQ(test, vd.rec.tmf, (unsigned char)TMR_LUN_RESET);
	KUNIT_EXPECT_EQ(test, vd.rec.lun, 3ull);
	KUNIT_EXPECT_EQ(test, vd.rec.tmr_tag, 41ull);
	KUNIT_EXPECT_EQ(test, se->tag, 42ull);
	se->se_tmr_req = &tmr;
	srpt_queue_tm_rsp(se);
	KUNIT_EXPECT_EQ(test, vd.rec.tm_response, 1u);
	KUNIT_EXPECT_EQ(test, vd.rec.tmr, SRPT_TMR_LUN_DOES_NOT_EXIST);
	KUNIT_EXPECT_PTR_EQ(test, vd.rec.last_cmd, core);

	srpt_aborted_task(se);
	KUNIT_EXPECT_EQ(test, vd.rec.aborted, 1u);
	KUNIT_EXPECT_EQ(test, srpt_get_tcm_cmd_state(se), 7);
	KUNIT_EXPECT_EQ(test, srpt_check_stop_free(se), 0);
	KUNIT_EXPECT_EQ(test, vd.rec.put, 1u);
	srpt_os_cmd_put(cmd);
	KUNIT_EXPECT_EQ(test, vd.rec.put, 2u);
	srpt_release_cmd(se);
	KUNIT_EXPECT_EQ(test, vd.rec.released, 1u);
	KUNIT_EXPECT_PTR_EQ(test, vd.rec.last_cmd, core);
	srpt_close_session(&sess);
	KUNIT_EXPECT_EQ(test, vd.rec.closed, 1u);
	KUNIT_EXPECT_PTR_EQ(test, vd.rec.last_ch, env->ch.core);

	/* Write data that cannot be had: busy if it may come later, else aborted. */
	srpt_os_cmd_abort(cmd, SRPT_WRITE_TASK_SET_FULL);
	KUNIT_EXPECT_EQ(test, vd.rec.reason, TCM_OUT_OF_RESOURCES);
	srpt_os_cmd_abort(cmd, SRPT_WRITE_ABORTED_COMMAND);
	KUNIT_EXPECT_EQ(test, vd.rec.reason, TCM_CHECK_CONDITION_ABORT_CMD);

	vd.faults.init_cmd = 1;
	KUNIT_EXPECT_EQ(test, srpt_os_cmd_init(cmd, 1, 0, 0, SRPT_DATA_NONE,
					       SRPT_TASK_SIMPLE), -ESHUTDOWN);
	srpt_os_cmd_free(cmd);
}

/* ---- Resources running out ---- */

static void shim_out_of_resources(struct kunit *test)
{
	struct shim_env *env = test->priv;
	u8 cdb[16] = { WRITE_10 };
	struct srpt_os_cmd *cmd;
	void *rsp;
	const u8 *sense;

	/* No mapping for the response buffer: no context. */
	vd.faults.map = 1;
	KUNIT_EXPECT_PTR_EQ(test, srpt_os_cmd_alloc(&env->ch, NULL, SHIM_RSP_SIZE, &rsp,
						    &sense), NULL);

	/* No page: the buffer fails, and releasing it leaves nothing. */
	cmd = shim_cmd(test, NULL, NULL);
	vd.faults.page = 1;
	KUNIT_EXPECT_EQ(test, srpt_os_cmd_buf_add(cmd, 1, SRPT_DATA_IN, 0x1000, 1, 512),
			-ENOMEM);
	srpt_os_cmd_release_data(cmd);

	/* The page's own mapping fails: it is used unkept, through rdma_rw. */
	vd.faults.map = 1;
	KUNIT_EXPECT_EQ(test, srpt_os_cmd_buf_add(cmd, 1, SRPT_DATA_IN, 0x1000, 1, 512), 0);
	srpt_os_cmd_release_data(cmd);

	/* The second of two buffers fails: the first is freed with the release. */
	vd.faults.sgl = 2;
	KUNIT_EXPECT_EQ(test, srpt_os_cmd_buf_add(cmd, 2, SRPT_DATA_OUT, 0x1000, 1, 9000), 0);
	KUNIT_EXPECT_EQ(test, srpt_os_cmd_buf_add(cmd, 2, SRPT_DATA_OUT, 0x9000, 1, 9000),
			-ENOMEM);
	srpt_os_cmd_release_data(cmd);

	/* rdma_rw out of memory: try again later, the entry restored. */
	KUNIT_ASSERT_EQ(test, srpt_os_cmd_buf_add(cmd, 1, SRPT_DATA_OUT, 0x1000, 1, 9000), 0);
	KUNIT_ASSERT_EQ(test, srpt_os_cmd_init(cmd, 1, 0, 9000, SRPT_DATA_OUT,
					       SRPT_TASK_SIMPLE), 0);
	srpt_os_cmd_submit(cmd, cdb);
	vd.faults.rw_init = 1;
	KUNIT_EXPECT_EQ(test, srpt_os_cmd_rdma_map(cmd, 0, 0, 5000), -ENOMEM);
	KUNIT_EXPECT_EQ(test, shim_sgl_len(vd.rec.sgl, vd.rec.sgl_count), 9000u);
	KUNIT_EXPECT_GE(test, srpt_os_cmd_rdma_map(cmd, 0, 0, 5000), 1);
	srpt_os_cmd_rdma_unmap(cmd, 0);
	KUNIT_EXPECT_EQ(test, shim_sgl_len(vd.rec.sgl, vd.rec.sgl_count), 9000u);
	srpt_os_cmd_release_data(cmd);
	srpt_os_cmd_free(cmd);
}

static void shim_send_queue_holds_its_slots(struct kunit *test)
{
	struct shim_env *env = test->priv;
	struct srpt_os_cmd *cmd[3];
	u8 *rsp;
	int i;

	shim_resize_qp(test, 2, 8);
	for (i = 0; i < 3; i++) {
		cmd[i] = shim_cmd(test, &rsp, NULL);
		memset(rsp, i, SHIM_RSP_LEN);
	}
	KUNIT_EXPECT_EQ(test, srpt_os_cmd_post(cmd[0], SHIM_RSP_LEN, 0, 0), 0);
	KUNIT_EXPECT_EQ(test, srpt_os_cmd_post(cmd[1], SHIM_RSP_LEN, 0, 0), 0);
	KUNIT_EXPECT_EQ(test, srpt_os_cmd_post(cmd[2], SHIM_RSP_LEN, 0, 0), -ENOMEM);
	KUNIT_EXPECT_EQ(test, vd.nr_wire, 2u);
	KUNIT_EXPECT_EQ(test, vd_poll(env->qp, 1), 1u);
	KUNIT_EXPECT_EQ(test, srpt_os_cmd_post(cmd[2], SHIM_RSP_LEN, 0, 0), 0);
	KUNIT_EXPECT_EQ(test, vd_poll(env->qp, 4), 2u);
	KUNIT_EXPECT_EQ(test, vd.rec.send_done, 3u);
	for (i = 0; i < 3; i++)
		srpt_os_cmd_free(cmd[i]);
}

static void shim_buf_cache_shares_and_aligns(struct kunit *test)
{
	struct kmem_cache *a, *b, *c;
	void *obj;

	a = srpt_buf_cache_get(1000);
	b = srpt_buf_cache_get(1000);
	c = srpt_buf_cache_get(2000);
	KUNIT_ASSERT_NOT_NULL(test, a);
	KUNIT_ASSERT_NOT_NULL(test, c);
	KUNIT_EXPECT_PTR_EQ(test, a, b);
	KUNIT_EXPECT_PTR_NE(test, a, c);
	obj = kmem_cache_alloc(a, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, obj);
	KUNIT_EXPECT_EQ(test, (uintptr_t)obj % 512, (uintptr_t)0);
	kmem_cache_free(a, obj);
	srpt_buf_cache_put(a);
	srpt_buf_cache_put(b);
	srpt_buf_cache_put(c);
	srpt_buf_cache_put(NULL);
}

static struct kunit_case shim_cases[] = {
	KUNIT_CASE_PARAM(shim_recv_delivers_the_iu, shim_profile_gen_params),
	KUNIT_CASE(shim_recv_queue_holds_its_slots),
	KUNIT_CASE_PARAM(shim_srq_receives, shim_profile_gen_params),
	KUNIT_CASE(shim_recv_out_of_memory),
	KUNIT_CASE(shim_allocations_fail_cleanly),
	KUNIT_CASE_PARAM(shim_response_bytes_on_the_wire, shim_profile_gen_params),
	KUNIT_CASE_PARAM(shim_read_single_buffer, shim_profile_gen_params),
	KUNIT_CASE_PARAM(shim_forced_mr_never_keeps, shim_profile_gen_params),
	KUNIT_CASE_PARAM(shim_iwarp_never_reuses_the_page, shim_profile_gen_params),
	KUNIT_CASE_PARAM(shim_read_buffers_in_pieces, shim_profile_gen_params),
	KUNIT_CASE_PARAM(shim_failed_transfer_fails_the_response, shim_profile_gen_params),
	KUNIT_CASE_PARAM(shim_write_data_reaches_the_backend, shim_profile_gen_params),
	KUNIT_CASE_PARAM(shim_bounce_model_needs_the_unmap, shim_profile_gen_params),
	KUNIT_CASE_PARAM(shim_immediate_data, shim_profile_gen_params),
	KUNIT_CASE(shim_status_and_sense),
	KUNIT_CASE(shim_lio_callbacks_reach_the_core),
	KUNIT_CASE(shim_out_of_resources),
	KUNIT_CASE(shim_send_queue_holds_its_slots),
	KUNIT_CASE(shim_buf_cache_shares_and_aligns),
	{}
};

static struct kunit_suite srpt_shim_suite = {
	.name = "srpt_shim",
	.init = shim_init,
	.exit = shim_exit,
	.test_cases = shim_cases,
};

kunit_test_suites(&srpt_shim_suite);
