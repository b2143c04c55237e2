// SPDX-License-Identifier: GPL-2.0-only
/* Module-lifetime entry points of the core. */
#include <ktl/assert.h>
#include <srpt/abi.h>
#include <srpt/registry.h>
#include <srpt/target.h>

extern "C" int srpt_core_init(void)
{
	srpt::registry_init();
	srpt::attrib_init();
	return 0;
}

extern "C" void srpt_core_exit(void)
{
	/* The IB client removed every device before this. */
	KTL_WARN_ON(!srpt::registry_empty());
}
