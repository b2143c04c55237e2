#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# An initiator process dies with its transfers outstanding, 50 times:
# srpi io (4 connections, QD 32, commands of up to 1 MiB, so that the
# target's RDMA READs and WRITEs are in flight) is killed with SIGKILL at
# a random moment 0.3-1.5 s into its I/O (or the first moment after it
# that the target holds commands); the first half with per-channel
# receive rings (use_srq=0), the second with the SRQ. The kernel closes
# the dead process's QPs and CM IDs; the target must release every
# channel each time (the core's channels 0, within 60 s; the release
# times are logged), and no block srpi read back before it died may have
# been wrong. At the end a fresh login serves verified I/O, and the
# core's live objects and the RDMA core's resources are at their
# baseline.
# SRPT_STRESS_SCALE=N (make check: 5) divides the 50 by N.
# vm-timeout: 2100
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$SRPT_ROOT/tests/vm/lib.sh"
# shellcheck source-path=SCRIPTDIR source=initiator.sh
. "$SRPT_ROOT/tests/vm/initiator.sh"

srp_loopback
srpi_setup
srpt_serve "$gid" 5555 128M
dest=10.200.0.1:5555
kills=50
stress_scale kills
srq_baselines "$gid"
res=$(rdma_res)
log "baselines: use_srq=0: ${bases[0]}; use_srq=1: ${bases[1]}; $res"
stats=$(srpt_stats "$gid")

outstanding=0 rel_ms=() c_all=0 busy_kills=0 max_qd=0
for ((i = 1; i <= kills; i++)); do
	srq=$((i > kills / 2 ? 1 : 0))
	if [ "$i" = $((kills / 2 + 1)) ]; then
		srpt_use_srq "$gid" 1
	fi
	objs=$(srpt_objects)
	[ "$objs" = "${bases[srq]}" ] || fail "kill $i: live objects '$objs', not the baseline '${bases[srq]}'"
	c0=$(srpt_counter "$gid" commands)
	srpi_io_live "$gid" /tmp/io.log 4 60 --dest "$dest" --qd 32 --bs-max 1048576 --seconds 600 --timeout 20
	rand_secs 300 1500
	pause=$rand_s
	nap "$pause"
	# Then the first moment (within 2 s) the target holds commands: srpi,
	# busy filling and checking buffers under emulation, often has few
	# outstanding.
	deadline=$((SECONDS + 2))
	while qd=$(srpt_counter "$gid" queue_depth) && [ "$qd" = 0 ] && [ "$SECONDS" -lt "$deadline" ]; do
		:
	done
	# bash reports a job killed by a signal on stderr ("Killed"): not
	# 50 times (the scenario's own output goes to stdout).
	exec {err}>&2 2>/dev/null
	kill -KILL "$srpi_pid"
	wait_object channels 0 60
	rel_ms+=("$waited_ms")
	srpi_wait 30
	exec 2>&"$err" {err}>&-
	[ "$srpi_rc" = 137 ] || { _indent </tmp/io.log; fail "kill $i: srpi io ended with status $srpi_rc before the SIGKILL"; }
	c=$(($(srpt_counter "$gid" commands) - c0))
	outstanding=$((outstanding + qd)) c_all=$((c_all + c))
	[ "$qd" = 0 ] || busy_kills=$((busy_kills + 1))
	[ "$qd" -le "$max_qd" ] || max_qd=$qd
	# Mismatches are printed as they are found, not only in the summary.
	srpi_io_result /tmp/io.log || true
	if [ "$io_bad_blocks" != 0 ]; then
		_indent </tmp/io.log
		fail "kill $i: srpi read back wrong data before it was killed"
	fi
	log "kill $i/$kills (use_srq=$srq): SIGKILL ${pause} s into the I/O, $qd commands outstanding at the target, $c commands served; all 4 channels released in $waited_ms ms"
done
IFS=$'\n' read -r -d '' -a sorted < <(printf '%s\n' "${rel_ms[@]}" | sort -n) || true
sum=0
for ms in "${rel_ms[@]}"; do
	sum=$((sum + ms))
done
pass "$kills srpi io processes killed, $busy_kills of them with commands outstanding at the target ($outstanding in all, $max_qd at most) ($c_all commands served, no wrong block read back); every channel released after each: ${sorted[0]} ms at least, $((sum / kills)) ms on average, ${sorted[${#sorted[@]} / 2]} ms in the median, ${sorted[-1]} ms at most"
after=$(srpt_stats "$gid")
log "target statistics over the kills: $(for n in commands bytes_read bytes_written aborted_tasks errors_send errors_rdma_read dropped_commands; do printf '%s %s ' "$n" "$(stat_delta "$stats" "$after" "$n")"; done)"

expect_objects "${bases[srq]}"
expect_srpi 120 io --dest "$dest" --seconds 10 --qd 32 --conns 4
srpi_io_result <(printf '%s\n' "$VM_LAST_OUTPUT") || fail "srpi io printed no summary"
[ "$io_ok" = 1 ] || fail "srpi io failed: $io_line"
pass "a fresh login after the kills: $io_cmds commands, $((io_wmib + io_rmib)) MiB, $io_verified blocks verified, 0 mismatches"
srpt_use_srq "$gid" 0
expect_objects "${bases[0]}"
expect_rdma_res "$res"
expect_ok tcli "clearconfig confirm=True"
unload_all
check_dmesg
