// SPDX-License-Identifier: GPL-2.0-only
/*
 * The TPG "attrib" group of configfs (stored per port, as in the in-tree
 * target). Values are parsed like kstrtoul(page, 0): decimal, 0x-hex or
 * 0-octal, one trailing newline.
 */
#include <ktl/errno.h>
#include <ktl/lock.h>
#include <ktl/string.h>
#include <srpt/abi.h>
#include <srpt/handles.h>
#include <srpt/params.h>
#include <srpt/target.h>

namespace srpt {
namespace {

struct AttribSpec {
	const char *name;
	u32 min;
	u32 max;
	u32 PortAttrib::*field;
};

/* In enum srpt_tpg_attrib order. */
constexpr AttribSpec kSpecs[SRPT_ATTRIB_COUNT] = {
	{"srp_max_rdma_size", PortAttrib::kMinMaxRdmaSize, PortAttrib::kMaxMaxRdmaSize,
	 &PortAttrib::srp_max_rdma_size},
	{"srp_max_rsp_size", PortAttrib::kMinMaxRspSize, PortAttrib::kMaxMaxRspSize,
	 &PortAttrib::srp_max_rsp_size},
	{"srp_sq_size", PortAttrib::kMinSqSize, PortAttrib::kMaxSqSize, &PortAttrib::srp_sq_size},
	{"use_srq", 0, 1, nullptr},
};
static_assert(SRPT_ATTRIB_MAX_RDMA_SIZE == 0 && SRPT_ATTRIB_MAX_RSP_SIZE == 1 &&
	      SRPT_ATTRIB_SQ_SIZE == 2 && SRPT_ATTRIB_USE_SRQ == 3);

} // namespace

int show_tpg_attrib(const Tpg &tpg, int a, ktl::TextBuf &s)
{
	if (a < 0 || a >= SRPT_ATTRIB_COUNT)
		return -ktl::kEINVAL;
	const PortAttrib attrib = tpg.tport()->port()->targets().attrib();
	const AttribSpec &spec = kSpecs[a];

	s.dec(spec.field ? attrib.*spec.field : attrib.use_srq).put('\n');
	return 0;
}

srpt_ssize_t store_tpg_attrib(Tpg &tpg, int a, const char *page, srpt_size_t count)
{
	if (a < 0 || a >= SRPT_ATTRIB_COUNT)
		return -ktl::kEINVAL;
	RdmaPort *port = tpg.tport()->port();
	const AttribSpec &spec = kSpecs[a];
	ktl::u64 v;
	int ret = ktl::parse_u64(ktl::Span<const char>(page, ktl::strnlen(page, count)), 0,
				 spec.max, &v);

	if (ret == 0 && v < spec.min)
		ret = -ktl::kERANGE;
	if (ret) {
		ktl::size_t shown = ktl::strnlen(page, count > 32 ? 32 : count);

		/* Not the newline echo adds: it would split the log line. */
		if (shown && page[shown - 1] == '\n')
			shown--;
		srpt_os_log(SRPT_LOG_ERR, "%s port %u: %s: invalid value '%.*s': must be %u..%u\n",
			    port->dev_name(), port->num(), spec.name, static_cast<int>(shown), page,
			    spec.min, spec.max);
		return -ktl::kEINVAL;
	}
	if (!spec.field) {
		ret = port->set_use_srq(v != 0);
		return ret ? ret : static_cast<srpt_ssize_t>(count);
	}
	port->targets().update_attrib(
		[&](PortAttrib &attrib) { attrib.*spec.field = static_cast<u32>(v); });
	return static_cast<srpt_ssize_t>(count);
}

} // namespace srpt
