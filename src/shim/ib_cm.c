// SPDX-License-Identifier: GPL-2.0-only
/*
 * IB/CM: one listener per device with IB/CM (InfiniBand, RoCE) for the
 * service GUID, the connection events (srpt_cm_handler), and the IB/CM
 * side of a channel (srpt_ib_cm_ops): its QP moves through INIT, RTR and
 * RTS with the attributes the CM supplies. Logins are decided by the core
 * (srpt_cm_req_recv); this file translates.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <rdma/ib_cache.h>
#include <rdma/ib_cm.h>

#include "compat.h"
#include "shim.h"

/* srpt_ib_cm_req_recv: hand the login to the core. */
static int srpt_ib_cm_req_recv(struct ib_cm_id *cm_id,
			       const struct ib_cm_req_event_param *param,
			       const void *private_data)
{
	u16 pkey = be16_to_cpu(param->primary_path->pkey);
	u16 index;
	int ret;
	struct srpt_login_info info = {
		.cm = SRPT_CM_IB,
		.pkey = pkey,
		.private_data = private_data,
		.private_data_len = IB_CM_REQ_PRIVATE_DATA_SIZE,
		.initiator_depth = param->initiator_depth,
		.responder_resources = param->responder_resources,
	};

	ret = ib_find_cached_pkey(cm_id->device, param->port, pkey, &index);
	info.pkey_index = ret < 0 ? ret : index;
	memcpy(info.peer_gid, param->primary_path->dgid.raw, sizeof(info.peer_gid));
	return srpt_channel_login(cm_id->device, param->port, &info,
				  &srpt_ib_cm_ops, cm_id, &cm_id->context);
}

/*
 * srpt_cm_handler: only a failed login returns non-zero (the CM then
 * destroys the id); otherwise the channel's release destroys it.
 */
static int srpt_ib_cm_handler(struct ib_cm_id *cm_id,
			      const struct ib_cm_event *event)
{
	struct srpt_os_channel *ch = cm_id->context;

	if (event->event == IB_CM_REQ_RECEIVED)
		return srpt_ib_cm_req_recv(cm_id, &event->param.req_rcvd,
					   event->private_data);
	if (ch)
		srpt_core_cm_event(ch->core, event->event);
	return 0;
}

int srpt_os_ib_cm_listen(struct srpt_os_device *sdev, u64 service_id)
{
	struct ib_cm_id *id;
	int ret;

	id = ib_create_cm_id(sdev->ib, srpt_ib_cm_handler, sdev);
	if (IS_ERR(id))
		return PTR_ERR(id);
	ret = srpt_ib_cm_listen(id, cpu_to_be64(service_id));
	if (ret) {
		ib_destroy_cm_id(id);
		return ret;
	}
	sdev->cm_listen = id;
	pr_info("%s: listening for IB/CM logins: id_ext=%016llx,ioc_guid=%016llx,service_id=%016llx\n",
		dev_name(&sdev->ib->dev), service_id, service_id, service_id);
	return 0;
}

void srpt_os_ib_cm_stop(struct srpt_os_device *sdev)
{
	if (!sdev->cm_listen)
		return;
	/* Waits for a running handler, so no login is under way afterwards. */
	ib_destroy_cm_id(sdev->cm_listen);
	sdev->cm_listen = NULL;
}

/* srpt_init_ch_qp: the QP starts in INIT with the connection's P_Key. */
static struct ib_qp *srpt_ib_cm_create_qp(struct srpt_os_channel *ch,
					  struct ib_qp_init_attr *init)
{
	struct ib_qp_attr attr = {
		.qp_state = IB_QPS_INIT,
		.qp_access_flags = IB_ACCESS_LOCAL_WRITE,
		.port_num = ch->port_num,
		.pkey_index = ch->pkey_index,
	};
	struct ib_qp *qp;
	int ret;

	qp = ib_create_qp(ch->sdev->pd, init);
	if (IS_ERR(qp))
		return qp;
	ret = ib_modify_qp(qp, &attr, IB_QP_STATE | IB_QP_ACCESS_FLAGS |
			   IB_QP_PORT | IB_QP_PKEY_INDEX);
	if (ret) {
		ib_destroy_qp(qp);
		return ERR_PTR(ret);
	}
	return qp;
}

static void srpt_ib_cm_destroy_qp(struct srpt_os_channel *ch)
{
	ib_destroy_qp(ch->qp);
}

/* srpt_ch_qp_rtr / srpt_ch_qp_rts: the CM supplies the attributes. */
static int srpt_ib_cm_modify_qp(struct srpt_os_channel *ch,
				enum ib_qp_state state)
{
	struct ib_qp_attr attr = { .qp_state = state };
	int mask, ret;

	ret = ib_cm_init_qp_attr(ch->id.ib, &attr, &mask);
	if (ret)
		return ret;
	if (state == IB_QPS_RTR)
		attr.max_dest_rd_atomic = ch->responder_resources;
	else
		attr.max_rd_atomic = ch->initiator_depth;
	return ib_modify_qp(ch->qp, &attr, mask);
}

static int srpt_ib_cm_accept(struct srpt_os_channel *ch, const void *rsp,
			     size_t len)
{
	struct ib_cm_rep_param param = {
		.qp_num = ch->qp->qp_num,
		.private_data = rsp,
		.private_data_len = len,
		.rnr_retry_count = ch->rnr_retry_count,
		.flow_control = ch->flow_control,
		.srq = ch->use_srq,
		.responder_resources = ch->responder_resources,
		.initiator_depth = ch->initiator_depth,
	};
	int ret;

	ret = srpt_ib_cm_modify_qp(ch, IB_QPS_RTR);
	if (ret)
		return ret;
	return ib_send_cm_rep(ch->id.ib, &param);
}

static void srpt_ib_cm_reject(struct srpt_os_channel *ch, const void *rej,
			      size_t len)
{
	ib_send_cm_rej(ch->id.ib, IB_CM_REJ_CONSUMER_DEFINED, NULL, 0, rej, len);
}

static int srpt_ib_cm_ready(struct srpt_os_channel *ch)
{
	return srpt_ib_cm_modify_qp(ch, IB_QPS_RTS);
}

static void srpt_ib_cm_notify_established(struct srpt_os_channel *ch)
{
	ib_cm_notify(ch->id.ib, IB_EVENT_COMM_EST);
}

static int srpt_ib_cm_disconnect(struct srpt_os_channel *ch,
				 enum srpt_disconnect how)
{
	if (how == SRPT_DISCONNECT_DREP)
		return ib_send_cm_drep(ch->id.ib, NULL, 0);
	return ib_send_cm_dreq(ch->id.ib, NULL, 0);
}

static void srpt_ib_cm_destroy_id(struct srpt_os_channel *ch)
{
	ib_destroy_cm_id(ch->id.ib);
}

const struct srpt_cm_ops srpt_ib_cm_ops = {
	.create_qp		= srpt_ib_cm_create_qp,
	.destroy_qp		= srpt_ib_cm_destroy_qp,
	.accept			= srpt_ib_cm_accept,
	.reject			= srpt_ib_cm_reject,
	.ready			= srpt_ib_cm_ready,
	.notify_established	= srpt_ib_cm_notify_established,
	.disconnect		= srpt_ib_cm_disconnect,
	.destroy_id		= srpt_ib_cm_destroy_id,
};
