// SPDX-License-Identifier: GPL-2.0-only
/* Module parameters: parsing, bounds and the values the core reads. */
#include <ktl/errno.h>
#include <ktl/string.h>
#include <srpt/abi.h>
#include <srpt/params.h>

namespace srpt {
namespace {

constinit ktl::Atomic<u32> g_max_req_size{kDefaultMaxReqSize};
constinit ktl::Atomic<u32> g_srq_size{kDefaultSrqSize};
constinit ktl::Atomic<u64> g_service_guid{0};
constinit ktl::Atomic<u32> g_rdma_cm_port{0};

} // namespace

u32 max_req_size()
{
	return g_max_req_size.load(ktl::MemoryOrder::relaxed);
}

u32 srq_size()
{
	return g_srq_size.load(ktl::MemoryOrder::relaxed);
}

u32 rdma_cm_port_param()
{
	return g_rdma_cm_port.load(ktl::MemoryOrder::relaxed);
}

u64 service_guid()
{
	return g_service_guid.load(ktl::MemoryOrder::acquire);
}

void adopt_service_guid(u64 node_guid)
{
	u64 expected = 0;

	g_service_guid.compare_exchange(expected, node_guid, ktl::MemoryOrder::acq_rel);
}

void reset_params_for_test()
{
	g_max_req_size.store(kDefaultMaxReqSize);
	g_srq_size.store(kDefaultSrqSize);
	g_service_guid.store(0);
	g_rdma_cm_port.store(0);
}

int set_param(srpt_param p, const char *val)
{
	u64 v;
	int ret;

	switch (p) {
	case SRPT_PARAM_MAX_REQ_SIZE:
		ret = ktl::parse_u64(val, 0, kMaxMaxReqSize, &v);
		if (ret == 0 && v < kMinMaxReqSize)
			ret = -ktl::kERANGE;
		if (ret) {
			srpt_os_log(SRPT_LOG_ERR,
				    "srp_max_req_size: invalid value '%s': must be %u..%u\n",
				    val, kMinMaxReqSize, kMaxMaxReqSize);
			return -ktl::kEINVAL;
		}
		g_max_req_size.store(static_cast<u32>(v));
		return 0;
	case SRPT_PARAM_SRQ_SIZE:
		ret = ktl::parse_u64(val, 0, kMaxSrqSize, &v);
		if (ret == 0 && v < kMinSrqSize)
			ret = -ktl::kERANGE;
		if (ret) {
			srpt_os_log(SRPT_LOG_ERR,
				    "srpt_srq_size: invalid value '%s': must be %u..%u\n",
				    val, kMinSrqSize, kMaxSrqSize);
			return -ktl::kEINVAL;
		}
		g_srq_size.store(static_cast<u32>(v));
		return 0;
	case SRPT_PARAM_SERVICE_GUID:
		/* Hexadecimal with or without 0x, as the in-tree target. */
		ret = ktl::parse_u64(val, 16, ~u64{0}, &v);
		if (ret) {
			srpt_os_log(SRPT_LOG_ERR,
				    "srpt_service_guid: invalid value '%s': must be a 64-bit hexadecimal number\n",
				    val);
			return -ktl::kEINVAL;
		}
		g_service_guid.store(v, ktl::MemoryOrder::release);
		return 0;
	case SRPT_PARAM_RDMA_CM_PORT:
		ret = ktl::parse_u64(val, 0, kMaxRdmaCmPort, &v);
		if (ret) {
			srpt_os_log(SRPT_LOG_ERR, "rdma_cm_port: invalid value '%s': must be 0..%u\n",
				    val, kMaxRdmaCmPort);
			return -ktl::kEINVAL;
		}
		g_rdma_cm_port.store(static_cast<u32>(v));
		return 0;
	case SRPT_PARAM_COUNT:
		break;
	}
	return -ktl::kEINVAL;
}

int format_param(srpt_param p, ktl::TextBuf &s)
{
	switch (p) {
	case SRPT_PARAM_MAX_REQ_SIZE:
		s.dec(max_req_size());
		break;
	case SRPT_PARAM_SRQ_SIZE:
		s.dec(srq_size());
		break;
	case SRPT_PARAM_SERVICE_GUID:
		s.put("0x").hex(service_guid(), 16);
		break;
	case SRPT_PARAM_RDMA_CM_PORT:
		s.dec(rdma_cm_port_param());
		break;
	default:
		return -ktl::kEINVAL;
	}
	s.put('\n');
	return 0;
}

} // namespace srpt
