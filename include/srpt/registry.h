/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The list of RDMA devices the IB client has given the core, and port
 * lookup by name over it.
 */
#pragma once

#include <ktl/refptr.h>
#include <srpt/abi.h>
#include <srpt/device.h>

namespace srpt {

void registry_init();
void registry_add(Device *dev);
void registry_remove(Device *dev);
bool registry_empty();

struct PortLookup {
	ktl::RefPtr<RdmaPort> port;
	PortNameKind kind = PortNameKind::kNone;
};

/* Finds a port by name; the result holds a reference. */
PortLookup lookup_port(const char *name);

} // namespace srpt
