/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Atomics on the compiler's __atomic builtins. On x86-64 every size the
 * core uses (4 and 8 bytes) compiles to plain locked instructions, so
 * nothing here needs libatomic or the kernel.
 */
#pragma once

#include <ktl/types.h>

namespace ktl {

enum class MemoryOrder : int {
	relaxed = __ATOMIC_RELAXED,
	acquire = __ATOMIC_ACQUIRE,
	release = __ATOMIC_RELEASE,
	acq_rel = __ATOMIC_ACQ_REL,
	seq_cst = __ATOMIC_SEQ_CST,
};

template <typename T> class Atomic {
public:
	constexpr Atomic() : v_() {}
	constexpr explicit Atomic(T v) : v_(v) {}
	Atomic(const Atomic &) = delete;
	Atomic &operator=(const Atomic &) = delete;

	T load(MemoryOrder o = MemoryOrder::seq_cst) const
	{
		return __atomic_load_n(&v_, static_cast<int>(o));
	}
	void store(T v, MemoryOrder o = MemoryOrder::seq_cst)
	{
		__atomic_store_n(&v_, v, static_cast<int>(o));
	}
	T exchange(T v, MemoryOrder o = MemoryOrder::seq_cst)
	{
		return __atomic_exchange_n(&v_, v, static_cast<int>(o));
	}
	T fetch_add(T v, MemoryOrder o = MemoryOrder::seq_cst)
	{
		return __atomic_fetch_add(&v_, v, static_cast<int>(o));
	}
	T fetch_sub(T v, MemoryOrder o = MemoryOrder::seq_cst)
	{
		return __atomic_fetch_sub(&v_, v, static_cast<int>(o));
	}
	/*
	 * Adds @v where this is the only writer (readers may be anywhere):
	 * a relaxed load and store, no locked instruction.
	 */
	void add_single_writer(T v)
	{
		store(load(MemoryOrder::relaxed) + v, MemoryOrder::relaxed);
	}
	bool compare_exchange(T &expected, T desired, MemoryOrder o = MemoryOrder::seq_cst)
	{
		return __atomic_compare_exchange_n(&v_, &expected, desired, false,
						   static_cast<int>(o), __ATOMIC_RELAXED);
	}

private:
	T v_;
};

inline void atomic_thread_fence(MemoryOrder o) { __atomic_thread_fence(static_cast<int>(o)); }

} // namespace ktl
