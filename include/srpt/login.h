/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * SRP login: parsing SRP_LOGIN_REQ (both the IB/CM and the RDMA/CM form),
 * checking it against what this target can do, and building
 * SRP_LOGIN_RSP and SRP_LOGIN_REJ. Pure functions of their arguments.
 */
#pragma once

#include <ktl/span.h>
#include <srpt/abi.h>
#include <srpt/srp.h>
#include <srpt/types.h>

namespace srpt {

struct LoginRequest {
	u8 opcode = 0;
	u64 tag = 0;
	u32 req_it_iu_len = 0;
	u16 req_buf_fmt = 0;
	u8 req_flags = 0;
	u16 imm_data_offset = 0;
	u8 initiator_port_id[16] = {};
	u8 target_port_id[16] = {};
};

/* Returns 0, or -kEINVAL when @priv is too short for the @cm form. */
[[nodiscard]] int parse_login_request(srpt_cm_kind cm, ktl::Bytes priv, LoginRequest *out);

/* What the target can do, for checking a login. */
struct LoginLimits {
	u32 max_req_size = 0;		/* srp_max_req_size */
	u32 max_rsp_size = 0;		/* the port's srp_max_rsp_size */
	u64 service_guid = 0;
	bool use_srq = false;		/* no immediate data through the SRQ */
};

/* The outcome of checking a login request. */
struct LoginCheck {
	bool ok = false;
	srp::RejectReason reason = srp::RejectReason::kUnableEstablishChannel;
	const char *why = nullptr;	/* for dmesg when !ok */
	/* When ok: */
	bool multichannel = false;	/* MULTI: keep the nexus's channels */
	u16 imm_data_offset = 0;	/* 0: no immediate data */
	u32 max_ti_iu_len = 0;
};

LoginCheck check_login(const LoginRequest &req, const LoginLimits &lim);

struct LoginResponse {
	u64 tag = 0;
	u32 req_lim_delta = 0;
	u32 max_it_iu_len = 0;
	u32 max_ti_iu_len = 0;
	u8 rsp_flags = 0;
};

/* Both return the IU length written, 0 when @out is too small. */
ktl::size_t build_login_rsp(const LoginResponse &rsp, ktl::MutableBytes out);
ktl::size_t build_login_rej(u64 tag, srp::RejectReason reason, ktl::MutableBytes out);

/* Receive buffer padding that makes immediate data at @imm_offset 512-byte aligned. */
constexpr u32 imm_align_offset(u32 imm_offset)
{
	return imm_offset ? ((imm_offset + 511) & ~511u) - imm_offset : 0;
}

} // namespace srpt
