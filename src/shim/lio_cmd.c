// SPDX-License-Identifier: GPL-2.0-only
/*
 * Commands: the kernel side of a send context (struct se_cmd, rdma_rw
 * contexts, the response buffer), the LIO fabric callbacks for commands
 * and sessions, and the send and RDMA READ completions.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/scatterlist.h>
#include <linux/sched/clock.h>
#include <linux/slab.h>
#include <rdma/rw.h>
#include <scsi/scsi_tcq.h>
#include <target/target_core_base.h>
#include <target/target_core_fabric.h>

#include "compat.h"
#include "shim.h"

/*
 * The local memory for one remote buffer of a command, and its mapping
 * for RDMA while a piece of it is under way (see srpt_os_cmd_rdma_map()).
 */
struct srpt_buf {
	struct scatterlist *sg;
	unsigned int nents;
	u64 va;
	u32 rkey;
	struct rdma_rw_ctx rw;
	bool mapped;
	bool posted;
	bool page_wr;			/* the kept page (SRPT_BUF_KEPT): never mapped */
	struct scatterlist *map_sg;	/* the entries mapped ... */
	unsigned int map_nents;
	u32 trimmed_len;		/* ... and the last one's length before, if cut */
};

struct srpt_os_cmd {
	struct se_cmd se_cmd;
	struct srpt_cmd *core;
	struct srpt_os_channel *ch;
	void *rsp_buf;
	u32 rsp_size;
	struct ib_cqe send_cqe;
	/*
	 * The response's send WR, built once: a post sets only its length.
	 * rsp_sge.addr is where rsp_buf is mapped.
	 */
	struct ib_sge rsp_sge;
	struct ib_send_wr rsp_wr;
	struct ib_cqe rdma_cqe;
	enum dma_data_direction dir;
	/* The data buffer: immediate data, or local buffers moved by RDMA. */
	struct scatterlist imm_sg;
	struct scatterlist *sg;
	unsigned int sg_cnt;
	struct srpt_buf *bufs;
	struct srpt_buf s_buf;		/* bufs for a single buffer */
	unsigned int n_bufs;
	unsigned int max_bufs;
	/*
	 * A single buffer of at most a page reuses the context's own page,
	 * allocated at its first use and kept until the context is freed:
	 * no allocation per command where most are small.
	 */
	struct page *page;
	struct scatterlist page_sg;
	/*
	 * Read data sent from the page is this one RDMA WRITE, what rdma_rw
	 * would build for it, from a mapping made once and kept as long as
	 * the page (SRPT_BUF_KEPT): only where the mapping needs no sync (no
	 * bounce buffer, coherent caches) and rdma_rw would not register
	 * memory for it. Mapped to the device only, which may not write to
	 * it: a backend may have its own device write the read data into
	 * the page.
	 */
	bool page_dma;
	struct ib_sge page_sge;
	struct ib_rdma_wr page_wr;
	/*
	 * Where a failed post says which WR failed, unread: here rather
	 * than on the stack, which would cost the post a stack check.
	 */
	const struct ib_send_wr *bad_wr;
	u8 sense[SRPT_SENSE_SIZE];
};

static struct srpt_os_cmd *to_cmd(struct se_cmd *se_cmd)
{
	return container_of(se_cmd, struct srpt_os_cmd, se_cmd);
}

/* The clock first: only @wc lives across its call. */
static void srpt_send_done(struct ib_cq *cq, struct ib_wc *wc)
{
	u64 now = local_clock();
	struct srpt_os_cmd *cmd = container_of(wc->wr_cqe, struct srpt_os_cmd,
					       send_cqe);

	srpt_core_send_done(cmd->core, (enum srpt_wc_status)wc->status, now);
}

static void srpt_rdma_done(struct ib_cq *cq, struct ib_wc *wc)
{
	struct srpt_os_cmd *cmd = container_of(wc->wr_cqe, struct srpt_os_cmd,
					       rdma_cqe);

	srpt_core_rdma_done(cmd->core, (enum srpt_wc_status)wc->status);
}

struct srpt_os_cmd *srpt_os_cmd_alloc(struct srpt_os_channel *ch,
				      struct srpt_cmd *core, u32 rsp_size,
				      void **rsp_buf, const u8 **sense_buf)
{
	struct ib_device *ib = ch->sdev->ib;
	struct srpt_os_cmd *cmd;

	/* LIO reports the sense data it builds in that many bytes. */
	BUILD_BUG_ON(SRPT_SENSE_SIZE != TRANSPORT_SENSE_BUFFER);
	cmd = kzalloc(sizeof(*cmd), GFP_KERNEL);
	if (!cmd)
		return NULL;
	cmd->rsp_buf = kmalloc(rsp_size, GFP_KERNEL);
	if (!cmd->rsp_buf)
		goto free;
	cmd->rsp_sge.addr = ib_dma_map_single(ib, cmd->rsp_buf, rsp_size,
					      DMA_TO_DEVICE);
	if (ib_dma_mapping_error(ib, cmd->rsp_sge.addr))
		goto free_rsp;
	cmd->rsp_size = rsp_size;
	cmd->core = core;
	cmd->ch = ch;
	cmd->send_cqe.done = srpt_send_done;
	cmd->rsp_sge.lkey = ch->sdev->pd->local_dma_lkey;
	cmd->rsp_wr.wr_cqe = &cmd->send_cqe;
	cmd->rsp_wr.sg_list = &cmd->rsp_sge;
	cmd->rsp_wr.num_sge = 1;
	cmd->rsp_wr.opcode = IB_WR_SEND;
	cmd->rsp_wr.send_flags = IB_SEND_SIGNALED;
	cmd->rdma_cqe.done = srpt_rdma_done;
	*rsp_buf = cmd->rsp_buf;
	*sense_buf = cmd->sense;
	return cmd;

free_rsp:
	kfree(cmd->rsp_buf);
free:
	kfree(cmd);
	return NULL;
}

void srpt_os_cmd_free(struct srpt_os_cmd *cmd)
{
	if (!cmd)
		return;
	ib_dma_unmap_single(cmd->ch->sdev->ib, cmd->rsp_sge.addr, cmd->rsp_size,
			    DMA_TO_DEVICE);
	if (cmd->page_dma)
		ib_dma_unmap_page(cmd->ch->sdev->ib, cmd->page_sge.addr,
				  PAGE_SIZE, DMA_TO_DEVICE);
	if (cmd->page)
		__free_page(cmd->page);
	kfree(cmd->rsp_buf);
	kfree(cmd);
}

/* A transfer's two directions have the kernel's codes (shim.h); no data is 0. */
static enum dma_data_direction srpt_dma_dir(enum srpt_data_dir dir)
{
	return dir ? (enum dma_data_direction)dir : DMA_NONE;
}

/*
 * The se_cmd for its next command: LIO initialises only part of a reused
 * one. It builds sense in only some bytes of the buffer yet reports all
 * of them (TRANSPORT_SENSE_BUFFER), so what an earlier command's sense
 * left there goes first; a command given sense has a sense length or
 * says so in its flags (as every writer in the target core sets them:
 * translate_sense_reason(), transport_copy_sense_to_cmd()). The buffer
 * starts zeroed (kzalloc), and a task management function has none
 * (target_submit_tmr() gets no buffer).
 */
static __always_inline void srpt_se_cmd_reset(struct srpt_os_cmd *cmd)
{
	if (cmd->se_cmd.scsi_sense_length ||
	    cmd->se_cmd.se_cmd_flags & (SCF_TRANSPORT_TASK_SENSE | SCF_EMULATED_TASK_SENSE))
		memset(cmd->sense, 0, sizeof(cmd->sense));
	memset(&cmd->se_cmd, 0, sizeof(cmd->se_cmd));
}

int srpt_os_cmd_init(struct srpt_os_cmd *cmd, u64 tag, u64 lun, u32 data_len,
		     enum srpt_data_dir dir, enum srpt_task_attr task_attr)
{
	srpt_se_cmd_reset(cmd);
	cmd->se_cmd.tag = tag;
	return srpt_target_init_cmd(&cmd->se_cmd, cmd->ch->sess, cmd->sense,
				    lun, data_len, task_attr, srpt_dma_dir(dir),
				    TARGET_SCF_ACK_KREF);
}

void srpt_os_cmd_map_imm(struct srpt_os_cmd *cmd, void *data, u32 len)
{
	sg_init_one(&cmd->imm_sg, data, len);
	cmd->sg = &cmd->imm_sg;
	cmd->sg_cnt = 1;
}

/* The command's @count buffers at @bufs, none added yet. */
static __always_inline void srpt_bufs_init(struct srpt_os_cmd *cmd,
					   struct srpt_buf *bufs, u32 count,
					   enum srpt_data_dir dir)
{
	cmd->dir = srpt_dma_dir(dir);
	cmd->bufs = bufs;
	cmd->max_bufs = count;
	cmd->n_bufs = 0;
	cmd->sg = NULL;
	cmd->sg_cnt = 0;
}

/* Room for the command's @count buffers, before the first. */
static int srpt_bufs_prepare(struct srpt_os_cmd *cmd, u32 count,
			     enum srpt_data_dir dir)
{
	/* buf_add() sets what a buffer needs before its first use. */
	struct srpt_buf *bufs = &cmd->s_buf;

	/* The last command's buffers were not released: they would leak. */
	if (WARN_ON_ONCE(cmd->bufs))
		return -EINVAL;
	if (count != 1) {
		bufs = kcalloc(count, sizeof(*bufs), GFP_KERNEL);
		if (!bufs)
			return -ENOMEM;
	}
	srpt_bufs_init(cmd, bufs, count, dir);
	return 0;
}

/*
 * Keeps the new page mapped if read data can be sent from it that way;
 * else rdma_rw maps it per transfer. A mapping that needs syncs (bounce
 * buffers, non-coherent caches) would copy or flush per transfer anyway,
 * and kept, it would hold a bounce buffer for the context's life.
 */
static void srpt_map_own_page(struct srpt_os_cmd *cmd)
{
	struct srpt_os_channel *ch = cmd->ch;
	struct ib_device *ib = ch->sdev->ib;
	u64 addr;

	if (ch->rw_forced_mr)
		return;
	addr = ib_dma_map_page(ib, cmd->page, 0, PAGE_SIZE, DMA_TO_DEVICE);
	if (ib_dma_mapping_error(ib, addr))
		return;
	if (!ib_uses_virt_dma(ib) && dma_need_sync(ib->dma_device, addr)) {
		ib_dma_unmap_page(ib, addr, PAGE_SIZE, DMA_TO_DEVICE);
		return;
	}
	cmd->page_sge.addr = addr;
	cmd->page_sge.lkey = ch->sdev->pd->local_dma_lkey;
	cmd->page_wr.wr.opcode = IB_WR_RDMA_WRITE;
	cmd->page_wr.wr.sg_list = &cmd->page_sge;
	cmd->page_wr.wr.num_sge = 1;
	cmd->page_dma = true;
}

/*
 * The context's own page as the whole of @buf, @len bytes of it. Its one
 * entry is rebuilt per command, inline (sg_init_table() is a call), and
 * whole: a mapping may leave DMA flags in it (SG_DMA_SWIOTLB) that must
 * not reach the next one.
 */
static __always_inline void srpt_page_sg(struct srpt_os_cmd *cmd,
					 struct srpt_buf *buf, u32 len)
{
	memset(&cmd->page_sg, 0, sizeof(cmd->page_sg));
	sg_set_page(&cmd->page_sg, cmd->page, len, 0);
	sg_mark_end(&cmd->page_sg);
	buf->sg = &cmd->page_sg;
	buf->nents = 1;
	buf->page_wr = cmd->page_dma && cmd->dir == DMA_FROM_DEVICE;
}

/*
 * @buf, its local memory set up, as the command's next buffer, for remote
 * buffer @va/@rkey. LIO sees one scatterlist: chained behind the last.
 */
static __always_inline void srpt_buf_append(struct srpt_os_cmd *cmd,
					    struct srpt_buf *buf, u64 va,
					    u32 rkey)
{
	struct srpt_buf *prev;

	buf->va = va;
	buf->rkey = rkey;
	buf->mapped = false;
	buf->posted = false;
	if (cmd->n_bufs) {
		prev = &cmd->bufs[cmd->n_bufs - 1];
		sg_unmark_end(&prev->sg[prev->nents - 1]);
		sg_chain(prev->sg, prev->nents + 1, buf->sg);
	} else {
		cmd->sg = buf->sg;
	}
	cmd->sg_cnt += buf->nents;
	cmd->n_bufs++;
}

/* srpt_os_cmd_buf_add() for every buffer but one in the page there already. */
static noinline int srpt_buf_add_slow(struct srpt_os_cmd *cmd, u32 count,
				      enum srpt_data_dir dir, u64 va, u32 rkey,
				      u32 len)
{
	struct srpt_buf *buf;
	int ret;

	if (!cmd->n_bufs) {
		ret = srpt_bufs_prepare(cmd, count, dir);
		if (ret)
			return ret;
	}
	if (WARN_ON_ONCE(cmd->n_bufs >= cmd->max_bufs))
		return -EINVAL;
	buf = &cmd->bufs[cmd->n_bufs];
	if (cmd->max_bufs == 1 && len <= PAGE_SIZE && !cmd->ch->fresh_pages) {
		if (!cmd->page) {
			cmd->page = alloc_page(GFP_KERNEL);
			if (!cmd->page)
				return -ENOMEM;
			srpt_map_own_page(cmd);
		}
		srpt_page_sg(cmd, buf, len);
	} else {
		buf->page_wr = false;
		/* All but the last table get room for a chain entry. */
		ret = target_alloc_sgl(&buf->sg, &buf->nents, len, false,
				       cmd->n_bufs < cmd->max_bufs - 1);
		if (ret)
			return ret;
	}
	srpt_buf_append(cmd, buf, va, rkey);
	return buf->page_wr ? SRPT_BUF_KEPT : 0;
}

/*
 * Most commands have one buffer of at most a page, which the context's
 * page holds once allocated: that case calls nothing, so needs no frame.
 */
int srpt_os_cmd_buf_add(struct srpt_os_cmd *cmd, u32 count,
			enum srpt_data_dir dir, u64 va, u32 rkey, u32 len)
{
	struct srpt_buf *buf = &cmd->s_buf;

	if (count != 1 || len > PAGE_SIZE || !cmd->page || cmd->bufs)
		return srpt_buf_add_slow(cmd, count, dir, va, rkey, len);
	srpt_bufs_init(cmd, buf, 1, dir);
	srpt_page_sg(cmd, buf, len);
	srpt_buf_append(cmd, buf, va, rkey);
	return buf->page_wr ? SRPT_BUF_KEPT : 0;
}

/* The RDMA direction is the reverse of the SCSI data direction. */
static enum dma_data_direction srpt_rdma_dir(struct srpt_os_cmd *cmd)
{
	return cmd->dir == DMA_TO_DEVICE ? DMA_FROM_DEVICE : DMA_TO_DEVICE;
}

/* srpt_os_cmd_rdma_map() by rdma_rw, for every buffer but the kept page. */
static int srpt_rw_map(struct srpt_os_cmd *cmd, struct srpt_buf *buf,
		       u32 off, u32 len)
{
	struct srpt_os_channel *ch = cmd->ch;
	unsigned int first, last;
	struct scatterlist *end;
	u32 end_len;
	int ret;

	/* target_alloc_sgl() made one entry per page. */
	first = off >> PAGE_SHIFT;
	last = (off + len - 1) >> PAGE_SHIFT;
	if (WARN_ON_ONCE(last >= buf->nents))
		return -EINVAL;
	/* rdma_rw moves whole entries: cut the last one to the piece's end. */
	end = &buf->sg[last];
	end_len = off + len - (last << PAGE_SHIFT);
	buf->trimmed_len = 0;
	if (end->length > end_len) {
		buf->trimmed_len = end->length;
		end->length = end_len;
	}
	ret = rdma_rw_ctx_init(&buf->rw, ch->qp, ch->port_num, &buf->sg[first],
			       last - first + 1, 0, buf->va + off, buf->rkey,
			       srpt_rdma_dir(cmd));
	if (ret < 0) {
		if (buf->trimmed_len)
			end->length = buf->trimmed_len;
		return ret;
	}
	buf->map_sg = &buf->sg[first];
	buf->map_nents = last - first + 1;
	buf->mapped = true;
	buf->posted = false;
	return ret;
}

int srpt_os_cmd_rdma_map(struct srpt_os_cmd *cmd, u32 b, u32 off, u32 len)
{
	struct srpt_buf *buf = &cmd->bufs[b];

	BUILD_BUG_ON(SRPT_RDMA_PIECE_ALIGN % PAGE_SIZE);
	if (WARN_ON_ONCE(b >= cmd->n_bufs || buf->mapped || buf->page_wr ||
			 !len || off % SRPT_RDMA_PIECE_ALIGN))
		return -EINVAL;
	return srpt_rw_map(cmd, buf, off, len);
}

/* Undoes srpt_os_cmd_rdma_map() for @buf, if it is mapped. */
static void srpt_buf_unmap(struct srpt_os_cmd *cmd, struct srpt_buf *buf)
{
	struct srpt_os_channel *ch = cmd->ch;

	if (!buf->mapped)
		return;
	buf->mapped = false;
	buf->posted = false;
	rdma_rw_ctx_destroy(&buf->rw, ch->qp, ch->port_num, buf->map_sg,
			    buf->map_nents, srpt_rdma_dir(cmd));
	if (buf->trimmed_len)
		buf->map_sg[buf->map_nents - 1].length = buf->trimmed_len;
}

void srpt_os_cmd_rdma_unmap(struct srpt_os_cmd *cmd, u32 b)
{
	if (WARN_ON_ONCE(b >= cmd->n_bufs || cmd->bufs[b].page_wr))
		return;
	srpt_buf_unmap(cmd, &cmd->bufs[b]);
}

static void srpt_forget_bufs(struct srpt_os_cmd *cmd)
{
	cmd->bufs = NULL;
	cmd->n_bufs = 0;
	cmd->max_bufs = 0;
	cmd->sg = NULL;
	cmd->sg_cnt = 0;
}

static noinline void srpt_free_bufs(struct srpt_os_cmd *cmd)
{
	unsigned int i;

	for (i = 0; i < cmd->n_bufs; i++) {
		srpt_buf_unmap(cmd, &cmd->bufs[i]);
		if (cmd->bufs[i].sg != &cmd->page_sg)
			target_free_sgl(cmd->bufs[i].sg, cmd->bufs[i].nents);
	}
	if (cmd->bufs != &cmd->s_buf)
		kfree(cmd->bufs);
	srpt_forget_bufs(cmd);
}

void srpt_os_cmd_release_data(struct srpt_os_cmd *cmd)
{
	struct srpt_buf *own = &cmd->s_buf;

	/*
	 * Most commands hold nothing to free: no buffer, or the page,
	 * unmapped. The others go on in srpt_free_bufs() (a tail call).
	 */
	if (!cmd->bufs || (cmd->bufs == own && cmd->n_bufs == 1 &&
			   own->sg == &cmd->page_sg && !own->mapped))
		srpt_forget_bufs(cmd);
	else
		srpt_free_bufs(cmd);
}

void srpt_os_cmd_submit(struct srpt_os_cmd *cmd, const u8 *cdb)
{
	/* On failure LIO has answered through queue_status already. */
	if (srpt_target_submit_prep(&cmd->se_cmd, (unsigned char *)cdb, cmd->sg, cmd->sg_cnt))
		return;
	srpt_target_submit(&cmd->se_cmd);
}

void srpt_os_cmd_abort(struct srpt_os_cmd *cmd, enum srpt_write_failure why)
{
	transport_generic_request_failure(&cmd->se_cmd,
					  why == SRPT_WRITE_TASK_SET_FULL ?
					  TCM_OUT_OF_RESOURCES :
					  TCM_CHECK_CONDITION_ABORT_CMD);
}

int srpt_os_cmd_submit_tmr(struct srpt_os_cmd *cmd, u64 lun, enum srpt_tmf fn,
			   u64 task_tag, u64 tag)
{
	srpt_se_cmd_reset(cmd);
	cmd->se_cmd.tag = tag;
	return target_submit_tmr(&cmd->se_cmd, cmd->ch->sess, NULL, lun, cmd,
				 fn, GFP_KERNEL, task_tag,
				 TARGET_SCF_ACK_KREF);
}

void srpt_os_cmd_execute(struct srpt_os_cmd *cmd)
{
	target_execute_cmd(&cmd->se_cmd);
}

/* The response's WR, @rsp_len bytes of it; NULL without one. */
static struct ib_send_wr *srpt_rsp_wr(struct srpt_os_cmd *cmd, u32 rsp_len)
{
	if (!rsp_len)
		return NULL;
	cmd->rsp_sge.length = rsp_len;
	return &cmd->rsp_wr;
}

/* srpt_post_chain() where the response's mapping may need a sync. */
static noinline int srpt_post_synced(struct srpt_os_cmd *cmd,
				     struct ib_send_wr *wr, u32 rsp_len)
{
	ib_dma_sync_single_for_device(cmd->ch->sdev->ib, cmd->rsp_sge.addr,
				      rsp_len, DMA_TO_DEVICE);
	return ib_post_send(cmd->ch->qp, wr, srpt_nonnull(&cmd->bad_wr));
}

/*
 * Posts the chain @wr, which the response of @rsp_len bytes ends (0:
 * none). The sync is out of line: where DMA is virtual, a post calls
 * nothing but ib_post_send(), in tail position, and saves no registers.
 */
static __always_inline int srpt_post_chain(struct srpt_os_cmd *cmd,
					   struct ib_send_wr *wr, u32 rsp_len)
{
	if (rsp_len && !ib_uses_virt_dma(cmd->ch->sdev->ib))
		return srpt_post_synced(cmd, wr, rsp_len);
	return ib_post_send(cmd->ch->qp, wr, srpt_nonnull(&cmd->bad_wr));
}

/*
 * srpt_os_cmd_post() of the first @kept_len bytes of the kept page, as
 * rdma_rw_init_single_wr() would send them (no sync: srpt_map_own_page()),
 * chained as rdma_rw_ctx_wrs() does: signalled unless the response
 * follows. It calls nothing but in tail position, so needs no frame.
 */
static noinline int srpt_post_kept(struct srpt_os_cmd *cmd, u32 rsp_len,
				   u32 kept_len)
{
	struct srpt_buf *buf = &cmd->s_buf;
	struct ib_send_wr *wr = &cmd->page_wr.wr;

	/* Past the buffer the page holds what earlier commands left. */
	if (WARN_ON_ONCE(cmd->bufs != buf || !buf->page_wr ||
			 kept_len > buf->sg->length))
		return -EINVAL;
	cmd->page_sge.length = kept_len;
	cmd->page_wr.remote_addr = buf->va;
	cmd->page_wr.rkey = buf->rkey;
	wr->next = srpt_rsp_wr(cmd, rsp_len);
	wr->wr_cqe = rsp_len ? NULL : &cmd->rdma_cqe;
	wr->send_flags = rsp_len ? 0 : IB_SEND_SIGNALED;
	return srpt_post_chain(cmd, wr, rsp_len);
}

/* srpt_os_cmd_post() of the response alone, without a frame as above. */
static noinline int srpt_post_rsp(struct srpt_os_cmd *cmd, u32 rsp_len)
{
	struct ib_send_wr *wr = srpt_rsp_wr(cmd, rsp_len);

	if (WARN_ON_ONCE(!wr))
		return -EINVAL;
	return srpt_post_chain(cmd, wr, rsp_len);
}

/* srpt_os_cmd_post() of transfers by rdma_rw and the response after them. */
static noinline int srpt_post_rw(struct srpt_os_cmd *cmd, u32 rsp_len)
{
	struct srpt_os_channel *ch = cmd->ch;
	struct ib_send_wr *first_wr;
	/* Without a response the last transfer signals its completion. */
	struct ib_cqe *cqe = rsp_len ? NULL : &cmd->rdma_cqe;
	int i;

	first_wr = srpt_rsp_wr(cmd, rsp_len);

	/* Chained back to front: the data goes out ahead of the response. */
	for (i = cmd->n_bufs - 1; i >= 0; i--) {
		struct srpt_buf *buf = &cmd->bufs[i];

		if (!buf->mapped || buf->posted)
			continue;
		first_wr = rdma_rw_ctx_wrs(&buf->rw, ch->qp, ch->port_num, cqe,
					   first_wr);
		cqe = NULL;
		buf->posted = true;
	}
	if (WARN_ON_ONCE(!first_wr))
		return -EINVAL;
	return srpt_post_chain(cmd, first_wr, rsp_len);
}

/*
 * Tail calls only: the most common posts, the kept page's and a response
 * without transfers (no data, immediate data, or write data in already),
 * save no registers.
 */
int srpt_os_cmd_post(struct srpt_os_cmd *cmd, u32 rsp_len, u32 kept_len,
		     u32 mapped)
{
	if (kept_len)
		return srpt_post_kept(cmd, rsp_len, kept_len);
	if (!mapped)
		return srpt_post_rsp(cmd, rsp_len);
	return srpt_post_rw(cmd, rsp_len);
}

void srpt_os_cmd_put(struct srpt_os_cmd *cmd)
{
	target_put_sess_cmd(&cmd->se_cmd);
}

void srpt_os_cmd_done(struct srpt_os_cmd *cmd)
{
	transport_generic_free_cmd(&cmd->se_cmd, 0);
}

/* LIO fabric callbacks. */

int srpt_check_stop_free(struct se_cmd *se_cmd)
{
	return target_put_sess_cmd(se_cmd);
}

void srpt_release_cmd(struct se_cmd *se_cmd)
{
	srpt_core_release_cmd(to_cmd(se_cmd)->core);
}

void srpt_close_session(struct se_session *sess)
{
	struct srpt_os_channel *ch = sess->fabric_sess_ptr;

	srpt_core_close_session(ch->core);
}

int srpt_write_pending(struct se_cmd *se_cmd)
{
	return srpt_core_write_pending(to_cmd(se_cmd)->core);
}

int srpt_get_tcm_cmd_state(struct se_cmd *se_cmd)
{
	return srpt_core_cmd_state(to_cmd(se_cmd)->core);
}

/* A response with a residual: its direction says which of the SRP_RSP's is meant. */
static noinline __cold int srpt_queue_residual(struct se_cmd *se_cmd,
					struct srpt_cmd_status st,
					int with_data)
{
	st.residual = se_cmd->se_cmd_flags & SCF_UNDERFLOW_BIT ?
		      SRPT_RESIDUAL_UNDERFLOW : SRPT_RESIDUAL_OVERFLOW;
	/* The two directions have the same codes (shim.h). */
	if (se_cmd->data_direction == DMA_TO_DEVICE ||
	    se_cmd->data_direction == DMA_FROM_DEVICE)
		st.data_dir = se_cmd->data_direction;
	return srpt_core_queue_response(to_cmd(se_cmd)->core, st, with_data);
}

static __always_inline int srpt_queue(struct se_cmd *se_cmd, int with_data)
{
	struct srpt_cmd_status st = {
		.scsi_status = se_cmd->scsi_status,
		.residual = SRPT_RESIDUAL_NONE,
		.data_dir = SRPT_DATA_NONE,
		.residual_count = se_cmd->residual_count,
		.data_len = se_cmd->data_length,
		/* In cmd->sense: se_cmd->sense_buffer since srpt_os_cmd_init(). */
		.sense_len = se_cmd->scsi_sense_length,
	};

	if (unlikely(se_cmd->se_cmd_flags & (SCF_UNDERFLOW_BIT | SCF_OVERFLOW_BIT)))
		return srpt_queue_residual(se_cmd, st, with_data);
	return srpt_core_queue_response(to_cmd(se_cmd)->core, st, with_data);
}

int srpt_queue_data_in(struct se_cmd *se_cmd)
{
	return srpt_queue(se_cmd, 1);
}

int srpt_queue_status(struct se_cmd *se_cmd)
{
	return srpt_queue(se_cmd, 0);
}

void srpt_queue_tm_rsp(struct se_cmd *se_cmd)
{
	srpt_core_queue_tm_response(to_cmd(se_cmd)->core,
				    se_cmd->se_tmr_req->response);
}

void srpt_aborted_task(struct se_cmd *se_cmd)
{
	srpt_core_aborted_task(to_cmd(se_cmd)->core);
}
