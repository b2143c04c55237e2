/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Counts of the core's live objects, for leak checks: the tests read them
 * directly, an administrator through /sys/kernel/debug/ib_srpt/objects.
 */
#pragma once

#include <ktl/string.h>

namespace srpt {

enum class Live : int {
	kDevice,
	kPort,
	kTPort,
	kTpg,
	kNexus,
	kChannel,
	kCmd,
	kRecv,
	kCount,
};

void live_inc(Live k);
void live_dec(Live k);
int live_count(Live k);
/* One "<kind> <count>" line per kind, for debugfs. */
void format_live_objects(ktl::TextBuf &out);

} // namespace srpt
