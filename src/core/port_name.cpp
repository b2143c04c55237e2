// SPDX-License-Identifier: GPL-2.0-only
/* Formatting and parsing the names of target ports. */
#include <ktl/errno.h>
#include <srpt/port_name.h>

namespace srpt {

void format_guid_name(const u8 gid[16], GuidName *out)
{
	out->clear();
	for (int i = 0; i < 4; i++) {
		if (i)
			out->put(':');
		out->hex(static_cast<ktl::u16>(gid[8 + 2 * i] << 8 | gid[9 + 2 * i]), 4);
	}
}

void format_gid_name(const u8 id[16], GidName *out)
{
	out->clear();
	out->put("0x");
	for (int i = 0; i < 16; i++)
		out->hex(id[i], 2);
}

bool ParsedPortName::matches(const Gid &g) const
{
	switch (kind) {
	case PortNameKind::kGuid:
		return __builtin_memcmp(gid.raw + 8, g.raw + 8, 8) == 0;
	case PortNameKind::kGid:
		return gid == g;
	case PortNameKind::kNone:
		break;
	}
	return false;
}

int parse_port_name(ktl::Span<const char> text, ParsedPortName *out)
{
	const char *name = text.data();
	const ktl::size_t len = text.size();
	ParsedPortName p;

	if (len == 19) {
		/* xxxx:xxxx:xxxx:xxxx */
		for (int g = 0; g < 4; g++) {
			if (g < 3 && name[5 * g + 4] != ':')
				return -ktl::kEINVAL;
			if (ktl::parse_hex_bytes(text.subspan(5 * g, 4), p.gid.raw + 8 + 2 * g, 2))
				return -ktl::kEINVAL;
		}
		p.kind = PortNameKind::kGuid;
	} else if (len == 34 && name[0] == '0' && (name[1] == 'x' || name[1] == 'X')) {
		if (ktl::parse_hex_bytes(text.subspan(2), p.gid.raw, 16))
			return -ktl::kEINVAL;
		p.kind = PortNameKind::kGid;
	} else {
		return -ktl::kEINVAL;
	}
	*out = p;
	return 0;
}

int parse_port_name(const char *name, ParsedPortName *out)
{
	/* Longer than either form: no need to measure further. */
	return parse_port_name(ktl::Span<const char>(name, ktl::strnlen(name, 64)), out);
}

} // namespace srpt
