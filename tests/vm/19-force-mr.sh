#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Memory registrations running short slow the target down and never fail
# a command. With ib_core's force_mr=1, rdma_rw registers an MR for every
# transfer on rxe too, from a pool the size of the channel's send queue
# (srp_sq_size 16: 8 MRs); ib_srp then writes and reads 4 KiB to 1 MiB
# blocks at queue depth 64, every block verified: no command may fail,
# none may be answered with anything but success, and the initiator must
# see no abort or reset. The target's counters may show failed sends and
# RDMA READs only where 6.1's rxe ran one of its invalidations again and
# broke the connection (rxe_replayed_local_op).
# vm-timeout: 900
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$SRPT_ROOT/tests/vm/lib.sh"
# shellcheck source-path=SCRIPTDIR source=initiator.sh
. "$SRPT_ROOT/tests/vm/initiator.sh"

# force_mr is read when ib_core loads, and only then.
echo 'options ib_core force_mr=1' >/etc/modprobe.d/srpt-vm-force-mr.conf
srp_loopback
srpt_serve "$gid" 5555 96M
expect_attr_set "$(srpt_tpg "$gid")/attrib/srp_sq_size" 16
base=$(srpt_objects)
stats=$(srpt_stats "$gid")
mark=$(dmesg_mark)
srp_login rxe0 "$gid" 10.200.0.1 5555
disk=$(srp_disk)
# force_mr has no sysfs file: its MR pools show that it took effect.
mrs=$(timeout "$SRPT_CMD_TIMEOUT" rdma res show mr | grep -c 'comm \[ib_srpt\]' || true)
[ "$mrs" -gt 0 ] || fail "the target's QPs have no MR pool: force_mr did not take effect"
pass "the target's QPs register memory: $mrs MRs in their pools"
srp_slow_kernel_timeouts "$disk"
SRPT_CMD_TIMEOUT=$((300 * SRPT_VM_SLOWDOWN)) expect_fio --name=mr --filename="/dev/$disk" --direct=1 --ioengine=libaio \
	--rw=randrw --bsrange=4k-1m --iodepth=64 --size=64m --verify=crc32c --verify_fatal=1 \
	--do_verify=1 --randrepeat=0
expect_no_initiator_trouble "$mark"
after=$(srpt_stats "$gid")
expect_no_stat_errors_since "$mark" "$stats" "$after"
srp_logout
expect_objects "$base"
expect_ok tcli "clearconfig confirm=True"
unload_all
check_dmesg
