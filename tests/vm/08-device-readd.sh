#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# A device comes back: after `rdma link delete rxe0` has orphaned a
# target port (with a LUN and an ACL), a new rxe device on the same netdev
# brings a new port with the same names. The orphan stays bound to the
# old, detached port (its TPG enables with a warning only); the new port gets
# a target port of its own, by the GUID form (the GID form's configfs
# name is still the orphan's), and serves a login whose ACL is the
# initiator's IPv4 address. Removing both and unloading stay clean.
# vm-timeout: 400
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$SRPT_ROOT/tests/vm/lib.sh"
# shellcheck source-path=SCRIPTDIR source=initiator.sh
. "$SRPT_ROOT/tests/vm/initiator.sh"

srp_loopback
guid=$(guid_name "$gid")
t=$SRPT_CFS/0x$gid/tpgt_1

srpt_serve "$gid" 5555 16M
expect_attr_set "$t/attrib/srp_sq_size" 256

klog_mark
expect_ok rdma link delete rxe0
expect_klog 'ib_srpt: rxe0: removed$'
expect_live 'devices 0' 'ports 1' 'target_ports 1'

# The same netdev, a new device: the same GID, a new port.
klog_mark
readd_rxe "$gid"
expect_klog "ib_srpt: rxe0 port 1: target port names $guid and 0x$gid \\(RoCE\\)\$"
expect_klog 'ib_srpt: rxe0: added, 1 port'
expect_live 'devices 1' 'ports 2' 'target_ports 1' 'tpgs 1'
# The orphan keeps its own, detached port and settings.
expect_attr "$t/enable" 1
expect_attr_set "$t/enable" 0
expect_attr_set "$t/enable" 1
expect_klog "ib_srpt: rxe0 port 1: 0x$gid enabled, but its RDMA device is gone: no initiator can log in to it\$"
expect_attr "$t/attrib/srp_sq_size" 256

# The new port by its GUID-form name: LUN, the initiator's IPv4 address
# as ACL (what a GUID-form target port matches RDMA/CM logins by).
g=$SRPT_CFS/$guid/tpgt_1
expect_ok mkdir "$SRPT_CFS/$guid"
expect_klog "ib_srpt: rxe0 port 1: created target port $guid\$"
expect_ok mkdir "$g"
expect_attr "$g/attrib/srp_sq_size" 4096
expect_ok cfs_add_lun "$g" 0 "$(backstore rd0)"
expect_ok mkdir "$g/acls/10.200.0.1"
expect_ok mkdir "$g/acls/10.200.0.1/lun_0"
expect_ok ln -s "$g/lun/lun_0" "$g/acls/10.200.0.1/lun_0/srpt_vm_lun"
expect_attr_set "$g/enable" 1
expect_klog "ib_srpt: rxe0 port 1: target port $guid enabled\$"
expect_live 'devices 1' 'ports 2' 'target_ports 2' 'tpgs 2'

srp_login rxe0 "$gid" 10.200.0.1 5555
expect_klog "ib_srpt: rxe0 port 1: 10\\.200\\.0\\.1.* logged in to $guid"
disk=$(srp_disk)
expect_ok sg_readcap "/dev/$disk"
expect_output 'Last LBA=32767'
expect_ok dd if=/dev/zero of="/dev/$disk" bs=64k count=32 oflag=direct
expect_ok dd if="/dev/$disk" of=/dev/null bs=64k count=32 iflag=direct
srp_logout
expect_klog "ib_srpt: rxe0 port 1: 10\\.200\\.0\\.1.* logged out"

# Both go by hand: targetcli cannot parse the GUID form.
klog_mark
expect_ok cfs_drop_tport "$guid"
expect_ok cfs_drop_tport "0x$gid"
expect_klog "ib_srpt: rxe0 port 1: removed target port 0x$gid\$"
expect_live 'devices 1' 'ports 1' 'target_ports 0' 'tpgs 0' 'channels 0'
unload_all
check_dmesg
