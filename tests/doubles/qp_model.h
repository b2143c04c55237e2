/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * A channel's queue pair as a real HCA (mlx4, mlx5) holds it, written
 * once for both test doubles (tests/host/fake_channel.cpp and
 * kunit/fake_datapath.c): what soft-RoCE forgives does not pass here.
 *
 *   - ib_create_qp() refuses more than the device allows (max_qp_wr,
 *     max_send_sge, RDMA READ depths); rdma_rw_init_qp() adds a share for
 *     its contexts to the send queue and clamps it to max_qp_wr;
 *   - each queue has exactly the slots asked for (soft-RoCE rounds up);
 *     a post beyond them fails with -ENOMEM, a chain posts the WRs that
 *     fit and fails the rest;
 *   - a slot is free again only once its completion is polled, flushed
 *     ones included;
 *   - ib_drain_qp() posts one WR on the send queue and, without an SRQ,
 *     one receive: each needs a free slot, or the kernel warns and frees
 *     the QP while completions are still due;
 *   - every completion that may be due at once fits into the CQ, whose
 *     overrun breaks every QP sharing it.
 *
 * The abi.h sections it models: srpt_qp_params, srpt_os_channel_create_qp(),
 * srpt_os_channel_destroy_qp() (the drain), srpt_os_recv_post(),
 * srpt_os_channel_post_zero_write() and srpt_os_cmd_post(). Plain C:
 * kernel C and host C++ both compile it.
 */
#ifndef SRPT_TESTS_QP_MODEL_H
#define SRPT_TESTS_QP_MODEL_H

#include <srpt/abi.h>

struct srpt_qp_model {
	unsigned int sq_slots;		/* the send queue, rdma_rw's share included */
	unsigned int rq_slots;		/* the receive queue; 0 with an SRQ */
	unsigned int cq_size;
	unsigned char use_srq;
	unsigned int sq_used;		/* send WRs posted and not completed */
	unsigned int signaled;		/* of those, the ones that complete */
	unsigned int rq_posted;		/* receives posted and not polled */
};

/* The slots a device makes for a queue of @n entries: rxe_queue_init()'s with @softroce. */
static inline unsigned int srpt_qp_model_slots(unsigned int n, int softroce)
{
	unsigned int slots = 1;

	if (!softroce)
		return n;
	while (slots < n + 1)
		slots <<= 1;
	return slots - 1;
}

/*
 * ib_create_qp() of @p after rdma_rw_init_qp(), on a device with @info
 * whose rdma_rw registers memory (@mr: three WRs per context) or not:
 * 0, or -EINVAL for what mlx5_ib refuses.
 */
static inline int srpt_qp_model_create(struct srpt_qp_model *m, const struct srpt_qp_params *p,
				       const struct srpt_device_info *info, int mr, int softroce)
{
	unsigned long long sq = p->max_send_wr + (mr ? 3ULL : 1ULL) * p->max_rdma_ctxs;

	if (!p->max_send_sge || p->max_send_sge > info->max_send_sge ||
	    (!p->use_srq && p->max_recv_wr > info->max_qp_wr) ||
	    p->initiator_depth > info->max_qp_init_rd_atom ||
	    p->responder_resources > info->max_qp_rd_atom)
		return -22;	/* -EINVAL, spelled out: no errno header here */
	if (sq > info->max_qp_wr)
		sq = info->max_qp_wr;
	m->sq_slots = srpt_qp_model_slots((unsigned int)sq, softroce);
	m->rq_slots = p->use_srq ? 0 : srpt_qp_model_slots(p->max_recv_wr, softroce);
	m->cq_size = p->cq_size;
	m->use_srq = p->use_srq;
	m->sq_used = 0;
	m->signaled = 0;
	m->rq_posted = 0;
	return 0;
}

/* Whether a chain of @wrs send WRs fits whole. */
static inline int srpt_qp_model_send_fits(const struct srpt_qp_model *m, unsigned int wrs)
{
	return m->sq_used + wrs <= m->sq_slots;
}

/* Posted: a chain of @wrs send WRs, @signaled of them signalled (it fits). */
static inline void srpt_qp_model_post_send(struct srpt_qp_model *m, unsigned int wrs,
					   unsigned int signaled)
{
	m->sq_used += wrs;
	m->signaled += signaled;
}

/* Polled: the @wrs slots of a chain with @signaled completions are free again. */
static inline void srpt_qp_model_send_done(struct srpt_qp_model *m, unsigned int wrs,
					   unsigned int signaled)
{
	m->sq_used -= wrs < m->sq_used ? wrs : m->sq_used;
	m->signaled -= signaled < m->signaled ? signaled : m->signaled;
}

/* A receive on the QP's own queue: 0, or -ENOMEM when it is full. */
static inline int srpt_qp_model_post_recv(struct srpt_qp_model *m)
{
	if (m->rq_posted >= m->rq_slots)
		return -12;	/* -ENOMEM */
	m->rq_posted++;
	return 0;
}

static inline void srpt_qp_model_recv_done(struct srpt_qp_model *m)
{
	if (m->rq_posted)
		m->rq_posted--;
}

/* Whether more completions may be due at once than the CQ holds: why, or NULL. */
static inline const char *srpt_qp_model_cq_overrun(const struct srpt_qp_model *m)
{
	/* ib_drain_qp() adds its own: a send, and a receive without SRQ. */
	unsigned int due = m->rq_posted + m->signaled + (m->use_srq ? 1 : 2);

	return due > m->cq_size ? "more completions may be due than the CQ holds (CQ overrun)" :
				  (const char *)0;
}

/* ib_drain_qp(): NULL, or why the drain finds no slot. */
static inline const char *srpt_qp_model_drain(const struct srpt_qp_model *m)
{
	if (m->sq_used + 1 > m->sq_slots)
		return "ib_drain_sq: no send queue slot for the drain";
	if (!m->use_srq && m->rq_posted + 1 > m->rq_slots)
		return "ib_drain_rq: no receive queue slot for the drain";
	return (const char *)0;
}

#endif /* SRPT_TESTS_QP_MODEL_H */
