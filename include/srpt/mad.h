/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Device Management MADs (IBA chapter 16.3), by which srp_daemon and
 * ibsrpdm discover SRP targets on InfiniBand. The handler is a pure
 * function of the request bytes and the target's identity.
 */
#pragma once

#include <ktl/span.h>
#include <srpt/types.h>

namespace srpt {

namespace mad {

constexpr ktl::size_t kSize = 256;
constexpr ktl::size_t kHeaderSize = 24;	/* common MAD header */
constexpr ktl::size_t kDataOffset = 64;	/* DM class: 40 reserved bytes */

/* Common MAD header byte offsets. */
constexpr ktl::size_t kBaseVersion = 0;
constexpr ktl::size_t kMgmtClass = 1;
constexpr ktl::size_t kClassVersion = 2;
constexpr ktl::size_t kMethod = 3;
constexpr ktl::size_t kStatus = 4;
constexpr ktl::size_t kTid = 8;
constexpr ktl::size_t kAttrId = 16;
constexpr ktl::size_t kAttrMod = 20;

constexpr u8 kMgmtClassDevMgt = 0x06;
constexpr u8 kMethodGet = 0x01;
constexpr u8 kMethodSet = 0x02;
constexpr u8 kMethodGetResp = 0x81;
constexpr u8 kMethodResponseBit = 0x80;

/* Status (IBA 13.4.7 table 106, 16.3.1.1). */
constexpr u16 kStatusBadVersion = 0x0004;
constexpr u16 kStatusUnsupMethod = 0x0008;
constexpr u16 kStatusUnsupMethodAttr = 0x000c;
constexpr u16 kStatusInvalidField = 0x001c;
constexpr u16 kStatusNoIoc = 0x0100;

/* Attributes (IBA 16.3.3). */
constexpr u16 kAttrClassPortInfo = 0x0001;
constexpr u16 kAttrIoUnitInfo = 0x0010;
constexpr u16 kAttrIocProfile = 0x0011;
constexpr u16 kAttrServiceEntries = 0x0012;

/* SRP r16a annex B identity of an SRP target I/O controller. */
constexpr u16 kSrpIoClass = 0x0100;
constexpr u16 kSrpIoSubclass = 0x609e;
constexpr u16 kSrpProtocol = 0x0108;
constexpr u16 kSrpProtocolVersion = 0x0001;
constexpr u32 kMaxRdmaSize = 1u << 24;

} // namespace mad

/* What a response says about this target. */
struct MadIdentity {
	u64 service_guid = 0;
	u32 vendor_id = 0;
	u32 vendor_part_id = 0;
	u32 hw_ver = 0;
	u32 send_queue_depth = 0;
	u32 max_req_size = 0;
	u32 max_rdma_size = 0;
};

/*
 * Handles one received Device Management MAD. Writes the response into
 * @rsp and returns its length (mad::kSize), or returns 0 when nothing must
 * be sent: @req is not exactly one IB MAD, not of the DM class, of an
 * unknown base version, or itself a response.
 */
ktl::size_t handle_dm_mad(const MadIdentity &id, ktl::Bytes req, ktl::MutableBytes rsp);

class RdmaPort;
/* handle_dm_mad() with @port's identity; 0 once the port is detached. */
ktl::size_t answer_dm_mad(RdmaPort &port, ktl::Bytes req, ktl::MutableBytes rsp);

} // namespace srpt
