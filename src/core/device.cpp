// SPDX-License-Identifier: GPL-2.0-only
/* RDMA devices: bring-up of their ports and orderly removal. */
#include <ktl/errno.h>
#include <ktl/new.h>
#include <srpt/device.h>
#include <srpt/handles.h>
#include <srpt/live.h>
#include <srpt/params.h>
#include <srpt/registry.h>
#include <srpt/srq_hold.h>

namespace srpt {

Device::Device(srpt_os_device *os, const srpt_device_info &info) : os_(os)
{
	attrs_.name.put(info.name);
	attrs_.node_guid = info.node_guid;
	attrs_.port_count = info.port_count;
	attrs_.vendor_id = info.vendor_id;
	attrs_.vendor_part_id = info.vendor_part_id;
	attrs_.hw_ver = info.hw_ver;
	attrs_.max_qp_wr = info.max_qp_wr;
	attrs_.max_srq_wr = info.max_srq_wr;
	attrs_.max_send_sge = info.max_send_sge;
	attrs_.max_qp_rd_atom = info.max_qp_rd_atom;
	attrs_.max_qp_init_rd_atom = info.max_qp_init_rd_atom;
	KTL_LOCK_INIT(srq_mutex_);
	live_inc(Live::kDevice);
}

Device::~Device()
{
	KTL_WARN_ON(srq_ring_);
	srq_mutex_.destroy();
	delete[] ports_;
	live_dec(Live::kDevice);
}

RdmaPort *Device::port(u32 num) const
{
	if (num < 1 || num > attrs_.port_count || !ports_)
		return nullptr;
	return ports_[num - 1].get();
}

u32 Device::recv_queue_depth(bool use_srq) const
{
	if (use_srq)
		return ktl::min(srq_size(), attrs_.max_srq_wr);
	return ktl::min(kMaxChannelRecvDepth, attrs_.max_qp_wr - kDrainRecvWrs);
}

int Device::create_ports()
{
	ktl::AllocChecker ac;

	ports_ = new (&ac) ktl::RefPtr<RdmaPort>[attrs_.port_count];
	if (!ac.check())
		return -ktl::kENOMEM;
	for (u32 i = 0; i < attrs_.port_count; i++) {
		RdmaPort *p = new (&ac) RdmaPort(this, os_, name(), i + 1);

		if (!ac.check())
			return -ktl::kENOMEM;
		ports_[i] = ktl::AdoptRef(p);
	}
	return 0;
}

int Device::create(srpt_os_device *os, const srpt_device_info &info, srpt_device **out)
{
	ktl::AllocChecker ac;
	int ret;

	if (!info.name || info.port_count < 1 || info.port_count > kMaxPorts) {
		srpt_os_log(SRPT_LOG_ERR, "%s: unsupported port count %u\n",
			    info.name ? info.name : "?", info.port_count);
		return -ktl::kEINVAL;
	}
	if (info.max_qp_wr < kMinDeviceQpWr || !info.max_send_sge) {
		srpt_os_log(SRPT_LOG_ERR,
			    "%s: not used: queue pairs of %u work requests with %u scatter/gather entries are too small\n",
			    info.name, info.max_qp_wr, info.max_send_sge);
		return -ktl::kEINVAL;
	}
	Device *dev = new (&ac) Device(os, info);
	if (!ac.check())
		return -ktl::kENOMEM;

	ret = dev->create_ports();
	if (ret)
		goto fail;

	/* The in-tree target's rule: no service GUID given, the first device's. */
	adopt_service_guid(info.node_guid);

	for (u32 i = 1; i <= info.port_count; i++) {
		ret = dev->port(i)->refresh();
		if (ret)
			goto fail;
	}

	/*
	 * IB/CM logins wherever the port has IB/CM: InfiniBand and RoCE, the
	 * ports whose Device Management agent offers the service ID. ib_srp
	 * needs the SA's path records, which RoCE lacks, but an initiator
	 * that builds its RoCE path itself, as RDMA/CM does, logs in through
	 * the kernel's IB/CM (tests/ibcm).
	 */
	for (u32 i = 1; i <= info.port_count; i++) {
		const PortCache c = dev->port(i)->cache();

		if (c.ib_cm) {
			ret = srpt_os_ib_cm_listen(os, service_guid());
			if (ret)
				srpt_os_log(SRPT_LOG_ERR,
					    "%s: listening for IB/CM logins failed (%pe); RDMA/CM logins still work\n",
					    dev->name(), ktl::err_arg(ret));
			break;
		}
	}

	registry_add(dev);
	/* The shim's event handler finds the device through *out. */
	*out = to_handle<srpt_device>(dev);
	/* Only now that every port exists may events reach them. */
	srpt_os_device_events_start(os);
	srpt_os_log(SRPT_LOG_INFO, "%s: added, %u port%s, node GUID %016llx, service GUID %016llx\n",
		    dev->name(), info.port_count, info.port_count == 1 ? "" : "s",
		    static_cast<unsigned long long>(info.node_guid),
		    static_cast<unsigned long long>(service_guid()));
	return 0;

fail:
	srpt_os_log(SRPT_LOG_ERR, "%s: adding the device failed (%pe)\n", dev->name(), ktl::err_arg(ret));
	for (u32 i = 1; i <= info.port_count; i++) {
		if (RdmaPort *p = dev->port(i)) {
			p->stop();
			p->detach();
		}
	}
	delete dev;
	return ret;
}

void Device::remove()
{
	srpt_os_device_events_stop(os_);
	srpt_os_ib_cm_stop(os_);
	registry_remove(this);
	for (u32 i = 1; i <= attrs_.port_count; i++)
		port(i)->stop();
	/* srpt_release_sport: no more logins, every channel gone. */
	for (u32 i = 1; i <= attrs_.port_count; i++) {
		port(i)->logins().block();	/* for good: the device goes */
		port(i)->logins().close_channels(nullptr, "the RDMA device is going away");
	}
	{
		ktl::MutexGuard guard(srq_mutex_);
		if (srq_users_)
			srq_destroy();
		srq_users_ = 0;
	}
	for (u32 i = 1; i <= attrs_.port_count; i++)
		port(i)->detach();
	srpt_os_log(SRPT_LOG_INFO, "%s: removed\n", name());
	delete this;
}

int Device::srq_create()
{
	ktl::AllocChecker ac;
	const u32 size = recv_queue_depth(true);
	int ret;

	ret = srpt_os_srq_create(os_, size);
	if (ret) {
		srpt_os_log(SRPT_LOG_ERR, "%s: creating a shared receive queue of %u entries failed (%pe)\n",
			    name(), size, ktl::err_arg(ret));
		return ret;
	}
	srq_ring_ = new (&ac) RecvCtx[size];
	if (!ac.check()) {
		srpt_os_srq_destroy(os_);
		return -ktl::kENOMEM;
	}
	srq_size_ = size;
	for (u32 i = 0; i < size; i++) {
		RecvCtx &r = srq_ring_[i];
		void *iu;

		r.os.reset(srpt_os_recv_alloc(os_, to_handle<srpt_recv>(&r), max_req_size(), 0, &iu));
		if (!r.os) {
			ret = -ktl::kENOMEM;
			break;
		}
		r.iu = static_cast<ktl::u8 *>(iu);
		ret = srpt_os_recv_post(os_, nullptr, r.os.get());
		if (ret)
			break;
	}
	if (ret) {
		srpt_os_log(SRPT_LOG_ERR, "%s: filling the shared receive queue failed (%pe)\n", name(),
			    ktl::err_arg(ret));
		srq_destroy();
		return ret;
	}
	srpt_os_log(SRPT_LOG_INFO, "%s: shared receive queue of %u entries\n", name(), size);
	return 0;
}

void Device::srq_destroy()
{
	/* Destroying the SRQ discards what is posted on it. */
	srpt_os_srq_destroy(os_);
	delete[] srq_ring_;	/* the buffers free their kernel sides */
	srq_ring_ = nullptr;
	srq_size_ = 0;
}

int Device::srq_get()
{
	ktl::MutexGuard guard(srq_mutex_);

	if (srq_users_ == 0) {
		const int ret = srq_create();

		if (ret)
			return ret;
	}
	srq_users_++;
	return 0;
}

bool Device::srq_hold()
{
	ktl::MutexGuard guard(srq_mutex_);

	if (srq_users_ == 0)
		return false;
	srq_users_++;
	return true;
}

void Device::srq_put()
{
	ktl::MutexGuard guard(srq_mutex_);

	if (KTL_WARN_ON(srq_users_ == 0))
		return;
	if (--srq_users_ == 0)
		srq_destroy();
}

bool SrqHold::acquire(Device *dev)
{
	reset();
	if (!dev->srq_hold())
		return false;
	dev_ = dev;
	return true;
}

void SrqHold::reset()
{
	if (dev_)
		dev_->srq_put();
	dev_ = nullptr;
}

void Device::on_port_event(u32 port_num, int event)
{
	RdmaPort *p = port(port_num);

	if (!p) {
		srpt_os_log(SRPT_LOG_WARN, "%s: async event %s for nonexistent port %u\n", name(),
			    srpt_os_ib_event_msg(event), port_num);
		return;
	}
	p->on_event(event);
}

} // namespace srpt
