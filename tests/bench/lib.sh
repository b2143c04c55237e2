# SPDX-License-Identifier: GPL-2.0-only
# shellcheck shell=bash
# What the benchmark's guests share (tests/vm/bench.sh, the single-VM
# benchmark, and tests/bench/bed.target.sh and bed.initiator.sh, the
# two-host one), sourced after tests/vm/lib.sh.

# The NVMe subsystem nvmet-rdma serves in every benchmark.
BENCH_NQN=nqn.2026-12.io.srpt:bench
_bench_nvmet=/sys/kernel/config/nvmet

# kmem_kb: kernel memory in use (kB): slab + page tables + vmalloc'ed +
# stacks, coarse.
kmem_kb() {
	awk '/^(Slab|VmallocUsed|KernelStack|PageTables):/ { s += $2 } END { print s }' /proc/meminfo
}

# nvmet_export DEV ADDR: DEV as namespace 1 of BENCH_NQN, open to any
# host, on an RDMA port at ADDR:4420 (nvmet and nvmet-rdma loaded).
nvmet_export() {
	local s=$_bench_nvmet/subsystems/$BENCH_NQN p=$_bench_nvmet/ports/1 a
	expect_ok mkdir "$s"
	echo 1 >"$s/attr_allow_any_host" || fail "nvmet: attr_allow_any_host"
	expect_ok mkdir "$s/namespaces/1"
	echo -n "$1" >"$s/namespaces/1/device_path" || fail "nvmet: device_path"
	echo 1 >"$s/namespaces/1/enable" || fail "nvmet: namespace enable"
	expect_ok mkdir "$p"
	for a in addr_trtype=rdma addr_adrfam=ipv4 "addr_traddr=$2" addr_trsvcid=4420; do
		echo "${a#*=}" >"$p/${a%%=*}" || fail "nvmet: $a"
	done
	expect_ok ln -s "$s" "$p/subsystems/$BENCH_NQN"
}

# nvmet_unexport: nvmet_export undone (the modules stay).
nvmet_unexport() {
	local s=$_bench_nvmet/subsystems/$BENCH_NQN p=$_bench_nvmet/ports/1
	expect_ok rm "$p/subsystems/$BENCH_NQN"
	expect_ok rmdir "$p"
	echo 0 >"$s/namespaces/1/enable"
	expect_ok rmdir "$s/namespaces/1" "$s"
}

# nvme_disconnect_all SECONDS: every NVMe controller deleted, and gone
# within SECONDS.
nvme_disconnect_all() {
	local c
	for c in /sys/class/nvme/nvme*/delete_controller; do
		[ ! -e "$c" ] || echo 1 >"$c"
	done
	wait_for "$1" "NVMe controllers gone" sh -c '! ls /sys/class/nvme/nvme* >/dev/null 2>&1'
}
