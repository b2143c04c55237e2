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
	u8 rd_atomic;
	struct ib_cqe zw_cqe;
	struct se_session *sess;
};

/*
 * A connection request for @ib: hands the login to the core with a new
 * channel holding the CM id (@ib_cm_id or @rdma_cm_id), whose context
 * pointer is @context. Returns 0 when the core took the channel;
 * otherwise the caller returns the error and its CM destroys the id.
 */
int srpt_channel_login(struct ib_device *ib, u32 port_num,
		       const struct srpt_login_info *info,
		       struct ib_cm_id *ib_cm_id, struct rdma_cm_id *rdma_cm_id,
		       void **context);

#endif /* SRPT_CHANNEL_OS_H */
