#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Data integrity over the whole command path, with use_srq=0 and 1: fio
# verifies (crc32c) writes, reads and mixed I/O, direct, from 512 B to
# 1 MiB and from queue depth 1 to 64. With use_srq=0 the login negotiates
# immediate data: writes of up to 8 KiB (ib_srp's max_imm_data) travel
# inside the SRP_CMD, larger ones need an RDMA READ; with use_srq=1 every
# write needs one. fio must finish with 0 errors.
# vm-timeout: 600
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$SRPT_ROOT/tests/vm/lib.sh"
# shellcheck source-path=SCRIPTDIR source=initiator.sh
. "$SRPT_ROOT/tests/vm/initiator.sh"

srp_loopback
port=5555
srpt_serve "$gid" "$port" 40M

# One fio run, the jobs one after the other (stonewall), each on its own
# 8 MiB region; each job verifies every block it wrote (writes), or the
# blocks the job before it wrote (reads).
jobs=/tmp/verify.fio
cat >"$jobs" <<'EOF'
[global]
direct=1
ioengine=libaio
verify=crc32c
verify_fatal=1
randrepeat=0
stonewall
size=8m

# Small writes: immediate data (use_srq=0), QD 64.
[imm-write-qd64]
offset=0
rw=randwrite
bsrange=512-8k
iodepth=64
size=4m

# Large writes: RDMA READ, 64 KiB to 1 MiB, QD 16.
[rdma-write-qd16]
offset=8m
rw=randwrite
bsrange=64k-1m
iodepth=16

# Sequential 1 MiB writes at QD 1, read back at QD 1.
[write-1m-qd1]
offset=16m
rw=write
bs=1m
iodepth=1
size=4m

# Mixed reads and writes of every size at QD 32.
[mixed-qd32]
offset=24m
rw=randrw
bssplit=512/20:4k/20:16k/20:128k/20:1m/20
iodepth=32
size=6m

# 4 KiB blocks written, then read at random at QD 64 and verified.
[write-4k]
offset=32m
rw=write
bs=4k
iodepth=8
size=2m
do_verify=0

[randread-4k-qd64]
offset=32m
rw=randread
bs=4k
iodepth=64
size=2m

# 512 B blocks written, then read at random at QD 1 and verified.
[write-512]
offset=36m
rw=write
bs=512
iodepth=4
size=256k
do_verify=0

[randread-512-qd1]
offset=36m
rw=randread
bs=512
iodepth=1
size=256k
EOF

for srq in 0 1; do
	log "---- use_srq=$srq ----"
	srpt_use_srq "$gid" "$srq"
	base=$(srpt_objects)
	mark=$(dmesg_mark)
	srp_login rxe0 "$gid" 10.200.0.1 "$port"
	disk=$(srp_disk)
	if [ "$srq" = 0 ]; then
		expect_dmesg_since "$mark" "ib_srpt: rxe0 port 1: 10\\.200\\.0\\.1 logged in to 0x$gid \\([0-9]+ credits, immediate data\\)"
		expect_dmesg_since "$mark" "ib_srp: using immediate data"
	else
		# The receive buffers of an SRQ have no room for immediate data.
		expect_dmesg_since "$mark" "ib_srpt: rxe0 port 1: 10\\.200\\.0\\.1 logged in to 0x$gid \\([0-9]+ credits\\)$"
	fi
	stats=$(srpt_stats "$gid")
	expect_fio --filename="/dev/$disk" "$jobs"
	after=$(srpt_stats "$gid")
	writes=$(stat_delta "$stats" "$after" writes)
	imm=$(stat_delta "$stats" "$after" immediate_writes)
	if [ "$srq" = 0 ]; then
		[ "$imm" -gt 0 ] || fail "no write carried immediate data"
	else
		[ "$imm" = 0 ] || fail "$imm writes carried immediate data without it negotiated"
	fi
	[ "$((writes - imm))" -gt 0 ] || fail "no write needed an RDMA READ"
	pass "the target counted $writes writes: $imm with immediate data, $((writes - imm)) by RDMA READ"
	expect_no_stat_errors "$stats" "$after" aborted_tasks
	srp_logout
	expect_objects "$base"
done

expect_ok tcli "clearconfig confirm=True"
unload_all
check_dmesg
