/* SPDX-License-Identifier: GPL-2.0-only */
/* Declarations shared by the C shims (never seen by the core). */
#ifndef SRPT_OS_H
#define SRPT_OS_H

#include <linux/workqueue.h>

#include <srpt/abi.h>

#define DRV_NAME "ib_srpt"

/* The kernel side of struct srpt_os_work. */
struct srpt_work {
	struct work_struct work;
	srpt_work_fn fn;
	void *arg;
};

/* Workqueue for the core's deferred work; flushed before unload. */
extern struct workqueue_struct *srpt_wq;

#endif /* SRPT_OS_H */
