#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# The benchmark (scripts/bench), in one VM boot: the same fio jobs against
# the in-tree ib_srpt (modprobe) and against ours (insmod), each logged in
# over RDMA/CM through the same soft-RoCE device, plus ib_read_bw and
# ib_write_bw on that device as the transport's ceiling. Results go to
# $SRPT_OUT/bench.txt. A benchmark, not a test: nothing here has a
# threshold.
# vm-timeout: 1800
# vm-mem: 4096
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$SRPT_ROOT/tests/vm/lib.sh"
# shellcheck source-path=SCRIPTDIR source=initiator.sh
. "$SRPT_ROOT/tests/vm/initiator.sh"

runtime=${SRPT_BENCH_RUNTIME:-20}
out=$SRPT_OUT/bench.txt
: >"$out"

tcli_start
setup_rxe rxe0 10.200.0.1/24
load_scsi_initiator_bits
gid=$(rxe_gid rxe0)
timeout "$SRPT_CMD_TIMEOUT" modprobe -a target_core_mod ib_core rdma_cm ib_srp
mkdir -p /etc/target

# Kernel memory in use (kB): slab + page tables + vmalloc'ed, coarse.
kmem_kb() {
	awk '/^(Slab|VmallocUsed|KernelStack|PageTables):/ { s += $2 } END { print s }' /proc/meminfo
}

# The same jobs for each target: NAME RW BS QD.
jobs=(
	"randread-4k-qd32 randread 4k 32"
	"randwrite-4k-qd32 randwrite 4k 32"
	"read-4k-qd1 read 4k 1"
	"seqread-1m-qd8 read 1m 8"
	"seqwrite-1m-qd8 write 1m 8"
)

run_target() { # LABEL
	local label=$1 disk before after j name rw bs qd
	expect_ok tcli "/backstores/ramdisk create rd0 512M" \
		"/srpt create ib.$gid" \
		"/srpt/ib.$gid/luns create /backstores/ramdisk/rd0" \
		"/srpt/ib.$gid/acls create ib.$gid"
	expect_ok sh -c "echo 5555 >/sys/kernel/config/target/srpt/discovery_auth/rdma_cm_port"
	before=$(kmem_kb)
	srp_login rxe0 "$gid" 10.200.0.1 5555
	disk=$(srp_disk)
	after=$(kmem_kb)
	echo "$label kmem-login-kb $((after - before))" >>"$out"
	# Fill the ramdisk so reads read data.
	expect_ok fio --name=fill --filename="/dev/$disk" --direct=1 --ioengine=libaio \
		--rw=write --bs=1m --iodepth=8 --size=512m
	for j in "${jobs[@]}"; do
		read -r name rw bs qd <<<"$j"
		log "$label: $name"
		expect_ok fio --name="$name" --filename="/dev/$disk" --direct=1 --ioengine=libaio \
			--rw="$rw" --bs="$bs" --iodepth="$qd" --size=512m --time_based \
			--runtime="$runtime" --output-format=json --output="$SRPT_OUT/$label-$name.json"
		python3 - "$SRPT_OUT/$label-$name.json" "$label" "$name" >>"$out" <<'PY'
import json, sys
j = json.load(open(sys.argv[1]))["jobs"][0]
d = j["read"] if j["read"]["io_bytes"] else j["write"]
print(sys.argv[2], sys.argv[3], f"{d['iops']:.0f}", f"{d['bw'] / 1024:.1f}",
      f"{d['clat_ns']['mean'] / 1000:.0f}")
PY
	done
	srp_logout
	expect_ok tcli "clearconfig confirm=True"
	expect_ok rmdir /sys/kernel/config/target/srpt
	expect_ok rmmod ib_srpt
}

# The in-tree target first: modprobe finds it in /lib/modules.
allow_intree_srpt
expect_ok modprobe ib_srpt
taint=$(</sys/module/ib_srpt/taint)
[[ $taint != *O* ]] || fail "the module loaded as in-tree is out-of-tree (taint '$taint')"
pass "in-tree ib_srpt loaded (taint '${taint:-none}')"
run_target in-tree

load_srpt
run_target ours

# The transport's ceiling on the same device: perftest with RDMA/CM
# connection setup, 1 MiB messages. -F: TCG's clock would otherwise make
# perftest refuse to report.
perf() { # TOOL
	local tool=$1 line server args=(-d rxe0 -R -F -s 1048576 -n 400 --report_gbits)
	timeout 300 "$tool" "${args[@]}" >/dev/null 2>&1 &
	server=$!
	sleep 5
	line=$(timeout 240 "$tool" "${args[@]}" 10.200.0.1 2>&1 |
		awk '$1 == 1048576 { print $4 }' | tail -n1)
	wait "$server" || true
	[ -n "$line" ] || fail "$tool gave no result"
	echo "ceiling $tool $line" >>"$out"
	pass "$tool: $line Gb/s"
}
tcli_stop
perf ib_read_bw
perf ib_write_bw

unload_all
check_dmesg
