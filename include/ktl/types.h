/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Fixed-width types for the freestanding core. The core is built with
 * -nostdinc, so it cannot use <stdint.h> or <stddef.h>; the compiler's
 * predefined macros give the same types without any header.
 */
#pragma once

namespace ktl {

using u8 = __UINT8_TYPE__;
using u16 = __UINT16_TYPE__;
using u32 = __UINT32_TYPE__;
/* Like the kernel's u64/s64, so that the ABI types match exactly. */
using u64 = unsigned long long;
using s8 = __INT8_TYPE__;
using s16 = __INT16_TYPE__;
using s32 = __INT32_TYPE__;
using s64 = long long;
using size_t = __SIZE_TYPE__;
using ptrdiff_t = __PTRDIFF_TYPE__;
using uintptr_t = __UINTPTR_TYPE__;
using nullptr_t = decltype(nullptr);

static_assert(sizeof(u64) == 8 && sizeof(size_t) == sizeof(void *));

} // namespace ktl
