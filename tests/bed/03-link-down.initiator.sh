#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Two hosts, the link drops during I/O (03-link-down.host): the
# initiator's side. 4 MiB of known data is written before the outage;
# fio verifies writes (crc32c, checked as it goes) while the cable is
# pulled for SRPT_BED_DOWN seconds. What the initiator notices first is
# its own queue pair giving up on a send, or SCSI's command timeout
# (30 s) for a command whose response is lost: then ib_srp reconnects.
# Shorter than dev_loss_tmo (120 s here, fast_io_fail_tmo off so that
# I/O waits for the reconnect), the queue pairs' retries bridge it or
# ib_srp reconnects once the cable is back, and fio ends with no error
# and no mismatch. For a down of 90 s and more (dev_loss_tmo 20 s),
# ib_srp removes the remote port: fio ends with an I/O error, never a
# mismatch (EILSEQ), and a new login finds the data. Either way the
# known data reads back intact and a last fio verify passes.
# vm-timeout: 600
# vm-smp: 1
# vm-mem: 2048
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$SRPT_ROOT/tests/bed/lib.sh"

down=${SRPT_BED_DOWN:-2}
devloss=
[ "$down" -lt 90 ] || devloss=20
bed_net
load_scsi_initiator_bits
bed_reach 0
bed_login 0
disk=$(srp_disk)
rport=$(compgen -G '/sys/class/srp_remote_ports/*')
# fast_io_fail_tmo first: it must stay below dev_loss_tmo.
expect_attr_set "$rport/fast_io_fail_tmo" off
expect_attr_set "$rport/dev_loss_tmo" "${devloss:-120}"
expect_attr_set "$rport/reconnect_delay" 5

# The known data: 4 MiB at 56 MiB, outside fio's region.
expect_ok dd if=/dev/urandom of=/tmp/known bs=1M count=4 status=none
expect_ok dd if=/tmp/known of="/dev/$disk" bs=1M seek=56 oflag=direct conv=fsync status=none
cat >/tmp/io.fio <<JOBS
[verify-during-outage]
filename=/dev/$disk
direct=1
ioengine=libaio
rw=randwrite
bsrange=4k-256k
iodepth=16
size=32m
time_based
runtime=$((down + 40))
verify=crc32c
verify_backlog=32
verify_fatal=1
randrepeat=0
JOBS
fio --output-format=terse /tmp/io.fio >/tmp/fio.out 2>/tmp/fio.err &
fio_pid=$!
nap 5
kill -0 "$fio_pid" || fail "fio ended before the outage: $(tail -n 3 /tmp/fio.err)"
mark=$(dmesg_mark)
bed_put io-running
bed_get link-back $((down + 60)) >/dev/null
log "link back; remote port $(srp_rport_state)"
rc=0
SECONDS_AT=$SECONDS
wait "$fio_pid" || rc=$?
err=$(awk -F';' '$1 == 3 { print $5 }' /tmp/fio.out)
log "fio ended $((SECONDS - SECONDS_AT))s after the link came back: exit $rc, error ${err:-none}"
[ "$err" != 84 ] || fail "fio read back data that differs from what it wrote (EILSEQ)"
if [ -z "$devloss" ]; then
	if [ "$rc" != 0 ] || [ "$err" != 0 ]; then
		fail "fio failed across a ${down}s outage: $(tail -n 3 /tmp/fio.err)"
	fi
	pass "fio verified every block across a ${down}s outage"
	wait_for 60 "the remote port running" rport_is running
	# A short outage may pass within the queue pairs' retries.
	log "ib_srp reconnected $(dmesg_count_since "$mark" "reconnect succeeded") time(s)"
else
	[ "$rc" != 0 ] || fail "fio passed although the link was down longer than dev_loss_tmo"
	pass "fio failed with an I/O error (error ${err:-?}), not a mismatch"
	wait_for 60 "the remote port removed after dev_loss_tmo" rport_is none
	bed_login 0
	disk=$(srp_disk)
fi
expect_ok cmp /tmp/known <(dd if="/dev/$disk" bs=1M skip=56 count=4 iflag=direct status=none)
expect_fio --filename="/dev/$disk" --name=after --direct=1 --ioengine=libaio --rw=randwrite \
	--bs=64k --iodepth=8 --size=8m --offset=16m --verify=crc32c --verify_fatal=1
srp_logout
bed_initiator_end
