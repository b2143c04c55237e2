#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# `rmmod ib_srpt` while it serves verified I/O, 50 times: srpi io (2
# connections, QD 16, up to 1 MiB per command, every block read back
# checked) runs while rmmod is attempted at random intervals (0.1-0.5 s).
# Every attempt must be refused at once ("in use": the srpt fabric's
# configfs directory holds the module), the module must stay live with
# its channels, the I/O must not notice (srpi ends with 0 mismatches and
# 0 errors), and the kernel log must say nothing about it. Once the I/O
# has stopped and the configuration is cleared, the first rmmod unloads
# the module, promptly.
# SRPT_STRESS_SCALE=N (make check: 5) divides the 50 by N.
# vm-timeout: 900
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$SRPT_ROOT/tests/vm/lib.sh"
# shellcheck source-path=SCRIPTDIR source=initiator.sh
. "$SRPT_ROOT/tests/vm/initiator.sh"

srp_loopback
srpi_setup
srpt_serve "$gid" 5555 64M
base=$(srpt_objects)
attempts=50
stress_scale attempts

srpi_io_live "$gid" /tmp/io.log 2 60 --dest 10.200.0.1:5555 --qd 16 --seconds 3600 --timeout 20
stats=$(srpt_stats "$gid")
mark=$(dmesg_mark)
refused=0 queued=0
for ((i = 1; i <= attempts; i++)); do
	rand_secs 100 500
	nap "$rand_s"
	queued=$((queued + $(srpt_counter "$gid" queue_depth)))
	rc=0
	out=$(rmmod ib_srpt 2>&1) || rc=$?
	if [ "$rc" = 0 ] || [[ $out != *'is in use'* ]]; then
		printf '%s\n' "$out" | _indent
		fail "rmmod attempt $i: exit status $rc; expected a refusal because the module is in use"
	fi
	if [ ! -e /sys/module/ib_srpt ] || [ "$(</sys/module/ib_srpt/initstate)" != live ]; then
		fail "rmmod attempt $i: ib_srpt is no longer live"
	fi
	srpi_alive || { _indent </tmp/io.log; fail "srpi io ended during rmmod attempt $i"; }
	[ "$(srpt_object channels)" = 2 ] || fail "rmmod attempt $i: the core counts $(srpt_object channels) channels, not 2"
	refused=$((refused + 1))
done
pass "$refused rmmod attempts refused during I/O (${out##*: }; $queued commands queued at the target at them in all); srpi io kept running on both channels"
klog=$(_vm_dmesg_since "$mark")
if grep -E 'ib_srpt|target_core|rdma|rxe' <<<"$klog"; then
	fail "the kernel log has lines of the target or the RDMA stack since the attempts began"
fi
pass "no kernel log line of the target, LIO or the RDMA stack during the attempts"
kill -INT "$srpi_pid"
srpi_wait 60
srpi_io_result /tmp/io.log || { _indent </tmp/io.log; fail "srpi io printed no summary"; }
if [ "$io_ok" != 1 ] || [ "$srpi_rc" != 0 ] || [ "$io_errors" != 0 ] || [ "$io_mismatches" != 0 ]; then
	_indent </tmp/io.log
	fail "srpi io failed (status $srpi_rc): $io_line"
fi
pass "srpi io during the attempts: $io_cmds commands, $((io_wmib + io_rmib)) MiB, $io_verified blocks verified, 0 mismatches, 0 errors"
after=$(srpt_stats "$gid")
expect_no_stat_errors "$stats" "$after"
expect_objects "$base"

expect_ok tcli "clearconfig confirm=True"
tcli_stop
for d in /sys/kernel/config/target/*/; do
	d=${d%/}
	[ "${d##*/}" = core ] || expect_ok rmdir "$d"
done
now_ms
t0=$now_ms
expect_ok rmmod ib_srpt
now_ms
[ ! -e /sys/module/ib_srpt ] || fail "ib_srpt is still there after rmmod"
expect_dmesg 'ib_srpt: SRP target unloaded$'
pass "rmmod ib_srpt unloaded the idle, unconfigured module at the first attempt, in $((now_ms - t0)) ms"
unload_all
check_dmesg
