// SPDX-License-Identifier: GPL-2.0-only
/* The module's src/buf_cache.c under the shim suite's names (names.h). */
#include "names.h"

#include "../../src/buf_cache.c"
