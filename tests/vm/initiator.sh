# SPDX-License-Identifier: GPL-2.0-only
# shellcheck shell=bash
# The in-tree SRP initiator (ib_srp) inside the test VM, for scenarios that
# source it after lib.sh.

# srp_login DEV GID ADDR PORT [OPTIONS]: log in over RDMA/CM. With
# initiator_ext = the GID's first 8 bytes, the initiator port id is the
# port's GID, so a targetcli ACL ib.<GID> admits it.
srp_login() {
	local dev=$1 gid=$2 addr=$3 port=$4 opts=${5:-} sg
	timeout "$SRPT_CMD_TIMEOUT" modprobe ib_srp
	sg=$(</sys/module/ib_srpt/parameters/srpt_service_guid)
	sg=${sg#0x}
	local target="id_ext=$sg,ioc_guid=$sg,initiator_ext=${gid:0:16},dest=$addr:$port${opts:+,$opts}"
	local add=/sys/class/infiniband_srp/srp-$dev-1/add_target
	wait_for 10 "ib_srp sees $dev" test -w "$add"
	# A logout completes asynchronously: an immediate re-login may
	# find the old one still there (EEXIST); retry briefly.
	local i
	for i in $(seq 50); do
		if echo "$target" >"$add" 2>/dev/null; then
			pass "ib_srp logged in: $target"
			return 0
		fi
		sleep 0.2
	done
	echo "$target" >"$add" || fail "ib_srp login failed: $target"
}

# srp_disk: the SCSI disk of the (single) SRP target, once it appeared.
srp_disk() {
	local d
	for _ in $(seq 100); do
		# The disks hang under the SCSI host that owns the remote port.
		for d in /sys/class/srp_remote_ports/*/device/../target*/*/block/*; do
			[ -e "$d" ] && { echo "${d##*/}"; return 0; }
		done
		sleep 0.1
	done
	fail "no SRP disk appeared"
}

# srp_logout: every SRP remote port deleted.
srp_logout() {
	local p
	for p in /sys/class/srp_remote_ports/*; do
		[ -e "$p/delete" ] && echo 1 >"$p/delete"
	done
	wait_for 30 "SRP remote ports gone" sh -c '! ls /sys/class/srp_remote_ports/* >/dev/null 2>&1'
}
