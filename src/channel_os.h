/* SPDX-License-Identifier: GPL-2.0-only */
/* The kernel side of an RDMA channel (struct srpt_os_channel). */
#ifndef SRPT_CHANNEL_OS_H
#define SRPT_CHANNEL_OS_H

#include <rdma/ib_cm.h>
#include <rdma/ib_verbs.h>
#include <rdma/rdma_cm.h>
#include <target/target_core_base.h>

#include <srpt/abi.h>

#include "ib_device.h"

struct srpt_os_channel {
	struct srpt_channel *core;	/* set by srpt_os_channel_create_qp() */
	struct srpt_os_device *sdev;
	u32 port_num;
	bool rdma_cm;
	bool use_srq;
	struct ib_cm_id *ib_cm_id;	/* IB/CM */
	struct rdma_cm_id *rdma_cm_id;	/* RDMA/CM */
	u16 pkey;
	struct ib_qp *qp;
	struct ib_cq *cq;
	u32 cq_size;
	struct ib_cqe zw_cqe;
	struct se_session *sess;
};

/* A channel for a connection request; the caller sets the CM id. */
struct srpt_os_channel *srpt_channel_alloc(struct srpt_os_device *sdev, u32 port_num, u16 pkey);

#endif /* SRPT_CHANNEL_OS_H */
