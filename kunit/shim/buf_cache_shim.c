// SPDX-License-Identifier: GPL-2.0-only
/* The module's src/shim/buf_cache.c, its allocations failing on request (redirect.h). */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/slab.h>

#include "redirect.h"

#include "../../src/shim/buf_cache.c"
