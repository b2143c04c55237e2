#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Statistics: the target port's and the node ACL's configfs statistics
# move as the workload says — logins, logouts and rejects by reason,
# commands, reads and writes, bytes each way, immediate data, latency —
# and no error counter moves during clean I/O.
# vm-timeout: 600
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$SRPT_ROOT/tests/vm/lib.sh"
# shellcheck source-path=SCRIPTDIR source=initiator.sh
. "$SRPT_ROOT/tests/vm/initiator.sh"

srp_loopback
wwn=/sys/kernel/config/target/srpt/0x$gid
# The port's statistics are in its TPG (srpt has one per target port).
port_stats=$wwn/tpgt_1/statistics
srpt_serve "$gid" 5555 64M acl=0

# stat FILE NAME: one counter of a statistics file.
stat() {
	awk -v n="$2" '$1 == n { print $2; found = 1 } END { exit !found }' "$1"
}
# expect_stat FILE NAME OP VALUE: e.g. expect_stat $f logins -eq 1.
expect_stat() {
	local v
	v=$(stat "$1" "$2") || fail "no $2 in $1"
	if test "$v" "$3" "$4"; then
		pass "$2 = $v ($3 $4) in ${1#/sys/kernel/config/target/srpt/}"
	else
		_indent <"$1"
		fail "$2 = $v, expected $3 $4"
	fi
}

expect_stat "$port_stats" logins -eq 0
# No ACL yet: the login is refused and counted by reason.
add=/sys/class/infiniband_srp/srp-rxe0-1/add_target
timeout "$SRPT_CMD_TIMEOUT" modprobe ib_srp
sg=$(</sys/module/ib_srpt/parameters/srpt_service_guid)
sg=${sg#0x}
expect_fail sh -c "echo id_ext=$sg,ioc_guid=$sg,initiator_ext=${gid:0:16},dest=10.200.0.1:5555 >$add"
expect_stat "$port_stats" login_rejects -eq 1
expect_stat "$port_stats" rejects_unable_to_establish_channel -eq 1

expect_ok tcli "/srpt/ib.$gid/acls create ib.$gid"
acl=$wwn/tpgt_1/acls/0x$gid
srp_login rxe0 "$gid" 10.200.0.1 5555 ch_count=1
disk=$(srp_disk)
expect_stat "$port_stats" logins -eq 1
expect_stat "$acl/statistics" channels -eq 1

w0=$(stat "$acl/statistics" writes)
bw0=$(stat "$acl/statistics" bytes_written)
r0=$(stat "$acl/statistics" reads)
br0=$(stat "$acl/statistics" bytes_read)
imm0=$(stat "$acl/statistics" immediate_writes)
# 16 MiB in writes of 64 KiB (RDMA READ), 2 MiB in random writes of 4 KiB
# (immediate data), 8 MiB in random reads of 4 KiB. The block layer may
# merge or split requests: the bytes are exact, the counts only bounded.
expect_ok fio --name=w64k --filename="/dev/$disk" --direct=1 --ioengine=libaio --rw=write \
	--bs=64k --size=16m --iodepth=4
expect_ok fio --name=w4k --filename="/dev/$disk" --direct=1 --ioengine=libaio --rw=randwrite \
	--bs=4k --size=2m --iodepth=4 --norandommap=0
expect_ok fio --name=r4k --filename="/dev/$disk" --direct=1 --ioengine=libaio --rw=randread \
	--bs=4k --size=8m --iodepth=8
# fio may see a READ done before the target saw its response's send
# complete, which counts its bytes and latency.
acl_idle() { [ "$(stat "$acl/statistics" queue_depth)" = 0 ]; }
wait_for 30 "no command left in the target" acl_idle
expect_stat "$acl/statistics" writes -ge $((w0 + 256))
expect_stat "$acl/statistics" bytes_written -eq $((bw0 + 16 * 1048576 + 2 * 1048576))
expect_stat "$acl/statistics" immediate_writes -ge $((imm0 + 256))
expect_stat "$acl/statistics" reads -ge $((r0 + 1024))
expect_stat "$acl/statistics" bytes_read -ge $((br0 + 8 * 1048576))
for e in errors_malformed_iu errors_no_memory errors_send errors_rdma_read errors_unknown_iu \
	dropped_commands aborted_tasks; do
	expect_stat "$acl/statistics" "$e" -eq 0
done
lat=$(awk '$1 ~ /^latency_/ { s += $2 } END { print s }' "$acl/statistics")
ncmds=$(stat "$acl/statistics" commands)
[ "$lat" -eq "$ncmds" ] || fail "latency buckets sum to $lat, not the $ncmds commands"
pass "latency buckets count every command ($ncmds)"
expect_stat "$acl/statistics" credits -gt 0

srp_logout
expect_stat "$port_stats" logouts -eq 1
expect_stat "$port_stats" channels -eq 0
# The port keeps the counts of channels that went.
expect_stat "$port_stats" writes -ge 512
expect_stat "$acl/statistics" channels -eq 0
unload_all
check_dmesg
