// SPDX-License-Identifier: GPL-2.0-only
/*
 * Port lookup and its references (the documented srpt_lookup_port
 * contract), and the LIO objects: target ports, TPGs, configfs
 * attributes, rdma_cm_port, version.
 */
#include "fixture.h"

#include <srpt/target.h>
#include <srpt/live.h>

#include <cctype>
#include <cerrno>
#include <string>

namespace {

std::string upper(std::string s)
{
	for (char &c : s)
		c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
	return s;
}

std::string show(srpt_tpg *tpg, srpt_tpg_attrib a)
{
	char page[4096];
	std::memset(page, 'x', sizeof(page));
	const srpt_ssize_t n = srpt_core_tpg_attrib_show(tpg, a, page, sizeof(page));
	EXPECT_GT(n, 0);
	if (n <= 0)
		return "<error " + std::to_string(n) + ">";
	EXPECT_EQ(static_cast<std::size_t>(n), std::strlen(page));
	return std::string(page, static_cast<std::size_t>(n));
}

srpt_ssize_t store(srpt_tpg *tpg, srpt_tpg_attrib a, const std::string &v)
{
	return srpt_core_tpg_attrib_store(tpg, a, v.c_str(), v.size());
}

std::string cm_port()
{
	char page[64];
	const srpt_ssize_t n = srpt_core_rdma_cm_port_show(page, sizeof(page));
	return n > 0 ? std::string(page, static_cast<std::size_t>(n)) : "<error>";
}

srpt_ssize_t cm_store(const std::string &v)
{
	return srpt_core_rdma_cm_port_store(v.c_str(), v.size());
}

} // namespace

/* ---- srpt_lookup_port / srpt_port_put_ref ---- */

using Lookup = CoreTest;

TEST_F(Lookup, EveryNameFormTakesOneReference)
{
	fake::Device &d = add_device("mlx5_0", 2, 0x0002c90300a1b2c0ull);
	srpt::RdmaPort *p = port_of(d, 2);
	const int base = refs(p);
	EXPECT_EQ(1, base) << "the device's own reference";

	const struct {
		std::string name;
		srpt_port_id_kind kind;
	} names[] = {
		{fake::guid_name(d, 2), SRPT_PORT_ID_GUID},
		{fake::gid_name(d, 2), SRPT_PORT_ID_GID},
		{upper(fake::guid_name(d, 2)), SRPT_PORT_ID_GUID},
		{upper(fake::gid_name(d, 2)), SRPT_PORT_ID_GID},	/* "0X..." */
		{"0x" + upper(fake::gid_name(d, 2).substr(2)), SRPT_PORT_ID_GID},
	};
	std::vector<srpt_port *> got;
	for (const auto &n : names) {
		port_and_port_id r = srpt_lookup_port(n.name.c_str());
		ASSERT_EQ(srpt::to_handle<srpt_port>(p), r.sport) << n.name;
		EXPECT_EQ(n.kind, r.port_id) << n.name;
		got.push_back(r.sport);
		EXPECT_EQ(base + static_cast<int>(got.size()), refs(p)) << n.name;
	}
	for (srpt_port *sp : got)
		srpt_port_put_ref(sp);
	EXPECT_EQ(base, refs(p));
	srpt_port_put_ref(nullptr);
	EXPECT_EQ(base, refs(p));
}

TEST_F(Lookup, UnknownAndMalformedNamesFindNothing)
{
	fake::Device &d = add_device("mlx5_0", 1, 0x0002c90300a1b2c0ull);
	std::string other_prefix = fake::gid_name(d, 1);
	other_prefix[2] = '2';	/* 0x2e80...: same interface id, other prefix */
	const std::string names[] = {
		"", "mlx5_0", "1", "0002:c903:00a1:b2c2", "0002:c903:00a1:b2c1 ",
		other_prefix, "0xfe800000000000000002c90300a1b2c", "fe80::2:c903:a1:b2c1",
		"0002:c903:00a1:b2c1\n",
	};
	for (const std::string &n : names) {
		port_and_port_id r = srpt_lookup_port(n.c_str());
		EXPECT_EQ(nullptr, r.sport) << '"' << n << '"';
		EXPECT_EQ(SRPT_PORT_ID_NONE, r.port_id) << '"' << n << '"';
	}
	EXPECT_EQ(1, refs(port_of(d, 1)));
	/* The GUID form ignores the prefix. */
	std::string guid = fake::guid_name(d, 1);
	port_and_port_id r = srpt_lookup_port(guid.c_str());
	EXPECT_NE(nullptr, r.sport);
	srpt_port_put_ref(r.sport);
}

TEST_F(Lookup, AReferenceOutlivesTheDevice)
{
	fake::Device &d = add_device("mlx5_0", 2, 0x0002c90300a1b2c0ull);
	port_and_port_id r = srpt_lookup_port(fake::guid_name(d, 1).c_str());
	ASSERT_NE(nullptr, r.sport);
	EXPECT_EQ(2, srpt::live_count(srpt::Live::kPort));
	remove_device(d);
	EXPECT_EQ(1, srpt::live_count(srpt::Live::kPort)) << "the referenced port stays allocated";
	EXPECT_EQ(1, refs(r.sport));
	EXPECT_EQ(nullptr, srpt::from_handle<srpt::RdmaPort>(r.sport)->device()) << "but detached";
	srpt_port_put_ref(r.sport);
	EXPECT_EQ(0, srpt::live_count(srpt::Live::kPort));
}

/* ---- Target ports ---- */

using Tports = CoreTest;

TEST_F(Tports, BothNameFormsOnOnePort)
{
	fake::Device &d = add_device("mlx5_0", 1, 0x0002c90300a1b2c0ull);
	srpt::RdmaPort *p = port_of(d, 1);

	srpt_tport *g = create_tport(fake::guid_name(d, 1));
	ASSERT_NE(nullptr, g);
	srpt_tport *x = create_tport(fake::gid_name(d, 1));
	ASSERT_NE(nullptr, x);
	EXPECT_EQ(fake::guid_name(d, 1), srpt_core_tport_name(g));
	EXPECT_EQ(fake::gid_name(d, 1), srpt_core_tport_name(x));
	EXPECT_EQ(3, refs(p)) << "each target port holds one reference";
	EXPECT_EQ(2, srpt::live_count(srpt::Live::kTPort));
	EXPECT_EQ(1, fake::log_count("mlx5_0 port 1: created target port " + fake::guid_name(d, 1)));
	/* Only the GUID form is one rtslib cannot read: the administrator is told. */
	EXPECT_EQ(1, fake::log_count("target port " + fake::guid_name(d, 1) +
				     ": targetcli and rtslib cannot read this name", SRPT_LOG_WARN));
	EXPECT_EQ(1, fake::log_count("cannot read this name"));

	destroy_tport(g);
	EXPECT_EQ(2, refs(p));
	destroy_tport(x);
	EXPECT_EQ(1, refs(p));
	EXPECT_EQ(1, fake::log_count("mlx5_0 port 1: removed target port " + fake::gid_name(d, 1)));
}

TEST_F(Tports, UpperCaseNamesAreCanonicalised)
{
	fake::Device &d = add_device("mlx5_0", 1, 0x0002c90300a1b2c0ull);
	srpt_tport *g = create_tport(upper(fake::guid_name(d, 1)));
	ASSERT_NE(nullptr, g);
	EXPECT_EQ(fake::guid_name(d, 1), srpt_core_tport_name(g));
	srpt_tport *x = create_tport(upper(fake::gid_name(d, 1)));
	ASSERT_NE(nullptr, x);
	EXPECT_EQ(fake::gid_name(d, 1), srpt_core_tport_name(x));
}

TEST_F(Tports, SameFormTwiceIsEEXISTAndLeavesNothing)
{
	fake::Device &d = add_device("mlx5_0", 1, 0x0002c90300a1b2c0ull);
	srpt::RdmaPort *p = port_of(d, 1);
	srpt_tport *g = create_tport(fake::guid_name(d, 1));
	ASSERT_NE(nullptr, g);
	const long allocs = fake::live_allocs();

	for (const std::string &n : {fake::guid_name(d, 1), upper(fake::guid_name(d, 1))}) {
		int err = 0;
		EXPECT_EQ(nullptr, create_tport(n, &err)) << n;
		EXPECT_EQ(-ktl::kEEXIST, err) << n;
	}
	EXPECT_EQ(2, refs(p));
	EXPECT_EQ(1, srpt::live_count(srpt::Live::kTPort));
	EXPECT_EQ(allocs, fake::live_allocs());
	EXPECT_EQ(2, fake::log_count("target port " + fake::guid_name(d, 1) + " already exists",
				     SRPT_LOG_ERR));

	/* The GID form is a different target port of the same RDMA port. */
	srpt_tport *x = create_tport(fake::gid_name(d, 1));
	ASSERT_NE(nullptr, x);
	int err = 0;
	EXPECT_EQ(nullptr, create_tport(fake::gid_name(d, 1), &err));
	EXPECT_EQ(-ktl::kEEXIST, err);

	/* Once the first is gone, the name is free again. */
	destroy_tport(g);
	g = create_tport(fake::guid_name(d, 1));
	EXPECT_NE(nullptr, g);
}

TEST_F(Tports, BadNamesAreEINVALAndCreateNothing)
{
	fake::Device &d = add_device("mlx5_0", 1, 0x0002c90300a1b2c0ull);
	std::string other_prefix = fake::gid_name(d, 1);
	other_prefix[3] = 'f';
	const std::string names[] = {
		"", "foo", "mlx5_0", "0002:c903:00a1:b2c2", other_prefix, "0002:c903:00a1:b2c1x",
		"0xfe80000000000000:002c90300a1b2c1", "192.168.1.1", std::string(300, 'a'),
	};
	for (const std::string &n : names) {
		srpt_tport *out = reinterpret_cast<srpt_tport *>(0x1);
		EXPECT_EQ(-ktl::kEINVAL, srpt_core_tport_create(n.c_str(), nullptr, &out)) << n;
		EXPECT_EQ(reinterpret_cast<srpt_tport *>(0x1), out) << "*out written: " << n;
	}
	EXPECT_EQ(0, srpt::live_count(srpt::Live::kTPort));
	EXPECT_EQ(1, refs(port_of(d, 1)));
	EXPECT_EQ(9, fake::log_count("no RDMA port is named", SRPT_LOG_ERR));
	/* A hostile name is cut in the log. */
	EXPECT_EQ(0, fake::log_count(std::string(65, 'a')));
}

TEST_F(Tports, AllocationFailure)
{
	fake::Device &d = add_device("mlx5_0", 1, 0x0002c90300a1b2c0ull);
	fake::fail_alloc(1);
	int err = 0;
	EXPECT_EQ(nullptr, create_tport(fake::guid_name(d, 1), &err));
	EXPECT_EQ(-ktl::kENOMEM, err);
	EXPECT_EQ(1, refs(port_of(d, 1)));
	EXPECT_EQ(0, srpt::live_count(srpt::Live::kTPort));
}

TEST_F(Tports, DeviceRemovalDetachesThePortTheTportHolds)
{
	fake::Device &d = add_device("mlx5_0", 2, 0x0002c90300a1b2c0ull);
	const std::string name = fake::guid_name(d, 1);
	srpt_tport *t = create_tport(name);
	ASSERT_NE(nullptr, t);
	srpt::RdmaPort *p = port_of(d, 1);

	remove_device(d);
	EXPECT_EQ(1, srpt::live_count(srpt::Live::kPort)) << "port 1 alive, port 2 freed";
	EXPECT_EQ(1, refs(p));
	EXPECT_EQ(nullptr, p->device());
	EXPECT_FALSE(p->mad_registered());
	EXPECT_EQ(name, srpt_core_tport_name(t));
	EXPECT_EQ(nullptr, srpt_lookup_port(name.c_str()).sport);
	EXPECT_EQ(nullptr, srpt_lookup_port(fake::gid_name(d, 1).c_str()).sport);
	int err = 0;
	EXPECT_EQ(nullptr, create_tport(fake::gid_name(d, 1), &err));
	EXPECT_EQ(-ktl::kEINVAL, err);

	destroy_tport(t);
	EXPECT_EQ(0, srpt::live_count(srpt::Live::kPort)) << "the last reference frees the port";
}

TEST_F(Tports, ADeviceAddedAgainGetsNewPorts)
{
	fake::Device &d = add_device("rxe0", 1, 0x5054000000000000ull);
	const std::string name = fake::gid_name(d, 1);
	srpt_tport *old = create_tport(name);
	ASSERT_NE(nullptr, old);
	remove_device(d);
	ASSERT_EQ(0, fake::add(d));
	/* The old target port keeps the detached port; the name is free on the new one. */
	srpt_tport *fresh = create_tport(name);
	ASSERT_NE(nullptr, fresh);
	EXPECT_EQ(2, srpt::live_count(srpt::Live::kPort));
	destroy_tport(old);
	destroy_tport(fresh);
}

/* ---- TPGs ---- */

using Tpgs = CoreTest;

TEST_F(Tpgs, EnableDisableDestroy)
{
	fake::Device &d = add_device("mlx5_0", 1, 0x0002c90300a1b2c0ull);
	srpt::RdmaPort *p = port_of(d, 1);
	srpt_tport *t = create_tport(fake::guid_name(d, 1));
	ASSERT_NE(nullptr, t);
	srpt_tpg *tpg = create_tpg(t);
	ASSERT_NE(nullptr, tpg);

	EXPECT_FALSE(p->logins().enabled());
	EXPECT_EQ(0, srpt_core_tpg_enable(tpg, 1));
	EXPECT_TRUE(p->logins().enabled());
	EXPECT_EQ(0, srpt_core_tpg_enable(tpg, 1)) << "enabling twice is fine";
	EXPECT_EQ(0, srpt_core_tpg_enable(tpg, 0));
	EXPECT_FALSE(p->logins().enabled()) << "counted once";
	EXPECT_EQ(0, srpt_core_tpg_enable(tpg, 0));
	EXPECT_FALSE(p->logins().enabled());
	EXPECT_EQ(0, srpt_core_tpg_enable(tpg, 42));
	EXPECT_TRUE(p->logins().enabled()) << "any non-zero value enables";
	EXPECT_EQ(1, fake::log_count("target port " + fake::guid_name(d, 1) + " disabled"));
	EXPECT_EQ(2, fake::log_count("target port " + fake::guid_name(d, 1) + " enabled"));

	destroy_tpg(tpg);
	EXPECT_FALSE(p->logins().enabled()) << "destroying an enabled TPG disables it";
	destroy_tport(t);
}

TEST_F(Tpgs, PortIsEnabledWhileAnyTpgIs)
{
	fake::Device &d = add_device("mlx5_0", 1, 0x0002c90300a1b2c0ull);
	srpt::RdmaPort *p = port_of(d, 1);
	srpt_tport *g = create_tport(fake::guid_name(d, 1));
	srpt_tport *x = create_tport(fake::gid_name(d, 1));
	ASSERT_TRUE(g && x);
	srpt_tpg *a = create_tpg(g);
	srpt_tpg *b = create_tpg(x);
	srpt_tpg *c = create_tpg(x);
	ASSERT_TRUE(a && b && c);

	EXPECT_EQ(0, srpt_core_tpg_enable(a, 1));
	EXPECT_EQ(0, srpt_core_tpg_enable(b, 1));
	EXPECT_EQ(0, srpt_core_tpg_enable(c, 1));
	EXPECT_EQ(0, srpt_core_tpg_enable(a, 0));
	EXPECT_TRUE(p->logins().enabled());
	destroy_tpg(b);
	EXPECT_TRUE(p->logins().enabled());
	EXPECT_EQ(0, srpt_core_tpg_enable(c, 0));
	EXPECT_FALSE(p->logins().enabled());
}

TEST_F(Tpgs, EnableAfterDeviceRemovalWarnsButSucceeds)
{
	fake::Device &d = add_device("mlx5_0", 1, 0x0002c90300a1b2c0ull);
	srpt_tport *t = create_tport(fake::guid_name(d, 1));
	ASSERT_NE(nullptr, t);
	srpt_tpg *on = create_tpg(t);
	srpt_tpg *off = create_tpg(t);
	ASSERT_TRUE(on && off);
	ASSERT_EQ(0, srpt_core_tpg_enable(on, 1));
	srpt::RdmaPort *p = port_of(d, 1);

	remove_device(d);
	/* targetcli enables every TPG it shows: an orphan must not fail it. */
	EXPECT_EQ(0, srpt_core_tpg_enable(off, 1));
	EXPECT_EQ(1, fake::log_count(fake::guid_name(d, 1) +
				     " enabled, but its RDMA device is gone: no initiator can log in to it",
				     SRPT_LOG_WARN));
	EXPECT_EQ(0, srpt_core_tpg_enable(off, 0));
	EXPECT_EQ(0, srpt_core_tpg_enable(on, 0)) << "disabling still works";
	EXPECT_FALSE(p->logins().enabled());
	/* Attributes still read and write. */
	EXPECT_EQ("65536\n", show(on, SRPT_ATTRIB_MAX_RDMA_SIZE));
	EXPECT_EQ(6, store(on, SRPT_ATTRIB_MAX_RDMA_SIZE, "131072"));
}

TEST_F(Tpgs, AllocationFailure)
{
	fake::Device &d = add_device("mlx5_0", 1, 0x0002c90300a1b2c0ull);
	srpt_tport *t = create_tport(fake::guid_name(d, 1));
	ASSERT_NE(nullptr, t);
	fake::fail_alloc(1);
	int err = 0;
	EXPECT_EQ(nullptr, create_tpg(t, &err));
	EXPECT_EQ(-ktl::kENOMEM, err);
	/* The target port is intact: a TPG can still be made and destroyed. */
	srpt_tpg *tpg = create_tpg(t);
	ASSERT_NE(nullptr, tpg);
}

/* ---- TPG attributes ---- */

class Attribs : public CoreTest {
protected:
	void SetUp() override
	{
		CoreTest::SetUp();
		d_ = &add_device("mlx5_0", 2, 0x0002c90300a1b2c0ull);
		t_ = create_tport(fake::guid_name(*d_, 1));
		ASSERT_NE(nullptr, t_);
		tpg_ = create_tpg(t_);
		ASSERT_NE(nullptr, tpg_);
	}

	fake::Device *d_ = nullptr;
	srpt_tport *t_ = nullptr;
	srpt_tpg *tpg_ = nullptr;
};

TEST_F(Attribs, Defaults)
{
	EXPECT_EQ("65536\n", show(tpg_, SRPT_ATTRIB_MAX_RDMA_SIZE));
	EXPECT_EQ("256\n", show(tpg_, SRPT_ATTRIB_MAX_RSP_SIZE));
	EXPECT_EQ("4096\n", show(tpg_, SRPT_ATTRIB_SQ_SIZE));
	EXPECT_EQ("0\n", show(tpg_, SRPT_ATTRIB_USE_SRQ));
}

TEST_F(Attribs, RangesAndForms)
{
	const struct {
		srpt_tpg_attrib a;
		std::string value;
		bool ok;
		const char *after;
	} cases[] = {
		{SRPT_ATTRIB_MAX_RDMA_SIZE, "65536", true, "65536\n"},
		{SRPT_ATTRIB_MAX_RDMA_SIZE, "65535", false, "65536\n"},
		{SRPT_ATTRIB_MAX_RDMA_SIZE, "16777216", true, "16777216\n"},
		{SRPT_ATTRIB_MAX_RDMA_SIZE, "16777217", false, "16777216\n"},
		{SRPT_ATTRIB_MAX_RDMA_SIZE, "0x20000\n", true, "131072\n"},
		{SRPT_ATTRIB_MAX_RDMA_SIZE, "0400000", true, "131072\n"},	/* octal */
		{SRPT_ATTRIB_MAX_RDMA_SIZE, "4294967296", false, "131072\n"},
		{SRPT_ATTRIB_MAX_RSP_SIZE, "40", true, "40\n"},
		{SRPT_ATTRIB_MAX_RSP_SIZE, "39", false, "40\n"},
		{SRPT_ATTRIB_MAX_RSP_SIZE, "1024\n", true, "1024\n"},
		{SRPT_ATTRIB_MAX_RSP_SIZE, "1025", false, "1024\n"},
		{SRPT_ATTRIB_MAX_RSP_SIZE, "0x100", true, "256\n"},
		{SRPT_ATTRIB_SQ_SIZE, "4", true, "4\n"},
		{SRPT_ATTRIB_SQ_SIZE, "3", false, "4\n"},
		{SRPT_ATTRIB_SQ_SIZE, "65535", true, "65535\n"},
		{SRPT_ATTRIB_SQ_SIZE, "65536", false, "65535\n"},
		{SRPT_ATTRIB_SQ_SIZE, "0", false, "65535\n"},
		{SRPT_ATTRIB_SQ_SIZE, "010\n", true, "8\n"},
		{SRPT_ATTRIB_USE_SRQ, "1", true, "1\n"},
		{SRPT_ATTRIB_USE_SRQ, "2", false, "1\n"},
		{SRPT_ATTRIB_USE_SRQ, "0\n", true, "0\n"},
		{SRPT_ATTRIB_USE_SRQ, "0x1", true, "1\n"},
		{SRPT_ATTRIB_USE_SRQ, "00", true, "0\n"},
		{SRPT_ATTRIB_USE_SRQ, "true", false, "0\n"},
		{SRPT_ATTRIB_USE_SRQ, "-1", false, "0\n"},
		/* Bad strings for each. */
		{SRPT_ATTRIB_MAX_RDMA_SIZE, "", false, "131072\n"},
		{SRPT_ATTRIB_MAX_RDMA_SIZE, "\n", false, "131072\n"},
		{SRPT_ATTRIB_MAX_RDMA_SIZE, "1M", false, "131072\n"},
		{SRPT_ATTRIB_MAX_RDMA_SIZE, " 65536", false, "131072\n"},
		{SRPT_ATTRIB_MAX_RDMA_SIZE, "65536 ", false, "131072\n"},
		{SRPT_ATTRIB_MAX_RDMA_SIZE, "65536\n\n", false, "131072\n"},
		{SRPT_ATTRIB_MAX_RDMA_SIZE, "0x", false, "131072\n"},
		{SRPT_ATTRIB_MAX_RSP_SIZE, "0x1g", false, "256\n"},
		{SRPT_ATTRIB_MAX_RSP_SIZE, "099", false, "256\n"},
		{SRPT_ATTRIB_SQ_SIZE, "4096.0", false, "8\n"},
		{SRPT_ATTRIB_SQ_SIZE, "+4096", false, "8\n"},
	};
	for (const auto &c : cases) {
		const srpt_ssize_t ret = store(tpg_, c.a, c.value);
		if (c.ok) {
			EXPECT_EQ(static_cast<srpt_ssize_t>(c.value.size()), ret)
				<< "attribute " << c.a << " '" << c.value << "'";
		} else {
			EXPECT_EQ(-ktl::kEINVAL, ret) << "attribute " << c.a << " '" << c.value << "'";
		}
		EXPECT_EQ(c.after, show(tpg_, c.a)) << "attribute " << c.a << " '" << c.value << "'";
	}
	EXPECT_EQ(1, fake::log_count("srp_sq_size: invalid value '3': must be 4..65535", SRPT_LOG_ERR));
}

TEST_F(Attribs, StoreReadsOnlyCountBytes)
{
	const char page[] = "1024999";
	EXPECT_EQ(4, srpt_core_tpg_attrib_store(tpg_, SRPT_ATTRIB_MAX_RSP_SIZE, page, 4));
	EXPECT_EQ("1024\n", show(tpg_, SRPT_ATTRIB_MAX_RSP_SIZE));
	EXPECT_EQ(-ktl::kEINVAL, srpt_core_tpg_attrib_store(tpg_, SRPT_ATTRIB_MAX_RSP_SIZE, page, 0));
}

TEST_F(Attribs, AttributesBelongToThePort)
{
	/* The GID-form target port of the same port shares them ... */
	srpt_tport *x = create_tport(fake::gid_name(*d_, 1));
	ASSERT_NE(nullptr, x);
	srpt_tpg *xt = create_tpg(x);
	ASSERT_NE(nullptr, xt);
	ASSERT_EQ(3, store(tpg_, SRPT_ATTRIB_MAX_RSP_SIZE, "512"));
	EXPECT_EQ("512\n", show(xt, SRPT_ATTRIB_MAX_RSP_SIZE));
	ASSERT_EQ(1, store(xt, SRPT_ATTRIB_USE_SRQ, "1"));
	EXPECT_EQ("1\n", show(tpg_, SRPT_ATTRIB_USE_SRQ));

	/* ... the other port has its own. */
	srpt_tport *o = create_tport(fake::guid_name(*d_, 2));
	ASSERT_NE(nullptr, o);
	srpt_tpg *ot = create_tpg(o);
	ASSERT_NE(nullptr, ot);
	EXPECT_EQ("256\n", show(ot, SRPT_ATTRIB_MAX_RSP_SIZE));
	EXPECT_EQ("0\n", show(ot, SRPT_ATTRIB_USE_SRQ));
	EXPECT_EQ(512u, port_of(*d_, 1)->targets().attrib().srp_max_rsp_size);
	EXPECT_TRUE(port_of(*d_, 1)->targets().attrib().use_srq);
}

TEST_F(Attribs, ConcurrentStoresOfDifferentAttributesKeepBoth)
{
	/*
	 * configfs serialises writes per open file only: two attributes of the
	 * same port may be stored at once. Run the second store right after the
	 * first one's first mutex release, as another CPU could.
	 */
	bool ran = false;
	fake::set_mutex_unlock_hook([&]() {
		ran = true;
		EXPECT_EQ(5, store(tpg_, SRPT_ATTRIB_SQ_SIZE, "1000\n"));
		return false;
	});
	EXPECT_EQ(7, store(tpg_, SRPT_ATTRIB_MAX_RDMA_SIZE, "1048576"));
	ASSERT_TRUE(ran);
	EXPECT_EQ("1048576\n", show(tpg_, SRPT_ATTRIB_MAX_RDMA_SIZE));
	EXPECT_EQ("1000\n", show(tpg_, SRPT_ATTRIB_SQ_SIZE)) << "the concurrent store was lost";
}

TEST_F(Attribs, UseSrqSwitchKeepsAStoreMadeMeanwhile)
{
	/*
	 * Switching use_srq logs the initiators out and builds the SRQ, which
	 * takes a while; a store of another attribute meanwhile must survive.
	 */
	bool ran = false;
	fake::set_mutex_unlock_hook([&]() {
		ran = true;
		EXPECT_EQ(3, store(tpg_, SRPT_ATTRIB_MAX_RSP_SIZE, "512"));
		return false;
	});
	EXPECT_EQ(1, store(tpg_, SRPT_ATTRIB_USE_SRQ, "1"));
	ASSERT_TRUE(ran);
	EXPECT_EQ("1\n", show(tpg_, SRPT_ATTRIB_USE_SRQ));
	EXPECT_EQ("512\n", show(tpg_, SRPT_ATTRIB_MAX_RSP_SIZE)) << "the concurrent store was lost";
	EXPECT_TRUE(d_->srq);
	EXPECT_EQ(1, store(tpg_, SRPT_ATTRIB_USE_SRQ, "0"));
	EXPECT_FALSE(d_->srq);
	EXPECT_EQ(0u, fake::live_recvs());
}

TEST_F(Attribs, ShowTruncatesToThePage)
{
	char page[8];
	std::memset(page, 'x', sizeof(page));
	EXPECT_EQ(2, srpt_core_tpg_attrib_show(tpg_, SRPT_ATTRIB_MAX_RDMA_SIZE, page, 3));
	EXPECT_STREQ("65", page);
	std::memset(page, 'x', sizeof(page));
	EXPECT_EQ(0, srpt_core_tpg_attrib_show(tpg_, SRPT_ATTRIB_MAX_RDMA_SIZE, page, 0));
	EXPECT_EQ('x', page[0]);
}

TEST_F(Attribs, UnknownAttribute)
{
	char page[16];
	for (int a : {-1, 4, 100}) {
		const auto attr = static_cast<srpt_tpg_attrib>(a);
		EXPECT_EQ(-ktl::kEINVAL, srpt_core_tpg_attrib_show(tpg_, attr, page, sizeof(page)));
		EXPECT_EQ(-ktl::kEINVAL, srpt_core_tpg_attrib_store(tpg_, attr, "1", 1));
	}
}

/* ---- rdma_cm_port and version ---- */

using Configfs = CoreTest;

TEST_F(Configfs, RdmaCmPort)
{
	EXPECT_EQ("0\n", cm_port());
	EXPECT_EQ(5, cm_store("5000\n"));
	EXPECT_EQ("5000\n", cm_port());
	EXPECT_EQ(5000, fake::listening_port());
	EXPECT_EQ(4, cm_store("5000")) << "the same port again";
	EXPECT_EQ(1u, fake::listen_calls().size()) << "no second listener for the same port";
	EXPECT_EQ(5, cm_store("65535"));
	EXPECT_EQ("65535\n", cm_port());
	EXPECT_EQ(4, cm_store("0x50"));
	EXPECT_EQ("80\n", cm_port());
	EXPECT_EQ(3, cm_store("010"));
	EXPECT_EQ("8\n", cm_port());
	EXPECT_EQ(1, cm_store("0"));
	EXPECT_EQ("0\n", cm_port());
	EXPECT_EQ(0, fake::listening_port());
	EXPECT_EQ((std::vector<std::uint16_t>{5000, 65535, 80, 8, 0}), fake::listen_calls());
	EXPECT_EQ(1, fake::log_count("RDMA/CM: listening for logins on port 5000", SRPT_LOG_INFO));
	EXPECT_EQ(1, fake::log_count("RDMA/CM: no longer listening for logins", SRPT_LOG_INFO));
}

/* One listener per family on the same port; each closed with port 0. */
TEST_F(Configfs, RdmaCmListensForIpv4AndIpv6)
{
	EXPECT_EQ(5, cm_store("5000\n"));
	EXPECT_EQ(5000, fake::listening_port());
	EXPECT_EQ(5000, fake::listening6_port());
	EXPECT_EQ(1, cm_store("0"));
	EXPECT_EQ(0, fake::listening_port());
	EXPECT_EQ(0, fake::listening6_port());
	EXPECT_EQ((std::vector<std::uint16_t>{5000, 0}), fake::listen6_calls());
}

/*
 * IPv6 that cannot listen (ipv6.disable=1, 5.10's soft-iWARP) leaves IPv4
 * logins: the port is taken, said once, and the old port's IPv6 listener
 * does not stay beside the new IPv4 one.
 */
TEST_F(Configfs, RdmaCmIpv6FailureListensForIpv4Only)
{
	ASSERT_EQ(4, cm_store("1234"));
	ASSERT_EQ(1234, fake::listening6_port());
	fake::config().listen6_error = -EADDRINUSE;
	EXPECT_EQ(4, cm_store("4321"));
	EXPECT_EQ("4321\n", cm_port());
	EXPECT_EQ(4321, fake::listening_port());
	EXPECT_EQ(0, fake::listening6_port());
	EXPECT_EQ(1, fake::log_count("RDMA/CM: port 4321 takes IPv4 logins only: listening for IPv6 "
				     "failed (-EADDRINUSE)",
				     SRPT_LOG_INFO));
	EXPECT_EQ(1, fake::log_count("RDMA/CM: listening for logins on port 4321", SRPT_LOG_INFO));
}

/* The same port again retries IPv6 alone, once it can listen. */
TEST_F(Configfs, RdmaCmSamePortRetriesIpv6)
{
	fake::config().listen6_error = -EAFNOSUPPORT;
	ASSERT_EQ(4, cm_store("4321"));
	ASSERT_EQ(0, fake::listening6_port());
	EXPECT_EQ(4, cm_store("4321")) << "IPv6 still cannot listen: the port stays";
	EXPECT_EQ(0, fake::listening6_port());
	fake::config().listen6_error = 0;
	EXPECT_EQ(4, cm_store("4321"));
	EXPECT_EQ(4321, fake::listening6_port());
	EXPECT_EQ((std::vector<std::uint16_t>{4321}), fake::listen_calls()) << "IPv4 listened once";
	EXPECT_EQ(1, fake::log_count("RDMA/CM: port 4321 takes IPv6 logins too", SRPT_LOG_INFO));
	const std::size_t calls = fake::listen6_calls().size();
	EXPECT_EQ(4, cm_store("4321"));
	EXPECT_EQ(calls, fake::listen6_calls().size()) << "both listening: nothing to retry";
}

/* Without IPv4 the port is not taken: both families keep what they had. */
TEST_F(Configfs, RdmaCmIpv4FailureKeepsBothListeners)
{
	ASSERT_EQ(4, cm_store("1234"));
	fake::config().listen_error = -EADDRINUSE;
	EXPECT_EQ(-EADDRINUSE, cm_store("4321"));
	EXPECT_EQ(1234, fake::listening_port());
	EXPECT_EQ(1234, fake::listening6_port());
	EXPECT_EQ((std::vector<std::uint16_t>{1234}), fake::listen6_calls());
}

TEST_F(Configfs, RdmaCmPortRejectsBadValues)
{
	ASSERT_EQ(4, cm_store("1234"));
	for (const std::string v : {"65536", "-1", "", "\n", "port", "12 34", "0x10000", "99999999999999999999"}) {
		EXPECT_EQ(-ktl::kEINVAL, cm_store(v)) << '"' << v << '"';
		EXPECT_EQ("1234\n", cm_port());
	}
	EXPECT_EQ(1u, fake::listen_calls().size());
}

TEST_F(Configfs, RdmaCmListenFailureKeepsTheOldPort)
{
	ASSERT_EQ(4, cm_store("1234"));
	fake::config().listen_error = -EADDRINUSE;
	EXPECT_EQ(-EADDRINUSE, cm_store("4321"));
	EXPECT_EQ("1234\n", cm_port());
	EXPECT_EQ(1234, fake::listening_port());
	EXPECT_EQ(1, fake::log_count("rdma_cm_port: listening on port 4321 failed", SRPT_LOG_ERR));
	fake::config().listen_error = 0;
	EXPECT_EQ(4, cm_store("4321"));
	EXPECT_EQ("4321\n", cm_port());
}
