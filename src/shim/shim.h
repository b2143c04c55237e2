/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * What the IB and LIO shims share (never seen by the core): the kernel
 * side of the ABI's opaque objects, and the entry points each shim file
 * offers the others. The kernel services of os.c, which KUnit builds
 * too, are in os.h.
 */
#ifndef SRPT_SHIM_H
#define SRPT_SHIM_H

#include <linux/slab.h>
#include <rdma/ib_cm.h>
#include <rdma/ib_verbs.h>
#include <rdma/rdma_cm.h>
#include <target/target_core_base.h>

#include <srpt/abi.h>

/* The ABI's kernel codes are the kernel's own: the shims pass them through. */
#define SRPT_SAME_CODE(ours, kernel) \
	static_assert((int)(ours) == (int)(kernel), #ours " is " #kernel)
SRPT_SAME_CODE(SRPT_IB_CM_REP_ERROR, IB_CM_REP_ERROR);
SRPT_SAME_CODE(SRPT_IB_CM_RTU_RECEIVED, IB_CM_RTU_RECEIVED);
SRPT_SAME_CODE(SRPT_IB_CM_USER_ESTABLISHED, IB_CM_USER_ESTABLISHED);
SRPT_SAME_CODE(SRPT_IB_CM_DREQ_ERROR, IB_CM_DREQ_ERROR);
SRPT_SAME_CODE(SRPT_IB_CM_DREQ_RECEIVED, IB_CM_DREQ_RECEIVED);
SRPT_SAME_CODE(SRPT_IB_CM_DREP_RECEIVED, IB_CM_DREP_RECEIVED);
SRPT_SAME_CODE(SRPT_IB_CM_TIMEWAIT_EXIT, IB_CM_TIMEWAIT_EXIT);
SRPT_SAME_CODE(SRPT_IB_CM_REJ_RECEIVED, IB_CM_REJ_RECEIVED);
SRPT_SAME_CODE(SRPT_RDMA_CM_CONNECT_ERROR, RDMA_CM_EVENT_CONNECT_ERROR);
SRPT_SAME_CODE(SRPT_RDMA_CM_UNREACHABLE, RDMA_CM_EVENT_UNREACHABLE);
SRPT_SAME_CODE(SRPT_RDMA_CM_REJECTED, RDMA_CM_EVENT_REJECTED);
SRPT_SAME_CODE(SRPT_RDMA_CM_ESTABLISHED, RDMA_CM_EVENT_ESTABLISHED);
SRPT_SAME_CODE(SRPT_RDMA_CM_DISCONNECTED, RDMA_CM_EVENT_DISCONNECTED);
SRPT_SAME_CODE(SRPT_RDMA_CM_TIMEWAIT_EXIT, RDMA_CM_EVENT_TIMEWAIT_EXIT);
SRPT_SAME_CODE(SRPT_IB_EVENT_QP_FATAL, IB_EVENT_QP_FATAL);
SRPT_SAME_CODE(SRPT_IB_EVENT_QP_REQ_ERR, IB_EVENT_QP_REQ_ERR);
SRPT_SAME_CODE(SRPT_IB_EVENT_QP_ACCESS_ERR, IB_EVENT_QP_ACCESS_ERR);
SRPT_SAME_CODE(SRPT_IB_EVENT_COMM_EST, IB_EVENT_COMM_EST);
SRPT_SAME_CODE(SRPT_IB_EVENT_PORT_ACTIVE, IB_EVENT_PORT_ACTIVE);
SRPT_SAME_CODE(SRPT_IB_EVENT_PORT_ERR, IB_EVENT_PORT_ERR);
SRPT_SAME_CODE(SRPT_IB_EVENT_LID_CHANGE, IB_EVENT_LID_CHANGE);
SRPT_SAME_CODE(SRPT_IB_EVENT_PKEY_CHANGE, IB_EVENT_PKEY_CHANGE);
SRPT_SAME_CODE(SRPT_IB_EVENT_SM_CHANGE, IB_EVENT_SM_CHANGE);
SRPT_SAME_CODE(SRPT_IB_EVENT_CLIENT_REREGISTER, IB_EVENT_CLIENT_REREGISTER);
SRPT_SAME_CODE(SRPT_IB_EVENT_GID_CHANGE, IB_EVENT_GID_CHANGE);
SRPT_SAME_CODE(SRPT_WC_SUCCESS, IB_WC_SUCCESS);
SRPT_SAME_CODE(SRPT_WC_WR_FLUSH_ERR, IB_WC_WR_FLUSH_ERR);
SRPT_SAME_CODE(SRPT_WC_RETRY_EXC_ERR, IB_WC_RETRY_EXC_ERR);
SRPT_SAME_CODE(SRPT_WC_GENERAL_ERR, IB_WC_GENERAL_ERR);
SRPT_SAME_CODE(SRPT_DATA_OUT, DMA_TO_DEVICE);
SRPT_SAME_CODE(SRPT_DATA_IN, DMA_FROM_DEVICE);
SRPT_SAME_CODE(SRPT_TASK_SIMPLE, TCM_SIMPLE_TAG);
SRPT_SAME_CODE(SRPT_TASK_HEAD_OF_QUEUE, TCM_HEAD_TAG);
SRPT_SAME_CODE(SRPT_TASK_ORDERED, TCM_ORDERED_TAG);
SRPT_SAME_CODE(SRPT_TASK_ACA, TCM_ACA_TAG);
SRPT_SAME_CODE(SRPT_TMF_ABORT_TASK, TMR_ABORT_TASK);
SRPT_SAME_CODE(SRPT_TMF_ABORT_TASK_SET, TMR_ABORT_TASK_SET);
SRPT_SAME_CODE(SRPT_TMF_CLEAR_ACA, TMR_CLEAR_ACA);
SRPT_SAME_CODE(SRPT_TMF_CLEAR_TASK_SET, TMR_CLEAR_TASK_SET);
SRPT_SAME_CODE(SRPT_TMF_LUN_RESET, TMR_LUN_RESET);
SRPT_SAME_CODE(SRPT_TMF_UNSUPPORTED, TMR_UNKNOWN);
SRPT_SAME_CODE(SRPT_TMR_FAILED, TMR_FUNCTION_FAILED);
SRPT_SAME_CODE(SRPT_TMR_COMPLETE, TMR_FUNCTION_COMPLETE);
SRPT_SAME_CODE(SRPT_TMR_TASK_DOES_NOT_EXIST, TMR_TASK_DOES_NOT_EXIST);
SRPT_SAME_CODE(SRPT_TMR_LUN_DOES_NOT_EXIST, TMR_LUN_DOES_NOT_EXIST);
SRPT_SAME_CODE(SRPT_TMR_NOT_SUPPORTED, TMR_TASK_MGMT_FUNCTION_NOT_SUPPORTED);
SRPT_SAME_CODE(SRPT_TMR_REJECTED, TMR_FUNCTION_REJECTED);

/* ---- RDMA devices (ib_device.c) ---- */

struct srpt_os_device {
	struct ib_device *ib;
	struct srpt_device *core;
	struct ib_pd *pd;
	struct ib_srq *srq;
	struct ib_cm_id *cm_listen;	/* IB/CM logins, InfiniBand and RoCE */
	struct ib_event_handler event_handler;
	bool removing;			/* under srpt_login_rwsem */
	u32 port_count;
	/* Indexed by port number - 1; set and cleared by the core's calls. */
	struct ib_mad_agent *mad_agent[];
};

int srpt_ib_register(void);
void srpt_ib_unregister(void);

/*
 * A login starts: returns the device the connection request arrived on,
 * which cannot be removed until srpt_login_end(), or NULL when it is not
 * ours or is going away (then srpt_login_end() is not called).
 */
struct srpt_os_device *srpt_login_begin(struct ib_device *ib);
void srpt_login_end(void);

/* ---- Channels (channel_os.c) and their connection managers ---- */

struct srpt_os_channel;

/*
 * What differs between IB/CM (ib_cm.c) and RDMA/CM (rdma_cm.c) for a
 * channel: each connection manager fills one table, and channel_os.c
 * calls through it instead of asking which one a channel uses.
 */
struct srpt_cm_ops {
	/* Creates the QP for the connection (IB/CM: in INIT). */
	struct ib_qp *(*create_qp)(struct srpt_os_channel *ch,
				   struct ib_qp_init_attr *init);
	/* Destroys the QP, which is drained; the CM id may be gone already. */
	void (*destroy_qp)(struct srpt_os_channel *ch);
	int (*accept)(struct srpt_os_channel *ch, const void *rsp, size_t len);
	void (*reject)(struct srpt_os_channel *ch, const void *rej, size_t len);
	/* The connection is established: make the QP ready to send. */
	int (*ready)(struct srpt_os_channel *ch);
	void (*notify_established)(struct srpt_os_channel *ch);
	int (*disconnect)(struct srpt_os_channel *ch, enum srpt_disconnect how);
	void (*destroy_id)(struct srpt_os_channel *ch);
};

extern const struct srpt_cm_ops srpt_ib_cm_ops;
extern const struct srpt_cm_ops srpt_rdma_cm_ops;

struct srpt_os_channel {
	struct srpt_channel *core;	/* set by srpt_os_channel_create_qp() */
	struct srpt_os_device *sdev;
	const struct srpt_cm_ops *cm;
	union {				/* NULL once destroyed */
		struct ib_cm_id *ib;
		struct rdma_cm_id *rdma;
	} id;
	u32 port_num;
	u16 pkey;
	u16 pkey_index;			/* IB/CM */
	u8 initiator_depth;		/* RDMA READs in flight to the initiator */
	u8 responder_resources;		/* ... from it */
	u8 rnr_retry_count;		/* for the CM REP */
	u8 flow_control;
	bool use_srq;
	bool rw_forced_mr;		/* force_mr: rdma_rw registers for all */
	bool fresh_pages;		/* iWARP: no page reused (srpt_buf_add_slow()) */
	struct ib_qp *qp;
	struct ib_cq *cq;
	u32 cq_size;
	struct ib_cqe zw_cqe;
	struct se_session *sess;
};

/*
 * A connection request: hands the login to the core with a new channel
 * using @cm, whose CM id is in @id and whose id context is @context.
 * Returns 0 when the core took the channel; otherwise the caller returns
 * the error and its CM destroys the id.
 */
int srpt_channel_login(struct ib_device *ib, u32 port_num,
		       const struct srpt_login_info *info,
		       const struct srpt_cm_ops *cm, void *id, void **context);

/* Destroys the RDMA/CM listener, if any; from module exit. */
void srpt_rdma_cm_stop(void);

/* ---- Receive buffers (recv.c, buf_cache.c) ---- */

/*
 * Slab caches of 512-byte aligned buffers, one per size and shared by
 * every user of that size; each get is paired with a put.
 */
struct kmem_cache *srpt_buf_cache_get(unsigned int size);
void srpt_buf_cache_put(struct kmem_cache *cache);

/* ---- LIO (lio.c, lio_cmd.c) ---- */

struct srpt_os_tport {
	struct se_wwn wwn;
	struct srpt_tport *core;
};

struct srpt_os_tpg {
	struct se_portal_group se_tpg;
	struct srpt_tpg *core;
#ifndef SRPT_HAVE_FABRIC_ENABLE_TPG
	bool enabled;			/* kept by LIO itself since 5.16 */
#endif
};

int srpt_lio_register(void);
void srpt_lio_unregister(void);

/* The fabric callbacks for sessions and commands. */
int srpt_check_stop_free(struct se_cmd *cmd);
void srpt_release_cmd(struct se_cmd *cmd);
void srpt_close_session(struct se_session *sess);
int srpt_write_pending(struct se_cmd *cmd);
int srpt_get_tcm_cmd_state(struct se_cmd *cmd);
int srpt_queue_data_in(struct se_cmd *cmd);
int srpt_queue_status(struct se_cmd *cmd);
void srpt_queue_tm_rsp(struct se_cmd *cmd);
void srpt_aborted_task(struct se_cmd *cmd);

/* ---- debugfs.c ---- */

void srpt_debugfs_init(void);
void srpt_debugfs_exit(void);

/*
 * @p, a member's address, as not NULL. The kernel builds with
 * -fno-delete-null-pointer-checks, so the compiler cannot tell; given
 * where a failed post's bad WR goes, known not NULL, ib_post_send() and
 * ib_post_recv() keep no dummy on the stack, and so need no stack check
 * and can be tail calls. Not unreachable(): objtool takes its annotation
 * for the end of the function.
 */
#define srpt_nonnull(p)						\
	({							\
		typeof(p) __srpt_p = (p);			\
								\
		if (!__srpt_p)					\
			__builtin_unreachable();		\
		__srpt_p;					\
	})

#endif /* SRPT_SHIM_H */
