/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The fixture of every host test: a clean fake and core parameters
 * before each test; after it, a failure for every srpt_os_warn() the test
 * did not expect, every kernel rule the fake saw broken, work left
 * queued, and any core object or allocation left alive.
 *
 * Objects made with the helpers below are cleaned up even when a test
 * stops early, so one failure does not cascade into the next tests.
 */
#pragma once

#include <gtest/gtest.h>

#include <ktl/errno.h>
#include <srpt/abi.h>
#include <srpt/device.h>
#include <srpt/handles.h>
#include <srpt/params.h>
#include <srpt/rdma_port.h>

#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "../doubles/port_api.h"
#include "fake_os.h"

class CoreTest : public ::testing::Test {
protected:
	void SetUp() override;
	void TearDown() override;

	/* The fake's trace, only the entries starting with one of @prefixes. */
	static std::vector<std::string> trace_of(std::initializer_list<const char *> prefixes);

	/* Takes exactly @n srpt_os_warn() reports (and fails otherwise). */
	void expect_warnings(std::size_t n, const char *why);

	/* A fake device owned by the fixture, not yet added. */
	fake::Device &make_device(const std::string &name = "mlx5_0", unsigned ports = 2,
				  std::uint64_t node_guid = 0x0002c90300a1b2c0ull);
	/* The same, added to the core (a test assertion checks that it worked). */
	fake::Device &add_device(const std::string &name = "mlx5_0", unsigned ports = 2,
				 std::uint64_t node_guid = 0x0002c90300a1b2c0ull);
	void remove_device(fake::Device &d);

	/* The core's RdmaPort of an added device. */
	static srpt::RdmaPort *port_of(fake::Device &d, unsigned num);
	static int refs(srpt_port *p) { return srpt::from_handle<srpt::RdmaPort>(p)->ref_count_debug(); }
	static int refs(srpt::RdmaPort *p) { return p->ref_count_debug(); }

	/* srpt_core_tport_create; the tport is tracked (nullptr on failure). */
	srpt_tport *create_tport(const std::string &name, int *err = nullptr);
	void destroy_tport(srpt_tport *t);
	/* @os: the shim's TPG object (a fixture-owned one by default). */
	srpt_tpg *create_tpg(srpt_tport *t, int *err = nullptr, srpt_os_tpg *os = nullptr);
	void destroy_tpg(srpt_tpg *tpg);

private:
	std::vector<std::unique_ptr<fake::Device>> devices_;
	std::vector<srpt_tport *> tports_;
	std::vector<srpt_tpg *> tpgs_;
	srpt_os_tport os_tport_{};
	srpt_os_tpg os_tpg_{};
};

/* The fixture under the names of the suites that only need the checks. */
using Ktl = CoreTest;
using Params = CoreTest;
using PortName = CoreTest;
using InitiatorId = CoreTest;
using Stats = CoreTest;
