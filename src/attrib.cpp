// SPDX-License-Identifier: GPL-2.0-only
/*
 * configfs attributes: the TPG "attrib" group (stored per port, as in the
 * in-tree target), discovery_auth/rdma_cm_port and the WWN's version.
 * Values are parsed like kstrtoul(page, 0): decimal, 0x-hex or 0-octal,
 * one trailing newline.
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

constinit ktl::Mutex g_rdma_cm_mutex;
constinit u32 g_listening_port = 0; /* guarded by g_rdma_cm_mutex */

} // namespace

void attrib_init()
{
	KTL_LOCK_INIT(g_rdma_cm_mutex);
}

int listen_rdma_cm(u32 port)
{
	ktl::MutexGuard guard(g_rdma_cm_mutex);

	if (port == g_listening_port)
		return 0;
	const int ret = srpt_os_rdma_cm_listen(static_cast<srpt_u16>(port));
	if (ret) {
		srpt_os_log(SRPT_LOG_ERR, "rdma_cm_port: listening on port %u failed (%d)\n", port,
			    ret);
		return ret;
	}
	if (port)
		srpt_os_log(SRPT_LOG_INFO, "RDMA/CM: listening for logins on port %u\n", port);
	else
		srpt_os_log(SRPT_LOG_INFO, "RDMA/CM: no longer listening for logins\n");
	g_listening_port = port;
	return 0;
}

} // namespace srpt

using namespace srpt;

extern "C" srpt_ssize_t srpt_core_tpg_attrib_show(struct srpt_tpg *h, enum srpt_tpg_attrib a,
						  char *page, srpt_size_t size)
{
	if (a < 0 || a >= SRPT_ATTRIB_COUNT)
		return -ktl::kEINVAL;
	const PortAttrib attrib = from_handle<Tpg>(h)->tport()->port()->targets().attrib();
	const AttribSpec &spec = kSpecs[a];
	ktl::TextBuf s(page, size);

	s.dec(spec.field ? attrib.*spec.field : attrib.use_srq).put('\n');
	return static_cast<srpt_ssize_t>(s.size());
}

extern "C" srpt_ssize_t srpt_core_tpg_attrib_store(struct srpt_tpg *h, enum srpt_tpg_attrib a,
						   const char *page, srpt_size_t count)
{
	if (a < 0 || a >= SRPT_ATTRIB_COUNT)
		return -ktl::kEINVAL;
	RdmaPort *port = from_handle<Tpg>(h)->tport()->port();
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

extern "C" srpt_ssize_t srpt_core_rdma_cm_port_show(char *page, srpt_size_t size)
{
	ktl::TextBuf s(page, size);
	{
		ktl::MutexGuard guard(g_rdma_cm_mutex);
		s.dec(g_listening_port);
	}
	s.put('\n');
	return static_cast<srpt_ssize_t>(s.size());
}

extern "C" srpt_ssize_t srpt_core_rdma_cm_port_store(const char *page, srpt_size_t count)
{
	ktl::u64 v;
	int ret = ktl::parse_u64(ktl::Span<const char>(page, ktl::strnlen(page, count)), 0,
				 kMaxRdmaCmPort, &v);

	if (ret) {
		srpt_os_log(SRPT_LOG_ERR, "rdma_cm_port: invalid value: must be 0..%u\n",
			    kMaxRdmaCmPort);
		return -ktl::kEINVAL;
	}
	ret = listen_rdma_cm(static_cast<u32>(v));
	return ret ? ret : static_cast<srpt_ssize_t>(count);
}
