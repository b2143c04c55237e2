// SPDX-License-Identifier: GPL-2.0-only
/*
 * The kernel side of RDMA channels: CQ and QP (srpt_create_ch_ib), QP
 * state changes (srpt_init_ch_qp, srpt_ch_qp_rtr, srpt_ch_qp_rts,
 * srpt_ch_qp_err), the LIO session, the CM messages of a login, the
 * zero-length write (srpt_zerolength_write) and teardown.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/slab.h>
#include <rdma/ib_cache.h>
#include <target/target_core_fabric.h>

#include "channel_os.h"
#include "lio.h"

int srpt_channel_login(struct ib_device *ib, u32 port_num,
		       const struct srpt_login_info *info,
		       struct ib_cm_id *ib_cm_id, struct rdma_cm_id *rdma_cm_id,
		       void **context)
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
	ch->rdma_cm = rdma_cm_id != NULL;
	ch->ib_cm_id = ib_cm_id;
	ch->rdma_cm_id = rdma_cm_id;
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
	enum srpt_qp_event ev;

	switch (event->event) {
	case IB_EVENT_COMM_EST:
		ev = SRPT_QP_COMM_EST;
		break;
	case IB_EVENT_QP_LAST_WQE_REACHED:
		ev = SRPT_QP_LAST_WQE_REACHED;
		break;
	case IB_EVENT_QP_FATAL:
	case IB_EVENT_QP_REQ_ERR:
	case IB_EVENT_QP_ACCESS_ERR:
		ev = SRPT_QP_FATAL;
		break;
	default:
		ev = SRPT_QP_OTHER;
		break;
	}
	srpt_core_qp_event(ch->core, ev, event->event);
}

static void srpt_zerolength_write_done(struct ib_cq *cq, struct ib_wc *wc)
{
	struct srpt_os_channel *ch = wc->qp->qp_context;

	srpt_core_zero_write_done(ch->core, wc->status == IB_WC_SUCCESS);
}

/* srpt_init_ch_qp: IB/CM QPs start in INIT with the connection's P_Key. */
static int srpt_init_ch_qp(struct srpt_os_channel *ch, struct ib_qp *qp)
{
	struct ib_qp_attr attr = {
		.qp_state = IB_QPS_INIT,
		.qp_access_flags = IB_ACCESS_LOCAL_WRITE,
		.port_num = ch->port_num,
	};
	int ret;

	ret = ib_find_cached_pkey(ch->sdev->ib, ch->port_num, ch->pkey,
				  &attr.pkey_index);
	if (ret < 0)
		pr_err("%s port %u: P_Key %#x not found (%d), using index 0\n",
		       dev_name(&ch->sdev->ib->dev), ch->port_num, ch->pkey, ret);
	return ib_modify_qp(qp, &attr, IB_QP_STATE | IB_QP_ACCESS_FLAGS |
			    IB_QP_PORT | IB_QP_PKEY_INDEX);
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
	init.cap.max_send_sge = ib->attrs.max_send_sge;
	init.cap.max_recv_sge = 1;
	init.port_num = ch->port_num;
	if (p->use_srq)
		init.srq = ch->sdev->srq;
	else
		init.cap.max_recv_wr = p->rq_size;

	if (ch->rdma_cm) {
		ret = rdma_create_qp(ch->rdma_cm_id, ch->sdev->pd, &init);
		qp = ret ? NULL : ch->rdma_cm_id->qp;
	} else {
		qp = ib_create_qp(ch->sdev->pd, &init);
		ret = PTR_ERR_OR_ZERO(qp);
		if (!ret) {
			ret = srpt_init_ch_qp(ch, qp);
			if (ret)
				ib_destroy_qp(qp);
		}
	}
	if (ret) {
		ib_cq_pool_put(cq, p->cq_size);
		return ret;
	}
	ch->qp = qp;
	ch->cq = cq;
	ch->cq_size = p->cq_size;
	ch->rd_atomic = p->rd_atomic;
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

/* srpt_ch_qp_rtr / srpt_ch_qp_rts: IB/CM supplies the attributes. */
static int srpt_ib_cm_modify_qp(struct srpt_os_channel *ch,
				enum ib_qp_state state)
{
	struct ib_qp_attr attr = { .qp_state = state };
	int mask, ret;

	ret = ib_cm_init_qp_attr(ch->ib_cm_id, &attr, &mask);
	if (ret)
		return ret;
	if (state == IB_QPS_RTR)
		attr.max_dest_rd_atomic = ch->rd_atomic;
	else
		attr.max_rd_atomic = ch->rd_atomic;
	return ib_modify_qp(ch->qp, &attr, mask);
}

static int srpt_rdma_cm_accept(struct srpt_os_channel *ch, const void *rsp,
			       size_t len)
{
	struct rdma_conn_param param = {
		.private_data = rsp,
		.private_data_len = len,
		.rnr_retry_count = 7,
		.flow_control = 1,
		.responder_resources = ch->rd_atomic,
		.initiator_depth = ch->rd_atomic,
	};

	return rdma_accept(ch->rdma_cm_id, &param);
}

static int srpt_ib_cm_accept(struct srpt_os_channel *ch, const void *rsp,
			     size_t len)
{
	struct ib_cm_rep_param param = {
		.qp_num = ch->qp->qp_num,
		.private_data = rsp,
		.private_data_len = len,
		.rnr_retry_count = 7,
		.flow_control = 1,
		.srq = ch->use_srq,
		.responder_resources = ch->rd_atomic,
		.initiator_depth = ch->rd_atomic,
	};
	int ret;

	ret = srpt_ib_cm_modify_qp(ch, IB_QPS_RTR);
	if (ret)
		return ret;
	return ib_send_cm_rep(ch->ib_cm_id, &param);
}

int srpt_os_channel_accept(struct srpt_os_channel *ch, const void *rsp,
			   size_t len)
{
	return ch->rdma_cm ? srpt_rdma_cm_accept(ch, rsp, len) :
		srpt_ib_cm_accept(ch, rsp, len);
}

void srpt_os_cm_reject(struct srpt_os_channel *ch, const void *rej, size_t len)
{
	if (ch->rdma_cm)
		rdma_reject(ch->rdma_cm_id, rej, len, IB_CM_REJ_CONSUMER_DEFINED);
	else
		ib_send_cm_rej(ch->ib_cm_id, IB_CM_REJ_CONSUMER_DEFINED, NULL, 0,
			       rej, len);
}

int srpt_os_channel_ready(struct srpt_os_channel *ch)
{
	return ch->rdma_cm ? 0 : srpt_ib_cm_modify_qp(ch, IB_QPS_RTS);
}

void srpt_os_channel_notify_established(struct srpt_os_channel *ch)
{
	if (ch->rdma_cm)
		rdma_notify(ch->rdma_cm_id, IB_EVENT_COMM_EST);
	else
		ib_cm_notify(ch->ib_cm_id, IB_EVENT_COMM_EST);
}

int srpt_os_channel_disconnect(struct srpt_os_channel *ch)
{
	int ret;

	if (ch->rdma_cm)
		return rdma_disconnect(ch->rdma_cm_id);
	/* A DREQ, or the DREP when the initiator sent the DREQ. */
	ret = ib_send_cm_dreq(ch->ib_cm_id, NULL, 0);
	if (ret < 0)
		ret = ib_send_cm_drep(ch->ib_cm_id, NULL, 0);
	return ret;
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
	target_stop_session(ch->sess);
	target_wait_for_sess_cmds(ch->sess);
	target_remove_session(ch->sess);
	ch->sess = NULL;
}

void srpt_os_channel_destroy_cm(struct srpt_os_channel *ch)
{
	if (ch->rdma_cm)
		rdma_destroy_id(ch->rdma_cm_id);
	else
		ib_destroy_cm_id(ch->ib_cm_id);
	ch->rdma_cm_id = NULL;
	ch->ib_cm_id = NULL;
}

void srpt_os_channel_destroy_qp(struct srpt_os_channel *ch)
{
	if (!ch->qp)
		return;
	/* Moves the QP to the error state and waits for every completion. */
	ib_drain_qp(ch->qp);
	/* A failed login still has its RDMA/CM id, which must forget the QP. */
	if (ch->rdma_cm_id)
		rdma_destroy_qp(ch->rdma_cm_id);
	else
		ib_destroy_qp(ch->qp);
	ib_cq_pool_put(ch->cq, ch->cq_size);
	ch->qp = NULL;
	ch->cq = NULL;
}

void srpt_os_channel_free(struct srpt_os_channel *ch)
{
	kfree(ch);
}
