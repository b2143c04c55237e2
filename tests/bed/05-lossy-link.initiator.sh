#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Two hosts over a lossy link (05-lossy-link.host): the initiator's side.
# One fio verify run (writes and reads, 512 B to 1 MiB, queue depth 16)
# per phase: 1 % of the frames lost, 5 % lost, 50 ms added to each.
# Slower, never wrong: every run ends with 0 errors and every block
# verified, with no abort, reset or command timeout on the initiator.
# The time of each run is logged beside the clean wire's.
# vm-timeout: 900
# vm-smp: 1
# vm-mem: 2048
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$SRPT_ROOT/tests/bed/lib.sh"

bed_net
load_scsi_initiator_bits
bed_reach 0
bed_login 0
disk=$(srp_disk)
expect_attr_set "/sys/block/$disk/device/timeout" 120
mark=$(dmesg_mark)
run_fio() { # NAME OFFSET
	local t0=$SECONDS
	SRPT_CMD_TIMEOUT=240 expect_fio --filename="/dev/$disk" --name="$1" --direct=1 --ioengine=libaio --rw=randrw \
		--bssplit=512/20:4k/30:64k/30:1m/20 --iodepth=16 --size=4m --offset="$2" \
		--verify=crc32c --verify_fatal=1 --randrepeat=0
	log "$1: $((SECONDS - t0))s"
}
run_fio clean 0
phase=0
for spec in "1 0" "5 0" "0 50"; do
	phase=$((phase + 1))
	bed_put "phase-$phase" "$spec"
	bed_get "phase-$phase-set" 60 >/dev/null
	read -r loss delay <<<"$spec"
	run_fio "loss-${loss}pct-delay-${delay}ms" "$((phase * 8))m"
done
bed_put phases-done
bed_get wire-clean 60 >/dev/null
expect_no_initiator_trouble "$mark"
srp_logout
bed_initiator_end
