/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The one boundary between the C++ core and the C shims of ib_srpt, read
 * alike by kernel C, the freestanding core and the host test double (it
 * includes nothing). srpt_os_* are the shims' (kernel services, verbs,
 * LIO), called by the core; srpt_core_* are the core's, called by the
 * shims; srpt_refresh_port() and srpt_lookup_port() keep their documented
 * names. Objects of either side cross as opaque handles, and each function
 * says who owns what after the call.
 */
#ifndef SRPT_ABI_H
#define SRPT_ABI_H

#ifdef __cplusplus
#define SRPT_ABI_BEGIN extern "C" {
#define SRPT_ABI_END }
#define SRPT_NODISCARD [[nodiscard]]
#else
#define SRPT_ABI_BEGIN
#define SRPT_ABI_END
#define SRPT_NODISCARD __attribute__((warn_unused_result))
#endif

#define SRPT_PRINTF(a, b) __attribute__((format(printf, a, b)))

SRPT_ABI_BEGIN

typedef __UINT8_TYPE__ srpt_u8;
typedef __UINT16_TYPE__ srpt_u16;
typedef __UINT32_TYPE__ srpt_u32;
/* unsigned long long, like the kernel's u64 (not __UINT64_TYPE__). */
typedef unsigned long long srpt_u64;
typedef __SIZE_TYPE__ srpt_size_t;
typedef __PTRDIFF_TYPE__ srpt_ssize_t;

/* ---- Kernel services: memory, logging, locks, completions, deferred work ---- */

/*
 * Returns memory aligned to @align (a power of two) or NULL; may sleep,
 * and the memory is not zeroed. Free with srpt_os_free(); freeing NULL
 * is a no-op.
 */
void *srpt_os_alloc(srpt_size_t size, srpt_size_t align);
void srpt_os_free(void *p);

enum srpt_log_level {
	SRPT_LOG_ERR = 3,
	SRPT_LOG_WARN = 4,
	SRPT_LOG_NOTICE = 5,
	SRPT_LOG_INFO = 6,
	SRPT_LOG_DEBUG = 7,
	/* Or-ed into a level: for messages an initiator can cause at will. */
	SRPT_LOG_RATELIMITED = 0x100,
};

/* printk-style; the shim prefixes the module name. */
void srpt_os_log(int level, const char *fmt, ...) SRPT_PRINTF(2, 3);

/*
 * Report a broken invariant in the core (a WARN in the kernel, a test
 * failure on the host). Never returns early in a way the core relies on.
 */
void srpt_os_warn(const char *file, int line, const char *what);

/*
 * Room for kernel synchronisation objects inside core objects, debug
 * kernels' too (lockdep makes a mutex 144 bytes); os.c checks the fit.
 */
struct srpt_os_spinlock { unsigned long opaque[12]; };
struct srpt_os_mutex { unsigned long opaque[24]; };
struct srpt_os_completion { unsigned long opaque[12]; };
struct srpt_os_work { unsigned long opaque[16]; };

/*
 * A lock class for the kernel's lock validator: one static instance per
 * lock declaration in the core (as mutex_init() makes one per call site),
 * so that lockdep tells the core's locks apart. ktl/lock.h's
 * KTL_LOCK_INIT() makes it; @name is what lockdep reports.
 */
struct srpt_os_lock_class { unsigned long opaque[4]; };

void srpt_os_spin_init(struct srpt_os_spinlock *lock, const char *name,
		       struct srpt_os_lock_class *cls);
/* Disables interrupts: safe from any context. Returns the saved flags. */
unsigned long srpt_os_spin_lock_irqsave(struct srpt_os_spinlock *lock);
void srpt_os_spin_unlock_irqrestore(struct srpt_os_spinlock *lock, unsigned long flags);

void srpt_os_mutex_init(struct srpt_os_mutex *m, const char *name, struct srpt_os_lock_class *cls);
void srpt_os_mutex_lock(struct srpt_os_mutex *m);
void srpt_os_mutex_unlock(struct srpt_os_mutex *m);
void srpt_os_mutex_destroy(struct srpt_os_mutex *m);

void srpt_os_completion_init(struct srpt_os_completion *c);
/* Wakes every present and future waiter. */
void srpt_os_complete_all(struct srpt_os_completion *c);
/* Returns 0 once completed, -ETIMEDOUT after @timeout_ms. */
SRPT_NODISCARD int srpt_os_wait_for_completion(struct srpt_os_completion *c,
					       unsigned int timeout_ms);

/*
 * Deferred work in process context. @fn(@arg) runs on the module's
 * workqueue; schedule returns 0 when the work was already pending. @name
 * and @cls are the work's lock class (see srpt_os_lock_class): lockdep
 * treats running a work and waiting for one as taking a lock, so a work
 * that cancels another needs a class apart from it (ktl/lock.h's
 * KTL_WORK_INIT() makes one per use).
 */
typedef void (*srpt_work_fn)(void *arg);
void srpt_os_work_init(struct srpt_os_work *w, srpt_work_fn fn, void *arg,
		       const char *name, struct srpt_os_lock_class *cls);
int srpt_os_work_schedule(struct srpt_os_work *w);
/* Waits for a running instance and cancels a pending one. May sleep. */
void srpt_os_work_cancel_sync(struct srpt_os_work *w);

/*
 * A cheap clock in nanoseconds for measuring short intervals (latency
 * statistics): local_clock(), which may differ slightly between CPUs.
 */
srpt_u64 srpt_os_now_ns(void);

/* ---- Module lifetime and parameters ---- */

/* Called once from module_init before anything else; from module_exit last. */
SRPT_NODISCARD int srpt_core_init(void);
void srpt_core_exit(void);

enum srpt_param {
	SRPT_PARAM_MAX_REQ_SIZE,	/* srp_max_req_size */
	SRPT_PARAM_SRQ_SIZE,		/* srpt_srq_size */
	SRPT_PARAM_SERVICE_GUID,	/* srpt_service_guid */
	SRPT_PARAM_COUNT,
};

/*
 * Module parameter setter and getter (kernel_param_ops). set parses @val
 * and returns 0 or -EINVAL/-ERANGE; get writes a line into @buf of @size
 * bytes and returns its length.
 */
SRPT_NODISCARD int srpt_core_param_set(enum srpt_param p, const char *val);
int srpt_core_param_get(enum srpt_param p, char *buf, srpt_size_t size);

/* ---- RDMA devices and ports ---- */
/*
 * The shim creates a struct srpt_os_device (PD, event handler, MAD agents,
 * CM listener) for every RDMA device the IB client sees and hands it to
 * srpt_core_device_add(); the core creates one struct srpt_port per
 * physical port and decides everything else.
 */

struct srpt_device;
struct srpt_port;
struct srpt_os_device;

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
};

enum srpt_link_layer {
	SRPT_LINK_INFINIBAND = 1,
	SRPT_LINK_ETHERNET = 2,
};

struct srpt_port_attr {
	srpt_u32 lid;
	srpt_u32 sm_lid;
	srpt_u8 gid[16];		/* GID index 0, network byte order */
	srpt_u8 link_layer;		/* enum srpt_link_layer */
	srpt_u8 iwarp;			/* no IB management on iWARP ports */
	srpt_u8 active;			/* port state is ACTIVE */
};

/*
 * Registers the device with the core. On success *out is the core's
 * handle, owned by the shim until srpt_core_device_remove(); it is set
 * before the first async event can reach the shim's handler. On failure
 * nothing of the device is left in the core.
 */
SRPT_NODISCARD int srpt_core_device_add(struct srpt_os_device *os,
					const struct srpt_device_info *info,
					struct srpt_device **out);
/*
 * Logs out every initiator of the device's ports, waits for them, and
 * frees the device. Ports still referenced (by targetcli ports) stay
 * allocated but detached. After return the core never calls out with @os.
 */
void srpt_core_device_remove(struct srpt_device *dev);

/*
 * The device's asynchronous event handler, @event an enum ib_event_type;
 * may run in atomic context.
 */
void srpt_core_port_event(struct srpt_device *dev, srpt_u32 port_num, int event);

/*
 * Get an HCA port ready: query it, update the cached sm_lid, lid and GID,
 * and (except on iWARP) enable device management and register the MAD
 * agent. Safe to call any number of times: later calls refresh the cache
 * and register nothing twice. Sleeps.
 */
SRPT_NODISCARD int srpt_refresh_port(struct srpt_port *sport);

enum srpt_port_id_kind {
	SRPT_PORT_ID_NONE = 0,
	SRPT_PORT_ID_GUID,		/* "xxxx:xxxx:xxxx:xxxx" */
	SRPT_PORT_ID_GID,		/* "0x" + 32 hex digits */
};

struct port_and_port_id {
	struct srpt_port *sport;
	enum srpt_port_id_kind port_id;
};

/*
 * Look up an RDMA port by its ASCII name (GUID or GID form, any case).
 * If a port comes back, its reference count has been incremented and the
 * caller must drop it with srpt_port_put_ref().
 */
struct port_and_port_id srpt_lookup_port(const char *name);
void srpt_port_put_ref(struct srpt_port *sport);

/* Listens for IB/CM logins to @service_id on the device. */
SRPT_NODISCARD int srpt_os_ib_cm_listen(struct srpt_os_device *os, srpt_u64 service_id);
/* Stops listening; returns once no login handler runs. */
void srpt_os_ib_cm_stop(struct srpt_os_device *os);

/* Kernel side of ports, called by the core. All may sleep. */
SRPT_NODISCARD int srpt_os_port_query(struct srpt_os_device *os, srpt_u32 port_num,
				      struct srpt_port_attr *attr);
/* Sets or clears IB_PORT_DEVICE_MGMT_SUP in the port capability mask. */
SRPT_NODISCARD int srpt_os_port_set_devmgmt(struct srpt_os_device *os,
					    srpt_u32 port_num, int enable);
/*
 * Registers a GSI MAD agent for the Device Management class (GET, SET) on
 * the port; received MADs go to srpt_core_mad_recv() with @port. Returns
 * 0 or a negative errno, leaving no agent behind on failure.
 */
SRPT_NODISCARD int srpt_os_mad_agent_register(struct srpt_os_device *os,
					      srpt_u32 port_num,
					      struct srpt_port *port);
/* Waits for running handlers; a no-op when none is registered. */
void srpt_os_mad_agent_unregister(struct srpt_os_device *os, srpt_u32 port_num);
/* Async events flow to srpt_core_port_event() only between these. */
void srpt_os_device_events_start(struct srpt_os_device *os);
void srpt_os_device_events_stop(struct srpt_os_device *os);

/*
 * A Device Management MAD arrived on @port. @req holds @req_len bytes;
 * the core writes the response into @rsp (@rsp_len bytes, the shim's send
 * buffer). Returns the number of response bytes to send, or 0 to send
 * nothing (not ours, malformed, or itself a response).
 */
srpt_size_t srpt_core_mad_recv(struct srpt_port *port, const void *req,
			       srpt_size_t req_len, void *rsp, srpt_size_t rsp_len);

/* ---- LIO: target ports (WWNs), TPGs, node ACLs and configfs attributes ---- */
/*
 * The shim owns the configfs-facing kernel objects (struct se_wwn, struct
 * se_portal_group inside its srpt_os_tport / srpt_os_tpg) and creates the
 * core twin in the same configfs callback; it destroys the core twin
 * first when configfs drops the directory.
 */

struct srpt_tport;
struct srpt_tpg;
struct srpt_os_tport;
struct srpt_os_tpg;

/*
 * mkdir /sys/kernel/config/target/srpt/$name: @name must name an RDMA port
 * (srpt_lookup_port()); the target port keeps that port referenced until
 * srpt_core_tport_destroy(). Returns 0, -EINVAL (no such port) or -EEXIST
 * (the port already has a target port of that name form).
 */
SRPT_NODISCARD int srpt_core_tport_create(const char *name, struct srpt_os_tport *os,
					  struct srpt_tport **out);
void srpt_core_tport_destroy(struct srpt_tport *tport);
/* The canonical (lower-case) name; valid until destroy. */
const char *srpt_core_tport_name(struct srpt_tport *tport);

SRPT_NODISCARD int srpt_core_tpg_create(struct srpt_tport *tport, const char *name,
					struct srpt_os_tpg *os, struct srpt_tpg **out);
/* Disables the TPG (logging out its sessions) and frees the core twin. */
void srpt_core_tpg_destroy(struct srpt_tpg *tpg);
SRPT_NODISCARD int srpt_core_tpg_enable(struct srpt_tpg *tpg, int enable);

enum srpt_tpg_attrib {
	SRPT_ATTRIB_MAX_RDMA_SIZE,	/* srp_max_rdma_size */
	SRPT_ATTRIB_MAX_RSP_SIZE,	/* srp_max_rsp_size */
	SRPT_ATTRIB_SQ_SIZE,		/* srp_sq_size */
	SRPT_ATTRIB_USE_SRQ,		/* use_srq */
	SRPT_ATTRIB_COUNT,
};

/* configfs show/store: return the byte count or a negative errno. */
srpt_ssize_t srpt_core_tpg_attrib_show(struct srpt_tpg *tpg, enum srpt_tpg_attrib a,
				       char *page, srpt_size_t size);
srpt_ssize_t srpt_core_tpg_attrib_store(struct srpt_tpg *tpg, enum srpt_tpg_attrib a,
					const char *page, srpt_size_t count);
srpt_ssize_t srpt_core_rdma_cm_port_show(char *page, srpt_size_t size);
srpt_ssize_t srpt_core_rdma_cm_port_store(const char *page, srpt_size_t count);
srpt_ssize_t srpt_core_version_show(char *page, srpt_size_t size);

/*
 * configfs statistics: "name value" lines for the RDMA port of @tport
 * (logins, rejects by reason, commands, bytes, errors, latency), and for
 * the live sessions of @tpg whose node ACL is @initiator.
 */
srpt_ssize_t srpt_core_tport_stats_show(struct srpt_tport *tport, char *page, srpt_size_t size);
srpt_ssize_t srpt_core_nacl_stats_show(struct srpt_tpg *tpg, const char *initiator, char *page,
				       srpt_size_t size);

/* "<kind> <count>" lines of the core's live objects, for debugfs. */
srpt_ssize_t srpt_core_objects_show(char *buf, srpt_size_t size);

/* Validates a node ACL name (srpt_parse_i_port_id()); 0 or -EINVAL. */
SRPT_NODISCARD int srpt_core_nacl_init(const char *name);

/*
 * 0 if the @len bytes at @name (no NUL among them) are, as a whole, an
 * IPv4/IPv6 address as inet_pton_with_scope() reads the in-tree target's
 * ACL names (a link-local "%scope" names an interface of init_net or is a
 * number); else -EINVAL.
 */
SRPT_NODISCARD int srpt_os_inet_pton(const char *name, srpt_size_t len);

/*
 * Listens for RDMA/CM logins on TCP-space @port (IPv6 any, falling back to
 * IPv4 any), replacing the previous listener; 0 stops listening. On
 * failure the previous listener stays.
 */
SRPT_NODISCARD int srpt_os_rdma_cm_listen(srpt_u16 port);

/* ---- Logins and channels ---- */
/*
 * An RDMA channel is one connection (QP) of an initiator; it carries one
 * LIO session. The shim creates a struct srpt_os_channel holding the CM
 * id when a connection request arrives and hands it to srpt_core_login().
 */

struct srpt_channel;
struct srpt_os_channel;
struct srpt_recv;		/* core: one receive buffer (an IU) */
struct srpt_os_recv;
struct srpt_cmd;		/* core: one send context (a command) */
struct srpt_os_cmd;

enum srpt_cm_kind {
	SRPT_CM_IB = 1,		/* IB/CM: private data is struct srp_login_req */
	SRPT_CM_RDMA = 2,	/* RDMA/CM: private data is struct srp_login_req_rdma */
};

struct srpt_login_info {
	srpt_u8 cm;			/* enum srpt_cm_kind */
	srpt_u16 pkey;
	const void *private_data;	/* the login request as received */
	srpt_size_t private_data_len;
	/*
	 * The initiator as the transport names it: for IB/CM its port GUID
	 * ("xxxx:xxxx:xxxx:xxxx"), for RDMA/CM its address ("%pIS").
	 */
	const char *peer;
};

/*
 * A login request arrived on @port_num of @dev. Returns 0 when the core
 * took @os: it owns @os and the CM id until it calls
 * srpt_os_channel_free() — also when it rejected the login after the
 * channel joined the port (the accept failed, or a logout came first),
 * then closing it like any other. Returns a negative errno after
 * rejecting it with srpt_os_cm_reject() before that: the shim then frees
 * @os and lets the CM destroy the id. Sleeps; *out is written before any
 * completion can reach the channel.
 */
SRPT_NODISCARD int srpt_core_login(struct srpt_device *dev, srpt_u32 port_num,
				   struct srpt_os_channel *os,
				   const struct srpt_login_info *info,
				   struct srpt_channel **out);

/*
 * The kernel's event codes the core acts on, passed through unchanged (the
 * shims check them against enum ib_event_type, ib_cm_event_type and
 * rdma_cm_event_type at build time).
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

/* An event of the channel's own CM (srpt_login_info.cm), from its callback. */
void srpt_core_cm_event(struct srpt_channel *ch, int event);
/* An async QP event (enum ib_event_type); may run in atomic context. */
void srpt_core_qp_event(struct srpt_channel *ch, int event);

/* LIO close_session(): log the channel out and wait until it is gone. */
void srpt_core_close_session(struct srpt_channel *ch);

/* Completions, from the channel's CQ context. */
void srpt_core_recv_done(struct srpt_channel *ch, struct srpt_recv *r, int ok, srpt_u32 byte_len);
void srpt_core_zero_write_done(struct srpt_channel *ch, int ok);

/* Kernel side of channels, called by the core. */
struct srpt_qp_params {
	srpt_u32 rq_size;		/* receive WRs (ignored with SRQ) */
	srpt_u32 max_send_wr;		/* every send WR, ib_drain_qp()'s included */
	srpt_u32 max_rdma_ctxs;		/* of those, the commands' (responses and RDMA) */
	srpt_u32 cq_size;
	srpt_u8 rd_atomic;		/* RDMA READs in flight each way */
	srpt_u8 use_srq;
};

/*
 * Allocates the CQ and creates the QP (IB/CM: moved to INIT). From here
 * on the shim passes @core to the srpt_core_* channel callbacks.
 */
SRPT_NODISCARD int srpt_os_channel_create_qp(struct srpt_os_channel *os,
					     struct srpt_channel *core,
					     const struct srpt_qp_params *p);
/* Associates the LIO session of @tpg, named @initiator, with @os. */
SRPT_NODISCARD int srpt_os_channel_open_session(struct srpt_os_channel *os,
						struct srpt_os_tpg *tpg,
						const char *initiator);
/* Sends the login response (IB/CM: after moving the QP to RTR). */
SRPT_NODISCARD int srpt_os_channel_accept(struct srpt_os_channel *os, const void *rsp,
					  srpt_size_t len);
/* Sends a login rejection as consumer-defined REJ private data. */
void srpt_os_cm_reject(struct srpt_os_channel *os, const void *rej, srpt_size_t len);
/* IB/CM: moves the QP to RTS; RDMA/CM: nothing to do. */
SRPT_NODISCARD int srpt_os_channel_ready(struct srpt_os_channel *os);
/* Tells the CM that the first packet arrived before the RTU. */
void srpt_os_channel_notify_established(struct srpt_os_channel *os);
/* IB/CM: DREQ (DREP if a DREQ came); RDMA/CM: rdma_disconnect(). */
SRPT_NODISCARD int srpt_os_channel_disconnect(struct srpt_os_channel *os);
SRPT_NODISCARD int srpt_os_channel_qp_error(struct srpt_os_channel *os);
/* Posts a signalled zero-length RDMA WRITE; completes in srpt_core_zero_write_done(). */
SRPT_NODISCARD int srpt_os_channel_post_zero_write(struct srpt_os_channel *os);
/*
 * Teardown, in this order, from process context: stop the LIO session
 * and wait for its commands, then remove it; destroy the CM id (no CM
 * event, and no running CM handler, after return: the login handler
 * that created the channel has returned too); drain and destroy the QP
 * and put the CQ (a no-op when no QP was created): the drain
 * delivers every outstanding completion, flushed, through the
 * srpt_core_* callbacks before it returns (also after a failed login),
 * and none comes after; free @os.
 */
void srpt_os_channel_close_session(struct srpt_os_channel *os);
void srpt_os_channel_destroy_cm(struct srpt_os_channel *os);
void srpt_os_channel_destroy_qp(struct srpt_os_channel *os);
void srpt_os_channel_free(struct srpt_os_channel *os);

/* ---- Receive buffers and the shared receive queue ---- */

/*
 * Allocates and DMA-maps a receive buffer able to hold @size bytes of IU
 * starting @align_offset bytes into a 512-byte aligned buffer (so that
 * immediate data at a fixed IU offset is 512-byte aligned). *iu points
 * at where the IU will be received.
 */
struct srpt_os_recv *srpt_os_recv_alloc(struct srpt_os_device *dev, struct srpt_recv *core,
					srpt_u32 size, srpt_u32 align_offset, void **iu);
void srpt_os_recv_free(struct srpt_os_recv *r);
/* Posts @r on the channel's receive queue, or on the SRQ when @ch is NULL. */
SRPT_NODISCARD int srpt_os_recv_post(struct srpt_os_device *dev, struct srpt_os_channel *ch,
				     struct srpt_os_recv *r);

SRPT_NODISCARD int srpt_os_srq_create(struct srpt_os_device *dev, srpt_u32 size);
void srpt_os_srq_destroy(struct srpt_os_device *dev);

/* ---- Commands (send contexts): the data path ---- */

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

struct srpt_cmd_info {
	srpt_u64 tag;
	srpt_u64 lun;			/* unpacked (scsilun_to_int) */
	srpt_u32 data_len;
	srpt_u8 dir;			/* enum srpt_data_dir */
	srpt_u8 task_attr;		/* enum srpt_task_attr */
};

/* Allocates the kernel side of a send context with its response buffer. */
struct srpt_os_cmd *srpt_os_cmd_alloc(struct srpt_os_channel *ch, struct srpt_cmd *core,
				      srpt_u32 rsp_size, void **rsp_buf);
void srpt_os_cmd_free(struct srpt_os_cmd *cmd);

/* target_init_cmd(); -ESHUTDOWN while the session stops. */
SRPT_NODISCARD int srpt_os_cmd_init(struct srpt_os_cmd *cmd, const struct srpt_cmd_info *info);
/* Immediate data: the data buffer is @len bytes at @data (in a receive buffer). */
void srpt_os_cmd_map_imm(struct srpt_os_cmd *cmd, void *data, srpt_u32 len);
/*
 * A data buffer moved by RDMA: one local buffer per remote buffer (direct
 * descriptor) of the request, in order, which LIO sees as one
 * scatterlist. srpt_os_cmd_bufs_prepare() makes room for @count buffers
 * of a transfer in direction @dir, then each srpt_os_cmd_buf_add()
 * allocates the next one, of @len bytes, for the remote buffer @va/@rkey.
 * Before srpt_os_cmd_init(). 0 or -ENOMEM.
 */
SRPT_NODISCARD int srpt_os_cmd_bufs_prepare(struct srpt_os_cmd *cmd, srpt_u32 count,
					    enum srpt_data_dir dir);
SRPT_NODISCARD int srpt_os_cmd_buf_add(struct srpt_os_cmd *cmd, srpt_u64 va, srpt_u32 rkey,
				       srpt_u32 len);

/* Where a transfer may start inside a buffer: a page boundary on every kernel. */
#define SRPT_RDMA_PIECE_ALIGN 65536u

/*
 * Maps bytes [@off, @off + @len) of buffer @buf (0-based) for a transfer
 * to or from the same bytes of its remote buffer: RDMA READs for
 * data-out, RDMA WRITEs for data-in. @off is a multiple of
 * SRPT_RDMA_PIECE_ALIGN; a buffer has at most one mapping at a time.
 * Returns how many send work requests the transfer takes; -EAGAIN or
 * -ENOMEM when the QP's memory registrations or the system's memory are
 * short for now; another negative errno when it cannot be done.
 */
SRPT_NODISCARD int srpt_os_cmd_rdma_map(struct srpt_os_cmd *cmd, srpt_u32 buf, srpt_u32 off,
					srpt_u32 len);
/* Undoes the mapping of @buf once its work requests completed or were never posted. */
void srpt_os_cmd_rdma_unmap(struct srpt_os_cmd *cmd, srpt_u32 buf);
/* Unmaps and frees every buffer (or forgets the immediate data); idempotent. */
void srpt_os_cmd_release_data(struct srpt_os_cmd *cmd);
/*
 * target_submit_prep() + target_submit(). The CDB is copied by LIO.
 * After this LIO owns the command: it answers through the queue_*
 * callbacks even when it fails the command itself.
 */
void srpt_os_cmd_submit(struct srpt_os_cmd *cmd, const srpt_u8 *cdb);
/*
 * The write data cannot be had: transport_generic_request_failure(), which
 * answers TASK SET FULL when @transient (the initiator retries), else
 * CHECK CONDITION, ABORTED COMMAND.
 */
void srpt_os_cmd_abort(struct srpt_os_cmd *cmd, int transient);

/* Task management functions, as LIO's enum tcm_tmreq_table. */
enum srpt_tmf {
	SRPT_TMF_ABORT_TASK = 1,
	SRPT_TMF_ABORT_TASK_SET = 2,
	SRPT_TMF_CLEAR_ACA = 3,
	SRPT_TMF_CLEAR_TASK_SET = 4,
	SRPT_TMF_LUN_RESET = 5,
	SRPT_TMF_UNSUPPORTED = 0xff,	/* LIO answers "not supported" */
};
/*
 * target_submit_tmr(): 0 when LIO took it (it answers through
 * queue_tm_rsp); otherwise no LIO command exists and the core answers.
 */
SRPT_NODISCARD int srpt_os_cmd_submit_tmr(struct srpt_os_cmd *cmd, srpt_u64 lun,
					  enum srpt_tmf fn, srpt_u64 task_tag, srpt_u64 tag);

/* target_execute_cmd(): the write data is in. */
void srpt_os_cmd_execute(struct srpt_os_cmd *cmd);
/*
 * Posts, in one chain, the transfers of every buffer mapped since the
 * last post, in buffer order, and then, unless @rsp_len is 0, the
 * response (@rsp_len bytes of the response buffer). Completes in
 * srpt_core_send_done() when it carries a response, otherwise in
 * srpt_core_rdma_done() after the last transfer.
 */
SRPT_NODISCARD int srpt_os_cmd_post(struct srpt_os_cmd *cmd, srpt_u32 rsp_len);
/* target_put_sess_cmd(): drop the acknowledgement reference. */
void srpt_os_cmd_put(struct srpt_os_cmd *cmd);
/* transport_generic_free_cmd(): the response is done with. */
void srpt_os_cmd_done(struct srpt_os_cmd *cmd);

/* What LIO says about a finished command, for the SRP_RSP. */
enum srpt_residual {
	SRPT_RESIDUAL_NONE,
	SRPT_RESIDUAL_UNDERFLOW,
	SRPT_RESIDUAL_OVERFLOW,
};

struct srpt_cmd_status {
	srpt_u8 scsi_status;
	srpt_u8 residual;		/* enum srpt_residual */
	srpt_u8 data_dir;		/* enum srpt_data_dir */
	srpt_u32 residual_count;
	srpt_u32 data_len;		/* bytes of the SCSI transfer (data-in: what to send) */
	const srpt_u8 *sense;
	srpt_u32 sense_len;
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

/* LIO fabric callbacks, forwarded. */
SRPT_NODISCARD int srpt_core_write_pending(struct srpt_cmd *cmd);
/* queue_data_in (@with_data) and queue_status. */
void srpt_core_queue_response(struct srpt_cmd *cmd, const struct srpt_cmd_status *st,
			      int with_data);
void srpt_core_queue_tm_response(struct srpt_cmd *cmd, enum srpt_tmr_response r);
void srpt_core_aborted_task(struct srpt_cmd *cmd);
void srpt_core_release_cmd(struct srpt_cmd *cmd);
int srpt_core_cmd_state(struct srpt_cmd *cmd);

/* Completions of a command's work requests: RDMA transfers without a response, a response. */
void srpt_core_rdma_done(struct srpt_cmd *cmd, int ok);
void srpt_core_send_done(struct srpt_cmd *cmd, int ok);

SRPT_ABI_END

#endif /* SRPT_ABI_H */
