// SPDX-License-Identifier: GPL-2.0-only
/*
 * The IB client: RDMA devices appear (srpt_add_one) and go
 * (srpt_remove_one); their ports are queried and modified, their async
 * events and Device Management MADs are forwarded to the core.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/rwsem.h>
#include <linux/slab.h>
#include <rdma/ib_cache.h>
#include <rdma/ib_mad.h>
#include <rdma/ib_verbs.h>

#include "shim.h"

static struct ib_client srpt_client;

/* Logins read-hold it; removal write-holds it to wait for them. */
static DECLARE_RWSEM(srpt_login_rwsem);

struct srpt_os_device *srpt_login_begin(struct ib_device *ib)
{
	struct srpt_os_device *sdev;

	down_read(&srpt_login_rwsem);
	sdev = ib_get_client_data(ib, &srpt_client);
	if (!sdev || sdev->removing) {
		up_read(&srpt_login_rwsem);
		return NULL;
	}
	return sdev;
}

void srpt_login_end(void)
{
	up_read(&srpt_login_rwsem);
}

/* srpt_event_handler: may run in interrupt context; the core only queues. */
static void srpt_event_handler(struct ib_event_handler *handler,
			       struct ib_event *event)
{
	struct srpt_os_device *os =
		container_of(handler, struct srpt_os_device, event_handler);

	srpt_core_port_event(os->core, event->element.port_num, event->event);
}

void srpt_os_device_events_start(struct srpt_os_device *os)
{
	ib_register_event_handler(&os->event_handler);
}

void srpt_os_device_events_stop(struct srpt_os_device *os)
{
	/* Returns once no handler runs: event dispatch holds the rwsem. */
	ib_unregister_event_handler(&os->event_handler);
}

int srpt_os_port_query(struct srpt_os_device *os, u32 port_num,
		       struct srpt_port_attr *attr)
{
	struct ib_port_attr pa;
	union ib_gid gid;
	int ret;

	ret = ib_query_port(os->ib, port_num, &pa);
	if (ret)
		return ret;
	ret = rdma_query_gid(os->ib, port_num, 0, &gid);
	if (ret)
		return ret;
	attr->lid = pa.lid;
	attr->sm_lid = pa.sm_lid;
	memcpy(attr->gid, gid.raw, sizeof(attr->gid));
	attr->link_ib = rdma_port_get_link_layer(os->ib, port_num) ==
			IB_LINK_LAYER_INFINIBAND;
	attr->iwarp = rdma_protocol_iwarp(os->ib, port_num);
	attr->ib_cm = rdma_cap_ib_cm(os->ib, port_num);
	attr->active = pa.state == IB_PORT_ACTIVE;
	return 0;
}

int srpt_os_port_set_devmgmt(struct srpt_os_device *os, u32 port_num,
			     int enable)
{
	struct ib_port_modify pm = {};

	if (enable)
		pm.set_port_cap_mask = IB_PORT_DEVICE_MGMT_SUP;
	else
		pm.clr_port_cap_mask = IB_PORT_DEVICE_MGMT_SUP;
	return ib_modify_port(os->ib, port_num, 0, &pm);
}

/* srpt_mad_send_handler: the response went out; free what recv allocated. */
static void srpt_mad_send_handler(struct ib_mad_agent *agent,
				  struct ib_mad_send_wc *send_wc)
{
	rdma_destroy_ah(send_wc->send_buf->ah, RDMA_DESTROY_AH_SLEEPABLE);
	ib_free_send_mad(send_wc->send_buf);
}

/* srpt_mad_recv_handler: the core answers, the shim sends the answer. */
static void srpt_mad_recv_handler(struct ib_mad_agent *agent,
				  struct ib_mad_send_buf *send_buf,
				  struct ib_mad_recv_wc *wc)
{
	u8 rsp_mad[IB_MGMT_MAD_SIZE];
	struct ib_mad_send_buf *rsp;
	struct ib_ah *ah;
	size_t len;

	if (!wc->recv_buf.mad)
		goto out;
	len = srpt_core_mad_recv(agent->context, wc->recv_buf.mad, wc->mad_len,
				 rsp_mad, sizeof(rsp_mad));
	if (!len)
		goto out;

	ah = ib_create_ah_from_wc(agent->qp->pd, wc->wc, wc->recv_buf.grh,
				  agent->port_num);
	if (IS_ERR(ah))
		goto out;
	rsp = ib_create_send_mad(agent, wc->wc->src_qp, wc->wc->pkey_index, 0,
				 IB_MGMT_DEVICE_HDR, IB_MGMT_DEVICE_DATA,
				 GFP_KERNEL, IB_MGMT_BASE_VERSION);
	if (IS_ERR(rsp))
		goto destroy_ah;
	rsp->ah = ah;
	memcpy(rsp->mad, rsp_mad, len);
	/* On success srpt_mad_send_handler() frees rsp and ah. */
	if (!ib_post_send_mad(rsp, NULL))
		goto out;
	ib_free_send_mad(rsp);
destroy_ah:
	rdma_destroy_ah(ah, RDMA_DESTROY_AH_SLEEPABLE);
out:
	ib_free_recv_mad(wc);
}

int srpt_os_mad_agent_register(struct srpt_os_device *os, u32 port_num,
			       struct srpt_port *port)
{
	struct ib_mad_reg_req reg = {
		.mgmt_class = IB_MGMT_CLASS_DEVICE_MGMT,
		.mgmt_class_version = IB_MGMT_BASE_VERSION,
	};
	struct ib_mad_agent *agent;

	if (port_num < 1 || port_num > os->port_count ||
	    os->mad_agent[port_num - 1])
		return -EINVAL;
	set_bit(IB_MGMT_METHOD_GET, reg.method_mask);
	set_bit(IB_MGMT_METHOD_SET, reg.method_mask);
	agent = ib_register_mad_agent(os->ib, port_num, IB_QPT_GSI, &reg, 0,
				      srpt_mad_send_handler,
				      srpt_mad_recv_handler, port, 0);
	if (IS_ERR(agent))
		return PTR_ERR(agent);
	os->mad_agent[port_num - 1] = agent;
	return 0;
}

void srpt_os_mad_agent_unregister(struct srpt_os_device *os, u32 port_num)
{
	struct ib_mad_agent *agent;

	if (port_num < 1 || port_num > os->port_count)
		return;
	agent = os->mad_agent[port_num - 1];
	os->mad_agent[port_num - 1] = NULL;
	if (agent)
		ib_unregister_mad_agent(agent);
}

/* srpt_add_one: a new RDMA device; the core decides what to do with it. */
static int srpt_add_one(struct ib_device *ib)
{
	struct srpt_device_info info = {
		.name = dev_name(&ib->dev),
		.node_guid = be64_to_cpu(ib->node_guid),
		.port_count = ib->phys_port_cnt,
		.vendor_id = ib->attrs.vendor_id,
		.vendor_part_id = ib->attrs.vendor_part_id,
		.hw_ver = ib->attrs.hw_ver,
		.max_qp_wr = ib->attrs.max_qp_wr,
		.max_srq_wr = ib->attrs.max_srq_wr,
		.max_send_sge = ib->attrs.max_send_sge,
		.max_qp_rd_atom = ib->attrs.max_qp_rd_atom,
		.max_qp_init_rd_atom = ib->attrs.max_qp_init_rd_atom,
	};
	struct srpt_os_device *os;
	int ret;

	os = kzalloc(struct_size(os, mad_agent, ib->phys_port_cnt), GFP_KERNEL);
	if (!os)
		return -ENOMEM;
	os->ib = ib;
	os->port_count = ib->phys_port_cnt;
	INIT_IB_EVENT_HANDLER(&os->event_handler, ib, srpt_event_handler);
	os->pd = ib_alloc_pd(ib, 0);
	if (IS_ERR(os->pd)) {
		ret = PTR_ERR(os->pd);
		goto free;
	}

	ret = srpt_core_device_add(os, &info, &os->core);
	if (ret)
		goto dealloc_pd;
	ib_set_client_data(ib, &srpt_client, os);
	return 0;

dealloc_pd:
	ib_dealloc_pd(os->pd);
free:
	kfree(os);
	return ret;
}

/* srpt_remove_one: the core logs everybody out; then the memory goes. */
static void srpt_remove_one(struct ib_device *ib, void *client_data)
{
	struct srpt_os_device *os = client_data;

	/* Waits for logins under way; later ones find the device removing. */
	down_write(&srpt_login_rwsem);
	os->removing = true;
	up_write(&srpt_login_rwsem);
	srpt_core_device_remove(os->core);
	ib_dealloc_pd(os->pd);
	kfree(os);
}

static struct ib_client srpt_client = {
	.name = KBUILD_MODNAME,
	.add = srpt_add_one,
	.remove = srpt_remove_one,
};

int srpt_ib_register(void)
{
	return ib_register_client(&srpt_client);
}

void srpt_ib_unregister(void)
{
	ib_unregister_client(&srpt_client);
}
