// SPDX-License-Identifier: GPL-2.0-only
/*
 * The C++ runtime of the core: allocation through the kernel allocator
 * and the one ABI hook the compiler may emit (__cxa_pure_virtual). There
 * is no exception support, no RTTI and no static constructor support, by
 * design: the build rejects objects that would need them.
 */
#include <ktl/assert.h>
#include <ktl/new.h>
#include <srpt/abi.h>

namespace {

constexpr ktl::size_t kDefaultAlign = 8;

void *allocate(ktl::size_t size, ktl::size_t align)
{
	return srpt_os_alloc(size ? size : 1, align);
}

void *checked(ktl::size_t size, ktl::size_t align, ktl::AllocChecker *ac)
{
	void *p = allocate(size, align);
	ac->arm(p != nullptr);
	return p;
}

} // namespace

void *operator new(ktl::size_t size, ktl::AllocChecker *ac) noexcept
{
	return checked(size, kDefaultAlign, ac);
}

void *operator new[](ktl::size_t size, ktl::AllocChecker *ac) noexcept
{
	return checked(size, kDefaultAlign, ac);
}

void *operator new(ktl::size_t size, std::align_val_t align, ktl::AllocChecker *ac) noexcept
{
	return checked(size, static_cast<ktl::size_t>(align), ac);
}

void *operator new[](ktl::size_t size, std::align_val_t align, ktl::AllocChecker *ac) noexcept
{
	return checked(size, static_cast<ktl::size_t>(align), ac);
}

/*
 * The plain forms exist because the language requires them to; they
 * return nullptr on failure (the core is built with -fcheck-new, so the
 * compiler tests the result before constructing). Core code uses the
 * AllocChecker forms above so that the failure is visible at the call.
 */
void *operator new(ktl::size_t size)
{
	return allocate(size, kDefaultAlign);
}

void *operator new[](ktl::size_t size)
{
	return allocate(size, kDefaultAlign);
}

void *operator new(ktl::size_t size, std::align_val_t align)
{
	return allocate(size, static_cast<ktl::size_t>(align));
}

void *operator new[](ktl::size_t size, std::align_val_t align)
{
	return allocate(size, static_cast<ktl::size_t>(align));
}

void operator delete(void *p) noexcept
{
	srpt_os_free(p);
}

void operator delete[](void *p) noexcept
{
	srpt_os_free(p);
}

void operator delete(void *p, ktl::size_t) noexcept
{
	srpt_os_free(p);
}

void operator delete[](void *p, ktl::size_t) noexcept
{
	srpt_os_free(p);
}

void operator delete(void *p, std::align_val_t) noexcept
{
	srpt_os_free(p);
}

void operator delete[](void *p, std::align_val_t) noexcept
{
	srpt_os_free(p);
}

void operator delete(void *p, ktl::size_t, std::align_val_t) noexcept
{
	srpt_os_free(p);
}

void operator delete[](void *p, ktl::size_t, std::align_val_t) noexcept
{
	srpt_os_free(p);
}

void operator delete(void *p, ktl::AllocChecker *) noexcept
{
	srpt_os_free(p);
}

void operator delete[](void *p, ktl::AllocChecker *) noexcept
{
	srpt_os_free(p);
}

/* Emitted by the compiler into the vtable slots of pure virtual functions. */
extern "C" void __cxa_pure_virtual();

void __cxa_pure_virtual()
{
	srpt_os_warn(__FILE__, __LINE__, "pure virtual function called");
}
