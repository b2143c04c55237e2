/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * srpt_os_wc_status_msg(), srpt_os_ib_event_msg() and
 * srpt_os_cm_event_msg() for both test doubles: the kernel's texts
 * (ib_wc_status_msg(), ib_event_msg() in drivers/infiniband/core/verbs.c,
 * rdma_event_msg() in cma.c) and the shim's IB/CM names (channel_os.c)
 * for the codes the tests use. Plain C.
 */
#ifndef SRPT_TESTS_NAMES_H
#define SRPT_TESTS_NAMES_H

#include <srpt/abi.h>

static inline const char *srpt_double_wc_status_msg(enum srpt_wc_status status)
{
	switch (status) {
	case SRPT_WC_SUCCESS:
		return "success";
	case SRPT_WC_WR_FLUSH_ERR:
		return "WR flushed";
	case SRPT_WC_RETRY_EXC_ERR:
		return "transport retry counter exceeded";
	case SRPT_WC_GENERAL_ERR:
		return "general error";
	}
	return "unrecognized status";
}

static inline const char *srpt_double_ib_event_msg(int event)
{
	switch (event) {
	case SRPT_IB_EVENT_QP_FATAL:
		return "QP fatal error";
	case SRPT_IB_EVENT_QP_REQ_ERR:
		return "QP request error";
	case SRPT_IB_EVENT_QP_ACCESS_ERR:
		return "QP access error";
	case SRPT_IB_EVENT_COMM_EST:
		return "communication established";
	case SRPT_IB_EVENT_PORT_ACTIVE:
		return "port active";
	case SRPT_IB_EVENT_PORT_ERR:
		return "port error";
	case SRPT_IB_EVENT_LID_CHANGE:
		return "LID change";
	}
	return "unrecognized event";
}

static inline const char *srpt_double_cm_event_msg(enum srpt_cm_kind cm, int event)
{
	if (cm == SRPT_CM_RDMA) {
		switch (event) {
		case SRPT_RDMA_CM_CONNECT_ERROR:
			return "connect error";
		case SRPT_RDMA_CM_UNREACHABLE:
			return "unreachable";
		case SRPT_RDMA_CM_REJECTED:
			return "rejected";
		case SRPT_RDMA_CM_ESTABLISHED:
			return "established";
		case SRPT_RDMA_CM_DISCONNECTED:
			return "disconnected";
		case SRPT_RDMA_CM_TIMEWAIT_EXIT:
			return "timewait exit";
		}
		return "unrecognized event";
	}
	switch (event) {
	case SRPT_IB_CM_REP_ERROR:
		return "REP error";
	case SRPT_IB_CM_RTU_RECEIVED:
		return "RTU received";
	case SRPT_IB_CM_USER_ESTABLISHED:
		return "established";
	case SRPT_IB_CM_DREQ_ERROR:
		return "DREQ error";
	case SRPT_IB_CM_DREQ_RECEIVED:
		return "DREQ received";
	case SRPT_IB_CM_DREP_RECEIVED:
		return "DREP received";
	case SRPT_IB_CM_TIMEWAIT_EXIT:
		return "timewait exit";
	case SRPT_IB_CM_REJ_RECEIVED:
		return "REJ received";
	}
	return "unrecognized event";
}

#endif /* SRPT_TESTS_NAMES_H */
