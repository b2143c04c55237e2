#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Two LUNs over one and over four RDMA/CM channels, with use_srq=0 and 1:
# ib_srp logs in with ch_count=1, then ch_count=4; the LUNs show up
# (lsscsi, sg_inq, sg_readcap), the target logs each multichannel login,
# fio verifies data on both LUNs, and with four channels one fio job per
# CPU (so per blk-mq hardware queue, so per channel) proves that every
# channel's queue pairs carry I/O. Each logout brings the core's live
# objects back to their baseline.
# vm-timeout: 600
# vm-smp: 4
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$SRPT_ROOT/tests/vm/lib.sh"
# shellcheck source-path=SCRIPTDIR source=initiator.sh
. "$SRPT_ROOT/tests/vm/initiator.sh"

srp_loopback
port=5555
[ "$(nproc)" -ge 4 ] || fail "needs 4 CPUs for 4 busy channels (vm-smp), has $(nproc)"

srpt_serve "$gid" "$port" 16M 8M
login_re="ib_srpt: rxe0 port 1: RDMA/CM login of 10\\.200\\.0\\.1 \\(initiator port id 0x$gid"
fio_common=(--direct=1 --ioengine=libaio --verify=crc32c --verify_fatal=1 --randrepeat=0)

for srq in 0 1; do
	log "---- use_srq=$srq ----"
	srpt_use_srq "$gid" "$srq"
	base=$(srpt_objects)
	log "baseline: $base"
	# Immediate data needs a receive buffer per channel (no SRQ).
	imm=", immediate data"
	[ "$srq" = 0 ] || imm=
	logged_in_re="ib_srpt: rxe0 port 1: 10\\.200\\.0\\.1 logged in to 0x$gid \\([0-9]+ credits$imm\\)"

	# One channel.
	mark=$(dmesg_mark)
	srp_login rxe0 "$gid" 10.200.0.1 "$port" ch_count=1
	mapfile -t disks < <(srp_wait_disks 2)
	expect_dmesg_since "$mark" "$login_re" 1
	expect_dmesg_since "$mark" "$logged_in_re" 1
	expect_dmesg_since "$mark" "multichannel" 0
	host=$(srp_host)
	[ "$(<"$host/ch_count")" = 1 ] || fail "ch_count $(<"$host/ch_count"), not 1"
	[ "$(srpt_object channels)" = 1 ] || fail "the core counts $(srpt_object channels) channels, not 1"
	pass "one channel: ${disks[*]}"
	expect_ok lsscsi
	expect_output "LIO-ORG +rd0 .*/dev/${disks[0]}"
	expect_output "LIO-ORG +rd1 .*/dev/${disks[1]}"
	expect_ok sg_inq "/dev/${disks[1]}"
	expect_output 'Vendor identification: LIO-ORG'
	expect_output 'Product identification: rd1'
	expect_ok sg_readcap "/dev/${disks[0]}"
	expect_output 'Last LBA=32767'
	expect_ok sg_readcap "/dev/${disks[1]}"
	expect_output 'Last LBA=16383'
	# Both LUNs at once, writes verified by reads.
	expect_fio "${fio_common[@]}" --rw=randwrite --bsrange=512-256k --iodepth=16 --size=4m \
		--name=lun0 --filename="/dev/${disks[0]}" --name=lun1 --filename="/dev/${disks[1]}"
	srp_logout
	expect_objects "$base"

	# Four channels: the first login makes the nexus, three join it.
	mark=$(dmesg_mark)
	srp_login rxe0 "$gid" 10.200.0.1 "$port" ch_count=4
	mapfile -t disks < <(srp_wait_disks 2)
	expect_dmesg_since "$mark" "$login_re, it_iu_len [0-9]+, pkey 0x[0-9a-f]+\\)$" 1
	expect_dmesg_since "$mark" "$login_re, .*, multichannel\\)" 3
	expect_dmesg_since "$mark" "$logged_in_re" 4
	host=$(srp_host)
	[ "$(<"$host/ch_count")" = 4 ] || fail "ch_count $(<"$host/ch_count"), not 4"
	[ "$(srpt_object channels)" = 4 ] || fail "the core counts $(srpt_object channels) channels, not 4"
	[ "$(srpt_object nexuses)" = 1 ] || fail "the core counts $(srpt_object nexuses) nexuses, not 1"
	pass "four channels, one nexus: ${disks[*]}"
	expect_ok sg_inq "/dev/${disks[0]}"
	expect_output 'Product identification: rd0'
	# blk-mq maps CPU n to hardware queue n, which ib_srp sends on
	# channel n: one job per CPU keeps every channel busy.
	before=$(rc_qp_psns)
	expect_fio "${fio_common[@]}" --rw=randwrite --bsrange=512-128k --iodepth=8 \
		--cpus_allowed=0-3 --cpus_allowed_policy=split \
		--name=ch4 --filename="/dev/${disks[0]}" --numjobs=4 --size=3m --offset_increment=4m \
		--name=ch4-lun1 --filename="/dev/${disks[1]}" --numjobs=4 --size=1m --offset_increment=2m
	after=$(rc_qp_psns)
	expect_qps_busy "$before" "$after" 8 50
	srp_logout
	expect_objects "$base"
	expect_dmesg_since "$mark" "ib_srpt: rxe0 port 1: 10\\.200\\.0\\.1 logged out" 4
done

expect_ok tcli "clearconfig confirm=True"
unload_all
check_dmesg
