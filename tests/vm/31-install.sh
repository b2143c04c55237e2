#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Install like a driver: `make install` (31-install.host, run before the
# boot) put ib_srpt.ko into /lib/modules/<release>/updates and ran depmod,
# so plain `modprobe ib_srpt` (what targetcli runs) loads ours, and modinfo
# describes it and every parameter, and the srpt-stat it installed runs.
# Without the install, modprobe finds the in-tree module again (none, on a
# kernel built without it).
# The install is signed (`make install SIGN_KEY=... SIGN_CERT=...`) with a
# throw-away key that no keyring of the kernel holds, as a Secure Boot key
# is before it is enrolled: so a kernel that checks signatures without
# enforcing them (Debian's, booted without Secure Boot) loads the module
# tainted E, as it would an unsigned one. What that load proves is that
# the signature is well-formed: a malformed one is refused even then. Once
# enforcement is switched on, the kernel refuses the module for its key
# ("module with unavailable key"), not as unsigned: it read the signature.
# That the signature verifies is the build tier's check (module_sig_verify).
# vm-timeout: 300
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$SRPT_ROOT/tests/vm/lib.sh"

kver=$(uname -r)
kver_re=$(ere_quote "$kver")
stage=$SRPT_ROOT/build/install-vm/$kver/lib/modules/$kver
expect_ok test -e "$stage/modules.dep"
expect_ok mount --bind "$stage" "/lib/modules/$kver"
expect_ok sh -c "ls /lib/modules/$kver/updates/ib_srpt.ko*"
expect_ok modinfo ib_srpt
expect_output "^filename: +/lib/modules/$kver_re/updates/ib_srpt\\.ko"
expect_output '^version: +[0-9]+\.[0-9]+\.[0-9]+'
expect_output '^description: +SCSI RDMA Protocol target'
expect_output '^license: +GPL'
for p in srp_max_req_size srpt_srq_size srpt_service_guid rdma_cm_port; do
	expect_output "^parm: +$p:[A-Z]"
done
expect_output '^sig_id: +PKCS#7$'
expect_output '^signer: +ib_srpt VM-test throw-away key$'

setup_rxe rxe0 10.200.0.1/24
# Plain modprobe, as targetcli would do it: no block on the in-tree name.
allow_intree_srpt
mkdir -p /etc/target
expect_ok modprobe ib_srpt
taint=$(</sys/module/ib_srpt/taint)
# Out-of-tree (O); also not verified (E) where the kernel checks signatures.
[[ $taint == *O* ]] || fail "modprobe loaded a module with taint '$taint': not out-of-tree, not ours"
sig_enforce=/sys/module/module/parameters/sig_enforce
if [ -e "$sig_enforce" ]; then
	[[ $taint == *E* ]] || fail "a module signed with an unknown key loaded with taint '$taint', not E"
fi
pass "modprobe ib_srpt loaded ours (taint $taint)"
expect_dmesg 'ib_srpt: SRP target [0-9.]+ loaded'
expect_ok tcli 'ls /srpt'
# srpt-stat where make install put it (usr/local/sbin of the stage):
# targetcli's ls made no srpt directory, which it says; then it runs.
srpt_stat=$SRPT_ROOT/build/install-vm/$kver/usr/local/sbin/srpt-stat
expect_fail "$srpt_stat" -c 1
expect_output '^srpt-stat: the srpt fabric is not there: .*ib_srpt is loaded, but nothing configured'
expect_ok mkdir /sys/kernel/config/target/srpt
expect_ok "$srpt_stat" -a -i 0.2 -c 1
expect_output '^time +r/s +w/s +rMiB/s +wMiB/s '
unload_all

# Enforcement cannot be switched off again; what follows loads nothing.
if [ -e "$sig_enforce" ]; then
	[ "$(<"$sig_enforce")" = N ] || fail "the kernel enforces module signatures already"
	echo 1 >"$sig_enforce"
	expect_fail modprobe ib_srpt
	expect_output 'Key was rejected by service'
	expect_dmesg 'Loading of module with unavailable key is rejected'
else
	log "this kernel checks no module signatures (the debug kernel): nothing to enforce"
fi

expect_ok umount "/lib/modules/$kver"
if grep -q 'ulp/srpt/ib_srpt\.ko' "/lib/modules/$kver/modules.dep"; then
	expect_ok modprobe -n -v ib_srpt
	expect_output "kernel/drivers/infiniband/ulp/srpt/ib_srpt\\.ko"
else
	# The debug kernel is built without the in-tree module: none is left.
	expect_fail modprobe -n -v ib_srpt
fi
check_dmesg
