#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Device removal under a configured, logged-in target port: `rdma link
# delete rxe0` while the target port has a LUN and an ACL and the in-tree
# SRP initiator is logged in. ib_srpt logs the initiator out itself and
# lets the device go; the orphaned target port stays in configfs, its
# attributes still read and write, and its TPG can be disabled and enabled
# again (targetcli enables every TPG it shows) with a warning that nobody
# can log in. Then `targetcli clearconfig` and `rmmod ib_srpt` succeed,
# the core leaks no object, and the kernel log has no warning.
# vm-timeout: 400
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$SRPT_ROOT/tests/vm/lib.sh"
# shellcheck source-path=SCRIPTDIR source=initiator.sh
. "$SRPT_ROOT/tests/vm/initiator.sh"

tcli_start
setup_rxe rxe0 10.200.0.1/24
# ib_srp before ib_srpt: the RDMA core removes a device from its clients
# in reverse order of registration, so ib_srpt sees the removal while the
# initiator is still logged in and must log it out itself.
expect_ok modprobe ib_srp
load_srpt
load_scsi_initiator_bits
gid=$(rxe_gid rxe0)
guid=$(guid_name "$gid")
t=$SRPT_CFS/0x$gid/tpgt_1

srpt_serve "$gid" 5555 16M
srp_login rxe0 "$gid" 10.200.0.1 5555
expect_dmesg "ib_srpt: rxe0 port 1: 10\\.200\\.0\\.1.* logged in to 0x$gid"
disk=$(srp_disk)
expect_ok sg_readcap "/dev/$disk"
expect_output 'Last LBA=32767'
expect_live 'devices 1' 'ports 1' 'target_ports 1' 'tpgs 1'

# The device goes while the initiator is logged in.
klog_mark
expect_ok rdma link delete rxe0
expect_klog "ib_srpt: rxe0 port 1: logging out 10\\.200\\.0\\.1.*: the RDMA device is going away\$"
expect_klog "ib_srpt: rxe0 port 1: 10\\.200\\.0\\.1.* logged out\$"
expect_klog 'ib_srpt: rxe0: removed$'
expect_no_klog 'ib_srpt: .*still waiting'
wait_for 30 "the initiator's SRP remote port is gone" sh -c '! ls /sys/class/srp_remote_ports/* >/dev/null 2>&1'
expect_fail test -e /sys/class/infiniband/rxe0
# The port stays, detached, as long as its target port does.
expect_live 'devices 0' 'ports 1' 'target_ports 1' 'tpgs 1' 'channels 0' 'commands 0' 'receive_buffers 0'

# The orphan: attributes read and write; the TPG goes off but not on again.
expect_attr "$t/attrib/srp_max_rdma_size" 65536
expect_attr "$t/attrib/srp_max_rsp_size" 256
expect_attr "$t/attrib/srp_sq_size" 4096
expect_attr "$t/attrib/use_srq" 0
expect_attr_set "$t/attrib/srp_sq_size" 128
expect_attr_refused "$t/attrib/srp_sq_size" 3
expect_attr_set "$t/attrib/use_srq" 1
expect_attr_set "$t/attrib/use_srq" 0
expect_attr "$t/enable" 1
expect_attr_set "$t/enable" 0
expect_klog "ib_srpt: rxe0 port 1: target port 0x$gid disabled\$"
expect_attr_set "$t/enable" 1
expect_klog "ib_srpt: rxe0 port 1: 0x$gid enabled, but its RDMA device is gone: no initiator can log in to it\$"
expect_ok test -d "$t/acls/0x$gid/lun_0"
# Its names no longer name a port.
klog_mark
expect_mkdir_refused 'Invalid argument' "$SRPT_CFS/$guid"
expect_klog "ib_srpt: no RDMA port is named '$guid'"

# targetcli clears the orphan; the port goes with it; ib_srpt unloads.
klog_mark
expect_ok tcli "clearconfig confirm=True"
expect_klog "ib_srpt: rxe0 port 1: removed target port 0x$gid\$"
expect_live 'devices 0' 'ports 0' 'target_ports 0' 'tpgs 0' 'channels 0'
expect_ok rmdir "$SRPT_CFS"
expect_ok rmmod ib_srpt
expect_klog 'ib_srpt: SRP target unloaded$'
unload_all
check_dmesg
