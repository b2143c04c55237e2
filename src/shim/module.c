// SPDX-License-Identifier: GPL-2.0-only
/*
 * ib_srpt: SCSI RDMA Protocol target for LIO, with a C++ core.
 *
 * Module entry (srpt_init_module) and parameters. The parameters are
 * parsed and bounded by the core; these are their kernel_param_ops.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/err.h>
#include <linux/init.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/stringify.h>
#include <linux/workqueue.h>

#include <srpt/abi.h>
#include <srpt/version.h>

#include "compat.h"
#include "os.h"
#include "shim.h"

struct workqueue_struct *srpt_wq;

static int srpt_param_set(const char *val, const struct kernel_param *kp)
{
	return srpt_core_param_set((enum srpt_param)(uintptr_t)kp->arg, val);
}

static int srpt_param_get(char *buf, const struct kernel_param *kp)
{
	return srpt_core_param_get((enum srpt_param)(uintptr_t)kp->arg, buf,
				   PAGE_SIZE);
}

static const struct kernel_param_ops srpt_param_ops = {
	.set = srpt_param_set,
	.get = srpt_param_get,
};

module_param_cb(srp_max_req_size, &srpt_param_ops,
		(void *)SRPT_PARAM_MAX_REQ_SIZE, 0444);
MODULE_PARM_DESC(srp_max_req_size,
		 "Maximum size of SRP request messages in bytes ("
		 __stringify(SRPT_MAX_REQ_SIZE_MIN) ".." __stringify(SRPT_MAX_REQ_SIZE_MAX)
		 ", default " __stringify(SRPT_MAX_REQ_SIZE_DEFAULT) ").");

module_param_cb(srpt_srq_size, &srpt_param_ops,
		(void *)SRPT_PARAM_SRQ_SIZE, 0444);
MODULE_PARM_DESC(srpt_srq_size,
		 "Shared receive queue (SRQ) size (" __stringify(SRPT_SRQ_SIZE_MIN) ".."
		 __stringify(SRPT_SRQ_SIZE_MAX) ", default " __stringify(SRPT_SRQ_SIZE_DEFAULT) ").");

module_param_cb(srpt_service_guid, &srpt_param_ops,
		(void *)SRPT_PARAM_SERVICE_GUID, 0444);
MODULE_PARM_DESC(srpt_service_guid,
		 "Using this value for ioc_guid, id_ext, and cm_listen_id instead of using the node_guid of the first HCA (hexadecimal, default 0).");

module_param_cb(rdma_cm_port, &srpt_param_ops,
		(void *)SRPT_PARAM_RDMA_CM_PORT, 0444);
MODULE_PARM_DESC(rdma_cm_port,
		 "RDMA/CM port to listen on for logins from load time, as discovery_auth/rdma_cm_port sets it later (0.."
		 __stringify(SRPT_RDMA_CM_PORT_MAX) ", default 0: none).");

/*
 * LIO first: adding a device may touch target core state. The IB client
 * last: from then on devices arrive.
 */
static int __init srpt_init_module(void)
{
	int ret;

	ret = srpt_core_init();
	if (ret)
		return ret;
	srpt_wq = alloc_workqueue("ib_srpt", WQ_MEM_RECLAIM | SRPT_WQ_PERCPU, 0);
	if (!srpt_wq) {
		ret = -ENOMEM;
		goto core_exit;
	}
	ret = srpt_lio_register();
	if (ret) {
		pr_err("registering the srpt fabric with LIO failed (%pe)\n", ERR_PTR(ret));
		goto destroy_wq;
	}
	ret = srpt_ib_register();
	if (ret) {
		pr_err("registering the IB client failed (%pe)\n", ERR_PTR(ret));
		goto lio_unregister;
	}
	srpt_core_start();
	srpt_debugfs_init();
	pr_info("SRP target " SRPT_VERSION " loaded\n");
	return 0;

lio_unregister:
	srpt_lio_unregister();
	/*
	 * discovery_auth/rdma_cm_port may have been written since LIO took the
	 * fabric; after srpt_lio_unregister() nothing can open a listener again.
	 */
	srpt_rdma_cm_stop();
destroy_wq:
	destroy_workqueue(srpt_wq);
core_exit:
	srpt_core_exit();
	return ret;
}

static void __exit srpt_cleanup_module(void)
{
	srpt_debugfs_exit();
	srpt_rdma_cm_stop();
	srpt_ib_unregister();
	srpt_lio_unregister();
	destroy_workqueue(srpt_wq);
	srpt_core_exit();
	pr_info("SRP target unloaded\n");
}

module_init(srpt_init_module);
module_exit(srpt_cleanup_module);

MODULE_DESCRIPTION("SCSI RDMA Protocol target driver (C++ core)");
MODULE_LICENSE("GPL");
MODULE_VERSION(SRPT_VERSION);
