# SPDX-License-Identifier: GPL-2.0-only
# shellcheck shell=bash
# The in-tree SRP initiator (ib_srp) inside the test VM, and what the
# scenarios that serve LUNs share: the target's configuration, its live
# object counters, the RC queue pairs, the kernel log since a mark and
# fio. Scenarios source it after lib.sh. Like lib.sh's helpers, these
# start as few programs as they can (each costs ~0.15 s under TCG).

# ---------------------------------------------------------------------------
# The target side.
# ---------------------------------------------------------------------------

# srp_loopback [PARAM=VALUE...]: where the scenarios that serve a LUN to
# the initiator in the same guest start: targetcli's daemon, rxe0 on
# 10.200.0.1/24, our module loaded with the PARAMs, the SCSI disk drivers.
# Sets gid to rxe0's GID.
# shellcheck disable=SC2120 # the parameters are optional
srp_loopback() {
	tcli_start
	setup_rxe rxe0 10.200.0.1/24
	load_srpt "$@"
	load_scsi_initiator_bits
	gid=$(rxe_gid rxe0)
}

# srpt_tpg GID: the configfs directory of the TPG of target port 0x<GID>.
srpt_tpg() {
	printf '%s\n' "/sys/kernel/config/target/srpt/0x$1/tpgt_1"
}

# srpt_serve GID PORT SIZE [SIZE...] [acl=0]: a target port named after
# GID with one ramdisk LUN per SIZE (rd0 = LUN 0, ...), an ACL for the
# initiator port id GID (unless acl=0) and RDMA/CM logins on PORT.
srpt_serve() {
	local gid=$1 port=$2 acl=1 i=0 s cmds=()
	shift 2
	cmds+=("/srpt create ib.$gid")
	for s in "$@"; do
		case "$s" in
		acl=*) acl=${s#acl=}; continue ;;
		esac
		cmds+=("/backstores/ramdisk create rd$i $s" "/srpt/ib.$gid/luns create /backstores/ramdisk/rd$i")
		i=$((i + 1))
	done
	[ "$acl" = 0 ] || cmds+=("/srpt/ib.$gid/acls create ib.$gid")
	expect_ok tcli "${cmds[@]}"
	expect_attr_set "$SRPT_CFS/discovery_auth/rdma_cm_port" "$port"
}

# srpt_use_srq GID 0|1: the TPG attribute use_srq (set it before a login).
srpt_use_srq() {
	local f
	f="$(srpt_tpg "$1")/attrib/use_srq"
	echo "$2" >"$f" || fail "cannot set use_srq=$2"
	[ "$(<"$f")" = "$2" ] || fail "use_srq reads $(<"$f") after writing $2"
	pass "use_srq=$2"
}

# srpt_stats GID: the statistics of the target port 0x<GID> (its TPG's
# statistics file: "name value" lines).
srpt_stats() {
	local s
	s=$(<"$(srpt_tpg "$1")/statistics") || fail "cannot read the statistics of 0x$1"
	printf '%s\n' "$s"
}

# stat_delta BEFORE AFTER NAME: how much the counter NAME grew between two
# srpt_stats snapshots.
stat_delta() {
	awk -v n="$3" 'NR == FNR { if ($1 == n) b = $2; next }
		$1 == n { print $2 - b; f = 1 } END { exit !f }' \
		<(printf '%s\n' "$1") <(printf '%s\n' "$2") || fail "no counter $3 in the statistics"
}

# expect_no_stat_errors BEFORE AFTER [NAME...] [-NAME...]: none of the
# error counters (and none of the NAMEs; not the -NAMEs) moved between two
# srpt_stats snapshots.
expect_no_stat_errors() {
	local before=$1 after=$2 n d moved='' names=() skip=() x
	shift 2
	for x in "$@"; do
		if [ "${x:0:1}" = - ]; then skip+=("${x:1}"); else names+=("$x"); fi
	done
	for n in errors_malformed_iu errors_no_memory errors_send errors_rdma_read \
		errors_unknown_iu dropped_commands "${names[@]}"; do
		[[ " ${skip[*]} " != *" $n "* ]] || continue
		d=$(stat_delta "$before" "$after" "$n")
		[ "$d" = 0 ] || moved+=" $n+$d"
	done
	[ -z "$moved" ] || fail "error counters moved:$moved"
	pass "no error counter moved${names[*]:+ (nor ${names[*]})}${skip[*]:+ (not checked: ${skip[*]})}"
}

# rxe_replayed_local_op MARK: since the dmesg MARK, 6.1's rxe ran a local
# operation of a send queue a second time and broke that connection until
# ib_srp reconnects: what either side sends meanwhile never arrives. When
# it retransmits, after an ACK timeout or an RNR NAK, 6.1's requester runs
# the local operations from the oldest unacknowledged work request again
# (rxe_req.c): a fast registration done already finds its MR in use
# ("mr->lkey ... not free": the initiator's own, which ib_srp registers
# for every command), an invalidation finds its MR registered again since
# ("wr key ... doesn't match mr key", one less: the target's too when
# rdma_rw registers memory, force_mr).
rxe_replayed_local_op() {
	[ "$(dmesg_count_since "$1" 'rdma_rxe: (rxe_reg_fast_mr: mr->lkey = 0x[0-9a-f]+ not free|rxe_invalidate_mr: wr key \(0x[0-9a-f]+\) doesn.t match mr key)')" -gt 0 ]
}

# expect_no_stat_errors_since MARK BEFORE AFTER: expect_no_stat_errors,
# except when rxe_replayed_local_op since MARK: the target's sends and
# RDMA READs in flight on the broken connection fail with it, so those
# two counters may move; nothing may be dropped, and the caller's fio
# must still verify.
expect_no_stat_errors_since() {
	if rxe_replayed_local_op "$1"; then
		log "rxe ran a local operation again (a fast registration or an invalidation) and broke a connection"
		expect_no_stat_errors "$2" "$3" -errors_send -errors_rdma_read
	else
		expect_no_stat_errors "$2" "$3"
	fi
}

# ---------------------------------------------------------------------------
# The core's live objects (/sys/kernel/debug/ib_srpt/objects).
# ---------------------------------------------------------------------------
_vm_objects=/sys/kernel/debug/ib_srpt/objects

# srpt_objects: the counters on one line ("devices 1 ports 1 ...").
srpt_objects() {
	local o
	if [ ! -e "$_vm_objects" ] && [ ! -d /sys/kernel/debug/block ]; then
		timeout "$SRPT_CMD_TIMEOUT" mount -t debugfs debugfs /sys/kernel/debug
	fi
	o=$(<"$_vm_objects") || fail "cannot read $_vm_objects"
	printf '%s\n' "${o//$'\n'/ }"
}

# srpt_object COUNTER: one counter's value (channels, commands, ...).
srpt_object() {
	local o
	o=" $(srpt_objects) "
	o=${o#* "$1" }
	printf '%s\n' "${o%% *}"
}

# _expect_back WHAT WANT SECONDS CMD...: CMD prints WANT again within
# SECONDS (releases are asynchronous), or the scenario fails saying WHAT
# did not come back; _vm_back holds CMD's last output.
_expect_back() {
	local what=$1 want=$2 secs=$3 deadline=$((SECONDS + $3))
	shift 3
	while _vm_back=$("$@") && [ "$_vm_back" != "$want" ]; do
		if [ "$SECONDS" -ge "$deadline" ]; then
			printf '%s\n' "want: $want" "have: $_vm_back" | _indent
			fail "$what not back to their baseline within ${secs}s"
		fi
		nap 0.2
	done
}

# expect_objects BASELINE [SECONDS]: the counters come back to BASELINE (a
# line of srpt_objects) within SECONDS (20).
expect_objects() {
	_expect_back "the core's live objects are" "$1" "${2:-20}" srpt_objects
	pass "live objects at baseline: $_vm_back"
}

# ---------------------------------------------------------------------------
# The RC queue pairs (both ends of every channel are in this guest).
# ---------------------------------------------------------------------------

# rc_qp_psns: "lqpn sq-psn" of every RC queue pair, one per line.
rc_qp_psns() {
	timeout "$SRPT_CMD_TIMEOUT" rdma res show qp | awk '
		/ type RC / {
			for (i = 1; i < NF; i++) {
				if ($i == "lqpn") q = $(i + 1)
				if ($i == "sq-psn") p = $(i + 1)
			}
			print q, p
		}'
}

# expect_qps_busy BEFORE AFTER COUNT MIN: COUNT RC queue pairs (both
# ends of COUNT/2 channels), each of which sent at least MIN packets
# between the two rc_qp_psns snapshots.
expect_qps_busy() {
	local res
	res=$(awk -v n="$3" -v min="$4" '
		NR == FNR { before[$1] = $2; next }
		{
			d = ($2 - before[$1] + 16777216) % 16777216
			if (!($1 in before)) { print "new QP " $1; bad = 1 }
			else if (d < min) { print "QP " $1 " sent only " d " packets"; bad = 1 }
			list = list " " $1 ":" d
			qps++
		}
		END {
			if (qps != n) { print qps " RC QPs, not " n; bad = 1 }
			print "packets sent per QP:" list
			exit bad
		}' <(printf '%s\n' "$1") <(printf '%s\n' "$2")) || {
		printf '%s\n' "$res" | _indent
		fail "not every one of the $3 RC queue pairs carried I/O"
	}
	pass "all $3 RC queue pairs carried I/O ($res)"
}

# ---------------------------------------------------------------------------
# The initiator: ib_srp.
# ---------------------------------------------------------------------------

# srp_target_spec GID ADDR PORT [OPTIONS]: the add_target line. With
# initiator_ext = the GID's first 8 bytes, the initiator port id is the
# port's GID, so a targetcli ACL ib.<GID> admits it.
srp_target_spec() {
	local gid=$1 sg
	sg=$(</sys/module/ib_srpt/parameters/srpt_service_guid)
	sg=${sg#0x}
	printf '%s\n' "id_ext=$sg,ioc_guid=$sg,initiator_ext=${gid:0:16},dest=$2:$3${4:+,$4}"
}

# _vm_srp_add DEV: the add_target file of ib_srp for DEV port 1, once
# ib_srp is loaded and sees DEV.
_vm_srp_add() {
	local add=/sys/class/infiniband_srp/srp-$1-1/add_target
	[ -e /sys/module/ib_srp ] || timeout "$SRPT_CMD_TIMEOUT" modprobe ib_srp
	[ -w "$add" ] || wait_for 10 "ib_srp sees $1" test -w "$add"
	printf '%s\n' "$add"
}

# srp_login DEV GID ADDR PORT [OPTIONS]: log in over RDMA/CM. OPTIONS are
# more add_target options, comma-separated (ch_count=4).
srp_login() {
	local target add i
	target=$(srp_target_spec "$2" "$3" "$4" "${5:-}")
	add=$(_vm_srp_add "$1")
	# A logout completes asynchronously: an immediate re-login may
	# find the old one still there (EEXIST); retry briefly.
	for ((i = 0; i < 50; i++)); do
		if echo "$target" >"$add" 2>/dev/null; then
			pass "ib_srp logged in: $target"
			return 0
		fi
		sleep 0.2
	done
	echo "$target" >"$add" || fail "ib_srp login failed: $target"
}

# srp_login_fails DEV GID ADDR PORT [OPTIONS]: add_target must fail.
srp_login_fails() {
	local target add err
	target=$(srp_target_spec "$2" "$3" "$4" "${5:-}")
	add=$(_vm_srp_add "$1")
	if err=$( (echo "$target" >"$add") 2>&1); then
		fail "ib_srp logged in, but the login should have been refused: $target"
	fi
	pass "ib_srp login refused: ${err##*: }"
}

# srp_disks: the SCSI disks of the SRP targets in LUN order, one per line.
srp_disks() {
	local d luns=()
	for d in /sys/class/srp_remote_ports/*/device/../target*/*/block/*; do
		[ -e "$d" ] || continue
		# .../target0:0:0/0:0:0:<lun>/block/sdX
		local h=${d%/block/*}
		luns[${h##*:}]=${d##*/}
	done
	[ ${#luns[@]} -gt 0 ] || return 1
	printf '%s\n' "${luns[@]}"
}

# srp_disk: the SCSI disk of the (single) SRP target, once it appeared.
srp_disk() {
	local d i
	for ((i = 0; i < 100; i++)); do
		# The disks hang under the SCSI host that owns the remote port.
		for d in /sys/class/srp_remote_ports/*/device/../target*/*/block/*; do
			[ -e "$d" ] && { echo "${d##*/}"; return 0; }
		done
		sleep 0.1
	done
	fail "no SRP disk appeared"
}

# srp_wait_disks N: until the SRP targets have N disks; prints them.
srp_wait_disks() {
	local i disks
	for ((i = 0; i < 100; i++)); do
		if disks=$(srp_disks) && [ "$(wc -l <<<"$disks")" -ge "$1" ]; then
			printf '%s\n' "$disks"
			return 0
		fi
		sleep 0.1
	done
	fail "not $1 SRP disks within 10s: ${disks:-none}"
}

# mp_disk DEV: the SCSI disk that ib_srp's login through the local RDMA
# device DEV brought (the SCSI host with local_ib_device DEV).
mp_disk() {
	local h d
	for h in /sys/class/scsi_host/host*; do
		[ -e "$h/local_ib_device" ] || continue
		[ "$(<"$h/local_ib_device")" = "$1" ] || continue
		for d in "$h"/device/target*/*/block/*; do
			[ -e "$d" ] && { printf '%s\n' "${d##*/}"; return 0; }
		done
	done
	return 1
}

# mp_start NO_PATH_RETRY LOG: udev, then multipathd (log in LOG) with one
# map per WWID, polling every second, queueing NO_PATH_RETRY checks long
# when no path is left; sets mpd_pid. udev starts first: multipathd
# learns of new paths through it and waits for it to have looked at a
# disk; libdevmapper waits for it to make the map's nodes.
# shellcheck disable=SC2034 # mpd_pid is the caller's
mp_start() {
	expect_ok /lib/systemd/systemd-udevd --daemon --resolve-names=never
	wait_for 15 "udevd is up" test -S /run/udev/control
	printf '%s\n' 'defaults {' '	user_friendly_names yes' '	find_multipaths no' \
		'	polling_interval 1' '}' 'overrides {' "	no_path_retry $1" '}' >/etc/multipath.conf
	multipathd -d -s -v3 >"$2" 2>&1 &
	mpd_pid=$!
	wait_for 30 "multipathd is up" sh -c 'multipathd show daemon | grep -qE "^pid [0-9]+ (idle|running)"'
}

# disk_writes DISK: writes completed on DISK so far (block layer stat).
disk_writes() {
	local st
	read -ra st <"/sys/block/$1/stat"
	printf '%s\n' "${st[4]}"
}

# srp_host: the SCSI host directory (/sys/class/scsi_host/hostN) of the
# single SRP target: the one with ib_srp's attributes.
srp_host() {
	local h
	for h in /sys/class/scsi_host/host*; do
		[ -e "$h/ch_count" ] && { printf '%s\n' "$h"; return 0; }
	done
	fail "no SRP SCSI host"
}

# srp_rport_state: the state of the single SRP remote port (running,
# blocked, fail-fast, lost), or "none".
srp_rport_state() {
	local p
	for p in /sys/class/srp_remote_ports/*/state; do
		[ -e "$p" ] && { printf '%s\n' "$(<"$p")"; return 0; }
	done
	echo none
}

# srp_rport_tmo RECONNECT FAST_IO_FAIL: how soon every SRP remote port
# tries to reconnect ("off": never) and fails I/O after its channels broke.
srp_rport_tmo() {
	local p
	for p in /sys/class/srp_remote_ports/*; do
		[ -e "$p/state" ] || continue
		{ echo "$1" >"$p/reconnect_delay" && echo "$2" >"$p/fast_io_fail_tmo"; } ||
			fail "cannot set the timeouts of ${p##*/}"
	done
	pass "SRP remote ports: reconnect_delay $1 s, fast_io_fail_tmo $2 s"
}

# srp_logout: every SRP remote port deleted.
srp_logout() {
	local p
	for p in /sys/class/srp_remote_ports/*; do
		[ -e "$p/delete" ] && echo 1 >"$p/delete"
	done
	wait_for 30 "SRP remote ports gone" _vm_no_rports
	# Our target releases a channel (and logs "logged out") a little after
	# ib_srp let go of it: wait for that too, so that what follows sees
	# the logout complete. The in-tree target (bench) counts nothing.
	if [ -e /sys/module/ib_srpt ] && [[ $(</sys/module/ib_srpt/taint) == *O* ]]; then
		wait_for 30 "the target released every channel" _vm_no_channels
	fi
}

_vm_no_rports() {
	! compgen -G '/sys/class/srp_remote_ports/*' >/dev/null
}

_vm_no_channels() { [ "$(srpt_object channels)" = 0 ]; }

# ---------------------------------------------------------------------------
# fio.
# ---------------------------------------------------------------------------

# fio_summary: one line per job of the terse fio output in VM_LAST_OUTPUT
# (read and written KiB, IOPS, error).
fio_summary() {
	awk -F';' '
		$1 == 3 {
			printf "    fio %-14s read %6d KiB %6d IOPS, write %6d KiB %6d IOPS, error %d\n",
				$3, $6, $8, $47, $49, $5
		}' <<<"$VM_LAST_OUTPUT"
}

# expect_fio ARG...: fio with ARGs (terse output) must succeed; prints a
# summary line per job.
expect_fio() {
	expect_ok fio --output-format=terse "$@"
	fio_summary
}

# ---------------------------------------------------------------------------
# srp_ibcm: the IB/CM test initiator (tests/ibcm), through its debugfs file.
# ---------------------------------------------------------------------------
_vm_ibcm_ctl=/sys/kernel/debug/srp_ibcm/ctl

IBCM=
# ibcm COMMAND...: one command to srp_ibcm (one write); its result line in
# IBCM. srp_ibcm clears the result at every write and fails the write only
# when no command ran: a failed write or an empty result fails here.
ibcm() {
	local err rc=0
	err=$(timeout -k 5 "$SRPT_CMD_TIMEOUT" dd of="$_vm_ibcm_ctl" bs=1024 status=none <<<"$*" 2>&1) || rc=$?
	[ "$rc" = 0 ] || fail "srp_ibcm did not run '$*' (dd exit status $rc: $err)"
	IBCM=$(<"$_vm_ibcm_ctl")
	[ -n "$IBCM" ] || fail "srp_ibcm ran '$*' but left no result"
}

# expect_ibcm COMMAND RESULT: COMMAND's result is exactly RESULT.
expect_ibcm() {
	ibcm "$1"
	[ "$IBCM" = "$2" ] || fail "$1: '$IBCM'; expected '$2'"
	pass "$IBCM"
}

# expect_ibcm_re COMMAND REGEX: COMMAND's result matches REGEX (ERE).
expect_ibcm_re() {
	ibcm "$1"
	[[ $IBCM =~ $2 ]] || fail "$1: '$IBCM'; expected /$2/"
	pass "$IBCM"
}

# ---------------------------------------------------------------------------
# srpi: the raw SRP initiator (tests/srpi/srpi.c, built on the host by
# scripts/build-tools) for what ib_srp never does: exact and hostile
# requests, many connections, verified I/O that a SIGKILL interrupts.
# ---------------------------------------------------------------------------
SRPI=$SRPT_ROOT/build/tools/srpi

# srpi_setup: userspace verbs in the guest (rxe's provider comes with
# ibverbs-providers), and the tool.
srpi_setup() {
	[ -x "$SRPI" ] || fail "$SRPI is missing: scripts/vm-test builds it (scripts/build-tools)"
	timeout "$SRPT_CMD_TIMEOUT" modprobe -a rdma_ucm ib_uverbs
}

# expect_srpi SECONDS ARG...: srpi ARG... must succeed within SECONDS
# (times SRPT_VM_SLOWDOWN); its check lines are shown.
expect_srpi() {
	local secs=$(($1 * SRPT_VM_SLOWDOWN))
	shift
	SRPT_CMD_TIMEOUT=$secs expect_ok "$SRPI" "$@"
	grep -E '^(ok|FAIL) ' <<<"$VM_LAST_OUTPUT" | _indent
}

# srp_initiator_trouble MARK: the initiator's error handling since MARK
# (aborts, device and host resets, command timeouts), one line each.
srp_initiator_trouble() {
	_vm_dmesg_since "$1" | grep -E 'SRP abort called|SRP reset_device called|SRP reset_host called|timing out command|scsi_eh|rejected I/O|I/O error' || true
}

# expect_no_initiator_trouble MARK: none of that since MARK.
expect_no_initiator_trouble() {
	local trouble
	trouble=$(srp_initiator_trouble "$1")
	if [ -n "$trouble" ]; then
		printf '%s\n' "$trouble" | _indent
		fail "the initiator had to abort, reset or time out commands"
	fi
	pass "no abort, reset or timeout on the initiator"
}

# srp_slow_kernel_timeouts DISK: on a slowed-down kernel (the debug tier,
# SRPT_VM_SLOWDOWN > 1) the SCSI command timeout of DISK grows from 30 s to
# 120 s times the slowdown. There data moves twenty and more times slower
# (4 MiB reads at 0.5 MiB/s under KASAN and lockdep), and a command queued
# behind 64 such reads outwaits 30 s although nothing is lost.
srp_slow_kernel_timeouts() {
	[ "$SRPT_VM_SLOWDOWN" = 1 ] ||
		expect_attr_set "/sys/block/$1/device/timeout" $((120 * SRPT_VM_SLOWDOWN))
}

# ---------------------------------------------------------------------------
# The stress scenarios (40-46): counts, naps, srpi in the background.
# ---------------------------------------------------------------------------

# stress_scale VAR...: each VAR (a count: cycles, faults, seconds) divided
# by SRPT_STRESS_SCALE (1 by default), at least 1. A quick run of all the
# stress scenarios at a tenth:
#   SRPT_STRESS_SCALE=10 scripts/vm-test 4
stress_scale() {
	local s=${SRPT_STRESS_SCALE:-1} v
	[[ $s =~ ^[1-9][0-9]*$ ]] || fail "SRPT_STRESS_SCALE must be a positive whole number, not '$s'"
	for v in "$@"; do
		printf -v "$v" '%d' $((${!v} / s > 0 ? ${!v} / s : 1))
	done
}

# srq_baselines GID: bases[0] and bases[1], the core's live objects with
# use_srq=0 and =1 on GID's target port; use_srq is left at 0.
# shellcheck disable=SC2034 # bases is the caller's
srq_baselines() {
	srpt_use_srq "$1" 1
	bases[1]=$(srpt_objects)
	srpt_use_srq "$1" 0
	bases[0]=$(srpt_objects)
}

# srpi_io_then_pause GID DEST: srpi io (2 connections, QD 16, verified,
# log /tmp/io.log) in the background against DEST, then a random 0.3-1.5 s
# of it; sets pause (seconds) and qd (the commands the target holds then).
# shellcheck disable=SC2034 # pause and qd are the caller's
srpi_io_then_pause() {
	srpi_io_live "$1" /tmp/io.log 2 60 --dest "$2" --qd 16 --seconds 600 --timeout 10
	rand_secs 300 1500
	pause=$rand_s
	nap "$pause"
	qd=$(srpt_counter "$1" queue_depth)
}

_vm_nap_fd=
# nap SECONDS: sleep without starting a program (sleep(1) itself costs
# ~0.15 s under TCG): a read that times out on a FIFO nobody writes.
nap() {
	if [ -z "$_vm_nap_fd" ]; then
		[ -p /run/srpt-nap ] || mkfifo /run/srpt-nap
		exec {_vm_nap_fd}<>/run/srpt-nap
	fi
	read -r -t "$1" -u "$_vm_nap_fd" _ || true
}

# rand_secs MIN_MS MAX_MS: rand_s := a random time between MIN_MS and
# MAX_MS milliseconds, in seconds ("0.734"), for nap.
rand_secs() {
	local ms=$(($1 + RANDOM % ($2 - $1 + 1)))
	# shellcheck disable=SC2034 # for the caller
	printf -v rand_s '%d.%03d' $((ms / 1000)) $((ms % 1000))
}

# now_ms: milliseconds since the epoch, into now_ms (no subshell).
now_ms() {
	now_ms=$((${EPOCHREALTIME/./} / 1000))
}

# wait_object COUNTER VALUE SECONDS: until the core's live COUNTER
# (channels, nexuses, ...) reads VALUE; the time it took, in ms, goes to
# waited_ms. Polls every 20 ms.
wait_object() {
	local v t0 deadline
	now_ms
	t0=$now_ms
	deadline=$((t0 + $3 * 1000))
	while v=$(srpt_object "$1") && [ "$v" != "$2" ]; do
		now_ms
		[ "$now_ms" -lt "$deadline" ] ||
			fail "the core's $1: $v, not $2 within $3 s ($(srpt_objects))"
		nap 0.02
	done
	now_ms
	# shellcheck disable=SC2034 # for the caller
	waited_ms=$((now_ms - t0))
}

# srpt_counter GID NAME: one counter of the target port's statistics.
srpt_counter() {
	local s
	s=$'\n'$(<"$(srpt_tpg "$1")/statistics")$'\n'
	[[ $s == *$'\n'"$2 "* ]] || fail "no counter $2 in the statistics of 0x$1"
	s=${s#*$'\n'"$2" }
	printf '%s\n' "${s%%$'\n'*}"
}

# expect_no_warning_since MARK: no kernel warning, BUG, oops or sanitizer
# report (check_dmesg's patterns) after MARK. For scenarios whose kernel
# log outgrows the buffer before check_dmesg reads it at the end.
expect_no_warning_since() {
	local bad
	# shellcheck disable=SC2154 # lib.sh's
	bad=$(_vm_dmesg_since "$1" | grep -E -- "$_vm_dmesg_bad" || true)
	if [ -n "$bad" ]; then
		printf '%s\n' "$bad" | _indent
		fail "the kernel log has warnings or errors since the mark"
	fi
}

# srpi_bg LOG ARG...: srpi ARG... in the background, its output in LOG;
# its pid in srpi_pid.
srpi_bg() {
	local log=$1
	shift
	"$SRPI" "$@" >"$log" 2>&1 &
	srpi_pid=$!
}

# srpi_alive: the srpi of srpi_bg still runs.
srpi_alive() { kill -0 "$srpi_pid" 2>/dev/null; }

# srpi_wait SECONDS: until the srpi of srpi_bg ended (SIGKILL after
# SECONDS, and the scenario fails); its exit status in srpi_rc.
# shellcheck disable=SC2034 # srpi_rc is for the caller
srpi_wait() {
	local deadline=$((SECONDS + $1))
	while srpi_alive; do
		if [ "$SECONDS" -ge "$deadline" ]; then
			kill -KILL "$srpi_pid" 2>/dev/null || true
			fail "srpi (pid $srpi_pid) still running after $1 s"
		fi
		nap 0.05
	done
	srpi_rc=0
	wait "$srpi_pid" || srpi_rc=$?
}

# srpi_io_result LOG: the figures of srpi io's summary line in LOG, into
# io_cmds, io_wmib, io_rmib, io_verified, io_retries, io_mismatches and
# io_errors (io_line: the line, io_ok: 1 for "ok"; io_first_error: the
# first command that failed, if any); io_bad_blocks: how
# many "expected generation" lines (each a block that read back wrong) LOG
# holds, summary or not (a killed srpi prints none). Status 1 without a
# summary line (killed, or the login failed: see LOG).
# shellcheck disable=SC2034 # the figures are for the caller
srpi_io_result() {
	local l lines re='^(ok|FAIL) io: .*: ([0-9]+) commands \(([0-9]+) writes ([0-9]+) MiB, ([0-9]+) reads ([0-9]+) MiB\), ([0-9]+) blocks verified, ([0-9]+) retries, ([0-9]+) mismatches, ([0-9]+) errors'
	mapfile -t lines <"$1"
	io_line='' io_bad_blocks=0 io_first_error=''
	for l in "${lines[@]}"; do
		[[ $l != *'expected generation'* ]] || io_bad_blocks=$((io_bad_blocks + 1))
		if [ -z "$io_first_error" ] && [[ $l =~ ^FAIL\ io:\ connection\ [0-9]+\ (READ|WRITE) ]]; then
			io_first_error=$l
		fi
		if [[ $l =~ $re ]]; then
			io_line=$l
			io_ok=0
			[ "${BASH_REMATCH[1]}" != ok ] || io_ok=1
			io_cmds=${BASH_REMATCH[2]} io_wmib=${BASH_REMATCH[4]} io_rmib=${BASH_REMATCH[6]}
			io_verified=${BASH_REMATCH[7]} io_retries=${BASH_REMATCH[8]}
			io_mismatches=${BASH_REMATCH[9]} io_errors=${BASH_REMATCH[10]}
		fi
	done
	[ -n "$io_line" ]
}

# rdma_res: the RDMA core's resource counts per device, one line each
# ("rxe0: pd 1 qp 1 cm_id 1 mr 0 ctx 0 srq 0"), without the device index
# (a re-added device gets a new one) and without the CQs: ib_core's CQ
# pool (ib_cq_pool_get, which the target uses) keeps the CQs it made
# until the device goes.
rdma_res() {
	timeout "$SRPT_CMD_TIMEOUT" rdma res show | sed 's/^[0-9]*: //; s/ cq [0-9]*//; s/ *$//'
}

# expect_rdma_res BASE [SECONDS]: the RDMA core's resources (rdma_res)
# come back to BASE within SECONDS (20): no QP, CQ, MR or CM ID of the
# target's left behind, whatever the core's own counters say.
expect_rdma_res() {
	_expect_back "the RDMA resources are" "$1" "${2:-20}" rdma_res
	pass "RDMA resources at baseline: ${_vm_back//$'\n'/; }"
}

# rc_qp_states: the RC queue pairs per owner (rdma's "comm") and state,
# "[ib_srpt] RTS 7, [ib_srpt] ERR 2", or "none".
rc_qp_states() {
	timeout "$SRPT_CMD_TIMEOUT" rdma res show qp | awk '
		/ type RC / {
			s = ""; m = ""
			for (i = 1; i < NF; i++) {
				if ($i == "state") s = $(i + 1)
				if ($i == "comm") m = $(i + 1)
			}
			n[m " " s]++
		}
		END {
			out = ""
			for (s in n) out = out (out == "" ? "" : ", ") s " " n[s]
			print out == "" ? "none" : out
		}'
}

# srpi_io_live GID LOG K SECONDS ARG...: srpi io with K connections (and
# the ARGs: --dest ...) in the background (srpi_bg, output in LOG), until
# the target port 0x<GID> counts K channels and commands flow (its
# statistics' commands grew by 16 or more); fails after SECONDS.
srpi_io_live() {
	local gid=$1 log=$2 k=$3 secs=$4 c0 deadline
	shift 4
	c0=$(srpt_counter "$gid" commands)
	srpi_bg "$log" io --conns "$k" "$@"
	deadline=$((SECONDS + secs))
	until [ "$(srpt_object channels)" = "$k" ] &&
		[ "$(srpt_counter "$gid" commands)" -ge $((c0 + 16)) ]; do
		if ! srpi_alive; then
			_indent <"$log"
			fail "srpi io ended before its I/O ran"
		fi
		[ "$SECONDS" -lt "$deadline" ] ||
			fail "srpi io: not $k channels with commands flowing within $secs s ($(srpt_objects))"
		nap 0.05
	done
}

# count_lines TEXT REGEX: how many lines of TEXT match REGEX (bash ERE),
# without starting a program.
count_lines() {
	local l n=0 lines
	mapfile -t lines <<<"$1"
	for l in "${lines[@]}"; do
		[[ ! $l =~ $2 ]] || n=$((n + 1))
	done
	printf '%s\n' "$n"
}

# cfs_links DIR...: the symbolic links in the configfs DIRs (a LUN's
# backstore, a mapped LUN's LUN) into cfs_links, for one rm.
cfs_links() {
	local d f
	cfs_links=()
	for d in "$@"; do
		for f in "$d"/*; do
			[ ! -L "$f" ] || cfs_links+=("$f")
		done
	done
}
