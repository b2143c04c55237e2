#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# scripts/bench --hosts 2, the initiator's side: for each target in
# SRPT_BED_ORDER it asks the target guest (tests/bench/bed.target.sh) to
# serve it, logs in, and runs every fio job twice, once to warm up and
# once between two of the target's instruction-counter markers. The jobs
# at one session: 4 KiB random read and write at QD1 and QD32, 1 MiB
# sequential read and write at QD8. Then 4 KiB random reads at a total
# QD64 spread over each count of sessions in SRPT_BED_SESSIONS ("1 8
# 64"): ib_srp logins with initiator_ext 1..N (each its own initiator
# port, ACL and LIO session), or nvme-rdma controllers with host NQNs
# 1..N (native multipath off, so each is its own disk). Every job's fio
# JSON and the requests its disks completed (the commands the target
# received) go to SRPT_OUT. A benchmark, not a test: no thresholds.
# vm-timeout: 7200
# vm-smp: 1
# vm-mem: 2048
# shellcheck source-path=SCRIPTDIR source=../bed/lib.sh
. "$SRPT_ROOT/tests/bed/lib.sh"
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$SRPT_ROOT/tests/bench/lib.sh"

targets=${SRPT_BED_ORDER:-in-tree ours nvmet}
runtime=${SRPT_BED_RUNTIME:-15}
warmup=${SRPT_BED_WARMUP:-5}
session_counts=${SRPT_BED_SESSIONS:-1 8 64}

# NAME RW BS QD, at one session.
jobs=(
	"randread-4k-qd1 randread 4k 1"
	"randread-4k-qd32 randread 4k 32"
	"randwrite-4k-qd1 randwrite 4k 1"
	"randwrite-4k-qd32 randwrite 4k 32"
	"read-1m-qd8 read 1m 8"
	"write-1m-qd8 write 1m 8"
)
# The sessions jobs' total queue depth.
sessions_qd=64

# Huge pages for fio's buffers: a 1 MiB I/O reaches the initiator
# physically contiguous and is split by max_sectors alike for every
# target. One or more per job, and 64 jobs at most.
echo 160 >/proc/sys/vm/nr_hugepages
[ "$(awk '$1 == "HugePages_Total:" { print $2 }' /proc/meminfo)" = 160 ] ||
	fail "could not set aside 160 huge pages for fio"

bed_net
load_scsi_initiator_bits
# Before nvme-rdma loads it: one disk per controller.
timeout "$SRPT_CMD_TIMEOUT" modprobe nvme_core multipath=N
timeout "$SRPT_CMD_TIMEOUT" modprobe -a ib_srp nvme-rdma
bed_reach 0

nreq=0
# ask WHAT [ARG]: request of the target guest, once it is done.
ask() {
	nreq=$((nreq + 1))
	bed_put "req-$nreq" "$*"
	bed_get "ack-$nreq" 3600 >/dev/null
}

# wait_disks N GLOB: until GLOB (in /sys) names N disks whose /dev nodes
# exist (30 s), then disks := them. A disk is in /sys before its node is
# in /dev, and a multipath path (nvmeXcYnZ) never has one.
wait_disks() {
	local i d all
	for ((i = 0; i < 300; i++)); do
		mapfile -t all < <(compgen -G "$2")
		disks=()
		for d in "${all[@]}"; do
			[ ! -b "/dev/${d##*/}" ] || disks+=("${d##*/}")
		done
		[ "${#disks[@]}" -lt "$1" ] || break
		nap 0.1
	done
	[ "${#disks[@]}" = "$1" ] || fail "${#disks[@]} disks, not $1 ($2)"
}

# login LABEL N: N sessions; disks := their disks. In this shell, not a
# subshell, so that a failure ends the scenario.
login() {
	local k add sg
	if [ "$1" = nvmet ]; then
		for ((k = 1; k <= $2; k++)); do
			echo "transport=rdma,traddr=$(bed_addr target 0),trsvcid=4420,nqn=$BENCH_NQN,nr_io_queues=1,hostnqn=$BENCH_NQN:host$k,hostid=$(printf '00000000-0000-4000-8000-%012x' "$k")" \
				>/dev/nvme-fabrics || fail "nvme-rdma: connect $k failed"
		done
		wait_disks "$2" '/sys/block/nvme*n1'
		return 0
	fi
	sg=$(<"$BED/served")
	add=$(_vm_srp_add "$(bed_dev 0)")
	for ((k = 1; k <= $2; k++)); do
		echo "id_ext=$sg,ioc_guid=$sg,initiator_ext=$(printf '%016x' "$k"),dest=$(bed_addr target 0):$BED_PORT,ch_count=1,queue_size=128" \
			>"$add" || fail "ib_srp login $k failed"
	done
	wait_disks "$2" '/sys/class/srp_remote_ports/*/device/../target*/*/block/*'
}

logout() { # LABEL
	if [ "$1" = nvmet ]; then
		nvme_disconnect_all 60
	else
		srp_logout
	fi
}

requests() { # DISK...: the requests they completed
	local d
	for d; do
		cat "/sys/block/$d/stat"
	done | awk '{ n += $1 + $5 } END { print n }'
}

# fio_args RW BS QD SECONDS DISK...: one fio job per disk, the queue
# depth shared out among them, reported as one group.
fio_args() {
	local rw=$1 bs=$2 qd=$3 secs=$4 d
	shift 4
	args=(--direct=1 --ioengine=libaio --iomem=shmhuge --rw="$rw" --bs="$bs"
		--iodepth=$((qd / $#)) --size=512m --time_based --runtime="$secs"
		--group_reporting --randrepeat=0)
	for d; do
		args+=(--name="$d" --filename="/dev/$d")
	done
}

# run LABEL NAME RW BS QD DISK...: the job, warmed up, then counted.
run() {
	local label=$1 name=$2 rw=$3 bs=$4 qd=$5 base r
	shift 5
	base=$label-$name
	log "$label: $name on $# disk(s) (${warmup}s warm-up, ${runtime}s counted)"
	fio_args "$rw" "$bs" "$qd" "$warmup" "$@"
	fio "${args[@]}" >/dev/null || fail "$label $name: warm-up fio failed"
	fio_args "$rw" "$bs" "$qd" "$runtime" "$@"
	r=$(requests "$@")
	ask count -
	fio "${args[@]}" --output-format=json --output="$SRPT_OUT/$base.json" ||
		fail "$label $name: fio failed"
	ask count "$base"
	echo $(($(requests "$@") - r)) >"$SRPT_OUT/$base.requests"
	r=$(python3 -c 'import json, sys
j = json.load(open(sys.argv[1]))["jobs"][0]
d = j["read"] if j["read"]["io_bytes"] else j["write"]
print("%.0f IOPS, %d I/Os" % (d["iops"], d["total_ios"]))' "$SRPT_OUT/$base.json") ||
		fail "$label $name: fio's JSON has no result"
	pass "$label $name: $r"
}

filled=
for label in $targets; do
	ask serve "$label"
	for s in $session_counts; do
		ask kmem "$label-s$s-before"
		login "$label" "$s"
		ask kmem "$label-s$s-after"
		pass "$label: $s session(s) logged in"
		if [ -z "$filled" ]; then
			# Reads read data: the one disk behind every target, filled once.
			expect_ok fio --name=fill --filename="/dev/${disks[0]}" --direct=1 --ioengine=libaio \
				--rw=write --bs=1m --iodepth=8 --size=512m
			filled=1
		fi
		if [ "$s" = 1 ]; then
			for j in "${jobs[@]}"; do
				read -r name rw bs qd <<<"$j"
				run "$label" "$name" "$rw" "$bs" "$qd" "${disks[0]}"
			done
		fi
		run "$label" "randread-4k-qd$sessions_qd-s$s" randread 4k "$sessions_qd" "${disks[@]}"
		logout "$label"
	done
	ask unserve "$label"
done
ask end
unload_all
check_dmesg
