// SPDX-License-Identifier: GPL-2.0-only
/* Node ACL names: parse_initiator_id, parse_ipv4, parse_ipv6, srpt_core_nacl_init. */
#include "fixture.h"

#include <srpt/initiator_id.h>

#include <arpa/inet.h>

#include <string>
#include <vector>

using srpt::InitiatorIdKind;

namespace {

using Id16 = std::vector<int>;

ktl::Span<const char> span(const std::string &s)
{
	return ktl::Span<const char>(s.data(), s.size());
}

/* 16 bytes from a hex string of 32 digits (test-side, independent). */
Id16 hex16(const std::string &h)
{
	Id16 out;
	for (std::size_t i = 0; i < 32; i += 2)
		out.push_back(std::stoi(h.substr(i, 2), nullptr, 16));
	return out;
}

Id16 bytes(const std::uint8_t *b, std::size_t n)
{
	return Id16(b, b + n);
}

const char *kind_name(InitiatorIdKind k)
{
	switch (k) {
	case InitiatorIdKind::kGuid:
		return "guid";
	case InitiatorIdKind::kHex:
		return "hex";
	case InitiatorIdKind::kIpv4:
		return "ipv4";
	case InitiatorIdKind::kIpv6:
		return "ipv6";
	}
	return "?";
}

struct Accepted {
	const char *name;
	InitiatorIdKind kind;
	const char *id;	/* 32 hex digits */
};

} // namespace

TEST_F(InitiatorId, AcceptedForms)
{
	const Accepted cases[] = {
		/* GUID: four groups of 1..4 hex digits, into bytes 8..15 */
		{"5054:00ff:fe4a:0b7b", InitiatorIdKind::kGuid, "000000000000000050540" "0fffe4a0b7b"},
		{"5054:FF:FE4A:B7B", InitiatorIdKind::kGuid, "0000000000000000505400fffe4a0b7b"},
		{"1:2:3:4", InitiatorIdKind::kGuid, "00000000000000000001000200030004"},
		{"ffff:ffff:ffff:ffff", InitiatorIdKind::kGuid, "0000000000000000ffffffffffffffff"},
		/* hex: even digit count, left-padded to 16 bytes, 0x optional */
		{"0x00000000000000000002c90300a1b2c3", InitiatorIdKind::kHex,
		 "00000000000000000002c90300a1b2c3"},
		{"fe800000000000000002C90300A1B2C3", InitiatorIdKind::kHex,
		 "fe800000000000000002c90300a1b2c3"},
		{"0X0002c90300a1b2c3", InitiatorIdKind::kHex, "00000000000000000002c90300a1b2c3"},
		{"0xab", InitiatorIdKind::kHex, "000000000000000000000000000000ab"},
		{"ab", InitiatorIdKind::kHex, "000000000000000000000000000000ab"},
		{"1234", InitiatorIdKind::kHex, "00000000000000000000000000001234"},
		/* IPv4 into bytes 12..15 */
		{"192.168.122.76", InitiatorIdKind::kIpv4, "000000000000000000000000c0a87a4c"},
		{"0.0.0.0", InitiatorIdKind::kIpv4, "00000000000000000000000000000000"},
		{"255.255.255.255", InitiatorIdKind::kIpv4, "000000000000000000000000ffffffff"},
		{"1.2.3.4", InitiatorIdKind::kIpv4, "00000000000000000000000001020304"},
		/* IPv6 */
		{"::", InitiatorIdKind::kIpv6, "00000000000000000000000000000000"},
		{"::1", InitiatorIdKind::kIpv6, "00000000000000000000000000000001"},
		{"fe80::1", InitiatorIdKind::kIpv6, "fe800000000000000000000000000001"},
		{"fe80::1%eth0", InitiatorIdKind::kIpv6, "fe800000000000000000000000000001"},
		{"fe80::5054:ff:fe4a:b7b%2", InitiatorIdKind::kIpv6, "fe80000000000000505400fffe4a0b7b"},
		{"fe80::1%ib0.8001", InitiatorIdKind::kIpv6, "fe800000000000000000000000000001"},
		{"fe80::1%en_p-1", InitiatorIdKind::kIpv6, "fe800000000000000000000000000001"},
		{"2001:db8:0:0:1:0:0:1", InitiatorIdKind::kIpv6, "20010db8000000000001000000000001"},
		{"2001:DB8::8:800:200C:417A", InitiatorIdKind::kIpv6, "20010db80000000000080800200c417a"},
		{"1::", InitiatorIdKind::kIpv6, "00010000000000000000000000000000"},
		{"1:2:3:4:5:6:7::", InitiatorIdKind::kIpv6, "00010002000300040005000600070000"},
		{"::2:3:4:5:6:7:8", InitiatorIdKind::kIpv6, "00000002000300040005000600070008"},
		{"::ffff:192.168.122.76", InitiatorIdKind::kIpv6, "00000000000000000000ffffc0a87a4c"},
		{"::1.2.3.4", InitiatorIdKind::kIpv6, "00000000000000000000000001020304"},
		{"1:2:3:4:5:6:1.2.3.4", InitiatorIdKind::kIpv6, "00010002000300040005000601020304"},
		{"64:ff9b::192.0.2.33", InitiatorIdKind::kIpv6, "0064ff9b0000000000000000c0000221"},
		/* Four groups, but one "::": IPv6, not a GUID */
		{"5054::fe4a:0b7b:1", InitiatorIdKind::kIpv6, "50540000000000000000fe4a0b7b0001"},
	};
	for (const Accepted &c : cases) {
		const std::string id = c.id;
		srpt::InitiatorId out;
		out.kind = InitiatorIdKind::kIpv4;
		std::memset(out.id, 0xee, sizeof(out.id));
		ASSERT_EQ(0, srpt::parse_initiator_id(span(c.name), &out)) << c.name;
		EXPECT_EQ(c.kind, out.kind) << c.name << " parsed as " << kind_name(out.kind);
		EXPECT_EQ(hex16(id), bytes(out.id, 16)) << c.name;
		EXPECT_EQ(0, srpt_core_nacl_init(c.name)) << c.name;
	}
	EXPECT_EQ(0, fake::log_count("invalid initiator port ID"));
}

TEST_F(InitiatorId, Rejected)
{
	const std::string bad[] = {
		"",
		/* GUID-like */
		"5054:00ff:fe4a",
		"5054:00ff:fe4a:0b7b:1",
		"5054:00ff:fe4a:0b7bb",
		"50540:0ff:fe4a:0b7b",
		"5054:00ff:fe4a:",
		":5054:00ff:fe4a:0b7b",
		"5054:00ff:fe4a:0b7g",
		/* hex: odd length, too many digits, junk */
		"0x",
		"0xabc",
		"abc",
		"a",
		"0x" + std::string(33, 'a'),
		"0x" + std::string(34, 'a'),
		std::string(34, 'a'),
		"0x0002c90300a1b2cg",
		"0xx0",
		/* IPv4 */
		"256.1.1.1",
		"1.1.1.256",
		"1.2.3",
		"1.2.3.4.5",
		".1.2.3.4",
		"1.2.3.4.",
		"1..2.3",
		"1.2.3.0004",
		"1234.1.1.1",
		"1.2.3.-4",
		"1.2.3.4 ",
		"1.2.3.4%eth0",
		/* IPv6 */
		":",
		":1",
		"1:",
		":::",
		"1:::2",
		"1::2::3",
		"::1::",
		"1:2:3:4:5:6:7:8:9",
		"1:2:3:4:5:6:7",
		"12345::1",
		"::g",
		"1:2:3:4:5:6:7:8::",		/* "::" must stand for at least one group */
		"::1:2:3:4:5:6:7:8",
		"1::2:3:4:5:6:7:8",
		"1:2:3:4:5:6:7:1.2.3.4",	/* IPv4 where only one group fits */
		"::1.2.3.4:1",			/* IPv4 only at the end */
		"::1.2.3",
		"::256.1.1.1",
		"1.2.3.4::",
		"fe80::1%",			/* empty scope */
		"fe80::1%eth 0",
		"fe80::1%eth0%1",
		"fe80::1%eth/0",
		"fe80::1%0123456789abcdef",	/* longer than an interface name */
		"%eth0",
		"fe80::1 ",
		/* too long */
		std::string(65, '1'),
		"0x" + std::string(63, '0'),
	};
	for (const std::string &n : bad) {
		srpt::InitiatorId out;
		out.kind = InitiatorIdKind::kIpv4;
		out.id[0] = 0xee;
		EXPECT_EQ(-ktl::kEINVAL, srpt::parse_initiator_id(span(n), &out)) << '"' << n << '"';
		EXPECT_EQ(InitiatorIdKind::kIpv4, out.kind) << "output written on failure: " << n;
		EXPECT_EQ(0xee, out.id[0]) << "output written on failure: " << n;
		EXPECT_EQ(-ktl::kEINVAL, srpt_core_nacl_init(n.c_str())) << '"' << n << '"';
	}
	EXPECT_GE(fake::log_count("invalid initiator port ID", SRPT_LOG_ERR), 50);
}

TEST_F(InitiatorId, EmbeddedNulAndLengthLimit)
{
	srpt::InitiatorId out;
	const std::string with_nul("1.2.3.4\0", 8);

	EXPECT_EQ(-ktl::kEINVAL, srpt::parse_initiator_id(span(with_nul), &out));
	const std::string nul_inside("5054:00ff\0fe4a:0b7b", 19);
	EXPECT_EQ(-ktl::kEINVAL, srpt::parse_initiator_id(span(nul_inside), &out));

	/* The longest names of the valid forms fit the 64-character limit. */
	const std::string longest = "0000:0000:0000:0000:0000:ffff:255.255.255.255%abcdefghijklmno";
	ASSERT_EQ(61u, longest.size());
	EXPECT_EQ(0, srpt::parse_initiator_id(span(longest), &out));
	EXPECT_EQ(InitiatorIdKind::kIpv6, out.kind);
	EXPECT_EQ(-ktl::kEINVAL, srpt::parse_initiator_id(span(longest + "xxxx"), &out));
}

TEST_F(InitiatorId, NaclLongNameIsRejectedAndLoggedTruncated)
{
	const std::string name(300, 'a');

	EXPECT_EQ(-ktl::kEINVAL, srpt_core_nacl_init(name.c_str()));
	const auto logs = fake::logs();
	ASSERT_EQ(1u, logs.size());
	/* The name in the message is cut at 64 characters. */
	EXPECT_NE(std::string::npos, logs[0].text.find("'" + std::string(64, 'a') + "'"));
	EXPECT_EQ(std::string::npos, logs[0].text.find(std::string(65, 'a')));
}

TEST_F(InitiatorId, Ipv4Direct)
{
	std::uint8_t out[4] = {};

	ASSERT_TRUE(srpt::parse_ipv4(span("10.0.255.1"), out));
	EXPECT_EQ((Id16{10, 0, 255, 1}), bytes(out, 4));
	ASSERT_TRUE(srpt::parse_ipv4(span("010.001.000.009"), out));
	EXPECT_EQ((Id16{10, 1, 0, 9}), bytes(out, 4));
	EXPECT_FALSE(srpt::parse_ipv4(span("256.0.0.0"), out));
	EXPECT_FALSE(srpt::parse_ipv4(span("1.2.3.4."), out));
	EXPECT_FALSE(srpt::parse_ipv4(span(".1.2.3"), out));
	EXPECT_FALSE(srpt::parse_ipv4(span("1.2.3.1000"), out));
	EXPECT_FALSE(srpt::parse_ipv4(span("0001.2.3.4"), out));
	EXPECT_FALSE(srpt::parse_ipv4(span(""), out));
	EXPECT_FALSE(srpt::parse_ipv4(span("1.2.3.4\n"), out));
}

TEST_F(InitiatorId, Ipv6AgreesWithInetPton)
{
	/* glibc's inet_pton as an independent oracle, for names without IPv4 leading zeros. */
	const char *names[] = {
		"::", "::1", "1::", "fe80::1", "1:2:3:4:5:6:7:8", "1:2:3:4:5:6:7::",
		"::2:3:4:5:6:7:8", "1:2:3:4:5:6:7:8::", "::1:2:3:4:5:6:7:8", "1::2:3:4:5:6:7:8",
		"1:2::3:4", "1:2:3::4:5:6:7", "ffff::ffff", "::ffff:1.2.3.4", "1:2:3:4:5:6:1.2.3.4",
		"1:2:3:4:5:6:7:1.2.3.4", "1:2:3:4:5::1.2.3.4", "::1.2.3.4", "1.2.3.4", ":::",
		"1:::2", "1::2::3", "12345::", "abcd:ef01:2345:6789:abcd:ef01:2345:6789", "0:0::0:0",
		"::0:0:0:0:0:0:0", "0:0:0:0:0:0:0::", "1:2:3:4:5:6:7:8:9", "1:", ":1", "1",
		"::ffff:256.1.1.1", "::1.2.3.4.5", "a:b:c:d:e:f:1.2.3.4",
	};
	for (const char *n : names) {
		std::uint8_t want[16], got[16];
		const bool ok_want = inet_pton(AF_INET6, n, want) == 1;
		const bool ok_got = srpt::parse_ipv6(span(n), got);
		EXPECT_EQ(ok_want, ok_got) << n;
		if (ok_want && ok_got) {
			EXPECT_EQ(bytes(want, 16), bytes(got, 16)) << n;
		}
	}
}
