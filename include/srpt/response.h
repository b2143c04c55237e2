/* SPDX-License-Identifier: GPL-2.0-only */
/* Building SRP_RSP: command responses (srpt_build_cmd_rsp) and task management responses (srpt_build_tskmgmt_rsp). */
#pragma once

#include <ktl/span.h>
#include <srpt/abi.h>
#include <srpt/types.h>

namespace srpt {

struct RspHeader {
	u64 tag = 0;
	u32 req_lim_delta = 0;
	u8 req_sol_not = 0;	/* SOL_NOT of the request: SCSOLNT/UCSOLNT */
};

/*
 * An SRP_RSP for a SCSI command: status, residuals and the sense data
 * @sense (st.sense_len is not read), clipped so that the IU fits in
 * @max_len (the channel's max_ti_iu_len) and in @out. Returns its
 * length, 0 if @out is too small.
 */
ktl::size_t build_cmd_rsp(const RspHeader &h, const srpt_cmd_status &st, ktl::Bytes sense,
			  u32 max_len, ktl::MutableBytes out);

/* An SRP_RSP for a task management function with RSP_CODE @rsp_code. */
ktl::size_t build_tmf_rsp(const RspHeader &h, u8 rsp_code, ktl::MutableBytes out);

/* What the core answers on its own: SCSI status and fixed-format sense data. */
constexpr u8 kStatusCheckCondition = 0x02;
constexpr u8 kStatusTaskSetFull = 0x28;
/* ILLEGAL REQUEST, INVALID FIELD IN COMMAND INFORMATION UNIT. */
constexpr u8 kSenseInvalidFieldInIu[18] = {0x70, 0, 0x05, 0, 0, 0, 0, 10, 0, 0, 0, 0, 0x0e, 0x03};
/* ABORTED COMMAND, no additional sense: the data could not be moved. */
constexpr u8 kSenseAbortedCommand[18] = {0x70, 0, 0x0b, 0, 0, 0, 0, 10};

} // namespace srpt
