/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * What the KUnit suites may see inside the C++ core: its live-object
 * counters, a port's cached state and reference count, a channel's state
 * and credits, and allocation and RefPtr exercises. Implemented in
 * probe.cpp; readable from kernel C and from the core's C++, like
 * srpt/abi.h.
 */
#ifndef SRPT_KUNIT_PROBE_H
#define SRPT_KUNIT_PROBE_H

#include <srpt/abi.h>

/* The alignment of the probe's over-aligned type. */
#define SRPT_PROBE_OVERALIGN 64

SRPT_ABI_BEGIN

int srpt_probe_live_ports(void);
int srpt_probe_live_tports(void);

struct srpt_probe_port_cache {
	srpt_u32 lid;
	srpt_u32 sm_lid;
	srpt_u8 gid[16];
	int valid;
};

void srpt_probe_port_cache(struct srpt_port *port, struct srpt_probe_port_cache *out);
int srpt_probe_port_refs(struct srpt_port *port);
/* Whether logins are accepted: some TPG of the port is enabled. */
int srpt_probe_port_enabled(struct srpt_port *port);

/*
 * An AllocChecker new of a detached port (one reference, dropped with
 * srpt_port_put_ref()); NULL when the allocation failed.
 */
struct srpt_port *srpt_probe_port_new(void);
srpt_size_t srpt_probe_port_align(void);

/* An AllocChecker new of an object aligned to SRPT_PROBE_OVERALIGN. */
void *srpt_probe_overaligned_new(void);
void srpt_probe_overaligned_delete(void *p);

/* What a RefPtr life cycle did to a counted object, step by step. */
struct srpt_probe_refptr_trace {
	int refs_adopted;	/* AdoptRef() of a new object */
	int refs_copied;	/* plus a copy of that RefPtr */
	int refs_copy_gone;	/* the copy went out of scope */
	int freed_copy_gone;	/* destructor calls by then */
	int freed_last_reset;	/* after resetting the last RefPtr */
	int freed_at_end;	/* after resetting it again and leaving scope */
};

/* Returns 0, or -ENOMEM (as a negative errno) when allocation failed. */
SRPT_NODISCARD int srpt_probe_refptr_trace(struct srpt_probe_refptr_trace *t);

/* Channel states, in the order of srpt::ChState (checked in probe.cpp). */
enum srpt_probe_ch_state {
	SRPT_PROBE_CH_CONNECTING,
	SRPT_PROBE_CH_LIVE,
	SRPT_PROBE_CH_DISCONNECTING,
	SRPT_PROBE_CH_DRAINING,
	SRPT_PROBE_CH_DISCONNECTED,
};

/* What srpt_core_cmd_state() returns: srpt::CmdState (checked in probe.cpp). */
enum srpt_probe_cmd_state {
	SRPT_PROBE_CMD_NEW,
	SRPT_PROBE_CMD_NEED_DATA,
	SRPT_PROBE_CMD_DATA_IN,
	SRPT_PROBE_CMD_RSP_SENT,
	SRPT_PROBE_CMD_MGMT,
	SRPT_PROBE_CMD_MGMT_RSP_SENT,
	SRPT_PROBE_CMD_DONE,
};

/* Kinds of the core's live objects, in srpt::Live order (checked in probe.cpp). */
enum srpt_probe_live {
	SRPT_PROBE_LIVE_DEVICES,
	SRPT_PROBE_LIVE_PORTS,
	SRPT_PROBE_LIVE_TPORTS,
	SRPT_PROBE_LIVE_TPGS,
	SRPT_PROBE_LIVE_NEXUSES,
	SRPT_PROBE_LIVE_CHANNELS,
	SRPT_PROBE_LIVE_CMDS,
	SRPT_PROBE_LIVE_RECVS,
	SRPT_PROBE_LIVE_KINDS,
};

/* How many objects of @kind the core has (include/srpt/live.h). */
int srpt_probe_live(enum srpt_probe_live kind);
/* srpt::Channel objects alive. */
int srpt_probe_live_channels(void);
int srpt_probe_channel_state(struct srpt_channel *ch);

struct srpt_probe_credits {
	int req_lim;	/* request credits the initiator has */
	int owed;	/* credits the next response returns besides its own */
	int sq_slots;	/* free send queue slots */
};

void srpt_probe_channel_credits(struct srpt_channel *ch, struct srpt_probe_credits *out);
/* One more reference to @ch, so that it can be looked at after its release. */
void srpt_probe_channel_get(struct srpt_channel *ch);
void srpt_probe_channel_put(struct srpt_channel *ch);
/* The channels on the port's list. */
srpt_u32 srpt_probe_port_channels(struct srpt_port *port);

SRPT_ABI_END

#endif /* SRPT_KUNIT_PROBE_H */
