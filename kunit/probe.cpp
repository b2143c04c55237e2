// SPDX-License-Identifier: GPL-2.0-only
/*
 * The core-side half of the KUnit suites: C entry points into core
 * internals that the C ABI does not expose (see probe.h). Built by the
 * same C++ rule as the core; includes no kernel header.
 */
#include <ktl/errno.h>
#include <ktl/new.h>
#include <ktl/refptr.h>
#include <srpt/handles.h>
#include <srpt/port.h>
#include <srpt/target.h>

#include "probe.h"

using srpt::from_handle;
using srpt::Port;
using srpt::to_handle;

namespace {

struct alignas(SRPT_PROBE_OVERALIGN) Overaligned {
	/* Larger than the alignment, so the allocator rounds the size. */
	ktl::u8 bytes[SRPT_PROBE_OVERALIGN + 8];
};
static_assert(alignof(Overaligned) > __STDCPP_DEFAULT_NEW_ALIGNMENT__,
	      "must take the aligned operator new");

constinit int g_counted_freed = 0;

class Counted : public ktl::RefCounted<Counted> {
public:
	~Counted() { g_counted_freed++; }
};

} // namespace

extern "C" int srpt_probe_live_ports(void)
{
	return Port::live_count_for_test();
}

extern "C" int srpt_probe_live_tports(void)
{
	return srpt::TPort::live_count_for_test();
}

extern "C" void srpt_probe_port_cache(struct srpt_port *port, struct srpt_probe_port_cache *out)
{
	const srpt::PortCache c = from_handle<Port>(port)->cache();

	out->lid = c.lid;
	out->sm_lid = c.sm_lid;
	__builtin_memcpy(out->gid, c.gid.raw, sizeof(out->gid));
	out->valid = c.valid;
}

extern "C" int srpt_probe_port_refs(struct srpt_port *port)
{
	return from_handle<Port>(port)->ref_count_debug();
}

extern "C" int srpt_probe_port_enabled(struct srpt_port *port)
{
	return from_handle<Port>(port)->enabled();
}

extern "C" struct srpt_port *srpt_probe_port_new(void)
{
	ktl::AllocChecker ac;
	Port *p = new (&ac) Port(nullptr, nullptr, "probe", 1);

	if (!ac.check())
		return nullptr;
	return to_handle<srpt_port>(p);
}

extern "C" srpt_size_t srpt_probe_port_align(void)
{
	return alignof(Port);
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
