// SPDX-License-Identifier: GPL-2.0-only
/* The forms of node ACL names. */
#include <ktl/errno.h>
#include <ktl/string.h>
#include <srpt/abi.h>
#include <srpt/initiator_id.h>

namespace srpt {

using ktl::size_t;
using ktl::Span;
using ktl::u8;

namespace {

size_t find(Span<const char> s, char c)
{
	for (size_t i = 0; i < s.size(); i++)
		if (s[i] == c)
			return i;
	return s.size();
}

/* "xxxx:xxxx:xxxx:xxxx" with 1..4 hex digits per group. */
bool is_guid(Span<const char> s)
{
	u8 group[2];	/* only whether it reads matters */

	for (int g = 0; g < 4; g++) {
		const size_t colon = find(s, ':');

		if ((colon == s.size()) != (g == 3) ||
		    ktl::parse_hex_bytes(s.subspan(0, colon), group, sizeof(group)))
			return false;
		s = s.subspan(colon + 1);
	}
	return true;
}

/* An even number of hex digits, at most 16 bytes, optionally after 0x. */
bool is_hex(Span<const char> s)
{
	u8 id[16];	/* only whether it reads matters */

	if (s.size() >= 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X'))
		s = s.subspan(2);
	return s.size() % 2 == 0 && ktl::parse_hex_bytes(s, id, sizeof(id)) == 0;
}

} // namespace

int parse_initiator_id(Span<const char> name, InitiatorIdKind *out)
{
	InitiatorIdKind kind;

	/* LIO's names are C strings: a NUL is never part of one. */
	for (char c : name)
		if (c == '\0')
			return -ktl::kEINVAL;

	if (is_guid(name))
		kind = InitiatorIdKind::kGuid;
	else if (is_hex(name))
		kind = InitiatorIdKind::kHex;
	else if (srpt_os_inet_pton(name.data(), name.size()) == 0)
		kind = InitiatorIdKind::kAddress;
	else
		return -ktl::kEINVAL;
	*out = kind;
	return 0;
}

} // namespace srpt
