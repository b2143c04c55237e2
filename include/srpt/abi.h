/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The one boundary between the C++ core and the C shims, read alike by
 * kernel C, the core and the host test double. srpt_os_* are the shims'
 * (verbs, CM, LIO), called by the core; srpt_core_* are the core's,
 * called by the shims, each a trampoline in src/core/abi.cpp. Objects
 * cross as opaque handles; docs/design.md says who owns what.
 */
#ifndef SRPT_ABI_H
#define SRPT_ABI_H

#include <ktl/platform.h>

SRPT_ABI_BEGIN

/* ---- Module lifetime and parameters ---- */

/* From module_init before anything else; from module_exit last. */
SRPT_NODISCARD int srpt_core_init(void);
void srpt_core_exit(void);
/*
 * Once LIO and the IB client are registered: the listener rdma_cm_port
 * names, if its port can be bound (if not, the load goes on without it).
 */
void srpt_core_start(void);

enum srpt_param {
	SRPT_PARAM_MAX_REQ_SIZE,	/* srp_max_req_size */
	SRPT_PARAM_SRQ_SIZE,		/* srpt_srq_size */
	SRPT_PARAM_SERVICE_GUID,	/* srpt_service_guid */
	SRPT_PARAM_RDMA_CM_PORT,	/* rdma_cm_port */
	SRPT_PARAM_COUNT,
};

/*
 * The parameters' bounds and defaults, for the core's checks and the
 * shim's MODULE_PARM_DESC alike (which needs them as literals).
 */
#define SRPT_MAX_REQ_SIZE_MIN		996
#define SRPT_MAX_REQ_SIZE_DEFAULT	8276
#define SRPT_MAX_REQ_SIZE_MAX		65536
#define SRPT_SRQ_SIZE_MIN		4
#define SRPT_SRQ_SIZE_DEFAULT		4095
#define SRPT_SRQ_SIZE_MAX		65535
#define SRPT_RDMA_CM_PORT_MAX		65535

/* kernel_param_ops: set returns 0, -EINVAL or -ERANGE; get, a line's length. */
SRPT_NODISCARD int srpt_core_param_set(enum srpt_param p, const char *val);
int srpt_core_param_get(enum srpt_param p, char *buf, srpt_size_t size);

/* ---- RDMA devices and ports ---- */

struct srpt_device;
struct srpt_port;
struct srpt_os_device;		/* PD, event handler, MAD agents, CM listener */

struct srpt_device_info {
	const char *name;		/* dev_name(); copied by the core */
	srpt_u64 node_guid;		/* host byte order */
	srpt_u32 port_count;		/* ports are numbered 1..port_count */
	srpt_u32 vendor_id;
	srpt_u32 vendor_part_id;
	srpt_u32 hw_ver;
	srpt_u32 max_qp_wr;
	srpt_u32 max_srq_wr;
	srpt_u32 max_send_sge;
	srpt_u32 max_qp_rd_atom;	/* RDMA READs a QP answers at once */
	srpt_u32 max_qp_init_rd_atom;	/* ... and has in flight at once */
};

struct srpt_port_attr {
	srpt_u32 lid;
	srpt_u32 sm_lid;
	srpt_u8 gid[16];		/* GID index 0, network byte order */
	srpt_u8 link_ib;		/* InfiniBand, not Ethernet (RoCE, iWARP) */
	srpt_u8 iwarp;			/* no IB management on iWARP ports */
	srpt_u8 ib_cm;			/* the port has IB/CM: InfiniBand and RoCE */
	srpt_u8 active;			/* port state is ACTIVE */
};

/*
 * *out is set before the first async event can reach the shim, and is
 * the shim's until srpt_core_device_remove(). On failure nothing is left.
 */
SRPT_NODISCARD int srpt_core_device_add(struct srpt_os_device *os,
					const struct srpt_device_info *info,
					struct srpt_device **out);
/*
 * Logs out and waits for every initiator of the device; ports referenced
 * by target ports stay, detached. Afterwards the core never uses @os.
 */
void srpt_core_device_remove(struct srpt_device *dev);
/* An async event (enum ib_event_type); may run in atomic context. */
void srpt_core_port_event(struct srpt_device *dev, srpt_u32 port_num, int event);

/* The kernel side of devices and ports. All may sleep. */
SRPT_NODISCARD int srpt_os_ib_cm_listen(struct srpt_os_device *os, srpt_u64 service_id);
/* Returns once no login handler runs. */
void srpt_os_ib_cm_stop(struct srpt_os_device *os);
SRPT_NODISCARD int srpt_os_port_query(struct srpt_os_device *os, srpt_u32 port_num,
				      struct srpt_port_attr *attr);
/* Sets or clears IB_PORT_DEVICE_MGMT_SUP. */
SRPT_NODISCARD int srpt_os_port_set_devmgmt(struct srpt_os_device *os,
					    srpt_u32 port_num, int enable);
/* A Device Management class agent whose MADs reach srpt_core_mad_recv(@port). */
SRPT_NODISCARD int srpt_os_mad_agent_register(struct srpt_os_device *os,
					      srpt_u32 port_num,
					      struct srpt_port *port);
/* Waits for running handlers; a no-op when none is registered. */
void srpt_os_mad_agent_unregister(struct srpt_os_device *os, srpt_u32 port_num);
/* Async events reach srpt_core_port_event() only between these. */
void srpt_os_device_events_start(struct srpt_os_device *os);
void srpt_os_device_events_stop(struct srpt_os_device *os);

/*
 * A Device Management MAD for @port: writes the response into @rsp and
 * returns its length, or 0 to send nothing.
 */
srpt_size_t srpt_core_mad_recv(struct srpt_port *port, const void *req,
			       srpt_size_t req_len, void *rsp, srpt_size_t rsp_len);

/* ---- LIO: target ports (WWNs), TPGs, node ACLs and configfs attributes ---- */
/*
 * The shim owns the configfs objects (se_wwn, se_portal_group) and
 * creates the core twin in the same callback; it destroys the twin first.
 */

struct srpt_tport;
struct srpt_tpg;
struct srpt_os_tport;
struct srpt_os_tpg;

/*
 * @name must name an RDMA port, which stays referenced until destroy.
 * -EINVAL: no such port; -EEXIST: it has a target port of that name form.
 */
SRPT_NODISCARD int srpt_core_tport_create(const char *name, struct srpt_os_tport *os,
					  struct srpt_tport **out);
void srpt_core_tport_destroy(struct srpt_tport *tport);
/* The canonical (lower-case) name; valid until destroy. */
const char *srpt_core_tport_name(struct srpt_tport *tport);

SRPT_NODISCARD int srpt_core_tpg_create(struct srpt_tport *tport, const char *name,
					struct srpt_os_tpg *os, struct srpt_tpg **out);
/* Disables the TPG (logging its sessions out) first. */
void srpt_core_tpg_destroy(struct srpt_tpg *tpg);
SRPT_NODISCARD int srpt_core_tpg_enable(struct srpt_tpg *tpg, int enable);

enum srpt_tpg_attrib {
	SRPT_ATTRIB_MAX_RDMA_SIZE,	/* srp_max_rdma_size */
	SRPT_ATTRIB_MAX_RSP_SIZE,	/* srp_max_rsp_size */
	SRPT_ATTRIB_SQ_SIZE,		/* srp_sq_size */
	SRPT_ATTRIB_USE_SRQ,		/* use_srq */
	SRPT_ATTRIB_COUNT,
};

/* configfs show and store: a byte count or a negative errno. */
srpt_ssize_t srpt_core_tpg_attrib_show(struct srpt_tpg *tpg, enum srpt_tpg_attrib a,
				       char *page, srpt_size_t size);
srpt_ssize_t srpt_core_tpg_attrib_store(struct srpt_tpg *tpg, enum srpt_tpg_attrib a,
					const char *page, srpt_size_t count);
srpt_ssize_t srpt_core_rdma_cm_port_show(char *page, srpt_size_t size);
srpt_ssize_t srpt_core_rdma_cm_port_store(const char *page, srpt_size_t count);
/* "name value" lines: of @tport's RDMA port; of @tpg's sessions of ACL @initiator. */
srpt_ssize_t srpt_core_tport_stats_show(struct srpt_tport *tport, char *page, srpt_size_t size);
srpt_ssize_t srpt_core_nacl_stats_show(struct srpt_tpg *tpg, const char *initiator, char *page,
				       srpt_size_t size);
/* ACL @initiator's session and channels, in the format rtslib reads. */
srpt_ssize_t srpt_core_nacl_info_show(struct srpt_tpg *tpg, const char *initiator, char *page,
				      srpt_size_t size);
/* "<kind> <count>" lines of the core's live objects, for debugfs. */
srpt_ssize_t srpt_core_objects_show(char *buf, srpt_size_t size);

/* Validates a node ACL name: 0 or -EINVAL. */
SRPT_NODISCARD int srpt_core_nacl_init(const char *name);
/*
 * 0 if the @len bytes at @name are an IPv4/IPv6 address as inet_pton_with_scope()
 * reads it (a "%scope" names an interface of init_net or is a number), else -EINVAL.
 */
SRPT_NODISCARD int srpt_os_inet_pton(const char *name, srpt_size_t len);
enum srpt_inet_family {
	SRPT_INET4 = 4,
	SRPT_INET6 = 6,		/* IPv6 only: IPv4 has a listener of its own */
};
/*
 * The RDMA/CM listener of family @af, on its wildcard address and
 * TCP-space @port in place of the one it has (0: none). On failure the
 * family keeps the listener it had.
 */
SRPT_NODISCARD int srpt_os_rdma_cm_listen(enum srpt_inet_family af, srpt_u16 port);

/* ---- Logins and channels: one connection (QP) of an initiator ---- */

struct srpt_channel;
struct srpt_os_channel;		/* the CM id, QP, CQ and LIO session */
struct srpt_recv;		/* one receive buffer (an IU) */
struct srpt_os_recv;
struct srpt_cmd;		/* one send context (a command) */
struct srpt_os_cmd;

enum srpt_cm_kind {
	SRPT_CM_IB = 1,		/* private data: struct srp_login_req */
	SRPT_CM_RDMA = 2,	/* private data: struct srp_login_req_rdma */
};

struct srpt_login_info {
	srpt_u8 cm;			/* enum srpt_cm_kind */
	srpt_u16 pkey;
	int pkey_index;			/* IB/CM: the P_Key's in the port's table, or -errno */
	const void *private_data;	/* the login request as received */
	srpt_size_t private_data_len;
	/* The initiator as the transport knows it; the core names it. */
	srpt_u8 peer_gid[16];		/* IB/CM: its port GID (network order) */
	srpt_u8 peer_family;		/* RDMA/CM: enum srpt_inet_family of ... (0: neither) */
	srpt_u8 peer_addr[16];		/* ... its address (network order; IPv4: 4 bytes) */
	/* What its request allows, as the CM's REQ event gives it. */
	srpt_u8 initiator_depth;	/* RDMA READs we may have in flight to it */
	srpt_u8 responder_resources;	/* ... and it to us */
};

/*
 * A login request on @port_num. 0: the core took @os and its CM id, and
 * frees them with srpt_os_channel_free(), even if it rejects the login
 * later. A negative errno: rejected with srpt_os_cm_reject() first; the
 * shim frees @os and the CM destroys the id. *out is set before any
 * completion can reach the channel. Sleeps.
 */
SRPT_NODISCARD int srpt_core_login(struct srpt_device *dev, srpt_u32 port_num,
				   struct srpt_os_channel *os,
				   const struct srpt_login_info *info,
				   struct srpt_channel **out);

/*
 * The kernel's codes the core acts on, passed through; shim.h checks them
 * against ib_event_type, ib_cm_event_type and rdma_cm_event_type.
 */
enum srpt_ib_event {
	SRPT_IB_EVENT_QP_FATAL = 1,
	SRPT_IB_EVENT_QP_REQ_ERR = 2,
	SRPT_IB_EVENT_QP_ACCESS_ERR = 3,
	SRPT_IB_EVENT_COMM_EST = 4,
	SRPT_IB_EVENT_PORT_ACTIVE = 9,
	SRPT_IB_EVENT_PORT_ERR = 10,
	SRPT_IB_EVENT_LID_CHANGE = 11,
	SRPT_IB_EVENT_PKEY_CHANGE = 12,
	SRPT_IB_EVENT_SM_CHANGE = 13,
	SRPT_IB_EVENT_CLIENT_REREGISTER = 17,
	SRPT_IB_EVENT_GID_CHANGE = 18,
};
enum srpt_ib_cm_event {
	SRPT_IB_CM_REP_ERROR = 2,
	SRPT_IB_CM_RTU_RECEIVED = 4,
	SRPT_IB_CM_USER_ESTABLISHED = 5,
	SRPT_IB_CM_DREQ_ERROR = 6,
	SRPT_IB_CM_DREQ_RECEIVED = 7,
	SRPT_IB_CM_DREP_RECEIVED = 8,
	SRPT_IB_CM_TIMEWAIT_EXIT = 9,
	SRPT_IB_CM_REJ_RECEIVED = 11,
};
enum srpt_rdma_cm_event {
	SRPT_RDMA_CM_CONNECT_ERROR = 6,
	SRPT_RDMA_CM_UNREACHABLE = 7,
	SRPT_RDMA_CM_REJECTED = 8,
	SRPT_RDMA_CM_ESTABLISHED = 9,
	SRPT_RDMA_CM_DISCONNECTED = 10,
	SRPT_RDMA_CM_TIMEWAIT_EXIT = 15,
};

/* An event of the channel's own CM, from its handler. */
void srpt_core_cm_event(struct srpt_channel *ch, int event);
/* An async QP event (enum ib_event_type); may run in atomic context. */
void srpt_core_qp_event(struct srpt_channel *ch, int event);
/* LIO close_session(): log the channel out and wait until it is gone. */
void srpt_core_close_session(struct srpt_channel *ch);
/*
 * A completion's status: the kernel's enum ib_wc_status, passed through
 * (shim.h checks these); the core tells success from failure, and names
 * a failure with srpt_os_wc_status_msg().
 */
enum srpt_wc_status {
	SRPT_WC_SUCCESS = 0,
	SRPT_WC_WR_FLUSH_ERR = 5,	/* the QP is in the error state */
	SRPT_WC_RETRY_EXC_ERR = 12,	/* the peer stopped answering */
	/* The kernel's last: C++ holds an enum to the range its values span. */
	SRPT_WC_GENERAL_ERR = 21,
};
/* ib_wc_status_msg(): @status as text, for messages. */
const char *srpt_os_wc_status_msg(enum srpt_wc_status status);
/* ib_event_msg(): an async event (enum ib_event_type) as text, for messages. */
const char *srpt_os_ib_event_msg(int event);
/*
 * A CM event as text, for messages: rdma_event_msg() for RDMA/CM, the
 * event's name for IB/CM (which has no such function).
 */
const char *srpt_os_cm_event_msg(enum srpt_cm_kind cm, int event);

/*
 * Completions, from the channel's CQ context. @now_ns: local_clock() as
 * the completion is handled, for command latency (CPUs may differ slightly).
 */
void srpt_core_recv_done(struct srpt_channel *ch, struct srpt_recv *r,
			 enum srpt_wc_status status, srpt_u32 byte_len, srpt_u64 now_ns);
void srpt_core_zero_write_done(struct srpt_channel *ch, enum srpt_wc_status status);

struct srpt_qp_params {
	srpt_u32 max_recv_wr;		/* every receive WR, ib_drain_qp()'s included; 0 with SRQ */
	srpt_u32 max_send_wr;		/* every send WR, ib_drain_qp()'s included */
	srpt_u32 max_rdma_ctxs;		/* of those, the commands' (responses and RDMA) */
	srpt_u32 cq_size;
	srpt_u32 max_send_sge;		/* scatter/gather entries per send WR */
	srpt_u8 initiator_depth;	/* RDMA READs in flight to the initiator */
	srpt_u8 responder_resources;	/* ... from it */
	srpt_u8 use_srq;
	srpt_u16 pkey_index;		/* IB/CM: the QP's P_Key index */
	/* What the login response (CM REP) says of our side. */
	srpt_u8 rnr_retry_count;
	srpt_u8 flow_control;
};

/*
 * The kernel side of a channel, whichever CM. create_qp allocates the CQ
 * and the QP (IB/CM: in INIT); from then on the shim's callbacks pass @core.
 */
SRPT_NODISCARD int srpt_os_channel_create_qp(struct srpt_os_channel *os,
					     struct srpt_channel *core,
					     const struct srpt_qp_params *p);
/* The LIO session of @tpg for the initiator named @initiator. */
SRPT_NODISCARD int srpt_os_channel_open_session(struct srpt_os_channel *os,
						struct srpt_os_tpg *tpg,
						const char *initiator);
/* The login response (IB/CM: after moving the QP to RTR). */
SRPT_NODISCARD int srpt_os_channel_accept(struct srpt_os_channel *os, const void *rsp,
					  srpt_size_t len);
/* A login rejection, as consumer-defined REJ private data. */
void srpt_os_cm_reject(struct srpt_os_channel *os, const void *rej, srpt_size_t len);
/* IB/CM: the QP to RTS; RDMA/CM: nothing to do. */
SRPT_NODISCARD int srpt_os_channel_ready(struct srpt_os_channel *os);
/* The first packet arrived before the RTU. */
void srpt_os_channel_notify_established(struct srpt_os_channel *os);
enum srpt_disconnect {
	SRPT_DISCONNECT_DREQ,	/* ours */
	SRPT_DISCONNECT_DREP,	/* the answer to the initiator's DREQ */
};
/* IB/CM: sends @how; RDMA/CM: rdma_disconnect(), which does either. */
SRPT_NODISCARD int srpt_os_channel_disconnect(struct srpt_os_channel *os,
					      enum srpt_disconnect how);
SRPT_NODISCARD int srpt_os_channel_qp_error(struct srpt_os_channel *os);
/* A signalled zero-length RDMA WRITE, completing in srpt_core_zero_write_done(). */
SRPT_NODISCARD int srpt_os_channel_post_zero_write(struct srpt_os_channel *os);
/*
 * Teardown, in this order, in process context; each ends a source of
 * callbacks: LIO's (waiting for the session's commands), the CM's (and
 * the login handler's), the QP's (the drain delivers every outstanding
 * completion, flushed, before it returns; a no-op without a QP).
 */
void srpt_os_channel_close_session(struct srpt_os_channel *os);
void srpt_os_channel_destroy_cm(struct srpt_os_channel *os);
void srpt_os_channel_destroy_qp(struct srpt_os_channel *os);
void srpt_os_channel_free(struct srpt_os_channel *os);

/* ---- Receive buffers and the shared receive queue ---- */

/*
 * A DMA-mapped receive buffer for @size bytes of IU starting @align_offset
 * bytes into a 512-byte aligned buffer (so that immediate data at a fixed
 * IU offset is aligned); *iu is where the IU will be.
 */
struct srpt_os_recv *srpt_os_recv_alloc(struct srpt_os_device *dev, struct srpt_recv *core,
					srpt_u32 size, srpt_u32 align_offset, void **iu);
void srpt_os_recv_free(struct srpt_os_recv *r);
/* On the channel's receive queue, or on the SRQ when @ch is NULL. */
SRPT_NODISCARD int srpt_os_recv_post(struct srpt_os_device *dev, struct srpt_os_channel *ch,
				     struct srpt_os_recv *r);
SRPT_NODISCARD int srpt_os_srq_create(struct srpt_os_device *dev, srpt_u32 size);
void srpt_os_srq_destroy(struct srpt_os_device *dev);

/* ---- Commands (send contexts): the data path ---- */

/* OUT and IN are the kernel's DMA_TO_DEVICE and DMA_FROM_DEVICE. */
enum srpt_data_dir {
	SRPT_DATA_NONE = 0,
	SRPT_DATA_OUT = 1,		/* write: initiator to target */
	SRPT_DATA_IN = 2,		/* read: target to initiator */
};

/* SAM task attributes, as LIO's TCM_*_TAG. */
enum srpt_task_attr {
	SRPT_TASK_SIMPLE = 0x20,
	SRPT_TASK_HEAD_OF_QUEUE = 0x21,
	SRPT_TASK_ORDERED = 0x22,
	SRPT_TASK_ACA = 0x24,
};

/* The bytes of a send context's sense buffer (LIO's TRANSPORT_SENSE_BUFFER). */
#define SRPT_SENSE_SIZE 96

/*
 * The kernel side of a send context, with its response buffer and the
 * SRPT_SENSE_SIZE bytes where LIO leaves its commands' sense data.
 */
struct srpt_os_cmd *srpt_os_cmd_alloc(struct srpt_os_channel *ch, struct srpt_cmd *core,
				      srpt_u32 rsp_size, void **rsp_buf,
				      const srpt_u8 **sense_buf);
void srpt_os_cmd_free(struct srpt_os_cmd *cmd);

/*
 * target_init_cmd() for the command @tag to @lun (unpacked, as by
 * scsilun_to_int()); -ESHUTDOWN while the session stops. Six arguments:
 * all of them cross in registers, none through the caller's stack.
 */
SRPT_NODISCARD int srpt_os_cmd_init(struct srpt_os_cmd *cmd, srpt_u64 tag, srpt_u64 lun,
				    srpt_u32 data_len, enum srpt_data_dir dir,
				    enum srpt_task_attr task_attr);
/* Immediate data: the data buffer is @len bytes at @data (in a receive buffer). */
void srpt_os_cmd_map_imm(struct srpt_os_cmd *cmd, void *data, srpt_u32 len);
/*
 * Before srpt_os_cmd_init(), once for each of the command's @count local
 * buffers in order: allocates the next, of @len bytes, for remote buffer
 * @va/@rkey. The first call also makes room for @count and sets the
 * direction; later calls pass the same, unused (one call per buffer: a
 * single buffer is the common case). After a failure the caller releases
 * the buffers (srpt_os_cmd_release_data()) before anything else. LIO
 * sees the buffers, in order, as one scatterlist. 0, SRPT_BUF_KEPT,
 * -ENOMEM, or -EINVAL for a call out of this order (a bug).
 */
SRPT_NODISCARD int srpt_os_cmd_buf_add(struct srpt_os_cmd *cmd, srpt_u32 count,
				       enum srpt_data_dir dir, srpt_u64 va, srpt_u32 rkey,
				       srpt_u32 len);
/*
 * What srpt_os_cmd_buf_add() returns for a command's only buffer, of read
 * data, when it is kept mapped as long as the send context lives: its
 * transfer is one work request that srpt_os_cmd_post() builds from the
 * length alone. It is never passed to srpt_os_cmd_rdma_map() or _unmap().
 */
#define SRPT_BUF_KEPT 1

/* Where a transfer may start inside a buffer: a page boundary on every kernel. */
#define SRPT_RDMA_PIECE_ALIGN 65536u

/*
 * Maps bytes [@off, @off + @len) of buffer @buf for a transfer to or from
 * the same bytes of its remote buffer (RDMA READs for data-out, WRITEs
 * for data-in); @off is a multiple of SRPT_RDMA_PIECE_ALIGN, one mapping
 * per buffer at a time. Returns the send WRs it takes; -EAGAIN or -ENOMEM
 * when MRs or memory are short for now; another errno when it cannot be.
 */
SRPT_NODISCARD int srpt_os_cmd_rdma_map(struct srpt_os_cmd *cmd, srpt_u32 buf, srpt_u32 off,
					srpt_u32 len);
/* Once its WRs completed or were never posted. */
void srpt_os_cmd_rdma_unmap(struct srpt_os_cmd *cmd, srpt_u32 buf);
/* Unmaps and frees every buffer (or forgets the immediate data); idempotent. */
void srpt_os_cmd_release_data(struct srpt_os_cmd *cmd);
/*
 * target_submit_prep() + target_submit(); LIO copies the CDB and owns the
 * command from here: it answers through the queue_* callbacks even when
 * it fails the command itself.
 */
void srpt_os_cmd_submit(struct srpt_os_cmd *cmd, const srpt_u8 *cdb);
/* Why a command's write data cannot be had: the SCSI answer LIO gives. */
enum srpt_write_failure {
	SRPT_WRITE_TASK_SET_FULL = 1,	/* short of memory: the initiator retries */
	SRPT_WRITE_ABORTED_COMMAND,	/* CHECK CONDITION, ABORTED COMMAND */
};
/* transport_generic_request_failure() with the answer @why names. */
void srpt_os_cmd_abort(struct srpt_os_cmd *cmd, enum srpt_write_failure why);

/* Task management functions, as LIO's enum tcm_tmreq_table. */
enum srpt_tmf {
	SRPT_TMF_ABORT_TASK = 1,
	SRPT_TMF_ABORT_TASK_SET = 2,
	SRPT_TMF_CLEAR_ACA = 3,
	SRPT_TMF_CLEAR_TASK_SET = 4,
	SRPT_TMF_LUN_RESET = 5,
	SRPT_TMF_UNSUPPORTED = 0xff,	/* LIO answers "not supported" */
};
/* target_submit_tmr(): 0 when LIO answers (queue_tm_rsp), else the core does. */
SRPT_NODISCARD int srpt_os_cmd_submit_tmr(struct srpt_os_cmd *cmd, srpt_u64 lun,
					  enum srpt_tmf fn, srpt_u64 task_tag, srpt_u64 tag);
/* target_execute_cmd(): the write data is in. */
void srpt_os_cmd_execute(struct srpt_os_cmd *cmd);
/*
 * Posts in one chain the transfers of the @mapped buffers mapped since
 * the last post, in order, or the first @kept_len bytes of the kept
 * buffer (SRPT_BUF_KEPT) unless 0, then the response of @rsp_len bytes
 * unless 0. Completes in srpt_core_send_done() with a response, else
 * srpt_core_rdma_done().
 */
SRPT_NODISCARD int srpt_os_cmd_post(struct srpt_os_cmd *cmd, srpt_u32 rsp_len,
				    srpt_u32 kept_len, srpt_u32 mapped);
/* target_put_sess_cmd(): drop the acknowledgement reference. */
void srpt_os_cmd_put(struct srpt_os_cmd *cmd);
/* transport_generic_free_cmd(): the response is done with. */
void srpt_os_cmd_done(struct srpt_os_cmd *cmd);

enum srpt_residual {
	SRPT_RESIDUAL_NONE,
	SRPT_RESIDUAL_UNDERFLOW,
	SRPT_RESIDUAL_OVERFLOW,
};

/*
 * What LIO says about a finished command, for the SRP_RSP; its sense data
 * is in the send context's sense buffer. 16 bytes: it crosses by value
 * in two registers.
 */
struct srpt_cmd_status {
	srpt_u8 scsi_status;
	srpt_u8 residual;		/* enum srpt_residual */
	srpt_u8 data_dir;		/* enum srpt_data_dir: the residual's; read only with one */
	srpt_u16 sense_len;		/* bytes of sense data */
	srpt_u32 residual_count;
	srpt_u32 data_len;		/* bytes of the SCSI transfer (data-in: what to send) */
};

/* LIO's answer to a task management function: enum tcm_tmrsp_table. */
enum srpt_tmr_response {
	SRPT_TMR_FAILED = 0,
	SRPT_TMR_COMPLETE = 1,
	SRPT_TMR_TASK_DOES_NOT_EXIST = 2,
	SRPT_TMR_LUN_DOES_NOT_EXIST = 3,
	SRPT_TMR_NOT_SUPPORTED = 4,
	SRPT_TMR_REJECTED = 5,
};

/*
 * LIO's fabric callbacks, forwarded; queue_response is queue_data_in and
 * queue_status, @st by value (two registers): the caller keeps no
 * addressable copy of it (nor a stack check).
 */
SRPT_NODISCARD int srpt_core_write_pending(struct srpt_cmd *cmd);
/*
 * Returns what queue_data_in and queue_status return to LIO: always 0,
 * as the core deals with a response that cannot go itself (never by
 * LIO's queue-full retry).
 */
int srpt_core_queue_response(struct srpt_cmd *cmd, struct srpt_cmd_status st, int with_data);
void srpt_core_queue_tm_response(struct srpt_cmd *cmd, enum srpt_tmr_response r);
void srpt_core_aborted_task(struct srpt_cmd *cmd);
void srpt_core_release_cmd(struct srpt_cmd *cmd);
int srpt_core_cmd_state(struct srpt_cmd *cmd);
/* Completions: transfers without a response; a response (@now_ns as for srpt_core_recv_done()). */
void srpt_core_rdma_done(struct srpt_cmd *cmd, enum srpt_wc_status status);
void srpt_core_send_done(struct srpt_cmd *cmd, enum srpt_wc_status status, srpt_u64 now_ns);

SRPT_ABI_END

#endif /* SRPT_ABI_H */
