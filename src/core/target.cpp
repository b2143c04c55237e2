// SPDX-License-Identifier: GPL-2.0-only
/*
 * Target ports and TPGs: the core side of srpt_make_tport/drop_tport and
 * srpt_make_tpg/drop_tpg, and node ACL name validation.
 */
#include <ktl/errno.h>
#include <ktl/new.h>
#include <srpt/handles.h>
#include <srpt/initiator_id.h>
#include <srpt/live.h>
#include <srpt/port_name.h>
#include <srpt/registry.h>
#include <srpt/target.h>

namespace srpt {
TargetPort::TargetPort(ktl::RefPtr<RdmaPort> port, PortNameKind kind, srpt_os_tport *os)
	: port_(ktl::move(port)), kind_(kind), os_(os)
{
	const PortCache c = port_->cache();

	if (kind_ == PortNameKind::kGuid)
		name_.put(c.guid_name.c_str());
	else
		name_.put(c.gid_name.c_str());
	KTL_LOCK_INIT(tpgs_mutex_);
	live_inc(Live::kTPort);
}

TargetPort::~TargetPort()
{
	/* configfs removes TPG directories before their WWN directory. */
	KTL_WARN_ON(!tpgs_.empty());
	tpgs_mutex_.destroy();
	live_dec(Live::kTPort);
}

/*
 * rtslib (targetcli, saveconfig, targetctl) reads only names of the form
 * 0x and 32 hex digits (its "ib." ones): any other name makes it fail
 * while the object exists. The module takes them, as the in-tree target
 * does; the administrator is told what that costs.
 */
namespace {

void warn_rtslib_name(const char *what, const char *name)
{
	srpt_os_log(SRPT_LOG_WARN,
		    "%s %.64s: targetcli and rtslib cannot read this name: 'targetcli ls' and saveconfig stop working while it exists; name it 0x and 32 hex digits (targetcli: ib. and 32 hex digits)\n",
		    what, name);
}

} // namespace

int TargetPort::create(const char *name, srpt_os_tport *os, TargetPort **out)
{
	PortLookup found = lookup_port(name);
	ktl::AllocChecker ac;

	if (!found.port) {
		srpt_os_log(SRPT_LOG_ERR,
			    "no RDMA port is named '%.64s' (expected xxxx:xxxx:xxxx:xxxx or 0x followed by 32 hex digits)\n",
			    name);
		return -ktl::kEINVAL;
	}
	TargetPort *t = new (&ac) TargetPort(ktl::move(found.port), found.kind, os);
	if (!ac.check())
		return -ktl::kENOMEM;

	const int ret = t->port_->targets().attach(t->kind_, t);
	if (ret) {
		srpt_os_log(SRPT_LOG_ERR, "%s port %u: target port %s already exists\n",
			    t->port_->dev_name(), t->port_->num(), t->name());
		delete t;
		return ret;
	}
	srpt_os_log(SRPT_LOG_INFO, "%s port %u: created target port %s\n", t->port_->dev_name(),
		    t->port_->num(), t->name());
	if (t->kind_ == PortNameKind::kGuid)
		warn_rtslib_name("target port", t->name());
	*out = t;
	return 0;
}

void TargetPort::destroy()
{
	port_->targets().detach(kind_, this);
	srpt_os_log(SRPT_LOG_INFO, "%s port %u: removed target port %s\n", port_->dev_name(),
		    port_->num(), name());
	delete this;
}

Tpg::Tpg(TargetPort *tport, srpt_os_tpg *os) : tport_(tport), os_(os)
{
	live_inc(Live::kTpg);
}

Tpg::~Tpg()
{
	live_dec(Live::kTpg);
}

int Tpg::create(TargetPort *tport, srpt_os_tpg *os, Tpg **out)
{
	ktl::AllocChecker ac;
	Tpg *tpg = new (&ac) Tpg(tport, os);

	if (!ac.check())
		return -ktl::kENOMEM;
	ktl::MutexGuard guard(tport->tpgs_mutex_);
	tport->tpgs_.push_back(tpg);
	*out = tpg;
	return 0;
}

void Tpg::destroy()
{
	/* Log the initiators out before LIO forgets the TPG. */
	(void)enable(false);
	{
		ktl::MutexGuard guard(tport_->tpgs_mutex_);
		tport_->tpgs_.erase(this);
	}
	delete this;
}

int Tpg::enable(bool enable)
{
	return tport_->port()->logins().set_tpg_enabled(this, enable);
}

bool Tpg::enabled() const
{
	return enabled_.load();
}

int check_acl_name(const char *name)
{
	InitiatorIdKind kind;
	const ktl::size_t len = ktl::strnlen(name, 256);

	if (parse_initiator_id(ktl::Span<const char>(name, len), &kind)) {
		srpt_os_log(SRPT_LOG_ERR,
			    "invalid initiator port ID '%.64s': expected a GUID (xxxx:xxxx:xxxx:xxxx), up to 32 hex digits (optionally 0x-prefixed, even count), or an IPv4/IPv6 address\n",
			    name);
		return -ktl::kEINVAL;
	}
	/* What rtslib reads is the GID form of a port name: 0x and 32 hex digits. */
	ParsedPortName as_gid;
	if (parse_port_name(ktl::Span<const char>(name, len), &as_gid) ||
	    as_gid.kind != PortNameKind::kGid)
		warn_rtslib_name("node ACL", name);
	return 0;
}

} // namespace srpt
