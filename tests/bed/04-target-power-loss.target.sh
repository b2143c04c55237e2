#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Two hosts, the target loses power mid-write and boots again
# (04-target-power-loss.host): the target's side. Boot 1 sets the server
# up as an administrator would: the module installed (make install), the
# RDMA/CM port in /etc/modprobe.d, a fileio LUN with write-back caching
# on its own file system (vda) and a block LUN (vdb), a target port and
# an ACL made with targetcli, `targetcli saveconfig` onto vda; then it
# serves until the power goes. Boot 2 finds only the disks: the saved
# files go back to /etc, the links come up with the same MACs (and so
# GIDs), and `targetctl restore` (what rtslib-fb-targetctl runs at boot)
# brings back the module with its RDMA/CM listener, both LUNs, the target
# port and the ACL; ib_srp reconnects by itself. At the end no channel
# and no command is left.
# vm-timeout: 600
# vm-smp: 1
# vm-mem: 2048
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$SRPT_ROOT/tests/bed/lib.sh"

kver=$(uname -r)
stage=$SRPT_ROOT/build/install-vm/$kver/lib/modules/$kver
disk=/run/srpt-disk
saved=/etc/rtslib-fb-target
conf=/etc/modprobe.d/ib_srpt.conf

expect_ok test -e "$stage/modules.dep"
expect_ok mount --bind "$stage" "/lib/modules/$kver"
allow_intree_srpt
lio_db_root
mkdir -p "$disk" "$saved"
timeout "$SRPT_CMD_TIMEOUT" modprobe -a virtio_blk ext4
wait_for 10 "the disks" test -b /dev/vdb
if [ "$SRPT_BED_BOOT" = 1 ]; then
	expect_ok mkfs.ext4 -q -F /dev/vda
	expect_ok mount /dev/vda "$disk"
	mkdir -p "$disk/rtslib"
	echo "options ib_srpt rdma_cm_port=$BED_PORT" >"$disk/ib_srpt.conf"
fi
[ "$SRPT_BED_BOOT" = 1 ] || expect_ok mount /dev/vda "$disk"
expect_ok mount --bind "$disk/rtslib" "$saved"
cp "$disk/ib_srpt.conf" "$conf"
tcli_start
bed_net

if [ "$SRPT_BED_BOOT" = 1 ]; then
	tgid=$(rxe_gid rxe0)
	igid=$(bed_get initiator-gid-0)
	expect_ok tcli "/backstores/fileio create fio0 $disk/fileio.img 128M write_back=true" \
		"/backstores/block create blk0 /dev/vdb" \
		"/srpt create ib.$tgid" \
		"/srpt/ib.$tgid/luns create /backstores/fileio/fio0" \
		"/srpt/ib.$tgid/luns create /backstores/block/blk0" \
		"/srpt/ib.$tgid/acls create ib.$igid" "saveconfig"
	[[ $(</sys/module/ib_srpt/taint) == *O* ]] || fail "targetcli loaded an ib_srpt that is not ours"
	expect_attr "/sys/module/ib_srpt/parameters/rdma_cm_port" "$BED_PORT"
	expect_ok test -s "$saved/saveconfig.json"
	expect_ok sync
	sg=$(</sys/module/ib_srpt/parameters/srpt_service_guid)
	bed_put served "${sg#0x}"
	# Serves until the host pulls the plug.
	bed_get never 600
	fail "still running"
fi

mark=$(dmesg_mark)
expect_ok targetctl restore
[[ $(</sys/module/ib_srpt/taint) == *O* ]] || fail "targetctl loaded an ib_srpt that is not ours"
tgid=$(rxe_gid rxe0)
expect_entries "$(srpt_tpg "$tgid")/lun" lun_0 lun_1
expect_entries "$(srpt_tpg "$tgid")/acls" "$(bed_get initiator-gid-0 | sed 's/^/0x/')"
expect_dmesg_since "$mark" "ib_srpt: RDMA/CM: listening for logins on port $BED_PORT"
bed_put target-restored
wait_dmesg_since 300 "$mark" "ib_srpt: rxe0 port 1: 10\\.201\\.0\\.2 logged in to 0x$tgid"
pass "ib_srp logged in again to the restored target"
bed_get initiator-done 400 >/dev/null
wait_for 30 "no channel left" _vm_no_channels
expect_ok test "$(srpt_object commands)" = 0
bed_target_end
