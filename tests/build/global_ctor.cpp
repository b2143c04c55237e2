// SPDX-License-Identifier: GPL-2.0-only
/*
 * A core object that needs a global constructor. Built only by the build
 * tier (scripts/build-all), which expects the build to reject it: modules
 * on our kernels never run .init_array.
 */
#include <srpt/abi.h>

namespace {

struct NeedsConstructor {
	/* Depends on run time, so the compiler cannot initialise it statically. */
	NeedsConstructor() : value(srpt_os_inet_pton("", 0) != 0) {}
	int value;
};

NeedsConstructor g_needs_constructor;

} // namespace

extern "C" int srpt_build_test_global_ctor(void);

int srpt_build_test_global_ctor(void)
{
	return g_needs_constructor.value;
}
