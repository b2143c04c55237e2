// SPDX-License-Identifier: GPL-2.0-only
/*
 * Lock mistakes the host tier's clang check (tests/host/Makefile) must
 * reject, each one the analysis's own diagnostic: a core member function
 * written without the guard it has (Logins::enabled() and block(),
 * src/core/logins.cpp, minus their MutexGuard), and a *_locked call
 * made without the lock. Compiled there with -fsyntax-only, never built
 * or linked: if it compiles, the check does not bite, and the tier fails.
 */
#include <srpt/logins.h>

namespace srpt {

bool Logins::enabled() const
{
	return enabled_tpgs_ > 0;	/* reading ... requires holding mutex 'mutex_' */
}

void Logins::block()
{
	blockers_++;	/* writing ... requires holding mutex 'mutex_' exclusively */
}

bool login_may_proceed(Logins &logins)
{
	return logins.accepting_locked();	/* calling ... requires holding mutex */
}

} // namespace srpt
