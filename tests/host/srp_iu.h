/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * SRP information units as an initiator builds them, for the tests: every
 * offset and value here is written out from the T10 SRP r16a layouts (and
 * the SRP-2 immediate data extension), independently of the core's
 * include/srpt/srp.h, so that a wrong constant there cannot hide behind
 * the same constant here. All fields are big endian.
 *
 * Header-only: the fuzz targets use it too. Not a gtest header.
 */
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <initializer_list>
#include <string>
#include <vector>

namespace iu {

using Bytes = std::vector<std::uint8_t>;

inline void be16(Bytes &b, std::size_t off, std::uint16_t v)
{
	if (b.size() < off + 2)
		b.resize(off + 2);
	b[off] = static_cast<std::uint8_t>(v >> 8);
	b[off + 1] = static_cast<std::uint8_t>(v);
}

inline void be32(Bytes &b, std::size_t off, std::uint32_t v)
{
	if (b.size() < off + 4)
		b.resize(off + 4);
	for (int i = 0; i < 4; i++)
		b[off + i] = static_cast<std::uint8_t>(v >> (24 - 8 * i));
}

inline void be64(Bytes &b, std::size_t off, std::uint64_t v)
{
	if (b.size() < off + 8)
		b.resize(off + 8);
	for (int i = 0; i < 8; i++)
		b[off + i] = static_cast<std::uint8_t>(v >> (56 - 8 * i));
}

inline std::uint32_t get_be32(const Bytes &b, std::size_t off)
{
	return std::uint32_t{b.at(off)} << 24 | std::uint32_t{b.at(off + 1)} << 16 |
	       std::uint32_t{b.at(off + 2)} << 8 | b.at(off + 3);
}

inline std::uint64_t get_be64(const Bytes &b, std::size_t off)
{
	return std::uint64_t{get_be32(b, off)} << 32 | get_be32(b, off + 4);
}

inline void put(Bytes &b, std::size_t off, const Bytes &v)
{
	if (b.size() < off + v.size())
		b.resize(off + v.size());
	std::memcpy(b.data() + off, v.data(), v.size());
}

inline Bytes cat(std::initializer_list<Bytes> parts)
{
	Bytes out;
	for (const Bytes &p : parts)
		out.insert(out.end(), p.begin(), p.end());
	return out;
}

/* 16 bytes: a port identifier made of two 64-bit halves. */
inline Bytes port_id(std::uint64_t hi, std::uint64_t lo)
{
	Bytes b(16);
	be64(b, 0, hi);
	be64(b, 8, lo);
	return b;
}

/* ---- SRP_LOGIN_REQ ---- */

struct LoginReq {
	std::uint8_t opcode = 0x00;
	std::uint64_t tag = 0x1122334455667788ull;
	std::uint32_t it_iu_len = 8276;
	std::uint16_t buf_fmt = 0x0006;		/* direct | indirect */
	std::uint8_t flags = 0x00;		/* SINGLE, no immediate data */
	std::uint16_t imm_offset = 0;
	Bytes i_port_id = port_id(0x0123456789abcdefull, 0xfedcba9876543210ull);
	Bytes t_port_id;			/* set from the service GUID */
};

/* IB/CM form: 64 bytes, then @pad bytes of CM padding. */
inline Bytes login_ib(const LoginReq &r, std::size_t pad = 0)
{
	Bytes b(64 + pad, 0);
	b[0] = r.opcode;
	be64(b, 8, r.tag);
	be32(b, 16, r.it_iu_len);
	be16(b, 24, r.buf_fmt);
	b[26] = r.flags;
	be16(b, 28, r.imm_offset);
	put(b, 32, r.i_port_id);
	put(b, 48, r.t_port_id);
	return b;
}

/* RDMA/CM form (struct srp_login_req_rdma): 56 bytes. */
inline Bytes login_rdma(const LoginReq &r, std::size_t pad = 0)
{
	Bytes b(56 + pad, 0);
	be64(b, 0, r.tag);
	be16(b, 8, r.buf_fmt);
	b[10] = r.flags;
	b[11] = r.opcode;
	be32(b, 12, r.it_iu_len);
	put(b, 16, r.i_port_id);
	put(b, 32, r.t_port_id);
	be16(b, 48, r.imm_offset);
	return b;
}

/* ---- SRP_CMD ---- */

/* A direct data buffer descriptor: va, rkey, len (16 bytes). */
inline Bytes direct(std::uint64_t va, std::uint32_t rkey, std::uint32_t len)
{
	Bytes b(16);
	be64(b, 0, va);
	be32(b, 8, rkey);
	be32(b, 12, len);
	return b;
}

/*
 * An indirect descriptor: the table's own descriptor (its length =
 * @table_len, by default 16 per entry), the total length (by default the
 * sum) and the table.
 */
inline Bytes indirect(const std::vector<Bytes> &table, long table_len = -1, long total = -1)
{
	std::uint64_t sum = 0;
	Bytes t;
	for (const Bytes &d : table) {
		sum += get_be32(d, 12);
		t.insert(t.end(), d.begin(), d.end());
	}
	Bytes b = direct(0xabcd000000001000ull, 0x5a5a, table_len < 0 ? static_cast<std::uint32_t>(t.size())
								      : static_cast<std::uint32_t>(table_len));
	be32(b, 16, total < 0 ? static_cast<std::uint32_t>(sum) : static_cast<std::uint32_t>(total));
	b.insert(b.end(), t.begin(), t.end());
	return b;
}

/* The immediate data descriptor: the data length (4 bytes). */
inline Bytes imm_desc(std::uint32_t len)
{
	Bytes b(4);
	be32(b, 0, len);
	return b;
}

/*
 * SRP_CMD (SRP r16a 6.7, Linux struct srp_cmd): 0 opcode 0x02, 1 SOL_NOT,
 * 2-4 reserved, 5 DATA BUFFER DESCRIPTOR FORMATS (out << 4 | in), 6
 * DATA-OUT and 7 DATA-IN BUFFER DESCRIPTOR COUNT, 8-15 tag, 16-19
 * reserved, 20-27 LUN, 28 reserved, 29 TASK ATTRIBUTE (low 3 bits), 30
 * reserved, 31 ADDITIONAL CDB LENGTH (bits 7..2: 4-byte words), 32-47
 * CDB, 48.. additional CDB, then the data-out and data-in descriptors.
 */
struct Cmd {
	std::uint8_t sol_not = 0;
	std::uint8_t buf_fmt = 0x00;		/* out << 4 | in */
	std::uint8_t out_cnt = 0, in_cnt = 0;
	std::uint64_t tag = 0xc0ffee0000000001ull;
	Bytes lun = Bytes(8, 0);		/* bytes 20-27 */
	std::uint8_t task_attr = 0;		/* byte 29 */
	std::uint8_t add_cdb_len = 0;		/* byte 31 */
	Bytes cdb = {0x00};			/* bytes 32-47: TEST UNIT READY, zero-padded */
	Bytes add_cdb;				/* from byte 48 */
	Bytes desc;				/* after the additional CDB */
};

/* 48 bytes + the additional CDB + the descriptors. */
inline Bytes cmd(const Cmd &c)
{
	Bytes b(48, 0);
	b[0] = 0x02;
	b[1] = c.sol_not;
	b[5] = c.buf_fmt;
	b[6] = c.out_cnt;
	b[7] = c.in_cnt;
	be64(b, 8, c.tag);
	put(b, 20, c.lun);
	b[29] = c.task_attr;
	b[31] = c.add_cdb_len;
	Bytes cdb = c.cdb;
	cdb.resize(16, 0);
	put(b, 32, cdb);
	b.insert(b.end(), c.add_cdb.begin(), c.add_cdb.end());
	b.insert(b.end(), c.desc.begin(), c.desc.end());
	return b;
}

/* READ(10) and WRITE(10) of @blocks 512-byte blocks at LBA 0x1234. */
inline Bytes read10(std::uint16_t blocks = 8)
{
	return {0x28, 0, 0, 0, 0x12, 0x34, 0, static_cast<std::uint8_t>(blocks >> 8),
		static_cast<std::uint8_t>(blocks), 0};
}
inline Bytes write10(std::uint16_t blocks = 8)
{
	return {0x2a, 0, 0, 0, 0x12, 0x34, 0, static_cast<std::uint8_t>(blocks >> 8),
		static_cast<std::uint8_t>(blocks), 0};
}

/*
 * SRP_TSK_MGMT (48 bytes): 0 opcode 0x01, 1 SOL_NOT, 8-15 tag, 20-27
 * LUN, 30 TASK MANAGEMENT FUNCTION, 32-39 TAG OF TASK TO BE MANAGED.
 */

struct TskMgmt {
	std::uint8_t sol_not = 0;
	std::uint64_t tag = 0x7a6b000000000001ull;
	Bytes lun = Bytes(8, 0);
	std::uint8_t function = 0x01;
	std::uint64_t task_tag = 0;
};

inline Bytes tsk_mgmt(const TskMgmt &t)
{
	Bytes b(48, 0);
	b[0] = 0x01;
	b[1] = t.sol_not;
	be64(b, 8, t.tag);
	put(b, 20, t.lun);
	b[30] = t.function;
	be64(b, 32, t.task_tag);
	return b;
}

/* ---- Reading SRP_RSP (target to initiator) ---- */

struct Rsp {
	std::uint8_t opcode, sol_not, flags, status;
	std::uint32_t req_lim_delta, do_resid, di_resid, sense_len, resp_len;
	std::uint64_t tag;
	Bytes resp_data, sense;
};

inline Rsp parse_rsp(const Bytes &b)
{
	Rsp r{};
	if (b.size() < 36)
		return r;
	r.opcode = b[0];
	r.sol_not = b[1];
	r.req_lim_delta = get_be32(b, 4);
	r.tag = get_be64(b, 8);
	r.flags = b[18];
	r.status = b[19];
	r.do_resid = get_be32(b, 20);
	r.di_resid = get_be32(b, 24);
	r.sense_len = get_be32(b, 28);
	r.resp_len = get_be32(b, 32);
	if (36 + std::size_t{r.resp_len} <= b.size())
		r.resp_data.assign(b.begin() + 36, b.begin() + 36 + r.resp_len);
	const std::size_t s = 36 + std::size_t{r.resp_len};
	if (s + r.sense_len <= b.size())
		r.sense.assign(b.begin() + static_cast<long>(s), b.begin() + static_cast<long>(s + r.sense_len));
	return r;
}

inline std::string hex(const Bytes &b)
{
	static const char d[] = "0123456789abcdef";
	std::string s;
	for (std::size_t i = 0; i < b.size(); i++) {
		if (i)
			s += i % 16 ? ' ' : '\n';
		s += d[b[i] >> 4];
		s += d[b[i] & 15];
	}
	return s;
}

} // namespace iu
