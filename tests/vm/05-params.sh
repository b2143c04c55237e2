#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Module parameters: srp_max_req_size, srpt_srq_size, srpt_service_guid
# and rdma_cm_port read back their defaults (8276, 4095, the first
# device's node GUID, 0: no RDMA/CM listener);
# out-of-range or malformed values make the load fail with a clear kernel
# log line and nothing loaded; valid non-default values (both ends of each
# range, a service GUID with and without 0x) are taken and shown; an
# rdma_cm_port starts the listener at load, as discovery_auth/rdma_cm_port
# then shows.
# vm-timeout: 400
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$SRPT_ROOT/tests/vm/lib.sh"

setup_rxe rxe0
params=/sys/module/ib_srpt/parameters
node_guid=$(</sys/class/infiniband/rxe0/node_guid)
node_guid=${node_guid//:/}

# Defaults.
load_srpt
expect_attr "$params/srp_max_req_size" 8276
expect_attr "$params/srpt_srq_size" 4095
expect_attr "$params/srpt_service_guid" "0x$node_guid"
expect_attr "$params/rdma_cm_port" 0
expect_dmesg "ib_srpt: rxe0: added, 1 port, node GUID $node_guid, service GUID $node_guid\$"
# Read-only once loaded.
expect_attr_refused "$params/srpt_srq_size" 64 'Permission denied'
expect_ok rmmod ib_srpt

# Refused at load: nothing loaded, and the log says why.
bad=(
	"srp_max_req_size=995|srp_max_req_size: invalid value '995': must be 996\\.\\.65536"
	"srp_max_req_size=65537|srp_max_req_size: invalid value '65537': must be 996\\.\\.65536"
	"srp_max_req_size=8k|srp_max_req_size: invalid value '8k': must be 996\\.\\.65536"
	"srp_max_req_size=-8276|srp_max_req_size: invalid value '-8276': must be 996\\.\\.65536"
	"srp_max_req_size=|srp_max_req_size: invalid value '': must be 996\\.\\.65536"
	"srpt_srq_size=3|srpt_srq_size: invalid value '3': must be 4\\.\\.65535"
	"srpt_srq_size=65536|srpt_srq_size: invalid value '65536': must be 4\\.\\.65535"
	"srpt_srq_size=4294967300|srpt_srq_size: invalid value '4294967300': must be 4\\.\\.65535"
	"srpt_service_guid=xyz|srpt_service_guid: invalid value 'xyz': must be a 64-bit hexadecimal number"
	"srpt_service_guid=0x|srpt_service_guid: invalid value '0x': must be a 64-bit hexadecimal number"
	"srpt_service_guid=0x10000000000000000|srpt_service_guid: invalid value '0x10000000000000000': must be a 64-bit hexadecimal number"
	"rdma_cm_port=65536|rdma_cm_port: invalid value '65536': must be 0\\.\\.65535"
	"rdma_cm_port=-1|rdma_cm_port: invalid value '-1': must be 0\\.\\.65535"
	"rdma_cm_port=srp|rdma_cm_port: invalid value 'srp': must be 0\\.\\.65535"
)
for b in "${bad[@]}"; do
	arg=${b%%|*}
	klog_mark
	expect_fail insmod "$SRPT_MODULE" "$arg"
	expect_klog "ib_srpt: ${b#*|}\$"
	expect_klog "ib_srpt: \`[^']*' invalid for parameter \`${arg%%=*}'"
	expect_fail test -e /sys/module/ib_srpt
done
# Only the first load ever got as far as loading.
loads=$(dmesg | grep -c 'ib_srpt: SRP target .* loaded$')
expect_ok test "$loads" = 1

# Valid values at both ends of the ranges.
klog_mark
load_srpt srp_max_req_size=996 srpt_srq_size=65535 srpt_service_guid=0x1234 rdma_cm_port=65535
expect_attr "$params/srp_max_req_size" 996
expect_attr "$params/srpt_srq_size" 65535
expect_attr "$params/srpt_service_guid" 0x0000000000001234
expect_attr "$params/rdma_cm_port" 65535
expect_klog "ib_srpt: rxe0: added, 1 port, node GUID $node_guid, service GUID 0000000000001234\$"
expect_klog "ib_srpt: RDMA/CM: listening for logins on port 65535\$"
expect_ok mkdir "$SRPT_CFS"
expect_attr "$SRPT_CFS/discovery_auth/rdma_cm_port" 65535
expect_ok rmdir "$SRPT_CFS"
expect_ok rmmod ib_srpt
klog_mark
load_srpt srp_max_req_size=65536 srpt_srq_size=4 srpt_service_guid=FEDCBA9876543210
expect_attr "$params/srp_max_req_size" 65536
expect_attr "$params/srpt_srq_size" 4
expect_attr "$params/srpt_service_guid" 0xfedcba9876543210
expect_klog "ib_srpt: rxe0: added, 1 port, node GUID $node_guid, service GUID fedcba9876543210\$"
expect_ok rmmod ib_srpt
klog_mark
load_srpt srp_max_req_size=0x2000 srpt_srq_size=010
expect_attr "$params/srp_max_req_size" 8192
expect_attr "$params/srpt_srq_size" 8
expect_attr "$params/srpt_service_guid" "0x$node_guid"

unload_all
check_dmesg
