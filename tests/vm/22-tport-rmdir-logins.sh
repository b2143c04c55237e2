#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Target ports come and go while an initiator keeps logging in. A login
# looks through the RDMA port's target ports (GUID form, then GID form);
# an rmdir of one must wait until the login is done with it, never free
# it under the login. srpi logs in and out without pause while
#  - the GUID-form target port of the same RDMA port is made and removed
#    50 times, and
#  - the GID-form target port that admits the logins is torn down and set
#    up again (TPG, LUN, ACL, enable) 5 times.
# Logins that find no enabled TPG are refused; none may hang, and nothing
# of the core may be left afterwards. (The debug kernel's KASAN sees a use
# after free that the normal kernel may not.)
# vm-timeout: 900
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$SRPT_ROOT/tests/vm/lib.sh"
# shellcheck source-path=SCRIPTDIR source=initiator.sh
. "$SRPT_ROOT/tests/vm/initiator.sh"

srp_loopback
srpi_setup
srpt_serve "$gid" 5555 16M
tcli_stop
rd0=$(backstore rd0)
base=$(srpt_objects)
guid=$(guid_name "$gid")

"$SRPI" cycles --dest 10.200.0.1:5555 --count 100000 --keep-going --timeout 20 >/tmp/cycles.log 2>&1 &
cycler=$!

for ((i = 0; i < 50; i++)); do
	mkdir "$SRPT_CFS/$guid" || fail "mkdir of $guid failed in round $i"
	rmdir "$SRPT_CFS/$guid" || fail "rmdir of $guid failed in round $i"
done
pass "the GUID-form target port made and removed 50 times during logins"

gidport=$SRPT_CFS/0x$gid
for ((i = 0; i < 5; i++)); do
	cfs_drop_tport "0x$gid" || fail "tearing down 0x$gid failed in round $i"
	mkdir -p "$gidport/tpgt_1/acls/0x$gid" || fail "recreating 0x$gid failed in round $i"
	cfs_add_lun "$gidport/tpgt_1" 0 "$rd0" || fail "LUN 0 failed in round $i"
	mkdir "$gidport/tpgt_1/acls/0x$gid/lun_0" || fail "the mapped LUN failed in round $i"
	ln -s "$gidport/tpgt_1/lun/lun_0" "$gidport/tpgt_1/acls/0x$gid/lun_0/srpt_vm_lun" ||
		fail "mapping the LUN failed in round $i"
	write_attr "$gidport/tpgt_1/enable" 1 || fail "enabling failed in round $i"
	sleep 0.5
done
pass "the GID-form target port torn down and set up again 5 times during logins"

kill -INT "$cycler"
wait "$cycler" || true
grep -E '^(ok|FAIL) ' /tmp/cycles.log | _indent
grep -q '^ok cycles: [1-9]' /tmp/cycles.log || fail "srpi: no login went through, or one hung"
pass "srpi: $(sed -n 's/^ok cycles: \([0-9]*\) logins.*/\1/p' /tmp/cycles.log) logins, none hung"
expect_srpi 120 io --dest 10.200.0.1:5555 --seconds 5 --qd 8
expect_objects "$base" 30
tcli_start
expect_ok tcli "clearconfig confirm=True"
unload_all
check_dmesg
