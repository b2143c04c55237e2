// SPDX-License-Identifier: GPL-2.0-only
/*
 * The strict device, DMA API and LIO under the shim suite: see
 * verbs_double.h for what it holds the shims to.
 */
#include <linux/bug.h>
#include <linux/errno.h>
#include <linux/kernel.h>
#include <linux/mm.h>
#include <linux/slab.h>
#include <linux/string.h>

#include "verbs_double.h"
#include "../../tests/doubles/names.h"
#include "../../tests/doubles/qp_model.h"

#define VD_MAX_MAPS 512
#define VD_HANDLE_BASE 0xd00000000000ULL	/* no kernel address: a bus address */
#define VD_HANDLE_STRIDE (1ULL << 24)
#define VD_MAX_REMOTE 8
#define VD_MAX_RQ 64
#define VD_MAX_CQE 256
#define VD_MAX_RW 16
#define VD_RW_MAX_SGE 64
#define VD_SGE_PER_WR 16			/* the QP's max_send_sge */
#define VD_RW_MAX_WRS (VD_RW_MAX_SGE / VD_SGE_PER_WR)
#define VD_PAGE_POISON 0xa5			/* what fresh pages hold: not zero */

struct vd_state vd;

struct vd_map {
	bool live;
	void *cpu;
	size_t len;
	enum dma_data_direction dir;
	u64 handle;
	u8 *bounce;			/* the device's copy (bounce profile) */
};

struct vd_remote {
	u64 va;
	u32 rkey;
	u32 len;
	u8 *buf;
};

/* A posted receive, as the device copied it at the post. */
struct vd_recv_slot {
	struct ib_cqe *cqe;
	struct ib_sge sge;
};

struct vd_rq {
	struct vd_recv_slot slot[VD_MAX_RQ];
	unsigned int head;		/* the oldest posted */
	unsigned int posted;		/* posted and not yet consumed */
	unsigned int used;		/* posted and not yet polled */
	unsigned int size;
};

struct vd_srq {
	struct ib_srq srq;
	struct vd_rq rq;
};

struct vd_cqe {
	struct ib_wc wc;
	unsigned int send_wrs;		/* send slots it frees; 0 for a receive */
	bool own_rq;			/* a receive of the QP's own queue */
};

struct vd_qp {
	struct ib_qp qp;
	struct ib_cq cq;
	struct srpt_qp_model m;
	unsigned int unsignaled;	/* send WRs since the last completion */
	bool error;			/* a WR failed: the rest flush */
	struct vd_rq rq;
	struct vd_cqe cqes[VD_MAX_CQE];
	unsigned int cq_head, cq_count;
};

struct vd_rw {
	struct rdma_rw_ctx *ctx;
	struct scatterlist *sg;
	u32 sg_cnt;
	enum dma_data_direction dir;
	u32 lens[VD_RW_MAX_SGE];
	unsigned int nr_wrs;
	struct ib_rdma_wr wrs[VD_RW_MAX_WRS];
	struct ib_sge sges[VD_RW_MAX_SGE];
};

static struct vd_map vd_maps[VD_MAX_MAPS];
static struct vd_remote vd_remotes[VD_MAX_REMOTE];
static struct vd_rw vd_rws[VD_MAX_RW];
static struct vd_srq *vd_the_srq;
static struct vd_qp *vd_qps[4];
static struct ib_device *vd_ib;
static struct ib_pd vd_the_pd;
static unsigned int vd_violation_count;
static char vd_violation_msg[160];
static int vd_live_sgls;

static __printf(1, 2) void vd_violation(const char *fmt, ...)
{
	va_list args;

	if (!vd_violation_count++) {
		va_start(args, fmt);
		vsnprintf(vd_violation_msg, sizeof(vd_violation_msg), fmt, args);
		va_end(args);
	}
	WARN(1, "srpt shim double: %s\n", vd_violation_msg);
}

unsigned int vd_violations(void)
{
	return vd_violation_count;
}

const char *vd_first_violation(void)
{
	return vd_violation_count ? vd_violation_msg : "none";
}

/* Counts a fault down: true for the call it fails. */
static bool vd_fault(int *countdown)
{
	return *countdown > 0 && --*countdown == 0;
}

/* ---- DMA ---- */

bool vd_uses_virt_dma(struct ib_device *dev)
{
	return vd.profile == VD_DMA_VIRT;
}

bool vd_dma_need_sync(struct device *dev, dma_addr_t addr)
{
	return vd.profile == VD_DMA_BOUNCE;
}

static u64 vd_map(void *cpu, size_t len, enum dma_data_direction dir)
{
	unsigned int i;
	struct vd_map *m;

	if (vd_fault(&vd.faults.map))
		return DMA_MAPPING_ERROR;
	if (WARN_ON(!len || len > VD_HANDLE_STRIDE))
		return DMA_MAPPING_ERROR;
	for (i = 0; i < VD_MAX_MAPS && vd_maps[i].live; i++)
		;
	if (WARN_ON(i == VD_MAX_MAPS))
		return DMA_MAPPING_ERROR;
	m = &vd_maps[i];
	m->bounce = NULL;
	if (vd.profile == VD_DMA_BOUNCE) {
		/* 6.1's swiotlb copies the buffer in at map, whatever the direction. */
		m->bounce = kmemdup(cpu, len, GFP_KERNEL);
		if (!m->bounce)
			return DMA_MAPPING_ERROR;
	}
	m->live = true;
	m->cpu = cpu;
	m->len = len;
	m->dir = dir;
	m->handle = vd.profile == VD_DMA_VIRT ? (u64)(uintptr_t)cpu :
		    VD_HANDLE_BASE + i * VD_HANDLE_STRIDE;
	return m->handle;
}

/* The live mapping that holds [@addr, @addr + @len), in direction @dir if one does. */
static struct vd_map *vd_find(u64 addr, u64 len, int dir)
{
	struct vd_map *found = NULL;
	unsigned int i;

	for (i = 0; i < VD_MAX_MAPS; i++) {
		struct vd_map *m = &vd_maps[i];

		if (!m->live || addr < m->handle || addr + len > m->handle + m->len)
			continue;
		if (dir < 0 || m->dir == dir || m->dir == DMA_BIDIRECTIONAL)
			return m;
		found = m;
	}
	return found;
}

static u8 *vd_device_copy(struct vd_map *m, u64 addr)
{
	return (m->bounce ? m->bounce : (u8 *)m->cpu) + (addr - m->handle);
}

/* The device reads (@write false) or writes @len bytes at bus address @addr. */
static int vd_device_access(u64 addr, u32 len, void *buf, bool write)
{
	enum dma_data_direction want = write ? DMA_FROM_DEVICE : DMA_TO_DEVICE;
	struct vd_map *m;

	if (!len)
		return 0;
	m = vd_find(addr, len, want);
	if (!m) {
		vd_violation("the device %s %u bytes at %#llx, which no mapping holds",
			     write ? "writes" : "reads", len, addr);
		return -EFAULT;
	}
	if (m->dir != want && m->dir != DMA_BIDIRECTIONAL) {
		vd_violation("the device %s a mapping made for the other direction",
			     write ? "writes" : "reads");
		return -EFAULT;
	}
	if (write)
		memcpy(vd_device_copy(m, addr), buf, len);
	else
		memcpy(buf, vd_device_copy(m, addr), len);
	return 0;
}

u64 vd_dma_map_single(struct ib_device *dev, void *cpu, size_t size,
		      enum dma_data_direction dir)
{
	return vd_map(cpu, size, dir);
}

u64 vd_dma_map_page(struct ib_device *dev, struct page *page, unsigned long off,
		    size_t size, enum dma_data_direction dir)
{
	return vd_map(page_address(page) + off, size, dir);
}

int vd_dma_mapping_error(struct ib_device *dev, u64 addr)
{
	return addr == DMA_MAPPING_ERROR;
}

static bool vd_rq_points_into(const struct vd_rq *rq, const struct vd_map *m)
{
	unsigned int i;

	for (i = 0; i < rq->posted; i++) {
		const struct ib_sge *sge = &rq->slot[(rq->head + i) % VD_MAX_RQ].sge;

		if (sge->addr >= m->handle && sge->addr < m->handle + m->len)
			return true;
	}
	return false;
}

/* Whether a receive still posted would land in @m. */
static bool vd_posted_into(const struct vd_map *m)
{
	unsigned int i;

	if (vd_the_srq && vd_rq_points_into(&vd_the_srq->rq, m))
		return true;
	for (i = 0; i < ARRAY_SIZE(vd_qps); i++)
		if (vd_qps[i] && vd_rq_points_into(&vd_qps[i]->rq, m))
			return true;
	return false;
}

static void vd_unmap(u64 addr, size_t size, enum dma_data_direction dir)
{
	struct vd_map *m = NULL;
	unsigned int i;

	/* Virtual DMA gives one memory's mappings the same address: match them whole. */
	for (i = 0; i < VD_MAX_MAPS; i++) {
		struct vd_map *c = &vd_maps[i];

		if (!c->live || c->handle != addr)
			continue;
		if (!m || (c->len == size && c->dir == dir))
			m = c;
	}
	if (!m) {
		vd_violation("unmap of %#llx, which is not mapped", addr);
		return;
	}
	if (m->len != size || m->dir != dir)
		vd_violation("unmap of %#llx with %zu bytes, direction %d; mapped with %zu, %d",
			     addr, size, dir, m->len, m->dir);
	if (vd_posted_into(m))
		vd_violation("unmap of %#llx while a receive posted into it", addr);
	if (m->bounce && (m->dir == DMA_FROM_DEVICE || m->dir == DMA_BIDIRECTIONAL))
		memcpy(m->cpu, m->bounce, m->len);
	kfree(m->bounce);
	m->bounce = NULL;
	m->live = false;
}

void vd_dma_unmap_single(struct ib_device *dev, u64 addr, size_t size,
			 enum dma_data_direction dir)
{
	vd_unmap(addr, size, dir);
}

static struct vd_map *vd_sync_target(u64 addr, size_t size,
				     enum dma_data_direction dir)
{
	struct vd_map *m = vd_find(addr, size, dir);

	if (!m || m->dir != dir) {
		vd_violation("sync of %zu bytes at %#llx, direction %d: no such mapping",
			     size, addr, dir);
		return NULL;
	}
	return m;
}

void vd_dma_sync_for_cpu(struct ib_device *dev, u64 addr, size_t size,
			 enum dma_data_direction dir)
{
	struct vd_map *m = vd_sync_target(addr, size, dir);

	if (m && m->bounce && dir != DMA_TO_DEVICE)
		memcpy((u8 *)m->cpu + (addr - m->handle), vd_device_copy(m, addr), size);
}

void vd_dma_sync_for_device(struct ib_device *dev, u64 addr, size_t size,
			    enum dma_data_direction dir)
{
	struct vd_map *m = vd_sync_target(addr, size, dir);

	if (m && m->bounce && dir != DMA_FROM_DEVICE)
		memcpy(vd_device_copy(m, addr), (u8 *)m->cpu + (addr - m->handle), size);
}

unsigned int vd_live_mappings(void)
{
	unsigned int i, n = 0;

	for (i = 0; i < VD_MAX_MAPS; i++)
		n += vd_maps[i].live;
	return n;
}

/* ---- The initiator's memory ---- */

u8 *vd_remote_add(u64 va, u32 rkey, u32 len, u8 fill)
{
	unsigned int i;

	for (i = 0; i < VD_MAX_REMOTE; i++) {
		struct vd_remote *r = &vd_remotes[i];

		if (r->buf)
			continue;
		r->buf = kmalloc(len, GFP_KERNEL);
		if (!r->buf)
			return NULL;
		memset(r->buf, fill, len);
		r->va = va;
		r->rkey = rkey;
		r->len = len;
		return r->buf;
	}
	return NULL;
}

static u8 *vd_remote(u64 va, u32 rkey, u32 len)
{
	unsigned int i;

	for (i = 0; i < VD_MAX_REMOTE; i++) {
		struct vd_remote *r = &vd_remotes[i];

		if (r->buf && r->rkey == rkey && va >= r->va &&
		    va + len <= r->va + r->len)
			return r->buf + (va - r->va);
	}
	vd_violation("RDMA to %u bytes at %#llx, rkey %#x: outside the initiator's buffers",
		     len, va, rkey);
	return NULL;
}

/* ---- Queues and completions ---- */

static struct vd_qp *to_vd_qp(struct ib_qp *qp)
{
	return container_of(qp, struct vd_qp, qp);
}

static void vd_cq_push(struct vd_qp *q, const struct vd_cqe *e)
{
	if (q->cq_count == VD_MAX_CQE) {
		vd_violation("CQ overrun");
		return;
	}
	q->cqes[(q->cq_head + q->cq_count++) % VD_MAX_CQE] = *e;
}

static int vd_rq_post(struct vd_rq *rq, const struct ib_recv_wr *wr,
		      const struct ib_recv_wr **bad)
{
	for (; wr; wr = wr->next) {
		struct vd_recv_slot *s;

		if (rq->used >= rq->size) {
			*bad = wr;
			return -ENOMEM;
		}
		if (wr->num_sge != 1 || wr->sg_list[0].lkey != VD_LKEY || !wr->wr_cqe) {
			vd_violation("a receive WR with %d SGEs, lkey %#x, cqe %p",
				     wr->num_sge, wr->num_sge ? wr->sg_list[0].lkey : 0,
				     wr->wr_cqe);
			*bad = wr;
			return -EINVAL;
		}
		s = &rq->slot[(rq->head + rq->posted++) % VD_MAX_RQ];
		s->cqe = wr->wr_cqe;
		s->sge = wr->sg_list[0];
		rq->used++;
	}
	return 0;
}

static int vd_post_recv(struct ib_qp *qp, const struct ib_recv_wr *wr,
			const struct ib_recv_wr **bad)
{
	if (qp->srq) {
		vd_violation("a receive posted to a QP that uses an SRQ");
		*bad = wr;
		return -EINVAL;
	}
	return vd_rq_post(&to_vd_qp(qp)->rq, wr, bad);
}

static int vd_post_srq_recv(struct ib_srq *srq, const struct ib_recv_wr *wr,
			    const struct ib_recv_wr **bad)
{
	return vd_rq_post(&container_of(srq, struct vd_srq, srq)->rq, wr, bad);
}

/* Runs one send WR: moves its bytes; the wire log keeps what went. */
static enum ib_wc_status vd_run_send(const struct ib_send_wr *wr)
{
	const struct ib_rdma_wr *rdma = container_of(wr, const struct ib_rdma_wr, wr);
	struct vd_wire *w = vd.nr_wire < VD_MAX_WIRE ? &vd.wire[vd.nr_wire++] : NULL;
	u32 len = 0, done = 0;
	u8 *remote = NULL;
	u8 *bytes;
	int i;

	for (i = 0; i < wr->num_sge; i++)
		len += wr->sg_list[i].length;
	if (w) {
		memset(w, 0, sizeof(*w));
		w->opcode = wr->opcode;
		w->len = len;
		w->signaled = wr->send_flags & IB_SEND_SIGNALED;
	}
	if (wr->opcode == IB_WR_RDMA_WRITE || wr->opcode == IB_WR_RDMA_READ) {
		if (w) {
			w->remote_addr = rdma->remote_addr;
			w->rkey = rdma->rkey;
		}
		remote = vd_remote(rdma->remote_addr, rdma->rkey, len);
		if (!remote)
			return IB_WC_REM_ACCESS_ERR;
	} else if (wr->opcode != IB_WR_SEND) {
		vd_violation("send WR opcode %d", wr->opcode);
		return IB_WC_LOC_QP_OP_ERR;
	}
	bytes = kmalloc(max(len, 1u), GFP_KERNEL);
	if (!bytes)
		return IB_WC_GENERAL_ERR;
	if (wr->opcode == IB_WR_RDMA_READ)
		memcpy(bytes, remote, len);
	for (i = 0; i < wr->num_sge; i++) {
		const struct ib_sge *sge = &wr->sg_list[i];

		if (sge->lkey != VD_LKEY)
			vd_violation("an SGE with lkey %#x, not the PD's", sge->lkey);
		if (vd_device_access(sge->addr, sge->length, bytes + done,
				     wr->opcode == IB_WR_RDMA_READ))
			break;
		done += sge->length;
	}
	if (wr->opcode == IB_WR_RDMA_WRITE && done == len)
		memcpy(remote, bytes, len);
	if (w)
		memcpy(w->bytes, bytes, min_t(u32, len, VD_WIRE_BYTES));
	kfree(bytes);
	return done == len ? IB_WC_SUCCESS : IB_WC_LOC_PROT_ERR;
}

static enum ib_wc_status vd_next_status = IB_WC_SUCCESS;

void vd_fail_next_send(enum ib_wc_status status)
{
	vd_next_status = status;
}

static int vd_post_send(struct ib_qp *qp, const struct ib_send_wr *wr,
			const struct ib_send_wr **bad)
{
	struct vd_qp *q = to_vd_qp(qp);

	for (; wr; wr = wr->next) {
		bool signaled = wr->send_flags & IB_SEND_SIGNALED;
		enum ib_wc_status status;
		struct vd_cqe e = {};

		if (!srpt_qp_model_send_fits(&q->m, 1)) {
			*bad = wr;
			return -ENOMEM;
		}
		if (wr->num_sge > VD_SGE_PER_WR) {
			vd_violation("a send WR with %d SGEs; the QP has %d",
				     wr->num_sge, VD_SGE_PER_WR);
			*bad = wr;
			return -EINVAL;
		}
		if (signaled && !wr->wr_cqe)
			vd_violation("a signalled send WR without a completion handler");
		if (q->error) {
			status = IB_WC_WR_FLUSH_ERR;
		} else if (vd_next_status != IB_WC_SUCCESS) {
			status = vd_next_status;
			vd_next_status = IB_WC_SUCCESS;
		} else {
			status = vd_run_send(wr);
		}
		srpt_qp_model_post_send(&q->m, 1, signaled);
		q->unsignaled++;
		/* An error completes every WR, signalled or not, and stops the QP. */
		if (!signaled && status == IB_WC_SUCCESS)
			continue;
		q->error |= status != IB_WC_SUCCESS;
		e.wc.wr_cqe = wr->wr_cqe;
		e.wc.status = status;
		e.wc.qp = qp;
		e.send_wrs = q->unsignaled;
		q->unsignaled = 0;
		vd_cq_push(q, &e);
	}
	return 0;
}

static struct vd_rq *vd_qp_rq(struct vd_qp *q)
{
	return q->qp.srq ? &container_of(q->qp.srq, struct vd_srq, srq)->rq : &q->rq;
}

int vd_deliver(struct ib_qp *qp, const void *bytes, u32 len)
{
	struct vd_qp *q = to_vd_qp(qp);
	struct vd_rq *rq = vd_qp_rq(q);
	struct vd_recv_slot s;
	struct vd_cqe e = {};

	if (!rq->posted)
		return -ENOENT;
	s = rq->slot[rq->head];
	rq->head = (rq->head + 1) % VD_MAX_RQ;
	rq->posted--;
	e.wc.wr_cqe = s.cqe;
	e.wc.qp = qp;
	e.wc.opcode = IB_WC_RECV;
	e.own_rq = !qp->srq;
	if (len > s.sge.length) {
		/* Only status and wr_cqe of a failed completion are valid: not this. */
		e.wc.byte_len = len;
		e.wc.status = IB_WC_LOC_LEN_ERR;
	} else if (vd_device_access(s.sge.addr, len, (void *)bytes, true)) {
		e.wc.status = IB_WC_LOC_PROT_ERR;
	} else {
		e.wc.status = IB_WC_SUCCESS;
		e.wc.byte_len = len;
	}
	if (qp->srq)
		rq->used--;		/* the SRQ's slot is free once consumed */
	vd_cq_push(q, &e);
	return 0;
}

unsigned int vd_poll(struct ib_qp *qp, unsigned int n)
{
	struct vd_qp *q = to_vd_qp(qp);
	unsigned int polled = 0;

	while (polled < n && q->cq_count) {
		struct vd_cqe e = q->cqes[q->cq_head];

		q->cq_head = (q->cq_head + 1) % VD_MAX_CQE;
		q->cq_count--;
		polled++;
		if (e.send_wrs)
			srpt_qp_model_send_done(&q->m, e.send_wrs, 1);
		if (e.own_rq)
			q->rq.used--;
		/* As __ib_process_cq(): a failed WR without a handler is skipped. */
		if (e.wc.wr_cqe)
			e.wc.wr_cqe->done(&q->cq, &e.wc);
		else if (e.wc.status == IB_WC_SUCCESS)
			vd_violation("a successful completion without a handler");
	}
	return polled;
}

unsigned int vd_pending(struct ib_qp *qp)
{
	return to_vd_qp(qp)->cq_count;
}

unsigned int vd_sq_used(struct ib_qp *qp)
{
	return to_vd_qp(qp)->m.sq_used;
}

struct ib_qp *vd_qp_create(void *qp_context, unsigned int sq, unsigned int rq)
{
	struct vd_qp *q;
	unsigned int i;

	if (!rq && !vd_the_srq)
		return NULL;
	for (i = 0; i < ARRAY_SIZE(vd_qps) && vd_qps[i]; i++)
		;
	if (i == ARRAY_SIZE(vd_qps))
		return NULL;
	q = kzalloc(sizeof(*q), GFP_KERNEL);
	if (!q)
		return NULL;
	q->qp.device = vd_ib;
	q->qp.pd = &vd_the_pd;
	q->qp.qp_context = qp_context;
	q->qp.send_cq = &q->cq;
	q->qp.recv_cq = &q->cq;
	q->qp.srq = rq ? NULL : &vd_the_srq->srq;
	q->cq.device = vd_ib;
	q->m.sq_slots = sq;
	q->m.rq_slots = rq;
	q->m.use_srq = !rq;
	q->rq.size = min_t(unsigned int, rq, VD_MAX_RQ);
	vd_qps[i] = q;
	return &q->qp;
}

void vd_qp_destroy(struct ib_qp *qp)
{
	struct vd_qp *q = to_vd_qp(qp);
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(vd_qps); i++)
		if (vd_qps[i] == q)
			vd_qps[i] = NULL;
	kfree(q);
}

/* ib_core's, which UML does not build: the names both doubles know. */
const char *vd_ib_event_msg(enum ib_event_type event)
{
	return srpt_double_ib_event_msg(event);
}

struct ib_srq *vd_create_srq(struct ib_pd *pd, struct ib_srq_init_attr *attr)
{
	struct vd_srq *s;

	if (vd_the_srq)
		return ERR_PTR(-EBUSY);
	if (attr->srq_type != IB_SRQT_BASIC || attr->attr.max_sge < 1 ||
	    !attr->attr.max_wr)
		return ERR_PTR(-EINVAL);
	s = kzalloc(sizeof(*s), GFP_KERNEL);
	if (!s)
		return ERR_PTR(-ENOMEM);
	s->srq.device = vd_ib;
	s->srq.pd = pd;
	s->srq.event_handler = attr->event_handler;
	s->srq.srq_context = attr->srq_context;
	/* Exactly the size asked for: mlx5 rounds up, but promises only that. */
	s->rq.size = min_t(unsigned int, attr->attr.max_wr, VD_MAX_RQ);
	vd_the_srq = s;
	return &s->srq;
}

void vd_destroy_srq(struct ib_srq *srq)
{
	struct vd_srq *s = container_of(srq, struct vd_srq, srq);

	if (WARN_ON(s != vd_the_srq))
		return;
	vd_the_srq = NULL;
	kfree(s);
}

/* ---- rdma_rw ---- */

static struct vd_rw *vd_rw_find(struct rdma_rw_ctx *ctx)
{
	unsigned int i;

	for (i = 0; i < VD_MAX_RW; i++)
		if (vd_rws[i].ctx == ctx)
			return &vd_rws[i];
	return NULL;
}

static void vd_rw_unmap(struct scatterlist *sg, const u32 *lens, unsigned int n,
			enum dma_data_direction dir)
{
	struct scatterlist *s;
	unsigned int i;

	for_each_sg(sg, s, n, i)
		vd_unmap(sg_dma_address(s), lens[i], dir);
}

int vd_rw_ctx_init(struct rdma_rw_ctx *ctx, struct ib_qp *qp, u32 port_num,
		   struct scatterlist *sg, u32 sg_cnt, u32 sg_offset,
		   u64 remote_addr, u32 rkey, enum dma_data_direction dir)
{
	struct vd_rw *rw = vd_rw_find(ctx);
	struct scatterlist *s;
	u64 addr = remote_addr;
	unsigned int i;

	if (rw) {
		vd_violation("rdma_rw_ctx_init() of a context in use");
		return -EINVAL;
	}
	if (!sg_cnt || sg_cnt > VD_RW_MAX_SGE || sg_offset ||
	    (dir != DMA_TO_DEVICE && dir != DMA_FROM_DEVICE)) {
		vd_violation("rdma_rw_ctx_init() of %u entries, offset %u, direction %d",
			     sg_cnt, sg_offset, dir);
		return -EINVAL;
	}
	if (vd_fault(&vd.faults.rw_init))
		return -ENOMEM;
	rw = vd_rw_find(NULL);
	if (WARN_ON(!rw))
		return -ENOMEM;
	memset(rw, 0, sizeof(*rw));
	for_each_sg(sg, s, sg_cnt, i) {
		u64 dma = vd_map(sg_virt(s), s->length, dir);

		if (dma == DMA_MAPPING_ERROR) {
			vd_rw_unmap(sg, rw->lens, i, dir);
			return -ENOMEM;
		}
		sg_dma_address(s) = dma;
		sg_dma_len(s) = s->length;
		rw->lens[i] = s->length;
		rw->sges[i].addr = dma;
		rw->sges[i].length = s->length;
		rw->sges[i].lkey = qp->pd->local_dma_lkey;
	}
	rw->nr_wrs = DIV_ROUND_UP(sg_cnt, VD_SGE_PER_WR);
	for (i = 0; i < rw->nr_wrs; i++) {
		struct ib_rdma_wr *w = &rw->wrs[i];
		unsigned int j, n = min_t(u32, VD_SGE_PER_WR, sg_cnt - i * VD_SGE_PER_WR);

		w->wr.opcode = dir == DMA_TO_DEVICE ? IB_WR_RDMA_WRITE : IB_WR_RDMA_READ;
		w->wr.sg_list = &rw->sges[i * VD_SGE_PER_WR];
		w->wr.num_sge = n;
		w->remote_addr = addr;
		w->rkey = rkey;
		for (j = 0; j < n; j++)
			addr += w->wr.sg_list[j].length;
		if (i)
			rw->wrs[i - 1].wr.next = &w->wr;
	}
	rw->ctx = ctx;
	rw->sg = sg;
	rw->sg_cnt = sg_cnt;
	rw->dir = dir;
	return rw->nr_wrs;
}

void vd_rw_ctx_destroy(struct rdma_rw_ctx *ctx, struct ib_qp *qp, u32 port_num,
		       struct scatterlist *sg, u32 sg_cnt, enum dma_data_direction dir)
{
	struct vd_rw *rw = vd_rw_find(ctx);
	struct scatterlist *s;
	unsigned int i;

	if (!rw) {
		vd_violation("rdma_rw_ctx_destroy() of a context not in use");
		return;
	}
	if (sg != rw->sg || sg_cnt != rw->sg_cnt || dir != rw->dir)
		vd_violation("rdma_rw_ctx_destroy() with other entries or direction than its init");
	for_each_sg(rw->sg, s, rw->sg_cnt, i)
		if (s->length != rw->lens[i])
			vd_violation("an entry's length changed while it was mapped");
	vd_rw_unmap(rw->sg, rw->lens, rw->sg_cnt, rw->dir);
	rw->ctx = NULL;
}

/* As rdma_rw_ctx_wrs(): a chain goes on after the last WR, else it signals @cqe. */
struct ib_send_wr *vd_rw_ctx_wrs(struct rdma_rw_ctx *ctx, struct ib_qp *qp,
				 u32 port_num, struct ib_cqe *cqe,
				 struct ib_send_wr *chain_wr)
{
	struct vd_rw *rw = vd_rw_find(ctx);
	struct ib_send_wr *last;

	if (!rw) {
		vd_violation("rdma_rw_ctx_wrs() of a context not in use");
		return chain_wr;
	}
	last = &rw->wrs[rw->nr_wrs - 1].wr;
	last->next = chain_wr;
	last->wr_cqe = chain_wr ? NULL : cqe;
	last->send_flags = chain_wr ? 0 : IB_SEND_SIGNALED;
	return &rw->wrs[0].wr;
}

/* ---- Pages and LIO ---- */

struct page *vd_alloc_page(gfp_t gfp)
{
	struct page *page;

	if (vd_fault(&vd.faults.page))
		return NULL;
	page = alloc_pages(gfp, 0);
	if (page)
		memset(page_address(page), VD_PAGE_POISON, PAGE_SIZE);
	return page;
}

void *vd_kmalloc(size_t size, gfp_t gfp)
{
	return vd_fault(&vd.faults.alloc) ? NULL : kmalloc(size, gfp);
}

void *vd_kzalloc(size_t size, gfp_t gfp)
{
	return vd_fault(&vd.faults.alloc) ? NULL : kzalloc(size, gfp);
}

struct kmem_cache *vd_kmem_cache_create(const char *name, unsigned int size,
					unsigned int align, slab_flags_t flags,
					void (*ctor)(void *))
{
	if (vd_fault(&vd.faults.alloc))
		return NULL;
	return kmem_cache_create(name, size, align, flags, ctor);
}

void *vd_kmem_cache_alloc(struct kmem_cache *cache, gfp_t gfp)
{
	return vd_fault(&vd.faults.alloc) ? NULL : kmem_cache_alloc(cache, gfp);
}

/* As sgl_alloc_order(): a page per entry, a spare entry to chain when asked. */
int vd_alloc_sgl(struct scatterlist **sgl, unsigned int *nents, u32 length,
		 bool zero_page, bool chainable)
{
	unsigned int n = DIV_ROUND_UP(length, PAGE_SIZE), i;
	struct scatterlist *sg;

	if (vd_fault(&vd.faults.sgl))
		return -ENOMEM;
	sg = kmalloc_array(n + chainable, sizeof(*sg), GFP_KERNEL);
	if (!sg)
		return -ENOMEM;
	sg_init_table(sg, n + chainable);
	for (i = 0; i < n; i++) {
		struct page *page = alloc_page(GFP_KERNEL);

		if (!page) {
			while (i--)
				__free_page(sg_page(&sg[i]));
			kfree(sg);
			return -ENOMEM;
		}
		memset(page_address(page), zero_page ? 0 : VD_PAGE_POISON, PAGE_SIZE);
		sg_set_page(&sg[i], page, min_t(u32, length - i * PAGE_SIZE, PAGE_SIZE), 0);
	}
	*sgl = sg;
	*nents = n;
	vd_live_sgls++;
	return 0;
}

void vd_free_sgl(struct scatterlist *sgl, int nents)
{
	struct scatterlist *s;
	int i;

	for_each_sg(sgl, s, nents, i)
		__free_page(sg_page(s));
	kfree(sgl);
	vd_live_sgls--;
}

int vd_target_init_cmd(struct se_cmd *se_cmd, struct se_session *sess,
		       unsigned char *sense, u64 lun, u32 data_length,
		       int task_attr, int data_dir, int flags)
{
	if (vd_fault(&vd.faults.init_cmd))
		return -ESHUTDOWN;
	se_cmd->se_sess = sess;
	se_cmd->sense_buffer = sense;
	se_cmd->orig_fe_lun = lun;
	se_cmd->data_length = data_length;
	se_cmd->data_direction = data_dir;
	se_cmd->sam_task_attr = task_attr;
	vd.rec.init++;
	vd.rec.se_cmd = se_cmd;
	vd.rec.lun = lun;
	vd.rec.data_len = data_length;
	vd.rec.data_dir = data_dir;
	vd.rec.task_attr = task_attr;
	return 0;
}

int vd_target_submit_prep(struct se_cmd *se_cmd, unsigned char *cdb,
			  struct scatterlist *sgl, u32 sgl_count,
			  struct scatterlist *sgl_bidi, u32 sgl_bidi_count,
			  struct scatterlist *sgl_prot, u32 sgl_prot_count, gfp_t gfp)
{
	memcpy(vd.rec.cdb, cdb, sizeof(vd.rec.cdb));
	se_cmd->t_data_sg = sgl;
	se_cmd->t_data_nents = sgl_count;
	vd.rec.sgl = sgl;
	vd.rec.sgl_count = sgl_count;
	vd.rec.prep++;
	return 0;
}

void vd_target_submit(struct se_cmd *se_cmd)
{
	vd.rec.submit++;
}

void vd_request_failure(struct se_cmd *se_cmd, sense_reason_t reason)
{
	vd.rec.failure++;
	vd.rec.reason = reason;
}

int vd_target_submit_tmr(struct se_cmd *se_cmd, struct se_session *sess,
			 unsigned char *sense, u64 lun, void *fabric_tmr_ptr,
			 unsigned char tm_type, gfp_t gfp, u64 tag, int flags)
{
	se_cmd->se_sess = sess;
	vd.rec.se_cmd = se_cmd;
	vd.rec.tmr_submit++;
	vd.rec.tmf = tm_type;
	vd.rec.lun = lun;
	vd.rec.tmr_tag = tag;
	return 0;
}

/* The backend reads the data-out now: what the CPU sees in the SGL. */
void vd_target_execute_cmd(struct se_cmd *se_cmd)
{
	struct scatterlist *s;
	unsigned int i;

	vd.rec.execute++;
	vd.rec.exec_len = 0;
	for_each_sg(se_cmd->t_data_sg, s, se_cmd->t_data_nents, i) {
		u32 n = min_t(u32, s->length, VD_MAX_DATA - vd.rec.exec_len);

		memcpy(vd.rec.exec_data + vd.rec.exec_len, sg_virt(s), n);
		vd.rec.exec_len += n;
	}
}

int vd_target_put_sess_cmd(struct se_cmd *se_cmd)
{
	vd.rec.put++;
	return 0;
}

int vd_generic_free_cmd(struct se_cmd *se_cmd, int wait)
{
	vd.rec.free++;
	return 0;
}

/* ---- The core, as the shims call it ---- */

void vd_core_send_done(struct srpt_cmd *cmd, enum srpt_wc_status status, u64 now_ns)
{
	vd.rec.send_done++;
	vd.rec.last_cmd = cmd;
	vd.rec.last_status = status;
}

void vd_core_rdma_done(struct srpt_cmd *cmd, enum srpt_wc_status status)
{
	vd.rec.rdma_done++;
	vd.rec.last_cmd = cmd;
	vd.rec.last_status = status;
}

void vd_core_recv_done(struct srpt_channel *ch, struct srpt_recv *r,
		       enum srpt_wc_status status, u32 byte_len, u64 now_ns)
{
	const struct vd_core_recv *owner = (const struct vd_core_recv *)r;
	bool ok = status == SRPT_WC_SUCCESS;

	vd.rec.recv_done++;
	vd.rec.last_ch = ch;
	vd.rec.last_recv = r;
	vd.rec.last_status = status;
	vd.rec.recv_len = byte_len;
	if (ok)
		memcpy(vd.rec.iu, owner->iu, min_t(u32, byte_len, sizeof(vd.rec.iu)));
}

void vd_core_release_cmd(struct srpt_cmd *cmd)
{
	vd.rec.released++;
	vd.rec.last_cmd = cmd;
}

void vd_core_close_session(struct srpt_channel *ch)
{
	vd.rec.closed++;
	vd.rec.last_ch = ch;
}

int vd_core_write_pending(struct srpt_cmd *cmd)
{
	vd.rec.write_pending++;
	vd.rec.last_cmd = cmd;
	return 0;
}

int vd_core_cmd_state(struct srpt_cmd *cmd)
{
	vd.rec.last_cmd = cmd;
	return 7;
}

int vd_core_queue_response(struct srpt_cmd *cmd, struct srpt_cmd_status st,
			   int with_data)
{
	vd.rec.queue_response++;
	vd.rec.last_cmd = cmd;
	vd.rec.st = st;
	vd.rec.with_data = with_data;
	return 0;
}

void vd_core_queue_tm_response(struct srpt_cmd *cmd, enum srpt_tmr_response r)
{
	vd.rec.tm_response++;
	vd.rec.last_cmd = cmd;
	vd.rec.tmr = r;
}

void vd_core_aborted_task(struct srpt_cmd *cmd)
{
	vd.rec.aborted++;
	vd.rec.last_cmd = cmd;
}

/* ---- Cases ---- */

struct ib_device *vd_device(void)
{
	return vd_ib;
}

struct ib_pd *vd_pd(void)
{
	return &vd_the_pd;
}

const char *vd_leftovers(void)
{
	unsigned int i;

	if (vd_live_mappings())
		return "DMA mappings left";
	for (i = 0; i < VD_MAX_RW; i++)
		if (vd_rws[i].ctx)
			return "rdma_rw contexts left";
	if (vd_live_sgls)
		return "SGLs left";
	if (vd_the_srq)
		return "the SRQ left";
	for (i = 0; i < ARRAY_SIZE(vd_qps); i++)
		if (vd_qps[i])
			return "a QP left";
	return NULL;
}

static void vd_forget(void)
{
	unsigned int i;

	for (i = 0; i < VD_MAX_MAPS; i++)
		kfree(vd_maps[i].bounce);
	memset(vd_maps, 0, sizeof(vd_maps));
	for (i = 0; i < VD_MAX_REMOTE; i++)
		kfree(vd_remotes[i].buf);
	memset(vd_remotes, 0, sizeof(vd_remotes));
	memset(vd_rws, 0, sizeof(vd_rws));
	for (i = 0; i < ARRAY_SIZE(vd_qps); i++)
		kfree(vd_qps[i]);
	memset(vd_qps, 0, sizeof(vd_qps));
	kfree(vd_the_srq);
	vd_the_srq = NULL;
	kfree(vd.rec.exec_data);
}

int vd_reset(enum vd_dma_profile profile)
{
	vd_forget();
	memset(&vd, 0, sizeof(vd));
	vd.profile = profile;
	vd_violation_count = 0;
	vd_live_sgls = 0;
	vd_next_status = IB_WC_SUCCESS;
	vd.rec.exec_data = kmalloc(VD_MAX_DATA, GFP_KERNEL);
	if (!vd.rec.exec_data)
		return -ENOMEM;
	if (!vd_ib) {
		vd_ib = kzalloc(sizeof(*vd_ib), GFP_KERNEL);
		if (!vd_ib)
			return -ENOMEM;
		vd_ib->ops.post_send = vd_post_send;
		vd_ib->ops.post_recv = vd_post_recv;
		vd_ib->ops.post_srq_recv = vd_post_srq_recv;
	}
	memset(&vd_the_pd, 0, sizeof(vd_the_pd));
	vd_the_pd.device = vd_ib;
	vd_the_pd.local_dma_lkey = VD_LKEY;
	return 0;
}
