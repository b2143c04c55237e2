/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Owned<T, Free>: the one owner of an object the shims hand over (a send
 * context's or a receive buffer's kernel side), freed with Free() when the
 * owner goes, so that every unwind frees it the same way. Move-only, like
 * fbl's unique_ptr and Rust-for-Linux's owned wrappers; get() lends the
 * handle, release() gives up ownership.
 */
#pragma once

#include <ktl/utility.h>

namespace ktl {

template <typename T, void (*Free)(T *)> class Owned {
public:
	constexpr Owned() = default;
	explicit Owned(T *p) : p_(p) {}
	~Owned() { reset(); }
	Owned(const Owned &) = delete;
	Owned &operator=(const Owned &) = delete;
	Owned(Owned &&o) : p_(o.release()) {}
	Owned &operator=(Owned &&o)
	{
		if (this != &o)
			reset(o.release());
		return *this;
	}

	T *get() const { return p_; }
	explicit operator bool() const { return p_ != nullptr; }
	[[nodiscard]] T *release() { return exchange(p_, static_cast<T *>(nullptr)); }
	/* Frees what it owned (if anything) and owns @p instead. */
	void reset(T *p = nullptr)
	{
		T *old = exchange(p_, p);

		if (old)
			Free(old);
	}

private:
	T *p_ = nullptr;
};

} // namespace ktl
