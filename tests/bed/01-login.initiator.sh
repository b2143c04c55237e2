#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Two hosts, the initiator's side (see 01-login.target.sh): ib_srp logs in
# over the link (RDMA/CM), fio verifies writes and reads from 512 B to
# 1 MiB at queue depths 1 to 32, a LUN reset (sg_reset: an SRP task
# management request) succeeds and the data reads back after it, ib_srp
# logs out; it logs in again over IPv6 and writes and reads back 4 MiB;
# then (not against the in-tree target) srp_ibcm logs in
# through IB/CM with the target's MAC as the path's destination, runs
# INQUIRY, READ CAPACITY and a WRITE/READ compare, and logs out with the
# target's DREP. With --set rdma=siw (soft-iWARP) the RDMA/CM part alone.
# vm-timeout: 500
# vm-smp: 1
# vm-mem: 2048
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$SRPT_ROOT/tests/bed/lib.sh"

[ -f "${SRPT_IBCM_MODULE:-/nonexistent}" ] ||
	fail "SRPT_IBCM_MODULE '${SRPT_IBCM_MODULE:-}' is no module: scripts/bed builds it"
bed_net
load_scsi_initiator_bits
bed_reach 0
mark=$(dmesg_mark)
bed_login 0
disk=$(srp_disk)
cat >/tmp/verify.fio <<'JOBS'
[global]
direct=1
ioengine=libaio
verify=crc32c
verify_fatal=1
randrepeat=0
stonewall
size=4m

[imm-write-qd32]
offset=0
rw=randwrite
bsrange=512-8k
iodepth=32

[rdma-write-qd8]
offset=4m
rw=randwrite
bsrange=64k-1m
iodepth=8

[mixed-qd16]
offset=8m
rw=randrw
bssplit=512/20:4k/20:16k/20:128k/20:1m/20
iodepth=16

[write-4k]
offset=12m
rw=write
bs=4k
iodepth=4
do_verify=0

[randread-4k-qd32]
offset=12m
rw=randread
bs=4k
iodepth=32
JOBS
expect_fio --filename="/dev/$disk" /tmp/verify.fio
expect_no_initiator_trouble "$mark"
expect_ok dd if="/dev/$disk" of=/tmp/before bs=1M count=4 iflag=direct status=none
expect_ok sg_reset --device "/dev/$disk"
expect_dmesg_since "$mark" "SRP reset_device called"
expect_ok cmp /tmp/before <(dd if="/dev/$disk" bs=1M count=4 iflag=direct status=none)
srp_logout
# Over IPv6 too: the target listens on both families, except where it
# said it could not (5.10's soft-iWARP).
if [ "$(bed_get target-ipv6 60)" = yes ]; then
	spec=$(bed_target_spec 0 tl_retry_count=6)
	spec=${spec/dest=$(bed_dest 0):/dest=[$(bed_addr6 target 0)]:}
	bed_add_target 0 "$spec"
	pass "ib_srp logged in over IPv6: $spec"
	disk=$(srp_disk)
	expect_ok dd if=/tmp/before of="/dev/$disk" bs=1M seek=8 oflag=direct status=none
	expect_ok cmp /tmp/before <(dd if="/dev/$disk" bs=1M skip=8 count=4 iflag=direct status=none)
	srp_logout
else
	log "the target serves IPv4 logins alone here: no IPv6 login"
fi
bed_put rdmacm-done
if [ "${SRPT_BED_TARGET:-}" = intree ]; then
	bed_initiator_end
	exit 0
fi

if [ "$SRPT_BED_RDMA" = siw ]; then
	log "iWARP has no IB/CM: only the RDMA/CM login runs over siw"
	bed_initiator_end
	exit 0
fi
file_has /proc/mounts ' /sys/kernel/debug debugfs ' ||
	mount -t debugfs debugfs /sys/kernel/debug
timeout "$SRPT_CMD_TIMEOUT" modprobe -a ib_cm
expect_ok insmod "$SRPT_IBCM_MODULE"
sg=$(bed_get served)
tgid=$(bed_get target-gid-0)
igid=$(rxe_gid rxe0)
expect_ibcm_re "login c0 dev=rxe0 port=1 dgid=$tgid service_id=$sg id_ext=$sg ioc_guid=$sg initiator_ext=${igid:0:16} dmac=$(bed_mac target 0 | tr -d :)" \
	'^c0 logged in max_it_iu_len=[0-9]+ max_ti_iu_len=[0-9]+ req_lim=[0-9]+ multichannel_result=0$'
expect_ibcm_re "io c0" '^c0 io ok last_lba=131071 block_size=512 blocks=8 seed=0x[0-9a-f]{8}$'
expect_ibcm "logout c0" "c0 logged out (DREP)"
expect_ok rmmod srp_ibcm
bed_put ibcm-done
bed_initiator_end
