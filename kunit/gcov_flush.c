// SPDX-License-Identifier: GPL-2.0-only
/*
 * Coverage builds only (scripts/kunit --coverage, CONFIG_GCOV): UML's
 * linker script keeps .fini_array but not the prioritised
 * .fini_array.00100 that holds libgcov's own destructor, so the UML
 * process would exit without writing its coverage data. This
 * destructor, in the section that is kept, writes it once the kernel
 * has halted.
 */
#include <linux/compiler.h>

void __gcov_dump(void);

static void srpt_gcov_dump(void)
{
	__gcov_dump();
}

static void (*srpt_gcov_dump_at_exit)(void) __used __section(".fini_array") = srpt_gcov_dump;
