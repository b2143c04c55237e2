// SPDX-License-Identifier: GPL-2.0-only
/*
 * The channels of a port: I_T nexus bookkeeping, multichannel login
 * rules, TPG enable/disable, and logging initiators out when a TPG, the
 * port or the device goes away (srpt_release_sport).
 */
#include <ktl/errno.h>
#include <ktl/new.h>
#include <srpt/channel.h>
#include <srpt/device.h>
#include <srpt/port.h>
#include <srpt/srp.h>
#include <srpt/target.h>

namespace srpt {

int Port::set_tpg_enabled(Tpg *tpg, bool enable)
{
	{
		ktl::MutexGuard guard(ch_mutex_);

		if (tpg->enabled_.load() == enable)
			return 0;
		/*
		 * Not an error: targetcli enables every TPG it shows, and
		 * would fail every command over one orphaned target port.
		 */
		if (enable && !device())
			srpt_os_log(SRPT_LOG_WARN,
				    "%s port %u: %s enabled, but its RDMA device is gone: no initiator can log in to it\n",
				    dev_name(), num_, tpg->tport()->name());
		tpg->enabled_.store(enable);
		if (enable)
			enabled_tpgs_++;
		else
			enabled_tpgs_--;
	}
	srpt_os_log(SRPT_LOG_INFO, "%s port %u: target port %s %s\n", dev_name(), num_,
		    tpg->tport()->name(), enable ? "enabled" : "disabled");
	/* No login can pick the TPG any more: log out those that did. */
	if (!enable)
		close_channels(tpg, "its TPG was disabled");
	return 0;
}

bool Port::enabled() const
{
	ktl::MutexGuard guard(ch_mutex_);

	return enabled_tpgs_ > 0;
}

bool Port::accepting_logins_locked() const
{
	return enabled_tpgs_ > 0 && login_blockers_ == 0 && device();
}

u32 Port::channel_count() const
{
	ktl::MutexGuard guard(ch_mutex_);

	return channels_;
}

int Port::add_channel_locked(Channel *ch, bool multichannel, u8 *rsp_flags)
{
	const LoginRequest &req = ch->req_;
	Nexus *nexus = nullptr;

	for (Nexus *n : nexuses_) {
		if (__builtin_memcmp(n->i_port_id, req.initiator_port_id, 16) == 0 &&
		    __builtin_memcmp(n->t_port_id, req.target_port_id, 16) == 0) {
			nexus = n;
			break;
		}
	}
	if (!nexus) {
		ktl::AllocChecker ac;

		nexus = new (&ac) Nexus;
		if (!ac.check())
			return -ktl::kENOMEM;
		__builtin_memcpy(nexus->i_port_id, req.initiator_port_id, 16);
		__builtin_memcpy(nexus->t_port_id, req.target_port_id, 16);
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
				    dev_name(), num_, ch->name(), other->name());
			flags = srp::kLoginRspMultiChanTerminated;
		}
	}
	/* The list's reference, dropped at the end of the release work. */
	ch->add_ref();
	nexus->channels.push_back(ch);
	ch->nexus_ = nexus;
	channels_++;
	*rsp_flags = flags;
	return 0;
}

void Port::remove_channel(Channel *ch)
{
	ktl::MutexGuard guard(ch_mutex_);
	Nexus *nexus = ch->nexus_;

	if (KTL_WARN_ON(!nexus))
		return;
	nexus->channels.erase(ch);
	ch->nexus_ = nullptr;
	channels_--;
	/* Under the mutex: a reader sums the totals and the listed channels. */
	fold_channel(*ch);
	if (nexus->channels.empty()) {
		nexuses_.erase(nexus);
		delete nexus;
	}
}

void Port::close_channels(const Tpg *tpg, const char *why)
{
	for (;;) {
		ktl::RefPtr<Channel> victim;
		{
			ktl::MutexGuard guard(ch_mutex_);

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

void Port::release_channels()
{
	{
		ktl::MutexGuard guard(ch_mutex_);
		login_blockers_++;	/* for good: the device goes */
	}
	close_channels(nullptr, "the RDMA device is going away");
}

int Port::set_use_srq(bool use_srq)
{
	ktl::MutexGuard dev_guard(dev_mutex_);
	PortAttrib a = attrib();
	int ret = 0;

	if (a.use_srq == use_srq)
		return 0;
	/* A detached port only remembers the setting. */
	if (!stopped_) {
		{
			ktl::MutexGuard guard(ch_mutex_);
			login_blockers_++;
		}
		close_channels(nullptr, "use_srq changed");
		Device *dev = device();
		if (use_srq)
			ret = dev->srq_get();
		else
			dev->srq_put();	/* channels still using it hold it on */
	}
	/*
	 * Only use_srq: other attributes may have been stored meanwhile.
	 * Before logins resume, so that a login sees the new value when it
	 * checks (Channel::login).
	 */
	if (ret == 0)
		update_attrib([use_srq](PortAttrib &x) { x.use_srq = use_srq; });
	if (!stopped_) {
		ktl::MutexGuard guard(ch_mutex_);
		login_blockers_--;
	}
	return ret;
}

} // namespace srpt
