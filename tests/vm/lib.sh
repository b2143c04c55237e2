# SPDX-License-Identifier: GPL-2.0-only
# shellcheck shell=bash
# Helpers for the scenarios that scripts/vm runs INSIDE the test VM. Each
# scenario starts with
#
#   . "$SRPT_ROOT/tests/vm/lib.sh"
#
# and then checks things with expect_ok / expect_fail / expect_output /
# expect_dmesg / wait_for / pass / fail, one line each. The first failed
# check ends the scenario with status 1, so call them at the top level,
# not inside $(...). An unchecked command that fails ends it too (set -e).
# A scenario ends with unload_all (proof that everything unloads) and
# check_dmesg (no warning, no taint beyond O/E). tests/vm/01-load.sh is
# the example.
#
# Everything that could hang runs under `timeout` (SRPT_CMD_TIMEOUT
# seconds, 60 by default); scripts/vm bounds the whole scenario on top.
#
# Every program started costs ~0.15 s under TCG, a Python start of
# targetcli 2-4 s: the helpers batch work into few processes.
#
# Guest facts these helpers encode:
# - RDMA/CM cannot route to 127.0.0.1 even though rxe accepts lo, so rxe
#   sits on a dummy netdev with a guest-only address; the VM has no NIC.
# - targetcli-fb 2.1.53 fails every command without a system D-Bus
#   ("g-io-error-quark: Could not connect"; it asks tcmu-runner over it).
# - targetcli runs `modprobe ib_srpt` when /sys/kernel/config/target/srpt
#   is missing: modprobe.d blocks the in-tree module (insmod ignores it).
# - `targetcli clearconfig` leaves /sys/kernel/config/target/srpt behind,
#   which pins ib_srpt: rmdir it before rmmod.

set -Eeuo pipefail

: "${SRPT_ROOT:?run scenarios through scripts/vm}"
: "${SRPT_OUT:=/tmp}"
: "${SRPT_MODULE:=}"
: "${SRPT_KVER:=$(uname -r)}"
: "${SRPT_CMD_TIMEOUT:=60}"
# How much slower than Debian's kernel this one runs (scripts/vm: 5 on the
# debug kernel): wait_for's limits grow by it. A scenario's own deadline
# loops should multiply by it too.
: "${SRPT_VM_SLOWDOWN:=1}"
export SRPT_ROOT SRPT_OUT SRPT_MODULE SRPT_KVER SRPT_VM_SLOWDOWN

_vm_t0=${EPOCHREALTIME/./}
_vm_checks=0
# Output of the last expect_ok / expect_fail, for expect_output.
VM_LAST_OUTPUT=

# log MESSAGE: one line with the time since the scenario started.
log() {
	local us=$((${EPOCHREALTIME/./} - _vm_t0))
	printf '[%3d.%01ds] %s\n' $((us / 1000000)) $((us / 100000 % 10)) "$*"
}

pass() {
	_vm_checks=$((_vm_checks + 1))
	log "ok   $*"
}

fail() {
	log "FAIL $*"
	trap - ERR
	exit 1
}

_vm_err() {
	local rc=$1 line=$2 cmd=$3
	trap - ERR
	log "FAIL unexpected exit status $rc of: $cmd (${BASH_SOURCE[2]:-${BASH_SOURCE[1]}}:$line)"
	exit "$rc"
}
trap '_vm_err $? $LINENO "$BASH_COMMAND"' ERR

# Killed (the guest's scenario timeout sends TERM): say so, do not pass.
_vm_killed() {
	trap - ERR
	log "FAIL killed by SIG$1 (timed out?)"
	exit "$2"
}
trap '_vm_killed TERM 143' TERM
trap '_vm_killed INT 130' INT
trap '_vm_killed HUP 129' HUP

_vm_exit() {
	local rc=$?
	tcli_stop
	if [ "$rc" = 0 ]; then
		log "all $_vm_checks checks passed"
	else
		log "scenario failed (exit status $rc) after $_vm_checks passed checks"
	fi
}
trap _vm_exit EXIT

_indent() { sed 's/^/    | /'; }

# Programs run under timeout; shell functions and builtins (which timeout
# cannot run) directly: the helpers' functions bound what they start.
_vm_bounded() {
	case "$(type -t "$1")" in
	function | builtin | keyword) "$@" ;;
	*) timeout -k 5 "$SRPT_CMD_TIMEOUT" "$@" ;;
	esac
}

# expect_ok CMD...: CMD must succeed (in time). Its output goes to
# VM_LAST_OUTPUT and is shown only on failure.
expect_ok() {
	local rc=0
	VM_LAST_OUTPUT=$(_vm_bounded "$@" 2>&1) || rc=$?
	if [ "$rc" = 0 ]; then
		pass "$*"
		return 0
	fi
	[ -z "$VM_LAST_OUTPUT" ] || printf '%s\n' "$VM_LAST_OUTPUT" | _indent
	[ "$rc" != 124 ] || fail "$* (timed out after ${SRPT_CMD_TIMEOUT}s)"
	fail "$* (exit status $rc)"
}

# expect_fail CMD...: CMD must fail, and not by timing out.
expect_fail() {
	local rc=0
	VM_LAST_OUTPUT=$(_vm_bounded "$@" 2>&1) || rc=$?
	if [ "$rc" = 124 ] || [ "$rc" = 137 ]; then
		printf '%s\n' "$VM_LAST_OUTPUT" | _indent
		fail "$* (timed out after ${SRPT_CMD_TIMEOUT}s; expected a failure)"
	fi
	if [ "$rc" != 0 ]; then
		pass "fails as expected ($rc): $*"
		return 0
	fi
	[ -z "$VM_LAST_OUTPUT" ] || printf '%s\n' "$VM_LAST_OUTPUT" | _indent
	fail "$* succeeded; expected a failure"
}

# expect_output REGEX: the last expect_ok/expect_fail output matches (ERE).
expect_output() {
	if grep -qE -- "$1" <<<"$VM_LAST_OUTPUT"; then
		pass "output matches /$1/"
		return 0
	fi
	printf '%s\n' "$VM_LAST_OUTPUT" | _indent
	fail "output does not match /$1/"
}

# ere_quote TEXT: TEXT as an ERE matching itself (kernel releases hold
# '+' and '.').
ere_quote() {
	# shellcheck disable=SC2001 # a class of characters, not one string
	sed 's/[][\\.^$*+?(){}|]/\\&/g' <<<"$1"
}

# _vm_pass_line WHAT REGEX LOG: passes with the first line of LOG (kernel
# log lines) that matches REGEX (ERE), named WHAT; fails quietly if none.
# LOG is read whole, not piped from dmesg: grep leaving at its first
# match would kill dmesg with SIGPIPE and fail the pipeline (pipefail).
_vm_pass_line() {
	local line
	line=$(grep -E -m1 -- "$2" <<<"$3") || return 1
	pass "$1: ${line#\[*\] }"
}

# expect_dmesg REGEX: some kernel log line matches (ERE).
expect_dmesg() {
	_vm_pass_line dmesg "$1" "$(dmesg)" ||
		fail "no dmesg line matches /$1/ (scripts/vm shows the dmesg tail)"
}

# wait_for SECONDS DESCRIPTION CMD...: poll CMD (a program, function or
# builtin) until it succeeds; SECONDS times SRPT_VM_SLOWDOWN.
wait_for() {
	local secs=$(($1 * SRPT_VM_SLOWDOWN)) what=$2 deadline
	shift 2
	deadline=$((SECONDS + secs))
	until "$@" >/dev/null 2>&1; do
		[ "$SECONDS" -lt "$deadline" ] || fail "$what: not within ${secs}s"
		sleep 0.1
	done
	pass "$what"
}

# file_has FILE TEXT: FILE contains TEXT; no program started.
file_has() {
	local content
	# Not there yet is a plain "no": the substitution's failed redirection
	# would run the ERR trap (errtrace) in its subshell.
	[ -r "$1" ] || return 1
	content=$(<"$1") || return 1
	[[ $content == *"$2"* ]]
}

# ---------------------------------------------------------------------------
# Soft-RoCE.
# ---------------------------------------------------------------------------
_vm_rxe_devs=()
_vm_netdevs=()

# setup_rxe [NAME [ADDR/PREFIX [NETDEV [MAC]]]]: a dummy netdev with a
# guest-only address and an rxe device on it, port 1 ACTIVE. MTU 9000 gives
# the RoCE MTU 4096. A dummy's MAC (and so the GID) is random unless MAC
# is given.
setup_rxe() {
	local name=${1:-rxe0} addr=${2:-10.200.0.1/24} netdev=${3:-srpt0} mac=${4:-}
	# No stray dummy0 from the dummy module.
	echo 'options dummy numdummies=0' >/etc/modprobe.d/srpt-vm-dummy.conf
	timeout "$SRPT_CMD_TIMEOUT" modprobe -a dummy rdma_rxe
	_vm_netdevs+=("$netdev")
	printf '%s\n' "link add $netdev ${mac:+address $mac }type dummy" "link set $netdev mtu 9000" \
		"addr add $addr dev $netdev" "link set $netdev up" |
		timeout "$SRPT_CMD_TIMEOUT" ip -batch -
	_vm_rxe_devs+=("$name")
	timeout "$SRPT_CMD_TIMEOUT" rdma link add "$name" type rxe netdev "$netdev"
	wait_for 30 "$name port 1 ACTIVE on $netdev ($addr)" \
		file_has "/sys/class/infiniband/$name/ports/1/state" ACTIVE
}

# readd_rxe GID [NAME [NETDEV]]: NAME (rxe0), deleted, added again on the
# NETDEV (srpt0) setup_rxe made: port 1 ACTIVE, with the GID it had.
readd_rxe() {
	local name=${2:-rxe0} netdev=${3:-srpt0}
	expect_ok rdma link add "$name" type rxe netdev "$netdev"
	wait_for 30 "$name back on $netdev, port 1 ACTIVE" port_state "$name" ACTIVE
	expect_ok test "$(rxe_gid "$name")" = "$1"
}

# rxe_gid [DEV [PORT [INDEX]]]: the GID as 32 hex digits, no colons.
rxe_gid() {
	local gid
	gid=$(<"/sys/class/infiniband/${1:-rxe0}/ports/${2:-1}/gids/${3:-0}")
	gid=${gid//:/}
	[[ $gid =~ ^[0-9a-f]{32}$ ]] || fail "unexpected GID '$gid' of ${1:-rxe0}"
	printf '%s\n' "$gid"
}

# ---------------------------------------------------------------------------
# Modules.
# ---------------------------------------------------------------------------
_vm_block_conf=/etc/modprobe.d/srpt-vm-block-intree-ib_srpt.conf

# The in-tree ib_srpt must never stand in for ours. modprobe.d here is in
# the guest's tmpfs overlay of /etc: the host is untouched.
block_intree_srpt() {
	echo 'install ib_srpt /bin/false' >"$_vm_block_conf"
}

# For a scenario that wants the in-tree module on purpose (benchmarks).
allow_intree_srpt() {
	rm -f "$_vm_block_conf"
}

# LIO's db_root: without it target_core_mod logs an error when it loads
# (targetcli loads it too).
lio_db_root() {
	[ -d /etc/target ] || mkdir -p /etc/target
}

# slow_null_lun: /dev/nullb0, 1 GiB, memory-backed, completing each
# request after 100 ms (so that commands are caught executing in LIO's
# backend). Made through null_blk's configfs: its memory_backed module
# parameter only exists since 5.13. remove_slow_null_lun undoes it.
slow_null_lun() {
	local d=/sys/kernel/config/nullb/nullb0 a
	expect_ok modprobe null_blk nr_devices=0
	expect_ok mkdir "$d"
	for a in size=1024 memory_backed=1 irqmode=2 completion_nsec=100000000 power=1; do
		echo "${a#*=}" >"$d/${a%%=*}" || fail "null_blk: $a refused"
	done
	wait_for 10 "/dev/nullb0" test -b /dev/nullb0
}

remove_slow_null_lun() {
	echo 0 >/sys/kernel/config/nullb/nullb0/power
	expect_ok rmdir /sys/kernel/config/nullb/nullb0
	expect_ok modprobe -r null_blk
}

# load_srpt [PARAM=VALUE...]: target_core_mod, then our ib_srpt.ko, and
# proof that the loaded ib_srpt is ours (out-of-tree taint O; modinfo -F
# filename would name the in-tree file even now).
# shellcheck disable=SC2120 # parameters are optional
load_srpt() {
	local deps taint
	[ -n "$SRPT_MODULE" ] || fail "SRPT_MODULE is empty (scripts/vm --module none?)"
	block_intree_srpt
	lio_db_root
	# insmod resolves no dependencies: load the ones ours names first.
	deps=$(modinfo -F depends "$SRPT_MODULE")
	# shellcheck disable=SC2086 # one module name per word
	timeout "$SRPT_CMD_TIMEOUT" modprobe -a target_core_mod ${deps//,/ }
	expect_ok insmod "$SRPT_MODULE" "$@"
	taint=$(</sys/module/ib_srpt/taint)
	[[ $taint == *O* ]] || fail "the loaded ib_srpt is not out-of-tree (taint '$taint'): not ours"
	pass "ib_srpt is ours (taint $taint)"
}

# No udev in the guest, so nothing loads the SCSI disk and sg drivers.
load_scsi_initiator_bits() {
	timeout "$SRPT_CMD_TIMEOUT" modprobe -a sd_mod sg
}

# ---------------------------------------------------------------------------
# targetcli.
# ---------------------------------------------------------------------------
start_dbus() {
	[ ! -S /run/dbus/system_bus_socket ] || return 0
	mkdir -p /run/dbus
	timeout "$SRPT_CMD_TIMEOUT" dbus-daemon --system --fork
}

_vm_tcli_end='@@srpt-tcli-end@@'
_vm_tcli_status='@@srpt-tcli-status@@'
# targetcli's own shell, driven like `targetcli CMD` drives it, for
# batches of commands ended by an end line: each batch starts at the root
# with a fresh view of configfs and stops at its first error. One-shot
# (stdin ends after one batch): exits with the batch's status. Server
# (SRPT_TCLI_SERVER=1): answers each batch with a status line. The shell
# itself is made at the first batch: importing targetcli is what costs,
# and the modules may still be loading while it imports.
_vm_tcli_py='
import os, runpy, sys
g = runpy.run_path("/usr/bin/targetcli", run_name="srpt_vm_tcli")
END, STATUS = sys.argv[1], sys.argv[2]
server = os.environ.get("SRPT_TCLI_SERVER") == "1"
shell = root = None
status = 0
while True:
    line = sys.stdin.readline()
    if not line:
        break
    status = 0
    try:
        if root is None:
            shell = g["TargetCLI"]("~/.targetcli")
            root = g["UIRoot"](shell, as_root=True)
        root.refresh()
        shell._current_node = shell._root_node
    except Exception as e:
        print("targetcli: error: %s" % e, flush=True)
        status = 1
    while line and line.strip() != END:
        cmd = line.strip()
        line = sys.stdin.readline()
        if status or not cmd or cmd.startswith("#"):
            continue
        print("targetcli> " + cmd, flush=True)
        try:
            shell.run_cmdline(cmd)
        except Exception as e:
            print("targetcli: error: %s" % e, flush=True)
            status = 1
        sys.stdout.flush()
    if server:
        print("%s %d" % (STATUS, status), flush=True)
sys.exit(status)
'
_vm_tcli_pid=
_vm_tcli_w=
_vm_tcli_r=

# tcli_start: a persistent targetcli for the following tcli calls, so that
# only the first pays for Python's start. Call it at the top level (not in
# $(...)), early: it loads in the background while the scenario goes on.
# It talks over two FIFOs of our own (not coproc, whose fds and output
# bash drops when the process dies: a crash would leave no trace).
tcli_start() {
	local d=/run/srpt-tcli
	[ -z "$_vm_tcli_pid" ] || return 0
	start_dbus
	lio_db_root
	mkdir -p "$d"
	mkfifo "$d/in" "$d/out"
	SRPT_TCLI_SERVER=1 /usr/bin/python3 -u -c "$_vm_tcli_py" \
		"$_vm_tcli_end" "$_vm_tcli_status" <"$d/in" >"$d/out" 2>&1 &
	_vm_tcli_pid=$!
	# Same order as the server opens them: no deadlock.
	exec {_vm_tcli_w}>"$d/in" {_vm_tcli_r}<"$d/out"
}

tcli_stop() {
	local pid=$_vm_tcli_pid
	[ -n "$pid" ] || return 0
	_vm_tcli_pid=
	exec {_vm_tcli_w}>&- {_vm_tcli_r}<&-
	# It holds no state worth a graceful exit (nothing is saved).
	kill "$pid" 2>/dev/null || true
	wait "$pid" 2>/dev/null || true
	rm -rf /run/srpt-tcli
}

# tcli ['CMD [PARAM=VALUE...]'...]: runs each argument as one whole
# targetcli command (quote it: tcli 'clearconfig confirm=True'), or without
# arguments each line of stdin, in one targetcli start (or in the one of
# tcli_start). Stops at the first error: status 1.
tcli() {
	local cmds line deadline arg
	for arg in "$@"; do
		# `tcli clearconfig confirm=True` would be two commands.
		if [[ $arg =~ ^[A-Za-z_]+= ]]; then
			echo "tcli: '$arg' is no targetcli command: each argument is one whole command; quote it with its parameters"
			return 2
		fi
	done
	if [ $# -gt 0 ]; then
		cmds=$(printf '%s\n' "$@")
	else
		cmds=$(cat)
	fi
	if [ -z "$_vm_tcli_pid" ]; then
		start_dbus
		lio_db_root
		printf '%s\n%s\n' "$cmds" "$_vm_tcli_end" |
			timeout -k 5 "$SRPT_CMD_TIMEOUT" /usr/bin/python3 -c "$_vm_tcli_py" \
				"$_vm_tcli_end" "$_vm_tcli_status" 2>&1
		return
	fi
	# A dead server: the write fails (no SIGPIPE death) and the read below
	# shows what it said last, its traceback say.
	(
		trap '' PIPE
		printf '%s\n%s\n' "$cmds" "$_vm_tcli_end" >&"$_vm_tcli_w"
	) 2>/dev/null || true
	deadline=$((SECONDS + SRPT_CMD_TIMEOUT))
	while [ "$SECONDS" -lt "$deadline" ] &&
		IFS= read -r -t $((deadline - SECONDS + 1)) line <&"$_vm_tcli_r"; do
		case "$line" in
		"$_vm_tcli_status "*) return "${line##* }" ;;
		esac
		printf '%s\n' "$line"
	done
	if kill -0 "$_vm_tcli_pid" 2>/dev/null; then
		echo "tcli: targetcli did not answer within ${SRPT_CMD_TIMEOUT}s"
		return 124
	fi
	echo "tcli: the targetcli of tcli_start died"
	return 1
}

# ---------------------------------------------------------------------------
# Health and cleanup.
# ---------------------------------------------------------------------------
_vm_taint_letters=PFSRMBUDAWCIOELKXTN

# What check_dmesg fails on: warnings, BUGs and oopses; the sanitizers'
# reports (KASAN, UBSAN); lockdep's (circular or recursive locking, an
# inconsistent lock state, RCU misuse, its "INFO:" headers) and lockdep
# switching itself off; DEBUG_LIST and DEBUG_OBJECTS (ODEBUG) reports;
# kmemleak giving up (a leak check that could not see). The debug kernel
# (scripts/debug-kernel) is the one that prints most of these.
_vm_dmesg_bad='WARNING:|BUG:|Oops|general protection|KASAN|UBSAN|refcount_t:'
_vm_dmesg_bad+='|possible circular locking|possible recursive locking|inconsistent lock state'
_vm_dmesg_bad+='|suspicious RCU usage|INFO: |turning off the locking correctness validator'
_vm_dmesg_bad+='|list_add corruption|list_del corruption|ODEBUG:'
_vm_dmesg_bad+='|kmemleak: (Kernel memory leak detector disabled|Memory pool empty|Cannot allocate)'

# check_dmesg: no warning, BUG, oops, sanitizer, lockdep, list or object
# debugging report in the kernel log, no memory leak of ours (ib_srpt, or
# the test initiator srp_ibcm: kmemleak_scan) and no kernel taint beyond
# O (out-of-tree) and E (unsigned module).
check_dmesg() {
	local bad taint other i letters=
	kmemleak_scan
	bad=$(dmesg | grep -E -- "$_vm_dmesg_bad" || true)
	if [ -n "$bad" ]; then
		printf '%s\n' "$bad" | _indent
		fail "dmesg has warnings or errors (the whole reports are in dmesg.txt)"
	fi
	taint=$(</proc/sys/kernel/tainted)
	other=$((taint & ~(4096 | 8192)))
	if [ "$other" != 0 ]; then
		for ((i = 0; i < ${#_vm_taint_letters}; i++)); do
			if ((other >> i & 1)); then
				letters+=${_vm_taint_letters:i:1}
			fi
		done
		if ((other >> ${#_vm_taint_letters} != 0)); then
			letters+=" and unnamed bits"
		fi
		fail "kernel tainted $taint: $letters beyond O/E"
	fi
	pass "dmesg clean, taint $taint (O/E only)"
}

# ---------------------------------------------------------------------------
# kmemleak (the debug kernel only).
# ---------------------------------------------------------------------------
# Our modules, whose leaks fail a scenario: ib_srpt, and srp_ibcm, the
# test initiator of tests/ibcm.
_vm_our_modules=(ib_srpt srp_ibcm)
# Where their code lay, one "start end" line per load: a leak's backtrace
# names a module's functions only while it is loaded; after rmmod
# kmemleak prints their bare addresses, which these ranges attribute.
_vm_our_ranges=/run/srpt-vm-ours.ranges

# _vm_note_range MODULE: records the address range of MODULE (its core
# image from /proc/modules), if it is loaded.
_vm_note_range() {
	local name size _refs _deps _state addr _rest
	while read -r name size _refs _deps _state addr _rest; do
		[ "$name" = "$1" ] || continue
		[[ $addr =~ ^0x[0-9a-f]+$ ]] && [ "$addr" != 0x0000000000000000 ] || return 0
		# Wrapped to negative, as _vm_leak_is_ours compares them.
		echo "$((addr)) $((addr + size))" >>"$_vm_our_ranges"
	done </proc/modules
}

# rmmod: the real one (bounded), after noting where a module of ours lay
# when it is one going: every scenario's `rmmod ib_srpt` (or srp_ibcm)
# passes through here.
rmmod() {
	local m o
	for m in "$@"; do
		for o in "${_vm_our_modules[@]}"; do
			[ "$m" != "$o" ] || _vm_note_range "$m"
		done
	done
	timeout -k 5 "$SRPT_CMD_TIMEOUT" rmmod "$@"
}

# _vm_leak_is_ours: reads one kmemleak report block on stdin; succeeds if
# its backtrace is one of our modules': a function of theirs
# ("[ib_srpt]", "[srp_ibcm]") or a bare address where one lay
# (_vm_our_ranges).
_vm_leak_is_ours() {
	local block a lo hi addrs o
	block=$(cat)
	for o in "${_vm_our_modules[@]}"; do
		[[ $block != *"[$o]"* ]] || return 0
	done
	[ -s "$_vm_our_ranges" ] || return 1
	mapfile -t addrs < <(grep -oE '\] 0x[0-9a-f]{16}$' <<<"$block" | cut -c3-)
	for a in "${addrs[@]}"; do
		while read -r lo hi; do
			# Kernel addresses wrap to negative numbers in bash's
			# arithmetic, here and in the ranges alike: same order.
			if ((a >= lo && a < hi)); then
				return 0
			fi
		done <"$_vm_our_ranges"
	done
	return 1
}

# kmemleak_scan: where the kernel has kmemleak (the debug kernel), scans
# for leaks and fails on any whose backtrace is ours (ib_srpt's, or
# srp_ibcm's: _vm_our_modules), printing them;
# a no-op on other kernels. Leaks of other code (rdma_rxe, the RDMA core,
# LIO, boot-time allocations) are printed as information only: kmemleak
# reports false positives there (pointers kept only in hardware-style
# rings, in per-CPU data or in encoded form), and they are not this
# project's to fix. Objects count only once they are some seconds old
# (kmemleak's minimum age): scan, wait, scan again. Clears the report.
kmemleak_scan() {
	local f=/sys/kernel/debug/kmemleak report block ours=() others=() n
	if [ ! -e "$f" ] && [ -d /sys/kernel/debug ] && ! file_has /proc/mounts ' /sys/kernel/debug debugfs ' &&
		file_has /proc/filesystems debugfs; then
		timeout "$SRPT_CMD_TIMEOUT" mount -t debugfs debugfs /sys/kernel/debug || true
	fi
	[ -e "$f" ] || return 0
	# A scan walks all of memory: slow under TCG with KASAN.
	timeout -k 5 $((SRPT_CMD_TIMEOUT * 3)) sh -c "echo scan >$f" || fail "kmemleak scan failed or timed out"
	sleep 6
	timeout -k 5 $((SRPT_CMD_TIMEOUT * 3)) sh -c "echo scan >$f" || fail "kmemleak scan failed or timed out"
	report=$(<"$f")
	# One block per object, from its "unreferenced object" line on.
	while IFS= read -r -d $'\x1e' block; do
		[ -n "${block//[[:space:]]/}" ] || continue
		if _vm_leak_is_ours <<<"$block"; then
			ours+=("$block")
		else
			others+=("$block")
		fi
	done < <(awk '/^unreferenced object/ && NR > 1 { printf "\036" } { print } END { printf "\036" }' <<<"$report")
	echo clear >"$f" || true
	if [ ${#others[@]} -gt 0 ]; then
		log "info: kmemleak suspects ${#others[@]} objects of other code (not ${_vm_our_modules[*]}; not failing on them), the first ones:"
		n=0
		for block in "${others[@]}"; do
			printf '%s\n' "$block" | _indent
			n=$((n + 1))
			[ "$n" -lt 5 ] || break
		done
	fi
	if [ ${#ours[@]} -gt 0 ]; then
		printf '%s\n' "${ours[@]}" | _indent
		fail "kmemleak: ${#ours[@]} suspected leaks of ours (${_vm_our_modules[*]})"
	fi
	pass "kmemleak: no suspected leak of ours (${#others[@]} of other code)"
}

_vm_loaded() { [ -e "/sys/module/$1/refcnt" ]; }

# _vm_unload_order NAME...: the loaded ones and, before each, whatever
# holds it; sysfs only, no program started.
_vm_unload_order() {
	local m h
	for m in "$@"; do
		_vm_loaded "$m" || continue
		for h in "/sys/module/$m/holders/"*; do
			[ -e "$h" ] && _vm_unload_order "${h##*/}"
		done
		printf '%s\n' "$m"
	done
}

# unload_modules NAME...: those that are loaded, with their holders first
# and their unused dependencies after, in one modprobe.
unload_modules() {
	local order
	mapfile -t order < <(_vm_unload_order "$@" | awk '!seen[$0]++')
	[ ${#order[@]} -gt 0 ] || return 0
	timeout "$SRPT_CMD_TIMEOUT" modprobe -r -a "${order[@]}"
}

# unload_all: tears down what the helpers set up and proves that it all
# unloads: LIO config, ib_srpt, rxe and its netdev, target_core_mod and
# the RDMA core.
unload_all() {
	local n m
	# Any fabric or backstore object left? Then targetcli clears them.
	if compgen -G '/sys/kernel/config/target/*/*/tpgt_*' >/dev/null ||
		compgen -G '/sys/kernel/config/target/core/*_*/*' >/dev/null; then
		expect_ok tcli 'clearconfig confirm=True'
	fi
	tcli_stop
	# A fabric's directory pins its module (srpt: ib_srpt; targetcli may
	# have made others, e.g. iscsi); rmdir fails if anything is left in it.
	for n in /sys/kernel/config/target/*/; do
		n=${n%/}
		[ "${n##*/}" = core ] || [ ! -d "$n" ] || expect_ok rmdir "$n"
	done
	if _vm_loaded ib_srpt; then
		# rmmod, not modprobe -r: that would go by the in-tree module.
		expect_ok rmmod ib_srpt
	fi
	# Ours, and any other rxe device a scenario made by hand.
	for n in "${_vm_rxe_devs[@]}" /sys/class/infiniband/rxe*; do
		n=${n##*/}
		if [ -e "/sys/class/infiniband/$n" ]; then
			expect_ok rdma link delete "$n"
		fi
	done
	for n in "${_vm_netdevs[@]}"; do
		if [ -e "/sys/class/net/$n" ]; then
			expect_ok ip link del "$n"
		fi
	done
	# Soft-iWARP, built by scripts/build-siw and loaded by path.
	! _vm_loaded siw || expect_ok rmmod siw
	expect_ok unload_modules rdma_rxe target_core_mod rdma_cm ib_cm iw_cm ib_uverbs ib_core dummy
	for m in ib_srpt rdma_rxe target_core_mod ib_core; do
		! _vm_loaded "$m" || fail "$m still loaded"
	done
	pass "ib_srpt, rdma_rxe, target_core_mod and ib_core unloaded"
}

# rdma_link_delete DEV [SECS]: `rdma link delete DEV`, which must return
# within SECS (60). The RDMA core waits uninterruptibly for every client
# and every reference to let the device go, so a hang there cannot be
# killed: say whose part was done, put the blocked tasks into the kernel
# log (scripts/vm shows their stacks) and fail.
rdma_link_delete() {
	local dev=$1 secs=$((${2:-60} * SRPT_VM_SLOWDOWN)) mark pid deadline rc=0
	mark=$(dmesg_mark)
	rdma link delete "$dev" &
	pid=$!
	deadline=$((SECONDS + secs))
	while kill -0 "$pid" 2>/dev/null; do
		if [ "$SECONDS" -ge "$deadline" ]; then
			if [ "$(dmesg_count_since "$mark" "ib_srpt: $dev: removed\$")" -gt 0 ]; then
				log "ib_srpt let $dev go (\"$dev: removed\"); the RDMA core waits for another client or reference"
			else
				log "ib_srpt has not let $dev go (no \"$dev: removed\")"
			fi
			echo w >/proc/sysrq-trigger 2>/dev/null || true
			fail "rdma link delete $dev: not returned within ${secs}s (blocked tasks in dmesg)"
		fi
		sleep 0.1
	done
	wait "$pid" || rc=$?
	[ "$rc" = 0 ] || fail "rdma link delete $dev (exit status $rc)"
	pass "rdma link delete $dev"
}

# ---- ports scenarios ----
# Helpers of the scenarios 02-09: target port names, node ACLs, TPG and
# discovery attributes, module parameters, port events, device removal.
# Most of it is plain configfs: targetcli knows only the lower-case
# "ib.<GID>" form, and its refresh fails while a target port of another
# name exists (rtslib cannot parse it): remove those with cfs_drop_tport
# before the next tcli.

SRPT_CFS=/sys/kernel/config/target/srpt

# guid_name GID: the GUID-form target port name (xxxx:xxxx:xxxx:xxxx) of a
# GID of 32 hex digits (rxe_gid): its interface id.
guid_name() {
	local g=${1:16:16}
	printf '%s:%s:%s:%s\n' "${g:0:4}" "${g:4:4}" "${g:8:4}" "${g:12:4}"
}

# write_attr FILE VALUE: VALUE and a newline in one write(2), as echo.
# VALUE must hold no newline: bash flushes its stdout at each one.
write_attr() {
	printf '%s\n' "$2" >"$1"
}

_vm_short() {
	local p=${1#"$SRPT_CFS"/}
	printf '%s\n' "${p#/sys/module/ib_srpt/}"
}

# expect_attr FILE VALUE: FILE reads VALUE.
expect_attr() {
	local v
	v=$(<"$1") || fail "cannot read $1"
	[ "$v" = "$2" ] || fail "$1 reads '$v', expected '$2'"
	pass "$(_vm_short "$1") = $2"
}

# expect_attr_set FILE VALUE [READBACK]: writing VALUE succeeds and FILE
# then reads READBACK (VALUE by default).
expect_attr_set() {
	local file=$1 val=$2 want=${3-$2} out rc=0 v
	out=$(write_attr "$file" "$val" 2>&1) || rc=$?
	if [ "$rc" != 0 ]; then
		printf '%s\n' "$out" | _indent
		fail "writing '$val' to $file failed"
	fi
	v=$(<"$file")
	[ "$v" = "$want" ] || fail "$file reads '$v' after writing '$val'; expected '$want'"
	pass "$(_vm_short "$file") := '$val', reads $want"
}

# expect_attr_refused FILE VALUE [REGEX]: writing VALUE fails with an error
# matching REGEX ("Invalid argument" by default) and FILE keeps its value.
expect_attr_refused() {
	local file=$1 val=$2 re=${3:-Invalid argument} out rc=0 old v
	old=$(<"$file")
	out=$(write_attr "$file" "$val" 2>&1) || rc=$?
	[ "$rc" != 0 ] || fail "writing '$val' to $file succeeded; expected a refusal"
	if ! [[ $out =~ $re ]]; then
		printf '%s\n' "$out" | _indent
		fail "writing '$val' to $file: the error does not match /$re/"
	fi
	v=$(<"$file")
	[ "$v" = "$old" ] || fail "a refused write of '$val' changed $file from '$old' to '$v'"
	pass "$(_vm_short "$file") refuses '$val' ($re), keeps $old"
}

# expect_mkdir_refused REGEX DIR: mkdir DIR fails with an error matching
# REGEX ("File exists", "Invalid argument") and leaves no DIR behind.
expect_mkdir_refused() {
	local re=$1 dir=$2 out rc=0
	out=$(timeout "$SRPT_CMD_TIMEOUT" mkdir "$dir" 2>&1) || rc=$?
	[ "$rc" != 0 ] || fail "mkdir $dir succeeded; expected a refusal (/$re/)"
	if ! [[ $out =~ $re ]]; then
		printf '%s\n' "$out" | _indent
		fail "mkdir $dir: the error does not match /$re/"
	fi
	[ ! -e "$dir" ] || fail "mkdir $dir failed, yet $dir exists"
	pass "mkdir refused ($re), nothing created: $(_vm_short "$dir")"
}

# expect_entries DIR NAME...: DIR holds exactly these entries (any order).
expect_entries() {
	local dir=$1 e want have
	shift
	have=$(cd "$dir" && for e in *; do [ -e "$e" ] && printf '%s\n' "$e"; done | LC_ALL=C sort)
	want=$(printf '%s\n' "$@" | LC_ALL=C sort)
	[ $# -gt 0 ] || want=
	if [ "$have" != "$want" ]; then
		printf '%s\n' "$have" | _indent
		fail "$dir does not hold exactly: $*"
	fi
	pass "$(_vm_short "$dir") holds exactly $# entries"
}

# cfs_add_lun TPG_DIR N BACKSTORE_DIR: LUN N of the TPG, by hand.
cfs_add_lun() {
	mkdir "$1/lun/lun_$2" && ln -s "$3" "$1/lun/lun_$2/srpt_vm_lun"
}

# cfs_drop_tport NAME: removes $SRPT_CFS/NAME and everything in it, bottom
# up (mapped LUNs, ACLs, LUNs, TPGs), by hand.
cfs_drop_tport() {
	local t=$SRPT_CFS/$1 tpg d l
	for tpg in "$t"/tpgt_*; do
		[ -d "$tpg" ] || continue
		for d in "$tpg"/acls/*/lun_* "$tpg"/lun/lun_*; do
			[ -d "$d" ] || continue
			for l in "$d"/*; do
				[ ! -L "$l" ] || rm -f "$l"
			done
			rmdir "$d"
		done
		for d in "$tpg"/acls/*; do
			[ ! -d "$d" ] || rmdir "$d"
		done
		rmdir "$tpg"
	done
	rmdir "$t"
}

# backstore NAME: the configfs directory of the backstore NAME.
backstore() {
	local d
	for d in /sys/kernel/config/target/core/*/"$1"; do
		[ -d "$d" ] && { printf '%s\n' "$d"; return 0; }
	done
	fail "no backstore $1"
}

# expect_live 'KIND N'...: the core's live objects
# (/sys/kernel/debug/ib_srpt/objects) include these lines.
expect_live() {
	local f=/sys/kernel/debug/ib_srpt/objects content l
	file_has /proc/mounts ' /sys/kernel/debug debugfs ' ||
		mount -t debugfs debugfs /sys/kernel/debug
	content=$(<"$f") || fail "cannot read $f"
	for l in "$@"; do
		if [[ $'\n'$content$'\n' != *$'\n'"$l"$'\n'* ]]; then
			printf '%s\n' "$content" | _indent
			fail "live objects: no '$l'"
		fi
	done
	pass "live objects: $*"
}

# ---------------------------------------------------------------------------
# The kernel log since a mark: explicit marks (mark=$(dmesg_mark), then
# the *_since functions) and the scenario's current mark (klog_mark, then
# expect_klog / expect_no_klog / klog_has), both kept the same way.
# ---------------------------------------------------------------------------

# dmesg_mark: puts a unique mark into the kernel log and prints it.
dmesg_mark() {
	local m="srpt-vm: mark ${EPOCHREALTIME/./}"
	echo "$m" >/dev/kmsg
	printf '%s\n' "$m"
}

# _vm_dmesg_since MARK: the kernel log lines after MARK (all of it when
# MARK is empty), read whole: a reader that stops at its first match
# would kill dmesg with SIGPIPE (pipefail).
_vm_dmesg_since() {
	dmesg | awk -v m="$1" 'm == "" || found { print; next } index($0, m) { found = 1 }'
}

# dmesg_count_since MARK REGEX: how many kernel log lines after MARK match.
dmesg_count_since() {
	_vm_dmesg_since "$1" | grep -cE -- "$2" || true
}

# expect_dmesg_since MARK REGEX [COUNT]: a kernel log line after MARK
# matches (ERE); with COUNT, exactly COUNT lines do.
expect_dmesg_since() {
	local lines n
	lines=$(_vm_dmesg_since "$1" | grep -E -- "$2" || true)
	n=0
	[ -z "$lines" ] || n=$(wc -l <<<"$lines")
	if [ -n "${3:-}" ]; then
		[ "$n" = "$3" ] || fail "$n kernel log lines match /$2/ since the mark, not $3"
		pass "dmesg: $n lines match /$2/"
		return 0
	fi
	[ "$n" -gt 0 ] || fail "no kernel log line since the mark matches /$2/"
	lines=${lines%%$'\n'*}
	pass "dmesg: ${lines#\[*\] }"
}

# expect_no_dmesg_since MARK REGEX: no kernel log line after MARK matches
# (ERE); those that do are shown.
expect_no_dmesg_since() {
	local lines
	if lines=$(_vm_dmesg_since "$1" | grep -E -- "$2"); then
		printf '%s\n' "$lines" | _indent
		fail "kernel log lines since the mark match /$2/"
	fi
	pass "no kernel log line since the mark matches /$2/"
}

# wait_dmesg_since SECONDS MARK REGEX: until a kernel log line after MARK
# matches.
wait_dmesg_since() {
	local secs=$1 deadline
	deadline=$((SECONDS + secs))
	until _vm_pass_line dmesg "$3" "$(_vm_dmesg_since "$2")"; do
		[ "$SECONDS" -lt "$deadline" ] || fail "no kernel log line matches /$3/ within ${secs}s"
		sleep 0.3
	done
}

_vm_klog_mark=
# klog_mark: from here on expect_klog / expect_no_klog / klog_has look
# only at the kernel log lines that follow.
klog_mark() {
	_vm_klog_mark=$(dmesg_mark)
}

# expect_klog REGEX: a kernel log line since the last klog_mark
# matches (ERE).
expect_klog() {
	_vm_pass_line "dmesg (new)" "$1" "$(_vm_dmesg_since "$_vm_klog_mark")" ||
		fail "no dmesg line since the last mark matches /$1/"
}

# expect_no_klog REGEX: no kernel log line since the last klog_mark
# matches (ERE).
expect_no_klog() {
	local new lines
	new=$(_vm_dmesg_since "$_vm_klog_mark")
	if lines=$(grep -E -- "$1" <<<"$new"); then
		printf '%s\n' "$lines" | _indent
		fail "dmesg since the last mark has lines matching /$1/"
	fi
	pass "no dmesg line since the last mark matches /$1/"
}

# port_state DEV STATE: port 1 of the RDMA device DEV is in STATE (ACTIVE,
# DOWN); for wait_for.
port_state() {
	file_has "/sys/class/infiniband/$1/ports/1/state" "$2"
}

# expect_tport_taken NAME: mkdir $SRPT_CFS/NAME is refused because its
# RDMA port already has a target port of that name form: the core's
# EEXIST, logged as "... already exists" (LIO's mkdir reports every
# fabric_make_wwn failure as EINVAL), and nothing is created.
expect_tport_taken() {
	klog_mark
	expect_mkdir_refused 'Invalid argument' "$SRPT_CFS/$1"
	expect_klog "ib_srpt: [^ ]+ port [0-9]+: target port [0-9a-fx:]+ already exists\$"
}

# klog_has REGEX: some kernel log line since the last klog_mark matches
# (ERE); for wait_for.
klog_has() {
	local new
	new=$(_vm_dmesg_since "$_vm_klog_mark")
	grep -qE -- "$1" <<<"$new"
}

# ---- packages and systemd units ----
# The guest's /usr (and so /lib, /bin, /sbin: merged into /usr) is the
# host's, read-only: a package installs into an overlay on it, whose
# upper layer is in UPPER (a tmpfs directory, or one on a disk that
# survives a reboot), as scripts/vm lays tmpfs over /etc and /var.

# dir_overlay DIR UPPER: a writable DIR over what it shows now, changes
# in UPPER/<DIR's name>/u (kept there: laid over again at the next boot,
# it shows them again). /etc and /var may get one too: an overlay over
# scripts/vm's overlay.
dir_overlay() {
	local d=$2/${1#/}
	mkdir -p "$d/u" "$d/w"
	expect_ok mount -t overlay -o "lowerdir=$1,upperdir=$d/u,workdir=$d/w" overlay "$1"
}

# dpkg_quiet: no man-db trigger (mandb over the 9p root takes minutes
# under TCG); what dpkg installs is the same.
dpkg_quiet() {
	rm -f /var/lib/man-db/auto-update
}

# _vm_unit_lines UNIT KEY...: the lines KEY=VALUE of UNIT and its drop-ins
# (/lib/systemd/system/UNIT, then UNIT.d/*.conf there and in
# /etc/systemd/system, in that order), as "KEY VALUE". An empty
# assignment of a key resets its list, as systemd does.
_vm_unit_lines() {
	local unit=$1 f key line
	shift
	for f in "/lib/systemd/system/$unit" /lib/systemd/system/"$unit".d/*.conf \
		/etc/systemd/system/"$unit".d/*.conf; do
		[ -f "$f" ] || continue
		while IFS= read -r line; do
			for key in "$@"; do
				[[ $line == "$key="* ]] && printf '%s %s\n' "$key" "${line#"$key="}"
			done
		done <"$f"
	done | awk '{ k = $1; v = substr($0, length(k) + 2)
		if (v == "") { n[k] = 0; next }
		list[k, ++n[k]] = v; if (!(k in order)) { order[k] = ++nk; keys[nk] = k } }
		END { for (i = 1; i <= nk; i++) for (j = 1; j <= n[keys[i]]; j++) print keys[i], list[keys[i], j] }'
}

# unit_start UNIT: runs what systemd runs to start the oneshot UNIT, read
# from the installed unit and drop-ins: its EnvironmentFile= files, then
# each ExecStartPre= and ExecStart= in order ("-": a failure is ignored;
# otherwise it stops the start). Prints "unit: COMMAND" before each, and
# "unit: COMMAND: exit status N" after a failure. No shell: words split
# at blanks (these units quote nothing). Status: the failed command's, 0.
unit_start() {
	local unit=$1 key val ignore rc words=() envs=() cmds=() f
	while read -r key val; do
		case "$key" in
		EnvironmentFile) envs+=("$val") ;;
		# systemd runs every ExecStartPre= before the first ExecStart=.
		ExecStartPre) cmds+=("$val") ;;
		esac
	done < <(_vm_unit_lines "$unit" EnvironmentFile ExecStartPre)
	while read -r key val; do
		cmds+=("$val")
	done < <(_vm_unit_lines "$unit" ExecStart)
	[ ${#cmds[@]} -gt 0 ] || { echo "unit: no ExecStart= in $unit"; return 1; }
	(
		for f in "${envs[@]}"; do
			ignore=
			[[ $f != -* ]] || { ignore=1; f=${f#-}; }
			if [ -f "$f" ]; then
				set -a
				# shellcheck source=/dev/null
				. "$f"
				set +a
			elif [ -z "$ignore" ]; then
				echo "unit: EnvironmentFile $f is missing"
				exit 1
			fi
		done
		for val in "${cmds[@]}"; do
			ignore=
			[[ $val != -* ]] || { ignore=1; val=${val#-}; }
			read -ra words <<<"$val"
			echo "unit: ${words[*]}"
			rc=0
			"${words[@]}" || rc=$?
			if [ "$rc" != 0 ]; then
				echo "unit: ${words[*]}: exit status $rc"
				[ -n "$ignore" ] || exit "$rc"
			fi
		done
	)
}
