# SPDX-License-Identifier: GPL-2.0-only
# shellcheck shell=bash
# Helpers for the two-host scenarios of scripts/bed, inside either guest
# (SRPT_BED_ROLE target or initiator). A scenario starts with
#
#   . "$SRPT_ROOT/tests/bed/lib.sh"
#
# which brings tests/vm/lib.sh's and initiator.sh's helpers along. The
# guests and the host exchange flags, small files in /run/srpt-bed (the
# host's OUT/shared): bed_put writes one, bed_get waits for one. A flag
# "abort" (scripts/bed puts it when a guest failed) ends every wait.
#
# Link N (0, or 0 and 1) is a virtio NIC with MAC 52:54:00:be:dN:01 at the
# target and :02 at the initiator, addresses 10.201.N.1 and 10.201.N.2
# (and fd00:201:N::1 and ::2)
# and soft-RoCE device rxeN on it (bed_net), or soft-iWARP siwN with
# --set rdma=siw (SRPT_BED_RDMA; SRPT_SIW_MODULE: scripts/build-siw).

# shellcheck source-path=SCRIPTDIR source=../vm/lib.sh
. "$SRPT_ROOT/tests/vm/lib.sh"
# shellcheck source-path=SCRIPTDIR source=../vm/initiator.sh
. "$SRPT_ROOT/tests/vm/initiator.sh"

: "${SRPT_BED_ROLE:?run two-host scenarios through scripts/bed}"
: "${SRPT_BED_BOOT:=1}"
: "${SRPT_BED_LINKS:=1}"
: "${SRPT_BED_RDMA:=rxe}"
BED=/run/srpt-bed
# The RDMA/CM port of every two-host scenario.
BED_PORT=5555

# A failure elsewhere ("abort") ends this scenario too, even while it
# waits in a command that may never return: guest-init then saves the
# kernel log, with the blocked tasks, for the report.
(
	while [ ! -e "$BED/abort" ]; do
		nap 1
	done
	echo w >/proc/sysrq-trigger 2>/dev/null || true
	echo "srpt-bed: aborted: $(<"$BED/abort")" >/dev/kmsg
	kill -TERM "$$"
) </dev/null >/dev/null 2>&1 &

# bed_put FLAG [VALUE]: the flag, at once visible to the host and the
# other guest (the share is uncached; a rename makes it whole).
bed_put() {
	printf '%s\n' "${2:-}" >"$BED/$1.tmp" || fail "cannot write $BED/$1"
	mv -f "$BED/$1.tmp" "$BED/$1"
}

# bed_get FLAG [SECONDS]: waits for FLAG (SECONDS, 300 by default, times
# SRPT_VM_SLOWDOWN) and prints its value.
bed_get() {
	local deadline=$((SECONDS + ${2:-300} * SRPT_VM_SLOWDOWN))
	while [ ! -e "$BED/$1" ]; do
		[ ! -e "$BED/abort" ] || fail "waiting for $1: the bed aborted ($(<"$BED/abort"))"
		[ "$SECONDS" -lt "$deadline" ] || fail "no flag $1 within ${2:-300}s"
		nap 0.3
	done
	printf '%s\n' "$(<"$BED/$1")"
}

# bed_mac ROLE N, bed_addr ROLE N: link N's MAC and address at ROLE.
bed_mac() { printf '52:54:00:be:d%d:%02x\n' "$2" "$([ "$1" = target ] && echo 1 || echo 2)"; }
bed_addr() { printf '10.201.%d.%d\n' "$2" "$([ "$1" = target ] && echo 1 || echo 2)"; }
bed_addr6() { printf 'fd00:201:%d::%d\n' "$2" "$([ "$1" = target ] && echo 1 || echo 2)"; }
bed_peer() { [ "$SRPT_BED_ROLE" = target ] && echo initiator || echo target; }

# bed_dev N: the RDMA device of link N (rxeN or siwN).
bed_dev() { printf '%s%d\n' "$SRPT_BED_RDMA" "$1"; }

# bed_netdev N: the name of this guest's NIC of link N (found by its MAC).
bed_netdev() {
	local want d
	want=$(bed_mac "$SRPT_BED_ROLE" "$1")
	for d in /sys/class/net/*; do
		[ "$(<"$d/address")" = "$want" ] && { printf '%s\n' "${d##*/}"; return 0; }
	done
	return 1
}

# bed_net: every link up with MTU 9000 (RoCE MTU 4096), its address, and
# the RDMA device bed_dev on it, port 1 ACTIVE; publishes its GID as the
# flag ROLE-gid-N.
bed_net() {
	local i nd dev deps
	timeout "$SRPT_CMD_TIMEOUT" modprobe -a virtio_net
	case "$SRPT_BED_RDMA" in
	rxe) timeout "$SRPT_CMD_TIMEOUT" modprobe rdma_rxe ;;
	siw)
		[ -f "${SRPT_SIW_MODULE:-/nonexistent}" ] ||
			fail "SRPT_SIW_MODULE '${SRPT_SIW_MODULE:-}' is no module: scripts/bed builds it (scripts/build-siw)"
		deps=$(modinfo -F depends "$SRPT_SIW_MODULE")
		# shellcheck disable=SC2086 # one module name per word
		timeout "$SRPT_CMD_TIMEOUT" modprobe -a ${deps//,/ }
		_vm_loaded siw || expect_ok insmod "$SRPT_SIW_MODULE"
		;;
	*) fail "SRPT_BED_RDMA must be rxe or siw, not $SRPT_BED_RDMA" ;;
	esac
	for ((i = 0; i < SRPT_BED_LINKS; i++)); do
		wait_for 10 "link $i's NIC" bed_netdev "$i"
		nd=$(bed_netdev "$i")
		dev=$(bed_dev "$i")
		printf '%s\n' "link set $nd mtu 9000" "addr add $(bed_addr "$SRPT_BED_ROLE" "$i")/24 dev $nd" \
			"addr add $(bed_addr6 "$SRPT_BED_ROLE" "$i")/64 dev $nd nodad" \
			"link set $nd up" | timeout "$SRPT_CMD_TIMEOUT" ip -batch -
		_vm_rxe_devs+=("$dev")
		timeout "$SRPT_CMD_TIMEOUT" rdma link add "$dev" type "$SRPT_BED_RDMA" netdev "$nd"
		wait_for 30 "$dev port 1 ACTIVE on $nd" file_has "/sys/class/infiniband/$dev/ports/1/state" ACTIVE
		bed_put "$SRPT_BED_ROLE-gid-$i" "$(rxe_gid "$dev")"
	done
	pass "$SRPT_BED_LINKS link(s) up: $(bed_addr "$SRPT_BED_ROLE" 0)${SRPT_BED_LINKS/#1/}"
}

# _bed_knows ADDR MAC: a TCP connection attempt to ADDR (refused or not)
# has made ARP resolve it to MAC. No ping: the guest runs the host's
# programs, and a server needs no iputils.
_bed_knows() {
	timeout 2 bash -c ": </dev/tcp/$1/9" 2>/dev/null || true
	[[ $(ip neigh show "$1") == *"lladdr $2 "* ]]
}

# bed_reach N: the peer's address on link N resolves to its MAC (the wire
# carries frames both ways).
bed_reach() {
	local peer
	peer=$(bed_addr "$(bed_peer)" "$1")
	wait_for 30 "$peer is reachable on link $1" _bed_knows "$peer" "$(bed_mac "$(bed_peer)" "$1")"
}

# ---------------------------------------------------------------------------
# The target.
# ---------------------------------------------------------------------------

# bed_serve SIZE|block:DEV: a target port on link 0's GID with a ramdisk LUN
# of SIZE (or a block LUN on DEV),
# an ACL for the initiator's port (its link 0 GID, flag initiator-gid-0, as
# ib_srp's initiator_ext makes its port id) and the RDMA/CM listener;
# then the flag "served" carries the service GUID (id_ext, ioc_guid and
# IB/CM service ID). Sets tgid, igid and, with this module, base (the
# live objects before any login).
bed_serve() {
	local sg
	tgid=$(rxe_gid "$(bed_dev 0)")
	igid=$(bed_get initiator-gid-0)
	local bs="/backstores/ramdisk create rd0 $1" lun=/backstores/ramdisk/rd0
	if [[ $1 == block:* ]]; then
		bs="/backstores/block create blk0 ${1#block:}"
		lun=/backstores/block/blk0
	fi
	expect_ok tcli "$bs" "/srpt create ib.$tgid" \
		"/srpt/ib.$tgid/luns create $lun" "/srpt/ib.$tgid/acls create ib.$igid"
	local mark
	mark=$(dmesg_mark)
	expect_attr_set "$SRPT_CFS/discovery_auth/rdma_cm_port" "$BED_PORT"
	# Whether IPv6 logins are served too (flag target-ipv6).
	if [ "$(dmesg_count_since "$mark" 'ib_srpt: RDMA/CM: port [0-9]+ takes IPv4 logins only')" = 0 ]; then
		bed_put target-ipv6 yes
	else
		bed_put target-ipv6 no
	fi
	# The baseline before any login can come.
	# shellcheck disable=SC2034 # base is the caller's
	[[ $(</sys/module/ib_srpt/taint) != *O* ]] || base=$(srpt_objects)
	sg=$(</sys/module/ib_srpt/parameters/srpt_service_guid)
	bed_put served "${sg#0x}"
}

# ---------------------------------------------------------------------------
# The initiator.
# ---------------------------------------------------------------------------

# bed_dest N: the target's address on link N as add_target's dest= takes
# it: IPv4, or IPv6 with --set family=ipv6 (SRPT_BED_FAMILY).
bed_dest() {
	if [ "${SRPT_BED_FAMILY:-ipv4}" = ipv6 ]; then
		printf '[%s]\n' "$(bed_addr6 target "$1")"
	else
		bed_addr target "$1"
	fi
}

# bed_target_spec N [OPTIONS]: ib_srp's add_target line for the target's
# address on link N; initiator_ext is our link N GID's first half, so the
# initiator port id is that GID (bed_serve's ACL).
bed_target_spec() {
	local sg mine
	sg=$(bed_get served)
	mine=$(rxe_gid "$(bed_dev "$1")")
	printf '%s\n' "id_ext=$sg,ioc_guid=$sg,initiator_ext=${mine:0:16},dest=$(bed_dest "$1"):$BED_PORT${2:+,$2}"
}

# rport_is STATE: the single SRP remote port is in STATE (for wait_for:
# its arguments are expanded once, a test of them would never change).
rport_is() { [ "$(srp_rport_state)" = "$1" ]; }

# bed_add_target N SPEC: ib_srp's add_target on link N's device. A
# logout completes asynchronously: a login right after it may find the
# old one still there (EEXIST), so it is tried for up to 10 s.
bed_add_target() {
	local add i
	add=$(_vm_srp_add "$(bed_dev "$1")")
	for ((i = 0; i < 50; i++)); do
		echo "$2" >"$add" 2>/dev/null && return 0
		nap 0.2
	done
	echo "$2" >"$add" || fail "ib_srp login over link $1 failed: $2"
}

# bed_login N [OPTIONS]: ib_srp logs in over link N (RDMA/CM), with
# tl_retry_count=6 unless OPTIONS say otherwise. Soft-RoCE retries forever
# with a retry count of 7, ib_srp's default, where a real HCA gives up
# after 7 retries: with 6, both queue pairs (the target's takes the count
# from the login's CM REQ) give up after 7 tries, about 15 s over RoCE
# (docs/testing.md), as a real HCA does after about 17 s. Without that,
# no scenario could see a dead peer noticed.
bed_login() {
	local spec opts=${2:-}
	[[ $opts == *tl_retry_count=* ]] || opts=${opts:+$opts,}tl_retry_count=6
	spec=$(bed_target_spec "$1" "$opts")
	bed_add_target "$1" "$spec"
	pass "ib_srp logged in over link $1: $spec"
}

# ---------------------------------------------------------------------------
# The end of a scenario.
# ---------------------------------------------------------------------------

# bed_log_stats BEFORE AFTER: what moved, in a line (statistics of the
# target port, srpt_stats).
bed_log_stats() {
	local k line=
	for k in reads writes aborted_tasks; do
		line+="$k $(stat_delta "$1" "$2" "$k") "
	done
	log "statistics moved: $line"
}

# bed_target_end: tells the initiator, then clears the configuration and
# proves that everything unloads with a clean kernel log.
bed_target_end() {
	bed_put target-done
	expect_ok tcli "clearconfig confirm=True"
	unload_all
	check_dmesg
}

# bed_initiator_end: tells the target, waits for it to be done with its
# checks (the links stay up meanwhile), unloads and checks the log.
bed_initiator_end() {
	bed_put initiator-done
	bed_get target-done 200 >/dev/null
	unload_all
	check_dmesg
}
