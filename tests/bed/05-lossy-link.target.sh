#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Two hosts over a lossy link (05-lossy-link.host): the target's side.
# It serves a ramdisk while the wire loses 1 % and 5 % of the frames and
# then delays each by 50 ms; afterwards its live objects are back at
# baseline and it aborted no task. At 5 % a transfer of 1 MiB (256
# frames) can lose a frame on each of its 7 tries: the queue pair gives
# up (transport retry counter exceeded), as an HCA's would, the target
# logs that once and releases the channel, and the initiator reconnects.
# Only then may errors_send and errors_rdma_read move.
# vm-timeout: 900
# vm-smp: 1
# vm-mem: 2048
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$SRPT_ROOT/tests/bed/lib.sh"

tcli_start
bed_net
load_srpt
bed_serve 64M
stats=$(srpt_stats "$tgid")
mark=$(dmesg_mark)
bed_get initiator-done 800 >/dev/null
expect_objects "$base"
after=$(srpt_stats "$tgid")
bed_log_stats "$stats" "$after"
breaks=$(dmesg_count_since "$mark" 'ib_srpt: .*: transport retry counter exceeded$')
if [ "$breaks" -gt 0 ]; then
	log "the lossy wire broke the connection $breaks time(s): transport retry counter exceeded"
	expect_no_stat_errors "$stats" "$after" aborted_tasks -errors_send -errors_rdma_read
else
	expect_no_stat_errors "$stats" "$after" aborted_tasks
fi
bed_target_end
