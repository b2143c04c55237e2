/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * A send context: one command from its request to its response, with its
 * response buffer, its transfer and its state machine
 * (srpt_set_cmd_state, srpt_test_and_set_cmd_state).
 */
#pragma once

#include <ktl/atomic.h>
#include <ktl/errno.h>
#include <ktl/list.h>
#include <ktl/owned.h>
#include <ktl/types.h>
#include <srpt/abi.h>
#include <srpt/iu.h>
#include <srpt/live.h>
#include <srpt/recv_ctx.h>
#include <srpt/transfer.h>

namespace srpt {

class Channel;
class ChannelIo;
class SendQueue;

using OsCmd = ktl::Owned<srpt_os_cmd, srpt_os_cmd_free>;

enum class CmdState : ktl::u8 {
	kNew,
	kNeedData,	/* waiting for the RDMA READ of write data */
	kDataIn,	/* write data is in; LIO executes */
	kCmdRspSent,
	kMgmt,		/* a task management function */
	kMgmtRspSent,
	kDone,
};

const char *cmd_state_name(CmdState s);

/* Resources short for now (memory, registrations): the initiator may retry. */
inline bool transient(int err)
{
	return err == -ktl::kENOMEM || err == -ktl::kEAGAIN;
}

/* srpt_cmd: a send context. */
class Cmd {
public:
	Cmd(Channel *ch, ChannelIo &io) : ch_(ch), io_(io) { live_inc(Live::kCmd); }
	~Cmd() { live_dec(Live::kCmd); }
	Cmd(const Cmd &) = delete;
	Cmd &operator=(const Cmd &) = delete;

	/* srpt_set_cmd_state: no change once kDone; returns the old state. */
	CmdState set_state(CmdState s);
	/* srpt_test_and_set_cmd_state: only from @old; true if it was @old. */
	[[nodiscard]] bool test_and_set_state(CmdState old, CmdState s);
	/* Only from @a or @b; returns the state found (moved if it was one of them). */
	CmdState set_state_from(CmdState a, CmdState b, CmdState s);
	CmdState state() const { return static_cast<CmdState>(state_.load()); }

	/* Ready for a new request (srpt_get_send_ioctx). */
	void reset();

	/*
	 * Answers without LIO, for requests LIO never saw: a malformed
	 * SRP_CMD (CHECK CONDITION, INVALID FIELD IN COMMAND INFORMATION
	 * UNIT), a command we have no memory for (TASK SET FULL), or a task
	 * management function LIO refused (FUNCTION FAILED).
	 */
	[[gnu::cold, gnu::noinline]] void respond_local_status(ktl::u8 scsi_status, const ktl::u8 *sense,
								ktl::u32 sense_len);
	[[gnu::cold, gnu::noinline]] void respond_local_tmf(ktl::u8 rsp_code);

	/* LIO callbacks and completions; see cmd.cpp. */
	[[nodiscard]] int write_pending();
	void queue_response(const srpt_cmd_status &st, bool with_data);
	void queue_tm_response(srpt_tmr_response r);
	void rdma_done(srpt_wc_status status);
	void send_done(srpt_wc_status status, ktl::u64 now_ns);
	void aborted();
	void release();
	/* Posts recv again, if the command holds it: before its credit goes back. */
	void return_recv();
	/* Frees the data buffers and forgets the transfer. */
	void release_data();

private:
	/*
	 * Its pool fills a context for each request and recycles it; its
	 * send queue posts its steps and ends one whose step failed.
	 */
	friend class ChannelIo;
	friend class SendQueue;
	enum class Rsp : ktl::u8 { kNone, kStatus, kTmf };

	/* The data buffers of request @l (in @r); 0 or a negative errno. */
	[[nodiscard]] int map_data(RecvCtx *r, const DataLayout &l);
	/* Remote buffer @b (not empty) as the next of @count; 0 or a negative errno. */
	[[nodiscard]] int add_buffer(u32 count, srpt_data_dir dir, const RemoteBuffer &b);
	/* Not under the send queue's mutex: ends a command whose step failed. */
	[[gnu::cold, gnu::noinline]] void post_failed();

	OsCmd os;
	ktl::u8 *rsp_buf = nullptr;
	ktl::u32 rsp_size = 0;
	const ktl::u8 *sense_buf = nullptr;	/* SRPT_SENSE_SIZE bytes: LIO's sense data */

	/* Set per request. */
	ktl::u64 tag = 0;
	ktl::u8 sol_not = 0;
	srpt_data_dir dir = SRPT_DATA_NONE;
	DataKind data_kind = DataKind::kNone;
	ktl::u32 data_len = 0;
	Transfer xfer;			/* the data moved by RDMA */
	/* Its one buffer is kept mapped (SRPT_BUF_KEPT): no map, no unmap. */
	bool kept = false;
	/*
	 * Its receive buffer (not an SRQ's), held until the credit that
	 * stands for it goes back: a response, or a credit owed instead.
	 * Posted again first, so that the initiator never holds a credit
	 * for a buffer that is not posted (it would meet an RNR NAK, which
	 * the CM's default timer makes a 655 ms wait).
	 */
	RecvCtx *recv = nullptr;
	bool local = false;		/* answered by the core, never given to LIO */
	ktl::u64 start_ns = 0;		/* its IU's recv_ns, for the latency histogram; 0: none */

	Cmd *next_free = nullptr;	/* on the channel's free or returned stack */
	ktl::ListNode send_node;	/* on its send queue while waiting */

	/* Hands the next step to the send queue; ends the command if it cannot go. */
	void submit();
	/*
	 * Queues the response for sending, after @data_bytes of read data;
	 * posts the command's receive buffer again first (return_recv()).
	 */
	void respond(ktl::u32 data_bytes);
	/* The SRP_RSP into rsp_buf, carrying @delta credits; its length or 0. */
	ktl::size_t build_rsp(ktl::u32 delta);
	void unmap_round();
	/* A command given to LIO that will have no response. */
	[[gnu::cold, gnu::noinline]] void fail_response();

	Channel *const ch_;
	ChannelIo &io_;			/* ch_'s: its send queue, credits and counters */
	ktl::Atomic<ktl::u8> state_{static_cast<ktl::u8>(CmdState::kDone)};
	Rsp rsp_ = Rsp::kNone;
	srpt_cmd_status st_{};		/* Rsp::kStatus, with sense_'s length */
	const ktl::u8 *sense_ = nullptr;	/* sense_buf, or static sense of the core's own */
	ktl::u8 tmf_code_ = 0;		/* Rsp::kTmf */
	ktl::u32 read_bytes_ = 0;	/* the data the response sends, for the statistics */
	/* Guarded by the send queue's mutex while the command is on it. */
	ktl::u32 round_first_ = 0;	/* buffers in the round under way */
	ktl::u32 round_bufs_ = 0;
	ktl::u32 sq_held_ = 0;		/* slots of the work posted last, until it completes */
	ktl::u32 need_ = 0;		/* slots the next step needs, once known */
	int step_err_ = 0;		/* why the last step failed */
	bool post_err_ = false;		/* ... posting it, after it was mapped */
	bool failed_with_rsp_ = false;	/* ... and it carried the response's credits */
};
} // namespace srpt
