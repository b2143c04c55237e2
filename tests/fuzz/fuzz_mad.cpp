// SPDX-License-Identifier: GPL-2.0-only
/*
 * Fuzzes Device Management MAD handling: srpt::handle_dm_mad() directly
 * with an arbitrary identity, and srpt_core_mad_recv() through a fake
 * device's MAD agent with arbitrary module parameters.
 *
 * Input: [0] flags, [1..28] identity / parameters, [29..] the request.
 *   flags bit 0: through srpt_core_mad_recv (port 1 or 2 by bit 3)
 *   flags bits 1-2: response buffer of 256, 300, 255 or 512 bytes
 *
 * Invariants: the answer is 0 or exactly 256 bytes; 0 exactly when the
 * request is not one 256-byte DM MAD (class 0x06, base version 1) or is
 * a response; an answer carries the request's header with Method 0x81,
 * the status an independent model of the rules expects, zeros in the
 * reserved area and the whole data area when the status is not 0; the
 * response buffer is never written past 256 bytes; the same request
 * gives the same answer.
 */
#include "fuzz_common.h"

#include <srpt/mad.h>

#include <cstring>

namespace {

std::uint32_t be32(const std::uint8_t *p)
{
	return std::uint32_t{p[0]} << 24 | std::uint32_t{p[1]} << 16 | std::uint32_t{p[2]} << 8 | p[3];
}

std::uint64_t be64(const std::uint8_t *p)
{
	return std::uint64_t{be32(p)} << 32 | be32(p + 4);
}

/* The status the rules give (IBA 16.3, SRP annex B), or -1 for "no answer". */
int expected_status(const std::uint8_t *req, std::size_t len)
{
	if (len != 256 || req[0] != 1 || req[1] != 0x06 || (req[3] & 0x80))
		return -1;
	if (req[2] != 1)
		return 0x0004;
	if (req[3] == 0x02)
		return 0x000c;
	if (req[3] != 0x01)
		return 0x0008;
	const unsigned attr = unsigned{req[16]} << 8 | req[17];
	const std::uint32_t mod = be32(req + 20);
	switch (attr) {
	case 0x0001:
	case 0x0010:
		return 0;
	case 0x0011:
		if (mod == 0 || mod > 16)
			return 0x001c;
		return mod == 1 ? 0 : 0x0100;
	case 0x0012: {
		const std::uint32_t slot = mod >> 16, hi = mod >> 8 & 0xff, lo = mod & 0xff;
		if (slot == 0 || slot > 16)
			return 0x001c;
		if (slot != 1)
			return 0x0100;
		return lo > hi || hi >= 1 ? 0x001c : 0;
	}
	default:
		return 0x000c;
	}
}

void check_answer(const std::uint8_t *req, std::size_t len, const std::vector<std::uint8_t> &rsp,
		  std::size_t n, bool full_buffer)
{
	const int want = full_buffer ? expected_status(req, len) : -1;

	FUZZ_CHECK(n == 0 || n == 256, "answer of %zu bytes", n);
	for (std::size_t i = 256; i < rsp.size(); i++)
		FUZZ_CHECK(rsp[i] == 0x77, "response byte %zu written", i);
	if (want < 0) {
		FUZZ_CHECK(n == 0, "answered a request that is not ours (len %zu)", len);
		return;
	}
	FUZZ_CHECK(n == 256, "no answer to a DM request, expected status %#x", want);
	for (std::size_t i = 0; i < 24; i++)
		if (i != 3 && i != 4 && i != 5)
			FUZZ_CHECK(rsp[i] == req[i], "header byte %zu not copied", i);
	FUZZ_CHECK(rsp[3] == 0x81, "method %#x", rsp[3]);
	const int status = rsp[4] << 8 | rsp[5];
	FUZZ_CHECK(status == want, "status %#x, expected %#x (attr %02x%02x mod %08x)", status,
		   want, req[16], req[17], be32(req + 20));
	for (std::size_t i = 24; i < 64; i++)
		FUZZ_CHECK(rsp[i] == 0, "reserved byte %zu is %#x", i, rsp[i]);
	if (status) {
		for (std::size_t i = 64; i < 256; i++)
			FUZZ_CHECK(rsp[i] == 0, "error response with data byte %zu = %#x", i, rsp[i]);
	}
}

/* The fake HCA the srpt_core_mad_recv path answers through. */
fake::Device *device()
{
	static fake::Device *d = [] {
		fuzz::init_core();
		fake::Device *dev = fake::make_device("mlx5_0", 2, 0x0002c90300a1b2c0ull).release();
		if (fake::add(*dev) != 0)
			std::abort();
		fake::take_trace();
		return dev;
	}();
	return d;
}

const std::size_t kRspSizes[4] = {256, 300, 255, 512};

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *data, std::size_t size)
{
	fake::Device *dev = device();
	if (size < 29)
		return 0;
	const std::uint8_t flags = data[0];
	const std::uint8_t *id_bytes = data + 1;
	const std::uint8_t *req = data + 29;
	const std::size_t len = size - 29;
	/* An exact-size copy: ASan sees any read past the request. */
	std::vector<std::uint8_t> req_copy(req, req + len);
	const std::uint8_t *rq = req_copy.empty() ? nullptr : req_copy.data();
	std::vector<std::uint8_t> rsp(kRspSizes[flags >> 1 & 3], 0x77);
	const bool full = rsp.size() >= 256;
	std::size_t n;

	if (!(flags & 1)) {
		srpt::MadIdentity id;
		id.service_guid = be64(id_bytes);
		id.vendor_id = be32(id_bytes + 8);
		id.vendor_part_id = be32(id_bytes + 12);
		id.hw_ver = be32(id_bytes + 16);
		id.send_queue_depth = be32(id_bytes + 20) & 0xffff;
		id.max_req_size = be32(id_bytes + 24);
		id.max_rdma_size = be32(id_bytes + 24) * 16;
		n = srpt::handle_dm_mad(id, ktl::Bytes(rq, len), ktl::MutableBytes(rsp.data(), rsp.size()));
		check_answer(req, len, rsp, n, full);
		if (n == 256 && rsp[4] == 0 && rsp[5] == 0 && req[16] == 0 && req[17] == 0x11) {
			FUZZ_CHECK(be64(rsp.data() + 64) == id.service_guid, "IOC GUID");
			FUZZ_CHECK(be32(rsp.data() + 64 + 48) ==
					   (id.max_rdma_size < (1u << 24) ? id.max_rdma_size : 1u << 24),
				   "RDMATransferSize");
		}
		std::vector<std::uint8_t> again(rsp.size(), 0x77);
		const std::size_t n2 = srpt::handle_dm_mad(id, ktl::Bytes(rq, len),
							   ktl::MutableBytes(again.data(), again.size()));
		FUZZ_CHECK(n2 == n && (n == 0 || std::memcmp(again.data(), rsp.data(), n) == 0),
			   "the same request answered differently");
	} else {
		/* Parameters from the input; invalid ones are refused and change nothing. */
		char val[32];
		std::snprintf(val, sizeof(val), "%u", 996 + be32(id_bytes) % 64541);
		FUZZ_CHECK(srpt_core_param_set(SRPT_PARAM_MAX_REQ_SIZE, val) == 0, "max_req_size %s", val);
		std::snprintf(val, sizeof(val), "%llx", static_cast<unsigned long long>(be64(id_bytes + 4)));
		FUZZ_CHECK(srpt_core_param_set(SRPT_PARAM_SERVICE_GUID, val) == 0, "service GUID %s", val);
		const unsigned port = flags & 8 ? 2 : 1;
		const auto got = fake::deliver_mad(*dev, port, rq, len, rsp.data(), rsp.size());
		FUZZ_CHECK(got.has_value(), "no MAD agent on port %u", port);
		n = *got;
		check_answer(req, len, rsp, n, full);
		if (n == 256 && rsp[4] == 0 && rsp[5] == 0 && req[16] == 0 && req[17] == 0x12) {
			char name[25];
			std::snprintf(name, sizeof(name), "SRP.T10:%016llx",
				      static_cast<unsigned long long>(be64(id_bytes + 4)));
			FUZZ_CHECK(std::memcmp(rsp.data() + 64, name, 24) == 0, "service name");
		}
	}
	fuzz::check_fake();
	return 0;
}
