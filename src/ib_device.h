/* SPDX-License-Identifier: GPL-2.0-only */
/* The kernel side of an RDMA device (struct srpt_os_device). */
#ifndef SRPT_IB_DEVICE_H
#define SRPT_IB_DEVICE_H

#include <rdma/ib_cm.h>
#include <rdma/ib_verbs.h>

#include <srpt/abi.h>

struct srpt_os_device {
	struct ib_device *ib;
	struct srpt_device *core;
	struct ib_pd *pd;
	struct ib_srq *srq;
	struct ib_cm_id *cm_listen;	/* IB/CM logins, InfiniBand only */
	struct ib_event_handler event_handler;
	bool removing;			/* under srpt_login_rwsem */
	u32 port_count;
	/* Indexed by port number - 1; set and cleared by the core's calls. */
	struct ib_mad_agent *mad_agent[];
};

int srpt_ib_register(void);
void srpt_ib_unregister(void);

/*
 * A login starts: returns the device the connection request arrived on,
 * which cannot be removed until srpt_login_end(), or NULL when it is not
 * ours or is going away (then srpt_login_end() is not called).
 */
struct srpt_os_device *srpt_login_begin(struct ib_device *ib);
void srpt_login_end(void);

#endif /* SRPT_IB_DEVICE_H */
