// SPDX-License-Identifier: GPL-2.0-only
/*
 * The core-side half of the KUnit suites: C entry points into core
 * internals that the C ABI does not expose (see probe.h). Built by the
 * same C++ rule as the core; includes no kernel header.
 */
#include <ktl/errno.h>
#include <ktl/new.h>
#include <ktl/refptr.h>
#include <srpt/channel.h>
#include <srpt/handles.h>
#include <srpt/cmd.h>
#include <srpt/live.h>
#include <srpt/rdma_port.h>
#include <srpt/target.h>

#include "probe.h"

using srpt::Channel;
using srpt::ChState;
using srpt::CmdState;
using srpt::from_handle;
using srpt::RdmaPort;
using srpt::to_handle;

namespace {

struct alignas(SRPT_PROBE_OVERALIGN) Overaligned {
	/* Larger than the alignment, so the allocator rounds the size. */
	ktl::u8 bytes[SRPT_PROBE_OVERALIGN + 8];
};
static_assert(alignof(Overaligned) > __STDCPP_DEFAULT_NEW_ALIGNMENT__,
	      "must take the aligned operator new");

static_assert(SRPT_PROBE_CH_CONNECTING == static_cast<int>(ChState::kConnecting) &&
	      SRPT_PROBE_CH_LIVE == static_cast<int>(ChState::kLive) &&
	      SRPT_PROBE_CH_DISCONNECTING == static_cast<int>(ChState::kDisconnecting) &&
	      SRPT_PROBE_CH_DRAINING == static_cast<int>(ChState::kDraining) &&
	      SRPT_PROBE_CH_DISCONNECTED == static_cast<int>(ChState::kDisconnected));
static_assert(SRPT_PROBE_CMD_NEW == static_cast<int>(CmdState::kNew) &&
	      SRPT_PROBE_CMD_NEED_DATA == static_cast<int>(CmdState::kNeedData) &&
	      SRPT_PROBE_CMD_DATA_IN == static_cast<int>(CmdState::kDataIn) &&
	      SRPT_PROBE_CMD_RSP_SENT == static_cast<int>(CmdState::kCmdRspSent) &&
	      SRPT_PROBE_CMD_MGMT == static_cast<int>(CmdState::kMgmt) &&
	      SRPT_PROBE_CMD_MGMT_RSP_SENT == static_cast<int>(CmdState::kMgmtRspSent) &&
	      SRPT_PROBE_CMD_DONE == static_cast<int>(CmdState::kDone));

static_assert(SRPT_PROBE_LIVE_DEVICES == static_cast<int>(srpt::Live::kDevice) &&
	      SRPT_PROBE_LIVE_PORTS == static_cast<int>(srpt::Live::kPort) &&
	      SRPT_PROBE_LIVE_TPORTS == static_cast<int>(srpt::Live::kTPort) &&
	      SRPT_PROBE_LIVE_TPGS == static_cast<int>(srpt::Live::kTpg) &&
	      SRPT_PROBE_LIVE_NEXUSES == static_cast<int>(srpt::Live::kNexus) &&
	      SRPT_PROBE_LIVE_CHANNELS == static_cast<int>(srpt::Live::kChannel) &&
	      SRPT_PROBE_LIVE_CMDS == static_cast<int>(srpt::Live::kCmd) &&
	      SRPT_PROBE_LIVE_RECVS == static_cast<int>(srpt::Live::kRecv) &&
	      SRPT_PROBE_LIVE_KINDS == static_cast<int>(srpt::Live::kCount));

constinit int g_counted_freed = 0;

class Counted : public ktl::RefCounted<Counted> {
public:
	~Counted() { g_counted_freed++; }
};

} // namespace

extern "C" int srpt_probe_live_ports(void)
{
	return srpt::live_count(srpt::Live::kPort);
}

extern "C" int srpt_probe_live_tports(void)
{
	return srpt::live_count(srpt::Live::kTPort);
}

extern "C" void srpt_probe_port_cache(struct srpt_port *port, struct srpt_probe_port_cache *out)
{
	const srpt::PortCache c = from_handle<RdmaPort>(port)->cache();

	out->lid = c.lid;
	out->sm_lid = c.sm_lid;
	__builtin_memcpy(out->gid, c.gid.raw, sizeof(out->gid));
	out->valid = c.valid;
}

extern "C" int srpt_probe_port_refs(struct srpt_port *port)
{
	return from_handle<RdmaPort>(port)->ref_count_debug();
}

extern "C" int srpt_probe_port_enabled(struct srpt_port *port)
{
	return from_handle<RdmaPort>(port)->logins().enabled();
}

extern "C" struct srpt_port *srpt_probe_port_new(void)
{
	ktl::AllocChecker ac;
	RdmaPort *p = new (&ac) RdmaPort(nullptr, nullptr, "probe", 1);

	if (!ac.check())
		return nullptr;
	return to_handle<srpt_port>(p);
}

extern "C" srpt_size_t srpt_probe_port_align(void)
{
	return alignof(RdmaPort);
}

extern "C" void *srpt_probe_overaligned_new(void)
{
	ktl::AllocChecker ac;
	Overaligned *p = new (&ac) Overaligned;

	if (!ac.check())
		return nullptr;
	return p;
}

extern "C" void srpt_probe_overaligned_delete(void *p)
{
	delete static_cast<Overaligned *>(p);
}

extern "C" int srpt_probe_refptr_trace(struct srpt_probe_refptr_trace *t)
{
	ktl::AllocChecker ac;
	Counted *obj = new (&ac) Counted;

	if (!ac.check())
		return -ktl::kENOMEM;
	g_counted_freed = 0;
	{
		ktl::RefPtr<Counted> owner = ktl::AdoptRef(obj);

		t->refs_adopted = obj->ref_count_debug();
		{
			ktl::RefPtr<Counted> copy(owner);

			t->refs_copied = obj->ref_count_debug();
		}
		t->refs_copy_gone = obj->ref_count_debug();
		t->freed_copy_gone = g_counted_freed;
		owner.reset();
		t->freed_last_reset = g_counted_freed;
		owner.reset();
	}
	t->freed_at_end = g_counted_freed;
	return 0;
}

extern "C" int srpt_probe_live(enum srpt_probe_live kind)
{
	if (kind < 0 || kind >= SRPT_PROBE_LIVE_KINDS)
		return -1;
	return srpt::live_count(static_cast<srpt::Live>(kind));
}

extern "C" int srpt_probe_live_channels(void)
{
	return srpt::live_count(srpt::Live::kChannel);
}

extern "C" int srpt_probe_channel_state(struct srpt_channel *ch)
{
	return static_cast<int>(from_handle<Channel>(ch)->state());
}

extern "C" void srpt_probe_channel_credits(struct srpt_channel *ch,
					   struct srpt_probe_credits *out)
{
	const srpt::Credits &c = from_handle<Channel>(ch)->io().credits();

	out->req_lim = c.req_lim();
	out->owed = c.owed();
	out->sq_slots = static_cast<int>(from_handle<Channel>(ch)->io().sendq().free_slots());
}

extern "C" void srpt_probe_channel_get(struct srpt_channel *ch)
{
	from_handle<Channel>(ch)->add_ref();
}

extern "C" void srpt_probe_channel_put(struct srpt_channel *ch)
{
	Channel *c = from_handle<Channel>(ch);

	if (c->release())
		delete c;
}

extern "C" srpt_u32 srpt_probe_port_channels(struct srpt_port *port)
{
	return from_handle<RdmaPort>(port)->logins().channel_count();
}
