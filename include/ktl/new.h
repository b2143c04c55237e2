/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Allocation for the core. Every allocating new-expression names an
 * AllocChecker, so a failed allocation is a checked error return and
 * never an exception:
 *
 *	ktl::AllocChecker ac;
 *	auto *p = new (&ac) Foo(args);
 *	if (!ac.check())
 *		return -ktl::kENOMEM;
 *
 * The storage comes from srpt_os_alloc() (the kernel allocator in the
 * module, the test double on the host); see src/core/runtime.cpp.
 */
#pragma once

#include <ktl/types.h>

#ifdef SRPT_HOST
#include <new>
#else
namespace std {
enum class align_val_t : ktl::size_t {};
} // namespace std

inline void *operator new(ktl::size_t, void *p) noexcept { return p; }
inline void *operator new[](ktl::size_t, void *p) noexcept { return p; }
inline void operator delete(void *, void *) noexcept {}
inline void operator delete[](void *, void *) noexcept {}
#endif

namespace ktl {

class AllocChecker {
public:
	AllocChecker() = default;
	AllocChecker(const AllocChecker &) = delete;
	AllocChecker &operator=(const AllocChecker &) = delete;

	void arm(bool ok) { ok_ = ok; }
	[[nodiscard]] bool check() const { return ok_; }

private:
	bool ok_ = false;
};

} // namespace ktl

void *operator new(ktl::size_t size, ktl::AllocChecker *ac) noexcept;
void *operator new[](ktl::size_t size, ktl::AllocChecker *ac) noexcept;
void *operator new(ktl::size_t size, std::align_val_t align, ktl::AllocChecker *ac) noexcept;
void *operator new[](ktl::size_t size, std::align_val_t align, ktl::AllocChecker *ac) noexcept;
/* Called only if a constructor after an AllocChecker new could throw. */
void operator delete(void *p, ktl::AllocChecker *ac) noexcept;
void operator delete[](void *p, ktl::AllocChecker *ac) noexcept;
