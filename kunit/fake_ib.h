/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Test double of the IB and LIO shims: an RDMA device whose ports answer
 * srpt_os_port_query() from configurable attributes, fail on request and
 * record every call the core makes, so the suites can check the calls
 * and the state they leave behind. The data path callouts are in
 * fake_datapath.c (see fake_datapath.h).
 */
#ifndef SRPT_KUNIT_FAKE_IB_H
#define SRPT_KUNIT_FAKE_IB_H

#include <linux/list.h>
#include <linux/types.h>

#include <srpt/abi.h>

#include "../tests/doubles/contract.h"

#define FAKE_IB_MAX_PORTS 2

struct fake_ib_port {
	/* Set by the test. */
	struct srpt_port_attr attr;	/* what a query reports */
	int devmgmt_err;		/* enabling fails with this */
	int mad_register_err;		/* agent registration fails with this */

	/* Recorded by the double. */
	unsigned int query_calls;
	unsigned int devmgmt_enable_calls;
	unsigned int devmgmt_clear_calls;
	unsigned int mad_register_calls;
	unsigned int mad_unregister_calls;
	bool devmgmt;			/* IB_PORT_DEVICE_MGMT_SUP is set */
	struct srpt_port *mad_agent;	/* the registered agent's port */
};

struct srpt_os_device {
	struct fake_ib_port port[FAKE_IB_MAX_PORTS];
	/* What the test added the device with: the QP model's limits (fake_datapath.c). */
	struct srpt_device_info info;
	unsigned int events_start_calls;
	unsigned int events_stop_calls;
	/* Where it stands in the contract both doubles enforce (tests/doubles/contract.h). */
	struct srpt_contract_dev contract;
	bool events;			/* between start and stop */
	bool ib_cm_listening;
	u64 ib_cm_service_id;		/* while listening */

	/* The shared receive queue (fake_datapath.c). */
	int srq_create_err;
	unsigned int srq_create_calls;
	unsigned int srq_destroy_calls;
	unsigned int srq_posts;
	bool srq;			/* between create and destroy */
	u32 srq_size;
	struct list_head srq_posted;	/* buffers posted on it, oldest first */
	unsigned int srq_posts_live;	/* ... how many */
};

/* srpt_core_device_add() of @os with @info, which the double's checks use. */
int fake_ib_device_add(struct srpt_os_device *os, const struct srpt_device_info *info,
		       struct srpt_device **out);
/* srpt_core_device_remove(): any later call with @os is a violation. */
void fake_ib_device_remove(struct srpt_os_device *os, struct srpt_device *dev);

/*
 * fake_datapath.c's: a breach of the contract (@why non-NULL) by the call
 * @fn is a violation (true); the call @fn may sleep: a violation in atomic
 * context.
 */
bool fake_breach(const char *fn, const char *why);
void fake_might_sleep(const char *fn);

/* An InfiniBand port, ACTIVE, with the GID @prefix:@guid. */
void fake_ib_port_init(struct fake_ib_port *p, u64 prefix, u64 guid);
void fake_ib_port_set_gid(struct fake_ib_port *p, u64 prefix, u64 guid);

#endif /* SRPT_KUNIT_FAKE_IB_H */
