// SPDX-License-Identifier: GPL-2.0-only
/*
 * IB/CM: one listener per InfiniBand device for the service GUID, and the
 * connection events (srpt_cm_handler). Logins are decided by the core
 * (srpt_cm_req_recv); this file translates events.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <rdma/ib_cm.h>

#include "channel_os.h"

static enum srpt_cm_event srpt_map_ib_cm_event(enum ib_cm_event_type e)
{
	switch (e) {
	case IB_CM_RTU_RECEIVED:
	case IB_CM_USER_ESTABLISHED:
		return SRPT_CM_ESTABLISHED;
	case IB_CM_DREQ_RECEIVED:
		return SRPT_CM_DISCONNECT_REQUEST;
	case IB_CM_DREP_RECEIVED:
	case IB_CM_TIMEWAIT_EXIT:
	case IB_CM_DREQ_ERROR:
		return SRPT_CM_DISCONNECTED;
	case IB_CM_REJ_RECEIVED:
		return SRPT_CM_REJECTED;
	case IB_CM_REP_ERROR:
		return SRPT_CM_CONNECT_ERROR;
	default:
		return SRPT_CM_OTHER;
	}
}

/* srpt_ib_cm_req_recv: hand the login to the core. */
static int srpt_ib_cm_req_recv(struct ib_cm_id *cm_id,
			       const struct ib_cm_req_event_param *param,
			       const void *private_data)
{
	const __be16 *g = (const __be16 *)&param->primary_path->dgid.global.interface_id;
	struct srpt_login_info info = {
		.cm = SRPT_CM_IB,
		.pkey = be16_to_cpu(param->primary_path->pkey),
		.private_data = private_data,
		.private_data_len = IB_CM_REQ_PRIVATE_DATA_SIZE,
	};
	char peer[24];

	/* The initiator's port GUID, as in the in-tree target's ACL names. */
	snprintf(peer, sizeof(peer), "%04x:%04x:%04x:%04x", be16_to_cpu(g[0]),
		 be16_to_cpu(g[1]), be16_to_cpu(g[2]), be16_to_cpu(g[3]));
	info.peer = peer;
	return srpt_channel_login(cm_id->device, param->port, &info, cm_id, NULL,
				  &cm_id->context);
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
		srpt_core_cm_event(ch->core, srpt_map_ib_cm_event(event->event),
				   event->event);
	return 0;
}

int srpt_os_ib_cm_listen(struct srpt_os_device *sdev, u64 service_id)
{
	struct ib_cm_id *id;
	int ret;

	id = ib_create_cm_id(sdev->ib, srpt_ib_cm_handler, sdev);
	if (IS_ERR(id))
		return PTR_ERR(id);
	ret = ib_cm_listen(id, cpu_to_be64(service_id));
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
