// SPDX-License-Identifier: GPL-2.0-only
/*
 * Usage: insn-mark [LOOPS]
 *
 * Executes the marker that makes the instruction counter (insn-count.c)
 * write its counts and start again. With LOOPS it then runs exactly
 * 2 * LOOPS + 2 user instructions, counting the first marker, and marks
 * again, so that the guest can check the counter against a known count
 * before trusting it.
 */
#include <stdlib.h>

/* nopw 0x53525054(%rax,%rax,1), as insn-count.c looks for it. */
#define MARKER ".byte 0x66, 0x0f, 0x1f, 0x84, 0x00, 0x54, 0x50, 0x52, 0x53\n"

int main(int argc, char **argv)
{
	unsigned long loops = argc > 1 ? strtoul(argv[1], NULL, 0) : 0;

	if (!loops) {
		__asm__ volatile(MARKER);
		return argc > 1 ? 2 : 0;
	}
	/* The marker, mov, LOOPS times dec and jnz, the marker. */
	__asm__ volatile(MARKER
			 "mov %0, %%rcx\n"
			 "1: dec %%rcx\n"
			 "jnz 1b\n"
			 MARKER
			 : : "r"(loops) : "rcx", "cc");
	return 0;
}
