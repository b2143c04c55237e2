/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The channel contract of include/srpt/abi.h, written once for both test
 * doubles (tests/host/fake_channel.cpp and kunit/fake_datapath.c): which
 * srpt_os_channel_* call the core may make in which state of a channel's
 * kernel side. A double asks srpt_contract_check() before it carries out
 * a call, reports what comes back as a violation, and tells
 * srpt_contract_done() when the call succeeded. What the doubles model
 * beyond it (queues, completions, failure injection, threads) is theirs.
 * Plain C without includes: kernel C and host C++ both compile it.
 */
#ifndef SRPT_TESTS_CHANNEL_CONTRACT_H
#define SRPT_TESTS_CHANNEL_CONTRACT_H

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
};

struct srpt_contract {
	unsigned char qp;		/* created and not destroyed */
	unsigned char qp_destroyed;
	unsigned char session;		/* the LIO session is open */
	unsigned char accepted;
	unsigned char rejected;
	unsigned char cm_destroyed;
	unsigned char freed;
};

/* NULL when the contract allows @call now, else what it breaks. */
static inline const char *srpt_contract_check(const struct srpt_contract *c,
					      enum srpt_contract_call call)
{
	if (c->freed)
		return "a call after srpt_os_channel_free()";
	switch (call) {
	case SRPT_CONTRACT_CREATE_QP:
		return c->qp || c->qp_destroyed ? "create_qp twice" : 0;
	case SRPT_CONTRACT_OPEN_SESSION:
		if (!c->qp)
			return "open_session before create_qp";
		return c->session ? "open_session twice" : 0;
	case SRPT_CONTRACT_ACCEPT:
		if (!c->qp)
			return "accept without a QP";
		if (!c->session)
			return "accept without a LIO session";
		return c->accepted ? "accept twice" : 0;
	case SRPT_CONTRACT_REJECT:
		if (c->cm_destroyed)
			return "cm_reject after destroy_cm";
		return c->rejected ? "cm_reject twice" : 0;
	case SRPT_CONTRACT_DISCONNECT:
		return c->cm_destroyed ? "disconnect after destroy_cm" : 0;
	case SRPT_CONTRACT_QP_ERROR:
		return c->qp ? 0 : "qp_error without a QP";
	case SRPT_CONTRACT_ZERO_WRITE:
		return c->qp ? 0 : "post_zero_write without a QP";
	case SRPT_CONTRACT_RECV_POST:
		return c->qp ? 0 : "recv_post on a channel without a QP";
	case SRPT_CONTRACT_CLOSE_SESSION:
		return c->cm_destroyed || c->qp_destroyed ?
			"close_session after the CM id or the QP was destroyed" : 0;
	case SRPT_CONTRACT_DESTROY_CM:
		if (c->session)
			return "destroy_cm while the LIO session is open";
		if (c->cm_destroyed)
			return "destroy_cm twice";
		return c->qp_destroyed ? "destroy_cm after destroy_qp" : 0;
	case SRPT_CONTRACT_DESTROY_QP:
		if (c->session)
			return "destroy_qp while the LIO session is open";
		return c->qp_destroyed ? "destroy_qp twice" : 0;
	case SRPT_CONTRACT_FREE:
		if (c->session)
			return "free with the LIO session open";
		if (!c->cm_destroyed)
			return "free before destroy_cm";
		return c->qp ? "free before destroy_qp" : 0;
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
		break;
	}
}

#endif /* SRPT_TESTS_CHANNEL_CONTRACT_H */
