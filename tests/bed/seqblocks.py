#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-only
"""Writes that must survive a power loss, and their check.

  seqblocks.py write DEV ACKLOG [BLOCKS]
      Writes 4 KiB blocks 0, 1, 2 ... (wrapping at BLOCKS, 8192 by
      default) to DEV with O_DIRECT|O_DSYNC: each write has completed with
      FUA, or before a completed SYNCHRONIZE CACHE, when pwrite returns.
      Each block holds its sequence number and LBA. After each completed
      write its sequence number goes to ACKLOG (the line written and
      flushed before the next write starts). Runs until SIGTERM, or
      until a write fails (exit status 1, the error on stderr).

  seqblocks.py verify DEV ACKLOG [BLOCKS]
      Reads back the block of every sequence number in ACKLOG whose
      block no later acknowledged write overwrote; prints
      "acknowledged N verified N mismatches N" and exits 1 on a mismatch.
"""
import mmap
import os
import signal
import struct
import sys

BLOCK = 4096
MAGIC = b"SRPTSEQ1"


def pattern(seq, lba):
    head = MAGIC + struct.pack(">QQ", seq, lba)
    return (head * (BLOCK // len(head) + 1))[:BLOCK]


def write(dev, acklog, blocks):
    stop = []
    signal.signal(signal.SIGTERM, lambda *_: stop.append(1))
    fd = os.open(dev, os.O_WRONLY | os.O_DIRECT | os.O_DSYNC)
    buf = mmap.mmap(-1, BLOCK)
    with open(acklog, "a") as log:
        seq = 0
        while not stop:
            lba = seq % blocks
            buf.seek(0)
            buf.write(pattern(seq, lba))
            try:
                n = os.pwritev(fd, [buf], lba * BLOCK)
            except OSError as e:
                print(f"write of seq {seq} failed: {e}", file=sys.stderr)
                sys.exit(1)
            if n != BLOCK:
                print(f"short write of seq {seq}: {n}", file=sys.stderr)
                sys.exit(1)
            log.write(f"{seq}\n")
            log.flush()
            os.fsync(log.fileno())
            seq += 1


def verify(dev, acklog, blocks):
    with open(acklog) as f:
        acked = [int(l) for l in f if l.strip()]
    # The last acknowledged write of each block decides what it holds.
    last = {}
    for seq in acked:
        last[seq % blocks] = seq
    fd = os.open(dev, os.O_RDONLY | os.O_DIRECT)
    buf = mmap.mmap(-1, BLOCK)
    bad = 0
    for lba, seq in sorted(last.items()):
        n = os.preadv(fd, [buf], lba * BLOCK)
        if n != BLOCK or buf[:BLOCK] != pattern(seq, lba):
            got = bytes(buf[:24])
            if bad < 10:
                print(f"LBA {lba}: want seq {seq}, have {got!r}", file=sys.stderr)
            bad += 1
    print(f"acknowledged {len(acked)} verified {len(last)} mismatches {bad}")
    sys.exit(1 if bad else 0)


def main():
    if len(sys.argv) not in (4, 5) or sys.argv[1] not in ("write", "verify"):
        sys.exit(__doc__)
    blocks = int(sys.argv[4]) if len(sys.argv) == 5 else 8192
    (write if sys.argv[1] == "write" else verify)(sys.argv[2], sys.argv[3], blocks)


if __name__ == "__main__":
    main()
