#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# The demo (make demo): soft-RoCE, our target with a ramdisk LUN set up by
# targetcli, the in-tree ib_srp initiator logged in over RDMA/CM, a fio
# run with verification and two short performance runs. Results go to
# $SRPT_OUT/results for scripts/demo to print.
# vm-timeout: 600
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$SRPT_ROOT/tests/vm/lib.sh"
# shellcheck source-path=SCRIPTDIR source=initiator.sh
. "$SRPT_ROOT/tests/vm/initiator.sh"

results=$SRPT_OUT/results
: >"$results"
runtime=${SRPT_DEMO_RUNTIME:-10}

tcli_start
setup_rxe rxe0 10.200.0.1/24
load_srpt
load_scsi_initiator_bits
gid=$(rxe_gid rxe0)

log "configuring: ramdisk rd0 (256 MiB), target port ib.$gid, LUN 0, ACL, RDMA/CM port 5555"
expect_ok tcli "/backstores/ramdisk create rd0 256M" \
	"/srpt create ib.$gid" \
	"/srpt/ib.$gid/luns create /backstores/ramdisk/rd0" \
	"/srpt/ib.$gid/acls create ib.$gid"
expect_ok sh -c "echo 5555 >/sys/kernel/config/target/srpt/discovery_auth/rdma_cm_port"
srp_login rxe0 "$gid" 10.200.0.1 5555
disk=$(srp_disk)
expect_ok sg_inq "/dev/$disk"
echo "login|$(dmesg | grep -oE 'ib_srpt: rxe0 port 1: .* logged in to .*' | tail -n1 | sed 's/^ib_srpt: //')" >>"$results"

# fio_json NAME ARGS...: one fio job, its JSON kept for the summary.
fio_json() {
	local name=$1
	shift
	expect_ok fio --name="$name" --filename="/dev/$disk" --direct=1 --ioengine=libaio \
		--output-format=json --output="$SRPT_OUT/$name.json" "$@"
}

fio_json verify --rw=randwrite --bsrange=4k-256k --iodepth=16 --size=64m \
	--verify=crc32c --verify_fatal=1 --do_verify=1
fio_json randread-4k --rw=randread --bs=4k --iodepth=32 --time_based --runtime="$runtime" --size=256m
fio_json seqread-1m --rw=read --bs=1m --iodepth=8 --time_based --runtime="$runtime" --size=256m

python3 - "$SRPT_OUT" >>"$results" <<'PY'
import json, sys
out = sys.argv[1]
def job(name):
    return json.load(open(f"{out}/{name}.json"))["jobs"][0]
v = job("verify")
print(f"verify|{v['write']['io_bytes'] >> 20} MiB written and verified (crc32c), {v['error']} errors")
r = job("randread-4k")["read"]
print(f"randread-4k|{r['iops']:.0f} IOPS, mean latency {r['clat_ns']['mean'] / 1000:.0f} us")
s = job("seqread-1m")["read"]
print(f"seqread-1m|{s['bw'] / 1024:.1f} MiB/s")
PY

srp_logout
unload_all
check_dmesg
