/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * An RDMA device as the core sees it: identity attributes and one RdmaPort
 * per physical port. Owned by the shim's IB client between
 * srpt_core_device_add() and srpt_core_device_remove().
 */
#pragma once

#include <ktl/list.h>
#include <ktl/refptr.h>
#include <ktl/types.h>
#include <ktl/lock.h>
#include <srpt/abi.h>
#include <srpt/recv_ctx.h>
#include <srpt/qp_size.h>
#include <srpt/rdma_port.h>

namespace srpt {

struct DeviceAttrs {
	DeviceName name;
	ktl::u64 node_guid = 0;
	u32 port_count = 0;
	u32 vendor_id = 0;
	u32 vendor_part_id = 0;
	u32 hw_ver = 0;
	u32 max_qp_wr = 0;
	u32 max_srq_wr = 0;
	u32 max_send_sge = 0;
	u32 max_qp_rd_atom = 0;
	u32 max_qp_init_rd_atom = 0;
};

class Device {
public:
	/* The most ports a device may have; more is a malformed device. */
	static constexpr u32 kMaxPorts = 64;

	/*
	 * Creates the device and its ports, refreshes every port, publishes
	 * the device for lookups and to the shim (*out, which the shim's
	 * event handler reads) and only then starts async events.
	 */
	[[nodiscard]] static int create(srpt_os_device *os, const srpt_device_info &info,
					srpt_device **out);
	/* Tears everything down in the reverse order and deletes the device. */
	void remove();
	/* An async event (enum ib_event_type) of port @port_num; any context. */
	void on_port_event(u32 port_num, int event);

	const DeviceAttrs &attrs() const { return attrs_; }
	const char *name() const { return attrs_.name.c_str(); }
	srpt_os_device *os() const { return os_; }

	/*
	 * Receive queue depth a channel gets: the SRQ's size with use_srq,
	 * else a per-channel ring bounded by the device.
	 */
	u32 recv_queue_depth(bool use_srq) const;

	/* 1-based; nullptr when out of range. */
	RdmaPort *port(u32 num) const;

	/*
	 * The shared receive queue, created for the first port that sets
	 * use_srq and destroyed when the last hold goes (or the device):
	 * each such port holds it, and so does each channel whose QP uses it
	 * (SrqHold), until that QP is destroyed.
	 */
	[[nodiscard]] int srq_get();
	/* A hold on the SRQ that exists; false when there is none. */
	[[nodiscard]] bool srq_hold();
	void srq_put();

	ktl::ListNode registry_node;

private:
	Device(srpt_os_device *os, const srpt_device_info &info);
	~Device();
	[[nodiscard]] int create_ports();
	[[nodiscard]] int srq_create() KTL_REQUIRES(srq_mutex_);
	void srq_destroy() KTL_REQUIRES(srq_mutex_);

	srpt_os_device *const os_;
	DeviceAttrs attrs_;
	ktl::RefPtr<RdmaPort> *ports_ = nullptr;	/* attrs_.port_count entries */

	ktl::Mutex srq_mutex_;
	u32 srq_users_ KTL_GUARDED_BY(srq_mutex_) = 0;
	u32 srq_size_ KTL_GUARDED_BY(srq_mutex_) = 0;
	RecvCtx *srq_ring_ KTL_GUARDED_BY(srq_mutex_) = nullptr;
};

} // namespace srpt
