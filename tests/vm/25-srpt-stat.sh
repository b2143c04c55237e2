#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# srpt-stat, the live view of the statistics, against what fio did: fio
# reads 4 KiB blocks at 200 IOPS and writes 64 KiB blocks at 25 IOPS for
# 10 s (a fixed number of I/Os each, one job each at QD 1, so the block
# layer merges nothing and, with 16 segments, splits nothing), while
# `srpt-stat -i 1` and `srpt-stat -i 1 -n` run. Nothing depends on how
# fast the VM runs: rates are not compared with fio's (the host's load
# decides those); rMiB/s and wMiB/s are r/s and w/s times the block
# sizes wherever no command was in the target at the interval's ends.
# The counts of -n are whole blocks and add up to exactly the I/Os and
# bytes fio reports, on the port's lines and the initiator's. Every line
# with I/O has 0 < p50 <= p99 (either may be ">1000" after a stall) and
# credits; once fio stopped, the lines read 0 with no percentile. The
# port, named in both forms, is printed once per report; ports and
# initiators without a channel are printed only with -a; SIGINT ends
# srpt-stat with status 0 and nothing on stderr; without LIO or the srpt
# fabric it says which is missing. On a slowed-down kernel the rates and
# counts are divided by the slowdown. srpt-stat's and fio's output stay
# in the run's files.
# vm-timeout: 600
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$SRPT_ROOT/tests/vm/lib.sh"
# shellcheck source-path=SCRIPTDIR source=initiator.sh
. "$SRPT_ROOT/tests/vm/initiator.sh"

tool=$SRPT_ROOT/scripts/srpt-stat
# What srpt-stat and fio print, kept with the run's files.
rates=$SRPT_OUT/srpt-stat-rates.txt
counts=$SRPT_OUT/srpt-stat-counts.txt
fio_json=$SRPT_OUT/fio.json
secs=10
r_iops=$((200 / SRPT_VM_SLOWDOWN))
w_iops=$((25 / SRPT_VM_SLOWDOWN))
r_ios=$((r_iops * secs))
w_ios=$((w_iops * secs))

# Before LIO: configfs has no target directory.
expect_fail "$tool" -c 1
expect_output '^srpt-stat: no /sys/kernel/config/target: the LIO target core is not loaded'

srp_loopback
# ib_srpt is loaded, but nothing made the fabric's directory yet.
expect_fail "$tool" -c 1
expect_output '^srpt-stat: the srpt fabric is not there: .*ib_srpt is loaded, but nothing configured'

srpt_serve "$gid" 5555 64M
# The same port in its GUID form too, by hand (targetcli knows only the
# GID form and cannot refresh while this one exists: no tcli until it
# is gone).
guid=$(guid_name "$gid")
expect_ok mkdir "$SRPT_CFS/$guid"
expect_ok mkdir "$SRPT_CFS/$guid/tpgt_1"

# centi NUMBER: a number printed with two decimals ("12.34") in
# hundredths (1234), for bash's integer arithmetic.
centi() {
	local n=$1
	printf '%d\n' "$((10#${n/./}))"
}

# rows FILE: one line per data line of srpt-stat's output in FILE: the
# number of its report, then its kind (port or initiator), the four I/O
# columns, credits, qdepth, p50, p99 and the name.
rows() {
	awk '/^time / { n++; next }
		/^[0-9][0-9]:[0-9][0-9]:[0-9][0-9] / { print n, $10, $2, $3, $4, $5, $6, $7, $8, $9, $11 }' "$1"
}

# expect_rows WHAT OUTPUT KIND... : OUTPUT (of one report) has one data
# line per KIND, in that order, each naming 0x$gid.
expect_rows() {
	local what=$1 out=$2 got
	shift 2
	got=$(awk '/^[0-9][0-9]:/ { printf "%s%s %s", sep, $10, $11; sep = ", " }' <<<"$out")
	local want='' k
	for k in "$@"; do
		want+="${want:+, }$k 0x$gid"
	done
	if [ "$got" != "$want" ]; then
		printf '%s\n' "$out" | _indent
		fail "$what: lines '$got', expected '$want'"
	fi
	pass "$what: ${want:-no lines}"
}

# No channel yet: nothing but the header; with -a the port (once, by its
# GID name) and its initiator.
expect_ok "$tool" -i 0.5 -c 1
expect_output '^time +r/s +w/s +rMiB/s +wMiB/s +credits +qdepth +p50ms +p99ms +target port / initiator$'
expect_rows "srpt-stat, no channel" "$VM_LAST_OUTPUT"
expect_ok "$tool" -a -i 0.5 -c 1
expect_rows "srpt-stat -a, no channel" "$VM_LAST_OUTPUT" port initiator

# ib_srp's SCSI host takes 12 segments by default: a 64 KiB write whose
# pages are not contiguous would reach the target as two commands.
srp_login rxe0 "$gid" 10.200.0.1 5555 ch_count=1,sg_tablesize=16
disk=$(srp_disk)
# sd logs the disk attached once its partition table is read: no I/O but
# fio's from then on.
wait_for 30 "sd attached /dev/$disk" klog_has "\\[$disk\\] Attached SCSI disk"

# Both views in the background (a shell's background jobs ignore SIGINT:
# srpt-stat takes it anyway).
"$tool" -i 1 >"$rates" 2>"$rates.err" &
rates_pid=$!
"$tool" -i 1 -n >"$counts" 2>"$counts.err" &
counts_pid=$!

# idle_after FILE N: a report after the Nth in FILE shows the initiator
# logged in and nothing moving: no command, no data, none in the target,
# none completed.
idle_after() {
	rows "$1" | awk -v n="$2" '$1 > n && $2 == "initiator" && $3 + 0 == 0 && $4 + 0 == 0 &&
		$5 + 0 == 0 && $6 + 0 == 0 && $8 == 0 && $9 == "-" && $10 == "-" { f = 1 }
		END { exit !f }'
}
# reports FILE: how many reports FILE holds.
reports() {
	awk '/^time / { n++ } END { print n + 0 }' "$1"
}
# first_idle FILE: the number of the first report of FILE with the
# initiator idle: fio starts after it, so its counts end before fio's.
first_idle() {
	# Reads all its input: an early exit would leave rows with SIGPIPE.
	rows "$1" | awk '!f && $2 == "initiator" && $3 + 0 == 0 && $4 + 0 == 0 { f = $1 }
		END { print f }'
}
wait_for 60 "srpt-stat -i 1 shows the initiator idle" idle_after "$rates" 0
wait_for 60 "srpt-stat -i 1 -n shows the initiator idle" idle_after "$counts" 0

expect_ok fio --output-format=json --output="$fio_json" --filename="/dev/$disk" --direct=1 \
	--ioengine=libaio --iodepth=1 --norandommap --randrepeat=0 \
	--name=reads --rw=randread --bs=4k --rate_iops="$r_iops" --number_ios="$r_ios" \
	--name=writes --rw=randwrite --bs=64k --rate_iops="$w_iops" --number_ios="$w_ios"
r_end=$(reports "$rates")
c_end=$(reports "$counts")
# fio's own figures: I/Os, bytes and IOPS of the reads and of the writes.
read -r f_reads f_rbytes f_riops f_writes f_wbytes f_wiops f_errors < <(python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
r = w = rb = wb = e = 0
ri = wi = 0.0
for j in d["jobs"]:
    r += j["read"]["total_ios"]; rb += j["read"]["io_bytes"]; ri += j["read"]["iops"]
    w += j["write"]["total_ios"]; wb += j["write"]["io_bytes"]; wi += j["write"]["iops"]
    e += j["error"]
print(r, rb, "%.2f" % ri, w, wb, "%.2f" % wi, e)' "$fio_json")
log "fio: $f_reads reads ($f_rbytes bytes, $f_riops IOPS), $f_writes writes ($f_wbytes bytes, $f_wiops IOPS), errors $f_errors"
if [ "$f_errors" != 0 ] || [ "$f_reads" != "$r_ios" ] || [ "$f_writes" != "$w_ios" ]; then
	fail "fio did not do the $r_ios reads and $w_ios writes asked for without errors"
fi
pass "fio did $r_ios reads of 4 KiB and $w_ios writes of 64 KiB"

wait_for 30 "srpt-stat -i 1 shows the initiator idle after fio" idle_after "$rates" "$r_end"
wait_for 30 "srpt-stat -i 1 -n shows the initiator idle after fio" idle_after "$counts" "$c_end"
for pid in "$rates_pid" "$counts_pid"; do
	kill -INT "$pid"
	rc=0
	wait "$pid" || rc=$?
	[ "$rc" = 0 ] || fail "srpt-stat (pid $pid) ended with status $rc after SIGINT"
done
if [ -s "$rates.err" ] || [ -s "$counts.err" ]; then
	cat "$rates.err" "$counts.err" | _indent
	fail "srpt-stat wrote to stderr"
fi
pass "SIGINT ended both srpt-stat with status 0, nothing on stderr"
log "srpt-stat -i 1 during fio:"
_indent <"$rates"

# Every report: one port line, by its GID name, before the initiator's.
mapfile -t r_rows < <(rows "$rates")
mapfile -t c_rows < <(rows "$counts")
n_reports=$(reports "$rates")
[ "$(count_lines "$(printf '%s\n' "${r_rows[@]}")" "^[0-9]+ port .* 0x$gid\$")" = "$n_reports" ] ||
	fail "not one port line naming 0x$gid in each of the $n_reports reports"
! grep -q "$guid" "$rates" "$counts" || fail "a line names the GUID form $guid"
pass "each of the $n_reports reports prints the port once, as 0x$gid"

# pct_centi P: a percentile column in hundredths of a ms; ">1000" (the
# open bucket: a stall of the VM) as the largest; "-" fails.
pct_centi() {
	if [ "$1" = ">1000" ]; then
		echo 999999999
	elif [[ $1 =~ ^[0-9]+\.[0-9]{2}$ ]]; then
		centi "$1"
	else
		return 1
	fi
}

# The rates, after the first idle report (before it the kernel's
# partition scan may have read other sizes). A command counts as a read
# or a write when it arrives, its bytes when they move, and the depth
# sampled covers any command counted in part. So with no command in the
# target at either end of an interval (qdepth 0 in this report and the
# one before), its bytes are its commands times the block size: MiB/s is
# r/s and w/s times the block size, to the printed digits, however long
# the interval was. Rates are not compared with fio's: how many I/Os fio
# gets done in a second is up to the host's load, not to srpt-stat.
r0=$(first_idle "$rates")
active=0 exact=0
declare -A qd_before=([port]=0 [initiator]=0)
for row in "${r_rows[@]}"; do
	read -r n kind r w rb wb cr qd p50 p99 _ <<<"$row"
	q=$((qd + qd_before[$kind]))
	qd_before[$kind]=$qd
	[ "$n" -gt "$r0" ] || continue
	rc=$(centi "$r") wc=$(centi "$w")
	if [ "$q" = 0 ]; then
		# In hundredths of a command per second: the rounding of
		# MiB/s to 0.01 is 1.28 reads of 4 KiB, 0.08 writes of 64 KiB.
		d=$(($(centi "$rb") * 256 - rc))
		[ "${d#-}" -le 130 ] ||
			fail "report $n, $kind: $rb rMiB/s is not $r r/s times 4 KiB (none in flight)"
		d=$(($(centi "$wb") * 16 - wc))
		[ "${d#-}" -le 9 ] ||
			fail "report $n, $kind: $wb wMiB/s is not $w w/s times 64 KiB (none in flight)"
		[ $((rc + wc)) = 0 ] || exact=$((exact + 1))
	fi
	if [ $((rc + wc)) -gt 0 ]; then
		# Either both percentiles (some command completed) or neither.
		if [ "$p50$p99" != "--" ]; then
			if ! c50=$(pct_centi "$p50") || ! c99=$(pct_centi "$p99"); then
				fail "report $n, $kind: percentiles '$p50' '$p99' are not numbers"
			fi
			if [ "$c50" -le 0 ] || [ "$c50" -gt "$c99" ]; then
				fail "report $n, $kind: p50 $p50 ms, p99 $p99 ms: not 0 < p50 <= p99"
			fi
		fi
		[ "$cr" -gt 0 ] || fail "report $n, $kind: no credits during I/O"
		[ "$kind" != initiator ] || active=$((active + 1))
	fi
done
# fio keeps at most 2 commands in the target, mostly for about 1 ms of
# every 5: most intervals start and end with none, but on a loaded host
# maybe none does (the counts of -n below are checked whatever the load).
[ "$exact" -gt 0 ] || log "no report with I/O had none in flight at both ends: MiB/s not checked"
pass "the reports after $r0: MiB/s = IOPS times the block size in the $exact with none in flight, 0 < p50 <= p99, credits > 0"
[ "$active" -ge 7 ] || fail "only $active reports show fio's I/O (expected about $secs)"
pass "$active reports show fio's I/O"
# The last report: the initiator logged in, nothing moving.
last=$(printf '%s\n' "${r_rows[@]}" | awk -v n="$n_reports" '$1 == n { sub(/^[0-9]+ /, ""); print }')
cr=$(awk 'NR == 1 { print $6 }' <<<"$last")
want_idle="port 0.00 0.00 0.00 0.00 $cr 0 - - 0x$gid"$'\n'"initiator 0.00 0.00 0.00 0.00 $cr 0 - - 0x$gid"
if [ "$last" != "$want_idle" ] || ! [ "$cr" -gt 0 ]; then
	printf '%s\n' "$last" | _indent
	fail "the last report after fio does not read 0"
fi
pass "after fio: port and initiator read 0, no percentile, $cr credits"

# The counts: KiB read and written are whole blocks, as many as the
# reads and writes give or take the commands in flight at the interval's
# ends; and they add up to fio's, exactly, after the first idle report.
c0=$(first_idle "$counts")
qd_before=([port]=0 [initiator]=0)
for row in "${c_rows[@]}"; do
	read -r n kind r w rk wk _ qd _ <<<"$row"
	q=$((qd + qd_before[$kind]))
	qd_before[$kind]=$qd
	[ "$n" -gt "$c0" ] || continue
	if ! [[ $rk =~ ^[0-9]+$ && $wk =~ ^[0-9]+$ ]] || [ $((rk % 4)) != 0 ] || [ $((wk % 64)) != 0 ]; then
		fail "report $n, $kind: $rk KiB read, $wk KiB written: not whole 4 KiB and 64 KiB blocks"
	fi
	d=$((rk / 4 - r)) e=$((wk / 64 - w))
	if [ "${d#-}" -gt "$q" ] || [ "${e#-}" -gt "$q" ]; then
		fail "report $n, $kind: $r reads for $rk KiB, $w writes for $wk KiB ($q commands in flight)"
	fi
done
pass "srpt-stat -n after report $c0: KiB = reads and writes times the block size, give or take those in flight"
for kind in port initiator; do
	sums=$(printf '%s\n' "${c_rows[@]}" | awk -v n="$c0" -v k="$kind" '
		$1 > n && $2 == k { r += $3; w += $4; rb += $5 * 1024; wb += $6 * 1024 }
		END { printf "%d %d %d %d\n", r, w, rb, wb }')
	[ "$sums" = "$f_reads $f_writes $f_rbytes $f_wbytes" ] ||
		fail "srpt-stat -n on the $kind lines adds up to '$sums' (reads, writes, bytes), fio to '$f_reads $f_writes $f_rbytes $f_wbytes'"
	pass "srpt-stat -n, $kind lines: $f_reads reads, $f_writes writes, $f_rbytes and $f_wbytes bytes, as fio"
done

srp_logout
# No channel: hidden again, and -a shows zeros.
expect_ok "$tool" -i 0.5 -c 1
expect_rows "srpt-stat after the logout" "$VM_LAST_OUTPUT"
expect_ok "$tool" -a -i 0.5 -c 1
expect_rows "srpt-stat -a after the logout" "$VM_LAST_OUTPUT" port initiator
expect_output " 0\\.00 +0\\.00 +0\\.00 +0\\.00 +0 +0 +- +-  port 0x$gid\$"

expect_ok cfs_drop_tport "$guid"
unload_all
check_dmesg
