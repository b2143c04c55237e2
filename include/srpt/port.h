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

#include <ktl/lock.h>
#include <ktl/refptr.h>
#include <ktl/types.h>
#include <srpt/abi.h>
#include <srpt/port_name.h>

namespace srpt {

class Device;
class TPort;

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
	/* Counts enabled TPGs; logins are accepted while any is enabled. */
	void tpg_enabled(bool enabled);
	bool enabled() const;

	static int live_count_for_test();

private:
	static void refresh_work_fn(void *arg);
	void log(int level, const char *what, int err) const;

	ktl::Atomic<Device *> device_;
	srpt_os_device *os_;			/* guarded by refresh_mutex_ */
	DeviceName dev_name_;			/* immutable */
	const u32 num_;

	mutable ktl::SpinLock cache_lock_;
	PortCache cache_;			/* guarded by cache_lock_ */

	mutable ktl::Mutex refresh_mutex_;
	bool mad_registered_ = false;		/* guarded by refresh_mutex_ */
	bool stopped_ = false;			/* guarded by refresh_mutex_ */

	srpt_os_work refresh_work_;

	mutable ktl::Mutex target_mutex_;
	TPort *tports_[2] = {};			/* guarded by target_mutex_ */
	u32 enabled_tpgs_ = 0;			/* guarded by target_mutex_ */
	PortAttrib attrib_;			/* guarded by target_mutex_ */
};

} // namespace srpt
