// SPDX-License-Identifier: GPL-2.0-only
/* SRP_CMD fields, and the LUN form SRP_TSK_MGMT reads too. */
#include <ktl/errno.h>
#include <ktl/wire.h>
#include <srpt/iu.h>
#include <srpt/srp.h>

namespace srpt {

using ktl::BeHeader;
using ktl::BeReader;

u64 scsilun_to_int(const u8 lun[8])
{
	constexpr u64 kLowWords = 0x0000ffff0000ffffull;
	u64 v;

	/*
	 * SAM's four 2-byte levels, first level lowest (as the kernel does):
	 * the big-endian value's 16-bit words in reverse order.
	 */
	__builtin_memcpy(&v, lun, sizeof(v));
	v = ktl::from_be(v);
	v = v >> 32 | v << 32;
	return (v >> 16 & kLowWords) | (v & kLowWords) << 16;
}

u32 scsi_cdb_size(const u8 *cdb)
{
	/* Group code → length (SPC); 0x7f is a variable-length CDB. */
	static constexpr u8 kGroupSize[8] = {6, 10, 10, 12, 16, 12, 10, 10};

	if (cdb[0] == 0x7f)
		return 8u + cdb[7];
	return kGroupSize[cdb[0] >> 5];
}

namespace {

/* The task attribute's three bits, indexed: the kernel builds without jump tables. */
struct TaskAttrs {
	srpt_task_attr of[8];
};

constexpr TaskAttrs kTaskAttrs = [] {
	TaskAttrs t{};

	/* ORDERED, and the reserved values as the safest order. */
	for (srpt_task_attr &a : t.of)
		a = SRPT_TASK_ORDERED;
	t.of[srp::kTaskSimple] = SRPT_TASK_SIMPLE;
	t.of[srp::kTaskHeadOfQueue] = SRPT_TASK_HEAD_OF_QUEUE;
	t.of[srp::kTaskAca] = SRPT_TASK_ACA;
	return t;
}();

srpt_task_attr task_attr(u8 v)
{
	return kTaskAttrs.of[v & 0x7];
}

} // namespace

int parse_srp_cmd(ktl::Bytes iu, u32 imm_data_offset, SrpCmd *out, const char **why)
{
	const BeHeader<srp::cmd::kSize> h(iu);
	SrpCmd &c = *out;

	c = SrpCmd{};
	if (!h.ok()) {
		*why = "SRP_CMD shorter than 48 bytes";
		c.tag = BeReader(iu).be64(srp::cmd::kTag);
		return -ktl::kEINVAL;
	}
	c.tag = h.be64<srp::cmd::kTag>();
	c.sol_not = h.u8_at<srp::cmd::kSolNot>();
	c.task_attr = task_attr(h.u8_at<srp::cmd::kTaskAttr>());
	c.lun = scsilun_to_int(h.bytes<srp::cmd::kLun, 8>());

	const u32 cdb_room = srp::cmd::kCdbSize + (h.u8_at<srp::cmd::kAddCdbLen>() & ~3u);
	if (!BeReader(iu).has(srp::cmd::kCdb, cdb_room)) {
		*why = "additional CDB past the end of the IU";
		return -ktl::kEINVAL;
	}
	c.cdb_len = scsi_cdb_size(iu.data() + srp::cmd::kCdb);
	if (c.cdb_len > cdb_room) {
		*why = "CDB longer than the CDB and additional CDB fields";
		return -ktl::kEINVAL;
	}
	return parse_data_descriptors(iu, imm_data_offset, &c.data, why);
}

} // namespace srpt
