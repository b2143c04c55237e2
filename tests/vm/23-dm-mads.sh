#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Device Management over the wire: srpdm (tests/srpdm) sends the DM class
# MADs srp_daemon sends, through ib_umad on QP1 with a GRH to rxe0's GID,
# and the kernel's MAD layer hands them to the target's agent. Discovery
# finds one I/O controller in slot 1 whose profile carries the device's
# identity and the module's and target port's settings, one service
# entry, and the login string srp_daemon would give ib_srp; settings
# changed through configfs show in the next answer. Every malformed
# request gets its IBA status and an answer without a byte of the
# request's reserved or data fields. Then the in-tree ib_srpt answers the
# same queries: every difference must be one docs/differences.md lists (where the
# specifications say ours is right).
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$SRPT_ROOT/tests/vm/lib.sh"

SRPDM=$SRPT_ROOT/build/tools/srpdm
[ -x "$SRPDM" ] || fail "$SRPDM is missing: scripts/vm-test builds it (scripts/build-tools)"
out_ours=$SRPT_OUT/dm-ours.txt
out_intree=$SRPT_OUT/dm-intree.txt

tcli_start
setup_rxe rxe0
expect_ok modprobe ib_umad
gid=$(rxe_gid rxe0)
gid_c=$(</sys/class/infiniband/rxe0/ports/1/gids/0)
node_guid=$(</sys/class/infiniband/rxe0/node_guid)
node_guid=${node_guid//:/}
expect_ok ibv_devinfo -d rxe0
devinfo=$VM_LAST_OUTPUT
dev_field() { # NAME: ibv_devinfo's value of NAME, as a number
	local v
	v=$(awk -v k="$1:" '$1 == k { print $2; exit }' <<<"$devinfo")
	[ -n "$v" ] || fail "ibv_devinfo shows no $1"
	printf '%d\n' "$v"
}
vendor=$(dev_field vendor_id)
part=$(dev_field vendor_part_id)
hw=$(dev_field hw_ver)

# dm_discover FILE: srpdm's discovery, kept in FILE and in DM.
dm_discover() {
	expect_ok "$SRPDM" rxe0 1 "$gid_c" discover
	DM=$VM_LAST_OUTPUT
	printf '%s\n' "$DM" >"$1"
}

# dm_is KEY VALUE: discovery decoded VALUE for KEY.
dm_is() {
	local v
	v=$(awk -v k="$1" '$1 == k { $1 = ""; sub(/^ /, ""); print; exit }' <<<"$DM")
	if [ "$v" != "$2" ]; then
		printf '%s\n' "$DM" | _indent
		fail "$1 is '$v'; expected '$2'"
	fi
	pass "$1 $2"
}

# dm_get ATTR MOD [METHOD [CLASS_VERSION]] STATUS: one request, answered
# with STATUS ("none": not answered; "kernel": answered by the kernel's
# MAD layer, not by an agent); an error answer echoes no request byte.
dm_get() {
	local want=${*: -1} args=("${@:1:$#-1}")
	if [ "$want" = kernel ]; then
		expect_ok "$SRPDM" rxe0 1 "$gid_c" get "${args[@]}"
		[[ $VM_LAST_OUTPUT == "status 0x000c echoed "* ]] ||
			fail "get ${args[*]}: '$VM_LAST_OUTPUT'; expected the MAD layer's 0x000c"
		pass "get ${args[*]}: $VM_LAST_OUTPUT, from the kernel's MAD layer"
		return
	fi
	if [ "$want" = none ]; then
		expect_fail "$SRPDM" --timeout 1000 rxe0 1 "$gid_c" get "${args[@]}"
		[ "$VM_LAST_OUTPUT" = "no answer" ] || fail "get ${args[*]}: '$VM_LAST_OUTPUT'; expected no answer"
		pass "get ${args[*]}: no answer"
		return
	fi
	expect_ok "$SRPDM" rxe0 1 "$gid_c" get "${args[@]}"
	[[ $VM_LAST_OUTPUT == "status $want echoed "* ]] ||
		fail "get ${args[*]}: '$VM_LAST_OUTPUT'; expected status $want"
	if [ "$want" != 0x0000 ] && [ "$VM_LAST_OUTPUT" != "status $want echoed 0" ]; then
		fail "get ${args[*]}: '$VM_LAST_OUTPUT': the error answer carries the request's bytes"
	fi
	pass "get ${args[*]}: $VM_LAST_OUTPUT"
}

# The malformed requests, with the status each must get (IBA 13.4.7
# table 106, 16.3.1.1; SRP r16a B.7). "ATTR MOD [METHOD [VERSION]] STATUS".
# The kernel's MAD layer hands an agent only the methods and the class
# version it registered (Get and Set of DM version 1). What no agent
# takes it drops, or, for a Get or Set, answers itself with 0x000c and
# the request copied back (ib_mad's generate_unmatched_resp): no target
# sees those two (the core's own answers to them are unit-tested).
bad_requests=(
	"0x11 0 0x001c"			# IOControllerProfile, slot 0
	"0x11 2 0x0100"			# an empty slot: no IOC
	"0x11 16 0x0100"		# the last slot, empty
	"0x11 17 0x001c"		# past MaxControllers
	"0x12 0x00000000 0x001c"	# ServiceEntries, slot 0
	"0x12 0x00020000 0x0100"	# ServiceEntries of an empty slot
	"0x12 0x00110000 0x001c"	# slot 17
	"0x12 0x00010101 0x001c"	# entry 1 of 1: out of range
	"0x12 0x00010001 0x001c"	# inverted range (lo 1 > hi 0)
	"0x12 0x0001ff00 0x001c"	# entries 0..255
	"0x10 0 2 0x000c"		# Set IOUnitInfo
	"0x99 0 0x000c"			# an unknown attribute
	"0x10 0 5 none"			# an unknown method
	"0x10 0 1 2 kernel"		# class version 2
)

# ---------------------------------------------------------------------------
# Ours.
# ---------------------------------------------------------------------------
load_srpt srp_max_req_size=4200 srpt_srq_size=1000
expect_ok tcli "/srpt create ib.$gid"
tpg=$SRPT_CFS/0x$gid/tpgt_1
rdma_size=$(<"$tpg/attrib/srp_max_rdma_size")

dm_discover "$out_ours"
dm_is class_port_info.base_version 1
dm_is class_port_info.class_version 1
dm_is class_port_info.resp_time_value 20
dm_is io_unit_info.change_id 1
dm_is io_unit_info.max_controllers 16
dm_is io_unit_info.present 1
dm_is ioc1.guid "0x$node_guid"
dm_is ioc1.vendor_id "$(printf '0x%06x' $((vendor & 0xffffff)))"
dm_is ioc1.device_id "$(printf '0x%08x' "$part")"
dm_is ioc1.device_version "$(printf '0x%04x' $((hw & 0xffff)))"
dm_is ioc1.subsys_vendor_id "$(printf '0x%06x' $((vendor & 0xffffff)))"
dm_is ioc1.subsys_id 0x00000000
dm_is ioc1.io_class 0x0100
dm_is ioc1.io_subclass 0x609e
dm_is ioc1.protocol 0x0108
dm_is ioc1.protocol_version 0x0001
# One channel's receive queue (no SRQ): 128 (rxe allows more).
dm_is ioc1.send_queue_depth 128
dm_is ioc1.rdma_read_depth 4
dm_is ioc1.send_size 4200
dm_is ioc1.rdma_size "$rdma_size"
dm_is ioc1.op_cap_mask 0x2b
dm_is ioc1.svc_cap_mask 0x00
dm_is ioc1.service_entries 1
dm_is ioc1.id_string "Linux SRP target"
dm_is ioc1.service0.name "SRP.T10:$node_guid"
dm_is ioc1.service0.id "0x$node_guid"
login="id_ext=$node_guid,ioc_guid=$node_guid,dgid=$gid,pkey=ffff,service_id=$node_guid"
dm_is target "$login"
log "srp_daemon would log in with: $login"

# The target port's settings show in the next answer.
expect_attr_set "$tpg/attrib/use_srq" 1
expect_attr_set "$tpg/attrib/srp_max_rdma_size" 65536
dm_discover "$SRPT_OUT/dm-ours-srq.txt"
dm_is ioc1.send_queue_depth 1000
dm_is ioc1.rdma_size 65536
expect_attr_set "$tpg/attrib/use_srq" 0
expect_attr_set "$tpg/attrib/srp_max_rdma_size" "$rdma_size"

for r in "${bad_requests[@]}"; do
	# shellcheck disable=SC2086 # one field per word
	dm_get $r
done
# The agent answered all of it: nothing in the kernel log but the usual.
expect_ok tcli "/srpt delete ib.$gid"
expect_ok rmdir "$SRPT_CFS"
expect_ok rmmod ib_srpt

# ---------------------------------------------------------------------------
# The in-tree target, same settings, same queries: differences only where
# docs/differences.md says ours follows the specifications.
# ---------------------------------------------------------------------------
allow_intree_srpt
expect_ok modprobe ib_srpt srp_max_req_size=4200 srpt_srq_size=1000
[[ $(</sys/module/ib_srpt/taint) != *O* ]] || fail "the module loaded as in-tree is out-of-tree"
expect_ok tcli "/srpt create ib.$gid"
dm_discover "$out_intree"
# Known: the in-tree target writes the 24-bit VendorIDs into the wrong
# bits (IBA 16.3.3.4: bits 31..8 of the first word).
known='^ioc1\.(vendor_id|subsys_vendor_id) '
diffs=$(diff <(grep -vE "$known" "$out_ours") <(grep -vE "$known" "$out_intree")) ||
	{ printf '%s\n' "$diffs" | _indent; fail "the in-tree target's discovery differs elsewhere"; }
log "the in-tree target's discovery: the same login string, VendorIDs $(grep -E "$known" "$out_intree" | awk '{ print $2 }' | paste -sd/)"
# The in-tree answers to the malformed requests: logged, with ours.
for r in "${bad_requests[@]}"; do
	# shellcheck disable=SC2086 # one field per word
	set -- $r
	case "${*: -1}" in none | kernel) continue ;; esac
	expect_ok "$SRPDM" rxe0 1 "$gid_c" get "${@:1:$#-1}"
	log "in-tree: get ${*:1:$#-1}: $VM_LAST_OUTPUT (ours: status ${*: -1} echoed 0)"
done
expect_ok tcli "/srpt delete ib.$gid"
expect_ok rmdir "$SRPT_CFS"
expect_ok rmmod ib_srpt
expect_ok modprobe -r ib_umad
unload_all
check_dmesg
