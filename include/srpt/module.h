/* SPDX-License-Identifier: GPL-2.0-only */
/* The core's part of module load and unload (src/core/module.cpp). */
#pragma once

namespace srpt {

/* Before anything else; nothing to undo on failure. */
[[nodiscard]] int core_init();
/* Once LIO and the IB client are registered. */
void core_start();
/* Last, once every device is gone. */
void core_exit();

} // namespace srpt
