// SPDX-License-Identifier: GPL-2.0-only
/*
 * The core's side of include/srpt/abi.h: one trampoline per srpt_core_*
 * function, in the header's order. Each turns handles into objects and
 * calls the one member or function that owns the work; nothing else
 * happens here. The data path's are flattened, so that in the module's
 * single translation unit a completion or LIO callback runs the core's
 * work without further calls.
 */
#include <ktl/refptr.h>
#include <ktl/string.h>
#include <srpt/abi.h>
#include <srpt/channel.h>
#include <srpt/channel_io.h>
#include <srpt/device.h>
#include <srpt/handles.h>
#include <srpt/cmd.h>
#include <srpt/listener.h>
#include <srpt/live.h>
#include <srpt/logins.h>
#include <srpt/mad.h>
#include <srpt/module.h>
#include <srpt/params.h>
#include <srpt/rdma_port.h>
#include <srpt/target.h>

using namespace srpt;

namespace {

/* A configfs show: what @format wrote into @page, or its negative errno. */
template <typename Fn> srpt_ssize_t show(char *page, srpt_size_t size, Fn format)
{
	ktl::TextBuf out(page, size);
	const int ret = format(out);

	return ret ? ret : static_cast<srpt_ssize_t>(out.size());
}

} // namespace

/* ---- Module lifetime and parameters ---- */

extern "C" int srpt_core_init(void)
{
	return core_init();
}

extern "C" void srpt_core_exit(void)
{
	core_exit();
}

extern "C" void srpt_core_start(void)
{
	core_start();
}

extern "C" int srpt_core_param_set(enum srpt_param p, const char *val)
{
	return set_param(p, val);
}

extern "C" int srpt_core_param_get(enum srpt_param p, char *buf, srpt_size_t size)
{
	return static_cast<int>(show(buf, size, [&](ktl::TextBuf &out) { return format_param(p, out); }));
}

/* ---- RDMA devices and ports ---- */

extern "C" int srpt_core_device_add(struct srpt_os_device *os, const struct srpt_device_info *info,
				    struct srpt_device **out)
{
	return Device::create(os, *info, out);
}

extern "C" void srpt_core_device_remove(struct srpt_device *dev)
{
	from_handle<Device>(dev)->remove();
}

extern "C" void srpt_core_port_event(struct srpt_device *dev, srpt_u32 port_num, int event)
{
	from_handle<Device>(dev)->on_port_event(port_num, event);
}

extern "C" srpt_size_t srpt_core_mad_recv(struct srpt_port *port, const void *req,
					  srpt_size_t req_len, void *rsp, srpt_size_t rsp_len)
{
	return answer_dm_mad(*from_handle<RdmaPort>(port),
			     ktl::Bytes(static_cast<const u8 *>(req), req_len),
			     ktl::MutableBytes(static_cast<u8 *>(rsp), rsp_len));
}

/* ---- LIO: target ports, TPGs, node ACLs and configfs attributes ---- */

extern "C" int srpt_core_tport_create(const char *name, struct srpt_os_tport *os,
				      struct srpt_tport **out)
{
	TargetPort *t;
	const int ret = TargetPort::create(name, os, &t);

	if (ret == 0)
		*out = to_handle<srpt_tport>(t);
	return ret;
}

extern "C" void srpt_core_tport_destroy(struct srpt_tport *tport)
{
	from_handle<TargetPort>(tport)->destroy();
}

extern "C" const char *srpt_core_tport_name(struct srpt_tport *tport)
{
	return from_handle<TargetPort>(tport)->name();
}

extern "C" int srpt_core_tpg_create(struct srpt_tport *tport, const char *name,
				    struct srpt_os_tpg *os, struct srpt_tpg **out)
{
	Tpg *tpg;
	const int ret = Tpg::create(from_handle<TargetPort>(tport), os, &tpg);

	if (ret == 0)
		*out = to_handle<srpt_tpg>(tpg);
	return ret;
}

extern "C" void srpt_core_tpg_destroy(struct srpt_tpg *tpg)
{
	from_handle<Tpg>(tpg)->destroy();
}

extern "C" int srpt_core_tpg_enable(struct srpt_tpg *tpg, int enable)
{
	return from_handle<Tpg>(tpg)->enable(enable != 0);
}

extern "C" srpt_ssize_t srpt_core_tpg_attrib_show(struct srpt_tpg *tpg, enum srpt_tpg_attrib a,
						  char *page, srpt_size_t size)
{
	const int attrib = a;

	return show(page, size, [&](ktl::TextBuf &out) {
		return show_tpg_attrib(*from_handle<Tpg>(tpg), attrib, out);
	});
}

extern "C" srpt_ssize_t srpt_core_tpg_attrib_store(struct srpt_tpg *tpg, enum srpt_tpg_attrib a,
						   const char *page, srpt_size_t count)
{
	return store_tpg_attrib(*from_handle<Tpg>(tpg), a, page, count);
}

extern "C" srpt_ssize_t srpt_core_rdma_cm_port_show(char *page, srpt_size_t size)
{
	return show(page, size, [](ktl::TextBuf &out) {
		show_rdma_cm_port(out);
		return 0;
	});
}

extern "C" srpt_ssize_t srpt_core_rdma_cm_port_store(const char *page, srpt_size_t count)
{
	const int ret = store_rdma_cm_port(ktl::Span<const char>(page, ktl::strnlen(page, count)));

	return ret ? ret : static_cast<srpt_ssize_t>(count);
}

extern "C" srpt_ssize_t srpt_core_tport_stats_show(struct srpt_tport *tport, char *page,
						   srpt_size_t size)
{
	return show(page, size, [&](ktl::TextBuf &out) {
		format_tport_stats(*from_handle<TargetPort>(tport), out);
		return 0;
	});
}

extern "C" srpt_ssize_t srpt_core_nacl_stats_show(struct srpt_tpg *tpg, const char *initiator,
						  char *page, srpt_size_t size)
{
	return show(page, size, [&](ktl::TextBuf &out) {
		format_acl_stats(*from_handle<Tpg>(tpg), initiator, out);
		return 0;
	});
}

extern "C" srpt_ssize_t srpt_core_nacl_info_show(struct srpt_tpg *tpg, const char *initiator,
						 char *page, srpt_size_t size)
{
	return show(page, size, [&](ktl::TextBuf &out) {
		format_acl_info(*from_handle<Tpg>(tpg), initiator, out);
		return 0;
	});
}

extern "C" srpt_ssize_t srpt_core_objects_show(char *buf, srpt_size_t size)
{
	return show(buf, size, [](ktl::TextBuf &out) {
		format_live_objects(out);
		return 0;
	});
}

extern "C" int srpt_core_nacl_init(const char *name)
{
	return check_acl_name(name);
}

/* ---- Logins and channels ---- */

extern "C" int srpt_core_login(struct srpt_device *dev, srpt_u32 port_num,
			       struct srpt_os_channel *os, const struct srpt_login_info *info,
			       struct srpt_channel **out)
{
	Channel *ch;
	const int ret = Channel::login(from_handle<Device>(dev), port_num, os, *info, &ch);

	if (ret == 0)
		*out = to_handle<srpt_channel>(ch);
	return ret;
}

extern "C" void srpt_core_cm_event(struct srpt_channel *ch, int event)
{
	from_handle<Channel>(ch)->on_cm_event(event);
}

extern "C" void srpt_core_qp_event(struct srpt_channel *ch, int event)
{
	from_handle<Channel>(ch)->on_qp_event(event);
}

extern "C" void srpt_core_close_session(struct srpt_channel *ch)
{
	from_handle<Channel>(ch)->close_session();
}

extern "C" [[gnu::flatten]] void srpt_core_recv_done(struct srpt_channel *ch, struct srpt_recv *r,
						    enum srpt_wc_status status, srpt_u32 byte_len,
						    srpt_u64 now_ns)
{
	from_handle<Channel>(ch)->io().on_recv(from_handle<RecvCtx>(r), status, byte_len, now_ns);
}

extern "C" void srpt_core_zero_write_done(struct srpt_channel *ch, enum srpt_wc_status status)
{
	from_handle<Channel>(ch)->on_zero_write_done(status == SRPT_WC_SUCCESS);
}

/* ---- Commands: the data path ---- */

extern "C" [[gnu::flatten]] int srpt_core_write_pending(struct srpt_cmd *cmd)
{
	return from_handle<Cmd>(cmd)->write_pending();
}

extern "C" [[gnu::flatten]] int srpt_core_queue_response(struct srpt_cmd *cmd,
							struct srpt_cmd_status st, int with_data)
{
	from_handle<Cmd>(cmd)->queue_response(st, with_data != 0);
	return 0;
}

extern "C" void srpt_core_queue_tm_response(struct srpt_cmd *cmd, enum srpt_tmr_response r)
{
	from_handle<Cmd>(cmd)->queue_tm_response(r);
}

extern "C" void srpt_core_aborted_task(struct srpt_cmd *cmd)
{
	from_handle<Cmd>(cmd)->aborted();
}

extern "C" [[gnu::flatten]] void srpt_core_release_cmd(struct srpt_cmd *cmd)
{
	from_handle<Cmd>(cmd)->release();
}

extern "C" int srpt_core_cmd_state(struct srpt_cmd *cmd)
{
	return static_cast<int>(from_handle<Cmd>(cmd)->state());
}

extern "C" [[gnu::flatten]] void srpt_core_rdma_done(struct srpt_cmd *cmd, enum srpt_wc_status status)
{
	from_handle<Cmd>(cmd)->rdma_done(status);
}

extern "C" [[gnu::flatten]] void srpt_core_send_done(struct srpt_cmd *cmd, enum srpt_wc_status status,
						    srpt_u64 now_ns)
{
	from_handle<Cmd>(cmd)->send_done(status, now_ns);
}
