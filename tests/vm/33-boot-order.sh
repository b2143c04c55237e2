#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Boot ordering: rtslib-fb-targetctl.service restores the saved
# configuration at boot before the RDMA device exists, and srpt-tools'
# drop-in makes it wait. The module is installed as in 32 (`make install`,
# 33-boot-order.host), srpt-tools is installed with dpkg (`make deb`'s
# package: srpt-wait-ports, the drop-in, /etc/default/srpt-tools) into a
# writable overlay of /usr. A configuration made with targetcli (fileio
# LUN, GID-named target port, ACL, RDMA/CM port in /etc/modprobe.d) is
# saved and written to through ib_srp; then everything is unloaded, as
# at power-on, and what systemd runs to start the unit (read from the
# installed unit and drop-in: EnvironmentFile, ExecStartPre, ExecStart)
# starts in the background before the RDMA device exists. The device
# comes 6 s later: the wait must still be running then, say it found the
# port, the restore must follow and create the target port, and ib_srp
# reads the data back with fio verify. Then the device never comes (a
# 5 s limit in /etc/default/srpt-tools): the wait times out naming the
# port, exits 0, and the restore still brings the backstore back while
# it skips the target port.
# vm-timeout: 600
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$SRPT_ROOT/tests/vm/lib.sh"
# shellcheck source-path=SCRIPTDIR source=initiator.sh
. "$SRPT_ROOT/tests/vm/initiator.sh"

port=5555
mac=52:54:00:5a:72:71
unit=rtslib-fb-targetctl.service
saved=/etc/rtslib-fb-target/saveconfig.json
kver=$(uname -r)
stage=$SRPT_ROOT/build/install-vm/$kver/lib/modules/$kver
ver=$(sed -n 's/^#define SRPT_VERSION "\(.*\)"/\1/p' "$SRPT_ROOT/include/srpt/version.h")
tools=$SRPT_ROOT/build/deb/srpt-tools_${ver}_all.deb
lun=/root/lun0.img

# srpt-tools, as the package installs it; then the staged module over the
# overlay's /lib/modules/<release>.
expect_ok test -e "$tools"
dir_overlay /usr /run/srpt-usr
dpkg_quiet
expect_ok dpkg -i "$tools"
expect_ok test -x /usr/sbin/srpt-wait-ports
expect_ok test -f "/lib/systemd/system/$unit.d/srpt-tools.conf"
expect_ok test -f "/lib/systemd/system/$unit"
expect_ok test -e "$stage/modules.dep"
expect_ok mount --bind "$stage" "/lib/modules/$kver"
allow_intree_srpt
lio_db_root
echo "options ib_srpt rdma_cm_port=$port" >/etc/modprobe.d/ib_srpt.conf
tcli_start
setup_rxe rxe0 10.200.0.1/24 srpt0 "$mac"
gid=$(rxe_gid rxe0)
load_scsi_initiator_bits
tpg=$(srpt_tpg "$gid")
fio_job=(--name=bootorder --direct=1 --ioengine=libaio --rw=write --bs=64k
	--size=16m --iodepth=8 --verify=crc32c --verify_fatal=1)

expect_ok tcli "/backstores/fileio create lun0 $lun 16M" \
	"/srpt create ib.$gid" \
	"/srpt/ib.$gid/luns create /backstores/fileio/lun0" \
	"/srpt/ib.$gid/acls create ib.$gid" \
	saveconfig
expect_ok grep -q "\"wwn\": \"ib.$gid\"" "$saved"
srp_login rxe0 "$gid" 10.200.0.1 "$port"
expect_fio --filename="/dev/$(srp_disk)" "${fio_job[@]}"
srp_logout

# power_off: what a reboot leaves: no module of the target or RDMA
# loaded, no rxe device (the saved files and the LUN's file stay).
power_off() {
	tcli_stop
	unload_all
	expect_ok test ! -e /sys/class/infiniband/rxe0
}
power_off

# --- The device comes after the restore started -----------------------
log "starting $unit's commands with no RDMA device"
unit_log=/tmp/unit.log
# There before the job writes it: file_has on a missing file ends the
# scenario (its $(<file) fails in the shell itself, under the ERR trap).
: >"$unit_log"
t0=$SECONDS
unit_start "$unit" >"$unit_log" 2>&1 &
unit_pid=$!
wait_for 30 "srpt-wait-ports is waiting" file_has "$unit_log" "ib.$gid: waiting up to 60s"
sleep 6
kill -0 "$unit_pid" 2>/dev/null || { _indent <"$unit_log"; fail "the unit's start ended without the device"; }
file_has "$unit_log" "targetctl" && { _indent <"$unit_log"; fail "targetctl ran before the device came"; }
pass "still waiting after 6 s, targetctl not started"
setup_rxe rxe0 10.200.0.1/24 srpt0 "$mac"
[ "$(rxe_gid rxe0)" = "$gid" ] || fail "rxe0 came back with another GID"
rc=0
timeout -k 5 120 tail --pid="$unit_pid" -f /dev/null || rc=$?
[ "$rc" = 0 ] || fail "the unit's start did not end within 120 s of the device"
wait "$unit_pid" || rc=$?
_indent <"$unit_log"
[ "$rc" = 0 ] || fail "the unit's start failed (exit status $rc)"
log "the unit's start took $((SECONDS - t0)) s"
VM_LAST_OUTPUT=$(<"$unit_log")
expect_output "^srpt-wait-ports: ib\\.$gid: rxe0 port 1 appeared after [0-9.]+s\$"
expect_output "^srpt-wait-ports: every srpt target port's RDMA port is there"
expect_output "^unit: /usr/bin/targetctl restore\$"
grep -q 'skipped\|exit status' "$unit_log" && fail "the restore skipped something or a command failed"
pass "the restore ran after the wait and skipped nothing"
expect_attr /sys/module/ib_srpt/parameters/rdma_cm_port "$port"
expect_attr "$tpg/enable" 1
expect_ok test -d "$tpg/acls/0x$gid"
expect_ok test -d "$tpg/lun/lun_0"
srp_login rxe0 "$gid" 10.200.0.1 "$port"
disk=$(srp_disk)
expect_fio --filename="/dev/$disk" "${fio_job[@]}" --verify_only=1
pass "the data written before the power-off reads back through the restored target"
expect_fio --filename="/dev/$disk" "${fio_job[@]}"
srp_logout
power_off

# --- The device never comes ------------------------------------------
echo SRPT_WAIT_PORTS_TIMEOUT=5 >>/etc/default/srpt-tools
log "starting $unit's commands; no RDMA device will come"
t0=$SECONDS
expect_ok unit_start "$unit"
secs=$((SECONDS - t0))
_indent <<<"$VM_LAST_OUTPUT"
expect_output "^srpt-wait-ports: ib\\.$gid: waiting up to 5s for the RDMA port with GID "
expect_output "^srpt-wait-ports: timed out after 5s; no RDMA port for ib\\.$gid \\(GID [0-9a-f:]+\\): targetctl restore will skip it\$"
expect_output "^unit: /usr/bin/targetctl restore\$"
expect_output "skipped"
grep -q 'exit status' <<<"$VM_LAST_OUTPUT" && fail "a command of the unit failed"
[ "$secs" -ge 5 ] || fail "the start took ${secs}s: it did not wait"
pass "waited ${secs}s, then restored without the port"
expect_ok test ! -e "$SRPT_CFS/0x$gid"
expect_ok sh -c "ls -d /sys/kernel/config/target/core/fileio_*/lun0"
pass "the backstore lun0 is restored, the target port skipped"
expect_ok targetctl clear
unload_all
expect_ok umount "/lib/modules/$kver"
check_dmesg
