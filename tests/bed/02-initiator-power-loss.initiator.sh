#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Two hosts, the initiator loses power with I/O in flight (see
# 02-initiator-power-loss.target.sh): the initiator's side. Boots up to
# the number of cycles log in and run fio (random 64 KiB to 1 MiB reads
# and writes at queue depth 16: RDMA WRITEs and READs in flight) until
# the host pulls the plug; the boot after them logs in afresh, verifies
# new I/O with no abort, reset or timeout, and logs out.
# vm-timeout: 600
# vm-smp: 1
# vm-mem: 2048
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$SRPT_ROOT/tests/bed/lib.sh"

cycles=$(bed_get cycles)
bed_net
load_scsi_initiator_bits
bed_reach 0
bed_login 0
disk=$(srp_disk)
if [ "$SRPT_BED_BOOT" -le "$cycles" ]; then
	fio --name=load --filename="/dev/$disk" --direct=1 --ioengine=libaio --rw=randrw \
		--bsrange=64k-1m --iodepth=16 --size=128m --time_based --runtime=600 \
		>/dev/null 2>&1 &
	nap 3
	pass "fio running at queue depth 16"
	bed_put "io-running-$SRPT_BED_BOOT"
	# The host powers this guest off.
	bed_get never 600
	fail "still running"
fi
mark=$(dmesg_mark)
expect_fio --filename="/dev/$disk" --name=after --direct=1 --ioengine=libaio --rw=randrw \
	--bsrange=4k-1m --iodepth=16 --size=16m --offset=128m --verify=crc32c --verify_fatal=1
expect_no_initiator_trouble "$mark"
srp_logout
bed_initiator_end
