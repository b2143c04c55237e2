/* SPDX-License-Identifier: GPL-2.0-only */
/* The core's integer types: ktl's, named in namespace srpt once. */
#pragma once

#include <ktl/types.h>

namespace srpt {

using ktl::size_t;
using ktl::u16;
using ktl::u32;
using ktl::u64;
using ktl::u8;

} // namespace srpt
