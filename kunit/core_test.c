// SPDX-License-Identifier: GPL-2.0-only
/*
 * KUnit suites for the C++ core of ib_srpt, run inside a kernel: the core
 * allocates, locks and defers work through the real kernel services
 * (src/shim/os.c) and talks to the IB/LIO test double (fake_ib.c); probe.cpp
 * lets the suites look at the core's counters.
 */
#include <kunit/test.h>
#include <linux/align.h>
#include <linux/errno.h>
#include <linux/kernel.h>
#include <linux/module.h>
#include <linux/string.h>
#include <linux/string_helpers.h>
#include <linux/workqueue.h>

#include <srpt/abi.h>
#include "../tests/doubles/port_api.h"

#include "../src/shim/os.h"
#include "fake_ib.h"
#include "probe.h"
#include "suite.h"

/* Defined by src/shim/module.c in the module; the suites create it. */
struct workqueue_struct *srpt_wq;

/*
 * Port 1 has the GID fe80::2:c903:a1:b2c0, port 2 the same GID + 1; the
 * names below are written out rather than formatted, so a formatting bug
 * in the core cannot cancel out.
 */
#define GID_PREFIX 0xfe80000000000000ULL
#define PORT1_GUID 0x0002c90300a1b2c0ULL
#define PORT1_GUID_NAME "0002:c903:00a1:b2c0"
#define PORT1_GID_NAME "0xfe800000000000000002c90300a1b2c0"
#define PORT2_GUID_NAME "0002:c903:00a1:b2c1"
#define PORT2_GID_NAME "0xfe800000000000000002c90300a1b2c1"

/* Per test case: the fake device and whatever the case still holds. */
struct srpt_fixture {
	struct srpt_os_device os;
	struct srpt_device *dev;	/* while added to the core */
	struct srpt_port *refs[4];	/* port references from lookups */
	struct srpt_tport *tport;
	struct srpt_tpg *tpg;
};

/* Names of a port, formatted by the test from the fake's GID. */
struct port_names {
	char guid[sizeof(PORT1_GUID_NAME)];
	char gid[sizeof(PORT1_GID_NAME)];
};

static void format_names(const struct fake_ib_port *p, struct port_names *n)
{
	const u8 *g = p->attr.gid;

	snprintf(n->guid, sizeof(n->guid), "%02x%02x:%02x%02x:%02x%02x:%02x%02x",
		 g[8], g[9], g[10], g[11], g[12], g[13], g[14], g[15]);
	snprintf(n->gid, sizeof(n->gid), "0x%16phN", g);
}

static int srpt_test_init(struct kunit *test)
{
	struct srpt_fixture *f = kunit_kzalloc(test, sizeof(*f), GFP_KERNEL);
	int i;

	if (!f)
		return -ENOMEM;
	for (i = 0; i < FAKE_IB_MAX_PORTS; i++)
		fake_ib_port_init(&f->os.port[i], GID_PREFIX, PORT1_GUID + i);
	f->os.port[0].attr.lid = 1;
	f->os.port[1].attr.lid = 2;
	test->priv = f;
	return 0;
}

/*
 * Also runs after a failed assertion: undo in the order the shims would,
 * then check that the case leaked no core object.
 */
static void srpt_test_exit(struct kunit *test)
{
	struct srpt_fixture *f = test->priv;
	int i;

	if (f->tpg)
		srpt_core_tpg_destroy(f->tpg);
	if (f->tport)
		srpt_core_tport_destroy(f->tport);
	for (i = 0; i < ARRAY_SIZE(f->refs); i++)
		srpt_port_put_ref(f->refs[i]);
	if (f->dev)
		fake_ib_device_remove(&f->os, f->dev);
	KUNIT_EXPECT_EQ_MSG(test, srpt_probe_live_tports(), 0, "target ports leaked");
	KUNIT_EXPECT_EQ_MSG(test, srpt_probe_live_ports(), 0, "ports leaked");
}

static void add_device(struct kunit *test, u32 port_count)
{
	struct srpt_fixture *f = test->priv;
	const struct srpt_device_info info = {
		.name = "fake0",
		.node_guid = PORT1_GUID,
		.port_count = port_count,
		.max_qp_wr = 16384,
		.max_srq_wr = 16384,
		.max_send_sge = 30,
		.max_qp_rd_atom = 16,
		.max_qp_init_rd_atom = 16,
	};

	KUNIT_ASSERT_EQ(test, fake_ib_device_add(&f->os, &info, &f->dev), 0);
}

static void remove_device(struct kunit *test)
{
	struct srpt_fixture *f = test->priv;

	fake_ib_device_remove(&f->os, f->dev);
	f->dev = NULL;
}

/* A lookup whose reference the fixture drops if the case aborts. */
static struct port_and_port_id lookup(struct kunit *test, const char *name)
{
	struct srpt_fixture *f = test->priv;
	struct port_and_port_id r;
	size_t i;

	for (i = 0; i < ARRAY_SIZE(f->refs) && f->refs[i]; i++)
		;
	KUNIT_ASSERT_LT_MSG(test, i, ARRAY_SIZE(f->refs),
			    "the test holds too many port references");
	r = srpt_lookup_port(name);
	f->refs[i] = r.sport;
	return r;
}

static void put(struct kunit *test, struct srpt_port *sport)
{
	struct srpt_fixture *f = test->priv;
	int i;

	for (i = 0; i < ARRAY_SIZE(f->refs); i++) {
		if (f->refs[i] == sport) {
			f->refs[i] = NULL;
			srpt_port_put_ref(sport);
			return;
		}
	}
	KUNIT_FAIL(test, "putting a reference the test does not hold");
}

/* @name finds @sport, as name form @kind, and holds one more reference. */
static void expect_found(struct kunit *test, const char *name,
			 struct srpt_port *sport, enum srpt_port_id_kind kind)
{
	int refs = srpt_probe_port_refs(sport);
	struct port_and_port_id r = lookup(test, name);

	KUNIT_EXPECT_PTR_EQ_MSG(test, r.sport, sport, "lookup of '%s'", name);
	KUNIT_EXPECT_EQ_MSG(test, r.port_id, kind, "lookup of '%s'", name);
	if (r.sport != sport)
		return;
	KUNIT_EXPECT_EQ_MSG(test, srpt_probe_port_refs(sport), refs + 1,
			    "lookup of '%s'", name);
	put(test, r.sport);
	KUNIT_EXPECT_EQ_MSG(test, srpt_probe_port_refs(sport), refs,
			    "put after lookup of '%s'", name);
}

static void expect_not_found(struct kunit *test, const char *name)
{
	struct port_and_port_id r = lookup(test, name);

	KUNIT_EXPECT_NULL_MSG(test, r.sport, "lookup of '%s'", name);
	KUNIT_EXPECT_EQ_MSG(test, r.port_id, SRPT_PORT_ID_NONE, "lookup of '%s'", name);
	if (r.sport)
		put(test, r.sport);
}

/* The port named @name, or an aborted case. */
static struct srpt_port *port_by_name(struct kunit *test, const char *name)
{
	struct port_and_port_id r = lookup(test, name);

	KUNIT_ASSERT_NOT_NULL_MSG(test, r.sport, "lookup of '%s'", name);
	return r.sport;
}

/* ---------------------------------------------------------------------
 * Allocation through the shim: the core's operator new on the kernel
 * allocator, and RefPtr ownership.
 */

static void alloc_core_object(struct kunit *test)
{
	struct srpt_port *p = srpt_probe_port_new();

	KUNIT_ASSERT_NOT_NULL(test, p);
	KUNIT_EXPECT_TRUE(test, IS_ALIGNED((unsigned long)p, srpt_probe_port_align()));
	KUNIT_EXPECT_EQ(test, srpt_probe_live_ports(), 1);
	KUNIT_EXPECT_EQ(test, srpt_probe_port_refs(p), 1);
	/* Born with one reference: dropping it deletes the port. */
	srpt_port_put_ref(p);
	KUNIT_EXPECT_EQ(test, srpt_probe_live_ports(), 0);
}

static void alloc_overaligned(struct kunit *test)
{
	void *p[8];
	int i;

	/* Several at once, so they cannot all share one lucky slot. */
	for (i = 0; i < ARRAY_SIZE(p); i++) {
		p[i] = srpt_probe_overaligned_new();
		KUNIT_EXPECT_NOT_NULL(test, p[i]);
		KUNIT_EXPECT_EQ_MSG(test, (unsigned long)p[i] % SRPT_PROBE_OVERALIGN, 0UL,
				    "misalignment of object %d", i);
	}
	for (i = 0; i < ARRAY_SIZE(p); i++)
		srpt_probe_overaligned_delete(p[i]);
}

static void refptr_frees_once(struct kunit *test)
{
	struct srpt_probe_refptr_trace t = {};

	KUNIT_ASSERT_EQ(test, srpt_probe_refptr_trace(&t), 0);
	KUNIT_EXPECT_EQ(test, t.refs_adopted, 1);
	KUNIT_EXPECT_EQ(test, t.refs_copied, 2);
	KUNIT_EXPECT_EQ(test, t.refs_copy_gone, 1);
	KUNIT_EXPECT_EQ(test, t.freed_copy_gone, 0);
	KUNIT_EXPECT_EQ(test, t.freed_last_reset, 1);
	KUNIT_EXPECT_EQ(test, t.freed_at_end, 1);
}

static struct kunit_case srpt_alloc_cases[] = {
	KUNIT_CASE(alloc_core_object),
	KUNIT_CASE(alloc_overaligned),
	KUNIT_CASE(refptr_frees_once),
	{}
};

/* ---------------------------------------------------------------------
 * The srpt_refresh_port() contract.
 */

static void refresh_registers_once_and_updates_cache(struct kunit *test)
{
	struct srpt_fixture *f = test->priv;
	struct fake_ib_port *fp = &f->os.port[0];
	struct srpt_probe_port_cache c;
	struct port_names old, cur;
	struct srpt_port *sport;
	int i;

	add_device(test, 1);
	/* Adding the device refreshed the port once already. */
	KUNIT_EXPECT_EQ(test, fp->query_calls, 1U);
	KUNIT_EXPECT_TRUE(test, f->os.events);
	/* The first device's node GUID became the service GUID. */
	KUNIT_EXPECT_TRUE(test, f->os.ib_cm_listening);
	KUNIT_EXPECT_EQ(test, f->os.ib_cm_service_id, PORT1_GUID);
	sport = port_by_name(test, PORT1_GUID_NAME);

	for (i = 1; i <= 3; i++) {
		format_names(fp, &old);
		fake_ib_port_set_gid(fp, GID_PREFIX, PORT1_GUID + 0x100 * i);
		fp->attr.lid = 10 + i;
		fp->attr.sm_lid = 20 + i;
		format_names(fp, &cur);

		KUNIT_ASSERT_EQ(test, srpt_refresh_port(sport), 0);
		srpt_probe_port_cache(sport, &c);
		KUNIT_EXPECT_TRUE(test, c.valid);
		KUNIT_EXPECT_EQ(test, c.lid, 10U + i);
		KUNIT_EXPECT_EQ(test, c.sm_lid, 20U + i);
		KUNIT_EXPECT_EQ(test, memcmp(c.gid, fp->attr.gid, sizeof(c.gid)), 0);
		expect_found(test, cur.guid, sport, SRPT_PORT_ID_GUID);
		expect_found(test, cur.gid, sport, SRPT_PORT_ID_GID);
		expect_not_found(test, old.guid);
		expect_not_found(test, old.gid);
	}
	KUNIT_EXPECT_EQ(test, fp->query_calls, 4U);
	KUNIT_EXPECT_EQ(test, fp->mad_register_calls, 1U);
	KUNIT_EXPECT_PTR_EQ(test, fp->mad_agent, sport);
	KUNIT_EXPECT_TRUE(test, fp->devmgmt);
	KUNIT_EXPECT_EQ(test, fp->devmgmt_clear_calls, 0U);

	/* Removal undoes both and stops events and logins. */
	remove_device(test);
	KUNIT_EXPECT_NULL(test, fp->mad_agent);
	KUNIT_EXPECT_EQ(test, fp->mad_unregister_calls, 1U);
	KUNIT_EXPECT_FALSE(test, fp->devmgmt);
	KUNIT_EXPECT_FALSE(test, f->os.events);
	KUNIT_EXPECT_EQ(test, f->os.events_stop_calls, 1U);
	KUNIT_EXPECT_FALSE(test, f->os.ib_cm_listening);
}

static void refresh_iwarp_has_no_management(struct kunit *test)
{
	struct srpt_fixture *f = test->priv;
	struct fake_ib_port *fp = &f->os.port[0];

	fp->attr.iwarp = 1;
	fp->attr.ib_cm = 0;
	fp->attr.link_ib = 0;
	add_device(test, 1);
	KUNIT_EXPECT_EQ(test, srpt_refresh_port(port_by_name(test, PORT1_GUID_NAME)), 0);
	KUNIT_EXPECT_EQ(test, fp->query_calls, 2U);
	KUNIT_EXPECT_EQ(test, fp->devmgmt_enable_calls, 0U);
	KUNIT_EXPECT_EQ(test, fp->devmgmt_clear_calls, 0U);
	KUNIT_EXPECT_EQ(test, fp->mad_register_calls, 0U);
	KUNIT_EXPECT_NULL(test, fp->mad_agent);
	/* iWARP has no IB/CM. */
	KUNIT_EXPECT_FALSE(test, f->os.ib_cm_listening);
}

static void refresh_devmgmt_failure_is_not_fatal(struct kunit *test)
{
	struct srpt_fixture *f = test->priv;
	struct fake_ib_port *fp = &f->os.port[0];

	fp->devmgmt_err = -EOPNOTSUPP;
	add_device(test, 1);
	KUNIT_EXPECT_EQ(test, srpt_refresh_port(port_by_name(test, PORT1_GUID_NAME)), 0);
	KUNIT_EXPECT_EQ(test, fp->devmgmt_enable_calls, 2U);
	KUNIT_EXPECT_FALSE(test, fp->devmgmt);
	KUNIT_EXPECT_EQ(test, fp->mad_register_calls, 0U);
	KUNIT_EXPECT_NULL(test, fp->mad_agent);
}

static void refresh_agent_failure_clears_devmgmt(struct kunit *test)
{
	struct srpt_fixture *f = test->priv;
	struct fake_ib_port *fp = &f->os.port[0];

	fp->mad_register_err = -ENOMEM;
	add_device(test, 1);
	KUNIT_EXPECT_EQ(test, srpt_refresh_port(port_by_name(test, PORT1_GUID_NAME)), 0);
	/* Like the in-tree driver, every refresh tries to register again. */
	KUNIT_EXPECT_EQ(test, fp->mad_register_calls, 2U);
	KUNIT_EXPECT_EQ(test, fp->devmgmt_enable_calls, 2U);
	KUNIT_EXPECT_EQ(test, fp->devmgmt_clear_calls, 2U);
	KUNIT_EXPECT_FALSE(test, fp->devmgmt);
	KUNIT_EXPECT_NULL(test, fp->mad_agent);
}

/* Events refresh from the workqueue (src/shim/os.c), not the event handler. */
static void port_event_refreshes_in_process_context(struct kunit *test)
{
	struct srpt_fixture *f = test->priv;
	struct fake_ib_port *fp = &f->os.port[0];
	struct srpt_probe_port_cache c;
	struct port_names cur;
	struct srpt_port *sport;

	add_device(test, 1);
	sport = port_by_name(test, PORT1_GUID_NAME);

	srpt_core_port_event(f->dev, 1, SRPT_IB_EVENT_PORT_ERR);
	srpt_probe_port_cache(sport, &c);
	KUNIT_EXPECT_EQ(test, c.lid, 0U);

	fake_ib_port_set_gid(fp, GID_PREFIX, PORT1_GUID + 0x42);
	fp->attr.lid = 7;
	format_names(fp, &cur);
	srpt_core_port_event(f->dev, 1, SRPT_IB_EVENT_GID_CHANGE);
	flush_workqueue(srpt_wq);
	KUNIT_EXPECT_EQ(test, fp->query_calls, 2U);
	srpt_probe_port_cache(sport, &c);
	KUNIT_EXPECT_EQ(test, c.lid, 7U);
	expect_found(test, cur.gid, sport, SRPT_PORT_ID_GID);
	expect_not_found(test, PORT1_GID_NAME);
}

static struct kunit_case srpt_refresh_cases[] = {
	KUNIT_CASE(refresh_registers_once_and_updates_cache),
	KUNIT_CASE(refresh_iwarp_has_no_management),
	KUNIT_CASE(refresh_devmgmt_failure_is_not_fatal),
	KUNIT_CASE(refresh_agent_failure_clears_devmgmt),
	KUNIT_CASE(port_event_refreshes_in_process_context),
	{}
};

/* ---------------------------------------------------------------------
 * Port lookup by name and its reference, on the kernel allocator.
 */

static void lookup_by_both_name_forms(struct kunit *test)
{
	char upper[sizeof(PORT2_GID_NAME)];
	struct srpt_port *port1, *port2;

	add_device(test, 2);
	port1 = port_by_name(test, PORT1_GUID_NAME);
	port2 = port_by_name(test, PORT2_GID_NAME);
	KUNIT_ASSERT_PTR_NE(test, port1, port2);

	expect_found(test, PORT1_GUID_NAME, port1, SRPT_PORT_ID_GUID);
	expect_found(test, PORT1_GID_NAME, port1, SRPT_PORT_ID_GID);
	expect_found(test, PORT2_GUID_NAME, port2, SRPT_PORT_ID_GUID);
	expect_found(test, PORT2_GID_NAME, port2, SRPT_PORT_ID_GID);
	string_upper(upper, PORT2_GUID_NAME);
	expect_found(test, upper, port2, SRPT_PORT_ID_GUID);
	string_upper(upper, PORT2_GID_NAME);
	expect_found(test, upper, port2, SRPT_PORT_ID_GID);
}

static void lookup_rejects_bad_names(struct kunit *test)
{
	static const char * const bad[] = {
		"",
		"0002:c903:00a1:b2c",			/* too short */
		"0002:c903:00a1:b2c00",			/* too long */
		"0002-c903-00a1-b2c0",			/* separators */
		"0002:c903:00a1:b2cg",			/* not hex */
		" 0002:c903:00a1:b2c",			/* leading blank */
		"0002:c903:00a1:b2c2",			/* no such port */
		"fe800000000000000002c90300a1b2c0",	/* no 0x */
		"0xfe800000000000000002c90300a1b2c",	/* 31 digits */
		"0xfe800000000000000002c90300a1b2c00",	/* 33 digits */
		"0xfe800000000000000002c90300a1b2z0",	/* not hex */
		"0xfe810000000000000002c90300a1b2c0",	/* other subnet */
	};
	int i;

	add_device(test, 1);
	for (i = 0; i < ARRAY_SIZE(bad); i++)
		expect_not_found(test, bad[i]);
}

static void lookup_after_remove_keeps_port_alive(struct kunit *test)
{
	struct srpt_port *sport;

	add_device(test, 1);
	sport = port_by_name(test, PORT1_GID_NAME);
	KUNIT_EXPECT_EQ(test, srpt_probe_live_ports(), 1);
	KUNIT_EXPECT_EQ(test, srpt_probe_port_refs(sport), 2);

	remove_device(test);
	/* Detached, but ours until we put it. */
	KUNIT_EXPECT_EQ(test, srpt_probe_live_ports(), 1);
	KUNIT_EXPECT_EQ(test, srpt_probe_port_refs(sport), 1);
	expect_not_found(test, PORT1_GUID_NAME);
	expect_not_found(test, PORT1_GID_NAME);

	put(test, sport);
	KUNIT_EXPECT_EQ(test, srpt_probe_live_ports(), 0);
}

static struct kunit_case srpt_lookup_cases[] = {
	KUNIT_CASE(lookup_by_both_name_forms),
	KUNIT_CASE(lookup_rejects_bad_names),
	KUNIT_CASE(lookup_after_remove_keeps_port_alive),
	{}
};

/* ---------------------------------------------------------------------
 * Target ports and TPGs. The srpt_os_tport/tpg handles are NULL: the core
 * only hands them back to LIO callouts, which these cases do not reach.
 */

static void tpg_enable_follows_port(struct kunit *test)
{
	struct srpt_fixture *f = test->priv;
	char upper[sizeof(PORT1_GUID_NAME)];
	struct srpt_tport *dup;
	struct srpt_port *sport;

	add_device(test, 1);
	sport = port_by_name(test, PORT1_GUID_NAME);

	string_upper(upper, PORT1_GUID_NAME);
	KUNIT_ASSERT_EQ(test, srpt_core_tport_create(upper, NULL, &f->tport), 0);
	KUNIT_EXPECT_STREQ(test, srpt_core_tport_name(f->tport), PORT1_GUID_NAME);
	KUNIT_EXPECT_EQ(test, srpt_probe_live_tports(), 1);
	KUNIT_EXPECT_EQ(test, srpt_core_tport_create(PORT1_GUID_NAME, NULL, &dup), -EEXIST);
	KUNIT_EXPECT_EQ(test, srpt_core_tport_create(PORT2_GUID_NAME, NULL, &dup), -EINVAL);
	KUNIT_EXPECT_EQ(test, srpt_probe_live_tports(), 1);

	KUNIT_ASSERT_EQ(test, srpt_core_tpg_create(f->tport, "tpg_1", NULL, &f->tpg), 0);
	KUNIT_EXPECT_FALSE(test, srpt_probe_port_enabled(sport));
	KUNIT_EXPECT_EQ(test, srpt_core_tpg_enable(f->tpg, 1), 0);
	KUNIT_EXPECT_TRUE(test, srpt_probe_port_enabled(sport));
	/* Enabling twice counts once: one disable turns the port off. */
	KUNIT_EXPECT_EQ(test, srpt_core_tpg_enable(f->tpg, 1), 0);
	KUNIT_EXPECT_EQ(test, srpt_core_tpg_enable(f->tpg, 0), 0);
	KUNIT_EXPECT_FALSE(test, srpt_probe_port_enabled(sport));
	KUNIT_EXPECT_EQ(test, srpt_core_tpg_enable(f->tpg, 1), 0);
	KUNIT_EXPECT_TRUE(test, srpt_probe_port_enabled(sport));

	/*
	 * The device goes: disabling works, and so does enabling (targetcli
	 * enables every TPG it shows), though nobody can log in.
	 */
	remove_device(test);
	KUNIT_EXPECT_EQ(test, srpt_core_tpg_enable(f->tpg, 0), 0);
	KUNIT_EXPECT_FALSE(test, srpt_probe_port_enabled(sport));
	KUNIT_EXPECT_EQ(test, srpt_core_tpg_enable(f->tpg, 1), 0);
	KUNIT_EXPECT_TRUE(test, srpt_probe_port_enabled(sport));

	/* configfs order: TPG, then target port, which drops its port reference. */
	srpt_core_tpg_destroy(f->tpg);
	f->tpg = NULL;
	srpt_core_tport_destroy(f->tport);
	f->tport = NULL;
	KUNIT_EXPECT_EQ(test, srpt_probe_live_tports(), 0);
	KUNIT_EXPECT_EQ(test, srpt_probe_port_refs(sport), 1);
	put(test, sport);
	KUNIT_EXPECT_EQ(test, srpt_probe_live_ports(), 0);
}

static void tpg_destroy_disables_port(struct kunit *test)
{
	struct srpt_fixture *f = test->priv;
	struct srpt_port *sport;

	add_device(test, 1);
	sport = port_by_name(test, PORT1_GID_NAME);
	KUNIT_ASSERT_EQ(test, srpt_core_tport_create(PORT1_GID_NAME, NULL, &f->tport), 0);
	KUNIT_ASSERT_EQ(test, srpt_core_tpg_create(f->tport, "tpg_1", NULL, &f->tpg), 0);
	KUNIT_EXPECT_EQ(test, srpt_core_tpg_enable(f->tpg, 1), 0);
	KUNIT_EXPECT_TRUE(test, srpt_probe_port_enabled(sport));

	srpt_core_tpg_destroy(f->tpg);
	f->tpg = NULL;
	KUNIT_EXPECT_FALSE(test, srpt_probe_port_enabled(sport));
}

static struct kunit_case srpt_tpg_cases[] = {
	KUNIT_CASE(tpg_enable_follows_port),
	KUNIT_CASE(tpg_destroy_disables_port),
	{}
};

/* ---------------------------------------------------------------------
 * Node ACL names, with the kernel's own address parser behind
 * srpt_os_inet_pton() (the host tests have glibc's in its place).
 */

static void nacl_names_as_the_kernel_reads_them(struct kunit *test)
{
	static const char * const ok[] = {
		"5054:00ff:fe4a:0b7b",
		"0x0000000000000000505400fffe4a0b7b",
		"192.168.122.76",
		"010.1.1.1",			/* leading zeros, which glibc refuses */
		"fe80::5054:ff:fe4a:b7b",
		"fe80::1%2",
		"::ffff:192.168.122.76",
		"2001:db8::1%nosuchif",		/* only a link-local scope is read */
	};
	static const char * const bad[] = {
		"0x123",
		"1.2.3.4:5",			/* an address, but not all of the name */
		"::ffff:1.2.3.4:5",
		"1.2.3.4\n",
		"fe80::1%",
		"fe80::1%nosuchif",
	};
	int i;

	for (i = 0; i < ARRAY_SIZE(ok); i++)
		KUNIT_EXPECT_EQ_MSG(test, srpt_core_nacl_init(ok[i]), 0, "%s", ok[i]);
	for (i = 0; i < ARRAY_SIZE(bad); i++)
		KUNIT_EXPECT_EQ_MSG(test, srpt_core_nacl_init(bad[i]), -EINVAL, "%s", bad[i]);
}

static struct kunit_case srpt_nacl_cases[] = {
	KUNIT_CASE(nacl_names_as_the_kernel_reads_them),
	{}
};

/* ---------------------------------------------------------------------
 * What src/shim/module.c does at load and unload, minus IB and LIO.
 */

int srpt_kunit_suite_init(struct kunit_suite *suite)
{
	int ret = srpt_core_init();

	if (ret)
		return ret;
	srpt_wq = alloc_workqueue("ib_srpt_test", WQ_MEM_RECLAIM, 0);
	if (!srpt_wq) {
		srpt_core_exit();
		return -ENOMEM;
	}
	return 0;
}

void srpt_kunit_suite_exit(struct kunit_suite *suite)
{
	destroy_workqueue(srpt_wq);
	srpt_wq = NULL;
	srpt_core_exit();
}

static struct kunit_suite srpt_alloc_suite = {
	.name = "srpt_alloc",
	.test_cases = srpt_alloc_cases,
};

static struct kunit_suite srpt_refresh_suite = {
	.name = "srpt_refresh",
	.suite_init = srpt_kunit_suite_init,
	.suite_exit = srpt_kunit_suite_exit,
	.init = srpt_test_init,
	.exit = srpt_test_exit,
	.test_cases = srpt_refresh_cases,
};

static struct kunit_suite srpt_lookup_suite = {
	.name = "srpt_lookup",
	.suite_init = srpt_kunit_suite_init,
	.suite_exit = srpt_kunit_suite_exit,
	.init = srpt_test_init,
	.exit = srpt_test_exit,
	.test_cases = srpt_lookup_cases,
};

static struct kunit_suite srpt_nacl_suite = {
	.name = "srpt_nacl",
	.test_cases = srpt_nacl_cases,
};

static struct kunit_suite srpt_tpg_suite = {
	.name = "srpt_tpg",
	.suite_init = srpt_kunit_suite_init,
	.suite_exit = srpt_kunit_suite_exit,
	.init = srpt_test_init,
	.exit = srpt_test_exit,
	.test_cases = srpt_tpg_cases,
};

kunit_test_suites(&srpt_alloc_suite, &srpt_refresh_suite, &srpt_lookup_suite,
		  &srpt_tpg_suite, &srpt_nacl_suite);

MODULE_DESCRIPTION("KUnit tests for the ib_srpt C++ core");
MODULE_LICENSE("GPL");
