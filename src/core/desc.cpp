// SPDX-License-Identifier: GPL-2.0-only
/*
 * Data buffer descriptors of SRP_CMD (srpt_get_desc_tbl): direct,
 * indirect with the table inside the IU, and immediate data.
 */
#include <ktl/errno.h>
#include <ktl/wire.h>
#include <srpt/iu.h>
#include <srpt/srp.h>

namespace srpt {

using ktl::BeHeader;
using ktl::BeReader;
using ktl::size_t;

namespace {

int fail(const char **why, const char *reason)
{
	*why = reason;
	return -ktl::kEINVAL;
}

} // namespace

RemoteBuffer descriptor_at(ktl::Bytes iu, const DataLayout &layout, u32 i)
{
	namespace dd = srp::direct_desc;
	const size_t off = layout.desc_offset + size_t{i} * dd::kSize;
	const BeHeader<dd::kSize> d(iu.subspan(off, dd::kSize));
	RemoteBuffer b;

	b.va = d.be64<dd::kVa>();
	b.key = d.be32<dd::kKey>();
	b.len = d.be32<dd::kLen>();
	return b;
}

int parse_data_descriptors(ktl::Bytes iu, u32 imm_data_offset, DataLayout *out, const char **why)
{
	const BeHeader<srp::cmd::kSize> h(iu);
	const BeReader r(iu);	/* only to check offsets: every read is a header's */
	DataLayout l;

	if (!h.ok())
		return fail(why, "SRP_CMD shorter than 48 bytes");
	const u8 fmt = h.u8_at<srp::cmd::kBufFmt>();
	const u8 out_fmt = fmt >> 4;
	const u8 in_fmt = fmt & 0xf;
	if (out_fmt && in_fmt)
		return fail(why, "bidirectional commands are not supported");
	const u8 kind = out_fmt ? out_fmt : in_fmt;
	l.dir = out_fmt ? SRPT_DATA_OUT : in_fmt ? SRPT_DATA_IN : SRPT_DATA_NONE;

	/* ADDITIONAL CDB LENGTH counts 4-byte words in bits 7..2. */
	const size_t start = srp::cmd::kAddData + (h.u8_at<srp::cmd::kAddCdbLen>() & ~3u);

	switch (kind) {
	case srp::kDescNone:
		break;
	case srp::kDescDirect: {
		if (!r.has(start, srp::direct_desc::kSize))
			return fail(why, "direct descriptor past the end of the IU");
		l.kind = DataKind::kDirect;
		l.desc_offset = static_cast<u32>(start);
		l.desc_count = 1;
		l.direct = descriptor_at(iu, l, 0);
		l.data_len = l.direct.len;
		break;
	}
	case srp::kDescIndirect: {
		namespace ind = srp::indirect_desc;
		const BeHeader<ind::kHeaderSize> head(iu.subspan(start, ind::kHeaderSize));
		if (!head.ok())
			return fail(why, "indirect descriptor past the end of the IU");
		const u32 table_len = head.be32<ind::kTableDesc + srp::direct_desc::kLen>();
		const u32 total = head.be32<ind::kTotalLen>();
		if (table_len % srp::direct_desc::kSize)
			return fail(why, "descriptor table length is not a multiple of 16");
		const u32 n = table_len / srp::direct_desc::kSize;
		const u32 in_iu = l.dir == SRPT_DATA_OUT ? h.u8_at<srp::cmd::kDataOutDescCnt>()
							 : h.u8_at<srp::cmd::kDataInDescCnt>();
		if (n > in_iu)
			return fail(why, "descriptor table not entirely in the IU (external tables are not supported)");
		if (!r.has(start + ind::kHeaderSize, size_t{n} * srp::direct_desc::kSize))
			return fail(why, "descriptor table past the end of the IU");
		l.kind = DataKind::kIndirect;
		l.desc_offset = static_cast<u32>(start + ind::kHeaderSize);
		l.desc_count = n;
		u64 sum = 0;
		for (u32 i = 0; i < n; i++)
			sum += descriptor_at(iu, l, i).len;
		if (sum != total)
			return fail(why, "total length differs from the sum of the descriptor lengths");
		l.data_len = total;
		break;
	}
	case srp::kDescImmediate: {
		if (l.dir != SRPT_DATA_OUT)
			return fail(why, "immediate data for a data-in buffer");
		if (!imm_data_offset)
			return fail(why, "immediate data was not negotiated at login");
		if (start + srp::kImmDescSize > imm_data_offset)
			return fail(why, "immediate data descriptor overlaps the data");
		const BeHeader<srp::kImmDescSize> d(iu.subspan(start, srp::kImmDescSize));
		if (!d.ok())
			return fail(why, "immediate data descriptor past the end of the IU");
		const u32 len = d.be32<0>();
		if (!r.has(imm_data_offset, len))
			return fail(why, "immediate data past the end of the IU");
		l.kind = DataKind::kImmediate;
		l.imm_offset = imm_data_offset;
		l.data_len = len;
		break;
	}
	default:
		return fail(why, "unsupported data buffer descriptor format");
	}
	if (l.data_len > kMaxDataLen)
		return fail(why, "data length above 16 MiB");
	*out = l;
	return 0;
}

} // namespace srpt
