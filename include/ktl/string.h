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

/*
 * Parses @text, 1 to 2 * @n hex digits of either case, as a big-endian
 * number into the @n bytes at @out, left-padded with zero bytes.
 * Returns 0, or -kEINVAL for anything else; @out changes only on success.
 */
[[nodiscard]] int parse_hex_bytes(Span<const char> text, u8 *out, size_t n);

/*
 * Appending text that truncates and never overflows, shared by StrBuf
 * (its own array) and TextBuf (a caller's buffer). Derived provides
 * buf() and cap() and the len_/truncated_ members.
 */
template <typename Derived> class TextOps {
public:
	const char *c_str() const { return self().buf(); }
	size_t size() const { return self().len_; }
	bool truncated() const { return self().truncated_; }
	void clear()
	{
		self().len_ = 0;
		self().buf()[0] = '\0';
		self().truncated_ = false;
	}

	Derived &put(char c)
	{
		Derived &d = self();

		if (d.len_ + 1 < d.cap()) {
			d.buf()[d.len_++] = c;
			d.buf()[d.len_] = '\0';
		} else {
			d.truncated_ = true;
		}
		return d;
	}
	Derived &put(const char *s)
	{
		while (*s)
			put(*s++);
		return self();
	}
	/* @digits lower-case hex digits of @v, most significant first. */
	Derived &hex(u64 v, unsigned int digits)
	{
		for (unsigned int i = digits; i-- > 0;)
			put("0123456789abcdef"[(v >> (4 * i)) & 0xf]);
		return self();
	}
	Derived &dec(u64 v)
	{
		char tmp[20];
		unsigned int n = 0;

		do {
			tmp[n++] = static_cast<char>('0' + v % 10);
			v /= 10;
		} while (v);
		while (n)
			put(tmp[--n]);
		return self();
	}
	/* "name value\n": one line of a configfs or debugfs listing. */
	Derived &line(const char *name, u64 v) { return put(name).put(' ').dec(v).put('\n'); }

private:
	Derived &self() { return static_cast<Derived &>(*this); }
	const Derived &self() const { return static_cast<const Derived &>(*this); }
};

/* A NUL-terminated string built in place. */
template <size_t N> class StrBuf : public TextOps<StrBuf<N>> {
public:
	static_assert(N > 0);
	constexpr StrBuf() : buf_{}, len_(0) {}

private:
	friend class TextOps<StrBuf<N>>;
	char *buf() { return buf_; }
	const char *buf() const { return buf_; }
	static constexpr size_t cap() { return N; }

	char buf_[N];
	size_t len_;
	bool truncated_ = false;
};

/* Text built into a caller's buffer of @cap bytes (a configfs page). */
class TextBuf : public TextOps<TextBuf> {
public:
	TextBuf(char *buf, size_t cap) : buf_(buf), cap_(cap), len_(0)
	{
		if (cap_)
			buf_[0] = '\0';
	}
	TextBuf(const TextBuf &) = delete;
	TextBuf &operator=(const TextBuf &) = delete;

private:
	friend class TextOps<TextBuf>;
	char *buf() { return buf_; }
	const char *buf() const { return buf_; }
	size_t cap() const { return cap_; }

	char *buf_;
	size_t cap_;
	size_t len_;
	bool truncated_ = false;
};

} // namespace ktl
