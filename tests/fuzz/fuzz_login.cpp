// SPDX-License-Identifier: GPL-2.0-only
/*
 * Fuzzes SRP login handling: parse_login_request() and check_login() for
 * both CM forms with arbitrary private data and limits, and
 * build_login_rsp() / build_login_rej() into buffers of any size.
 *
 * Input: [0] flags, [1] response buffer size, [2..3] srp_max_req_size
 * selector, [4..5] max_rsp_size, then the private data.
 *   flags bit 0: RDMA/CM form (else IB/CM); bit 1: use_srq;
 *   bit 2: a service GUID that the request's target port id matches
 *   (else a fixed one); bit 3: build a reject instead of a response.
 *
 * Invariants: parsing succeeds exactly when the private data holds the
 * whole request, and then every field is the one at its SRP r16a offset;
 * the checks agree with an independent model written from the SRP rules
 * (first failing rule wins: opcode, IU length, buffer formats, target port
 * id, multichannel action) and immediate data / max_ti_iu_len are as
 * negotiated; a built IU is exactly 52 (32) bytes with the documented
 * bytes, or 0 and nothing written when the buffer is short; nothing is
 * ever written past the IU.
 */
#include "fuzz_common.h"

#include <ktl/errno.h>
#include <srpt/login.h>

#include <algorithm>
#include <cstring>

namespace {

std::uint64_t be(const std::uint8_t *p, int n)
{
	std::uint64_t v = 0;
	for (int i = 0; i < n; i++)
		v = v << 8 | p[i];
	return v;
}

struct Model {
	bool ok;
	std::uint32_t reason;
	bool multi;
	std::uint16_t imm;
	std::uint32_t max_ti;
};

/* The SRP login rules, from the spec and the target's documented choices. */
Model model(const std::uint8_t *req, bool rdma, std::uint32_t max_req, std::uint32_t max_rsp,
	    std::uint64_t guid, bool srq)
{
	const std::uint8_t opcode = rdma ? req[11] : req[0];
	const std::uint32_t it_iu = static_cast<std::uint32_t>(be(req + (rdma ? 12 : 16), 4));
	const unsigned fmt = static_cast<unsigned>(be(req + (rdma ? 8 : 24), 2));
	const std::uint8_t flags = rdma ? req[10] : req[26];
	const std::uint16_t imm = static_cast<std::uint16_t>(be(req + (rdma ? 48 : 28), 2));
	const std::uint8_t *tport = req + (rdma ? 32 : 48);

	Model m{};
	if (opcode != 0x00)
		return {false, 0x00010000, false, 0, 0};
	if (it_iu < 64 || it_iu > max_req)
		return {false, 0x00010002, false, 0, 0};
	if (!(fmt & 0x0006))
		return {false, 0x00010004, false, 0, 0};
	if (be(tport, 8) != guid || be(tport + 8, 8) != guid)
		return {false, 0x00010003, false, 0, 0};
	if ((flags & 3) > 1)
		return {false, 0x00010000, false, 0, 0};
	m.ok = true;
	m.multi = (flags & 3) == 1;
	m.imm = (flags & 0x80) && !srq && imm >= 48 && imm < max_req ? imm : 0;
	m.max_ti = std::min(it_iu, max_rsp);
	return m;
}

void check_built(const std::vector<std::uint8_t> &buf, std::size_t room, std::size_t n,
		 std::size_t iu_len)
{
	FUZZ_CHECK(n == 0 || n == iu_len, "built %zu bytes", n);
	FUZZ_CHECK((n == 0) == (room < iu_len), "built %zu bytes into %zu", n, room);
	for (std::size_t i = n; i < buf.size(); i++)
		FUZZ_CHECK(buf[i] == 0x77, "byte %zu of a %zu-byte IU written (room %zu)", i, n, room);
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *data, std::size_t size)
{
	fuzz::init_core();
	if (size < 6)
		return 0;
	const std::uint8_t flags = data[0];
	const std::size_t room = data[1] % 80;
	const std::uint32_t max_req = 996 + static_cast<std::uint32_t>(be(data + 2, 2) % (65536 - 996 + 1));
	const std::uint32_t max_rsp = 40 + static_cast<std::uint32_t>(be(data + 4, 2) % 985);
	const bool rdma = flags & 1, srq = flags & 2;
	const std::uint8_t *priv = data + 6;
	const std::size_t priv_len = size - 6;
	const std::size_t need = rdma ? 56 : 64;
	std::uint64_t guid = 0x0002c90300a1b2c0ull;
	if ((flags & 4) && priv_len >= need)
		guid = be(priv + (rdma ? 32 : 48), 8);

	/* The private data in a buffer of its own size: ASan sees any overread. */
	std::vector<std::uint8_t> pd(priv, priv + priv_len);
	srpt::LoginRequest req;
	req.tag = 0x5a5a;
	const int ret = srpt::parse_login_request(rdma ? SRPT_CM_RDMA : SRPT_CM_IB,
						  ktl::Bytes(pd.data(), pd.size()), &req);
	FUZZ_CHECK((ret == 0) == (priv_len >= need), "parse returned %d for %zu bytes", ret, priv_len);
	if (ret) {
		FUZZ_CHECK(ret == -ktl::kEINVAL, "parse returned %d", ret);
		FUZZ_CHECK(req.tag == 0x5a5a, "a failed parse wrote its output");
	} else {
		const std::uint8_t *p = pd.data();
		FUZZ_CHECK(req.opcode == (rdma ? p[11] : p[0]), "opcode");
		FUZZ_CHECK(req.tag == be(p + (rdma ? 0 : 8), 8), "tag");
		FUZZ_CHECK(req.req_it_iu_len == be(p + (rdma ? 12 : 16), 4), "req_it_iu_len");
		FUZZ_CHECK(req.req_buf_fmt == be(p + (rdma ? 8 : 24), 2), "req_buf_fmt");
		FUZZ_CHECK(req.req_flags == (rdma ? p[10] : p[26]), "req_flags");
		FUZZ_CHECK(req.imm_data_offset == be(p + (rdma ? 48 : 28), 2), "imm_data_offset");
		FUZZ_CHECK(!std::memcmp(req.initiator_port_id, p + (rdma ? 16 : 32), 16), "initiator port id");
		FUZZ_CHECK(!std::memcmp(req.target_port_id, p + (rdma ? 32 : 48), 16), "target port id");

		srpt::LoginLimits lim;
		lim.max_req_size = max_req;
		lim.max_rsp_size = max_rsp;
		lim.service_guid = guid;
		lim.use_srq = srq;
		const srpt::LoginCheck c = srpt::check_login(req, lim);
		const Model m = model(p, rdma, max_req, max_rsp, guid, srq);
		FUZZ_CHECK(c.ok == m.ok, "check says %d, the rules %d (reason %#x)", c.ok, m.ok, m.reason);
		if (!m.ok) {
			FUZZ_CHECK(static_cast<std::uint32_t>(c.reason) == m.reason, "reason %#x, want %#x",
				   static_cast<std::uint32_t>(c.reason), m.reason);
			FUZZ_CHECK(c.why && *c.why, "a reject without a reason for the log");
		} else {
			FUZZ_CHECK(c.multichannel == m.multi, "multichannel");
			FUZZ_CHECK(c.imm_data_offset == m.imm, "imm %u, want %u", c.imm_data_offset, m.imm);
			FUZZ_CHECK(c.max_ti_iu_len == m.max_ti, "max_ti_iu_len %u, want %u", c.max_ti_iu_len,
				   m.max_ti);
			FUZZ_CHECK(c.max_ti_iu_len >= 40 && c.max_ti_iu_len <= max_rsp, "max_ti_iu_len %u",
				   c.max_ti_iu_len);
			if (c.imm_data_offset)
				FUZZ_CHECK(srpt::imm_align_offset(c.imm_data_offset) < 512 &&
						   (srpt::imm_align_offset(c.imm_data_offset) + c.imm_data_offset) % 512 == 0,
					   "alignment of immediate data at %u", c.imm_data_offset);
		}
	}

	/* Building: into @room bytes of a larger, poisoned buffer. */
	std::vector<std::uint8_t> buf(room + 64, 0x77);
	if (flags & 8) {
		const std::uint32_t reasons[] = {0x00010000, 0x00010001, 0x00010002, 0x00010003, 0x00010004};
		const std::uint32_t why = reasons[req.req_flags % 5];
		const std::size_t n = srpt::build_login_rej(req.tag, static_cast<srpt::srp::RejectReason>(why),
							    ktl::MutableBytes(buf.data(), room));
		check_built(buf, room, n, 32);
		if (n) {
			FUZZ_CHECK(buf[0] == 0xc2 && be(&buf[4], 4) == why && be(&buf[8], 8) == req.tag &&
					   be(&buf[24], 2) == 0x0006,
				   "SRP_LOGIN_REJ fields");
			for (std::size_t i : {1, 2, 3, 16, 17, 18, 19, 20, 21, 22, 23, 26, 27, 28, 29, 30, 31})
				FUZZ_CHECK(buf[i] == 0, "reserved byte %zu of SRP_LOGIN_REJ is %#x", i, buf[i]);
		}
	} else {
		srpt::LoginResponse rsp;
		rsp.tag = req.tag;
		rsp.req_lim_delta = req.req_it_iu_len;
		rsp.max_it_iu_len = max_req;
		rsp.max_ti_iu_len = max_rsp;
		rsp.rsp_flags = req.req_flags;
		const std::size_t n = srpt::build_login_rsp(rsp, ktl::MutableBytes(buf.data(), room));
		check_built(buf, room, n, 52);
		if (n) {
			FUZZ_CHECK(buf[0] == 0xc0 && be(&buf[4], 4) == rsp.req_lim_delta &&
					   be(&buf[8], 8) == rsp.tag && be(&buf[16], 4) == max_req &&
					   be(&buf[20], 4) == max_rsp && be(&buf[24], 2) == 0x0006 &&
					   buf[26] == rsp.rsp_flags,
				   "SRP_LOGIN_RSP fields");
			for (std::size_t i = 27; i < 52; i++)
				FUZZ_CHECK(buf[i] == 0, "reserved byte %zu of SRP_LOGIN_RSP", i);
		}
	}
	fuzz::check_fake();
	return 0;
}
