#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# scripts/bench --hosts 2, the target's side (tests/bench/bed.initiator.sh
# drives). The target guest runs under -icount with one vCPU and QEMU's
# instruction counter (tests/bench/insn-count.c), whose counts land in
# /run/srpt-bed/insn-count.txt whenever the marker (insn-mark) runs. It
# serves one 512 MiB brd disk (/dev/ram0) through each target in turn:
# the in-tree ib_srpt and ours with LIO's block backstore, nvmet-rdma with
# the disk as its namespace. Then it does what the initiator asks, one
# request at a time (flags req-N, answered by ack-N):
#   serve LABEL           set up LABEL (in-tree, ours, nvmet) for as many
#                         initiator ports as the largest count of
#                         sessions in SRPT_BED_SESSIONS
#   kmem NAME             the kernel memory in use, kB, to NAME.kmem
#   count NAME            a marker, and the counts since the one before
#                         it to NAME.insns, the text symbols to
#                         NAME.kallsyms (module addresses move per load)
#   unserve LABEL         tear LABEL down
#   end                   check the log and leave
# All of it in SRPT_OUT. A benchmark, not a test: no thresholds.
# vm-timeout: 7200
# vm-smp: 1
# vm-mem: 3072
# shellcheck source-path=SCRIPTDIR source=../bed/lib.sh
. "$SRPT_ROOT/tests/bed/lib.sh"
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$SRPT_ROOT/tests/bench/lib.sh"

mark=${SRPT_BED_MARK:?scripts/bench passes the marker as --set mark=PATH}
counts=$BED/insn-count.txt
# As many initiator ports as the most sessions the initiator logs in.
sessions=0
for k in ${SRPT_BED_SESSIONS:-1 8 64}; do
	[ "$k" -le "$sessions" ] || sessions=$k
done

# The counter is trusted only once it counts a known loop exactly. It
# counts every process's user instructions, and the bed's watcher for
# the abort flag wakes once a second: a try it woke in is tried again.
for try in 1 2 3; do
	rm -f "$counts"
	"$mark" 5000000 || fail "insn-mark failed"
	n=$(awk '$1 == "user" { print $2 }' "$counts" 2>/dev/null)
	[ "$n" != 10000002 ] || break
	log "try $try: the counter counted ${n:-nothing}, not 10000002 user instructions, in a known loop"
done
[ "$n" = 10000002 ] ||
	fail "the instruction counter counted ${n:-nothing}, not 10000002 user instructions, in a known loop"
pass "instruction counter: a known loop of 10000002 instructions counted exactly"

tcli_start
bed_net
timeout "$SRPT_CMD_TIMEOUT" modprobe -a target_core_mod target_core_iblock ib_core rdma_cm
expect_ok modprobe brd rd_nr=1 rd_size=524288
lio_db_root
tgid=$(rxe_gid "$(bed_dev 0)")

# The initiator's port k (1..sessions): ib_srp's initiator_ext k and
# its link 0 port GUID (login, tests/bench/bed.initiator.sh).
srp_serve() { # LABEL
	local igid cmds=() k sg
	if [ "$1" = in-tree ]; then
		allow_intree_srpt
		expect_ok modprobe ib_srpt
		[[ $(</sys/module/ib_srpt/taint) != *O* ]] || fail "the loaded ib_srpt is not the kernel's own"
	else
		load_srpt
	fi
	igid=$(bed_get initiator-gid-0)
	cmds=("/backstores/block create blk0 /dev/ram0" "/srpt create ib.$tgid"
		"/srpt/ib.$tgid/luns create /backstores/block/blk0")
	for ((k = 1; k <= sessions; k++)); do
		cmds+=("/srpt/ib.$tgid/acls create ib.$(printf '%016x' "$k")${igid:16:16}")
	done
	expect_ok tcli "${cmds[@]}"
	expect_attr_set "$SRPT_CFS/discovery_auth/rdma_cm_port" "$BED_PORT"
	sg=$(</sys/module/ib_srpt/parameters/srpt_service_guid)
	printf '%s\n' "${sg#0x}" >"$BED/served"
}

srp_unserve() {
	expect_ok tcli "clearconfig confirm=True"
	expect_ok rmdir "$SRPT_CFS"
	expect_ok rmmod ib_srpt
}

# What a measured window costs the target is whatever runs in it: so
# between its two markers this guest only waits for the next request,
# with builtins alone (a stat over 9p and a sleep without a program, a
# few times a second; scripts/bench reports 9p and user space apart),
# and answers with an empty file (bed_put would start mv).
next_request() { # N: what and arg of request N
	local f=$BED/req-$1 deadline=$((SECONDS + 3600 * SRPT_VM_SLOWDOWN))
	while [ ! -e "$f" ]; do
		[ ! -e "$BED/abort" ] || fail "waiting for request $1: the bed aborted ($(<"$BED/abort"))"
		[ "$SECONDS" -lt "$deadline" ] || fail "no request $1 within an hour"
		nap 0.3
	done
	read -r what arg <"$f"
}

for ((n = 1; ; n++)); do
	next_request "$n"
	case "$what" in
	serve)
		case "$arg" in
		in-tree | ours) srp_serve "$arg" ;;
		nvmet)
			expect_ok modprobe -a nvmet nvmet-rdma
			nvmet_export /dev/ram0 "$(bed_addr target 0)"
			;;
		*) fail "serve: unknown target '$arg'" ;;
		esac
		log "serving $arg"
		;;
	kmem) kmem_kb >"$SRPT_OUT/$arg.kmem" ;;
	count)
		"$mark" || fail "insn-mark failed"
		[ "$arg" = - ] || {
			cp "$counts" "$SRPT_OUT/$arg.insns"
			awk '$2 ~ /^[tT]$/' /proc/kallsyms >"$SRPT_OUT/$arg.kallsyms"
		}
		;;
	unserve)
		case "$arg" in
		in-tree | ours) srp_unserve ;;
		nvmet)
			nvmet_unexport
			expect_ok unload_modules nvmet_rdma nvmet
			;;
		esac
		log "stopped serving $arg"
		;;
	end) ;;
	*) fail "unknown request '$what $arg'" ;;
	esac
	: >"$BED/ack-$n"
	[ "$what" != end ] || break
done
tcli_stop
expect_ok unload_modules brd
unload_all
check_dmesg
