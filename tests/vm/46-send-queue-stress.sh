#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# A small send queue under deep, mixed, verified I/O for a minute: ib_srp
# logged in with four channels (ch_count=4) and commands of up to 4 MiB
# (max_sect=8192, and the disk's max_sectors_kb raised to match) to a
# target port with srp_sq_size 16 and the shared
# receive queue (use_srq=1); two fio jobs write blocks of 512 B to 4 MiB
# (bssplit) at queue depth 32 each (64 in all) for 60 s, every block read
# back and checked (crc32c, verify_backlog) during the run. Responses and
# RDMA transfers must wait for send queue slots (send_queue_waits > 0),
# never be dropped: the initiator must see no abort, reset or command
# timeout, fio no error, and no error counter of the target may move.
# SRPT_STRESS_SCALE=N (make check: 5) divides the 60 s by N.
# vm-timeout: 900
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$SRPT_ROOT/tests/vm/lib.sh"
# shellcheck source-path=SCRIPTDIR source=initiator.sh
. "$SRPT_ROOT/tests/vm/initiator.sh"

srp_loopback
srpt_serve "$gid" 5555 160M
tpg=$(srpt_tpg "$gid")
expect_attr_set "$tpg/attrib/srp_sq_size" 16
srpt_use_srq "$gid" 1
base=$(srpt_objects)
runtime=60
stress_scale runtime

jobs=/tmp/sq-stress.fio
cat >"$jobs" <<FIO
[global]
direct=1
ioengine=libaio
randrepeat=0
verify=crc32c
verify_fatal=1
verify_backlog=32
rw=randwrite
bssplit=512/15:4k/20:64k/25:1m/30:4m/10
iodepth=32
size=64m
time_based
runtime=$runtime

[sq16]
numjobs=2
offset_increment=64m
FIO

stats=$(srpt_stats "$gid")
mark=$(dmesg_mark)
srp_login rxe0 "$gid" 10.200.0.1 5555 ch_count=4,max_sect=8192
disk=$(srp_disk)
host=$(srp_host)
expect_attr "$host/ch_count" 4
# The block layer caps requests at 1280 KiB by default; ib_srp allows 4 MiB.
expect_attr "/sys/block/$disk/queue/max_hw_sectors_kb" 4096
expect_attr_set "/sys/block/$disk/queue/max_sectors_kb" 4096
srp_slow_kernel_timeouts "$disk"
SRPT_CMD_TIMEOUT=$(((runtime * 5 + 180) * SRPT_VM_SLOWDOWN)) expect_fio --filename="/dev/$disk" "$jobs"
expect_no_initiator_trouble "$mark"
after=$(srpt_stats "$gid")
expect_no_stat_errors_since "$mark" "$stats" "$after"
waits=$(stat_delta "$stats" "$after" send_queue_waits)
[ "$waits" -gt 0 ] || fail "the send queue never filled: the test proves nothing"
pass "$(stat_delta "$stats" "$after" commands) commands ($(stat_delta "$stats" "$after" reads) reads, $(($(stat_delta "$stats" "$after" bytes_read) >> 20)) MiB; $(stat_delta "$stats" "$after" writes) writes, $(($(stat_delta "$stats" "$after" bytes_written) >> 20)) MiB) over 4 channels; $waits steps waited for the send queue"
srp_logout
expect_objects "$base"
expect_ok tcli "clearconfig confirm=True"
unload_all
check_dmesg
