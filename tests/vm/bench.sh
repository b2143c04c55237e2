#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# The benchmark (scripts/bench), in one VM boot: the same fio jobs against
# the in-tree ib_srpt (modprobe), against ours (insmod) and against
# nvmet-rdma, each over the same soft-RoCE device with 1 and with 4
# channels (ch_count, nr_io_queues). Each job runs once unmeasured (the
# emulator translates code the first time it runs, and would bill that
# to whichever target ran first), then again under perf's software
# cpu-clock event system-wide: the samples in each module, times the
# sampling period, divided by the I/Os fio did, are the guest CPU each
# module spends per I/O. With SRPT_BENCH_INSNS (scripts/bench --icount)
# the measured run is counted instead, instruction by instruction, by
# QEMU's plugin tests/bench/insn-count.c (one instruction is one ns of
# guest time there). Plus ib_read_bw and ib_write_bw as the
# transport's ceiling. Results go to $SRPT_OUT/bench.txt, each job's
# per-symbol profile to $SRPT_OUT/<target>-ch<N>-<job>.{perf,insns}.
# A benchmark, not a test: nothing here has a threshold.
# vm-timeout: 5400
# vm-mem: 4096
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$SRPT_ROOT/tests/vm/lib.sh"
# shellcheck source-path=SCRIPTDIR source=initiator.sh
. "$SRPT_ROOT/tests/vm/initiator.sh"
# shellcheck source-path=SCRIPTDIR source=../bench/lib.sh
. "$SRPT_ROOT/tests/bench/lib.sh"

runtime=${SRPT_BENCH_RUNTIME:-15}
warmup=${SRPT_BENCH_WARMUP:-5}
target_order=${SRPT_BENCH_ORDER:-in-tree ours nvmet}
channels=${SRPT_BENCH_CHANNELS:-1 4}
# 250 us of CPU per sample (4000 a second on a busy CPU); 100 us for
# the 1 MiB jobs, which do 30 times fewer I/Os. SRPT_BENCH_PERIOD_NS
# sets both. Under --icount the guest runs the same instructions at the
# same virtual times, and the module figures move with the period (the
# docs/bench.md has the same module at 250, 50 and 10 us).
period_ns=${SRPT_BENCH_PERIOD_NS:-250000}
period_1m_ns=${SRPT_BENCH_PERIOD_NS:-100000}
out=$SRPT_OUT/bench.txt
: >"$out"

# scripts/bench --icount: QEMU's instruction counter
# (tests/bench/insn-count.c) and its marker, both in SRPT_OUT. Trusted
# only once it counts a known loop exactly, which it checks here, before
# anything else runs: it counts every process's user instructions.
insn_mark=
insn_counts=$SRPT_OUT/insn-count.txt
if [ -n "${SRPT_BENCH_INSNS:-}" ]; then
	insn_mark=$SRPT_OUT/insn-mark
	rm -f "$insn_counts"
	"$insn_mark" 5000000 || fail "insn-mark failed"
	n=$(awk '$1 == "user" { print $2 }' "$insn_counts" 2>/dev/null)
	[ "$n" = 10000002 ] ||
		fail "the instruction counter counted ${n:-nothing}, not 10000002 user instructions, in a known loop"
	pass "instruction counter: a known loop of 10000002 instructions counted exactly"
fi

# Huge pages for fio's buffers (fio_opts), set aside while memory is
# still unfragmented.
echo 32 >/proc/sys/vm/nr_hugepages
[ "$(awk '$1 == "HugePages_Total:" { print $2 }' /proc/meminfo)" = 32 ] ||
	fail "could not set aside 32 huge pages for fio"

tcli_start
setup_rxe rxe0 10.200.0.1/24
load_scsi_initiator_bits
gid=$(rxe_gid rxe0)
timeout "$SRPT_CMD_TIMEOUT" modprobe -a target_core_mod ib_core rdma_cm ib_srp
lio_db_root
# perf resolves module symbols from /proc/kallsyms.
echo 0 >/proc/sys/kernel/kptr_restrict
echo -1 >/proc/sys/kernel/perf_event_paranoid
command -v perf >/dev/null || fail "perf is missing (linux-perf)"

# The same jobs for each target: NAME RW BS QD.
jobs=(
	"randread-4k-qd32 randread 4k 32"
	"randwrite-4k-qd32 randwrite 4k 32"
	"read-4k-qd1 read 4k 1"
	"seqread-1m-qd8 read 1m 8"
	"seqwrite-1m-qd8 write 1m 8"
)

# The transport module and its SCSI or NVMe core, as perf names them.
declare -A module=([in-tree]=ib_srpt [ours]=ib_srpt [nvmet]=nvmet_rdma)
declare -A core=([in-tree]=target_core_mod [ours]=target_core_mod [nvmet]=nvmet)

# fio_opts DISK NAME RW BS QD SECONDS: a job's options, in fio_args.
# Its buffers are huge pages, so that a 1 MiB I/O reaches the initiator
# physically contiguous and is split by max_sectors alike for every
# target. From 4 KiB pages it was split by its segment count (ib_srp
# allows 12), which follows how fragmented the guest's memory had become:
# 2 commands per 1 MiB read for the target measured first, 4.4 for the
# next.
fio_opts() {
	fio_args=(--name="$2" --filename="/dev/$1" --direct=1 --ioengine=libaio
		--iomem=shmhuge --rw="$3" --bs="$4" --iodepth="$5" --size=512m
		--time_based --runtime="$6")
}

# Requests the disk completed: the commands the target received. An NVMe
# multipath head (nvmeXnY) counts none: its paths (nvmeXcZnY) do.
disk_requests() {
	local stats=("/sys/block/$1/stat")

	if [[ $1 =~ ^nvme([0-9]+)n([0-9]+)$ ]] &&
		compgen -G "/sys/block/nvme${BASH_REMATCH[1]}c*n${BASH_REMATCH[2]}" >/dev/null; then
		stats=(/sys/block/nvme"${BASH_REMATCH[1]}"c*n"${BASH_REMATCH[2]}"/stat)
	fi
	awk '{ n += $1 + $5 } END { print n }' "${stats[@]}"
}

# measure_perf BASE PERIOD FIO-ARGS...: fio under perf, the samples per
# symbol in BASE.perf. perf names every kernel sample's object
# [kernel.kallsyms], modules' too: each symbol's module comes from
# /proc/kallsyms (so do addresses perf could not resolve).
measure_perf() {
	local base=$1 period=$2
	shift 2
	timeout $((runtime + 120)) perf record -q -a -e cpu-clock -c "$period" -o /tmp/perf.data -- \
		fio "$@" >/dev/null 2>"$base.perf-record.err" || {
		cat "$base.perf-record.err"
		return 1
	}
	perf report -q -i /tmp/perf.data --stdio --no-children \
		--sort dso,sym -F sample,dso,sym >"$base.perf" 2>/dev/null || return 1
	rm -f /tmp/perf.data
}

# measure_insns BASE FIO-ARGS...: fio between two markers of the
# instruction counter; BASE.insns gets the instructions executed in
# between, per kernel address where a translation block starts.
measure_insns() {
	local base=$1
	shift
	"$insn_mark" || return 1
	timeout $((runtime + 120)) fio "$@" >/dev/null || return 1
	"$insn_mark" || return 1
	cp "$insn_counts" "$base.insns"
}

# run_jobs LABEL CH DISK: every job, warmed up, then measured.
run_jobs() {
	local label=$1 ch=$2 disk=$3 j name rw bs qd base period kind requests
	# Fill the disk so that reads read data.
	expect_ok fio --name=fill --filename="/dev/$disk" --direct=1 --ioengine=libaio \
		--iomem=shmhuge --rw=write --bs=1m --iodepth=8 --size=512m
	# Every text symbol, the kernel's too: under the counter a block's
	# owner is the symbol at or before its address.
	awk '$2 ~ /^[tT]$/' /proc/kallsyms >/tmp/kallsyms
	for j in "${jobs[@]}"; do
		read -r name rw bs qd <<<"$j"
		base=$SRPT_OUT/$label-ch$ch-$name
		period=$period_ns
		[ "$bs" != 1m ] || period=$period_1m_ns
		log "$label, $ch channel(s): $name (${warmup}s warm-up, ${runtime}s measured)"
		fio_opts "$disk" "$name" "$rw" "$bs" "$qd" "$warmup"
		fio "${fio_args[@]}" >/dev/null || fail "$label $name: warm-up fio failed"
		fio_opts "$disk" "$name" "$rw" "$bs" "$qd" "$runtime"
		set -- "${fio_args[@]}" --output-format=json --output="$base.json"
		requests=$(disk_requests "$disk")
		if [ -n "$insn_mark" ]; then
			kind=insns
			measure_insns "$base" "$@" || fail "$label $name: fio between counter marks failed"
		else
			kind=perf
			measure_perf "$base" "$period" "$@" || fail "$label $name: fio under perf failed"
		fi
		requests=$(($(disk_requests "$disk") - requests))
		python3 - "$kind" "$base.json" "$base.$kind" /tmp/kallsyms "$label" "$ch" "$name" "$period" \
			"${module[$label]}" "${core[$label]}" "$requests" >>"$out" <<'PY' || fail "$label $name: no result"
import bisect, json, re, sys
kind, fio, prof, kallsyms, label, ch, name, period, mod, core, requests = sys.argv[1:]
# address, symbol, owner ("[ib_srpt]", "[kernel]")
syms = sorted((int(f[0], 16), f[2], f[3] if len(f) > 3 else "[kernel]")
              for f in (l.split() for l in open(kallsyms)))
addrs = [s[0] for s in syms]
owner = {s[1]: s[2] for s in syms if s[2] in (f"[{mod}]", f"[{core}]")}
j = json.load(open(fio))["jobs"][0]
d = j["read"] if j["read"]["io_bytes"] else j["write"]
ios = d["total_ios"]
if not ios:
    sys.exit("no I/O")

def symbol_at(addr):
    i = bisect.bisect_right(addrs, addr) - 1
    return syms[i] if i >= 0 else (0, hex(addr), "[kernel]")

# ns of guest CPU per (owner, symbol): perf samples times the period, or
# instructions counted under -icount shift=0 (one per ns).
ns = {}
if kind == "perf":
    for line in open(prof):
        m = re.match(r"\s*(\d+)\s+(\S+)\s+\[(.)\]\s+(\S+)", line)
        if not m:
            continue
        n, dso, sym = int(m[1]) * int(period), m[2], m[4]
        if sym.startswith("0x") and addrs:
            sym = symbol_at(int(sym, 16))[1]
        key = (owner.get(sym, dso), sym)
        ns[key] = ns.get(key, 0) + n
else:
    for line in open(prof):
        f = line.split()
        if f[0] == "user":
            ns[("[user]", "user")] = int(f[1])
        elif f[0] == "unhashed":
            ns[("[kernel]", "unhashed")] = int(f[1])
        elif f[0] != "total":
            _, sym, where = symbol_at(int(f[0], 16))
            ns[(where, sym)] = ns.get((where, sym), 0) + int(f[1])
total = {"mod": 0, "core": 0, "busy": 0}
mod_syms = {}
for (where, sym), n in ns.items():
    if where == f"[{mod}]":
        total["mod"] += n
        mod_syms[sym] = n
    if where == f"[{core}]":
        total["core"] += n
    # A CPU waiting in the idle loop is not spent on I/O.
    if not re.search(r"idle|safe_halt|poll", sym):
        total["busy"] += n
us = {k: v / 1000 / ios for k, v in total.items()}
# The module's own profile, costliest first: us per I/O of each symbol.
with open(prof + ".module", "w") as f:
    for sym, n in sorted(mod_syms.items(), key=lambda kv: -kv[1]):
        print(f"{n / 1000 / ios:8.3f} {n:12d} {sym}", file=f)
# The whole guest's, with each symbol's owner: what a target costs elsewhere.
with open(prof + ".all", "w") as f:
    for (where, sym), n in sorted(ns.items(), key=lambda kv: -kv[1]):
        print(f"{n / 1000 / ios:8.3f} {n:12d} {where} {sym}", file=f)
print(label, ch, name, f"{d['iops']:.0f}", f"{d['bw'] / 1024:.1f}", f"{d['clat_ns']['mean'] / 1000:.0f}",
      ios, f"{us['mod']:.3f}", f"{us['core']:.3f}", f"{us['busy']:.3f}", f"{int(requests) / ios:.2f}")
PY
		pass "$label ch=$ch $name: $(tail -n1 "$out" | cut -d' ' -f4-)"
	done
}

# ---- LIO's SRP targets: the in-tree one and ours ----

srp_target() { # LABEL
	local label=$1 ch disk before after
	expect_ok tcli "/backstores/ramdisk create rd0 512M" \
		"/srpt create ib.$gid" \
		"/srpt/ib.$gid/luns create /backstores/ramdisk/rd0" \
		"/srpt/ib.$gid/acls create ib.$gid"
	expect_ok sh -c "echo 5555 >/sys/kernel/config/target/srpt/discovery_auth/rdma_cm_port"
	for ch in $channels; do
		before=$(kmem_kb)
		srp_login rxe0 "$gid" 10.200.0.1 5555 "ch_count=$ch"
		disk=$(srp_disk)
		after=$(kmem_kb)
		echo "$label $ch kmem-login-kb $((after - before))" >>"$out"
		run_jobs "$label" "$ch" "$disk"
		srp_logout
	done
	expect_ok tcli "clearconfig confirm=True"
	expect_ok rmdir /sys/kernel/config/target/srpt
	expect_ok rmmod ib_srpt
}

intree_target() {
	allow_intree_srpt
	expect_ok modprobe ib_srpt
	taint=$(</sys/module/ib_srpt/taint)
	[[ $taint != *O* ]] || fail "the module loaded as in-tree is out-of-tree (taint '$taint')"
	pass "in-tree ib_srpt loaded (taint '${taint:-none}')"
	srp_target in-tree
}

ours_target() {
	load_srpt
	srp_target ours
}

# ---- nvmet-rdma: a brd ramdisk of the same size as the namespace ----

nvme_disk() {
	local d i
	for ((i = 0; i < 100; i++)); do
		for d in /dev/nvme[0-9]*n[0-9]*; do
			[ -b "$d" ] && { echo "${d#/dev/}"; return 0; }
		done
		sleep 0.1
	done
	fail "no NVMe namespace appeared"
}

nvmet_target() {
	local ch disk before after
	expect_ok modprobe brd rd_nr=1 rd_size=524288
	expect_ok modprobe -a nvmet nvmet-rdma nvme-rdma
	nvmet_export /dev/ram0 10.200.0.1
	for ch in $channels; do
		before=$(kmem_kb)
		echo "transport=rdma,traddr=10.200.0.1,trsvcid=4420,nqn=$BENCH_NQN,nr_io_queues=$ch" \
			>/dev/nvme-fabrics || fail "nvme-rdma: connect failed"
		disk=$(nvme_disk)
		after=$(kmem_kb)
		pass "nvme-rdma connected: $disk, $ch I/O queue(s)"
		echo "nvmet $ch kmem-login-kb $((after - before))" >>"$out"
		run_jobs nvmet "$ch" "$disk"
		nvme_disconnect_all 30
	done
	nvmet_unexport
	expect_ok unload_modules nvme_rdma nvmet_rdma nvmet brd
}

for t in $target_order; do
	case "$t" in
	in-tree) intree_target ;;
	ours) ours_target ;;
	nvmet) nvmet_target ;;
	*) fail "unknown target '$t' in SRPT_BENCH_ORDER" ;;
	esac
done

# The transport's ceiling on the same device: perftest with RDMA/CM
# connection setup, 1 MiB messages. -F: TCG's clock would otherwise make
# perftest refuse to report.
perf_ceiling() { # TOOL
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
if [ -z "${SRPT_BENCH_NO_CEILING:-}" ]; then
	perf_ceiling ib_read_bw
	perf_ceiling ib_write_bw
fi

unload_all
check_dmesg
