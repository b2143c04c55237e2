// SPDX-License-Identifier: GPL-2.0-only
/*
 * The device list and port lookup by name (srpt_lookup_port), and the
 * core's module-lifetime entry points.
 */
#include <ktl/list.h>
#include <ktl/lock.h>
#include <srpt/handles.h>
#include <srpt/params.h>
#include <srpt/registry.h>
#include <srpt/target.h>

namespace srpt {
namespace {

/* Spinlock: lookups come from configfs, additions from the IB client. */
constinit ktl::SpinLock g_lock;
constinit ktl::List<Device, &Device::registry_node> g_devices; /* guarded by g_lock */

void registry_init()
{
	KTL_LOCK_INIT(g_lock);
}

} // namespace

void registry_add(Device *dev)
{
	ktl::SpinGuard g(g_lock);

	g_devices.push_back(dev);
}

void registry_remove(Device *dev)
{
	ktl::SpinGuard g(g_lock);

	g_devices.erase(dev);
}

bool registry_empty()
{
	ktl::SpinGuard g(g_lock);

	return g_devices.empty();
}

PortLookup lookup_port(const char *name)
{
	ParsedPortName parsed;
	PortLookup result;

	if (parse_port_name(name, &parsed))
		return result;

	ktl::SpinGuard g(g_lock);
	for (Device *dev : g_devices) {
		for (u32 i = 1; i <= dev->attrs().port_count; i++) {
			RdmaPort *port = dev->port(i);
			const PortCache c = port->cache();

			if (c.valid && parsed.matches(c.gid)) {
				result.port = ktl::RefPtr<RdmaPort>(port);
				result.kind = parsed.kind;
				return result;
			}
		}
	}
	return result;
}

} // namespace srpt

using namespace srpt;

extern "C" struct port_and_port_id srpt_lookup_port(const char *name)
{
	PortLookup r = lookup_port(name);

	return port_and_port_id{to_handle<srpt_port>(r.port.leak_ref()), r.kind};
}

extern "C" void srpt_port_put_ref(struct srpt_port *sport)
{
	if (sport)
		ktl::ImportRef(from_handle<RdmaPort>(sport)).reset();
}

extern "C" int srpt_core_init(void)
{
	srpt::registry_init();
	attrib_init();
	return 0;
}

/*
 * A port that cannot be bound does not fail the load: at boot that would
 * lose the whole srpt configuration targetctl restores, and IB/CM logins
 * need no listener. The administrator is told how to listen later.
 */
extern "C" void srpt_core_start(void)
{
	const u32 port = rdma_cm_port_param();

	if (listen_rdma_cm(port))
		srpt_os_log(SRPT_LOG_ERR,
			    "rdma_cm_port: loaded without an RDMA/CM listener; once port %u is free, write it to discovery_auth/rdma_cm_port\n",
			    port);
}

extern "C" void srpt_core_exit(void)
{
	/* The IB client removed every device before this. */
	KTL_WARN_ON(!srpt::registry_empty());
}
