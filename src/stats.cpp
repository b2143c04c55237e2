// SPDX-License-Identifier: GPL-2.0-only
/* Channel and port statistics (see include/srpt/stats.h). */
#include <ktl/lock.h>
#include <srpt/channel.h>
#include <srpt/handles.h>
#include <srpt/port.h>
#include <srpt/stats.h>
#include <srpt/target.h>

namespace srpt {
namespace {

constexpr const char *kNames[static_cast<int>(Stat::kCount)] = {
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

/* By SRP_LOGIN_REJ reason, 0x00010000 + index. */
constexpr const char *kRejectNames[] = {
	"rejects_unable_to_establish_channel",
	"rejects_insufficient_resources",
	"rejects_it_iu_length",
	"rejects_unable_to_associate_channel",
	"rejects_unsupported_descriptor_format",
	"rejects_multichannel_unsupported",
	"rejects_channel_limit_reached",
};

constexpr const char *kBucketNames[kLatencyBuckets] = {
	"latency_lt_100us", "latency_lt_1ms", "latency_lt_10ms",
	"latency_lt_100ms", "latency_lt_1s", "latency_ge_1s",
};

} // namespace

void Counters::latency(u64 ns)
{
	u64 limit = 100 * 1000;
	int i = 0;

	while (i < kLatencyBuckets - 1 && ns >= limit) {
		limit *= 10;
		i++;
	}
	latency_[i].fetch_add(1, ktl::MemoryOrder::relaxed);
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
		out.line(kNames[i], get(static_cast<Stat>(i)));
	for (int i = 0; i < kLatencyBuckets; i++)
		out.line(kBucketNames[i], bucket(i));
}

void Port::count_reject(srp::RejectReason reason)
{
	const u32 i = static_cast<u32>(reason) - static_cast<u32>(srp::RejectReason::kUnableEstablishChannel);

	if (!KTL_WARN_ON(i >= kRejectReasons))
		rejects_[i].fetch_add(1, ktl::MemoryOrder::relaxed);
}

void Port::fold_channel(const Channel &ch)
{
	ch.stats().fold_into(closed_);
	if (ch.logged_in_)
		logouts_.fetch_add(1, ktl::MemoryOrder::relaxed);
}

namespace {

/* Sums the listed channels @match accepts into @total; returns how many. */
template <typename List, typename Match>
u64 sum_channels(List &nexuses, Match match, Counters &total, u64 *credits, u64 *depth)
{
	u64 n = 0;

	for (Nexus *nexus : nexuses) {
		for (Channel *ch : nexus->channels) {
			if (!match(ch))
				continue;
			n++;
			ch->stats().fold_into(total);
			*credits += static_cast<u64>(ktl::max(ch->credits().req_lim(), 0));
			*depth += ch->in_flight();
		}
	}
	return n;
}

void format_live(u64 channels, const Counters &total, u64 credits, u64 depth, ktl::TextBuf &out)
{
	out.line("channels", channels);
	total.format(out);
	/* Credits the initiators hold, and commands not yet released. */
	out.line("credits", credits);
	out.line("queue_depth", depth);
}

} // namespace

void Port::format_stats(ktl::TextBuf &out)
{
	u64 rejects = 0;

	for (const auto &r : rejects_)
		rejects += r.load(ktl::MemoryOrder::relaxed);
	out.line("logins", logins_.load(ktl::MemoryOrder::relaxed));
	out.line("logouts", logouts_.load(ktl::MemoryOrder::relaxed));
	out.line("login_rejects", rejects);
	for (int i = 0; i < kRejectReasons; i++)
		out.line(kRejectNames[i], rejects_[i].load(ktl::MemoryOrder::relaxed));

	Counters total;
	u64 credits = 0, depth = 0, channels;
	{
		ktl::MutexGuard guard(ch_mutex_);

		closed_.fold_into(total);
		channels = sum_channels(nexuses_, [](Channel *) { return true; }, total, &credits,
					&depth);
	}
	format_live(channels, total, credits, depth, out);
}

void Port::format_session_stats(const Tpg *tpg, const char *initiator, ktl::TextBuf &out)
{
	Counters total;
	u64 credits = 0, depth = 0, channels;
	{
		ktl::MutexGuard guard(ch_mutex_);

		channels = sum_channels(
			nexuses_,
			[&](Channel *ch) { return ch->tpg() == tpg && ktl::streq(ch->acl_name(), initiator); },
			total, &credits, &depth);
	}
	format_live(channels, total, credits, depth, out);
}

} // namespace srpt

using namespace srpt;

extern "C" srpt_ssize_t srpt_core_tport_stats_show(struct srpt_tport *tport, char *page,
						   srpt_size_t size)
{
	ktl::TextBuf out(page, size);

	from_handle<TPort>(tport)->port()->format_stats(out);
	return static_cast<srpt_ssize_t>(out.size());
}

extern "C" srpt_ssize_t srpt_core_nacl_stats_show(struct srpt_tpg *h, const char *initiator,
						  char *page, srpt_size_t size)
{
	ktl::TextBuf out(page, size);
	Tpg *tpg = from_handle<Tpg>(h);

	tpg->tport()->port()->format_session_stats(tpg, initiator, out);
	return static_cast<srpt_ssize_t>(out.size());
}
