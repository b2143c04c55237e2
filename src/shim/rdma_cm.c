// SPDX-License-Identifier: GPL-2.0-only
/*
 * RDMA/CM: how logins arrive over RoCE and iWARP. The listeners on the
 * port the core chose (discovery_auth/rdma_cm_port), the connection
 * events (srpt_rdma_cm_handler), and the RDMA/CM side of a channel
 * (srpt_rdma_cm_ops): the CM moves its QP through the states itself.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/in.h>
#include <linux/in6.h>
#include <net/net_namespace.h>
#include <rdma/rdma_cm.h>

#include "shim.h"

/*
 * The listeners, IPv4 and IPv6 (by enum srpt_inet_family). The core
 * serialises srpt_os_rdma_cm_listen() calls; module exit cannot run while
 * a configfs store is under way (the store holds a module reference).
 */
static struct rdma_cm_id *srpt_rdma_cm_ids[2];

/* srpt_rdma_cm_req_recv: hand the login to the core. */
static int srpt_rdma_cm_req_recv(struct rdma_cm_id *cm_id,
				 const struct rdma_cm_event *event)
{
	struct sa_path_rec *path = cm_id->route.path_rec;
	struct srpt_login_info info = {
		.cm = SRPT_CM_RDMA,
		.pkey = path ? be16_to_cpu(path->pkey) : 0,
		.private_data = event->param.conn.private_data,
		.private_data_len = event->param.conn.private_data_len,
		.initiator_depth = event->param.conn.initiator_depth,
		.responder_resources = event->param.conn.responder_resources,
	};
	const struct sockaddr *peer = (struct sockaddr *)&cm_id->route.addr.dst_addr;

	/* The initiator's address (the in-tree target used its own). */
	if (peer->sa_family == AF_INET6) {
		info.peer_family = SRPT_INET6;
		memcpy(info.peer_addr, &((struct sockaddr_in6 *)peer)->sin6_addr, 16);
	} else if (peer->sa_family == AF_INET) {
		info.peer_family = SRPT_INET4;
		memcpy(info.peer_addr, &((struct sockaddr_in *)peer)->sin_addr, 4);
	}
	return srpt_channel_login(cm_id->device, cm_id->port_num, &info,
				  &srpt_rdma_cm_ops, cm_id, &cm_id->context);
}

/*
 * srpt_rdma_cm_handler: only a failed login returns non-zero; otherwise
 * the channel's release destroys the id.
 */
static int srpt_rdma_cm_handler(struct rdma_cm_id *cm_id,
				struct rdma_cm_event *event)
{
	struct srpt_os_channel *ch = cm_id->context;

	if (event->event == RDMA_CM_EVENT_CONNECT_REQUEST)
		return srpt_rdma_cm_req_recv(cm_id, event);
	if (ch)
		srpt_core_cm_event(ch->core, event->event);
	return 0;
}

static struct rdma_cm_id *srpt_create_rdma_id(struct sockaddr *addr)
{
	struct rdma_cm_id *id;
	int ret;

	id = rdma_create_id(&init_net, srpt_rdma_cm_handler, NULL, RDMA_PS_TCP,
			    IB_QPT_RC);
	if (IS_ERR(id))
		return id;
	/*
	 * IPv6 only, beside an IPv4 listener: an iWARP device listens on
	 * the addresses of the wildcard's family alone, so one IPv6
	 * wildcard never reached its IPv4 addresses.
	 */
	ret = addr->sa_family == AF_INET6 ? rdma_set_afonly(id, 1) : 0;
	if (!ret)
		ret = rdma_bind_addr(id, addr);
	if (!ret)
		ret = rdma_listen(id, 128);
	if (ret) {
		rdma_destroy_id(id);
		return ERR_PTR(ret);
	}
	return id;
}

int srpt_os_rdma_cm_listen(enum srpt_inet_family af, u16 port)
{
	struct sockaddr_in6 addr6 = {
		.sin6_family = AF_INET6,
		.sin6_port = cpu_to_be16(port),
	};
	struct sockaddr_in addr4 = {
		.sin_family = AF_INET,
		.sin_port = cpu_to_be16(port),
	};
	struct rdma_cm_id **slot = &srpt_rdma_cm_ids[af == SRPT_INET6];
	struct rdma_cm_id *id = NULL;

	if (port) {
		id = srpt_create_rdma_id(af == SRPT_INET6 ? (struct sockaddr *)&addr6 :
					 (struct sockaddr *)&addr4);
		if (IS_ERR(id))
			return PTR_ERR(id);
	}
	swap(*slot, id);
	if (id)
		rdma_destroy_id(id);
	return 0;
}

void srpt_rdma_cm_stop(void)
{
	int i;

	for (i = 0; i < ARRAY_SIZE(srpt_rdma_cm_ids); i++) {
		if (srpt_rdma_cm_ids[i])
			rdma_destroy_id(srpt_rdma_cm_ids[i]);
		srpt_rdma_cm_ids[i] = NULL;
	}
}

static struct ib_qp *srpt_rdma_cm_create_qp(struct srpt_os_channel *ch,
					    struct ib_qp_init_attr *init)
{
	int ret;

	ret = rdma_create_qp(ch->id.rdma, ch->sdev->pd, init);
	return ret ? ERR_PTR(ret) : ch->id.rdma->qp;
}

/* A failed login still has its id, which must forget the QP. */
static void srpt_rdma_cm_destroy_qp(struct srpt_os_channel *ch)
{
	if (ch->id.rdma)
		rdma_destroy_qp(ch->id.rdma);
	else
		ib_destroy_qp(ch->qp);
}

static int srpt_rdma_cm_accept(struct srpt_os_channel *ch, const void *rsp,
			       size_t len)
{
	struct rdma_conn_param param = {
		.private_data = rsp,
		.private_data_len = len,
		.rnr_retry_count = ch->rnr_retry_count,
		.flow_control = ch->flow_control,
		.responder_resources = ch->responder_resources,
		.initiator_depth = ch->initiator_depth,
	};

	return rdma_accept(ch->id.rdma, &param);
}

static void srpt_rdma_cm_reject(struct srpt_os_channel *ch, const void *rej,
				size_t len)
{
	rdma_reject(ch->id.rdma, rej, len, IB_CM_REJ_CONSUMER_DEFINED);
}

/* The CM moved the QP to RTS when the connection was established. */
static int srpt_rdma_cm_ready(struct srpt_os_channel *ch)
{
	return 0;
}

static void srpt_rdma_cm_notify_established(struct srpt_os_channel *ch)
{
	rdma_notify(ch->id.rdma, IB_EVENT_COMM_EST);
}

/* A DREQ and its answer are one call here. */
static int srpt_rdma_cm_disconnect(struct srpt_os_channel *ch,
				   enum srpt_disconnect how)
{
	return rdma_disconnect(ch->id.rdma);
}

static void srpt_rdma_cm_destroy_id(struct srpt_os_channel *ch)
{
	rdma_destroy_id(ch->id.rdma);
}

const struct srpt_cm_ops srpt_rdma_cm_ops = {
	.create_qp		= srpt_rdma_cm_create_qp,
	.destroy_qp		= srpt_rdma_cm_destroy_qp,
	.accept			= srpt_rdma_cm_accept,
	.reject			= srpt_rdma_cm_reject,
	.ready			= srpt_rdma_cm_ready,
	.notify_established	= srpt_rdma_cm_notify_established,
	.disconnect		= srpt_rdma_cm_disconnect,
	.destroy_id		= srpt_rdma_cm_destroy_id,
};
