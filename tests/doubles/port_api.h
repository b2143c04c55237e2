/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * C entry points into the core's RDMA ports, for the tests only (KUnit's
 * suites are C): refresh and lookup by name under the names the in-tree
 * target documents. No shim calls them; port_api.cpp forwards each to
 * the core.
 */
#ifndef SRPT_PORT_API_H
#define SRPT_PORT_API_H

#include <srpt/abi.h>

SRPT_ABI_BEGIN

/*
 * Query the port, update the cached sm_lid, lid and GID, and (except on
 * iWARP) enable device management and register the MAD agent. Idempotent;
 * sleeps.
 */
SRPT_NODISCARD int srpt_refresh_port(struct srpt_port *sport);

enum srpt_port_id_kind {
	SRPT_PORT_ID_NONE = 0,
	SRPT_PORT_ID_GUID,		/* "xxxx:xxxx:xxxx:xxxx" */
	SRPT_PORT_ID_GID,		/* "0x" + 32 hex digits */
};

struct port_and_port_id {
	struct srpt_port *sport;
	enum srpt_port_id_kind port_id;
};

/*
 * By either name form, any case. A port comes back with its reference
 * count incremented: drop it with srpt_port_put_ref().
 */
struct port_and_port_id srpt_lookup_port(const char *name);
void srpt_port_put_ref(struct srpt_port *sport);

SRPT_ABI_END

#endif /* SRPT_PORT_API_H */
