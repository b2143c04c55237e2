/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * String helpers for the core: bounded length, comparisons, a fixed-size
 * formatting buffer and strict number parsing with the semantics of the
 * kernel's kstrto*() (optional "0x"/"0" prefix with base 0, one trailing
 * newline allowed, nothing else).
 */
#pragma once

#include <ktl/span.h>
#include <ktl/types.h>

namespace ktl {

/* Length of @s, at most @max (no read past @max). */
size_t strnlen(const char *s, size_t max);
bool streq(const char *a, const char *b);
int hex_digit(char c); /* 0..15, or -1 */
char to_lower(char c);

/*
 * Parses an unsigned number of at most @max. @base is 8, 10, 16, or 0 to
 * take the base from a "0x" or "0" prefix. Accepts one trailing '\n'.
 * Returns 0, -kEINVAL (malformed) or -kERANGE (too large).
 */
[[nodiscard]] int parse_u64(Span<const char> text, unsigned int base, u64 max, u64 *out);
[[nodiscard]] int parse_u64(const char *s, unsigned int base, u64 max, u64 *out);

/* A NUL-terminated string built in place; truncates, never overflows. */
template <size_t N> class StrBuf {
public:
	static_assert(N > 0);
	constexpr StrBuf() : len_(0), buf_{} {}

	const char *c_str() const { return buf_; }
	size_t size() const { return len_; }
	bool truncated() const { return truncated_; }
	void clear()
	{
		len_ = 0;
		buf_[0] = '\0';
		truncated_ = false;
	}

	StrBuf &put(char c)
	{
		if (len_ + 1 < N) {
			buf_[len_++] = c;
			buf_[len_] = '\0';
		} else {
			truncated_ = true;
		}
		return *this;
	}
	StrBuf &put(const char *s)
	{
		while (*s)
			put(*s++);
		return *this;
	}
	/* @digits lower-case hex digits of @v, most significant first. */
	StrBuf &hex(u64 v, unsigned int digits)
	{
		for (unsigned int i = digits; i-- > 0;)
			put("0123456789abcdef"[(v >> (4 * i)) & 0xf]);
		return *this;
	}
	StrBuf &dec(u64 v)
	{
		char tmp[20];
		unsigned int n = 0;
		do {
			tmp[n++] = static_cast<char>('0' + v % 10);
			v /= 10;
		} while (v);
		while (n)
			put(tmp[--n]);
		return *this;
	}

private:
	size_t len_;
	char buf_[N];
	bool truncated_ = false;
};

} // namespace ktl
