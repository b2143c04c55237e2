#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Two hosts over a lossy link (05-lossy-link.host): the target's side.
# It serves a ramdisk while the wire loses 1 % and 5 % of the frames and
# then delays each by 50 ms; afterwards its live objects are back at
# baseline, and it aborted no task and counted no error.
# vm-timeout: 900
# vm-smp: 1
# vm-mem: 2048
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$SRPT_ROOT/tests/bed/lib.sh"

tcli_start
bed_net
load_srpt
bed_serve 64M
base=$(srpt_objects)
stats=$(srpt_stats "$tgid")
bed_get initiator-done 800 >/dev/null
expect_objects "$base"
after=$(srpt_stats "$tgid")
log "statistics moved: $(for k in reads writes aborted_tasks; do printf '%s %s ' "$k" "$(stat_delta "$stats" "$after" "$k")"; done)"
expect_no_stat_errors "$stats" "$after"
bed_put target-done
expect_ok tcli "clearconfig confirm=True"
unload_all
check_dmesg
