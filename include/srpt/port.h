/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * A target port: one physical port of an RDMA device.
 *
 * A Port is reference counted. Its device holds one reference while the
 * device exists; srpt_lookup_port() hands out more (a targetcli port holds
 * one for its lifetime). When the device goes away the port is detached:
 * it stays valid memory for whoever still holds a reference, but it no
 * longer reaches any kernel object.
 */
#pragma once

#include <ktl/list.h>
#include <ktl/lock.h>
#include <ktl/refptr.h>
#include <ktl/types.h>
#include <srpt/abi.h>
#include <srpt/channel.h>
#include <srpt/port_name.h>
#include <srpt/srp.h>
#include <srpt/stats.h>

namespace srpt {

class Device;
class TPort;
class Tpg;

using ktl::u32;
/* IB_DEVICE_NAME_MAX is 64. */
using DeviceName = ktl::StrBuf<64>;

/* Port attributes, set through any TPG of the port (configfs "attrib"). */
struct PortAttrib {
	static constexpr u32 kMinMaxRdmaSize = 65536;
	static constexpr u32 kMaxMaxRdmaSize = 1u << 24;
	static constexpr u32 kMinMaxRspSize = 40;	/* SRP_RSP (36) + 4 */
	static constexpr u32 kMaxMaxRspSize = 1024;
	static constexpr u32 kMinSqSize = 4;
	static constexpr u32 kMaxSqSize = 65535;

	u32 srp_max_rdma_size = 65536;
	u32 srp_max_rsp_size = 256;
	u32 srp_sq_size = 4096;
	bool use_srq = false;
};

/* What a refresh caches about the port. */
struct PortCache {
	u32 lid = 0;
	u32 sm_lid = 0;
	Gid gid;
	GuidName guid_name;
	GidName gid_name;
	bool link_ib = false;
	bool iwarp = false;
	bool valid = false;	/* at least one refresh succeeded */
};

class Port : public ktl::RefCounted<Port> {
public:
	Port(Device *dev, srpt_os_device *os, const char *dev_name, u32 num);
	~Port();

	u32 num() const { return num_; }
	/* The device name as it was when the port was created; for logs. */
	const char *dev_name() const { return dev_name_.c_str(); }

	/*
	 * srpt_refresh_port(): query, cache, enable device management and
	 * register the MAD agent once. Sleeps. Returns 0 or the query error.
	 */
	[[nodiscard]] int refresh();

	/* An asynchronous event for this port; any context. */
	void on_event(srpt_port_event ev, int raw_event);

	/*
	 * Device removal, first step: no refresh runs or starts afterwards,
	 * the MAD agent is gone and device management is disabled again.
	 */
	void stop();
	/* Device removal, last step: forget the device. */
	void detach();

	PortCache cache() const;
	bool mad_registered() const;
	/* The device, or nullptr once detached. Only valid under the device
	 * registry's protection (see registry.h) or from device callbacks. */
	Device *device() const { return device_.load(ktl::MemoryOrder::acquire); }

	/*
	 * LIO side. A port has at most one target port per name form
	 * (kind); attach returns -kEEXIST when that form is taken.
	 */
	[[nodiscard]] int attach_tport(srpt_port_id_kind kind, TPort *tport);
	void detach_tport(srpt_port_id_kind kind, TPort *tport);
	PortAttrib attrib() const;
	void set_attrib(const PortAttrib &a);
	/*
	 * Read-modify-write of the attributes in one critical section, so
	 * that concurrent stores of different attributes (configfs serialises
	 * only per file) are all kept.
	 */
	template <typename Fn> void update_attrib(Fn fn)
	{
		ktl::MutexGuard guard(target_mutex_);
		fn(attrib_);
	}
	/*
	 * @fn(the target port of @kind, or nullptr) under the target mutex,
	 * so that the target port cannot go (rmdir) while @fn uses it.
	 */
	template <typename Fn> bool with_tport(srpt_port_id_kind kind, Fn fn)
	{
		ktl::MutexGuard guard(target_mutex_);
		return fn(tports_[tport_slot(kind)]);
	}

	/*
	 * Channels (channels.cpp). The channel mutex serialises logins with
	 * TPG enable/disable, session closes and channel list changes.
	 */
	ktl::Mutex &channel_mutex() { return ch_mutex_; }
	/* Enables or disables @tpg; disabling logs its initiators out first. */
	[[nodiscard]] int set_tpg_enabled(Tpg *tpg, bool enable);
	/* Whether a login may proceed now; under channel_mutex(). */
	bool accepting_logins_locked() const;
	/* Adds @ch to its I_T nexus; under channel_mutex(). */
	[[nodiscard]] int add_channel_locked(Channel *ch, bool multichannel, u8 *rsp_flags);
	void remove_channel(Channel *ch);
	/* Logs out every channel (of @tpg, or all) and waits until released. */
	void close_channels(const Tpg *tpg, const char *why);
	/* srpt_release_sport: no more logins, every channel gone. */
	void release_channels();
	/* Switches use_srq: logs the port's initiators out around the change. */
	[[nodiscard]] int set_use_srq(bool use_srq);
	u32 channel_count() const;
	bool enabled() const;

	/* Statistics (stats.cpp). */
	void count_login() { logins_.fetch_add(1, ktl::MemoryOrder::relaxed); }
	void count_reject(srp::RejectReason reason);
	/* A channel goes: its counts join the port's totals. */
	void fold_channel(const Channel &ch);
	/* The port's statistics, for the target port's configfs file. */
	void format_stats(ktl::TextBuf &out);
	/* The statistics of the sessions of @tpg opened as @initiator (a node ACL). */
	void format_session_stats(const Tpg *tpg, const char *initiator, ktl::TextBuf &out);

	static int live_count_for_test();

private:
	static int tport_slot(srpt_port_id_kind kind) { return kind == SRPT_PORT_ID_GUID ? 0 : 1; }
	static void refresh_work_fn(void *arg);
	void log(int level, const char *what, int err) const;

	ktl::Atomic<Device *> device_;
	srpt_os_device *os_;			/* guarded by dev_mutex_ */
	DeviceName dev_name_;			/* immutable */
	const u32 num_;

	mutable ktl::SpinLock cache_lock_;
	PortCache cache_;			/* guarded by cache_lock_ */

	/* Serialises refresh, stop/detach and use_srq switches. */
	mutable ktl::Mutex dev_mutex_;
	bool mad_registered_ = false;		/* guarded by dev_mutex_ */
	bool stopped_ = false;			/* guarded by dev_mutex_ */

	srpt_os_work refresh_work_;

	mutable ktl::Mutex target_mutex_;
	TPort *tports_[2] = {};			/* guarded by target_mutex_ */
	PortAttrib attrib_;			/* guarded by target_mutex_ */

	mutable ktl::Mutex ch_mutex_;
	ktl::List<Nexus, &Nexus::port_node> nexuses_;	/* guarded by ch_mutex_ */
	u32 enabled_tpgs_ = 0;			/* guarded by ch_mutex_ */
	u32 channels_ = 0;			/* guarded by ch_mutex_ */
	u32 login_blockers_ = 0;		/* guarded by ch_mutex_ */

	ktl::Atomic<u64> logins_{0};
	ktl::Atomic<u64> logouts_{0};
	static constexpr int kRejectReasons = 7;
	ktl::Atomic<u64> rejects_[kRejectReasons];
	Counters closed_;			/* of the channels that went */
};

} // namespace srpt
