#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Two hosts, the target loses power mid-write and boots again (see
# 04-target-power-loss.target.sh): the initiator's side. It logs in to
# both LUNs (fileio with write-back caching, block) and writes 4 KiB
# blocks with sequence numbers to each with O_DIRECT|O_DSYNC
# (seqblocks.py: every write acknowledged has completed with FUA or
# before a completed SYNCHRONIZE CACHE), logging each acknowledgement
# to the host. The target dies mid-write; ib_srp reconnects to the
# restored target by itself once SCSI's command timeout has run out
# (fast_io_fail_tmo off: the writes wait).
# Then every block's last acknowledged write must read back intact:
# mismatches 0 on both LUNs.
# vm-timeout: 600
# vm-smp: 1
# vm-mem: 2048
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$SRPT_ROOT/tests/bed/lib.sh"

seq=$SRPT_ROOT/tests/bed/seqblocks.py
bed_net
load_scsi_initiator_bits
bed_reach 0
bed_login 0
mapfile -t disks < <(srp_wait_disks 2)
rport=$(compgen -G '/sys/class/srp_remote_ports/*')
expect_attr_set "$rport/fast_io_fail_tmo" off
expect_attr_set "$rport/dev_loss_tmo" 300
expect_attr_set "$rport/reconnect_delay" 3
# A command the dead target had received leaves nothing on the wire to
# retry: SCSI's command timeout (30 s) is what notices, and its error
# handling reconnects.
for d in "${disks[@]}"; do
	log "$d: $(<"/sys/block/$d/device/vendor") $(<"/sys/block/$d/device/model"), cache: $(cat /sys/block/"$d"/device/scsi_disk/*/cache_type), FUA $(cat /sys/block/"$d"/device/scsi_disk/*/FUA)"
done
pids=()
for i in "${!disks[@]}"; do
	python3 "$seq" write "/dev/${disks[$i]}" "$BED/acked-$i" >"/tmp/seq-$i.log" 2>&1 &
	pids+=($!)
done
wait_for 60 "acknowledged writes on both LUNs" test -s "$BED/acked-1" -a -s "$BED/acked-0"
mark=$(dmesg_mark)
bed_put writes-running
bed_get target-powered-off 300 >/dev/null
before=()
for i in "${!disks[@]}"; do
	before[i]=$(wc -l <"$BED/acked-$i")
done
log "the target lost power after ${before[0]} and ${before[1]} acknowledged writes"
bed_get target-restored 300 >/dev/null
wait_dmesg_since 240 "$mark" "ib_srp: reconnect succeeded"
pass "ib_srp reconnected to the restored target"
# acked_beyond I N: more than N writes acknowledged on LUN I.
acked_beyond() { [ "$(wc -l <"$BED/acked-$1")" -gt "$2" ]; }
# Writes flow again: a few more acknowledgements on each LUN.
for i in "${!disks[@]}"; do
	wait_for 120 "writes acknowledged on ${disks[$i]} after the reconnect" \
		acked_beyond "$i" "$((before[i] + 20))"
done
for i in "${!pids[@]}"; do
	kill -TERM "${pids[$i]}"
	wait "${pids[$i]}" || fail "the writer of ${disks[$i]} failed: $(cat "/tmp/seq-$i.log")"
done
for i in "${!disks[@]}"; do
	expect_ok python3 "$seq" verify "/dev/${disks[$i]}" "$BED/acked-$i"
	pass "${disks[$i]}: $VM_LAST_OUTPUT"
done
srp_logout
bed_initiator_end
