/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * What the KUnit suites may see inside the C++ core: its live-object
 * counters, a port's cached state and reference count, and allocation
 * and RefPtr exercises. Implemented in probe.cpp; readable from kernel C
 * and from the core's C++, like srpt/abi.h.
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

SRPT_ABI_END

#endif /* SRPT_KUNIT_PROBE_H */
