// SPDX-License-Identifier: GPL-2.0-only
/*
 * Fuzzes request IU parsing and response building: parse_srp_cmd(),
 * parse_data_descriptors() and descriptor_at() with arbitrary bytes,
 * sizes and immediate data offsets; parse_srp_tsk_mgmt(); and
 * build_cmd_rsp() / build_tmf_rsp() with arbitrary status, residuals,
 * sense data, max_ti_iu_len and buffer sizes.
 *
 * Input: [0..1] immediate data offset (0: not negotiated), [2] selects
 * the response parameters, [3] the response buffer size, then the IU
 * (also used as sense data).
 *
 * Invariants: an SRP_CMD is accepted exactly when an independent model
 * of the SRP r16a rules accepts it; then every descriptor lies inside the
 * IU after the additional CDB, the immediate data lies inside the IU
 * after its descriptor, data_len <= 16 MiB and matches the descriptors,
 * and the CDB fits in its fields (cdb_len <= 16 + additional CDB); the tag
 * is read whenever the IU holds one; SRP_TSK_MGMT fields are those at
 * their offsets; a built SRP_RSP never exceeds max_ti_iu_len or its
 * buffer, carries the sense data it says, and nothing is written past it.
 */
#include "fuzz_common.h"

#include <ktl/errno.h>
#include <srpt/iu.h>
#include <srpt/tmf.h>
#include <srpt/response.h>

#include <algorithm>
#include <cstring>

namespace {

constexpr std::uint32_t kMax = 16u << 20;

std::uint64_t be(const std::uint8_t *p, int n)
{
	std::uint64_t v = 0;
	for (int i = 0; i < n; i++)
		v = v << 8 | p[i];
	return v;
}

struct Want {
	bool ok = false;
	srpt_data_dir dir = SRPT_DATA_NONE;
	srpt::DataKind kind = srpt::DataKind::kNone;
	std::uint32_t len = 0, count = 0, offset = 0;
};

/* SRP_CMD acceptance, written from SRP r16a and the target's documented limits. */
Want model(const std::uint8_t *b, std::size_t n, std::uint32_t imm)
{
	Want w;
	if (n < 48)
		return w;
	const std::size_t add = b[31] & 0xfc;
	if (32 + 16 + add > n)
		return w;
	static const std::uint32_t group[8] = {6, 10, 10, 12, 16, 12, 10, 10};
	const std::uint32_t cdb_len = b[32] == 0x7f ? 8u + b[39] : group[b[32] >> 5];
	if (cdb_len > 16 + add)
		return w;
	const unsigned out = b[5] >> 4, in = b[5] & 15;
	if (out && in)
		return w;
	const unsigned kind = out ? out : in;
	w.dir = out ? SRPT_DATA_OUT : in ? SRPT_DATA_IN : SRPT_DATA_NONE;
	const std::size_t at = 48 + add;
	switch (kind) {
	case 0:
		break;
	case 1:
		if (at + 16 > n)
			return w;
		w.kind = srpt::DataKind::kDirect;
		w.len = static_cast<std::uint32_t>(be(b + at + 12, 4));
		w.count = 1;
		w.offset = static_cast<std::uint32_t>(at);
		break;
	case 2: {
		if (at + 20 > n)
			return w;
		const std::uint32_t tl = static_cast<std::uint32_t>(be(b + at + 12, 4));
		if (tl % 16)
			return w;
		const std::uint32_t cnt = tl / 16;
		if (cnt > (out ? b[6] : b[7]) || at + 20 + std::uint64_t{cnt} * 16 > n)
			return w;
		std::uint64_t sum = 0;
		for (std::uint32_t i = 0; i < cnt; i++)
			sum += be(b + at + 20 + 16 * i + 12, 4);
		if (sum != be(b + at + 16, 4))
			return w;
		w.kind = srpt::DataKind::kIndirect;
		w.len = static_cast<std::uint32_t>(sum);
		w.count = cnt;
		w.offset = static_cast<std::uint32_t>(at + 20);
		break;
	}
	case 3: {
		if (!out || !imm || at + 4 > imm || at + 4 > n)
			return w;
		const std::uint64_t len = be(b + at, 4);
		if (imm + len > n)
			return w;
		w.kind = srpt::DataKind::kImmediate;
		w.len = static_cast<std::uint32_t>(len);
		w.offset = imm;
		break;
	}
	default:
		return w;
	}
	if (w.len > kMax)
		return w;
	w.ok = true;
	return w;
}

void check_cmd(const std::vector<std::uint8_t> &iu, std::uint32_t imm)
{
	const std::uint8_t *b = iu.data();
	const std::size_t n = iu.size();
	const ktl::Bytes bytes(b, n);
	srpt::SrpCmd cmd;
	const char *why = nullptr;
	const int ret = srpt::parse_srp_cmd(bytes, imm, &cmd, &why);
	const Want w = model(b, n, imm);

	FUZZ_CHECK(ret == 0 || ret == -ktl::kEINVAL, "parse_srp_cmd returned %d", ret);
	FUZZ_CHECK((ret == 0) == w.ok, "parse_srp_cmd %s (%s), the rules %s: %zu bytes, imm %u: %s",
		   ret ? "rejects" : "accepts", why ? why : "", w.ok ? "accept" : "reject", n, imm,
		   fuzz::printable(b, n).c_str());
	FUZZ_CHECK(ret == 0 || (why && *why), "a rejection without a reason");
	if (n >= 16)
		FUZZ_CHECK(cmd.tag == be(b + 8, 8), "the tag of a %zu-byte IU", n);

	srpt::DataLayout l;
	const char *why2 = nullptr;
	const int r2 = srpt::parse_data_descriptors(bytes, imm, &l, &why2);
	if (ret == 0)
		FUZZ_CHECK(r2 == 0, "descriptors rejected alone: %s", why2 ? why2 : "");
	if (ret)
		return;

	const std::size_t add = b[31] & 0xfc;
	FUZZ_CHECK(cmd.lun == srpt::scsilun_to_int(b + 20), "LUN");
	FUZZ_CHECK(cmd.sol_not == b[1], "SOL_NOT");
	FUZZ_CHECK(cmd.cdb_len <= 16 + add && 32 + cmd.cdb_len <= n, "cdb_len %u", cmd.cdb_len);
	const srpt::DataLayout &d = cmd.data;
	FUZZ_CHECK(d.dir == w.dir && d.kind == w.kind && d.data_len == w.len, "layout differs");
	FUZZ_CHECK(d.data_len <= kMax, "data_len %u", d.data_len);
	FUZZ_CHECK(l.data_len == d.data_len && l.desc_count == d.desc_count &&
			   l.desc_offset == d.desc_offset && l.imm_offset == d.imm_offset &&
			   l.direct.va == d.direct.va && l.direct.key == d.direct.key &&
			   l.direct.len == d.direct.len,
		   "parse_data_descriptors disagrees with parse_srp_cmd");
	switch (d.kind) {
	case srpt::DataKind::kNone:
		FUZZ_CHECK(d.data_len == 0 && d.desc_count == 0, "no data but %u bytes", d.data_len);
		break;
	case srpt::DataKind::kDirect:
	case srpt::DataKind::kIndirect: {
		FUZZ_CHECK(d.desc_offset == w.offset && d.desc_count == w.count, "descriptor placement");
		FUZZ_CHECK(d.desc_offset >= 48 + add, "descriptors inside the additional CDB");
		FUZZ_CHECK(d.desc_offset + std::uint64_t{d.desc_count} * 16 <= n,
			   "descriptors past the end: %u at %u of %zu", d.desc_count, d.desc_offset, n);
		std::uint64_t sum = 0;
		for (std::uint32_t i = 0; i < d.desc_count; i++) {
			const srpt::RemoteBuffer rb = srpt::descriptor_at(bytes, d, i);
			const std::uint8_t *p = b + d.desc_offset + 16 * i;
			FUZZ_CHECK(rb.va == be(p, 8) && rb.key == be(p + 8, 4) && rb.len == be(p + 12, 4),
				   "descriptor %u", i);
			sum += rb.len;
		}
		if (d.kind == srpt::DataKind::kDirect) {
			const std::uint8_t *p = b + d.desc_offset;
			FUZZ_CHECK(d.direct.va == be(p, 8) && d.direct.key == be(p + 8, 4) &&
					   d.direct.len == be(p + 12, 4),
				   "the direct descriptor carried in the layout");
		}
		FUZZ_CHECK(sum == d.data_len, "descriptors sum to %llu, data_len %u",
			   static_cast<unsigned long long>(sum), d.data_len);
		break;
	}
	case srpt::DataKind::kImmediate:
		FUZZ_CHECK(d.dir == SRPT_DATA_OUT, "immediate data-in");
		FUZZ_CHECK(imm && d.imm_offset == imm, "immediate data at %u, negotiated %u", d.imm_offset, imm);
		FUZZ_CHECK(d.imm_offset >= 48 + add + 4, "immediate data over its descriptor");
		FUZZ_CHECK(std::uint64_t{d.imm_offset} + d.data_len <= n, "immediate data past the end");
		break;
	}
}

void check_tsk_mgmt(const std::vector<std::uint8_t> &iu)
{
	srpt::SrpTskMgmt t;
	t.tag = 0x5a;
	const int ret = srpt::parse_srp_tsk_mgmt(ktl::Bytes(iu.data(), iu.size()), &t);
	FUZZ_CHECK((ret == 0) == (iu.size() >= 48), "parse_srp_tsk_mgmt returned %d for %zu bytes", ret,
		   iu.size());
	if (ret) {
		FUZZ_CHECK(t.tag == 0x5a, "a failed parse wrote its output");
		return;
	}
	const std::uint8_t *b = iu.data();
	FUZZ_CHECK(t.tag == be(b + 8, 8) && t.task_tag == be(b + 32, 8) && t.sol_not == b[1] &&
			   t.function == b[30] && t.lun == srpt::scsilun_to_int(b + 20),
		   "SRP_TSK_MGMT fields");
	srpt_tmf want;
	switch (b[30]) {
	case 0x01: want = SRPT_TMF_ABORT_TASK; break;
	case 0x02: want = SRPT_TMF_ABORT_TASK_SET; break;
	case 0x04: want = SRPT_TMF_CLEAR_TASK_SET; break;
	case 0x08: want = SRPT_TMF_LUN_RESET; break;
	case 0x40: want = SRPT_TMF_CLEAR_ACA; break;
	default: want = SRPT_TMF_UNSUPPORTED; break;
	}
	FUZZ_CHECK(t.tmf == want, "function %#x mapped to %d", b[30], t.tmf);
}

void check_scsilun(const std::uint8_t *b)
{
	/* SAM: level i's two bytes are bits 16i..16i+15, first byte high. */
	std::uint64_t want = 0;
	for (int lvl = 0; lvl < 4; lvl++)
		want |= (std::uint64_t{b[2 * lvl]} << 8 | b[2 * lvl + 1]) << (16 * lvl);
	FUZZ_CHECK(srpt::scsilun_to_int(b) == want, "scsilun_to_int");
}

void check_rsp(const std::vector<std::uint8_t> &iu, std::uint8_t sel, std::size_t room)
{
	srpt::RspHeader h;
	h.tag = iu.size() >= 16 ? be(iu.data() + 8, 8) : 0x1234;
	h.req_lim_delta = sel * 0x01010101u;
	h.req_sol_not = iu.empty() ? 0 : iu[0];
	srpt_cmd_status st{};
	st.scsi_status = iu.size() > 1 ? iu[1] : 0;
	st.residual = sel % 3;
	st.data_dir = (sel / 3) % 3;
	st.residual_count = 0xabcdef;
	/* The builder takes the sense data it is given, whatever st.sense_len says. */
	const ktl::Bytes sense = (sel & 0x40) ? ktl::Bytes() : ktl::Bytes(iu.data(), iu.size());
	st.sense_len = static_cast<std::uint16_t>(iu.size() ^ sel);
	const std::uint32_t max_len = (sel & 0x80) ? 0xffffffffu : 30 + static_cast<std::uint32_t>(iu.size() % 300);

	std::vector<std::uint8_t> out(room + 64, 0x77);
	const std::size_t n = srpt::build_cmd_rsp(h, st, sense, max_len, ktl::MutableBytes(out.data(), room));
	const std::size_t limit = std::min<std::size_t>(max_len, room);
	FUZZ_CHECK(n <= limit, "a %zu-byte SRP_RSP with max %u and room %zu", n, max_len, room);
	FUZZ_CHECK((n == 0) == (limit < 36), "no SRP_RSP (%zu) with room for one (%zu)", n, limit);
	for (std::size_t i = n; i < out.size(); i++)
		FUZZ_CHECK(out[i] == 0x77, "byte %zu written past a %zu-byte SRP_RSP", i, n);
	if (n) {
		const std::uint32_t sense_len = static_cast<std::uint32_t>(be(&out[28], 4));
		const std::uint32_t want_sense =
			static_cast<std::uint32_t>(std::min<std::size_t>(sense.size(), limit - 36));
		FUZZ_CHECK(out[0] == 0xc1 && be(&out[8], 8) == h.tag && be(&out[4], 4) == h.req_lim_delta &&
				   out[19] == st.scsi_status,
			   "SRP_RSP header");
		FUZZ_CHECK(sense_len == want_sense && n == 36 + want_sense, "sense %u of %zu, IU %zu", sense_len,
			   sense.size(), n);
		FUZZ_CHECK(!!(out[18] & 0x02) == (want_sense > 0), "SNSVALID");
		FUZZ_CHECK(!want_sense || !std::memcmp(&out[36], sense.data(), want_sense), "sense bytes");
		FUZZ_CHECK(be(&out[32], 4) == 0 && !(out[18] & 0x01), "response data in a command response");
		FUZZ_CHECK((out[18] & 0xc0) == 0 && out[2] == 0 && out[3] == 0 && out[16] == 0 && out[17] == 0,
			   "reserved bits");
		const bool good = st.scsi_status == 0;
		FUZZ_CHECK(out[1] == ((h.req_sol_not & (good ? 0x02 : 0x04)) ? 1 : 0), "SOL_NOT");
	}

	std::vector<std::uint8_t> t(room + 64, 0x77);
	const std::uint8_t code = iu.size() > 2 ? iu[2] : 0;
	const std::size_t tn = srpt::build_tmf_rsp(h, code, ktl::MutableBytes(t.data(), room));
	FUZZ_CHECK(tn == (room >= 40 ? 40u : 0u), "a %zu-byte TM response in %zu", tn, room);
	for (std::size_t i = tn; i < t.size(); i++)
		FUZZ_CHECK(t[i] == 0x77, "byte %zu written past a TM response", i);
	if (tn)
		FUZZ_CHECK(t[0] == 0xc1 && t[18] == 0x01 && be(&t[32], 4) == 4 && be(&t[36], 4) == code &&
				   t[1] == ((h.req_sol_not & (code == 0 ? 0x02 : 0x04)) ? 1 : 0),
			   "TM response fields");
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *data, std::size_t size)
{
	fuzz::init_core();
	if (size < 4)
		return 0;
	std::uint32_t imm = static_cast<std::uint32_t>(be(data, 2));
	/* Mostly offsets near the command; sometimes anything at all. */
	if (imm & 0x8000)
		imm = imm & 0x1ff;
	const std::uint8_t sel = data[2];
	const std::size_t room = data[3] * 2u;
	/* The IU in a buffer of exactly its size: ASan sees any overread. */
	const std::vector<std::uint8_t> iu(data + 4, data + size);

	check_cmd(iu, imm);
	check_cmd(iu, 0);
	check_tsk_mgmt(iu);
	if (iu.size() >= 8)
		check_scsilun(iu.data());
	check_rsp(iu, sel, room);
	fuzz::check_fake();
	return 0;
}
