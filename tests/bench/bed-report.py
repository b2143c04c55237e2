#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""scripts/bench --hosts 2: the target machine's instructions per I/O, by owner.

Usage: bed-report.py OUT RUNS CHART-DATA|""

OUT/bootN/target holds, per target and job, the instructions the target
guest ran between the job's two markers (LABEL-JOB.insns: per kernel
address where a translation block starts, and user space as one count,
each with the further iterations of the rep string instructions there:
tests/bench/insn-count.c),
the text symbols of that boot (LABEL-JOB.kallsyms), and the kernel memory
in use before and after each login (LABEL-sN-before.kmem, -after.kmem);
OUT/bootN/initiator the job's fio JSON (LABEL-JOB.json) and the commands
the target received (LABEL-JOB.requests). Each block goes to the text
symbol at or before its address, each symbol to an owner:

  module     the target's transport module: ib_srpt, nvmet_rdma
  scsi/nvme  its SCSI or NVMe core: target_core_mod, nvmet
  backstore  the block device behind it: target_core_iblock (LIO's block
             backstore), brd, and the kernel's block layer
  rdma core  ib_core, rdma_cm, ib_cm, iw_cm
  rest       the rest of the kernel: memory (allocating, clearing and
             copying it, for whichever owner), scheduler, interrupts
  rxe+net    soft-RoCE, the network stack and the virtio NIC under it,
             and the CRC soft-RoCE computes: what an HCA does in silicon
  harness    the benchmark's own: user space (the guest's shell waiting
             for the next request) and 9p (the share it polls)
  idle       the idle loop (no work)

Target host cost = module + scsi/nvme + backstore + rdma core + rest: the
figure the benchmark judges by. Prints tables and the lines
"cost: JOB intree=N ours=N nvmet=N" (target host cost per I/O, mean of
the boots). A benchmark, not a test: no thresholds.
"""
import bisect
import glob
import json
import os
import re
import sys

TARGETS = ["in-tree", "ours", "nvmet"]
KEY = {"in-tree": "intree", "ours": "ours", "nvmet": "nvmet"}
OWNERS = ["module", "scsi/nvme", "backstore", "rdma core", "rest", "rxe+net", "harness"]
HOST = ["module", "scsi/nvme", "backstore", "rdma core", "rest"]
JOBS = ["randread-4k-qd1", "randread-4k-qd32", "randwrite-4k-qd1", "randwrite-4k-qd32",
        "read-1m-qd8", "write-1m-qd8"]
MODULE = {"in-tree": "ib_srpt", "ours": "ib_srpt", "nvmet": "nvmet_rdma"}
CORE = {"in-tree": "target_core_mod", "ours": "target_core_mod", "nvmet": "nvmet"}

BY_MODULE = {
    "target_core_iblock": "backstore", "brd": "backstore",
    "ib_core": "rdma core", "rdma_cm": "rdma core", "ib_cm": "rdma core", "iw_cm": "rdma core",
    "rdma_rxe": "rxe+net", "virtio_net": "rxe+net", "net_failover": "rxe+net",
    "failover": "rxe+net", "udp_tunnel": "rxe+net", "ip6_udp_tunnel": "rxe+net",
    "ipv6": "rxe+net", "virtio_ring": "rxe+net", "virtio": "rxe+net", "virtio_pci": "rxe+net",
    "virtio_pci_modern_dev": "rxe+net", "virtio_pci_legacy_dev": "rxe+net",
    "crc32_pclmul": "rxe+net",
    "9p": "harness", "9pnet": "harness", "9pnet_virtio": "harness", "netfs": "harness",
    "fscache": "harness",
}
# The kernel's own symbols, by name: its block layer, and the network
# path soft-RoCE drives (with the checksum and CRC it computes).
BLOCK = re.compile(r"^_*(blk|bio|bvec|submit_bio|bdev|disk_|part_stat|dd_|bfq_|kyber_|"
                   r"elv_|sbitmap|sbq_|rq_qos|wbt_|blkcg|ioc_|iolatency|bd_)")
NET = re.compile(r"^_*(skb|kfree_skb|consume_skb|alloc_skb|build_skb|napi|netif|net_|"
                 r"netdev|dev_queue|dev_hard_start|dev_gro|dev_kfree|dev_qdisc|validate_xmit|"
                 r"sch_direct|qdisc|pfifo|ip_|ip6_|ipv6_|udp|inet|eth_|neigh|dst_|fib|rt6?_|"
                 r"icmp|nf_|sk_|sock_|csum|crc32|gro_|tcp_|virtqueue|vring|vp_|virtnet|"
                 r"page_pool|xdp|flow_|arp|ndisc|ipv4|l3mdev|rps_|process_backlog|"
                 r"do_xdp|skb_|__skb|dql_|ethtool|rtnl|ip6t|ipt)")
P9 = re.compile(r"^_*(p9_|v9fs_|netfs_)")
IDLE = re.compile(r"^(do_idle|default_idle.*|arch_cpu_idle.*|cpu_idle_poll.*|cpuidle_.*|"
                  r".*safe_halt.*|cpu_startup_entry|mwait_idle.*|acpi_idle.*|intel_idle.*|"
                  r"poll_idle|amd_e400_idle|start_secondary)$")


# What "rest" holds, by kind: the memory helpers first (every owner's
# allocations are zeroed, by Debian's init_on_alloc), then the
# allocators, scheduling and work items, interrupts and softirqs.
REST_KINDS = [
    ("zero/copy", re.compile(r"^_*(memset|memcpy|memmove|clear_page|copy_page|copy_user|rep_)")),
    ("allocators", re.compile(r"^_*(kmem_cache|kmalloc|kfree|slab|___slab|kmem_|get_page_from_freelist|"
                              r"alloc_pages|free_unref|free_pcp|rmqueue|memcg|obj_cgroup|mod_objcg|"
                              r"page_|free_pages|mempool|cache_from_obj|should_failslab|new_slab|"
                              r"prep_new_page|post_alloc_hook|alloc_slab|refill_obj|consume_obj)")),
    ("scheduling", re.compile(r"^_*(schedule|process_one_work|worker_|queue_work|insert_work|wake_up|"
                              r"try_to_wake_up|ttwu|psi_|update_|enqueue|dequeue|sched_|pick_next|"
                              r"put_prev|set_next|select_task|switch_|finish_task|context_switch|"
                              r"native_sched_clock|reweight|check_preempt|resched|kthread|"
                              r"cond_resched|account_|cpuacct|cgroup_rstat|rcu_|raw_spin|_raw_|"
                              r"mutex_|down_|up_|complete|preempt|wq_|pwq_|idle_)")),
    ("irq/softirq", re.compile(r"^_*(irq|handle_|do_softirq|softirq|__do_softirq|tasklet|"
                               r"common_interrupt|asm_|sysvec|apic|lapic|hrtimer|tick_|timer|"
                               r"ktime|clockevents|local_bh|run_timer|do_irq|x2apic|native_apic)")),
]


def rest_kind(sym):
    return next((k for k, r in REST_KINDS if r.match(sym)), "other")


def owner(label, sym, where):
    if where == "user":
        return "harness"
    mod = where.strip("[]")
    if mod == MODULE[label]:
        return "module"
    if mod == CORE[label]:
        return "scsi/nvme"
    if mod in BY_MODULE:
        return BY_MODULE[mod]
    if mod != "kernel":
        return "rest"
    if IDLE.match(sym):
        return "idle"
    if BLOCK.match(sym):
        return "backstore"
    if NET.match(sym):
        return "rxe+net"
    if P9.match(sym):
        return "harness"
    return "rest"


def count(label, insns, kallsyms):
    """Instructions per owner, and per (owner, where, symbol), of one window."""
    syms = sorted((int(f[0], 16), f[2], f[3] if len(f) > 3 else "[kernel]")
                  for f in (line.split() for line in open(kallsyms)) if len(f) >= 3)
    addrs = [s[0] for s in syms]
    per_owner = {o: 0 for o in OWNERS + ["idle"]}
    per_owner.update({"rest:" + k: 0 for k, _ in REST_KINDS + [("other", None)]})
    per_owner["rep"] = 0
    per_sym = {}
    for line in open(insns):
        f = line.split()
        if f[0] == "total":
            continue
        if f[0] == "user":
            key = ("user", "user")
        elif f[0] == "unhashed":
            key = ("[kernel]", "unhashed")
        else:
            i = bisect.bisect_right(addrs, int(f[0], 16)) - 1
            key = (syms[i][2], syms[i][1]) if i >= 0 else ("[kernel]", f[0])
        n = int(f[1])
        per_owner["rep"] += int(f[2]) if len(f) > 2 else 0
        o = owner(label, key[1], key[0])
        per_owner[o] += n
        if o == "rest":
            per_owner["rest:" + rest_kind(key[1])] += n
        per_sym[(o,) + key] = per_sym.get((o,) + key, 0) + n
    return per_owner, per_sym


def main():
    out, runs, chart = sys.argv[1], int(sys.argv[2]), sys.argv[3]
    # rows[job][label] = [per-owner dict per I/O, one per boot]
    rows, iops, cmds, mem = {}, {}, {}, {}
    for b in range(1, runs + 1):
        tdir, idir = f"{out}/boot{b}/target", f"{out}/boot{b}/initiator"
        for path in sorted(glob.glob(f"{idir}/*.json")):
            base = os.path.basename(path)[:-5]
            label = next(t for t in TARGETS if base.startswith(t + "-"))
            job = base[len(label) + 1:]
            d = json.load(open(path))["jobs"][0]
            d = d["read"] if d["read"]["io_bytes"] else d["write"]
            ios = d["total_ios"]
            if not ios:
                sys.exit(f"{path}: no I/O")
            per_owner, per_sym = count(label, f"{tdir}/{base}.insns", f"{tdir}/{base}.kallsyms")
            rows.setdefault(job, {}).setdefault(label, []).append(
                {o: n / ios for o, n in per_owner.items()})
            iops.setdefault(job, {}).setdefault(label, []).append(d["iops"])
            req = int(open(f"{idir}/{base}.requests").read())
            cmds.setdefault(job, {}).setdefault(label, []).append(req / ios)
            # Where each owner's instructions go, costliest symbols first.
            with open(f"{tdir}/{base}.insns.all", "w") as f:
                for (o, where, sym), n in sorted(per_sym.items(), key=lambda kv: -kv[1]):
                    print(f"{n / ios:10.1f} {n:12d} {o:<10} {where} {sym}", file=f)
        for path in glob.glob(f"{tdir}/*-after.kmem"):
            base = os.path.basename(path)[:-len("-after.kmem")]
            m = re.match(r"(.*)-s(\d+)$", base)
            label, s = m[1], int(m[2])
            before = int(open(f"{tdir}/{base}-before.kmem").read())
            after = int(open(path).read())
            mem.setdefault(s, {}).setdefault(label, []).append((after - before) / s)

    def mean(v):
        return sum(v) / len(v) if v else float("nan")

    def host(d):
        return sum(d[o] for o in HOST)

    def fig(job, label, f):
        v = [f(d) for d in rows[job].get(label, [])]
        return mean(v) if v else None

    def ratio(a, b):
        return f"{a / b:.2f}" if a is not None and b else "-"

    # The initiator's order: the jobs at one session, then by sessions.
    def job_key(job):
        m = re.search(r"-s(\d+)$", job)
        return (int(m[1]) if m else 0, JOBS.index(job) if job in JOBS else len(JOBS), job)

    jobs = sorted(rows, key=job_key)
    print("\ntarget host cost: instructions per I/O on the target machine without soft-RoCE,"
          " its network path and the harness (mean of the boots)")
    print(f"  {'job':<24}" + "".join(f"{t:>10}" for t in TARGETS) + f"{'ours/in-tree':>14}{'ours/nvmet':>12}")
    for job in jobs:
        v = {t: fig(job, t, host) for t in TARGETS}
        print(f"  {job:<24}" + "".join(f"{v[t]:>10.0f}" if v[t] is not None else f"{'-':>10}" for t in TARGETS)
              + f"{ratio(v['ours'], v['in-tree']):>14}{ratio(v['ours'], v['nvmet']):>12}")

    print("\nby owner, instructions per I/O (module: ib_srpt or nvmet_rdma; scsi/nvme: LIO or nvmet;"
          " host: the target host cost; all: with rxe+net; rep iter: the further iterations of rep"
          " string instructions, bytes or words zeroed and copied, not instructions)")
    print(f"  {'job':<24}{'target':<9}" + "".join(f"{o:>11}" for o in OWNERS) + f"{'host':>9}{'all':>9}"
          f"{'rep iter':>10}")
    for job in jobs:
        for t in TARGETS:
            if t not in rows[job]:
                continue
            line = f"  {job:<24}{t:<9}" + "".join(f"{fig(job, t, lambda d, o=o: d[o]):>11.0f}" for o in OWNERS)
            line += f"{fig(job, t, host):>9.0f}{fig(job, t, lambda d: host(d) + d['rxe+net']):>9.0f}"
            line += f"{fig(job, t, lambda d: d['rep']):>10.0f}"
            print(line)

    kinds = [k for k, _ in REST_KINDS] + ["other"]
    print("\nwhat rest holds, instructions per I/O")
    print(f"  {'job':<24}{'target':<9}" + "".join(f"{k:>12}" for k in kinds))
    for job in jobs:
        for t in TARGETS:
            if t in rows[job]:
                print(f"  {job:<24}{t:<9}" + "".join(
                    f"{fig(job, t, lambda d, k=k: d['rest:' + k]):>12.0f}" for k in kinds))

    print("\nIOPS (the target's CPU under -icount bounds them: they compare nothing), and commands per I/O")
    for job in jobs:
        print(f"  {job:<24}" + "".join(
            f"{t:>9} {mean(iops[job].get(t, [])):>7.0f} {mean(cmds[job].get(t, [])):>5.2f}"
            for t in TARGETS if t in iops[job]))

    print("\nkernel memory per login on the target, kB (slab, page tables, vmalloc, stacks)")
    for s in sorted(mem):
        v = {t: mean(mem[s].get(t, [])) for t in TARGETS}
        print(f"  {s:>3} session(s)" + "".join(f"{t:>9} {v[t]:>7.0f}" for t in TARGETS)
              + f"  ours/in-tree {ratio(v['ours'], v['in-tree'])}")

    sess = sorted((int(m[1]), job) for job in jobs if (m := re.search(r"-s(\d+)$", job)))
    if sess:
        print("\ntarget host cost per I/O by sessions, relative to one session")
        one = {t: fig(sess[0][1], t, host) for t in TARGETS}
        for s, job in sess:
            print(f"  {s:>3} session(s)" + "".join(
                f"{t:>9} {ratio(fig(job, t, host), one[t]):>5}" for t in TARGETS if t in rows[job]))

    print()
    for job in jobs:
        print(f"cost: {job}" + "".join(
            f" {KEY[t]}={fig(job, t, host):.0f}" if fig(job, t, host) is not None else f" {KEY[t]}=-"
            for t in TARGETS))

    if chart:
        with open(chart, "w") as f:
            for job in jobs:
                f.write(f'"{job}" ' + " ".join(
                    f"{fig(job, t, host) or 0:.0f}" for t in TARGETS) + "\n")


main()
