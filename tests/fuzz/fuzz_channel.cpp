// SPDX-License-Identifier: GPL-2.0-only
/*
 * Fuzzes a logged-in channel: arbitrary IUs through srpt_core_recv_done()
 * interleaved with CM and QP events, completions (good and failed), LIO
 * playing its part of the fabric contract (write_pending, queue_*,
 * aborted_task, release_cmd) and injected failures, over the fake.
 *
 * Input: [0] login options (bit 0 IB/CM, bits 1-2 immediate data offset,
 * bits 3-4 send queue size, bit 5 stay CONNECTING, bit 6 LIO fails odd
 * commands inside srpt_os_cmd_submit(), bit 7 a work request per 16 KiB of
 * RDMA, so that transfers go in rounds; without it a single buffer of read
 * data of up to 4 KiB is kept mapped), then operations: an
 * opcode byte and its arguments (see operation()). A channel of 4 receive buffers and send contexts
 * with a send queue of 2..16 slots is logged in per input.
 *
 * Invariants, after every operation: no crash, no sanitizer report, no
 * srpt_os_warn(), no kernel rule the fake enforces broken (a receive
 * buffer posted twice, a send context reused with work outstanding,
 * immediate data overwritten while held, ...); every receive buffer of the
 * channel is posted, waiting in the core, or held by at most one command,
 * and a held one is not posted; LIO gets the requests in the order they
 * arrived; no read sends more data than LIO said there is; the send
 * queue never overflows. After the input, once LIO finished every
 * command: every buffer is posted again, every send queue slot is back,
 * and the credits returned plus those owed equal the requests received
 * (unless a send failed, which loses its credits with the connection).
 * After the logout: nothing of the channel is left.
 */
#include "fuzz_common.h"
#include "srp_iu.h"

#include <ktl/errno.h>
#include <srpt/channel.h>
#include <srpt/live.h>
#include <srpt/device.h>
#include <srpt/handles.h>
#include <srpt/target.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <map>
#include <memory>
#include <set>
#include <utility>

namespace {

constexpr std::uint64_t kGuid = 0x0002c90300a1b2c0ull;
/*
 * The smallest device a channel is made on (kMinDeviceQpWr): its receive
 * queue holds kDepth IUs and the drain's slot.
 */
constexpr unsigned kQpWr = 8;
constexpr unsigned kDepth = kQpWr - 1;
/* srp_max_req_size: small receive buffers keep an input cheap; IUs are at most 1024 bytes. */
constexpr std::uint32_t kMaxReq = 1100;

struct Target {
	std::unique_ptr<fake::Device> dev;
	srpt_tport *tport = nullptr;
	srpt_tpg *tpg = nullptr;
	srpt_os_tport os_tport{};
	srpt_os_tpg os_tpg{};
	long allocs = 0;
};

Target &target()
{
	static Target *t = [] {
		auto *t = new Target;
		if (srpt_core_param_set(SRPT_PARAM_MAX_REQ_SIZE, "1100"))
			std::abort();
		t->dev = fake::make_device("mlx5_0", 1, kGuid);
		t->dev->info.max_qp_wr = kQpWr;
		if (fake::add(*t->dev) ||
		    srpt_core_tport_create(fake::guid_name(*t->dev, 1).c_str(), &t->os_tport, &t->tport) ||
		    srpt_core_tpg_create(t->tport, "tpg_1", &t->os_tpg, &t->tpg) ||
		    srpt_core_tpg_enable(t->tpg, 1))
			std::abort();
		t->allocs = fake::live_allocs();
		return t;
	}();
	return *t;
}

/* The input, consumed from the front; zeros when it runs out. */
struct Input {
	const std::uint8_t *p;
	std::size_t n;
	bool empty() const { return n == 0; }
	std::uint8_t u8()
	{
		if (!n)
			return 0;
		n--;
		return *p++;
	}
	std::uint16_t u16() { return static_cast<std::uint16_t>(u8() << 8 | u8()); }
	std::uint32_t u32() { return std::uint32_t{u16()} << 16 | u16(); }
	iu::Bytes bytes(std::size_t len)
	{
		len = std::min(len, n);
		iu::Bytes b(p, p + len);
		p += len;
		n -= len;
		return b;
	}
};

/* What LIO knows about a command it was given. */
struct LioCmd {
	bool tmr = false;
	bool wp_done = false;		/* write_pending succeeded */
	int exec_at = 0, abort_at = 0;	/* the counters when it did */
	bool responded = false;
	int put_at = 0, done_at = 0;	/* the counters when it responded */
	std::uint32_t data_len = 0;	/* the read data it said there is */
};

struct Run {
	srpt_os_channel *ch = nullptr;
	std::map<srpt_os_cmd *, LioCmd> lio;
	std::set<srpt_os_cmd *> released_ever;
	std::uint64_t requests = 0;	/* SRP_CMD and SRP_TSK_MGMT IUs delivered */
	bool send_failed = false;
	bool broken = false;		/* the connection went away: fewer invariants */
	bool sync_lio = false;		/* LIO answers inside srpt_os_cmd_submit() */
	std::uint64_t seq = 0;		/* the tag given to the next request IU */
	std::uint64_t last_handled = 0;	/* the tag of the last one LIO got */
	std::uint16_t imm = 0;
	std::uint32_t max_req = 0;
};

Run *g_run;

srpt::Channel *core(Run &r)
{
	return srpt::from_handle<srpt::Channel>(r.ch->core);
}

/* ---- LIO ---- */

void lio_release(Run &r, srpt_os_cmd *c)
{
	r.lio.erase(c);
	srpt_core_release_cmd(c->core);
}

void lio_respond(Run &r, srpt_os_cmd *c, Input &in)
{
	LioCmd &l = r.lio[c];
	l.put_at = c->put_calls;
	l.done_at = c->done_calls;
	l.responded = true;
	const std::uint8_t how = in.u8();
	if (l.tmr) {
		srpt_core_queue_tm_response(c->core, static_cast<srpt_tmr_response>(how % 6));
	} else {
		static const std::uint8_t sense[18] = {0x70, 0, 0x05, 0, 0, 0, 0, 10, 0, 0, 0, 0, 0x24};
		srpt_cmd_status st{};
		st.scsi_status = (how & 1) ? 0x02 : 0x00;
		std::memcpy(c->sense, sense, sizeof(sense));
		/* Now and then a length past the buffer, which must not send what lies beyond it. */
		st.sense_len = (how & 1) ? ((how & 0x40) ? 0xffff : 18) : 0;
		st.residual = (how >> 1) % 3;
		/* As the shim does: the direction only with a residual. */
		if (st.residual != SRPT_RESIDUAL_NONE)
			st.data_dir = c->info.dir;
		st.residual_count = how;
		/* A short transfer now and then (READ of fewer blocks, INQUIRY). */
		st.data_len = (how & 0x08) ? c->info.data_len / (2 + (how >> 4)) : c->info.data_len;
		l.data_len = st.data_len;
		fake::lio_queue_response(c, st, c->info.dir == SRPT_DATA_IN);
	}
}

/* One step of LIO for @c; true when something happened. */
bool lio_step(Run &r, srpt_os_cmd *c, Input &in)
{
	LioCmd &l = r.lio.at(c);
	if (l.responded) {
		/* The response went (or could not): the command is freed. */
		if (c->put_calls > l.put_at || c->done_calls > l.done_at) {
			std::uint64_t sent = 0;
			for (const srpt_os_cmd::Xfer &x : c->xfers)
				sent += x.len;
			FUZZ_CHECK(c->info.dir != SRPT_DATA_IN || sent <= l.data_len,
				   "%llu bytes of read data sent, LIO said %u",
				   static_cast<unsigned long long>(sent), l.data_len);
			lio_release(r, c);
			return true;
		}
		return false;
	}
	/* Until the write data is in (or cannot be had), LIO waits. */
	if (l.wp_done && c->execute_calls == l.exec_at && c->abort_calls == l.abort_at)
		return false;
	if (!l.tmr && c->info.dir == SRPT_DATA_OUT && !l.wp_done && c->abort_calls == 0) {
		l.exec_at = c->execute_calls;
		l.abort_at = c->abort_calls;
		const int ret = srpt_core_write_pending(c->core);
		if (ret == 0) {
			l.wp_done = true;
			return true;
		}
		/* -ENOMEM: LIO retries later, or gives up; other errors fail it. */
		if (ret == -ENOMEM && (in.u8() & 1))
			return true;
	}
	lio_respond(r, c, in);
	return true;
}

/* ---- the checks ---- */

void check_buffers(Run &r)
{
	std::map<srpt_os_recv *, int> holders;
	for (srpt_os_cmd *c : fake::cmds_of(*r.ch)) {
		if (!c->imm_data)
			continue;
		srpt_os_recv *b = fake::recv_holding(c->imm_data);
		FUZZ_CHECK(b, "immediate data outside every receive buffer");
		FUZZ_CHECK(static_cast<std::uint8_t *>(c->imm_data) == b->iu + r.imm,
			   "immediate data not at the negotiated offset");
		/* Given back before the response: only once LIO has answered. */
		if (c->imm_given_back) {
			const auto l = r.lio.find(c);
			FUZZ_CHECK(l != r.lio.end() && l->second.responded,
				   "a receive buffer posted again before LIO answered the command holding its data");
			continue;
		}
		FUZZ_CHECK(!b->posted_on, "a receive buffer posted while a command holds its data");
		holders[b]++;
	}
	for (const auto &[b, n] : holders)
		FUZZ_CHECK(n == 1, "a receive buffer held by %d commands", n);
}

/*
 * LIO finishes everything, completions come, waiting IUs are handled.
 * Each step moves a transfer on by at least one work request (16 KiB with
 * bit 7 of the options), so a few steps per command LIO got (some only
 * while settling) plus one per 16 KiB of its data bound a run that is not
 * stuck in a loop. A send context serves one command after another, so a
 * command is its context and how many it was given (inits and TMRs).
 */
void settle(Run &r)
{
	Input none{nullptr, 0};
	std::set<std::pair<srpt_os_cmd *, int>> counted;
	std::uint64_t steps = 64;
	for (std::uint64_t step = 0; step < steps; step++) {
		for (const auto &[c, l] : r.lio)
			if (counted.insert({c, c->init_calls + c->submit_tmr_calls}).second)
				steps += c->info.data_len / 16384 + 8;
		bool progress = false;
		if (!r.ch->qp_in_error && !r.ch->freed() && core(r)->state() == srpt::ChState::kConnecting) {
			fake::cm_event(*r.ch, fake::Cm::kEstablished);
			progress = true;
		}
		for (srpt_os_cmd *c : fake::cmds_of(*r.ch)) {
			while (c->rdma_pending) {
				fake::complete_rdma(c, true);
				progress = true;
			}
			while (c->sends_pending) {
				fake::complete_send(c, true);
				progress = true;
			}
		}
		for (srpt_os_cmd *c : fake::cmds_of(*r.ch))
			if (r.lio.count(c) && lio_step(r, c, none))
				progress = true;
		while (r.ch->zero_writes_pending && !r.ch->qp_in_error) {
			fake::complete_zero_write(*r.ch, true);
			progress = true;
		}
		check_buffers(r);
		if (!progress)
			return;
	}
	FUZZ_CHECK(false, "LIO could not finish its commands");
}

/* ---- the operations ---- */

iu::Bytes templated_cmd(Input &in)
{
	iu::Cmd c;
	const std::uint8_t shape = in.u8();
	c.tag = in.u16();
	c.sol_not = in.u8();
	c.task_attr = in.u8();
	c.lun = {0, static_cast<std::uint8_t>(in.u8() & 7), 0, 0, 0, 0, 0, 0};
	std::uint32_t len = in.u16() * 16u;
	switch (shape % 6) {
	case 0:		/* no data */
		break;
	case 1:		/* direct read or write */
		c.buf_fmt = (shape & 0x80) ? 0x10 : 0x01;
		c.out_cnt = c.in_cnt = 1;
		c.desc = iu::direct(in.u32(), in.u32(), len);
		break;
	case 2: {	/* indirect */
		const unsigned n = in.u8() % 5;
		std::vector<iu::Bytes> t;
		for (unsigned i = 0; i < n; i++)
			t.push_back(iu::direct(in.u32(), in.u16(), (shape & 0x40) ? 0 : in.u16()));
		c.buf_fmt = (shape & 0x80) ? 0x20 : 0x02;
		c.out_cnt = c.in_cnt = static_cast<std::uint8_t>(n + (in.u8() & 1));
		c.desc = iu::indirect(t);
		break;
	}
	case 3: {	/* immediate data */
		c.buf_fmt = 0x30;
		len %= 512;
		c.desc = iu::imm_desc(len);
		iu::Bytes b = iu::cmd(c);
		if (b.size() < 68)
			b.resize(68, 0);
		iu::Bytes data = in.bytes(len);
		data.resize(len, 0xdd);
		b.insert(b.end(), data.begin(), data.end());
		return b;
	}
	case 4:		/* a variable-length CDB with an additional CDB */
		c.cdb = {0x7f, 0, 0, 0, 0, 0, 0, static_cast<std::uint8_t>(in.u8() % 24)};
		c.add_cdb_len = in.u8();
		c.add_cdb = iu::Bytes(c.add_cdb_len & 0xfc, 0);
		break;
	default:	/* an arbitrary format byte and descriptors */
		c.buf_fmt = in.u8();
		c.out_cnt = in.u8();
		c.in_cnt = in.u8();
		c.desc = in.bytes(in.u8());
		break;
	}
	iu::Bytes b = iu::cmd(c);
	/* A little damage now and then. */
	if (shape & 0x20) {
		const std::uint8_t at = in.u8();
		if (!b.empty())
			b[at % b.size()] ^= in.u8();
	}
	return b;
}

void deliver(Run &r, iu::Bytes b)
{
	if (r.ch->qp_in_error || b.size() > r.max_req)
		return;
	/* Request IUs get increasing tags: LIO must see them in that order. */
	if (b.size() >= 16 && (b[0] == 0x01 || b[0] == 0x02))
		iu::be64(b, 8, ++r.seq);
	if (!b.empty() && (b[0] == 0x01 || b[0] == 0x02))
		r.requests++;
	if (!fake::receive(*r.ch, b.data(), b.size()) && !b.empty() && (b[0] == 0x01 || b[0] == 0x02))
		r.requests--;	/* no buffer posted: the initiator could not have sent it */
}

srpt_os_cmd *pick(Run &r, Input &in)
{
	if (r.lio.empty())
		return nullptr;
	auto it = r.lio.begin();
	std::advance(it, in.u8() % r.lio.size());
	return it->first;
}

void operation(Run &r, Input &in)
{
	const std::uint8_t op = in.u8();
	switch (op % 16) {
	case 0:		/* raw IU */
		deliver(r, in.bytes(in.u16() % 600));
		break;
	case 1:
	case 2:
	case 3:		/* SRP_CMD */
		deliver(r, templated_cmd(in));
		break;
	case 4: {	/* SRP_TSK_MGMT */
		iu::TskMgmt t;
		t.function = in.u8();
		t.tag = in.u16();
		t.task_tag = in.u16();
		t.sol_not = in.u8();
		iu::Bytes b = iu::tsk_mgmt(t);
		if (op & 0x80)
			b.resize(in.u8() % 48);
		deliver(r, b);
		break;
	}
	case 5:
	case 6:		/* LIO works on one of its commands */
		if (srpt_os_cmd *c = pick(r, in))
			lio_step(r, c, in);
		break;
	case 7: {	/* a send completes */
		const bool ok = !(op & 0x80);
		for (srpt_os_cmd *c : fake::cmds_of(*r.ch))
			if (c->sends_pending) {
				if (!ok)
					r.send_failed = true;
				fake::complete_send(c, ok);
				break;
			}
		break;
	}
	case 8: {	/* a round of RDMA transfers completes */
		const bool ok = !(op & 0x80);
		for (srpt_os_cmd *c : fake::cmds_of(*r.ch))
			if (c->rdma_pending) {
				fake::complete_rdma(c, ok);
				break;
			}
		break;
	}
	case 9: {	/* a zero-length write completes, after what was posted before it */
		bool busy = false;
		for (srpt_os_cmd *c : fake::cmds_of(*r.ch))
			busy |= c->sends_pending || c->rdma_pending;
		if (r.ch->zero_writes_pending && !busy) {
			const bool ok = !(op & 0x80) && !r.ch->qp_in_error;
			if (!ok)
				r.broken = true;
			fake::complete_zero_write(*r.ch, ok);
		}
		break;
	}
	case 10: {	/* LIO aborts a command that has no response yet */
		srpt_os_cmd *c = pick(r, in);
		/* Not while the write data comes in: LIO waits for it first. */
		if (c && !r.lio.at(c).tmr && !r.lio.at(c).responded && !r.lio.at(c).wp_done) {
			srpt_core_aborted_task(c->core);
			lio_release(r, c);
		}
		break;
	}
	case 11: {	/* CM events: any code either CM has (0..18), as the kernel numbers them */
		srpt_core_cm_event(r.ch->core, in.u8() % 19);
		const srpt::ChState st = core(r)->state();
		if (st != srpt::ChState::kConnecting && st != srpt::ChState::kLive)
			r.broken = true;
		break;
	}
	case 12: {	/* QP events, and a failed receive */
		const std::uint8_t what = in.u8() % 4;
		if (what == 3) {
			if (!r.ch->qp_in_error && fake::receive(*r.ch, nullptr, 0, false))
				r.broken = true;
			break;
		}
		if (what == 2)
			r.broken = true;
		fake::AtomicScope irq;
		srpt_core_qp_event(r.ch->core, what == 0 ? SRPT_IB_EVENT_COMM_EST :
					       what == 1 ? 16 /* QP_LAST_WQE_REACHED */ :
							   SRPT_IB_EVENT_QP_FATAL);
		break;
	}
	case 13: {	/* the next shim call of a kind fails */
		static const struct {
			const char *fn;
			int err;
		} fails[] = {
			{"srpt_os_cmd_init", -ESHUTDOWN}, {"srpt_os_cmd_buf_add", -ENOMEM},
			{"srpt_os_cmd_buf_add", -EINVAL},
			{"srpt_os_cmd_post", -ENOMEM}, {"srpt_os_cmd_post", -EIO},
			{"srpt_os_cmd_rdma_map", -EAGAIN}, {"srpt_os_cmd_rdma_map", -EIO},
			{"srpt_os_cmd_submit_tmr", -ENOMEM}, {"srpt_os_channel_post_zero_write", -EIO},
		};
		const auto &f = fails[in.u8() % (sizeof(fails) / sizeof(fails[0]))];
		fake::fail_call(f.fn, 1, f.err);
		/* A zero-length write is only refused by a broken QP. */
		if (!std::strcmp(f.fn, "srpt_os_channel_post_zero_write"))
			r.broken = true;
		break;
	}
	case 14:	/* the deferred work runs (logout, release) */
		fake::run_work();
		break;
	default:	/* LIO catches up on everything */
		for (srpt_os_cmd *c : fake::cmds_of(*r.ch))
			if (r.lio.count(c))
				lio_step(r, c, in);
		break;
	}
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *data, std::size_t size)
{
	fuzz::init_core();
	Target &t = target();
	Input in{data, size};
	Run r;
	g_run = &r;
	srpt_os_channel ch;
	r.ch = &ch;

	/* Login: the form, immediate data, the send queue. */
	const std::uint8_t opt = in.u8();
	static const std::uint16_t imms[] = {0, 68, 52, 100};
	r.imm = imms[(opt >> 1) & 3];
	const char *sq = (opt & 0x08) ? "4\n" : (opt & 0x10) ? "8\n" : "32\n";
	if (srpt_core_tpg_attrib_store(t.tpg, SRPT_ATTRIB_SQ_SIZE, sq, std::strlen(sq)) < 0)
		std::abort();
	iu::LoginReq req;
	req.t_port_id = iu::port_id(kGuid, kGuid);
	req.it_iu_len = kMaxReq;
	req.flags = r.imm ? 0x80 : 0;
	req.imm_offset = r.imm;
	const bool ib = opt & 1;
	const iu::Bytes priv = ib ? iu::login_ib(req, 28) : iu::login_rdma(req);
	srpt_login_info info{};
	info.cm = ib ? SRPT_CM_IB : SRPT_CM_RDMA;
	info.initiator_depth = 4;
	info.responder_resources = 4;
	info.private_data = priv.data();
	info.private_data_len = priv.size();
	if (ib)
		info.peer_gid[15] = 1;
	else
		info.peer_family = SRPT_INET4, info.peer_addr[0] = 10, info.peer_addr[3] = 1;
	r.max_req = kMaxReq;
	r.sync_lio = opt & 0x40;
	fake::config().on_submit = [](srpt_os_cmd *c) {
		Run &r = *g_run;
		FUZZ_CHECK(c->info.tag > r.last_handled, "request %#llx handled after %#llx",
			   static_cast<unsigned long long>(c->info.tag),
			   static_cast<unsigned long long>(r.last_handled));
		r.last_handled = c->info.tag;
		r.lio[c] = LioCmd{};
		if (r.sync_lio && (c->info.tag & 1)) {
			/* LIO fails the command at once (a bad LUN, say). */
			Input none{nullptr, 0};
			lio_respond(r, c, none);
			if (c->put_calls > r.lio.at(c).put_at)
				lio_release(r, c);
		}
	};
	fake::config().on_submit_tmr = [](srpt_os_cmd *c) {
		Run &r = *g_run;
		FUZZ_CHECK(c->tmr_tag > r.last_handled, "request %#llx handled after %#llx",
			   static_cast<unsigned long long>(c->tmr_tag),
			   static_cast<unsigned long long>(r.last_handled));
		r.last_handled = c->tmr_tag;
		LioCmd l;
		l.tmr = true;
		r.lio[c] = l;
	};
	FUZZ_CHECK(fake::login(*t.dev, 1, ch, info) == 0 && ch.accepted(), "the login failed");
	const std::uint32_t credits = static_cast<std::uint32_t>(iu::get_be32(ch.accept_rsp, 4));
	FUZZ_CHECK(credits == kDepth, "%u credits", credits);
	const std::uint32_t slots = core(r)->io().sendq().free_slots();
	/*
	 * Bit 7: a device that needs a work request per 16 KiB: transfers go
	 * in rounds. Otherwise a single buffer of read data of up to 4 KiB is
	 * kept mapped, as the shim's page is on such a device.
	 */
	fake::config().rdma_bytes_per_wr = (opt & 0x80) ? 16384 : 0;
	fake::config().kept_page = !(opt & 0x80);
	/* Usually LIVE at once; bit 5: IUs come before the connection is established. */
	if (!(opt & 0x20)) {
		fake::cm_event(ch, fake::Cm::kEstablished);
		FUZZ_CHECK(fake::complete_zero_write(ch, true), "no zero-length write after ESTABLISHED");
	}

	while (!in.empty() && !ch.freed()) {
		operation(r, in);
		{
			const auto w = fake::warnings();
			FUZZ_CHECK(w.empty(), "srpt_os_warn: %s", w.empty() ? "" : w[0].c_str());
			const auto v = fake::violations();
			FUZZ_CHECK(v.empty(), "kernel rule broken: %s", v.empty() ? "" : v[0].c_str());
		}
		if (!ch.freed())
			check_buffers(r);
	}

	if (!ch.freed()) {
		settle(r);
		srpt::ChState st = core(r)->state();
		if (!r.broken && st == srpt::ChState::kLive) {
			FUZZ_CHECK(r.lio.empty(), "LIO still holds %zu commands", r.lio.size());
			FUZZ_CHECK(ch.posted.size() == kDepth, "%zu of %u receive buffers posted", ch.posted.size(),
				   kDepth);
			FUZZ_CHECK(core(r)->io().sendq().free_slots() == slots, "%u of %u send queue slots back",
				   core(r)->io().sendq().free_slots(), slots);
			if (!r.send_failed) {
				std::uint64_t returned = 0;
				for (srpt_os_cmd *c : fake::cmds_of(ch))
					for (const iu::Bytes &rsp : c->responses)
						returned += iu::get_be32(rsp, 4);
				const std::uint64_t owed = static_cast<std::uint64_t>(core(r)->io().credits().owed());
				FUZZ_CHECK(returned + owed == r.requests,
					   "credits: %llu returned + %llu owed for %llu requests",
					   static_cast<unsigned long long>(returned),
					   static_cast<unsigned long long>(owed),
					   static_cast<unsigned long long>(r.requests));
			}
		}
		/* The initiator logs out. */
		fake::cm_event(ch, fake::Cm::kDisconnectRequest);
		fake::run_work();
		/* LIO still finishes what it holds while the session stops. */
		for (int i = 0; i < 8 && !ch.freed(); i++) {
			settle(r);
			fake::run_work();
		}
	}
	fake::run_work();
	FUZZ_CHECK(ch.freed(), "the channel was not released");
	FUZZ_CHECK(srpt::live_count(srpt::Live::kChannel) == 0, "a channel object leaked");
	FUZZ_CHECK(fake::live_cmds() == 0 && fake::live_recvs() == 0, "%zu send contexts, %zu buffers leaked",
		   fake::live_cmds(), fake::live_recvs());
	FUZZ_CHECK(fake::live_allocs() == t.allocs, "%ld allocations leaked", fake::live_allocs() - t.allocs);
	FUZZ_CHECK(srpt::from_handle<srpt::Device>(t.dev->core)->port(1)->logins().channel_count() == 0,
		   "the port still counts a channel");
	fake::config().on_submit = nullptr;
	fake::config().on_submit_tmr = nullptr;
	for (const char *fn : {"srpt_os_cmd_init", "srpt_os_cmd_buf_add",
			       "srpt_os_cmd_post", "srpt_os_cmd_rdma_map", "srpt_os_cmd_submit_tmr",
			       "srpt_os_channel_post_zero_write"})
		fake::fail_call(fn, 0, 0);
	fake::config().rdma_bytes_per_wr = 0;
	fake::config().kept_page = false;
	fuzz::check_fake();
	g_run = nullptr;
	return 0;
}
