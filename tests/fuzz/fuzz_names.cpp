// SPDX-License-Identifier: GPL-2.0-only
/*
 * Fuzzes the name and number parsers on arbitrary strings:
 * parse_port_name, parse_hex_bytes, parse_initiator_id, parse_u64,
 * srpt_core_nacl_init, srpt_lookup_port, and the configfs stores (TPG
 * attributes, rdma_cm_port) of a fake port.
 *
 * Input: [0] selects the parse_u64 base/maximum, the attribute and the
 * size of parse_hex_bytes's output, the rest is the string (NULs
 * included).
 *
 * Invariants: a parsed port name formats back to the lower-cased input;
 * the NUL-terminated and counted forms agree; parse_hex_bytes and
 * parse_u64 agree with reference parsers; an initiator id has the first
 * of its documented forms a reference finds (an address being what the
 * shim's srpt_os_inet_pton() says); a store either takes the value (show
 * reads it back) or changes nothing; lookups take no reference they do
 * not return.
 */
#include "../doubles/port_api.h"
#include "fuzz_common.h"

#include <ktl/errno.h>
#include <ktl/string.h>
#include <srpt/device.h>
#include <srpt/handles.h>
#include <srpt/initiator_id.h>
#include <srpt/port_name.h>

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <cstring>
#include <string>

namespace {

using Text = ktl::Span<const char>;
using srpt::PortNameKind;

std::string lower(std::string s)
{
	for (char &c : s)
		c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
	return s;
}


/* ---- port names ---- */

void check_port_name(const std::string &s)
{
	srpt::ParsedPortName p;
	const int ret = srpt::parse_port_name(Text(s.data(), s.size()), &p);

	FUZZ_CHECK(ret == 0 || ret == -ktl::kEINVAL, "parse_port_name returned %d", ret);
	if (s.find('\0') == std::string::npos && s.size() < 64) {
		srpt::ParsedPortName q;
		FUZZ_CHECK(srpt::parse_port_name(s.c_str(), &q) == ret, "C-string form disagrees");
	}
	if (ret)
		return;
	if (p.kind == PortNameKind::kGuid) {
		srpt::GuidName n;
		srpt::format_guid_name(p.gid, &n);
		FUZZ_CHECK(lower(s) == n.c_str(), "'%s' formats back as '%s'", s.c_str(), n.c_str());
		for (int i = 0; i < 8; i++)
			FUZZ_CHECK(p.gid.raw[i] == 0, "GUID form set a prefix byte");
	} else {
		FUZZ_CHECK(p.kind == PortNameKind::kGid, "kind %d", static_cast<int>(p.kind));
		srpt::GidName n;
		srpt::format_gid_name(p.gid, &n);
		FUZZ_CHECK(lower(s) == n.c_str(), "'%s' formats back as '%s'", s.c_str(), n.c_str());
	}
	FUZZ_CHECK(p.matches(p.gid), "a name does not match its own GID");
}

/* ---- hex ---- */

bool all_hex(const std::string &s)
{
	return !s.empty() && std::all_of(s.begin(), s.end(), [](char c) {
		return std::isxdigit(static_cast<unsigned char>(c)) != 0;
	});
}

/* parse_hex_bytes() against strtoul on 2-digit slices, left-padded by hand. */
void check_hex_bytes(const std::string &s, std::uint8_t sel)
{
	const std::size_t n = 1 + (sel & 15);	/* 1..16 bytes */
	std::uint8_t got[16], want[16] = {};
	std::memset(got, 0x5a, sizeof(got));
	const int ret = ktl::parse_hex_bytes(Text(s.data(), s.size()), got, n);
	const bool ok = s.size() <= 2 * n && all_hex(s);

	FUZZ_CHECK(ret == (ok ? 0 : -ktl::kEINVAL), "parse_hex_bytes('%s', %zu) = %d", s.c_str(),
		   n, ret);
	if (!ok) {
		for (std::size_t i = 0; i < n; i++)
			FUZZ_CHECK(got[i] == 0x5a, "parse_hex_bytes wrote on failure");
		return;
	}
	const std::string padded = std::string(2 * n - s.size(), '0') + s;
	for (std::size_t i = 0; i < n; i++)
		want[i] = static_cast<std::uint8_t>(std::strtoul(padded.substr(2 * i, 2).c_str(),
								  nullptr, 16));
	FUZZ_CHECK(std::memcmp(got, want, n) == 0, "parse_hex_bytes('%s', %zu) bytes", s.c_str(),
		   n);
}

/* ---- initiator ids ---- */

/* Four ':'-separated groups of 1..4 hex digits. */
bool ref_guid(const std::string &s)
{
	std::size_t start = 0;
	for (int g = 0; g < 4; g++) {
		const std::size_t colon = s.find(':', start);
		if ((colon == std::string::npos) != (g == 3))
			return false;
		const std::string group = s.substr(start, colon - start);
		if (!all_hex(group) || group.size() > 4)
			return false;
		start = colon + 1;
	}
	return true;
}

/* An even number (2..32) of hex digits, optionally after 0x. */
bool ref_hex(std::string s)
{
	if (s.size() >= 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X'))
		s = s.substr(2);
	return all_hex(s) && s.size() % 2 == 0 && s.size() <= 32;
}

/*
 * The first form @s has, tried in order, an address last and as the
 * kernel (here the fake's srpt_os_inet_pton()) reads it.
 */
int ref_initiator_id(const std::string &s, srpt::InitiatorIdKind *kind)
{
	if (s.find('\0') != std::string::npos)
		return -ktl::kEINVAL;
	if (ref_guid(s))
		*kind = srpt::InitiatorIdKind::kGuid;
	else if (ref_hex(s))
		*kind = srpt::InitiatorIdKind::kHex;
	else if (srpt_os_inet_pton(s.data(), s.size()) == 0)
		*kind = srpt::InitiatorIdKind::kAddress;
	else
		return -ktl::kEINVAL;
	return 0;
}

void check_initiator_id(const std::string &s)
{
	srpt::InitiatorIdKind kind = srpt::InitiatorIdKind::kGuid;
	srpt::InitiatorIdKind want_kind = srpt::InitiatorIdKind::kGuid;
	const int ret = srpt::parse_initiator_id(Text(s.data(), s.size()), &kind);
	const int want = ref_initiator_id(s, &want_kind);

	FUZZ_CHECK(ret == want, "parse_initiator_id('%s') = %d, reference %d", s.c_str(), ret,
		   want);
	FUZZ_CHECK(kind == want_kind, "parse_initiator_id('%s') form %d, reference %d", s.c_str(),
		   static_cast<int>(kind), static_cast<int>(want_kind));
	if (s.find('\0') == std::string::npos)
		FUZZ_CHECK(srpt_core_nacl_init(s.c_str()) == ret, "srpt_core_nacl_init disagrees");
}

/* ---- numbers ---- */

/* kstrtoull-like, written from the documented rules with 128-bit arithmetic. */
int ref_parse_u64(const std::string &in, unsigned base, std::uint64_t max, std::uint64_t *out)
{
	std::size_t len = in.size(), i = 0;
	if (len && in[len - 1] == '\n')
		len--;
	auto has_0x = [&] { return len >= 2 && in[0] == '0' && (in[1] == 'x' || in[1] == 'X'); };
	if (base == 0) {
		if (has_0x()) {
			base = 16;
			i = 2;
		} else if (len >= 2 && in[0] == '0') {
			base = 8;
			i = 1;
		} else {
			base = 10;
		}
	} else if (base == 16 && has_0x()) {
		i = 2;
	}
	if (i >= len)
		return -ktl::kEINVAL;
	unsigned __int128 v = 0;
	for (; i < len; i++) {
		const char c = in[i];
		int d = c >= '0' && c <= '9' ? c - '0'
			: c >= 'a' && c <= 'f' ? c - 'a' + 10
			: c >= 'A' && c <= 'F' ? c - 'A' + 10
			: 99;
		if (d >= static_cast<int>(base))
			return -ktl::kEINVAL;
		v = v * base + static_cast<unsigned>(d);
		if (v > ~std::uint64_t{0})
			return -ktl::kERANGE;
	}
	if (v > max)
		return -ktl::kERANGE;
	*out = static_cast<std::uint64_t>(v);
	return 0;
}

void check_u64(const std::string &s, std::uint8_t sel)
{
	static const unsigned bases[4] = {0, 8, 10, 16};
	static const std::uint64_t maxes[4] = {~0ull, 65535, 1, 0xffffffffull};
	const unsigned base = bases[sel & 3];
	const std::uint64_t max = maxes[sel >> 2 & 3];
	ktl::u64 got = 0x5a5a;
	std::uint64_t want = 0x5a5a;
	const int ret = ktl::parse_u64(Text(s.data(), s.size()), base, max, &got);
	const int ref = ref_parse_u64(s, base, max, &want);

	FUZZ_CHECK(ret == ref, "parse_u64('%s', %u, %llu) = %d, reference %d", s.c_str(), base,
		   static_cast<unsigned long long>(max), ret, ref);
	FUZZ_CHECK(got == want, "parse_u64('%s') value %llu, reference %llu", s.c_str(),
		   static_cast<unsigned long long>(got), static_cast<unsigned long long>(want));
}

/* ---- configfs stores on a fake port ---- */

struct Lio {
	fake::Device *dev;
	srpt_tport *tport;
	srpt_tpg *tpg;
	srpt_os_tport os_tport;
	srpt_os_tpg os_tpg;
};

Lio &lio()
{
	static Lio *l = [] {
		fuzz::init_core();
		/* A small SRQ: use_srq switches build and tear it down. */
		if (srpt_core_param_set(SRPT_PARAM_SRQ_SIZE, "4"))
			std::abort();
		auto *x = new Lio{};
		x->dev = fake::make_device("mlx5_0", 1, 0x0002c90300a1b2c0ull).release();
		if (fake::add(*x->dev) || srpt_core_tport_create(fake::guid_name(*x->dev, 1).c_str(),
								   &x->os_tport, &x->tport) ||
		    srpt_core_tpg_create(x->tport, "tpg_1", &x->os_tpg, &x->tpg))
			std::abort();
		fake::take_trace();
		return x;
	}();
	return *l;
}

std::string show(srpt_tpg *tpg, srpt_tpg_attrib a)
{
	char page[64];
	const srpt_ssize_t n = srpt_core_tpg_attrib_show(tpg, a, page, sizeof(page));
	FUZZ_CHECK(n > 0, "show failed: %zd", n);
	return std::string(page, static_cast<std::size_t>(n));
}

void check_stores(const std::string &s, std::uint8_t sel)
{
	static const struct {
		srpt_tpg_attrib a;
		std::uint64_t min, max;
	} attrs[4] = {
		{SRPT_ATTRIB_MAX_RDMA_SIZE, 65536, 16777216},
		{SRPT_ATTRIB_MAX_RSP_SIZE, 40, 1024},
		{SRPT_ATTRIB_SQ_SIZE, 4, 65535},
		{SRPT_ATTRIB_USE_SRQ, 0, 1},
	};
	Lio &l = lio();
	const auto &at = attrs[sel >> 4 & 3];
	/* configfs hands over a page: NUL-terminated after count bytes. */
	const std::string page = s;
	const std::string before = show(l.tpg, at.a);
	std::uint64_t v = 0;
	const std::string parsed = s.substr(0, std::strlen(s.c_str()));
	const bool valid = ref_parse_u64(parsed, 0, at.max, &v) == 0 && v >= at.min;
	const srpt_ssize_t ret = srpt_core_tpg_attrib_store(l.tpg, at.a, page.c_str(), page.size());

	if (valid) {
		FUZZ_CHECK(ret == static_cast<srpt_ssize_t>(page.size()), "store of '%s' returned %zd",
			   parsed.c_str(), ret);
		FUZZ_CHECK(show(l.tpg, at.a) == std::to_string(v) + "\n", "store of '%s' reads back %s",
			   parsed.c_str(), show(l.tpg, at.a).c_str());
	} else {
		FUZZ_CHECK(ret == -ktl::kEINVAL, "store of invalid '%s' returned %zd", parsed.c_str(), ret);
		FUZZ_CHECK(show(l.tpg, at.a) == before, "a refused store changed the value");
	}

	/* rdma_cm_port: 0..65535 */
	char cm_before[32];
	srpt_core_rdma_cm_port_show(cm_before, sizeof(cm_before));
	const bool cm_valid = ref_parse_u64(parsed, 0, 65535, &v) == 0;
	const srpt_ssize_t cret = srpt_core_rdma_cm_port_store(page.c_str(), page.size());
	char cm_after[32];
	srpt_core_rdma_cm_port_show(cm_after, sizeof(cm_after));
	if (cm_valid) {
		FUZZ_CHECK(cret == static_cast<srpt_ssize_t>(page.size()), "rdma_cm_port store %zd", cret);
		FUZZ_CHECK(std::string(cm_after) == std::to_string(v) + "\n", "rdma_cm_port reads %s",
			   cm_after);
		FUZZ_CHECK(fake::listening_port() == static_cast<int>(v), "listener on %d",
			   fake::listening_port());
	} else {
		FUZZ_CHECK(cret == -ktl::kEINVAL, "rdma_cm_port store of invalid value: %zd", cret);
		FUZZ_CHECK(std::strcmp(cm_before, cm_after) == 0, "rdma_cm_port changed");
	}
}

void check_lookup(const std::string &s)
{
	Lio &l = lio();
	srpt::RdmaPort *p = srpt::from_handle<srpt::Device>(l.dev->core)->port(1);
	const int refs = p->ref_count_debug();
	const port_and_port_id r = srpt_lookup_port(s.c_str());

	if (r.sport) {
		FUZZ_CHECK(r.sport == srpt::to_handle<srpt_port>(p), "found another port");
		FUZZ_CHECK(p->ref_count_debug() == refs + 1, "lookup took %d references",
			   p->ref_count_debug() - refs);
		srpt_port_put_ref(r.sport);
	} else {
		FUZZ_CHECK(r.port_id == SRPT_PORT_ID_NONE, "kind without a port");
	}
	FUZZ_CHECK(p->ref_count_debug() == refs, "reference leaked by a lookup of '%s'", s.c_str());
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *data, std::size_t size)
{
	if (size < 1)
		return 0;
	const std::uint8_t sel = data[0];
	const std::string s(reinterpret_cast<const char *>(data + 1), size - 1);

	check_port_name(s);
	check_hex_bytes(s, sel);
	check_initiator_id(s);
	check_u64(s, sel);
	check_lookup(s);
	check_stores(s, sel);
	fuzz::check_fake();
	return 0;
}
