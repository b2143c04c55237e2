// SPDX-License-Identifier: GPL-2.0-only
/* Task management: SRP_TSK_MGMT in, LIO's answer out as an SRP RSP_CODE. */
#include <ktl/errno.h>
#include <ktl/wire.h>
#include <srpt/channel.h>
#include <srpt/cmd.h>
#include <srpt/iu.h>
#include <srpt/srp.h>
#include <srpt/tmf.h>

namespace srpt {

using ktl::BeHeader;

int parse_srp_tsk_mgmt(ktl::Bytes iu, SrpTskMgmt *out)
{
	const BeHeader<srp::tsk_mgmt::kSize> h(iu);
	SrpTskMgmt t;

	if (!h.ok())
		return -ktl::kEINVAL;
	t.tag = h.be64<srp::tsk_mgmt::kTag>();
	t.sol_not = h.u8_at<srp::tsk_mgmt::kSolNot>();
	t.lun = scsilun_to_int(h.bytes<srp::tsk_mgmt::kLun, 8>());
	t.task_tag = h.be64<srp::tsk_mgmt::kTaskTag>();
	t.function = h.u8_at<srp::tsk_mgmt::kFunction>();
	switch (t.function) {
	case srp::kTmfAbortTask:
		t.tmf = SRPT_TMF_ABORT_TASK;
		break;
	case srp::kTmfAbortTaskSet:
		t.tmf = SRPT_TMF_ABORT_TASK_SET;
		break;
	case srp::kTmfClearTaskSet:
		t.tmf = SRPT_TMF_CLEAR_TASK_SET;
		break;
	case srp::kTmfLunReset:
		t.tmf = SRPT_TMF_LUN_RESET;
		break;
	case srp::kTmfClearAca:
		t.tmf = SRPT_TMF_CLEAR_ACA;
		break;
	default:
		t.tmf = SRPT_TMF_UNSUPPORTED;
		break;
	}
	*out = t;
	return 0;
}

u8 tmf_rsp_code(srpt_tmr_response r)
{
	switch (r) {
	case SRPT_TMR_COMPLETE:
	/* SAM: aborting a task that is not there is a completed abort. */
	case SRPT_TMR_TASK_DOES_NOT_EXIST:
		return srp::kTmfComplete;
	case SRPT_TMR_NOT_SUPPORTED:
	case SRPT_TMR_REJECTED:
		return srp::kTmfNotSupported;
	case SRPT_TMR_LUN_DOES_NOT_EXIST:
	case SRPT_TMR_FAILED:
		break;
	}
	return srp::kTmfFailed;
}

/* srpt_handle_tsk_mgmt: LIO answers through queue_tm_rsp. */
void ChannelIo::handle_tsk_mgmt(RecvCtx *r, Cmd *c)
{
	SrpTskMgmt t;

	stats_.add(Stat::kTaskManagement);
	if (parse_srp_tsk_mgmt(ktl::Bytes(r->iu, r->byte_len), &t)) {
		stats_.add(Stat::kErrMalformed);
		/* Too short to carry a tag: there is nobody to answer. */
		SRPT_LOG_LIMITED(SRPT_LOG_ERR, "%s: ignoring a %u-byte SRP_TSK_MGMT\n", ch_.label(),
				 r->byte_len);
		c->return_recv();
		credits_.owe_one();
		put_cmd(c);
		return;
	}
	c->tag = t.tag;
	c->sol_not = t.sol_not;
	c->set_state(CmdState::kMgmt);
	if (t.tmf == SRPT_TMF_UNSUPPORTED)
		SRPT_LOG_LIMITED(SRPT_LOG_INFO,
				 "%s: task management function %#x is not supported\n", ch_.label(),
				 t.function);
	const int ret = srpt_os_cmd_submit_tmr(c->os.get(), t.lun, t.tmf, t.task_tag, t.tag);
	if (ret) {
		SRPT_LOG_LIMITED(SRPT_LOG_ERR,
				 "%s: task management function %#x for %#llx failed (%pe)\n",
				 ch_.label(), t.function, t.tag, ktl::err_arg(ret));
		c->respond_local_tmf(srp::kTmfFailed);
	}
}

} // namespace srpt
