#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# The target sends an initiator only the bytes of the SCSI transfer. A raw
# initiator (srpi short-read) writes 1 MiB of one pattern, then READ(10)s
# one 512-byte block and INQUIRYs 36 bytes into 1 MiB buffers pre-filled
# with another pattern, through a direct descriptor and an indirect table
# of four; then, after a 4 KiB read (a page that a target reuses may
# still hold it), INQUIRYs and (if the block is smaller) READs a block
# into 4 KiB buffers: not one byte past the transfer may change, and the
# residual count must be exact. A write's residual too: a PERSISTENT
# RESERVE OUT's 24-byte list in a 512-byte buffer is a data-out underflow
# of 488 (DOUNDER alone). Sense data, too, is only the command's:
# after COMPARE AND WRITEs that miscompare (sense with an INFORMATION
# field), the sense of an unsupported opcode must be byte for byte what
# it was before any (from Linux 5.11: before, LIO's miscompare sense
# holds nothing more). With per-channel receive rings and with use_srq.
# vm-timeout: 300
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$SRPT_ROOT/tests/vm/lib.sh"
# shellcheck source-path=SCRIPTDIR source=initiator.sh
. "$SRPT_ROOT/tests/vm/initiator.sh"

srp_loopback
srpi_setup
srpt_serve "$gid" 5555 16M
for srq in 0 1; do
	log "---- use_srq=$srq ----"
	srpt_use_srq "$gid" "$srq"
	base=$(srpt_objects)
	stats=$(srpt_stats "$gid")
	expect_srpi 120 short-read --dest 10.200.0.1:5555
	expect_objects "$base"
	after=$(srpt_stats "$gid")
	expect_no_stat_errors "$stats" "$after"
done
expect_ok tcli "clearconfig confirm=True"
unload_all
check_dmesg
