#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Two hosts, the link drops during I/O (03-link-down.host): the target's
# side. It serves a ramdisk to the initiator, and when the initiator is
# done (reconnected, or failed over dev_loss_tmo and logged in again) and
# has logged out, the target holds no channel and no command: every
# channel the outage broke was released (its queue pair's retries ran
# out, or the initiator's new SINGLE login ended it), nothing is stuck.
# vm-timeout: 600
# vm-smp: 1
# vm-mem: 2048
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$SRPT_ROOT/tests/bed/lib.sh"

tcli_start
bed_net
load_srpt
mark=$(dmesg_mark)
bed_serve 64M
stats=$(srpt_stats "$tgid")

down=$(bed_get link-down 300)
log "the link is down for ${down}s; channels: $(srpt_object channels), commands: $(srpt_object commands)"
bed_get link-back $((down + 60)) >/dev/null
log "the link is back; channels: $(srpt_object channels), commands: $(srpt_object commands)"
bed_get initiator-done 500 >/dev/null
expect_objects "$base"
logins=$(dmesg_count_since "$mark" "ib_srpt: $(bed_dev 0) port 1: 10\\.201\\.0\\.2 logged in to")
pass "the initiator logged in $logins time(s) in all"
after=$(srpt_stats "$tgid")
bed_log_stats "$stats" "$after"
bed_target_end
