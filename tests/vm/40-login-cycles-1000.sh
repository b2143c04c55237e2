#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# 1,000 RDMA/CM logins and logouts in a row, each with a TEST UNIT READY
# (srpi cycles), in ten rounds: five with per-channel receive rings
# (use_srq=0), five with the shared receive queue (use_srq=1). After each
# round the target has counted every login and logout and refused none
# (statistics), the core's live objects and the RDMA core's resources
# (QPs, CQs, MRs, CM IDs) are back to their baseline, so nothing grows
# with the logins, and the kernel log has no warning. Then a login serves
# verified I/O.
# SRPT_STRESS_SCALE=N (make check: 5) divides the 1,000 by N.
# vm-timeout: 1800
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$SRPT_ROOT/tests/vm/lib.sh"
# shellcheck source-path=SCRIPTDIR source=initiator.sh
. "$SRPT_ROOT/tests/vm/initiator.sh"

srp_loopback
srpi_setup
srpt_serve "$gid" 5555 32M
cycles=1000
stress_scale cycles
round=$((cycles >= 10 ? cycles / 10 : 1))
rounds=$((cycles / round))
done_cycles=0
t_start=$SECONDS

for ((r = 0; r < rounds; r++)); do
	srq=$((r >= rounds / 2 ? 1 : 0))
	if [ "$r" = 0 ] || [ "$r" = $((rounds / 2)) ]; then
		srpt_use_srq "$gid" "$srq"
		base=$(srpt_objects)
		res=$(rdma_res)
		log "baseline (use_srq=$srq): $base"
	fi
	mark=$(dmesg_mark)
	stats=$(srpt_stats "$gid")
	expect_srpi $((60 + round * 3)) cycles --dest 10.200.0.1:5555 --count "$round" --timeout 20
	# srpi ends at the last DREP; the target counts that logout when it
	# has released the channel, which expect_objects waits for.
	expect_objects "$base"
	after=$(srpt_stats "$gid")
	logins=$(stat_delta "$stats" "$after" logins)
	logouts=$(stat_delta "$stats" "$after" logouts)
	rejects=$(stat_delta "$stats" "$after" login_rejects)
	if [ "$logins" != "$round" ] || [ "$logouts" != "$round" ] || [ "$rejects" != 0 ]; then
		fail "round $((r + 1)): the target counted $logins logins, $logouts logouts, $rejects rejects; expected $round, $round, 0"
	fi
	expect_rdma_res "$res"
	expect_no_warning_since "$mark"
	done_cycles=$((done_cycles + round))
	pass "round $((r + 1))/$rounds (use_srq=$srq): $done_cycles of $((rounds * round)) login/logout cycles done, each counted, none refused; no warning"
done
log "$done_cycles login/logout cycles in $((SECONDS - t_start)) s"

expect_srpi 120 io --dest 10.200.0.1:5555 --seconds 10 --qd 16 --conns 2
srpi_io_result <(printf '%s\n' "$VM_LAST_OUTPUT") || fail "srpi io printed no summary"
[ "$io_ok" = 1 ] || fail "srpi io failed: $io_line"
pass "verified I/O after the cycles: $io_cmds commands, $((io_wmib + io_rmib)) MiB, $io_verified blocks verified, 0 mismatches"
expect_objects "$base"
expect_rdma_res "$res"
expect_ok tcli "clearconfig confirm=True"
unload_all
check_dmesg
