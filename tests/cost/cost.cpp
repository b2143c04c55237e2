// SPDX-License-Identifier: GPL-2.0-only
/*
 * The core's instruction budget per command (scripts/cost): N commands
 * of each kind through the C ABI and the host fake, with the test
 * playing LIO and the completions, under callgrind. Collection is on
 * only around each loop, and each loop dumps its own profile
 * (CALLGRIND_DUMP_STATS_AT names it); scripts/cost counts the
 * instructions of the core's own code in it, not the fake's or the
 * test's. Run without valgrind it is a plain test of the same commands.
 */
#include "channel_fixture.h"

#include <valgrind/callgrind.h>

#include <cstdlib>

using iu::Bytes;

namespace {

/* Commands per kind: scripts/cost divides by it. */
unsigned commands()
{
	const char *n = std::getenv("SRPT_COST_COMMANDS");
	return n ? static_cast<unsigned>(std::strtoul(n, nullptr, 10)) : 1000;
}

/* ib_srp's immediate data offset: SRP_CMD, 16 bytes of additional CDB, the descriptor. */
constexpr std::uint16_t kImmOffset = 68;

Bytes write_imm_cmd(std::uint64_t tag, std::uint32_t len)
{
	iu::Cmd c;
	c.tag = tag;
	c.buf_fmt = 0x30;
	c.cdb = iu::write10(static_cast<std::uint16_t>(len / 512));
	c.desc = iu::imm_desc(len);
	Bytes b = iu::cmd(c);
	b.resize(kImmOffset, 0);
	b.resize(kImmOffset + len, 0xa5);
	return b;
}

} // namespace

class Cost : public ChannelTest {
protected:
	srpt_os_channel *ch_ = nullptr;

	void SetUp() override
	{
		ChannelTest::SetUp();
		setup_target();
		iu::LoginReq req = login_req();
		req.flags = 0x80;	/* immediate data */
		req.imm_offset = kImmOffset;
		ch_ = &live_channel(req);
		ASSERT_NE(nullptr, ch_->core);
		/* As the module where it sends read data from a kept page (no MRs, no syncs). */
		fake::config().kept_page = true;
		fake::take_trace();
	}

	/* One command start to release, as the kernel would run it. */
	void read(std::uint64_t tag, std::uint32_t len)
	{
		srpt_os_cmd *c = send_cmd(*ch_, read_cmd(tag, len));
		ASSERT_NE(nullptr, c);
		lio_respond(c, 0, true);
		lio_finish(c);
		ASSERT_EQ(0x00, last_rsp(c).status);
	}

	void write_imm(std::uint64_t tag, std::uint32_t len)
	{
		srpt_os_cmd *c = send_cmd(*ch_, write_imm_cmd(tag, len));
		ASSERT_NE(nullptr, c);
		ASSERT_EQ(len, c->imm_len);
		const int executed = c->execute_calls;
		ASSERT_EQ(0, srpt_core_write_pending(c->core));
		ASSERT_EQ(executed + 1, c->execute_calls);
		lio_respond(c);
		lio_finish(c);
	}

	template <typename F> void measure(const char *name, F one)
	{
		const unsigned n = commands();
		/* Once unmeasured: first-time allocations and lazy binding. */
		one(1);
		/* scripts/cost starts callgrind with collection off. */
		CALLGRIND_ZERO_STATS;
		CALLGRIND_TOGGLE_COLLECT;
		for (unsigned i = 0; i < n; i++)
			one(2 + i);
		CALLGRIND_TOGGLE_COLLECT;
		CALLGRIND_DUMP_STATS_AT(name);
		fake::take_trace();
	}
};

TEST_F(Cost, Read4k)
{
	measure("read-4k", [this](std::uint64_t tag) { read(tag, 4096); });
}

TEST_F(Cost, WriteImmediate4k)
{
	measure("write-imm-4k", [this](std::uint64_t tag) { write_imm(tag, 4096); });
}

TEST_F(Cost, Read1m)
{
	measure("read-1m", [this](std::uint64_t tag) { read(tag, 1u << 20); });
}
