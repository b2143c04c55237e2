// SPDX-License-Identifier: GPL-2.0-only
/* Task management (srpt_handle_tsk_mgmt). The response is built in datapath.cpp. */
#include <srpt/channel.h>
#include <srpt/iu.h>
#include <srpt/srp.h>

namespace srpt {

void Channel::handle_tsk_mgmt(RecvCtx *r, Cmd *c)
{
	SrpTskMgmt t;

	stats_.add(Stat::kTaskManagement);
	if (parse_srp_tsk_mgmt(ktl::Bytes(r->iu, r->byte_len), &t)) {
		stats_.add(Stat::kErrMalformed);
		/* Too short to carry a tag: there is nobody to answer. */
		srpt_os_log(SRPT_LOG_ERR | SRPT_LOG_RATELIMITED,
			    "%s: ignoring a %u-byte SRP_TSK_MGMT\n", name(), r->byte_len);
		credits_.owe_one();
		put_cmd(c);
		return;
	}
	c->tag = t.tag;
	c->sol_not = t.sol_not;
	c->set_state(CmdState::kMgmt);
	if (t.tmf == SRPT_TMF_UNSUPPORTED)
		srpt_os_log(SRPT_LOG_INFO | SRPT_LOG_RATELIMITED,
			    "%s: task management function %#x is not supported\n", name(), t.function);
	const int ret = srpt_os_cmd_submit_tmr(c->os, t.lun, t.tmf, t.task_tag, t.tag);
	if (ret) {
		srpt_os_log(SRPT_LOG_ERR | SRPT_LOG_RATELIMITED,
			    "%s: task management function %#x for %#llx failed (%d)\n", name(),
			    t.function, t.tag, ret);
		c->respond_local_tmf(srp::kTmfFailed);
	}
}

} // namespace srpt
