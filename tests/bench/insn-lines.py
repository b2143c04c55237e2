#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""Usage: insn-lines.py KO INSNS IOS [--top N] [--file PATH]

Lays scripts/bench --icount's count per translation block (INSNS, a
DIR/bootN/<target>-ch<N>-<job>.insns file: "address count" lines) on the
disassembly of KO's .text with line information, and prints the
instructions per I/O (IOS: the I/Os of that job, the seventh field of
its bench.txt line) of each function, source file and costliest line.

KO must have the same .text as the module that ran, with line
information for the core too: the core is built with -g0 (see
scripts/cxx.kbuild), so build a copy of the tree with -g in its place;
the code is the same (compare the two .text sections with objcopy).
The module's load address (page aligned) is the one that puts the most
block starts on its functions' starts. A block is taken to run from its
start to the first jump, call, return or rep-prefixed instruction, as
QEMU cuts them, where the loaded module differs from the file: calls of
__fentry__ are NOPs once loaded, and a retpoline call rewritten as an
indirect call returns into the middle of the call in the file (then a
NOP, counted as one instruction of the call's line). A block left early
counts whole, as in the plugin.
"""
import argparse
import bisect
import collections
import re
import subprocess
import sys


def text_functions(ko):
    sections = subprocess.run(["readelf", "-SW", ko], capture_output=True, text=True,
                              check=True).stdout
    index = None
    for line in sections.splitlines():
        m = re.match(r"\s*\[\s*(\d+)\]\s+\.text\s", line)
        if m:
            index = m[1]
    if index is None:
        sys.exit(f"{ko}: no .text section")
    symbols = subprocess.run(["readelf", "-sW", ko], capture_output=True, text=True,
                             check=True).stdout
    funcs = []
    for line in symbols.splitlines():
        f = line.split()
        if len(f) >= 8 and f[3] == "FUNC" and f[6] == index:
            funcs.append((int(f[1], 16), int(f[2], 0), f[7]))
    return sorted(funcs)


def instructions(ko):
    dis = subprocess.run(["objdump", "-d", "-l", "--no-show-raw-insn", "--section=.text", ko],
                         capture_output=True, text=True, check=True).stdout
    out, where = [], None
    for line in dis.splitlines():
        m = re.match(r"^(/\S+):(\d+)", line)
        if m:
            where = re.sub(r".*/(src|include|kunit)/", r"\1/", m[1]) + ":" + m[2]
            continue
        m = re.match(r"^\s+[0-9a-f]+: R_\S+\s+__fentry__", line)
        if m and out:
            out[-1][1] = "nop-fentry"
            continue
        m = re.match(r"^\s+([0-9a-f]+):\s+(\S+)", line)
        if m:
            out.append([int(m[1], 16), m[2], where])
    return out


def ends_block(op):
    return re.match(r"(j|call|ret|rep)", op) is not None


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("ko")
    ap.add_argument("insns")
    ap.add_argument("ios", type=float)
    ap.add_argument("--top", type=int, default=40)
    ap.add_argument("--file", help="only the lines of this source file (e.g. src/shim/lio_cmd.c)")
    a = ap.parse_args()

    funcs = text_functions(a.ko)
    starts = [f[0] for f in funcs]
    blocks = {}
    for line in open(a.insns):
        f = line.split()
        # Modules sit above the kernel image (x86-64: MODULES_VADDR).
        if len(f) in (2, 3) and re.fullmatch(r"[0-9a-f]{16}", f[0]) and int(f[0], 16) >= 0xffffffffa0000000:
            blocks[int(f[0], 16)] = int(f[1])
    votes = collections.Counter(b - s for b in blocks for s in starts if (b - s) % 4096 == 0)
    if not votes:
        sys.exit("no block of the count starts on a function of the module")
    base = votes.most_common(1)[0][0]

    insns = instructions(a.ko)
    addrs = [x[0] for x in insns]
    per_line, per_file, per_func = collections.Counter(), collections.Counter(), collections.Counter()
    end = insns[-1][0] if insns else 0
    for addr, count in blocks.items():
        off = addr - base
        i = bisect.bisect_right(addrs, off) - 1
        if i < 0 or off > end:
            continue  # another module's
        run = []
        if addrs[i] != off:
            # Into a rewritten call: its NOP, then what follows it.
            run.append(insns[i])
            i += 1
        while i < len(insns) and len(run) < 512:
            run.append(insns[i])
            if ends_block(insns[i][1]):
                break
            i += 1
        times = count / len(run) / a.ios
        for off, _, where in run:
            where = where or "(no line information)"
            per_line[where] += times
            per_file[where.rsplit(":", 1)[0]] += times
            k = bisect.bisect_right(starts, off) - 1
            if k >= 0 and off < funcs[k][0] + funcs[k][1]:
                per_func[funcs[k][2]] += times

    print(f"module .text at {base:#x}; {sum(per_file.values()):.0f} instructions per I/O")
    print("\nper function")
    for name, v in per_func.most_common(a.top):
        print(f"  {v:8.1f}  {name}")
    print("\nper source file")
    for name, v in per_file.most_common():
        print(f"  {v:8.1f}  {name}")
    lines = [(v, k) for k, v in per_line.items() if not a.file or k.startswith(a.file + ":")]
    print(f"\ncostliest lines{' of ' + a.file if a.file else ''}")
    for v, k in sorted(lines, reverse=True)[:a.top]:
        print(f"  {v:8.1f}  {k}")


if __name__ == "__main__":
    main()
