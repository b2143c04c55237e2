#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Multipath failover: two target ports (rxe0 on srpt0, rxe1 on srpt1, two
# guest-only subnets) export the same ramdisk as LUN 0; the in-tree SRP
# initiator logs in through both over one RDMA/CM port; multipathd
# (udev-driven, as on a real host) assembles one dm-multipath map with
# both SCSI disks as paths. While fio writes through the map (and then
# reads every block back, crc32c-verified), `rdma link delete rxe1` takes
# one path away: ib_srpt logs that path's channels out itself (the device
# is going away under fio's I/O), dm-multipath fails the path over to
# rxe0 and fio ends with 0 errors and every block verified. Afterwards the
# map has one path, the core's live objects are rxe0's alone, and
# everything flushes, logs out and unloads with a clean kernel log.
# vm-timeout: 420
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$SRPT_ROOT/tests/vm/lib.sh"
# shellcheck source-path=SCRIPTDIR source=initiator.sh
. "$SRPT_ROOT/tests/vm/initiator.sh"

port=5555
map=mpatha
mpd_log=$SRPT_OUT/multipathd.log
fio_log=$SRPT_OUT/fio-failover.log


# mp_wait_disk DEV: mp_disk, once the disk appeared.
mp_wait_disk() {
	local i
	for ((i = 0; i < 150; i++)); do
		mp_disk "$1" && return 0
		sleep 0.1
	done
	fail "no SRP disk through $1 within 15s"
}


# mp_paths: the paths of the map as multipathd sees them, one
# "dev dm_state chk_state" line each.
mp_paths() {
	timeout "$SRPT_CMD_TIMEOUT" multipathd show paths format '%d %t %T %m' |
		awk -v m="$map" '$4 == m { print $1, $2, $3 }'
}

# mp_has_paths N: multipathd sees exactly N paths of the map, all active.
mp_has_paths() {
	local p
	p=$(mp_paths) || return 1
	[ "$(grep -c ' active ready$' <<<"$p")" = "$1" ] && [ "$(wc -l <<<"$p")" = "$1" ]
}

mpd_pid=
# On failure, the end of multipathd's log too.
_mp_exit() {
	local rc=$?
	if [ "$rc" != 0 ] && [ -s "$mpd_log" ]; then
		echo "multipathd's log ($mpd_log), last lines:"
		tail -n 40 "$mpd_log" | _indent
	fi
	(exit "$rc")
	_vm_exit
}
trap _mp_exit EXIT

# ---------------------------------------------------------------------------
# Two rxe devices; ib_srp before ib_srpt, so that the RDMA core (which
# removes a device from its clients in reverse order of registration)
# tells ib_srpt first: the target logs the rxe1 channel out itself while
# fio's commands are in flight on it.
# ---------------------------------------------------------------------------
tcli_start
setup_rxe rxe0 10.200.0.1/24 srpt0
setup_rxe rxe1 10.201.0.1/24 srpt1
expect_ok modprobe -a ib_srp dm_multipath dm_service_time scsi_dh_alua
load_srpt
load_scsi_initiator_bits
gid0=$(rxe_gid rxe0)
gid1=$(rxe_gid rxe1)
[ "$gid0" != "$gid1" ] || fail "rxe0 and rxe1 have the same GID $gid0"
expect_objects "devices 2 ports 2 target_ports 0 tpgs 0 nexuses 0 channels 0 commands 0 receive_buffers 0" 5

# udev and multipathd (the rxe devices exist already, nothing to
# trigger). LIO-ORG is in multipath's hardware table (ALUA, no_path_retry
# 12); queueing for a few seconds when no path is left is enough here.
mp_start 5 "$mpd_log"

# One backstore, two target ports, one ACL each for the initiator port id
# ib_srp presents through that port (initiator_ext = the GID's first half).
expect_ok tcli "/backstores/ramdisk create rd0 64M" \
	"/srpt create ib.$gid0" "/srpt create ib.$gid1" \
	"/srpt/ib.$gid0/luns create /backstores/ramdisk/rd0" \
	"/srpt/ib.$gid1/luns create /backstores/ramdisk/rd0" \
	"/srpt/ib.$gid0/acls create ib.$gid0" \
	"/srpt/ib.$gid1/acls create ib.$gid1"
expect_attr_set "$SRPT_CFS/discovery_auth/rdma_cm_port" "$port"
expect_dmesg "ib_srpt: RDMA/CM: listening for logins on port $port"

srp_login rxe0 "$gid0" 10.200.0.1 "$port"
srp_login rxe1 "$gid1" 10.201.0.1 "$port"
expect_dmesg "ib_srpt: rxe0 port 1: 10\\.200\\.0\\.1.* logged in to 0x$gid0"
expect_dmesg "ib_srpt: rxe1 port 1: 10\\.201\\.0\\.1.* logged in to 0x$gid1"
disk0=$(mp_wait_disk rxe0)
disk1=$(mp_wait_disk rxe1)
[ "$disk0" != "$disk1" ] || fail "one disk $disk0 for both logins"
pass "SCSI disks: $disk0 through rxe0, $disk1 through rxe1"
# The same LUN behind both: one WWID.
wwid0=$(timeout "$SRPT_CMD_TIMEOUT" /lib/udev/scsi_id -g -u -d "/dev/$disk0")
wwid1=$(timeout "$SRPT_CMD_TIMEOUT" /lib/udev/scsi_id -g -u -d "/dev/$disk1")
[ -n "$wwid0" ] || fail "no WWID for $disk0"
[ "$wwid0" = "$wwid1" ] || fail "WWIDs differ: $disk0 '$wwid0', $disk1 '$wwid1'"
pass "both disks have the WWID $wwid0"
# Fail over in seconds, not after ib_srp's default 15 s. No reconnect:
# the path is meant to stay gone, and 5.10's ib_srp, reconnecting through
# a device being removed, oopses in srp_destroy_qp (a completion without a
# handler, ch->lock held) and wedges the initiator's CPU.
srp_rport_tmo off 2
channels=$(srpt_object channels)
if [ "$channels" -lt 2 ] || [ $((channels % 2)) != 0 ]; then
	fail "the core counts $channels channels for two logins"
fi
per_path=$((channels / 2))

# multipathd assembles one map with both disks as active paths.
wait_for 60 "multipathd has $map with 2 active paths" mp_has_paths 2
expect_ok multipath -ll
expect_output "^$map \\($wwid0\\) dm-[0-9]+ LIO-ORG"
expect_output "[0-9:]+ $disk0 [0-9]+:[0-9]+ +active ready running"
expect_output "[0-9:]+ $disk1 [0-9]+:[0-9]+ +active ready running"
[ "$(grep -c '^mpath' <<<"$VM_LAST_OUTPUT")" = 1 ] || fail "not one map"
printf '%s\n' "$VM_LAST_OUTPUT" | _indent
wait_for 15 "/dev/mapper/$map exists" test -b "/dev/mapper/$map"

# ---------------------------------------------------------------------------
# Failover under I/O.
# ---------------------------------------------------------------------------
devno1=$(<"/sys/block/$disk1/dev")
base_w0=$(disk_writes "$disk0")
base_w1=$(disk_writes "$disk1")
# Random writes of 4 KiB to 256 KiB at QD 16 over 48 MiB (~380 writes),
# then every block read back and checked; verify_fatal: the first bad
# block ends it.
timeout -k 5 240 fio --name=failover --filename="/dev/mapper/$map" --direct=1 \
	--ioengine=libaio --rw=randwrite --bsrange=4k-256k --iodepth=16 --size=48m \
	--verify=crc32c --verify_fatal=1 --do_verify=1 --randrepeat=0 \
	--output-format=terse >"$fio_log" 2>&1 &
fio_pid=$!
# Both paths carry writes before one goes, early in the write phase.
both_busy() {
	[ $(($(disk_writes "$disk0") - base_w0)) -ge 30 ] &&
		[ $(($(disk_writes "$disk1") - base_w1)) -ge 30 ]
}
wait_for 60 "fio's writes go through both paths" both_busy
kill -0 "$fio_pid" 2>/dev/null || fail "fio ended before the path went"
del_w0=$(disk_writes "$disk0")
log "writes so far: $disk0 $((del_w0 - base_w0)), $disk1 $(($(disk_writes "$disk1") - base_w1)); live objects: $(srpt_objects)"

klog_mark
t0=${EPOCHREALTIME/./}
rdma_link_delete rxe1
t1=${EPOCHREALTIME/./}
log "rdma link delete rxe1 took $(((t1 - t0) / 1000)) ms"
kill -0 "$fio_pid" 2>/dev/null || fail "fio ended before the path removal did; make it longer"
expect_klog "ib_srpt: rxe1 port 1: logging out 10\\.201\\.0\\.1.*: the RDMA device is going away\$"
expect_klog "ib_srpt: rxe1 port 1: 10\\.201\\.0\\.1.* logged out\$"
expect_klog 'ib_srpt: rxe1: removed$'
expect_no_klog 'ib_srpt: .*still waiting'

rc=0
wait "$fio_pid" || rc=$?
VM_LAST_OUTPUT=$(<"$fio_log")
if [ "$rc" != 0 ]; then
	printf '%s\n' "$VM_LAST_OUTPUT" | _indent
	fail "fio through /dev/mapper/$map failed (exit status $rc)"
fi
fio_summary
errors=$(awk -F';' '$1 == 3 { print $5 }' <<<"$VM_LAST_OUTPUT")
[ "$errors" = 0 ] || fail "fio reports error '$errors'"
pass "fio wrote and verified 48 MiB through $map across the failover, 0 errors"
after=$(($(disk_writes "$disk0") - del_w0))
[ "$after" -gt 0 ] || fail "no writes went through $disk0 after rxe1 went"
pass "the writes went on through $disk0 (rxe0) after rxe1 went: $after more"
# The I/O errors are the removed path's alone: dm-multipath retried them
# elsewhere.
expect_no_klog "I/O error, dev (dm-|$disk0)|Buffer I/O error"

# The map lost the path; the core has rxe0's objects and rxe1's orphaned
# (detached) target port, which targetcli then deletes. dm-multipath
# fails the path itself when a command on it fails; when every command
# on it had completed before the device went (a fast host can manage),
# multipathd takes it out of the map on the disk's removal instead.
wait_for 30 "multipathd has $map with 1 path" mp_has_paths 1
if klog_has "device-mapper: multipath: [0-9]+:[0-9]+: Failing path $devno1\\.\$"; then
	log "dm-multipath failed the path $devno1 on its commands' errors"
else
	log "no command of the path $devno1 failed: multipathd removed it with the disk"
fi
expect_ok multipath -ll
printf '%s\n' "$VM_LAST_OUTPUT" | _indent
expect_output "$disk0 [0-9]+:[0-9]+ +active ready running"
[[ $VM_LAST_OUTPUT != *" $disk1 "* ]] || fail "multipath -ll still shows $disk1"
expect_live 'devices 1' 'ports 2' 'target_ports 2' 'tpgs 2' 'nexuses 1' "channels $per_path"
klog_mark
expect_ok tcli "/srpt delete ib.$gid1"
expect_klog "ib_srpt: rxe1 port 1: removed target port 0x$gid1\$"
expect_live 'devices 1' 'ports 1' 'target_ports 1' 'tpgs 1' 'nexuses 1' "channels $per_path"
# The surviving path still serves: a short verified run.
expect_fio --name=after --filename="/dev/mapper/$map" --direct=1 --ioengine=libaio \
	--rw=randrw --bs=16k --iodepth=8 --size=4m --verify=crc32c --verify_fatal=1

# ---------------------------------------------------------------------------
# Cleanup.
# ---------------------------------------------------------------------------
# fio's close of the map has udev probe it (udev watches dm devices); a
# flush during that probe finds the map in use and fails. Flush once udev
# has settled, and again should the probe have begun after that. Should
# it never succeed, multipathd's log (shown on failure) says why.
flush_maps() {
	udevadm settle --timeout=$((10 * SRPT_VM_SLOWDOWN)) &&
		timeout "$SRPT_CMD_TIMEOUT" multipath -F
}
wait_for 15 "multipath -F flushed $map" flush_maps
wait_for 15 "/dev/mapper/$map is gone" sh -c "! test -e /dev/mapper/$map"
# SIGTERM, not `multipathd shutdown`: that client may see the daemon go
# before it answers ("error -5 receiving packet") and fail.
kill -TERM "$mpd_pid"
wait_for 30 "multipathd exited on SIGTERM" sh -c "! kill -0 $mpd_pid"
klog_mark
srp_logout
# The remote port leaves sysfs before ib_srp disconnects: wait for the
# target's side.
wait_for 30 "ib_srpt logged the rxe0 path out" \
	klog_has "ib_srpt: rxe0 port 1: 10\\.200\\.0\\.1.* logged out\$"
expect_ok udevadm control --exit
expect_ok tcli "clearconfig confirm=True"
# No leak: what is left is rxe0's device and port, nothing else.
expect_objects "devices 1 ports 1 target_ports 0 tpgs 0 nexuses 0 channels 0 commands 0 receive_buffers 0"
unload_all
expect_ok unload_modules dm_service_time dm_multipath scsi_dh_alua
check_dmesg
