// SPDX-License-Identifier: GPL-2.0-only
/*
 * Request IUs and responses, the pure part: parse_srp_cmd and
 * parse_data_descriptors (every length field against every other and
 * against the IU's end), scsilun_to_int, parse_srp_tsk_mgmt, and the
 * bytes of SRP_RSP for commands and task management functions. IUs are
 * built from the SRP r16a layouts in tests/host/srp_iu.h.
 */
#include "fixture.h"
#include "srp_iu.h"

#include <srpt/iu.h>
#include <srpt/tmf.h>
#include <srpt/response.h>

using iu::Bytes;
using srpt::DataKind;

namespace {

constexpr std::uint32_t kMiB16 = 16u << 20;

struct Parsed {
	int ret;
	srpt::SrpCmd cmd;
	std::string why;
};

Parsed parse(const Bytes &b, std::uint32_t imm = 0)
{
	Parsed p{};
	const char *why = nullptr;
	p.ret = srpt::parse_srp_cmd(ktl::Bytes(b.data(), b.size()), imm, &p.cmd, &why);
	if (p.ret) {
		EXPECT_NE(nullptr, why) << "a failure without a reason";
		p.why = why ? why : "";
	}
	/* The descriptor parser alone agrees when the CDB is fine. */
	srpt::DataLayout l;
	const char *why2 = nullptr;
	const int r2 = srpt::parse_data_descriptors(ktl::Bytes(b.data(), b.size()), imm, &l, &why2);
	if (p.ret == 0) {
		EXPECT_EQ(0, r2);
		EXPECT_EQ(p.cmd.data.data_len, l.data_len);
		EXPECT_EQ(p.cmd.data.desc_offset, l.desc_offset);
		EXPECT_EQ(p.cmd.data.desc_count, l.desc_count);
		EXPECT_EQ(p.cmd.data.direct.va, l.direct.va);
		EXPECT_EQ(p.cmd.data.direct.key, l.direct.key);
		EXPECT_EQ(p.cmd.data.direct.len, l.direct.len);
	}
	return p;
}

/* An SRP_CMD with the given descriptor format byte, counts and descriptors. */
Bytes cmd_with(std::uint8_t fmt, std::uint8_t out_cnt, std::uint8_t in_cnt, const Bytes &desc,
	       std::uint8_t add_cdb_len = 0, const Bytes &add_cdb = {})
{
	iu::Cmd c;
	c.buf_fmt = fmt;
	c.out_cnt = out_cnt;
	c.in_cnt = in_cnt;
	c.desc = desc;
	c.add_cdb_len = add_cdb_len;
	c.add_cdb = add_cdb;
	c.cdb = fmt & 0xf0 ? iu::write10() : iu::read10();
	return iu::cmd(c);
}

srpt::RemoteBuffer desc(const Bytes &b, const srpt::DataLayout &l, std::uint32_t i)
{
	return srpt::descriptor_at(ktl::Bytes(b.data(), b.size()), l, i);
}

} // namespace

using SrpCmdParse = CoreTest;

TEST_F(SrpCmdParse, HeaderFieldsAtTheirR16aOffsets)
{
	iu::Cmd c;
	c.sol_not = 0x06;
	c.tag = 0x1122334455667788ull;
	c.lun = {0x00, 0x05, 0, 0, 0, 0, 0, 0};
	c.task_attr = 0x01;
	c.cdb = {0x28, 0, 0, 0, 0x12, 0x34, 0, 0, 8, 0};
	Bytes b = iu::cmd(c);
	ASSERT_EQ(48u, b.size());
	/* Poison the reserved bytes: they must not be read as anything. */
	b[2] = b[3] = b[4] = 0xee;
	b[16] = b[17] = b[18] = b[19] = 0xee;
	b[28] = b[30] = 0xee;

	const Parsed p = parse(b);
	ASSERT_EQ(0, p.ret) << p.why;
	EXPECT_EQ(0x1122334455667788ull, p.cmd.tag);
	EXPECT_EQ(0x06, p.cmd.sol_not);
	EXPECT_EQ(5u, p.cmd.lun) << "LUN 5 in bytes 20-27";
	EXPECT_EQ(SRPT_TASK_HEAD_OF_QUEUE, p.cmd.task_attr) << "task attribute in byte 29";
	EXPECT_EQ(10u, p.cmd.cdb_len) << "READ(10) in bytes 32-47";
	EXPECT_EQ(SRPT_DATA_NONE, p.cmd.data.dir);
	EXPECT_EQ(DataKind::kNone, p.cmd.data.kind);
	EXPECT_EQ(0u, p.cmd.data.data_len);
}

TEST_F(SrpCmdParse, TaskAttributes)
{
	const struct {
		std::uint8_t v;
		srpt_task_attr want;
	} cases[] = {
		{0, SRPT_TASK_SIMPLE}, {1, SRPT_TASK_HEAD_OF_QUEUE}, {2, SRPT_TASK_ORDERED},
		{4, SRPT_TASK_ACA}, {0xf8, SRPT_TASK_SIMPLE}, {0xf9, SRPT_TASK_HEAD_OF_QUEUE},
		{0xfc, SRPT_TASK_ACA},
		/* Reserved values: the safest order. */
		{3, SRPT_TASK_ORDERED}, {5, SRPT_TASK_ORDERED}, {6, SRPT_TASK_ORDERED},
		{7, SRPT_TASK_ORDERED},
	};
	for (const auto &c : cases) {
		iu::Cmd cmd;
		cmd.task_attr = c.v;
		const Parsed p = parse(iu::cmd(cmd));
		ASSERT_EQ(0, p.ret) << p.why;
		EXPECT_EQ(c.want, p.cmd.task_attr) << int{c.v};
	}
}

TEST_F(SrpCmdParse, ShortIusAreRejectedWithTheTagWhenThereIsOne)
{
	Bytes full = cmd_with(0x00, 0, 0, {});
	iu::be64(full, 8, 0xabcdef0123456789ull);
	for (std::size_t len : {0, 1, 8, 15, 16, 24, 40, 47}) {
		Bytes b(full.begin(), full.begin() + static_cast<long>(len));
		const Parsed p = parse(b);
		EXPECT_EQ(-ktl::kEINVAL, p.ret) << len;
		EXPECT_EQ(len >= 16 ? 0xabcdef0123456789ull : 0ull, p.cmd.tag) << len;
	}
	EXPECT_EQ(0, parse(full).ret);
}

TEST_F(SrpCmdParse, AdditionalCdb)
{
	/* One 4-byte word of additional CDB must be in the IU. */
	Bytes b = cmd_with(0x00, 0, 0, {}, 0x04, {});
	ASSERT_EQ(48u, b.size());
	Parsed p = parse(b);
	EXPECT_EQ(-ktl::kEINVAL, p.ret);
	EXPECT_EQ(0xc0ffee0000000001ull, p.cmd.tag) << "the tag, to answer the error";
	b.resize(51);
	EXPECT_EQ(-ktl::kEINVAL, parse(b).ret);
	b.resize(52);
	EXPECT_EQ(0, parse(b).ret);

	/* Bits 1..0 of ADDITIONAL CDB LENGTH are reserved. */
	EXPECT_EQ(0, parse(cmd_with(0x00, 0, 0, {}, 0x03, {})).ret);

	/* The descriptors follow the additional CDB. */
	b = cmd_with(0x01, 0, 1, iu::direct(0x1000, 7, 512), 0x08, Bytes(8, 0xcc));
	p = parse(b);
	ASSERT_EQ(0, p.ret) << p.why;
	EXPECT_EQ(56u, p.cmd.data.desc_offset);
	EXPECT_EQ(512u, p.cmd.data.data_len);
	EXPECT_EQ(7u, desc(b, p.cmd.data, 0).key);

	/* The largest: 63 words. */
	b = cmd_with(0x00, 0, 0, {}, 0xfc, Bytes(252, 0));
	EXPECT_EQ(0, parse(b).ret);
	b.pop_back();
	EXPECT_EQ(-ktl::kEINVAL, parse(b).ret);
}

TEST_F(SrpCmdParse, CdbLongerThanTheCdbFields)
{
	const struct {
		Bytes cdb;
		std::uint8_t add_cdb_len;
		bool ok;
	} cases[] = {
		{{0x00}, 0, true},				/* 6 */
		{{0x88}, 0, true},				/* READ(16): 16 */
		{{0xa8}, 0, true},				/* READ(12): 12 */
		{{0xe0}, 0, true},				/* vendor: 10 */
		{{0x7f, 0, 0, 0, 0, 0, 0, 8}, 0, true},	/* variable: 8 + 8 */
		{{0x7f, 0, 0, 0, 0, 0, 0, 9}, 0, false},	/* 17 bytes in 16 */
		{{0x7f, 0, 0, 0, 0, 0, 0, 12}, 0x04, true},	/* 20 in 16 + 4 */
		{{0x7f, 0, 0, 0, 0, 0, 0, 13}, 0x04, false},
		{{0x7f, 0, 0, 0, 0, 0, 0, 0xff}, 0xfc, true},	/* 263 in 16 + 252 */
		{{0x7f, 0, 0, 0, 0, 0, 0, 0xff}, 0xf8, true},	/* 263 in 16 + 248 */
		{{0x7f, 0, 0, 0, 0, 0, 0, 0xff}, 0xf4, false},	/* 263 in 16 + 244 */
	};
	for (const auto &c : cases) {
		iu::Cmd cmd;
		cmd.cdb = c.cdb;
		cmd.add_cdb_len = c.add_cdb_len;
		cmd.add_cdb = Bytes(c.add_cdb_len & ~3u, 0);
		const Parsed p = parse(iu::cmd(cmd));
		EXPECT_EQ(c.ok ? 0 : -ktl::kEINVAL, p.ret) << iu::hex(c.cdb) << " add " << int{c.add_cdb_len};
	}
}

TEST_F(SrpCmdParse, ScsiCdbSizes)
{
	const struct {
		std::uint8_t op;
		std::uint32_t len;
	} cases[] = {
		{0x00, 6}, {0x12, 6}, {0x28, 10}, {0x2a, 10}, {0x5a, 10}, {0x7e, 12},
		{0x88, 16}, {0x9e, 16}, {0xa0, 12}, {0xa8, 12}, {0xc0, 10}, {0xe0, 10},
	};
	for (const auto &c : cases) {
		std::uint8_t cdb[16] = {c.op};
		EXPECT_EQ(c.len, srpt::scsi_cdb_size(cdb)) << std::hex << int{c.op};
	}
	std::uint8_t var[16] = {0x7f, 0, 0, 0, 0, 0, 0, 0x18};
	EXPECT_EQ(32u, srpt::scsi_cdb_size(var));
}

TEST_F(SrpCmdParse, BidirectionalAndUnknownFormatsAreRejected)
{
	EXPECT_EQ(-ktl::kEINVAL, parse(cmd_with(0x11, 1, 1, iu::cat({iu::direct(1, 1, 512),
								      iu::direct(2, 2, 512)})))
					 .ret);
	EXPECT_EQ(-ktl::kEINVAL, parse(cmd_with(0x22, 1, 1, Bytes(64, 0))).ret);
	for (std::uint8_t f = 4; f < 16; f++) {
		EXPECT_EQ(-ktl::kEINVAL, parse(cmd_with(f, 0, 1, Bytes(64, 0))).ret) << int{f};
		EXPECT_EQ(-ktl::kEINVAL, parse(cmd_with(f << 4, 1, 0, Bytes(64, 0))).ret) << int{f};
	}
}

TEST_F(SrpCmdParse, DirectDescriptors)
{
	for (std::uint8_t fmt : {0x01, 0x10}) {
		Bytes b = cmd_with(fmt, fmt >> 4, fmt & 0xf, iu::direct(0x1122334455667788ull, 0xaabbccdd, 4096));
		ASSERT_EQ(64u, b.size());
		Parsed p = parse(b);
		ASSERT_EQ(0, p.ret) << p.why;
		EXPECT_EQ(fmt == 0x01 ? SRPT_DATA_IN : SRPT_DATA_OUT, p.cmd.data.dir);
		EXPECT_EQ(DataKind::kDirect, p.cmd.data.kind);
		EXPECT_EQ(4096u, p.cmd.data.data_len);
		EXPECT_EQ(1u, p.cmd.data.desc_count);
		EXPECT_EQ(48u, p.cmd.data.desc_offset);
		const srpt::RemoteBuffer rb = desc(b, p.cmd.data, 0);
		EXPECT_EQ(0x1122334455667788ull, rb.va);
		EXPECT_EQ(0xaabbccddu, rb.key);
		EXPECT_EQ(4096u, rb.len);
		/* The layout carries it: the data path does not read it again. */
		EXPECT_EQ(0x1122334455667788ull, p.cmd.data.direct.va);
		EXPECT_EQ(0xaabbccddu, p.cmd.data.direct.key);
		EXPECT_EQ(4096u, p.cmd.data.direct.len);

		/* Past the end: one byte short. */
		b.pop_back();
		p = parse(b);
		EXPECT_EQ(-ktl::kEINVAL, p.ret);
		/* The IU may be longer than its descriptors. */
		b = cmd_with(fmt, 1, 1, iu::cat({iu::direct(1, 2, 3), Bytes(100, 0xee)}));
		EXPECT_EQ(0, parse(b).ret);
	}
}

TEST_F(SrpCmdParse, ZeroLengthDirectTransfer)
{
	const Bytes b = cmd_with(0x01, 0, 1, iu::direct(0x1000, 1, 0));
	const Parsed p = parse(b);
	ASSERT_EQ(0, p.ret) << p.why;
	EXPECT_EQ(DataKind::kDirect, p.cmd.data.kind);
	EXPECT_EQ(0u, p.cmd.data.data_len);
}

TEST_F(SrpCmdParse, DataLengthLimit)
{
	Parsed p = parse(cmd_with(0x01, 0, 1, iu::direct(0, 1, kMiB16)));
	EXPECT_EQ(0, p.ret) << p.why;
	EXPECT_EQ(kMiB16, p.cmd.data.data_len);
	EXPECT_EQ(-ktl::kEINVAL, parse(cmd_with(0x01, 0, 1, iu::direct(0, 1, kMiB16 + 1))).ret);
	EXPECT_EQ(-ktl::kEINVAL, parse(cmd_with(0x10, 1, 0, iu::direct(0, 1, 0xffffffff))).ret);
	/* Indirect: the total counts. */
	const Bytes two = iu::indirect({iu::direct(0, 1, kMiB16 / 2), iu::direct(0, 1, kMiB16 / 2)});
	EXPECT_EQ(0, parse(cmd_with(0x02, 0, 2, two)).ret);
	const Bytes over = iu::indirect({iu::direct(0, 1, kMiB16 / 2), iu::direct(0, 1, kMiB16 / 2 + 1)});
	EXPECT_EQ(-ktl::kEINVAL, parse(cmd_with(0x02, 0, 2, over)).ret);
	/* Many 16 MiB descriptors: the sum must not wrap around. */
	std::vector<Bytes> big(16, iu::direct(0, 1, 0x10000000));
	EXPECT_EQ(-ktl::kEINVAL, parse(cmd_with(0x02, 0, 16, iu::indirect(big, -1, 0))).ret);
}

TEST_F(SrpCmdParse, IndirectTables)
{
	const std::vector<Bytes> table = {iu::direct(0x1000, 11, 512), iu::direct(0x2000, 22, 0),
					  iu::direct(0x3000, 33, 1024)};
	for (std::uint8_t fmt : {0x02, 0x20}) {
		const bool out = fmt == 0x20;
		const std::uint8_t n = 3;
		Bytes b = cmd_with(fmt, out ? n : 0, out ? 0 : n, iu::indirect(table));
		ASSERT_EQ(48u + 20 + 48, b.size());
		Parsed p = parse(b);
		ASSERT_EQ(0, p.ret) << p.why;
		EXPECT_EQ(out ? SRPT_DATA_OUT : SRPT_DATA_IN, p.cmd.data.dir);
		EXPECT_EQ(DataKind::kIndirect, p.cmd.data.kind);
		EXPECT_EQ(1536u, p.cmd.data.data_len);
		EXPECT_EQ(3u, p.cmd.data.desc_count);
		EXPECT_EQ(68u, p.cmd.data.desc_offset);
		EXPECT_EQ(0x1000u, desc(b, p.cmd.data, 0).va);
		EXPECT_EQ(22u, desc(b, p.cmd.data, 1).key);
		EXPECT_EQ(0u, desc(b, p.cmd.data, 1).len) << "zero-length descriptors are fine";
		EXPECT_EQ(1024u, desc(b, p.cmd.data, 2).len);

		/* The count of the command's direction bounds the table. */
		EXPECT_EQ(-ktl::kEINVAL, parse(cmd_with(fmt, out ? 2 : 0, out ? 0 : 2, iu::indirect(table))).ret);
		EXPECT_EQ(0, parse(cmd_with(fmt, out ? 4 : 0, out ? 0 : 4, iu::indirect(table))).ret)
			<< "a count above the table's entries";
		EXPECT_EQ(-ktl::kEINVAL, parse(cmd_with(fmt, out ? 0 : 3, out ? 3 : 0, iu::indirect(table))).ret)
			<< "the other direction's count does not count";
		/* Table length not a multiple of 16. */
		for (long len : {1L, 8L, 40L, 47L, 49L})
			EXPECT_EQ(-ktl::kEINVAL, parse(cmd_with(fmt, 3, 3, iu::indirect(table, len))).ret) << len;
		/* A table longer than what the IU holds. */
		EXPECT_EQ(-ktl::kEINVAL, parse(cmd_with(fmt, 4, 4, iu::indirect(table, 64))).ret);
		b = cmd_with(fmt, 3, 3, iu::indirect(table));
		b.pop_back();
		EXPECT_EQ(-ktl::kEINVAL, parse(b).ret) << "the last entry one byte short";
		/* The header itself must be in the IU. */
		b = cmd_with(fmt, 0, 0, iu::indirect({}));
		ASSERT_EQ(68u, b.size());
		EXPECT_EQ(0, parse(b).ret);
		b.pop_back();
		EXPECT_EQ(-ktl::kEINVAL, parse(b).ret);
		/* The total length is the sum of the entries. */
		EXPECT_EQ(-ktl::kEINVAL, parse(cmd_with(fmt, 3, 3, iu::indirect(table, -1, 1535))).ret);
		EXPECT_EQ(-ktl::kEINVAL, parse(cmd_with(fmt, 3, 3, iu::indirect(table, -1, 1537))).ret);
		EXPECT_EQ(-ktl::kEINVAL, parse(cmd_with(fmt, 3, 3, iu::indirect(table, -1, 0))).ret);
	}
}

TEST_F(SrpCmdParse, EmptyIndirectTable)
{
	const Parsed p = parse(cmd_with(0x02, 0, 0, iu::indirect({})));
	ASSERT_EQ(0, p.ret) << p.why;
	EXPECT_EQ(DataKind::kIndirect, p.cmd.data.kind);
	EXPECT_EQ(0u, p.cmd.data.desc_count);
	EXPECT_EQ(0u, p.cmd.data.data_len);
	EXPECT_EQ(-ktl::kEINVAL, parse(cmd_with(0x02, 0, 0, iu::indirect({}, 0, 1))).ret);
}

TEST_F(SrpCmdParse, ImmediateData)
{
	/* Descriptor at 48, data at the negotiated offset. */
	Bytes b = cmd_with(0x30, 0, 0, iu::imm_desc(16));
	b.resize(64, 0);
	for (int i = 0; i < 16; i++)
		b.push_back(static_cast<std::uint8_t>(i));
	ASSERT_EQ(80u, b.size());
	Parsed p = parse(b, 64);
	ASSERT_EQ(0, p.ret) << p.why;
	EXPECT_EQ(SRPT_DATA_OUT, p.cmd.data.dir);
	EXPECT_EQ(DataKind::kImmediate, p.cmd.data.kind);
	EXPECT_EQ(16u, p.cmd.data.data_len);
	EXPECT_EQ(64u, p.cmd.data.imm_offset);
	EXPECT_EQ(0u, p.cmd.data.desc_count);

	/* Not negotiated at login. */
	p = parse(b, 0);
	EXPECT_EQ(-ktl::kEINVAL, p.ret);
	/* Data past the end of the IU. */
	b.pop_back();
	EXPECT_EQ(-ktl::kEINVAL, parse(b, 64).ret);
	EXPECT_EQ(0, parse(b, 63).ret) << "15 + 1 bytes from 63";
	/* Overlapping the descriptor: data at 48..51 would be the length. */
	for (std::uint32_t off : {1u, 47u, 48u, 49u, 51u})
		EXPECT_EQ(-ktl::kEINVAL, parse(b, off).ret) << off;
	EXPECT_EQ(0, parse(cmd_with(0x30, 0, 0, iu::cat({iu::imm_desc(0)})), 52).ret)
		<< "right after the descriptor, zero bytes";
	/* With an additional CDB the descriptor moves. */
	Bytes a = cmd_with(0x30, 0, 0, iu::imm_desc(4), 0x04, Bytes(4, 0));
	a.resize(60, 0);
	EXPECT_EQ(-ktl::kEINVAL, parse(a, 55).ret);
	EXPECT_EQ(0, parse(a, 56).ret);
	/* The descriptor must be in the IU. */
	Bytes s = cmd_with(0x30, 0, 0, {});
	EXPECT_EQ(-ktl::kEINVAL, parse(s, 512).ret);
	/* Data-in has no immediate form. */
	Bytes in = cmd_with(0x03, 0, 0, iu::imm_desc(0));
	in.resize(600, 0);
	EXPECT_EQ(-ktl::kEINVAL, parse(in, 512).ret);
	/* A huge length never wraps around the bounds check. */
	Bytes huge = cmd_with(0x30, 0, 0, iu::imm_desc(0xffffffff));
	huge.resize(600, 0);
	EXPECT_EQ(-ktl::kEINVAL, parse(huge, 512).ret);
	EXPECT_EQ(-ktl::kEINVAL, parse(huge, 0xfffffff0u).ret);
}

/* ---- LUNs ---- */

using ScsiLun = CoreTest;

TEST_F(ScsiLun, ToIntVectors)
{
	const struct {
		std::uint8_t lun[8];
		std::uint64_t want;
	} cases[] = {
		{{0, 0, 0, 0, 0, 0, 0, 0}, 0},
		{{0, 1, 0, 0, 0, 0, 0, 0}, 1},
		{{0, 0xff, 0, 0, 0, 0, 0, 0}, 0xff},
		{{0x40, 0x05, 0, 0, 0, 0, 0, 0}, 0x4005},	/* flat space addressing */
		{{0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08}, 0x0708050603040102ull},
		{{0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff}, ~0ull},
		{{0, 0, 0, 0, 0, 0, 0x80, 0x01}, 0x8001000000000000ull},
	};
	for (const auto &c : cases)
		EXPECT_EQ(c.want, srpt::scsilun_to_int(c.lun)) << std::hex << c.want;
}

/* ---- SRP_TSK_MGMT ---- */

using TskMgmtParse = CoreTest;

TEST_F(TskMgmtParse, FieldsAndFunctions)
{
	const struct {
		std::uint8_t fn;
		srpt_tmf want;
	} cases[] = {
		{0x01, SRPT_TMF_ABORT_TASK}, {0x02, SRPT_TMF_ABORT_TASK_SET},
		{0x04, SRPT_TMF_CLEAR_TASK_SET}, {0x08, SRPT_TMF_LUN_RESET},
		{0x40, SRPT_TMF_CLEAR_ACA}, {0x00, SRPT_TMF_UNSUPPORTED},
		{0x03, SRPT_TMF_UNSUPPORTED}, {0x10, SRPT_TMF_UNSUPPORTED},
		{0x20, SRPT_TMF_UNSUPPORTED}, {0x41, SRPT_TMF_UNSUPPORTED},
		{0x80, SRPT_TMF_UNSUPPORTED}, {0xff, SRPT_TMF_UNSUPPORTED},
	};
	for (const auto &c : cases) {
		iu::TskMgmt t;
		t.sol_not = 0x04;
		t.tag = 0x0102030405060708ull;
		t.lun = {0x00, 0x03, 0, 0, 0, 0, 0, 0};
		t.function = c.fn;
		t.task_tag = 0x1112131415161718ull;
		Bytes b = iu::tsk_mgmt(t);
		ASSERT_EQ(48u, b.size());
		b[16] = b[17] = b[18] = b[19] = b[28] = b[29] = b[31] = 0xee;	/* reserved */
		srpt::SrpTskMgmt out;
		ASSERT_EQ(0, srpt::parse_srp_tsk_mgmt(ktl::Bytes(b.data(), b.size()), &out));
		EXPECT_EQ(0x0102030405060708ull, out.tag);
		EXPECT_EQ(0x04, out.sol_not);
		EXPECT_EQ(3u, out.lun);
		EXPECT_EQ(c.fn, out.function);
		EXPECT_EQ(c.want, out.tmf) << std::hex << int{c.fn};
		EXPECT_EQ(0x1112131415161718ull, out.task_tag);
	}
}

TEST_F(TskMgmtParse, ShortIsEINVAL)
{
	const Bytes b = iu::tsk_mgmt({});
	for (std::size_t len : {0, 16, 40, 47}) {
		srpt::SrpTskMgmt out;
		out.tag = 99;
		EXPECT_EQ(-ktl::kEINVAL,
			  srpt::parse_srp_tsk_mgmt(ktl::Bytes(b.data(), len), &out)) << len;
		EXPECT_EQ(99u, out.tag);
	}
	Bytes longer = b;
	longer.resize(100, 0xee);
	srpt::SrpTskMgmt out;
	EXPECT_EQ(0, srpt::parse_srp_tsk_mgmt(ktl::Bytes(longer.data(), longer.size()), &out));
}

/* ---- SRP_RSP ---- */

using RspBuild = CoreTest;

namespace {

Bytes cmd_rsp(const srpt::RspHeader &h, const srpt_cmd_status &st, ktl::Bytes sense,
	      std::uint32_t max_len, std::size_t buf = 256, std::size_t *len = nullptr)
{
	Bytes out(buf + 16, 0x77);
	const std::size_t n = srpt::build_cmd_rsp(h, st, sense, max_len, ktl::MutableBytes(out.data(), buf));
	for (std::size_t i = n; i < out.size(); i++)
		EXPECT_EQ(0x77, out[i]) << "byte " << i << " written past the " << n << "-byte IU";
	if (len)
		*len = n;
	out.resize(n);
	return out;
}

srpt::RspHeader hdr(std::uint8_t sol_not = 0)
{
	srpt::RspHeader h;
	h.tag = 0x8877665544332211ull;
	h.req_lim_delta = 3;
	h.req_sol_not = sol_not;
	return h;
}

const std::uint8_t kSense[18] = {0x70, 0, 0x05, 0, 0, 0, 0, 10, 0, 0, 0, 0, 0x24, 0x00};
const ktl::Bytes kSenseBytes(kSense, sizeof(kSense));

} // namespace

TEST_F(RspBuild, GoodStatusBytes)
{
	srpt_cmd_status st{};
	const Bytes b = cmd_rsp(hdr(), st, {}, 256);
	Bytes want(36, 0);
	want[0] = 0xc1;
	want[7] = 3;
	for (int i = 0; i < 8; i++)
		want[8 + i] = static_cast<std::uint8_t>(0x88 - 0x11 * i);
	EXPECT_EQ(iu::hex(want), iu::hex(b));
}

TEST_F(RspBuild, CheckConditionWithSense)
{
	srpt_cmd_status st{};
	st.scsi_status = 0x02;
	st.sense_len = 18;
	const Bytes b = cmd_rsp(hdr(), st, kSenseBytes, 256);
	ASSERT_EQ(54u, b.size());
	EXPECT_EQ(0x02, b[18]) << "SNSVALID";
	EXPECT_EQ(0x02, b[19]);
	EXPECT_EQ(18u, iu::get_be32(b, 28));
	EXPECT_EQ(0u, iu::get_be32(b, 32));
	EXPECT_EQ(Bytes(kSense, kSense + 18), Bytes(b.begin() + 36, b.end()));
}

TEST_F(RspBuild, SenseIsClippedToMaxTiIuLenAndToTheBuffer)
{
	srpt_cmd_status st{};
	st.scsi_status = 0x02;
	st.sense_len = 18;
	const struct {
		std::uint32_t max_len;
		std::size_t buf;
		std::size_t want_len;
	} cases[] = {
		{54, 256, 54}, {53, 256, 53}, {40, 256, 40}, {37, 256, 37}, {36, 256, 36},
		{256, 54, 54}, {256, 45, 45}, {256, 36, 36}, {0xffffffff, 40, 40},
	};
	for (const auto &c : cases) {
		std::size_t n = 0;
		const Bytes b = cmd_rsp(hdr(), st, kSenseBytes, c.max_len, c.buf, &n);
		ASSERT_EQ(c.want_len, n) << c.max_len << "/" << c.buf;
		EXPECT_EQ(c.want_len - 36, iu::get_be32(b, 28)) << c.max_len << "/" << c.buf;
		EXPECT_EQ(c.want_len > 36 ? 0x02 : 0x00, b[18]) << "SNSVALID only with sense data";
		EXPECT_EQ(0x02, b[19]);
		EXPECT_EQ(Bytes(kSense, kSense + (c.want_len - 36)), Bytes(b.begin() + 36, b.end()));
	}
	/* Below the fixed part: nothing at all. */
	std::size_t n = 1;
	cmd_rsp(hdr(), st, kSenseBytes, 35, 256, &n);
	EXPECT_EQ(0u, n);
	cmd_rsp(hdr(), st, kSenseBytes, 256, 35, &n);
	EXPECT_EQ(0u, n);
	/* The sense data is what the builder is given, whatever st says. */
	const Bytes b = cmd_rsp(hdr(), st, {}, 256);
	EXPECT_EQ(36u, b.size());
	EXPECT_EQ(0x00, b[18]);
}

TEST_F(RspBuild, ResidualFlags)
{
	const struct {
		std::uint8_t residual;
		std::uint8_t dir;
		std::uint8_t flags;
		std::uint32_t do_resid, di_resid;
	} cases[] = {
		{SRPT_RESIDUAL_UNDERFLOW, SRPT_DATA_OUT, 0x08, 0x1234, 0},
		{SRPT_RESIDUAL_OVERFLOW, SRPT_DATA_OUT, 0x04, 0x1234, 0},
		{SRPT_RESIDUAL_UNDERFLOW, SRPT_DATA_IN, 0x20, 0, 0x1234},
		{SRPT_RESIDUAL_OVERFLOW, SRPT_DATA_IN, 0x10, 0, 0x1234},
		{SRPT_RESIDUAL_UNDERFLOW, SRPT_DATA_NONE, 0x00, 0, 0},
		{SRPT_RESIDUAL_NONE, SRPT_DATA_IN, 0x00, 0, 0},
		{SRPT_RESIDUAL_NONE, SRPT_DATA_OUT, 0x00, 0, 0},
	};
	for (const auto &c : cases) {
		srpt_cmd_status st{};
		st.residual = c.residual;
		st.data_dir = c.dir;
		st.residual_count = 0x1234;
		Bytes b = cmd_rsp(hdr(), st, {}, 256);
		ASSERT_EQ(36u, b.size());
		EXPECT_EQ(c.flags, b[18]) << int{c.residual} << "/" << int{c.dir};
		EXPECT_EQ(c.do_resid, iu::get_be32(b, 20)) << int{c.residual} << "/" << int{c.dir};
		EXPECT_EQ(c.di_resid, iu::get_be32(b, 24)) << int{c.residual} << "/" << int{c.dir};

		/* With sense data both flags are there. */
		st.scsi_status = 0x02;
		st.sense_len = 18;
		b = cmd_rsp(hdr(), st, kSenseBytes, 256);
		EXPECT_EQ(c.flags | 0x02, b[18]);
	}
}

TEST_F(RspBuild, SolicitedNotification)
{
	const struct {
		std::uint8_t req_sol_not;
		std::uint8_t status;
		std::uint8_t want;
	} cases[] = {
		{0x00, 0x00, 0}, {0x00, 0x02, 0}, {0x02, 0x00, 1}, {0x02, 0x02, 0},
		{0x04, 0x00, 0}, {0x04, 0x02, 1}, {0x04, 0x08, 1}, {0x06, 0x00, 1},
		{0x06, 0x02, 1}, {0x01, 0x00, 0}, {0xf9, 0x00, 0}, {0xf9, 0x02, 0},
	};
	for (const auto &c : cases) {
		srpt_cmd_status st{};
		st.scsi_status = c.status;
		const Bytes b = cmd_rsp(hdr(c.req_sol_not), st, {}, 256);
		EXPECT_EQ(c.want, b[1]) << "SOL_NOT " << int{c.req_sol_not} << " status " << int{c.status};
	}
}

TEST_F(RspBuild, TaskManagementResponseBytes)
{
	for (std::uint8_t code : {0x00, 0x04, 0x05}) {
		Bytes out(64, 0x77);
		ASSERT_EQ(40u, srpt::build_tmf_rsp(hdr(), code, ktl::MutableBytes(out.data(), 40)));
		Bytes want(40, 0);
		want[0] = 0xc1;
		want[7] = 3;
		for (int i = 0; i < 8; i++)
			want[8 + i] = static_cast<std::uint8_t>(0x88 - 0x11 * i);
		want[18] = 0x01;	/* RSPVALID */
		want[35] = 4;
		want[39] = code;
		EXPECT_EQ(iu::hex(want), iu::hex(Bytes(out.begin(), out.begin() + 40)));
		for (std::size_t i = 40; i < out.size(); i++)
			EXPECT_EQ(0x77, out[i]);
	}
	Bytes small(39, 0x77);
	EXPECT_EQ(0u, srpt::build_tmf_rsp(hdr(), 0, ktl::MutableBytes(small.data(), small.size())));
	EXPECT_EQ(Bytes(39, 0x77), small);
}

TEST_F(RspBuild, TaskManagementSolicitedNotification)
{
	const struct {
		std::uint8_t sol_not, code, want;
	} cases[] = {
		{0x02, 0x00, 1}, {0x02, 0x05, 0}, {0x04, 0x05, 1}, {0x04, 0x04, 1},
		{0x04, 0x00, 0}, {0x00, 0x00, 0},
	};
	for (const auto &c : cases) {
		Bytes out(40);
		ASSERT_EQ(40u, srpt::build_tmf_rsp(hdr(c.sol_not), c.code,
						   ktl::MutableBytes(out.data(), out.size())));
		EXPECT_EQ(c.want, out[1]) << int{c.sol_not} << "/" << int{c.code};
	}
}

TEST_F(RspBuild, TmfResponseCodes)
{
	EXPECT_EQ(0x00, srpt::tmf_rsp_code(SRPT_TMR_COMPLETE));
	EXPECT_EQ(0x00, srpt::tmf_rsp_code(SRPT_TMR_TASK_DOES_NOT_EXIST));
	EXPECT_EQ(0x04, srpt::tmf_rsp_code(SRPT_TMR_NOT_SUPPORTED));
	EXPECT_EQ(0x04, srpt::tmf_rsp_code(SRPT_TMR_REJECTED));
	EXPECT_EQ(0x05, srpt::tmf_rsp_code(SRPT_TMR_LUN_DOES_NOT_EXIST));
	EXPECT_EQ(0x05, srpt::tmf_rsp_code(SRPT_TMR_FAILED));
	EXPECT_EQ(0x05, srpt::tmf_rsp_code(static_cast<srpt_tmr_response>(77)));
}
