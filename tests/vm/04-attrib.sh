#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Attributes. The TPG's attrib/ (srp_max_rdma_size, srp_max_rsp_size,
# srp_sq_size, use_srq): defaults read back, boundary values accepted and
# read back (decimal, 0x-hex, 0-octal, with or without a newline), values
# out of range and malformed ones refused with EINVAL and a kernel log
# line, the old value kept; they belong to the RDMA port, so both target
# ports of one port show the same values. discovery_auth/rdma_cm_port
# (0..65535) starts and stops the RDMA/CM listener; the fabric's
# read-only version is the module's; the TPG's enable switches the
# target port on and off.
# vm-timeout: 400
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$SRPT_ROOT/tests/vm/lib.sh"

tcli_start
setup_rxe rxe0
load_srpt
gid=$(rxe_gid rxe0)
guid=$(guid_name "$gid")

expect_ok tcli "/srpt create ib.$gid"
expect_ok mkdir "$SRPT_CFS/$guid"
expect_ok mkdir "$SRPT_CFS/$guid/tpgt_1"
a=$SRPT_CFS/0x$gid/tpgt_1/attrib
b=$SRPT_CFS/$guid/tpgt_1/attrib

# Defaults, in both target ports.
for d in "$a" "$b"; do
	expect_attr "$d/srp_max_rdma_size" 65536
	expect_attr "$d/srp_max_rsp_size" 256
	expect_attr "$d/srp_sq_size" 4096
	expect_attr "$d/use_srq" 0
done

# srp_max_rdma_size: 65536..16777216.
klog_mark
f=$a/srp_max_rdma_size
expect_attr_set "$f" 16777216
expect_attr_refused "$f" 16777217
expect_klog "ib_srpt: rxe0 port 1: srp_max_rdma_size: invalid value '16777217': must be 65536\\.\\.16777216\$"
expect_attr_set "$f" 65536
expect_attr_refused "$f" 65535
expect_attr_refused "$f" 0
expect_attr_refused "$f" -1
expect_attr_refused "$f" +131072
expect_attr_refused "$f" 4294967296
expect_attr_refused "$f" 4295032832
expect_attr_refused "$f" 18446744073709551616
expect_attr_refused "$f" 99999999999999999999999999
expect_attr_refused "$f" abc
expect_attr_refused "$f" ''
expect_attr_refused "$f" ' 131072'
expect_attr_refused "$f" '131072 '
expect_attr_refused "$f" 131072.0
expect_attr_refused "$f" 1e6
expect_attr_refused "$f" 0x
expect_attr_refused "$f" 0x1000g
expect_attr_refused "$f" 0400009
expect_attr_set "$f" 0x20000 131072
expect_attr_set "$f" 0X40000 262144
expect_attr_set "$f" 01000000 262144
expect_ok sh -c "printf 1048576 >'$f'"
expect_attr "$f" 1048576
expect_attr "$b/srp_max_rdma_size" 1048576

# srp_max_rsp_size: 40..1024.
f=$b/srp_max_rsp_size
expect_attr_set "$f" 1024
expect_attr_refused "$f" 1025
expect_klog "ib_srpt: rxe0 port 1: srp_max_rsp_size: invalid value '1025': must be 40\\.\\.1024\$"
expect_attr_set "$f" 40
expect_attr_refused "$f" 39
expect_attr_refused "$f" 0
expect_attr_refused "$f" 4294967336
expect_attr_refused "$f" 512k
expect_attr_set "$f" 0x200 512
expect_attr "$a/srp_max_rsp_size" 512

# srp_sq_size: 4..65535.
f=$a/srp_sq_size
expect_attr_set "$f" 65535
expect_attr_refused "$f" 65536
expect_klog "ib_srpt: rxe0 port 1: srp_sq_size: invalid value '65536': must be 4\\.\\.65535\$"
expect_attr_set "$f" 4
expect_attr_refused "$f" 3
expect_attr_refused "$f" 4294967300
expect_attr_refused "$f" 0x
expect_attr_set "$f" 010 8
expect_attr_set "$f" 4096
expect_attr "$b/srp_sq_size" 4096

# use_srq: 0 or 1; 1 makes the device's shared receive queue, 0 frees it.
f=$a/use_srq
expect_attr_refused "$f" 2
expect_klog "ib_srpt: rxe0 port 1: use_srq: invalid value '2': must be 0\\.\\.1\$"
expect_attr_refused "$f" yes
expect_attr_refused "$f" -1
expect_attr_refused "$f" 4294967297
expect_attr_set "$f" 1
expect_klog "ib_srpt: rxe0: shared receive queue of [0-9]+ entries"
expect_attr "$b/use_srq" 1
expect_attr_set "$b/use_srq" 1
expect_attr_set "$b/use_srq" 0
expect_attr "$a/use_srq" 0
expect_attr_set "$f" 0x1 1
expect_attr_set "$f" 00 0
expect_no_klog 'ib_srpt: .*(failed|WARN)'

# The values survive the TPG going off and on.
e=$SRPT_CFS/0x$gid/tpgt_1/enable
expect_attr "$e" 1
expect_attr_set "$e" 0
expect_klog "ib_srpt: rxe0 port 1: target port 0x$gid disabled\$"
expect_attr_refused "$e" 2
expect_attr_set "$e" 1
expect_klog "ib_srpt: rxe0 port 1: target port 0x$gid enabled\$"
expect_attr "$SRPT_CFS/$guid/tpgt_1/enable" 0
expect_attr_set "$SRPT_CFS/$guid/tpgt_1/enable" 1
expect_klog "ib_srpt: rxe0 port 1: target port $guid enabled\$"
expect_attr "$a/srp_max_rdma_size" 1048576
expect_attr "$a/srp_max_rsp_size" 512
expect_attr "$a/srp_sq_size" 4096
expect_attr "$a/use_srq" 0

# discovery_auth/rdma_cm_port: 0..65535, 0 is off.
f=$SRPT_CFS/discovery_auth/rdma_cm_port
expect_attr "$f" 0
expect_attr_set "$f" 5555
expect_klog 'ib_srpt: RDMA/CM: listening for logins on port 5555$'
expect_attr_refused "$f" 65536
expect_klog 'ib_srpt: rdma_cm_port: invalid value: must be 0\.\.65535$'
expect_attr_refused "$f" -1
expect_attr_refused "$f" port
expect_attr_refused "$f" ''
expect_attr_set "$f" 65535
expect_klog 'ib_srpt: RDMA/CM: listening for logins on port 65535$'
expect_attr_set "$f" 0x15b3 5555
expect_attr_set "$f" 0
expect_klog 'ib_srpt: RDMA/CM: no longer listening for logins$'

# The fabric's version: the module's, read-only.
f=$SRPT_CFS/version
expect_attr "$f" "$(</sys/module/ib_srpt/version)"
expect_attr_refused "$f" 9.9.9 'Permission denied'

expect_ok cfs_drop_tport "$guid"
unload_all
check_dmesg
