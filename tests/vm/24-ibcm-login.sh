#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# IB/CM logins over soft-RoCE: srp_ibcm (tests/ibcm), a test initiator in
# the kernel, makes the RoCE path record itself, as RDMA/CM does, and
# sends SRP_LOGIN_REQ in the CM REQ to the target's service ID (ib_srp
# cannot: it asks the SA for its path). Against a GUID-named target port
# with a GUID ACL (the initiator's port GUID), a login gets its
# SRP_LOGIN_RSP and carries INQUIRY, READ CAPACITY (the ramdisk's last
# LBA) and a WRITE/READ compare of a pattern new at every io; a logout's
# DREQ gets the target's DREP. The rejects carry their SRP_LOGIN_REJ
# reasons (SRP r16a table 10): no ACL, a wrong target port id, an IU
# length out of range, a disabled TPG. Multichannel: a MULTI login keeps
# the earlier channel, a SINGLE login makes the target disconnect the
# two before it (its DREQ). The target disconnects a channel (its DREQ)
# when its ACL is removed, its TPG disabled, its target port removed, and
# when its RDMA device goes (`rdma link delete`: a RoCE device with the
# target's IB/CM listener on it); on the device added again, logins work
# again. Unloading srp_ibcm logs its channel out (DREP).
# After every login the core's live objects and the RDMA resources come
# back to their baselines, and srp_ibcm logs no warning. Then the in-tree
# ib_srpt, under the same service GUID, is asked the same: it listens for
# IB/CM on InfiniBand ports only, so the CM itself rejects the login
# (invalid service ID); its result is logged beside ours.
# vm-timeout: 600
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$SRPT_ROOT/tests/vm/lib.sh"
# shellcheck source-path=SCRIPTDIR source=initiator.sh
. "$SRPT_ROOT/tests/vm/initiator.sh"

: "${SRPT_IBCM_MODULE:=}"
[ -f "${SRPT_IBCM_MODULE:-/nonexistent}" ] ||
	fail "SRPT_IBCM_MODULE '$SRPT_IBCM_MODULE' is no module: scripts/vm-test builds it (build-module --dir tests/ibcm)"

tcli_start
setup_rxe rxe0
file_has /proc/mounts ' /sys/kernel/debug debugfs ' ||
	mount -t debugfs debugfs /sys/kernel/debug
# srp_ibcm before ib_srpt: the RDMA core removes a device from its
# clients in reverse order of registration, so ib_srpt sees rxe0 go while
# srp_ibcm's channel is still up, and logs it out itself. insmod resolves
# no dependencies.
timeout "$SRPT_CMD_TIMEOUT" modprobe -a ib_cm
ibcm_start=$(dmesg_mark)
expect_ok insmod "$SRPT_IBCM_MODULE"
load_srpt
gid=$(rxe_gid rxe0)
guid=$(guid_name "$gid")
sg=$(</sys/module/ib_srpt/parameters/srpt_service_guid)
sg=${sg#0x}
[[ $sg =~ ^[0-9a-f]{16}$ ]] || fail "unexpected service GUID '$sg'"
listening="ib_srpt: rxe0: listening for IB/CM logins: id_ext=$sg,ioc_guid=$sg,service_id=$sg\$"
expect_dmesg "$listening"

# expect_io NAME: srp_ibcm's io on NAME passes: INQUIRY; READ CAPACITY
# reads the last LBA of the 16 MiB ramdisk (512-byte blocks); 8 blocks
# written at LBA 0 and read back equal, with a pattern seed unlike the
# last io's (a WRITE that never reached the disk would leave the last
# pattern there and fail the compare).
last_seed=
expect_io() {
	local re="^$1 io ok last_lba=32767 block_size=512 blocks=8 seed=(0x[0-9a-f]{8})\$"
	ibcm "io $1"
	[[ $IBCM =~ $re ]] || fail "io $1: '$IBCM'; expected /$re/"
	[ "${BASH_REMATCH[1]}" != "$last_seed" ] || fail "io $1: the last io's seed again"
	last_seed=${BASH_REMATCH[1]}
	pass "$IBCM"
}

# ibcm_state_is NAME connected|disconnected: for wait_for.
ibcm_state_is() {
	ibcm "state $1"
	case "$2" in
	connected) [ "$IBCM" = "$1 connected" ] ;;
	*) [ "$IBCM" = "$1 disconnected by the target (DREQ)" ] ;;
	esac
}

# login NAME [KEY=VALUE...]: the login command to our target port, the
# defaults overridden by KEY=VALUE (later keys win in srp_ibcm).
login() {
	local name=$1
	shift
	printf 'login %s dev=rxe0 port=1 dgid=%s service_id=%s id_ext=%s ioc_guid=%s initiator_ext=0000000000000000' \
		"$name" "$gid" "$sg" "$sg" "$sg"
	[ $# -eq 0 ] || printf ' %s' "$@"
	printf '\n'
}

max_req=$(</sys/module/ib_srpt/parameters/srp_max_req_size)
logged_in_re() { # NAME MULTICHANNEL_RESULT
	printf '^%s logged in max_it_iu_len=%s max_ti_iu_len=[0-9]+ req_lim=[0-9]+ multichannel_result=%s$' \
		"$1" "$max_req" "$2"
}

# ---------------------------------------------------------------------------
# A GUID-named target port (configfs by hand: targetcli knows only the
# GID form) with a ramdisk LUN, no ACL yet.
# ---------------------------------------------------------------------------
expect_ok tcli "/backstores/ramdisk create rd0 16M"
rd0=$(backstore rd0)
tpg=$SRPT_CFS/$guid/tpgt_1
acl=$tpg/acls/$guid

# make_tport: the GUID-named target port with LUN 0, enabled (the
# fabric's directory first: nothing made it yet).
make_tport() {
	[ -d "$SRPT_CFS" ] || expect_ok mkdir "$SRPT_CFS"
	expect_ok mkdir "$SRPT_CFS/$guid" "$tpg"
	expect_ok cfs_add_lun "$tpg" 0 "$rd0"
	expect_attr_set "$tpg/enable" 1
}
make_tport
# What every login leaves behind once it is over: the core's live objects
# (nexuses, channels, commands, receive buffers) and the RDMA resources
# (PDs, QPs: the target's and srp_ibcm's).
base=$(srpt_objects)
res_base=$(rdma_res)

# expect_released WHAT: the objects and resources back at their baselines.
expect_released() {
	expect_objects "$base"
	expect_rdma_res "$res_base"
	pass "$1"
}

# add_acl: the ACL of the initiator's port GUID (offered by IB/CM logins
# on a GUID-named target port), LUN 0 mapped.
add_acl() {
	expect_ok mkdir "$acl" "$acl/lun_0"
	expect_ok ln -s "$tpg/lun/lun_0" "$acl/lun_0/srpt_vm_mapped"
}

remove_acl() {
	expect_ok rm "$acl/lun_0/srpt_vm_mapped"
	expect_ok rmdir "$acl/lun_0" "$acl"
}

# ---------------------------------------------------------------------------
# Rejects, each with its SRP_LOGIN_REJ reason.
# ---------------------------------------------------------------------------
# srp_ibcm's own refusals, and the CM's reject of an unknown service ID.
expect_ibcm "login x1 dev=rxe0" "x1 error: bad login arguments"
expect_ibcm "$(login x2 dev=rxe9)" "x2 error: no RDMA device rxe9"
expect_ibcm "$(login x3 port=2)" "x3 error: rxe0 has no IB/CM port 2"
expect_ibcm "io x4" "x4 error: no such channel"
expect_ibcm "$(login x5 service_id=0123456789abcdef)" "x5 cm_rejected cm_reason=8"

ipid="0x0000000000000000${gid:16:16}"
rejected="ib_srpt: rxe0 port 1: rejected login of $guid( \\(initiator port id $ipid\\))?:"
klog_mark
expect_ibcm "$(login r1)" "r1 rejected reason=0x00010000"
expect_klog "$rejected no ACL of an enabled TPG admits the initiator"
add_acl
expect_ibcm "$(login r2 id_ext=0123456789abcdef)" "r2 rejected reason=0x00010003"
expect_ibcm "$(login r3 ioc_guid=0123456789abcdef)" "r3 rejected reason=0x00010003"
expect_ibcm "$(login r4 it_iu_len=$((max_req + 1)))" "r4 rejected reason=0x00010002"
expect_ibcm "$(login r5 it_iu_len=63)" "r5 rejected reason=0x00010002"
expect_klog "$rejected target port identifier is not this target's"
expect_klog "$rejected requested max initiator to target IU length out of range"
expect_released "nothing left by the rejects"

# ---------------------------------------------------------------------------
# Login, I/O, logout.
# ---------------------------------------------------------------------------
klog_mark
expect_ibcm_re "$(login c1)" "$(logged_in_re c1 0)"
expect_klog "ib_srpt: rxe0 port 1: IB/CM login of $guid \\(initiator port id $ipid, it_iu_len 4096, pkey 0xffff\\)"
expect_klog "ib_srpt: rxe0 port 1: $guid logged in to $guid"
expect_live 'channels 1'
expect_io c1
expect_io c1
expect_ibcm "state c1" "c1 connected"
expect_ibcm "logout c1" "c1 logged out (DREP)"
expect_released "the target released c1"
expect_ibcm "state c1" "c1 error: no such channel"

# ---------------------------------------------------------------------------
# Multichannel: MULTI keeps the earlier channel, SINGLE terminates them.
# ---------------------------------------------------------------------------
expect_ibcm_re "$(login m1)" "$(logged_in_re m1 0)"
expect_ibcm_re "$(login m2 multi=1)" "$(logged_in_re m2 2)"
expect_live 'channels 2'
expect_ibcm "state m1" "m1 connected"
expect_io m1
expect_io m2
klog_mark
expect_ibcm_re "$(login m3 multi=0)" "$(logged_in_re m3 1)"
expect_klog "ib_srpt: rxe0 port 1: $guid logged in again: closing its channel $guid\$"
wait_for 20 "the SINGLE login made the target disconnect m1" ibcm_state_is m1 disconnected
wait_for 20 "the SINGLE login made the target disconnect m2" ibcm_state_is m2 disconnected
expect_io m3
expect_ibcm "io m1" "m1 io failed: not connected"
expect_ibcm "logout m1" "m1 logged out (DREQ from the target)"
expect_ibcm "logout m2" "m2 logged out (DREQ from the target)"
wait_object channels 1 20
pass "the target keeps only m3"

# ---------------------------------------------------------------------------
# Removing the ACL disconnects the channel.
# ---------------------------------------------------------------------------
klog_mark
remove_acl
wait_for 20 "removing the ACL made the target disconnect m3" ibcm_state_is m3 disconnected
expect_klog "ib_srpt: rxe0 port 1: logging out $guid: its ACL or session was removed\$"
expect_objects "$base"
expect_ibcm "logout m3" "m3 logged out (DREQ from the target)"
expect_rdma_res "$res_base"
expect_ibcm "$(login r6)" "r6 rejected reason=0x00010000"

# ---------------------------------------------------------------------------
# The target logs a channel out when its TPG is disabled, and when its
# target port is removed: ACL, LUN, TPG, as `targetcli clearconfig` does
# before `rmmod ib_srpt`, which is refused while configfs holds the
# module (42-rmmod-during-io).
# ---------------------------------------------------------------------------
add_acl
expect_ibcm_re "$(login t1)" "$(logged_in_re t1 0)"
expect_io t1
klog_mark
expect_attr_set "$tpg/enable" 0
wait_for 20 "disabling the TPG made the target disconnect t1" ibcm_state_is t1 disconnected
expect_klog "ib_srpt: rxe0 port 1: target port $guid disabled\$"
expect_klog "ib_srpt: rxe0 port 1: logging out $guid: its TPG was disabled\$"
expect_objects "$base"
expect_ibcm "logout t1" "t1 logged out (DREQ from the target)"
expect_rdma_res "$res_base"
expect_ibcm "$(login r7)" "r7 rejected reason=0x00010001"
expect_klog "$rejected the target port is not enabled\$"
expect_attr_set "$tpg/enable" 1

expect_ibcm_re "$(login t2)" "$(logged_in_re t2 0)"
expect_io t2
klog_mark
expect_ok cfs_drop_tport "$guid"
wait_for 20 "removing the target port made the target disconnect t2" ibcm_state_is t2 disconnected
expect_klog "ib_srpt: rxe0 port 1: logging out $guid: its ACL or session was removed\$"
expect_klog "ib_srpt: rxe0 port 1: removed target port $guid\$"
expect_live 'target_ports 0' 'tpgs 0' 'nexuses 0' 'channels 0' 'commands 0' 'receive_buffers 0'
expect_ibcm "logout t2" "t2 logged out (DREQ from the target)"
expect_rdma_res "$res_base"

# ---------------------------------------------------------------------------
# Removing the RDMA device with a channel up: the target logs the channel
# out itself (srp_ibcm answers its DREQ) and stops its IB/CM listener on
# the RoCE device; srp_ibcm then has nothing left to close. rxe0 comes
# back on the same netdev (the same GID: the same names).
# ---------------------------------------------------------------------------
make_tport
add_acl
expect_ibcm_re "$(login d1)" "$(logged_in_re d1 0)"
expect_io d1
klog_mark
expect_ok rdma link delete rxe0
expect_klog "ib_srpt: rxe0 port 1: logging out $guid: the RDMA device is going away\$"
expect_klog 'ib_srpt: rxe0: removed$'
expect_klog "srp_ibcm: d1 logged out \\(DREQ from the target\\): leaving rxe0\$"
expect_no_klog 'ib_srpt: .*still waiting'
expect_ibcm "state d1" "d1 error: no such channel"
expect_live 'devices 0' 'nexuses 0' 'channels 0' 'commands 0' 'receive_buffers 0'
# The orphaned target port goes with its port.
expect_ok cfs_drop_tport "$guid"
expect_live 'devices 0' 'ports 0' 'target_ports 0'
klog_mark
readd_rxe "$gid"
expect_klog "$listening"
make_tport
base=$(srpt_objects)
res_base=$(rdma_res)

# ---------------------------------------------------------------------------
# Unloading srp_ibcm with a channel up logs it out.
# ---------------------------------------------------------------------------
add_acl
expect_ibcm_re "$(login u1)" "$(logged_in_re u1 0)"
expect_io u1
klog_mark
expect_ok rmmod srp_ibcm
expect_klog "srp_ibcm: u1 logged out \\(DREP\\): leaving rxe0\$"
expect_released "unloading srp_ibcm closed u1 at the target"
remove_acl
expect_ok cfs_drop_tport "$guid"
expect_ok rmdir "$SRPT_CFS"
expect_ok rmmod ib_srpt

# ---------------------------------------------------------------------------
# The in-tree target: no IB/CM listener on RoCE, so the CM rejects with
# IB_CM_REJ_INVALID_SERVICE_ID (8) before any SRP is read.
# ---------------------------------------------------------------------------
allow_intree_srpt
expect_ok modprobe ib_srpt
[[ $(</sys/module/ib_srpt/taint) != *O* ]] || fail "the module loaded as in-tree is out-of-tree"
# Its service GUID (rxe0's node GUID, as ours) is the service ID the
# logins ask for: a reject of that ID means no listener on RoCE, not one
# under another ID.
intree_sg=$(</sys/module/ib_srpt/parameters/srpt_service_guid)
[ "${intree_sg#0x}" = "$sg" ] ||
	fail "the in-tree target's service GUID is $intree_sg, not the 0x$sg that the logins ask for"
pass "in-tree srpt_service_guid = 0x$sg, the logins' service ID"
expect_ok insmod "$SRPT_IBCM_MODULE"
make_tport
add_acl
ibcm "$(login i1)"
log "in-tree ib_srpt: $IBCM (ours: i1 logged in ...)"
[ "$IBCM" = "i1 cm_rejected cm_reason=8" ] ||
	fail "the in-tree target answered '$IBCM'; expected the CM's invalid service ID (8)"
pass "in-tree: $IBCM"
ibcm "$(login i2 it_iu_len=$((max_req + 1)))"
log "in-tree ib_srpt: $IBCM (ours: i2 rejected reason=0x00010002)"
expect_ok rmmod srp_ibcm
remove_acl
expect_ok cfs_drop_tport "$guid"
expect_ok rmdir "$SRPT_CFS"
expect_ok rmmod ib_srpt
unload_all
# srp_ibcm's warnings (its pr_warn lines): a receive that failed, an IU
# it did not expect, a DREP it could not send or did not get, a CM event
# it does not handle, a QP that did not flush. None may appear, whatever
# the results said.
expect_no_dmesg_since "$ibcm_start" 'srp_ibcm: [^ ]+: (receive failed|ignored an IU|reposting a receive failed|sending the DREP failed|CM event [0-9]+|no DREP|moving the QP to the error state failed|[0-9]+ work requests not flushed)'
check_dmesg
