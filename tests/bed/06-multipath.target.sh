#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Two hosts, two links, dm-multipath (06-multipath.host): the target's
# side. One ramdisk behind two target ports, one per link (rxe0 and rxe1),
# each with an ACL for the initiator's port on the same link. The
# initiator's path over link 1 dies with its cable during I/O and comes
# back; at the end the live objects are at baseline (the dead path's
# channel was released), and nothing counted an error but the sends and
# RDMA READs the pulled cable broke.
# vm-timeout: 700
# vm-smp: 1
# vm-mem: 2048
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$SRPT_ROOT/tests/bed/lib.sh"

tcli_start
bed_net
load_srpt
tgid0=$(rxe_gid rxe0)
tgid1=$(rxe_gid rxe1)
igid0=$(bed_get initiator-gid-0)
igid1=$(bed_get initiator-gid-1)
expect_ok tcli "/backstores/ramdisk create rd0 64M" \
	"/srpt create ib.$tgid0" "/srpt create ib.$tgid1" \
	"/srpt/ib.$tgid0/luns create /backstores/ramdisk/rd0" \
	"/srpt/ib.$tgid1/luns create /backstores/ramdisk/rd0" \
	"/srpt/ib.$tgid0/acls create ib.$igid0" \
	"/srpt/ib.$tgid1/acls create ib.$igid1"
expect_attr_set "$SRPT_CFS/discovery_auth/rdma_cm_port" "$BED_PORT"
sg=$(</sys/module/ib_srpt/parameters/srpt_service_guid)
base=$(srpt_objects)
bed_put served "${sg#0x}"
mark=$(dmesg_mark)
bed_get initiator-done 600 >/dev/null
expect_objects "$base"
expect_dmesg_since "$mark" "ib_srpt: rxe1 port 1: 10\\.201\\.1\\.2 logged in to 0x$tgid1" 2
log "logins over link 1: $(dmesg_count_since "$mark" "ib_srpt: rxe1 port 1: 10\\.201\\.1\\.2 logged in")"
bed_target_end
