// SPDX-License-Identifier: GPL-2.0-only
/*
 * Fuzzes the name and number parsers on arbitrary strings:
 * parse_port_name, parse_initiator_id (and parse_ipv4/parse_ipv6),
 * parse_u64, srpt_core_nacl_init, srpt_lookup_port, and the configfs
 * stores (TPG attributes, rdma_cm_port) of a fake port.
 *
 * Input: [0] selects the parse_u64 base/maximum and the attribute, the
 * rest is the string (NULs included).
 *
 * Invariants: a parsed port name formats back to the lower-cased input;
 * the NUL-terminated and counted forms agree; an initiator id is one of
 * its documented forms with the documented bytes (glibc's inet_pton as
 * the oracle for addresses); parse_u64 agrees with a reference parser;
 * a store either takes the value (show reads it back) or changes
 * nothing; lookups take no reference they do not return.
 */
#include "fuzz_common.h"

#include <ktl/errno.h>
#include <ktl/string.h>
#include <srpt/device.h>
#include <srpt/handles.h>
#include <srpt/initiator_id.h>
#include <srpt/port_name.h>

#include <arpa/inet.h>

#include <algorithm>
#include <cctype>
#include <cstring>
#include <string>

namespace {

using Text = ktl::Span<const char>;

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
	if (p.kind == SRPT_PORT_ID_GUID) {
		srpt::GuidName n;
		srpt::format_guid_name(p.gid, &n);
		FUZZ_CHECK(lower(s) == n.c_str(), "'%s' formats back as '%s'", s.c_str(), n.c_str());
		for (int i = 0; i < 8; i++)
			FUZZ_CHECK(p.gid.raw[i] == 0, "GUID form set a prefix byte");
	} else {
		FUZZ_CHECK(p.kind == SRPT_PORT_ID_GID, "kind %d", p.kind);
		srpt::GidName n;
		srpt::format_gid_name(p.gid, &n);
		FUZZ_CHECK(lower(s) == n.c_str(), "'%s' formats back as '%s'", s.c_str(), n.c_str());
	}
	FUZZ_CHECK(p.matches(p.gid), "a name does not match its own GID");
}

/* ---- initiator ids ---- */

/* IPv4 text inet_pton accepts equally: dotted quad without leading zeros. */
bool plain_ipv4(const std::string &s)
{
	if (s.find('\0') != std::string::npos)
		return false;
	for (std::size_t i = 0; i < s.size(); i++)
		if (s[i] == '0' && (i == 0 || s[i - 1] == '.' || s[i - 1] == ':') && i + 1 < s.size() &&
		    std::isdigit(static_cast<unsigned char>(s[i + 1])))
			return false;
	return true;
}

void check_ipv4(const std::string &s)
{
	std::uint8_t got[4], want[4];
	const bool ok = srpt::parse_ipv4(Text(s.data(), s.size()), got);

	if (!plain_ipv4(s))
		return;
	const bool ok_want = inet_pton(AF_INET, s.c_str(), want) == 1;
	FUZZ_CHECK(ok == ok_want, "parse_ipv4('%s') = %d, inet_pton says %d", s.c_str(), ok, ok_want);
	if (ok)
		FUZZ_CHECK(std::memcmp(got, want, 4) == 0, "parse_ipv4('%s') bytes", s.c_str());
}

/* IPv6 text inet_pton reads equally: an embedded IPv4 part without leading zeros. */
bool plain_ipv6(const std::string &s)
{
	if (s.find('\0') != std::string::npos)
		return false;
	const std::size_t colon = s.rfind(':');
	return plain_ipv4(colon == std::string::npos ? s : s.substr(colon + 1));
}

void check_ipv6(const std::string &s)
{
	std::uint8_t got[16], want[16];
	const bool ok = srpt::parse_ipv6(Text(s.data(), s.size()), got);

	if (!plain_ipv6(s))
		return;
	const bool ok_want = inet_pton(AF_INET6, s.c_str(), want) == 1;
	FUZZ_CHECK(ok == ok_want, "parse_ipv6('%s') = %d, inet_pton says %d", s.c_str(), ok, ok_want);
	if (ok)
		FUZZ_CHECK(std::memcmp(got, want, 16) == 0, "parse_ipv6('%s') bytes", s.c_str());
}

void check_initiator_id(const std::string &s)
{
	srpt::InitiatorId id;
	const int ret = srpt::parse_initiator_id(Text(s.data(), s.size()), &id);

	FUZZ_CHECK(ret == 0 || ret == -ktl::kEINVAL, "parse_initiator_id returned %d", ret);
	if (s.find('\0') == std::string::npos)
		FUZZ_CHECK(srpt_core_nacl_init(s.c_str()) == ret, "srpt_core_nacl_init disagrees");
	if (ret)
		return;
	FUZZ_CHECK(!s.empty() && s.size() <= 64, "accepted a name of %zu bytes", s.size());
	static const std::uint8_t zero[16] = {};
	switch (id.kind) {
	case srpt::InitiatorIdKind::kGuid:
		FUZZ_CHECK(std::memcmp(id.id, zero, 8) == 0, "GUID id with a non-zero prefix: '%s'",
			   s.c_str());
		FUZZ_CHECK(std::count(s.begin(), s.end(), ':') == 3, "GUID '%s'", s.c_str());
		break;
	case srpt::InitiatorIdKind::kHex: {
		std::string h = s;
		if (h.size() >= 2 && h[0] == '0' && (h[1] == 'x' || h[1] == 'X'))
			h = h.substr(2);
		FUZZ_CHECK(!h.empty() && h.size() % 2 == 0 && h.size() <= 32, "hex '%s'", s.c_str());
		h = std::string(32 - h.size(), '0') + lower(h);
		char buf[3];
		std::string got;
		for (std::uint8_t b : id.id) {
			std::snprintf(buf, sizeof(buf), "%02x", b);
			got += buf;
		}
		FUZZ_CHECK(got == h, "hex '%s' parsed as %s", s.c_str(), got.c_str());
		break;
	}
	case srpt::InitiatorIdKind::kIpv4: {
		FUZZ_CHECK(std::memcmp(id.id, zero, 12) == 0, "IPv4 id '%s' with garbage in bytes 0..11",
			   s.c_str());
		std::uint8_t a[4];
		FUZZ_CHECK(srpt::parse_ipv4(Text(s.data(), s.size()), a) &&
				   std::memcmp(a, id.id + 12, 4) == 0,
			   "IPv4 '%s'", s.c_str());
		break;
	}
	case srpt::InitiatorIdKind::kIpv6: {
		const std::string addr = s.substr(0, s.find('%'));
		std::uint8_t want[16];
		if (plain_ipv6(addr))
			FUZZ_CHECK(inet_pton(AF_INET6, addr.c_str(), want) == 1 &&
					   std::memcmp(want, id.id, 16) == 0,
				   "IPv6 '%s' that inet_pton does not read the same", s.c_str());
		break;
	}
	}
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
	check_initiator_id(s);
	check_ipv4(s);
	check_ipv6(s);
	check_u64(s, sel);
	check_lookup(s);
	check_stores(s, sel);
	fuzz::check_fake();
	return 0;
}
