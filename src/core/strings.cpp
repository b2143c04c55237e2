// SPDX-License-Identifier: GPL-2.0-only
/* String helpers of the core; see include/ktl/string.h. */
#include <ktl/errno.h>
#include <ktl/string.h>
#include <ktl/utility.h>

namespace ktl {

size_t strnlen(const char *s, size_t max)
{
	size_t n = 0;

	while (n < max && s[n])
		n++;
	return n;
}

bool streq(const char *a, const char *b)
{
	while (*a && *a == *b) {
		a++;
		b++;
	}
	return *a == *b;
}

int hex_digit(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

char to_lower(char c)
{
	return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c;
}

int parse_u64(Span<const char> text, unsigned int base, u64 max, u64 *out)
{
	size_t len = text.size();
	size_t i = 0;

	if (len && text[len - 1] == '\n')
		len--;
	if (base == 0) {
		if (len >= 2 && text[0] == '0' && to_lower(text[1]) == 'x') {
			base = 16;
			i = 2;
		} else if (len >= 2 && text[0] == '0') {
			base = 8;
			i = 1;
		} else {
			base = 10;
		}
	} else if (base == 16 && len >= 2 && text[0] == '0' && to_lower(text[1]) == 'x') {
		i = 2;
	}
	if (i >= len)
		return -kEINVAL;

	u64 v = 0;
	for (; i < len; i++) {
		const int d = hex_digit(text[i]);

		if (d < 0 || static_cast<unsigned int>(d) >= base)
			return -kEINVAL;
		if (mul_overflow(v, u64{base}, &v) || add_overflow(v, static_cast<u64>(d), &v))
			return -kERANGE;
	}
	if (v > max)
		return -kERANGE;
	*out = v;
	return 0;
}

int parse_u64(const char *s, unsigned int base, u64 max, u64 *out)
{
	return parse_u64(Span<const char>(s, strnlen(s, 4096)), base, max, out);
}

int parse_hex_bytes(Span<const char> text, u8 *out, size_t n)
{
	if (text.empty() || text.size() > 2 * n)
		return -kEINVAL;
	for (char c : text)
		if (hex_digit(c) < 0)
			return -kEINVAL;

	__builtin_memset(out, 0, n);
	/* The last digit is the low nibble of the last byte. */
	for (size_t i = 0; i < text.size(); i++) {
		const size_t nibble = text.size() - 1 - i;

		out[n - 1 - nibble / 2] |= static_cast<u8>(hex_digit(text[i]) << (4 * (nibble % 2)));
	}
	return 0;
}

} // namespace ktl
