#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# The Debian packages as an administrator lives with them, in a guest
# that has nothing of ib_srpt (35-package.host built them with `make deb`,
# and again from a copy of the tree with the version plus "+vmtest1").
# The guest's /usr, /etc and /var get overlays whose upper layers lie on
# the scenario's own disk (vm-disk), so that what the packages install
# survives the reboot (vm-boots: 2), and the host is never touched.
# Boot 1: apt-get installs ib-srpt-dkms and srpt-tools; DKMS builds and
# installs the module in the guest (for the running kernel and the newest
# installed one, as its postinst does), signed with its own key;
# modprobe loads it; a fileio LUN on the disk, a GID-named target port, an
# ACL and the RDMA/CM port in /etc/modprobe.d, saveconfig, fio writes.
# Boot 2: rtslib-fb-targetctl.service's commands (from the installed unit
# and srpt-tools' drop-in) start before the RDMA device exists; the
# restore waits for it and ib_srp reads the first boot's data back. Then
# the upgrade with the session up: apt-get installs the newer packages
# (DKMS builds while reads go on), saveconfig, `targetctl clear`, the
# module reloaded, `targetctl restore`: the newer module runs, ib_srp
# reconnects by itself and the data verifies; the downtime is measured
# (the "figure:" lines). Last the purge, which must leave nothing:
# /usr/src/ib_srpt-*, /var/lib/dkms/ib_srpt, /lib/modules/*/updates/**/
# ib_srpt*, the drop-in, srpt-stat, srpt-wait-ports, /etc/default/srpt-tools;
# modprobe then finds the in-tree module again.
# DKMS compiles and depmod runs under emulation: this takes about three
# quarters of an hour (docs/testing.md), so it runs on demand only
# (vm-on-demand: `scripts/vm-test 35`), not in `make check`.
# vm-boots: 2
# vm-timeout: 3600
# vm-disk: 4096
# vm-on-demand
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$SRPT_ROOT/tests/vm/lib.sh"
# shellcheck source-path=SCRIPTDIR source=initiator.sh
. "$SRPT_ROOT/tests/vm/initiator.sh"

port=5555
mac=52:54:00:5a:72:73
unit=rtslib-fb-targetctl.service
saved=/etc/rtslib-fb-target/saveconfig.json
kver=$(uname -r)
kver_re=$(ere_quote "$kver")
ver=$(sed -n 's/^#define SRPT_VERSION "\(.*\)"/\1/p' "$SRPT_ROOT/include/srpt/version.h")
next=$ver+vmtest1
debs=("$SRPT_ROOT/build/deb/ib-srpt-dkms_${ver}_all.deb" "$SRPT_ROOT/build/deb/srpt-tools_${ver}_all.deb")
nextdir=$SRPT_ROOT/build/pkg-vm/next/build/deb
next_debs=("$nextdir/ib-srpt-dkms_${next}_all.deb" "$nextdir/srpt-tools_${next}_all.deb")
disk=/run/srpt-disk
lun=$disk/lun0.img
apt=(env DEBIAN_FRONTEND=noninteractive apt-get -y -q --no-install-recommends)
# DKMS compiling and depmod under TCG: far beyond the usual 60 s a command.
slow=$((2400 * SRPT_VM_SLOWDOWN))

# figure WHAT SECONDS: a measured duration, for docs/testing.md.
figure() {
	log "figure: $1: $2 s"
}

# secs_since EPOCHREALTIME: seconds since then, one decimal.
secs_since() {
	awk -v a="$1" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.1f\n", b - a }'
}

# leftovers: every file of the packages that is there, one per line.
leftovers() {
	local f
	for f in /usr/src/ib_srpt-* /var/lib/dkms/ib_srpt /usr/sbin/srpt-stat /usr/sbin/srpt-wait-ports \
		"/lib/systemd/system/$unit.d/srpt-tools.conf" /etc/default/srpt-tools \
		/usr/share/man/man8/srpt-stat.8.gz /usr/share/man/man8/srpt-wait-ports.8.gz \
		/usr/share/doc/ib-srpt-dkms /usr/share/doc/srpt-tools; do
		[ ! -e "$f" ] || printf '%s\n' "$f"
	done
	find /lib/modules/*/updates -name 'ib_srpt*' 2>/dev/null || true
	dpkg-query -W -f='${Package} ${Status}\n' ib-srpt-dkms srpt-tools 2>/dev/null | grep -v ' not-installed$' || true
}

expect_nothing_left() { # WHEN
	local left
	left=$(leftovers)
	if [ -n "$left" ]; then
		_indent <<<"$left"
		fail "$1: files of the packages are there"
	fi
	pass "$1: no /usr/src/ib_srpt-*, /var/lib/dkms/ib_srpt, updates/**/ib_srpt*, drop-in, srpt-stat, srpt-wait-ports, /etc/default/srpt-tools; neither package known to dpkg"
}

# expect_module VERSION: the loaded ib_srpt is the one DKMS installed, of
# VERSION, with the RDMA/CM listener of /etc/modprobe.d.
expect_module() {
	local taint
	wait_for 30 "ib_srpt loaded" test -e /sys/module/ib_srpt/refcnt
	expect_attr /sys/module/ib_srpt/version "$1"
	taint=$(</sys/module/ib_srpt/taint)
	[[ $taint == *O* ]] || fail "the loaded ib_srpt is not out-of-tree (taint '$taint')"
	expect_attr /sys/module/ib_srpt/parameters/rdma_cm_port "$port"
}

# expect_dkms VERSION: DKMS has VERSION (alone) installed for this kernel,
# and modprobe would load it from updates/dkms, signed by DKMS.
expect_dkms() {
	expect_ok dkms status -m ib_srpt
	_indent <<<"$VM_LAST_OUTPUT"
	expect_output "^ib_srpt/$(ere_quote "$1"), $kver_re, x86_64: installed"
	# (DKMS's readelf warns about 6.12's headers on stderr: not counted.)
	[ "$(grep -c '^ib_srpt/' <<<"$VM_LAST_OUTPUT")" = "$(grep -cE "^ib_srpt/$(ere_quote "$1"), " <<<"$VM_LAST_OUTPUT")" ] ||
		fail "dkms status names another version than $1"
	expect_ok modinfo -k "$kver" ib_srpt
	expect_output "^filename: +/lib/modules/$kver_re/updates/dkms/ib_srpt\\.ko"
	expect_output "^version: +$(ere_quote "$1")\$"
	expect_output '^signer: +DKMS module signing key$'
}

# apt_install DEB...: apt-get install, as an administrator would; prints
# what DKMS said.
apt_install() {
	local t0=$SECONDS
	SRPT_CMD_TIMEOUT=$slow expect_ok "${apt[@]}" install "$@"
	sed -n '/^Setting up ib-srpt-dkms/,$p' <<<"$VM_LAST_OUTPUT" | grep -v '^Processing triggers' | _indent
	apt_secs=$((SECONDS - t0))
}

# The disk, and /usr, /etc and /var over it: what a boot sees of an
# installed system.
expect_ok modprobe -a virtio_blk ext4
wait_for 10 "/dev/vda" test -b /dev/vda
[ "$SRPT_VM_BOOT" != 1 ] || expect_ok mkfs.ext4 -q -F /dev/vda
mkdir -p "$disk"
expect_ok mount /dev/vda "$disk"
for d in /usr /etc /var; do
	dir_overlay "$d" "$disk/root"
done
dpkg_quiet
lio_db_root
allow_intree_srpt
load_scsi_initiator_bits
fio_job=(--name=pkg --direct=1 --ioengine=libaio --rw=write --bs=64k
	--size=16m --iodepth=8 --verify=crc32c --verify_fatal=1)

if [ "$SRPT_VM_BOOT" = 1 ]; then
	expect_nothing_left "a clean guest"
	expect_ok modinfo -k "$kver" -F filename ib_srpt
	expect_output '/kernel/drivers/infiniband/ulp/srpt/ib_srpt\.ko'
	apt_install "${debs[@]}"
	figure "apt-get install of ib-srpt-dkms and srpt-tools $ver (DKMS build, install, depmod)" "$apt_secs"
	expect_dkms "$ver"
	expect_ok test -f "/lib/systemd/system/$unit.d/srpt-tools.conf"
	expect_ok srpt-wait-ports --version
	expect_output "^srpt-wait-ports $(ere_quote "$ver")\$"

	echo "options ib_srpt rdma_cm_port=$port" >/etc/modprobe.d/ib_srpt.conf
	tcli_start
	setup_rxe rxe0 10.200.0.1/24 srpt0 "$mac"
	gid=$(rxe_gid rxe0)
	expect_ok tcli "/backstores/fileio create lun0 $lun 16M" \
		"/srpt create ib.$gid" \
		"/srpt/ib.$gid/luns create /backstores/fileio/lun0" \
		"/srpt/ib.$gid/acls create ib.$gid" \
		saveconfig
	expect_module "$ver"
	srp_login rxe0 "$gid" 10.200.0.1 "$port"
	expect_fio --filename="/dev/$(srp_disk)" "${fio_job[@]}"
	srp_logout
	echo "$gid" >"$disk/gid"
	unload_all
	# What the power-off must not lose.
	sync
	check_dmesg
	exit 0
fi

# --- Boot 2: restored at boot ---------------------------------------------
expect_ok test -s "$saved"
expect_dkms "$ver"
gid=$(<"$disk/gid")
unit_log=/tmp/unit.log
# There before the job writes it: file_has on a missing file ends the
# scenario (its $(<file) fails in the shell itself, under the ERR trap).
: >"$unit_log"
t0=$EPOCHREALTIME
unit_start "$unit" >"$unit_log" 2>&1 &
unit_pid=$!
wait_for 60 "srpt-wait-ports is waiting for ib.$gid" file_has "$unit_log" "ib.$gid: waiting up to 60s"
setup_rxe rxe0 10.200.0.1/24 srpt0 "$mac"
[ "$(rxe_gid rxe0)" = "$gid" ] || fail "rxe0 came back with another GID"
rc=0
timeout -k 5 180 tail --pid="$unit_pid" -f /dev/null || rc=$?
[ "$rc" = 0 ] || fail "the unit's start did not end within 180 s of the device"
wait "$unit_pid" || rc=$?
_indent <"$unit_log"
[ "$rc" = 0 ] || fail "the unit's start failed (exit status $rc)"
VM_LAST_OUTPUT=$(<"$unit_log")
expect_output "^srpt-wait-ports: ib\\.$gid: rxe0 port 1 appeared after [0-9.]+s\$"
expect_output "^unit: /usr/bin/targetctl restore\$"
grep -q 'skipped\|exit status' "$unit_log" && fail "the restore skipped something or a command failed"
figure "the unit's start at boot, the device made meanwhile" "$(secs_since "$t0")"
expect_module "$ver"
srp_login rxe0 "$gid" 10.200.0.1 "$port"
sd=$(srp_disk)
expect_fio --filename="/dev/$sd" "${fio_job[@]}" --verify_only=1
pass "the data of the first boot reads back through the configuration restored at boot"

# --- The upgrade, with the session up -------------------------------------
# One 4 KiB direct read after another, each line "ok|err TIME": where
# I/O stopped and when it came back.
reads=/tmp/reads.log
: >"$reads"
(
	while :; do
		if timeout 300 dd if="/dev/$sd" of=/dev/null bs=4k count=1 iflag=direct 2>/dev/null; then
			echo "ok $EPOCHREALTIME"
		else
			echo "err $EPOCHREALTIME"
		fi
		sleep 0.2
	done >"$reads"
) &
reads_pid=$!
wait_for 30 "reads flowing" file_has "$reads" ok
apt_install "${next_debs[@]}"
figure "apt-get install of the $next packages, the session up (DKMS build, install, depmod)" "$apt_secs"
expect_dkms "$next"
expect_attr /sys/module/ib_srpt/version "$ver"
n_ok=$(grep -c '^ok' "$reads" || true)
n_err=$(grep -c '^err' "$reads" || true)
[ "$n_err" = 0 ] || fail "$n_err reads failed while the newer packages installed"
pass "the old module served $n_ok reads while the newer packages installed, none failed"

expect_ok tcli saveconfig
t0=$EPOCHREALTIME
expect_ok targetctl clear
expect_ok rmdir "$SRPT_CFS"
expect_ok modprobe -r ib_srpt
expect_ok modprobe ib_srpt
expect_ok targetctl restore
t1=$EPOCHREALTIME
expect_module "$next"
# after T: a read that succeeded after T.
read_after() {
	awk -v t="$1" '$1 == "ok" && $2 > t { found = 1 } END { exit !found }' "$reads"
}
wait_for 120 "ib_srp reconnected by itself: reads succeed again" read_after "$t1"
kill "$reads_pid" 2>/dev/null || true
wait "$reads_pid" 2>/dev/null || true
read -r gap back errs < <(awk -v t0="$t0" -v t1="$t1" '
	$1 == "ok" && $2 < t0 { last = $2 }
	$1 == "ok" && $2 > t1 && !first { first = $2 }
	$1 == "err" && $2 > t0 { errs++ }
	END { printf "%.1f %.1f %d\n", first - last, first - t1, errs }' "$reads")
figure "the reload (targetctl clear, rmdir, modprobe -r, modprobe, targetctl restore)" \
	"$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.1f\n", b - a }')"
figure "no read completed (the last before the clear to the first after)" "$gap"
figure "the first read after the restore came" "$back"
log "reads that failed meanwhile (ib_srp's fast_io_fail_tmo): $errs"
expect_ok tcli sessions
expect_output "^alias: 0x$gid"$'\t'"sid: [0-9]+ type: Normal session-state: LOGGED_IN\$"
expect_fio --filename="/dev/$sd" "${fio_job[@]}" --verify_only=1
pass "the data reads back through the upgraded module"
expect_fio --filename="/dev/$sd" "${fio_job[@]}"
srp_logout

# --- The purge --------------------------------------------------------------
unload_all
t0=$SECONDS
SRPT_CMD_TIMEOUT=$slow expect_ok "${apt[@]}" remove --purge ib-srpt-dkms srpt-tools
figure "apt-get remove --purge of both packages" "$((SECONDS - t0))"
expect_ok dkms status -m ib_srpt
! grep -q '^ib_srpt' <<<"$VM_LAST_OUTPUT" || fail "DKMS still knows ib_srpt: $VM_LAST_OUTPUT"
pass "DKMS knows no ib_srpt"
expect_nothing_left "after the purge"
expect_ok modinfo -k "$kver" -F filename ib_srpt
expect_output '/kernel/drivers/infiniband/ulp/srpt/ib_srpt\.ko'
check_dmesg
