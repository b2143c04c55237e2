// SPDX-License-Identifier: GPL-2.0-only
/*
 * Commands: the kernel side of a send context (struct se_cmd, rdma_rw
 * contexts, the response buffer), the LIO fabric callbacks for commands
 * and sessions, and the send and RDMA READ completions.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/scatterlist.h>
#include <linux/slab.h>
#include <rdma/rw.h>
#include <scsi/scsi_tcq.h>
#include <target/target_core_base.h>
#include <target/target_core_fabric.h>

#include "channel_os.h"
#include "compat.h"
#include "lio_cmd.h"

struct srpt_rw_ctx {
	struct rdma_rw_ctx rw;
	struct scatterlist *sg;
	unsigned int nents;
};

struct srpt_os_cmd {
	struct se_cmd se_cmd;
	struct srpt_cmd *core;
	struct srpt_os_channel *ch;
	void *rsp_buf;
	dma_addr_t rsp_dma;
	u32 rsp_size;
	struct ib_cqe send_cqe;
	struct ib_cqe rdma_cqe;
	enum dma_data_direction dir;
	/* The data buffer: an immediate data buffer or rdma_rw contexts. */
	struct scatterlist imm_sg;
	struct scatterlist *sg;
	unsigned int sg_cnt;
	struct srpt_rw_ctx *rw_ctxs;
	struct srpt_rw_ctx s_rw_ctx;	/* rw_ctxs for a single buffer */
	unsigned int n_rw_ctx;
	unsigned int max_rw_ctx;
	u8 sense[TRANSPORT_SENSE_BUFFER];
};

static struct srpt_os_cmd *to_cmd(struct se_cmd *se_cmd)
{
	return container_of(se_cmd, struct srpt_os_cmd, se_cmd);
}

static void srpt_send_done(struct ib_cq *cq, struct ib_wc *wc)
{
	struct srpt_os_cmd *cmd = container_of(wc->wr_cqe, struct srpt_os_cmd,
					       send_cqe);

	srpt_core_send_done(cmd->core, wc->status == IB_WC_SUCCESS);
}

static void srpt_rdma_read_done(struct ib_cq *cq, struct ib_wc *wc)
{
	struct srpt_os_cmd *cmd = container_of(wc->wr_cqe, struct srpt_os_cmd,
					       rdma_cqe);

	srpt_core_rdma_read_done(cmd->core, wc->status == IB_WC_SUCCESS);
}

struct srpt_os_cmd *srpt_os_cmd_alloc(struct srpt_os_channel *ch,
				      struct srpt_cmd *core, u32 rsp_size,
				      void **rsp_buf)
{
	struct ib_device *ib = ch->sdev->ib;
	struct srpt_os_cmd *cmd;

	cmd = kzalloc(sizeof(*cmd), GFP_KERNEL);
	if (!cmd)
		return NULL;
	cmd->rsp_buf = kmalloc(rsp_size, GFP_KERNEL);
	if (!cmd->rsp_buf)
		goto free;
	cmd->rsp_dma = ib_dma_map_single(ib, cmd->rsp_buf, rsp_size,
					 DMA_TO_DEVICE);
	if (ib_dma_mapping_error(ib, cmd->rsp_dma))
		goto free_rsp;
	cmd->rsp_size = rsp_size;
	cmd->core = core;
	cmd->ch = ch;
	cmd->send_cqe.done = srpt_send_done;
	cmd->rdma_cqe.done = srpt_rdma_read_done;
	*rsp_buf = cmd->rsp_buf;
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
	ib_dma_unmap_single(cmd->ch->sdev->ib, cmd->rsp_dma, cmd->rsp_size,
			    DMA_TO_DEVICE);
	kfree(cmd->rsp_buf);
	kfree(cmd);
}

static enum dma_data_direction srpt_dma_dir(enum srpt_data_dir dir)
{
	switch (dir) {
	case SRPT_DATA_OUT:
		return DMA_TO_DEVICE;
	case SRPT_DATA_IN:
		return DMA_FROM_DEVICE;
	default:
		return DMA_NONE;
	}
}

static int srpt_tcm_task_attr(enum srpt_task_attr attr)
{
	switch (attr) {
	case SRPT_TASK_HEAD_OF_QUEUE:
		return TCM_HEAD_TAG;
	case SRPT_TASK_ORDERED:
		return TCM_ORDERED_TAG;
	case SRPT_TASK_ACA:
		return TCM_ACA_TAG;
	default:
		return TCM_SIMPLE_TAG;
	}
}

int srpt_os_cmd_init(struct srpt_os_cmd *cmd, const struct srpt_cmd_info *info)
{
	/* LIO initialises only part of a reused se_cmd. */
	memset(&cmd->se_cmd, 0, sizeof(cmd->se_cmd));
	memset(cmd->sense, 0, sizeof(cmd->sense));
	cmd->se_cmd.tag = info->tag;
	return target_init_cmd(&cmd->se_cmd, cmd->ch->sess, cmd->sense,
			       info->lun, info->data_len,
			       srpt_tcm_task_attr(info->task_attr),
			       srpt_dma_dir(info->dir), TARGET_SCF_ACK_KREF);
}

void srpt_os_cmd_map_imm(struct srpt_os_cmd *cmd, void *data, u32 len)
{
	sg_init_one(&cmd->imm_sg, data, len);
	cmd->sg = &cmd->imm_sg;
	cmd->sg_cnt = 1;
}

int srpt_os_cmd_rdma_prepare(struct srpt_os_cmd *cmd, u32 count,
			     enum srpt_data_dir dir)
{
	cmd->dir = srpt_dma_dir(dir);
	cmd->n_rw_ctx = 0;
	cmd->sg = NULL;
	cmd->sg_cnt = 0;
	if (count == 1) {
		cmd->rw_ctxs = &cmd->s_rw_ctx;
	} else {
		cmd->rw_ctxs = kmalloc_array(count, sizeof(*cmd->rw_ctxs),
					     GFP_KERNEL);
		if (!cmd->rw_ctxs)
			return -ENOMEM;
	}
	cmd->max_rw_ctx = count;
	return 0;
}

/* The RDMA direction is the reverse of the SCSI data direction. */
static enum dma_data_direction srpt_rdma_dir(struct srpt_os_cmd *cmd)
{
	return cmd->dir == DMA_TO_DEVICE ? DMA_FROM_DEVICE : DMA_TO_DEVICE;
}

int srpt_os_cmd_rdma_add(struct srpt_os_cmd *cmd, u64 va, u32 rkey, u32 len)
{
	struct srpt_os_channel *ch = cmd->ch;
	struct srpt_rw_ctx *ctx, *prev;
	int ret;

	if (WARN_ON_ONCE(cmd->n_rw_ctx >= cmd->max_rw_ctx))
		return -EINVAL;
	ctx = &cmd->rw_ctxs[cmd->n_rw_ctx];
	/* All but the last sgl get room for a chain entry. */
	ret = target_alloc_sgl(&ctx->sg, &ctx->nents, len, false,
			       cmd->n_rw_ctx < cmd->max_rw_ctx - 1);
	if (ret)
		return ret;
	ret = rdma_rw_ctx_init(&ctx->rw, ch->qp, ch->port_num, ctx->sg,
			       ctx->nents, 0, va, rkey, srpt_rdma_dir(cmd));
	if (ret < 0) {
		target_free_sgl(ctx->sg, ctx->nents);
		return ret;
	}
	/* LIO sees one scatterlist: chain this buffer's behind the last. */
	if (cmd->n_rw_ctx) {
		prev = &cmd->rw_ctxs[cmd->n_rw_ctx - 1];
		sg_unmark_end(&prev->sg[prev->nents - 1]);
		sg_chain(prev->sg, prev->nents + 1, ctx->sg);
	} else {
		cmd->sg = ctx->sg;
	}
	cmd->sg_cnt += ctx->nents;
	cmd->n_rw_ctx++;
	return ret;
}

void srpt_os_cmd_release_data(struct srpt_os_cmd *cmd)
{
	struct srpt_os_channel *ch = cmd->ch;
	unsigned int i;

	for (i = 0; i < cmd->n_rw_ctx; i++) {
		struct srpt_rw_ctx *ctx = &cmd->rw_ctxs[i];

		rdma_rw_ctx_destroy(&ctx->rw, ch->qp, ch->port_num, ctx->sg,
				    ctx->nents, srpt_rdma_dir(cmd));
		target_free_sgl(ctx->sg, ctx->nents);
	}
	if (cmd->rw_ctxs != &cmd->s_rw_ctx)
		kfree(cmd->rw_ctxs);
	cmd->rw_ctxs = NULL;
	cmd->n_rw_ctx = 0;
	cmd->max_rw_ctx = 0;
	cmd->sg = NULL;
	cmd->sg_cnt = 0;
}

void srpt_os_cmd_submit(struct srpt_os_cmd *cmd, const u8 *cdb)
{
	/* On failure LIO has answered through queue_status already. */
	if (target_submit_prep(&cmd->se_cmd, (unsigned char *)cdb, cmd->sg,
			       cmd->sg_cnt, NULL, 0, NULL, 0, GFP_KERNEL))
		return;
	srpt_target_submit(&cmd->se_cmd);
}

void srpt_os_cmd_abort(struct srpt_os_cmd *cmd)
{
	transport_generic_request_failure(&cmd->se_cmd,
					  TCM_CHECK_CONDITION_ABORT_CMD);
}

static unsigned char srpt_tcm_tmr(enum srpt_tmf fn)
{
	switch (fn) {
	case SRPT_TMF_ABORT_TASK:
		return TMR_ABORT_TASK;
	case SRPT_TMF_ABORT_TASK_SET:
		return TMR_ABORT_TASK_SET;
	case SRPT_TMF_CLEAR_TASK_SET:
		return TMR_CLEAR_TASK_SET;
	case SRPT_TMF_LUN_RESET:
		return TMR_LUN_RESET;
	case SRPT_TMF_CLEAR_ACA:
		return TMR_CLEAR_ACA;
	default:
		/* LIO answers TMR_TASK_MGMT_FUNCTION_NOT_SUPPORTED. */
		return TMR_UNKNOWN;
	}
}

int srpt_os_cmd_submit_tmr(struct srpt_os_cmd *cmd, u64 lun, enum srpt_tmf fn,
			   u64 task_tag, u64 tag)
{
	memset(&cmd->se_cmd, 0, sizeof(cmd->se_cmd));
	cmd->se_cmd.tag = tag;
	return target_submit_tmr(&cmd->se_cmd, cmd->ch->sess, NULL, lun, cmd,
				 srpt_tcm_tmr(fn), GFP_KERNEL, task_tag,
				 TARGET_SCF_ACK_KREF);
}

void srpt_os_cmd_execute(struct srpt_os_cmd *cmd)
{
	target_execute_cmd(&cmd->se_cmd);
}

int srpt_os_cmd_post_rdma_read(struct srpt_os_cmd *cmd)
{
	struct srpt_os_channel *ch = cmd->ch;
	struct ib_send_wr *first_wr = NULL;
	struct ib_cqe *cqe = &cmd->rdma_cqe;
	int i;

	/* Chained back to front; only the last READ signals completion. */
	for (i = cmd->n_rw_ctx - 1; i >= 0; i--) {
		first_wr = rdma_rw_ctx_wrs(&cmd->rw_ctxs[i].rw, ch->qp,
					   ch->port_num, cqe, first_wr);
		cqe = NULL;
	}
	return ib_post_send(ch->qp, first_wr, NULL);
}

int srpt_os_cmd_post_response(struct srpt_os_cmd *cmd, u32 len, int with_data)
{
	struct srpt_os_channel *ch = cmd->ch;
	struct ib_sge sge = {
		.addr = cmd->rsp_dma,
		.length = len,
		.lkey = ch->sdev->pd->local_dma_lkey,
	};
	struct ib_send_wr send_wr = {
		.wr_cqe = &cmd->send_cqe,
		.sg_list = &sge,
		.num_sge = 1,
		.opcode = IB_WR_SEND,
		.send_flags = IB_SEND_SIGNALED,
	};
	struct ib_send_wr *first_wr = &send_wr;
	int i;

	/* The read data goes out ahead of the response, in one post. */
	if (with_data)
		for (i = cmd->n_rw_ctx - 1; i >= 0; i--)
			first_wr = rdma_rw_ctx_wrs(&cmd->rw_ctxs[i].rw, ch->qp,
						   ch->port_num, NULL, first_wr);
	ib_dma_sync_single_for_device(ch->sdev->ib, cmd->rsp_dma, len,
				      DMA_TO_DEVICE);
	return ib_post_send(ch->qp, first_wr, NULL);
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

static void srpt_queue(struct se_cmd *se_cmd, int with_data)
{
	struct srpt_cmd_status st = {
		.scsi_status = se_cmd->scsi_status,
		.residual = SRPT_RESIDUAL_NONE,
		.residual_count = se_cmd->residual_count,
		.sense = se_cmd->sense_buffer,
		.sense_len = se_cmd->scsi_sense_length,
	};

	if (se_cmd->se_cmd_flags & SCF_UNDERFLOW_BIT)
		st.residual = SRPT_RESIDUAL_UNDERFLOW;
	else if (se_cmd->se_cmd_flags & SCF_OVERFLOW_BIT)
		st.residual = SRPT_RESIDUAL_OVERFLOW;
	if (se_cmd->data_direction == DMA_TO_DEVICE)
		st.data_dir = SRPT_DATA_OUT;
	else if (se_cmd->data_direction == DMA_FROM_DEVICE)
		st.data_dir = SRPT_DATA_IN;
	srpt_core_queue_response(to_cmd(se_cmd)->core, &st, with_data);
}

int srpt_queue_data_in(struct se_cmd *se_cmd)
{
	srpt_queue(se_cmd, 1);
	return 0;
}

int srpt_queue_status(struct se_cmd *se_cmd)
{
	srpt_queue(se_cmd, 0);
	return 0;
}

void srpt_queue_tm_rsp(struct se_cmd *se_cmd)
{
	enum srpt_tmr_response r;

	switch (se_cmd->se_tmr_req->response) {
	case TMR_FUNCTION_COMPLETE:
		r = SRPT_TMR_COMPLETE;
		break;
	case TMR_TASK_DOES_NOT_EXIST:
		r = SRPT_TMR_TASK_DOES_NOT_EXIST;
		break;
	case TMR_LUN_DOES_NOT_EXIST:
		r = SRPT_TMR_LUN_DOES_NOT_EXIST;
		break;
	case TMR_TASK_MGMT_FUNCTION_NOT_SUPPORTED:
		r = SRPT_TMR_NOT_SUPPORTED;
		break;
	case TMR_FUNCTION_REJECTED:
		r = SRPT_TMR_REJECTED;
		break;
	default:
		r = SRPT_TMR_FAILED;
		break;
	}
	srpt_core_queue_tm_response(to_cmd(se_cmd)->core, r);
}

void srpt_aborted_task(struct se_cmd *se_cmd)
{
	srpt_core_aborted_task(to_cmd(se_cmd)->core);
}
