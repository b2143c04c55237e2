#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Serve a LUN: the in-tree SRP initiator logs in over RDMA/CM (soft-RoCE
# loopback), sees the LUN configured with targetcli, and fio writes and
# reads it back with every block verified; then the initiator logs out
# and everything unloads with a clean kernel log.
# vm-timeout: 600
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$SRPT_ROOT/tests/vm/lib.sh"
# shellcheck source-path=SCRIPTDIR source=initiator.sh
. "$SRPT_ROOT/tests/vm/initiator.sh"

# shellcheck disable=SC2086 # parameters are words on purpose
srp_loopback ${SRPT_PARAMS:-}
rdma_cm_port=5555

srpt_serve "$gid" "$rdma_cm_port" 64M
expect_dmesg "ib_srpt: RDMA/CM: listening for logins on port $rdma_cm_port"

srp_login rxe0 "$gid" 10.200.0.1 "$rdma_cm_port"
expect_dmesg "ib_srpt: rxe0 port 1: 10\\.200\\.0\\.1.* logged in to 0x$gid"
disk=$(srp_disk)
expect_ok sg_inq "/dev/$disk"
expect_output 'LIO-ORG'
expect_ok sg_readcap "/dev/$disk"
expect_output 'Last LBA=131071'

# Reads, writes and mixed, 512 B to 1 MiB, direct I/O, QD 1..32; crc32c
# verification of every block written.
expect_ok fio --name=verify --filename="/dev/$disk" --direct=1 --ioengine=libaio \
	--rw=randwrite --bsrange=512-1m --iodepth=32 --size=48m --verify=crc32c \
	--verify_fatal=1 --do_verify=1 --randrepeat=1 --output-format=terse
expect_ok fio --name=mixed --filename="/dev/$disk" --direct=1 --ioengine=libaio \
	--rw=randrw --bs=4k --iodepth=1 --size=8m --verify=crc32c --verify_fatal=1 \
	--output-format=terse

srp_logout
expect_dmesg "ib_srpt: rxe0 port 1: 10\\.200\\.0\\.1.* logged out"
expect_ok tcli "clearconfig confirm=True"
unload_all
check_dmesg
