// SPDX-License-Identifier: GPL-2.0-only
/* Target port names: format_guid_name, format_gid_name, parse_port_name. */
#include "fixture.h"

#include <srpt/port_name.h>

#include <cctype>
#include <string>

using srpt::Gid;
using srpt::ParsedPortName;
using srpt::PortNameKind;

namespace {

Gid gid_of(std::initializer_list<int> bytes)
{
	Gid g;
	int i = 0;
	for (int b : bytes)
		g.raw[i++] = static_cast<std::uint8_t>(b);
	return g;
}

std::string lower(std::string s)
{
	for (char &c : s)
		c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
	return s;
}

int parse(const std::string &s, ParsedPortName *out)
{
	return srpt::parse_port_name(ktl::Span<const char>(s.data(), s.size()), out);
}

} // namespace

TEST_F(PortName, FormatTables)
{
	struct {
		Gid gid;
		const char *guid;
		const char *gid_name;
	} cases[] = {
		{gid_of({}), "0000:0000:0000:0000", "0x00000000000000000000000000000000"},
		{gid_of({0xfe, 0x80, 0, 0, 0, 0, 0, 0, 0x00, 0x02, 0xc9, 0x03, 0x00, 0xa1, 0xb2, 0xc3}),
		 "0002:c903:00a1:b2c3", "0xfe800000000000000002c90300a1b2c3"},
		{gid_of({0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
			 0xff, 0xff, 0xff}),
		 "ffff:ffff:ffff:ffff", "0xffffffffffffffffffffffffffffffff"},
		{gid_of({0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 0xc0, 0xa8, 0x7a, 0x4c}),
		 "0000:ffff:c0a8:7a4c", "0x00000000000000000000ffffc0a87a4c"},
		{gid_of({1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16}), "090a:0b0c:0d0e:0f10",
		 "0x0102030405060708090a0b0c0d0e0f10"},
	};
	for (const auto &c : cases) {
		srpt::GuidName gn;
		srpt::GidName dn;
		gn.put("junk");
		dn.put("junk");
		srpt::format_guid_name(c.gid, &gn);
		srpt::format_gid_name(c.gid, &dn);
		EXPECT_STREQ(c.guid, gn.c_str());
		EXPECT_STREQ(c.gid_name, dn.c_str());
		/* The same form for any 128-bit id, an initiator port id too. */
		srpt::GidName id;
		srpt::format_gid_name(c.gid.raw, &id);
		EXPECT_STREQ(c.gid_name, id.c_str());
		EXPECT_FALSE(gn.truncated());
		EXPECT_FALSE(dn.truncated());

		/* And back. */
		ParsedPortName p;
		ASSERT_EQ(0, srpt::parse_port_name(c.guid, &p));
		EXPECT_EQ(PortNameKind::kGuid, p.kind);
		EXPECT_EQ(0, std::memcmp(p.gid.raw + 8, c.gid.raw + 8, 8));
		EXPECT_TRUE(p.matches(c.gid));
		ASSERT_EQ(0, srpt::parse_port_name(c.gid_name, &p));
		EXPECT_EQ(PortNameKind::kGid, p.kind);
		EXPECT_TRUE(p.gid == c.gid);
		EXPECT_TRUE(p.matches(c.gid));
	}
}

TEST_F(PortName, AcceptedFormsAnyCase)
{
	const std::string guid_names[] = {
		"0002:c903:00a1:b2c3", "0002:C903:00A1:B2C3", "0002:c903:00A1:b2C3",
		"ABCD:ef01:2345:6789",
	};
	for (const std::string &n : guid_names) {
		ParsedPortName p;
		ASSERT_EQ(0, parse(n, &p)) << n;
		EXPECT_EQ(PortNameKind::kGuid, p.kind) << n;
		srpt::GuidName out;
		srpt::format_guid_name(p.gid, &out);
		EXPECT_EQ(lower(n), out.c_str());
		for (int i = 0; i < 8; i++)
			EXPECT_EQ(0, p.gid.raw[i]) << n << ": the GUID form sets only the interface id";
	}
	const std::string gid_names[] = {
		"0xfe800000000000000002c90300a1b2c3",
		"0XFE800000000000000002C90300A1B2C3",
		"0xFe800000000000000002c90300A1b2C3",
	};
	for (const std::string &n : gid_names) {
		ParsedPortName p;
		ASSERT_EQ(0, parse(n, &p)) << n;
		EXPECT_EQ(PortNameKind::kGid, p.kind) << n;
		EXPECT_EQ(0xfe, p.gid.raw[0]);
		EXPECT_EQ(0x80, p.gid.raw[1]);
		EXPECT_EQ(0xc3, p.gid.raw[15]);
		srpt::GidName out;
		srpt::format_gid_name(p.gid, &out);
		EXPECT_EQ(lower(n), out.c_str());
	}
}

TEST_F(PortName, BadNames)
{
	const std::string bad[] = {
		"",
		"0",
		"0x",
		/* GUID form: non-hex, wrong group sizes, wrong separators, extra text */
		"0002:c903:00a1:b2cg",
		"g002:c903:00a1:b2c3",
		"0002:c903:00a1:b2c",
		"0002:c903:00a1:b2c33",
		"002:c9033:00a1:b2c3",
		"00002:c903:0a1:b2c3",
		"0002:c903:00a1b:2c3",
		"0002-c903-00a1-b2c3",
		"0002:c903:00a1:b2c3:",
		"0002c90300a1b2c3",
		"0002:c903:00a1:b2c3 ",
		" 0002:c903:00a1:b2c3",
		"0002:c903:00a1:b2c3\n",
		"00 2:c903:00a1:b2c3",
		"+002:c903:00a1:b2c3",
		"0002::903:00a1:b2c3",
		/* GID form: missing 0x, odd length, too long or short, non-hex */
		"fe800000000000000002c90300a1b2c3",
		"00fe800000000000000002c90300a1b2c3",
		"1xfe800000000000000002c90300a1b2c3",
		"0xfe800000000000000002c90300a1b2c",
		"0xfe800000000000000002c90300a1b2c33",
		"0xfe800000000000000002c90300a1b2c333",
		"0xfe800000000000000002c90300a1b2cg",
		"0xfe80000000000000:0002c90300a1b2c3",
		"0x fe800000000000000002c90300a1b2c3",
		"0xfe800000000000000002c90300a1b2c\n",
		"0x-e800000000000000002c90300a1b2c3",
		/* IPv6 and other look-alikes */
		"fe80::2:c903:a1:b2c3",
		"0x0x00000000000000000000000000000001",
		std::string(200, '0'),
		std::string(64, 'a'),
	};
	for (const std::string &n : bad) {
		ParsedPortName p;
		p.kind = PortNameKind::kGid;
		EXPECT_EQ(-ktl::kEINVAL, parse(n, &p)) << '"' << n << '"';
		EXPECT_EQ(-ktl::kEINVAL, srpt::parse_port_name(n.c_str(), &p)) << '"' << n << '"';
		EXPECT_EQ(PortNameKind::kGid, p.kind) << "output written on failure: " << n;
	}
}

TEST_F(PortName, EmbeddedNulIsAnError)
{
	std::string guid = "0002:c903:00a1:b2c3";
	std::string gid = "0xfe800000000000000002c90300a1b2c3";
	ParsedPortName p;

	for (std::size_t i = 0; i < guid.size(); i++) {
		std::string s = guid;
		s[i] = '\0';
		EXPECT_EQ(-ktl::kEINVAL, parse(s, &p)) << "NUL at " << i;
	}
	for (std::size_t i = 0; i < gid.size(); i++) {
		std::string s = gid;
		s[i] = '\0';
		EXPECT_EQ(-ktl::kEINVAL, parse(s, &p)) << "NUL at " << i;
	}
	/* The C-string form stops at the NUL: the rest is not the name. */
	const char trailing[] = "0002:c903:00a1:b2c3\0junk";
	EXPECT_EQ(0, srpt::parse_port_name(trailing, &p));
	EXPECT_EQ(-ktl::kEINVAL,
		  srpt::parse_port_name(ktl::Span<const char>(trailing, sizeof(trailing) - 1), &p));
}

TEST_F(PortName, GuidFormMatchesAnyPrefixGidFormOnlyExact)
{
	const Gid a = gid_of({0xfe, 0x80, 0, 0, 0, 0, 0, 0, 1, 2, 3, 4, 5, 6, 7, 8});
	const Gid b = gid_of({0xfe, 0xc0, 0, 0, 0, 0, 0, 1, 1, 2, 3, 4, 5, 6, 7, 8});
	const Gid c = gid_of({0xfe, 0x80, 0, 0, 0, 0, 0, 0, 1, 2, 3, 4, 5, 6, 7, 9});
	ParsedPortName p;

	ASSERT_EQ(0, srpt::parse_port_name("0102:0304:0506:0708", &p));
	EXPECT_TRUE(p.matches(a));
	EXPECT_TRUE(p.matches(b));
	EXPECT_FALSE(p.matches(c));
	ASSERT_EQ(0, srpt::parse_port_name("0xfe800000000000000102030405060708", &p));
	EXPECT_TRUE(p.matches(a));
	EXPECT_FALSE(p.matches(b));
	EXPECT_FALSE(p.matches(c));
	ParsedPortName none;
	EXPECT_FALSE(none.matches(a));
}
