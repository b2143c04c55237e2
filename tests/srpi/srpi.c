// SPDX-License-Identifier: GPL-2.0-only
/*
 * srpi: a raw SRP initiator for the target's tests, over librdmacm and
 * libibverbs. It does what the kernel's ib_srp never does: exact and
 * hostile requests (short reads into large descriptors, IUs longer than
 * the target allows, verified I/O with mixed descriptor forms).
 *
 * Login is RDMA/CM only: SRP_LOGIN_REQ in the CM REQ's private data (the
 * 56-byte struct srp_login_req_rdma), SRP_LOGIN_RSP in the accept's and
 * SRP_LOGIN_REJ in the reject's. IUs go as SENDs; the target RDMA-writes
 * read data into, and RDMA-reads write data from, buffers registered here.
 * Every IU is built with explicit big-endian byte writes (field offsets
 * as in include/srpt/srp.h), never by casting structs.
 *
 * Every check prints one line "ok ..." or "FAIL ..."; errors go to stderr
 * as "error: ...". The exit status is non-zero on any FAIL or error.
 * Every wait is bounded by --timeout.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <netdb.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <infiniband/verbs.h>
#include <rdma/rdma_cma.h>

/* SRP opcodes (byte 0 of every IU). */
#define SRP_LOGIN_REQ		0x00
#define SRP_CMD			0x02
#define SRP_T_LOGOUT		0x80
#define SRP_LOGIN_RSP		0xc0
#define SRP_RSP			0xc1
#define SRP_LOGIN_REJ		0xc2

/* Login: REQ_BUF_FMT, REQ_FLAGS and RSP_FLAGS bits. */
#define BUF_FMT_DIRECT		0x0002
#define BUF_FMT_INDIRECT	0x0004
#define MULTICHAN_MULTI		0x01
#define IMMED_REQUESTED		0x80

/* SRP_CMD (48 bytes, then the data buffer descriptors). */
#define CMD_SIZE		48
#define CMD_BUF_FMT		5
#define CMD_DOUT_CNT		6
#define CMD_DIN_CNT		7
#define CMD_TAG			8
#define CMD_LUN			20
#define CMD_CDB			32
#define DD_SIZE			16	/* direct descriptor: va, key, len */
#define ID_HDR_SIZE		20	/* indirect: table descriptor, total */

/* SRP_RSP (36 bytes, then response data, then sense data). */
#define RSP_SIZE		36
#define RSP_REQ_LIM		4
#define RSP_TAG			8
#define RSP_FLAGS		18	/* SNSVALID 0x02, DO/DI OVER/UNDER 0x3c */
#define RSP_STATUS		19
#define RSP_DOUT_RES		20
#define RSP_DIN_RES		24
#define RSP_SENSE_LEN		28
#define RSP_RESP_LEN		32
#define RSP_FL_DOUNDER		0x08
#define RSP_FL_DIUNDER		0x20
#define RSP_FL_RESIDUALS	0x3c

/* SCSI status and sense. */
#define ST_GOOD			0x00
#define ST_CHECK		0x02
#define ST_BUSY			0x08
#define ST_TASK_SET_FULL	0x28
#define SK_ILLEGAL_REQUEST	0x5
#define SK_UNIT_ATTENTION	0x6
#define SK_MISCOMPARE		0xe
#define SENSE_MAX		252	/* SPC: 8 bytes and an additional length */

#define MAX_CONNS		1024
#define MAX_SEGS		8
#define SEG_UNIT		512	/* io: descriptor lengths are multiples */
#define MIB			(1024 * 1024)
#define FILL_B			0xb5	/* short-read: the buffer before a read */
#define PAGE_BYTES		4096	/* short-read: a buffer of one page */

#define WR_SEND			(1ull << 32)	/* wr_id: kind | ring index */
#define ARRAY_SIZE(a)		(sizeof(a) / sizeof((a)[0]))

enum dir { DIR_NONE, DIR_OUT, DIR_IN };

/* One piece of a command's data buffer, in transfer order. */
struct seg {
	size_t off;		/* in the command's data buffer */
	size_t loff;		/* in the transfer */
	uint32_t len;
};

struct cmd {
	struct conn *c;
	unsigned int idx;
	uint64_t tag;
	bool active;		/* posted; sent and answered say how far */
	bool sent;
	bool answered;
	bool retry;		/* io: BUSY or TASK SET FULL, post again */
	uint8_t *iu;
	uint32_t iu_len;
	uint8_t *data;		/* this command's part of the data MR */
	/* From the SRP_RSP. */
	uint8_t status, flags, sense_key, asc, ascq;
	uint32_t di_res, do_res;
	uint8_t sense[SENSE_MAX];	/* the first sense_len bytes of it */
	uint32_t sense_len;
	/* io: what the command does. */
	bool write;
	uint64_t lba;
	uint32_t nb, gen;
	struct seg segs[MAX_SEGS];
	int nsegs;
};

enum conn_state {
	C_RESOLVING,		/* address and route */
	C_CONNECTING,		/* REQ sent */
	C_LIVE,			/* logged in */
	C_REJECTED,
	C_FAILED,		/* never logged in */
	C_DISCONNECTED,
};

struct conn {
	int no;
	enum conn_state state;
	bool closing;		/* we asked for the disconnect */
	char err[256];		/* the first error; empty while healthy */
	uint32_t rej_reason;
	int wc_status;		/* first failed completion, -1 if none */
	struct rdma_cm_id *id;
	struct ibv_pd *pd;
	struct ibv_comp_channel *cch;
	struct ibv_cq *cq;
	int max_rd_atom;
	uint8_t i_port_id[16];
	/* The login response. */
	uint32_t max_it_iu_len, max_ti_iu_len, req_lim_delta;
	uint8_t rsp_flags;
	int credits;		/* IUs we may still send (REQ_LIM_DELTA sum) */
	/* Rings: nslots commands, each with its send IU and data buffer. */
	unsigned int nslots, nrecv, outstanding;
	size_t send_len, recv_len, data_len;
	uint8_t *send_buf, *recv_buf, *data_buf;
	struct ibv_mr *send_mr, *recv_mr, *data_mr;
	struct cmd *cmds;
	uint64_t tag_seq, rng;
	/* io: this connection's region of the LUN. */
	uint64_t base, nblocks;
	uint32_t *gen;		/* per block; 0: contents unknown */
	uint8_t *busy;		/* per block: a command has it */
	uint8_t *scratch;
	uint32_t gen_seq;
	double last_done;
};

static struct {
	/* Options. */
	const char *dest;
	struct sockaddr_storage dst, src;
	bool have_src, have_ipid, have_expect_reject, keep_going;
	uint8_t i_port_id[16], t_port_id[16];
	unsigned int it_iu_len, expect_reject, bs_max, lun;
	double timeout, seconds;
	unsigned int count, conns, batch, extra, qd;
	/* State. */
	struct rdma_event_channel *ech;
	struct conn *conn[MAX_CONNS];
	unsigned int nconn;
	uint32_t bs;		/* the LUN's block size */
	uint64_t lun_blocks;
	int failures;
	unsigned int timeouts;	/* waits that ran out: a hung target */
} g = {
	.it_iu_len = 8260,	/* ib_srp's default: 68 + 8 KiB immediate */
	.timeout = 30,
	.count = 1,
	.conns = 1,
	.qd = 8,
	.seconds = 10,
	.bs_max = MIB,
};

static volatile sig_atomic_t g_stop;

/* ---- output ---- */

/* One line of output; FAIL and error lines make the exit status 1. */
static void say(FILE *f, const char *prefix, const char *fmt, ...)
{
	va_list ap;

	fflush(stdout);
	va_start(ap, fmt);
	fputs(prefix, f);
	vfprintf(f, fmt, ap);
	fputc('\n', f);
	fflush(f);
	va_end(ap);
	g.failures += prefix[0] != 'o';
}

#define ok(...)		say(stdout, "ok ", __VA_ARGS__)
#define fail(...)	say(stdout, "FAIL ", __VA_ARGS__)
#define error(...)	say(stderr, "error: ", __VA_ARGS__)

/* The first error of a connection; it ends every wait on it. -EIO. */
static int conn_error(struct conn *c, const char *fmt, ...)
{
	va_list ap;

	if (!c->err[0]) {
		va_start(ap, fmt);
		vsnprintf(c->err, sizeof(c->err), fmt, ap);
		va_end(ap);
	}
	return -EIO;
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* ---- big-endian fields ---- */

static void put_be(uint8_t *p, unsigned int n, uint64_t v)
{
	for (; n; v >>= 8)
		p[--n] = v;
}

static uint64_t get_be(const uint8_t *p, unsigned int n)
{
	uint64_t v = 0;

	while (n--)
		v = v << 8 | *p++;
	return v;
}

/* xorshift64*: cheap, and good enough to spread sizes and LBAs. */
static uint64_t rnd(struct conn *c)
{
	c->rng ^= c->rng >> 12;
	c->rng ^= c->rng << 25;
	c->rng ^= c->rng >> 27;
	return c->rng * 0x2545f4914f6cdd1dull;
}

static void set_nonblock(int fd)
{
	fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
}

/* ---- login: the steps RDMA/CM events drive ---- */

/* The address is resolved, so the device is known: PD, CQ and QP. */
static int conn_setup_qp(struct conn *c)
{
	struct ibv_context *dev = c->id->verbs;
	struct ibv_qp_init_attr qa = { .qp_type = IBV_QPT_RC };
	struct ibv_device_attr da;
	union ibv_gid gid;

	if (ibv_query_device(dev, &da))
		return conn_error(c, "ibv_query_device: %s", strerror(errno));
	/* One send per command; one receive per response, and spares. */
	if (c->nslots + 8 > (unsigned int)da.max_qp_wr)
		c->nslots = da.max_qp_wr - 8;
	c->nrecv = c->nslots + 8;
	c->max_rd_atom = da.max_qp_rd_atom;
	c->pd = ibv_alloc_pd(dev);
	if (!c->pd)
		return conn_error(c, "ibv_alloc_pd: %s", strerror(errno));
	c->cch = ibv_create_comp_channel(dev);
	if (!c->cch)
		return conn_error(c, "ibv_create_comp_channel: %s", strerror(errno));
	set_nonblock(c->cch->fd);
	c->cq = ibv_create_cq(dev, c->nslots + c->nrecv, c, c->cch, 0);
	if (!c->cq)
		return conn_error(c, "ibv_create_cq: %s", strerror(errno));
	ibv_req_notify_cq(c->cq, 0);
	qa.send_cq = qa.recv_cq = c->cq;
	qa.cap.max_send_wr = c->nslots;
	qa.cap.max_recv_wr = c->nrecv;
	qa.cap.max_send_sge = qa.cap.max_recv_sge = 1;
	if (rdma_create_qp(c->id, c->pd, &qa))
		return conn_error(c, "rdma_create_qp: %s", strerror(errno));
	/* By default the initiator port id is the port's GID (index 0). */
	if (!g.have_ipid && ibv_query_gid(dev, c->id->port_num, 0, &gid))
		return conn_error(c, "ibv_query_gid: %s", strerror(errno));
	memcpy(c->i_port_id, g.have_ipid ? g.i_port_id : gid.raw, 16);
	if (rdma_resolve_route(c->id, 5000))
		return conn_error(c, "rdma_resolve_route: %s", strerror(errno));
	return 0;
}

/*
 * The route is resolved: send SRP_LOGIN_REQ with the CM REQ, in the
 * RDMA/CM form (struct srp_login_req_rdma, 56 bytes).
 */
static int conn_connect(struct conn *c)
{
	uint8_t req[56] = { 0 };
	struct rdma_conn_param cp = {
		.private_data = req,
		.private_data_len = sizeof(req),
		/* The target RDMA-reads write data: let it keep many going. */
		.responder_resources = c->max_rd_atom > 255 ? 255 : c->max_rd_atom,
		.flow_control = 1,
		.retry_count = 7,
		.rnr_retry_count = 7,
	};

	put_be(req, 8, c->no);				/* tag */
	put_be(req + 8, 2, BUF_FMT_DIRECT | BUF_FMT_INDIRECT);
	/* req_flags: channels in parallel need MULTI, SINGLE ends the others. */
	req[10] = (g.conns > 1 ? MULTICHAN_MULTI : 0) | IMMED_REQUESTED;
	req[11] = SRP_LOGIN_REQ;
	put_be(req + 12, 4, g.it_iu_len);		/* req_it_iu_len */
	memcpy(req + 16, c->i_port_id, 16);
	memcpy(req + 32, g.t_port_id, 16);
	put_be(req + 48, 2, 68);	/* imm_data_offset: ib_srp's, 48 + 16 + 4 */
	if (rdma_connect(c->id, &cp))
		return conn_error(c, "rdma_connect: %s", strerror(errno));
	c->state = C_CONNECTING;
	return 0;
}

/*
 * A page more is registered than is ever used: 6.1's rxe, copying an RDMA
 * WRITE that ends exactly at the end of an MR of 256 pages (or a multiple),
 * reads one map pointer past its array (KASAN: slab-out-of-bounds in
 * rxe_mr_copy), which the debug tier would blame on the target.
 */
static void *alloc_reg(struct conn *c, size_t len, struct ibv_mr **mr, int access)
{
	void *p;

	len = ((len + 4095) & ~(size_t)4095) + 4096;
	if (posix_memalign(&p, 4096, len)) {
		conn_error(c, "out of memory (%zu bytes)", len);
		return NULL;
	}
	memset(p, 0, len);
	*mr = ibv_reg_mr(c->pd, p, len, access);
	if (!*mr) {
		conn_error(c, "ibv_reg_mr of %zu bytes: %s", len, strerror(errno));
		free(p);
		return NULL;
	}
	return p;
}

static void post_recv(struct conn *c, unsigned int i)
{
	struct ibv_sge sge = {
		.addr = (uintptr_t)(c->recv_buf + i * c->recv_len),
		.length = c->recv_len,
		.lkey = c->recv_mr->lkey,
	};
	struct ibv_recv_wr wr = { .wr_id = i, .sg_list = &sge, .num_sge = 1 };
	struct ibv_recv_wr *bad;

	if (ibv_post_recv(c->id->qp, &wr, &bad))
		conn_error(c, "ibv_post_recv: %s", strerror(errno));
}

/* The buffers depend on the IU lengths of the login response. */
static int conn_alloc_bufs(struct conn *c)
{
	int rw = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_READ | IBV_ACCESS_REMOTE_WRITE;
	unsigned int i;

	c->send_len = (c->max_it_iu_len + g.extra + 255) & ~(size_t)255;
	c->recv_len = c->max_ti_iu_len;
	c->cmds = calloc(c->nslots, sizeof(*c->cmds));
	if (!c->cmds)
		return conn_error(c, "out of memory");
	/* Remote read: an indirect table descriptor names the IU itself. */
	c->send_buf = alloc_reg(c, c->nslots * c->send_len, &c->send_mr,
				IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_READ);
	c->recv_buf = alloc_reg(c, c->nrecv * c->recv_len, &c->recv_mr, IBV_ACCESS_LOCAL_WRITE);
	c->data_buf = alloc_reg(c, c->nslots * c->data_len, &c->data_mr, rw);
	if (c->err[0])
		return -EIO;
	for (i = 0; i < c->nslots; i++) {
		c->cmds[i].c = c;
		c->cmds[i].idx = i;
		c->cmds[i].iu = c->send_buf + i * c->send_len;
		c->cmds[i].data = c->data_buf + i * c->data_len;
	}
	for (i = 0; i < c->nrecv && !c->err[0]; i++)
		post_recv(c, i);
	return 0;
}

static int conn_established(struct conn *c, const uint8_t *p, size_t len)
{
	/* Connected either way: a failure from here on needs a disconnect. */
	c->state = C_LIVE;
	if (!p || len < 52 || p[0] != SRP_LOGIN_RSP)
		return conn_error(c, "RDMA_CM_EVENT_ESTABLISHED without SRP_LOGIN_RSP");
	/* SRP_LOGIN_RSP: the fields we use. */
	c->req_lim_delta = get_be(p + 4, 4);
	c->max_it_iu_len = get_be(p + 16, 4);
	c->max_ti_iu_len = get_be(p + 20, 4);
	c->rsp_flags = p[26];
	c->credits = c->req_lim_delta;
	if (c->max_it_iu_len < CMD_SIZE || c->max_ti_iu_len < RSP_SIZE)
		return conn_error(c, "SRP_LOGIN_RSP with max_it_iu_len %u, max_ti_iu_len %u",
				  c->max_it_iu_len, c->max_ti_iu_len);
	return conn_alloc_bufs(c);
}

static const char *reject_reason_str(uint32_t r)
{
	static const char *const s[] = {
		"unable to establish RDMA channel", "insufficient resources",
		"requested max it IU length too large", "unable to associate channel",
		"unsupported descriptor format", "multichannel unsupported",
		"channel limit reached",
	};

	return r >= 0x10000 && r - 0x10000 < 7 ? s[r - 0x10000] : "unknown reason";
}

static void conn_rejected(struct conn *c, struct rdma_cm_event *ev)
{
	const uint8_t *p = ev->param.conn.private_data;

	c->state = C_REJECTED;
	if (!p || ev->param.conn.private_data_len < 8 || p[0] != SRP_LOGIN_REJ) {
		/* Not the target's: e.g. 8, invalid service id (no listener). */
		conn_error(c, "RDMA_CM_EVENT_REJECTED (CM reject reason %d), without SRP_LOGIN_REJ",
			   ev->status);
		return;
	}
	c->rej_reason = get_be(p + 4, 4);
	conn_error(c, "RDMA_CM_EVENT_REJECTED (CM reject reason %d): SRP_LOGIN_REJ reason 0x%08x (%s)",
		   ev->status, c->rej_reason, reject_reason_str(c->rej_reason));
}

static void cm_event(struct conn *c, struct rdma_cm_event *ev)
{
	switch (ev->event) {
	case RDMA_CM_EVENT_ADDR_RESOLVED:
	case RDMA_CM_EVENT_ROUTE_RESOLVED:
		if (c->closing)		/* close_all() overtook this login */
			conn_error(c, "closed before the login");
		else if (ev->event == RDMA_CM_EVENT_ADDR_RESOLVED)
			conn_setup_qp(c);
		else
			conn_connect(c);
		break;
	case RDMA_CM_EVENT_ESTABLISHED:
		conn_established(c, ev->param.conn.private_data, ev->param.conn.private_data_len);
		if (c->closing && rdma_disconnect(c->id))
			c->state = C_DISCONNECTED;
		break;
	case RDMA_CM_EVENT_REJECTED:
		conn_rejected(c, ev);
		break;
	case RDMA_CM_EVENT_DISCONNECTED:
		if (c->state == C_LIVE && !c->closing)
			conn_error(c, "RDMA_CM_EVENT_DISCONNECTED: the target disconnected");
		c->state = C_DISCONNECTED;
		break;
	case RDMA_CM_EVENT_TIMEWAIT_EXIT:
		break;
	default:
		conn_error(c, "%s (status %d)", rdma_event_str(ev->event), ev->status);
		if (c->state == C_LIVE)
			c->state = C_DISCONNECTED;
		break;
	}
	if (c->err[0] && c->state < C_LIVE)
		c->state = C_FAILED;
}

/* ---- completions ---- */

static void handle_rsp(struct conn *c, const uint8_t *p, uint32_t len)
{
	uint64_t tag = get_be(p + RSP_TAG, 8);
	unsigned int idx = tag & 0xffff;
	uint32_t sense_len = get_be(p + RSP_SENSE_LEN, 4), resp_len = get_be(p + RSP_RESP_LEN, 4);
	const uint8_t *s;
	struct cmd *cmd = idx < c->nslots ? &c->cmds[idx] : NULL;

	c->credits += (int32_t)get_be(p + RSP_REQ_LIM, 4);
	if (!cmd || cmd->tag != tag || !cmd->active || cmd->answered) {
		conn_error(c, "SRP_RSP with unknown tag 0x%016" PRIx64, tag);
		return;
	}
	cmd->flags = p[RSP_FLAGS];
	cmd->status = p[RSP_STATUS];
	cmd->do_res = get_be(p + RSP_DOUT_RES, 4);
	cmd->di_res = get_be(p + RSP_DIN_RES, 4);
	cmd->sense_key = cmd->asc = cmd->ascq = 0;
	cmd->sense_len = 0;
	if ((cmd->flags & 0x02) && sense_len >= 14 &&	/* SNSVALID */
	    (uint64_t)RSP_SIZE + resp_len + sense_len <= len) {
		bool desc_fmt;

		s = p + RSP_SIZE + resp_len;
		cmd->sense_len = sense_len < SENSE_MAX ? sense_len : SENSE_MAX;
		memcpy(cmd->sense, s, cmd->sense_len);
		desc_fmt = (s[0] & 0x7f) >= 0x72;
		cmd->sense_key = s[desc_fmt ? 1 : 2] & 0xf;
		cmd->asc = s[desc_fmt ? 2 : 12];
		cmd->ascq = s[desc_fmt ? 3 : 13];
	}
	cmd->answered = true;
}

static void handle_wc(struct conn *c, const struct ibv_wc *wc)
{
	unsigned int i = (uint32_t)wc->wr_id;
	bool send = wc->wr_id & WR_SEND;
	const uint8_t *p;

	if (wc->status != IBV_WC_SUCCESS) {
		/* Flushes follow the first error, or our own disconnect. */
		if (c->wc_status < 0 || c->wc_status == IBV_WC_WR_FLUSH_ERR)
			c->wc_status = wc->status;
		if (!c->closing)
			conn_error(c, "%s completion: %s", send ? "send" : "receive",
				   ibv_wc_status_str(wc->status));
		if (send)
			c->cmds[i].sent = true;
		return;
	}
	if (send) {
		c->cmds[i].sent = true;
		return;
	}
	p = c->recv_buf + i * c->recv_len;
	if (wc->byte_len < RSP_SIZE)
		conn_error(c, "a %u-byte IU", wc->byte_len);
	else if (p[0] == SRP_RSP)
		handle_rsp(c, p, wc->byte_len);
	else if (p[0] == SRP_T_LOGOUT)
		conn_error(c, "SRP_T_LOGOUT, reason 0x%08x", (uint32_t)get_be(p + 4, 4));
	else
		conn_error(c, "unexpected IU, opcode 0x%02x", p[0]);
	if (!c->closing)
		post_recv(c, i);
}

static void cq_drain(struct conn *c)
{
	struct ibv_wc wc[16];
	struct ibv_cq *cq;
	void *ctx;
	int i, n;

	if (!c->cq)
		return;
	/* Ack each event at once: ibv_destroy_cq waits for the acks. */
	while (!ibv_get_cq_event(c->cch, &cq, &ctx))
		ibv_ack_cq_events(cq, 1);
	ibv_req_notify_cq(c->cq, 0);
	while ((n = ibv_poll_cq(c->cq, 16, wc)) > 0) {
		for (i = 0; i < n; i++)
			handle_wc(c, &wc[i]);
	}
}

/* ---- the event loop ---- */

/* One round: sleep until a CM or CQ event or MS, then handle them all. */
static void poll_once(int ms)
{
	struct pollfd fds[1 + MAX_CONNS];
	struct rdma_cm_event *ev;
	unsigned int i, n = 0;

	fds[n++] = (struct pollfd){ .fd = g.ech->fd, .events = POLLIN };
	for (i = 0; i < g.nconn; i++) {
		if (g.conn[i]->cch)
			fds[n++] = (struct pollfd){ .fd = g.conn[i]->cch->fd, .events = POLLIN };
	}
	if (poll(fds, n, ms) < 0 && errno != EINTR)
		error("poll: %s", strerror(errno));
	/* The fds are non-blocking: these drain what is there. */
	while (!rdma_get_cm_event(g.ech, &ev)) {
		cm_event(ev->id->context, ev);
		rdma_ack_cm_event(ev);
	}
	for (i = 0; i < g.nconn; i++)
		cq_drain(g.conn[i]);
}

/*
 * Run the loop until DONE(ARG), at most SECS: 0, or -ETIMEDOUT, or
 * -EINTR once SIGINT/SIGTERM came (only if STOPPABLE: a teardown must
 * finish even then).
 */
static int wait_for(bool (*done)(void *), void *arg, double secs, bool stoppable)
{
	double end = now() + secs, left;

	while (!done(arg)) {
		if (stoppable && g_stop)
			return -EINTR;
		left = end - now();
		if (left <= 0)
			return -ETIMEDOUT;
		poll_once(left < 0.2 ? (int)(left * 1000) + 1 : 200);
	}
	return 0;
}

/* wait_for with the timeout, and an error that names WHAT. */
static int wait_or_error(bool (*done)(void *), void *arg, const char *what)
{
	int ret = wait_for(done, arg, g.timeout, true);

	if (ret == -ETIMEDOUT) {
		g.timeouts++;
		error("timed out after %gs waiting for %s", g.timeout, what);
	}
	else if (ret)
		error("interrupted while waiting for %s", what);
	return ret;
}

/* ---- connections ---- */

/* A connection with NSLOTS commands of DATA_LEN bytes each; starts login. */
static struct conn *conn_new(unsigned int nslots, size_t data_len)
{
	struct conn *c = calloc(1, sizeof(*c));

	if (!c || g.nconn == MAX_CONNS) {
		free(c);
		error("out of memory or more than %d connections", MAX_CONNS);
		return NULL;
	}
	c->no = g.nconn;
	c->nslots = nslots;
	c->data_len = data_len < 4096 ? 4096 : (data_len + 4095) & ~(size_t)4095;
	c->wc_status = -1;
	c->rng = 0x9e3779b97f4a7c15ull ^ (uint64_t)getpid() << 20 ^ (uint64_t)c->no << 40 ^
		 (uint64_t)(now() * 1e6);
	g.conn[g.nconn++] = c;
	if (rdma_create_id(g.ech, &c->id, c, RDMA_PS_TCP)) {
		c->id = NULL;
		conn_error(c, "rdma_create_id: %s", strerror(errno));
	} else if (rdma_resolve_addr(c->id, g.have_src ? (struct sockaddr *)&g.src : NULL,
				     (struct sockaddr *)&g.dst, 5000)) {
		conn_error(c, "rdma_resolve_addr %s: %s", g.dest, strerror(errno));
	}
	if (c->err[0])
		c->state = C_FAILED;
	return c;
}

static void conn_free(struct conn *c)
{
	unsigned int i;

	/* The QP goes first: nothing may reach the buffers afterwards. */
	if (c->id && c->id->qp)
		rdma_destroy_qp(c->id);
	if (c->send_mr)
		ibv_dereg_mr(c->send_mr);
	if (c->recv_mr)
		ibv_dereg_mr(c->recv_mr);
	if (c->data_mr)
		ibv_dereg_mr(c->data_mr);
	if (c->cq)
		ibv_destroy_cq(c->cq);
	if (c->cch)
		ibv_destroy_comp_channel(c->cch);
	if (c->pd)
		ibv_dealloc_pd(c->pd);
	if (c->id)
		rdma_destroy_id(c->id);
	free(c->send_buf);
	free(c->recv_buf);
	free(c->data_buf);
	free(c->cmds);
	free(c->gen);
	free(c->busy);
	free(c->scratch);
	for (i = 0; i < g.nconn; i++) {
		if (g.conn[i] == c)
			g.conn[i] = g.conn[--g.nconn];
	}
	free(c);
}

/* For wait_for: no connection is in a state of the mask *ARG. */
static bool none_in(void *arg)
{
	unsigned int i, mask = *(unsigned int *)arg;

	for (i = 0; i < g.nconn; i++) {
		if (mask & 1u << g.conn[i]->state)
			return false;
	}
	return true;
}

/*
 * Log N connections in at once (--batch: that many at a time, each batch
 * once the one before has settled); 0 if all logged in, each failure
 * printed. The connections stay in g.conn either way, for close_all().
 */
static int login_all(unsigned int n, unsigned int nslots, size_t data_len)
{
	unsigned int i, pending = 1u << C_RESOLVING | 1u << C_CONNECTING;
	int ret = 0;

	for (i = 0; i < n; i++) {
		if (!conn_new(nslots, data_len))
			return -ENOMEM;
		if (i + 1 < n && (!g.batch || (i + 1) % g.batch))
			continue;
		if (wait_for(none_in, &pending, g.timeout, true)) {
			g.timeouts += !g_stop;
			for (i = 0; i < g.nconn; i++)
				ret += g.conn[i]->state == C_LIVE;
			error("%s after %gs: %d of %u connections logged in",
			      g_stop ? "interrupted" : "timed out", g.timeout, ret, g.nconn);
			return -ETIMEDOUT;
		}
	}
	for (i = 0; i < g.nconn; i++) {
		struct conn *c = g.conn[i];

		if (c->state == C_LIVE && !c->err[0])
			continue;
		ret = -EIO;
		if (!g.have_expect_reject)
			error("connection %d: login failed: %s", c->no, c->err);
	}
	return ret;
}

/* Disconnect every connection, wait for the CM to confirm, free them. */
static int close_all(void)
{
	unsigned int i, busy = 1u << C_RESOLVING | 1u << C_CONNECTING | 1u << C_LIVE;
	int ret;

	for (i = 0; i < g.nconn; i++) {
		struct conn *c = g.conn[i];

		c->closing = true;
		if (c->state == C_LIVE && rdma_disconnect(c->id))
			c->state = C_DISCONNECTED;
	}
	/* Logins under way end as failed, rejected or disconnected (cm_event). */
	ret = wait_for(none_in, &busy, g.timeout, false);
	if (ret) {
		g.timeouts++;
		error("timed out after %gs waiting for the connections to close", g.timeout);
	}
	while (g.nconn)
		conn_free(g.conn[g.nconn - 1]);
	return ret;
}

/* ---- commands ---- */

static bool cmd_done(void *arg)
{
	struct cmd *cmd = arg;

	return (cmd->sent && cmd->answered) || cmd->c->err[0];
}

static bool has_credit(void *arg)
{
	struct conn *c = arg;

	return c->credits > 0 || c->err[0];
}

/* Post CMD's IU (again, for a retry) under a fresh tag; takes a credit. */
static int cmd_post(struct cmd *cmd)
{
	struct conn *c = cmd->c;
	struct ibv_sge sge = {
		.addr = (uintptr_t)cmd->iu,
		.length = cmd->iu_len,
		.lkey = c->send_mr->lkey,
	};
	struct ibv_send_wr wr = {
		.wr_id = WR_SEND | cmd->idx,
		.sg_list = &sge,
		.num_sge = 1,
		.opcode = IBV_WR_SEND,
		.send_flags = IBV_SEND_SIGNALED,
	};
	struct ibv_send_wr *bad;

	if (c->err[0] || c->state != C_LIVE)
		return -EIO;
	if (c->credits <= 0)
		return -EAGAIN;
	cmd->tag = ++c->tag_seq << 16 | cmd->idx;
	put_be(cmd->iu + CMD_TAG, 8, cmd->tag);
	if (ibv_post_send(c->id->qp, &wr, &bad))
		return conn_error(c, "ibv_post_send: %s", strerror(errno));
	c->credits--;
	if (!cmd->active)
		c->outstanding++;
	cmd->active = true;
	cmd->sent = cmd->answered = cmd->retry = false;
	return 0;
}

/* The command's response (and send completion) is in: free its slot. */
static void cmd_finish(struct cmd *cmd)
{
	if (cmd->active)
		cmd->c->outstanding--;
	cmd->active = false;
}

/*
 * Build an SRP_CMD in CMD's IU: the CDB and, for DIR, a data buffer of
 * SEGS (pieces of the command's data buffer) as one direct descriptor or
 * an indirect table inside the IU. PAD_TO: make the IU that long (zeros),
 * even beyond max_it_iu_len.
 */
static int cmd_build(struct cmd *cmd, const uint8_t *cdb, enum dir dir,
		     const struct seg *segs, int nsegs, bool indirect, uint32_t pad_to)
{
	struct conn *c = cmd->c;
	uint8_t *iu = cmd->iu, *d = iu + CMD_SIZE;
	uint32_t len = CMD_SIZE, total = 0;
	int i;

	memset(iu, 0, c->send_len);
	iu[0] = SRP_CMD;
	/* SAM LUN: peripheral addressing below 256, flat space above. */
	iu[CMD_LUN] = g.lun < 256 ? 0 : 0x40 | ((g.lun >> 8) & 0x3f);
	iu[CMD_LUN + 1] = g.lun & 0xff;
	memcpy(iu + CMD_CDB, cdb, 16);
	if (dir != DIR_NONE) {
		iu[CMD_BUF_FMT] = indirect ? 2 : 1;	/* indirect or direct */
		if (dir == DIR_OUT)
			iu[CMD_BUF_FMT] <<= 4;
	}
	if (dir != DIR_NONE && indirect) {
		iu[dir == DIR_OUT ? CMD_DOUT_CNT : CMD_DIN_CNT] = nsegs;
		/* The table descriptor names the table in this very IU. */
		put_be(d, 8, (uintptr_t)(d + ID_HDR_SIZE));
		put_be(d + 8, 4, c->send_mr->rkey);
		put_be(d + 12, 4, nsegs * DD_SIZE);
		d += ID_HDR_SIZE;
		len += ID_HDR_SIZE;
	}
	for (i = 0; dir != DIR_NONE && i < nsegs; i++, d += DD_SIZE) {
		put_be(d, 8, (uintptr_t)(cmd->data + segs[i].off));
		put_be(d + 8, 4, c->data_mr->rkey);
		put_be(d + 12, 4, segs[i].len);
		total += segs[i].len;
		len += DD_SIZE;
	}
	if (dir != DIR_NONE && indirect)
		put_be(iu + CMD_SIZE + 16, 4, total);
	if (pad_to > len)
		len = pad_to;
	if (len > c->send_len || (len > c->max_it_iu_len && !pad_to)) {
		error("an IU of %u bytes, but max_it_iu_len %u", len, c->max_it_iu_len);
		return -EINVAL;
	}
	cmd->iu_len = len;
	cmd->nsegs = dir == DIR_NONE ? 0 : nsegs;
	if (cmd->nsegs)
		memcpy(cmd->segs, segs, cmd->nsegs * sizeof(*segs));
	return 0;
}

/*
 * Run one command built by cmd_build to its response, retrying BUSY,
 * TASK SET FULL and UNIT ATTENTION a few times. 0 when a response came
 * (cmd->status says which); an error printed otherwise.
 */
static int cmd_run(struct cmd *cmd, const char *what)
{
	struct conn *c = cmd->c;
	int tries, ret;

	for (tries = 0; tries < 10; tries++) {
		if (wait_or_error(has_credit, c, "a request credit"))
			return -ETIMEDOUT;
		ret = cmd_post(cmd);
		if (!ret && wait_or_error(cmd_done, cmd, what))
			ret = -ETIMEDOUT;
		cmd_finish(cmd);
		if (ret == -ETIMEDOUT)
			return ret;
		if (ret || c->err[0]) {
			error("connection %d: %s: %s", c->no, what, c->err[0] ? c->err : "not sent");
			return -EIO;
		}
		if (cmd->status != ST_BUSY && cmd->status != ST_TASK_SET_FULL &&
		    (cmd->status != ST_CHECK || cmd->sense_key != SK_UNIT_ATTENTION))
			break;
	}
	return 0;
}

/* Build and run a command with one direct descriptor of LEN bytes. */
static int cmd_run_direct(struct cmd *cmd, const uint8_t *cdb, enum dir dir, uint32_t len,
			  const char *what)
{
	struct seg s = { .len = len };

	if (cmd_build(cmd, cdb, dir, &s, 1, false, 0))
		return -EINVAL;
	return cmd_run(cmd, what);
}

static void cdb_rw10(uint8_t *cdb, bool write, uint32_t lba, uint16_t nb)
{
	memset(cdb, 0, 16);
	cdb[0] = write ? 0x2a : 0x28;
	put_be(cdb + 2, 4, lba);
	put_be(cdb + 7, 2, nb);
}

static const char *status_str(const struct cmd *cmd)
{
	static char s[64];

	if (cmd->status == ST_GOOD)
		return "GOOD";
	if (cmd->status == ST_CHECK)
		snprintf(s, sizeof(s), "CHECK CONDITION %x/%02x/%02x", cmd->sense_key, cmd->asc,
			 cmd->ascq);
	else
		snprintf(s, sizeof(s), "status 0x%02x", cmd->status);
	return s;
}

/* READ CAPACITY(10): sets g.bs and g.lun_blocks. */
static int read_capacity(struct conn *c)
{
	struct cmd *cmd = &c->cmds[0];
	uint8_t cdb[16] = { 0x25 };

	if (cmd_run_direct(cmd, cdb, DIR_IN, 8, "READ CAPACITY(10)"))
		return -EIO;
	g.lun_blocks = (uint64_t)get_be(cmd->data, 4) + 1;
	g.bs = get_be(cmd->data + 4, 4);
	if (cmd->status != ST_GOOD || g.bs < 512 || g.bs > MIB || (g.bs & (g.bs - 1))) {
		fail("READ CAPACITY(10): %s, block size %u", status_str(cmd), g.bs);
		return -EIO;
	}
	return 0;
}

/* ---- login ---- */

static void do_login(void)
{
	int ret = login_all(1, 1, 0);
	struct conn *c = g.conn[0];

	if (!c)
		return;
	if (g.have_expect_reject) {
		if (c->state == C_REJECTED && c->rej_reason == g.expect_reject)
			ok("login rejected as expected: %s", c->err);
		else
			fail("login: %s; expected SRP_LOGIN_REJ reason 0x%08x",
			     c->err[0] ? c->err : c->state == C_LIVE ? "accepted" : "no answer",
			     g.expect_reject);
	} else if (!ret) {
		ok("login to %s: max_it_iu_len %u, max_ti_iu_len %u, req_lim_delta %u, rsp_flags 0x%02x (multichannel %u%s)",
		   g.dest, c->max_it_iu_len, c->max_ti_iu_len, c->req_lim_delta, c->rsp_flags,
		   c->rsp_flags & 3, c->rsp_flags & 0x80 ? ", immediate data" : "");
	}
	if (!close_all() && !ret && !g.have_expect_reject)
		ok("logout");
}

/* ---- cycles ---- */

static int tur(struct conn *c)
{
	struct cmd *cmd = &c->cmds[0];
	uint8_t cdb[16] = { 0 };

	if (cmd_build(cmd, cdb, DIR_NONE, NULL, 0, false, 0) || cmd_run(cmd, "TEST UNIT READY"))
		return -EIO;
	if (cmd->status == ST_GOOD)
		return 0;
	fail("connection %d: TEST UNIT READY: %s", c->no, status_str(cmd));
	return -EIO;
}

/*
 * With --keep-going a cycle may fail (the target rejects the login or
 * logs it out meanwhile, as when an administrator switches use_srq): what
 * counts then is that nothing hangs and some logins go through.
 */
static void do_cycles(void)
{
	unsigned int n, i, logins = 0, failed = 0;
	double t0 = now();
	int ret = 0;

	for (n = 0; n < g.count && (!ret || g.keep_going) && !g_stop; n++) {
		ret = login_all(g.conns, 1, 0);
		for (i = 0; i < g.nconn && !ret; i++)
			ret = tur(g.conn[i]);
		if (!ret)
			logins += g.nconn;
		if (close_all())
			ret = -EIO;
		failed += ret != 0;
	}
	if (g.keep_going) {
		if (g.timeouts || !logins) {
			fail("cycles: %u timeouts, %u logins with TEST UNIT READY in %u cycles",
			     g.timeouts, logins, n);
			return;
		}
		/* The failed cycles were reported as they happened; they are allowed. */
		g.failures = 0;
		ok("cycles: %u logins with TEST UNIT READY GOOD, %u of %u cycles refused or logged out, none hung, in %.1f s%s",
		   logins, failed, n, now() - t0, g_stop ? " (stopped by a signal)" : "");
		return;
	}
	if (ret || g_stop)
		fail("cycles: %u logins with TEST UNIT READY, then %s in cycle %u of %u", logins,
		     g_stop ? "a signal" : "a failure", n, g.count);
	else
		ok("cycles: %u logins (%u cycles of %u connections), each with TEST UNIT READY GOOD, in %.1f s",
		   logins, g.count, g.conns, now() - t0);
}

/* ---- short-read ---- */

/* Pattern A: never FILL_B; block k of 512 bytes is (j * 151 ^ k) & 0x7f. */
static uint8_t pattern_a(size_t i)
{
	return ((i * 151) ^ (i >> 9)) & 0x7f;
}

/* Some 512-byte block of pattern A (from any offset) is at P. */
static bool is_a_block(const uint8_t *p)
{
	size_t j;

	for (j = 0; j < 512; j++) {
		if (p[j] != (((j * 151) ^ p[0]) & 0x7f))
			return false;
	}
	return true;
}

/*
 * After a data-in command of XFER bytes into SEGS (covering TOTAL bytes)
 * of a buffer filled with FILL_B: how many of the transferred bytes differ from
 * pattern A, how many bytes past XFER changed, how many of those are zero,
 * and how many lie in 512-byte blocks of pattern A: data written earlier.
 */
static void count_bytes(const struct cmd *cmd, const struct seg *segs, int n, size_t total,
			size_t xfer, size_t *bad, size_t *changed, size_t *zero, size_t *old)
{
	static uint8_t t[MIB];	/* the transfer in logical order */
	size_t l;
	int i;

	for (i = 0; i < n; i++)
		memcpy(t + segs[i].loff, cmd->data + segs[i].off, segs[i].len);
	*bad = *changed = *zero = *old = 0;
	for (l = 0; l < total; l++) {
		if (l < xfer) {
			*bad += t[l] != pattern_a(l);
		} else if (t[l] != FILL_B) {
			++*changed;
			*zero += !t[l];
		}
	}
	for (l = (xfer + 511) & ~(size_t)511; l < total; l += 512)
		*old += is_a_block(t + l) ? 512 : 0;
}

/* A read of LEN bytes (one block, or INQUIRY's 36) into the buffer that SEGS cover. */
static int short_read_check(struct conn *c, const char *name, const uint8_t *cdb, size_t len,
			    const struct seg *segs, int n, bool indirect, bool check_a)
{
	struct cmd *cmd = &c->cmds[0];
	size_t bad, changed, zero, old, want_res, total = 0;
	int i;

	for (i = 0; i < n; i++)
		total += segs[i].len;
	want_res = total - len;

	memset(cmd->data, FILL_B, MIB);
	if (cmd_build(cmd, cdb, DIR_IN, segs, n, indirect, 0) || cmd_run(cmd, name))
		return -EIO;
	if (cmd->status == ST_GOOD && (cmd->flags & RSP_FL_DIUNDER) && cmd->di_res == want_res)
		ok("%s: status GOOD, DIUNDER, residual %u", name, cmd->di_res);
	else
		fail("%s: %s, flags 0x%02x, residual %u; expected GOOD, DIUNDER, residual %zu",
		     name, status_str(cmd), cmd->flags, cmd->di_res, want_res);
	count_bytes(cmd, segs, n, total, len, &bad, &changed, &zero, &old);
	if (check_a && bad)
		fail("%s: %zu of the %zu bytes read differ from the data written", name, bad, len);
	else if (check_a)
		ok("%s: the %zu bytes read are the data written", name, len);
	if (changed)
		fail("%s: %zu of %zu bytes past the %zu-byte transfer changed (%zu zero, %zu in 512-byte blocks of the data written before)",
		     name, changed, total - len, len, zero, old);
	else
		ok("%s: 0 of %zu bytes past the %zu-byte transfer changed", name, total - len, len);
	return 0;
}

/*
 * A write's residual: PERSISTENT RESERVE OUT, REGISTER with both keys
 * zero (from an I_T nexus that is not registered it changes nothing),
 * its 24-byte parameter list at the start of a 512-byte data-out
 * buffer. LIO takes a control CDB's underflow; depending on the kernel
 * it then answers GOOD or, taking the whole buffer for the list,
 * PARAMETER LIST LENGTH ERROR. Either way the response says DOUNDER,
 * and only that, with a residual of 488.
 */
static int short_write_check(struct conn *c)
{
	const uint32_t list_len = 24, buf_len = 512;
	struct cmd *cmd = &c->cmds[0];
	uint8_t cdb[16];

	memset(cdb, 0, 16);
	cdb[0] = 0x5f;
	put_be(cdb + 5, 4, list_len);
	memset(cmd->data, 0, buf_len);
	if (cmd_run_direct(cmd, cdb, DIR_OUT, buf_len, "short-write"))
		return -EIO;
	if ((cmd->status == ST_GOOD ||
	     (cmd->status == ST_CHECK && cmd->sense_key == SK_ILLEGAL_REQUEST)) &&
	    (cmd->flags & RSP_FL_RESIDUALS) == RSP_FL_DOUNDER &&
	    cmd->do_res == buf_len - list_len && !cmd->di_res)
		ok("short-write: %s, DOUNDER, residual %u", status_str(cmd), cmd->do_res);
	else
		fail("short-write: %s, flags 0x%02x, residuals %u out, %u in; expected DOUNDER alone, residual %u out",
		     status_str(cmd), cmd->flags, cmd->do_res, cmd->di_res, buf_len - list_len);
	return 0;
}

/* INQUIRY with an allocation length of 36. */
static void cdb_inquiry36(uint8_t *cdb)
{
	memset(cdb, 0, 16);
	cdb[0] = 0x12;
	put_be(cdb + 3, 2, 36);
}

/* READ(10)s LEN bytes at LBA 0 into a buffer of LEN: 0 if they are pattern A. */
static int read_back_a(struct cmd *cmd, size_t len, const char *what)
{
	uint8_t cdb[16];
	size_t i;

	cdb_rw10(cdb, false, 0, len / g.bs);
	memset(cmd->data, FILL_B, len);
	if (cmd_run_direct(cmd, cdb, DIR_IN, len, "READ(10)"))
		return -EIO;
	for (i = 0; i < len && cmd->data[i] == pattern_a(i); i++)
		;
	if (cmd->status != ST_GOOD || i < len) {
		fail("READ(10) of %s at LBA 0: %s, first difference at byte %zu", what,
		     status_str(cmd), i);
		return -EIO;
	}
	ok("READ(10): %s of pattern A into a buffer of %s", what, what);
	return 0;
}

/* An opcode no device implements (vendor specific): CHECK CONDITION, ILLEGAL REQUEST. */
static int unsupported_opcode(struct cmd *cmd, const char *what)
{
	uint8_t cdb[16] = { 0xc0 };

	if (cmd_run_direct(cmd, cdb, DIR_NONE, 0, what))
		return -EIO;
	if (cmd->status != ST_CHECK || !cmd->sense_len) {
		fail("%s: %s with %u bytes of sense; expected CHECK CONDITION with sense", what,
		     status_str(cmd), cmd->sense_len);
		return -EIO;
	}
	return 0;
}

/* The first byte in which sense A and B (their lengths included) differ, -1 if none. */
static int sense_diff(const uint8_t *a, uint32_t alen, const uint8_t *b, uint32_t blen)
{
	uint32_t i;

	for (i = 0; i < alen && i < blen; i++) {
		if (a[i] != b[i])
			return i;
	}
	return alen == blen ? -1 : (int)i;
}

/*
 * Sense data is only what the target produced for that command. After
 * the login no send context has carried sense yet: an unsupported
 * opcode's sense then is the reference. A COMPARE AND WRITE that
 * miscompares leaves more in its context's sense (VALID and the
 * INFORMATION field: the offset of the miscompare); every unsupported
 * opcode after it must get the reference sense again, byte for byte.
 * One command at a time, and after each miscompare a varying number of
 * checks, so that a target that reuses its contexts in a fixed order
 * soon serves one from the context of a miscompare. (Before Linux 5.11
 * LIO's miscompare sense has no INFORMATION field: nothing to tell.)
 */
static void sense_check(struct cmd *cmd)
{
	uint8_t ref[SENSE_MAX], cdb[16] = { 0x89 };	/* COMPARE AND WRITE */
	uint32_t ref_len, i, checks = 0;
	size_t b;
	int d, round;

	if (unsupported_opcode(cmd, "sense reference"))
		return;
	ref_len = cmd->sense_len;
	memcpy(ref, cmd->sense, ref_len);
	ok("sense of an unsupported opcode: %u bytes, key %x/%02x/%02x", ref_len, cmd->sense_key,
	   cmd->asc, cmd->ascq);
	cdb[13] = 1;
	for (round = 0; round < 8; round++) {
		/* Block 0 holds pattern A: compare with it but for byte 0x123. */
		for (b = 0; b < 2 * (size_t)g.bs; b++)
			cmd->data[b] = pattern_a(b % g.bs);
		cmd->data[0x123] ^= 0x80;
		if (cmd_run_direct(cmd, cdb, DIR_OUT, 2 * g.bs, "COMPARE AND WRITE"))
			return;
		if (cmd->status != ST_CHECK || cmd->sense_key != SK_MISCOMPARE ||
		    sense_diff(ref, ref_len, cmd->sense, cmd->sense_len) < 0) {
			fail("COMPARE AND WRITE of a different block: %s; expected a MISCOMPARE with sense unlike the reference",
			     status_str(cmd));
			return;
		}
		if (!round)
			ok("COMPARE AND WRITE: %s, sense differs from the reference from byte %d",
			   status_str(cmd), sense_diff(ref, ref_len, cmd->sense, cmd->sense_len));
		/* 1, 2 or 3 after each: no fixed order of reuse hides a context. */
		for (i = 0; i <= (uint32_t)round % 3; i++, checks++) {
			if (unsupported_opcode(cmd, "unsupported opcode after a miscompare"))
				return;
			d = sense_diff(ref, ref_len, cmd->sense, cmd->sense_len);
			if (d >= 0) {
				fail("sense after a miscompare: %u bytes differ from the reference's %u from byte %d (0x%02x, reference 0x%02x)",
				     cmd->sense_len, ref_len, d, d < (int)cmd->sense_len ? cmd->sense[d] : 0,
				     d < (int)ref_len ? ref[d] : 0);
				return;
			}
		}
	}
	ok("sense after 8 miscompares: the reference's %u bytes, %u times", ref_len, checks);
}

static void do_short_read(void)
{
	struct seg direct = { .len = MIB }, page = { .len = PAGE_BYTES }, ind[4];
	uint8_t cdb[16];
	struct cmd *cmd;
	size_t i;

	if (login_all(1, 1, MIB) || read_capacity(g.conn[0]))
		goto out;
	cmd = &g.conn[0]->cmds[0];
	ok("READ CAPACITY(10): %" PRIu64 " blocks of %u bytes", g.lun_blocks, g.bs);
	if (g.lun_blocks * g.bs < MIB) {
		fail("the LUN is smaller than 1 MiB");
		goto out;
	}
	for (i = 0; i < MIB; i++)
		cmd->data[i] = pattern_a(i);
	cdb_rw10(cdb, true, 0, MIB / g.bs);
	if (cmd_run_direct(cmd, cdb, DIR_OUT, MIB, "WRITE(10) of 1 MiB"))
		goto out;
	if (cmd->status != ST_GOOD || cmd->do_res) {
		fail("WRITE(10) of 1 MiB at LBA 0: %s, residual %u", status_str(cmd), cmd->do_res);
		goto out;
	}
	ok("WRITE(10): 1 MiB of pattern A at LBA 0 (%u blocks, direct descriptor)", MIB / g.bs);
	/* Read it all back: a target that recycles its buffers now holds A. */
	if (read_back_a(cmd, MIB, "1 MiB"))
		goto out;

	cdb_rw10(cdb, false, 0, 1);
	if (short_read_check(g.conn[0], "short-read direct", cdb, g.bs, &direct, 1, false, true))
		goto out;
	/*
	 * Four 256 KiB pieces in reverse order: a target that takes the
	 * table for one contiguous buffer puts the block in the wrong place.
	 */
	for (i = 0; i < 4; i++) {
		ind[i].loff = i * (MIB / 4);
		ind[i].off = (3 - i) * (MIB / 4);
		ind[i].len = MIB / 4;
	}
	if (short_read_check(g.conn[0], "short-read indirect", cdb, g.bs, ind, 4, true, true))
		goto out;
	cdb_inquiry36(cdb);
	if (short_read_check(g.conn[0], "short-read inquiry", cdb, 36, &direct, 1, false, false))
		goto out;
	/*
	 * A buffer of one page: a target may serve it from memory of its
	 * own that it reuses, and the last read left pattern A in it. A
	 * page it never used holds no FILL_B either: either way a byte sent
	 * past the transfer shows.
	 */
	if (read_back_a(cmd, PAGE_BYTES, "4 KiB"))
		goto out;
	if (g.bs < PAGE_BYTES) {
		cdb_rw10(cdb, false, 0, 1);
		if (short_read_check(g.conn[0], "short-read page", cdb, g.bs, &page, 1, false,
				     true))
			goto out;
	}
	cdb_inquiry36(cdb);
	if (short_read_check(g.conn[0], "short-read page inquiry", cdb, 36, &page, 1, false, false))
		goto out;
	if (short_write_check(g.conn[0]))
		goto out;
	sense_check(cmd);
out:
	close_all();
}

/* ---- oversized-iu ---- */

static bool oversized_settled(void *arg)
{
	unsigned int i;

	(void)arg;
	for (i = 0; i < g.nconn; i++) {
		if (g.conn[i]->state == C_LIVE && !g.conn[i]->err[0] && !g.conn[i]->cmds[0].answered)
			return false;
	}
	return true;
}

static void do_oversized_iu(void)
{
	unsigned int i, rsp = 0, qperr = 0, disc = 0, none = 0, sent = 0;
	uint8_t cdb[16] = { 0 };	/* TEST UNIT READY */

	if (login_all(g.conns, 1, 0))
		goto out;
	for (i = 0; i < g.nconn; i++) {
		struct conn *c = g.conn[i];

		if (cmd_build(&c->cmds[0], cdb, DIR_NONE, NULL, 0, false, c->max_it_iu_len + g.extra) ||
		    cmd_post(&c->cmds[0]))
			error("connection %d: sending the IU failed: %s", c->no, c->err);
		else
			sent++;
	}
	ok("oversized-iu: %u connections logged in; %u sent a TEST UNIT READY IU of max_it_iu_len %u + %u bytes",
	   g.nconn, sent, g.conn[0]->max_it_iu_len, g.extra);
	if (wait_for(oversized_settled, NULL, g.timeout, true) == -EINTR)
		error("interrupted");
	for (i = 0; i < g.nconn; i++) {
		struct conn *c = g.conn[i];

		if (c->cmds[0].answered) {
			rsp++;
			printf("connection %d: response, %s\n", c->no, status_str(&c->cmds[0]));
		} else if (c->wc_status >= 0) {
			qperr++;
			printf("connection %d: QP error: %s\n", c->no, ibv_wc_status_str(c->wc_status));
		} else if (c->state == C_DISCONNECTED) {
			disc++;
			printf("connection %d: disconnected by the target\n", c->no);
		} else {
			none++;
			printf("connection %d: no response within %gs%s%s\n", c->no, g.timeout,
			       c->err[0] ? ": " : "", c->err);
		}
	}
out:
	if (close_all() || sent < g.conns)
		fail("oversized-iu: %u of %u connections logged in and sent the IU", sent, g.conns);
	else
		ok("oversized-iu: %u connections: %u responses, %u QP errors, %u disconnected by the target, %u no response; all disconnected cleanly",
		   g.conns, rsp, qperr, disc, none);
}

/* ---- io ---- */

static struct {
	uint64_t cmds, writes, reads, wbytes, rbytes, verified, mismatches, errors, retries;
} st;

/* The contents of block LBA written with generation GEN: tagged. */
static void block_fill(uint8_t *p, uint64_t lba, uint32_t gen)
{
	uint64_t x = lba * 0x9e3779b97f4a7c15ull ^ gen * 0xc2b2ae3d27d4eb4full ^ 1;
	uint64_t w[2] = { lba, 0x5352504900000000ull | gen };	/* "SRPI" */
	uint32_t i;

	memcpy(p, w, sizeof(w));
	for (i = 16; i < g.bs; i += 8) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		memcpy(p + i, &x, 8);
	}
}

/*
 * Cut LEN bytes into 1..MAX pieces of random lengths, laid out in the
 * data buffer in reverse order: a target that takes the pieces for one
 * buffer at the first address moves the data to the wrong place.
 */
static int make_segs(struct conn *c, uint32_t len, int max, struct seg *s)
{
	uint32_t left = len / SEG_UNIT, u;
	int n = 1 + rnd(c) % max, i;

	if ((uint32_t)n > left)
		n = left;
	for (i = 0; i < n; i++) {
		/* Up to twice an equal share; one unit at least for each rest. */
		u = i == n - 1 ? left : 1 + rnd(c) % (2 * left / (n - i));
		if (u > left - (n - 1 - i))
			u = left - (n - 1 - i);
		s[i].loff = len - (size_t)left * SEG_UNIT;
		s[i].len = u * SEG_UNIT;
		s[i].off = len - s[i].loff - s[i].len;
		left -= u;
	}
	return n;
}

/* Between the transfer's order (BUF) and the pieces in the data buffer. */
static void scatter_gather(struct cmd *cmd, uint8_t *buf, bool scatter)
{
	const struct seg *s;
	int i;

	for (i = 0, s = cmd->segs; i < cmd->nsegs; i++, s++) {
		if (scatter)
			memcpy(cmd->data + s->off, buf + s->loff, s->len);
		else
			memcpy(buf + s->loff, cmd->data + s->off, s->len);
	}
}

/* Start a random read or write on a free slot; false if none started. */
static bool io_start(struct conn *c, struct cmd *cmd)
{
	uint32_t maxb = g.bs_max / g.bs, nb = 1, k, b;
	struct seg segs[MAX_SEGS];
	uint8_t cdb[16];
	bool indirect;
	uint64_t lba;
	int n, tries;

	/* READ(10) and WRITE(10) move at most 65535 blocks. */
	maxb = maxb > 65535 ? 65535 : maxb;
	maxb = maxb > c->nblocks ? c->nblocks : maxb;
	for (tries = 0; tries < 8; tries++) {
		/* Sizes spread over powers of two: small and large occur. */
		for (b = maxb, k = 0; b > 1; b >>= 1)
			k++;
		k = rnd(c) % (k + 1);
		nb = k ? (1u << (k - 1)) + 1 + rnd(c) % (1u << (k - 1)) : 1;
		nb = nb > maxb ? maxb : nb;
		lba = rnd(c) % (c->nblocks - nb + 1);
		/* Never two commands on one block: their order is undefined. */
		if (!memchr(c->busy + lba, 1, nb))
			break;
	}
	if (tries == 8)
		return false;
	cmd->write = rnd(c) & 1;
	cmd->lba = lba;
	cmd->nb = nb;
	/* A third direct, the rest indirect tables of 1 to 8 descriptors. */
	indirect = rnd(c) % 3;
	segs[0] = (struct seg){ .len = nb * g.bs };
	n = indirect ? make_segs(c, nb * g.bs, MAX_SEGS, segs) : 1;
	cdb_rw10(cdb, cmd->write, c->base + lba, nb);
	if (cmd_build(cmd, cdb, cmd->write ? DIR_OUT : DIR_IN, segs, n, indirect, 0))
		return false;
	if (cmd->write) {
		cmd->gen = ++c->gen_seq;
		for (b = 0; b < nb; b++)
			block_fill(c->scratch + (size_t)b * g.bs, c->base + lba + b, cmd->gen);
		scatter_gather(cmd, c->scratch, true);
	} else {
		/* Bytes the target leaves alone must not look right. */
		memset(cmd->data, 0, (size_t)nb * g.bs);
	}
	if (cmd_post(cmd))
		return false;
	memset(c->busy + lba, 1, nb);
	return true;
}

static void io_verify(struct conn *c, struct cmd *cmd)
{
	uint8_t *want = c->scratch + (size_t)cmd->nb * g.bs, *got;
	uint32_t b, gen;
	uint64_t w[2];

	scatter_gather(cmd, c->scratch, false);
	for (b = 0; b < cmd->nb; b++) {
		gen = c->gen[cmd->lba + b];
		if (!gen)
			continue;	/* never written, or a write failed */
		got = c->scratch + (size_t)b * g.bs;
		block_fill(want, c->base + cmd->lba + b, gen);
		st.verified++;
		if (!memcmp(got, want, g.bs) || st.mismatches++ >= 10)
			continue;
		memcpy(w, got, sizeof(w));
		fail("io: connection %d LBA %" PRIu64 ": expected generation %u, found %s LBA %" PRIu64 " generation %u",
		     c->no, c->base + cmd->lba + b, gen,
		     w[1] >> 32 == 0x53525049 ? "a block of" : "no srpi block; as if",
		     w[0], (uint32_t)w[1]);
	}
}

/* A command of the load came back: check, account, free its blocks. */
static void io_complete(struct conn *c, struct cmd *cmd)
{
	uint32_t b, len = cmd->nb * g.bs;

	c->last_done = now();
	if (cmd->status == ST_BUSY || cmd->status == ST_TASK_SET_FULL) {
		st.retries++;
		cmd->retry = true;	/* keeps the slot and its blocks */
		return;
	}
	cmd_finish(cmd);
	memset(c->busy + cmd->lba, 0, cmd->nb);
	st.cmds++;
	if (cmd->status != ST_GOOD || cmd->di_res || cmd->do_res || (cmd->flags & 0x3c)) {
		if (st.errors++ < 10)
			fail("io: connection %d %s(10) LBA %" PRIu64 " %u blocks: %s, flags 0x%02x, residual %u/%u",
			     c->no, cmd->write ? "WRITE" : "READ", c->base + cmd->lba, cmd->nb,
			     status_str(cmd), cmd->flags, cmd->do_res, cmd->di_res);
		if (cmd->write)		/* the blocks may hold anything now */
			memset(c->gen + cmd->lba, 0, cmd->nb * sizeof(*c->gen));
		return;
	}
	if (cmd->write) {
		for (b = 0; b < cmd->nb; b++)
			c->gen[cmd->lba + b] = cmd->gen;
		st.writes++;
		st.wbytes += len;
	} else {
		io_verify(c, cmd);
		st.reads++;
		st.rbytes += len;
	}
}

/* Finish what came back; with SUBMIT, keep the queue full. */
static void io_pump(struct conn *c, bool submit)
{
	unsigned int i;

	for (i = 0; i < c->nslots; i++) {
		struct cmd *cmd = &c->cmds[i];

		if (cmd->active && cmd->sent && cmd->answered && !cmd->retry)
			io_complete(c, cmd);
		if (cmd->retry && !submit) {	/* the load ends: drop it */
			cmd_finish(cmd);
			memset(c->busy + cmd->lba, 0, cmd->nb);
			cmd->retry = false;
		} else if (cmd->retry && c->credits > 0) {
			cmd_post(cmd);
		}
	}
	for (i = 0; submit && i < c->nslots && c->credits > 0 && !c->err[0]; i++) {
		if (!c->cmds[i].active && !io_start(c, &c->cmds[i]))
			break;
	}
}

/* Each connection gets its own region of the LUN. */
static int io_setup(void)
{
	uint64_t per = g.lun_blocks / g.nconn;
	unsigned int i;

	if (g.bs_max < g.bs || !per) {
		error("--bs-max %u below the block size %u, or too small a LUN", g.bs_max, g.bs);
		return -EINVAL;
	}
	for (i = 0; i < g.nconn; i++) {
		struct conn *c = g.conn[i];

		c->base = i * per;
		c->nblocks = per;
		c->gen = calloc(per, sizeof(*c->gen));
		c->busy = calloc(per, 1);
		/* The transfer, then room for one expected block. */
		c->scratch = malloc(2 * (size_t)g.bs_max);
		c->last_done = now();
		if (!c->gen || !c->busy || !c->scratch) {
			error("out of memory");
			return -ENOMEM;
		}
	}
	return 0;
}

/* The load until time is up, a signal, a dead connection or no progress. */
static bool io_run(double end)
{
	unsigned int i;
	double t;

	while (!g_stop && now() < end) {
		for (i = 0; i < g.nconn; i++)
			io_pump(g.conn[i], true);
		poll_once(100);
		t = now();
		for (i = 0; i < g.nconn; i++) {
			struct conn *c = g.conn[i];

			if (c->err[0]) {
				error("io: connection %d: %s", c->no, c->err);
				return false;
			}
			if (c->outstanding && t - c->last_done > g.timeout) {
				error("io: connection %d: %u commands without a response for %gs",
				      c->no, c->outstanding, g.timeout);
				return false;
			}
		}
	}
	return true;
}

static void do_io(void)
{
	unsigned int i, busy;
	double t0, t;
	bool fine;

	if (g.bs_max % SEG_UNIT || g.bs_max > 32 * MIB) {
		error("--bs-max must be a multiple of %d, at most 32 MiB", SEG_UNIT);
		return;
	}
	if (login_all(g.conns, g.qd, g.bs_max) || read_capacity(g.conn[0]) || io_setup()) {
		close_all();
		return;
	}
	t0 = now();
	fine = io_run(t0 + g.seconds);
	/* Let what is in flight come back, and count it. */
	for (t = now() + g.timeout; now() < t; poll_once(100)) {
		for (i = 0, busy = 0; i < g.nconn; i++) {
			io_pump(g.conn[i], false);
			busy += g.conn[i]->err[0] ? 0 : g.conn[i]->outstanding;
		}
		if (!busy)
			break;
	}
	t = now() - t0;
	close_all();
	say(stdout, st.mismatches || st.errors || !fine ? "FAIL " : "ok ",
		"io: %u connections, %.1f s%s: %" PRIu64 " commands (%" PRIu64 " writes %" PRIu64 " MiB, %" PRIu64 " reads %" PRIu64 " MiB), %" PRIu64 " blocks verified, %" PRIu64 " retries, %" PRIu64 " mismatches, %" PRIu64 " errors",
		g.conns, t, g_stop ? " (stopped by a signal)" : "", st.cmds, st.writes,
		st.wbytes / MIB, st.reads, st.rbytes / MIB, st.verified, st.retries, st.mismatches,
		st.errors);
}

/* ---- options ---- */

static const char usage[] =
	"usage: srpi login|cycles|short-read|oversized-iu|io [options]\n"
	"  --dest ADDR:PORT      the target's RDMA/CM address (required)\n"
	"  --src ADDR            bind to this local address\n"
	"  --i-port-id HEX32     initiator port id [the local port's GID]\n"
	"  --t-port-id HEX32     target port id [ib_srpt's service GUID twice]\n"
	"  --it-iu-len N         requested max it IU length [8260]\n"
	"  --lun N               [0]\n"
	"  --timeout SEC         bound of every wait [30]\n"
	"  --batch N             log connections in N at a time [all at once]\n"
	"  login: --expect-reject REASON_HEX\n"
	"  cycles: --count N --conns K [--keep-going: failed cycles allowed, hangs not]\n"
	"  oversized-iu: --extra N --conns K\n"
	"  io: --seconds S --qd Q --bs-max BYTES --conns K\n";

/* A whole number into *U, or a decimal one into *D. */
static int parse_num(const char *s, int base, unsigned int *u, double *d)
{
	char *end;

	errno = 0;
	if (u)
		*u = strtoul(s, &end, base);
	else
		*d = strtod(s, &end);
	return errno || end == s || *end ? -1 : 0;
}

static int parse_hex16(const char *s, uint8_t *out)
{
	unsigned int i, v;

	if (!strncmp(s, "0x", 2))
		s += 2;
	if (strlen(s) != 32)
		return -1;
	for (i = 0; i < 16; i++) {
		if (sscanf(s + 2 * i, "%2x", &v) != 1)
			return -1;
		out[i] = v;
	}
	return 0;
}

/* ADDR, or with PORT ADDR:PORT ([IPv6]:PORT). */
static int parse_addr(const char *s, bool port, struct sockaddr_storage *out)
{
	struct addrinfo hints = { .ai_family = AF_UNSPEC }, *ai;
	char host[256], *colon = NULL;

	snprintf(host, sizeof(host), "%s", s[0] == '[' ? s + 1 : s);
	if (port) {
		colon = strrchr(host, ':');
		if (!colon)
			return -1;
		*colon = 0;
	}
	host[strcspn(host, "]")] = 0;
	if (getaddrinfo(host, colon ? colon + 1 : NULL, &hints, &ai))
		return -1;
	memcpy(out, ai->ai_addr, ai->ai_addrlen);
	freeaddrinfo(ai);
	return 0;
}

/* The target port id: id_ext and ioc_guid, both the service GUID. */
static int default_t_port_id(void)
{
	FILE *f = fopen("/sys/module/ib_srpt/parameters/srpt_service_guid", "r");
	unsigned long long guid;
	int n;

	if (!f)
		return -1;
	n = fscanf(f, "%llx", &guid);
	fclose(f);
	put_be(g.t_port_id, 8, guid);
	put_be(g.t_port_id + 8, 8, guid);
	return n == 1 ? 0 : -1;
}

static int parse_options(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "dest", 1, NULL, 'd' },	{ "src", 1, NULL, 's' },
		{ "i-port-id", 1, NULL, 'i' },	{ "t-port-id", 1, NULL, 't' },
		{ "it-iu-len", 1, NULL, 'u' },	{ "lun", 1, NULL, 'l' },
		{ "timeout", 1, NULL, 'T' },	{ "expect-reject", 1, NULL, 'r' },
		{ "count", 1, NULL, 'n' },	{ "conns", 1, NULL, 'k' },
		{ "extra", 1, NULL, 'e' },	{ "seconds", 1, NULL, 'S' },
		{ "qd", 1, NULL, 'q' },		{ "bs-max", 1, NULL, 'b' },
		{ "keep-going", 0, NULL, 'K' },	{ "batch", 1, NULL, 'B' },
		{ "help", 0, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	/* The numeric options, and where each goes. */
	static const struct {
		int opt;
		unsigned int *u;
		double *d;
	} nums[] = {
		{ 'u', &g.it_iu_len, NULL }, { 'l', &g.lun, NULL }, { 'n', &g.count, NULL },
		{ 'k', &g.conns, NULL }, { 'e', &g.extra, NULL }, { 'q', &g.qd, NULL },
		{ 'b', &g.bs_max, NULL }, { 'T', NULL, &g.timeout }, { 'S', NULL, &g.seconds },
		{ 'B', &g.batch, NULL },
	};
	bool have_tpid = false, bad = false;
	unsigned int i;
	int o, li = 0;

	while ((o = getopt_long(argc, argv, "h", opts, &li)) != -1) {
		switch (o) {
		case 'd':
			g.dest = optarg;
			bad = parse_addr(optarg, true, &g.dst);
			break;
		case 's':
			g.have_src = true;
			bad = parse_addr(optarg, false, &g.src);
			break;
		case 'i':
			g.have_ipid = true;
			bad = parse_hex16(optarg, g.i_port_id);
			break;
		case 't':
			have_tpid = true;
			bad = parse_hex16(optarg, g.t_port_id);
			break;
		case 'K':
			g.keep_going = true;
			break;
		case 'r':
			g.have_expect_reject = true;
			bad = parse_num(optarg, 16, &g.expect_reject, NULL);
			break;
		case 'h':
			fputs(usage, stdout);
			exit(0);
		default:
			for (i = 0; i < ARRAY_SIZE(nums) && nums[i].opt != o; i++)
				;
			if (i == ARRAY_SIZE(nums)) {
				fputs(usage, stderr);
				return -1;
			}
			bad = parse_num(optarg, 0, nums[i].u, nums[i].d);
			break;
		}
		if (bad) {
			error("--%s: invalid '%s' (see --help)", opts[li].name, optarg);
			return -1;
		}
	}
	if (optind < argc || !g.dest || !g.conns || g.conns > MAX_CONNS || !g.qd ||
	    g.qd > 4096 || g.timeout <= 0) {
		error("need --dest; --conns 1..%d, --qd 1..4096, --timeout > 0, no other arguments",
		      MAX_CONNS);
		return -1;
	}
	if (!have_tpid && default_t_port_id()) {
		error("no --t-port-id, and no /sys/module/ib_srpt/parameters/srpt_service_guid");
		return -1;
	}
	return 0;
}

static void on_signal(int sig)
{
	(void)sig;
	g_stop = 1;
}

int main(int argc, char **argv)
{
	static const struct {
		const char *name;
		void (*run)(void);
	} cmds[] = {
		{ "login", do_login },		 { "cycles", do_cycles },
		{ "short-read", do_short_read }, { "oversized-iu", do_oversized_iu },
		{ "io", do_io },
	};
	struct sigaction sa = { .sa_handler = on_signal };
	unsigned int i;

	for (i = 0; argc > 1 && i < ARRAY_SIZE(cmds); i++) {
		if (!strcmp(argv[1], cmds[i].name))
			break;
	}
	if (argc < 2 || i == ARRAY_SIZE(cmds)) {
		fputs(usage, stderr);
		return 2;
	}
	if (parse_options(argc - 1, argv + 1))
		return 2;
	/* No SA_RESTART: a signal ends poll() at once. */
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	g.ech = rdma_create_event_channel();
	if (!g.ech) {
		error("rdma_create_event_channel: %s (is rdma_ucm loaded?)", strerror(errno));
		return 1;
	}
	set_nonblock(g.ech->fd);
	cmds[i].run();
	rdma_destroy_event_channel(g.ech);
	return g.failures ? 1 : 0;
}
