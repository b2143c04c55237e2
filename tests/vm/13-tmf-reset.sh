#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Task management during I/O, with use_srq=0 and 1, on a LUN whose backend
# takes 100 ms per request. While fio writes blocks with crc32c headers
# over both of ib_srp's channels, 16 at a time on each:
# - `sg_reset --device` makes ib_srp send an SRP LUN RESET; LIO aborts
#   the commands executing on the LUN: those of the channel that carried
#   the LUN RESET without a response (the target counts aborted tasks):
#   ib_srp finds them timed out (the disk's SCSI timeout is 6 s here,
#   times SRPT_VM_SLOWDOWN) and aborts them with SRP ABORT TASK before
#   the SCSI layer retries them;
#   those of the other channel (another LIO session) with TASK ABORTED,
#   which the SCSI layer retries at once;
# - `sg_reset --target` escalates (ib_srp has no target reset) to a host
#   reset: ib_srp logs its channels out and in again, failing back and
#   retrying what was in flight.
# Both resets must succeed and fio then reads back and verifies what it
# wrote. A write that a reset aborts may come back to fio as an I/O error
# (EIO, accepted), never as data that verifies wrong; a separate
# write+verify pass afterwards must pass with 0 errors. After the logout
# the core's live objects are back at their baseline.
# vm-timeout: 600
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$SRPT_ROOT/tests/vm/lib.sh"
# shellcheck source-path=SCRIPTDIR source=initiator.sh
. "$SRPT_ROOT/tests/vm/initiator.sh"

srp_loopback
port=5555
# The LUN: a memory-backed null_blk that completes each request after
# 100 ms, so that a reset finds commands executing in LIO's backend.
slow_null_lun
expect_ok tcli "/backstores/block create nb0 /dev/nullb0" "/srpt create ib.$gid" \
	"/srpt/ib.$gid/luns create /backstores/block/nb0" "/srpt/ib.$gid/acls create ib.$gid"
expect_ok sh -c "echo $port >/sys/kernel/config/target/srpt/discovery_auth/rdma_cm_port"
# LIO logs each command that a LUN reset aborts ("LUN_RESET: ITT[...]"),
# with pr_debug(): the kernel needs CONFIG_DYNAMIC_DEBUG.
srpt_objects >/dev/null # mounts debugfs
ddebug=/sys/kernel/debug/dynamic_debug/control
[ -e "$ddebug" ] || fail "no $ddebug: this kernel has no CONFIG_DYNAMIC_DEBUG, which shows what LIO's LUN reset aborts"
echo 'file target_core_tmr.c +p' >"$ddebug"
fio_common=(--direct=1 --ioengine=libaio --verify=crc32c --randrepeat=0)

# fio_start NAME: fio writes blocks with crc32c headers in the
# background, then reads them back and verifies them, ten times over (so
# that a slow guest still finds it writing): one job per CPU, so per
# channel, on its own half of 16 MiB, 16 writes at a time each. Returns
# once every channel has 4 commands in flight (a reset that finds one
# channel idle proves nothing there); sets fio_pid and fio_out.
fio_start() {
	fio_out=/tmp/fio-$1.out
	fio --output-format=terse --direct=1 --ioengine=libaio --filename="/dev/$disk" \
		--name="$1" --numjobs=2 --cpus_allowed=0-1 --cpus_allowed_policy=split \
		--rw=randwrite --bsrange=4k-256k --iodepth=16 --size=8m --offset_increment=8m \
		--loops=10 --verify=crc32c --do_verify=1 --randrepeat=0 >"$fio_out" 2>&1 &
	fio_pid=$!
	local deadline=$((SECONDS + 60 * SRPT_VM_SLOWDOWN))
	while ! _each_channel_busy 4; do
		if ! kill -0 "$fio_pid" 2>/dev/null; then
			_indent <"$fio_out"
			fail "fio $1 ended before the reset"
		fi
		[ "$SECONDS" -lt "$deadline" ] ||
			fail "fio $1: not 4 commands in flight on each of $nch channels within" \
				"$((60 * SRPT_VM_SLOWDOWN)) s (in flight: ${_busy[*]})"
		sleep 0.05
	done
	pass "fio $1 is writing (in flight per channel: ${_busy[*]})"
}

# _each_channel_busy N: each of ib_srp's channels, which are the disk's
# blk-mq hardware queues, has N requests in flight; _busy holds the counts.
_each_channel_busy() {
	local q n ok=0
	_busy=()
	for ((q = 0; q < nch; q++)); do
		n=$(wc -l <"/sys/kernel/debug/block/$disk/hctx$q/busy") || return 1
		_busy+=("$n")
		[ "$n" -ge "$1" ] || ok=1
	done
	return "$ok"
}

# fio_end: fio_start's fio ended: with 0 errors, or with EIO only.
fio_end() {
	local rc=0 err
	wait_for 120 "fio ended" _fio_ended
	wait "$fio_pid" || rc=$?
	VM_LAST_OUTPUT=$(<"$fio_out")
	fio_summary
	if [ "$rc" = 0 ]; then
		pass "fio wrote and verified across the reset, 0 errors"
		return 0
	fi
	_indent <"$fio_out"
	# Aborted I/O (EIO), never data that verifies wrong (EILSEQ).
	err=$(awk -F';' '$1 == 3 && $5 != 0 && $5 != 5 { print $3 ": error " $5 }' "$fio_out")
	[ -z "$err" ] || fail "fio failed (status $rc): $err"
	grep -q '^3;' "$fio_out" || fail "fio failed (status $rc) without a result"
	pass "fio saw EIO from aborted commands (accepted), no wrong data"
}

# rxe_retries: rxe0's counters of retransmissions and RNR NAKs, which
# make 6.1's rxe run a local operation again ("name value" lines).
rxe_retries() {
	local n hw=/sys/class/infiniband/rxe0/ports/1/hw_counters
	for n in rcvd_rnr_err send_rnr_err completer_retry_err retry_exceeded_err rcvd_seq_err; do
		[ -e "$hw/$n" ] && echo "$n $(<"$hw/$n")"
	done
	return 0
}

# rxe_retries_since BEFORE: how those counters grew since rxe_retries
# printed BEFORE, on one line.
rxe_retries_since() {
	awk 'NR == FNR { b[$1] = $2; next } { printf "%s%s +%d", s, $1, $2 - b[$1]; s = "," }' \
		<(printf '%s\n' "$1") <(rxe_retries)
}

# settle_reconnects: ib_srp reconnects reconnect_delay seconds after its
# connection broke even when error handling reconnected it sooner: that
# second reconnect must not fall into the next reset.
settle_reconnects() {
	local p delay=10
	for p in /sys/class/srp_remote_ports/*/reconnect_delay; do
		[ -e "$p" ] && delay=$(<"$p")
	done
	[[ $delay =~ ^[0-9]+$ ]] || delay=10
	sleep $((delay + 2 * SRPT_VM_SLOWDOWN))
	wait_for 60 "the SRP remote port is running" _rport_running
}

_rport_running() { [ "$(srp_rport_state)" = running ]; }

# abort_report MARK RXE ZERO: what explains an abort that never reached
# the target: what ib_srp, SCSI, rxe and the target logged since MARK (its
# errors, resets and reconnects), how rxe's retransmissions grew since
# rxe_retries printed RXE, and ib_srp's credits (zero_req_lim: how often
# it found none; ZERO before).
abort_report() {
	local h
	_vm_dmesg_since "$1" |
		awk '/ib_srp|scsi host|rdma_rxe|ib_srpt/ && !/SRP abort called|Sending SRP abort|LUN_RESET: ITT/' |
		head -n 60 | _indent
	h=$(srp_host)
	log "rxe since the reset: $(rxe_retries_since "$2")"
	log "ib_srp: req_lim $(<"$h/req_lim"), zero_req_lim +$(($(<"$h/zero_req_lim") - $3))"
}

_fio_ended() { ! kill -0 "$fio_pid" 2>/dev/null; }

for srq in 0 1; do
	log "---- use_srq=$srq ----"
	srpt_use_srq "$gid" "$srq"
	base=$(srpt_objects)
	srp_login rxe0 "$gid" 10.200.0.1 "$port"
	disk=$(srp_disk)
	nch=$(<"$(srp_host)/ch_count")
	# Short, so that ib_srp aborts what the LUN reset ended silently; on a
	# slowed-down kernel as much longer as everything else, or live
	# commands time out too and their late responses race the aborts.
	echo $((6 * SRPT_VM_SLOWDOWN)) >"/sys/block/$disk/device/timeout"

	# LUN reset. Which commands are executing on which channel at the
	# instant of the reset is up to the guest's scheduler: a reset that
	# found none of its own channel's, or none of the other's, proves
	# nothing there, and is tried again (at most three times).
	broke=
	for try in 1 2 3; do
		mark=$(dmesg_mark)
		stats=$(srpt_stats "$gid")
		hw=$(rxe_retries)
		zero=$(<"$(srp_host)/zero_req_lim")
		fio_start lun-reset
		expect_ok sg_reset --device "/dev/$disk"
		fio_end
		after=$(srpt_stats "$gid")
		expect_no_stat_errors_since "$mark" "$stats" "$after"
		# ib_srp says "Sending SRP abort" before it tries: on its broken
		# connection nothing left it, the LUN RESET included (then error
		# handling reset the host instead). This reset proves nothing.
		if rxe_replayed_local_op "$mark"; then
			broke=$try
			log "reset $try: the initiator's connection broke (rxe since the reset:" \
				"$(rxe_retries_since "$hw")): again"
			settle_reconnects
			continue
		fi
		broke=
		expect_dmesg_since "$mark" "SRP reset_device called"
		expect_dmesg_since "$mark" "LUN_RESET: TMR caller fabric: srpt initiator port 0x$gid"
		expect_dmesg_since "$mark" "LUN_RESET: TMR for \\[iblock\\] Complete"
		tmfs=$(stat_delta "$stats" "$after" task_management)
		aborted=$(stat_delta "$stats" "$after" aborted_tasks)
		lio=$(dmesg_count_since "$mark" "LUN_RESET: ITT")
		srp=$(dmesg_count_since "$mark" "Sending SRP abort for tag")
		[ "$aborted" -ge 1 ] && [ "$lio" -gt "$aborted" ] && break
		log "reset $try found $aborted commands of its own channel and" \
			"$((lio - aborted)) of the other executing: again"
	done
	[ -z "$broke" ] ||
		fail "the initiator's connection broke during the last of three LUN resets: nothing to judge"
	# LIO aborts silently what came over the channel of the LUN RESET
	# (ib_srp's first), and answers TASK ABORTED for what came over the
	# other channel: a session of its own for LIO.
	[ "$aborted" -ge 1 ] || fail "the LUN reset aborted no command of its own channel"
	[ "$lio" -gt "$aborted" ] || fail "three LUN resets aborted no command of the other channel"
	if [ "$srp" -lt 1 ] || [ "$tmfs" -lt $((1 + srp)) ]; then
		abort_report "$mark" "$hw" "$zero"
		fail "$tmfs task management requests, $srp SRP aborts: expected a LUN RESET and ABORT TASKs"
	fi
	pass "the LUN reset aborted $lio commands in flight: $aborted silently (ib_srp aborted" \
		"$srp after their timeout: $tmfs task management requests in all)," \
		"$((lio - aborted)) with TASK ABORTED"

	# Target reset, which becomes a host reset: a relogin of every channel.
	mark=$(dmesg_mark)
	fio_start target-reset
	expect_ok sg_reset --target "/dev/$disk"
	expect_dmesg_since "$mark" "SRP reset_host called"
	expect_dmesg_since "$mark" "ib_srp: reconnect succeeded"
	wait_dmesg_since 30 "$mark" "ib_srpt: rxe0 port 1: 10\\.200\\.0\\.1 logged out"
	fio_end
	[ "$(srpt_object channels)" = "$nch" ] ||
		fail "the core counts $(srpt_object channels) channels, ib_srp $nch"

	# Everything still works: write and verify the whole LUN.
	expect_fio "${fio_common[@]}" --verify_fatal=1 --name=after-resets --filename="/dev/$disk" \
		--rw=randwrite --bsrange=512-1m --iodepth=16 --size=8m
	srp_logout
	expect_objects "$base"
done

expect_ok tcli "clearconfig confirm=True"
remove_slow_null_lun
unload_all
check_dmesg
