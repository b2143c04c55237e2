// SPDX-License-Identifier: GPL-2.0-only
/* Module parameters: srpt_core_param_set/get. */
#include "fixture.h"

#include <srpt/params.h>

#include <string>

namespace {

std::string get(srpt_param p)
{
	char buf[64];
	const int n = srpt_core_param_get(p, buf, sizeof(buf));
	EXPECT_GE(n, 0);
	EXPECT_EQ(static_cast<std::size_t>(n), std::strlen(buf));
	return std::string(buf);
}

} // namespace

TEST_F(Params, Defaults)
{
	EXPECT_EQ("8276\n", get(SRPT_PARAM_MAX_REQ_SIZE));
	EXPECT_EQ("4095\n", get(SRPT_PARAM_SRQ_SIZE));
	EXPECT_EQ("0x0000000000000000\n", get(SRPT_PARAM_SERVICE_GUID));
	EXPECT_EQ("0\n", get(SRPT_PARAM_RDMA_CM_PORT));
	EXPECT_EQ(8276u, srpt::max_req_size());
	EXPECT_EQ(4095u, srpt::srq_size());
	EXPECT_EQ(0u, srpt::service_guid());
}

TEST_F(Params, MaxReqSizeBounds)
{
	struct {
		const char *val;
		int ret;
		const char *after;
	} cases[] = {
		{"996", 0, "996\n"},
		{"995", -ktl::kEINVAL, "996\n"},
		{"65536", 0, "65536\n"},
		{"65537", -ktl::kEINVAL, "65536\n"},
		{"0x3e4", 0, "996\n"},		/* 996 */
		{"0x3e3", -ktl::kEINVAL, "996\n"},
		{"01744", 0, "996\n"},		/* octal 996 */
		{"8192\n", 0, "8192\n"},
		{"0", -ktl::kEINVAL, "8192\n"},
		{"", -ktl::kEINVAL, "8192\n"},
		{"abc", -ktl::kEINVAL, "8192\n"},
		{"4096k", -ktl::kEINVAL, "8192\n"},
		{" 4096", -ktl::kEINVAL, "8192\n"},
		{"-4096", -ktl::kEINVAL, "8192\n"},
		{"99999999999999999999999", -ktl::kEINVAL, "8192\n"},
		{"4294968292", -ktl::kEINVAL, "8192\n"},	/* 2^32 + 996: no truncation */
	};
	for (const auto &c : cases) {
		EXPECT_EQ(c.ret, srpt_core_param_set(SRPT_PARAM_MAX_REQ_SIZE, c.val)) << c.val;
		EXPECT_EQ(c.after, get(SRPT_PARAM_MAX_REQ_SIZE)) << c.val;
	}
	EXPECT_GE(fake::log_count("srp_max_req_size: invalid value", SRPT_LOG_ERR), 9);
}

TEST_F(Params, SrqSizeBounds)
{
	struct {
		const char *val;
		int ret;
		const char *after;
	} cases[] = {
		{"4", 0, "4\n"},
		{"3", -ktl::kEINVAL, "4\n"},
		{"65535", 0, "65535\n"},
		{"65536", -ktl::kEINVAL, "65535\n"},
		{"0xffff", 0, "65535\n"},
		{"0x10000", -ktl::kEINVAL, "65535\n"},
		{"010", 0, "8\n"},
		{"1024\n", 0, "1024\n"},
		{"1024\n\n", -ktl::kEINVAL, "1024\n"},
		{"1e3", -ktl::kEINVAL, "1024\n"},
		{"", -ktl::kEINVAL, "1024\n"},
	};
	for (const auto &c : cases) {
		EXPECT_EQ(c.ret, srpt_core_param_set(SRPT_PARAM_SRQ_SIZE, c.val)) << c.val;
		EXPECT_EQ(c.after, get(SRPT_PARAM_SRQ_SIZE)) << c.val;
	}
	EXPECT_EQ(1024u, srpt::srq_size());
}

TEST_F(Params, ServiceGuidIsHexWithOrWithout0x)
{
	struct {
		const char *val;
		int ret;
		const char *after;
	} cases[] = {
		{"0x0002c903000a1b2c", 0, "0x0002c903000a1b2c\n"},
		{"0002C903000A1B2D", 0, "0x0002c903000a1b2d\n"},
		{"0X1", 0, "0x0000000000000001\n"},
		{"10", 0, "0x0000000000000010\n"},	/* hexadecimal, not decimal */
		{"010", 0, "0x0000000000000010\n"},	/* and not octal */
		{"ffffffffffffffff", 0, "0xffffffffffffffff\n"},
		{"0x10000000000000000", -ktl::kEINVAL, "0xffffffffffffffff\n"},
		{"1ffffffffffffffff", -ktl::kEINVAL, "0xffffffffffffffff\n"},
		{"", -ktl::kEINVAL, "0xffffffffffffffff\n"},
		{"0x", -ktl::kEINVAL, "0xffffffffffffffff\n"},
		{"0xg", -ktl::kEINVAL, "0xffffffffffffffff\n"},
		{"0002:c903:000a:1b2c", -ktl::kEINVAL, "0xffffffffffffffff\n"},
		{"abc\n", 0, "0x0000000000000abc\n"},
	};
	for (const auto &c : cases) {
		EXPECT_EQ(c.ret, srpt_core_param_set(SRPT_PARAM_SERVICE_GUID, c.val)) << c.val;
		EXPECT_EQ(c.after, get(SRPT_PARAM_SERVICE_GUID)) << c.val;
	}
	EXPECT_EQ(0xabcu, srpt::service_guid());
}

TEST_F(Params, AdoptServiceGuidOnlyWhenUnset)
{
	srpt::adopt_service_guid(0x1111);
	EXPECT_EQ(0x1111u, srpt::service_guid());
	srpt::adopt_service_guid(0x2222);
	EXPECT_EQ(0x1111u, srpt::service_guid());
	ASSERT_EQ(0, srpt_core_param_set(SRPT_PARAM_SERVICE_GUID, "0x3333"));
	srpt::adopt_service_guid(0x4444);
	EXPECT_EQ(0x3333u, srpt::service_guid());
}

TEST_F(Params, GetTruncatesToTheBuffer)
{
	char buf[8];

	std::memset(buf, 'x', sizeof(buf));
	EXPECT_EQ(3, srpt_core_param_get(SRPT_PARAM_MAX_REQ_SIZE, buf, 4));
	EXPECT_STREQ("827", buf);
	EXPECT_EQ(0, srpt_core_param_get(SRPT_PARAM_MAX_REQ_SIZE, buf, 1));
	EXPECT_STREQ("", buf);
	std::memset(buf, 'x', sizeof(buf));
	EXPECT_EQ(0, srpt_core_param_get(SRPT_PARAM_MAX_REQ_SIZE, buf, 0));
	EXPECT_EQ('x', buf[0]) << "a zero-sized buffer is not written";
	EXPECT_EQ(5, srpt_core_param_get(SRPT_PARAM_SRQ_SIZE, buf, 6));
	EXPECT_STREQ("4095\n", buf);
}

TEST_F(Params, UnknownParameter)
{
	char buf[16];

	EXPECT_EQ(-ktl::kEINVAL, srpt_core_param_set(SRPT_PARAM_COUNT, "1"));
	EXPECT_EQ(-ktl::kEINVAL, srpt_core_param_set(static_cast<srpt_param>(77), "1"));
	EXPECT_EQ(-ktl::kEINVAL, srpt_core_param_get(SRPT_PARAM_COUNT, buf, sizeof(buf)));
}

TEST_F(Params, ResetRestoresDefaults)
{
	ASSERT_EQ(0, srpt_core_param_set(SRPT_PARAM_MAX_REQ_SIZE, "1000"));
	ASSERT_EQ(0, srpt_core_param_set(SRPT_PARAM_SRQ_SIZE, "100"));
	ASSERT_EQ(0, srpt_core_param_set(SRPT_PARAM_SERVICE_GUID, "1"));
	srpt::reset_params_for_test();
	EXPECT_EQ("8276\n", get(SRPT_PARAM_MAX_REQ_SIZE));
	EXPECT_EQ("4095\n", get(SRPT_PARAM_SRQ_SIZE));
	EXPECT_EQ("0x0000000000000000\n", get(SRPT_PARAM_SERVICE_GUID));
}

TEST_F(Params, RdmaCmPortBounds)
{
	struct {
		const char *val;
		int ret;
		const char *after;
	} cases[] = {
		{"5000", 0, "5000\n"},
		{"65535", 0, "65535\n"},
		{"65536", -ktl::kEINVAL, "65535\n"},
		{"0x50", 0, "80\n"},
		{"0", 0, "0\n"},
		{"-1", -ktl::kEINVAL, "0\n"},
		{"", -ktl::kEINVAL, "0\n"},
		{"port", -ktl::kEINVAL, "0\n"},
		{"4294972296", -ktl::kEINVAL, "0\n"},	/* 2^32 + 5000: no truncation */
	};
	for (const auto &c : cases) {
		EXPECT_EQ(c.ret, srpt_core_param_set(SRPT_PARAM_RDMA_CM_PORT, c.val)) << c.val;
		EXPECT_EQ(c.after, get(SRPT_PARAM_RDMA_CM_PORT)) << c.val;
	}
	EXPECT_EQ(5, fake::log_count("rdma_cm_port: invalid value", SRPT_LOG_ERR));
	EXPECT_TRUE(fake::listen_calls().empty()) << "setting the parameter listens on nothing by itself";
}

/* srpt_core_start(): the listener the parameter asks for, as the configfs file shows it. */
TEST_F(Params, StartListensOnTheParametersPort)
{
	char buf[16];

	srpt_core_start();
	EXPECT_TRUE(fake::listen_calls().empty()) << "rdma_cm_port 0: no listener";

	ASSERT_EQ(0, srpt_core_param_set(SRPT_PARAM_RDMA_CM_PORT, "5555"));
	srpt_core_start();
	EXPECT_EQ(5555, fake::listening_port());
	ASSERT_GT(srpt_core_rdma_cm_port_show(buf, sizeof(buf)), 0);
	EXPECT_STREQ("5555\n", buf);
	EXPECT_EQ(1, fake::log_count("RDMA/CM: listening for logins on port 5555", SRPT_LOG_INFO));
	/* configfs moves it later; the parameter keeps saying what the load asked for. */
	EXPECT_EQ(5, srpt_core_rdma_cm_port_store("6000\n", 5));
	EXPECT_EQ(6000, fake::listening_port());
	EXPECT_EQ("5555\n", get(SRPT_PARAM_RDMA_CM_PORT));
}

/*
 * discovery_auth/rdma_cm_port is there once LIO has the fabric, before
 * srpt_core_start(): a port written meanwhile is the administrator's.
 */
TEST_F(Params, StartKeepsAPortWrittenDuringTheLoad)
{
	ASSERT_EQ(0, srpt_core_param_set(SRPT_PARAM_RDMA_CM_PORT, "5555"));
	ASSERT_EQ(5, srpt_core_rdma_cm_port_store("6000\n", 5));
	srpt_core_start();
	EXPECT_EQ(6000, fake::listening_port());
	EXPECT_EQ((std::vector<std::uint16_t>{6000}), fake::listen_calls());
	EXPECT_EQ(1, fake::log_count("rdma_cm_port=5555 not applied: discovery_auth/rdma_cm_port "
				     "was written during the load (now 6000)",
				     SRPT_LOG_INFO))
		<< fake::log_text();
}

/* A write during the load that failed wins too, and the parameter is not lost unsaid. */
TEST_F(Params, StartSaysWhenAFailedWriteDuringTheLoadLeftNoListener)
{
	ASSERT_EQ(0, srpt_core_param_set(SRPT_PARAM_RDMA_CM_PORT, "5555"));
	fake::config().listen_error = -EADDRINUSE;
	EXPECT_EQ(-EADDRINUSE, srpt_core_rdma_cm_port_store("6000\n", 5));
	fake::config().listen_error = 0;
	srpt_core_start();
	EXPECT_EQ(0, fake::listening_port());
	EXPECT_EQ((std::vector<std::uint16_t>{6000}), fake::listen_calls());
	EXPECT_EQ(1, fake::log_count("rdma_cm_port=5555 not applied: discovery_auth/rdma_cm_port "
				     "was written during the load (now 0)",
				     SRPT_LOG_INFO))
		<< fake::log_text();
}

/* The parameter's own port written during the load: nothing to say. */
TEST_F(Params, StartIsQuietWhenTheLoadsWriteWasTheParametersPort)
{
	ASSERT_EQ(0, srpt_core_param_set(SRPT_PARAM_RDMA_CM_PORT, "5555"));
	ASSERT_EQ(5, srpt_core_rdma_cm_port_store("5555\n", 5));
	srpt_core_start();
	EXPECT_EQ(5555, fake::listening_port());
	EXPECT_EQ(0, fake::log_count("not applied")) << fake::log_text();
}

/*
 * A taken port does not fail the load (at boot that would lose the whole
 * configuration targetctl restores): the module loads without the
 * listener, says how to add it, and the configfs file shows none.
 */
TEST_F(Params, StartLoadsWithoutTheListenerWhenThePortIsTaken)
{
	ASSERT_EQ(0, srpt_core_param_set(SRPT_PARAM_RDMA_CM_PORT, "5555"));
	fake::config().listen_error = -EADDRINUSE;
	srpt_core_start();
	EXPECT_EQ(1, fake::log_count("rdma_cm_port: listening on port 5555 failed (-EADDRINUSE)", SRPT_LOG_ERR));
	EXPECT_EQ(1, fake::log_count("rdma_cm_port: loaded without an RDMA/CM listener; once port 5555 "
				     "is free, write it to discovery_auth/rdma_cm_port",
				     SRPT_LOG_ERR));
	char buf[16];
	ASSERT_GT(srpt_core_rdma_cm_port_show(buf, sizeof(buf)), 0);
	EXPECT_STREQ("0\n", buf);
	EXPECT_EQ(0, fake::listening_port());
	/* Once free, the administrator's write listens. */
	fake::config().listen_error = 0;
	EXPECT_EQ(5, srpt_core_rdma_cm_port_store("5555\n", 5));
	EXPECT_EQ(5555, fake::listening_port());
}
