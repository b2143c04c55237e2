#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Load: ib_srpt.ko loads next to a soft-RoCE device, finds it, serves a
# target port made with targetcli, and everything unloads again with a
# clean kernel log.
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$SRPT_ROOT/tests/vm/lib.sh"

# targetcli loads in the background meanwhile.
tcli_start
setup_rxe rxe0
load_srpt

# Our module saw the device (src/core/device.cpp) and named its port
# (src/core/rdma_port.cpp) with the GID that the RDMA core reports.
gid=$(rxe_gid rxe0)
expect_dmesg 'ib_srpt: rxe0: added, 1 port, node GUID [0-9a-f]{16}, service GUID [0-9a-f]{16}'
expect_dmesg "ib_srpt: rxe0 port 1: target port names [0-9a-f:]{19} and 0x$gid \\(RoCE\\)"

# targetcli sees the fabric and makes a target port named after the GID
# (ib.<gid> in targetcli is 0x<gid> in configfs).
expect_ok tcli 'ls /srpt' "/srpt create ib.$gid" 'ls /srpt'
expect_output 'o- srpt \.+ \[Targets: 0\]'
expect_output "o- ib\\.$gid \\.+ \\["
# LIO made the fabric's directory on first use, and the port's TPG.
expect_ok test -d "/sys/kernel/config/target/srpt/0x$gid/tpgt_1"
expect_ok tcli "/srpt delete ib.$gid"
expect_fail test -e "/sys/kernel/config/target/srpt/0x$gid"

unload_all
# With ours gone, modprobe would run /bin/false instead of loading the
# in-tree module (a dry run: a real one would load its dependencies).
expect_ok modprobe -n -v ib_srpt
expect_output '^install /bin/false'
check_dmesg
