#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# An administrator flips use_srq every 50 ms while an initiator logs in
# and out as fast as it can (srpi: 200 RDMA/CM logins, each with a TEST
# UNIT READY): logins that race a switch are refused or logged out, but
# none may hang, no QP may outlive the SRQ it uses (the kernel WARNs in
# ib_destroy_srq and __ib_drain_rq otherwise), and afterwards a fresh
# login serves verified I/O, nothing of the core is left, and ib_srpt
# unloads at once.
# vm-timeout: 900
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$SRPT_ROOT/tests/vm/lib.sh"
# shellcheck source-path=SCRIPTDIR source=initiator.sh
. "$SRPT_ROOT/tests/vm/initiator.sh"

srp_loopback
srpi_setup
srpt_serve "$gid" 5555 32M
use_srq=$(srpt_tpg "$gid")/attrib/use_srq
base=$(srpt_objects)

flip() {
	local i=0
	while :; do
		printf '%s\n' $((i++ % 2)) >"$use_srq" || exit 1
		sleep 0.05
	done
}
flip &
flipper=$!
expect_srpi 600 cycles --dest 10.200.0.1:5555 --count 200 --keep-going --timeout 20
kill "$flipper"
wait "$flipper" 2>/dev/null || true
flips=$(dmesg | grep -c 'logging out .*: use_srq changed' || true)
pass "use_srq switched while logins ran ($flips initiators logged out by a switch)"

for srq in 1 0; do
	srpt_use_srq "$gid" "$srq"
	expect_srpi 300 io --dest 10.200.0.1:5555 --seconds 10 --qd 16 --conns 2
done
# use_srq is 0 again, as at the start: the SRQ is gone too.
expect_objects "$base"
expect_ok tcli "clearconfig confirm=True"
SRPT_CMD_TIMEOUT=30 unload_all
check_dmesg
