// SPDX-License-Identifier: GPL-2.0-only
/*
 * The kernel side of RDMA channels, whichever connection manager carries
 * them: CQ and QP (srpt_create_ch_ib), the error state (srpt_ch_qp_err),
 * the LIO session, the zero-length write (srpt_zerolength_write) and
 * teardown. What differs per CM is behind ch->cm (struct srpt_cm_ops).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/slab.h>
#include <target/target_core_fabric.h>

#include "compat.h"
#include "shim.h"

int srpt_channel_login(struct ib_device *ib, u32 port_num,
		       const struct srpt_login_info *info,
		       const struct srpt_cm_ops *cm, void *id, void **context)
{
	struct srpt_os_device *sdev;
	struct srpt_os_channel *ch;
	int ret;

	sdev = srpt_login_begin(ib);
	if (!sdev)
		return -ECONNREFUSED;
	ch = kzalloc(sizeof(*ch), GFP_KERNEL);
	if (!ch) {
		ret = -ENOMEM;
		goto end;
	}
	ch->sdev = sdev;
	ch->port_num = port_num;
	ch->pkey = info->pkey;
	ch->cm = cm;
	/* Either member: both are pointers, and only @cm reads it back. */
	ch->id.ib = id;
	/* CM events of this id find the channel from now on. */
	*context = ch;
	ret = srpt_core_login(sdev->core, port_num, ch, info, &ch->core);
	if (ret) {
		*context = NULL;
		kfree(ch);
	}
end:
	srpt_login_end();
	return ret;
}

static void srpt_qp_event(struct ib_event *event, void *ptr)
{
	struct srpt_os_channel *ch = ptr;

	srpt_core_qp_event(ch->core, event->event);
}

const char *srpt_os_wc_status_msg(enum srpt_wc_status status)
{
	return ib_wc_status_msg((enum ib_wc_status)status);
}

const char *srpt_os_ib_event_msg(int event)
{
	return ib_event_msg((enum ib_event_type)event);
}

static const char *const srpt_ib_cm_event_names[] = {
	[IB_CM_REQ_ERROR] = "REQ error",
	[IB_CM_REQ_RECEIVED] = "REQ received",
	[IB_CM_REP_ERROR] = "REP error",
	[IB_CM_REP_RECEIVED] = "REP received",
	[IB_CM_RTU_RECEIVED] = "RTU received",
	[IB_CM_USER_ESTABLISHED] = "established",
	[IB_CM_DREQ_ERROR] = "DREQ error",
	[IB_CM_DREQ_RECEIVED] = "DREQ received",
	[IB_CM_DREP_RECEIVED] = "DREP received",
	[IB_CM_TIMEWAIT_EXIT] = "timewait exit",
	[IB_CM_MRA_RECEIVED] = "MRA received",
	[IB_CM_REJ_RECEIVED] = "REJ received",
};

const char *srpt_os_cm_event_msg(enum srpt_cm_kind cm, int event)
{
	if (cm == SRPT_CM_RDMA)
		return rdma_event_msg((enum rdma_cm_event_type)event);
	if (event >= 0 && event < ARRAY_SIZE(srpt_ib_cm_event_names) &&
	    srpt_ib_cm_event_names[event])
		return srpt_ib_cm_event_names[event];
	return "unrecognized event";
}

static void srpt_zerolength_write_done(struct ib_cq *cq, struct ib_wc *wc)
{
	struct srpt_os_channel *ch = wc->qp->qp_context;

	srpt_core_zero_write_done(ch->core, (enum srpt_wc_status)wc->status);
}

int srpt_os_channel_create_qp(struct srpt_os_channel *ch,
			      struct srpt_channel *core,
			      const struct srpt_qp_params *p)
{
	struct ib_device *ib = ch->sdev->ib;
	struct ib_qp_init_attr init = {};
	struct ib_qp *qp;
	struct ib_cq *cq;
	int ret;

	ch->core = core;
	ch->zw_cqe.done = srpt_zerolength_write_done;
	/* For the CM's create_qp and accept. */
	ch->pkey_index = p->pkey_index;
	ch->rnr_retry_count = p->rnr_retry_count;
	ch->flow_control = p->flow_control;
	cq = ib_cq_pool_get(ib, p->cq_size, -1, IB_POLL_WORKQUEUE);
	if (IS_ERR(cq))
		return PTR_ERR(cq);

	init.qp_context = ch;
	init.event_handler = srpt_qp_event;
	init.send_cq = cq;
	init.recv_cq = cq;
	init.sq_sig_type = IB_SIGNAL_REQ_WR;
	init.qp_type = IB_QPT_RC;
	init.cap.max_send_wr = p->max_send_wr;
	init.cap.max_rdma_ctxs = p->max_rdma_ctxs;
	init.cap.max_send_sge = p->max_send_sge;
	init.cap.max_recv_sge = 1;
	init.port_num = ch->port_num;
	if (p->use_srq)
		init.srq = ch->sdev->srq;
	else
		init.cap.max_recv_wr = p->max_recv_wr;

	qp = ch->cm->create_qp(ch, &init);
	ret = PTR_ERR_OR_ZERO(qp);
	if (ret) {
		ib_cq_pool_put(cq, p->cq_size);
		return ret;
	}
	ch->qp = qp;
	/*
	 * rdma_rw registers memory for an RDMA WRITE only when ib_core's
	 * force_mr asks for it, which a ULP cannot read: on a device that
	 * is not iWARP and has no max_sgl_rd it is the one reason for an
	 * MR pool (rdma_rw_can_use_mr()). Elsewhere force_mr, a debugging
	 * option, does not reach a page's read data (srpt_map_own_page()).
	 */
	ch->rw_forced_mr = !list_empty(&qp->rdma_mrs) &&
			   !rdma_protocol_iwarp(ib, ch->port_num) &&
			   !ib->attrs.max_sgl_rd;
	/*
	 * Over iWARP a send's completion may mean only that TCP has the
	 * data: soft-iWARP hands TCP the pages of an unsignalled write
	 * without copying them, and TCP sends (and resends) them later.
	 * A page reused at once for the next command's data would reach
	 * the initiator in place of this one's. On an iWARP HCA it costs
	 * an allocation per small command: the verbs do not say that an
	 * RNIC is done with a completed write's pages either.
	 */
	ch->fresh_pages = rdma_protocol_iwarp(ib, ch->port_num);
	ch->cq = cq;
	ch->cq_size = p->cq_size;
	ch->initiator_depth = p->initiator_depth;
	ch->responder_resources = p->responder_resources;
	ch->use_srq = p->use_srq;
	return 0;
}

int srpt_os_channel_open_session(struct srpt_os_channel *ch,
				 struct srpt_os_tpg *tpg, const char *initiator)
{
	struct se_session *sess;

	/* No LIO tag pool: the core owns the send contexts. */
	sess = target_setup_session(&tpg->se_tpg, 0, 0, TARGET_PROT_NORMAL,
				    initiator, ch, NULL);
	if (IS_ERR(sess))
		return PTR_ERR(sess);
	ch->sess = sess;
	return 0;
}

int srpt_os_channel_accept(struct srpt_os_channel *ch, const void *rsp,
			   size_t len)
{
	return ch->cm->accept(ch, rsp, len);
}

void srpt_os_cm_reject(struct srpt_os_channel *ch, const void *rej, size_t len)
{
	ch->cm->reject(ch, rej, len);
}

int srpt_os_channel_ready(struct srpt_os_channel *ch)
{
	return ch->cm->ready(ch);
}

void srpt_os_channel_notify_established(struct srpt_os_channel *ch)
{
	ch->cm->notify_established(ch);
}

int srpt_os_channel_disconnect(struct srpt_os_channel *ch,
			       enum srpt_disconnect how)
{
	return ch->cm->disconnect(ch, how);
}

int srpt_os_channel_qp_error(struct srpt_os_channel *ch)
{
	struct ib_qp_attr attr = { .qp_state = IB_QPS_ERR };

	return ib_modify_qp(ch->qp, &attr, IB_QP_STATE);
}

/*
 * srpt_zerolength_write: IBA C9-88: a zero-length RDMA WRITE is not
 * checked against an R_Key, so it needs no remote buffer.
 */
int srpt_os_channel_post_zero_write(struct srpt_os_channel *ch)
{
	struct ib_rdma_wr wr = {
		.wr = {
			.wr_cqe = &ch->zw_cqe,
			.opcode = IB_WR_RDMA_WRITE,
			.send_flags = IB_SEND_SIGNALED,
		},
	};

	return ib_post_send(ch->qp, &wr.wr, NULL);
}

void srpt_os_channel_close_session(struct srpt_os_channel *ch)
{
	if (!ch->sess)
		return;
	srpt_target_stop_session(ch->sess);
	target_wait_for_sess_cmds(ch->sess);
	target_remove_session(ch->sess);
	ch->sess = NULL;
}

void srpt_os_channel_destroy_cm(struct srpt_os_channel *ch)
{
	ch->cm->destroy_id(ch);
	ch->id.ib = NULL;
}

void srpt_os_channel_destroy_qp(struct srpt_os_channel *ch)
{
	if (!ch->qp)
		return;
	/* Moves the QP to the error state and waits for every completion. */
	ib_drain_qp(ch->qp);
	ch->cm->destroy_qp(ch);
	ib_cq_pool_put(ch->cq, ch->cq_size);
	ch->qp = NULL;
	ch->cq = NULL;
}

void srpt_os_channel_free(struct srpt_os_channel *ch)
{
	kfree(ch);
}
