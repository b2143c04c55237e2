// SPDX-License-Identifier: GPL-2.0-only
/*
 * The fake of the shims' channel side: IB/CM listening, channels (CM id,
 * QP, LIO session), receive buffers and the SRQ, and commands (send
 * contexts). Each function records its call and the state a test can
 * check, accepts an injected failure (fake::fail_call), and reports
 * misuse the kernel would punish as a violation: use after the core freed
 * an object, teardown out of the documented order, posting a buffer
 * twice, sleeping in atomic context.
 */
#include "fake_internal.h"

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
	if (ch->freed)
		violation_locked(strf("%s on a channel after srpt_os_channel_free()", fn));
	return ch;
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
	return c;
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
	if (ch)
		ch->posted.clear();
}

} // namespace

/* ---- IB/CM ---- */

extern "C" int srpt_os_ib_cm_listen(struct srpt_os_device *os, srpt_u64 service_id)
{
	might_sleep("srpt_os_ib_cm_listen");
	std::lock_guard<std::mutex> g(g_mu);
	if (!check_device_locked(os, "srpt_os_ib_cm_listen"))
		return -EINVAL;
	trace_locked(strf("ib_cm_listen %s %#llx", os->name.c_str(),
			  static_cast<unsigned long long>(service_id)));
	if (const int err = count_call_locked("srpt_os_ib_cm_listen"))
		return err;
	if (os->ib_cm_listening)
		violation_locked("srpt_os_ib_cm_listen on " + os->name + " while listening");
	os->ib_cm_listening = true;
	os->ib_cm_service_id = service_id;
	return 0;
}

extern "C" void srpt_os_ib_cm_stop(struct srpt_os_device *os)
{
	might_sleep("srpt_os_ib_cm_stop");
	std::lock_guard<std::mutex> g(g_mu);
	if (!check_device_locked(os, "srpt_os_ib_cm_stop"))
		return;
	trace_locked("ib_cm_stop " + os->name);
	count_call_locked("srpt_os_ib_cm_stop");
	os->ib_cm_listening = false;
}

/* ---- Channels ---- */

extern "C" int srpt_os_channel_create_qp(struct srpt_os_channel *os, struct srpt_channel *core,
					 const struct srpt_qp_params *p)
{
	might_sleep("srpt_os_channel_create_qp");
	std::lock_guard<std::mutex> g(g_mu);
	if (!check_channel_locked(os, "srpt_os_channel_create_qp"))
		return -EINVAL;
	trace_locked("channel_create_qp");
	if (const int err = count_call_locked("srpt_os_channel_create_qp"))
		return err;
	if (os->qp_created && !os->qp_destroyed)
		violation_locked("srpt_os_channel_create_qp twice");
	if (!core)
		violation_locked("srpt_os_channel_create_qp without the core's channel");
	os->core = core;
	os->qp = *p;
	os->qp_created = true;
	os->qp_destroyed = false;
	return 0;
}

extern "C" int srpt_os_channel_open_session(struct srpt_os_channel *os, struct srpt_os_tpg *tpg,
					    const char *initiator)
{
	might_sleep("srpt_os_channel_open_session");
	std::lock_guard<std::mutex> g(g_mu);
	if (!check_channel_locked(os, "srpt_os_channel_open_session"))
		return -EINVAL;
	trace_locked(strf("channel_open_session %s", initiator ? initiator : "(null)"));
	if (const int err = count_call_locked("srpt_os_channel_open_session"))
		return err;
	if (os->session_open)
		violation_locked("srpt_os_channel_open_session twice");
	if (!tpg || !initiator)
		violation_locked("srpt_os_channel_open_session without a TPG or initiator");
	os->session_open = true;
	os->session_tpg = tpg;
	os->session_initiator = initiator ? initiator : "";
	return 0;
}

extern "C" int srpt_os_channel_accept(struct srpt_os_channel *os, const void *rsp, srpt_size_t len)
{
	might_sleep("srpt_os_channel_accept");
	std::lock_guard<std::mutex> g(g_mu);
	if (!check_channel_locked(os, "srpt_os_channel_accept"))
		return -EINVAL;
	trace_locked(strf("channel_accept %zu", len));
	os->accept_calls++;
	if (const int err = count_call_locked("srpt_os_channel_accept"))
		return err;
	if (!os->qp_created)
		violation_locked("srpt_os_channel_accept without a QP");
	const auto *b = static_cast<const srpt_u8 *>(rsp);
	os->accept_rsp.assign(b, b + len);
	return 0;
}

extern "C" void srpt_os_cm_reject(struct srpt_os_channel *os, const void *rej, srpt_size_t len)
{
	might_sleep("srpt_os_cm_reject");
	std::lock_guard<std::mutex> g(g_mu);
	if (!check_channel_locked(os, "srpt_os_cm_reject"))
		return;
	trace_locked(strf("cm_reject %zu", len));
	count_call_locked("srpt_os_cm_reject");
	os->reject_calls++;
	const auto *b = static_cast<const srpt_u8 *>(rej);
	os->reject.assign(b, b + len);
}

extern "C" int srpt_os_channel_ready(struct srpt_os_channel *os)
{
	std::lock_guard<std::mutex> g(g_mu);
	if (!check_channel_locked(os, "srpt_os_channel_ready"))
		return -EINVAL;
	trace_locked("channel_ready");
	os->ready_calls++;
	return count_call_locked("srpt_os_channel_ready");
}

extern "C" void srpt_os_channel_notify_established(struct srpt_os_channel *os)
{
	std::lock_guard<std::mutex> g(g_mu);
	if (!check_channel_locked(os, "srpt_os_channel_notify_established"))
		return;
	trace_locked("channel_notify_established");
	count_call_locked("srpt_os_channel_notify_established");
	os->notify_established_calls++;
}

extern "C" int srpt_os_channel_disconnect(struct srpt_os_channel *os)
{
	std::lock_guard<std::mutex> g(g_mu);
	if (!check_channel_locked(os, "srpt_os_channel_disconnect"))
		return -EINVAL;
	trace_locked("channel_disconnect");
	os->disconnect_calls++;
	return count_call_locked("srpt_os_channel_disconnect");
}

extern "C" int srpt_os_channel_qp_error(struct srpt_os_channel *os)
{
	std::lock_guard<std::mutex> g(g_mu);
	if (!check_channel_locked(os, "srpt_os_channel_qp_error"))
		return -EINVAL;
	trace_locked("channel_qp_error");
	os->qp_error_calls++;
	return count_call_locked("srpt_os_channel_qp_error");
}

extern "C" int srpt_os_channel_post_zero_write(struct srpt_os_channel *os)
{
	std::lock_guard<std::mutex> g(g_mu);
	if (!check_channel_locked(os, "srpt_os_channel_post_zero_write"))
		return -EINVAL;
	trace_locked("channel_post_zero_write");
	os->zero_write_calls++;
	return count_call_locked("srpt_os_channel_post_zero_write");
}

extern "C" void srpt_os_channel_close_session(struct srpt_os_channel *os)
{
	might_sleep("srpt_os_channel_close_session");
	std::lock_guard<std::mutex> g(g_mu);
	if (!check_channel_locked(os, "srpt_os_channel_close_session"))
		return;
	trace_locked("channel_close_session");
	count_call_locked("srpt_os_channel_close_session");
	if (os->cm_destroyed || os->qp_destroyed)
		violation_locked("srpt_os_channel_close_session after the CM id or QP was destroyed");
	os->session_closed = true;
	os->session_open = false;
}

extern "C" void srpt_os_channel_destroy_cm(struct srpt_os_channel *os)
{
	might_sleep("srpt_os_channel_destroy_cm");
	std::lock_guard<std::mutex> g(g_mu);
	if (!check_channel_locked(os, "srpt_os_channel_destroy_cm"))
		return;
	trace_locked("channel_destroy_cm");
	count_call_locked("srpt_os_channel_destroy_cm");
	if (os->session_open)
		violation_locked("srpt_os_channel_destroy_cm while the LIO session is open");
	if (os->cm_destroyed)
		violation_locked("srpt_os_channel_destroy_cm twice");
	if (os->qp_destroyed)
		violation_locked("srpt_os_channel_destroy_cm after the QP was destroyed");
	os->cm_destroyed = true;
}

extern "C" void srpt_os_channel_destroy_qp(struct srpt_os_channel *os)
{
	might_sleep("srpt_os_channel_destroy_qp");
	std::lock_guard<std::mutex> g(g_mu);
	if (!check_channel_locked(os, "srpt_os_channel_destroy_qp"))
		return;
	trace_locked("channel_destroy_qp");
	count_call_locked("srpt_os_channel_destroy_qp");
	if (!os->qp_created || os->qp_destroyed)
		violation_locked("srpt_os_channel_destroy_qp without a QP");
	if (os->session_open)
		violation_locked("srpt_os_channel_destroy_qp while the LIO session is open");
	os->qp_destroyed = true;
	unpost_locked(os, nullptr);
}

extern "C" void srpt_os_channel_free(struct srpt_os_channel *os)
{
	might_sleep("srpt_os_channel_free");
	std::lock_guard<std::mutex> g(g_mu);
	if (!check_channel_locked(os, "srpt_os_channel_free"))
		return;
	trace_locked("channel_free");
	count_call_locked("srpt_os_channel_free");
	if (os->session_open)
		violation_locked("srpt_os_channel_free with the LIO session open");
	if (!os->cm_destroyed)
		violation_locked("srpt_os_channel_free before srpt_os_channel_destroy_cm");
	if (os->qp_created && !os->qp_destroyed)
		violation_locked("srpt_os_channel_free before srpt_os_channel_destroy_qp");
	for (const srpt_os_cmd *c : S().cmds)
		if (c->ch == os)
			violation_locked("srpt_os_channel_free with a command still allocated");
	os->freed = true;
}

/* ---- Receive buffers and the SRQ ---- */

extern "C" struct srpt_os_recv *srpt_os_recv_alloc(struct srpt_os_device *dev,
						   struct srpt_recv *core, srpt_u32 size,
						   srpt_u32 align_offset, void **iu)
{
	might_sleep("srpt_os_recv_alloc");
	std::lock_guard<std::mutex> g(g_mu);
	if (!check_device_locked(dev, "srpt_os_recv_alloc"))
		return nullptr;
	if (count_call_locked("srpt_os_recv_alloc"))
		return nullptr;
	if (align_offset >= 512)
		violation_locked(strf("srpt_os_recv_alloc with alignment offset %u", align_offset));
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
	if (!r)
		return;
	std::lock_guard<std::mutex> g(g_mu);
	if (!check_recv_locked(r, "srpt_os_recv_free"))
		return;
	count_call_locked("srpt_os_recv_free");
	if (r->posted_on || r->posted_on_srq)
		violation_locked("srpt_os_recv_free of a buffer still posted");
	S().recvs.erase(r);
	std::free(r->buf);
	delete r;
}

extern "C" int srpt_os_recv_post(struct srpt_os_device *dev, struct srpt_os_channel *ch,
				 struct srpt_os_recv *r)
{
	std::lock_guard<std::mutex> g(g_mu);
	if (!check_device_locked(dev, "srpt_os_recv_post") || !check_recv_locked(r, "srpt_os_recv_post"))
		return -EINVAL;
	if (ch && !check_channel_locked(ch, "srpt_os_recv_post"))
		return -EINVAL;
	if (const int err = count_call_locked("srpt_os_recv_post"))
		return err;
	if (r->posted_on || r->posted_on_srq) {
		violation_locked("srpt_os_recv_post of a buffer already posted");
		return -EINVAL;
	}
	if (r->dev != dev)
		violation_locked("srpt_os_recv_post on another device than the buffer's");
	if (ch) {
		if (!ch->qp_created || ch->qp_destroyed) {
			violation_locked("srpt_os_recv_post on a channel without a QP");
			return -EINVAL;
		}
		r->posted_on = ch;
		ch->posted.push_back(r);
	} else {
		if (!dev->srq) {
			violation_locked("srpt_os_recv_post on " + dev->name + ", which has no SRQ");
			return -EINVAL;
		}
		r->posted_on_srq = true;
	}
	return 0;
}

extern "C" int srpt_os_srq_create(struct srpt_os_device *dev, srpt_u32 size)
{
	might_sleep("srpt_os_srq_create");
	std::lock_guard<std::mutex> g(g_mu);
	if (!check_device_locked(dev, "srpt_os_srq_create"))
		return -EINVAL;
	trace_locked(strf("srq_create %s %u", dev->name.c_str(), size));
	if (const int err = count_call_locked("srpt_os_srq_create"))
		return err;
	if (dev->srq)
		violation_locked("srpt_os_srq_create on " + dev->name + ", which has one");
	dev->srq = true;
	dev->srq_size = size;
	return 0;
}

extern "C" void srpt_os_srq_destroy(struct srpt_os_device *dev)
{
	might_sleep("srpt_os_srq_destroy");
	std::lock_guard<std::mutex> g(g_mu);
	if (!check_device_locked(dev, "srpt_os_srq_destroy"))
		return;
	trace_locked("srq_destroy " + dev->name);
	count_call_locked("srpt_os_srq_destroy");
	if (!dev->srq)
		violation_locked("srpt_os_srq_destroy on " + dev->name + ", which has none");
	dev->srq = false;
	dev->srq_size = 0;
	unpost_locked(nullptr, dev);
}

/* ---- Commands ---- */

extern "C" struct srpt_os_cmd *srpt_os_cmd_alloc(struct srpt_os_channel *ch, struct srpt_cmd *core,
						 srpt_u32 rsp_size, void **rsp_buf)
{
	might_sleep("srpt_os_cmd_alloc");
	std::lock_guard<std::mutex> g(g_mu);
	if (!check_channel_locked(ch, "srpt_os_cmd_alloc"))
		return nullptr;
	if (count_call_locked("srpt_os_cmd_alloc"))
		return nullptr;
	auto *c = new srpt_os_cmd;
	c->ch = ch;
	c->core = core;
	c->rsp_size = rsp_size;
	c->rsp_buf = static_cast<srpt_u8 *>(std::malloc(std::max<srpt_u32>(rsp_size, 1)));
	std::memset(c->rsp_buf, 0xa5, std::max<srpt_u32>(rsp_size, 1));
	S().cmds.insert(c);
	*rsp_buf = c->rsp_buf;
	return c;
}

extern "C" void srpt_os_cmd_free(struct srpt_os_cmd *c)
{
	if (!c)
		return;
	std::lock_guard<std::mutex> g(g_mu);
	if (!check_cmd_locked(c, "srpt_os_cmd_free"))
		return;
	count_call_locked("srpt_os_cmd_free");
	S().cmds.erase(c);
	std::free(c->rsp_buf);
	delete c;
}

extern "C" int srpt_os_cmd_init(struct srpt_os_cmd *c, const struct srpt_cmd_info *info)
{
	std::lock_guard<std::mutex> g(g_mu);
	if (!check_cmd_locked(c, "srpt_os_cmd_init"))
		return -EINVAL;
	trace_locked(strf("cmd_init tag %#llx", static_cast<unsigned long long>(info->tag)));
	if (const int err = count_call_locked("srpt_os_cmd_init"))
		return err;
	c->inited = true;
	c->info = *info;
	c->submitted = false;
	c->tmr = false;
	return 0;
}

extern "C" void srpt_os_cmd_map_imm(struct srpt_os_cmd *c, void *data, srpt_u32 len)
{
	std::lock_guard<std::mutex> g(g_mu);
	if (!check_cmd_locked(c, "srpt_os_cmd_map_imm"))
		return;
	count_call_locked("srpt_os_cmd_map_imm");
	c->imm_data = data;
	c->imm_len = len;
}

extern "C" int srpt_os_cmd_rdma_prepare(struct srpt_os_cmd *c, srpt_u32 count, enum srpt_data_dir dir)
{
	std::lock_guard<std::mutex> g(g_mu);
	if (!check_cmd_locked(c, "srpt_os_cmd_rdma_prepare"))
		return -EINVAL;
	if (const int err = count_call_locked("srpt_os_cmd_rdma_prepare"))
		return err;
	c->rdma_count = count;
	c->rdma_dir = dir;
	c->rdma.clear();
	return 0;
}

extern "C" int srpt_os_cmd_rdma_add(struct srpt_os_cmd *c, srpt_u64 va, srpt_u32 rkey, srpt_u32 len)
{
	std::lock_guard<std::mutex> g(g_mu);
	if (!check_cmd_locked(c, "srpt_os_cmd_rdma_add"))
		return -EINVAL;
	if (const int err = count_call_locked("srpt_os_cmd_rdma_add"))
		return err;
	if (c->rdma.size() >= c->rdma_count)
		violation_locked("srpt_os_cmd_rdma_add beyond the prepared count");
	c->rdma.push_back({va, rkey, len});
	return 1;	/* one work request per buffer */
}

extern "C" void srpt_os_cmd_release_data(struct srpt_os_cmd *c)
{
	std::lock_guard<std::mutex> g(g_mu);
	if (!check_cmd_locked(c, "srpt_os_cmd_release_data"))
		return;
	count_call_locked("srpt_os_cmd_release_data");
	c->release_data_calls++;
	c->rdma.clear();
	c->rdma_count = 0;
	c->imm_data = nullptr;
	c->imm_len = 0;
}

extern "C" void srpt_os_cmd_submit(struct srpt_os_cmd *c, const srpt_u8 *cdb)
{
	std::lock_guard<std::mutex> g(g_mu);
	if (!check_cmd_locked(c, "srpt_os_cmd_submit"))
		return;
	trace_locked(strf("cmd_submit tag %#llx", static_cast<unsigned long long>(c->info.tag)));
	count_call_locked("srpt_os_cmd_submit");
	if (!c->inited)
		violation_locked("srpt_os_cmd_submit before srpt_os_cmd_init");
	c->submitted = true;
	c->cdb.assign(cdb, cdb + 16);
}

extern "C" void srpt_os_cmd_abort(struct srpt_os_cmd *c)
{
	std::lock_guard<std::mutex> g(g_mu);
	if (!check_cmd_locked(c, "srpt_os_cmd_abort"))
		return;
	trace_locked("cmd_abort");
	count_call_locked("srpt_os_cmd_abort");
	c->abort_calls++;
}

extern "C" int srpt_os_cmd_submit_tmr(struct srpt_os_cmd *c, srpt_u64 lun, enum srpt_tmf fn,
				      srpt_u64 task_tag, srpt_u64 tag)
{
	std::lock_guard<std::mutex> g(g_mu);
	if (!check_cmd_locked(c, "srpt_os_cmd_submit_tmr"))
		return -EINVAL;
	trace_locked(strf("cmd_submit_tmr fn %d", fn));
	if (const int err = count_call_locked("srpt_os_cmd_submit_tmr"))
		return err;
	c->tmr = true;
	c->tmr_lun = lun;
	c->tmr_fn = fn;
	c->tmr_task_tag = task_tag;
	c->tmr_tag = tag;
	return 0;
}

extern "C" void srpt_os_cmd_execute(struct srpt_os_cmd *c)
{
	std::lock_guard<std::mutex> g(g_mu);
	if (!check_cmd_locked(c, "srpt_os_cmd_execute"))
		return;
	trace_locked("cmd_execute");
	count_call_locked("srpt_os_cmd_execute");
	c->execute_calls++;
}

extern "C" int srpt_os_cmd_post_rdma_read(struct srpt_os_cmd *c)
{
	std::lock_guard<std::mutex> g(g_mu);
	if (!check_cmd_locked(c, "srpt_os_cmd_post_rdma_read"))
		return -EINVAL;
	trace_locked("cmd_post_rdma_read");
	c->rdma_read_calls++;
	return count_call_locked("srpt_os_cmd_post_rdma_read");
}

extern "C" int srpt_os_cmd_post_response(struct srpt_os_cmd *c, srpt_u32 len, int with_data)
{
	std::lock_guard<std::mutex> g(g_mu);
	if (!check_cmd_locked(c, "srpt_os_cmd_post_response"))
		return -EINVAL;
	trace_locked(strf("cmd_post_response %u%s", len, with_data ? " with data" : ""));
	if (const int err = count_call_locked("srpt_os_cmd_post_response"))
		return err;
	if (len > c->rsp_size)
		violation_locked(strf("srpt_os_cmd_post_response of %u bytes from a %u-byte buffer",
				      len, c->rsp_size));
	c->responses.emplace_back(c->rsp_buf, c->rsp_buf + std::min(len, c->rsp_size));
	c->responses_with_data.push_back(with_data);
	return 0;
}

extern "C" void srpt_os_cmd_put(struct srpt_os_cmd *c)
{
	std::lock_guard<std::mutex> g(g_mu);
	if (!check_cmd_locked(c, "srpt_os_cmd_put"))
		return;
	count_call_locked("srpt_os_cmd_put");
	c->put_calls++;
}

extern "C" void srpt_os_cmd_done(struct srpt_os_cmd *c)
{
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
	if (core && !freed)
		violation_locked("fake channel destroyed while the core still owns it");
	unpost_locked(this, nullptr);
	S().channels.erase(this);
}

namespace fake {

std::size_t live_channels()
{
	std::lock_guard<std::mutex> g(g_mu);
	std::size_t n = 0;
	for (const srpt_os_channel *ch : S().channels)
		if (ch->core && !ch->freed)
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
