/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The contract of include/srpt/abi.h's srpt_os_* calls, written once for
 * both test doubles: the host's (tests/host/fake_os.cpp, fake_channel.cpp)
 * and KUnit's (kunit/fake_ib.c, fake_datapath.c). For each call: what the
 * core must have done before it, and what it may not do. A double keeps
 * the state below in its own objects, asks a check before it carries a
 * call out, reports a non-NULL answer as a violation (host: a gtest
 * failure; KUnit: a WARN, which fails scripts/kunit) and records a
 * successful call with the matching _done(). What the doubles model
 * beyond it (queues, completions, failure injection, threads) is theirs;
 * the queue pair's slots are qp_model.h's.
 *
 * Each rule cites abi.h as "abi.h:LINE name" or "abi.h:FIRST-LAST name":
 * the host test ContractText.CitationsPointAtTheirNames checks that @name is
 * on those lines, so that a citation cannot rot silently. When abi.h
 * changes, tests/doubles/renumber-citations REV moves them along a diff
 * from abi.h at REV and lists the ones that need a reading.
 *
 * The srpt_os_* calls without a rule here, and why:
 *   - srpt_os_wc_status_msg, srpt_os_ib_event_msg, srpt_os_cm_event_msg:
 *     any code has a text (names.h answers for both doubles);
 *   - srpt_os_inet_pton: any bytes (the host double also refuses a NUL
 *     inside @len, a bug of its own callers; KUnit runs the real one of
 *     src/shim/os.c); srpt_os_rdma_cm_listen: any port, at any time;
 *   - srpt_os_ib_cm_stop, srpt_os_mad_agent_unregister (a no-op without
 *     an agent), srpt_os_channel_ready, srpt_os_channel_notify_established,
 *     srpt_os_cmd_map_imm, srpt_os_cmd_put, srpt_os_cmd_done: abi.h asks
 *     nothing of them beyond a live object (the device and channel rules
 *     below).
 * ktl/platform.h's srpt_os_* (memory, logging, locks, completions, work)
 * are the host double's alone: KUnit runs the real src/shim/os.c, and the
 * kernel's lockdep and allocator are the checks there. Also the host
 * double's alone, as KUnit's cannot see them: the initiator's credits
 * against the receive buffers posted, and an IU landing on immediate data
 * a command still holds (the KUnit suites deliver IUs themselves, past
 * the double); handles the core never had (the host double keeps a
 * registry; KUnit's dereferences them, as the kernel would); a CM
 * handler running on another thread (KUnit's logins run in the caller's).
 *
 * Plain C without includes but abi.h: kernel C and host C++ compile it.
 */
#ifndef SRPT_TESTS_CONTRACT_H
#define SRPT_TESTS_CONTRACT_H

#include <srpt/abi.h>

/* ---- Context: the calls that may sleep ---- */

/*
 * Whether the srpt_os_* call @fn (a double passes __func__) may sleep: a
 * double reports one that may, made under a spinlock or in atomic
 * context (host: its lock model; KUnit: with interrupts disabled, as
 * under the core's spinlocks, or in_atomic()).
 */
static inline int srpt_contract_may_sleep(const char *fn)
{
	static const char * const sleepers[] = {
		"srpt_os_ib_cm_listen",		/* abi.h:96-97 srpt_os_ib_cm_listen */
		"srpt_os_ib_cm_stop",		/* abi.h:96-99 srpt_os_ib_cm_stop */
		"srpt_os_port_query",		/* abi.h:96-100 srpt_os_port_query */
		"srpt_os_port_set_devmgmt",	/* abi.h:96-103 srpt_os_port_set_devmgmt */
		"srpt_os_mad_agent_register",	/* abi.h:96-106 srpt_os_mad_agent_register */
		"srpt_os_mad_agent_unregister",	/* abi.h:96-110 srpt_os_mad_agent_unregister */
		"srpt_os_device_events_start",	/* abi.h:96-112 srpt_os_device_events_start */
		"srpt_os_device_events_stop",	/* abi.h:96-113 srpt_os_device_events_stop */
		/* abi.h:185-190 srpt_os_rdma_cm_listen: binds and listens */
		"srpt_os_rdma_cm_listen",
		/* abi.h:321-324 srpt_os_channel_create_qp: allocates */
		"srpt_os_channel_create_qp",
		/* abi.h:327-328 srpt_os_channel_open_session: LIO's session setup */
		"srpt_os_channel_open_session",
		/* abi.h:331-332 srpt_os_channel_accept: modifies the QP, sends the REP */
		"srpt_os_channel_accept",
		"srpt_os_cm_reject",		/* abi.h:334-335 srpt_os_cm_reject */
		/* abi.h:351-356 srpt_os_channel_close_session: in process context */
		"srpt_os_channel_close_session",
		"srpt_os_channel_destroy_cm",	/* abi.h:351-357 srpt_os_channel_destroy_cm */
		"srpt_os_channel_destroy_qp",	/* abi.h:351-358 srpt_os_channel_destroy_qp */
		"srpt_os_channel_free",		/* abi.h:351-359 srpt_os_channel_free */
		"srpt_os_recv_alloc",		/* abi.h:364-368 srpt_os_recv_alloc: DMA-maps */
		"srpt_os_srq_create",		/* abi.h:374 srpt_os_srq_create */
		"srpt_os_srq_destroy",		/* abi.h:375 srpt_os_srq_destroy */
		"srpt_os_cmd_alloc",		/* abi.h:401 srpt_os_cmd_alloc */
		"srpt_os_cmd_buf_add",		/* abi.h:418-426 srpt_os_cmd_buf_add: allocates */
		/* abi.h:444-447 srpt_os_cmd_rdma_map: allocates MRs and memory */
		"srpt_os_cmd_rdma_map",
		(const char *)0,
	};
	unsigned int i, j;

	for (i = 0; sleepers[i]; i++) {
		for (j = 0; sleepers[i][j] && sleepers[i][j] == fn[j]; j++)
			;
		if (!sleepers[i][j] && !fn[j])
			return 1;
	}
	return 0;
}

/* ---- Devices, ports and the SRQ ---- */

/* Where a device's kernel side stands; zero is a device just added. */
struct srpt_contract_dev {
	unsigned char removed;		/* srpt_core_device_remove() returned */
	unsigned char ib_cm_listening;
	unsigned char events;
	unsigned char srq;
	unsigned int srq_qps;		/* QPs on the SRQ */
};

/* Any call with the device: NULL, or what it breaks. */
static inline const char *srpt_contract_dev_check(const struct srpt_contract_dev *d)
{
	/* abi.h:89-92 srpt_core_device_remove: afterwards the core never uses @os. */
	return d->removed ? "a call after srpt_core_device_remove()" : (const char *)0;
}

/* A call with @port_num of a device of @port_count ports. */
static inline const char *srpt_contract_port_check(unsigned int port_num,
						   unsigned int port_count)
{
	/* abi.h:60 port_count: ports are numbered 1..port_count. */
	if (port_num < 1 || port_num > port_count)
		return "a nonexistent port";
	return (const char *)0;
}

static inline const char *srpt_contract_ib_cm_listen(const struct srpt_contract_dev *d)
{
	/* abi.h:97 srpt_os_ib_cm_listen: one listener per device, until ib_cm_stop. */
	return d->ib_cm_listening ? "ib_cm_listen while listening" : (const char *)0;
}

/* A MAD agent for @port on a port that has one when @registered. */
static inline const char *srpt_contract_mad_agent_register(int registered, const void *port)
{
	/* abi.h:105-108 srpt_os_mad_agent_register: the agent of @port, one per port. */
	if (registered)
		return "a second MAD agent on a port";
	return port ? (const char *)0 : "a MAD agent without its port";
}

static inline const char *srpt_contract_events(const struct srpt_contract_dev *d, int start)
{
	/* abi.h:111-113 srpt_os_device_events_start: events flow between start and stop. */
	if (start)
		return d->events ? "events started twice" : (const char *)0;
	return d->events ? (const char *)0 : "events stopped but not started";
}

static inline const char *srpt_contract_srq_create(const struct srpt_contract_dev *d)
{
	/* abi.h:374 srpt_os_srq_create: one SRQ per device. */
	return d->srq ? "srq_create while the device has an SRQ" : (const char *)0;
}

static inline const char *srpt_contract_srq_destroy(const struct srpt_contract_dev *d)
{
	/* abi.h:375 srpt_os_srq_destroy: of the SRQ srpt_os_srq_create made ... */
	if (!d->srq)
		return "srq_destroy without an SRQ";
	/* abi.h:313-375 srpt_os_srq_destroy: ... once no QP uses it (ib_destroy_srq WARNs). */
	return d->srq_qps ? "srq_destroy while a QP uses the SRQ" : (const char *)0;
}

/* ---- Channels ---- */

/* The srpt_os_channel_* calls (and a receive on the channel's own queue). */
enum srpt_contract_call {
	SRPT_CONTRACT_CREATE_QP,
	SRPT_CONTRACT_OPEN_SESSION,
	SRPT_CONTRACT_ACCEPT,
	SRPT_CONTRACT_REJECT,
	SRPT_CONTRACT_DISCONNECT,
	SRPT_CONTRACT_QP_ERROR,
	SRPT_CONTRACT_ZERO_WRITE,
	SRPT_CONTRACT_RECV_POST,	/* on the channel's own receive queue */
	SRPT_CONTRACT_CLOSE_SESSION,
	SRPT_CONTRACT_DESTROY_CM,
	SRPT_CONTRACT_DESTROY_QP,
	SRPT_CONTRACT_FREE,
	SRPT_CONTRACT_CMD_POST,		/* srpt_os_cmd_post() of one of its commands */
	SRPT_CONTRACT_ANY,		/* any other call: ready, notify_established, its commands' */
};

/* Where a channel's kernel side stands; zero is a channel the CM just made. */
struct srpt_contract {
	unsigned char qp;		/* created and not destroyed */
	unsigned char qp_destroyed;
	unsigned char use_srq;		/* of the QP */
	unsigned char session;		/* the LIO session is open */
	unsigned char accepted;
	unsigned char rejected;
	unsigned char cm_destroyed;
	unsigned char freed;
	/* Set by the double: srpt_core_login() runs, in the calling thread. */
	unsigned char in_cm_handler;
	/* Set by the double from srpt_login_info: what the initiator allows. */
	unsigned char peer_initiator_depth;
	unsigned char peer_responder_resources;
	unsigned int cmds;		/* send contexts allocated and not freed */
};

/* NULL when the contract allows @call now, else what it breaks. */
static inline const char *srpt_contract_check(const struct srpt_contract *c,
					      enum srpt_contract_call call)
{
	/* abi.h:221-224 srpt_os_channel_free: the core frees @os last. */
	if (c->freed)
		return "a call after srpt_os_channel_free()";
	switch (call) {
	case SRPT_CONTRACT_CREATE_QP:
		/* abi.h:321-324 srpt_os_channel_create_qp: one QP per channel. */
		return c->qp || c->qp_destroyed ? "create_qp twice" : 0;
	case SRPT_CONTRACT_OPEN_SESSION:
		/* abi.h:327-328 srpt_os_channel_open_session: of a channel with a QP, once. */
		if (!c->qp)
			return "open_session before create_qp";
		return c->session ? "open_session twice" : 0;
	case SRPT_CONTRACT_ACCEPT:
		/* abi.h:331-332 srpt_os_channel_accept: once QP and session exist, once. */
		if (!c->qp)
			return "accept without a QP";
		if (!c->session)
			return "accept without a LIO session";
		return c->accepted ? "accept twice" : 0;
	case SRPT_CONTRACT_REJECT:
		/* abi.h:221-224 srpt_os_cm_reject: once, while the CM id lives. */
		if (c->cm_destroyed)
			return "cm_reject after destroy_cm";
		return c->rejected ? "cm_reject twice" : 0;
	case SRPT_CONTRACT_DISCONNECT:
		/* abi.h:344-346 srpt_os_channel_disconnect: through the CM id. */
		return c->cm_destroyed ? "disconnect after destroy_cm" : 0;
	case SRPT_CONTRACT_QP_ERROR:
		/* abi.h:347 srpt_os_channel_qp_error: of a live QP. */
		return c->qp ? 0 : "qp_error without a QP";
	case SRPT_CONTRACT_ZERO_WRITE:
		/* abi.h:348-349 srpt_os_channel_post_zero_write: on a live QP. */
		return c->qp ? 0 : "post_zero_write without a QP";
	case SRPT_CONTRACT_RECV_POST:
		/* abi.h:371-372 srpt_os_recv_post: on the channel's QP ... */
		if (!c->qp)
			return "recv_post on a channel without a QP";
		/* abi.h:306 max_recv_wr: ... which has no receive queue of its own on the SRQ. */
		return c->use_srq ? "recv_post on the receive queue of a QP on the SRQ" : 0;
	case SRPT_CONTRACT_CLOSE_SESSION:
		/* abi.h:350-356 srpt_os_channel_close_session: teardown, in this order. */
		return c->cm_destroyed || c->qp_destroyed ?
			"close_session after the CM id or the QP was destroyed" : 0;
	case SRPT_CONTRACT_DESTROY_CM:
		/* abi.h:350-357 srpt_os_channel_destroy_cm: after close_session, before destroy_qp. */
		if (c->session)
			return "destroy_cm while the LIO session is open";
		if (c->cm_destroyed)
			return "destroy_cm twice";
		if (c->qp_destroyed)
			return "destroy_cm after destroy_qp";
		/* abi.h:352-357 srpt_os_channel_destroy_cm: waits for the login handler. */
		return c->in_cm_handler ? "destroy_cm from its own CM handler: deadlock" : 0;
	case SRPT_CONTRACT_DESTROY_QP:
		/* abi.h:350-358 srpt_os_channel_destroy_qp: after close_session, once. */
		if (c->session)
			return "destroy_qp while the LIO session is open";
		return c->qp_destroyed ? "destroy_qp twice" : 0;
	case SRPT_CONTRACT_FREE:
		/* abi.h:350-359 srpt_os_channel_free: last of the teardown. */
		if (c->session)
			return "free with the LIO session open";
		if (!c->cm_destroyed)
			return "free before destroy_cm";
		if (c->qp)
			return "free before destroy_qp";
		/* abi.h:401-404 srpt_os_cmd_free: a channel's send contexts go before it. */
		return c->cmds ? "free with a send context still allocated" : 0;
	case SRPT_CONTRACT_CMD_POST:
		/* abi.h:482-488 srpt_os_cmd_post: posts on the channel's QP. */
		return c->qp ? 0 : "cmd_post on a channel without a QP";
	case SRPT_CONTRACT_ANY:
		return 0;
	}
	return "an unknown call";
}

/* @call succeeded: the channel's kernel side is in its new state. */
static inline void srpt_contract_done(struct srpt_contract *c, enum srpt_contract_call call)
{
	switch (call) {
	case SRPT_CONTRACT_CREATE_QP:
		c->qp = 1;
		c->qp_destroyed = 0;
		break;
	case SRPT_CONTRACT_OPEN_SESSION:
		c->session = 1;
		break;
	case SRPT_CONTRACT_ACCEPT:
		c->accepted = 1;
		break;
	case SRPT_CONTRACT_REJECT:
		c->rejected = 1;
		break;
	case SRPT_CONTRACT_CLOSE_SESSION:
		c->session = 0;
		break;
	case SRPT_CONTRACT_DESTROY_CM:
		c->cm_destroyed = 1;
		break;
	case SRPT_CONTRACT_DESTROY_QP:
		/* A login that failed before its QP existed destroys none. */
		if (c->qp)
			c->qp_destroyed = 1;
		c->qp = 0;
		break;
	case SRPT_CONTRACT_FREE:
		c->freed = 1;
		break;
	case SRPT_CONTRACT_DISCONNECT:
	case SRPT_CONTRACT_QP_ERROR:
	case SRPT_CONTRACT_ZERO_WRITE:
	case SRPT_CONTRACT_RECV_POST:
	case SRPT_CONTRACT_CMD_POST:
	case SRPT_CONTRACT_ANY:
		break;
	}
}

/*
 * srpt_core_login() returned @ret for a channel that stands at @c: NULL,
 * or which of its srpt_os_* calls it owed.
 */
static inline const char *srpt_contract_login(const struct srpt_contract *c, int ret)
{
	if (ret) {
		/* abi.h:221-227 srpt_os_cm_reject: a refused login is rejected first ... */
		if (!c->rejected)
			return "srpt_core_login failed without rejecting the login";
		/* abi.h:224-225 srpt_os_cm_reject: ... and the shim frees what is left. */
		if (c->accepted || c->session)
			return "srpt_core_login failed but left the login accepted or its session open";
		return c->qp ? "srpt_core_login failed but left the QP" : (const char *)0;
	}
	/* abi.h:221-224 srpt_os_cm_reject: a login the core takes, it answers. */
	if (!c->accepted && !c->rejected)
		return "srpt_core_login took the channel without accepting or rejecting the login";
	return (const char *)0;
}

/* srpt_os_channel_create_qp() of @p for @core, beyond srpt_contract_check(). */
static inline const char *srpt_contract_qp_params(const struct srpt_contract *c,
						  const struct srpt_contract_dev *d,
						  const void *core, const struct srpt_qp_params *p)
{
	/* abi.h:321-326 srpt_os_channel_create_qp: the shim's callbacks pass @core. */
	if (!core)
		return "create_qp without the core's channel";
	/* abi.h:313-374 srpt_os_srq_create: a QP on the SRQ needs one. */
	if (p->use_srq && !d->srq)
		return "create_qp with use_srq on a device without an SRQ";
	/* abi.h:307-308 max_rdma_ctxs: the commands' share of the send WRs. */
	if (p->max_rdma_ctxs > p->max_send_wr)
		return "create_qp with more send WRs for commands than in all";
	/* abi.h:216-218 initiator_depth: more RDMA READs than the request allows break it. */
	if (p->initiator_depth > c->peer_initiator_depth ||
	    p->responder_resources > c->peer_responder_resources)
		return "create_qp with RDMA READ depths beyond the initiator's";
	return (const char *)0;
}

/* The QP of @p was created: the channel's and the device's state. */
static inline void srpt_contract_qp_created(struct srpt_contract *c,
					    struct srpt_contract_dev *d,
					    const struct srpt_qp_params *p)
{
	srpt_contract_done(c, SRPT_CONTRACT_CREATE_QP);
	c->use_srq = p->use_srq;
	if (p->use_srq)
		d->srq_qps++;
}

/* srpt_os_channel_destroy_qp() returned. */
static inline void srpt_contract_qp_destroyed(struct srpt_contract *c,
					      struct srpt_contract_dev *d)
{
	if (c->qp && c->use_srq && d->srq_qps)
		d->srq_qps--;
	srpt_contract_done(c, SRPT_CONTRACT_DESTROY_QP);
}

/* srpt_os_channel_open_session() of @tpg for @initiator. */
static inline const char *srpt_contract_open_session(const void *tpg, const char *initiator)
{
	/* abi.h:327-330 srpt_os_channel_open_session: a TPG and an initiator name. */
	return tpg && initiator ? (const char *)0 : "open_session without a TPG or initiator";
}

/*
 * A zero-length write with @pending of them outstanding (this one
 * included), on a QP of @p.
 */
static inline const char *srpt_contract_zero_write(const struct srpt_qp_params *p,
						   unsigned int pending)
{
	/*
	 * abi.h:306-308 max_send_wr: the zero-length writes are the core's
	 * own, beyond the commands' share, with a slot left for ib_drain_qp().
	 */
	if ((unsigned long long)p->max_rdma_ctxs + pending + 1 > p->max_send_wr)
		return "post_zero_write with no room left in the send WRs beyond the commands'";
	return (const char *)0;
}

/* ---- Receive buffers ---- */

static inline const char *srpt_contract_recv_alloc(unsigned int align_offset)
{
	/* abi.h:363-368 srpt_os_recv_alloc: @align_offset into a 512-byte aligned buffer. */
	return align_offset < 512 ? (const char *)0 : "recv_alloc with an alignment offset of 512 or more";
}

/*
 * srpt_os_recv_post() of a buffer that is @posted already, of the
 * device it was posted with (@same_dev), on the SRQ when @on_srq (the
 * channel's own queue is srpt_contract_check()'s).
 */
static inline const char *srpt_contract_recv_post(const struct srpt_contract_dev *d,
						  int posted, int same_dev, int on_srq)
{
	/* abi.h:371-372 srpt_os_recv_post: a buffer receives one IU per post. */
	if (posted)
		return "recv_post of a buffer already posted";
	/* abi.h:368-372 srpt_os_recv_post: on the device that mapped it. */
	if (!same_dev)
		return "recv_post on another device than the buffer's";
	/* abi.h:371-374 srpt_os_srq_create: the SRQ srpt_os_srq_create made. */
	if (on_srq && !d->srq)
		return "recv_post on the SRQ of a device without one";
	return (const char *)0;
}

static inline const char *srpt_contract_recv_free(int posted)
{
	/* abi.h:370 srpt_os_recv_free: the HCA may still write into a posted buffer. */
	return posted ? "recv_free of a buffer still posted" : (const char *)0;
}

/* ---- Commands (send contexts) ---- */

/*
 * Where a send context stands; zero is one just allocated, or released
 * (srpt_os_cmd_release_data()).
 */
struct srpt_contract_cmd {
	unsigned int count;		/* buffers the first buf_add announced */
	unsigned int added;		/* buf_add calls that succeeded */
	unsigned char dir;		/* enum srpt_data_dir of the first buf_add */
	unsigned char bufs_final;	/* init or a failed buf_add: no buf_add until release */
	unsigned char inited;		/* cmd_init succeeded, and no submit_tmr since */
	unsigned char kept;		/* buf_add said SRPT_BUF_KEPT */
	unsigned char data_in_ready;	/* LIO queued the read data (queue_data_in) */
};

/*
 * What a double knows of a send context's work requests: @rdma posts of
 * transfers alone and @sends posts with a response, outstanding.
 */
struct srpt_contract_wrs {
	unsigned int rdma;
	unsigned int sends;
};

static inline const char *srpt_contract_cmd_init(struct srpt_contract_wrs w)
{
	/* abi.h:406-411 srpt_os_cmd_init: a new command, once the last one's WRs completed. */
	if (w.rdma || w.sends)
		return "cmd_init of a send context with work requests outstanding";
	return (const char *)0;
}

static inline void srpt_contract_cmd_init_done(struct srpt_contract_cmd *c)
{
	c->inited = 1;
	c->bufs_final = 1;
	c->data_in_ready = 0;
}

static inline const char *srpt_contract_buf_add(const struct srpt_contract_cmd *c,
						unsigned int count, int dir, unsigned int len)
{
	/* abi.h:417-422 srpt_os_cmd_init: before it; after a failure, release first. */
	if (c->bufs_final)
		return "buf_add after cmd_init or a failed buf_add, before release_data";
	/* abi.h:419-426 srpt_os_cmd_buf_add: later calls pass the first's count and direction. */
	if (c->added && (count != c->count || dir != c->dir))
		return "buf_add with another count or direction than the first";
	/* abi.h:417-418 srpt_os_cmd_init: once for each of the @count buffers. */
	if (c->added >= count)
		return "buf_add beyond the buffer count";
	/* abi.h:418-426 srpt_os_cmd_buf_add: a buffer of @len bytes; the core asks for none empty. */
	return len ? (const char *)0 : "buf_add of an empty buffer";
}

/* buf_add of @count buffers in @dir returned @ret. */
static inline void srpt_contract_buf_add_done(struct srpt_contract_cmd *c, unsigned int count,
					      int dir, int ret)
{
	/* abi.h:421-422 srpt_os_cmd_release_data: after a failure, before anything else. */
	if (ret < 0) {
		c->bufs_final = 1;
		return;
	}
	if (!c->added) {
		c->count = count;
		c->dir = (unsigned char)dir;
	}
	c->added++;
	c->kept = ret == SRPT_BUF_KEPT;
}

/*
 * rdma_map of bytes [@off, @off + @len) of buffer @buf, which is
 * @buf_len bytes long and @mapped already.
 */
static inline const char *srpt_contract_rdma_map(const struct srpt_contract_cmd *c,
						 unsigned int buf, unsigned int off,
						 unsigned int len, unsigned int buf_len, int mapped)
{
	/* abi.h:441-447 srpt_os_cmd_rdma_map: of buffer @buf, which buf_add allocated. */
	if (buf >= c->added)
		return "rdma_map of a buffer buf_add did not allocate";
	/* abi.h:433 srpt_os_cmd_rdma_map: never of a kept buffer. */
	if (c->kept)
		return "rdma_map of a kept buffer";
	/* abi.h:443-444 SRPT_RDMA_PIECE_ALIGN: one mapping per buffer at a time ... */
	if (mapped)
		return "rdma_map of a buffer mapped already";
	/* abi.h:443 SRPT_RDMA_PIECE_ALIGN: ... at a multiple of it ... */
	if (off % SRPT_RDMA_PIECE_ALIGN)
		return "rdma_map at an offset that is not a piece boundary";
	/* abi.h:441-447 srpt_os_cmd_rdma_map: ... of bytes of the buffer. */
	if (!len || off > buf_len || len > buf_len - off)
		return "rdma_map of bytes beyond the buffer";
	/*
	 * abi.h:526-536 srpt_core_queue_response: read data is mapped once
	 * LIO queued it: with bounce buffers the mapping copies the bytes
	 * the backend wrote.
	 */
	if (c->dir == SRPT_DATA_IN && !c->data_in_ready)
		return "rdma_map of read data before LIO queued it";
	return (const char *)0;
}

/* rdma_unmap of buffer @buf, whose transfer is @outstanding. */
static inline const char *srpt_contract_rdma_unmap(const struct srpt_contract_cmd *c,
						   unsigned int buf, int outstanding)
{
	/* abi.h:433 srpt_os_cmd_rdma_map: a kept buffer is never unmapped ... */
	if (c->kept)
		return "rdma_unmap of a kept buffer";
	if (buf >= c->added)
		return "rdma_unmap of a buffer buf_add did not allocate";
	/* abi.h:449-450 srpt_os_cmd_rdma_unmap: once its WRs completed or were never posted. */
	return outstanding ? "rdma_unmap of a buffer while its transfer is outstanding" :
			     (const char *)0;
}

/* release_data while a transfer of its buffers is @outstanding. */
static inline const char *srpt_contract_release_data(int outstanding)
{
	/* abi.h:449-452 srpt_os_cmd_release_data: unmaps, so after the transfers. */
	return outstanding ? "release_data while a transfer is outstanding" : (const char *)0;
}

static inline void srpt_contract_release_data_done(struct srpt_contract_cmd *c)
{
	/* abi.h:451-452 srpt_os_cmd_release_data: idempotent. */
	c->count = 0;
	c->added = 0;
	c->dir = SRPT_DATA_NONE;
	c->bufs_final = 0;
	c->kept = 0;
}

/* submit of a CDB that lies in a receive buffer @cdb_reposted since. */
static inline const char *srpt_contract_submit(const struct srpt_contract_cmd *c,
					       int cdb_reposted)
{
	/* abi.h:407-411 srpt_os_cmd_init: the command LIO owns from submit on. */
	if (!c->inited)
		return "submit before cmd_init";
	/* abi.h:454-458 srpt_os_cmd_submit: LIO copies the CDB: it is the IU's still. */
	return cdb_reposted ? "submit of a CDB in a receive buffer posted again" : (const char *)0;
}

static inline const char *srpt_contract_abort(struct srpt_contract_wrs w, int why)
{
	/* abi.h:459-465 srpt_os_cmd_abort: an answer enum srpt_write_failure names. */
	if (why != SRPT_WRITE_TASK_SET_FULL && why != SRPT_WRITE_ABORTED_COMMAND)
		return "abort with an answer enum srpt_write_failure does not name";
	/* abi.h:464-465 srpt_os_cmd_abort: the write data cannot be had: none comes. */
	return w.rdma ? "abort with an RDMA READ outstanding" : (const char *)0;
}

static inline const char *srpt_contract_rdma_cm_listen(int af)
{
	/* abi.h:181-190 srpt_os_rdma_cm_listen: a family enum srpt_inet_family names. */
	if (af != SRPT_INET4 && af != SRPT_INET6)
		return "rdma_cm_listen of a family enum srpt_inet_family does not name";
	return (const char *)0;
}

static inline const char *srpt_contract_submit_tmr(struct srpt_contract_wrs w)
{
	/* abi.h:476-477 srpt_os_cmd_submit_tmr: a send context of its own, idle. */
	if (w.rdma || w.sends)
		return "submit_tmr on a send context with work requests outstanding";
	return (const char *)0;
}

static inline void srpt_contract_submit_tmr_done(struct srpt_contract_cmd *c)
{
	c->inited = 0;
}

/*
 * execute, with a buffer still @mapped and the immediate data's receive
 * buffer @imm_reposted since.
 */
static inline const char *srpt_contract_execute(struct srpt_contract_wrs w, int mapped,
						int imm_reposted)
{
	/* abi.h:479-480 srpt_os_cmd_execute: the write data is in ... */
	if (w.rdma)
		return "execute with an RDMA READ outstanding";
	/* abi.h:449-450 srpt_os_cmd_rdma_unmap: ... its READs unmapped (bounce buffers copy) ... */
	if (mapped)
		return "execute with a buffer still mapped for RDMA";
	/* abi.h:414-415 srpt_os_cmd_map_imm: ... or in the receive buffer, not posted again. */
	return imm_reposted ? "execute with the immediate data's buffer posted again" :
			      (const char *)0;
}

/*
 * srpt_os_cmd_post(@rsp_len, @kept_len, @mapped): @now buffers are
 * mapped and not posted; the kept buffer is @kept_len_max bytes and
 * posted already when @kept_posted; the response buffer is @rsp_size.
 */
struct srpt_contract_post_call {
	unsigned int rsp_len;
	unsigned int kept_len;
	unsigned int mapped;
	unsigned int now;
	unsigned int kept_len_max;
	int kept_posted;
	unsigned int rsp_size;
};

static inline const char *srpt_contract_post(const struct srpt_contract_cmd *c,
					     const struct srpt_contract_post_call *p,
					     struct srpt_contract_wrs w)
{
	/* abi.h:482-488 srpt_os_cmd_post: @mapped, the buffers mapped since the last post. */
	if (p->mapped != p->now)
		return "post of another number of mapped buffers than are";
	/* abi.h:483-488 srpt_os_cmd_post: or bytes of the kept buffer, once. */
	if (p->kept_len && !c->kept)
		return "post of bytes of a buffer that is not kept";
	if (p->kept_len && (p->kept_posted || p->kept_len > p->kept_len_max))
		return "post of a kept buffer posted already, or beyond its length";
	/* abi.h:482-488 srpt_os_cmd_post: transfers, a response, or both. */
	if (!p->now && !p->kept_len && !p->rsp_len)
		return "post of nothing";
	/* abi.h:441-447 srpt_os_cmd_rdma_map: READs of write data complete before a response. */
	if ((p->now || p->kept_len) && p->rsp_len && c->dir == SRPT_DATA_OUT)
		return "post of write data with a response";
	/* abi.h:401-403 srpt_os_cmd_alloc: a response fits its buffer of @rsp_size. */
	if (p->rsp_len > p->rsp_size)
		return "post of a response larger than its buffer";
	/* abi.h:485-488 srpt_os_cmd_post: one post at a time, until it completes. */
	if (w.rdma || w.sends)
		return "post while the command's last post is outstanding";
	return (const char *)0;
}

/* The commands' posts take @used send WRs (this one's included) of a QP of @p. */
static inline const char *srpt_contract_post_wrs(const struct srpt_qp_params *p,
						 unsigned long long used)
{
	/* abi.h:308 max_rdma_ctxs: the commands' share of the send queue. */
	return used > p->max_rdma_ctxs ? "post overflows the commands' share of the send queue" :
					 (const char *)0;
}

/* A response of @len bytes at @rsp, as srpt_os_cmd_post() sends it. */
static inline const char *srpt_contract_rsp(const unsigned char *rsp, unsigned int len)
{
	unsigned int sense;

	/* An SRP_RSP (0xc1) with SNSVALID: its SENSE DATA LIST LENGTH at 28. */
	if (len < 36 || rsp[0] != 0xc1 || !(rsp[18] & 0x02))
		return (const char *)0;
	sense = (unsigned int)rsp[28] << 24 | (unsigned int)rsp[29] << 16 |
		(unsigned int)rsp[30] << 8 | rsp[31];
	/* abi.h:394-399 SRPT_SENSE_SIZE: LIO's sense data is at most this. */
	return sense > SRPT_SENSE_SIZE ? "a response with more sense data than SRPT_SENSE_SIZE" :
					 (const char *)0;
}

#endif /* SRPT_TESTS_CONTRACT_H */
