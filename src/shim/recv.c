// SPDX-License-Identifier: GPL-2.0-only
/*
 * Receive buffers (srpt_alloc_ioctx, srpt_free_ioctx, srpt_post_recv),
 * their completions (srpt_recv_done) and the shared receive queue.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/sched/clock.h>
#include <linux/slab.h>
#include <rdma/ib_verbs.h>

#include "shim.h"

struct srpt_os_recv {
	struct ib_cqe cqe;
	struct srpt_recv *core;
	struct srpt_os_device *sdev;
	struct kmem_cache *cache;
	void *buf;
	dma_addr_t dma;		/* of buf; the IU starts at sge.addr */
	/* Its receive WR, built once: every repost posts the same. */
	struct ib_sge sge;
	struct ib_recv_wr wr;
	/* A failed post's bad WR, unread: not on the stack (no stack check). */
	const struct ib_recv_wr *bad_wr;
};

/* A receive completion to the core, arrived at @now. */
static __always_inline void srpt_recv_deliver(struct ib_wc *wc, u64 now)
{
	struct srpt_os_recv *r = container_of(wc->wr_cqe, struct srpt_os_recv, cqe);
	struct srpt_os_channel *ch = wc->qp->qp_context;
	bool ok = wc->status == IB_WC_SUCCESS;

	srpt_core_recv_done(ch->core, r->core, (enum srpt_wc_status)wc->status,
			    ok ? wc->byte_len : 0, now);
}

/* srpt_recv_done() where the buffer's mapping may need a sync. */
static noinline void srpt_recv_done_sync(struct ib_wc *wc, u64 now)
{
	struct srpt_os_recv *r = container_of(wc->wr_cqe, struct srpt_os_recv, cqe);

	if (wc->status == IB_WC_SUCCESS)
		ib_dma_sync_single_for_cpu(r->sdev->ib, r->sge.addr, wc->byte_len,
					   DMA_FROM_DEVICE);
	srpt_recv_deliver(wc, now);
}

/*
 * The clock first, so that only @wc lives across its call, then only tail
 * calls. Not ktime_get_ns(): with an HPET clocksource each read is slow.
 */
static void srpt_recv_done(struct ib_cq *cq, struct ib_wc *wc)
{
	u64 now = local_clock();
	struct srpt_os_recv *r = container_of(wc->wr_cqe, struct srpt_os_recv, cqe);

	if (ib_uses_virt_dma(r->sdev->ib))
		srpt_recv_deliver(wc, now);
	else
		srpt_recv_done_sync(wc, now);
}

struct srpt_os_recv *srpt_os_recv_alloc(struct srpt_os_device *sdev,
					struct srpt_recv *core, u32 size,
					u32 align_offset, void **iu)
{
	struct srpt_os_recv *r;

	r = kzalloc(sizeof(*r), GFP_KERNEL);
	if (!r)
		return NULL;
	r->cache = srpt_buf_cache_get(align_offset + size);
	if (!r->cache)
		goto free;
	r->buf = kmem_cache_alloc(r->cache, GFP_KERNEL);
	if (!r->buf)
		goto put_cache;
	r->dma = ib_dma_map_single(sdev->ib, r->buf, align_offset + size,
				   DMA_FROM_DEVICE);
	if (ib_dma_mapping_error(sdev->ib, r->dma))
		goto free_buf;
	r->cqe.done = srpt_recv_done;
	r->core = core;
	r->sdev = sdev;
	r->sge.addr = r->dma + align_offset;
	r->sge.length = size;
	r->sge.lkey = sdev->pd->local_dma_lkey;
	r->wr.wr_cqe = &r->cqe;
	r->wr.sg_list = &r->sge;
	r->wr.num_sge = 1;
	*iu = r->buf + align_offset;
	return r;

free_buf:
	kmem_cache_free(r->cache, r->buf);
put_cache:
	srpt_buf_cache_put(r->cache);
free:
	kfree(r);
	return NULL;
}

void srpt_os_recv_free(struct srpt_os_recv *r)
{
	if (!r)
		return;
	ib_dma_unmap_single(r->sdev->ib, r->dma,
			    r->sge.addr - r->dma + r->sge.length, DMA_FROM_DEVICE);
	kmem_cache_free(r->cache, r->buf);
	srpt_buf_cache_put(r->cache);
	kfree(r);
}

static int srpt_recv_post_wr(struct srpt_os_device *sdev,
			     struct srpt_os_channel *ch, struct srpt_os_recv *r)
{
	if (ch)
		return ib_post_recv(ch->qp, &r->wr, srpt_nonnull(&r->bad_wr));
	return ib_post_srq_recv(sdev->srq, &r->wr, srpt_nonnull(&r->bad_wr));
}

/* srpt_os_recv_post() where the buffer's mapping may need a sync. */
static noinline int srpt_recv_post_sync(struct srpt_os_device *sdev,
					struct srpt_os_channel *ch,
					struct srpt_os_recv *r)
{
	ib_dma_sync_single_for_device(sdev->ib, r->sge.addr, r->sge.length,
				      DMA_FROM_DEVICE);
	return srpt_recv_post_wr(sdev, ch, r);
}

/* Only tail calls: where DMA is virtual it saves no registers. */
int srpt_os_recv_post(struct srpt_os_device *sdev, struct srpt_os_channel *ch,
		      struct srpt_os_recv *r)
{
	if (!ib_uses_virt_dma(sdev->ib))
		return srpt_recv_post_sync(sdev, ch, r);
	return srpt_recv_post_wr(sdev, ch, r);
}

/* srpt_srq_event */
static void srpt_srq_event(struct ib_event *event, void *ctx)
{
	struct srpt_os_device *sdev = ctx;

	/* Nothing to decide: the channels' own QP events report what breaks. */
	pr_info("%s: shared receive queue event: %s\n", dev_name(&sdev->ib->dev),
		ib_event_msg(event->event));
}

int srpt_os_srq_create(struct srpt_os_device *sdev, u32 size)
{
	struct ib_srq_init_attr attr = {
		.event_handler = srpt_srq_event,
		.srq_context = sdev,
		.attr.max_wr = size,
		.attr.max_sge = 1,
		.srq_type = IB_SRQT_BASIC,
	};
	struct ib_srq *srq;

	srq = ib_create_srq(sdev->pd, &attr);
	if (IS_ERR(srq))
		return PTR_ERR(srq);
	sdev->srq = srq;
	return 0;
}

void srpt_os_srq_destroy(struct srpt_os_device *sdev)
{
	if (!sdev->srq)
		return;
	ib_destroy_srq(sdev->srq);
	sdev->srq = NULL;
}
