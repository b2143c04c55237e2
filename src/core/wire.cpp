// SPDX-License-Identifier: GPL-2.0-only
/* What ktl/wire.h's readers read in place of a buffer too short. */
#include <ktl/wire.h>

namespace ktl {

const u8 kZeroPad[kZeroPadSize] = {};

} // namespace ktl
