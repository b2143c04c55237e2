/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The one boundary between the C++ core and the C shims of ib_srpt.
 *
 * Readable from kernel C (the shims), from the freestanding C++ core and
 * from host C++ (the test double). It includes no header at all, so both
 * sides see exactly the same declarations.
 *
 * Naming:
 *   srpt_os_*    implemented by the shims (kernel services, IB verbs, LIO),
 *                called by the core;
 *   srpt_core_*  implemented by the core, called by the shims. The two
 *                contracts the users documented keep their historic names:
 *                srpt_refresh_port() and srpt_lookup_port().
 *
 * Core objects cross as opaque handles (struct srpt_device, ...); kernel
 * objects cross as opaque handles too (struct srpt_os_device, ...). Each
 * function says who owns what after the call.
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

/* ------------------------------------------------------------------------
 * Kernel services: memory, logging, locks, completions, deferred work.
 * ------------------------------------------------------------------------
 */

enum srpt_alloc_flags {
	SRPT_ALLOC_ZERO = 1u << 0,
	/* May be called from a context that cannot sleep. */
	SRPT_ALLOC_ATOMIC = 1u << 1,
};

/*
 * Returns memory aligned to @align (a power of two) or NULL. Free with
 * srpt_os_free(); freeing NULL is a no-op.
 */
void *srpt_os_alloc(srpt_size_t size, srpt_size_t align, unsigned int flags);
void srpt_os_free(void *p);

enum srpt_log_level {
	SRPT_LOG_ERR = 3,
	SRPT_LOG_WARN = 4,
	SRPT_LOG_NOTICE = 5,
	SRPT_LOG_INFO = 6,
	SRPT_LOG_DEBUG = 7,
};

/* printk-style; the shim prefixes the module name. */
void srpt_os_log(int level, const char *fmt, ...) SRPT_PRINTF(2, 3);

/*
 * Report a broken invariant in the core (a WARN in the kernel, a test
 * failure on the host). Never returns early in a way the core relies on.
 */
void srpt_os_warn(const char *file, int line, const char *what);

/*
 * Opaque storage for kernel synchronisation objects, embedded in core
 * objects so that no allocation is needed. The shim checks at build time
 * that the kernel object fits.
 */
struct srpt_os_spinlock {
	unsigned long opaque[8];
};
struct srpt_os_mutex {
	unsigned long opaque[16];
};
struct srpt_os_completion {
	unsigned long opaque[12];
};
struct srpt_os_work {
	unsigned long opaque[16];
};

void srpt_os_spin_init(struct srpt_os_spinlock *lock);
/* Disables interrupts: safe from any context. Returns the saved flags. */
unsigned long srpt_os_spin_lock_irqsave(struct srpt_os_spinlock *lock);
void srpt_os_spin_unlock_irqrestore(struct srpt_os_spinlock *lock, unsigned long flags);

void srpt_os_mutex_init(struct srpt_os_mutex *m);
void srpt_os_mutex_lock(struct srpt_os_mutex *m);
void srpt_os_mutex_unlock(struct srpt_os_mutex *m);
void srpt_os_mutex_destroy(struct srpt_os_mutex *m);

void srpt_os_completion_init(struct srpt_os_completion *c);
void srpt_os_complete(struct srpt_os_completion *c);
/* Returns 0 once completed, -ETIMEDOUT after @timeout_ms. */
SRPT_NODISCARD int srpt_os_wait_for_completion(struct srpt_os_completion *c,
					       unsigned int timeout_ms);

/*
 * Deferred work in process context. @fn(@arg) runs on the system
 * workqueue; schedule returns 0 when the work was already pending.
 */
typedef void (*srpt_work_fn)(void *arg);
void srpt_os_work_init(struct srpt_os_work *w, srpt_work_fn fn, void *arg);
int srpt_os_work_schedule(struct srpt_os_work *w);
/* Waits for a running instance and cancels a pending one. May sleep. */
void srpt_os_work_cancel_sync(struct srpt_os_work *w);

/* Monotonic clock in nanoseconds. */
srpt_u64 srpt_os_now_ns(void);

/* ------------------------------------------------------------------------
 * Module lifetime and parameters.
 * ------------------------------------------------------------------------
 */

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

/* ------------------------------------------------------------------------
 * RDMA devices and ports.
 *
 * The shim creates a struct srpt_os_device (PD, event handler, MAD agents,
 * CM listener) for every RDMA device the IB client sees and hands it to
 * srpt_core_device_add(); the core creates one struct srpt_port per
 * physical port and decides everything else.
 * ------------------------------------------------------------------------
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
 * handle, owned by the shim until srpt_core_device_remove(); on failure
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

enum srpt_port_event {
	SRPT_EVENT_PORT_ACTIVE,
	SRPT_EVENT_PORT_ERR,
	SRPT_EVENT_LID_CHANGE,
	SRPT_EVENT_PKEY_CHANGE,
	SRPT_EVENT_SM_CHANGE,
	SRPT_EVENT_CLIENT_REREGISTER,
	SRPT_EVENT_GID_CHANGE,
	SRPT_EVENT_OTHER,
};

/* The device's asynchronous event handler; may run in atomic context. */
void srpt_core_port_event(struct srpt_device *dev, srpt_u32 port_num,
			  enum srpt_port_event ev, int raw_event);

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

/* ------------------------------------------------------------------------
 * LIO: target ports (WWNs), TPGs, node ACLs and configfs attributes.
 *
 * The shim owns the configfs-facing kernel objects (struct se_wwn, struct
 * se_portal_group inside its srpt_os_tport / srpt_os_tpg) and creates the
 * core twin in the same configfs callback; it destroys the core twin
 * first when configfs drops the directory.
 * ------------------------------------------------------------------------
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

/* Validates a node ACL name (srpt_parse_i_port_id()); 0 or -EINVAL. */
SRPT_NODISCARD int srpt_core_nacl_init(const char *name);

/*
 * Listens for RDMA/CM logins on TCP-space @port (IPv6 any, falling back to
 * IPv4 any), replacing the previous listener; 0 stops listening. On
 * failure the previous listener stays.
 */
SRPT_NODISCARD int srpt_os_rdma_cm_listen(srpt_u16 port);

SRPT_ABI_END

#endif /* SRPT_ABI_H */
