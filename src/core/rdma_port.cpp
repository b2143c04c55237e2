// SPDX-License-Identifier: GPL-2.0-only
/*
 * RDMA ports: refresh (srpt_refresh_port), async events, use_srq
 * switches, and the orderly stop and detach when the device goes away.
 */
#include <ktl/errno.h>
#include <srpt/device.h>
#include <srpt/handles.h>
#include <srpt/live.h>
#include <srpt/rdma_port.h>

namespace srpt {
RdmaPort::RdmaPort(Device *dev, srpt_os_device *os, const char *dev_name, u32 num)
	: device_(dev), os_(os), num_(num), logins_(*this)
{
	dev_name_.put(dev_name);
	KTL_LOCK_INIT(cache_);
	KTL_LOCK_INIT(dev_mutex_);
	KTL_WORK_INIT(refresh_work_, refresh_work_fn, this);
	live_inc(Live::kPort);
}

RdmaPort::~RdmaPort()
{
	KTL_WARN_ON(mad_registered_);
	dev_mutex_.destroy();
	live_dec(Live::kPort);
}

void RdmaPort::log(int level, const char *what, int err) const
{
	if (err)
		srpt_os_log(level, "%s port %u: %s (%pe)\n", dev_name(), num_, what, ktl::err_arg(err));
	else
		srpt_os_log(level, "%s port %u: %s\n", dev_name(), num_, what);
}

int RdmaPort::refresh()
{
	ktl::MutexGuard guard(dev_mutex_);
	srpt_port_attr attr{};
	PortCache c;
	bool gid_changed;
	int ret;

	if (stopped_)
		return -ktl::kENODEV;

	ret = srpt_os_port_query(os_, num_, &attr);
	if (ret) {
		log(SRPT_LOG_ERR, "querying the port failed", ret);
		return ret;
	}
	c.lid = attr.lid;
	c.sm_lid = attr.sm_lid;
	__builtin_memcpy(c.gid.raw, attr.gid, sizeof(c.gid.raw));
	format_guid_name(c.gid, &c.guid_name);
	format_gid_name(c.gid, &c.gid_name);
	c.link_ib = attr.link_ib != 0;
	c.iwarp = attr.iwarp != 0;
	c.ib_cm = attr.ib_cm != 0;
	c.valid = true;
	gid_changed = cache_.with([&c](PortCache &cache) {
		const bool changed = !cache.valid || !(cache.gid == c.gid);

		cache = c;
		return changed;
	});
	if (gid_changed)
		srpt_os_log(SRPT_LOG_INFO, "%s port %u: target port names %s and %s (%s)\n",
			    dev_name(), num_, c.guid_name.c_str(), c.gid_name.c_str(),
			    c.iwarp ? "iWARP" : c.link_ib ? "InfiniBand" : "RoCE");

	/* iWARP has no InfiniBand management: nothing more to set up. */
	if (c.iwarp)
		return 0;

	ret = srpt_os_port_set_devmgmt(os_, num_, 1);
	if (ret) {
		log(SRPT_LOG_WARN,
		    "enabling device management failed, continuing without device management MADs; expected with SR-IOV",
		    ret);
		return 0;
	}
	if (mad_registered_)
		return 0;

	ret = srpt_os_mad_agent_register(os_, num_, to_handle<srpt_port>(this));
	if (ret) {
		log(SRPT_LOG_ERR,
		    "registering the device management MAD agent failed, continuing without it; expected with SR-IOV",
		    ret);
		if (srpt_os_port_set_devmgmt(os_, num_, 0))
			log(SRPT_LOG_WARN, "clearing the device management capability failed", 0);
		return 0;
	}
	mad_registered_ = true;
	return 0;
}

void RdmaPort::refresh_work_fn(void *arg)
{
	RdmaPort *port = static_cast<RdmaPort *>(arg);

	/* Errors are logged by refresh(); a stopped port is not an error. */
	(void)port->refresh();
}

void RdmaPort::on_event(int event)
{
	switch (event) {
	case SRPT_IB_EVENT_PORT_ERR:
		cache_.with([](PortCache &cache) {
			cache.lid = 0;
			cache.sm_lid = 0;
		});
		break;
	case SRPT_IB_EVENT_PORT_ACTIVE:
	case SRPT_IB_EVENT_LID_CHANGE:
	case SRPT_IB_EVENT_PKEY_CHANGE:
	case SRPT_IB_EVENT_SM_CHANGE:
	case SRPT_IB_EVENT_CLIENT_REREGISTER:
	case SRPT_IB_EVENT_GID_CHANGE:
		/* Querying the port sleeps: refresh in process context. */
		srpt_os_work_schedule(&refresh_work_);
		break;
	default:
		srpt_os_log(SRPT_LOG_DEBUG, "%s port %u: ignoring async event %s\n", dev_name(),
			    num_, srpt_os_ib_event_msg(event));
		break;
	}
}

void RdmaPort::stop()
{
	{
		ktl::MutexGuard guard(dev_mutex_);
		stopped_ = true;
	}
	/* Not under dev_mutex_: the work takes it. */
	srpt_os_work_cancel_sync(&refresh_work_);

	ktl::MutexGuard guard(dev_mutex_);
	if (!mad_registered_)
		return;
	if (srpt_os_port_set_devmgmt(os_, num_, 0))
		log(SRPT_LOG_WARN, "clearing the device management capability failed", 0);
	srpt_os_mad_agent_unregister(os_, num_);
	mad_registered_ = false;
}

void RdmaPort::detach()
{
	ktl::MutexGuard guard(dev_mutex_);

	KTL_WARN_ON(!stopped_);
	device_.store(nullptr, ktl::MemoryOrder::release);
	os_ = nullptr;
}

PortCache RdmaPort::cache() const
{
	return cache_.with([](const PortCache &cache) { return cache; });
}

bool RdmaPort::mad_registered() const
{
	ktl::MutexGuard guard(dev_mutex_);

	return mad_registered_;
}

int RdmaPort::set_use_srq(bool use_srq)
{
	ktl::MutexGuard dev_guard(dev_mutex_);
	int ret = 0;

	if (targets_.attrib().use_srq == use_srq)
		return 0;
	/* A detached port only remembers the setting. */
	if (!stopped_) {
		logins_.block();
		logins_.close_channels(nullptr, "use_srq changed");
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
		targets_.update_attrib([use_srq](PortAttrib &x) { x.use_srq = use_srq; });
	if (!stopped_)
		logins_.unblock();
	return ret;
}

} // namespace srpt

using srpt::RdmaPort;
using srpt::from_handle;

