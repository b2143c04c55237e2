/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef SRPT_RDMA_CM_H
#define SRPT_RDMA_CM_H

#include <srpt/abi.h>

/* Destroys the listener, if any; from module exit. */
void srpt_rdma_cm_stop(void);

#endif /* SRPT_RDMA_CM_H */
