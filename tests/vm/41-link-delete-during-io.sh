#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# The RDMA device goes away under verified I/O and comes back, 50 times.
# In each cycle srpi io (2 connections, QD 16, up to 1 MiB per command,
# every block read back checked) runs against the target port when
# `rdma link delete rxe0` removes the device: ib_srpt logs the channels
# out ("the RDMA device is going away"; srpi may close the second itself
# once the first is gone), releases both and lets the device go ("rxe0:
# removed"). srpi then fails, as it must; a data mismatch would fail the
# scenario. rxe0 is added again on the same netdev (same name, same GID;
# "rxe0: added"). The orphaned target port stays bound to its detached
# port (see 08-device-readd), so the cycle drops it and sets up the
# GID-form target port again (TPG, LUN, ACL, enable) as an administrator
# would, and the core's live objects are back to their baseline before
# the next cycle's login. Odd cycles run with use_srq=1 (the device's SRQ
# goes with it). At the end a fresh login serves verified I/O, and the
# live objects and the RDMA core's resources are at their baseline.
# ib_uverbs is loaded before ib_srpt: the RDMA core removes a device from
# its clients newest first, and rxe cannot disassociate a user context,
# so with ib_uverbs newer the removal would first wait for srpi to exit
# and ib_srpt would never see the device go under I/O.
# SRPT_STRESS_SCALE=N (make check: 5) divides the 50 by N.
# vm-timeout: 2700
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$SRPT_ROOT/tests/vm/lib.sh"
# shellcheck source-path=SCRIPTDIR source=initiator.sh
. "$SRPT_ROOT/tests/vm/initiator.sh"

srpi_setup
srp_loopback
srpt_serve "$gid" 5555 64M
tcli_stop
rd0=$(backstore rd0)
tport=$SRPT_CFS/0x$gid
tpg=$tport/tpgt_1
dest=10.200.0.1:5555
faults=50
stress_scale faults
srpt_use_srq "$gid" 1
base1=$(srpt_objects)
srpt_use_srq "$gid" 0
base=$(srpt_objects)
res=$(rdma_res)
log "baseline: $base; $res"

# setup_tport: the GID-form target port on the current rxe0, as
# srpt_serve made it (LUN 0 = rd0, the initiator's ACL, enabled); and
# drop_tport, its removal. Few programs: each costs under TCG.
setup_tport() {
	mkdir -p "$tpg/acls/0x$gid/lun_0" "$tpg/lun/lun_0" &&
		ln -s "$rd0" "$tpg/lun/lun_0/srpt_vm_lun" &&
		ln -s "$tpg/lun/lun_0" "$tpg/acls/0x$gid/lun_0/srpt_vm_lun" &&
		write_attr "$tpg/enable" 1
}
drop_tport() {
	cfs_links "$tpg/acls/0x$gid/lun_0" "$tpg/lun/lun_0"
	rm -f "${cfs_links[@]}" &&
		rmdir "$tpg/acls/0x$gid/lun_0" "$tpg/acls/0x$gid" "$tpg/lun/lun_0" "$tpg" "$tport"
}
# The first one as this scenario makes them (targetcli names links its way).
cfs_drop_tport "0x$gid"
setup_tport || fail "setting the target port up failed"

who='10\.200\.0\.1'
n_cmds=0 mib=0 verified=0 errors=0 del_ms=() outstanding=0 going_all=0 rr_all=0
for ((i = 1; i <= faults; i++)); do
	srq=$((i % 2))
	want=$base
	if [ "$srq" = 1 ]; then
		write_attr "$tpg/attrib/use_srq" 1 || fail "cycle $i: cannot set use_srq=1"
		want=$base1
	fi
	objs=$(srpt_objects)
	[ "$objs" = "$want" ] || fail "cycle $i: live objects '$objs', not the baseline '$want'"
	srpi_io_then_pause "$gid" "$dest"
	outstanding=$((outstanding + qd))
	mark=$(dmesg_mark)
	now_ms
	t0=$now_ms
	rdma_link_delete rxe0 120
	now_ms
	del_ms+=($((now_ms - t0)))
	srpi_wait 60
	if ! srpi_io_result /tmp/io.log || [ "$io_mismatches" != 0 ] || [ "$io_bad_blocks" != 0 ]; then
		_indent </tmp/io.log
		fail "cycle $i: srpi io found mismatches or printed no summary"
	fi
	[ "$srpi_rc" != 0 ] || fail "cycle $i: srpi io succeeded although its device went away"
	n_cmds=$((n_cmds + io_cmds)) mib=$((mib + io_wmib + io_rmib))
	verified=$((verified + io_verified)) errors=$((errors + io_errors))
	[ "$(srpt_object devices)" = 0 ] || fail "cycle $i: the core still counts a device after the removal"

	timeout -k 5 60 rdma link add rxe0 type rxe netdev srpt0 || fail "cycle $i: rdma link add rxe0 failed"
	deadline=$((SECONDS + 30))
	until port_state rxe0 ACTIVE; do
		[ "$SECONDS" -lt "$deadline" ] || fail "cycle $i: the new rxe0 is not ACTIVE within 30 s"
		nap 0.1
	done
	[ "$(rxe_gid rxe0)" = "$gid" ] || fail "cycle $i: the new rxe0 has another GID"
	klog=$(_vm_dmesg_since "$mark")
	[ "$(count_lines "$klog" 'ib_srpt: rxe0: added, 1 port')" = 1 ] ||
		fail "cycle $i: the target did not log the new rxe0"
	going=$(count_lines "$klog" "ib_srpt: rxe0 port 1: logging out $who: the RDMA device is going away\$")
	gone=$(count_lines "$klog" "ib_srpt: rxe0 port 1: $who logged out\$")
	removed=$(count_lines "$klog" 'ib_srpt: rxe0: removed$')
	# srpi closes its other connection as soon as one is logged out: the
	# target may find only one of them still to log out.
	if [ "$going" -lt 1 ] || [ "$gone" != 2 ] || [ "$removed" != 1 ]; then
		printf '%s\n' "$klog" | _indent
		fail "cycle $i: the target logged $going logouts for the device removal, $gone channels logged out, rxe0 removed $removed times; expected 1 or 2, 2, 1"
	fi
	going_all=$((going_all + going))
	# Commands whose RDMA READ found the queue closed by the removal
	# (the target logs it, LIO warns "Got unknown fabric queue status").
	rr=$(count_lines "$klog" 'ib_srpt: .*starting the RDMA READ of its data failed')
	rr_all=$((rr_all + rr))
	drop_tport || fail "cycle $i: dropping the orphaned target port failed"
	setup_tport || fail "cycle $i: setting the target port up again failed"
	log "cycle $i/$faults (use_srq=$srq): rxe0 deleted after ${pause} s of I/O with $qd commands outstanding (delete took ${del_ms[-1]} ms); srpi io: $io_cmds commands, $io_verified blocks verified, 0 mismatches, $io_errors errors; target: $going of 2 channels logged out for the removal, both released, rxe0 removed and added, target port set up again"
done
pass "$faults device removals under I/O ($outstanding commands outstanding at them in all; the target logged out $going_all channels for them, srpi closed the others): $n_cmds commands, $mib MiB, $verified blocks verified by srpi, 0 mismatches, $errors commands failed; the target logged $rr_all RDMA READs that could not start"
IFS=$'\n' read -r -d '' -a sorted < <(printf '%s\n' "${del_ms[@]}" | sort -n) || true
log "rdma link delete took ${sorted[0]} ms at least, ${sorted[${#sorted[@]} / 2]} ms in the median, ${sorted[-1]} ms at most"

expect_objects "$base"
expect_srpi 120 io --dest "$dest" --seconds 10 --qd 16 --conns 2
srpi_io_result <(printf '%s\n' "$VM_LAST_OUTPUT") || fail "srpi io printed no summary"
[ "$io_ok" = 1 ] || fail "srpi io failed: $io_line"
pass "a fresh login after the $faults removals: $io_cmds commands, $((io_wmib + io_rmib)) MiB, $io_verified blocks verified, 0 mismatches"
expect_objects "$base"
expect_rdma_res "$res"
expect_ok drop_tport
unload_all
check_dmesg
