/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Parsing SRP_CMD, the request IU of a SCSI command: CDB, LUN, task
 * attribute and data buffer descriptors (srpt_get_desc_tbl). Every field
 * is read at its offset with a bounds check against the number of bytes
 * actually received. SRP_TSK_MGMT is tmf.h's.
 */
#pragma once

#include <ktl/span.h>
#include <srpt/abi.h>
#include <srpt/types.h>

namespace srpt {

/* Largest data transfer of one command we set up memory for. */
constexpr u32 kMaxDataLen = 1u << 24;

enum class DataKind { kNone, kDirect, kIndirect, kImmediate };

struct RemoteBuffer {
	u64 va = 0;
	u32 key = 0;
	u32 len = 0;
};

/* Where a command's data is, once its descriptors were checked. */
struct DataLayout {
	srpt_data_dir dir = SRPT_DATA_NONE;
	DataKind kind = DataKind::kNone;
	u32 data_len = 0;
	/* kDirect/kIndirect: @desc_count direct descriptors at @desc_offset. */
	u32 desc_count = 0;
	u32 desc_offset = 0;
	/* kDirect: that descriptor, read once (most commands have only it). */
	RemoteBuffer direct;
	/* kImmediate: the data is at @imm_offset in the IU. */
	u32 imm_offset = 0;
};

/* Descriptor @i of a checked layout (i < desc_count). */
RemoteBuffer descriptor_at(ktl::Bytes iu, const DataLayout &layout, u32 i);

/*
 * srpt_get_desc_tbl: checks the data buffer descriptors of the SRP_CMD in
 * @iu (all received bytes) given the channel's immediate data offset (0
 * when not negotiated). Returns 0 or -kEINVAL with *why set for the log.
 */
[[nodiscard]] int parse_data_descriptors(ktl::Bytes iu, u32 imm_data_offset, DataLayout *out,
					 const char **why);

struct SrpCmd {
	u64 tag = 0;
	u64 lun = 0;
	u8 sol_not = 0;
	srpt_task_attr task_attr = SRPT_TASK_SIMPLE;
	u32 cdb_len = 0;	/* at srp::cmd::kCdb, checked against the IU */
	DataLayout data;
};

/*
 * Parses an SRP_CMD into *@out. The tag is valid whenever @iu holds one,
 * even when the rest is malformed (so the error can be answered); the
 * rest of *@out only on success. Returns 0 or -kEINVAL with *why set.
 */
[[nodiscard]] int parse_srp_cmd(ktl::Bytes iu, u32 imm_data_offset, SrpCmd *out, const char **why);

/* The 8-byte SCSI LUN as LIO numbers it (scsilun_to_int). */
u64 scsilun_to_int(const u8 lun[8]);

/* Bytes a CDB needs, from its opcode (and length byte for 0x7f). */
u32 scsi_cdb_size(const u8 *cdb);

} // namespace srpt
