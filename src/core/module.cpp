// SPDX-License-Identifier: GPL-2.0-only
/* The core's part of loading and unloading the module. */
#include <ktl/assert.h>
#include <srpt/listener.h>
#include <srpt/module.h>
#include <srpt/registry.h>

namespace srpt {

int core_init()
{
	registry_init();
	listener_init();
	return 0;
}

void core_start()
{
	listener_start();
}

void core_exit()
{
	/* The IB client removed every device before this. */
	KTL_WARN_ON(!registry_empty());
}

} // namespace srpt
