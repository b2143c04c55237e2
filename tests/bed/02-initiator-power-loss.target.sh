#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Two hosts, the initiator loses power with I/O in flight, again and
# again (02-initiator-power-loss.host): the target's side. The LUN is a
# null_blk disk that completes each request after 100 ms, so that the
# target always holds commands when the power goes. After each power
# loss the target notices on its own (the transfers and responses of
# those commands to the dead peer run out of their queue pair's
# retries) and releases the channel and every command within 60 s; the
# time is measured from the moment the target sees the host's flag and
# logged per cycle, with the largest. What bounds it: the queue pair's
# local ACK timeout and retry count, both from the initiator's CM REQ.
# Over RDMA/CM on RoCE the REQ asks for 19 (4.096 us * 2^19 = 2.1 s per
# try; RDMA/CM's RoCE packet lifetime 18, plus one), and the initiator
# logs in with tl_retry_count=6 (bed_login): 7 tries, about 15 s
# (docs/testing.md).
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
slow_null_lun
bed_serve block:/dev/nullb0
stats=$(srpt_stats "$tgid")
cycles=$(bed_get cycles)
worst=0
for ((i = 1; i <= cycles; i++)); do
	bed_get "powered-off-$i" 300 >/dev/null
	now_ms
	t0=$now_ms
	held=$(srpt_counter "$tgid" queue_depth)
	deadline=$((SECONDS + 60 * SRPT_VM_SLOWDOWN))
	until [ "$(srpt_object channels)" = 0 ]; do
		if [ "$SECONDS" -ge "$deadline" ]; then
			{ rdma res show qp; srpt_stats "$tgid"; } 2>&1 | _indent
			fail "cycle $i: the channel of the powered-off initiator is still there after 60s"
		fi
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
bed_log_stats "$stats" "$after"
bed_put target-done

expect_ok tcli "clearconfig confirm=True"
remove_slow_null_lun
unload_all
check_dmesg
