// SPDX-License-Identifier: GPL-2.0-only
/* The test entry points of port_api.h, over the core's registry and ports. */
#include <ktl/refptr.h>
#include <srpt/handles.h>
#include <srpt/rdma_port.h>
#include <srpt/registry.h>

#include "port_api.h"

using namespace srpt;

static_assert(SRPT_PORT_ID_NONE == static_cast<int>(PortNameKind::kNone) &&
	      SRPT_PORT_ID_GUID == static_cast<int>(PortNameKind::kGuid) &&
	      SRPT_PORT_ID_GID == static_cast<int>(PortNameKind::kGid));

extern "C" int srpt_refresh_port(struct srpt_port *sport)
{
	return from_handle<RdmaPort>(sport)->refresh();
}

extern "C" struct port_and_port_id srpt_lookup_port(const char *name)
{
	PortLookup r = lookup_port(name);

	return port_and_port_id{to_handle<srpt_port>(r.port.leak_ref()),
				static_cast<srpt_port_id_kind>(r.kind)};
}

extern "C" void srpt_port_put_ref(struct srpt_port *sport)
{
	if (sport)
		ktl::ImportRef(from_handle<RdmaPort>(sport)).reset();
}
