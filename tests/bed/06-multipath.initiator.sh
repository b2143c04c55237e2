#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Two hosts, two links, dm-multipath (06-multipath.host): the initiator's
# side. ib_srp logs in over both links; multipathd (with udev) makes one
# map of the two disks. fio writes through the map and verifies every
# block; when both paths carry writes, link 1's cable is pulled:
# dm-multipath fails over to link 0 with no I/O error. The cable back,
# ib_srp reconnects and multipathd reinstates the path (fails back):
# writes flow through both again, and fio ends with 0 errors.
# vm-timeout: 700
# vm-smp: 1
# vm-mem: 2048
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$SRPT_ROOT/tests/bed/lib.sh"

map=mpatha
mpd_log=$SRPT_OUT/multipathd.log

# mp_active N: multipathd sees N active paths of the map.
mp_active() {
	[ "$(timeout "$SRPT_CMD_TIMEOUT" multipathd show paths format '%d %t %T %m' |
		awk -v m="$map" '$4 == m && $2 == "active" && $3 == "ready"' | wc -l)" = "$1" ]
}

bed_net
load_scsi_initiator_bits
expect_ok modprobe -a ib_srp dm_multipath dm_service_time scsi_dh_alua
bed_reach 0
bed_reach 1
mp_start 30 "$mpd_log"
bed_login 0
bed_login 1
wait_for 15 "a disk through rxe0" mp_disk rxe0
wait_for 15 "a disk through rxe1" mp_disk rxe1
disk0=$(mp_disk rxe0)
disk1=$(mp_disk rxe1)
# Fail over in seconds; reconnect every 2 s once the cable is back.
srp_rport_tmo 2 3
wait_for 60 "multipathd has $map with 2 active paths" mp_active 2
wait_for 15 "/dev/mapper/$map exists" test -b "/dev/mapper/$map"

mark=$(dmesg_mark)
base0=$(disk_writes "$disk0")
base1=$(disk_writes "$disk1")
fio --name=failover --filename="/dev/mapper/$map" --direct=1 --ioengine=libaio \
	--rw=randwrite --bsrange=4k-256k --iodepth=16 --size=48m --time_based --runtime=90 \
	--verify=crc32c --verify_backlog=64 --verify_fatal=1 --randrepeat=0 \
	--output-format=terse >/tmp/fio.out 2>/tmp/fio.err &
fio_pid=$!
both_busy() {
	[ $(($(disk_writes "$disk0") - base0)) -ge 30 ] && [ $(($(disk_writes "$disk1") - base1)) -ge 30 ]
}
wait_for 60 "writes through both paths" both_busy
bed_put io-on-both-paths
wait_for 90 "dm-multipath failed the path over link 1" mp_active 1
t_fail=$SECONDS
bed_put failed-over
kill -0 "$fio_pid" || fail "fio ended before the cable came back: $(tail -n 3 /tmp/fio.err)"
bed_get link-back 60 >/dev/null
wait_for 120 "multipathd reinstated the path over link 1" mp_active 2
log "path over link 1 back $((SECONDS - t_fail))s after it failed"
disk1=$(mp_disk rxe1)
back1=$(disk_writes "$disk1")
writes_beyond() { [ "$(disk_writes "$1")" -ge "$2" ]; }
wait_for 60 "writes through link 1 again" writes_beyond "$disk1" $((back1 + 30))
rc=0
wait "$fio_pid" || rc=$?
err=$(awk -F';' '$1 == 3 { print $5 }' /tmp/fio.out)
if [ "$rc" != 0 ] || [ "$err" != 0 ]; then
	fail "fio through the map: exit $rc, error ${err:-?}: $(tail -n 3 /tmp/fio.err)"
fi
VM_LAST_OUTPUT=$(cat /tmp/fio.out)
fio_summary
pass "fio through the map: 0 errors, every block verified, across the failover and back"
log "initiator's error handling since the I/O started: $(srp_initiator_trouble "$mark" | wc -l) line(s)"
expect_ok dmsetup remove "$map"
srp_logout
kill "$(multipathd show daemon | awk '/^pid/ { print $2 }')" 2>/dev/null || true
bed_initiator_end
