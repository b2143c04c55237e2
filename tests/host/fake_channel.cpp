// SPDX-License-Identifier: GPL-2.0-only
/*
 * The fake of the shims' channel side: IB/CM listening, channels (CM id,
 * QP, LIO session), receive buffers and the SRQ, and commands (send
 * contexts). Each function records its call and the state a test can
 * check, accepts an injected failure (fake::fail_call), and reports
 * misuse the kernel would punish as a violation: a breach of the
 * contract KUnit's double enforces too (tests/doubles/contract.h: use
 * after the core freed an object, teardown out of the documented order,
 * posting a buffer twice, sleeping in atomic context, ...), and what only
 * this double models (the initiator's credits, the CQ, LIO's buffers).
 */
#include "fake_internal.h"
#include "srp_iu.h"

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>

using namespace fake::detail;

namespace {

srpt_os_channel *check_channel_locked(srpt_os_channel *ch, const char *fn)
{
	if (!ch || !S().channels.count(ch)) {
		violation_locked(strf("%s with an unknown channel %p", fn, static_cast<void *>(ch)));
		return nullptr;
	}
	breach_locked(fn, srpt_contract_check(&ch->contract, SRPT_CONTRACT_ANY));
	return ch;
}

/* A breach of the channel contract both doubles share is a violation. */
void contract_check_locked(srpt_os_channel *ch, srpt_contract_call call, const char *fn)
{
	breach_locked(fn, srpt_contract_check(&ch->contract, call));
}

/* The device's contract, or (for a channel a test made without one) a fresh one. */
srpt_contract_dev &dev_contract(srpt_os_channel *ch)
{
	static srpt_contract_dev none;

	if (ch->dev)
		return ch->dev->contract;
	none = srpt_contract_dev{};
	return none;
}

/* The send context's work requests outstanding. */
srpt_contract_wrs wrs_of(const srpt_os_cmd *c)
{
	return {static_cast<unsigned>(c->rdma_pending), static_cast<unsigned>(c->sends_pending)};
}

/* Whether a transfer of the command's buffers is posted and not completed. */
bool transfer_outstanding(const srpt_os_cmd *c)
{
	if (!c->rdma_pending && !c->sends_pending)
		return false;
	for (const srpt_os_cmd::Rdma &b : c->rdma)
		if (b.posted)
			return true;
	return false;
}

srpt_os_recv *check_recv_locked(srpt_os_recv *r, const char *fn)
{
	if (!r || !S().recvs.count(r)) {
		violation_locked(strf("%s with an unknown or freed receive buffer %p", fn,
				      static_cast<void *>(r)));
		return nullptr;
	}
	return r;
}

srpt_os_cmd *check_cmd_locked(srpt_os_cmd *c, const char *fn)
{
	if (!c || !S().cmds.count(c)) {
		violation_locked(strf("%s with an unknown or freed command %p", fn,
				      static_cast<void *>(c)));
		return nullptr;
	}
	if (S().channels.count(c->ch))
		breach_locked(fn, srpt_contract_check(&c->ch->contract, SRPT_CONTRACT_ANY));
	return c;
}

/* A CQ that may overrun is a violation: a real HCA loses completions. */
void check_cq_locked(const srpt_os_channel *ch, const char *fn)
{
	if (const char *why = srpt_qp_model_cq_overrun(&ch->qpm))
		violation_locked(strf("%s: %s: %u receives, %u signalled sends, CQ of %u", fn, why,
				      ch->qpm.rq_posted, ch->qpm.signaled, ch->qpm.cq_size));
}

/* The buffers of a QP or SRQ are flushed when it goes away. */
void unpost_locked(srpt_os_channel *ch, srpt_os_device *srq_dev)
{
	for (const srpt_os_recv *cr : S().recvs) {
		auto *r = const_cast<srpt_os_recv *>(cr);
		if (ch && r->posted_on == ch)
			r->posted_on = nullptr;
		if (srq_dev && r->posted_on_srq && r->dev == srq_dev)
			r->posted_on_srq = false;
	}
	if (ch) {
		ch->posted.clear();
		ch->qpm.rq_posted = 0;
	}
}

/* A completion's status: @ok, or the failure the test configured. */
srpt_wc_status wc_status_locked(bool ok)
{
	return ok ? SRPT_WC_SUCCESS : S().config.fail_status;
}

} // namespace

/* ---- IB/CM ---- */

extern "C" int srpt_os_ib_cm_listen(struct srpt_os_device *os, srpt_u64 service_id)
{
	might_sleep_call(__func__);
	std::lock_guard<std::mutex> g(g_mu);
	if (!check_device_locked(os, "srpt_os_ib_cm_listen"))
		return -EINVAL;
	trace_locked(strf("ib_cm_listen %s %#llx", os->name.c_str(),
			  static_cast<unsigned long long>(service_id)));
	if (const int err = count_call_locked("srpt_os_ib_cm_listen"))
		return err;
	breach_locked(__func__, srpt_contract_ib_cm_listen(&os->contract));
	os->contract.ib_cm_listening = 1;
	os->ib_cm_listening = true;
	os->ib_cm_service_id = service_id;
	return 0;
}

extern "C" void srpt_os_ib_cm_stop(struct srpt_os_device *os)
{
	might_sleep_call(__func__);
	std::lock_guard<std::mutex> g(g_mu);
	if (!check_device_locked(os, "srpt_os_ib_cm_stop"))
		return;
	trace_locked("ib_cm_stop " + os->name);
	count_call_locked("srpt_os_ib_cm_stop");
	os->contract.ib_cm_listening = 0;
	os->ib_cm_listening = false;
}

/* ---- Channels ---- */

extern "C" int srpt_os_channel_create_qp(struct srpt_os_channel *os, struct srpt_channel *core,
					 const struct srpt_qp_params *p)
{
	might_sleep_call(__func__);
	std::lock_guard<std::mutex> g(g_mu);
	if (!check_channel_locked(os, "srpt_os_channel_create_qp"))
		return -EINVAL;
	trace_locked("channel_create_qp");
	os->qp_attempts.push_back(*p);
	if (const int err = count_call_locked("srpt_os_channel_create_qp"))
		return err;
	contract_check_locked(os, SRPT_CONTRACT_CREATE_QP, __func__);
	breach_locked(__func__, srpt_contract_qp_params(&os->contract, &dev_contract(os), core, p));
	if (os->dev && srpt_qp_model_create(&os->qpm, p, &os->dev->info, S().config.rdma_extra_wrs != 0,
					    S().config.softroce_queues))
		return -EINVAL;
	os->core = core;
	os->qp = *p;
	srpt_contract_qp_created(&os->contract, &dev_contract(os), p);
	return 0;
}

extern "C" int srpt_os_channel_open_session(struct srpt_os_channel *os, struct srpt_os_tpg *tpg,
					    const char *initiator)
{
	might_sleep_call(__func__);
	std::function<int(srpt_os_tpg *, const std::string &)> acl;
	{
		std::lock_guard<std::mutex> g(g_mu);
		if (!check_channel_locked(os, "srpt_os_channel_open_session"))
			return -EINVAL;
		trace_locked(strf("channel_open_session %s", initiator ? initiator : "(null)"));
		os->session_tries.push_back(initiator ? initiator : "(null)");
		if (const int err = count_call_locked("srpt_os_channel_open_session"))
			return err;
		contract_check_locked(os, SRPT_CONTRACT_OPEN_SESSION, "srpt_os_channel_open_session");
		breach_locked(__func__, srpt_contract_open_session(tpg, initiator));
		acl = os->acl;
	}
	if (acl && initiator) {
		if (const int err = acl(tpg, initiator))
			return err;
	}
	std::lock_guard<std::mutex> g(g_mu);
	srpt_contract_done(&os->contract, SRPT_CONTRACT_OPEN_SESSION);
	os->session_tpg = tpg;
	os->session_initiator = initiator ? initiator : "";
	return 0;
}

extern "C" int srpt_os_channel_accept(struct srpt_os_channel *os, const void *rsp, srpt_size_t len)
{
	might_sleep_call(__func__);
	std::lock_guard<std::mutex> g(g_mu);
	if (!check_channel_locked(os, "srpt_os_channel_accept"))
		return -EINVAL;
	trace_locked(strf("channel_accept %zu", len));
	os->accept_calls++;
	if (const int err = count_call_locked("srpt_os_channel_accept"))
		return err;
	contract_check_locked(os, SRPT_CONTRACT_ACCEPT, "srpt_os_channel_accept");
	const auto *b = static_cast<const srpt_u8 *>(rsp);
	os->accept_rsp.assign(b, b + len);
	if (len >= 8)
		os->credits = iu::get_be32(os->accept_rsp, 4);
	srpt_contract_done(&os->contract, SRPT_CONTRACT_ACCEPT);
	return 0;
}

extern "C" void srpt_os_cm_reject(struct srpt_os_channel *os, const void *rej, srpt_size_t len)
{
	might_sleep_call(__func__);
	std::lock_guard<std::mutex> g(g_mu);
	if (!check_channel_locked(os, "srpt_os_cm_reject"))
		return;
	trace_locked(strf("cm_reject %zu", len));
	count_call_locked("srpt_os_cm_reject");
	contract_check_locked(os, SRPT_CONTRACT_REJECT, "srpt_os_cm_reject");
	srpt_contract_done(&os->contract, SRPT_CONTRACT_REJECT);
	os->reject_calls++;
	const auto *b = static_cast<const srpt_u8 *>(rej);
	os->reject.assign(b, b + len);
}

extern "C" int srpt_os_channel_ready(struct srpt_os_channel *os)
{
	might_sleep_call(__func__);
	std::lock_guard<std::mutex> g(g_mu);
	if (!check_channel_locked(os, "srpt_os_channel_ready"))
		return -EINVAL;
	trace_locked("channel_ready");
	os->ready_calls++;
	return count_call_locked("srpt_os_channel_ready");
}

extern "C" void srpt_os_channel_notify_established(struct srpt_os_channel *os)
{
	might_sleep_call(__func__);
	std::lock_guard<std::mutex> g(g_mu);
	if (!check_channel_locked(os, "srpt_os_channel_notify_established"))
		return;
	trace_locked("channel_notify_established");
	count_call_locked("srpt_os_channel_notify_established");
	os->notify_established_calls++;
}

extern "C" int srpt_os_channel_disconnect(struct srpt_os_channel *os, enum srpt_disconnect how)
{
	might_sleep_call(__func__);
	std::lock_guard<std::mutex> g(g_mu);
	if (!check_channel_locked(os, "srpt_os_channel_disconnect"))
		return -EINVAL;
	trace_locked(how == SRPT_DISCONNECT_DREP ? "channel_disconnect DREP" : "channel_disconnect");
	os->disconnect_calls++;
	os->disconnects.push_back(how);
	contract_check_locked(os, SRPT_CONTRACT_DISCONNECT, "srpt_os_channel_disconnect");
	return count_call_locked("srpt_os_channel_disconnect");
}

extern "C" int srpt_os_channel_qp_error(struct srpt_os_channel *os)
{
	might_sleep_call(__func__);
	std::lock_guard<std::mutex> g(g_mu);
	if (!check_channel_locked(os, "srpt_os_channel_qp_error"))
		return -EINVAL;
	trace_locked("channel_qp_error");
	os->qp_error_calls++;
	if (const int err = count_call_locked("srpt_os_channel_qp_error"))
		return err;
	contract_check_locked(os, SRPT_CONTRACT_QP_ERROR, "srpt_os_channel_qp_error");
	os->qp_in_error = true;
	return 0;
}

extern "C" int srpt_os_channel_post_zero_write(struct srpt_os_channel *os)
{
	might_sleep_call(__func__);
	std::lock_guard<std::mutex> g(g_mu);
	if (!check_channel_locked(os, "srpt_os_channel_post_zero_write"))
		return -EINVAL;
	trace_locked("channel_post_zero_write");
	os->zero_write_calls++;
	contract_check_locked(os, SRPT_CONTRACT_ZERO_WRITE, __func__);
	if (os->qp_live() &&
	    breach_locked(__func__, srpt_contract_zero_write(&os->qp,
							     static_cast<unsigned>(os->zero_writes_pending) + 1)))
		violation_locked(strf("  (%d pending, %u send WRs, %u of them the commands')",
				      os->zero_writes_pending, os->qp.max_send_wr, os->qp.max_rdma_ctxs));
	if (const int err = count_call_locked("srpt_os_channel_post_zero_write"))
		return err;
	if (!os->qp_live())
		return -EINVAL;
	if (!srpt_qp_model_send_fits(&os->qpm, 1))
		return -ENOMEM;
	srpt_qp_model_post_send(&os->qpm, 1, 1);
	os->zero_writes_pending++;
	check_cq_locked(os, "srpt_os_channel_post_zero_write");
	return 0;
}

extern "C" void srpt_os_channel_close_session(struct srpt_os_channel *os)
{
	might_sleep_call(__func__);
	std::lock_guard<std::mutex> g(g_mu);
	if (!check_channel_locked(os, "srpt_os_channel_close_session"))
		return;
	trace_locked("channel_close_session");
	count_call_locked("srpt_os_channel_close_session");
	contract_check_locked(os, SRPT_CONTRACT_CLOSE_SESSION, "srpt_os_channel_close_session");
	os->session_closed = true;
	srpt_contract_done(&os->contract, SRPT_CONTRACT_CLOSE_SESSION);
}

extern "C" void srpt_os_channel_destroy_cm(struct srpt_os_channel *os)
{
	might_sleep_call(__func__);
	std::unique_lock<std::mutex> g(g_mu);
	if (!check_channel_locked(os, "srpt_os_channel_destroy_cm"))
		return;
	trace_locked("channel_destroy_cm");
	count_call_locked("srpt_os_channel_destroy_cm");
	/*
	 * ib_destroy_cm_id()/rdma_destroy_id() wait for a running handler;
	 * from the handler's own thread the contract reports the deadlock.
	 */
	if (os->cm_handler_thread != std::this_thread::get_id())
		g_cv.wait(g, [os] { return !os->contract.in_cm_handler; });
	contract_check_locked(os, SRPT_CONTRACT_DESTROY_CM, __func__);
	srpt_contract_done(&os->contract, SRPT_CONTRACT_DESTROY_CM);
}

extern "C" void srpt_os_channel_destroy_qp(struct srpt_os_channel *os)
{
	might_sleep_call(__func__);
	std::function<void()> hook;
	{
		std::lock_guard<std::mutex> g(g_mu);
		if (!check_channel_locked(os, "srpt_os_channel_destroy_qp"))
			return;
		hook = std::move(os->on_destroy_qp);
	}
	if (hook)
		hook();
	{
		/*
		 * ib_drain_qp() posts a WR on the send queue and, without an
		 * SRQ, a receive: each needs a free slot while every flushed
		 * completion is still unpolled. Without one the kernel warns
		 * ("failed to drain send/recv queue") and returns at once: the
		 * QP and its buffers are freed while completions still come.
		 */
		std::lock_guard<std::mutex> g(g_mu);
		if (os->qp_live()) {
			if (const char *why = srpt_qp_model_drain(&os->qpm))
				violation_locked(strf("%s: %u of %u send WRs in use, %u of %u receives posted",
						      why, os->qpm.sq_used, os->qpm.sq_slots,
						      os->qpm.rq_posted, os->qpm.rq_slots));
		}
	}
	/* ib_drain_qp(): everything still outstanding completes, flushed. */
	fake::detail::flush_qp(*os, true);
	std::lock_guard<std::mutex> g(g_mu);
	trace_locked("channel_destroy_qp");
	count_call_locked("srpt_os_channel_destroy_qp");
	contract_check_locked(os, SRPT_CONTRACT_DESTROY_QP, __func__);
	srpt_contract_qp_destroyed(&os->contract, &dev_contract(os));
	os->zero_writes_pending = 0;
	unpost_locked(os, nullptr);
}

extern "C" void srpt_os_channel_free(struct srpt_os_channel *os)
{
	might_sleep_call(__func__);
	std::lock_guard<std::mutex> g(g_mu);
	if (!check_channel_locked(os, "srpt_os_channel_free"))
		return;
	trace_locked("channel_free");
	count_call_locked("srpt_os_channel_free");
	contract_check_locked(os, SRPT_CONTRACT_FREE, __func__);
	srpt_contract_done(&os->contract, SRPT_CONTRACT_FREE);
}

/* ---- Receive buffers and the SRQ ---- */

extern "C" struct srpt_os_recv *srpt_os_recv_alloc(struct srpt_os_device *dev,
						   struct srpt_recv *core, srpt_u32 size,
						   srpt_u32 align_offset, void **iu)
{
	might_sleep_call(__func__);
	std::lock_guard<std::mutex> g(g_mu);
	if (!check_device_locked(dev, "srpt_os_recv_alloc"))
		return nullptr;
	if (count_call_locked("srpt_os_recv_alloc"))
		return nullptr;
	breach_locked(__func__, srpt_contract_recv_alloc(align_offset));
	const std::size_t bytes = (static_cast<std::size_t>(align_offset) + size + 511) & ~std::size_t{511};
	auto *r = new srpt_os_recv;
	r->dev = dev;
	r->core = core;
	r->size = size;
	r->align_offset = align_offset;
	r->buf = static_cast<srpt_u8 *>(std::aligned_alloc(512, std::max<std::size_t>(bytes, 512)));
	std::memset(r->buf, 0xa5, std::max<std::size_t>(bytes, 512));
	r->iu = r->buf + align_offset;
	S().recvs.insert(r);
	*iu = r->iu;
	return r;
}

extern "C" void srpt_os_recv_free(struct srpt_os_recv *r)
{
	might_sleep_call(__func__);
	if (!r)
		return;
	std::lock_guard<std::mutex> g(g_mu);
	if (!check_recv_locked(r, "srpt_os_recv_free"))
		return;
	count_call_locked("srpt_os_recv_free");
	breach_locked(__func__, srpt_contract_recv_free(r->posted_on || r->posted_on_srq));
	S().recvs.erase(r);
	std::free(r->buf);
	delete r;
}

extern "C" int srpt_os_recv_post(struct srpt_os_device *dev, struct srpt_os_channel *ch,
				 struct srpt_os_recv *r)
{
	might_sleep_call(__func__);
	std::lock_guard<std::mutex> g(g_mu);
	if (!check_device_locked(dev, "srpt_os_recv_post") || !check_recv_locked(r, "srpt_os_recv_post"))
		return -EINVAL;
	if (ch && !check_channel_locked(ch, "srpt_os_recv_post"))
		return -EINVAL;
	if (const int err = count_call_locked("srpt_os_recv_post")) {
		if (ch)
			ch->recv_lost = true;
		return err;
	}
	const bool posted = r->posted_on || r->posted_on_srq;
	if (breach_locked(__func__, srpt_contract_recv_post(&dev->contract, posted, r->dev == dev, !ch)) &&
	    (posted || (!ch && !dev->srq)))
		return -EINVAL;
	if (ch)
		contract_check_locked(ch, SRPT_CONTRACT_RECV_POST, __func__);
	/* A full queue refuses the post, as a real HCA does; nothing changes. */
	if (ch && ch->qp_live() && srpt_qp_model_post_recv(&ch->qpm)) {
		ch->recv_lost = true;
		return -ENOMEM;
	}
	if (!ch && dev->srq) {
		std::size_t on_srq = 0;
		for (const srpt_os_recv *o : S().recvs)
			on_srq += o->posted_on_srq && o->dev == dev;
		if (on_srq >= srpt_qp_model_slots(dev->srq_size, S().config.softroce_queues))
			return -ENOMEM;
	}
	r->received_on = nullptr;
	r->post_count++;
	if (r->no_credit) {
		r->no_credit = false;
		if (ch)
			ch->credits++;
	}
	for (const srpt_os_cmd *c : S().cmds) {
		const auto *d = static_cast<const srpt_u8 *>(c->imm_data);
		if (d && d >= r->buf && d < r->iu + r->size)
			const_cast<srpt_os_cmd *>(c)->imm_given_back = true;
	}
	if (ch) {
		if (!ch->qp_live()) {
			ch->recv_lost = true;
			return -EINVAL;
		}
		r->posted_on = ch;
		ch->posted.push_back(r);
		check_cq_locked(ch, "srpt_os_recv_post");
	} else {
		r->posted_on_srq = true;
	}
	return 0;
}

extern "C" int srpt_os_srq_create(struct srpt_os_device *dev, srpt_u32 size)
{
	might_sleep_call(__func__);
	std::lock_guard<std::mutex> g(g_mu);
	if (!check_device_locked(dev, "srpt_os_srq_create"))
		return -EINVAL;
	trace_locked(strf("srq_create %s %u", dev->name.c_str(), size));
	if (const int err = count_call_locked("srpt_os_srq_create"))
		return err;
	breach_locked(__func__, srpt_contract_srq_create(&dev->contract));
	dev->contract.srq = 1;
	dev->srq = true;
	dev->srq_size = size;
	return 0;
}

extern "C" void srpt_os_srq_destroy(struct srpt_os_device *dev)
{
	might_sleep_call(__func__);
	std::lock_guard<std::mutex> g(g_mu);
	if (!check_device_locked(dev, "srpt_os_srq_destroy"))
		return;
	trace_locked("srq_destroy " + dev->name);
	count_call_locked("srpt_os_srq_destroy");
	breach_locked(__func__, srpt_contract_srq_destroy(&dev->contract));
	dev->contract.srq = 0;
	dev->srq = false;
	dev->srq_size = 0;
	unpost_locked(nullptr, dev);
}

/* ---- Commands ---- */

extern "C" struct srpt_os_cmd *srpt_os_cmd_alloc(struct srpt_os_channel *ch, struct srpt_cmd *core,
						 srpt_u32 rsp_size, void **rsp_buf,
						 const srpt_u8 **sense_buf)
{
	might_sleep_call(__func__);
	std::lock_guard<std::mutex> g(g_mu);
	if (!check_channel_locked(ch, "srpt_os_cmd_alloc"))
		return nullptr;
	if (count_call_locked("srpt_os_cmd_alloc"))
		return nullptr;
	static long seq;
	auto *c = new srpt_os_cmd;
	c->seq = ++seq;
	c->ch = ch;
	c->core = core;
	c->rsp_size = rsp_size;
	c->rsp_buf = static_cast<srpt_u8 *>(std::malloc(std::max<srpt_u32>(rsp_size, 1)));
	std::memset(c->rsp_buf, 0xa5, std::max<srpt_u32>(rsp_size, 1));
	S().cmds.insert(c);
	ch->contract.cmds++;
	*rsp_buf = c->rsp_buf;
	*sense_buf = c->sense;
	return c;
}

extern "C" void srpt_os_cmd_free(struct srpt_os_cmd *c)
{
	might_sleep_call(__func__);
	if (!c)
		return;
	std::lock_guard<std::mutex> g(g_mu);
	if (!check_cmd_locked(c, "srpt_os_cmd_free"))
		return;
	count_call_locked("srpt_os_cmd_free");
	if (S().channels.count(c->ch))
		c->ch->contract.cmds--;
	S().cmds.erase(c);
	std::free(c->rsp_buf);
	delete c;
}

extern "C" int srpt_os_cmd_init(struct srpt_os_cmd *c, srpt_u64 tag, srpt_u64 lun, srpt_u32 data_len,
				enum srpt_data_dir dir, enum srpt_task_attr task_attr)
{
	might_sleep_call(__func__);
	std::lock_guard<std::mutex> g(g_mu);
	if (!check_cmd_locked(c, "srpt_os_cmd_init"))
		return -EINVAL;
	trace_locked(strf("cmd_init tag %#llx", static_cast<unsigned long long>(tag)));
	c->init_calls++;
	breach_locked(__func__, srpt_contract_cmd_init(wrs_of(c)));
	if (const int err = count_call_locked("srpt_os_cmd_init"))
		return err;
	srpt_contract_cmd_init_done(&c->contract);
	c->info = CmdInfo{tag, lun, data_len, dir, task_attr};
	c->submitted = false;
	c->tmr = false;
	return 0;
}

extern "C" void srpt_os_cmd_map_imm(struct srpt_os_cmd *c, void *data, srpt_u32 len)
{
	might_sleep_call(__func__);
	std::lock_guard<std::mutex> g(g_mu);
	if (!check_cmd_locked(c, "srpt_os_cmd_map_imm"))
		return;
	count_call_locked("srpt_os_cmd_map_imm");
	c->imm_data = data;
	c->imm_len = len;
}

extern "C" int srpt_os_cmd_buf_add(struct srpt_os_cmd *c, srpt_u32 count, enum srpt_data_dir dir,
				   srpt_u64 va, srpt_u32 rkey, srpt_u32 len)
{
	might_sleep_call(__func__);
	std::lock_guard<std::mutex> g(g_mu);
	if (!check_cmd_locked(c, "srpt_os_cmd_buf_add"))
		return -EINVAL;
	breach_locked(__func__, srpt_contract_buf_add(&c->contract, count, dir, len));
	if (const int err = count_call_locked("srpt_os_cmd_buf_add")) {
		/* As the shim may have allocated some: released before the next. */
		srpt_contract_buf_add_done(&c->contract, count, dir, err);
		return err;
	}
	if (!c->contract.added) {
		c->rdma.clear();
		c->xfers.clear();
	}
	srpt_os_cmd::Rdma b{};
	b.va = va;
	b.rkey = rkey;
	b.len = len;
	b.kept = S().config.kept_page && count == 1 && dir == SRPT_DATA_IN && len <= 4096;
	c->rdma.push_back(b);
	const int ret = b.kept ? SRPT_BUF_KEPT : 0;
	srpt_contract_buf_add_done(&c->contract, count, dir, ret);
	return ret;
}

extern "C" int srpt_os_cmd_rdma_map(struct srpt_os_cmd *c, srpt_u32 buf, srpt_u32 off, srpt_u32 len)
{
	might_sleep_call(__func__);
	std::unique_lock<std::mutex> g(g_mu);
	if (!check_cmd_locked(c, "srpt_os_cmd_rdma_map"))
		return -EINVAL;
	c->map_calls++;
	if (buf >= c->rdma.size()) {
		breach_locked(__func__, srpt_contract_rdma_map(&c->contract, buf, off, len, 0, 0));
		return -EINVAL;
	}
	srpt_os_cmd::Rdma &b = c->rdma[buf];
	if (breach_locked(__func__, srpt_contract_rdma_map(&c->contract, buf, off, len, b.len, b.mapped)))
		violation_locked(strf("  (buffer %u of %zu, bytes %u+%u of %u)", buf, c->rdma.size(), off,
				      len, b.len));
	if (const int err = count_call_locked("srpt_os_cmd_rdma_map"))
		return err;
	const std::uint32_t per = S().config.rdma_bytes_per_wr;
	b.mapped = true;
	b.posted = false;
	b.map_off = off;
	b.map_len = len;
	const int wrs = static_cast<int>((per ? (len + per - 1) / per : 1) + S().config.rdma_extra_wrs);
	const std::function<void(srpt_os_cmd *)> hook = S().config.on_rdma_map;
	g.unlock();
	if (hook)
		hook(c);
	return wrs;
}

extern "C" void srpt_os_cmd_rdma_unmap(struct srpt_os_cmd *c, srpt_u32 buf)
{
	might_sleep_call(__func__);
	std::lock_guard<std::mutex> g(g_mu);
	if (!check_cmd_locked(c, "srpt_os_cmd_rdma_unmap"))
		return;
	count_call_locked("srpt_os_cmd_rdma_unmap");
	const bool known = buf < c->rdma.size();
	breach_locked(__func__, srpt_contract_rdma_unmap(&c->contract, buf,
							 known && c->rdma[buf].posted &&
							 (c->rdma_pending || c->sends_pending)));
	if (!known)
		return;
	srpt_os_cmd::Rdma &b = c->rdma[buf];
	b.mapped = false;
	b.posted = false;
}

extern "C" void srpt_os_cmd_release_data(struct srpt_os_cmd *c)
{
	might_sleep_call(__func__);
	std::lock_guard<std::mutex> g(g_mu);
	if (!check_cmd_locked(c, "srpt_os_cmd_release_data"))
		return;
	count_call_locked("srpt_os_cmd_release_data");
	c->release_data_calls++;
	breach_locked(__func__, srpt_contract_release_data(transfer_outstanding(c)));
	c->rdma.clear();
	c->xfers.clear();
	srpt_contract_release_data_done(&c->contract);
	c->imm_data = nullptr;
	c->imm_given_back = false;
	c->imm_len = 0;
}

extern "C" void srpt_os_cmd_submit(struct srpt_os_cmd *c, const srpt_u8 *cdb)
{
	std::function<void(srpt_os_cmd *)> hook;
	might_sleep_call(__func__);
	{
		std::lock_guard<std::mutex> g(g_mu);
		if (!check_cmd_locked(c, "srpt_os_cmd_submit"))
			return;
		trace_locked(strf("cmd_submit tag %#llx", static_cast<unsigned long long>(c->info.tag)));
		count_call_locked("srpt_os_cmd_submit");
		c->submit_calls++;
		bool reposted = false;
		for (const srpt_os_recv *r : S().recvs)
			if (cdb >= r->buf && cdb < r->iu + r->size && (r->posted_on || r->posted_on_srq))
				reposted = true;
		breach_locked(__func__, srpt_contract_submit(&c->contract, reposted));
		c->submitted = true;
		c->cdb.assign(cdb, cdb + 16);
		hook = S().config.on_submit;
	}
	if (hook)
		hook(c);
}

extern "C" void srpt_os_cmd_abort(struct srpt_os_cmd *c, enum srpt_write_failure why)
{
	might_sleep_call(__func__);
	std::lock_guard<std::mutex> g(g_mu);
	if (!check_cmd_locked(c, "srpt_os_cmd_abort"))
		return;
	const bool transient = why == SRPT_WRITE_TASK_SET_FULL;
	trace_locked(transient ? "cmd_abort transient" : "cmd_abort");
	count_call_locked("srpt_os_cmd_abort");
	breach_locked(__func__, srpt_contract_abort(wrs_of(c), why));
	c->abort_calls++;
	c->abort_transient = transient;
}

extern "C" int srpt_os_cmd_submit_tmr(struct srpt_os_cmd *c, srpt_u64 lun, enum srpt_tmf fn,
				      srpt_u64 task_tag, srpt_u64 tag)
{
	std::function<void(srpt_os_cmd *)> hook;
	might_sleep_call(__func__);
	{
		std::lock_guard<std::mutex> g(g_mu);
		if (!check_cmd_locked(c, "srpt_os_cmd_submit_tmr"))
			return -EINVAL;
		trace_locked(strf("cmd_submit_tmr fn %d", fn));
		c->submit_tmr_calls++;
		breach_locked(__func__, srpt_contract_submit_tmr(wrs_of(c)));
		if (const int err = count_call_locked("srpt_os_cmd_submit_tmr"))
			return err;
		c->tmr = true;
		srpt_contract_submit_tmr_done(&c->contract);
		c->submitted = false;
		c->tmr_lun = lun;
		c->tmr_fn = fn;
		c->tmr_task_tag = task_tag;
		c->tmr_tag = tag;
		hook = S().config.on_submit_tmr;
	}
	if (hook)
		hook(c);
	return 0;
}

extern "C" void srpt_os_cmd_execute(struct srpt_os_cmd *c)
{
	std::function<void(srpt_os_cmd *)> hook;
	might_sleep_call(__func__);
	{
		std::lock_guard<std::mutex> g(g_mu);
		if (!check_cmd_locked(c, "srpt_os_cmd_execute"))
			return;
		trace_locked("cmd_execute");
		count_call_locked("srpt_os_cmd_execute");
		c->execute_calls++;
		bool mapped = false;
		for (const srpt_os_cmd::Rdma &b : c->rdma)
			mapped = mapped || b.mapped;
		breach_locked(__func__, srpt_contract_execute(wrs_of(c), mapped, c->imm_given_back));
		hook = S().config.on_execute;
	}
	if (hook)
		hook(c);
}

extern "C" int srpt_os_cmd_post(struct srpt_os_cmd *c, srpt_u32 rsp_len, srpt_u32 kept_len,
				srpt_u32 mapped)
{
	might_sleep_call(__func__);
	std::lock_guard<std::mutex> g(g_mu);
	if (!check_cmd_locked(c, "srpt_os_cmd_post"))
		return -EINVAL;
	contract_check_locked(c->ch, SRPT_CONTRACT_CMD_POST, __func__);
	std::vector<srpt_os_cmd::Xfer> now;
	for (srpt_u32 i = 0; i < c->rdma.size(); i++) {
		const srpt_os_cmd::Rdma &b = c->rdma[i];
		if (b.mapped && !b.posted)
			now.push_back({i, b.map_off, b.map_len});
	}
	const bool kept = c->rdma.size() == 1 && c->rdma[0].kept;
	srpt_contract_post_call post{};
	post.rsp_len = rsp_len;
	post.kept_len = kept_len;
	post.mapped = mapped;
	post.now = static_cast<unsigned>(now.size());
	post.kept_len_max = kept ? c->rdma[0].len : 0;
	post.kept_posted = kept && c->rdma[0].posted;
	post.rsp_size = c->rsp_size;
	if (breach_locked(__func__, srpt_contract_post(&c->contract, &post, wrs_of(c))))
		violation_locked(strf("  (rsp_len %u, kept_len %u, mapped %u; %zu mapped, %d+%d posts "
				      "outstanding)", rsp_len, kept_len, mapped, now.size(),
				      c->rdma_pending, c->sends_pending));
	if (rsp_len)
		breach_locked(__func__, srpt_contract_rsp(c->rsp_buf, std::min(rsp_len, c->rsp_size)));
	if (kept_len && kept && !post.kept_posted && kept_len <= post.kept_len_max)
		now.push_back({0, 0, kept_len});
	trace_locked(strf("cmd_post %zu transfer%s%s", now.size(), now.size() == 1 ? "" : "s",
			  rsp_len ? strf(" and a %u-byte response", rsp_len).c_str() : ""));
	c->post_calls++;
	if (const int err = count_call_locked("srpt_os_cmd_post"))
		return err;
	int wrs = rsp_len ? 1 : 0;
	const std::uint32_t per = S().config.rdma_bytes_per_wr;
	for (const srpt_os_cmd::Xfer &x : now) {
		/* A kept buffer goes as one work request: it needs no registration. */
		if (c->rdma[x.buf].kept)
			wrs++;
		else
			wrs += static_cast<int>((per ? (x.len + per - 1) / per : 1) +
						S().config.rdma_extra_wrs);
	}
	/* The commands have max_rdma_ctxs of the QP's send queue; the rest is the core's own. */
	int used = wrs;
	for (const srpt_os_cmd *o : S().cmds)
		if (o->ch == c->ch)
			used += o->wrs_pending;
	if (breach_locked(__func__, srpt_contract_post_wrs(&c->ch->qp, static_cast<unsigned>(used))))
		violation_locked(strf("  (%d work requests of %u)", used, c->ch->qp.max_rdma_ctxs));
	/*
	 * A chain that does not fit: a real HCA posts the WRs that fit and
	 * fails at the first that does not (-ENOMEM, bad_wr), and the ones
	 * posted still complete. Nobody can take them back.
	 */
	if (!srpt_qp_model_send_fits(&c->ch->qpm, static_cast<unsigned>(wrs))) {
		violation_locked(strf("srpt_os_cmd_post of %d WRs with %u of %u send queue slots in use",
				      wrs, c->ch->qpm.sq_used, c->ch->qpm.sq_slots));
		return -ENOMEM;
	}
	srpt_qp_model_post_send(&c->ch->qpm, static_cast<unsigned>(wrs), 1);
	for (const srpt_os_cmd::Xfer &x : now) {
		c->rdma[x.buf].posted = true;
		c->xfers.push_back(x);
	}
	c->wrs_pending += wrs;
	if (rsp_len) {
		c->responses.emplace_back(c->rsp_buf, c->rsp_buf + std::min(rsp_len, c->rsp_size));
		const iu::Bytes &rsp = c->responses.back();
		if (rsp.size() >= 8) {
			srpt_os_channel *ch = c->ch;

			ch->credits += iu::get_be32(rsp, 4);
			if (!ch->qp.use_srq && !ch->recv_lost &&
			    ch->credits > static_cast<long>(ch->posted.size()))
				violation_locked(strf("a response leaves the initiator %ld credits for %zu "
						      "posted receive buffers",
						      ch->credits, ch->posted.size()));
		}
		c->responses_with_data.push_back(!now.empty());
		c->sends_pending++;
	} else {
		c->rdma_pending++;
	}
	check_cq_locked(c->ch, "srpt_os_cmd_post");
	return 0;
}

extern "C" void srpt_os_cmd_put(struct srpt_os_cmd *c)
{
	might_sleep_call(__func__);
	std::lock_guard<std::mutex> g(g_mu);
	if (!check_cmd_locked(c, "srpt_os_cmd_put"))
		return;
	count_call_locked("srpt_os_cmd_put");
	c->put_calls++;
}

extern "C" void srpt_os_cmd_done(struct srpt_os_cmd *c)
{
	might_sleep_call(__func__);
	std::lock_guard<std::mutex> g(g_mu);
	if (!check_cmd_locked(c, "srpt_os_cmd_done"))
		return;
	trace_locked("cmd_done");
	count_call_locked("srpt_os_cmd_done");
	c->done_calls++;
}

/* ---- The test side ---- */

srpt_os_channel::srpt_os_channel()
{
	std::lock_guard<std::mutex> g(g_mu);
	S().channels.insert(this);
}

srpt_os_channel::~srpt_os_channel()
{
	std::lock_guard<std::mutex> g(g_mu);
	if (core && !freed())
		violation_locked("fake channel destroyed while the core still owns it");
	unpost_locked(this, nullptr);
	S().channels.erase(this);
}

namespace fake::detail {

std::size_t flush_qp(srpt_os_channel &ch, bool everything)
{
	std::size_t n = 0;
	srpt_channel *core;
	{
		std::lock_guard<std::mutex> g(g_mu);
		if (!ch.core || !ch.qp_live() || ch.freed())
			return 0;
		core = ch.core;
	}
	/* The receive queue: every posted buffer completes with a flush error. */
	for (;;) {
		srpt_os_recv *r;
		{
			std::lock_guard<std::mutex> g(g_mu);
			if (ch.posted.empty())
				break;
			r = ch.posted.front();
			ch.posted.erase(ch.posted.begin());
			srpt_qp_model_recv_done(&ch.qpm);
			r->posted_on = nullptr;
			r->received_on = &ch;
		}
		srpt_core_recv_done(core, r->core, SRPT_WC_WR_FLUSH_ERR, 0, fake::now_ns());
		n++;
	}
	/* The send queue: zero-length writes, then (when destroying) the rest. */
	for (;;) {
		{
			std::lock_guard<std::mutex> g(g_mu);
			if (ch.zero_writes_pending <= 0)
				break;
		}
		fake::complete_zero_write(ch, false);
		n++;
	}
	if (!everything)
		return n;
	for (srpt_os_cmd *c : fake::cmds_of(ch)) {
		while (c->rdma_pending && fake::complete_rdma(c, false))
			n++;
		while (c->sends_pending && fake::complete_send(c, false))
			n++;
	}
	return n;
}

} // namespace fake::detail

namespace fake {

int login(Device &d, unsigned port, srpt_os_channel &ch, const srpt_login_info &info)
{
	{
		std::lock_guard<std::mutex> g(g_mu);
		ch.dev = &d;
		ch.cm = info.cm;
		ch.contract.peer_initiator_depth = info.initiator_depth;
		ch.contract.peer_responder_resources = info.responder_resources;
		ch.contract.in_cm_handler = 1;
		ch.cm_handler_thread = std::this_thread::get_id();
	}
	srpt_channel *out = nullptr;
	const int ret = srpt_core_login(d.core, port, &ch, &info, &out);
	{
		std::lock_guard<std::mutex> g(g_mu);
		ch.contract.in_cm_handler = 0;
		if (ret == 0 && out != ch.core)
			violation_locked("srpt_core_login returned another channel than it gave the QP");
		breach_locked("srpt_core_login", srpt_contract_login(&ch.contract, ret));
		/* A rejected channel is the shim's, which frees it. */
		if (ret != 0)
			ch.core = nullptr;
	}
	g_cv.notify_all();
	return ret;
}

int cm_code(const srpt_os_channel &ch, Cm what)
{
	static const int ib[] = {SRPT_IB_CM_RTU_RECEIVED, SRPT_IB_CM_DREQ_RECEIVED,
				 SRPT_IB_CM_TIMEWAIT_EXIT};
	static const int rdma[] = {SRPT_RDMA_CM_ESTABLISHED, SRPT_RDMA_CM_DISCONNECTED,
				   SRPT_RDMA_CM_TIMEWAIT_EXIT};

	return (ch.cm == SRPT_CM_IB ? ib : rdma)[static_cast<int>(what)];
}

void cm_event(srpt_os_channel &ch, Cm what)
{
	srpt_core_cm_event(ch.core, cm_code(ch, what));
}

srpt_os_recv *receive(srpt_os_channel &ch, const void *iu, std::size_t len, bool ok, Device *srq)
{
	srpt_os_recv *r = nullptr;
	srpt_wc_status status;
	srpt_channel *core;
	{
		std::lock_guard<std::mutex> g(g_mu);
		if (!check_channel_locked(&ch, "fake::receive") || !ch.core)
			return nullptr;
		if (srq) {
			for (const srpt_os_recv *cr : S().recvs)
				if (cr->posted_on_srq && cr->dev == srq &&
				    (!r || cr->post_count < r->post_count))
					r = const_cast<srpt_os_recv *>(cr);
		} else if (!ch.posted.empty()) {
			r = ch.posted.front();
		}
		if (!r)
			return nullptr;
		if (ok && len > r->size) {
			violation_locked(strf("fake::receive: a %zu-byte IU for a %u-byte buffer (test bug)",
					      len, r->size));
			return nullptr;
		}
		if (srq) {
			r->posted_on_srq = false;
		} else {
			ch.posted.erase(ch.posted.begin());
			srpt_qp_model_recv_done(&ch.qpm);
			r->posted_on = nullptr;
			/*
			 * Any IU takes a buffer: one that spends no credit counts
			 * as one until the core posts its buffer again.
			 */
			if (!ok) {
				ch.recv_lost = true;
			} else {
				const srpt_u8 op = len ? static_cast<const srpt_u8 *>(iu)[0] : 0;

				ch.credits--;
				r->no_credit = op != 0x01 && op != 0x02;
			}
		}
		r->received_on = &ch;
		for (const srpt_os_cmd *c : S().cmds) {
			const auto *d = static_cast<const srpt_u8 *>(c->imm_data);
			if (d && !c->imm_given_back && d >= r->buf && d < r->iu + r->size)
				violation_locked("an IU overwrote immediate data a command still holds");
		}
		if (ok && len)
			std::memcpy(r->iu, iu, len);
		core = ch.core;
		status = wc_status_locked(ok);
	}
	srpt_core_recv_done(core, r->core, status, ok ? static_cast<srpt_u32>(len) : 0, fake::now_ns());
	return r;
}

std::size_t srq_posted(const Device &d)
{
	std::lock_guard<std::mutex> g(g_mu);
	std::size_t n = 0;
	for (const srpt_os_recv *r : S().recvs)
		if (r->posted_on_srq && r->dev == &d)
			n++;
	return n;
}

bool complete_zero_write(srpt_os_channel &ch, bool ok)
{
	srpt_wc_status status;
	srpt_channel *core;
	{
		std::lock_guard<std::mutex> g(g_mu);
		if (!check_channel_locked(&ch, "fake::complete_zero_write"))
			return false;
		if (ch.zero_writes_pending <= 0 || !ch.core) {
			violation_locked("a zero-length write completes that was never posted (test bug)");
			return false;
		}
		ch.zero_writes_pending--;
		srpt_qp_model_send_done(&ch.qpm, 1, 1);
		core = ch.core;
		status = wc_status_locked(ok);
	}
	srpt_core_zero_write_done(core, status);
	return true;
}

int lio_queue_response(srpt_os_cmd *cmd, srpt_cmd_status st, bool with_data)
{
	{
		std::lock_guard<std::mutex> g(g_mu);
		if (with_data && check_cmd_locked(cmd, "queue_data_in"))
			cmd->contract.data_in_ready = 1;
	}
	return srpt_core_queue_response(cmd->core, st, with_data);
}

bool complete_send(srpt_os_cmd *cmd, bool ok)
{
	srpt_wc_status status;
	srpt_cmd *core;
	{
		std::lock_guard<std::mutex> g(g_mu);
		if (!check_cmd_locked(cmd, "fake::complete_send"))
			return false;
		if (cmd->sends_pending <= 0) {
			violation_locked("a send completes that was never posted (test bug)");
			return false;
		}
		cmd->sends_pending--;
		srpt_qp_model_send_done(&cmd->ch->qpm, static_cast<unsigned>(cmd->wrs_pending), 1);
		cmd->wrs_pending = 0;
		core = cmd->core;
		status = wc_status_locked(ok);
	}
	srpt_core_send_done(core, status, fake::now_ns());
	return true;
}

bool complete_rdma(srpt_os_cmd *cmd, bool ok)
{
	srpt_wc_status status;
	srpt_cmd *core;
	{
		std::lock_guard<std::mutex> g(g_mu);
		if (!check_cmd_locked(cmd, "fake::complete_rdma"))
			return false;
		if (cmd->rdma_pending <= 0) {
			violation_locked("an RDMA transfer completes that was never posted (test bug)");
			return false;
		}
		cmd->rdma_pending--;
		srpt_qp_model_send_done(&cmd->ch->qpm, static_cast<unsigned>(cmd->wrs_pending), 1);
		cmd->wrs_pending = 0;
		core = cmd->core;
		status = wc_status_locked(ok);
	}
	srpt_core_rdma_done(core, status);
	return true;
}

int send_queue_used(const srpt_os_channel &ch)
{
	std::lock_guard<std::mutex> g(g_mu);
	int n = 0;
	for (const srpt_os_cmd *c : S().cmds)
		if (c->ch == &ch)
			n += c->wrs_pending;
	return n;
}

std::vector<srpt_os_cmd *> cmds_of(const srpt_os_channel &ch)
{
	std::lock_guard<std::mutex> g(g_mu);
	std::vector<srpt_os_cmd *> v;
	for (const srpt_os_cmd *c : S().cmds)
		if (c->ch == &ch)
			v.push_back(const_cast<srpt_os_cmd *>(c));
	std::sort(v.begin(), v.end(), [](auto *a, auto *b) { return a->seq < b->seq; });
	return v;
}

srpt_os_recv *recv_holding(const void *p)
{
	std::lock_guard<std::mutex> g(g_mu);
	const auto *b = static_cast<const srpt_u8 *>(p);
	for (const srpt_os_recv *r : S().recvs)
		if (b >= r->buf && b < r->iu + r->size)
			return const_cast<srpt_os_recv *>(r);
	return nullptr;
}

std::size_t live_channels()
{
	std::lock_guard<std::mutex> g(g_mu);
	std::size_t n = 0;
	for (const srpt_os_channel *ch : S().channels)
		if (ch->core && !ch->freed())
			n++;
	return n;
}

std::size_t live_recvs()
{
	std::lock_guard<std::mutex> g(g_mu);
	return S().recvs.size();
}

std::size_t live_cmds()
{
	std::lock_guard<std::mutex> g(g_mu);
	return S().cmds.size();
}

} // namespace fake
