// SPDX-License-Identifier: GPL-2.0-only
/* Node ACL names: parse_initiator_id, srpt_core_nacl_init. */
#include "fixture.h"

#include <srpt/initiator_id.h>

#include <arpa/inet.h>

#include <cerrno>
#include <cstring>
#include <iterator>
#include <string>

using srpt::InitiatorIdKind;

namespace {

int parse(const std::string &s, InitiatorIdKind *out)
{
	return srpt::parse_initiator_id(ktl::Span<const char>(s.data(), s.size()), out);
}

const char *kind_name(InitiatorIdKind k)
{
	switch (k) {
	case InitiatorIdKind::kGuid:
		return "guid";
	case InitiatorIdKind::kHex:
		return "hex";
	case InitiatorIdKind::kAddress:
		return "address";
	}
	return "?";
}

} // namespace

TEST_F(InitiatorId, AcceptedForms)
{
	const struct {
		const char *name;
		InitiatorIdKind kind;
	} cases[] = {
		/* GUID: four groups of 1..4 hex digits */
		{"5054:00ff:fe4a:0b7b", InitiatorIdKind::kGuid},
		{"5054:FF:FE4A:B7B", InitiatorIdKind::kGuid},
		{"1:2:3:4", InitiatorIdKind::kGuid},
		{"ffff:ffff:ffff:ffff", InitiatorIdKind::kGuid},
		/* hex: an even number of digits, up to 32, 0x optional */
		{"0x00000000000000000002c90300a1b2c3", InitiatorIdKind::kHex},
		{"fe800000000000000002C90300A1B2C3", InitiatorIdKind::kHex},
		{"0X0002c90300a1b2c3", InitiatorIdKind::kHex},
		{"0xab", InitiatorIdKind::kHex},
		{"ab", InitiatorIdKind::kHex},
		{"1234", InitiatorIdKind::kHex},
		/* addresses, as srpt_os_inet_pton() reads them */
		{"192.168.122.76", InitiatorIdKind::kAddress},
		{"0.0.0.0", InitiatorIdKind::kAddress},
		{"255.255.255.255", InitiatorIdKind::kAddress},
		{"::", InitiatorIdKind::kAddress},
		{"::1", InitiatorIdKind::kAddress},
		{"fe80::5054:ff:fe4a:b7b", InitiatorIdKind::kAddress},
		{"fe80::5054:ff:fe4a:b7b%srpt0", InitiatorIdKind::kAddress},
		{"fe80::1%2", InitiatorIdKind::kAddress},
		{"2001:db8:0:0:1:0:0:1", InitiatorIdKind::kAddress},
		{"2001:DB8::8:800:200C:417A", InitiatorIdKind::kAddress},
		{"1:2:3:4:5:6:7::", InitiatorIdKind::kAddress},
		{"::ffff:192.168.122.76", InitiatorIdKind::kAddress},
		{"64:ff9b::192.0.2.33", InitiatorIdKind::kAddress},
		/* Four groups, but one "::": IPv6, not a GUID */
		{"5054::fe4a:0b7b:1", InitiatorIdKind::kAddress},
	};
	for (const auto &c : cases) {
		InitiatorIdKind kind = InitiatorIdKind::kHex;
		ASSERT_EQ(0, parse(c.name, &kind)) << c.name;
		EXPECT_EQ(c.kind, kind) << c.name << " parsed as " << kind_name(kind);
		EXPECT_EQ(0, srpt_core_nacl_init(c.name)) << c.name;
	}
	EXPECT_EQ(0, fake::log_count("invalid initiator port ID"));
}

/* Every accepted form but 0x and 32 hex digits is one rtslib cannot read: said once, as a warning. */
TEST_F(InitiatorId, NamesRtslibCannotReadAreWarnedOf)
{
	const char *readable[] = {"0xfe800000000000005054001234567890", "0XFE800000000000005054001234567890"};
	const char *unreadable[] = {"fe800000000000005054001234567890", "0x5054001234567890",
				    "5054:00ff:fe4a:0b7b", "10.0.0.1", "fe80::5054:ff:fe4a:b7b"};

	for (const char *n : readable)
		EXPECT_EQ(0, srpt_core_nacl_init(n)) << n;
	EXPECT_EQ(0, fake::log_count("cannot read this name"));
	for (const char *n : unreadable) {
		EXPECT_EQ(0, srpt_core_nacl_init(n)) << n;
		EXPECT_EQ(1, fake::log_count(std::string("node ACL ") + n +
					     ": targetcli and rtslib cannot read this name", SRPT_LOG_WARN))
			<< n;
	}
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
		/* addresses the kernel does not read */
		"256.1.1.1",
		"1.2.3",
		"1.2.3.4.5",
		"1..2.3",
		"1.2.3.4 ",
		"1.2.3.4%eth0",
		"1:::2",
		"1::2::3",
		"1:2:3:4:5:6:7:8:9",
		"1:2:3:4:5:6:7",
		"12345::1",
		"::g",
		"1:2:3:4:5:6:7:8::",
		"::256.1.1.1",
		"fe80::1%",
		"fe80::1%eth0%1",
		"%eth0",
		/* an address, but not the whole name */
		"1.2.3.4:5",
		"::ffff:1.2.3.4:5",
		"::1.2.3.4:1",
		/* too long for any form */
		std::string(65, '1'),
		"0x" + std::string(63, '0'),
	};
	for (const std::string &n : bad) {
		InitiatorIdKind kind = InitiatorIdKind::kGuid;
		EXPECT_EQ(-ktl::kEINVAL, parse(n, &kind)) << '"' << n << '"';
		EXPECT_EQ(InitiatorIdKind::kGuid, kind) << "output written on failure: " << n;
		EXPECT_EQ(-ktl::kEINVAL, srpt_core_nacl_init(n.c_str())) << '"' << n << '"';
	}
	EXPECT_EQ(static_cast<int>(std::size(bad)),
		  fake::log_count("invalid initiator port ID", SRPT_LOG_ERR));
}

TEST_F(InitiatorId, AddressesAreTheKernelsToRead)
{
	InitiatorIdKind kind;

	/* GUID and hex names are the core's: the kernel's parser never sees them. */
	ASSERT_EQ(0, parse("5054:00ff:fe4a:0b7b", &kind));
	ASSERT_EQ(0, parse("0x1234", &kind));
	EXPECT_EQ(0, fake::calls("srpt_os_inet_pton"));

	/* Anything else is an address exactly when the kernel says so. */
	fake::fail_call("srpt_os_inet_pton", 1, -EINVAL);
	EXPECT_EQ(-ktl::kEINVAL, parse("192.168.122.76", &kind));
	EXPECT_EQ(0, parse("192.168.122.76", &kind));
	EXPECT_EQ(InitiatorIdKind::kAddress, kind);
	EXPECT_EQ(2, fake::calls("srpt_os_inet_pton"));

	/* A link-local scope names an interface the kernel has, or a number. */
	EXPECT_EQ(0, parse("fe80::1%srpt0", &kind));
	fake::config().netdevs.clear();
	EXPECT_EQ(-ktl::kEINVAL, parse("fe80::1%srpt0", &kind));
	EXPECT_EQ(0, parse("fe80::1%3", &kind));
}

TEST_F(InitiatorId, EmbeddedNulIsAnError)
{
	InitiatorIdKind kind;

	EXPECT_EQ(-ktl::kEINVAL, parse(std::string("1.2.3.4\0", 8), &kind));
	EXPECT_EQ(-ktl::kEINVAL, parse(std::string("5054:00ff\0fe4a:0b7b", 19), &kind));
	EXPECT_EQ(-ktl::kEINVAL, parse(std::string("0x12\0", 5), &kind));
	/* The NUL is refused before anything reaches the kernel's C-string parser. */
	EXPECT_EQ(0, fake::calls("srpt_os_inet_pton"));
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

/* ---- format_address: the name an RDMA/CM login offers ---- */

namespace {

std::string format(int af, const char *text)
{
	unsigned char a[16] = {};

	EXPECT_EQ(1, inet_pton(af == SRPT_INET4 ? AF_INET : AF_INET6, text, a)) << text;
	srpt::AddressName out;
	srpt::format_address(static_cast<srpt_inet_family>(af), a, &out);
	EXPECT_FALSE(out.truncated()) << text;
	return out.c_str();
}

} // namespace

/* What the kernel's %pISc prints, which the module used to print. */
TEST(FormatAddress, AsTheKernelPrintsIt)
{
	const struct {
		int af;
		const char *in;
		const char *want;
	} cases[] = {
		{SRPT_INET4, "192.0.2.7", "192.0.2.7"},
		{SRPT_INET4, "0.0.0.0", "0.0.0.0"},
		{SRPT_INET4, "255.255.255.255", "255.255.255.255"},
		{SRPT_INET6, "::", "::"},
		{SRPT_INET6, "::1", "::1"},
		{SRPT_INET6, "1::", "1::"},
		{SRPT_INET6, "FE80::5054:FF:FE4A:0B7B", "fe80::5054:ff:fe4a:b7b"},
		{SRPT_INET6, "2001:db8:0:1:1:1:1:1", "2001:db8:0:1:1:1:1:1"},	/* one zero: kept */
		{SRPT_INET6, "2001:db8:0:0:1:0:0:1", "2001:db8::1:0:0:1"},	/* the first of equals */
		{SRPT_INET6, "1:0:0:2:0:0:0:3", "1:0:0:2::3"},		/* the longest */
		{SRPT_INET6, "fd00:201:1::2", "fd00:201:1::2"},
		{SRPT_INET6, "1:2:3:4:5:6:7:8", "1:2:3:4:5:6:7:8"},
		{SRPT_INET6, "abcd:ef01:2345:6789:abcd:ef01:2345:6789",
		 "abcd:ef01:2345:6789:abcd:ef01:2345:6789"},
		{SRPT_INET6, "::ffff:192.0.2.1", "::ffff:192.0.2.1"},		/* IPv4-mapped */
		{SRPT_INET6, "fe80::5efe:c000:201", "fe80::5efe:192.0.2.1"},	/* ISATAP */
		{SRPT_INET6, "fe80::200:5efe:c000:201", "fe80::200:5efe:192.0.2.1"},
		{SRPT_INET6, "::5efe:c000:201", "::5efe:192.0.2.1"},
		{SRPT_INET6, "::0.0.0.1", "::1"},				/* not mapped */
	};
	for (const auto &c : cases)
		EXPECT_EQ(c.want, format(c.af, c.in)) << c.in;
}

/*
 * Every other address as RFC 5952 (glibc's inet_ntop) writes it, and back
 * to the same bytes: zero runs of every length at every place.
 */
TEST(FormatAddress, Rfc5952RoundTrip)
{
	unsigned int seed = 1;
	for (int n = 0; n < 20000; n++) {
		unsigned char a[16];
		for (int i = 0; i < 8; i++) {
			seed = seed * 1103515245u + 12345u;
			/* Mostly zero groups, else small or full ones. */
			const unsigned int r = seed >> 16;
			const unsigned int g = r % 3 ? 0 : (r & 8 ? (r >> 4) & 0xf : r);
			a[2 * i] = static_cast<unsigned char>(g >> 8);
			a[2 * i + 1] = static_cast<unsigned char>(g);
		}
		char want[INET6_ADDRSTRLEN];
		ASSERT_NE(nullptr, inet_ntop(AF_INET6, a, want, sizeof(want)));
		srpt::AddressName out;
		srpt::format_address(SRPT_INET6, a, &out);
		const bool mapped = std::string(out.c_str()).find('.') != std::string::npos;
		unsigned char back[16];
		ASSERT_EQ(1, inet_pton(AF_INET6, out.c_str(), back)) << out.c_str();
		EXPECT_EQ(0, std::memcmp(a, back, 16)) << out.c_str();
		/* glibc writes ::a.b.c.d (IPv4-compatible) and no ISATAP tail. */
		if (!mapped && std::string(want).find('.') == std::string::npos) {
			EXPECT_STREQ(want, out.c_str());
		}
	}
}
