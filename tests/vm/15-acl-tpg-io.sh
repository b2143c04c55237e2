#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Access control while serving:
# - an initiator without an ACL is refused: add_target fails, the target
#   logs who (address, initiator port id), where (device, port) and why,
#   and the core's live objects stay at their baseline;
# - deleting the ACL during I/O (use_srq=0), and disabling the TPG during
#   I/O (use_srq=1), with commands executing in LIO's backend (a null_blk
#   that takes 100 ms per request), logs the initiator out: its fio fails
#   (expected), the live objects return to their baseline while ib_srp's
#   reconnect attempts are refused, and the kernel log stays free of
#   warnings;
# - re-creating the ACL, re-enabling the TPG lets ib_srp's next reconnect
#   log in again, and fio verifies data once more.
# vm-timeout: 600
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$SRPT_ROOT/tests/vm/lib.sh"
# shellcheck source-path=SCRIPTDIR source=initiator.sh
. "$SRPT_ROOT/tests/vm/initiator.sh"

srp_loopback
port=5555
tpg=$(srpt_tpg "$gid")
# The LUN: a memory-backed null_blk that completes each request after
# 100 ms, so that the logouts find commands executing in LIO's backend.
slow_null_lun
expect_ok tcli "/backstores/block create nb0 /dev/nullb0" "/srpt create ib.$gid" \
	"/srpt/ib.$gid/luns create /backstores/block/nb0"
expect_ok sh -c "echo $port >/sys/kernel/config/target/srpt/discovery_auth/rdma_cm_port"
who="10\\.200\\.0\\.1 \\(initiator port id 0x$gid\\)"
verify=(--direct=1 --ioengine=libaio --verify=crc32c --verify_fatal=1 --randrepeat=0
	--rw=randwrite --bsrange=512-256k --iodepth=16 --size=4m)

# ---- No ACL: refused. ----
srpt_use_srq "$gid" 0
base=$(srpt_objects)
mark=$(dmesg_mark)
srp_login_fails rxe0 "$gid" 10.200.0.1 "$port"
expect_dmesg_since "$mark" "ib_srpt: rxe0 port 1: rejected login of $who: no ACL of an enabled TPG admits the initiator"
expect_objects "$base"
_vm_no_rports || fail "a refused login left an SRP remote port behind"

# io_start: fio writes in the background until the I/O fails; returns
# once 8 writes are in flight; sets fio_pid.
io_start() {
	local inflight deadline=$((SECONDS + 60 * SRPT_VM_SLOWDOWN))
	fio --direct=1 --ioengine=libaio --name=doomed --filename="/dev/$disk" --rw=randwrite \
		--bs=64k --iodepth=16 --size=16m --time_based --runtime=120 \
		--output-format=terse >/tmp/fio-doomed.out 2>&1 &
	fio_pid=$!
	# /sys/block/*/inflight: reads, writes.
	while read -r -a inflight <"/sys/block/$disk/inflight" && [ "${inflight[1]}" -lt 8 ]; do
		kill -0 "$fio_pid" 2>/dev/null || { _indent </tmp/fio-doomed.out; fail "fio ended early"; }
		[ "$SECONDS" -lt "$deadline" ] ||
			fail "fio: not 8 writes in flight within $((60 * SRPT_VM_SLOWDOWN)) s"
		sleep 0.05
	done
	pass "fio is writing (${inflight[1]} writes in flight)"
}

# io_failed: io_start's fio failed once ib_srp gave up on the I/O
# (fast_io_fail_tmo).
io_failed() {
	local rc=0
	wait_for 60 "fio ended" _io_ended
	wait "$fio_pid" || rc=$?
	[ "$rc" != 0 ] || fail "fio succeeded although its initiator was logged out"
	pass "fio failed as expected (status $rc): $(grep -m1 'error' /tmp/fio-doomed.out || true)"
}

_io_ended() { ! kill -0 "$fio_pid" 2>/dev/null; }

# relogged_in: ib_srp's own reconnect logged in again; fio verifies.
relogged_in() {
	wait_for 30 "ib_srp reconnected (remote port running)" _rport_running
	expect_dmesg_since "$1" "ib_srp: reconnect succeeded"
	expect_dmesg_since "$1" "ib_srpt: rxe0 port 1: 10\\.200\\.0\\.1 logged in to 0x$gid"
	expect_fio "${verify[@]}" --name=relogged-in --filename="/dev/$disk"
}

_rport_running() { [ "$(srp_rport_state)" = running ]; }

# ---- The ACL deleted during I/O (use_srq=0). ----
expect_ok tcli "/srpt/ib.$gid/acls create ib.$gid"
srp_login rxe0 "$gid" 10.200.0.1 "$port"
disk=$(srp_disk)
srp_rport_tmo 1 3
expect_fio "${verify[@]}" --name=before --filename="/dev/$disk"
io_start
mark=$(dmesg_mark)
expect_ok tcli "/srpt/ib.$gid/acls delete ib.$gid"
expect_dmesg_since "$mark" "ib_srpt: rxe0 port 1: logging out 10\\.200\\.0\\.1: its ACL or session was removed"
# The session goes at once; the channel is released after its QP drained.
wait_dmesg_since 30 "$mark" "ib_srpt: rxe0 port 1: 10\\.200\\.0\\.1 logged out"
io_failed
expect_objects "$base"
# ib_srp keeps trying; the target refuses it.
wait_dmesg_since 30 "$mark" "ib_srpt: rxe0 port 1: rejected login of $who: no ACL of an enabled TPG admits the initiator"
mark=$(dmesg_mark)
expect_ok tcli "/srpt/ib.$gid/acls create ib.$gid"
relogged_in "$mark"
srp_logout
expect_objects "$base"

# ---- The TPG disabled during I/O (use_srq=1). ----
srpt_use_srq "$gid" 1
base=$(srpt_objects)
srp_login rxe0 "$gid" 10.200.0.1 "$port"
disk=$(srp_disk)
srp_rport_tmo 1 3
io_start
mark=$(dmesg_mark)
expect_ok sh -c "echo 0 >$tpg/enable"
expect_dmesg_since "$mark" "ib_srpt: rxe0 port 1: target port 0x$gid disabled"
expect_dmesg_since "$mark" "ib_srpt: rxe0 port 1: logging out 10\\.200\\.0\\.1: its TPG was disabled"
# The session goes at once; the channel is released after its QP drained.
wait_dmesg_since 30 "$mark" "ib_srpt: rxe0 port 1: 10\\.200\\.0\\.1 logged out"
io_failed
expect_objects "$base"
wait_dmesg_since 30 "$mark" "ib_srpt: rxe0 port 1: rejected login of $who: the target port is not enabled"
mark=$(dmesg_mark)
expect_ok sh -c "echo 1 >$tpg/enable"
expect_dmesg_since "$mark" "ib_srpt: rxe0 port 1: target port 0x$gid enabled"
relogged_in "$mark"
srp_logout
expect_objects "$base"

expect_ok tcli "clearconfig confirm=True"
remove_slow_null_lun
unload_all
check_dmesg
