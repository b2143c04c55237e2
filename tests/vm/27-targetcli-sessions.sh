#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# `targetcli sessions` shows SRP sessions: each node ACL's info file says
# who is logged in, in the format rtslib parses. With no login targetcli
# lists none; with ib_srp logged in with one and then four channels,
# `sessions` lists the session (its alias is the initiator port id, its
# sid the one the info file gives) and `sessions detail` its node ACL
# (not authenticated: SRP has none), mapped LUNs and every channel with
# its initiator address, RDMA/CM transport, its own cid and state
# LOGGED_IN; `sessions detail SID` picks it; after the logout targetcli
# lists no session again and the info file says "No active".
# vm-timeout: 500
# vm-smp: 4
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$SRPT_ROOT/tests/vm/lib.sh"
# shellcheck source-path=SCRIPTDIR source=initiator.sh
. "$SRPT_ROOT/tests/vm/initiator.sh"

srp_loopback
port=5555
srpt_serve "$gid" "$port" 16M
info=$(srpt_tpg "$gid")/acls/0x$gid/info

expect_ok tcli 'sessions detail'
expect_output '^\(no open sessions\)$'
expect_ok cat "$info"
expect_output "^No active SRP session for initiator 0x$gid\$"

for ch in 1 4; do
	log "---- ch_count=$ch ----"
	srp_login rxe0 "$gid" 10.200.0.1 "$port" "ch_count=$ch"
	srp_disk >/dev/null
	wait_object channels "$ch" 30

	expect_ok cat "$info"
	printf '%s\n' "$VM_LAST_OUTPUT" | _indent
	sid=$(sed -n 's/^LIO Session ID: \([0-9]*\) .*/\1/p' <<<"$VM_LAST_OUTPUT")
	[[ $sid =~ ^[1-9][0-9]*$ ]] || fail "no session id in $info"

	expect_ok tcli 'sessions'
	expect_output "^alias: 0x$gid"$'\t'"sid: $sid type: Normal session-state: LOGGED_IN\$"
	[ "$(grep -c '^alias:' <<<"$VM_LAST_OUTPUT")" = 1 ] || fail "targetcli lists more than one session"

	expect_ok tcli "sessions detail $sid"
	printf '%s\n' "$VM_LAST_OUTPUT" | _indent
	expect_output "^alias: 0x$gid"$'\t'"sid: $sid type: Normal session-state: LOGGED_IN\$"
	expect_output "^    name: ib\\.$gid \\(NOT AUTHENTICATED\\)\$"
	expect_output '^    mapped-lun: 0 backstore: ramdisk/rd0 mode: rw$'
	conns=$(grep -E '^    address: 10\.200\.0\.1 \(RDMA/CM\)  cid: [0-9]+ connection-state: LOGGED_IN$' \
		<<<"$VM_LAST_OUTPUT") || fail "no channel listed as a connection"
	[ "$(wc -l <<<"$conns")" = "$ch" ] || fail "$(wc -l <<<"$conns") connections listed, not $ch"
	cids=$(grep -o 'cid: [0-9]*' <<<"$conns" | sort -u | wc -l)
	[ "$cids" = "$ch" ] || fail "the $ch channels have $cids different cids"
	pass "sessions detail: $ch channels, each with its own cid, LOGGED_IN over RDMA/CM"

	srp_logout
	expect_ok tcli 'sessions'
	expect_output '^\(no open sessions\)$'
	expect_ok cat "$info"
	expect_output "^No active SRP session for initiator 0x$gid\$"
done

expect_fail tcli "sessions detail $sid"
expect_output "no session found with sid $sid"

unload_all
check_dmesg
