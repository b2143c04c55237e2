// SPDX-License-Identifier: GPL-2.0-only
/*
 * The RDMA/CM listener: how logins arrive over RoCE and iWARP. The core
 * decides the port (discovery_auth/rdma_cm_port); this file owns the
 * rdma_cm_id.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/in.h>
#include <linux/in6.h>
#include <linux/mutex.h>
#include <net/net_namespace.h>
#include <rdma/rdma_cm.h>

#include "rdma_cm.h"

/* Serialises listener replacement against module unload. */
static DEFINE_MUTEX(srpt_rdma_cm_mutex);
static struct rdma_cm_id *srpt_rdma_cm_id;

static int srpt_rdma_cm_handler(struct rdma_cm_id *cm_id,
				struct rdma_cm_event *event)
{
	/* Logins are not served yet: a non-zero return rejects the request. */
	return event->event == RDMA_CM_EVENT_CONNECT_REQUEST ? -ECONNREFUSED : 0;
}

static struct rdma_cm_id *srpt_create_rdma_id(struct sockaddr *addr)
{
	struct rdma_cm_id *id;
	int ret;

	id = rdma_create_id(&init_net, srpt_rdma_cm_handler, NULL, RDMA_PS_TCP,
			    IB_QPT_RC);
	if (IS_ERR(id))
		return id;
	ret = rdma_bind_addr(id, addr);
	if (!ret)
		ret = rdma_listen(id, 128);
	if (ret) {
		rdma_destroy_id(id);
		return ERR_PTR(ret);
	}
	return id;
}

int srpt_os_rdma_cm_listen(u16 port)
{
	struct sockaddr_in6 addr6 = {
		.sin6_family = AF_INET6,
		.sin6_port = cpu_to_be16(port),
	};
	struct sockaddr_in addr4 = {
		.sin_family = AF_INET,
		.sin_port = cpu_to_be16(port),
	};
	struct rdma_cm_id *id = NULL, *old;

	if (port) {
		id = srpt_create_rdma_id((struct sockaddr *)&addr6);
		if (IS_ERR(id))
			id = srpt_create_rdma_id((struct sockaddr *)&addr4);
		if (IS_ERR(id))
			return PTR_ERR(id);
	}
	mutex_lock(&srpt_rdma_cm_mutex);
	old = srpt_rdma_cm_id;
	srpt_rdma_cm_id = id;
	mutex_unlock(&srpt_rdma_cm_mutex);
	if (old)
		rdma_destroy_id(old);
	return 0;
}

void srpt_rdma_cm_stop(void)
{
	WARN_ON_ONCE(srpt_os_rdma_cm_listen(0));
}
