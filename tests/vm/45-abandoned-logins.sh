#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Logins the initiator gives up on: srpi cycles starts 40 RDMA/CM logins
# at once and waits only so long for them (--timeout: 0.25 s, then 3, 1,
# 0.5 and 2 s, so that some are abandoned before the target's CM saw the
# REQ, some while the target logs them in, some after its REP, whatever
# the host's load), then destroys their CM IDs and QPs: the CM rejects
# the logins still under way, and a REP that comes later for a destroyed
# ID finds nobody and goes unanswered. Five such runs; at least one login
# must have been abandoned: on a host fast enough that every login of the
# runs completed in time, up to four more runs halve the shortest wait.
# The target may keep a channel whose REP goes unanswered only until the
# CM gives up on the REP: the initiator's CM response timeout
# (librdmacm: 20, 4.3 s) times 15 retries is about 70 s; the bound here
# is 150 s. The scenario logs how many channels the core
# counts and the RC QPs' states after the runs, each change of the count
# with its time, the target's kernel log lines of that time and, from the
# IB CM's trace events (saved as cm-trace.txt in the results), how the
# abandoned logins ended and how long each unanswered REP was retried;
# then the live objects and the RDMA core's resources must be at their
# baseline, and a fresh login serves verified I/O.
# SRPT_STRESS_SCALE=N (make check: 5) divides the 5 runs by N.
# vm-timeout: 900
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$SRPT_ROOT/tests/vm/lib.sh"
# shellcheck source-path=SCRIPTDIR source=initiator.sh
. "$SRPT_ROOT/tests/vm/initiator.sh"

srp_loopback
srpi_setup
srpt_serve "$gid" 5555 16M
dest=10.200.0.1:5555
base=$(srpt_objects)
res=$(rdma_res)
# How long srpi waits for its 40 logins in each run: the shorter, the
# earlier in the login the initiator gives up (even before the target's
# CM has seen the REQ), whatever the host's load.
waits=(0.25 3 1 0.5 2)
runs=${#waits[@]}
stress_scale runs
# The IB CM's trace events (where the kernel has them) tell how each
# abandoned login ended: whose REJ or REP went unmatched, and when the
# target's CM gave up on a REP.
tr=/sys/kernel/tracing
cm_trace=0
[ -e "$tr/trace" ] || mount -t tracefs nodev "$tr" 2>/dev/null || true
# (ib_cm's events are in the trace system ib_cma.)
if [ -d "$tr/events/ib_cma/icm_send_rep" ]; then
	write_attr "$tr/buffer_size_kb" 8192
	for e in icm_send_rep icm_send_rej icm_send_rtu icm_remote_no_priv_err icm_mad_send_err; do
		write_attr "$tr/events/ib_cma/$e/enable" 1
	done
	write_attr "$tr/trace" ''
	write_attr "$tr/tracing_on" 1
	cm_trace=1
fi
stats=$(srpt_stats "$gid")
mark=$(dmesg_mark)
live_all=0
# srpi_abandon RUN WAIT: one run of 40 logins given up on after WAIT s.
srpi_abandon() {
	local r=$1 w=$2 rc=0 out live
	out=$(timeout -k 5 120 "$SRPI" cycles --dest "$dest" --conns 40 --timeout "$w" 2>&1) || rc=$?
	if [ "$rc" = 124 ] || [ "$rc" = 137 ]; then
		printf '%s\n' "$out" | _indent
		fail "srpi run $r hung"
	fi
	if [[ $out =~ ([0-9]+)\ of\ 40\ connections\ logged\ in ]]; then
		live=${BASH_REMATCH[1]}
	elif [[ $out == *'ok cycles: 40 logins'* ]]; then
		live=40
	else
		printf '%s\n' "$out" | _indent
		fail "srpi run $r did not say how many logins completed"
	fi
	live_all=$((live_all + live))
	log "run $r: srpi gave up after $w s with $live of 40 logins complete (exit status $rc); the core counts $(srpt_object channels) channels"
}
for ((r = 1; r <= runs; r++)); do
	srpi_abandon "$r" "${waits[r - 1]}"
done
w=${waits[0]}
for _ in 1 2 3 4; do
	[ "$live_all" -ge $((40 * runs)) ] || break
	w=$(awk -v w="$w" 'BEGIN { print w / 2 }')
	runs=$((runs + 1))
	srpi_abandon "$runs" "$w"
done
[ "$live_all" -lt $((40 * runs)) ] || fail "every login of $runs runs completed in time, even with $w s: no login was abandoned, the test proves nothing"
now_ms
t_end=$now_ms
mark2=$(dmesg_mark)
after=$(srpt_stats "$gid")
log "after the runs: $(srpt_objects); the RC QPs by owner and state: $(rc_qp_states); statistics: logins +$(stat_delta "$stats" "$after" logins), logouts +$(stat_delta "$stats" "$after" logouts), login_rejects +$(stat_delta "$stats" "$after" login_rejects)"

# Every change of the channel count, with its time, until 0 or 150 s.
last=$(srpt_object channels)
secs=0
while [ "$last" != 0 ]; do
	now_ms
	secs=$(((now_ms - t_end) / 1000))
	if [ "$secs" -ge 150 ]; then
		mapfile -t lines < <(_vm_dmesg_since "$mark2" | grep 'ib_srpt' || true)
		printf '%s\n' "${lines[@]:0:40}" | _indent
		fail "the target still holds $last channels 150 s after the initiator gave up on their logins (QPs: $(rc_qp_states)): never released"
	fi
	nap 0.5
	ch=$(srpt_object channels)
	if [ "$ch" != "$last" ]; then
		log "$(((now_ms - t_end) / 100 / 10)).$(((now_ms - t_end) / 100 % 10)) s after the runs: $ch channels (QPs: $(rc_qp_states))"
		last=$ch
	fi
done
now_ms
pass "every abandoned channel released $(((now_ms - t_end) / 1000)) s after the runs ended ($live_all logins had completed)"
if [ "$cm_trace" = 1 ]; then
	write_attr "$tr/tracing_on" 0
	cp "$tr/trace" "$SRPT_OUT/cm-trace.txt"
	# Per login (keyed by the initiator's CM ID): the target's REP, the
	# initiator's REJ when it gave up, a REP that found the initiator's
	# ID gone; the target's REPs that timed out, in order (each REP's
	# retries take equally long, so they end in the order they began).
	log "IB CM trace (all of it in cm-trace.txt): $(awk '
		{
			ev = ""
			for (i = 2; i <= NF; i++) {
				if ($i ~ /^icm_[a-z_]+:$/) {
					ev = substr($i, 1, length($i) - 1)
					t = $(i - 1)
					sub(/:$/, "", t)
					break
				}
			}
			if (ev == "") next
			loc = rem = st = why = ""
			for (; i <= NF; i++) {
				if ($i ~ /^local_id=/) loc = substr($i, 10)
				if ($i ~ /^remote_id=/) rem = substr($i, 11)
				if ($i ~ /^state=/) st = substr($i, 7)
				if ($i ~ /^reason=/) why = substr($i, 8)
			}
		}
		ev == "icm_send_rep" { reps++; rep_t[rem] = t; order[reps] = rem }
		ev == "icm_send_rej" && why ~ /TIMEOUT/ { rejs++; rej_t[loc] = t }
		ev == "icm_remote_no_priv_err" {
			if (!(rem in lost)) nopriv++
			lost[rem]++
			last[rem] = t
		}
		ev == "icm_mad_send_err" && st ~ /REP_SENT/ { errs++ }
		END {
			lo = hi = -1
			for (k = 1; k <= reps; k++) {
				r = order[k]
				early = (r in rej_t) && rej_t[r] + 0 < rep_t[r] + 0
				before += early
				if (!(r in lost) || lost[r] < 2) continue
				n++
				both += early
				d = last[r] - rep_t[r]
				if (lo < 0 || d < lo) lo = d
				if (d > hi) hi = d
				if (lost[r] > most) most = lost[r]
			}
			printf "%d REPs sent by the target; %d REJs (timeout) sent by the initiator as it gave up, %d of them before the target sent its REP for that login; %d REPs found the initiator'"'"'s ID gone (dropped without a reply)", reps, rejs, before + 0, nopriv + 0
			if (n > 0)
				printf "; for %d logins (%d of them with such an early REJ) the target'"'"'s CM sent the REP again and again to the gone ID, up to %d times, the last %.1f to %.1f s after the first", n, both, most, lo, hi
			printf "; %d REPs ended in a MAD timeout (REP_SENT, RESP_TIMEOUT_ERR)", errs + 0
		}' "$tr/trace")"
fi
klog=$(_vm_dmesg_since "$mark")
log "the target's kernel log over the runs: $(count_lines "$klog" 'ib_srpt: .*RDMA/CM login of') login requests, $(count_lines "$klog" 'ib_srpt: .* logged in to') logged in, $(count_lines "$klog" 'ib_srpt: .* logged out$') logged out, $(count_lines "$klog" 'ib_srpt: .*rejected login') rejected, $(count_lines "$klog" 'ib_srpt: .*still waiting') 'still waiting', $(count_lines "$klog" 'ib_srpt: .*connection failed: rejected \(CM event 8\)') 'connection failed' on a REJ (RDMA/CM event 8), $(count_lines "$klog" 'ib_srpt: .*connection failed: unreachable \(CM event 7\)') on an unanswered REP (event 7, UNREACHABLE)"
log "the target's kernel log lines of failures and logouts after the runs (the first 30):"
mapfile -t lines < <(_vm_dmesg_since "$mark2" | grep -E 'ib_srpt: .*(connection failed|logged out|rejected|still waiting)' || true)
[ ${#lines[@]} -gt 0 ] || lines=(none)
printf '%s\n' "${lines[@]:0:30}" | _indent
expect_objects "$base"
expect_rdma_res "$res"
expect_srpi 120 io --dest "$dest" --seconds 5 --qd 16 --conns 2
expect_objects "$base"
expect_ok tcli "clearconfig confirm=True"
unload_all
check_dmesg
