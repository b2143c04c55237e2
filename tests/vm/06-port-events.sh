#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Port events: the netdev under rxe0 going down and up again (port error,
# port active, GID changes) leaves the port working: no error in the
# kernel log, the target port names still resolve, and the in-tree SRP
# initiator logs in and reads the LUN afterwards. A new MAC address gives
# the port a new GID: the refresh that follows names the port anew, and
# lookups go by the new names.
# vm-timeout: 400
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$SRPT_ROOT/tests/vm/lib.sh"
# shellcheck source-path=SCRIPTDIR source=initiator.sh
. "$SRPT_ROOT/tests/vm/initiator.sh"

srp_loopback
guid=$(guid_name "$gid")

srpt_serve "$gid" 5555 16M

# Down: the port goes DOWN; its names still resolve (the cached GID).
klog_mark
expect_ok ip link set srpt0 down
wait_for 30 "rxe0 port 1 DOWN" port_state rxe0 DOWN
expect_ok mkdir "$SRPT_CFS/$guid"
expect_ok rmdir "$SRPT_CFS/$guid"
expect_mkdir_refused 'Invalid argument' "$SRPT_CFS/0x${gid^^}"
expect_klog "ib_srpt: rxe0 port 1: target port 0x$gid already exists\$"
# Up again: ACTIVE, and the refresh it triggers finds nothing wrong.
expect_ok ip link set srpt0 up
wait_for 30 "rxe0 port 1 ACTIVE" port_state rxe0 ACTIVE
expect_ok mkdir "$SRPT_CFS/$guid"
expect_klog "ib_srpt: rxe0 port 1: created target port $guid\$"
expect_ok rmdir "$SRPT_CFS/$guid"
expect_attr "$SRPT_CFS/0x$gid/tpgt_1/enable" 1
expect_no_klog 'ib_srpt: .*(fail|error|invalid|nonexistent|WARN)'
expect_no_klog 'ib_srpt: rxe0 port 1: target port names'

# The port serves logins.
srp_login rxe0 "$gid" 10.200.0.1 5555
expect_klog "ib_srpt: rxe0 port 1: 10\\.200\\.0\\.1.* logged in to 0x$gid"
disk=$(srp_disk)
expect_ok sg_readcap "/dev/$disk"
expect_output 'Last LBA=32767'
expect_ok dd if="/dev/$disk" of=/dev/null bs=64k count=64 iflag=direct
srp_logout
expect_klog "ib_srpt: rxe0 port 1: 10\\.200\\.0\\.1.* logged out"

# A new MAC address: a new default GID, which the port refresh picks up
# (the GID-form target port keeps its name and its slot).
new_gid=fe80000000000000505400fffe123456
new_guid=5054:00ff:fe12:3456
klog_mark
expect_ok ip link set srpt0 down
expect_ok ip link set srpt0 address 52:54:00:12:34:56
expect_ok ip link set srpt0 up
wait_for 30 "rxe0 port 1 ACTIVE" port_state rxe0 ACTIVE
wait_for 30 "rxe0 GID 0 is the new MAC's" file_has /sys/class/infiniband/rxe0/ports/1/gids/0 fe80:0000:0000:0000:5054:00ff:fe12:3456
wait_for 30 "the refresh names the port anew: $new_guid and 0x$new_gid" \
	klog_has "ib_srpt: rxe0 port 1: target port names $new_guid and 0x$new_gid \\(RoCE\\)\$"
expect_ok mkdir "$SRPT_CFS/$new_guid"
expect_klog "ib_srpt: rxe0 port 1: created target port $new_guid\$"
expect_ok rmdir "$SRPT_CFS/$new_guid"
expect_tport_taken "0x$new_gid"
klog_mark
expect_mkdir_refused 'Invalid argument' "$SRPT_CFS/$guid"
expect_klog "ib_srpt: no RDMA port is named '$guid'"
expect_no_klog 'ib_srpt: .*(fail|error|WARN)'

expect_ok tcli "clearconfig confirm=True"
unload_all
check_dmesg
