// SPDX-License-Identifier: GPL-2.0-only
/* Parsing initiator port identifiers of node ACL names. */
#include <ktl/errno.h>
#include <ktl/string.h>
#include <srpt/initiator_id.h>

namespace srpt {

using ktl::size_t;
using ktl::Span;
using ktl::u8;

namespace {

constexpr size_t kMaxNameLen = 64;

size_t find(Span<const char> s, char c)
{
	for (size_t i = 0; i < s.size(); i++)
		if (s[i] == c)
			return i;
	return s.size();
}

/*
 * A group of 1..4 hex digits at *@pos, ending at ':' or the end of @s,
 * as a 16-bit value; *@pos moves past it.
 */
bool hex_group(Span<const char> s, size_t *pos, unsigned int *value)
{
	unsigned int v = 0;
	size_t digits = 0;

	while (*pos < s.size() && s[*pos] != ':') {
		const int d = ktl::hex_digit(s[*pos]);

		if (d < 0 || ++digits > 4)
			return false;
		v = v << 4 | static_cast<unsigned int>(d);
		(*pos)++;
	}
	*value = v;
	return digits > 0;
}

/* "xxxx:xxxx:xxxx:xxxx" with 1..4 hex digits per group. */
bool parse_guid(Span<const char> s, u8 out[8])
{
	size_t pos = 0;

	for (int g = 0; g < 4; g++) {
		unsigned int v;

		if (!hex_group(s, &pos, &v))
			return false;
		if (g < 3) {
			if (pos >= s.size())
				return false;
			pos++; /* the ':' */
		}
		out[2 * g] = static_cast<u8>(v >> 8);
		out[2 * g + 1] = static_cast<u8>(v);
	}
	return pos == s.size();
}

/*
 * An even number of hex digits, at most 16 bytes, optionally after 0x.
 * Writes @out only on success: the forms tried after this one (IPv4
 * fills only bytes 12..15) must not inherit a failed attempt's bytes.
 */
bool parse_hex(Span<const char> s, u8 out[16])
{
	u8 id[16] = {};

	if (s.size() >= 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X'))
		s = s.subspan(2);
	if (s.empty() || s.size() % 2 || s.size() > 32)
		return false;

	const size_t n = s.size() / 2;
	for (size_t i = 0; i < n; i++) {
		const int hi = ktl::hex_digit(s[2 * i]);
		const int lo = ktl::hex_digit(s[2 * i + 1]);

		if (hi < 0 || lo < 0)
			return false;
		id[16 - n + i] = static_cast<u8>(hi << 4 | lo);
	}
	__builtin_memcpy(out, id, 16);
	return true;
}

/* An interface name or number after '%': what a netdev name may hold. */
bool valid_scope(Span<const char> s)
{
	if (s.empty() || s.size() > 15)
		return false;
	for (char c : s) {
		const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
				(c >= '0' && c <= '9') || c == '.' || c == '_' || c == '-';
		if (!ok)
			return false;
	}
	return true;
}

} // namespace

bool parse_ipv4(Span<const char> s, u8 out[4])
{
	size_t pos = 0;

	for (int part = 0; part < 4; part++) {
		unsigned int v = 0;
		size_t digits = 0;

		while (pos < s.size() && s[pos] >= '0' && s[pos] <= '9') {
			v = v * 10 + static_cast<unsigned int>(s[pos] - '0');
			if (++digits > 3 || v > 255)
				return false;
			pos++;
		}
		if (digits == 0)
			return false;
		out[part] = static_cast<u8>(v);
		if (part < 3) {
			if (pos >= s.size() || s[pos] != '.')
				return false;
			pos++;
		}
	}
	return pos == s.size();
}

bool parse_ipv6(Span<const char> s, u8 out[16])
{
	u8 words[16] = {};
	size_t nbytes = 0;	/* bytes parsed so far */
	size_t gap = 16;	/* byte index of "::", 16 when none */
	size_t pos = 0;

	if (s.size() < 2)
		return false;
	if (s[0] == ':') {
		if (s[1] != ':')
			return false;
		gap = 0;
		pos = 2;
		if (pos == s.size()) {
			__builtin_memset(out, 0, 16);
			return true;
		}
	}
	while (pos < s.size()) {
		/* An embedded IPv4 address ends the address. */
		const size_t rest_colon = find(s.subspan(pos), ':');
		const Span<const char> group = s.subspan(pos, rest_colon);

		if (rest_colon == s.size() - pos && find(group, '.') < group.size()) {
			if (nbytes > 12 || !parse_ipv4(group, words + nbytes))
				return false;
			nbytes += 4;
			pos = s.size();
			break;
		}

		unsigned int v;
		if (!hex_group(s, &pos, &v) || nbytes >= 16)
			return false;
		words[nbytes++] = static_cast<u8>(v >> 8);
		words[nbytes++] = static_cast<u8>(v);
		if (pos == s.size())
			break;
		/* At a ':'. */
		pos++;
		if (pos == s.size())
			return false;	/* a trailing single ':' */
		if (s[pos] == ':') {
			/* A second "::", or one after eight groups (nbytes 16 is "no gap"). */
			if (gap != 16 || nbytes == 16)
				return false;
			gap = nbytes;
			pos++;
		}
	}
	if (gap == 16) {
		if (nbytes != 16)
			return false;
		__builtin_memcpy(out, words, 16);
		return true;
	}
	/* "::" stands for at least one group of zeros. */
	if (nbytes > 14)
		return false;
	const size_t tail = nbytes - gap;
	__builtin_memset(out, 0, 16);
	__builtin_memcpy(out, words, gap);
	__builtin_memcpy(out + 16 - tail, words + gap, tail);
	return true;
}

int parse_initiator_id(Span<const char> name, InitiatorId *out)
{
	InitiatorId r;

	if (name.empty() || name.size() > kMaxNameLen)
		return -ktl::kEINVAL;
	for (char c : name)
		if (c == '\0')
			return -ktl::kEINVAL;

	if (parse_guid(name, r.id + 8)) {
		r.kind = InitiatorIdKind::kGuid;
	} else if (parse_hex(name, r.id)) {
		r.kind = InitiatorIdKind::kHex;
	} else if (parse_ipv4(name, r.id + 12)) {
		r.kind = InitiatorIdKind::kIpv4;
	} else {
		const size_t pct = find(name, '%');

		if (pct < name.size() && !valid_scope(name.subspan(pct + 1)))
			return -ktl::kEINVAL;
		if (!parse_ipv6(name.subspan(0, pct), r.id))
			return -ktl::kEINVAL;
		r.kind = InitiatorIdKind::kIpv6;
	}
	*out = r;
	return 0;
}

} // namespace srpt
