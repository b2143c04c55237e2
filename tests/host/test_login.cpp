// SPDX-License-Identifier: GPL-2.0-only
/*
 * SRP login, the pure part: parse_login_request (both CM forms),
 * check_login (every reject reason at every boundary) and the bytes of
 * SRP_LOGIN_RSP / SRP_LOGIN_REJ. Expected bytes are written out from the
 * SRP r16a layouts (tests/host/srp_iu.h), never with the core's encoders.
 */
#include "fixture.h"
#include "srp_iu.h"

#include <srpt/login.h>

#include <algorithm>

using iu::Bytes;
using srpt::LoginCheck;
using srpt::LoginLimits;
using srpt::LoginRequest;
using srpt::srp::RejectReason;

namespace {

constexpr std::uint64_t kGuid = 0x0002c90300a1b2c0ull;

LoginLimits limits(bool use_srq = false)
{
	LoginLimits l;
	l.max_req_size = 8276;
	l.max_rsp_size = 256;
	l.service_guid = kGuid;
	l.use_srq = use_srq;
	return l;
}

iu::LoginReq good_req()
{
	iu::LoginReq r;
	r.t_port_id = iu::port_id(kGuid, kGuid);
	return r;
}

LoginRequest parsed(srpt_cm_kind cm, const Bytes &b)
{
	LoginRequest out;
	const int ret = srpt::parse_login_request(cm, ktl::Bytes(b.data(), b.size()), &out);
	EXPECT_EQ(0, ret) << iu::hex(b);
	return out;
}

LoginCheck check(const iu::LoginReq &r, const LoginLimits &l = limits())
{
	/* Every check goes through both forms, which must agree. */
	const LoginCheck ib = srpt::check_login(parsed(SRPT_CM_IB, iu::login_ib(r)), l);
	const LoginCheck rdma = srpt::check_login(parsed(SRPT_CM_RDMA, iu::login_rdma(r)), l);
	EXPECT_EQ(ib.ok, rdma.ok);
	EXPECT_EQ(static_cast<std::uint32_t>(ib.reason), static_cast<std::uint32_t>(rdma.reason));
	EXPECT_EQ(ib.imm_data_offset, rdma.imm_data_offset);
	EXPECT_EQ(ib.multichannel, rdma.multichannel);
	EXPECT_EQ(ib.max_ti_iu_len, rdma.max_ti_iu_len);
	if (!ib.ok) {
		EXPECT_NE(nullptr, ib.why);
	}
	return ib;
}

std::uint32_t reason(const LoginCheck &c)
{
	EXPECT_FALSE(c.ok);
	return static_cast<std::uint32_t>(c.reason);
}

} // namespace

using LoginParse = CoreTest;

TEST_F(LoginParse, IbCmFieldsAtTheirOffsets)
{
	Bytes b(64);
	for (std::size_t i = 0; i < b.size(); i++)
		b[i] = static_cast<std::uint8_t>(0x40 + i);
	b[0] = 0x00;
	LoginRequest r = parsed(SRPT_CM_IB, b);
	EXPECT_EQ(0x00, r.opcode);
	EXPECT_EQ(0x48494a4b4c4d4e4full, r.tag);
	EXPECT_EQ(0x50515253u, r.req_it_iu_len);
	EXPECT_EQ(0x5859, r.req_buf_fmt);
	EXPECT_EQ(0x5a, r.req_flags);
	EXPECT_EQ(0x5c5d, r.imm_data_offset);
	for (int i = 0; i < 16; i++) {
		EXPECT_EQ(0x60 + i, r.initiator_port_id[i]) << i;
		EXPECT_EQ(0x70 + i, r.target_port_id[i]) << i;
	}
}

TEST_F(LoginParse, RdmaCmFieldsAtTheirOffsets)
{
	Bytes b(56);
	for (std::size_t i = 0; i < b.size(); i++)
		b[i] = static_cast<std::uint8_t>(0x80 + i);
	LoginRequest r = parsed(SRPT_CM_RDMA, b);
	EXPECT_EQ(0x8b, r.opcode);
	EXPECT_EQ(0x8081828384858687ull, r.tag);
	EXPECT_EQ(0x8c8d8e8fu, r.req_it_iu_len);
	EXPECT_EQ(0x8889, r.req_buf_fmt);
	EXPECT_EQ(0x8a, r.req_flags);
	EXPECT_EQ(0xb0b1, r.imm_data_offset);
	for (int i = 0; i < 16; i++) {
		EXPECT_EQ(0x90 + i, r.initiator_port_id[i]) << i;
		EXPECT_EQ(0xa0 + i, r.target_port_id[i]) << i;
	}
}

TEST_F(LoginParse, TooShortPrivateDataIsEINVALAndLeavesTheOutputAlone)
{
	for (auto [cm, full] : {std::pair{SRPT_CM_IB, 64}, std::pair{SRPT_CM_RDMA, 56}}) {
		for (int len : {0, 1, full - 16, full - 1}) {
			Bytes b(static_cast<std::size_t>(len), 0x11);
			LoginRequest out;
			out.tag = 0xdead;
			EXPECT_EQ(-ktl::kEINVAL,
				  srpt::parse_login_request(cm, ktl::Bytes(b.data(), b.size()), &out))
				<< cm << " " << len;
			EXPECT_EQ(0xdeadu, out.tag);
		}
	}
	/* Not a CM form at all. */
	Bytes b(64, 0);
	LoginRequest out;
	EXPECT_EQ(-ktl::kEINVAL, srpt::parse_login_request(static_cast<srpt_cm_kind>(0),
							    ktl::Bytes(b.data(), b.size()), &out));
	EXPECT_EQ(-ktl::kEINVAL, srpt::parse_login_request(static_cast<srpt_cm_kind>(3),
							    ktl::Bytes(b.data(), b.size()), &out));
}

TEST_F(LoginParse, LongerPrivateDataIsFine)
{
	/* IB/CM carries 92 bytes of REQ private data; RDMA/CM may pad too. */
	iu::LoginReq r = good_req();
	r.tag = 42;
	EXPECT_EQ(42u, parsed(SRPT_CM_IB, iu::login_ib(r, 28)).tag);
	EXPECT_EQ(42u, parsed(SRPT_CM_RDMA, iu::login_rdma(r, 100)).tag);
	EXPECT_TRUE(check(r).ok);
}

/* ---- check_login ---- */

using LoginCheckTest = CoreTest;

TEST_F(LoginCheckTest, AGoodRequest)
{
	const LoginCheck c = check(good_req());
	EXPECT_TRUE(c.ok);
	EXPECT_FALSE(c.multichannel);
	EXPECT_EQ(0, c.imm_data_offset);
	EXPECT_EQ(256u, c.max_ti_iu_len) << "min(req_it_iu_len 8276, max_rsp_size 256)";
}

TEST_F(LoginCheckTest, NotALoginRequest)
{
	for (std::uint8_t op : {0x01, 0x02, 0xc0, 0xff}) {
		iu::LoginReq r = good_req();
		r.opcode = op;
		EXPECT_EQ(0x00010000u, reason(check(r))) << int{op};
	}
}

TEST_F(LoginCheckTest, ItIuLengthBoundaries)
{
	const struct {
		std::uint32_t len;
		bool ok;
	} cases[] = {
		{0, false}, {63, false}, {64, true}, {65, true}, {8275, true},
		{8276, true}, {8277, false}, {0xffffffff, false}, {0x80000040, false},
	};
	for (const auto &c : cases) {
		iu::LoginReq r = good_req();
		r.it_iu_len = c.len;
		const LoginCheck got = check(r);
		EXPECT_EQ(c.ok, got.ok) << c.len;
		if (!c.ok) {
			EXPECT_EQ(0x00010002u, reason(got)) << c.len;
		} else {
			EXPECT_EQ(std::min<std::uint32_t>(c.len, 256), got.max_ti_iu_len) << c.len;
		}
	}
	/* The bound is the srp_max_req_size in the limits. */
	LoginLimits l = limits();
	l.max_req_size = 996;
	iu::LoginReq r = good_req();
	r.it_iu_len = 996;
	EXPECT_TRUE(check(r, l).ok);
	r.it_iu_len = 997;
	EXPECT_EQ(0x00010002u, reason(check(r, l)));
}

TEST_F(LoginCheckTest, MaxTiIuLenIsClippedToTheResponseBuffer)
{
	LoginLimits l = limits();
	l.max_rsp_size = 1024;
	iu::LoginReq r = good_req();
	r.it_iu_len = 100;
	EXPECT_EQ(100u, check(r, l).max_ti_iu_len);
	r.it_iu_len = 1024;
	EXPECT_EQ(1024u, check(r, l).max_ti_iu_len);
	r.it_iu_len = 1025;
	EXPECT_EQ(1024u, check(r, l).max_ti_iu_len);
}

TEST_F(LoginCheckTest, BufferFormats)
{
	const struct {
		std::uint16_t fmt;
		bool ok;
	} cases[] = {
		{0x0000, false}, {0x0001, false}, {0x0008, false}, {0xfff9, false},
		{0x0002, true}, {0x0004, true}, {0x0006, true}, {0xffff, true},
	};
	for (const auto &c : cases) {
		iu::LoginReq r = good_req();
		r.buf_fmt = c.fmt;
		const LoginCheck got = check(r);
		EXPECT_EQ(c.ok, got.ok) << std::hex << c.fmt;
		if (!c.ok) {
			EXPECT_EQ(0x00010004u, reason(got)) << std::hex << c.fmt;
		}
	}
}

TEST_F(LoginCheckTest, TargetPortIdMustBeTheServiceGuidTwice)
{
	const Bytes ids[] = {
		iu::port_id(kGuid + 1, kGuid),	/* id_ext wrong */
		iu::port_id(kGuid, kGuid + 1),	/* ioc_guid wrong */
		iu::port_id(kGuid ^ (1ull << 63), kGuid),
		iu::port_id(kGuid, kGuid ^ 1),
		iu::port_id(0, 0),
		iu::port_id(kGuid, 0),
		iu::port_id(0, kGuid),
	};
	for (const Bytes &id : ids) {
		iu::LoginReq r = good_req();
		r.t_port_id = id;
		EXPECT_EQ(0x00010003u, reason(check(r))) << iu::hex(id);
	}
	/* Byte order: the GUID is big endian on the wire. */
	iu::LoginReq r = good_req();
	r.t_port_id = {0x00, 0x02, 0xc9, 0x03, 0x00, 0xa1, 0xb2, 0xc0,
		       0x00, 0x02, 0xc9, 0x03, 0x00, 0xa1, 0xb2, 0xc0};
	EXPECT_TRUE(check(r).ok);
	std::reverse(r.t_port_id.begin(), r.t_port_id.end());
	EXPECT_EQ(0x00010003u, reason(check(r)));
}

TEST_F(LoginCheckTest, MultichannelActions)
{
	for (std::uint8_t flags : {0x00, 0x01, 0x02, 0x03, 0x7c, 0x7d, 0x7e, 0x7f}) {
		iu::LoginReq r = good_req();
		r.flags = flags;
		const LoginCheck c = check(r);
		switch (flags & 3) {
		case 0:
			EXPECT_TRUE(c.ok) << int{flags};
			EXPECT_FALSE(c.multichannel) << int{flags};
			break;
		case 1:
			EXPECT_TRUE(c.ok) << int{flags};
			EXPECT_TRUE(c.multichannel) << int{flags};
			break;
		default:
			EXPECT_EQ(0x00010000u, reason(c)) << "reserved action " << int{flags};
		}
	}
}

TEST_F(LoginCheckTest, ImmediateDataOffsets)
{
	const struct {
		std::uint8_t flags;
		std::uint16_t offset;
		bool use_srq;
		std::uint16_t want;
	} cases[] = {
		{0x80, 0, false, 0},
		{0x80, 47, false, 0},		/* inside SRP_CMD */
		{0x80, 48, false, 48},		/* right after it */
		{0x80, 49, false, 49},
		{0x80, 512, false, 512},
		{0x80, 8275, false, 8275},	/* the last byte of the IU */
		{0x80, 8276, false, 0},		/* max_req_size: no room */
		{0x80, 8277, false, 0},
		{0x80, 0xffff, false, 0},
		{0x00, 48, false, 0},		/* not requested */
		{0x81, 80, false, 80},		/* with MULTI */
		{0x80, 48, true, 0},		/* SRQ buffers are shared: never */
		{0x80, 512, true, 0},
	};
	for (const auto &c : cases) {
		iu::LoginReq r = good_req();
		r.flags = c.flags;
		r.imm_offset = c.offset;
		const LoginCheck got = check(r, limits(c.use_srq));
		EXPECT_TRUE(got.ok) << c.offset;
		EXPECT_EQ(c.want, got.imm_data_offset)
			<< "flags " << int{c.flags} << " offset " << c.offset << " srq " << c.use_srq;
	}
}

TEST_F(LoginCheckTest, ImmAlignOffsetPutsTheDataOnA512ByteBoundary)
{
	EXPECT_EQ(0u, srpt::imm_align_offset(0));
	EXPECT_EQ(464u, srpt::imm_align_offset(48));
	EXPECT_EQ(412u, srpt::imm_align_offset(100));
	EXPECT_EQ(0u, srpt::imm_align_offset(512));
	EXPECT_EQ(511u, srpt::imm_align_offset(513));
	for (std::uint32_t off = 48; off < 2000; off++)
		EXPECT_EQ(0u, (srpt::imm_align_offset(off) + off) % 512) << off;
}

/* ---- SRP_LOGIN_RSP and SRP_LOGIN_REJ bytes ---- */

using LoginBuild = CoreTest;

TEST_F(LoginBuild, LoginResponseBytes)
{
	srpt::LoginResponse rsp;
	rsp.tag = 0x0102030405060708ull;
	rsp.req_lim_delta = 0x80;
	rsp.max_it_iu_len = 8276;
	rsp.max_ti_iu_len = 256;
	rsp.rsp_flags = 0x82;
	Bytes out(64, 0x77);
	ASSERT_EQ(52u, srpt::build_login_rsp(rsp, ktl::MutableBytes(out.data(), out.size())));

	Bytes want(52, 0);
	want[0] = 0xc0;
	want[7] = 0x80;
	for (int i = 0; i < 8; i++)
		want[8 + i] = static_cast<std::uint8_t>(i + 1);
	want[18] = 0x20;	/* 8276 = 0x2054 */
	want[19] = 0x54;
	want[22] = 0x01;	/* 256 */
	want[25] = 0x06;
	want[26] = 0x82;
	EXPECT_EQ(iu::hex(want), iu::hex(Bytes(out.begin(), out.begin() + 52)));
	for (std::size_t i = 52; i < out.size(); i++)
		EXPECT_EQ(0x77, out[i]) << "byte " << i << " written past the IU";
}

TEST_F(LoginBuild, LoginResponseNeedsFiftyTwoBytes)
{
	srpt::LoginResponse rsp;
	Bytes out(51, 0x77);
	EXPECT_EQ(0u, srpt::build_login_rsp(rsp, ktl::MutableBytes(out.data(), out.size())));
	EXPECT_EQ(Bytes(51, 0x77), out) << "nothing written into a short buffer";
	EXPECT_EQ(0u, srpt::build_login_rsp(rsp, ktl::MutableBytes()));
}

TEST_F(LoginBuild, LoginRejectBytesForEveryReason)
{
	const std::uint32_t reasons[] = {0x00010000, 0x00010001, 0x00010002, 0x00010003, 0x00010004};
	for (std::uint32_t why : reasons) {
		Bytes out(40, 0x77);
		ASSERT_EQ(32u, srpt::build_login_rej(0xa1a2a3a4a5a6a7a8ull, static_cast<RejectReason>(why),
						     ktl::MutableBytes(out.data(), out.size())));
		Bytes want(32, 0);
		want[0] = 0xc2;
		want[5] = 0x01;
		want[7] = static_cast<std::uint8_t>(why);
		for (int i = 0; i < 8; i++)
			want[8 + i] = static_cast<std::uint8_t>(0xa1 + i);
		want[25] = 0x06;
		EXPECT_EQ(iu::hex(want), iu::hex(Bytes(out.begin(), out.begin() + 32)));
		for (std::size_t i = 32; i < out.size(); i++)
			EXPECT_EQ(0x77, out[i]) << "byte " << i << " written past the IU";
	}
	Bytes small(31, 0x77);
	EXPECT_EQ(0u, srpt::build_login_rej(1, RejectReason::kInsufficientResources,
					    ktl::MutableBytes(small.data(), small.size())));
	EXPECT_EQ(Bytes(31, 0x77), small);
}

TEST_F(LoginBuild, RejectReasonCodes)
{
	/* The codes the core sends, checked against SRP r16a table 12. */
	EXPECT_EQ(0x00010000u, static_cast<std::uint32_t>(RejectReason::kUnableEstablishChannel));
	EXPECT_EQ(0x00010001u, static_cast<std::uint32_t>(RejectReason::kInsufficientResources));
	EXPECT_EQ(0x00010002u, static_cast<std::uint32_t>(RejectReason::kReqItIuLengthTooLarge));
	EXPECT_EQ(0x00010003u, static_cast<std::uint32_t>(RejectReason::kUnableAssociateChannel));
	EXPECT_EQ(0x00010004u, static_cast<std::uint32_t>(RejectReason::kUnsupportedDescriptorFormat));
}
