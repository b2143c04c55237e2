#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Node ACL names: under .../tpgt_1/acls/ of a target port (GID form, with
# a LUN the ACLs map) every initiator port ID form is accepted: a GUID
# (xxxx:xxxx:xxxx:xxxx, 1-4 digits a group), hex with or without 0x (an
# even count, up to 32 digits), IPv4, IPv6 (also with a scope). Malformed
# names (odd-length or over-long hex, bad IPv4/IPv6, garbage) are refused
# with EINVAL and a kernel log line, and nothing is created; so are, as the
# kernel reads addresses, a link-local scope that is neither an interface
# nor a number, an address followed by more, and an address longer than 48
# characters. The forms work in a GUID-form target port too.
# vm-timeout: 400
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$SRPT_ROOT/tests/vm/lib.sh"

tcli_start
setup_rxe rxe0
load_srpt
gid=$(rxe_gid rxe0)
guid=$(guid_name "$gid")

expect_ok tcli "/backstores/ramdisk create rd0 16M" \
	"/srpt create ib.$gid" \
	"/srpt/ib.$gid/luns create /backstores/ramdisk/rd0" \
	"/srpt/ib.$gid/acls create ib.$gid"
acls=$SRPT_CFS/0x$gid/tpgt_1/acls
# targetcli's ACL: ib.<GID> is 0x<GID> in configfs, the LUN mapped.
expect_ok test -d "$acls/0x$gid/lun_0"

# Accepted: every form.
accepted=(
	5054:00ff:fe4a:0b7b	# GUID
	5054:ff:fe4a:b7b	# GUID, short groups
	5054:00FF:FE4A:0B7B	# GUID, upper case
	0x0000000000000000505400fffe4a0b7b	# 0x + 32 digits
	fe80000000000000505400fffe4a0b7b	# 32 digits
	0x1234				# short
	ab				# shortest
	0XABCDEF			# upper case
	192.168.122.76			# IPv4
	0.0.0.0
	255.255.255.255
	fe80::5054:ff:fe4a:b7b		# IPv6
	fe80::5054:ff:fe4a:b7b%srpt0	# with a scope
	fe80::1%2
	::1
	::
	::ffff:192.168.122.76		# embedded IPv4
	2001:db8:0:0:0:0:0:1		# eight groups
	2001:DB8::1			# upper case
)
for n in "${accepted[@]}"; do
	expect_ok mkdir "$acls/$n"
done

# Refused: malformed.
klog_mark
refused=(
	123				# odd-length hex
	0x123
	0x
	0x0
	"${gid}0"			# 33 digits
	"0x${gid}0"
	"0x${gid}00"			# 34 digits
	"$gid$gid"
	192.168.122.256			# bad IPv4
	192.168.122
	192.168.122.76.1
	192.168.122.076x
	1.2.3.4a
	192.168..76
	fe80:::1			# bad IPv6
	1::2::3
	12345::1
	fe80::5054:ff:fe4a:b7b:1:2:3
	1:2:3:4:5:6:7:8:9
	1:2:3:4:5:6:7:8::
	1:2:3:4:5:6:7
	fe80::1:
	:fe80::1
	fe80::g
	fe80::1%
	fe80::1%srpt0:1
	fe80::1%0123456789abcdef
	fe80::1%nosuchif		# a link-local scope: an interface or a number
	::ffff:192.168.122.256
	::ffff:1.2.3.4:5
	192.168.122.76:5		# an address, but not all of the name
	0000:0000:0000:0000:0000:ffff:192.168.122.76%srpt0	# 50 characters
	5054:00ff:fe4a			# GUIDs of 3 or 5 groups, a 5-digit group
	5054:00ff:fe4a:0b7b:1
	5054:00ff:fe4a:0b7bc
	5054::fe4a:0b7b:1:2:3:4:5
	foo				# garbage
	"ib.$gid"
	iqn.2003-01.org.linux-iscsi.srpt-vm:x
	"0x$gid "
	" 0x$gid"
	"$(printf '%065d' 0)"		# too long for any form
)
for n in "${refused[@]}"; do
	expect_mkdir_refused 'Invalid argument' "$acls/$n"
done
expect_klog "ib_srpt: invalid initiator port ID '123': expected a GUID \\(xxxx:xxxx:xxxx:xxxx\\), up to 32 hex digits \\(optionally 0x-prefixed, even count\\), or an IPv4/IPv6 address\$"
expect_klog "ib_srpt: invalid initiator port ID '1::2::3'"
expect_klog "ib_srpt: invalid initiator port ID 'iqn\\.2003-01\\.org\\.linux-iscsi\\.srpt-vm:x'"
expect_entries "$acls" "0x$gid" "${accepted[@]}"

# The same names in a GUID-form target port; duplicates are LIO's EEXIST.
expect_ok mkdir "$SRPT_CFS/$guid"
expect_ok mkdir "$SRPT_CFS/$guid/tpgt_1"
gacls=$SRPT_CFS/$guid/tpgt_1/acls
for n in 5054:00ff:fe4a:0b7b 0x1234 192.168.122.76 fe80::5054:ff:fe4a:b7b; do
	expect_ok mkdir "$gacls/$n"
done
expect_fail mkdir "$gacls/0x1234"
expect_output 'File exists'
expect_mkdir_refused 'Invalid argument' "$gacls/0x123"
expect_entries "$gacls" 5054:00ff:fe4a:0b7b 0x1234 192.168.122.76 fe80::5054:ff:fe4a:b7b
expect_ok cfs_drop_tport "$guid"
expect_live 'target_ports 1' 'tpgs 1'

# Every accepted ACL goes again (by hand: rtslib, and so targetcli, knows
# only the ib.<GID> form and fails on the others).
for n in "${accepted[@]}"; do
	expect_ok rmdir "$acls/$n"
done
expect_entries "$acls" "0x$gid"

unload_all
check_dmesg
