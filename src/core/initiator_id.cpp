// SPDX-License-Identifier: GPL-2.0-only
/* The forms of node ACL names, and the address an RDMA/CM login is named by. */
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

namespace {

void put_ipv4(const u8 *a, AddressName *out)
{
	for (int i = 0; i < 4; i++) {
		if (i)
			out->put('.');
		out->dec(a[i]);
	}
}

/* The group's digits without leading zeros ("0" for zero). */
void put_group(ktl::u16 g, AddressName *out)
{
	unsigned int digits = 1;

	while (digits < 4 && g >> (4 * digits))
		digits++;
	out->hex(g, digits);
}

} // namespace

void format_address(srpt_inet_family af, const u8 addr[16], AddressName *out)
{
	out->clear();
	if (af == SRPT_INET4) {
		put_ipv4(addr, out);
		return;
	}
	if (af != SRPT_INET6) {
		out->put("(no IP address)");
		return;
	}
	ktl::u16 g[8];
	for (int i = 0; i < 8; i++)
		g[i] = static_cast<ktl::u16>(addr[2 * i] << 8 | addr[2 * i + 1]);
	/* ::ffff:a.b.c.d, and ISATAP's ...:0:5efe:a.b.c.d (or 200:5efe). */
	const bool mapped = !g[0] && !g[1] && !g[2] && !g[3] && !g[4] && g[5] == 0xffff;
	const bool isatap = (g[4] | 0x0200) == 0x0200 && g[5] == 0x5efe;
	const int groups = mapped || isatap ? 6 : 8;
	/* The first longest run of zero groups, if longer than one. */
	int run_at = -1;
	int run_len = 1;
	for (int i = 0; i < groups; i++) {
		int n = 0;

		while (i + n < groups && !g[i + n])
			n++;
		if (n > run_len) {
			run_len = n;
			run_at = i;
		}
	}
	bool colon = false;	/* a group was written: the next needs a ':' */
	for (int i = 0; i < groups; i++) {
		if (i == run_at) {
			out->put("::");
			colon = false;
			i += run_len - 1;
			continue;
		}
		if (colon)
			out->put(':');
		put_group(g[i], out);
		colon = true;
	}
	if (groups == 6) {
		if (colon)
			out->put(':');
		put_ipv4(addr + 12, out);
	}
}

} // namespace srpt
