// SPDX-License-Identifier: GPL-2.0-only
/* ktl: wire readers/writers, number and hex parsing, StrBuf, List, RefPtr, Owned. */
#include "fixture.h"

#include <ktl/list.h>
#include <ktl/owned.h>
#include <ktl/refptr.h>
#include <ktl/string.h>
#include <ktl/wire.h>

#include <algorithm>
#include <cstring>
#include <string>
#include <vector>

using ktl::BeReader;
using ktl::BeWriter;
using ktl::Bytes;
using ktl::MutableBytes;
using ktl::u64;

/* ---- BeReader ---- */

TEST_F(Ktl, BeReaderReadsBigEndianAtOffsets)
{
	const std::uint8_t b[] = {0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08, 0x09};
	BeReader r{Bytes(b, sizeof(b))};

	EXPECT_EQ(9u, r.size());
	EXPECT_EQ(0x01, r.u8_at(0));
	EXPECT_EQ(0x09, r.u8_at(8));
	EXPECT_EQ(0x0203, r.be16(1));
	EXPECT_EQ(0x030405u, r.be24(2));
	EXPECT_EQ(0x06070809u, r.be32(5));
	EXPECT_EQ(0x0203040506070809ull, r.be64(1));
	EXPECT_TRUE(r.ok());
}

TEST_F(Ktl, BeReaderFieldEndingExactlyAtTheEndIsInBounds)
{
	const std::uint8_t b[8] = {0, 0, 0, 0, 0, 0, 0xab, 0xcd};
	BeReader r{Bytes(b, sizeof(b))};

	EXPECT_EQ(0xabcd, r.be16(6));
	EXPECT_EQ(0xcdu, r.u8_at(7));
	EXPECT_EQ(0x0000abcdu, r.be32(4));
	EXPECT_EQ(0xabcdull, r.be64(0));
	EXPECT_TRUE(r.has(8, 0));
	EXPECT_TRUE(r.ok());
}

TEST_F(Ktl, BeReaderEveryReadPastTheEndFailsAndYieldsZero)
{
	const std::uint8_t b[8] = {0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff};
	struct Case {
		const char *what;
		u64 (*read)(BeReader &);
	} cases[] = {
		{"u8_at(8)", [](BeReader &r) -> u64 { return r.u8_at(8); }},
		{"be16(7)", [](BeReader &r) -> u64 { return r.be16(7); }},
		{"be24(6)", [](BeReader &r) -> u64 { return r.be24(6); }},
		{"be32(5)", [](BeReader &r) -> u64 { return r.be32(5); }},
		{"be64(1)", [](BeReader &r) -> u64 { return r.be64(1); }},
		{"be16(SIZE_MAX)", [](BeReader &r) -> u64 { return r.be16(~std::size_t{0}); }},
		{"be64(SIZE_MAX - 3)", [](BeReader &r) -> u64 { return r.be64(~std::size_t{0} - 3); }},
		{"u8_at(1000)", [](BeReader &r) -> u64 { return r.u8_at(1000); }},
	};
	for (const Case &c : cases) {
		BeReader r{Bytes(b, sizeof(b))};
		EXPECT_EQ(0u, c.read(r)) << c.what;
		EXPECT_FALSE(r.ok()) << c.what;
	}
}

TEST_F(Ktl, BeReaderFailureIsSticky)
{
	const std::uint8_t b[4] = {0x12, 0x34, 0x56, 0x78};
	BeReader r{Bytes(b, sizeof(b))};

	EXPECT_EQ(0u, r.be32(1));
	EXPECT_FALSE(r.ok());
	/* Later in-bounds reads still work but do not clear the failure. */
	EXPECT_EQ(0x12345678u, r.be32(0));
	EXPECT_EQ(0x34, r.u8_at(1));
	EXPECT_FALSE(r.ok());
}

TEST_F(Ktl, BeReaderOnEmptySpan)
{
	BeReader r{Bytes()};

	EXPECT_EQ(0u, r.size());
	EXPECT_TRUE(r.has(0, 0));
	EXPECT_FALSE(r.has(0, 1));
	EXPECT_EQ(0, r.u8_at(0));
	EXPECT_FALSE(r.ok());
}

TEST_F(Ktl, BeReaderCopyAndSlice)
{
	const std::uint8_t b[6] = {1, 2, 3, 4, 5, 6};
	{
		BeReader r{Bytes(b, sizeof(b))};
		std::uint8_t out[4] = {9, 9, 9, 9};
		r.copy(2, out, 4);
		EXPECT_EQ(0, std::memcmp(out, b + 2, 4));
		Bytes s = r.slice(1, 5);
		EXPECT_EQ(5u, s.size());
		EXPECT_EQ(b + 1, s.data());
		EXPECT_TRUE(r.ok());
	}
	{
		BeReader r{Bytes(b, sizeof(b))};
		std::uint8_t out[4] = {9, 9, 9, 9};
		r.copy(3, out, 4);	/* one byte short */
		const std::uint8_t zero[4] = {};
		EXPECT_EQ(0, std::memcmp(out, zero, 4)) << "a short copy zero-fills";
		EXPECT_FALSE(r.ok());
	}
	{
		BeReader r{Bytes(b, sizeof(b))};
		Bytes s = r.slice(2, 5);
		EXPECT_TRUE(s.empty());
		EXPECT_FALSE(r.ok());
	}
}

/* ---- BeHeader ---- */

TEST_F(Ktl, BeHeaderReadsBigEndianAtConstantOffsets)
{
	const std::uint8_t b[] = {0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08, 0x09, 0x0a};
	const ktl::BeHeader<9> h{Bytes(b, sizeof(b))};

	EXPECT_TRUE(h.ok()) << "longer than the header is fine";
	EXPECT_EQ(0x01, h.u8_at<0>());
	EXPECT_EQ(0x09, h.u8_at<8>());
	EXPECT_EQ(0x06070809u, h.be32<5>());
	EXPECT_EQ(0x0203040506070809ull, h.be64<1>());
	EXPECT_EQ(b + 4, (h.bytes<4, 5>()));
}

TEST_F(Ktl, BeHeaderOfAShorterBufferIsNotOkAndReadsZeros)
{
	const std::uint8_t b[8] = {0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff};
	const ktl::BeHeader<9> h{Bytes(b, sizeof(b))};

	EXPECT_FALSE(h.ok());
	EXPECT_EQ(0, h.u8_at<0>());
	EXPECT_EQ(0, h.u8_at<8>());
	EXPECT_EQ(0ull, h.be64<1>());
	const std::uint8_t *p = h.bytes<0, 9>();
	EXPECT_TRUE(std::all_of(p, p + 9, [](std::uint8_t v) { return v == 0; }));
	EXPECT_FALSE(ktl::BeHeader<1>(Bytes()).ok());
	EXPECT_TRUE(ktl::BeHeader<8>(Bytes(b, sizeof(b))).ok()) << "exactly the header";
}

/* ---- BeWriter ---- */

TEST_F(Ktl, BeWriterWritesBigEndian)
{
	std::uint8_t b[16];
	std::memset(b, 0xee, sizeof(b));
	BeWriter w{MutableBytes(b, sizeof(b))};

	w.u8_at(0, 0x01);
	w.be16(1, 0x0203);
	w.be32(3, 0x04050607);
	w.be64(7, 0x08090a0b0c0d0e0full);
	EXPECT_TRUE(w.ok());
	const std::uint8_t want[16] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 0xee};
	EXPECT_EQ(0, std::memcmp(b, want, sizeof(b)));
}

TEST_F(Ktl, BeWriterOutOfBoundsWritesNothingAndFailsStickily)
{
	std::uint8_t b[8];
	std::memset(b, 0xee, sizeof(b));
	BeWriter w{MutableBytes(b, sizeof(b))};

	w.be32(5, 0x01020304);		/* would straddle the end */
	w.be64(1, 0x0102030405060708ull);
	w.be16(7, 0x0102);
	w.u8_at(8, 1);
	w.copy(4, "abcde", 5);
	w.zero(6, 3);
	w.be16(~std::size_t{0}, 1);
	for (std::uint8_t x : b)
		EXPECT_EQ(0xee, x) << "a failed write changed the buffer";
	EXPECT_FALSE(w.ok());
	w.be16(0, 0x1234);		/* in bounds: written, still failed */
	EXPECT_EQ(0x12, b[0]);
	EXPECT_EQ(0x34, b[1]);
	EXPECT_FALSE(w.ok());
}

TEST_F(Ktl, BeWriterCopyAndZeroAtTheEdge)
{
	std::uint8_t b[8];
	std::memset(b, 0xee, sizeof(b));
	BeWriter w{MutableBytes(b, sizeof(b))};

	w.copy(4, "wxyz", 4);
	w.zero(0, 2);
	w.zero(8, 0);
	EXPECT_TRUE(w.ok());
	const std::uint8_t want[8] = {0, 0, 0xee, 0xee, 'w', 'x', 'y', 'z'};
	EXPECT_EQ(0, std::memcmp(b, want, 8));
}

/* ---- parse_u64 ---- */

namespace {

struct U64Case {
	const char *text;
	unsigned int base;
	u64 max;
	int ret;
	u64 value;
};

constexpr u64 kU64Max = ~0ull;

} // namespace

TEST_F(Ktl, ParseU64Table)
{
	const U64Case cases[] = {
		/* Bases. */
		{"0", 0, kU64Max, 0, 0},
		{"10", 0, kU64Max, 0, 10},
		{"010", 0, kU64Max, 0, 8},
		{"0x10", 0, kU64Max, 0, 16},
		{"0X1f", 0, kU64Max, 0, 31},
		{"0xABCDEF", 0, kU64Max, 0, 0xabcdef},
		{"10", 8, kU64Max, 0, 8},
		{"10", 10, kU64Max, 0, 10},
		{"10", 16, kU64Max, 0, 16},
		{"0x10", 16, kU64Max, 0, 16},
		{"0X10", 16, kU64Max, 0, 16},
		{"ff", 16, kU64Max, 0, 255},
		{"077", 8, kU64Max, 0, 63},
		{"00", 0, kU64Max, 0, 0},
		/* Digits outside the base. */
		{"08", 0, kU64Max, -ktl::kEINVAL, 0},
		{"8", 8, kU64Max, -ktl::kEINVAL, 0},
		{"1a", 10, kU64Max, -ktl::kEINVAL, 0},
		{"ff", 0, kU64Max, -ktl::kEINVAL, 0},
		{"0x10", 10, kU64Max, -ktl::kEINVAL, 0},
		{"0x10", 8, kU64Max, -ktl::kEINVAL, 0},
		{"0xg", 0, kU64Max, -ktl::kEINVAL, 0},
		/* One trailing newline, nothing else. */
		{"42\n", 0, kU64Max, 0, 42},
		{"0x2a\n", 0, kU64Max, 0, 42},
		{"42\n\n", 0, kU64Max, -ktl::kEINVAL, 0},
		{"42 ", 0, kU64Max, -ktl::kEINVAL, 0},
		{" 42", 0, kU64Max, -ktl::kEINVAL, 0},
		{"4 2", 0, kU64Max, -ktl::kEINVAL, 0},
		{"42\r\n", 0, kU64Max, -ktl::kEINVAL, 0},
		{"\n42", 0, kU64Max, -ktl::kEINVAL, 0},
		/* Empty and junk. */
		{"", 0, kU64Max, -ktl::kEINVAL, 0},
		{"\n", 0, kU64Max, -ktl::kEINVAL, 0},
		{"0x", 0, kU64Max, -ktl::kEINVAL, 0},
		{"0x\n", 0, kU64Max, -ktl::kEINVAL, 0},
		{"0x", 16, kU64Max, -ktl::kEINVAL, 0},
		{"-1", 0, kU64Max, -ktl::kEINVAL, 0},
		{"+1", 0, kU64Max, -ktl::kEINVAL, 0},
		{"abc", 0, kU64Max, -ktl::kEINVAL, 0},
		{"1.5", 0, kU64Max, -ktl::kEINVAL, 0},
		/* Overflow and the maximum. */
		{"18446744073709551615", 0, kU64Max, 0, kU64Max},
		{"18446744073709551616", 0, kU64Max, -ktl::kERANGE, 0},
		{"99999999999999999999999", 0, kU64Max, -ktl::kERANGE, 0},
		{"0xffffffffffffffff", 0, kU64Max, 0, kU64Max},
		{"0x10000000000000000", 0, kU64Max, -ktl::kERANGE, 0},
		{"01777777777777777777777", 0, kU64Max, 0, kU64Max},
		{"02000000000000000000000", 0, kU64Max, -ktl::kERANGE, 0},
		{"0x00000000000000000000001", 0, kU64Max, 0, 1},
		{"100", 0, 100, 0, 100},
		{"101", 0, 100, -ktl::kERANGE, 0},
		{"0x65", 0, 100, -ktl::kERANGE, 0},
		{"0", 0, 0, 0, 0},
		{"1", 0, 0, -ktl::kERANGE, 0},
	};
	for (const U64Case &c : cases) {
		u64 v = 0x5a5a5a5a;
		const int ret = ktl::parse_u64(c.text, c.base, c.max, &v);
		EXPECT_EQ(c.ret, ret) << '"' << c.text << "\" base " << c.base << " max " << c.max;
		if (c.ret == 0) {
			EXPECT_EQ(c.value, v) << '"' << c.text << '"';
		} else {
			EXPECT_EQ(0x5a5a5a5au, v) << '"' << c.text << "\": output written on failure";
		}
	}
}

TEST_F(Ktl, ParseU64SpanStopsAtItsLengthAndRejectsNul)
{
	u64 v = 0;
	const char text[] = "12345";

	ASSERT_EQ(0, ktl::parse_u64(ktl::Span<const char>(text, 3), 0, kU64Max, &v));
	EXPECT_EQ(123u, v);
	const char nul[] = {'1', '\0', '2'};
	EXPECT_EQ(-ktl::kEINVAL, ktl::parse_u64(ktl::Span<const char>(nul, 3), 0, kU64Max, &v));
	EXPECT_EQ(-ktl::kEINVAL, ktl::parse_u64(ktl::Span<const char>(), 0, kU64Max, &v));
}

/* ---- parse_hex_bytes ---- */

TEST_F(Ktl, ParseHexBytesLeftPadsABigEndianNumber)
{
	const struct {
		const char *text;
		std::vector<int> want;	/* 4 bytes */
	} cases[] = {
		{"0", {0, 0, 0, 0}},
		{"a", {0, 0, 0, 0x0a}},
		{"AB", {0, 0, 0, 0xab}},
		{"abc", {0, 0, 0x0a, 0xbc}},
		{"12345", {0, 0x01, 0x23, 0x45}},
		{"DeadBeef", {0xde, 0xad, 0xbe, 0xef}},
		{"00000001", {0, 0, 0, 1}},
		{"0f0F0f0F", {0x0f, 0x0f, 0x0f, 0x0f}},
	};
	for (const auto &c : cases) {
		std::uint8_t out[4];
		std::memset(out, 0xee, sizeof(out));
		ASSERT_EQ(0, ktl::parse_hex_bytes(ktl::Span<const char>(c.text, std::strlen(c.text)), out,
						  4))
			<< c.text;
		EXPECT_EQ(c.want, std::vector<int>(out, out + 4)) << c.text;
	}
}

TEST_F(Ktl, ParseHexBytesRefusesAndLeavesTheOutputAlone)
{
	const std::string bad[] = {
		"", "123456789", "0x12", "12 ", " 12", "g", "1g", "-1", "+1", "1:2", "12\n",
		std::string("1\0", 2),
	};
	for (const std::string &t : bad) {
		std::uint8_t out[4] = {1, 2, 3, 4};
		EXPECT_EQ(-ktl::kEINVAL,
			  ktl::parse_hex_bytes(ktl::Span<const char>(t.data(), t.size()), out, 4))
			<< '"' << t << '"';
		EXPECT_EQ((std::vector<int>{1, 2, 3, 4}), std::vector<int>(out, out + 4))
			<< "output written on failure: " << t;
	}
	/* Only the span counts: digits after it are not read. */
	std::uint8_t one = 0;
	ASSERT_EQ(0, ktl::parse_hex_bytes(ktl::Span<const char>("7fxyz", 2), &one, 1));
	EXPECT_EQ(0x7f, one);
	EXPECT_EQ(-ktl::kEINVAL, ktl::parse_hex_bytes(ktl::Span<const char>("7fx", 3), &one, 1));
}

/* ---- StrBuf ---- */

TEST_F(Ktl, StrBufTruncatesAndStaysTerminated)
{
	ktl::StrBuf<8> s;

	EXPECT_STREQ("", s.c_str());
	s.put("1234567");
	EXPECT_STREQ("1234567", s.c_str());
	EXPECT_EQ(7u, s.size());
	EXPECT_FALSE(s.truncated());
	s.put('8');
	EXPECT_STREQ("1234567", s.c_str());
	EXPECT_EQ(7u, s.size());
	EXPECT_TRUE(s.truncated());
	s.clear();
	EXPECT_STREQ("", s.c_str());
	EXPECT_EQ(0u, s.size());
	EXPECT_FALSE(s.truncated());
	s.put("abcdefghijk");
	EXPECT_STREQ("abcdefg", s.c_str());
	EXPECT_TRUE(s.truncated());
}

TEST_F(Ktl, StrBufOfOneHoldsNothing)
{
	ktl::StrBuf<1> s;

	s.put('x');
	EXPECT_STREQ("", s.c_str());
	EXPECT_EQ(0u, s.size());
	EXPECT_TRUE(s.truncated());
}

TEST_F(Ktl, StrBufNumbers)
{
	ktl::StrBuf<64> s;

	s.hex(0xabc, 4).put(' ').hex(0x0123456789abcdefull, 16).put(' ').hex(0xff, 1);
	EXPECT_STREQ("0abc 0123456789abcdef f", s.c_str());
	s.clear();
	s.dec(0).put(' ').dec(7).put(' ').dec(1000).put(' ').dec(~0ull);
	EXPECT_STREQ("0 7 1000 18446744073709551615", s.c_str());

	ktl::StrBuf<4> small;
	small.dec(123456);
	EXPECT_STREQ("123", small.c_str());
	EXPECT_TRUE(small.truncated());
}

/* ---- List ---- */

namespace {

struct Item {
	int v;
	ktl::ListNode node;
	ktl::ListNode other;	/* an item may be on two lists */
};
using ItemList = ktl::List<Item, &Item::node>;
using OtherList = ktl::List<Item, &Item::other>;

std::vector<int> values(ItemList &l)
{
	std::vector<int> out;
	for (Item *i : l)
		out.push_back(i->v);
	return out;
}

} // namespace

TEST_F(Ktl, ListPushEraseAndOrder)
{
	Item a{1}, b{2}, c{3}, d{4};
	ItemList l;

	EXPECT_TRUE(l.empty());
	EXPECT_EQ(0u, l.size());
	EXPECT_EQ(nullptr, l.front());
	EXPECT_EQ(nullptr, l.pop_front());
	l.push_back(&b);
	l.push_back(&c);
	l.push_front(&a);
	l.push_back(&d);
	EXPECT_EQ((std::vector<int>{1, 2, 3, 4}), values(l));
	EXPECT_EQ(4u, l.size());
	EXPECT_EQ(&a, l.front());
	EXPECT_TRUE(ItemList::contains_node(&c));

	l.erase(&c);
	EXPECT_FALSE(ItemList::contains_node(&c));
	EXPECT_EQ((std::vector<int>{1, 2, 4}), values(l));
	EXPECT_EQ(&a, l.pop_front());
	EXPECT_FALSE(ItemList::contains_node(&a));
	EXPECT_EQ((std::vector<int>{2, 4}), values(l));

	/* Erased items can go back on. */
	l.push_front(&c);
	l.push_back(&a);
	EXPECT_EQ((std::vector<int>{3, 2, 4, 1}), values(l));
	while (l.pop_front()) {
	}
	EXPECT_TRUE(l.empty());
}

TEST_F(Ktl, ListIterationMayEraseTheCurrentItem)
{
	Item items[6] = {{0}, {1}, {2}, {3}, {4}, {5}};
	ItemList l;

	for (Item &i : items)
		l.push_back(&i);
	for (Item *i : l)
		if (i->v % 2 == 0)
			l.erase(i);
	EXPECT_EQ((std::vector<int>{1, 3, 5}), values(l));
	for (Item *i : l)
		l.erase(i);
	EXPECT_TRUE(l.empty());
	EXPECT_EQ(0u, l.size());
}

TEST_F(Ktl, ListItemOnTwoLists)
{
	Item a{1}, b{2};
	ItemList l1;
	OtherList l2;

	l1.push_back(&a);
	l1.push_back(&b);
	l2.push_back(&b);
	l2.push_back(&a);
	EXPECT_EQ(&a, l1.front());
	EXPECT_EQ(&b, l2.front());
	l1.erase(&a);
	EXPECT_TRUE(OtherList::contains_node(&a));
	EXPECT_EQ(1u, l1.size());
	EXPECT_EQ(2u, l2.size());
	l1.erase(&b);
	l2.erase(&b);
	l2.erase(&a);
	EXPECT_TRUE(l1.empty());
	EXPECT_TRUE(l2.empty());
}

TEST_F(Ktl, ListEraseOfAnUnlinkedItemWarnsAndDoesNothing)
{
	Item a{1}, b{2};
	ItemList l;

	l.push_back(&a);
	l.erase(&b);
	expect_warnings(1, "erasing an item that is on no list");
	EXPECT_EQ(1u, l.size());
	l.erase(&a);
	EXPECT_TRUE(l.empty());
}

TEST_F(Ktl, ListDoubleInsertWarns)
{
	Item a{1};
	ItemList l1, l2;

	l1.push_back(&a);
	/* Only to see the warning: restore both lists right after. */
	ktl::ListNode saved = a.node;
	l2.push_back(&a);
	expect_warnings(1, "inserting an item that is already linked");
	a.node = saved;
	l1.erase(&a);
	EXPECT_TRUE(l1.empty());
}

/* ---- RefPtr ---- */

namespace {

struct Obj : ktl::RefCounted<Obj> {
	explicit Obj(int *destroyed) : destroyed(destroyed) {}
	~Obj() { ++*destroyed; }
	int *destroyed;
};

} // namespace

TEST_F(Ktl, RefPtrAdoptCopyMoveReset)
{
	int destroyed = 0;
	ktl::RefPtr<Obj> a = ktl::AdoptRef(new Obj(&destroyed));
	Obj *raw = a.get();

	EXPECT_EQ(1, raw->ref_count_debug());
	{
		ktl::RefPtr<Obj> b = a;
		EXPECT_EQ(2, raw->ref_count_debug());
		ktl::RefPtr<Obj> c = ktl::move(b);
		EXPECT_FALSE(b);
		EXPECT_EQ(raw, c.get());
		EXPECT_EQ(2, raw->ref_count_debug());
		ktl::RefPtr<Obj> d(raw);	/* a new reference from a raw pointer */
		EXPECT_EQ(3, raw->ref_count_debug());
		d = nullptr;
		EXPECT_EQ(2, raw->ref_count_debug());
		EXPECT_TRUE(c == a);
	}
	EXPECT_EQ(1, raw->ref_count_debug());
	EXPECT_EQ(0, destroyed);
	a.reset();
	EXPECT_EQ(1, destroyed);
	EXPECT_FALSE(a);
	a.reset();
	EXPECT_EQ(1, destroyed);
}

TEST_F(Ktl, RefPtrAssignmentReleasesTheOldObjectOnce)
{
	int d1 = 0, d2 = 0;
	ktl::RefPtr<Obj> a = ktl::AdoptRef(new Obj(&d1));
	ktl::RefPtr<Obj> b = ktl::AdoptRef(new Obj(&d2));

	a = b;
	EXPECT_EQ(1, d1);
	EXPECT_EQ(0, d2);
	EXPECT_EQ(2, b->ref_count_debug());
	a = ktl::move(b);
	EXPECT_EQ(0, d2);
	EXPECT_EQ(1, a->ref_count_debug());
	EXPECT_FALSE(b);

	/* Self-assignment keeps the object and its count. */
	ktl::RefPtr<Obj> &alias = a;
	a = alias;
	EXPECT_EQ(1, a->ref_count_debug());
	a = ktl::move(alias);
	ASSERT_TRUE(a);
	EXPECT_EQ(1, a->ref_count_debug());
	EXPECT_EQ(0, d2);
	a = nullptr;
	EXPECT_EQ(1, d2);
}

TEST_F(Ktl, RefPtrLeakAndImportBalance)
{
	int destroyed = 0;
	ktl::RefPtr<Obj> a = ktl::AdoptRef(new Obj(&destroyed));
	ktl::RefPtr<Obj> b = a;
	Obj *leaked = b.leak_ref();

	EXPECT_FALSE(b);
	EXPECT_EQ(2, leaked->ref_count_debug()) << "leak_ref hands the reference over unchanged";
	a.reset();
	EXPECT_EQ(0, destroyed) << "the leaked reference keeps the object";
	{
		ktl::RefPtr<Obj> back = ktl::ImportRef(leaked);
		EXPECT_EQ(1, back->ref_count_debug()) << "ImportRef takes no new reference";
	}
	EXPECT_EQ(1, destroyed);
}

TEST_F(Ktl, RefCountedReleaseBelowZeroWarns)
{
	int destroyed = 0;
	Obj *o = new Obj(&destroyed);

	EXPECT_TRUE(o->release());
	EXPECT_FALSE(o->release());
	expect_warnings(1, "a release with no reference left");
	o->add_ref();
	expect_warnings(1, "an add_ref on a dead object");
	delete o;
	EXPECT_EQ(1, destroyed);
}

/* ---- Owned ---- */

namespace {

struct Handle {
	int id;
};
std::vector<int> g_freed;
void free_handle(Handle *h)
{
	g_freed.push_back(h->id);
}
using OwnedHandle = ktl::Owned<Handle, free_handle>;

} // namespace

TEST_F(Ktl, OwnedFreesOnceWhateverPathItsOwnershipTakes)
{
	Handle a{1}, b{2}, c{3}, d{4};
	g_freed.clear();
	{
		OwnedHandle empty;
		EXPECT_FALSE(empty);
		OwnedHandle x(&a);
		EXPECT_TRUE(x);
		EXPECT_EQ(&a, x.get());
		OwnedHandle y(ktl::move(x));
		EXPECT_FALSE(x) << "moved from: owns nothing";
		EXPECT_EQ(&a, y.get());
		OwnedHandle z(&b);
		z = ktl::move(y);	/* b goes now, a stays owned by z */
		EXPECT_EQ(std::vector<int>{2}, g_freed);
		z.reset(&c);		/* a goes */
		EXPECT_EQ((std::vector<int>{2, 1}), g_freed);
		OwnedHandle w(&d);
		Handle *given = w.release();
		EXPECT_EQ(&d, given);
		EXPECT_FALSE(w);
		z = ktl::move(z);	/* self-move keeps it */
		EXPECT_EQ(&c, z.get());
	}
	/* c at the end of its scope; d was given up; nothing twice. */
	EXPECT_EQ((std::vector<int>{2, 1, 3}), g_freed);
}
