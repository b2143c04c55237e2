/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Module parameters. Named, defaulted and bounded like the in-tree
 * target's, so existing modprobe.d files keep working.
 */
#pragma once

#include <ktl/atomic.h>
#include <ktl/string.h>
#include <srpt/abi.h>
#include <srpt/types.h>

namespace srpt {

/* srp_max_req_size: largest SRP request (IU) in bytes we accept. */
constexpr u32 kMinMaxReqSize = SRPT_MAX_REQ_SIZE_MIN;
constexpr u32 kDefaultMaxReqSize = SRPT_MAX_REQ_SIZE_DEFAULT;
constexpr u32 kMaxMaxReqSize = SRPT_MAX_REQ_SIZE_MAX;

/* srpt_srq_size: receive queue entries of a per-device SRQ. */
constexpr u32 kMinSrqSize = SRPT_SRQ_SIZE_MIN;
constexpr u32 kDefaultSrqSize = SRPT_SRQ_SIZE_DEFAULT;
constexpr u32 kMaxSrqSize = SRPT_SRQ_SIZE_MAX;

/*
 * rdma_cm_port: the RDMA/CM listener's port at load time (0: none), for
 * what rtslib's saveconfig does not keep (discovery_auth/rdma_cm_port).
 */
constexpr u32 kMaxRdmaCmPort = SRPT_RDMA_CM_PORT_MAX;

u32 max_req_size();
u32 srq_size();
u32 rdma_cm_port_param();

/*
 * The service GUID names this target (ioc_guid, id_ext, IB/CM service
 * id). Zero until set by the parameter or by the first device's node
 * GUID (adopt_service_guid()).
 */
u64 service_guid();
void adopt_service_guid(u64 node_guid);

/* A parameter's kernel_param_ops: 0 or -EINVAL (the reason logged). */
[[nodiscard]] int set_param(srpt_param p, const char *val);
/* Its value and a newline; -EINVAL for no such parameter. */
[[nodiscard]] int format_param(srpt_param p, ktl::TextBuf &out);

/* Restores the defaults; for tests. */
void reset_params_for_test();

} // namespace srpt
