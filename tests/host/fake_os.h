/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The host test double of the shims: every srpt_os_* function of
 * include/srpt/abi.h and include/ktl/platform.h, implemented in tests/host/fake_os.cpp with
 * bookkeeping and failure injection, plus the helpers tests use to drive
 * the core the way the kernel shims do.
 *
 * Kernel rules the fake enforces (a breach is a "violation", which the
 * test fixture turns into a test failure):
 *   - nothing that may sleep runs under a spinlock or in atomic context
 *     (fake::AtomicScope marks an interrupt-like context);
 *   - locks, completions and work items are initialised before use;
 *     mutexes are not locked recursively, unlocked only by their owner
 *     and not freed while locked; work is not freed while pending;
 *   - the srpt_os_* calls of abi.h keep the contract KUnit's double
 *     enforces too (tests/doubles/contract.h): devices, ports and the
 *     SRQ, channels, receive buffers, commands, and which calls may sleep;
 *   - the core calls out only with objects that exist;
 *   - every log line ends with a newline, at a known level;
 *   - every pointer freed was allocated.
 *
 * Adding an srpt_os_* function: implement it in fake_os.cpp (the
 * host build checks that fake_os.o defines every srpt_os_* function the
 * ABI declares) and, if it has state, reset that state in fake::reset().
 *
 * Not a gtest header: the fuzz targets use it too.
 */
#pragma once

#include <srpt/abi.h>

#include "../doubles/contract.h"
#include "../doubles/qp_model.h"

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <vector>

/*
 * The shim's per-device object, as the fake sees it. The core only
 * passes it back to srpt_os_* functions; tests configure it.
 */
struct srpt_os_device {
	struct Port {
		/* What srpt_os_port_query() returns. */
		srpt_port_attr attr{};
		/* Failure injection: returned as is when non-zero. */
		int query_error = 0;
		int devmgmt_enable_error = 0;
		int devmgmt_disable_error = 0;
		int agent_register_error = 0;
		/* State the core changes. */
		bool devmgmt = false;
		bool agent = false;
		srpt_port *agent_ctx = nullptr;	/* the context the agent was registered with */
		/* Call counters. */
		int query_calls = 0;
		int devmgmt_calls = 0;
		int agent_register_calls = 0;
		int agent_unregister_calls = 0;
	};

	srpt_os_device();
	~srpt_os_device();
	srpt_os_device(const srpt_os_device &) = delete;
	srpt_os_device &operator=(const srpt_os_device &) = delete;

	/* 1-based, like the ABI; aborts on a bad number (a test bug). */
	Port &port(unsigned num);

	std::string name;
	srpt_device_info info{};		/* info.name points into name */
	std::vector<Port> ports;		/* port 1 is ports[0] */
	/* Where srpt_core_device_add() stores the handle, like the shim's os->core. */
	srpt_device *core = nullptr;
	bool events = false;
	int events_start_calls = 0;
	int events_stop_calls = 0;
	/* IB/CM listener (srpt_os_ib_cm_listen/stop). */
	bool ib_cm_listening = false;
	srpt_u64 ib_cm_service_id = 0;
	/* Shared receive queue (srpt_os_srq_create/destroy). */
	bool srq = false;
	srpt_u32 srq_size = 0;
	/*
	 * Where it stands in the contract both doubles enforce
	 * (tests/doubles/contract.h); fake::remove() sets contract.removed:
	 * any later callout is a violation.
	 */
	srpt_contract_dev contract{};
	/* Run inside srpt_os_device_events_start/stop, after the state change. */
	std::function<void(srpt_os_device &)> on_events_start;
	std::function<void(srpt_os_device &)> on_events_stop;
};

/* Opaque LIO objects of the shim; the core only stores the pointers. */
struct srpt_os_tport {
	int unused;
};
struct srpt_os_tpg {
	int unused;
};

/*
 * The shim's side of a channel (CM id, QP, LIO session), made by a test
 * and handed to srpt_core_login(). Failures are injected with
 * fake::fail_call("srpt_os_channel_accept", 1, -EIO) and the like.
 */
struct srpt_os_channel {
	srpt_os_channel();
	~srpt_os_channel();
	srpt_os_channel(const srpt_os_channel &) = delete;
	srpt_os_channel &operator=(const srpt_os_channel &) = delete;

	srpt_os_device *dev = nullptr;		/* set by fake::login() */
	srpt_u8 cm = 0;				/* enum srpt_cm_kind, set by fake::login() */
	srpt_channel *core = nullptr;		/* from srpt_os_channel_create_qp() */
	srpt_qp_params qp{};
	std::vector<srpt_qp_params> qp_attempts;	/* every create_qp call, failed ones too */
	/* The QP as a real HCA holds it (tests/doubles/qp_model.h; Config::softroce_queues). */
	srpt_qp_model qpm{};
	/*
	 * Where the channel stands in the contract both doubles enforce
	 * (tests/doubles/contract.h), with what the login request allowed
	 * (set by fake::login()); tests read it through the accessors below.
	 */
	srpt_contract contract{};
	bool qp_live() const { return contract.qp; }
	bool qp_destroyed() const { return contract.qp_destroyed; }
	bool session_open() const { return contract.session; }
	bool accepted() const { return contract.accepted; }
	bool cm_destroyed() const { return contract.cm_destroyed; }
	bool freed() const { return contract.freed; }	/* the core let go */
	srpt_os_tpg *session_tpg = nullptr;
	std::string session_initiator;
	bool session_closed = false;
	std::vector<srpt_u8> accept_rsp;	/* the login response sent */
	int accept_calls = 0;
	std::vector<srpt_u8> reject;		/* the REJ private data sent */
	int reject_calls = 0;
	int ready_calls = 0;
	int notify_established_calls = 0;
	int disconnect_calls = 0;
	std::vector<srpt_disconnect> disconnects;	/* what each call sent */
	int qp_error_calls = 0;
	int zero_write_calls = 0;
	std::vector<srpt_os_recv *> posted;	/* receive queue, oldest first */
	/*
	 * The initiator's request credits: the login response's, less one
	 * for each IU received, plus each response's REQUEST LIMIT DELTA;
	 * an IU that spends none (an empty or unknown one, SRP_I_LOGOUT)
	 * counts until its buffer is posted again. Without an SRQ each must
	 * stand for a posted receive buffer: srpt_os_cmd_post() checks,
	 * until a buffer is lost (its post failed, or it completed in
	 * error: the QP is broken).
	 */
	long credits = 0;
	bool recv_lost = false;

	/*
	 * The LIO ACLs, as target_setup_session() sees them: the result of
	 * srpt_os_channel_open_session() for @initiator on @tpg (0 opens the
	 * session; LIO says -EACCES for a name without an ACL). Unset: every
	 * name is admitted. Called without the fake's lock held.
	 */
	std::function<int(srpt_os_tpg *tpg, const std::string &initiator)> acl;
	std::vector<std::string> session_tries;	/* every name tried, in order */
	bool qp_in_error = false;		/* srpt_os_channel_qp_error() succeeded */
	/* Zero-length writes posted and not completed yet (see fake::complete_zero_write). */
	int zero_writes_pending = 0;
	/*
	 * The thread of the CM's connection-request handler (srpt_core_login())
	 * while contract.in_cm_handler: srpt_os_channel_destroy_cm() from
	 * another thread waits for it to return, as ib_destroy_cm_id() and
	 * rdma_destroy_id() do. Set by fake::login().
	 */
	std::thread::id cm_handler_thread;
	/*
	 * Run first in srpt_os_channel_destroy_qp(), without the fake's lock:
	 * lets a test act (from another thread) while a release is paused
	 * between destroying the CM id and destroying the QP.
	 */
	std::function<void()> on_destroy_qp;
};

/* A receive buffer, allocated by srpt_os_recv_alloc(). */
struct srpt_os_recv {
	srpt_os_device *dev = nullptr;
	srpt_recv *core = nullptr;
	srpt_u32 size = 0;
	srpt_u32 align_offset = 0;
	srpt_u8 *buf = nullptr;			/* 512-byte aligned */
	srpt_u8 *iu = nullptr;			/* buf + align_offset */
	srpt_os_channel *posted_on = nullptr;	/* its receive queue, if posted there */
	bool posted_on_srq = false;
	/* Handed to the core by fake::receive() and not posted again since. */
	srpt_os_channel *received_on = nullptr;
	int post_count = 0;			/* successful srpt_os_recv_post() calls */
	bool no_credit = false;			/* holds an IU that spent no credit */
};

/* What srpt_os_cmd_init() got. */
struct CmdInfo {
	srpt_u64 tag = 0;
	srpt_u64 lun = 0;
	srpt_u32 data_len = 0;
	srpt_data_dir dir = SRPT_DATA_NONE;
	srpt_task_attr task_attr = SRPT_TASK_SIMPLE;
};

/* A send context, allocated by srpt_os_cmd_alloc(). */
struct srpt_os_cmd {
	/* A local buffer for a remote buffer (srpt_os_cmd_buf_add()). */
	struct Rdma {
		srpt_u64 va;
		srpt_u32 rkey;
		srpt_u32 len;
		bool mapped = false;		/* srpt_os_cmd_rdma_map() until unmap */
		bool posted = false;		/* ... and posted (kept: once per command) */
		bool kept = false;		/* SRPT_BUF_KEPT: never mapped */
		srpt_u32 map_off = 0;
		srpt_u32 map_len = 0;
	};
	/* A transfer posted: bytes [off, off + len) of buffer @buf, to or from the initiator. */
	struct Xfer {
		srpt_u32 buf;
		srpt_u32 off;
		srpt_u32 len;
	};
	srpt_os_channel *ch = nullptr;
	srpt_cmd *core = nullptr;
	long seq = 0;				/* allocation order */
	srpt_u32 rsp_size = 0;
	srpt_u8 *rsp_buf = nullptr;
	srpt_u8 sense[SRPT_SENSE_SIZE] = {};	/* LIO's sense data for the response */
	/*
	 * Where it stands in the contract both doubles enforce
	 * (tests/doubles/contract.h): its buffers' count and direction, from
	 * the first buf_add; init; LIO queued its read data
	 * (fake::lio_queue_response() with data: only then may it be mapped).
	 */
	srpt_contract_cmd contract{};
	/* The current command, as LIO would see it. */
	CmdInfo info{};
	bool submitted = false;
	std::vector<srpt_u8> cdb;		/* 16 bytes once submitted */
	void *imm_data = nullptr;
	/* The core posted the buffer holding imm_data again: LIO was done with it. */
	bool imm_given_back = false;
	srpt_u32 imm_len = 0;
	std::vector<Rdma> rdma;			/* from buf_add */
	std::vector<Xfer> xfers;		/* every transfer posted, in order */
	bool tmr = false;
	srpt_u64 tmr_lun = 0, tmr_task_tag = 0, tmr_tag = 0;
	srpt_tmf tmr_fn = SRPT_TMF_UNSUPPORTED;
	std::vector<std::vector<srpt_u8>> responses;	/* every response posted */
	std::vector<int> responses_with_data;	/* ... whether transfers went with it */
	int execute_calls = 0;
	int post_calls = 0;
	int map_calls = 0;
	int abort_calls = 0;
	int abort_transient = -1;		/* of the last abort */
	int release_data_calls = 0;
	int put_calls = 0;
	int done_calls = 0;
	int init_calls = 0;
	int submit_calls = 0;
	int submit_tmr_calls = 0;
	/* Work requests posted and not completed (see fake::complete_send/rdma). */
	int sends_pending = 0;
	int rdma_pending = 0;			/* posts without a response */
	int wrs_pending = 0;			/* send queue entries they take */
};

namespace fake {

using Device = srpt_os_device;

/* ---- Whole-fake state ---- */

struct Config {
	bool capture_log = true;	/* keep log lines for assertions */
	bool echo_log = false;		/* also print them (SRPT_FAKE_ECHO=1 sets this) */
	int listen_error = 0;		/* srpt_os_rdma_cm_listen(IPv4) fails with this */
	int listen6_error = 0;		/* ... (IPv6) */
	/* What a completion the test fails (ok false) says; a drain always flushes. */
	srpt_wc_status fail_status = SRPT_WC_WR_FLUSH_ERR;
	/* The interfaces of init_net, for the scope of srpt_os_inet_pton(). */
	std::vector<std::string> netdevs{"lo", "srpt0"};
	/* srpt_os_wait_for_completion() first runs pending work, as a workqueue would. */
	bool run_work_on_wait = true;
	/* ... then waits for another thread at most this long before timing out. */
	unsigned max_real_wait_ms = 0;
	/*
	 * A wait that times out this many times in a row waits for something
	 * that never comes: a violation, and the wait returns as if completed
	 * so that the test ends (and fails) instead of hanging.
	 */
	unsigned max_wait_timeouts = 100;
	/*
	 * The device's queues. A real HCA (mlx5) makes a QP's queues exactly
	 * as large as asked and fails a post beyond them with -ENOMEM;
	 * soft-RoCE rounds every queue up to a power of two, which hides a
	 * missing slot (for the drain, say). Strict is the default: a test
	 * that wants soft-RoCE's queues says why.
	 */
	bool softroce_queues = false;
	/*
	 * The CQ is polled on a workqueue (IB_POLL_WORKQUEUE): run_work() also
	 * completes, as flushed, the receives and zero-length writes posted on
	 * a QP that is in the error state. Off: only fake::receive() and
	 * fake::complete_zero_write() complete them. (srpt_os_channel_destroy_qp()
	 * always flushes everything outstanding, as ib_drain_qp() does.)
	 */
	bool flush_errored_qps = true;
	/*
	 * LIO, called without the fake's lock at the end of
	 * srpt_os_cmd_submit() / srpt_os_cmd_submit_tmr() (after a successful
	 * one) / srpt_os_cmd_execute(): a test plays LIO answering
	 * synchronously, as it does for a CDB it fails at once.
	 */
	std::function<void(srpt_os_cmd *)> on_submit;
	std::function<void(srpt_os_cmd *)> on_submit_tmr;
	std::function<void(srpt_os_cmd *)> on_execute;
	/*
	 * Called without the fake's lock at the end of a successful
	 * srpt_os_cmd_rdma_map(), inside the send queue's mutex: a test
	 * completes other commands' work there, as another CPU may while
	 * the core maps a step.
	 */
	std::function<void(srpt_os_cmd *)> on_rdma_map;
	/*
	 * The work requests srpt_os_cmd_rdma_map() says a transfer takes:
	 * one per this many bytes (0: one per mapping), plus @rdma_extra_wrs
	 * (memory registration and invalidation).
	 */
	std::uint32_t rdma_bytes_per_wr = 0;
	std::uint32_t rdma_extra_wrs = 0;
	/*
	 * srpt_os_cmd_buf_add() keeps a command's one buffer of read data of
	 * at most 4096 bytes mapped (SRPT_BUF_KEPT), as the shim does with a
	 * send context's page where it can.
	 */
	bool kept_page = false;
};
Config &config();

/*
 * Forgets logs, warnings, violations, the trace, counters, injected
 * failures, queued work and the configuration. Live allocations and
 * initialised locks are real state and stay.
 */
void reset();

/* ---- Memory ---- */

/* Fails the @nth allocation from now (1: the next one); 0 disarms. */
void fail_alloc(long nth);
long alloc_calls();		/* since reset() */
long failed_allocs();		/* since reset() */
long live_allocs();		/* allocated and not yet freed, ever */
std::size_t live_bytes();

/* ---- Log, warnings, violations ---- */

struct LogLine {
	int level;
	bool ratelimited;
	std::string text;
};
std::vector<LogLine> logs();
/* Lines containing @needle (at @level, or any level when -1). */
int log_count(const std::string &needle, int level = -1);
std::string log_text();		/* every line, for failure messages */
void clear_logs();

/* srpt_os_warn() calls, as "file:line: what". */
std::vector<std::string> warnings();
std::vector<std::string> take_warnings();
/* Broken kernel rules (see the top of this file). */
std::vector<std::string> violations();
std::vector<std::string> take_violations();

/*
 * The order of callouts to the IB/LIO side, one string each:
 * "query dev/1", "devmgmt dev/1 on", "devmgmt dev/1 off",
 * "agent_register dev/1", "agent_unregister dev/1", "events_start dev",
 * "events_stop dev", "listen 1234".
 */
std::vector<std::string> trace();
std::vector<std::string> take_trace();

/*
 * Generic failure injection for the shim functions that take no per-port
 * setting: the @nth call (1: the next) of @fn ("channel_accept" or
 * "srpt_os_channel_accept") returns @err (NULL for the allocating ones),
 * and so do the @times - 1 calls after it. Counts are per function since
 * reset().
 */
void fail_call(const std::string &fn, long nth, int err, long times = 1);
long calls(const std::string &fn);

/* ---- Deferred work ---- */

std::size_t pending_work();
/* Runs queued work (and work queued meanwhile) until none is left; returns the count. */
std::size_t run_work();
/* Drops queued work without running it. */
void drop_work();

/* ---- Time ---- */

std::uint64_t now_ns();
void advance_ns(std::uint64_t ns);

/* ---- Contexts and hooks ---- */

/* Marks the current thread as in atomic context (an IRQ handler) for its scope. */
class AtomicScope {
public:
	AtomicScope();
	~AtomicScope();
	AtomicScope(const AtomicScope &) = delete;
	AtomicScope &operator=(const AtomicScope &) = delete;
};

/*
 * Called on this or any thread right after a core mutex is unlocked; it
 * stays installed while it returns true. The hook may call into the core
 * (it is not re-entered meanwhile). Lets a test run one operation inside
 * another deterministically, as another thread could.
 */
void set_mutex_unlock_hook(std::function<bool()> hook);

/* ---- RDMA devices ---- */

/*
 * A device with @ports ports: ConnectX-like identity, InfiniBand, active,
 * lid = 0x10 + port, sm_lid = 1, GID fe80::(node_guid + port).
 */
std::unique_ptr<Device> make_device(const std::string &name, unsigned ports,
				    std::uint64_t node_guid);
/* The GID make_device() gives port @port of a device with @node_guid. */
void default_gid(std::uint64_t node_guid, unsigned port, std::uint8_t out[16]);

/* Names of a port, formatted here with snprintf (independent of the core). */
std::string guid_name(const Device &d, unsigned port);
std::string gid_name(const Device &d, unsigned port);

/* srpt_core_device_add(&d, &d.info, &d.core), as the shim calls it. */
int add(Device &d);
/* srpt_core_device_remove(d.core); then the device must not be called. */
void remove(Device &d);

/*
 * The shim's event handler: srpt_core_port_event(d.core, ...) in atomic
 * context. False (and nothing delivered) while events are stopped.
 */
bool deliver_event(Device &d, unsigned port, int event);

/*
 * The shim's MAD receive handler on @port: srpt_core_mad_recv() with the
 * context the port's agent was registered with. nullopt when no agent
 * is registered.
 */
std::optional<std::size_t> deliver_mad(Device &d, unsigned port, const void *req,
				       std::size_t req_len, void *rsp, std::size_t rsp_len);

/* ---- Channels, receive buffers, commands ---- */

/*
 * srpt_core_login() as the shim's CM handler calls it: marks @ch as in
 * its CM handler meanwhile (see srpt_os_channel::in_cm_handler).
 */
int login(Device &d, unsigned port, srpt_os_channel &ch, const srpt_login_info &info);

/* The code @ch's own CM (IB/CM or RDMA/CM) reports for each of these. */
enum class Cm {
	kEstablished,		/* RTU / ESTABLISHED */
	kDisconnectRequest,	/* DREQ / DISCONNECTED */
	kTimewaitExit,
};
int cm_code(const srpt_os_channel &ch, Cm what);
/* srpt_core_cm_event(ch.core, cm_code(ch, what)), as the CM's callback. */
void cm_event(srpt_os_channel &ch, Cm what);

/*
 * An IU arrives: the oldest receive buffer posted on @ch (or, with
 * @srq, any one posted on @srq's SRQ) gets @len bytes of @iu and the
 * core gets srpt_core_recv_done(@ch.core, ..., @ok, @len, now_ns()). Returns the
 * buffer, or nullptr (and nothing delivered) when none is posted.
 */
srpt_os_recv *receive(srpt_os_channel &ch, const void *iu, std::size_t len, bool ok = true,
		      Device *srq = nullptr);
/* Receive buffers posted on @d's SRQ. */
std::size_t srq_posted(const Device &d);

/*
 * Completions, delivered as the CQ would: each checks that such a work
 * request is outstanding (a violation otherwise, and nothing delivered).
 */
bool complete_zero_write(srpt_os_channel &ch, bool ok);
bool complete_send(srpt_os_cmd *cmd, bool ok);
/* LIO's queue_data_in (@with_data) or queue_status for @cmd: srpt_core_queue_response(). */
int lio_queue_response(srpt_os_cmd *cmd, srpt_cmd_status st, bool with_data);
/* A post without a response: srpt_core_rdma_done(). */
bool complete_rdma(srpt_os_cmd *cmd, bool ok);
/* Work requests posted on @ch's send queue and not completed (zero-length writes apart). */
int send_queue_used(const srpt_os_channel &ch);

/* The send contexts the core allocated for @ch, in allocation order. */
std::vector<srpt_os_cmd *> cmds_of(const srpt_os_channel &ch);
/* The receive buffer whose memory holds @p, or nullptr. */
srpt_os_recv *recv_holding(const void *p);

/* Core mutexes the calling thread holds now. */
int mutexes_held();

std::size_t live_channels();	/* srpt_os_channel objects not yet freed by the core */
std::size_t live_recvs();	/* receive buffers allocated and not freed */
std::size_t live_cmds();	/* send contexts allocated and not freed */

/* ---- RDMA/CM ---- */

std::vector<std::uint16_t> listen_calls();	/* every srpt_os_rdma_cm_listen(IPv4) port */
std::vector<std::uint16_t> listen6_calls();	/* ... (IPv6) */
int listening_port();				/* the IPv4 listener that is up, 0 for none */
int listening6_port();				/* ... IPv6 */

} // namespace fake
