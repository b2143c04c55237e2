// SPDX-License-Identifier: GPL-2.0-only
/* Statistics counters (see include/srpt/stats.h). */
#include <srpt/stats.h>

namespace srpt {
namespace {

constexpr const char *kStatNames[static_cast<int>(Stat::kCount)] = {
	"commands",
	"reads",
	"writes",
	"bytes_read",
	"bytes_written",
	"immediate_writes",
	"task_management",
	"aborted_tasks",
	"errors_malformed_iu",
	"errors_no_memory",
	"errors_send",
	"errors_rdma_read",
	"errors_unknown_iu",
	"dropped_commands",
	"send_queue_waits",
};

constexpr const char *kBucketNames[kLatencyBuckets] = {
	"latency_lt_100us", "latency_lt_1ms", "latency_lt_10ms",
	"latency_lt_100ms", "latency_lt_1s", "latency_ge_1s",
};

} // namespace

void Counters::latency(u64 ns)
{
	/* Most commands stop at the first comparison (a loop would multiply). */
	const int i = ns < 100'000 ? 0 : ns < 1'000'000 ? 1 : ns < 10'000'000 ? 2 :
		      ns < 100'000'000 ? 3 : ns < 1'000'000'000 ? 4 : 5;

	static_assert(kLatencyBuckets == 6, "one comparison per bucket but the last");
	latency_[i].add_single_writer(1);
}

void Counters::fold_into(Counters &total) const
{
	for (int i = 0; i < static_cast<int>(Stat::kCount); i++)
		total.v_[i].fetch_add(v_[i].load(ktl::MemoryOrder::relaxed), ktl::MemoryOrder::relaxed);
	for (int i = 0; i < kLatencyBuckets; i++)
		total.latency_[i].fetch_add(latency_[i].load(ktl::MemoryOrder::relaxed),
					    ktl::MemoryOrder::relaxed);
}

void Counters::format(ktl::TextBuf &out) const
{
	for (int i = 0; i < static_cast<int>(Stat::kCount); i++)
		out.line(kStatNames[i], get(static_cast<Stat>(i)));
	for (int i = 0; i < kLatencyBuckets; i++)
		out.line(kBucketNames[i], bucket(i));
}

} // namespace srpt
