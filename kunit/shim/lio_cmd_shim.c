// SPDX-License-Identifier: GPL-2.0-only
/* The module's src/shim/lio_cmd.c, built over the strict double (redirect.h). */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/scatterlist.h>
#include <linux/sched/clock.h>
#include <linux/slab.h>
#include <rdma/rw.h>
#include <scsi/scsi_tcq.h>
#include <target/target_core_base.h>
#include <target/target_core_fabric.h>

#include "redirect.h"

#include "../../src/shim/lio_cmd.c"
