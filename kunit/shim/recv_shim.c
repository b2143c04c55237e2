// SPDX-License-Identifier: GPL-2.0-only
/* The module's src/shim/recv.c, built over the strict double (redirect.h). */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/sched/clock.h>
#include <linux/slab.h>
#include <rdma/ib_verbs.h>

#include "redirect.h"

#include "../../src/shim/recv.c"
