// SPDX-License-Identifier: GPL-2.0-only
/*
 * The contract both doubles share (tests/doubles/contract.h): its
 * citations of abi.h still point at what they name, and the host double
 * reports each of its rules, as KUnit's srpt_double suite does for the
 * KUnit double. A legal call reports nothing.
 */
#include "fixture.h"

#include <cctype>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>

namespace {

std::vector<std::string> read_lines(const std::string &path)
{
	std::ifstream f(path);
	std::vector<std::string> lines;
	std::string line;

	while (std::getline(f, line))
		lines.push_back(line);
	return lines;
}

std::string read_file(const std::string &path)
{
	std::ifstream f(path);
	std::stringstream ss;

	ss << f.rdbuf();
	return ss.str();
}

struct Citation {
	unsigned first, last;
	std::string name;
	std::string text;
};

bool ident_char(char c)
{
	return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
}

/* The number at @s[@i], moving @i past it; 0 without digits. */
unsigned number(const std::string &s, std::size_t &i)
{
	unsigned n = 0;

	while (i < s.size() && std::isdigit(static_cast<unsigned char>(s[i])))
		n = n * 10 + static_cast<unsigned>(s[i++] - '0');
	return n;
}

/* Every "abi.h:LINE name" and "abi.h:FIRST-LAST name" in @text. */
std::vector<Citation> citations(const std::string &text)
{
	static const std::string key = "abi.h:";
	std::vector<Citation> v;

	for (std::size_t at = text.find(key); at != std::string::npos; at = text.find(key, at + 1)) {
		if (at && ident_char(text[at - 1]))
			continue;
		std::size_t i = at + key.size();
		const unsigned first = number(text, i);
		unsigned last = first;
		if (i < text.size() && text[i] == '-') {
			i++;
			last = number(text, i);
		}
		if (!first || !last || i >= text.size() || text[i] != ' ')
			continue;
		const std::size_t name = ++i;
		while (i < text.size() && ident_char(text[i]))
			i++;
		v.push_back({first, last, text.substr(name, i - name), text.substr(at, i - at)});
	}
	return v;
}

/* Whether @name is on @line as a whole word. */
bool has_word(const std::string &line, const std::string &name)
{
	for (std::size_t at = line.find(name); at != std::string::npos; at = line.find(name, at + 1))
		if ((!at || !ident_char(line[at - 1])) &&
		    (at + name.size() == line.size() || !ident_char(line[at + name.size()])))
			return true;
	return false;
}

/* Why @c does not point at its name in @abi (its lines, from 1), or "". */
std::string broken(const std::vector<std::string> &abi, const Citation &c)
{
	if (c.name.empty() || c.first < 1 || c.last < c.first || c.last > abi.size())
		return c.text + ": no such lines";
	for (unsigned l = c.first; l <= c.last; l++)
		if (has_word(abi[l - 1], c.name))
			return "";
	return c.text + ": " + c.name + " is not on those lines";
}

/* The project, from this file's path (the build compiles it by its absolute path). */
const std::string kRoot = [] {
	const std::string self = __FILE__;
	const std::string tail = "/tests/host/test_contract.cpp";
	return self.size() > tail.size() && self.compare(self.size() - tail.size(), tail.size(), tail) == 0 ?
		self.substr(0, self.size() - tail.size()) : std::string(".");
}();

bool has_violation(const std::vector<std::string> &v, const std::string &needle)
{
	for (const std::string &s : v)
		if (s.find(needle) != std::string::npos)
			return true;
	return false;
}

} // namespace

TEST(ContractText, CitationsPointAtTheirNames)
{
	const auto abi = read_lines(kRoot + "/include/srpt/abi.h");
	ASSERT_GT(abi.size(), 400u);
	const auto cited = citations(read_file(kRoot + "/tests/doubles/contract.h"));
	EXPECT_GT(cited.size(), 80u) << "every rule cites abi.h";
	for (const Citation &c : cited)
		EXPECT_EQ("", broken(abi, c));
}

TEST(ContractText, ARottenCitationIsCaught)
{
	const auto abi = read_lines(kRoot + "/include/srpt/abi.h");
	/* The lines that declare srpt_os_ib_cm_listen and srpt_os_ib_cm_stop, numbered from 1. */
	const auto line_of = [&](const std::string &decl) {
		for (std::size_t i = 0; i < abi.size(); i++)
			if (abi[i].find(decl) != std::string::npos)
				return std::to_string(i + 1);
		ADD_FAILURE() << decl << " is not in abi.h";
		return std::string("0");
	};
	const std::string listen = line_of("srpt_os_ib_cm_listen(");
	const std::string stop = line_of("srpt_os_ib_cm_stop(");
	const auto c = citations("abi.h:" + listen + " srpt_os_ib_cm_listen, abi.h:" + listen + "-" +
				 stop + " srpt_os_ib_cm_stop, abi.h:" + listen +
				 " srpt_os_ib_cm_stop, abi.h:" + listen +
				 " srpt_os_ib_cm, abi.h:99999 srpt_os_ib_cm_stop, abi.h: prose, "
				 "ktl/abi.hx:1 no");
	ASSERT_EQ(5u, c.size());
	EXPECT_EQ("", broken(abi, c[0]));
	EXPECT_EQ("", broken(abi, c[1]));
	EXPECT_NE("", broken(abi, c[2])) << "another function's line";
	EXPECT_NE("", broken(abi, c[3])) << "a prefix of the name on the line is not the name";
	EXPECT_NE("", broken(abi, c[4]));
}

TEST(ContractText, TheSleepingCallsAreTheAbisAndNamedExactly)
{
	const std::string abi = read_file(kRoot + "/include/srpt/abi.h");
	const std::string contract = read_file(kRoot + "/tests/doubles/contract.h");
	static const std::string key = "\"srpt_os_";
	int n = 0;

	for (std::size_t at = contract.find(key); at != std::string::npos;
	     at = contract.find(key, at + 1), n++) {
		const std::string name = contract.substr(at + 1, contract.find('"', at + 1) - at - 1);
		EXPECT_TRUE(has_word(abi, name) && abi.find(name + "(") != std::string::npos)
			<< name << " is not in abi.h";
		EXPECT_TRUE(srpt_contract_may_sleep(name.c_str())) << name;
	}
	EXPECT_EQ(23, n);
	EXPECT_FALSE(srpt_contract_may_sleep("srpt_os_cmd_post"));
	EXPECT_FALSE(srpt_contract_may_sleep("srpt_os_cmd_alloc_"));
	EXPECT_FALSE(srpt_contract_may_sleep("srpt_os_cmd_allo"));
}

/* What srpt_core_login() owes the channel, as fake::login() (and KUnit's tf_login()) check it. */
TEST(ContractText, LoginOutcomes)
{
	srpt_contract c{};
	EXPECT_STREQ("srpt_core_login took the channel without accepting or rejecting the login",
		     srpt_contract_login(&c, 0));
	EXPECT_STREQ("srpt_core_login failed without rejecting the login", srpt_contract_login(&c, -EINVAL));
	c.rejected = 1;
	EXPECT_EQ(nullptr, srpt_contract_login(&c, -EINVAL));
	EXPECT_EQ(nullptr, srpt_contract_login(&c, 0)) << "rejected later, as the core may";
	c.qp = 1;
	EXPECT_STREQ("srpt_core_login failed but left the QP", srpt_contract_login(&c, -EINVAL));
	c.session = 1;
	EXPECT_STREQ("srpt_core_login failed but left the login accepted or its session open",
		     srpt_contract_login(&c, -EINVAL));
	srpt_contract ok{};
	ok.accepted = 1;
	EXPECT_EQ(nullptr, srpt_contract_login(&ok, 0));
}

/* ---- The host double reports each shared rule ---- */

using Contract = CoreTest;

namespace {

/* A channel the test made, with a QP of @p, as after a login's create_qp. */
struct Chan {
	srpt_os_channel ch;
	srpt_qp_params p{};
	int core = 0;

	explicit Chan(fake::Device *dev)
	{
		ch.dev = dev;
		p.max_recv_wr = 8;
		p.max_send_wr = 8;
		p.max_rdma_ctxs = 4;
		p.cq_size = 32;
		p.max_send_sge = 1;
	}
	srpt_channel *handle() { return reinterpret_cast<srpt_channel *>(&core); }
	int create_qp() { return srpt_os_channel_create_qp(&ch, handle(), &p); }
	/* A send context with a 64-byte response buffer; its core handle is ours. */
	srpt_os_cmd *alloc_cmd(void **rsp)
	{
		const srpt_u8 *sense;

		return srpt_os_cmd_alloc(&ch, reinterpret_cast<srpt_cmd *>(&core), 64, rsp, &sense);
	}
	/* Teardown without a session; nothing may be outstanding. */
	void teardown()
	{
		srpt_os_channel_destroy_cm(&ch);
		srpt_os_channel_destroy_qp(&ch);
		srpt_os_channel_free(&ch);
	}
};

} // namespace

#define EXPECT_BREACH(stmt, text)							\
	do {										\
		stmt;									\
		EXPECT_TRUE(has_violation(fake::take_violations(), text)) << "not caught: " << text; \
	} while (0)

#define EXPECT_KEPT(stmt)								\
	do {										\
		stmt;									\
		const auto v_ = fake::take_violations();				\
		EXPECT_TRUE(v_.empty()) << v_.front();					\
	} while (0)

TEST_F(Contract, ChannelParametersAndTheLoginHandler)
{
	auto d = fake::make_device("mlx5_9", 1, 0x0002c90300c0ffeeull);
	Chan c(d.get());
	EXPECT_BREACH((void)srpt_os_channel_create_qp(&c.ch, nullptr, &c.p),
		      "create_qp without the core's channel");
	c.ch.contract = srpt_contract{};
	c.p.max_rdma_ctxs = 9;
	EXPECT_BREACH((void)c.create_qp(), "more send WRs for commands than in all");
	c.ch.contract = srpt_contract{};
	c.p.max_rdma_ctxs = 4;
	c.p.initiator_depth = 1;
	EXPECT_BREACH((void)c.create_qp(), "RDMA READ depths beyond the initiator's");
	EXPECT_BREACH((void)srpt_os_channel_open_session(&c.ch, nullptr, "i"),
		      "open_session without a TPG or initiator");
	srpt_os_channel_close_session(&c.ch);
	/* Zero-length writes: beyond the commands' share, one slot left for the drain. */
	c.ch.qp.max_send_wr = 6;
	fake::fail_call("srpt_os_channel_post_zero_write", 1, -EIO);
	EXPECT_KEPT((void)srpt_os_channel_post_zero_write(&c.ch));
	c.ch.qp.max_send_wr = 5;
	fake::fail_call("srpt_os_channel_post_zero_write", 1, -EIO);
	EXPECT_BREACH((void)srpt_os_channel_post_zero_write(&c.ch),
		      "post_zero_write with no room left");
	/* srpt_core_login() runs in this thread: destroying its CM id would deadlock. */
	c.ch.cm_handler_thread = std::this_thread::get_id();
	c.ch.contract.in_cm_handler = 1;
	EXPECT_BREACH(srpt_os_channel_destroy_cm(&c.ch), "destroy_cm from its own CM handler");
	c.ch.contract.in_cm_handler = 0;
	EXPECT_KEPT(srpt_os_channel_destroy_qp(&c.ch));
	EXPECT_BREACH(srpt_os_channel_destroy_qp(&c.ch), "destroy_qp twice");
	EXPECT_KEPT(srpt_os_channel_free(&c.ch));
}

TEST_F(Contract, DevicesPortsAndTheSrq)
{
	auto d = fake::make_device("mlx5_9", 1, 0x0002c90300c0ffeeull);
	srpt_port_attr attr;
	int port;

	EXPECT_KEPT(EXPECT_EQ(0, srpt_os_port_query(d.get(), 1, &attr)));
	EXPECT_BREACH((void)srpt_os_port_query(d.get(), 0, &attr), "a nonexistent port");
	EXPECT_BREACH((void)srpt_os_mad_agent_register(d.get(), 1, nullptr),
		      "a MAD agent without its port");
	srpt_os_mad_agent_unregister(d.get(), 1);
	EXPECT_KEPT((void)srpt_os_mad_agent_register(d.get(), 1, reinterpret_cast<srpt_port *>(&port)));
	EXPECT_BREACH((void)srpt_os_mad_agent_register(d.get(), 1, reinterpret_cast<srpt_port *>(&port)),
		      "a second MAD agent on a port");
	EXPECT_BREACH(srpt_os_device_events_stop(d.get()), "events stopped but not started");
	srpt_os_device_events_start(d.get());
	EXPECT_BREACH(srpt_os_device_events_start(d.get()), "events started twice");
	srpt_os_device_events_stop(d.get());
	EXPECT_KEPT((void)srpt_os_ib_cm_listen(d.get(), 1));
	EXPECT_BREACH((void)srpt_os_ib_cm_listen(d.get(), 1), "ib_cm_listen while listening");
	srpt_os_ib_cm_stop(d.get());

	/* The SRQ. */
	EXPECT_BREACH(srpt_os_srq_destroy(d.get()), "srq_destroy without an SRQ");
	ASSERT_EQ(0, srpt_os_srq_create(d.get(), 4));
	EXPECT_BREACH((void)srpt_os_srq_create(d.get(), 4), "while the device has an SRQ");
	{
		Chan c(d.get());
		c.p.use_srq = 1;
		EXPECT_KEPT(ASSERT_EQ(0, c.create_qp()));
		void *iu;
		srpt_os_recv *r = srpt_os_recv_alloc(d.get(), nullptr, 64, 0, &iu);
		EXPECT_BREACH((void)srpt_os_recv_post(d.get(), &c.ch, r),
			      "recv_post on the receive queue of a QP on the SRQ");
		srpt_os_recv_free(r);
		EXPECT_BREACH(srpt_os_srq_destroy(d.get()), "srq_destroy while a QP uses the SRQ");
		c.teardown();
		c.ch.contract = srpt_contract{};
		EXPECT_BREACH((void)c.create_qp(), "create_qp with use_srq on a device without an SRQ");
		c.teardown();
	}
	d->contract.removed = 1;
	EXPECT_BREACH((void)srpt_os_port_query(d.get(), 1, &attr),
		      "a call after srpt_core_device_remove()");
}

TEST_F(Contract, ReceiveBuffers)
{
	auto d = fake::make_device("mlx5_9", 1, 0x0002c90300c0ffeeull);
	auto other = fake::make_device("mlx5_8", 1, 0x0002c90300c0ffefull);
	void *iu;

	srpt_os_recv *r = nullptr;
	EXPECT_BREACH(r = srpt_os_recv_alloc(d.get(), nullptr, 64, 512, &iu),
		      "recv_alloc with an alignment offset of 512 or more");
	srpt_os_recv_free(r);
	r = srpt_os_recv_alloc(d.get(), nullptr, 64, 48, &iu);
	srpt_os_recv *theirs = srpt_os_recv_alloc(other.get(), nullptr, 64, 0, &iu);
	Chan c(d.get());
	EXPECT_BREACH((void)srpt_os_recv_post(d.get(), &c.ch, r), "recv_post on a channel without a QP");
	ASSERT_EQ(0, c.create_qp());
	EXPECT_KEPT(EXPECT_EQ(0, srpt_os_recv_post(d.get(), &c.ch, r)));
	EXPECT_BREACH((void)srpt_os_recv_post(d.get(), &c.ch, r), "recv_post of a buffer already posted");
	EXPECT_BREACH((void)srpt_os_recv_post(d.get(), &c.ch, theirs),
		      "recv_post on another device than the buffer's");
	EXPECT_BREACH(srpt_os_recv_free(r), "recv_free of a buffer still posted");
	srpt_os_recv *mine = srpt_os_recv_alloc(d.get(), nullptr, 64, 0, &iu);
	EXPECT_BREACH((void)srpt_os_recv_post(d.get(), nullptr, mine),
		      "recv_post on the SRQ of a device without one");
	srpt_os_recv_free(mine);
	/* As if IUs had taken them: the drain finds nothing for the core. */
	c.ch.posted.clear();
	c.ch.qpm.rq_posted = 0;
	EXPECT_KEPT(c.teardown());
	srpt_os_recv_free(theirs);
	EXPECT_TRUE(fake::take_violations().empty());
}

TEST_F(Contract, CommandBuffers)
{
	auto d = fake::make_device("mlx5_9", 1, 0x0002c90300c0ffeeull);
	Chan c(d.get());
	ASSERT_EQ(0, c.create_qp());
	void *rsp;
	srpt_os_cmd *cmd = c.alloc_cmd(&rsp);
	ASSERT_NE(nullptr, cmd);

	EXPECT_BREACH((void)srpt_os_cmd_buf_add(cmd, 2, SRPT_DATA_OUT, 0x1000, 1, 0),
		      "buf_add of an empty buffer");
	srpt_os_cmd_release_data(cmd);
	EXPECT_KEPT((void)srpt_os_cmd_buf_add(cmd, 2, SRPT_DATA_OUT, 0x1000, 1, 512));
	EXPECT_BREACH((void)srpt_os_cmd_buf_add(cmd, 3, SRPT_DATA_OUT, 0x2000, 1, 512),
		      "another count or direction than the first");
	EXPECT_BREACH((void)srpt_os_cmd_buf_add(cmd, 2, SRPT_DATA_OUT, 0x3000, 1, 512),
		      "buf_add beyond the buffer count");
	srpt_os_cmd_release_data(cmd);
	EXPECT_KEPT((void)srpt_os_cmd_buf_add(cmd, 2, SRPT_DATA_OUT, 0x1000, 1, 512));
	EXPECT_KEPT((void)srpt_os_cmd_buf_add(cmd, 2, SRPT_DATA_OUT, 0x2000, 1, 512));
	EXPECT_BREACH((void)srpt_os_cmd_rdma_map(cmd, 0, 4096, 256), "not a piece boundary");
	srpt_os_cmd_rdma_unmap(cmd, 0);
	EXPECT_BREACH((void)srpt_os_cmd_rdma_map(cmd, 1, 0, 4096), "rdma_map of bytes beyond the buffer");
	srpt_os_cmd_rdma_unmap(cmd, 1);
	EXPECT_KEPT(EXPECT_EQ(0, srpt_os_cmd_init(cmd, 1, 0, 1024, SRPT_DATA_OUT, SRPT_TASK_SIMPLE)));
	EXPECT_BREACH((void)srpt_os_cmd_buf_add(cmd, 2, SRPT_DATA_OUT, 0x1000, 1, 512),
		      "buf_add after cmd_init");
	EXPECT_KEPT((void)srpt_os_cmd_rdma_map(cmd, 0, 0, 512));
	EXPECT_BREACH((void)srpt_os_cmd_rdma_map(cmd, 0, 0, 512), "rdma_map of a buffer mapped already");
	EXPECT_BREACH(srpt_os_cmd_execute(cmd), "execute with a buffer still mapped");
	srpt_os_cmd_release_data(cmd);

	/* Read data: mapped only once LIO queued it. */
	EXPECT_KEPT((void)srpt_os_cmd_buf_add(cmd, 1, SRPT_DATA_IN, 0x1000, 1, 8192));
	EXPECT_KEPT((void)srpt_os_cmd_init(cmd, 2, 0, 512, SRPT_DATA_IN, SRPT_TASK_SIMPLE));
	EXPECT_BREACH((void)srpt_os_cmd_rdma_map(cmd, 0, 0, 512),
		      "rdma_map of read data before LIO queued it");
	srpt_os_cmd_release_data(cmd);
	srpt_os_cmd_free(cmd);
	EXPECT_KEPT(c.teardown());
}

TEST_F(Contract, CommandPosts)
{
	auto d = fake::make_device("mlx5_9", 1, 0x0002c90300c0ffeeull);
	Chan c(d.get());
	ASSERT_EQ(0, c.create_qp());
	void *rsp;
	srpt_os_cmd *cmd = c.alloc_cmd(&rsp);
	ASSERT_NE(nullptr, cmd);
	std::memset(rsp, 0, 64);
	srpt_u8 cdb[16] = {};

	EXPECT_BREACH(srpt_os_cmd_submit(cmd, cdb), "submit before cmd_init");
	/* Failed posts: nothing for the core to complete. */
	fake::fail_call("srpt_os_cmd_post", 1, -EIO, 100);
	EXPECT_BREACH((void)srpt_os_cmd_post(cmd, 0, 0, 0), "post of nothing");
	EXPECT_BREACH((void)srpt_os_cmd_post(cmd, 36, 0, 1),
		      "post of another number of mapped buffers than are");
	EXPECT_BREACH((void)srpt_os_cmd_post(cmd, 0, 512, 0), "post of bytes of a buffer that is not kept");
	EXPECT_BREACH((void)srpt_os_cmd_post(cmd, 65, 0, 0), "post of a response larger than its buffer");
	auto *b = static_cast<srpt_u8 *>(rsp);
	b[0] = 0xc1;	/* SRP_RSP, SNSVALID, 97 bytes of sense */
	b[18] = 0x02;
	b[31] = SRPT_SENSE_SIZE + 1;
	EXPECT_BREACH((void)srpt_os_cmd_post(cmd, 64, 0, 0), "more sense data than SRPT_SENSE_SIZE");
	b[31] = SRPT_SENSE_SIZE;
	EXPECT_KEPT((void)srpt_os_cmd_post(cmd, 64, 0, 0));
	srpt_os_channel_destroy_cm(&c.ch);
	srpt_os_channel_destroy_qp(&c.ch);
	EXPECT_BREACH((void)srpt_os_cmd_post(cmd, 64, 0, 0), "cmd_post on a channel without a QP");
	EXPECT_BREACH(srpt_os_channel_free(&c.ch), "free with a send context still allocated");
	EXPECT_BREACH(srpt_os_cmd_free(cmd), "a call after srpt_os_channel_free()");
}
