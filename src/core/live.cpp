// SPDX-License-Identifier: GPL-2.0-only
/* Live object counts (see include/srpt/live.h). */
#include <ktl/atomic.h>
#include <ktl/string.h>
#include <srpt/abi.h>
#include <srpt/live.h>

namespace srpt {
namespace {

constexpr int kKinds = static_cast<int>(Live::kCount);
constinit ktl::Atomic<int> g_live[kKinds];

constexpr const char *kLiveNames[kKinds] = {
	"devices", "ports", "target_ports", "tpgs", "nexuses", "channels", "commands", "receive_buffers",
};

} // namespace

void live_inc(Live k)
{
	g_live[static_cast<int>(k)].fetch_add(1, ktl::MemoryOrder::relaxed);
}

void live_dec(Live k)
{
	g_live[static_cast<int>(k)].fetch_sub(1, ktl::MemoryOrder::relaxed);
}

int live_count(Live k)
{
	return g_live[static_cast<int>(k)].load(ktl::MemoryOrder::relaxed);
}

void format_live_objects(ktl::TextBuf &s)
{
	for (int i = 0; i < kKinds; i++) {
		const int n = live_count(static_cast<Live>(i));

		s.put(kLiveNames[i]).put(' ');
		if (n < 0)
			s.put('-');
		s.dec(static_cast<ktl::u64>(n < 0 ? -n : n)).put('\n');
	}
}

} // namespace srpt
