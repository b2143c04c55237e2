#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# A configuration survives a reboot, as the administrator sets it up:
# the module installed (32-saveconfig-reboot.host, `make install`), the
# RDMA/CM port in /etc/modprobe.d (rdma_cm_port: rtslib's saveconfig does
# not keep discovery_auth/rdma_cm_port), a fileio LUN, a GID-named target
# port with an ACL and a non-default TPG attribute made with targetcli,
# `targetcli saveconfig`, data written and verified by fio.
# Then the guest boots again (vm-boots: 2; only $SRPT_OUT/persist, the
# "disk", survives: /etc is fresh), the saved files go back to /etc,
# rxe0 comes back with the same MAC and so the same GID, and
# `targetctl restore` (what rtslib-fb-targetctl.service runs at boot)
# loads our module with the RDMA/CM listener on and brings back the LUN,
# target port, ACL and attribute: ib_srp logs in with no other step, fio
# verifies the data the first boot wrote, and writes and verifies anew.
# vm-boots: 2
# vm-timeout: 500
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$SRPT_ROOT/tests/vm/lib.sh"
# shellcheck source-path=SCRIPTDIR source=initiator.sh
. "$SRPT_ROOT/tests/vm/initiator.sh"

port=5555
mac=52:54:00:5a:72:70
persist=$SRPT_OUT/persist
conf=/etc/modprobe.d/ib_srpt.conf
# Debian's targetcli-fb and targetctl keep it here.
saved=/etc/rtslib-fb-target/saveconfig.json
kver=$(uname -r)
stage=$SRPT_ROOT/build/install-vm/$kver/lib/modules/$kver

expect_ok test -e "$stage/modules.dep"
expect_ok mount --bind "$stage" "/lib/modules/$kver"
# modprobe (the kernel's, for configfs, and rtslib's) finds ours in updates/.
allow_intree_srpt
lio_db_root
if [ "$SRPT_VM_BOOT" = 1 ]; then
	mkdir -p "$persist"
	echo "options ib_srpt rdma_cm_port=$port" >"$conf"
	# targetcli loads meanwhile.
	tcli_start
fi
setup_rxe rxe0 10.200.0.1/24 srpt0 "$mac"
gid=$(rxe_gid rxe0)
load_scsi_initiator_bits
tpg=$(srpt_tpg "$gid")

# The data job: 16 MiB in 64 KiB blocks, each with a crc32c header.
fio_job=(--name=persist --direct=1 --ioengine=libaio --rw=write --bs=64k
	--size=16m --iodepth=8 --verify=crc32c --verify_fatal=1)

# expect_ours_listening: the module modprobe loaded is ours, with the
# listener its parameter asks for.
expect_ours_listening() {
	local taint
	wait_for 30 "ib_srpt loaded" test -e /sys/module/ib_srpt/refcnt
	taint=$(</sys/module/ib_srpt/taint)
	[[ $taint == *O* ]] || fail "the ib_srpt modprobe loaded is not ours (taint '$taint')"
	pass "modprobe loaded ours (taint $taint)"
	expect_attr /sys/module/ib_srpt/parameters/rdma_cm_port "$port"
	expect_attr "$SRPT_CFS/discovery_auth/rdma_cm_port" "$port"
	expect_dmesg "ib_srpt: RDMA/CM: listening for logins on port $port\$"
}

if [ "$SRPT_VM_BOOT" = 1 ]; then
	# targetcli's first use of /srpt makes the kernel load the fabric.
	expect_ok tcli "/backstores/fileio create lun0 $persist/lun0.img 16M" \
		"/srpt create ib.$gid" \
		"/srpt/ib.$gid/luns create /backstores/fileio/lun0" \
		"/srpt/ib.$gid/acls create ib.$gid"
	expect_ours_listening
	expect_attr_set "$tpg/attrib/srp_sq_size" 1024
	expect_ok tcli saveconfig
	expect_ok grep -q '"fabric": "srpt"' "$saved"
	expect_ok grep -q '"srp_sq_size": 1024' "$saved"
	if grep -q rdma_cm_port "$saved"; then
		log "note: this rtslib saves rdma_cm_port"
	else
		pass "saveconfig.json has no rdma_cm_port: the module parameter carries it"
	fi

	srp_login rxe0 "$gid" 10.200.0.1 "$port"
	expect_fio --filename="/dev/$(srp_disk)" "${fio_job[@]}"
	srp_logout
	expect_ok cp "$saved" "$conf" "$persist/"
	echo "$gid" >"$persist/gid"
	unload_all
	expect_ok umount "/lib/modules/$kver"
	check_dmesg
	exit 0
fi

# The second boot: nothing of the first but what persist holds.
if [ -e "$conf" ] || [ -e "$saved" ]; then
	fail "/etc kept files across the reboot"
fi
[ "$(<"$persist/gid")" = "$gid" ] || fail "rxe0's GID changed across the reboot: $(<"$persist/gid") -> $gid"
pass "rxe0 has the GID of the first boot"
expect_ok cp "$persist/ib_srpt.conf" "$conf"
expect_ok mkdir -p "${saved%/*}"
expect_ok cp "$persist/saveconfig.json" "$saved"
expect_ok targetctl restore
expect_ours_listening
expect_attr "$tpg/enable" 1
expect_attr "$tpg/attrib/srp_sq_size" 1024
expect_ok test -d "$tpg/acls/0x$gid"
expect_ok tcli "ls /srpt/ib.$gid/luns"
expect_output "lun0 \\.+ \\[fileio/lun0 \\($(ere_quote "$persist")/lun0\\.img\\)"
pass "target port, LUN, ACL and attribute restored"

srp_login rxe0 "$gid" 10.200.0.1 "$port"
disk=$(srp_disk)
expect_fio --filename="/dev/$disk" "${fio_job[@]}" --verify_only=1
pass "the data the first boot wrote is there"
expect_fio --filename="/dev/$disk" "${fio_job[@]}"
expect_ok tcli sessions
expect_output "^alias: 0x$gid"$'\t'"sid: [0-9]+ type: Normal session-state: LOGGED_IN\$"
srp_logout
expect_ok targetctl clear
unload_all
expect_ok umount "/lib/modules/$kver"
check_dmesg
