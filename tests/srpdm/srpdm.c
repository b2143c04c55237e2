// SPDX-License-Identifier: GPL-2.0-only
/*
 * srpdm: Device Management queries of an SRP target, sent as srp_daemon
 * sends them: DM class MADs from a ib_umad agent over QP1, with a GRH to
 * the target port's GID (RoCE has no LIDs). It decodes the answers as
 * srp_daemon does and prints the ib_srp login string it would make.
 *
 *   srpdm [--timeout MS] DEVICE PORT DGID discover
 *	ClassPortInfo, IOUnitInfo, then for every slot the IOUnitInfo marks
 *	present its IOControllerProfile and its ServiceEntries in blocks of
 *	four. Prints one "key value" line per decoded field and one
 *	"target LOGIN-STRING" line per SRP service entry.
 *   srpdm [--timeout MS] DEVICE PORT DGID get ATTR MOD [METHOD [CLASS_VERSION]]
 *	One request (default method Get, class version 1) whose reserved
 *	and data bytes are 0xa5; prints "status 0xNNNN echoed N": the
 *	answer's status and how many of its bytes after the header are
 *	0xa5 (a target that copies the request into its answer echoes them);
 *	or "no answer".
 *
 * Every MAD is built and read with explicit big-endian byte offsets
 * (IBA 13.4.2 common header, 16.3 Device Management; SRP r16a annex B),
 * written here from the specifications, not taken from the target's code.
 * Exit status: 0 after an answer, 1 on a failed request or no answer.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <infiniband/umad.h>

#define MAD_SIZE		256
#define DM_DATA			64	/* 24-byte header, 40 reserved */
#define MGMT_CLASS_DM		0x06
#define QP1_QKEY		0x80010000
#define METHOD_GET		0x01
#define METHOD_GET_RESP		0x81

/* Common MAD header (IBA 13.4.2). */
#define H_BASE_VERSION		0
#define H_CLASS			1
#define H_CLASS_VERSION		2
#define H_METHOD		3
#define H_STATUS		4
#define H_TID			8
#define H_ATTR_ID		16
#define H_ATTR_MOD		20

#define ATTR_CLASS_PORT_INFO	0x0001
#define ATTR_IO_UNIT_INFO	0x0010
#define ATTR_IOC_PROFILE	0x0011
#define ATTR_SERVICE_ENTRIES	0x0012

/* What a single "get" puts in the reserved and data bytes, as a hostile initiator may. */
#define FILL			0xa5

static int timeout_ms = 2000;
static int portid = -1, agent = -1;
static uint8_t dgid[16];
static uint32_t next_tid = 1;

static void die(const char *msg)
{
	fprintf(stderr, "error: %s: %s\n", msg, strerror(errno));
	exit(1);
}

static uint16_t be16_at(const uint8_t *p)
{
	return (uint16_t)(p[0] << 8 | p[1]);
}

static uint32_t be32_at(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

static uint64_t be64_at(const uint8_t *p)
{
	return (uint64_t)be32_at(p) << 32 | be32_at(p + 4);
}

static void put_be16(uint8_t *p, uint16_t v)
{
	p[0] = v >> 8;
	p[1] = v;
}

static void put_be32(uint8_t *p, uint32_t v)
{
	put_be16(p, v >> 16);
	put_be16(p + 2, v);
}

/*
 * Sends one DM request and waits for its answer into @rsp. Returns the
 * answer's status field, or -1 when none came within the timeout.
 */
static int dm_query(uint8_t method, uint8_t class_version, uint16_t attr, uint32_t mod,
		    uint8_t fill, uint8_t rsp[MAD_SIZE])
{
	uint8_t buf[sizeof(struct ib_user_mad) + MAD_SIZE] __attribute__((aligned(8)));
	ib_mad_addr_t addr = { .grh_present = 1, .hop_limit = 64 };
	uint8_t *mad = umad_get_mad(buf);
	uint32_t tid = next_tid++;
	int len, ret;

	memset(buf, 0, sizeof(buf));
	memset(mad + H_ATTR_MOD + 4, fill, MAD_SIZE - H_ATTR_MOD - 4);
	mad[H_BASE_VERSION] = 1;
	mad[H_CLASS] = MGMT_CLASS_DM;
	mad[H_CLASS_VERSION] = class_version;
	mad[H_METHOD] = method;
	/* ib_umad puts the agent's number into the TID's high half. */
	put_be32(mad + H_TID + 4, tid);
	put_be16(mad + H_ATTR_ID, attr);
	put_be32(mad + H_ATTR_MOD, mod);
	memcpy(addr.gid, dgid, sizeof(dgid));
	if (umad_set_addr(buf, 0, 1, 0, QP1_QKEY) || umad_set_grh(buf, &addr) ||
	    umad_set_pkey(buf, 0))
		die("umad_set_addr");
	if (umad_send(portid, agent, buf, MAD_SIZE, timeout_ms, 2) < 0)
		die("umad_send");
	for (;;) {
		len = MAD_SIZE;
		ret = umad_recv(portid, buf, &len, 5 * timeout_ms);
		if (ret == -ETIMEDOUT)
			return -1;
		if (ret < 0) {
			errno = -ret;
			die("umad_recv");
		}
		/* A send that got no answer comes back with ETIMEDOUT. */
		if (umad_status(buf))
			return -1;
		if (be32_at(mad + H_TID + 4) != tid)
			continue;
		if (mad[H_METHOD] != METHOD_GET_RESP || mad[H_CLASS] != MGMT_CLASS_DM) {
			fprintf(stderr, "error: answer of class %#x method %#x\n", mad[H_CLASS],
				mad[H_METHOD]);
			exit(1);
		}
		memcpy(rsp, mad, MAD_SIZE);
		return be16_at(mad + H_STATUS);
	}
}

/* Get, expecting success: exits on anything else. */
static const uint8_t *dm_get(uint16_t attr, uint32_t mod, uint8_t rsp[MAD_SIZE])
{
	int status = dm_query(METHOD_GET, 1, attr, mod, 0, rsp);

	if (status != 0) {
		if (status < 0)
			fprintf(stderr, "error: attribute %#x modifier %#x: no answer\n", attr, mod);
		else
			fprintf(stderr, "error: attribute %#x modifier %#x: status %#06x\n", attr,
				mod, status);
		exit(1);
	}
	return rsp + DM_DATA;
}

static void print_login(uint64_t id_ext, uint64_t ioc_guid, uint64_t service_id)
{
	/* srp_daemon's format; the pkey is that of pkey index 0. */
	printf("target id_ext=%016" PRIx64 ",ioc_guid=%016" PRIx64 ",dgid=%016" PRIx64
	       "%016" PRIx64 ",pkey=ffff,service_id=%016" PRIx64 "\n",
	       id_ext, ioc_guid, be64_at(dgid), be64_at(dgid + 8), service_id);
}

static void service_entries(unsigned int slot, unsigned int count, uint64_t ioc_guid)
{
	uint8_t rsp[MAD_SIZE];
	unsigned int lo, hi, i;

	for (lo = 0; lo < count; lo += 4) {
		hi = lo + 3 < count - 1 ? lo + 3 : count - 1;
		const uint8_t *d = dm_get(ATTR_SERVICE_ENTRIES, slot << 16 | hi << 8 | lo, rsp);

		for (i = 0; i <= hi - lo; i++) {
			const uint8_t *e = d + 48 * i;
			char name[41];
			uint64_t id = be64_at(e + 40);

			memcpy(name, e, 40);
			name[40] = 0;
			printf("ioc%u.service%u.name %s\n", slot, lo + i, name);
			printf("ioc%u.service%u.id 0x%016" PRIx64 "\n", slot, lo + i, id);
			if (strncmp(name, "SRP.T10:", 8) == 0)
				print_login(strtoull(name + 8, NULL, 16), ioc_guid, id);
		}
	}
}

static void ioc_profile(unsigned int slot)
{
	uint8_t rsp[MAD_SIZE];
	const uint8_t *d = dm_get(ATTR_IOC_PROFILE, slot, rsp);
	char id_string[65];

	printf("ioc%u.guid 0x%016" PRIx64 "\n", slot, be64_at(d + 0));
	printf("ioc%u.vendor_id 0x%06x\n", slot, be32_at(d + 8) >> 8);
	printf("ioc%u.device_id 0x%08x\n", slot, be32_at(d + 12));
	printf("ioc%u.device_version 0x%04x\n", slot, be16_at(d + 16));
	printf("ioc%u.subsys_vendor_id 0x%06x\n", slot, be32_at(d + 20) >> 8);
	printf("ioc%u.subsys_id 0x%08x\n", slot, be32_at(d + 24));
	printf("ioc%u.io_class 0x%04x\n", slot, be16_at(d + 28));
	printf("ioc%u.io_subclass 0x%04x\n", slot, be16_at(d + 30));
	printf("ioc%u.protocol 0x%04x\n", slot, be16_at(d + 32));
	printf("ioc%u.protocol_version 0x%04x\n", slot, be16_at(d + 34));
	printf("ioc%u.send_queue_depth %u\n", slot, be16_at(d + 40));
	printf("ioc%u.rdma_read_depth %u\n", slot, d[43]);
	printf("ioc%u.send_size %u\n", slot, be32_at(d + 44));
	printf("ioc%u.rdma_size %u\n", slot, be32_at(d + 48));
	printf("ioc%u.op_cap_mask 0x%02x\n", slot, d[52]);
	printf("ioc%u.svc_cap_mask 0x%02x\n", slot, d[53]);
	printf("ioc%u.service_entries %u\n", slot, d[54]);
	memcpy(id_string, d + 64, 64);
	id_string[64] = 0;
	printf("ioc%u.id_string %s\n", slot, id_string);
	/* srp_daemon skips controllers that are not SRP targets. */
	if (be16_at(d + 28) != 0x0100 && be16_at(d + 28) != 0xff00)
		return;
	service_entries(slot, d[54], be64_at(d + 0));
}

/* IOUnitInfo's ControllerList: 4 bits a slot, slot 1 in the high nibble; 1 = present. */
static int slot_present(const uint8_t *list, unsigned int slot)
{
	return ((list[(slot - 1) / 2] >> (slot % 2 ? 4 : 0)) & 0xf) == 1;
}

static void discover(void)
{
	uint8_t rsp[MAD_SIZE], list[128];
	const uint8_t *d = dm_get(ATTR_CLASS_PORT_INFO, 0, rsp);
	unsigned int max, slot;

	printf("class_port_info.base_version %u\n", d[0]);
	printf("class_port_info.class_version %u\n", d[1]);
	printf("class_port_info.resp_time_value %u\n", be32_at(d + 4) & 0x1f);
	d = dm_get(ATTR_IO_UNIT_INFO, 0, rsp);
	max = d[2];
	memcpy(list, d + 4, sizeof(list));
	printf("io_unit_info.change_id %u\n", be16_at(d));
	printf("io_unit_info.max_controllers %u\n", max);
	printf("io_unit_info.present");
	for (slot = 1; slot <= max; slot++)
		if (slot_present(list, slot))
			printf(" %u", slot);
	printf("\n");
	for (slot = 1; slot <= max; slot++)
		if (slot_present(list, slot))
			ioc_profile(slot);
}

static unsigned long number(const char *s, unsigned long max)
{
	char *end;
	unsigned long v;

	errno = 0;
	v = strtoul(s, &end, 0);
	if (errno || *end || v > max) {
		fprintf(stderr, "error: bad number '%s'\n", s);
		exit(2);
	}
	return v;
}

static void usage(void)
{
	fprintf(stderr, "usage: srpdm [--timeout MS] DEVICE PORT DGID discover\n"
		"       srpdm [--timeout MS] DEVICE PORT DGID get ATTR MOD [METHOD [CLASS_VERSION]]\n");
	exit(2);
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "timeout", required_argument, NULL, 't' },
		{ NULL, 0, NULL, 0 },
	};
	uint8_t rsp[MAD_SIZE];
	int c, status, echoed = 0, i;

	while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		if (c != 't')
			usage();
		timeout_ms = (int)number(optarg, 600000);
	}
	if (argc - optind < 4)
		usage();
	if (inet_pton(AF_INET6, argv[optind + 2], dgid) != 1) {
		fprintf(stderr, "error: bad GID '%s'\n", argv[optind + 2]);
		return 2;
	}
	if (umad_init() < 0)
		die("umad_init");
	portid = umad_open_port(argv[optind], (int)number(argv[optind + 1], 255));
	if (portid < 0) {
		errno = -portid;
		die("umad_open_port");
	}
	agent = umad_register(portid, MGMT_CLASS_DM, 1, 0, NULL);
	if (agent < 0) {
		errno = -agent;
		die("umad_register");
	}
	if (strcmp(argv[optind + 3], "discover") == 0 && argc - optind == 4) {
		discover();
		return 0;
	}
	if (strcmp(argv[optind + 3], "get") != 0 || argc - optind < 6 || argc - optind > 8)
		usage();
	status = dm_query(argc - optind > 6 ? (uint8_t)number(argv[optind + 6], 0x7f) : METHOD_GET,
			  argc - optind > 7 ? (uint8_t)number(argv[optind + 7], 0xff) : 1,
			  (uint16_t)number(argv[optind + 4], 0xffff),
			  (uint32_t)number(argv[optind + 5], 0xffffffff), FILL, rsp);
	if (status < 0) {
		printf("no answer\n");
		return 1;
	}
	for (i = H_ATTR_MOD + 4; i < MAD_SIZE; i++)
		echoed += rsp[i] == FILL;
	printf("status 0x%04x echoed %d\n", status, echoed);
	return 0;
}
