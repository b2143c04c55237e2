#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Two hosts, the target's side: a ramdisk LUN behind a target port named
# after link 0's GID, an ACL for the initiator's port and the RDMA/CM
# listener. The initiator logs in over the link with ib_srp (RDMA/CM) and
# runs fio verify, then with srp_ibcm (IB/CM). After each the target has
# logged the login naming the initiator's address or port, and at the end
# its live objects are back at baseline, no statistic counted an error,
# everything unloads and dmesg is clean. With --set target=intree the
# kernel's own ib_srpt serves instead, for comparison: RDMA/CM only (it
# listens for IB/CM on InfiniBand ports alone), and without our counters.
# vm-timeout: 500
# vm-smp: 1
# vm-mem: 2048
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$SRPT_ROOT/tests/bed/lib.sh"

tcli_start
bed_net
if [ "${SRPT_BED_TARGET:-}" = intree ]; then
	allow_intree_srpt
	lio_db_root
	expect_ok modprobe ib_srpt
	[[ $(</sys/module/ib_srpt/taint) != *O* ]] || fail "the loaded ib_srpt is not the kernel's own"
	mark=$(dmesg_mark)
	bed_serve 64M
	bed_get rdmacm-done 400 >/dev/null
	expect_dmesg_since "$mark" "Received SRP_LOGIN_REQ"
	bed_get initiator-done 200 >/dev/null
	bed_target_end
	exit 0
fi
load_srpt
mark=$(dmesg_mark)
bed_serve 64M
stats=$(srpt_stats "$tgid")

bed_get rdmacm-done 400 >/dev/null
expect_dmesg_since "$mark" "ib_srpt: $(bed_dev 0) port 1: 10\\.201\\.0\\.2 logged in to 0x$tgid \\([0-9]+ credits, immediate data\\)"
[ "$(bed_get target-ipv6)" = no ] ||
	expect_dmesg_since "$mark" "ib_srpt: $(bed_dev 0) port 1: fd00:201::2 logged in to 0x$tgid"
expect_objects "$base"
if [ "$SRPT_BED_RDMA" = rxe ]; then
	bed_get ibcm-done 200 >/dev/null
	expect_objects "$base"
fi
after=$(srpt_stats "$tgid")
[ "$(stat_delta "$stats" "$after" writes)" -gt 0 ] || fail "the target counted no write"
[ "$(stat_delta "$stats" "$after" task_management)" = 1 ] || fail "not one task management request (the LUN reset)"
expect_no_stat_errors "$stats" "$after" aborted_tasks
bed_get initiator-done 200 >/dev/null
bed_target_end
