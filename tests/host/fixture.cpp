// SPDX-License-Identifier: GPL-2.0-only
/* The host test fixture and main(); see fixture.h. */
#include "fixture.h"

#include <srpt/listener.h>

#include <srpt/params.h>
#include <srpt/live.h>
#include <srpt/registry.h>
#include <srpt/target.h>

#include <algorithm>

namespace {

std::string join(const std::vector<std::string> &v)
{
	std::string s;
	for (const std::string &x : v)
		s += "\n    " + x;
	return s;
}

} // namespace

void CoreTest::SetUp()
{
	fake::reset();
	srpt::reset_params_for_test();
}

void CoreTest::TearDown()
{
	/* Objects a test left behind (an early ASSERT): clean up quietly. */
	for (srpt_tpg *t : std::vector<srpt_tpg *>(tpgs_))
		destroy_tpg(t);
	for (srpt_tport *t : std::vector<srpt_tport *>(tports_))
		destroy_tport(t);
	for (auto &d : devices_)
		if (d->core)
			remove_device(*d);

	EXPECT_EQ(0u, fake::pending_work()) << "deferred work left queued at the end of the test";
	fake::drop_work();

	/* The RDMA/CM port is module-global state: put it back to "off". */
	fake::config().listen_error = 0;
	fake::config().listen6_error = 0;
	char buf[32];
	if (srpt_core_rdma_cm_port_show(buf, sizeof(buf)) > 0 && std::string(buf) != "0\n") {
		EXPECT_EQ(2, srpt_core_rdma_cm_port_store("0\n", 2));
	}
	/* And as loaded again: no port written, so the next start listens. */
	srpt::reset_listener_for_test();

	const auto warnings = fake::take_warnings();
	EXPECT_TRUE(warnings.empty()) << "unexpected srpt_os_warn():" << join(warnings);
	const auto violations = fake::take_violations();
	EXPECT_TRUE(violations.empty()) << "kernel rules broken:" << join(violations);

	EXPECT_EQ(0, srpt::live_count(srpt::Live::kPort)) << "ports leaked";
	EXPECT_EQ(0, srpt::live_count(srpt::Live::kTPort)) << "target ports leaked";
	EXPECT_TRUE(srpt::registry_empty()) << "a device is still registered";
	EXPECT_EQ(0, fake::live_allocs()) << "allocations leaked (" << fake::live_bytes()
					  << " bytes)";
	EXPECT_EQ(0u, fake::live_channels()) << "channels the core never freed";
	EXPECT_EQ(0u, fake::live_recvs()) << "receive buffers leaked";
	EXPECT_EQ(0u, fake::live_cmds()) << "send contexts leaked";

	devices_.clear();
	if (HasFailure())
		std::fprintf(stderr, "core log of the failed test:\n%s", fake::log_text().c_str());
}

std::vector<std::string> CoreTest::trace_of(std::initializer_list<const char *> prefixes)
{
	std::vector<std::string> out;
	for (const std::string &t : fake::trace())
		for (const char *p : prefixes)
			if (t.rfind(p, 0) == 0) {
				out.push_back(t);
				break;
			}
	return out;
}

void CoreTest::expect_warnings(std::size_t n, const char *why)
{
	const auto w = fake::take_warnings();
	EXPECT_EQ(n, w.size()) << why << join(w);
}

fake::Device &CoreTest::make_device(const std::string &name, unsigned ports,
				    std::uint64_t node_guid)
{
	devices_.push_back(fake::make_device(name, ports, node_guid));
	return *devices_.back();
}

fake::Device &CoreTest::add_device(const std::string &name, unsigned ports,
				   std::uint64_t node_guid)
{
	fake::Device &d = make_device(name, ports, node_guid);
	const int ret = fake::add(d);
	EXPECT_EQ(0, ret) << "adding " << name;
	EXPECT_NE(nullptr, d.core);
	if (ret)
		d.core = nullptr;
	return d;
}

void CoreTest::remove_device(fake::Device &d)
{
	ASSERT_NE(nullptr, d.core);
	fake::remove(d);
}

srpt::RdmaPort *CoreTest::port_of(fake::Device &d, unsigned num)
{
	if (!d.core)
		return nullptr;
	return srpt::from_handle<srpt::Device>(d.core)->port(num);
}

srpt_tport *CoreTest::create_tport(const std::string &name, int *err)
{
	srpt_tport *t = nullptr;
	const int ret = srpt_core_tport_create(name.c_str(), &os_tport_, &t);

	if (err)
		*err = ret;
	if (ret)
		return nullptr;
	tports_.push_back(t);
	return t;
}

void CoreTest::destroy_tport(srpt_tport *t)
{
	tports_.erase(std::remove(tports_.begin(), tports_.end(), t), tports_.end());
	srpt_core_tport_destroy(t);
}

srpt_tpg *CoreTest::create_tpg(srpt_tport *t, int *err, srpt_os_tpg *os)
{
	srpt_tpg *tpg = nullptr;
	const int ret = srpt_core_tpg_create(t, "tpg_1", os ? os : &os_tpg_, &tpg);

	if (err)
		*err = ret;
	if (ret)
		return nullptr;
	tpgs_.push_back(tpg);
	return tpg;
}

void CoreTest::destroy_tpg(srpt_tpg *tpg)
{
	tpgs_.erase(std::remove(tpgs_.begin(), tpgs_.end(), tpg), tpgs_.end());
	srpt_core_tpg_destroy(tpg);
}

int main(int argc, char **argv)
{
	::testing::InitGoogleTest(&argc, argv);
	fake::reset();
	/* Once, as module_init does. */
	if (srpt_core_init() != 0) {
		std::fprintf(stderr, "srpt_core_init failed\n");
		return 1;
	}
	return RUN_ALL_TESTS();
}
