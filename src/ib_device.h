/* SPDX-License-Identifier: GPL-2.0-only */
/* The kernel side of an RDMA device (struct srpt_os_device). */
#ifndef SRPT_IB_DEVICE_H
#define SRPT_IB_DEVICE_H

#include <rdma/ib_verbs.h>

#include <srpt/abi.h>

struct srpt_os_device {
	struct ib_device *ib;
	struct srpt_device *core;
	struct ib_event_handler event_handler;
	u32 port_count;
	/* Indexed by port number - 1; set and cleared by the core's calls. */
	struct ib_mad_agent *mad_agent[];
};

int srpt_ib_register(void);
void srpt_ib_unregister(void);

#endif /* SRPT_IB_DEVICE_H */
