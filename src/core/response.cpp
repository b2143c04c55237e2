// SPDX-License-Identifier: GPL-2.0-only
/* SRP_RSP building for commands and task management functions. */
#include <ktl/utility.h>
#include <ktl/wire.h>
#include <srpt/response.h>
#include <srpt/srp.h>

namespace srpt {

/* It crosses the boundary by value in two registers (abi.h). */
static_assert(sizeof(srpt_cmd_status) == 16, "srpt_cmd_status grew");

using ktl::BeWriter;
namespace f = srp::rsp;

namespace {

/* The common part; returns false when @out cannot hold @len bytes. */
bool put_header(const RspHeader &h, bool good, ktl::size_t len, BeWriter &w)
{
	if (w.size() < len)
		return false;
	w.zero(0, f::kSize);
	w.u8_at(0, srp::kRsp);
	/* Solicited notification as the request asked for this outcome. */
	if (h.req_sol_not & (good ? srp::kScSolNt : srp::kUcSolNt))
		w.u8_at(f::kSolNot, srp::kSolNt);
	w.be32(f::kReqLimDelta, h.req_lim_delta);
	w.be64(f::kTag, h.tag);
	return true;
}

} // namespace

ktl::size_t build_cmd_rsp(const RspHeader &h, const srpt_cmd_status &st, ktl::Bytes sense,
			  u32 max_len, ktl::MutableBytes out)
{
	u32 sense_len = static_cast<u32>(sense.size());
	const ktl::size_t limit = ktl::min<ktl::size_t>(max_len, out.size());

	if (limit < f::kSize)
		return 0;
	if (sense_len > limit - f::kSize)
		sense_len = static_cast<u32>(limit - f::kSize);

	BeWriter w(out);
	if (!put_header(h, st.scsi_status == 0, f::kSize + sense_len, w))
		return 0;
	u8 flags = 0;
	if (st.residual != SRPT_RESIDUAL_NONE && st.data_dir != SRPT_DATA_NONE) {
		const bool under = st.residual == SRPT_RESIDUAL_UNDERFLOW;

		if (st.data_dir == SRPT_DATA_OUT) {
			flags |= under ? srp::kDoUnder : srp::kDoOver;
			w.be32(f::kDataOutResCnt, st.residual_count);
		} else {
			flags |= under ? srp::kDiUnder : srp::kDiOver;
			w.be32(f::kDataInResCnt, st.residual_count);
		}
	}
	if (sense_len) {
		flags |= srp::kSnsValid;
		w.be32(f::kSenseDataLen, sense_len);
		w.copy(f::kData, sense.data(), sense_len);
	}
	w.u8_at(f::kFlags, flags);
	w.u8_at(f::kStatus, st.scsi_status);
	return w.ok() ? f::kSize + sense_len : 0;
}

ktl::size_t build_tmf_rsp(const RspHeader &h, u8 rsp_code, ktl::MutableBytes out)
{
	/* Response data is 4 bytes, the code in the last one. */
	constexpr ktl::size_t kLen = f::kSize + 4;
	BeWriter w(out);

	if (!put_header(h, rsp_code == srp::kTmfComplete, kLen, w))
		return 0;
	w.u8_at(f::kFlags, srp::kRspValid);
	w.be32(f::kRespDataLen, 4);
	w.be32(f::kData, rsp_code);
	return w.ok() ? kLen : 0;
}

} // namespace srpt
