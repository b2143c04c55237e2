/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Lock ownership the compiler checks: clang's thread safety attributes
 * (https://clang.llvm.org/docs/ThreadSafetyAnalysis.html), as Zircon's
 * TA_* macros. The host tier checks every core source with clang's
 * -Wthread-safety -Werror (tests/host/Makefile), so that a field
 * touched without the lock it is KTL_GUARDED_BY fails to build there.
 * Under gcc, which builds the module, they expand to nothing; a clang
 * kernel build accepts them and checks nothing (the kernel's flags do
 * not turn -Wthread-safety on). They never change generated code.
 *
 *   KTL_CAPABILITY(name)     a lock type (SpinLock, Mutex)
 *   KTL_SCOPED_CAPABILITY    an RAII guard type (SpinGuard, MutexGuard)
 *   KTL_GUARDED_BY(l)        a field read and written only with l held
 *   KTL_PT_GUARDED_BY(l)     what a pointer field points to, likewise
 *   KTL_REQUIRES(l...)       a function called with l held (*_locked)
 *   KTL_ACQUIRE(l...)        a function that returns with l held
 *   KTL_RELEASE(l...)        a function that returns with l released
 *   KTL_EXCLUDES(l...)       a function called without l (it takes it)
 *   KTL_RETURN_CAPABILITY(l) a function that returns a reference to l
 *   KTL_NO_THREAD_SAFETY_ANALYSIS  not checked: each use says why
 */
#pragma once

#if defined(__clang__)
#define KTL_THREAD_ANNOTATION(x) __attribute__((x))
#else
#define KTL_THREAD_ANNOTATION(x)
#endif

#define KTL_CAPABILITY(name) KTL_THREAD_ANNOTATION(capability(name))
#define KTL_SCOPED_CAPABILITY KTL_THREAD_ANNOTATION(scoped_lockable)
#define KTL_GUARDED_BY(l) KTL_THREAD_ANNOTATION(guarded_by(l))
#define KTL_PT_GUARDED_BY(l) KTL_THREAD_ANNOTATION(pt_guarded_by(l))
#define KTL_REQUIRES(...) KTL_THREAD_ANNOTATION(requires_capability(__VA_ARGS__))
#define KTL_ACQUIRE(...) KTL_THREAD_ANNOTATION(acquire_capability(__VA_ARGS__))
#define KTL_RELEASE(...) KTL_THREAD_ANNOTATION(release_capability(__VA_ARGS__))
#define KTL_EXCLUDES(...) KTL_THREAD_ANNOTATION(locks_excluded(__VA_ARGS__))
#define KTL_RETURN_CAPABILITY(l) KTL_THREAD_ANNOTATION(lock_returned(l))
#define KTL_NO_THREAD_SAFETY_ANALYSIS KTL_THREAD_ANNOTATION(no_thread_safety_analysis)
