#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Two hosts, the initiator loses power with I/O in flight, again and
# again (02-initiator-power-loss.host): the target's side. After each
# power loss the target notices on its own (its queue pair's transfers
# to the dead peer run out of retries) and releases the channel and
# every command within 60 s; the time is measured from the moment the
# target sees the host's flag and logged per cycle, with the largest.
# The last initiator logs in afresh and verifies I/O; at the end the
# live objects are back at baseline.
# vm-timeout: 1500
# vm-smp: 1
# vm-mem: 2048
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$SRPT_ROOT/tests/bed/lib.sh"

tcli_start
bed_net
load_srpt
bed_serve 256M
base=$(srpt_objects)
stats=$(srpt_stats "$tgid")
cycles=$(bed_get cycles)
worst=0
for ((i = 1; i <= cycles; i++)); do
	bed_get "powered-off-$i" 300 >/dev/null
	now_ms
	t0=$now_ms
	held=$(srpt_object commands)
	deadline=$((SECONDS + 60 * SRPT_VM_SLOWDOWN))
	until [ "$(srpt_object channels)" = 0 ]; do
		[ "$SECONDS" -lt "$deadline" ] || fail "cycle $i: the channel of the powered-off initiator is still there after 60s"
		nap 0.1
	done
	now_ms
	ms=$((now_ms - t0))
	[ "$ms" -le "$worst" ] || worst=$ms
	expect_objects "$base" 10
	log "cycle $i: channel released ${ms} ms after the power loss ($held commands held then)"
	bed_put "released-$i" "$ms"
done
pass "$cycles power losses: every channel released, the slowest after $worst ms"
bed_get initiator-done 300 >/dev/null
expect_objects "$base"
after=$(srpt_stats "$tgid")
log "statistics moved: $(for k in reads writes aborted_tasks; do printf '%s %s ' "$k" "$(stat_delta "$stats" "$after" "$k")"; done)"
bed_put target-done

expect_ok tcli "clearconfig confirm=True"
unload_all
check_dmesg
