// SPDX-License-Identifier: GPL-2.0-only
/* SRP_LOGIN_REQ parsing and checking; SRP_LOGIN_RSP/REJ building. */
#include <ktl/errno.h>
#include <ktl/wire.h>
#include <srpt/login.h>

namespace srpt {

using ktl::BeReader;
using ktl::BeWriter;

namespace {

/* Where the fields are in each form of the request. */
struct LoginLayout {
	ktl::size_t size, opcode, tag, it_iu_len, buf_fmt, flags, imm_offset, i_port_id, t_port_id;
};

constexpr LoginLayout kIbCmLayout = {
	srp::login_req::kSize,		 srp::login_req::kOpcode,
	srp::login_req::kTag,		 srp::login_req::kReqItIuLen,
	srp::login_req::kReqBufFmt,	 srp::login_req::kReqFlags,
	srp::login_req::kImmDataOffset,	 srp::login_req::kInitiatorPortId,
	srp::login_req::kTargetPortId,
};

constexpr LoginLayout kRdmaCmLayout = {
	srp::login_req_rdma::kSize,	      srp::login_req_rdma::kOpcode,
	srp::login_req_rdma::kTag,	      srp::login_req_rdma::kReqItIuLen,
	srp::login_req_rdma::kReqBufFmt,      srp::login_req_rdma::kReqFlags,
	srp::login_req_rdma::kImmDataOffset,  srp::login_req_rdma::kInitiatorPortId,
	srp::login_req_rdma::kTargetPortId,
};

} // namespace

int parse_login_request(srpt_cm_kind cm, ktl::Bytes priv, LoginRequest *out)
{
	if (cm != SRPT_CM_IB && cm != SRPT_CM_RDMA)
		return -ktl::kEINVAL;
	const LoginLayout &l = cm == SRPT_CM_IB ? kIbCmLayout : kRdmaCmLayout;
	BeReader r(priv);
	LoginRequest req;

	/* Private data may be longer than the request (IB/CM pads it). */
	if (priv.size() < l.size)
		return -ktl::kEINVAL;
	req.opcode = r.u8_at(l.opcode);
	req.tag = r.be64(l.tag);
	req.req_it_iu_len = r.be32(l.it_iu_len);
	req.req_buf_fmt = r.be16(l.buf_fmt);
	req.req_flags = r.u8_at(l.flags);
	req.imm_data_offset = r.be16(l.imm_offset);
	r.copy(l.i_port_id, req.initiator_port_id, 16);
	r.copy(l.t_port_id, req.target_port_id, 16);
	if (!r.ok())
		return -ktl::kEINVAL;
	*out = req;
	return 0;
}

namespace {

LoginCheck reject(srp::RejectReason reason, const char *why)
{
	LoginCheck c;

	c.reason = reason;
	c.why = why;
	return c;
}

} // namespace

LoginCheck check_login(const LoginRequest &req, const LoginLimits &lim)
{
	using srp::RejectReason;

	if (req.opcode != srp::kLoginReq)
		return reject(RejectReason::kUnableEstablishChannel, "not an SRP_LOGIN_REQ");
	if (req.req_it_iu_len < srp::kMinItIuLen || req.req_it_iu_len > lim.max_req_size)
		return reject(RejectReason::kReqItIuLengthTooLarge,
			      "requested max initiator to target IU length out of range");
	if (!(req.req_buf_fmt & (srp::kBufFmtDirect | srp::kBufFmtIndirect)))
		return reject(RejectReason::kUnsupportedDescriptorFormat,
			      "neither direct nor indirect data buffer descriptors requested");
	/* The target port id is id_ext and ioc_guid: both our service GUID. */
	BeReader t_port_id(req.target_port_id);
	if (t_port_id.be64(0) != lim.service_guid || t_port_id.be64(8) != lim.service_guid)
		return reject(RejectReason::kUnableAssociateChannel,
			      "target port identifier is not this target's");
	const u8 action = req.req_flags & srp::kMultiChanActionMask;
	if (action != srp::kMultiChanSingle && action != srp::kMultiChanMulti)
		return reject(RejectReason::kUnableEstablishChannel,
			      "reserved multi-channel action");

	LoginCheck c;
	c.ok = true;
	c.multichannel = action == srp::kMultiChanMulti;
	/* Immediate data must start after SRP_CMD and leave room in the IU. */
	if ((req.req_flags & srp::kImmedRequested) && !lim.use_srq &&
	    req.imm_data_offset >= srp::cmd::kSize && req.imm_data_offset < lim.max_req_size)
		c.imm_data_offset = req.imm_data_offset;
	/* Never promise the initiator more than a response buffer holds. */
	c.max_ti_iu_len = req.req_it_iu_len < lim.max_rsp_size ? req.req_it_iu_len : lim.max_rsp_size;
	return c;
}

ktl::size_t build_login_rsp(const LoginResponse &rsp, ktl::MutableBytes out)
{
	namespace f = srp::login_rsp;
	BeWriter w(out.subspan(0, f::kSize));

	if (out.size() < f::kSize)
		return 0;
	w.zero(0, f::kSize);
	w.u8_at(0, srp::kLoginRsp);
	w.be32(f::kReqLimDelta, rsp.req_lim_delta);
	w.be64(f::kTag, rsp.tag);
	w.be32(f::kMaxItIuLen, rsp.max_it_iu_len);
	w.be32(f::kMaxTiIuLen, rsp.max_ti_iu_len);
	w.be16(f::kBufFmt, srp::kBufFmtDirect | srp::kBufFmtIndirect);
	w.u8_at(f::kRspFlags, rsp.rsp_flags);
	return w.ok() ? f::kSize : 0;
}

ktl::size_t build_login_rej(u64 tag, srp::RejectReason reason, ktl::MutableBytes out)
{
	namespace f = srp::login_rej;
	BeWriter w(out.subspan(0, f::kSize));

	if (out.size() < f::kSize)
		return 0;
	w.zero(0, f::kSize);
	w.u8_at(0, srp::kLoginRej);
	w.be32(f::kReason, static_cast<u32>(reason));
	w.be64(f::kTag, tag);
	w.be16(f::kBufFmt, srp::kBufFmtDirect | srp::kBufFmtIndirect);
	return w.ok() ? f::kSize : 0;
}

} // namespace srpt
