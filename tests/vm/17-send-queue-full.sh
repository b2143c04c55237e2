#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# A full send queue slows the target down and loses nothing. ib_srp reads
# 4 MiB blocks, 64 at a time, for 20 s, every block verified (crc32c),
# with srp_sq_size 16 and again at its minimum, 4:
# responses and RDMA transfers wait for send queue slots instead of being
# dropped, and a transfer larger than the whole queue goes in rounds. The
# initiator must see no abort, reset or command timeout, the target no
# send error (unless 6.1's rxe broke the connection: rxe_replayed_local_op,
# expect_no_stat_errors_since), and its statistics must show that the
# queue did fill.
# vm-timeout: 900
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$SRPT_ROOT/tests/vm/lib.sh"
# shellcheck source-path=SCRIPTDIR source=initiator.sh
. "$SRPT_ROOT/tests/vm/initiator.sh"

srp_loopback
srpt_serve "$gid" 5555 160M
tpg=$(srpt_tpg "$gid")

jobs=/tmp/sq.fio
cat >"$jobs" <<'FIO'
[global]
direct=1
ioengine=libaio
verify=crc32c
verify_fatal=1
bs=4m
size=128m

[fill]
rw=write
iodepth=8
do_verify=0

# 64 threads of synchronous reads, not libaio at queue depth 64: with an
# asynchronous engine bookworm's fio 3.33 ends a read job that verifies
# after one pass over its blocks, time_based or not (fio issue 1664).
[randread]
stonewall
rw=randread
ioengine=psync
thread
numjobs=64
group_reporting
time_based
runtime=20
FIO

for sq in 16 4; do
	log "---- srp_sq_size=$sq ----"
	expect_attr_set "$tpg/attrib/srp_sq_size" "$sq"
	base=$(srpt_objects)
	stats=$(srpt_stats "$gid")
	mark=$(dmesg_mark)
	srp_login rxe0 "$gid" 10.200.0.1 5555
	disk=$(srp_disk)
	# 64 reads of 4 MiB queue up to 256 MiB: at the 25 MiB/s of an
	# emulated link a read waits 10 s, and on a loaded host three times
	# that. 120 s still catches a lost command well before fio's own
	# bound.
	expect_attr_set "/sys/block/$disk/device/timeout" $((120 * SRPT_VM_SLOWDOWN))
	SRPT_CMD_TIMEOUT=$((240 * SRPT_VM_SLOWDOWN)) expect_fio --filename="/dev/$disk" "$jobs"
	# fio's own runtime (terse field 9, ms; the longest of the threads):
	# the reads went on for 20 s.
	ran=$(awk -F';' '$1 == 3 && $3 == "randread" { print $9 }' <<<"$VM_LAST_OUTPUT")
	[ "${ran:-0}" -ge 20000 ] || fail "fio read for ${ran:-0} ms, not 20 s"
	pass "fio read and verified for $ran ms"
	expect_no_initiator_trouble "$mark"
	after=$(srpt_stats "$gid")
	expect_no_stat_errors_since "$mark" "$stats" "$after"
	waits=$(stat_delta "$stats" "$after" send_queue_waits)
	[ "$waits" -gt 0 ] || fail "the send queue never filled: the test proves nothing"
	pass "$waits steps waited for the send queue"
	srp_logout
	expect_objects "$base"
done
expect_ok tcli "clearconfig confirm=True"
unload_all
check_dmesg
