// SPDX-License-Identifier: GPL-2.0-only
/* The device list and port lookup by name. */
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

} // namespace

void registry_init()
{
	KTL_LOCK_INIT(g_lock);
}

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
