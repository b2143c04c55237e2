/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Test double of the data path shims (src/shim/channel_os.c, src/shim/recv.c,
 * src/shim/lio_cmd.c and LIO behind them): channels, receive buffers, the SRQ
 * and commands. It records every callout in order, captures the bytes
 * the core sends (login response, rejection, SRP_RSP), fails on request,
 * and models what the suites need of the hardware:
 *
 *  - a receive queue per channel and the device's SRQ: buffers are
 *    real kmalloc() memory, posted in order; fake_recv_take() hands the
 *    next posted one to the test, which writes an IU into it and calls
 *    srpt_core_recv_done();
 *  - a send queue per channel: zero-length writes, rounds of RDMA
 *    transfers and responses stay outstanding until the test completes the oldest with
 *    fake_channel_complete(), or, after fake_channel_auto_complete(), a
 *    work item completes them like a CQ does (flushed once the QP is in
 *    the error state);
 *  - the QP as a real HCA holds it (tests/doubles/qp_model.h, shared with
 *    the host double): queues exactly as large as asked, a post beyond
 *    them refused, a slot for the drain on each queue, a CQ that never
 *    overruns;
 *  - srpt_os_channel_destroy_qp() drains like ib_drain_qp(): every
 *    outstanding work request and posted receive completes with a flush
 *    error, in the calling thread, before it returns.
 *
 * Misuse that the kernel would punish (a callout after the channel was
 * freed or its login rejected, a breach of the contract of abi.h the host
 * double enforces too (tests/doubles/contract.h: teardown out of order,
 * accept without a QP or session, posting a receive buffer twice, freeing
 * a posted one, buf_add after init, a sleeping call in atomic context,
 * ...) is a violation: it WARNs, which fails scripts/kunit, and counts in
 * fake_violations(), which the suites check after every case. A case
 * that provokes violations on purpose (the srpt_double suite) says so
 * with fake_expect_violations(): they count and the last is kept, without
 * a WARN.
 */
#ifndef SRPT_KUNIT_FAKE_DATAPATH_H
#define SRPT_KUNIT_FAKE_DATAPATH_H

#include <linux/compiler.h>
#include <linux/list.h>
#include <linux/spinlock.h>
#include <linux/types.h>
#include <linux/workqueue.h>

#include <srpt/abi.h>

#include "../tests/doubles/contract.h"
#include "../tests/doubles/qp_model.h"

#define FAKE_MAX_ACLS 4
#define FAKE_MAX_TRIED 4
#define FAKE_NAME_LEN 64
#define FAKE_CM_DATA_LEN 64		/* login response 52, rejection 32 */
#define FAKE_RSP_MAX 1024		/* the largest srp_max_rsp_size */
#define FAKE_SQ_DEPTH 32
#define FAKE_LOG_LEN 512		/* a login posts 128 receive buffers */
#define FAKE_MAX_RDMA 4

/* A TPG as LIO has it: the initiator names with a node ACL in it. */
struct srpt_os_tpg {
	const char *acls[FAKE_MAX_ACLS];
};

/* Every callout a channel sees, in the order of include/srpt/abi.h. */
enum fake_call {
	FAKE_CREATE_QP,
	FAKE_OPEN_SESSION,
	FAKE_ACCEPT,
	FAKE_CM_REJECT,
	FAKE_READY,
	FAKE_NOTIFY_ESTABLISHED,
	FAKE_DISCONNECT,
	FAKE_QP_ERROR,
	FAKE_ZERO_WRITE,
	FAKE_CLOSE_SESSION,
	FAKE_DESTROY_CM,
	FAKE_DESTROY_QP,
	FAKE_FREE,
	FAKE_RECV_POST,			/* on the channel's receive queue */
	FAKE_CMD_INIT,
	FAKE_CMD_MAP_IMM,
	FAKE_CMD_BUF_ADD,
	FAKE_CMD_RDMA_MAP,
	FAKE_CMD_RDMA_UNMAP,
	FAKE_CMD_RELEASE_DATA,
	FAKE_CMD_SUBMIT,
	FAKE_CMD_ABORT,
	FAKE_CMD_SUBMIT_TMR,
	FAKE_CMD_EXECUTE,
	FAKE_CMD_POST_RDMA,		/* srpt_os_cmd_post() of transfers alone */
	FAKE_CMD_POST_RESPONSE,		/* ... with a response (and maybe data before it) */
	FAKE_CMD_PUT,
	FAKE_CMD_DONE,
	FAKE_NR_CALLS,
};

/* Outstanding work requests of a send queue. */
enum fake_wr_kind {
	FAKE_WR_ZERO_WRITE,
	FAKE_WR_RDMA,			/* a round of transfers without a response */
	FAKE_WR_SEND,
};

struct fake_wr {
	enum fake_wr_kind kind;
	struct srpt_os_cmd *cmd;	/* RDMA and SEND */
	unsigned int wrs;		/* send queue slots it takes */
};

/*
 * The kernel side of a channel. The test owns the memory: it outlives
 * srpt_os_channel_free(), which only records, so the test can look at
 * what happened after the core let go.
 */
struct srpt_os_channel {
	/* Set by the test (fake_channel_init() zeroes them). */
	struct srpt_os_device *dev;
	u8 cm;				/* enum srpt_cm_kind: tf_login() sets it */
	int create_qp_err;
	int accept_err;
	int ready_err;
	int disconnect_err;
	int zero_write_err;
	int recv_post_err;
	int cmd_init_err;
	int rdma_map_wrs;		/* what rdma_map returns; 0 means 1 */
	int rdma_map_err;
	/* buf_add keeps a command's one buffer of read data, up to a page (SRPT_BUF_KEPT). */
	bool buf_kept;
	int post_rdma_err;
	int post_response_err;
	int submit_tmr_err;
	/* LIO inside target_submit(), e.g. failing the command at once. */
	void (*on_submit)(struct srpt_os_cmd *cmd);
	void *priv;			/* for on_submit */

	/*
	 * Recorded. @lock guards the counters, the log, the states and the
	 * send queue, which completions and the release work also touch;
	 * the rest is written by the one thread the core calls from.
	 */
	spinlock_t lock;
	unsigned int calls[FAKE_NR_CALLS];
	u8 log[FAKE_LOG_LEN];		/* call n is log[n % FAKE_LOG_LEN] */
	unsigned int n_log;
	struct srpt_channel *core;	/* from create_qp */
	struct srpt_qp_params qp;	/* of the last create_qp */
	struct srpt_qp_model qpm;	/* the QP the device made of it */
	/*
	 * Where it stands in the contract both doubles enforce, its send
	 * contexts counted; tf_login() sets what the initiator allows.
	 */
	struct srpt_contract contract;
	bool qp_error;
	bool gone;			/* the login was rejected: the shim freed it */
	bool auto_complete;
	struct srpt_os_tpg *session_tpg;	/* while a session is open */
	char initiator[FAKE_NAME_LEN];
	char tried[FAKE_MAX_TRIED][FAKE_NAME_LEN];	/* open_session names */
	unsigned int n_tried;
	u8 rsp[FAKE_CM_DATA_LEN];	/* the last accept's private data */
	size_t rsp_len;
	u8 rej[FAKE_CM_DATA_LEN];	/* the last rejection's */
	size_t rej_len;
	u8 sent[FAKE_RSP_MAX];		/* the last response posted */
	u32 sent_len;
	int sent_with_data;
	struct srpt_os_cmd *sent_cmd;
	struct srpt_os_cmd *last_cmd;	/* of the last command callout */
	struct fake_wr sq[FAKE_SQ_DEPTH];
	unsigned int sq_head;
	unsigned int sq_len;

	struct list_head rq;		/* posted receive buffers, oldest first */
	struct list_head cmds;		/* its send contexts */
	struct work_struct cq_work;	/* auto-completion */
};

/* A receive buffer: @iu is where the IU is received. */
struct srpt_os_recv {
	struct srpt_os_device *dev;
	struct srpt_recv *core;
	void *buf;			/* 512-byte aligned */
	u8 *iu;				/* @buf + @align_offset */
	u32 size;
	u32 align_offset;
	unsigned int posts;
	struct list_head post_node;	/* on a receive queue or SRQ while posted */
};

struct fake_rdma_buf {
	u64 va;
	u32 rkey;
	u32 len;
};

/* A send context; what the core told LIO and rdma_rw about its request. */
struct srpt_os_cmd {
	struct srpt_os_channel *ch;
	struct srpt_cmd *core;
	u8 *rsp_buf;
	u32 rsp_size;
	u8 sense[SRPT_SENSE_SIZE];	/* LIO's sense data for the response */
	struct list_head node;		/* on ch->cmds */
	unsigned int calls[FAKE_NR_CALLS];

	struct {			/* init */
		u64 tag;
		u64 lun;
		u32 data_len;
		u8 dir;			/* enum srpt_data_dir */
		u8 task_attr;		/* enum srpt_task_attr */
	} info;
	u8 cdb[16];			/* submit */
	void *imm_data;			/* map_imm */
	u32 imm_len;
	/* The contract both doubles enforce: buffers' count, direction, init ... */
	struct srpt_contract_cmd contract;
	struct fake_rdma_buf rdma[FAKE_MAX_RDMA];	/* buf_add, the first FAKE_MAX_RDMA */
	u32 mapped;			/* bit n: buffer n mapped (rdma_map) */
	u32 posted;			/* ... and posted (bit 0 of a kept buffer: posted once) */
	bool kept;			/* buffer 0 is kept: buf_add said SRPT_BUF_KEPT */
	unsigned int map_wrs;		/* send WRs of the buffers mapped and not posted */
	u32 sent_bytes;			/* bytes of the transfers posted */
	u64 tmr_lun;			/* submit_tmr */
	u64 tmr_task_tag;
	u64 tmr_tag;
	enum srpt_tmf tmr_fn;
};

void fake_channel_init(struct srpt_os_channel *ch, struct srpt_os_device *dev);
/* srpt_core_login() failed: the shim freed @ch; no callout may follow. */
void fake_channel_rejected(struct srpt_os_channel *ch);
/*
 * Completes the oldest outstanding send work request, which must be of
 * @kind: 0, -ENOENT (none outstanding) or -EPROTO (another kind first).
 */
int fake_channel_complete(struct srpt_os_channel *ch, enum fake_wr_kind kind, bool ok);
unsigned int fake_channel_outstanding(struct srpt_os_channel *ch);
/* From now on a work item completes the send queue, like a CQ. */
void fake_channel_auto_complete(struct srpt_os_channel *ch);
/* Waits for that work item; before the test frees @ch. */
void fake_channel_quiesce(struct srpt_os_channel *ch);
/* Calls of LIO (init, submit, abort, submit_tmr, execute, put, done). */
unsigned int fake_lio_calls(struct srpt_os_channel *ch);
const char *fake_call_name(unsigned int call);

/*
 * Takes the oldest receive buffer posted on @ch (on @dev's SRQ when @ch
 * is NULL) off its queue, as the HCA does when an IU arrives; NULL when
 * none is posted.
 */
struct srpt_os_recv *fake_recv_take(struct srpt_os_device *dev, struct srpt_os_channel *ch);
/* Buffers posted on @ch (on @dev's SRQ when @ch is NULL). */
unsigned int fake_recv_posted(struct srpt_os_device *dev, struct srpt_os_channel *ch);
bool fake_recv_is_posted(struct srpt_os_recv *r);

/* LIO's queue_data_in (@with_data) or queue_status: from now on the read data may be mapped. */
int fake_lio_queue_response(struct srpt_os_cmd *cmd, struct srpt_cmd_status st, int with_data);

/* Allocations of the double still live, and violations since the last reset. */
int fake_live_recvs(void);
int fake_live_cmds(void);
int fake_violations(void);
void fake_reset_violations(void);
/* Violations provoked on purpose from now (@expect) on: no WARN; the last one's text. */
void fake_expect_violations(bool expect);
const char *fake_last_violation(void);

/* The contract's state, for the suites. */
static inline bool fake_qp_created(const struct srpt_os_channel *ch)
{
	return READ_ONCE(ch->contract.qp) || READ_ONCE(ch->contract.qp_destroyed);
}

static inline bool fake_freed(const struct srpt_os_channel *ch)
{
	return READ_ONCE(ch->contract.freed);
}

#endif /* SRPT_KUNIT_FAKE_DATAPATH_H */
