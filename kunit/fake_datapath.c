// SPDX-License-Identifier: GPL-2.0-only
/*
 * Test double of the data path callouts of include/srpt/abi.h: channels,
 * receive buffers, the SRQ and commands. See fake_datapath.h.
 */
#include <linux/atomic.h>
#include <linux/bitops.h>
#include <linux/bug.h>
#include <linux/errno.h>
#include <linux/hardirq.h>
#include <linux/irqflags.h>
#include <linux/kernel.h>
#include <linux/sched/clock.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/string.h>
#include <linux/workqueue.h>

#include "fake_datapath.h"
#include "../tests/doubles/names.h"
#include "fake_ib.h"

/* Guards the posting state (post_node) of every receive buffer. */
static DEFINE_SPINLOCK(fake_recv_lock);
static atomic_t fake_recvs_live = ATOMIC_INIT(0);
static atomic_t fake_cmds_live = ATOMIC_INIT(0);
static atomic_t fake_violation_count = ATOMIC_INIT(0);
/* Violations a case provokes on purpose: no WARN, the last one's text kept. */
static bool fake_violations_expected;
static char fake_last[160];

static const char * const fake_call_names[FAKE_NR_CALLS] = {
	[FAKE_CREATE_QP] = "create_qp",
	[FAKE_OPEN_SESSION] = "open_session",
	[FAKE_ACCEPT] = "accept",
	[FAKE_CM_REJECT] = "cm_reject",
	[FAKE_READY] = "ready",
	[FAKE_NOTIFY_ESTABLISHED] = "notify_established",
	[FAKE_DISCONNECT] = "disconnect",
	[FAKE_QP_ERROR] = "qp_error",
	[FAKE_ZERO_WRITE] = "post_zero_write",
	[FAKE_CLOSE_SESSION] = "close_session",
	[FAKE_DESTROY_CM] = "destroy_cm",
	[FAKE_DESTROY_QP] = "destroy_qp",
	[FAKE_FREE] = "free",
	[FAKE_RECV_POST] = "recv_post",
	[FAKE_CMD_INIT] = "cmd_init",
	[FAKE_CMD_MAP_IMM] = "cmd_map_imm",
	[FAKE_CMD_BUF_ADD] = "cmd_buf_add",
	[FAKE_CMD_RDMA_MAP] = "cmd_rdma_map",
	[FAKE_CMD_RDMA_UNMAP] = "cmd_rdma_unmap",
	[FAKE_CMD_RELEASE_DATA] = "cmd_release_data",
	[FAKE_CMD_SUBMIT] = "cmd_submit",
	[FAKE_CMD_ABORT] = "cmd_abort",
	[FAKE_CMD_SUBMIT_TMR] = "cmd_submit_tmr",
	[FAKE_CMD_EXECUTE] = "cmd_execute",
	[FAKE_CMD_POST_RDMA] = "cmd_post_rdma",
	[FAKE_CMD_POST_RESPONSE] = "cmd_post_response",
	[FAKE_CMD_PUT] = "cmd_put",
	[FAKE_CMD_DONE] = "cmd_done",
};

const char *fake_call_name(unsigned int call)
{
	return call < FAKE_NR_CALLS ? fake_call_names[call] : "?";
}

static __printf(1, 2) void violation(const char *fmt, ...)
{
	struct va_format vaf;
	va_list args;

	atomic_inc(&fake_violation_count);
	va_start(args, fmt);
	vaf.fmt = fmt;
	vaf.va = &args;
	if (READ_ONCE(fake_violations_expected))
		snprintf(fake_last, sizeof(fake_last), "%pV", &vaf);
	else
		WARN(1, "fake_datapath: %pV\n", &vaf);
	va_end(args);
}

bool fake_breach(const char *fn, const char *why)
{
	if (!why)
		return false;
	violation("%s: %s", fn, why);
	return true;
}

/* Interrupts disabled (under the core's spinlocks, irqsave) or not in a task: atomic. */
void fake_might_sleep(const char *fn)
{
	if (srpt_contract_may_sleep(fn) && (irqs_disabled() || !in_task()))
		violation("%s may sleep but was called in atomic context", fn);
}

void fake_expect_violations(bool expect)
{
	fake_last[0] = 0;
	WRITE_ONCE(fake_violations_expected, expect);
}

const char *fake_last_violation(void)
{
	return fake_last;
}

int fake_violations(void)
{
	return atomic_read(&fake_violation_count);
}

void fake_reset_violations(void)
{
	atomic_set(&fake_violation_count, 0);
}

int fake_live_recvs(void)
{
	return atomic_read(&fake_recvs_live);
}

int fake_live_cmds(void)
{
	return atomic_read(&fake_cmds_live);
}

/*
 * Records @call, the srpt_os_* function @fn; false (after a violation)
 * when @ch may not be called.
 */
static bool record_fn(struct srpt_os_channel *ch, enum fake_call call, const char *fn)
{
	unsigned long flags;
	const char *why;
	bool gone;

	fake_might_sleep(fn);
	spin_lock_irqsave(&ch->lock, flags);
	ch->calls[call]++;
	ch->log[ch->n_log % FAKE_LOG_LEN] = call;
	ch->n_log++;
	why = srpt_contract_check(&ch->contract, SRPT_CONTRACT_ANY);
	gone = ch->gone;
	spin_unlock_irqrestore(&ch->lock, flags);
	if (fake_breach(fn, why))
		return false;
	if (gone) {
		violation("%s after the core rejected the login of the channel", fn);
		return false;
	}
	return true;
}

#define record(ch, call) record_fn((ch), (call), __func__)

/* A breach of the channel contract both doubles share is a violation. */
#define contract_check(ch, call) fake_breach(__func__, srpt_contract_check(&(ch)->contract, (call)))

static void contract_done(struct srpt_os_channel *ch, enum srpt_contract_call call)
{
	unsigned long flags;

	spin_lock_irqsave(&ch->lock, flags);
	srpt_contract_done(&ch->contract, call);
	spin_unlock_irqrestore(&ch->lock, flags);
}

static bool cmd_record_fn(struct srpt_os_cmd *cmd, enum fake_call call, const char *fn)
{
	cmd->calls[call]++;
	cmd->ch->last_cmd = cmd;
	return record_fn(cmd->ch, call, fn);
}

#define cmd_record(cmd, call) cmd_record_fn((cmd), (call), __func__)

/* The send context's outstanding posts, and the send WRs all of its channel's commands take. */
static struct srpt_contract_wrs cmd_wrs(struct srpt_os_cmd *cmd, unsigned int *cmds_wrs)
{
	struct srpt_os_channel *ch = cmd->ch;
	struct srpt_contract_wrs w = {};
	unsigned long flags;
	unsigned int i, all = 0;

	spin_lock_irqsave(&ch->lock, flags);
	for (i = 0; i < ch->sq_len; i++) {
		const struct fake_wr *wr = &ch->sq[(ch->sq_head + i) % FAKE_SQ_DEPTH];

		if (wr->kind == FAKE_WR_ZERO_WRITE)
			continue;
		all += wr->wrs;
		if (wr->cmd != cmd)
			continue;
		if (wr->kind == FAKE_WR_RDMA)
			w.rdma++;
		else
			w.sends++;
	}
	spin_unlock_irqrestore(&ch->lock, flags);
	if (cmds_wrs)
		*cmds_wrs = all;
	return w;
}

/* Whether @p lies in a receive buffer posted on @ch's queue or its device's SRQ. */
static bool posted_at(struct srpt_os_channel *ch, const void *p)
{
	struct list_head *queues[2] = { &ch->rq, ch->dev->srq ? &ch->dev->srq_posted : NULL };
	const u8 *b = p;
	struct srpt_os_recv *r;
	unsigned long flags;
	bool found = false;
	int i;

	if (!p)
		return false;
	spin_lock_irqsave(&fake_recv_lock, flags);
	for (i = 0; i < ARRAY_SIZE(queues) && !found; i++) {
		if (!queues[i])
			continue;
		list_for_each_entry(r, queues[i], post_node)
			if (b >= (const u8 *)r->buf && b < r->iu + r->size)
				found = true;
	}
	spin_unlock_irqrestore(&fake_recv_lock, flags);
	return found;
}

unsigned int fake_lio_calls(struct srpt_os_channel *ch)
{
	return ch->calls[FAKE_CMD_INIT] + ch->calls[FAKE_CMD_SUBMIT] +
		ch->calls[FAKE_CMD_ABORT] + ch->calls[FAKE_CMD_SUBMIT_TMR] +
		ch->calls[FAKE_CMD_EXECUTE] + ch->calls[FAKE_CMD_PUT] +
		ch->calls[FAKE_CMD_DONE];
}

/* ---- The send queue and its completions ---- */

/* A CQ that may overrun is a violation: a real HCA loses completions. */
static void check_cq(struct srpt_os_channel *ch)
{
	const char *why = srpt_qp_model_cq_overrun(&ch->qpm);

	if (why)
		violation("%s: %u receives, %u signalled sends, CQ of %u", why, ch->qpm.rq_posted,
			  ch->qpm.signaled, ch->qpm.cq_size);
}

/* A failed WR completes as the QP in the error state completes it: flushed. */
static void deliver(struct srpt_os_channel *ch, const struct fake_wr *wr, bool ok)
{
	enum srpt_wc_status status = ok ? SRPT_WC_SUCCESS : SRPT_WC_WR_FLUSH_ERR;

	switch (wr->kind) {
	case FAKE_WR_ZERO_WRITE:
		srpt_core_zero_write_done(ch->core, status);
		break;
	case FAKE_WR_RDMA:
		srpt_core_rdma_done(wr->cmd->core, status);
		break;
	case FAKE_WR_SEND:
		srpt_core_send_done(wr->cmd->core, status, local_clock());
		break;
	}
}

const char *srpt_os_wc_status_msg(enum srpt_wc_status status)
{
	fake_might_sleep(__func__);
	return srpt_double_wc_status_msg(status);
}

const char *srpt_os_ib_event_msg(int event)
{
	fake_might_sleep(__func__);
	return srpt_double_ib_event_msg(event);
}

const char *srpt_os_cm_event_msg(enum srpt_cm_kind cm, int event)
{
	fake_might_sleep(__func__);
	return srpt_double_cm_event_msg(cm, event);
}

/*
 * A chain of @wrs send WRs that signals once. One that does not fit is
 * refused (-ENOMEM); for a chain that is a violation too, as a real HCA
 * posts the WRs that fit and nobody can take them back.
 */
static int sq_push(struct srpt_os_channel *ch, enum fake_wr_kind kind,
		   struct srpt_os_cmd *cmd, unsigned int wrs)
{
	unsigned long flags;
	bool destroyed, full, fits, kick;

	spin_lock_irqsave(&ch->lock, flags);
	destroyed = !ch->contract.qp;
	full = ch->sq_len == FAKE_SQ_DEPTH;
	fits = srpt_qp_model_send_fits(&ch->qpm, wrs);
	if (!destroyed && !full && fits) {
		ch->sq[(ch->sq_head + ch->sq_len) % FAKE_SQ_DEPTH] =
			(struct fake_wr){ .kind = kind, .cmd = cmd, .wrs = wrs };
		ch->sq_len++;
		srpt_qp_model_post_send(&ch->qpm, wrs, 1);
	}
	kick = ch->auto_complete;
	spin_unlock_irqrestore(&ch->lock, flags);
	/* The contract reported it (ZERO_WRITE, CMD_POST). */
	if (destroyed)
		return -EINVAL;
	if (full) {
		violation("more than %d outstanding send work requests (the double's own limit)",
			  FAKE_SQ_DEPTH);
		return -ENOMEM;
	}
	if (!fits) {
		if (wrs > 1)
			violation("a chain of %u send WRs with %u of %u slots in use", wrs,
				  ch->qpm.sq_used, ch->qpm.sq_slots);
		return -ENOMEM;
	}
	check_cq(ch);
	if (kick)
		queue_work(system_wq, &ch->cq_work);
	return 0;
}

/* Pops the oldest work request, of @kind unless @kind is negative. */
static int sq_pop(struct srpt_os_channel *ch, int kind, struct fake_wr *wr, bool *ok)
{
	unsigned long flags;
	int ret = 0;

	spin_lock_irqsave(&ch->lock, flags);
	if (!ch->sq_len) {
		ret = -ENOENT;
	} else if (kind >= 0 && ch->sq[ch->sq_head].kind != kind) {
		ret = -EPROTO;
	} else {
		*wr = ch->sq[ch->sq_head];
		ch->sq_head = (ch->sq_head + 1) % FAKE_SQ_DEPTH;
		ch->sq_len--;
		srpt_qp_model_send_done(&ch->qpm, wr->wrs, 1);
		/* A QP in the error state flushes what it has not executed. */
		*ok = !ch->qp_error;
	}
	spin_unlock_irqrestore(&ch->lock, flags);
	return ret;
}

int fake_channel_complete(struct srpt_os_channel *ch, enum fake_wr_kind kind, bool ok)
{
	struct fake_wr wr;
	bool natural;
	int ret = sq_pop(ch, kind, &wr, &natural);

	if (ret)
		return ret;
	deliver(ch, &wr, ok);
	return 0;
}

unsigned int fake_channel_outstanding(struct srpt_os_channel *ch)
{
	unsigned long flags;
	unsigned int n;

	spin_lock_irqsave(&ch->lock, flags);
	n = ch->sq_len;
	spin_unlock_irqrestore(&ch->lock, flags);
	return n;
}

static void fake_cq_work_fn(struct work_struct *work)
{
	struct srpt_os_channel *ch = container_of(work, struct srpt_os_channel, cq_work);
	struct fake_wr wr;
	bool ok;

	while (!sq_pop(ch, -1, &wr, &ok))
		deliver(ch, &wr, ok);
}

void fake_channel_init(struct srpt_os_channel *ch, struct srpt_os_device *dev)
{
	memset(ch, 0, sizeof(*ch));
	ch->dev = dev;
	spin_lock_init(&ch->lock);
	INIT_LIST_HEAD(&ch->rq);
	INIT_LIST_HEAD(&ch->cmds);
	INIT_WORK(&ch->cq_work, fake_cq_work_fn);
}

void fake_channel_rejected(struct srpt_os_channel *ch)
{
	unsigned long flags;

	spin_lock_irqsave(&ch->lock, flags);
	ch->gone = true;
	spin_unlock_irqrestore(&ch->lock, flags);
}

void fake_channel_auto_complete(struct srpt_os_channel *ch)
{
	unsigned long flags;

	spin_lock_irqsave(&ch->lock, flags);
	ch->auto_complete = true;
	spin_unlock_irqrestore(&ch->lock, flags);
	queue_work(system_wq, &ch->cq_work);
}

void fake_channel_quiesce(struct srpt_os_channel *ch)
{
	cancel_work_sync(&ch->cq_work);
}

/* ---- Channels ---- */

int srpt_os_channel_create_qp(struct srpt_os_channel *ch, struct srpt_channel *core,
			      const struct srpt_qp_params *p)
{
	unsigned long flags;

	if (!record(ch, FAKE_CREATE_QP))
		return -EINVAL;
	ch->qp = *p;
	if (ch->create_qp_err)
		return ch->create_qp_err;
	/* What ib_create_qp() refuses on a real HCA. */
	if (srpt_qp_model_create(&ch->qpm, p, &ch->dev->info, 0, 0))
		return -EINVAL;
	contract_check(ch, SRPT_CONTRACT_CREATE_QP);
	fake_breach(__func__, srpt_contract_qp_params(&ch->contract, &ch->dev->contract, core, p));
	spin_lock_irqsave(&ch->lock, flags);
	ch->core = core;
	srpt_contract_qp_created(&ch->contract, &ch->dev->contract, p);
	spin_unlock_irqrestore(&ch->lock, flags);
	return 0;
}

int srpt_os_channel_open_session(struct srpt_os_channel *ch, struct srpt_os_tpg *tpg,
				 const char *initiator)
{
	int i;

	if (!record(ch, FAKE_OPEN_SESSION))
		return -EINVAL;
	if (fake_breach(__func__, srpt_contract_open_session(tpg, initiator)))
		return -EINVAL;
	if (ch->n_tried < FAKE_MAX_TRIED)
		strscpy(ch->tried[ch->n_tried], initiator, FAKE_NAME_LEN);
	ch->n_tried++;
	contract_check(ch, SRPT_CONTRACT_OPEN_SESSION);
	/* target_setup_session() without an ACL: -EACCES. */
	for (i = 0; tpg && i < FAKE_MAX_ACLS; i++) {
		if (tpg->acls[i] && !strcmp(tpg->acls[i], initiator)) {
			contract_done(ch, SRPT_CONTRACT_OPEN_SESSION);
			ch->session_tpg = tpg;
			strscpy(ch->initiator, initiator, sizeof(ch->initiator));
			return 0;
		}
	}
	return -EACCES;
}

int srpt_os_channel_accept(struct srpt_os_channel *ch, const void *rsp, size_t len)
{
	if (!record(ch, FAKE_ACCEPT))
		return -EINVAL;
	contract_check(ch, SRPT_CONTRACT_ACCEPT);
	ch->rsp_len = len;
	memcpy(ch->rsp, rsp, min(len, sizeof(ch->rsp)));
	if (ch->accept_err)
		return ch->accept_err;
	contract_done(ch, SRPT_CONTRACT_ACCEPT);
	return 0;
}

void srpt_os_cm_reject(struct srpt_os_channel *ch, const void *rej, size_t len)
{
	if (!record(ch, FAKE_CM_REJECT))
		return;
	contract_check(ch, SRPT_CONTRACT_REJECT);
	contract_done(ch, SRPT_CONTRACT_REJECT);
	ch->rej_len = len;
	memcpy(ch->rej, rej, min(len, sizeof(ch->rej)));
}

int srpt_os_channel_ready(struct srpt_os_channel *ch)
{
	if (!record(ch, FAKE_READY))
		return -EINVAL;
	return ch->ready_err;
}

void srpt_os_channel_notify_established(struct srpt_os_channel *ch)
{
	record(ch, FAKE_NOTIFY_ESTABLISHED);
}

int srpt_os_channel_disconnect(struct srpt_os_channel *ch,
			       enum srpt_disconnect how)
{
	if (!record(ch, FAKE_DISCONNECT))
		return -EINVAL;
	contract_check(ch, SRPT_CONTRACT_DISCONNECT);
	return ch->disconnect_err;
}

int srpt_os_channel_qp_error(struct srpt_os_channel *ch)
{
	unsigned long flags;

	if (!record(ch, FAKE_QP_ERROR))
		return -EINVAL;
	contract_check(ch, SRPT_CONTRACT_QP_ERROR);
	spin_lock_irqsave(&ch->lock, flags);
	ch->qp_error = true;
	spin_unlock_irqrestore(&ch->lock, flags);
	return 0;
}

int srpt_os_channel_post_zero_write(struct srpt_os_channel *ch)
{
	unsigned int i, pending = 1;
	unsigned long flags;

	if (!record(ch, FAKE_ZERO_WRITE))
		return -EINVAL;
	contract_check(ch, SRPT_CONTRACT_ZERO_WRITE);
	spin_lock_irqsave(&ch->lock, flags);
	for (i = 0; i < ch->sq_len; i++)
		pending += ch->sq[(ch->sq_head + i) % FAKE_SQ_DEPTH].kind == FAKE_WR_ZERO_WRITE;
	spin_unlock_irqrestore(&ch->lock, flags);
	fake_breach(__func__, srpt_contract_zero_write(&ch->qp, pending));
	if (ch->zero_write_err)
		return ch->zero_write_err;
	return sq_push(ch, FAKE_WR_ZERO_WRITE, NULL, 1);
}

void srpt_os_channel_close_session(struct srpt_os_channel *ch)
{
	if (!record(ch, FAKE_CLOSE_SESSION))
		return;
	contract_check(ch, SRPT_CONTRACT_CLOSE_SESSION);
	contract_done(ch, SRPT_CONTRACT_CLOSE_SESSION);
	ch->session_tpg = NULL;
}

void srpt_os_channel_destroy_cm(struct srpt_os_channel *ch)
{
	if (!record(ch, FAKE_DESTROY_CM))
		return;
	contract_check(ch, SRPT_CONTRACT_DESTROY_CM);
	contract_done(ch, SRPT_CONTRACT_DESTROY_CM);
}

/* ib_drain_qp(): everything outstanding completes before the QP goes. */
void srpt_os_channel_destroy_qp(struct srpt_os_channel *ch)
{
	struct srpt_os_recv *r, *tmp;
	unsigned long flags;
	LIST_HEAD(flushed);
	struct fake_wr wr;
	bool ok;

	if (!record(ch, FAKE_DESTROY_QP))
		return;
	contract_check(ch, SRPT_CONTRACT_DESTROY_QP);
	/* A failed login may have no QP; the shim checks. */
	if (!ch->contract.qp) {
		contract_done(ch, SRPT_CONTRACT_DESTROY_QP);
		return;
	}
	cancel_work_sync(&ch->cq_work);
	{
		const char *why = srpt_qp_model_drain(&ch->qpm);

		if (why)
			violation("%s: %u of %u send WRs in use, %u of %u receives posted", why,
				  ch->qpm.sq_used, ch->qpm.sq_slots, ch->qpm.rq_posted,
				  ch->qpm.rq_slots);
	}
	spin_lock_irqsave(&ch->lock, flags);
	ch->qp_error = true;
	spin_unlock_irqrestore(&ch->lock, flags);
	while (!sq_pop(ch, -1, &wr, &ok))
		deliver(ch, &wr, false);
	if (!ch->qp.use_srq) {
		spin_lock_irqsave(&fake_recv_lock, flags);
		list_splice_init(&ch->rq, &flushed);
		spin_unlock_irqrestore(&fake_recv_lock, flags);
		list_for_each_entry_safe(r, tmp, &flushed, post_node) {
			spin_lock_irqsave(&fake_recv_lock, flags);
			list_del_init(&r->post_node);
			srpt_qp_model_recv_done(&ch->qpm);
			spin_unlock_irqrestore(&fake_recv_lock, flags);
			srpt_core_recv_done(ch->core, r->core, SRPT_WC_WR_FLUSH_ERR, 0, local_clock());
		}
	}
	spin_lock_irqsave(&ch->lock, flags);
	srpt_contract_qp_destroyed(&ch->contract, &ch->dev->contract);
	spin_unlock_irqrestore(&ch->lock, flags);
}

void srpt_os_channel_free(struct srpt_os_channel *ch)
{
	if (!record(ch, FAKE_FREE))
		return;
	contract_check(ch, SRPT_CONTRACT_FREE);
	contract_done(ch, SRPT_CONTRACT_FREE);
}

/* ---- Receive buffers and the SRQ ---- */

struct srpt_os_recv *srpt_os_recv_alloc(struct srpt_os_device *dev, struct srpt_recv *core,
					u32 size, u32 align_offset, void **iu)
{
	struct srpt_os_recv *r;

	fake_might_sleep(__func__);
	fake_breach(__func__, srpt_contract_recv_alloc(align_offset));
	r = kzalloc(sizeof(*r), GFP_KERNEL);
	if (!r)
		return NULL;
	/* kmalloc() aligns these sizes (512 and up) to at least 512 bytes. */
	r->buf = kmalloc(max(align_offset + size, 512U), GFP_KERNEL);
	if (!r->buf) {
		kfree(r);
		return NULL;
	}
	WARN_ON_ONCE(!IS_ALIGNED((unsigned long)r->buf, 512));
	INIT_LIST_HEAD(&r->post_node);
	r->dev = dev;
	r->core = core;
	r->size = size;
	r->align_offset = align_offset;
	r->iu = (u8 *)r->buf + align_offset;
	*iu = r->iu;
	atomic_inc(&fake_recvs_live);
	return r;
}

bool fake_recv_is_posted(struct srpt_os_recv *r)
{
	unsigned long flags;
	bool posted;

	spin_lock_irqsave(&fake_recv_lock, flags);
	posted = !list_empty(&r->post_node);
	spin_unlock_irqrestore(&fake_recv_lock, flags);
	return posted;
}

void srpt_os_recv_free(struct srpt_os_recv *r)
{
	unsigned long flags;
	bool posted;

	fake_might_sleep(__func__);
	if (!r)
		return;
	spin_lock_irqsave(&fake_recv_lock, flags);
	posted = !list_empty(&r->post_node);
	list_del_init(&r->post_node);
	spin_unlock_irqrestore(&fake_recv_lock, flags);
	fake_breach(__func__, srpt_contract_recv_free(posted));
	kfree(r->buf);
	kfree(r);
	atomic_dec(&fake_recvs_live);
}

int srpt_os_recv_post(struct srpt_os_device *dev, struct srpt_os_channel *ch,
		      struct srpt_os_recv *r)
{
	struct list_head *queue;
	unsigned long flags;
	const char *why;
	bool posted, refuse, full = false;

	fake_might_sleep(__func__);
	if (ch) {
		if (!record(ch, FAKE_RECV_POST))
			return -EINVAL;
		if (ch->recv_post_err)
			return ch->recv_post_err;
		if (contract_check(ch, SRPT_CONTRACT_RECV_POST))
			return -EINVAL;
		queue = &ch->rq;
	} else {
		queue = &dev->srq_posted;
	}
	/*
	 * The check and the add in one hold: two posts of one buffer at once
	 * are the breach to report, not a corrupted list.
	 */
	spin_lock_irqsave(&fake_recv_lock, flags);
	posted = !list_empty(&r->post_node);
	why = srpt_contract_recv_post(&dev->contract, posted, r->dev == dev, !ch);
	refuse = why && (posted || (!ch && !dev->srq));
	/* A full queue refuses the post, as a real HCA does. */
	if (!refuse)
		full = ch ? srpt_qp_model_post_recv(&ch->qpm) :
			dev->srq_posts_live >= srpt_qp_model_slots(dev->srq_size, 0);
	if (!refuse && !full) {
		list_add_tail(&r->post_node, queue);
		r->posts++;
		if (!ch) {
			dev->srq_posts++;
			dev->srq_posts_live++;
		}
	}
	spin_unlock_irqrestore(&fake_recv_lock, flags);
	if (fake_breach(__func__, why) && refuse)
		return -EINVAL;
	if (full)
		return -ENOMEM;
	if (ch)
		check_cq(ch);
	return 0;
}

struct srpt_os_recv *fake_recv_take(struct srpt_os_device *dev, struct srpt_os_channel *ch)
{
	struct srpt_os_recv *r = NULL;
	unsigned long flags;

	spin_lock_irqsave(&fake_recv_lock, flags);
	if (ch || dev->srq) {
		r = list_first_entry_or_null(ch ? &ch->rq : &dev->srq_posted,
					     struct srpt_os_recv, post_node);
		if (r) {
			list_del_init(&r->post_node);
			if (ch)
				srpt_qp_model_recv_done(&ch->qpm);
			else
				dev->srq_posts_live--;
		}
	}
	spin_unlock_irqrestore(&fake_recv_lock, flags);
	return r;
}

unsigned int fake_recv_posted(struct srpt_os_device *dev, struct srpt_os_channel *ch)
{
	struct srpt_os_recv *r;
	unsigned long flags;
	unsigned int n = 0;

	spin_lock_irqsave(&fake_recv_lock, flags);
	if (ch || dev->srq)
		list_for_each_entry(r, ch ? &ch->rq : &dev->srq_posted, post_node)
			n++;
	spin_unlock_irqrestore(&fake_recv_lock, flags);
	return n;
}

int srpt_os_srq_create(struct srpt_os_device *dev, u32 size)
{
	fake_might_sleep(__func__);
	dev->srq_create_calls++;
	if (fake_breach(__func__, srpt_contract_dev_check(&dev->contract)) ||
	    fake_breach(__func__, srpt_contract_srq_create(&dev->contract)))
		return -EEXIST;
	if (dev->srq_create_err)
		return dev->srq_create_err;
	INIT_LIST_HEAD(&dev->srq_posted);
	dev->srq_size = size;
	dev->contract.srq = 1;
	dev->srq = true;
	return 0;
}

/* ib_destroy_srq() discards what is posted, without completions. */
void srpt_os_srq_destroy(struct srpt_os_device *dev)
{
	struct srpt_os_recv *r, *tmp;
	unsigned long flags;

	fake_might_sleep(__func__);
	dev->srq_destroy_calls++;
	fake_breach(__func__, srpt_contract_dev_check(&dev->contract));
	if (fake_breach(__func__, srpt_contract_srq_destroy(&dev->contract)) && !dev->srq)
		return;
	dev->contract.srq = 0;
	spin_lock_irqsave(&fake_recv_lock, flags);
	list_for_each_entry_safe(r, tmp, &dev->srq_posted, post_node)
		list_del_init(&r->post_node);
	dev->srq_posts_live = 0;
	spin_unlock_irqrestore(&fake_recv_lock, flags);
	dev->srq = false;
}

/* ---- Commands ---- */

struct srpt_os_cmd *srpt_os_cmd_alloc(struct srpt_os_channel *ch, struct srpt_cmd *core,
				      u32 rsp_size, void **rsp_buf, const u8 **sense_buf)
{
	struct srpt_os_cmd *cmd;
	unsigned long flags;

	fake_might_sleep(__func__);
	fake_breach(__func__, srpt_contract_check(&ch->contract, SRPT_CONTRACT_ANY));
	if (rsp_size > FAKE_RSP_MAX)
		violation("response buffer of %u bytes", rsp_size);
	cmd = kzalloc(sizeof(*cmd), GFP_KERNEL);
	if (!cmd)
		return NULL;
	cmd->rsp_buf = kmalloc(rsp_size, GFP_KERNEL);
	if (!cmd->rsp_buf) {
		kfree(cmd);
		return NULL;
	}
	cmd->ch = ch;
	cmd->core = core;
	cmd->rsp_size = rsp_size;
	spin_lock_irqsave(&ch->lock, flags);
	list_add_tail(&cmd->node, &ch->cmds);
	ch->contract.cmds++;
	spin_unlock_irqrestore(&ch->lock, flags);
	atomic_inc(&fake_cmds_live);
	*rsp_buf = cmd->rsp_buf;
	*sense_buf = cmd->sense;
	return cmd;
}

void srpt_os_cmd_free(struct srpt_os_cmd *cmd)
{
	struct srpt_os_channel *ch;
	unsigned long flags;

	fake_might_sleep(__func__);
	if (!cmd)
		return;
	ch = cmd->ch;
	fake_breach(__func__, srpt_contract_check(&ch->contract, SRPT_CONTRACT_ANY));
	if (ch->gone)
		violation("%s after the core rejected the login of the channel", __func__);
	spin_lock_irqsave(&ch->lock, flags);
	list_del(&cmd->node);
	ch->contract.cmds--;
	if (ch->last_cmd == cmd)
		ch->last_cmd = NULL;
	if (ch->sent_cmd == cmd)
		ch->sent_cmd = NULL;
	spin_unlock_irqrestore(&ch->lock, flags);
	kfree(cmd->rsp_buf);
	kfree(cmd);
	atomic_dec(&fake_cmds_live);
}

int srpt_os_cmd_init(struct srpt_os_cmd *cmd, u64 tag, u64 lun, u32 data_len,
		     enum srpt_data_dir dir, enum srpt_task_attr task_attr)
{
	if (!cmd_record(cmd, FAKE_CMD_INIT))
		return -EINVAL;
	fake_breach(__func__, srpt_contract_cmd_init(cmd_wrs(cmd, NULL)));
	cmd->info.tag = tag;
	cmd->info.lun = lun;
	cmd->info.data_len = data_len;
	cmd->info.dir = dir;
	cmd->info.task_attr = task_attr;
	if (cmd->ch->cmd_init_err)
		return cmd->ch->cmd_init_err;
	srpt_contract_cmd_init_done(&cmd->contract);
	return 0;
}

void srpt_os_cmd_map_imm(struct srpt_os_cmd *cmd, void *data, u32 len)
{
	if (!cmd_record(cmd, FAKE_CMD_MAP_IMM))
		return;
	cmd->imm_data = data;
	cmd->imm_len = len;
}

/* No buffer mapped, posted or sent. */
static void fake_cmd_rdma_reset(struct srpt_os_cmd *cmd)
{
	cmd->mapped = 0;
	cmd->posted = 0;
	cmd->kept = false;
	cmd->sent_bytes = 0;
	cmd->map_wrs = 0;
}

int srpt_os_cmd_buf_add(struct srpt_os_cmd *cmd, u32 count, enum srpt_data_dir dir, u64 va,
			u32 rkey, u32 len)
{
	struct srpt_contract_cmd *c = &cmd->contract;
	int ret = 0;

	if (!cmd_record(cmd, FAKE_CMD_BUF_ADD))
		return -EINVAL;
	if (fake_breach(__func__, srpt_contract_buf_add(c, count, dir, len)) && c->added >= count)
		return -EINVAL;
	if (!c->added)
		fake_cmd_rdma_reset(cmd);
	if (c->added < FAKE_MAX_RDMA)
		cmd->rdma[c->added] = (struct fake_rdma_buf){ va, rkey, len };
	if (cmd->ch->buf_kept && count == 1 && dir == SRPT_DATA_IN && len <= PAGE_SIZE) {
		cmd->kept = true;
		ret = SRPT_BUF_KEPT;
	}
	srpt_contract_buf_add_done(c, count, dir, ret);
	return ret;
}

int srpt_os_cmd_rdma_map(struct srpt_os_cmd *cmd, u32 buf, u32 off, u32 len)
{
	bool known = buf < FAKE_MAX_RDMA;

	if (!cmd_record(cmd, FAKE_CMD_RDMA_MAP))
		return -EINVAL;
	if (fake_breach(__func__, srpt_contract_rdma_map(&cmd->contract, buf, off, len,
							 known ? cmd->rdma[buf].len : 0,
							 known && (cmd->mapped & BIT(buf)))) &&
	    (!known || buf >= cmd->contract.added || (cmd->mapped & BIT(buf)) || cmd->kept))
		return -EINVAL;
	if (!known) {
		violation("rdma_map of buffer %u: the double holds %d", buf, FAKE_MAX_RDMA);
		return -EINVAL;
	}
	if (cmd->ch->rdma_map_err)
		return cmd->ch->rdma_map_err;
	cmd->mapped |= BIT(buf);
	cmd->sent_bytes += len;
	cmd->map_wrs += cmd->ch->rdma_map_wrs ? cmd->ch->rdma_map_wrs : 1;
	return cmd->ch->rdma_map_wrs ? cmd->ch->rdma_map_wrs : 1;
}

void srpt_os_cmd_rdma_unmap(struct srpt_os_cmd *cmd, u32 buf)
{
	struct srpt_contract_wrs w;

	if (!cmd_record(cmd, FAKE_CMD_RDMA_UNMAP))
		return;
	w = cmd_wrs(cmd, NULL);
	fake_breach(__func__, srpt_contract_rdma_unmap(&cmd->contract, buf,
						       buf < FAKE_MAX_RDMA &&
						       (cmd->posted & BIT(buf)) &&
						       (w.rdma || w.sends)));
	if (buf >= FAKE_MAX_RDMA)
		return;
	/* Mapped and never posted: its WRs will not go. */
	if ((cmd->mapped & ~cmd->posted) & BIT(buf))
		cmd->map_wrs -= min(cmd->map_wrs,
				    cmd->ch->rdma_map_wrs ? (unsigned int)cmd->ch->rdma_map_wrs : 1U);
	cmd->mapped &= ~BIT(buf);
	cmd->posted &= ~BIT(buf);
}

void srpt_os_cmd_release_data(struct srpt_os_cmd *cmd)
{
	struct srpt_contract_wrs w;

	if (!cmd_record(cmd, FAKE_CMD_RELEASE_DATA))
		return;
	w = cmd_wrs(cmd, NULL);
	fake_breach(__func__, srpt_contract_release_data(cmd->posted && (w.rdma || w.sends)));
	srpt_contract_release_data_done(&cmd->contract);
	fake_cmd_rdma_reset(cmd);
	cmd->imm_data = NULL;
	cmd->imm_len = 0;
}

void srpt_os_cmd_submit(struct srpt_os_cmd *cmd, const u8 *cdb)
{
	if (!cmd_record(cmd, FAKE_CMD_SUBMIT))
		return;
	fake_breach(__func__, srpt_contract_submit(&cmd->contract, posted_at(cmd->ch, cdb)));
	memcpy(cmd->cdb, cdb, sizeof(cmd->cdb));
	if (cmd->ch->on_submit)
		cmd->ch->on_submit(cmd);
}

void srpt_os_cmd_abort(struct srpt_os_cmd *cmd, enum srpt_write_failure why)
{
	if (cmd_record(cmd, FAKE_CMD_ABORT))
		fake_breach(__func__, srpt_contract_abort(cmd_wrs(cmd, NULL), why));
}

int srpt_os_cmd_submit_tmr(struct srpt_os_cmd *cmd, u64 lun, enum srpt_tmf fn,
			   u64 task_tag, u64 tag)
{
	if (!cmd_record(cmd, FAKE_CMD_SUBMIT_TMR))
		return -EINVAL;
	fake_breach(__func__, srpt_contract_submit_tmr(cmd_wrs(cmd, NULL)));
	cmd->tmr_lun = lun;
	cmd->tmr_fn = fn;
	cmd->tmr_task_tag = task_tag;
	cmd->tmr_tag = tag;
	if (cmd->ch->submit_tmr_err)
		return cmd->ch->submit_tmr_err;
	srpt_contract_submit_tmr_done(&cmd->contract);
	return 0;
}

void srpt_os_cmd_execute(struct srpt_os_cmd *cmd)
{
	if (cmd_record(cmd, FAKE_CMD_EXECUTE))
		fake_breach(__func__, srpt_contract_execute(cmd_wrs(cmd, NULL), cmd->mapped != 0,
							    posted_at(cmd->ch, cmd->imm_data)));
}

int srpt_os_cmd_post(struct srpt_os_cmd *cmd, u32 rsp_len, u32 kept_len, u32 mapped)
{
	struct srpt_os_channel *ch = cmd->ch;
	u32 now = cmd->mapped & ~cmd->posted;
	/* The mapped buffers' WRs, the kept buffer's one, the response's. */
	unsigned int wrs = cmd->map_wrs + (kept_len ? 1 : 0) + (rsp_len ? 1 : 0);
	struct srpt_contract_post_call call = {
		.rsp_len = rsp_len,
		.kept_len = kept_len,
		.mapped = mapped,
		.now = hweight32(now),
		.kept_len_max = cmd->kept ? cmd->rdma[0].len : 0,
		.kept_posted = cmd->kept && (cmd->posted & BIT(0)),
		.rsp_size = cmd->rsp_size,
	};
	struct srpt_contract_wrs w;
	unsigned int cmds_wrs;
	unsigned long flags;
	int ret;

	if (!cmd_record(cmd, rsp_len ? FAKE_CMD_POST_RESPONSE : FAKE_CMD_POST_RDMA))
		return -EINVAL;
	if (contract_check(ch, SRPT_CONTRACT_CMD_POST))
		return -EINVAL;
	w = cmd_wrs(cmd, &cmds_wrs);
	if (fake_breach(__func__, srpt_contract_post(&cmd->contract, &call, w)) &&
	    ((kept_len && (!cmd->kept || call.kept_posted || kept_len > call.kept_len_max)) ||
	     rsp_len > cmd->rsp_size))
		return -EINVAL;
	fake_breach(__func__, srpt_contract_post_wrs(&ch->qp, (unsigned long long)cmds_wrs + wrs));
	if (rsp_len)
		fake_breach(__func__, srpt_contract_rsp(cmd->rsp_buf, rsp_len));
	if (kept_len) {
		now |= BIT(0);
		cmd->sent_bytes += kept_len;
	}
	if (!rsp_len) {
		if (ch->post_rdma_err)
			return ch->post_rdma_err;
		ret = sq_push(ch, FAKE_WR_RDMA, cmd, wrs);
		if (!ret) {
			cmd->posted |= now;
			cmd->map_wrs = 0;
		}
		return ret;
	}
	if (rsp_len > sizeof(ch->sent)) {
		violation("a %u-byte response: the double holds %zu", rsp_len, sizeof(ch->sent));
		return -EINVAL;
	}
	spin_lock_irqsave(&ch->lock, flags);
	memcpy(ch->sent, cmd->rsp_buf, rsp_len);
	ch->sent_len = rsp_len;
	ch->sent_with_data = now != 0;
	ch->sent_cmd = cmd;
	spin_unlock_irqrestore(&ch->lock, flags);
	if (ch->post_response_err)
		return ch->post_response_err;
	ret = sq_push(ch, FAKE_WR_SEND, cmd, wrs);
	if (!ret) {
		cmd->posted |= now;
		cmd->map_wrs = 0;
	}
	return ret;
}

void srpt_os_cmd_put(struct srpt_os_cmd *cmd)
{
	cmd_record(cmd, FAKE_CMD_PUT);
}

void srpt_os_cmd_done(struct srpt_os_cmd *cmd)
{
	cmd_record(cmd, FAKE_CMD_DONE);
}

int fake_lio_queue_response(struct srpt_os_cmd *cmd, struct srpt_cmd_status st, int with_data)
{
	if (with_data)
		cmd->contract.data_in_ready = 1;
	return srpt_core_queue_response(cmd->core, st, with_data);
}
