#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Access control changes under verified I/O, 100 times: the initiator's
# node ACL deleted and re-created (50 times) and the TPG disabled and
# enabled again (50 times), alternating; the first half with per-channel
# receive rings (use_srq=0), the second with the SRQ. In each cycle srpi
# io (2 connections, QD 16, up to 1 MiB per command, every block read
# back checked) runs when the ACL goes or the TPG is disabled: the target
# must log the initiator out ("logging out ...: its ACL or session was
# removed" / "its TPG was disabled"), release both channels and the
# session (the core's channels 0, bounded), and srpi's failure that
# follows must show no data mismatch. With the ACL back or the TPG
# enabled again, the next srpi io logs in again (the initiator
# reconnects). At the end the core's live objects are at their baseline
# and a fresh login serves verified I/O.
# SRPT_STRESS_SCALE=N (make check: 5) divides the 50s by N.
# vm-timeout: 3000
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$SRPT_ROOT/tests/vm/lib.sh"
# shellcheck source-path=SCRIPTDIR source=initiator.sh
. "$SRPT_ROOT/tests/vm/initiator.sh"

srp_loopback
srpi_setup
srpt_serve "$gid" 5555 64M
tcli_stop
tpg=$(srpt_tpg "$gid")
acl=$tpg/acls/0x$gid
dest=10.200.0.1:5555
each=50
stress_scale each
srq_baselines "$gid"
log "baselines: use_srq=0: ${bases[0]}; use_srq=1: ${bases[1]}"

who='10\.200\.0\.1'
declare -A faults=([acl]=0 [tpg]=0)
n_cmds=0 mib=0 verified=0 errors=0 outstanding=0 going_all=0 rel_ms=() first_error=''
for ((i = 1; i <= 2 * each; i++)); do
	srq=$((i > each ? 1 : 0))
	if [ "$i" = $((each + 1)) ]; then
		srpt_use_srq "$gid" 1
	fi
	objs=$(srpt_objects)
	[ "$objs" = "${bases[srq]}" ] || fail "cycle $i: live objects '$objs', not the baseline '${bases[srq]}'"
	srpi_io_then_pause "$gid" "$dest"
	outstanding=$((outstanding + qd))
	mark=$(dmesg_mark)
	if ((i % 2)); then
		what=acl why='its ACL or session was removed'
		# The mapped LUN's link (targetcli's name for it, or ours), then
		# the mapped LUN and the ACL.
		cfs_links "$acl/lun_0"
		{ rm -f "${cfs_links[@]}" && rmdir "$acl/lun_0" "$acl"; } || fail "cycle $i: deleting the ACL failed"
	else
		what=tpg why='its TPG was disabled'
		write_attr "$tpg/enable" 0 || fail "cycle $i: disabling the TPG failed"
	fi
	wait_object channels 0 60
	rel_ms+=("$waited_ms")
	srpi_wait 60
	if ! srpi_io_result /tmp/io.log || [ "$io_mismatches" != 0 ] || [ "$io_bad_blocks" != 0 ]; then
		_indent </tmp/io.log
		fail "cycle $i: srpi io found mismatches or printed no summary"
	fi
	[ "$srpi_rc" != 0 ] || fail "cycle $i: srpi io succeeded although it was logged out"
	n_cmds=$((n_cmds + io_cmds)) mib=$((mib + io_wmib + io_rmib))
	verified=$((verified + io_verified)) errors=$((errors + io_errors))
	[ -n "$first_error" ] || first_error=$io_first_error
	klog=$(_vm_dmesg_since "$mark")
	going=$(count_lines "$klog" "ib_srpt: rxe0 port 1: logging out $who: $why\$")
	gone=$(count_lines "$klog" "ib_srpt: rxe0 port 1: $who logged out\$")
	# srpi closes its other connection as soon as one is logged out: the
	# target may find only one of them still to log out.
	if [ "$going" -lt 1 ] || [ "$gone" != 2 ]; then
		printf '%s\n' "$klog" | _indent
		fail "cycle $i: the target logged $going logouts ($why), $gone channels logged out; expected 1 or 2, and 2"
	fi
	going_all=$((going_all + going))
	faults[$what]=$((faults[$what] + 1))
	if [ "$what" = acl ]; then
		{ mkdir -p "$acl/lun_0" && ln -s "$tpg/lun/lun_0" "$acl/lun_0/srpt_vm_lun"; } ||
			fail "cycle $i: re-creating the ACL failed"
	else
		write_attr "$tpg/enable" 1 || fail "cycle $i: enabling the TPG failed"
	fi
	log "cycle $i/$((2 * each)) (use_srq=$srq): $what after ${pause} s of I/O with $qd commands outstanding: $going of 2 channels logged out ($why), both released in $waited_ms ms; srpi io: $io_cmds commands, $io_verified blocks verified, 0 mismatches, $io_errors errors"
done
IFS=$'\n' read -r -d '' -a sorted < <(printf '%s\n' "${rel_ms[@]}" | sort -n) || true
pass "${faults[acl]} ACL deletions and ${faults[tpg]} TPG disables under I/O ($outstanding commands outstanding at them in all; the target logged out $going_all channels, srpi closed the others): $n_cmds commands, $mib MiB, $verified blocks verified by srpi, 0 mismatches, $errors commands failed; channels released in ${sorted[0]} ms at least, ${sorted[${#sorted[@]} / 2]} ms in the median, ${sorted[-1]} ms at most"
[ -z "$first_error" ] || log "the first command that failed: ${first_error#FAIL }"

expect_objects "${bases[1]}"
expect_srpi 120 io --dest "$dest" --seconds 10 --qd 16 --conns 2
srpi_io_result <(printf '%s\n' "$VM_LAST_OUTPUT") || fail "srpi io printed no summary"
[ "$io_ok" = 1 ] || fail "srpi io failed: $io_line"
pass "a fresh login after the churn: $io_cmds commands, $((io_wmib + io_rmib)) MiB, $io_verified blocks verified, 0 mismatches"
srpt_use_srq "$gid" 0
expect_objects "${bases[0]}"
tcli_start
expect_ok tcli "clearconfig confirm=True"
unload_all
check_dmesg
