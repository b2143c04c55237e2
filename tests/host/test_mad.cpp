// SPDX-License-Identifier: GPL-2.0-only
/*
 * Device Management MADs: srpt::handle_dm_mad and srpt_core_mad_recv.
 *
 * Every expectation is a whole 256-byte MAD written here at the byte
 * offsets of the InfiniBand layouts (common MAD header, IBA 13.4.2; DM
 * class data at byte 64, IBA 16.3.1; attribute layouts IBA 16.3.3 and SRP
 * r16a annex B), never with the core's own encoder or constants.
 */
#include "fixture.h"

#include <srpt/mad.h>

#include <array>
#include <sstream>
#include <string>
#include <vector>

namespace {

using Mad = std::array<std::uint8_t, 256>;

/* Common MAD header fields at their offsets; everything else is garbage. */
Mad request(int method, int attr_id, std::uint32_t attr_mod, int mgmt_class = 0x06,
	    int base_version = 1, int class_version = 1)
{
	Mad m;
	m.fill(0xee);	/* reserved bytes and the data area must not leak into the response */
	m[0] = static_cast<std::uint8_t>(base_version);
	m[1] = static_cast<std::uint8_t>(mgmt_class);
	m[2] = static_cast<std::uint8_t>(class_version);
	m[3] = static_cast<std::uint8_t>(method);
	m[4] = 0xde;	/* Status: a request's is ignored */
	m[5] = 0xad;
	m[6] = 0x12;	/* ClassSpecific */
	m[7] = 0x34;
	for (int i = 0; i < 8; i++)	/* TransactionID */
		m[8 + i] = static_cast<std::uint8_t>(0xa0 + i);
	m[16] = static_cast<std::uint8_t>(attr_id >> 8);
	m[17] = static_cast<std::uint8_t>(attr_id);
	m[18] = 0x5a;	/* reserved */
	m[19] = 0xa5;
	m[20] = static_cast<std::uint8_t>(attr_mod >> 24);
	m[21] = static_cast<std::uint8_t>(attr_mod >> 16);
	m[22] = static_cast<std::uint8_t>(attr_mod >> 8);
	m[23] = static_cast<std::uint8_t>(attr_mod);
	return m;
}

/* The request's header, Method GetResp (0x81), @status; zeros elsewhere. */
Mad response(const Mad &req, int status)
{
	Mad e{};
	for (int i = 0; i < 24; i++)
		e[i] = req[i];
	e[3] = 0x81;
	e[4] = static_cast<std::uint8_t>(status >> 8);
	e[5] = static_cast<std::uint8_t>(status);
	return e;
}

/* Bytes at data offset @off (the DM data area starts at MAD byte 64). */
void data(Mad &m, std::size_t off, std::initializer_list<int> bytes)
{
	std::size_t i = 64 + off;
	for (int b : bytes)
		m.at(i++) = static_cast<std::uint8_t>(b);
}

void data_str(Mad &m, std::size_t off, const std::string &s)
{
	for (std::size_t i = 0; i < s.size(); i++)
		m.at(64 + off + i) = static_cast<std::uint8_t>(s[i]);
}

::testing::AssertionResult same_mad(const std::uint8_t *got, const Mad &want)
{
	std::ostringstream diff;
	int n = 0;
	for (std::size_t i = 0; i < 256; i++) {
		if (got[i] == want[i])
			continue;
		if (n++ < 24) {
			diff << "\n    byte " << i;
			if (i >= 64)
				diff << " (data " << i - 64 << ")";
			diff << ": got 0x" << std::hex << int(got[i]) << ", want 0x" << int(want[i])
			     << std::dec;
		}
	}
	if (!n)
		return ::testing::AssertionSuccess();
	return ::testing::AssertionFailure() << n << " bytes differ:" << diff.str();
}

constexpr std::size_t kRspBuf = 300;	/* a larger send buffer: bytes 256.. stay untouched */

srpt::MadIdentity identity()
{
	srpt::MadIdentity id;
	id.service_guid = 0x0002c90300a1b2c3ull;
	id.vendor_id = 0x0002c9;
	id.vendor_part_id = 0x00001017;
	id.hw_ver = 0x00a0;
	id.send_queue_depth = 0x0fff;
	id.max_req_size = 8276;		/* 0x2054 */
	id.max_rdma_size = 0x00100000;
	return id;
}

class Mads : public CoreTest {
protected:
	/* handle_dm_mad on @req; checks the length and the untouched tail. */
	::testing::AssertionResult answers(const Mad &req, const Mad &want,
					   const srpt::MadIdentity &id = identity())
	{
		std::vector<std::uint8_t> rsp(kRspBuf, 0x77);
		const std::size_t n = srpt::handle_dm_mad(id, ktl::Bytes(req.data(), req.size()),
							  ktl::MutableBytes(rsp.data(), rsp.size()));
		if (n != 256)
			return ::testing::AssertionFailure() << "returned " << n << ", not 256";
		for (std::size_t i = 256; i < rsp.size(); i++)
			if (rsp[i] != 0x77)
				return ::testing::AssertionFailure() << "wrote byte " << i;
		return same_mad(rsp.data(), want);
	}

	::testing::AssertionResult ignores(const std::uint8_t *req, std::size_t len,
					   std::size_t rsp_len = kRspBuf)
	{
		std::vector<std::uint8_t> rsp(rsp_len, 0x77);
		const std::size_t n = srpt::handle_dm_mad(identity(), ktl::Bytes(req, len),
							  ktl::MutableBytes(rsp.data(), rsp.size()));
		if (n != 0)
			return ::testing::AssertionFailure() << "returned " << n << ", not 0";
		for (std::size_t i = 0; i < rsp.size(); i++)
			if (rsp[i] != 0x77)
				return ::testing::AssertionFailure()
				       << "sends nothing but wrote response byte " << i;
		return ::testing::AssertionSuccess();
	}
};

/* The expected IOControllerProfile of identity(), slot 1. */
Mad ioc_profile(const Mad &req)
{
	Mad e = response(req, 0x0000);
	data(e, 0, {0x00, 0x02, 0xc9, 0x03, 0x00, 0xa1, 0xb2, 0xc3});	/* GUID */
	data(e, 8, {0x00, 0x02, 0xc9, 0x00});				/* VendorID:24 */
	data(e, 12, {0x00, 0x00, 0x10, 0x17});				/* DeviceID */
	data(e, 16, {0x00, 0xa0});					/* DeviceVersion */
	data(e, 20, {0x00, 0x02, 0xc9, 0x00});				/* SubsystemVendorID:24 */
	data(e, 24, {0x00, 0x00, 0x00, 0x00});				/* SubsystemID */
	data(e, 28, {0x01, 0x00});					/* IOClass */
	data(e, 30, {0x60, 0x9e});					/* IOSubclass */
	data(e, 32, {0x01, 0x08});					/* Protocol */
	data(e, 34, {0x00, 0x01});					/* ProtocolVersion */
	data(e, 40, {0x0f, 0xff});					/* SendMessageQueueDepth */
	data(e, 43, {0x04});						/* RDMAReadQueueDepth */
	data(e, 44, {0x00, 0x00, 0x20, 0x54});				/* SendMessageSize */
	data(e, 48, {0x00, 0x10, 0x00, 0x00});				/* RDMATransferSize */
	data(e, 52, {0x2b});						/* capability mask */
	data(e, 54, {0x01});						/* ServiceEntries */
	data_str(e, 64, "Linux SRP target");				/* IDString */
	return e;
}

/* The expected ServiceEntries of identity(): one entry. */
Mad service_entries(const Mad &req)
{
	Mad e = response(req, 0x0000);
	data_str(e, 0, "SRP.T10:0002c90300a1b2c3");
	data(e, 40, {0x00, 0x02, 0xc9, 0x03, 0x00, 0xa1, 0xb2, 0xc3});
	return e;
}

} // namespace

TEST_F(Mads, ClassPortInfo)
{
	const Mad req = request(0x01, 0x0001, 0);
	Mad e = response(req, 0x0000);
	data(e, 0, {0x01});			/* BaseVersion */
	data(e, 1, {0x01});			/* ClassVersion */
	data(e, 4, {0x00, 0x00, 0x00, 20});	/* RespTimeValue */
	EXPECT_TRUE(answers(req, e));
	/* The attribute modifier does not matter. */
	const Mad req2 = request(0x01, 0x0001, 0xffffffff);
	Mad e2 = response(req2, 0x0000);
	data(e2, 0, {0x01, 0x01, 0x00, 0x00, 0x00, 0x00, 0x00, 20});
	EXPECT_TRUE(answers(req2, e2));
}

TEST_F(Mads, IoUnitInfo)
{
	const Mad req = request(0x01, 0x0010, 0);
	Mad e = response(req, 0x0000);
	data(e, 0, {0x00, 0x01});	/* ChangeID */
	data(e, 2, {16});		/* MaxControllers */
	data(e, 3, {0x00});
	data(e, 4, {0x10});		/* ControllerList: slot 1 present (high nibble), slot 2 empty */
	EXPECT_TRUE(answers(req, e));
}

TEST_F(Mads, IocProfileSlot1)
{
	const Mad req = request(0x01, 0x0011, 1);
	EXPECT_TRUE(answers(req, ioc_profile(req)));
}

TEST_F(Mads, IocProfileVendorIdIs24Bits)
{
	srpt::MadIdentity id = identity();
	id.vendor_id = 0x12345678;
	const Mad req = request(0x01, 0x0011, 1);
	Mad e = ioc_profile(req);
	data(e, 8, {0x34, 0x56, 0x78, 0x00});
	data(e, 20, {0x34, 0x56, 0x78, 0x00});
	EXPECT_TRUE(answers(req, e, id));
}

TEST_F(Mads, IocProfileRdmaTransferSizeIsAtMost16MiB)
{
	const struct {
		std::uint32_t max_rdma;
		std::initializer_list<int> want;
	} cases[] = {
		{0x00010000, {0x00, 0x01, 0x00, 0x00}},
		{0x00ffffff, {0x00, 0xff, 0xff, 0xff}},
		{0x01000000, {0x01, 0x00, 0x00, 0x00}},
		{0x01000001, {0x01, 0x00, 0x00, 0x00}},
		{0xffffffff, {0x01, 0x00, 0x00, 0x00}},
	};
	for (const auto &c : cases) {
		srpt::MadIdentity id = identity();
		id.max_rdma_size = c.max_rdma;
		const Mad req = request(0x01, 0x0011, 1);
		Mad e = ioc_profile(req);
		data(e, 48, c.want);
		EXPECT_TRUE(answers(req, e, id)) << "max_rdma_size " << c.max_rdma;
	}
}

TEST_F(Mads, IocProfileInvalidSlots)
{
	for (std::uint32_t slot : {0u, 17u, 18u, 0x100u, 0x10001u, 0x80000001u, 0xffffffffu}) {
		const Mad req = request(0x01, 0x0011, slot);
		EXPECT_TRUE(answers(req, response(req, 0x001c))) << "slot " << slot;
	}
}

TEST_F(Mads, IocProfileEmptySlots)
{
	for (std::uint32_t slot = 2; slot <= 16; slot++) {
		const Mad req = request(0x01, 0x0011, slot);
		EXPECT_TRUE(answers(req, response(req, 0x0100))) << "slot " << slot;
	}
}

TEST_F(Mads, ServiceEntries)
{
	const Mad req = request(0x01, 0x0012, 1u << 16);
	EXPECT_TRUE(answers(req, service_entries(req)));
}

TEST_F(Mads, ServiceEntriesNameUsesLowerCaseHex)
{
	srpt::MadIdentity id = identity();
	id.service_guid = 0xfedcba9876543210ull;
	const Mad req = request(0x01, 0x0012, 1u << 16);
	Mad e = response(req, 0x0000);
	data_str(e, 0, "SRP.T10:fedcba9876543210");
	data(e, 40, {0xfe, 0xdc, 0xba, 0x98, 0x76, 0x54, 0x32, 0x10});
	EXPECT_TRUE(answers(req, e, id));
}

TEST_F(Mads, ServiceEntriesInvalidFields)
{
	const struct {
		std::uint32_t slot, hi, lo;
	} cases[] = {
		{0, 0, 0}, {17, 0, 0}, {0xffff, 0, 0},	/* no such slot */
		{1, 0, 1},				/* lo > hi */
		{1, 1, 0}, {1, 1, 1}, {1, 0xff, 0}, {1, 0xff, 0xff}, /* beyond our one entry */
	};
	for (const auto &c : cases) {
		const Mad req = request(0x01, 0x0012, c.slot << 16 | c.hi << 8 | c.lo);
		EXPECT_TRUE(answers(req, response(req, 0x001c)))
			<< "slot " << c.slot << " hi " << c.hi << " lo " << c.lo;
	}
}

TEST_F(Mads, ServiceEntriesEmptySlots)
{
	for (std::uint32_t slot = 2; slot <= 16; slot++) {
		const Mad req = request(0x01, 0x0012, slot << 16);
		EXPECT_TRUE(answers(req, response(req, 0x0100))) << "slot " << slot;
	}
	/* The slot is checked before the entry range. */
	const Mad req = request(0x01, 0x0012, 2u << 16 | 5u << 8 | 9u);
	EXPECT_TRUE(answers(req, response(req, 0x0100)));
}

TEST_F(Mads, SetIsUnsupportedForEveryAttribute)
{
	for (int attr : {0x0001, 0x0010, 0x0011, 0x0012, 0x0020, 0xffff}) {
		const Mad req = request(0x02, attr, attr == 0x0012 ? 1u << 16 : 1u);
		EXPECT_TRUE(answers(req, response(req, 0x000c))) << "attribute " << attr;
	}
}

TEST_F(Mads, UnknownAttribute)
{
	for (int attr : {0x0000, 0x0002, 0x000f, 0x0013, 0x0020, 0x0021, 0x1011, 0xff00, 0xffff}) {
		const Mad req = request(0x01, attr, 1);
		EXPECT_TRUE(answers(req, response(req, 0x000c))) << "attribute " << attr;
	}
}

TEST_F(Mads, UnsupportedMethods)
{
	for (int method = 0x00; method < 0x80; method++) {
		if (method == 0x01 || method == 0x02)
			continue;
		const Mad req = request(method, 0x0001, 0);
		EXPECT_TRUE(answers(req, response(req, 0x0008))) << "method " << method;
	}
}

TEST_F(Mads, BadClassVersion)
{
	for (int cv : {0, 2, 3, 0x81, 0xff}) {
		for (int method : {0x01, 0x02, 0x03}) {
			const Mad req = request(method, 0x0001, 0, 0x06, 1, cv);
			EXPECT_TRUE(answers(req, response(req, 0x0004)))
				<< "class version " << cv << " method " << method;
		}
	}
}

TEST_F(Mads, ResponsesAreNeverAnswered)
{
	for (int method = 0x80; method <= 0xff; method++) {
		const Mad req = request(method, 0x0001, 0);
		EXPECT_TRUE(ignores(req.data(), req.size())) << "method " << method;
	}
}

TEST_F(Mads, OtherClassesAndBaseVersionsAreNotOurs)
{
	for (int cls : {0x00, 0x01, 0x03, 0x04, 0x05, 0x07, 0x0a, 0x81, 0x86, 0xff}) {
		const Mad req = request(0x01, 0x0001, 0, cls);
		EXPECT_TRUE(ignores(req.data(), req.size())) << "class " << cls;
	}
	for (int bv : {0, 2, 0x81, 0xff}) {
		const Mad req = request(0x01, 0x0001, 0, 0x06, bv);
		EXPECT_TRUE(ignores(req.data(), req.size())) << "base version " << bv;
	}
}

TEST_F(Mads, OnlyExactly256BytesAreAMad)
{
	std::vector<std::uint8_t> big(4096, 0);
	const Mad req = request(0x01, 0x0001, 0);
	std::copy(req.begin(), req.end(), big.begin());
	for (std::size_t len = 0; len < 256; len++)
		EXPECT_TRUE(ignores(big.data(), len)) << "length " << len;
	for (std::size_t len : {257u, 300u, 512u, 2048u, 4096u})
		EXPECT_TRUE(ignores(big.data(), len)) << "length " << len;
	EXPECT_TRUE(ignores(nullptr, 0));
}

TEST_F(Mads, ResponseBufferMustHold256Bytes)
{
	const Mad req = request(0x01, 0x0001, 0);
	for (std::size_t len : {0u, 1u, 24u, 64u, 255u})
		EXPECT_TRUE(ignores(req.data(), req.size(), len)) << "response buffer " << len;

	std::vector<std::uint8_t> rsp(256, 0x77);
	EXPECT_EQ(256u, srpt::handle_dm_mad(identity(), ktl::Bytes(req.data(), req.size()),
					    ktl::MutableBytes(rsp.data(), rsp.size())));
	Mad e = response(req, 0);
	data(e, 0, {1, 1, 0, 0, 0, 0, 0, 20});
	EXPECT_TRUE(same_mad(rsp.data(), e));
}

/* ---- srpt_core_mad_recv: the identity comes from the device and the port ---- */

namespace {

Mad ioc_profile_of(std::uint64_t guid, int vendor_hi_mid_lo[3], std::uint32_t part, int hw,
		   int sqd, std::uint32_t req_size, std::uint32_t rdma, const Mad &req)
{
	Mad e = response(req, 0x0000);
	for (int i = 0; i < 8; i++)
		e[64 + i] = static_cast<std::uint8_t>(guid >> (56 - 8 * i));
	data(e, 8, {vendor_hi_mid_lo[0], vendor_hi_mid_lo[1], vendor_hi_mid_lo[2], 0});
	data(e, 12, {int(part >> 24), int(part >> 16 & 0xff), int(part >> 8 & 0xff),
		     int(part & 0xff)});
	data(e, 16, {hw >> 8, hw & 0xff});
	data(e, 20, {vendor_hi_mid_lo[0], vendor_hi_mid_lo[1], vendor_hi_mid_lo[2], 0});
	data(e, 28, {0x01, 0x00, 0x60, 0x9e, 0x01, 0x08, 0x00, 0x01});
	data(e, 40, {sqd >> 8, sqd & 0xff});
	data(e, 43, {0x04});
	data(e, 44, {int(req_size >> 24), int(req_size >> 16 & 0xff), int(req_size >> 8 & 0xff),
		     int(req_size & 0xff)});
	data(e, 48, {int(rdma >> 24), int(rdma >> 16 & 0xff), int(rdma >> 8 & 0xff),
		     int(rdma & 0xff)});
	data(e, 52, {0x2b});
	data(e, 54, {0x01});
	data_str(e, 64, "Linux SRP target");
	return e;
}

} // namespace

class MadRecv : public CoreTest {
protected:
	/* A device like a ConnectX-3: vendor 0x02c9, part 0x1003, hw 0x1b0. */
	fake::Device &hca(std::uint32_t max_qp_wr = 32768, std::uint32_t max_srq_wr = 32768)
	{
		fake::Device &d = make_device("mlx4_0", 2, 0x0002c90300a1b2c0ull);
		d.info.vendor_id = 0x0002c9;
		d.info.vendor_part_id = 0x1003;
		d.info.hw_ver = 0x1b0;
		d.info.max_qp_wr = max_qp_wr;
		d.info.max_srq_wr = max_srq_wr;
		EXPECT_EQ(0, fake::add(d));
		return d;
	}

	::testing::AssertionResult recv(fake::Device &d, unsigned port, const Mad &req,
					const Mad &want)
	{
		std::vector<std::uint8_t> rsp(kRspBuf, 0x77);
		const auto n = fake::deliver_mad(d, port, req.data(), req.size(), rsp.data(),
						 rsp.size());
		if (!n)
			return ::testing::AssertionFailure() << "no MAD agent on port " << port;
		if (*n != 256)
			return ::testing::AssertionFailure() << "returned " << *n;
		return same_mad(rsp.data(), want);
	}

	int vendor_[3] = {0x00, 0x02, 0xc9};
};

TEST_F(MadRecv, IdentityFromTheDeviceAndTheFirstNodeGuid)
{
	fake::Device &d = hca();
	const Mad req = request(0x01, 0x0011, 1);

	/* No srpt_service_guid: the first device's node GUID; 128 receive slots without SRQ. */
	EXPECT_TRUE(recv(d, 1, req,
			 ioc_profile_of(0x0002c90300a1b2c0ull, vendor_, 0x1003, 0x1b0, 128, 8276,
					65536, req)));
	EXPECT_TRUE(recv(d, 2, req,
			 ioc_profile_of(0x0002c90300a1b2c0ull, vendor_, 0x1003, 0x1b0, 128, 8276,
					65536, req)));

	const Mad sreq = request(0x01, 0x0012, 1u << 16);
	Mad e = response(sreq, 0);
	data_str(e, 0, "SRP.T10:0002c90300a1b2c0");
	data(e, 40, {0x00, 0x02, 0xc9, 0x03, 0x00, 0xa1, 0xb2, 0xc0});
	EXPECT_TRUE(recv(d, 1, sreq, e));

	/* A second device does not change the service GUID. */
	fake::Device &d2 = add_device("mlx4_1", 1, 0x0002c90300ffff00ull);
	EXPECT_TRUE(recv(d2, 1, sreq, e));
}

TEST_F(MadRecv, ParametersAreReadWhenTheMadArrives)
{
	fake::Device &d = hca();
	ASSERT_EQ(0, srpt_core_param_set(SRPT_PARAM_SERVICE_GUID, "0x1122334455667788"));
	ASSERT_EQ(0, srpt_core_param_set(SRPT_PARAM_MAX_REQ_SIZE, "996"));

	const Mad req = request(0x01, 0x0011, 1);
	EXPECT_TRUE(recv(d, 1, req,
			 ioc_profile_of(0x1122334455667788ull, vendor_, 0x1003, 0x1b0, 128, 996,
					65536, req)));
	const Mad sreq = request(0x01, 0x0012, 1u << 16);
	Mad e = response(sreq, 0);
	data_str(e, 0, "SRP.T10:1122334455667788");
	data(e, 40, {0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77, 0x88});
	EXPECT_TRUE(recv(d, 1, sreq, e));
}

TEST_F(MadRecv, QueueDepthFollowsTheDeviceAndUseSrq)
{
	fake::Device &d = hca(64, 1000);
	const Mad req = request(0x01, 0x0011, 1);
	const std::uint64_t guid = 0x0002c90300a1b2c0ull;

	/* Without SRQ: a channel's receive ring, max_qp_wr less the drain's slot. */
	EXPECT_TRUE(recv(d, 1, req, ioc_profile_of(guid, vendor_, 0x1003, 0x1b0, 63, 8276, 65536, req)));

	srpt_tport *t = create_tport(fake::guid_name(d, 1));
	ASSERT_NE(nullptr, t);
	srpt_tpg *tpg = create_tpg(t);
	ASSERT_NE(nullptr, tpg);
	ASSERT_EQ(2, srpt_core_tpg_attrib_store(tpg, SRPT_ATTRIB_USE_SRQ, "1\n", 2));
	/* With SRQ: min(srpt_srq_size 4095, max_srq_wr 1000). */
	EXPECT_TRUE(recv(d, 1, req, ioc_profile_of(guid, vendor_, 0x1003, 0x1b0, 1000, 8276, 65536, req)));
	ASSERT_EQ(0, srpt_core_param_set(SRPT_PARAM_SRQ_SIZE, "100"));
	EXPECT_TRUE(recv(d, 1, req, ioc_profile_of(guid, vendor_, 0x1003, 0x1b0, 100, 8276, 65536, req)));
	/* Port 2 has its own attributes: no SRQ there. */
	EXPECT_TRUE(recv(d, 2, req, ioc_profile_of(guid, vendor_, 0x1003, 0x1b0, 63, 8276, 65536, req)));
}

TEST_F(MadRecv, RdmaSizeIsThePortsAttribute)
{
	fake::Device &d = hca();
	const Mad req = request(0x01, 0x0011, 1);
	const std::uint64_t guid = 0x0002c90300a1b2c0ull;

	srpt_tport *t = create_tport(fake::gid_name(d, 2));
	ASSERT_NE(nullptr, t);
	srpt_tpg *tpg = create_tpg(t);
	ASSERT_NE(nullptr, tpg);
	ASSERT_EQ(7, srpt_core_tpg_attrib_store(tpg, SRPT_ATTRIB_MAX_RDMA_SIZE, "1048576", 7));
	EXPECT_TRUE(recv(d, 2, req, ioc_profile_of(guid, vendor_, 0x1003, 0x1b0, 128, 8276, 0x100000, req)));
	EXPECT_TRUE(recv(d, 1, req, ioc_profile_of(guid, vendor_, 0x1003, 0x1b0, 128, 8276, 65536, req)));
	ASSERT_EQ(9, srpt_core_tpg_attrib_store(tpg, SRPT_ATTRIB_MAX_RDMA_SIZE, "16777216\n", 9));
	EXPECT_TRUE(recv(d, 2, req, ioc_profile_of(guid, vendor_, 0x1003, 0x1b0, 128, 8276, 0x1000000, req)));
}

TEST_F(MadRecv, ErrorsAndDropsThroughTheAgent)
{
	fake::Device &d = hca();
	Mad req = request(0x01, 0x0011, 2);
	EXPECT_TRUE(recv(d, 1, req, response(req, 0x0100)));
	req = request(0x02, 0x0011, 1);
	EXPECT_TRUE(recv(d, 1, req, response(req, 0x000c)));

	std::vector<std::uint8_t> rsp(256, 0x77);
	req = request(0x81, 0x0011, 1);
	EXPECT_EQ(0u, fake::deliver_mad(d, 1, req.data(), req.size(), rsp.data(), rsp.size()).value_or(99));
	req = request(0x01, 0x0011, 1);
	EXPECT_EQ(0u, fake::deliver_mad(d, 1, req.data(), 255, rsp.data(), rsp.size()).value_or(99));
	EXPECT_EQ(0u, fake::deliver_mad(d, 1, req.data(), 256, rsp.data(), 255).value_or(99));
}

TEST_F(MadRecv, DetachedPortAnswersNothing)
{
	fake::Device &d = hca();
	srpt_tport *t = create_tport(fake::guid_name(d, 1));
	ASSERT_NE(nullptr, t);
	ASSERT_TRUE(d.port(1).agent);
	srpt_port *held = d.port(1).agent_ctx;
	ASSERT_NE(nullptr, held);
	remove_device(d);

	const Mad req = request(0x01, 0x0001, 0);
	std::vector<std::uint8_t> rsp(256, 0x77);
	EXPECT_EQ(0u, srpt_core_mad_recv(held, req.data(), req.size(), rsp.data(), rsp.size()));
	for (std::uint8_t b : rsp)
		EXPECT_EQ(0x77, b);
	destroy_tport(t);
}
