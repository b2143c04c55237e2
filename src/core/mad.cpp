// SPDX-License-Identifier: GPL-2.0-only
/*
 * Device Management MAD handling: srpt_mgmt_method_get and the attribute
 * encoders (ClassPortInfo, IOUnitInfo, IOControllerProfile,
 * ServiceEntries), with explicit byte offsets from the IBA layouts.
 */
#include <ktl/string.h>
#include <ktl/wire.h>
#include <srpt/device.h>
#include <srpt/handles.h>
#include <srpt/mad.h>
#include <srpt/params.h>

namespace srpt {
namespace {

using namespace mad;
using ktl::BeReader;
using ktl::BeWriter;

constexpr char kIdString[] = "Linux SRP target";
constexpr char kServiceNamePrefix[] = "SRP.T10:";
constexpr u32 kMaxSlot = 16;
constexpr u32 kIocSlot = 1;	/* our only I/O controller */
constexpr u32 kServiceEntryCount = 1;

/* All attribute offsets below are relative to the data area. */
constexpr ktl::size_t D = kDataOffset;

/* IBA 16.3.3.1 / 13.4.8.1 ClassPortInfo. */
u16 class_port_info(BeWriter &w)
{
	w.u8_at(D + 0, 1);		/* BaseVersion */
	w.u8_at(D + 1, 1);		/* ClassVersion */
	w.be32(D + 4, 20);		/* RespTimeValue: 4.096 us * 2^20 */
	return 0;
}

/* IBA 16.3.3.3 IOUnitInfo; SRP r16a table B.6. */
u16 io_unit_info(BeWriter &w)
{
	w.be16(D + 0, 1);		/* ChangeID */
	w.u8_at(D + 2, kMaxSlot);	/* MaxControllers */
	/* ControllerList: 4 bits per slot, slot 1 in the high nibble. */
	w.u8_at(D + 4, 0x1 << 4);	/* slot 1 present, slot 2 empty */
	return 0;
}

/* IBA 16.3.3.4 IOControllerProfile; SRP r16a table B.7. */
u16 ioc_profile(const MadIdentity &id, u32 slot, BeWriter &w)
{
	if (slot == 0 || slot > kMaxSlot)
		return kStatusInvalidField;
	if (slot != kIocSlot)
		return kStatusNoIoc;

	w.be64(D + 0, id.service_guid);			/* GUID */
	w.be32(D + 8, (id.vendor_id & 0xffffff) << 8);	/* VendorID:24, rsvd:8 */
	w.be32(D + 12, id.vendor_part_id);		/* DeviceID */
	w.be16(D + 16, static_cast<u16>(id.hw_ver));	/* DeviceVersion */
	w.be32(D + 20, (id.vendor_id & 0xffffff) << 8);	/* SubsystemVendorID */
	w.be32(D + 24, 0);				/* SubsystemID */
	w.be16(D + 28, kSrpIoClass);
	w.be16(D + 30, kSrpIoSubclass);
	w.be16(D + 32, kSrpProtocol);
	w.be16(D + 34, kSrpProtocolVersion);
	w.be16(D + 40, static_cast<u16>(id.send_queue_depth));
	w.u8_at(D + 43, 4);				/* RDMAReadQueueDepth */
	w.be32(D + 44, id.max_req_size);		/* SendMessageSize */
	w.be32(D + 48, id.max_rdma_size < kMaxRdmaSize ? id.max_rdma_size : kMaxRdmaSize);
	/* ControllerOperationsCapabilityMask: ST, SF, RF (read from), WF. */
	w.u8_at(D + 52, 0x01 | 0x02 | 0x08 | 0x20);
	w.u8_at(D + 54, kServiceEntryCount);
	w.copy(D + 64, kIdString, sizeof(kIdString) - 1);	/* IDString[64] */
	return 0;
}

/* IBA 16.3.3.5 ServiceEntries; SRP r16a table B.8. */
u16 service_entries(const MadIdentity &id, u32 attr_mod, BeWriter &w)
{
	const u32 slot = attr_mod >> 16;
	const u32 hi = (attr_mod >> 8) & 0xff;
	const u32 lo = attr_mod & 0xff;

	if (slot == 0 || slot > kMaxSlot)
		return kStatusInvalidField;
	if (slot != kIocSlot)
		return kStatusNoIoc;
	if (lo > hi || hi >= kServiceEntryCount)
		return kStatusInvalidField;

	ktl::StrBuf<40> name;	/* ServiceName[40]: NUL-padded */
	name.put(kServiceNamePrefix).hex(id.service_guid, 16);
	w.copy(D + 0, name.c_str(), name.size());
	w.be64(D + 40, id.service_guid);	/* ServiceID */
	return 0;
}

u16 method_get(const MadIdentity &id, BeReader &r, BeWriter &w)
{
	switch (r.be16(kAttrId)) {
	case kAttrClassPortInfo:
		return class_port_info(w);
	case kAttrIoUnitInfo:
		return io_unit_info(w);
	case kAttrIocProfile:
		return ioc_profile(id, r.be32(kAttrMod), w);
	case kAttrServiceEntries:
		return service_entries(id, r.be32(kAttrMod), w);
	default:
		return kStatusUnsupMethodAttr;
	}
}

} // namespace

ktl::size_t handle_dm_mad(const MadIdentity &id, ktl::Bytes req, ktl::MutableBytes rsp)
{
	BeReader r(req);

	if (req.size() != kSize || rsp.size() < kSize)
		return 0;
	if (r.u8_at(kBaseVersion) != 1 || r.u8_at(kMgmtClass) != kMgmtClassDevMgt)
		return 0;
	const u8 method = r.u8_at(kMethod);
	if (method & kMethodResponseBit)
		return 0;

	BeWriter w(rsp.subspan(0, kSize));
	/* The request's common header, then zeros: reserved fields are 0. */
	w.copy(0, req.data(), kHeaderSize);
	w.zero(kHeaderSize, kSize - kHeaderSize);
	w.u8_at(kMethod, kMethodGetResp);

	u16 status;
	if (r.u8_at(kClassVersion) != 1)
		status = kStatusBadVersion;
	else if (method == kMethodGet)
		status = method_get(id, r, w);
	else if (method == kMethodSet)
		status = kStatusUnsupMethodAttr;
	else
		status = kStatusUnsupMethod;
	if (status)
		w.zero(kDataOffset, kSize - kDataOffset);
	w.be16(kStatus, status);
	return r.ok() && w.ok() ? kSize : 0;
}

ktl::size_t answer_dm_mad(RdmaPort &port, ktl::Bytes req, ktl::MutableBytes rsp)
{
	/* The agent is unregistered before the port is detached. */
	Device *dev = port.device();
	MadIdentity id;

	if (!dev)
		return 0;
	const PortAttrib attrib = port.targets().attrib();
	id.service_guid = service_guid();
	id.vendor_id = dev->attrs().vendor_id;
	id.vendor_part_id = dev->attrs().vendor_part_id;
	id.hw_ver = dev->attrs().hw_ver;
	id.send_queue_depth = dev->recv_queue_depth(attrib.use_srq);
	id.max_req_size = max_req_size();
	id.max_rdma_size = attrib.srp_max_rdma_size;
	return handle_dm_mad(id, req, rsp);
}

} // namespace srpt
