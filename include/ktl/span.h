/* SPDX-License-Identifier: GPL-2.0-only */
/* A pointer and a length that travel together. */
#pragma once

#include <ktl/types.h>

namespace ktl {

template <typename T> class Span {
public:
	constexpr Span() : data_(nullptr), size_(0) {}
	constexpr Span(T *data, size_t size) : data_(data), size_(size) {}
	template <size_t N> constexpr Span(T (&arr)[N]) : data_(arr), size_(N) {}

	constexpr T *data() const { return data_; }
	constexpr size_t size() const { return size_; }
	constexpr bool empty() const { return size_ == 0; }
	constexpr T &operator[](size_t i) const { return data_[i]; }
	constexpr T *begin() const { return data_; }
	constexpr T *end() const { return data_ + size_; }

	/* The part [off, off + len), clipped to what exists. */
	constexpr Span subspan(size_t off, size_t len = ~size_t{0}) const
	{
		if (off > size_)
			return Span(data_ + size_, 0);
		const size_t avail = size_ - off;
		return Span(data_ + off, len < avail ? len : avail);
	}

	operator Span<const T>() const { return Span<const T>(data_, size_); }

private:
	T *data_;
	size_t size_;
};

using Bytes = Span<const u8>;
using MutableBytes = Span<u8>;

} // namespace ktl
