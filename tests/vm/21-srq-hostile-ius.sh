#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# A hostile initiator cannot starve the shared receive queue. With
# srpt_srq_size=64 and use_srq=1, 80 connections each log in and send one
# IU 64 bytes longer than the target allows: each such receive completes
# in error and breaks its QP, and its buffer must go back to the SRQ.
# Afterwards the SRQ is full again, and a legitimate ib_srp login scans
# its LUN and passes verified I/O. On a slow (debug) kernel the 80 log in
# ten at a time: the IB CM handles REQs one after the other, and 80 slow
# logins at once outlast the initiator's CM retries (UNREACHABLE); the
# IUs still come on 80 connections at once.
# vm-timeout: 900
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$SRPT_ROOT/tests/vm/lib.sh"
# shellcheck source-path=SCRIPTDIR source=initiator.sh
. "$SRPT_ROOT/tests/vm/initiator.sh"

srp_loopback srpt_srq_size=64
srpi_setup
srpt_serve "$gid" 5555 32M
srpt_use_srq "$gid" 1
base=$(srpt_objects)
[ "$(srpt_object receive_buffers)" = 64 ] || fail "the SRQ has $(srpt_object receive_buffers) buffers, not 64"
batch=80
[ "$SRPT_VM_SLOWDOWN" -le 1 ] || batch=10
expect_srpi 600 oversized-iu --dest 10.200.0.1:5555 --extra 64 --conns 80 --batch "$batch" \
	--timeout $((60 * SRPT_VM_SLOWDOWN))
expect_objects "$base" 60
pass "all 64 buffers of the SRQ are back"

mark=$(dmesg_mark)
srp_login rxe0 "$gid" 10.200.0.1 5555
disk=$(srp_disk)
expect_ok sg_inq "/dev/$disk"
expect_output 'LIO-ORG'
SRPT_CMD_TIMEOUT=300 expect_fio --name=after --filename="/dev/$disk" --direct=1 --ioengine=libaio \
	--rw=randrw --bsrange=512-256k --iodepth=16 --size=16m --verify=crc32c --verify_fatal=1
expect_no_initiator_trouble "$mark"
srp_logout
expect_objects "$base"
expect_ok tcli "clearconfig confirm=True"
unload_all
check_dmesg
