// SPDX-License-Identifier: GPL-2.0-only
/*
 * The logins of an RDMA port: I_T nexus bookkeeping, multichannel login
 * rules, TPG enable/disable, logging initiators out when a TPG, the port
 * or the device goes away (srpt_release_sport), and the port's login
 * statistics.
 */
#include <ktl/errno.h>
#include <ktl/new.h>
#include <srpt/channel.h>
#include <srpt/handles.h>
#include <srpt/logins.h>
#include <srpt/rdma_port.h>
#include <srpt/target.h>

namespace srpt {
namespace {

/* LIO session ids of the ACLs' info files: unique while the module lives. */
constinit ktl::Atomic<u32> g_next_session_id{1};

} // namespace

Logins::Logins(RdmaPort &port) : port_(port)
{
	KTL_LOCK_INIT(mutex_);
}

Logins::~Logins()
{
	KTL_WARN_ON(!nexuses_.empty());
	mutex_.destroy();
}

int Logins::set_tpg_enabled(Tpg *tpg, bool enable)
{
	{
		ktl::MutexGuard guard(mutex_);

		if (tpg->enabled() == enable)
			return 0;
		/*
		 * Not an error: targetcli enables every TPG it shows, and
		 * would fail every command over one orphaned target port.
		 */
		if (enable && !port_.device())
			srpt_os_log(SRPT_LOG_WARN,
				    "%s port %u: %s enabled, but its RDMA device is gone: no initiator can log in to it\n",
				    port_.dev_name(), port_.num(), tpg->tport()->name());
		tpg->set_enabled_locked(enable);
		if (enable)
			enabled_tpgs_++;
		else
			enabled_tpgs_--;
	}
	srpt_os_log(SRPT_LOG_INFO, "%s port %u: target port %s %s\n", port_.dev_name(), port_.num(),
		    tpg->tport()->name(), enable ? "enabled" : "disabled");
	/* No login can pick the TPG any more: log out those that did. */
	if (!enable)
		close_channels(tpg, "its TPG was disabled");
	return 0;
}

bool Logins::accepting_locked() const
{
	return enabled_tpgs_ > 0 && blockers_ == 0 && port_.device();
}

bool Logins::enabled() const
{
	ktl::MutexGuard guard(mutex_);

	return enabled_tpgs_ > 0;
}

u32 Logins::channel_count() const
{
	ktl::MutexGuard guard(mutex_);

	return channels_;
}

Nexus *Logins::find_nexus_locked(const u8 i_port_id[16], const u8 t_port_id[16])
{
	for (Nexus *n : nexuses_) {
		if (__builtin_memcmp(n->i_port_id, i_port_id, 16) == 0 &&
		    __builtin_memcmp(n->t_port_id, t_port_id, 16) == 0)
			return n;
	}
	return nullptr;
}

void free_nexus(Nexus *n)
{
	delete n;
}

SpareNexus Logins::make_spare()
{
	ktl::AllocChecker ac;
	Nexus *n = new (&ac) Nexus;

	return SpareNexus(ac.check() ? n : nullptr);
}

void Logins::add_channel_locked(Channel *ch, bool multichannel, SpareNexus &spare, u8 *rsp_flags)
{
	const LoginRequest &req = ch->request();
	Nexus *nexus = find_nexus_locked(req.initiator_port_id, req.target_port_id);

	if (!nexus) {
		nexus = spare.release();
		__builtin_memcpy(nexus->i_port_id, req.initiator_port_id, 16);
		__builtin_memcpy(nexus->t_port_id, req.target_port_id, 16);
		nexus->id = g_next_session_id.fetch_add(1, ktl::MemoryOrder::relaxed);
		nexuses_.push_back(nexus);
	}

	u8 flags = srp::kLoginRspMultiChanNoChannels;
	for (Channel *other : nexus->channels) {
		if (multichannel) {
			flags = srp::kLoginRspMultiChanMaintained;
			continue;
		}
		if (other->disconnect() >= 0) {
			srpt_os_log(SRPT_LOG_INFO, "%s port %u: %s logged in again: closing its channel %s\n",
				    port_.dev_name(), port_.num(), ch->name(), other->name());
			flags = srp::kLoginRspMultiChanTerminated;
		}
	}
	/* The list's reference, dropped at the end of the release work. */
	ch->add_ref();
	ch->cid = nexus->next_cid++;
	nexus->channels.push_back(ch);
	channels_++;
	*rsp_flags = flags;
}

void Logins::remove_channel(Channel *ch)
{
	ktl::MutexGuard guard(mutex_);
	const LoginRequest &req = ch->request();
	Nexus *nexus = find_nexus_locked(req.initiator_port_id, req.target_port_id);

	if (KTL_WARN_ON(!nexus || !ch->nexus_node.linked()))
		return;
	nexus->channels.erase(ch);
	channels_--;
	/* Under the mutex: a reader sums the totals and the listed channels. */
	ch->io().stats().fold_into(closed_);
	if (ch->logged_in())
		logouts_.fetch_add(1, ktl::MemoryOrder::relaxed);
	if (nexus->channels.empty()) {
		nexuses_.erase(nexus);
		delete nexus;
	}
}

void Logins::close_channels(const Tpg *tpg, const char *why)
{
	for (;;) {
		ktl::RefPtr<Channel> victim;
		{
			ktl::MutexGuard guard(mutex_);

			for (Nexus *n : nexuses_) {
				for (Channel *ch : n->channels) {
					if (!tpg || ch->tpg() == tpg) {
						victim = ktl::RefPtr<Channel>(ch);
						break;
					}
				}
				if (victim)
					break;
			}
		}
		/* A released channel leaves the list; the next one is found. */
		if (!victim)
			return;
		victim->disconnect_and_wait(why);
	}
}

void Logins::block()
{
	ktl::MutexGuard guard(mutex_);

	blockers_++;
}

void Logins::unblock()
{
	ktl::MutexGuard guard(mutex_);

	blockers_--;
}

/* ---- statistics ---- */

namespace {

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

/* Calls @fn(nexus, channel) for each listed channel @match accepts. */
template <typename List, typename Match, typename Fn>
void for_each_channel(List &nexuses, Match match, Fn fn)
{
	for (Nexus *nexus : nexuses) {
		for (Channel *ch : nexus->channels) {
			if (match(ch))
				fn(*nexus, ch);
		}
	}
}

/* Sums the listed channels @match accepts into @total; returns how many. */
template <typename List, typename Match>
u64 sum_channels(List &nexuses, Match match, Counters &total, u64 *credits, u64 *depth)
{
	u64 n = 0;

	for_each_channel(nexuses, match, [&](Nexus &, Channel *ch) {
		n++;
		*depth += ch->io().fold_stats(total);
		*credits += static_cast<u64>(ktl::max(ch->io().credits().req_lim(), 0));
	});
	return n;
}

/* The channels of @tpg's sessions opened as @initiator (a node ACL). */
auto session_of(const Tpg *tpg, const char *initiator)
{
	return [=](Channel *ch) { return ch->tpg() == tpg && ktl::streq(ch->acl_name(), initiator); };
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

void Logins::count_reject(srp::RejectReason reason)
{
	const u32 i = static_cast<u32>(reason) - static_cast<u32>(srp::RejectReason::kUnableEstablishChannel);

	if (!KTL_WARN_ON(i >= kRejectReasons))
		rejects_[i].fetch_add(1, ktl::MemoryOrder::relaxed);
}

void Logins::format_stats(ktl::TextBuf &out)
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
		ktl::MutexGuard guard(mutex_);

		closed_.fold_into(total);
		channels = sum_channels(nexuses_, [](Channel *) { return true; }, total, &credits,
					&depth);
	}
	format_live(channels, total, credits, depth, out);
}

void Logins::format_session_stats(const Tpg *tpg, const char *initiator, ktl::TextBuf &out)
{
	Counters total;
	u64 credits = 0, depth = 0, channels;
	{
		ktl::MutexGuard guard(mutex_);

		channels = sum_channels(nexuses_, session_of(tpg, initiator), total, &credits, &depth);
	}
	format_live(channels, total, credits, depth, out);
}

namespace {

/* rtslib's words for a channel's state (iSCSI's connection states). */
const char *conn_state_name(ChState s)
{
	switch (s) {
	case ChState::kConnecting:
		return "TARG_CONN_STATE_IN_LOGIN";
	case ChState::kLive:
		return "TARG_CONN_STATE_LOGGED_IN";
	case ChState::kDisconnecting:
		return "TARG_CONN_STATE_IN_LOGOUT";
	case ChState::kDraining:
	case ChState::kDisconnected:
		break;
	}
	return "TARG_CONN_STATE_CLEANUP_WAIT";
}

} // namespace

/*
 * rtslib (targetcli sessions) parses this as it parses iSCSI's: the
 * "InitiatorName:" line starts a session, "LIO Session ID: N ...
 * SessionType: T", "..._STATE_X" lines give the states, "CID: N" a
 * connection and the "Address A T" line after it its address and
 * transport. All channels of the ACL are one session to it: the first
 * nexus's id names them; the initiator port id is the alias.
 */
void Logins::format_session_info(const Tpg *tpg, const char *initiator, ktl::TextBuf &out)
{
	ktl::MutexGuard guard(mutex_);
	const auto match = session_of(tpg, initiator);
	const Nexus *first = nullptr;
	bool live = false, opening = false;

	for_each_channel(nexuses_, match, [&](Nexus &n, Channel *ch) {
		if (!first)
			first = &n;
		live |= ch->state() == ChState::kLive;
		opening |= ch->state() == ChState::kConnecting;
	});
	if (!first) {
		out.put("No active SRP session for initiator ").put(initiator).put('\n');
		return;
	}

	GidName alias;

	format_gid_name(first->i_port_id, &alias);
	out.put("InitiatorName: ").put(initiator).put('\n');
	out.put("InitiatorAlias: ").put(alias.c_str()).put('\n');
	out.put("LIO Session ID: ").dec(first->id).put("   SessionType: Normal\n");
	out.put("Session State: TARG_SESS_STATE_")
		.put(live ? "LOGGED_IN" : opening ? "ACTIVE" : "FAILED")
		.put('\n');
	out.put("[Channel List]\n");
	for_each_channel(nexuses_, match, [&](Nexus &, Channel *ch) {
		out.put("CID: ").dec(ch->cid).put("  Connection State: ").put(conn_state_name(ch->state()))
			.put('\n');
		out.put("   Address ").put(ch->name()).put(ch->cm() == SRPT_CM_IB ? " IB/CM" : " RDMA/CM")
			.put('\n');
	});
}

void format_tport_stats(const TargetPort &tport, ktl::TextBuf &out)
{
	tport.port()->logins().format_stats(out);
}

void format_acl_stats(const Tpg &tpg, const char *initiator, ktl::TextBuf &out)
{
	tpg.tport()->port()->logins().format_session_stats(&tpg, initiator, out);
}

void format_acl_info(const Tpg &tpg, const char *initiator, ktl::TextBuf &out)
{
	tpg.tport()->port()->logins().format_session_info(&tpg, initiator, out);
}

} // namespace srpt
