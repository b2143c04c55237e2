/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Explicit big-endian access to wire structures. Nothing in the core
 * casts a received buffer to a struct: a BeReader reads each field at
 * its byte offset, and any read past the end yields 0 and marks the
 * reader failed, so a parser checks ok() once instead of trusting every
 * offset arithmetic it did.
 */
#pragma once

#include <ktl/span.h>
#include <ktl/types.h>

namespace ktl {

/* Big-endian to CPU order, and back: the same swap (a no-op on big-endian CPUs). */
template <typename T> constexpr T from_be(T v)
{
	if constexpr (sizeof(T) == 1 || __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__)
		return v;
	else if constexpr (sizeof(T) == 2)
		return __builtin_bswap16(v);
	else if constexpr (sizeof(T) == 4)
		return __builtin_bswap32(v);
	else
		return __builtin_bswap64(v);
}

class BeReader {
public:
	constexpr explicit BeReader(Bytes b) : b_(b), ok_(true) {}

	size_t size() const { return b_.size(); }
	bool ok() const { return ok_; }
	bool has(size_t off, size_t len) const { return off <= b_.size() && len <= b_.size() - off; }

	u8 u8_at(size_t off) { return has(off, 1) ? b_[off] : fail<u8>(); }
	u16 be16(size_t off) { return has(off, 2) ? load<u16>(off) : fail<u16>(); }
	u32 be24(size_t off) { return has(off, 3) ? (u32{b_[off]} << 16) | load<u16>(off + 1) : fail<u32>(); }
	u32 be32(size_t off) { return has(off, 4) ? load<u32>(off) : fail<u32>(); }
	u64 be64(size_t off) { return has(off, 8) ? load<u64>(off) : fail<u64>(); }

	/* Copies @len bytes at @off to @out; zero-fills and fails when short. */
	void copy(size_t off, u8 *out, size_t len)
	{
		if (!has(off, len)) {
			__builtin_memset(out, 0, len);
			ok_ = false;
			return;
		}
		__builtin_memcpy(out, b_.data() + off, len);
	}

	/* The bytes [off, off + len), or an empty span and failure. */
	Bytes slice(size_t off, size_t len)
	{
		if (!has(off, len)) {
			ok_ = false;
			return Bytes();
		}
		return b_.subspan(off, len);
	}

private:
	template <typename T> T fail()
	{
		ok_ = false;
		return T{0};
	}
	/* One unaligned load and a byte swap; the caller checked the bounds. */
	template <typename T> T load(size_t off) const
	{
		T v;

		__builtin_memcpy(&v, b_.data() + off, sizeof(v));
		return from_be(v);
	}

	Bytes b_;
	bool ok_;
};

/* Zeros that a BeHeader of a buffer too short reads instead (src/core/wire.cpp). */
constexpr size_t kZeroPadSize = 64;
extern const u8 kZeroPad[kZeroPadSize];

/*
 * The fields of a fixed-size header, at constant offsets: its length is
 * checked once, when the reader is made, and each field's offset when it
 * is compiled, so that a field costs one load. A buffer shorter than the
 * header reads as zeros, and ok() is false.
 */
template <size_t N> class BeHeader {
public:
	static_assert(N <= kZeroPadSize, "header larger than the zero pad");

	constexpr explicit BeHeader(Bytes b) : p_(b.size() >= N ? b.data() : kZeroPad) {}

	bool ok() const { return p_ != kZeroPad; }

	template <size_t Off> u8 u8_at() const { return load<u8, Off>(); }
	template <size_t Off> u32 be32() const { return load<u32, Off>(); }
	template <size_t Off> u64 be64() const { return load<u64, Off>(); }
	/* The @Len bytes at @Off, as they are. */
	template <size_t Off, size_t Len> const u8 *bytes() const
	{
		static_assert(Off + Len <= N, "field past the header");
		return p_ + Off;
	}

private:
	template <typename T, size_t Off> T load() const
	{
		static_assert(Off + sizeof(T) <= N, "field past the header");
		T v;

		__builtin_memcpy(&v, p_ + Off, sizeof(v));
		return from_be(v);
	}

	const u8 *p_;
};

class BeWriter {
public:
	constexpr explicit BeWriter(MutableBytes b) : b_(b), ok_(true) {}

	size_t size() const { return b_.size(); }
	bool ok() const { return ok_; }

	void u8_at(size_t off, u8 v) { put(off, v); }
	void be16(size_t off, u16 v) { put(off, v); }
	void be32(size_t off, u32 v) { put(off, v); }
	void be64(size_t off, u64 v) { put(off, v); }

	void copy(size_t off, const void *src, size_t len)
	{
		if (!fits(off, len))
			return;
		__builtin_memcpy(b_.data() + off, src, len);
	}
	void zero(size_t off, size_t len)
	{
		if (!fits(off, len))
			return;
		__builtin_memset(b_.data() + off, 0, len);
	}

private:
	bool fits(size_t off, size_t len)
	{
		if (off <= b_.size() && len <= b_.size() - off)
			return true;
		ok_ = false;
		return false;
	}
	template <typename T> void put(size_t off, T v)
	{
		if (!fits(off, sizeof(v)))
			return;
		v = from_be(v);
		__builtin_memcpy(b_.data() + off, &v, sizeof(v));
	}

	MutableBytes b_;
	bool ok_;
};

} // namespace ktl
