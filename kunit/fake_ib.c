// SPDX-License-Identifier: GPL-2.0-only
/*
 * Test double of the IB and LIO shims (src/shim/ib_device.c, src/shim/ib_cm.c,
 * src/shim/rdma_cm.c): the device and port callouts of include/srpt/abi.h.
 * See fake_ib.h.
 */
#include <linux/bug.h>
#include <linux/errno.h>
#include <linux/string.h>
#include <asm/byteorder.h>

#include "fake_ib.h"

void fake_ib_port_set_gid(struct fake_ib_port *p, u64 prefix, u64 guid)
{
	__be64 raw[2] = { cpu_to_be64(prefix), cpu_to_be64(guid) };

	BUILD_BUG_ON(sizeof(raw) != sizeof(p->attr.gid));
	memcpy(p->attr.gid, raw, sizeof(raw));
}

void fake_ib_port_init(struct fake_ib_port *p, u64 prefix, u64 guid)
{
	memset(p, 0, sizeof(*p));
	fake_ib_port_set_gid(p, prefix, guid);
	p->attr.link_ib = 1;
	p->attr.ib_cm = 1;
	p->attr.active = 1;
}

int fake_ib_device_add(struct srpt_os_device *os, const struct srpt_device_info *info,
		       struct srpt_device **out)
{
	os->info = *info;
	os->contract.removed = 0;
	return srpt_core_device_add(os, info, out);
}

void fake_ib_device_remove(struct srpt_os_device *os, struct srpt_device *dev)
{
	srpt_core_device_remove(dev);
	os->contract.removed = 1;
}

/* A call @fn with @os: false (after a violation) when it may not be made. */
static bool fake_dev(struct srpt_os_device *os, const char *fn)
{
	fake_might_sleep(fn);
	if (WARN_ON(!os))
		return false;
	fake_breach(fn, srpt_contract_dev_check(&os->contract));
	return true;
}

/* The core must only name ports the device has. */
static struct fake_ib_port *fake_port(struct srpt_os_device *os, u32 port_num, const char *fn)
{
	if (!fake_dev(os, fn) ||
	    fake_breach(fn, srpt_contract_port_check(port_num, os->info.port_count)))
		return NULL;
	if (WARN_ON(port_num > FAKE_IB_MAX_PORTS))
		return NULL;
	return &os->port[port_num - 1];
}

int srpt_os_port_query(struct srpt_os_device *os, u32 port_num,
		       struct srpt_port_attr *attr)
{
	struct fake_ib_port *p = fake_port(os, port_num, __func__);

	if (!p)
		return -EINVAL;
	p->query_calls++;
	*attr = p->attr;
	return 0;
}

int srpt_os_port_set_devmgmt(struct srpt_os_device *os, u32 port_num,
			     int enable)
{
	struct fake_ib_port *p = fake_port(os, port_num, __func__);

	if (!p)
		return -EINVAL;
	if (!enable) {
		p->devmgmt_clear_calls++;
		p->devmgmt = false;
		return 0;
	}
	p->devmgmt_enable_calls++;
	if (p->devmgmt_err)
		return p->devmgmt_err;
	p->devmgmt = true;
	return 0;
}

int srpt_os_mad_agent_register(struct srpt_os_device *os, u32 port_num,
			       struct srpt_port *port)
{
	struct fake_ib_port *p = fake_port(os, port_num, __func__);

	if (!p)
		return -EINVAL;
	p->mad_register_calls++;
	if (fake_breach(__func__, srpt_contract_mad_agent_register(!!p->mad_agent, port)) &&
	    p->mad_agent)
		return -EBUSY;
	if (p->mad_register_err)
		return p->mad_register_err;
	p->mad_agent = port;
	return 0;
}

void srpt_os_mad_agent_unregister(struct srpt_os_device *os, u32 port_num)
{
	struct fake_ib_port *p = fake_port(os, port_num, __func__);

	if (!p)
		return;
	p->mad_unregister_calls++;
	p->mad_agent = NULL;
}

void srpt_os_device_events_start(struct srpt_os_device *os)
{
	if (!fake_dev(os, __func__))
		return;
	os->events_start_calls++;
	fake_breach(__func__, srpt_contract_events(&os->contract, 1));
	os->contract.events = 1;
	os->events = true;
}

void srpt_os_device_events_stop(struct srpt_os_device *os)
{
	if (!fake_dev(os, __func__))
		return;
	os->events_stop_calls++;
	fake_breach(__func__, srpt_contract_events(&os->contract, 0));
	os->contract.events = 0;
	os->events = false;
}

int srpt_os_ib_cm_listen(struct srpt_os_device *os, u64 service_id)
{
	if (!fake_dev(os, __func__))
		return -EINVAL;
	fake_breach(__func__, srpt_contract_ib_cm_listen(&os->contract));
	os->contract.ib_cm_listening = 1;
	os->ib_cm_listening = true;
	os->ib_cm_service_id = service_id;
	return 0;
}

void srpt_os_ib_cm_stop(struct srpt_os_device *os)
{
	if (!fake_dev(os, __func__))
		return;
	os->contract.ib_cm_listening = 0;
	os->ib_cm_listening = false;
}

/* Referenced by the core's rdma_cm_port attribute, which no suite stores. */
int srpt_os_rdma_cm_listen(enum srpt_inet_family af, u16 port)
{
	fake_might_sleep(__func__);
	fake_breach(__func__, srpt_contract_rdma_cm_listen(af));
	return -EOPNOTSUPP;
}
