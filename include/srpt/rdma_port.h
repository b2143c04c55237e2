/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * An RDMA port: one physical port of a device, as the IB side sees it
 * (its cached identity, device management, async events), with its
 * target ports and attributes (PortTargets) and its logins (Logins).
 *
 * An RdmaPort is reference counted. Its device holds one reference while the
 * device exists; srpt_lookup_port() hands out more (a targetcli port holds
 * one for its lifetime). When the device goes away the port is detached:
 * it stays valid memory for whoever still holds a reference, but it no
 * longer reaches any kernel object.
 */
#pragma once

#include <ktl/lock.h>
#include <ktl/refptr.h>
#include <srpt/abi.h>
#include <srpt/logins.h>
#include <srpt/port_name.h>
#include <srpt/port_targets.h>
#include <srpt/types.h>

namespace srpt {

class Device;

/* IB_DEVICE_NAME_MAX is 64. */
using DeviceName = ktl::StrBuf<64>;

/* What a refresh caches about the port. */
struct PortCache {
	u32 lid = 0;
	u32 sm_lid = 0;
	Gid gid;
	GuidName guid_name;
	GidName gid_name;
	bool link_ib = false;
	bool iwarp = false;
	bool ib_cm = false;	/* InfiniBand and RoCE ports */
	bool valid = false;	/* at least one refresh succeeded */
};

class RdmaPort : public ktl::RefCounted<RdmaPort> {
public:
	RdmaPort(Device *dev, srpt_os_device *os, const char *dev_name, u32 num);
	~RdmaPort();

	u32 num() const { return num_; }
	/* The device name as it was when the port was created; for logs. */
	const char *dev_name() const { return dev_name_.c_str(); }

	/*
	 * srpt_refresh_port(): query, cache, enable device management and
	 * register the MAD agent once. Sleeps. Returns 0 or the query error.
	 */
	[[nodiscard]] int refresh();

	/* An asynchronous event for this port; any context. */
	void on_event(int event);	/* enum srpt_ib_event */

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

	/* Its target ports and attributes (LIO side). */
	PortTargets &targets() { return targets_; }
	/* Its nexuses and channels. */
	Logins &logins() { return logins_; }
	/*
	 * Switches use_srq: logs the port's initiators out around the
	 * change, and creates or puts the device's SRQ.
	 */
	[[nodiscard]] int set_use_srq(bool use_srq);


private:
	static void refresh_work_fn(void *arg);
	void log(int level, const char *what, int err) const;

	ktl::Atomic<Device *> device_;
	srpt_os_device *os_ KTL_GUARDED_BY(dev_mutex_);
	DeviceName dev_name_;			/* immutable */
	const u32 num_;

	ktl::Guarded<PortCache, ktl::SpinLock> cache_;

	/* Serialises refresh, stop/detach and use_srq switches. */
	mutable ktl::Mutex dev_mutex_;
	bool mad_registered_ KTL_GUARDED_BY(dev_mutex_) = false;
	bool stopped_ KTL_GUARDED_BY(dev_mutex_) = false;

	srpt_os_work refresh_work_;

	PortTargets targets_;
	Logins logins_;
};

} // namespace srpt
