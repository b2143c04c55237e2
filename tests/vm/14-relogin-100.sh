#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# 100 logins and logouts (ib_srp add_target, then delete of the remote
# port; ib_srp's default two channels each time), 50 with use_srq=0, then
# 50 with use_srq=1: every tenth login scans the LUN, which answers sg_inq,
# and the core counts the channels; every tenth logout the core's live objects
# (/sys/kernel/debug/ib_srpt/objects) come back to their baseline, so
# nothing grows, and the target has logged each channel's login and
# logout.
# vm-timeout: 600
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$SRPT_ROOT/tests/vm/lib.sh"
# shellcheck source-path=SCRIPTDIR source=initiator.sh
. "$SRPT_ROOT/tests/vm/initiator.sh"

srp_loopback
port=5555
srpt_serve "$gid" "$port" 4M
spec=$(srp_target_spec "$gid" 10.200.0.1 "$port")
add=$(_vm_srp_add rxe0)

# One login and logout with builtins only (no program started): the
# login (add_target) returns once every channel is up (and the LUNs are
# scanned); the logout (delete) is done once the remote port is gone.
relogin() {
	local i=$1 p deadline
	# The kernel log holds ~10 iterations: count them per ten.
	((i % 10 != 1)) || mark=$(dmesg_mark)
	# Only every tenth login scans the LUNs (scsi_mod's scan=sync, not
	# none): without the scan a login is just the channels' logins.
	if ((i % 10 == 0)); then
		echo sync >/sys/module/scsi_mod/parameters/scan
	else
		echo none >/sys/module/scsi_mod/parameters/scan
	fi
	# ib_srp forgets the last target a little after its remote port went
	# (EEXIST until then).
	deadline=$((SECONDS + 30))
	until echo "$spec" 2>/dev/null >"$add"; do
		[ "$SECONDS" -lt "$deadline" ] || fail "login $i failed for 30 s"
		sleep 0.05
	done
	if ((i % 10 == 0)); then
		disk=$(srp_disk)
		expect_ok sg_inq "/dev/$disk"
		expect_output 'Product identification: rd0'
		nch=$(<"$(srp_host)/ch_count")
		[ "$(srpt_object channels)" = "$nch" ] ||
			fail "login $i: the core counts $(srpt_object channels) channels, ib_srp $nch"
	fi
	for p in /sys/class/srp_remote_ports/*/delete; do
		echo 1 >"$p" || fail "logout $i failed"
	done
	deadline=$((SECONDS + 30))
	while compgen -G '/sys/class/srp_remote_ports/*' >/dev/null; do
		[ "$SECONDS" -lt "$deadline" ] || fail "logout $i: the remote port is still there after 30 s"
		sleep 0.05
	done
	if ((i % 10 == 0)); then
		expect_objects "$base"
		# Each login of a channel and each logout, logged by the target.
		expect_dmesg_since "$mark" "ib_srpt: rxe0 port 1: 10\\.200\\.0\\.1 logged in to 0x$gid" $((10 * nch))
		expect_dmesg_since "$mark" "ib_srpt: rxe0 port 1: 10\\.200\\.0\\.1 logged out" $((10 * nch))
		pass "$i logins and logouts"
	fi
}

logins=0
for srq in 0 1; do
	srpt_use_srq "$gid" "$srq"
	base=$(srpt_objects)
	log "baseline: $base"
	for ((n = 0; n < 50; n++)); do
		logins=$((logins + 1))
		relogin "$logins"
	done
done

expect_ok tcli "clearconfig confirm=True"
unload_all
check_dmesg
