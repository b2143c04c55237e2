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

using DeviceList = ktl::List<Device, &Device::registry_node>;

/* Spinlock: lookups come from configfs, additions from the IB client. */
constinit ktl::Guarded<DeviceList, ktl::SpinLock> g_devices;

} // namespace

void registry_init()
{
	KTL_LOCK_INIT(g_devices);
}

void registry_add(Device *dev)
{
	g_devices.with([dev](DeviceList &devices) { devices.push_back(dev); });
}

void registry_remove(Device *dev)
{
	g_devices.with([dev](DeviceList &devices) { devices.erase(dev); });
}

bool registry_empty()
{
	return g_devices.with([](const DeviceList &devices) { return devices.empty(); });
}

PortLookup lookup_port(const char *name)
{
	ParsedPortName parsed;
	PortLookup result;

	if (parse_port_name(name, &parsed))
		return result;

	g_devices.with([&](DeviceList &devices) {
		for (Device *dev : devices) {
			for (u32 i = 1; i <= dev->attrs().port_count; i++) {
				RdmaPort *port = dev->port(i);
				const PortCache c = port->cache();

				if (c.valid && parsed.matches(c.gid)) {
					result.port = ktl::RefPtr<RdmaPort>(port);
					result.kind = parsed.kind;
					return;
				}
			}
		}
	});
	return result;
}

} // namespace srpt
