// SPDX-License-Identifier: GPL-2.0-only
/*
 * A QEMU TCG plugin for scripts/bench --icount: counts the guest's
 * instructions exactly, per kernel address where a translation block
 * starts, so that a module's cost per I/O is a count, not a sample.
 *
 * The guest asks for the counts by executing a marker (insn-mark.c): the
 * plugin then writes every count since the previous marker to the file
 * named by its out= argument and starts again from zero. The write is
 * done before the marker's next instruction runs, so the guest can read
 * the file (over 9p) as soon as the marker program exits.
 *
 * File format, one record per line:
 *   total N      every instruction
 *   user N R     instructions at user addresses (every process)
 *   unhashed N   kernel instructions whose block found no room in the table
 *   ADDR N R     kernel instructions in blocks that start at ADDR (hex)
 * R: the further iterations of a rep string instruction at ADDR.
 *
 * A block's instructions are counted when it is entered; a block left
 * early by an exception is counted whole. A rep string instruction is one
 * instruction, as the ISA has it, however many bytes it moves: QEMU runs
 * its first iteration in the block it ends and each further one as a
 * block of that instruction alone, re-entered at its address, and those
 * entries are counted apart (R), not as instructions. Without that, a
 * 4 KiB page cleared (rep stosb) counted 4096 instructions. One vCPU
 * thread (-accel tcg,thread=single) updates the counters, so plain adds
 * suffice.
 *
 * Built against QEMU 7.2's plugin ABI (version 1), declared here because
 * Debian ships no qemu-plugin.h.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef uint64_t qemu_plugin_id_t;
typedef struct qemu_info_t qemu_info_t;
struct qemu_plugin_tb;
struct qemu_plugin_insn;
enum qemu_plugin_cb_flags { QEMU_PLUGIN_CB_NO_REGS };
enum qemu_plugin_op { QEMU_PLUGIN_INLINE_ADD_U64 };
typedef void (*qemu_plugin_vcpu_tb_trans_cb_t)(qemu_plugin_id_t id,
					       struct qemu_plugin_tb *tb);
typedef void (*qemu_plugin_vcpu_udata_cb_t)(unsigned int vcpu, void *udata);

void qemu_plugin_register_vcpu_tb_trans_cb(qemu_plugin_id_t id,
					   qemu_plugin_vcpu_tb_trans_cb_t cb);
void qemu_plugin_register_vcpu_tb_exec_inline(struct qemu_plugin_tb *tb,
					      enum qemu_plugin_op op,
					      void *ptr, uint64_t imm);
void qemu_plugin_register_vcpu_insn_exec_cb(struct qemu_plugin_insn *insn,
					    qemu_plugin_vcpu_udata_cb_t cb,
					    enum qemu_plugin_cb_flags flags,
					    void *udata);
size_t qemu_plugin_tb_n_insns(const struct qemu_plugin_tb *tb);
uint64_t qemu_plugin_tb_vaddr(const struct qemu_plugin_tb *tb);
struct qemu_plugin_insn *qemu_plugin_tb_get_insn(const struct qemu_plugin_tb *tb,
						 size_t idx);
const void *qemu_plugin_insn_data(const struct qemu_plugin_insn *insn);
size_t qemu_plugin_insn_size(const struct qemu_plugin_insn *insn);

#define EXPORT __attribute__((visibility("default")))

EXPORT int qemu_plugin_version = 1;

/* nopw 0x53525054(%rax,%rax,1): a nop no compiler emits ("TPRS"). */
static const uint8_t marker[] = { 0x66, 0x0f, 0x1f, 0x84, 0x00,
				  0x54, 0x50, 0x52, 0x53 };

/* x86-64's kernel half. */
#define KERNEL_START 0xffff800000000000ull

/*
 * Open addressing, never resized: the inline adds hold pointers into the
 * table. A 6.1 guest enters far fewer than 2^20 distinct kernel blocks.
 */
#define TABLE_BITS 21
#define TABLE_SIZE (1u << TABLE_BITS)
#define PROBES 64

struct slot {
	uint64_t addr; /* 0: free */
	uint64_t count;
	uint64_t rep;
};

static struct slot *table;
static struct slot user;
static uint64_t unhashed_count;
static const char *out_path;
static char *tmp_path;

static struct slot *slot_for(uint64_t addr)
{
	uint64_t h = (addr * 0x9e3779b97f4a7c15ull) >> (64 - TABLE_BITS);

	if (addr < KERNEL_START)
		return &user;
	for (unsigned int i = 0; i < PROBES; i++) {
		struct slot *s = &table[(h + i) & (TABLE_SIZE - 1)];

		if (s->addr == addr)
			return s;
		if (!s->addr) {
			s->addr = addr;
			return s;
		}
	}
	return NULL;
}

/* A rep- or repne-prefixed string instruction (ins, outs, movs, cmps, stos, lods, scas). */
static bool is_rep_string(const uint8_t *p, size_t len)
{
	bool rep = false;
	size_t i = 0;

	for (; i < len; i++) {
		if (p[i] == 0xf2 || p[i] == 0xf3)
			rep = true;
		else if (p[i] != 0x66 && p[i] != 0x67 && p[i] != 0x2e && p[i] != 0x3e &&
			 p[i] != 0x26 && p[i] != 0x36 && p[i] != 0x64 && p[i] != 0x65)
			break;
	}
	if (i < len && (p[i] & 0xf0) == 0x40) /* REX */
		i++;
	if (!rep || i >= len)
		return false;
	return (p[i] >= 0x6c && p[i] <= 0x6f) || (p[i] >= 0xa4 && p[i] <= 0xa7) ||
	       (p[i] >= 0xaa && p[i] <= 0xaf);
}

/*
 * The marker's block was counted whole on entry: its instructions from
 * the marker on (@after) belong to the next interval.
 */
static void on_marker(unsigned int vcpu, void *udata)
{
	uint64_t after = (uintptr_t)udata, total;
	FILE *f = fopen(tmp_path, "w");

	(void)vcpu;
	user.count -= after;
	total = user.count + unhashed_count;
	for (size_t i = 0; i < TABLE_SIZE; i++)
		total += table[i].count;
	if (f) {
		fprintf(f, "total %llu\nuser %llu %llu\nunhashed %llu\n",
			(unsigned long long)total,
			(unsigned long long)user.count,
			(unsigned long long)user.rep,
			(unsigned long long)unhashed_count);
		for (size_t i = 0; i < TABLE_SIZE; i++)
			if (table[i].count || table[i].rep)
				fprintf(f, "%llx %llu %llu\n",
					(unsigned long long)table[i].addr,
					(unsigned long long)table[i].count,
					(unsigned long long)table[i].rep);
		if (fclose(f) || rename(tmp_path, out_path))
			perror(out_path);
	} else {
		perror(tmp_path);
	}
	for (size_t i = 0; i < TABLE_SIZE; i++)
		table[i].count = table[i].rep = 0;
	user.count = after;
	user.rep = 0;
	unhashed_count = 0;
}

static void on_translate(qemu_plugin_id_t id, struct qemu_plugin_tb *tb)
{
	size_t n = qemu_plugin_tb_n_insns(tb);
	uint64_t addr = qemu_plugin_tb_vaddr(tb);
	struct slot *s = slot_for(addr);
	struct qemu_plugin_insn *first = qemu_plugin_tb_get_insn(tb, 0);

	(void)id;
	if (!s)
		qemu_plugin_register_vcpu_tb_exec_inline(tb, QEMU_PLUGIN_INLINE_ADD_U64,
							 &unhashed_count, n);
	else if (n == 1 && is_rep_string(qemu_plugin_insn_data(first),
					  qemu_plugin_insn_size(first)))
		qemu_plugin_register_vcpu_tb_exec_inline(tb, QEMU_PLUGIN_INLINE_ADD_U64,
							 &s->rep, 1);
	else
		qemu_plugin_register_vcpu_tb_exec_inline(tb, QEMU_PLUGIN_INLINE_ADD_U64,
							 &s->count, n);
	if (addr >= KERNEL_START)
		return;
	for (size_t i = 0; i < n; i++) {
		struct qemu_plugin_insn *insn = qemu_plugin_tb_get_insn(tb, i);

		if (qemu_plugin_insn_size(insn) == sizeof(marker) &&
		    !memcmp(qemu_plugin_insn_data(insn), marker, sizeof(marker)))
			qemu_plugin_register_vcpu_insn_exec_cb(insn, on_marker,
							       QEMU_PLUGIN_CB_NO_REGS,
							       (void *)(uintptr_t)(n - i));
	}
}

EXPORT int qemu_plugin_install(qemu_plugin_id_t id, const qemu_info_t *info,
			       int argc, char **argv)
{
	(void)info;
	for (int i = 0; i < argc; i++)
		if (!strncmp(argv[i], "out=", 4))
			out_path = argv[i] + 4;
	if (!out_path) {
		fprintf(stderr, "insn-count: needs out=FILE\n");
		return -1;
	}
	table = calloc(TABLE_SIZE, sizeof(*table));
	tmp_path = malloc(strlen(out_path) + 5);
	if (!table || !tmp_path)
		return -1;
	sprintf(tmp_path, "%s.tmp", out_path);
	qemu_plugin_register_vcpu_tb_trans_cb(id, on_translate);
	return 0;
}
