/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Invariant checks. A broken invariant is reported (WARN in the kernel, a
 * failed test on the host) and the caller takes its safe path; the core
 * never halts the machine.
 */
#pragma once

#include <ktl/platform.h>

#define KTL_WARN_ON(cond)                                                   \
	({                                                                  \
		bool ktl_warn_ = !!(cond);                                  \
		if (__builtin_expect(ktl_warn_, 0))                         \
			srpt_os_warn(__FILE__, __LINE__, #cond);            \
		ktl_warn_;                                                  \
	})
