// SPDX-License-Identifier: GPL-2.0-only
/*
 * Send contexts: the command state machine (the channel's pool of them
 * is in channel_io.cpp).
 */
#include <ktl/errno.h>
#include <srpt/ioctx.h>

namespace srpt {

const char *cmd_state_name(CmdState s)
{
	switch (s) {
	case CmdState::kNew:
		return "new";
	case CmdState::kNeedData:
		return "need data";
	case CmdState::kDataIn:
		return "data in";
	case CmdState::kCmdRspSent:
		return "response sent";
	case CmdState::kMgmt:
		return "task management";
	case CmdState::kMgmtRspSent:
		return "task management response sent";
	case CmdState::kDone:
		return "done";
	}
	return "?";
}

CmdState Cmd::set_state(CmdState s)
{
	/* Done stays done: the one state that needs no compare. */
	if (s == CmdState::kDone)
		return static_cast<CmdState>(state_.exchange(static_cast<ktl::u8>(s)));

	ktl::u8 cur = state_.load();

	while (static_cast<CmdState>(cur) != CmdState::kDone) {
		if (state_.compare_exchange(cur, static_cast<ktl::u8>(s)))
			break;
	}
	return static_cast<CmdState>(cur);
}

CmdState Cmd::set_state_from(CmdState a, CmdState b, CmdState s)
{
	ktl::u8 cur = state_.load();

	while (static_cast<CmdState>(cur) == a || static_cast<CmdState>(cur) == b) {
		if (state_.compare_exchange(cur, static_cast<ktl::u8>(s)))
			break;
	}
	return static_cast<CmdState>(cur);
}

bool Cmd::test_and_set_state(CmdState old, CmdState s)
{
	ktl::u8 expected = static_cast<ktl::u8>(old);

	return state_.compare_exchange(expected, static_cast<ktl::u8>(s));
}

void Cmd::reset()
{
	/* Handed to LIO through calls that order it: no full fence here. */
	state_.store(static_cast<ktl::u8>(CmdState::kNew), ktl::MemoryOrder::release);
	tag = 0;
	sol_not = 0;
	dir = SRPT_DATA_NONE;
	data_kind = DataKind::kNone;
	data_len = 0;
	kept = false;
	local = false;
	start_ns = 0;
	rsp_ = Rsp::kNone;
	read_bytes_ = 0;
	need_ = 0;
	step_err_ = 0;
	post_err_ = false;
	failed_with_rsp_ = false;
	KTL_WARN_ON(recv || xfer.buffers() || round_bufs_ || sq_held_);
}

} // namespace srpt
