// SPDX-License-Identifier: GPL-2.0-only
/*
 * srp_ibcm: a test-only SRP initiator that logs in through the kernel's
 * IB/CM, also on RoCE ports (soft-RoCE), where ib_srp cannot: ib_srp asks
 * the SA for its IB/CM path records, and RoCE has no SA. This module
 * builds the RoCE path record itself, as RDMA/CM does
 * (cma_resolve_iboe_route), sends SRP_LOGIN_REQ in the CM REQ's private
 * data to the target's service ID and reports the SRP_LOGIN_RSP or the
 * SRP_LOGIN_REJ. Over a logged-in channel it runs INQUIRY, READ
 * CAPACITY(10) and a WRITE(10)/READ(10) compare through one buffer that
 * the target reaches with the PD's global rkey (acceptable for a test).
 *
 * Control: /sys/kernel/debug/srp_ibcm/ctl takes one command per write;
 * reading it gives the result of the last command, which is also logged
 * as "srp_ibcm: RESULT". A write succeeds once its command has a result,
 * whatever the result says; it fails, and leaves no result to read (an
 * empty line), only when no command ran (too long, no memory, killed).
 * Commands:
 *
 *   login NAME dev=DEV port=N dgid=HEX32 service_id=HEX16 id_ext=HEX16
 *         ioc_guid=HEX16 initiator_ext=HEX16 [it_iu_len=N] [multi=0|1]
 *         [sgid_index=N] [dmac=HEX12]
 *     -> NAME logged in max_it_iu_len=N max_ti_iu_len=N req_lim=N
 *        multichannel_result=N
 *     -> NAME rejected reason=0xXXXXXXXX     (SRP_LOGIN_REJ)
 *     -> NAME cm_rejected cm_reason=N       (a CM REJ without SRP_LOGIN_REJ)
 *     -> NAME error ...
 *   io NAME     -> NAME io ok last_lba=N block_size=N blocks=N seed=0xXXXXXXXX
 *                  (READ CAPACITY's answer; the WRITE/READ compare's blocks
 *                  at LBA 0 and its pattern, new at every io)
 *               | NAME io failed: ...
 *   state NAME  -> NAME connected | NAME disconnected by the target (DREQ)
 *   logout NAME -> NAME logged out (HOW): what ended the disconnect, the
 *                  first of: DREP (the target answered our DREQ), DREQ
 *                  from the target, DREQ error, timewait exit, no DREP,
 *                  sending the DREQ failed (N)
 *
 * The path's destination MAC is dmac=, or else the local port's own:
 * loopback (the target on the same RDMA device, as in the single-VM
 * scenarios). Everything is
 * bounded in time; unloading the module, or removing the RDMA device,
 * closes every channel ("srp_ibcm: NAME logged out (HOW): leaving DEV").
 * A pr_warn() line is a failure of the test whatever the results say:
 * tests/vm/24-ibcm-login.sh lists them and fails on any.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/debugfs.h>
#ifdef IBCM_HAVE_LINUX_HEX
#include <linux/hex.h>
#endif
#include <linux/module.h>
#include <linux/netdevice.h>
#include <linux/random.h>
#include <linux/slab.h>
#include <linux/uaccess.h>
#ifdef IBCM_HAVE_LINUX_UNALIGNED
#include <linux/unaligned.h>
#else
#include <asm/unaligned.h>
#endif
#include <rdma/ib_addr.h>
#include <rdma/ib_cache.h>
#include <rdma/ib_cm.h>
#include <rdma/ib_sa.h>
#include <rdma/ib_verbs.h>
#include <scsi/srp.h>

#define IBCM_NAME_LEN		32
#define IBCM_RESULT_LEN		256
#define IBCM_CMD_LEN		512
#define IBCM_TX_SIZE		256
#define IBCM_RX_SIZE		4096
#define IBCM_RX_COUNT		4
#define IBCM_DATA_SIZE		65536
#define IBCM_MAX_BLOCKS		8
#define IBCM_CM_WAIT		(40 * HZ)
#define IBCM_IO_WAIT		(10 * HZ)
#define IBCM_DISC_WAIT		(20 * HZ)
#define IBCM_FLUSH_WAIT		(10 * HZ)
/* RDMA/CM's packet lifetime on RoCE (CMA_IBOE_PACKET_LIFETIME). */
#define IBCM_PACKET_LIFETIME	18

/* The sizes SRP r16a gives its IUs; <scsi/srp.h>'s structures match them. */
static_assert(sizeof(struct srp_login_req) == 64);
static_assert(sizeof(struct srp_login_rsp) == 52);
static_assert(sizeof(struct srp_login_rej) == 32);
static_assert(sizeof(struct srp_cmd) == 48);
static_assert(sizeof(struct srp_direct_buf) == 16);
static_assert(sizeof(struct srp_rsp) == 36);
/* SRP_LOGIN_RSP's MULTI-CHANNEL RESULT (SRP_LOGIN_RSP_MULTICHAN_*). */
#define IBCM_MULTICHAN_RESULT	0x3

enum ibcm_state {
	IBCM_CONNECTING,
	IBCM_LIVE,
	IBCM_REJECTED,
	IBCM_FAILED,
	IBCM_DISCONNECTED,
};

struct ibcm_chan;

/* A kmalloc'ed buffer and its DMA mapping, if it was mapped. */
struct ibcm_buf {
	void *cpu;
	u64 dma;
	bool mapped;
};

struct ibcm_rx {
	struct ib_cqe cqe;
	struct ibcm_chan *ch;
	struct ibcm_buf iu;
};

struct ibcm_chan {
	struct list_head list;
	char name[IBCM_NAME_LEN];
	struct ib_device *ib;
	u32 port;
	const struct ib_gid_attr *sgid_attr;
	struct ib_pd *pd;
	struct ib_cq *cq;
	struct ib_qp *qp;
	/* Work requests posted and not completed; flush_wq: it reached 0. */
	atomic_t posted;
	wait_queue_head_t flush_wq;
	struct ib_cm_id *cm;
	struct sa_path_rec path;
	struct srp_login_req login_req;
	bool dreq_sent;			/* by ibcm_logout_start(), for its finish */

	/* The CM handler's results, under @lock. */
	spinlock_t lock;
	enum ibcm_state state;
	bool dreq_received;
	bool closing;
	u32 rej_reason;			/* SRP_LOGIN_REJ REASON, or 0 */
	int cm_rej_reason;		/* the CM's REJ reason */
	char cm_error[64];
	u32 max_it_iu_len, max_ti_iu_len, req_lim;
	u8 rsp_flags;
	struct completion cm_done;	/* REP handled, REJ, or a CM error */
	struct completion disc_done;	/* DREP, DREQ, DREQ error, timewait exit */
	char disc_end[48];		/* what ended the disconnect, first */

	/* Information units and data. */
	struct ibcm_buf tx;
	struct ib_cqe tx_cqe;
	struct completion tx_done;
	int tx_status;
	struct ibcm_rx rx[IBCM_RX_COUNT];
	struct completion rx_done;
	u64 cur_tag;
	u8 rsp[IBCM_RX_SIZE] __aligned(8);
	u32 rsp_len;
	struct ibcm_buf data;
	bool broken;			/* a command timed out or failed */
	u64 next_tag;
};

struct ibcm_dev {
	struct list_head list;
	struct ib_device *ib;
};

/* Serializes the commands, the device list and the channel list. */
static DEFINE_MUTEX(ibcm_mutex);
static LIST_HEAD(ibcm_devs);
static LIST_HEAD(ibcm_chans);
static char ibcm_result[IBCM_RESULT_LEN];
static struct dentry *ibcm_dir;

static __printf(1, 2) void ibcm_set_result(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(ibcm_result, sizeof(ibcm_result), fmt, ap);
	va_end(ap);
	pr_info("%s\n", ibcm_result);
}

static struct ibcm_chan *ibcm_find_chan(const char *name)
{
	struct ibcm_chan *ch;

	list_for_each_entry(ch, &ibcm_chans, list)
		if (!strcmp(ch->name, name))
			return ch;
	return NULL;
}

/* ---- Completions ---- */

/*
 * A completion's last touch of @ch. The teardown that sees no work
 * request left may go on at once, but frees @ch only after ib_free_cq(),
 * which waits for a running completion handler.
 */
static void ibcm_wr_done(struct ibcm_chan *ch)
{
	if (atomic_dec_and_test(&ch->posted))
		wake_up(&ch->flush_wq);
}

static void ibcm_tx_done(struct ib_cq *cq, struct ib_wc *wc)
{
	struct ibcm_chan *ch = cq->cq_context;

	ch->tx_status = wc->status;
	complete(&ch->tx_done);
	ibcm_wr_done(ch);
}

static int ibcm_post_send(struct ibcm_chan *ch, const struct ib_send_wr *wr)
{
	int ret;

	atomic_inc(&ch->posted);
	ret = ib_post_send(ch->qp, wr, NULL);
	if (ret)
		atomic_dec(&ch->posted);
	return ret;
}

static int ibcm_post_recv(struct ibcm_rx *rx)
{
	struct ib_sge sge = {
		.addr = rx->iu.dma,
		.length = IBCM_RX_SIZE,
		.lkey = rx->ch->pd->local_dma_lkey,
	};
	struct ib_recv_wr wr = {
		.wr_cqe = &rx->cqe,
		.sg_list = &sge,
		.num_sge = 1,
	};
	int ret;

	atomic_inc(&rx->ch->posted);
	ret = ib_post_recv(rx->ch->qp, &wr, NULL);
	if (ret)
		atomic_dec(&rx->ch->posted);
	return ret;
}

static void ibcm_rx_done(struct ib_cq *cq, struct ib_wc *wc)
{
	struct ibcm_rx *rx = container_of(wc->wr_cqe, struct ibcm_rx, cqe);
	struct ibcm_chan *ch = rx->ch;
	const struct srp_rsp *iu = rx->iu.cpu;
	int ret;

	if (wc->status != IB_WC_SUCCESS) {
		if (wc->status != IB_WC_WR_FLUSH_ERR)
			pr_warn("%s: receive failed: %s\n", ch->name,
				ib_wc_status_msg(wc->status));
		goto out;
	}
	ib_dma_sync_single_for_cpu(ch->ib, rx->iu.dma, IBCM_RX_SIZE,
				   DMA_FROM_DEVICE);
	if (wc->byte_len >= sizeof(*iu) && iu->opcode == SRP_RSP &&
	    get_unaligned(&iu->tag) == ch->cur_tag) {
		ch->rsp_len = min_t(u32, wc->byte_len, sizeof(ch->rsp));
		memcpy(ch->rsp, iu, ch->rsp_len);
		complete(&ch->rx_done);
	} else {
		pr_warn("%s: ignored an IU of %u bytes, opcode %#x\n", ch->name,
			wc->byte_len, wc->byte_len ? iu->opcode : 0);
	}
	ib_dma_sync_single_for_device(ch->ib, rx->iu.dma, IBCM_RX_SIZE,
				      DMA_FROM_DEVICE);
	/*
	 * Reposted under the lock: once the teardown has set closing, no
	 * receive is posted behind its flush.
	 */
	spin_lock_bh(&ch->lock);
	ret = ch->closing ? 0 : ibcm_post_recv(rx);
	spin_unlock_bh(&ch->lock);
	if (ret)
		pr_warn("%s: reposting a receive failed (%d)\n", ch->name, ret);
out:
	ibcm_wr_done(ch);
}

/* ---- The CM ---- */

static void ibcm_cm_fail(struct ibcm_chan *ch, const char *why, int err)
{
	spin_lock_bh(&ch->lock);
	ch->state = IBCM_FAILED;
	snprintf(ch->cm_error, sizeof(ch->cm_error), "%s (%d)", why, err);
	spin_unlock_bh(&ch->lock);
	complete(&ch->cm_done);
}

static int ibcm_modify_qp(struct ibcm_chan *ch, enum ib_qp_state state)
{
	struct ib_qp_attr attr = { .qp_state = state };
	int mask, ret;

	ret = ib_cm_init_qp_attr(ch->cm, &attr, &mask);
	if (ret)
		return ret;
	return ib_modify_qp(ch->qp, &attr, mask);
}

/* A REP that cannot make a channel: the CM REJ, then the failed login. */
static void ibcm_rep_refuse(struct ibcm_chan *ch, const char *why, int err)
{
	ib_send_cm_rej(ch->cm, IB_CM_REJ_CONSUMER_DEFINED, NULL, 0, NULL, 0);
	ibcm_cm_fail(ch, why, err);
}

static void ibcm_rep_received(struct ibcm_chan *ch,
			      const struct srp_login_rsp *rsp)
{
	u32 max_ti_iu_len = get_unaligned_be32(&rsp->max_ti_iu_len);
	int ret;

	if (rsp->opcode != SRP_LOGIN_RSP) {
		ibcm_rep_refuse(ch, "the REP carries no SRP_LOGIN_RSP",
				rsp->opcode);
		return;
	}
	/* A response longer than a receive buffer could never arrive. */
	if (max_ti_iu_len > IBCM_RX_SIZE) {
		ibcm_rep_refuse(ch, "max_ti_iu_len beyond the receive buffer",
				max_ti_iu_len);
		return;
	}
	ret = ibcm_modify_qp(ch, IB_QPS_RTR);
	if (ret) {
		ibcm_rep_refuse(ch, "QP to RTR failed", ret);
		return;
	}
	ret = ibcm_modify_qp(ch, IB_QPS_RTS);
	if (ret) {
		ibcm_rep_refuse(ch, "QP to RTS failed", ret);
		return;
	}
	ret = ib_send_cm_rtu(ch->cm, NULL, 0);
	if (ret) {
		ibcm_cm_fail(ch, "sending the RTU failed", ret);
		return;
	}
	spin_lock_bh(&ch->lock);
	ch->req_lim = get_unaligned_be32(&rsp->req_lim_delta);
	ch->max_it_iu_len = get_unaligned_be32(&rsp->max_it_iu_len);
	ch->max_ti_iu_len = max_ti_iu_len;
	ch->rsp_flags = rsp->rsp_flags;
	ch->state = IBCM_LIVE;
	spin_unlock_bh(&ch->lock);
	complete(&ch->cm_done);
}

static void ibcm_rej_received(struct ibcm_chan *ch,
			      const struct ib_cm_event *event)
{
	const struct srp_login_rej *rej = event->private_data;

	spin_lock_bh(&ch->lock);
	if (ch->state != IBCM_CONNECTING) {
		spin_unlock_bh(&ch->lock);
		return;
	}
	ch->state = IBCM_REJECTED;
	ch->cm_rej_reason = event->param.rej_rcvd.reason;
	if (ch->cm_rej_reason == IB_CM_REJ_CONSUMER_DEFINED && rej &&
	    rej->opcode == SRP_LOGIN_REJ)
		ch->rej_reason = get_unaligned_be32(&rej->reason);
	spin_unlock_bh(&ch->lock);
	complete(&ch->cm_done);
}

/* The first of the events that end a disconnect is the one a logout reports. */
static void ibcm_disc_end(struct ibcm_chan *ch, const char *how)
{
	spin_lock_bh(&ch->lock);
	if (!ch->disc_end[0])
		strscpy(ch->disc_end, how, sizeof(ch->disc_end));
	spin_unlock_bh(&ch->lock);
}

/* Never returns non-zero: the channel's teardown destroys the CM id. */
static int ibcm_cm_handler(struct ib_cm_id *cm_id,
			   const struct ib_cm_event *event)
{
	struct ibcm_chan *ch = cm_id->context;

	switch (event->event) {
	case IB_CM_REP_RECEIVED:
		ibcm_rep_received(ch, event->private_data);
		break;
	case IB_CM_REJ_RECEIVED:
		ibcm_rej_received(ch, event);
		break;
	case IB_CM_REQ_ERROR:
		ibcm_cm_fail(ch, "no answer to the REQ", -ETIMEDOUT);
		break;
	case IB_CM_DREQ_RECEIVED:
		spin_lock_bh(&ch->lock);
		ch->dreq_received = true;
		ch->state = IBCM_DISCONNECTED;
		spin_unlock_bh(&ch->lock);
		ibcm_disc_end(ch, "DREQ from the target");
		pr_info("%s: DREQ received\n", ch->name);
		if (ib_send_cm_drep(cm_id, NULL, 0))
			pr_warn("%s: sending the DREP failed\n", ch->name);
		/* Also the end of a DREQ of ours that crossed it. */
		complete(&ch->disc_done);
		break;
	case IB_CM_DREP_RECEIVED:
		ibcm_disc_end(ch, "DREP");
		complete(&ch->disc_done);
		break;
	case IB_CM_DREQ_ERROR:
		ibcm_disc_end(ch, "DREQ error");
		complete(&ch->disc_done);
		break;
	case IB_CM_TIMEWAIT_EXIT:
		ibcm_disc_end(ch, "timewait exit");
		complete(&ch->disc_done);
		break;
	case IB_CM_MRA_RECEIVED:
		break;
	default:
		pr_warn("%s: CM event %d\n", ch->name, event->event);
		break;
	}
	return 0;
}

/* ---- Channels ---- */

static void ibcm_unmap_free(struct ibcm_chan *ch, struct ibcm_buf *b,
			    size_t len, enum dma_data_direction dir)
{
	if (b->mapped)
		ib_dma_unmap_single(ch->ib, b->dma, len, dir);
	kfree(b->cpu);
}

/*
 * Moves the QP to the error state and waits, bounded, for its work
 * requests to complete flushed (ib_drain_qp() would wait for ever).
 * Nothing is reposted: closing is set.
 */
static void ibcm_flush_qp(struct ibcm_chan *ch)
{
	struct ib_qp_attr attr = { .qp_state = IB_QPS_ERR };
	int ret;

	if (!atomic_read(&ch->posted))
		return;
	ret = ib_modify_qp(ch->qp, &attr, IB_QP_STATE);
	if (ret)
		pr_warn("%s: moving the QP to the error state failed (%d)\n",
			ch->name, ret);
	else if (!wait_event_timeout(ch->flush_wq, !atomic_read(&ch->posted),
				     IBCM_FLUSH_WAIT))
		pr_warn("%s: %d work requests not flushed within %d s\n",
			ch->name, atomic_read(&ch->posted),
			IBCM_FLUSH_WAIT / HZ);
}

/*
 * Frees everything @ch holds: the CM id first, so no CM handler runs
 * after; the QP flushed, then destroyed, so the device touches no buffer
 * after; the CQ freed, so no completion handler runs after, flushed or
 * not; then the buffers.
 */
static void ibcm_destroy(struct ibcm_chan *ch)
{
	int i;

	if (ch->cm)
		ib_destroy_cm_id(ch->cm);
	spin_lock_bh(&ch->lock);
	ch->closing = true;
	spin_unlock_bh(&ch->lock);
	if (ch->qp) {
		ibcm_flush_qp(ch);
		ib_destroy_qp(ch->qp);
	}
	if (ch->cq)
		ib_free_cq(ch->cq);
	ibcm_unmap_free(ch, &ch->tx, IBCM_TX_SIZE, DMA_TO_DEVICE);
	for (i = 0; i < IBCM_RX_COUNT; i++)
		ibcm_unmap_free(ch, &ch->rx[i].iu, IBCM_RX_SIZE,
				DMA_FROM_DEVICE);
	ibcm_unmap_free(ch, &ch->data, IBCM_DATA_SIZE, DMA_BIDIRECTIONAL);
	if (ch->pd)
		ib_dealloc_pd(ch->pd);
	if (ch->sgid_attr)
		rdma_put_gid_attr(ch->sgid_attr);
	kfree(ch);
}

/*
 * A logout in two steps, so that many channels wait at once: the DREQ
 * unless the target sent one (ibcm_logout_start), then the wait for the
 * end of the disconnect until a deadline and the teardown
 * (ibcm_logout_finish). The caller took @ch off ibcm_chans.
 */
static void ibcm_logout_start(struct ibcm_chan *ch)
{
	bool send_dreq;
	char why[48];
	int ret;

	spin_lock_bh(&ch->lock);
	send_dreq = ch->state == IBCM_LIVE && !ch->dreq_received;
	spin_unlock_bh(&ch->lock);
	if (!send_dreq)
		return;
	ret = ib_send_cm_dreq(ch->cm, NULL, 0);
	if (ret) {
		/*
		 * The CM takes a DREQ before its handler runs: refused
		 * because the target's DREQ came in between, it is the
		 * target's.
		 */
		if (ch->cm->state == IB_CM_DREQ_RCVD ||
		    ch->cm->state == IB_CM_TIMEWAIT)
			snprintf(why, sizeof(why), "DREQ from the target");
		else
			snprintf(why, sizeof(why),
				 "sending the DREQ failed (%d)", ret);
		ibcm_disc_end(ch, why);
		return;
	}
	ch->dreq_sent = true;
}

/*
 * @deadline in jiffies; what ended the disconnect (the DREP, the
 * target's DREQ, ...) goes to @how, for the caller to report.
 */
static void ibcm_logout_finish(struct ibcm_chan *ch, unsigned long deadline,
			       char *how, size_t how_len)
{
	long left = (long)(deadline - jiffies);

	if (ch->dreq_sent &&
	    !wait_for_completion_timeout(&ch->disc_done, max(left, 1L))) {
		pr_warn("%s: no DREP within %d s\n", ch->name,
			IBCM_DISC_WAIT / HZ);
		ibcm_disc_end(ch, "no DREP");
	}
	spin_lock_bh(&ch->lock);
	strscpy(how, ch->disc_end[0] ? ch->disc_end : "not connected",
		how_len);
	spin_unlock_bh(&ch->lock);
	ibcm_destroy(ch);
}

static void ibcm_logout(struct ibcm_chan *ch, char *how, size_t how_len)
{
	list_del(&ch->list);
	ibcm_logout_start(ch);
	ibcm_logout_finish(ch, jiffies + IBCM_DISC_WAIT, how, how_len);
}

static int ibcm_map(struct ibcm_chan *ch, struct ibcm_buf *b, size_t len,
		    enum dma_data_direction dir)
{
	b->cpu = kzalloc(len, GFP_KERNEL);
	if (!b->cpu)
		return -ENOMEM;
	b->dma = ib_dma_map_single(ch->ib, b->cpu, len, dir);
	if (ib_dma_mapping_error(ch->ib, b->dma))
		return -ENOMEM;
	b->mapped = true;
	return 0;
}

static int ibcm_create_resources(struct ibcm_chan *ch)
{
	struct ib_qp_init_attr init = {
		.qp_type = IB_QPT_RC,
		.sq_sig_type = IB_SIGNAL_REQ_WR,
		.cap = {
			.max_send_wr = 16,
			.max_recv_wr = IBCM_RX_COUNT + 1,
			.max_send_sge = 1,
			.max_recv_sge = 1,
		},
	};
	struct ib_qp_attr attr = {
		.qp_state = IB_QPS_INIT,
		.port_num = ch->port,
		.qp_access_flags = IB_ACCESS_LOCAL_WRITE |
				   IB_ACCESS_REMOTE_READ |
				   IB_ACCESS_REMOTE_WRITE,
	};
	int i, ret;

	ch->pd = ib_alloc_pd(ch->ib, IB_PD_UNSAFE_GLOBAL_RKEY);
	if (IS_ERR(ch->pd)) {
		ret = PTR_ERR(ch->pd);
		ch->pd = NULL;
		return ret;
	}
	ch->cq = ib_alloc_cq(ch->ib, ch, 32, 0, IB_POLL_SOFTIRQ);
	if (IS_ERR(ch->cq)) {
		ret = PTR_ERR(ch->cq);
		ch->cq = NULL;
		return ret;
	}
	init.send_cq = ch->cq;
	init.recv_cq = ch->cq;
	ch->qp = ib_create_qp(ch->pd, &init);
	if (IS_ERR(ch->qp)) {
		ret = PTR_ERR(ch->qp);
		ch->qp = NULL;
		return ret;
	}
	ret = ibcm_map(ch, &ch->tx, IBCM_TX_SIZE, DMA_TO_DEVICE);
	if (ret)
		return ret;
	ch->tx_cqe.done = ibcm_tx_done;
	ret = ibcm_map(ch, &ch->data, IBCM_DATA_SIZE, DMA_BIDIRECTIONAL);
	if (ret)
		return ret;
	for (i = 0; i < IBCM_RX_COUNT; i++) {
		ch->rx[i].ch = ch;
		ch->rx[i].cqe.done = ibcm_rx_done;
		ret = ibcm_map(ch, &ch->rx[i].iu, IBCM_RX_SIZE,
			       DMA_FROM_DEVICE);
		if (ret)
			return ret;
	}
	ret = ib_find_cached_pkey(ch->ib, ch->port, 0xffff, &attr.pkey_index);
	if (ret)
		return ret;
	ret = ib_modify_qp(ch->qp, &attr, IB_QP_STATE | IB_QP_PKEY_INDEX |
			   IB_QP_PORT | IB_QP_ACCESS_FLAGS);
	if (ret)
		return ret;
	for (i = 0; i < IBCM_RX_COUNT; i++) {
		ret = ibcm_post_recv(&ch->rx[i]);
		if (ret)
			return ret;
	}
	return 0;
}

/*
 * The RoCE path record to the target, as cma_resolve_iboe_route() makes
 * it: the record type from the GID type, the route resolved, the
 * destination MAC dmac (NULL: our own, loopback), P_Key 0xffff, the
 * netdev's MTU.
 */
static int ibcm_make_path(struct ibcm_chan *ch, const u8 *dgid, const u8 *dmac)
{
	struct sa_path_rec *p = &ch->path;
	struct net_device *ndev;
	u8 mac[ETH_ALEN];
	int mtu;

	rcu_read_lock();
	ndev = rdma_read_gid_attr_ndev_rcu(ch->sgid_attr);
	if (IS_ERR(ndev)) {
		rcu_read_unlock();
		return PTR_ERR(ndev);
	}
	memcpy(mac, dmac ? dmac : ndev->dev_addr, ETH_ALEN);
	mtu = ndev->mtu;
	rcu_read_unlock();

	p->rec_type = sa_conv_gid_to_pathrec_type(ch->sgid_attr->gid_type);
	p->roce.route_resolved = true;
	sa_path_set_dmac(p, mac);
	p->sgid = ch->sgid_attr->gid;
	memcpy(p->dgid.raw, dgid, sizeof(p->dgid.raw));
	p->hop_limit = 64;
	p->reversible = 1;
	p->pkey = cpu_to_be16(0xffff);
	p->sl = 0;
	p->mtu_selector = IB_SA_EQ;
	p->mtu = iboe_get_mtu(mtu);
	p->rate_selector = IB_SA_EQ;
	p->rate = IB_RATE_PORT_CURRENT;
	p->packet_life_time_selector = IB_SA_EQ;
	p->packet_life_time = IBCM_PACKET_LIFETIME;
	return p->mtu ? 0 : -EINVAL;
}

struct ibcm_login_args {
	char name[IBCM_NAME_LEN];
	char dev[IB_DEVICE_NAME_MAX];
	u32 port;
	u8 dgid[16];
	u64 service_id, id_ext, ioc_guid, initiator_ext;
	u32 it_iu_len;
	u32 multi;
	u32 sgid_index;
	bool have_dmac;
	u8 dmac[ETH_ALEN];
};

static struct ibcm_dev *ibcm_find_dev(const char *name)
{
	struct ibcm_dev *d;

	list_for_each_entry(d, &ibcm_devs, list)
		if (!strcmp(dev_name(&d->ib->dev), name))
			return d;
	return NULL;
}

static void ibcm_login(const struct ibcm_login_args *a)
{
	struct ib_cm_req_param req = {
		.qp_type = IB_QPT_RC,
		.responder_resources = 4,
		.initiator_depth = 4,
		.remote_cm_response_timeout = 20,
		.local_cm_response_timeout = 20,
		.flow_control = 1,
		.retry_count = 7,
		.rnr_retry_count = 7,
		.max_cm_retries = 4,
		.private_data_len = sizeof(struct srp_login_req),
	};
	struct srp_login_req *r;
	struct ibcm_chan *ch;
	struct ibcm_dev *d;
	int ret;

	if (ibcm_find_chan(a->name)) {
		ibcm_set_result("%s error: a channel of that name exists",
				a->name);
		return;
	}
	d = ibcm_find_dev(a->dev);
	if (!d) {
		ibcm_set_result("%s error: no RDMA device %s", a->name, a->dev);
		return;
	}
	if (a->port < rdma_start_port(d->ib) || a->port > rdma_end_port(d->ib) ||
	    !rdma_cap_ib_cm(d->ib, a->port)) {
		ibcm_set_result("%s error: %s has no IB/CM port %u", a->name,
				a->dev, a->port);
		return;
	}
	ch = kzalloc(sizeof(*ch), GFP_KERNEL);
	if (!ch) {
		ibcm_set_result("%s error: out of memory", a->name);
		return;
	}
	strscpy(ch->name, a->name, sizeof(ch->name));
	ch->ib = d->ib;
	ch->port = a->port;
	ch->next_tag = 1;
	spin_lock_init(&ch->lock);
	init_completion(&ch->cm_done);
	init_completion(&ch->disc_done);
	init_completion(&ch->tx_done);
	init_completion(&ch->rx_done);
	init_waitqueue_head(&ch->flush_wq);
	ch->state = IBCM_CONNECTING;

	ch->sgid_attr = rdma_get_gid_attr(ch->ib, ch->port, a->sgid_index);
	if (IS_ERR(ch->sgid_attr)) {
		ret = PTR_ERR(ch->sgid_attr);
		ch->sgid_attr = NULL;
		ibcm_set_result("%s error: no GID %u (%d)", a->name,
				a->sgid_index, ret);
		goto fail;
	}
	ret = ibcm_make_path(ch, a->dgid, a->have_dmac ? a->dmac : NULL);
	if (ret) {
		ibcm_set_result("%s error: no RoCE path (%d)", a->name, ret);
		goto fail;
	}
	ret = ibcm_create_resources(ch);
	if (ret) {
		ibcm_set_result("%s error: creating the QP and buffers failed (%d)",
				a->name, ret);
		goto fail;
	}
	ch->cm = ib_create_cm_id(ch->ib, ibcm_cm_handler, ch);
	if (IS_ERR(ch->cm)) {
		ret = PTR_ERR(ch->cm);
		ch->cm = NULL;
		ibcm_set_result("%s error: ib_create_cm_id failed (%d)", a->name,
				ret);
		goto fail;
	}

	/*
	 * SRP_LOGIN_REQ, IB/CM form (SRP r16a table 9): the initiator port
	 * id is initiator_ext and the port's GUID (the GID's interface id),
	 * the target port id is id_ext and ioc_guid.
	 */
	r = &ch->login_req;
	r->opcode = SRP_LOGIN_REQ;
	put_unaligned_be32(a->it_iu_len, &r->req_it_iu_len);
	put_unaligned_be16(SRP_BUF_FORMAT_DIRECT | SRP_BUF_FORMAT_INDIRECT,
			   &r->req_buf_fmt);
	r->req_flags = a->multi ? SRP_MULTICHAN_MULTI : SRP_MULTICHAN_SINGLE;
	put_unaligned_be64(a->initiator_ext, r->initiator_port_id);
	memcpy(r->initiator_port_id + 8, &ch->sgid_attr->gid.raw[8], 8);
	put_unaligned_be64(a->id_ext, r->target_port_id);
	put_unaligned_be64(a->ioc_guid, r->target_port_id + 8);

	req.primary_path = &ch->path;
	req.ppath_sgid_attr = ch->sgid_attr;
	req.service_id = cpu_to_be64(a->service_id);
	req.qp_num = ch->qp->qp_num;
	req.starting_psn = get_random_u32() & 0xffffff;
	req.private_data = &ch->login_req;
	ret = ib_send_cm_req(ch->cm, &req);
	if (ret) {
		ibcm_set_result("%s error: ib_send_cm_req failed (%d)", a->name,
				ret);
		goto fail;
	}
	if (!wait_for_completion_timeout(&ch->cm_done, IBCM_CM_WAIT)) {
		ibcm_set_result("%s error: no REP, REJ or CM error within %d s",
				a->name, IBCM_CM_WAIT / HZ);
		goto fail;
	}
	switch (ch->state) {
	case IBCM_LIVE:
	case IBCM_DISCONNECTED:	/* a DREQ right after the RTU */
		ibcm_set_result("%s logged in max_it_iu_len=%u max_ti_iu_len=%u req_lim=%u multichannel_result=%u",
				a->name, ch->max_it_iu_len, ch->max_ti_iu_len,
				ch->req_lim, ch->rsp_flags & IBCM_MULTICHAN_RESULT);
		list_add_tail(&ch->list, &ibcm_chans);
		return;
	case IBCM_REJECTED:
		if (ch->rej_reason)
			ibcm_set_result("%s rejected reason=0x%08x", a->name,
					ch->rej_reason);
		else
			ibcm_set_result("%s cm_rejected cm_reason=%d", a->name,
					ch->cm_rej_reason);
		break;
	default:
		ibcm_set_result("%s error: %s", a->name, ch->cm_error);
		break;
	}
fail:
	ibcm_destroy(ch);
}

/* ---- SCSI commands over SRP ---- */

/*
 * One SRP_CMD with a direct descriptor of @len bytes of the data buffer
 * (@dir DMA_TO_DEVICE: data-out, DMA_FROM_DEVICE: data-in), and its
 * SRP_RSP. Returns 0 with the SCSI status in *@status and the data-in
 * residual in *@resid, or a negative error with @why set.
 */
static int ibcm_exec(struct ibcm_chan *ch, const u8 *cdb, int cdb_len,
		     enum dma_data_direction dir, u32 len, u8 *status,
		     u32 *resid, const char **why)
{
	struct srp_cmd *c = ch->tx.cpu;
	struct srp_direct_buf *desc = (struct srp_direct_buf *)c->add_data;
	struct ib_sge sge = {
		.addr = ch->tx.dma,
		.length = sizeof(*c) + sizeof(*desc),
		.lkey = ch->pd->local_dma_lkey,
	};
	struct ib_send_wr wr = {
		.wr_cqe = &ch->tx_cqe,
		.sg_list = &sge,
		.num_sge = 1,
		.opcode = IB_WR_SEND,
		.send_flags = IB_SEND_SIGNALED,
	};
	const struct srp_rsp *rsp = (const struct srp_rsp *)ch->rsp;
	u32 sense_len, resp_len;
	int ret;

	if (ch->broken) {
		*why = "an earlier command timed out or failed";
		return -EIO;
	}
	if (!ch->req_lim) {
		*why = "no credit left";
		return -EAGAIN;
	}
	ch->cur_tag = ch->next_tag++;
	/* LUN 0, task attribute SIMPLE (0): left zero. */
	memset(c, 0, sizeof(*c) + sizeof(*desc));
	c->opcode = SRP_CMD;
	/* DATA-OUT BUFFER DESCRIPTOR FORMAT in the high nibble. */
	if (dir == DMA_TO_DEVICE)
		c->buf_fmt = SRP_DATA_DESC_DIRECT << 4;
	else if (dir == DMA_FROM_DEVICE)
		c->buf_fmt = SRP_DATA_DESC_DIRECT;
	c->tag = ch->cur_tag;
	memcpy(c->cdb, cdb, cdb_len);
	put_unaligned_be64(ch->data.dma, &desc->va);
	put_unaligned_be32(ch->pd->unsafe_global_rkey, &desc->key);
	put_unaligned_be32(len, &desc->len);
	ib_dma_sync_single_for_device(ch->ib, ch->tx.dma, IBCM_TX_SIZE,
				      DMA_TO_DEVICE);
	ib_dma_sync_single_for_device(ch->ib, ch->data.dma, IBCM_DATA_SIZE,
				      DMA_BIDIRECTIONAL);
	reinit_completion(&ch->tx_done);
	reinit_completion(&ch->rx_done);
	ch->req_lim--;
	ret = ibcm_post_send(ch, &wr);
	if (ret) {
		*why = "posting the SRP_CMD failed";
		return ret;
	}
	/* A send that failed gets no response: no waiting for one. */
	if (!wait_for_completion_timeout(&ch->tx_done, IBCM_IO_WAIT)) {
		ch->broken = true;
		*why = "the SRP_CMD was not sent in time";
		return -ETIMEDOUT;
	}
	if (ch->tx_status != IB_WC_SUCCESS) {
		ch->broken = true;
		*why = "sending the SRP_CMD failed";
		return -EIO;
	}
	if (!wait_for_completion_timeout(&ch->rx_done, IBCM_IO_WAIT)) {
		ch->broken = true;
		*why = "no SRP_RSP in time";
		return -ETIMEDOUT;
	}
	ib_dma_sync_single_for_cpu(ch->ib, ch->data.dma, IBCM_DATA_SIZE,
				   DMA_BIDIRECTIONAL);
	ch->req_lim += get_unaligned_be32(&rsp->req_lim_delta);
	*status = rsp->status;
	*resid = rsp->flags & SRP_RSP_FLAG_DIUNDER ?
		 get_unaligned_be32(&rsp->data_in_res_cnt) : 0;
	/*
	 * The sense data follow the response data. Both lengths come from
	 * the wire: they are checked against what arrived by subtraction,
	 * never summed (a sum of u32s wraps). Sense key, ASC and ASCQ need
	 * the first 14 bytes of fixed-format sense data.
	 */
	sense_len = rsp->flags & SRP_RSP_FLAG_SNSVALID ?
		    get_unaligned_be32(&rsp->sense_data_len) : 0;
	resp_len = rsp->flags & SRP_RSP_FLAG_RSPVALID ?
		   get_unaligned_be32(&rsp->resp_data_len) : 0;
	if (*status && sense_len >= 14 && ch->rsp_len >= sizeof(*rsp) + 14 &&
	    resp_len <= ch->rsp_len - sizeof(*rsp) - 14) {
		const u8 *s = rsp->data + resp_len;

		pr_info("%s: opcode %#x: status %#x, sense key %#x asc %#x ascq %#x\n",
			ch->name, cdb[0], *status, s[2] & 0xf, s[12], s[13]);
	}
	return 0;
}

/* A command that must end with GOOD status. */
static int ibcm_exec_good(struct ibcm_chan *ch, const u8 *cdb, int cdb_len,
			  enum dma_data_direction dir, u32 len, u32 *resid,
			  char *err, size_t err_len)
{
	const char *why = NULL;
	u8 status = 0;
	int ret;

	ret = ibcm_exec(ch, cdb, cdb_len, dir, len, &status, resid, &why);
	if (ret) {
		snprintf(err, err_len, "opcode %#x: %s (%d)", cdb[0], why, ret);
		return ret;
	}
	if (status) {
		snprintf(err, err_len, "opcode %#x: SCSI status %#x", cdb[0],
			 status);
		return -EIO;
	}
	return 0;
}

/* The seed of the last io's pattern, under ibcm_mutex. */
static u32 ibcm_last_seed;

/*
 * Word @i of the pattern of @seed: for a given @i a bijection of @seed
 * (xor, xorshift, multiplication by an odd number), so two seeds differ
 * in every word.
 */
static u32 ibcm_pattern_word(u32 seed, u32 i)
{
	u32 x = seed ^ (i * 0x9e3779b9);

	x ^= x >> 16;
	x *= 0x85ebca6b;
	x ^= x >> 13;
	return x;
}

static void ibcm_io(struct ibcm_chan *ch)
{
	u8 cdb[16];
	u8 *buf = ch->data.cpu;
	char err[128];
	u32 resid, block_size, blocks, len, i, seed, want;
	u64 last_lba;

	spin_lock_bh(&ch->lock);
	if (ch->state != IBCM_LIVE) {
		spin_unlock_bh(&ch->lock);
		ibcm_set_result("%s io failed: not connected", ch->name);
		return;
	}
	spin_unlock_bh(&ch->lock);

	/* INQUIRY, 96 bytes: the vendor is LIO's. */
	memset(cdb, 0, sizeof(cdb));
	cdb[0] = 0x12;
	put_unaligned_be16(96, cdb + 3);
	memset(buf, 0, 96);
	if (ibcm_exec_good(ch, cdb, 6, DMA_FROM_DEVICE, 96, &resid, err,
			   sizeof(err)))
		goto fail;
	if (96 - resid < 16 || memcmp(buf + 8, "LIO-ORG", 7)) {
		snprintf(err, sizeof(err), "INQUIRY: vendor '%.8s', %u bytes",
			 buf + 8, 96 - resid);
		goto fail;
	}

	/* READ CAPACITY(10). */
	memset(cdb, 0, sizeof(cdb));
	cdb[0] = 0x25;
	memset(buf, 0, 8);
	if (ibcm_exec_good(ch, cdb, 10, DMA_FROM_DEVICE, 8, &resid, err,
			   sizeof(err)))
		goto fail;
	if (resid) {
		snprintf(err, sizeof(err), "READ CAPACITY: %u bytes short",
			 resid);
		goto fail;
	}
	last_lba = get_unaligned_be32(buf);
	block_size = get_unaligned_be32(buf + 4);
	if (block_size < 512 || block_size > IBCM_DATA_SIZE ||
	    IBCM_DATA_SIZE % block_size) {
		snprintf(err, sizeof(err), "READ CAPACITY: block size %u",
			 block_size);
		goto fail;
	}
	blocks = min_t(u64, IBCM_MAX_BLOCKS, last_lba + 1);
	blocks = min_t(u32, blocks, IBCM_DATA_SIZE / block_size);
	len = blocks * block_size;

	/*
	 * WRITE(10) a pattern to LBA 0, READ(10) it back, compare. A seed
	 * unlike the last io's: a WRITE that never reached the disk leaves
	 * the last pattern there, which fails the compare.
	 */
	do {
		seed = get_random_u32();
	} while (seed == ibcm_last_seed);
	ibcm_last_seed = seed;
	for (i = 0; i < len / 4; i++)
		put_unaligned_be32(ibcm_pattern_word(seed, i), buf + 4 * i);
	memset(cdb, 0, sizeof(cdb));
	cdb[0] = 0x2a;
	put_unaligned_be16(blocks, cdb + 7);
	if (ibcm_exec_good(ch, cdb, 10, DMA_TO_DEVICE, len, &resid, err,
			   sizeof(err)))
		goto fail;
	memset(buf, 0, len);
	cdb[0] = 0x28;
	if (ibcm_exec_good(ch, cdb, 10, DMA_FROM_DEVICE, len, &resid, err,
			   sizeof(err)))
		goto fail;
	if (resid) {
		snprintf(err, sizeof(err), "READ(10): %u bytes short", resid);
		goto fail;
	}
	for (i = 0; i < len / 4; i++) {
		want = ibcm_pattern_word(seed, i);
		if (get_unaligned_be32(buf + 4 * i) != want) {
			snprintf(err, sizeof(err),
				 "READ(10): bytes %u..%u are %#010x, not %#010x (seed %#010x)",
				 4 * i, 4 * i + 3, get_unaligned_be32(buf + 4 * i),
				 want, seed);
			goto fail;
		}
	}
	ibcm_set_result("%s io ok last_lba=%llu block_size=%u blocks=%u seed=%#010x",
			ch->name, last_lba, block_size, blocks, seed);
	return;
fail:
	ibcm_set_result("%s io failed: %s", ch->name, err);
}

/* ---- Commands ---- */

static int ibcm_parse_hex(const char *v, u8 *out, size_t len)
{
	if (strlen(v) != 2 * len)
		return -EINVAL;
	return hex2bin(out, v, len);
}

/* The arguments a login must have. */
#define IBCM_ARG_DEV		BIT(0)
#define IBCM_ARG_DGID		BIT(1)
#define IBCM_ARG_SERVICE_ID	BIT(2)
#define IBCM_ARG_ID_EXT		BIT(3)
#define IBCM_ARG_IOC_GUID	BIT(4)
#define IBCM_ARGS_REQUIRED	(IBCM_ARG_DEV | IBCM_ARG_DGID | IBCM_ARG_SERVICE_ID | \
				 IBCM_ARG_ID_EXT | IBCM_ARG_IOC_GUID)

static int ibcm_parse_login(char *args, struct ibcm_login_args *a)
{
	unsigned int have = 0;
	char *tok, *v;
	int ret;

	a->it_iu_len = 4096;
	a->port = 1;
	while ((tok = strsep(&args, " \t")) != NULL) {
		if (!*tok)
			continue;
		v = strchr(tok, '=');
		if (!v)
			return -EINVAL;
		*v++ = '\0';
		if (!strcmp(tok, "dev")) {
			ret = strscpy(a->dev, v, sizeof(a->dev)) < 0 ? -EINVAL : 0;
			have |= IBCM_ARG_DEV;
		} else if (!strcmp(tok, "port")) {
			ret = kstrtou32(v, 0, &a->port);
		} else if (!strcmp(tok, "dgid")) {
			ret = ibcm_parse_hex(v, a->dgid, sizeof(a->dgid));
			have |= IBCM_ARG_DGID;
		} else if (!strcmp(tok, "service_id")) {
			ret = kstrtou64(v, 16, &a->service_id);
			have |= IBCM_ARG_SERVICE_ID;
		} else if (!strcmp(tok, "id_ext")) {
			ret = kstrtou64(v, 16, &a->id_ext);
			have |= IBCM_ARG_ID_EXT;
		} else if (!strcmp(tok, "ioc_guid")) {
			ret = kstrtou64(v, 16, &a->ioc_guid);
			have |= IBCM_ARG_IOC_GUID;
		} else if (!strcmp(tok, "initiator_ext")) {
			ret = kstrtou64(v, 16, &a->initiator_ext);
		} else if (!strcmp(tok, "it_iu_len")) {
			ret = kstrtou32(v, 0, &a->it_iu_len);
		} else if (!strcmp(tok, "multi")) {
			ret = kstrtou32(v, 0, &a->multi);
			if (!ret && a->multi > 1)
				ret = -EINVAL;
		} else if (!strcmp(tok, "sgid_index")) {
			ret = kstrtou32(v, 0, &a->sgid_index);
		} else if (!strcmp(tok, "dmac")) {
			ret = ibcm_parse_hex(v, a->dmac, sizeof(a->dmac));
			a->have_dmac = true;
		} else {
			ret = -EINVAL;
		}
		if (ret)
			return ret;
	}
	return have == IBCM_ARGS_REQUIRED ? 0 : -EINVAL;
}

/* Every command ends with a result, whatever happened. */
static void ibcm_command(char *cmd)
{
	struct ibcm_login_args *a;
	char none[] = "";
	char *verb, *name;
	struct ibcm_chan *ch;

	verb = strsep(&cmd, " \t");
	name = strsep(&cmd, " \t");
	if (!verb || !name || !*name || strlen(name) >= IBCM_NAME_LEN) {
		ibcm_set_result("error: usage: login|io|state|logout NAME ...");
		return;
	}
	if (!strcmp(verb, "login")) {
		a = kzalloc(sizeof(*a), GFP_KERNEL);
		if (!a) {
			ibcm_set_result("%s error: out of memory", name);
			return;
		}
		strscpy(a->name, name, sizeof(a->name));
		if (ibcm_parse_login(cmd ? cmd : none, a))
			ibcm_set_result("%s error: bad login arguments", name);
		else
			ibcm_login(a);
		kfree(a);
		return;
	}
	if (cmd && *skip_spaces(cmd)) {
		ibcm_set_result("%s error: %s takes no arguments", name, verb);
		return;
	}
	ch = ibcm_find_chan(name);
	if (!ch) {
		ibcm_set_result("%s error: no such channel", name);
		return;
	}
	if (!strcmp(verb, "io")) {
		ibcm_io(ch);
	} else if (!strcmp(verb, "state")) {
		bool dreq;

		spin_lock_bh(&ch->lock);
		dreq = ch->dreq_received;
		spin_unlock_bh(&ch->lock);
		ibcm_set_result(dreq ? "%s disconnected by the target (DREQ)" :
				"%s connected", name);
	} else if (!strcmp(verb, "logout")) {
		char how[48];

		ibcm_logout(ch, how, sizeof(how));
		ibcm_set_result("%s logged out (%s)", name, how);
	} else {
		ibcm_set_result("%s error: unknown command %s", name, verb);
	}
}

static ssize_t ibcm_ctl_write(struct file *file, const char __user *ubuf,
			      size_t count, loff_t *ppos)
{
	char *buf;
	ssize_t ret = count;

	/* A command may take its time (a login up to 40 s): killable. */
	if (mutex_lock_killable(&ibcm_mutex))
		return -EINTR;
	/* Whatever happens now, no earlier result stays to be read. */
	ibcm_result[0] = '\0';
	if (count >= IBCM_CMD_LEN) {
		ret = -EINVAL;
		goto out;
	}
	buf = memdup_user_nul(ubuf, count);
	if (IS_ERR(buf)) {
		ret = PTR_ERR(buf);
		goto out;
	}
	ibcm_command(strim(buf));
	kfree(buf);
out:
	mutex_unlock(&ibcm_mutex);
	return ret;
}

static ssize_t ibcm_ctl_read(struct file *file, char __user *ubuf,
			     size_t count, loff_t *ppos)
{
	char buf[IBCM_RESULT_LEN + 1];
	int len;

	if (mutex_lock_killable(&ibcm_mutex))
		return -EINTR;
	len = scnprintf(buf, sizeof(buf), "%s\n", ibcm_result);
	mutex_unlock(&ibcm_mutex);
	return simple_read_from_buffer(ubuf, count, ppos, buf, len);
}

static const struct file_operations ibcm_ctl_fops = {
	.owner = THIS_MODULE,
	.read = ibcm_ctl_read,
	.write = ibcm_ctl_write,
	.llseek = default_llseek,
};

/* ---- RDMA devices ---- */

static int ibcm_add_one(struct ib_device *ib)
{
	struct ibcm_dev *d;

	d = kzalloc(sizeof(*d), GFP_KERNEL);
	if (!d)
		return -ENOMEM;
	d->ib = ib;
	mutex_lock(&ibcm_mutex);
	list_add_tail(&d->list, &ibcm_devs);
	mutex_unlock(&ibcm_mutex);
	return 0;
}

/*
 * The device goes away (or the module does): so do its channels, every
 * DREQ sent first, then all waited for against one deadline. Once the
 * device is off ibcm_devs and its channels off ibcm_chans, no command
 * finds either: the waits need not hold ibcm_mutex.
 */
static void ibcm_remove_one(struct ib_device *ib, void *client_data)
{
	struct ibcm_chan *ch, *next;
	struct ibcm_dev *d, *dn;
	unsigned long deadline;
	LIST_HEAD(going);

	mutex_lock(&ibcm_mutex);
	list_for_each_entry_safe(d, dn, &ibcm_devs, list) {
		if (d->ib == ib) {
			list_del(&d->list);
			kfree(d);
		}
	}
	list_for_each_entry_safe(ch, next, &ibcm_chans, list)
		if (ch->ib == ib)
			list_move_tail(&ch->list, &going);
	mutex_unlock(&ibcm_mutex);

	list_for_each_entry(ch, &going, list)
		ibcm_logout_start(ch);
	deadline = jiffies + IBCM_DISC_WAIT;
	list_for_each_entry_safe(ch, next, &going, list) {
		char name[IBCM_NAME_LEN], how[48];

		list_del(&ch->list);
		strscpy(name, ch->name, sizeof(name));
		ibcm_logout_finish(ch, deadline, how, sizeof(how));
		pr_info("%s logged out (%s): leaving %s\n", name, how,
			dev_name(&ib->dev));
	}
}

static struct ib_client ibcm_client = {
	.name = "srp_ibcm",
	.add = ibcm_add_one,
	.remove = ibcm_remove_one,
};

static int __init ibcm_init(void)
{
	int ret;

	ret = ib_register_client(&ibcm_client);
	if (ret)
		return ret;
	ibcm_dir = debugfs_create_dir("srp_ibcm", NULL);
	debugfs_create_file("ctl", 0600, ibcm_dir, NULL, &ibcm_ctl_fops);
	return 0;
}

static void __exit ibcm_exit(void)
{
	/* No command runs after this; then every device's channels close. */
	debugfs_remove_recursive(ibcm_dir);
	ib_unregister_client(&ibcm_client);
}

module_init(ibcm_init);
module_exit(ibcm_exit);

MODULE_DESCRIPTION("Test-only SRP initiator logging in through IB/CM, also on RoCE");
MODULE_LICENSE("GPL");
