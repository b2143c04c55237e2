/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The two ASCII names of a target port, derived from its GID (index 0):
 *   GUID form  "xxxx:xxxx:xxxx:xxxx"  the GID's interface id
 *   GID form   "0x" + 32 hex digits   the whole GID
 * Both are formatted in lower case; parsing accepts either case.
 */
#pragma once

#include <ktl/span.h>
#include <ktl/string.h>
#include <srpt/types.h>

namespace srpt {

/* 19 characters + NUL and 34 characters + NUL, rounded up. */
using GuidName = ktl::StrBuf<24>;
using GidName = ktl::StrBuf<40>;

/* Which of the two forms a name has. */
enum class PortNameKind : int {
	kNone,
	kGuid,	/* "xxxx:xxxx:xxxx:xxxx" */
	kGid,	/* "0x" + 32 hex digits */
};

struct Gid {
	u8 raw[16] = {};

	bool operator==(const Gid &o) const { return __builtin_memcmp(raw, o.raw, 16) == 0; }
};

/* The GUID form of a GID's interface id (bytes 8..15). */
void format_guid_name(const u8 gid[16], GuidName *out);
inline void format_guid_name(const Gid &gid, GuidName *out)
{
	format_guid_name(gid.raw, out);
}
/*
 * The GID form of any 128-bit id: a port's GID, or an initiator port id
 * (the name LIO knows an initiator by on a GID-named target port).
 */
void format_gid_name(const u8 id[16], GidName *out);
inline void format_gid_name(const Gid &gid, GidName *out)
{
	format_gid_name(gid.raw, out);
}

/*
 * A parsed port name: which form, and the bytes it names (the interface
 * id in bytes 8..15 for the GUID form, the whole GID for the GID form).
 */
struct ParsedPortName {
	PortNameKind kind = PortNameKind::kNone;
	Gid gid;

	/* True when this name names the port with GID @g. */
	bool matches(const Gid &g) const;
};

/*
 * Parses a port name of exactly @name.size() bytes (a NUL inside is an
 * error). Returns 0, or -kEINVAL for anything that is not exactly one of
 * the two forms.
 */
[[nodiscard]] int parse_port_name(ktl::Span<const char> name, ParsedPortName *out);
/* The same for a NUL-terminated string. */
[[nodiscard]] int parse_port_name(const char *name, ParsedPortName *out);

} // namespace srpt
