// SPDX-License-Identifier: GPL-2.0-only
/*
 * RDMA devices and ports: srpt_core_device_add/remove, srpt_refresh_port
 * (the documented contract), async events, allocation failures.
 */
#include "fixture.h"

#include <srpt/registry.h>
#include <srpt/live.h>

#include <cerrno>
#include <string>

using Devices = CoreTest;

namespace {

srpt_port *handle(srpt::RdmaPort *p)
{
	return srpt::to_handle<srpt_port>(p);
}

/* srpt_lookup_port(), dropping the reference at once; true when found. */
bool findable(const std::string &name)
{
	port_and_port_id r = srpt_lookup_port(name.c_str());
	if (!r.sport)
		return false;
	srpt_port_put_ref(r.sport);
	return true;
}

std::string gid_hex(const srpt::Gid &g)
{
	char buf[40];
	std::string s;
	for (std::uint8_t b : g.raw) {
		std::snprintf(buf, sizeof(buf), "%02x", b);
		s += buf;
	}
	return s;
}

std::string gid_hex(const std::uint8_t *g)
{
	srpt::Gid x;
	std::memcpy(x.raw, g, 16);
	return gid_hex(x);
}

} // namespace

TEST_F(Devices, AddRefreshesEveryPortThenStartsEvents)
{
	fake::Device &d = add_device("mlx5_0", 2, 0x0002c90300a1b2c0ull);

	for (unsigned n = 1; n <= 2; n++) {
		SCOPED_TRACE("port " + std::to_string(n));
		srpt::RdmaPort *p = port_of(d, n);
		ASSERT_NE(nullptr, p);
		EXPECT_EQ(n, p->num());
		EXPECT_STREQ("mlx5_0", p->dev_name());
		EXPECT_EQ(1, d.port(n).query_calls);
		EXPECT_TRUE(d.port(n).devmgmt);
		EXPECT_TRUE(d.port(n).agent);
		EXPECT_EQ(handle(p), d.port(n).agent_ctx) << "the agent's context is the port";
		EXPECT_TRUE(p->mad_registered());

		const srpt::PortCache c = p->cache();
		EXPECT_TRUE(c.valid);
		EXPECT_EQ(0x10 + n, c.lid);
		EXPECT_EQ(1u, c.sm_lid);
		EXPECT_EQ(gid_hex(d.port(n).attr.gid), gid_hex(c.gid));
		EXPECT_EQ(fake::guid_name(d, n), c.guid_name.c_str());
		EXPECT_EQ(fake::gid_name(d, n), c.gid_name.c_str());
		EXPECT_TRUE(c.link_ib);
		EXPECT_FALSE(c.iwarp);
		EXPECT_EQ(1, fake::log_count("mlx5_0 port " + std::to_string(n) +
					     ": target port names " + fake::guid_name(d, n) + " and " +
					     fake::gid_name(d, n) + " (InfiniBand)"));
	}
	EXPECT_EQ(nullptr, port_of(d, 0));
	EXPECT_EQ(nullptr, port_of(d, 3));
	EXPECT_TRUE(d.events);
	EXPECT_EQ(1, d.events_start_calls);
	EXPECT_EQ((std::vector<std::string>{
			  "query mlx5_0/1", "devmgmt mlx5_0/1 on", "agent_register mlx5_0/1",
			  "query mlx5_0/2", "devmgmt mlx5_0/2 on", "agent_register mlx5_0/2",
			  "events_start mlx5_0"}),
		  trace_of({"query", "devmgmt", "agent_", "events_"}));
	EXPECT_EQ(1, fake::log_count("mlx5_0: added, 2 ports, node GUID 0002c90300a1b2c0"));
	EXPECT_EQ(0x0002c90300a1b2c0ull, srpt::service_guid());
}

TEST_F(Devices, EventsStartOnlyOnceEveryPortIsFindableAndTheHandleIsSet)
{
	fake::Device &d = make_device("mlx5_0", 3, 0x0002c90300a1b2c0ull);
	int checked = 0;
	bool handle_set = false, delivered = false;

	d.on_events_start = [&](fake::Device &dev) {
		for (unsigned n = 1; n <= 3; n++) {
			EXPECT_TRUE(findable(fake::guid_name(dev, n))) << "port " << n;
			EXPECT_TRUE(findable(fake::gid_name(dev, n))) << "port " << n;
			checked++;
		}
		/*
		 * The shim's event handler reads the handle srpt_core_device_add()
		 * stores through @out (os->core): an event may come at once.
		 */
		handle_set = dev.core != nullptr;
		if (handle_set)
			delivered = fake::deliver_event(dev, 1, SRPT_IB_EVENT_LID_CHANGE);
	};
	ASSERT_EQ(0, fake::add(d));
	EXPECT_EQ(3, checked);
	EXPECT_TRUE(handle_set) << "events started before *out was set: an early event "
				   "reaches srpt_core_port_event(NULL, ...)";
	EXPECT_TRUE(delivered);
	EXPECT_EQ(1u, fake::run_work());
	EXPECT_EQ(2, d.port(1).query_calls);
	remove_device(d);
}

TEST_F(Devices, RefreshIsIdempotentAndUpdatesTheCache)
{
	fake::Device &d = add_device("mlx5_0", 1, 0x0002c90300a1b2c0ull);
	srpt::RdmaPort *p = port_of(d, 1);
	ASSERT_NE(nullptr, p);
	const std::string old_guid = fake::guid_name(d, 1);
	fake::take_trace();

	for (int i = 1; i <= 3; i++) {
		d.port(1).attr.lid = 0x100 + i;
		d.port(1).attr.sm_lid = 0x200 + i;
		EXPECT_EQ(0, srpt_refresh_port(handle(p)));
		EXPECT_EQ(0x100u + i, p->cache().lid);
		EXPECT_EQ(0x200u + i, p->cache().sm_lid);
	}
	EXPECT_EQ(4, d.port(1).query_calls);
	EXPECT_EQ(1, d.port(1).agent_register_calls) << "a second refresh registers nothing";
	EXPECT_TRUE(d.port(1).agent);
	EXPECT_TRUE(d.port(1).devmgmt);
	EXPECT_EQ(0, d.port(1).agent_unregister_calls);
	/* The GID did not change: its names are logged once. */
	EXPECT_EQ(1, fake::log_count("target port names"));

	/* A new GID: new names, found by lookup; the old ones are gone. */
	d.port(1).attr.gid[15] ^= 0xff;
	EXPECT_EQ(0, srpt_refresh_port(handle(p)));
	EXPECT_EQ(fake::guid_name(d, 1), p->cache().guid_name.c_str());
	EXPECT_NE(old_guid, fake::guid_name(d, 1));
	EXPECT_TRUE(findable(fake::guid_name(d, 1)));
	EXPECT_TRUE(findable(fake::gid_name(d, 1)));
	EXPECT_FALSE(findable(old_guid));
	EXPECT_EQ(2, fake::log_count("target port names"));
	EXPECT_EQ(1, d.port(1).agent_register_calls);
}

TEST_F(Devices, DevmgmtFailureMeansNoAgentButSuccess)
{
	fake::Device &d = make_device("mlx5_0", 2, 0x0002c90300a1b2c0ull);
	d.port(1).devmgmt_enable_error = -EOPNOTSUPP;
	ASSERT_EQ(0, fake::add(d));

	EXPECT_FALSE(d.port(1).devmgmt);
	EXPECT_FALSE(d.port(1).agent);
	EXPECT_EQ(0, d.port(1).agent_register_calls);
	EXPECT_FALSE(port_of(d, 1)->mad_registered());
	EXPECT_TRUE(port_of(d, 1)->cache().valid) << "the cache is still refreshed";
	EXPECT_TRUE(findable(fake::guid_name(d, 1)));
	EXPECT_TRUE(d.port(2).agent);
	EXPECT_EQ(1, fake::log_count("mlx5_0 port 1: enabling device management failed", SRPT_LOG_WARN));

	EXPECT_EQ(0, srpt_refresh_port(handle(port_of(d, 1))));
	EXPECT_FALSE(d.port(1).agent);

	/* Once device management works, the next refresh registers the agent. */
	d.port(1).devmgmt_enable_error = 0;
	EXPECT_EQ(0, srpt_refresh_port(handle(port_of(d, 1))));
	EXPECT_TRUE(d.port(1).devmgmt);
	EXPECT_TRUE(d.port(1).agent);
	EXPECT_TRUE(port_of(d, 1)->mad_registered());

	remove_device(d);
	EXPECT_FALSE(d.port(1).agent);
	EXPECT_FALSE(d.port(1).devmgmt);
}

TEST_F(Devices, AgentRegistrationFailureClearsDevmgmt)
{
	fake::Device &d = make_device("mlx5_0", 1, 0x0002c90300a1b2c0ull);
	d.port(1).agent_register_error = -ENOMEM;
	ASSERT_EQ(0, fake::add(d));

	EXPECT_FALSE(d.port(1).agent);
	EXPECT_FALSE(d.port(1).devmgmt) << "device management must be cleared again";
	EXPECT_FALSE(port_of(d, 1)->mad_registered());
	EXPECT_EQ((std::vector<std::string>{"query mlx5_0/1", "devmgmt mlx5_0/1 on",
					    "agent_register mlx5_0/1", "devmgmt mlx5_0/1 off",
					    "events_start mlx5_0"}),
		  trace_of({"query", "devmgmt", "agent_", "events_"}));
	EXPECT_EQ(1, fake::log_count("mlx5_0 port 1: registering the device management MAD agent "
				     "failed, continuing without it; expected with SR-IOV (-ENOMEM)",
				     SRPT_LOG_ERR));

	EXPECT_EQ(0, srpt_refresh_port(handle(port_of(d, 1))));
	EXPECT_FALSE(d.port(1).agent);
	EXPECT_FALSE(d.port(1).devmgmt);

	d.port(1).agent_register_error = 0;
	EXPECT_EQ(0, srpt_refresh_port(handle(port_of(d, 1))));
	EXPECT_TRUE(d.port(1).agent);
	EXPECT_TRUE(d.port(1).devmgmt);
}

TEST_F(Devices, AgentAndDevmgmtClearFailureIsLoggedOnly)
{
	fake::Device &d = make_device("mlx5_0", 1, 0x0002c90300a1b2c0ull);
	d.port(1).agent_register_error = -ENOMEM;
	d.port(1).devmgmt_disable_error = -EIO;
	ASSERT_EQ(0, fake::add(d));
	EXPECT_FALSE(d.port(1).agent);
	EXPECT_EQ(1, fake::log_count("clearing the device management capability failed"));
}

TEST_F(Devices, QueryFailureFailsTheAddAndLeavesNothing)
{
	for (unsigned bad = 1; bad <= 2; bad++) {
		SCOPED_TRACE("failing port " + std::to_string(bad));
		fake::Device &d = make_device("mlx5_0", 2, 0x0002c90300a1b2c0ull);
		d.port(bad).query_error = -EIO;

		EXPECT_EQ(-EIO, fake::add(d));
		EXPECT_EQ(nullptr, d.core);
		d.contract.removed = 1;	/* no callout may follow a failed add */
		for (unsigned n = 1; n <= 2; n++) {
			EXPECT_FALSE(d.port(n).agent) << "port " << n;
			EXPECT_FALSE(d.port(n).devmgmt) << "port " << n;
		}
		EXPECT_EQ(0, d.events_start_calls);
		EXPECT_EQ(0, srpt::live_count(srpt::Live::kPort));
		EXPECT_EQ(0, fake::live_allocs());
		EXPECT_TRUE(srpt::registry_empty());
		d.port(bad).query_error = 0;
		EXPECT_FALSE(findable(fake::guid_name(d, 1)));
		EXPECT_FALSE(findable(fake::gid_name(d, 2)));
		EXPECT_EQ(1, fake::log_count("mlx5_0 port " + std::to_string(bad) +
					     ": querying the port failed (-EIO)"));
		EXPECT_EQ(1, fake::log_count("mlx5_0: adding the device failed (-EIO)"));
		fake::clear_logs();
	}
}

TEST_F(Devices, IwarpPortsHaveNoManagement)
{
	fake::Device &d = make_device("iwp0", 2, 0x0007430000001000ull);
	for (unsigned n = 1; n <= 2; n++) {
		d.port(n).attr.iwarp = 1;
		d.port(n).attr.ib_cm = 0;
		d.port(n).attr.link_ib = 0;
		d.port(n).attr.lid = 0;
		d.port(n).attr.sm_lid = 0;
	}
	ASSERT_EQ(0, fake::add(d));
	for (unsigned n = 1; n <= 2; n++) {
		EXPECT_EQ(0, d.port(n).devmgmt_calls);
		EXPECT_EQ(0, d.port(n).agent_register_calls);
		EXPECT_TRUE(port_of(d, n)->cache().iwarp);
		EXPECT_FALSE(port_of(d, n)->cache().link_ib);
		EXPECT_TRUE(findable(fake::gid_name(d, n)));
		EXPECT_EQ(0, srpt_refresh_port(handle(port_of(d, n))));
		EXPECT_EQ(0, d.port(n).agent_register_calls);
	}
	EXPECT_EQ(2, fake::log_count("(iWARP)"));
	EXPECT_FALSE(d.ib_cm_listening) << "iWARP has no IB/CM";
	remove_device(d);
	EXPECT_EQ(0, d.port(1).devmgmt_calls) << "nothing to clear on iWARP";
	EXPECT_EQ(0, d.port(1).agent_unregister_calls);
}

TEST_F(Devices, RoceIsLoggedAsRoce)
{
	fake::Device &d = make_device("rxe0", 1, 0x5054000000000000ull);
	d.port(1).attr.link_ib = 0;
	ASSERT_EQ(0, fake::add(d));
	EXPECT_FALSE(port_of(d, 1)->cache().link_ib);
	EXPECT_EQ(1, fake::log_count("(RoCE)"));
	/* IB/CM logins are accepted on RoCE too (tests/vm/24-ibcm-login.sh). */
	EXPECT_TRUE(d.ib_cm_listening);
}

TEST_F(Devices, PortErrClearsLidAndSmLid)
{
	fake::Device &d = add_device("mlx5_0", 2, 0x0002c90300a1b2c0ull);
	const int queries = d.port(2).query_calls;

	ASSERT_TRUE(fake::deliver_event(d, 2, SRPT_IB_EVENT_PORT_ERR));
	const srpt::PortCache c = port_of(d, 2)->cache();
	EXPECT_EQ(0u, c.lid);
	EXPECT_EQ(0u, c.sm_lid);
	EXPECT_TRUE(c.valid);
	EXPECT_EQ(gid_hex(d.port(2).attr.gid), gid_hex(c.gid));
	EXPECT_EQ(0u, fake::pending_work());
	EXPECT_EQ(queries, d.port(2).query_calls);
	EXPECT_EQ(0x11u, port_of(d, 1)->cache().lid) << "the other port is untouched";
}

TEST_F(Devices, RefreshingEventsScheduleWork)
{
	fake::Device &d = add_device("mlx5_0", 2, 0x0002c90300a1b2c0ull);
	const srpt_ib_event events[] = {SRPT_IB_EVENT_PORT_ACTIVE, SRPT_IB_EVENT_LID_CHANGE,
					SRPT_IB_EVENT_PKEY_CHANGE, SRPT_IB_EVENT_SM_CHANGE,
					SRPT_IB_EVENT_CLIENT_REREGISTER, SRPT_IB_EVENT_GID_CHANGE};
	std::uint32_t lid = 0x40;

	for (srpt_ib_event ev : events) {
		SCOPED_TRACE("event " + std::to_string(ev));
		const int queries = d.port(2).query_calls;
		d.port(2).attr.lid = ++lid;
		ASSERT_TRUE(fake::deliver_event(d, 2, ev));
		EXPECT_EQ(1u, fake::pending_work());
		EXPECT_EQ(queries, d.port(2).query_calls) << "no query in the event handler";
		EXPECT_NE(lid, port_of(d, 2)->cache().lid);
		EXPECT_EQ(1u, fake::run_work());
		EXPECT_EQ(queries + 1, d.port(2).query_calls);
		EXPECT_EQ(lid, port_of(d, 2)->cache().lid);
		EXPECT_EQ(1, d.port(2).agent_register_calls);
	}
	EXPECT_EQ(1, d.port(1).query_calls);
}

TEST_F(Devices, EventsCoalesceIntoOneRefresh)
{
	fake::Device &d = add_device("mlx5_0", 1, 0x0002c90300a1b2c0ull);
	ASSERT_TRUE(fake::deliver_event(d, 1, SRPT_IB_EVENT_LID_CHANGE));
	ASSERT_TRUE(fake::deliver_event(d, 1, SRPT_IB_EVENT_SM_CHANGE));
	ASSERT_TRUE(fake::deliver_event(d, 1, SRPT_IB_EVENT_CLIENT_REREGISTER));
	EXPECT_EQ(1u, fake::pending_work());
	EXPECT_EQ(1u, fake::run_work());
	EXPECT_EQ(2, d.port(1).query_calls);
}

TEST_F(Devices, GidChangeEventRenamesThePort)
{
	fake::Device &d = add_device("rxe0", 1, 0x5054000000000000ull);
	const std::string old_gid = fake::gid_name(d, 1);
	d.port(1).attr.gid[0] = 0x20;
	d.port(1).attr.gid[1] = 0x01;
	ASSERT_TRUE(fake::deliver_event(d, 1, SRPT_IB_EVENT_GID_CHANGE));
	EXPECT_TRUE(findable(old_gid)) << "not before the work ran";
	EXPECT_EQ(1u, fake::run_work());
	EXPECT_FALSE(findable(old_gid));
	EXPECT_TRUE(findable(fake::gid_name(d, 1)));
	EXPECT_TRUE(findable(fake::guid_name(d, 1))) << "the interface id did not change";
}

TEST_F(Devices, RefreshWorkFailureIsLoggedAndKeepsTheCache)
{
	fake::Device &d = add_device("mlx5_0", 1, 0x0002c90300a1b2c0ull);
	d.port(1).query_error = -EIO;
	ASSERT_TRUE(fake::deliver_event(d, 1, SRPT_IB_EVENT_LID_CHANGE));
	EXPECT_EQ(1u, fake::run_work());
	EXPECT_EQ(1, fake::log_count("querying the port failed (-EIO)"));
	EXPECT_EQ(0x11u, port_of(d, 1)->cache().lid) << "garbage from a failed query is not cached";
	EXPECT_TRUE(findable(fake::guid_name(d, 1)));
	d.port(1).query_error = 0;
}

TEST_F(Devices, OtherEventsAreIgnored)
{
	fake::Device &d = add_device("mlx5_0", 1, 0x0002c90300a1b2c0ull);
	/* IB_EVENT_DEVICE_FATAL, and a code the kernel does not have yet. */
	for (int ev : {8, 1000})
		ASSERT_TRUE(fake::deliver_event(d, 1, ev));
	/* Named as ib_event_msg() names them; the double knows neither. */
	EXPECT_EQ(2, fake::log_count("mlx5_0 port 1: ignoring async event unrecognized event",
				     SRPT_LOG_DEBUG));
	EXPECT_EQ(0u, fake::pending_work());
	EXPECT_EQ(0x11u, port_of(d, 1)->cache().lid);
}

TEST_F(Devices, EventForANonexistentPortIsLoggedAndIgnored)
{
	fake::Device &d = add_device("mlx5_0", 2, 0x0002c90300a1b2c0ull);
	for (unsigned n : {0u, 3u, 255u, 0xffffffffu}) {
		ASSERT_TRUE(fake::deliver_event(d, n, SRPT_IB_EVENT_LID_CHANGE));
		ASSERT_TRUE(fake::deliver_event(d, n, SRPT_IB_EVENT_PORT_ERR));
		EXPECT_EQ(1, fake::log_count("mlx5_0: async event LID change for nonexistent port " +
					     std::to_string(n), SRPT_LOG_WARN));
		EXPECT_EQ(1, fake::log_count("mlx5_0: async event port error for nonexistent port " +
					     std::to_string(n), SRPT_LOG_WARN));
	}
	EXPECT_EQ(0u, fake::pending_work());
	EXPECT_EQ(0x11u, port_of(d, 1)->cache().lid);
	EXPECT_EQ(0x12u, port_of(d, 2)->cache().lid);
}

TEST_F(Devices, RemoveStopsEventsFirstThenUnregistersAgents)
{
	fake::Device &d = add_device("mlx5_0", 2, 0x0002c90300a1b2c0ull);
	bool agents_up_when_events_stopped = false;
	bool findable_when_events_stopped = false;

	d.on_events_stop = [&](fake::Device &dev) {
		agents_up_when_events_stopped = dev.port(1).agent && dev.port(2).agent;
		findable_when_events_stopped = findable(fake::guid_name(dev, 1));
	};
	fake::take_trace();
	remove_device(d);
	EXPECT_TRUE(agents_up_when_events_stopped) << "events must stop before anything else";
	(void)findable_when_events_stopped;	/* either is fine: configfs may look up meanwhile */
	EXPECT_EQ((std::vector<std::string>{"events_stop mlx5_0", "devmgmt mlx5_0/1 off",
					    "agent_unregister mlx5_0/1", "devmgmt mlx5_0/2 off",
					    "agent_unregister mlx5_0/2"}),
		  trace_of({"query", "devmgmt", "agent_", "events_"}));
	for (unsigned n = 1; n <= 2; n++) {
		EXPECT_FALSE(d.port(n).agent);
		EXPECT_FALSE(d.port(n).devmgmt);
		EXPECT_EQ(1, d.port(n).agent_unregister_calls);
	}
	EXPECT_FALSE(d.events);
	EXPECT_EQ(1, d.events_stop_calls);
	EXPECT_FALSE(findable(fake::guid_name(d, 1)));
	EXPECT_EQ(1, fake::log_count("mlx5_0: removed"));
}

TEST_F(Devices, RemoveCancelsAPendingRefresh)
{
	fake::Device &d = add_device("mlx5_0", 1, 0x0002c90300a1b2c0ull);
	ASSERT_TRUE(fake::deliver_event(d, 1, SRPT_IB_EVENT_LID_CHANGE));
	EXPECT_EQ(1u, fake::pending_work());
	remove_device(d);
	EXPECT_EQ(0u, fake::pending_work());
	EXPECT_EQ(0u, fake::run_work());
	EXPECT_EQ(1, d.port(1).query_calls);
}

TEST_F(Devices, RefreshOfADetachedPortIsENODEV)
{
	fake::Device &d = add_device("mlx5_0", 1, 0x0002c90300a1b2c0ull);
	port_and_port_id r = srpt_lookup_port(fake::guid_name(d, 1).c_str());
	ASSERT_NE(nullptr, r.sport);
	remove_device(d);
	EXPECT_EQ(-ktl::kENODEV, srpt_refresh_port(r.sport));
	EXPECT_EQ(nullptr, srpt::from_handle<srpt::RdmaPort>(r.sport)->device());
	EXPECT_EQ(1, d.port(1).query_calls) << "no callout after removal";
	srpt_port_put_ref(r.sport);
}

TEST_F(Devices, AllocationFailureAtEveryStepLeavesNothing)
{
	long needed;
	{
		fake::Device &d = make_device("probe", 3, 0x0002c90300a1b2c0ull);
		const long before = fake::alloc_calls();
		ASSERT_EQ(0, fake::add(d));
		needed = fake::alloc_calls() - before;
		remove_device(d);
	}
	ASSERT_GE(needed, 3) << "a device, its port array and ports";
	srpt::reset_params_for_test();

	for (long nth = 1; nth <= needed; nth++) {
		SCOPED_TRACE("failing allocation " + std::to_string(nth) + " of " +
			     std::to_string(needed));
		fake::Device &d = make_device("mlx5_0", 3, 0x0002c90300a1b2c0ull);
		const long failed = fake::failed_allocs();
		fake::fail_alloc(nth);
		EXPECT_EQ(-ktl::kENOMEM, fake::add(d));
		EXPECT_EQ(failed + 1, fake::failed_allocs());
		EXPECT_EQ(nullptr, d.core);
		d.contract.removed = 1;
		EXPECT_EQ(0, d.events_start_calls);
		for (unsigned n = 1; n <= 3; n++) {
			EXPECT_FALSE(d.port(n).agent);
			EXPECT_FALSE(d.port(n).devmgmt);
		}
		EXPECT_EQ(0, srpt::live_count(srpt::Live::kPort));
		EXPECT_EQ(0, fake::live_allocs());
		EXPECT_TRUE(srpt::registry_empty());
		EXPECT_FALSE(findable(fake::guid_name(d, 1)));
		fake::clear_logs();
	}

	fake::Device &d = make_device("mlx5_0", 3, 0x0002c90300a1b2c0ull);
	const long failed = fake::failed_allocs();
	fake::fail_alloc(needed + 1);
	EXPECT_EQ(0, fake::add(d));
	EXPECT_EQ(failed, fake::failed_allocs());
	fake::fail_alloc(0);
	remove_device(d);
}

TEST_F(Devices, MalformedDevicesAreRejected)
{
	fake::Device &d = make_device("mlx5_0", 1, 0x0002c90300a1b2c0ull);
	srpt_device *out = reinterpret_cast<srpt_device *>(0x1);

	d.info.port_count = 0;
	EXPECT_EQ(-ktl::kEINVAL, srpt_core_device_add(&d, &d.info, &out));
	d.info.port_count = 65;
	EXPECT_EQ(-ktl::kEINVAL, srpt_core_device_add(&d, &d.info, &out));
	d.info.port_count = 1;
	d.info.name = nullptr;
	EXPECT_EQ(-ktl::kEINVAL, srpt_core_device_add(&d, &d.info, &out));
	EXPECT_EQ(reinterpret_cast<srpt_device *>(0x1), out) << "*out written on failure";
	EXPECT_EQ(0, fake::alloc_calls());
	EXPECT_TRUE(fake::trace().empty()) << "no callout for a malformed device";
	EXPECT_EQ(3, fake::log_count("unsupported port count", SRPT_LOG_ERR));
	d.info.name = d.name.c_str();
}

TEST_F(Devices, SixtyFourPortsAreFine)
{
	fake::Device &d = add_device("big0", 64, 0x0002c90300000000ull);
	EXPECT_NE(nullptr, port_of(d, 64));
	EXPECT_TRUE(findable(fake::guid_name(d, 64)));
	EXPECT_EQ(64, srpt::live_count(srpt::Live::kPort));
}

TEST_F(Devices, TwoDevicesAreFoundIndependently)
{
	fake::Device &a = add_device("mlx5_0", 2, 0x0002c90300a1b2c0ull);
	fake::Device &b = add_device("mlx5_1", 2, 0x0002c90300a1b3c0ull);
	port_and_port_id r = srpt_lookup_port(fake::gid_name(b, 2).c_str());
	ASSERT_NE(nullptr, r.sport);
	EXPECT_EQ(handle(port_of(b, 2)), r.sport);
	srpt_port_put_ref(r.sport);
	remove_device(a);
	EXPECT_TRUE(findable(fake::gid_name(b, 1)));
	EXPECT_FALSE(findable(fake::gid_name(a, 1)));
	EXPECT_EQ(0x0002c90300a1b2c0ull, srpt::service_guid()) << "the first device's";
}

TEST_F(Devices, CoreExitWarnsAboutADeviceLeftBehind)
{
	srpt_core_exit();
	expect_warnings(0, "no device: nothing to warn about");
	add_device("mlx5_0", 1, 0x0002c90300a1b2c0ull);
	srpt_core_exit();
	expect_warnings(1, "a device is still added");
}
