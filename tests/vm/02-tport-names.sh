#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Target port names: a LIO target port of an RDMA port is made with the
# GID form (targetcli's ib.<GID>, configfs 0x<GID>) and with the GUID form
# (configfs xxxx:xxxx:xxxx:xxxx, which targetcli does not know: its
# listing fails while one exists, and the module warns of it), in either
# case; each carries a LUN (ramdisk, fileio) that LIO files under the
# canonical lower-case name. A second target port of the same port and
# name form is refused (EEXIST), and so is every name that is not exactly
# one of the forms or names no port (EINVAL), leaving nothing behind. (The
# core's EEXIST reaches user space as EINVAL: LIO's mkdir maps every
# fabric_make_wwn error to EINVAL; the kernel log tells them apart.)
# vm-timeout: 400
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$SRPT_ROOT/tests/vm/lib.sh"

tcli_start
setup_rxe rxe0
load_srpt
gid=$(rxe_gid rxe0)
guid=$(guid_name "$gid")
GID=${gid^^}
GUID=${guid^^}
expect_dmesg "ib_srpt: rxe0 port 1: target port names $guid and 0x$gid \\(RoCE\\)"

# GID form with targetcli, a ramdisk LUN.
expect_ok tcli "/backstores/ramdisk create rd0 16M" \
	"/backstores/fileio create fio0 /tmp/srpt-vm-fio0.img 16M" \
	"/srpt create ib.$gid" \
	"/srpt/ib.$gid/luns create /backstores/ramdisk/rd0" \
	"ls /srpt/ib.$gid"
expect_output "lun0 \\.+ \\[ramdisk/rd0"
expect_dmesg "ib_srpt: rxe0 port 1: created target port 0x$gid\$"
expect_attr "$SRPT_CFS/0x$gid/tpgt_1/enable" 1
rd0=$(backstore rd0)
fio0=$(backstore fio0)
expect_ok grep -Fx "srpt/0x$gid/tpgt_1/lun_0" "$rd0/alua/default_tg_pt_gp/members"

# GUID form by hand, a fileio LUN, enabled; both forms of one port coexist.
expect_ok mkdir "$SRPT_CFS/$guid"
expect_dmesg "ib_srpt: rxe0 port 1: created target port $guid\$"
# rtslib reads only the GID form: while this one exists, targetcli's
# listing fails, as the module's warning says.
expect_dmesg "ib_srpt: target port $guid: targetcli and rtslib cannot read this name"
expect_fail targetcli ls /srpt
expect_output "WWN not valid"
expect_ok mkdir "$SRPT_CFS/$guid/tpgt_1"
expect_ok cfs_add_lun "$SRPT_CFS/$guid/tpgt_1" 0 "$fio0"
expect_ok grep -Fx "srpt/$guid/tpgt_1/lun_0" "$fio0/alua/default_tg_pt_gp/members"
expect_attr "$SRPT_CFS/$guid/tpgt_1/enable" 0
expect_attr_set "$SRPT_CFS/$guid/tpgt_1/enable" 1
expect_dmesg "ib_srpt: rxe0 port 1: target port $guid enabled"
expect_live 'devices 1' 'ports 1' 'target_ports 2' 'tpgs 2'

# A second target port of the same port and form, whatever the spelling
# (configfs itself refuses the very same name).
expect_tport_taken "0x$GID"
expect_klog "ib_srpt: rxe0 port 1: target port 0x$gid already exists\$"
expect_tport_taken "0X$gid"
expect_tport_taken "$GUID"
expect_klog "ib_srpt: rxe0 port 1: target port $guid already exists\$"
expect_fail mkdir "$SRPT_CFS/$guid"
expect_output 'File exists'

# Not a port name: non-hex, wrong group sizes, odd length, too long,
# wrong prefix; or the name of no port.
klog_mark
expect_mkdir_refused 'Invalid argument' "$SRPT_CFS/0x${gid:0:31}g"
expect_mkdir_refused 'Invalid argument' "$SRPT_CFS/${guid:0:18}g"
expect_mkdir_refused 'Invalid argument' "$SRPT_CFS/${guid:1:3}:${guid:5:14}0"
expect_mkdir_refused 'Invalid argument' "$SRPT_CFS/${guid:0:4}${guid:5:14}"
expect_mkdir_refused 'Invalid argument' "$SRPT_CFS/${guid:1:3}:${guid:6:3}:${guid:11:3}:${guid:16:3}"
expect_mkdir_refused 'Invalid argument' "$SRPT_CFS/$guid:0000"
expect_mkdir_refused 'Invalid argument' "$SRPT_CFS/0x${gid:0:31}"
expect_mkdir_refused 'Invalid argument' "$SRPT_CFS/0x${gid}0"
expect_mkdir_refused 'Invalid argument' "$SRPT_CFS/0x${gid}00"
expect_mkdir_refused 'Invalid argument' "$SRPT_CFS/0x$gid$gid"
expect_mkdir_refused 'Invalid argument' "$SRPT_CFS/$gid"
expect_mkdir_refused 'Invalid argument' "$SRPT_CFS/ib.$gid"
expect_mkdir_refused 'Invalid argument' "$SRPT_CFS/1x$gid"
expect_mkdir_refused 'Invalid argument' "$SRPT_CFS/ 0x$gid"
expect_mkdir_refused 'Invalid argument' "$SRPT_CFS/fe80::${guid:0:4}"
expect_mkdir_refused 'Invalid argument' "$SRPT_CFS/foo"
expect_mkdir_refused 'Invalid argument' "$SRPT_CFS/0xfe800001000000000000000000000001"
expect_mkdir_refused 'Invalid argument' "$SRPT_CFS/0xfe800001${gid:8:24}"
expect_mkdir_refused 'Invalid argument' "$SRPT_CFS/0000:0000:0000:0001"
expect_klog "ib_srpt: no RDMA port is named 'foo' \\(expected xxxx:xxxx:xxxx:xxxx or 0x followed by 32 hex digits\\)"
expect_klog "ib_srpt: no RDMA port is named '0xfe800001${gid:8:24}'"
expect_no_klog 'ib_srpt: .*(created|removed) target port'
expect_live 'target_ports 2' 'tpgs 2'

# Upper-case names: accepted; LIO sees the canonical lower-case names.
expect_ok cfs_drop_tport "$guid"
expect_dmesg "ib_srpt: rxe0 port 1: removed target port $guid\$"
expect_ok tcli "/srpt delete ib.$gid"
expect_dmesg "ib_srpt: rxe0 port 1: removed target port 0x$gid\$"
expect_live 'target_ports 0' 'tpgs 0'
klog_mark
expect_ok mkdir "$SRPT_CFS/0x$GID"
expect_klog "ib_srpt: rxe0 port 1: created target port 0x$gid\$"
expect_ok mkdir "$SRPT_CFS/0x$GID/tpgt_1"
expect_ok cfs_add_lun "$SRPT_CFS/0x$GID/tpgt_1" 0 "$rd0"
expect_ok grep -Fx "srpt/0x$gid/tpgt_1/lun_0" "$rd0/alua/default_tg_pt_gp/members"
expect_attr_set "$SRPT_CFS/0x$GID/tpgt_1/enable" 1
expect_ok mkdir "$SRPT_CFS/$GUID"
expect_klog "ib_srpt: rxe0 port 1: created target port $guid\$"
expect_ok mkdir "$SRPT_CFS/$GUID/tpgt_1"
expect_ok cfs_add_lun "$SRPT_CFS/$GUID/tpgt_1" 0 "$fio0"
expect_ok grep -Fx "srpt/$guid/tpgt_1/lun_0" "$fio0/alua/default_tg_pt_gp/members"
expect_tport_taken "0x$gid"
expect_tport_taken "$guid"
expect_live 'target_ports 2' 'tpgs 2'
expect_ok cfs_drop_tport "0x$GID"
expect_ok cfs_drop_tport "$GUID"
expect_live 'devices 1' 'ports 1' 'target_ports 0' 'tpgs 0'
expect_ok targetcli ls /srpt

unload_all
rm -f /tmp/srpt-vm-fio0.img
check_dmesg
