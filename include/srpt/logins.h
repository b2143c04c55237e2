/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The logins of an RDMA port: its I_T nexuses and their channels, the
 * multichannel rules, which TPGs admit logins, logging initiators out
 * (TPG disabled, use_srq switched, device removed) and the port's login
 * statistics. One mutex guards it all; it is the mutex a login holds
 * while it decides (see include/srpt/locking.h).
 */
#pragma once

#include <ktl/list.h>
#include <ktl/lock.h>
#include <ktl/owned.h>
#include <ktl/string.h>
#include <ktl/types.h>
#include <srpt/channel.h>
#include <srpt/srp.h>
#include <srpt/stats.h>

namespace srpt {

class RdmaPort;
class TargetPort;
class Tpg;

/*
 * The I_T nexus: the channels between one initiator port and one target
 * port. Reached only through Logins::nexuses_, under its mutex, which
 * guards channels and next_cid too (unchecked: a Nexus cannot name it).
 */
struct Nexus {
	Nexus() { live_inc(Live::kNexus); }
	~Nexus() { live_dec(Live::kNexus); }
	Nexus(const Nexus &) = delete;
	Nexus &operator=(const Nexus &) = delete;

	u8 i_port_id[16] = {};
	u8 t_port_id[16] = {};
	u32 id = 0;			/* its LIO session id in the ACL's info file */
	u32 next_cid = 0;		/* the number its next channel gets */
	ktl::List<Channel, &Channel::nexus_node> channels;
	ktl::ListNode port_node;	/* on Logins::nexuses_ */
};

void free_nexus(Nexus *n);
/* A nexus made ahead, for a login that may need it (Logins::add_channel_locked()). */
using SpareNexus = ktl::Owned<Nexus, free_nexus>;

class Logins {
public:
	explicit Logins(RdmaPort &port);
	~Logins();
	Logins(const Logins &) = delete;
	Logins &operator=(const Logins &) = delete;

	/* Serialises logins with TPG enable/disable, session closes and channel list changes. */
	ktl::Mutex &mutex() KTL_RETURN_CAPABILITY(mutex_) { return mutex_; }
	/* Whether a login may proceed now; under mutex(). */
	bool accepting_locked() const KTL_REQUIRES(mutex_);
	/*
	 * A nexus for a login to bring to add_channel_locked(), made before
	 * its LIO session opens; empty when memory is short.
	 */
	[[nodiscard]] static SpareNexus make_spare();
	/*
	 * Adds @ch to its I_T nexus (multichannel rules); under mutex(). It
	 * cannot fail, for it runs once the channel's LIO session is on its
	 * ACL's list, where an rmdir may close it: the first channel of a
	 * nexus takes @spare, which must not be empty.
	 */
	void add_channel_locked(Channel *ch, bool multichannel, SpareNexus &spare, u8 *rsp_flags)
		KTL_REQUIRES(mutex_);
	/* A released channel leaves; its counts join the port's totals. */
	void remove_channel(Channel *ch);

	/* Enables or disables @tpg; disabling logs its initiators out first. */
	[[nodiscard]] int set_tpg_enabled(Tpg *tpg, bool enable);
	/* Logs out every channel (of @tpg, or all) and waits until released. */
	void close_channels(const Tpg *tpg, const char *why);
	/* No logins from now on until unblock(); for good when the device goes. */
	void block();
	void unblock();
	u32 channel_count() const;
	/* Whether a TPG of the port is enabled. */
	bool enabled() const;

	void count_login() { logins_.fetch_add(1, ktl::MemoryOrder::relaxed); }
	void count_reject(srp::RejectReason reason);
	/* The port's statistics, for the target port's configfs file. */
	void format_stats(ktl::TextBuf &out);
	/* The statistics of the sessions of @tpg opened as @initiator (a node ACL). */
	void format_session_stats(const Tpg *tpg, const char *initiator, ktl::TextBuf &out);
	/* Those sessions and their channels, in the iSCSI "info" format rtslib reads. */
	void format_session_info(const Tpg *tpg, const char *initiator, ktl::TextBuf &out);

private:
	Nexus *find_nexus_locked(const u8 i_port_id[16], const u8 t_port_id[16]) KTL_REQUIRES(mutex_);

	RdmaPort &port_;
	mutable ktl::Mutex mutex_;
	ktl::List<Nexus, &Nexus::port_node> nexuses_ KTL_GUARDED_BY(mutex_);
	u32 enabled_tpgs_ KTL_GUARDED_BY(mutex_) = 0;
	u32 channels_ KTL_GUARDED_BY(mutex_) = 0;
	u32 blockers_ KTL_GUARDED_BY(mutex_) = 0;

	ktl::Atomic<u64> logins_{0};
	ktl::Atomic<u64> logouts_{0};
	static constexpr int kRejectReasons = 7;
	ktl::Atomic<u64> rejects_[kRejectReasons];
	Counters closed_ KTL_GUARDED_BY(mutex_);	/* of the channels that went */
};

/* configfs: a target port's statistics; a node ACL's session statistics and info. */
void format_tport_stats(const TargetPort &tport, ktl::TextBuf &out);
void format_acl_stats(const Tpg &tpg, const char *initiator, ktl::TextBuf &out);
void format_acl_info(const Tpg &tpg, const char *initiator, ktl::TextBuf &out);

} // namespace srpt
