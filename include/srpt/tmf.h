/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Task management (srpt_handle_tsk_mgmt): SRP_TSK_MGMT read at its
 * offsets with a bounds check, and LIO's answer as an SRP RSP_CODE.
 * ChannelIo::handle_tsk_mgmt (tmf.cpp) hands the function to LIO;
 * response.h builds the SRP_RSP that answers it.
 */
#pragma once

#include <ktl/span.h>
#include <srpt/abi.h>
#include <srpt/types.h>

namespace srpt {

struct SrpTskMgmt {
	u64 tag = 0;
	u64 lun = 0;
	u64 task_tag = 0;
	u8 sol_not = 0;
	u8 function = 0;
	srpt_tmf tmf = SRPT_TMF_UNSUPPORTED;
};

[[nodiscard]] int parse_srp_tsk_mgmt(ktl::Bytes iu, SrpTskMgmt *out);

/* The SRP RSP_CODE for LIO's answer to a task management function. */
u8 tmf_rsp_code(srpt_tmr_response r);

} // namespace srpt
