// SPDX-License-Identifier: GPL-2.0-only
/*
 * The data path callouts of include/srpt/abi.h (channels, receive
 * buffers, the SRQ, commands). The core reaches them only through a login
 * or a use_srq switch, which no suite makes; they exist so the core
 * links. A call WARNs, and a WARN during the tests fails scripts/kunit.
 */
#include <linux/bug.h>
#include <linux/errno.h>
#include <linux/types.h>

#include <srpt/abi.h>

#define UNREACHED() WARN(1, "%s: not expected by the KUnit suites\n", __func__)

int srpt_os_channel_create_qp(struct srpt_os_channel *os, struct srpt_channel *core,
			      const struct srpt_qp_params *p)
{
	UNREACHED();
	return -EOPNOTSUPP;
}

int srpt_os_channel_open_session(struct srpt_os_channel *os,
				 struct srpt_os_tpg *tpg, const char *initiator)
{
	UNREACHED();
	return -EOPNOTSUPP;
}

int srpt_os_channel_accept(struct srpt_os_channel *os, const void *rsp,
			   size_t len)
{
	UNREACHED();
	return -EOPNOTSUPP;
}

void srpt_os_cm_reject(struct srpt_os_channel *os, const void *rej, size_t len)
{
	UNREACHED();
}

int srpt_os_channel_ready(struct srpt_os_channel *os)
{
	UNREACHED();
	return -EOPNOTSUPP;
}

void srpt_os_channel_notify_established(struct srpt_os_channel *os)
{
	UNREACHED();
}

int srpt_os_channel_disconnect(struct srpt_os_channel *os)
{
	UNREACHED();
	return -EOPNOTSUPP;
}

int srpt_os_channel_qp_error(struct srpt_os_channel *os)
{
	UNREACHED();
	return -EOPNOTSUPP;
}

int srpt_os_channel_post_zero_write(struct srpt_os_channel *os)
{
	UNREACHED();
	return -EOPNOTSUPP;
}

void srpt_os_channel_close_session(struct srpt_os_channel *os)
{
	UNREACHED();
}

void srpt_os_channel_destroy_cm(struct srpt_os_channel *os)
{
	UNREACHED();
}

void srpt_os_channel_destroy_qp(struct srpt_os_channel *os)
{
	UNREACHED();
}

void srpt_os_channel_free(struct srpt_os_channel *os)
{
	UNREACHED();
}

struct srpt_os_recv *srpt_os_recv_alloc(struct srpt_os_device *dev,
					struct srpt_recv *core, u32 size,
					u32 align_offset, void **iu)
{
	UNREACHED();
	return NULL;
}

void srpt_os_recv_free(struct srpt_os_recv *r)
{
	UNREACHED();
}

int srpt_os_recv_post(struct srpt_os_device *dev, struct srpt_os_channel *ch,
		      struct srpt_os_recv *r)
{
	UNREACHED();
	return -EOPNOTSUPP;
}

int srpt_os_srq_create(struct srpt_os_device *dev, u32 size)
{
	UNREACHED();
	return -EOPNOTSUPP;
}

void srpt_os_srq_destroy(struct srpt_os_device *dev)
{
	UNREACHED();
}

struct srpt_os_cmd *srpt_os_cmd_alloc(struct srpt_os_channel *ch,
				      struct srpt_cmd *core, u32 rsp_size,
				      void **rsp_buf)
{
	UNREACHED();
	return NULL;
}

void srpt_os_cmd_free(struct srpt_os_cmd *cmd)
{
	UNREACHED();
}

int srpt_os_cmd_init(struct srpt_os_cmd *cmd, const struct srpt_cmd_info *info)
{
	UNREACHED();
	return -EOPNOTSUPP;
}

void srpt_os_cmd_map_imm(struct srpt_os_cmd *cmd, void *data, u32 len)
{
	UNREACHED();
}

int srpt_os_cmd_rdma_prepare(struct srpt_os_cmd *cmd, u32 count,
			     enum srpt_data_dir dir)
{
	UNREACHED();
	return -EOPNOTSUPP;
}

int srpt_os_cmd_rdma_add(struct srpt_os_cmd *cmd, u64 va, u32 rkey, u32 len)
{
	UNREACHED();
	return -EOPNOTSUPP;
}

void srpt_os_cmd_release_data(struct srpt_os_cmd *cmd)
{
	UNREACHED();
}

void srpt_os_cmd_submit(struct srpt_os_cmd *cmd, const u8 *cdb)
{
	UNREACHED();
}

void srpt_os_cmd_abort(struct srpt_os_cmd *cmd)
{
	UNREACHED();
}

int srpt_os_cmd_submit_tmr(struct srpt_os_cmd *cmd, u64 lun, enum srpt_tmf fn,
			   u64 task_tag, u64 tag)
{
	UNREACHED();
	return -EOPNOTSUPP;
}

void srpt_os_cmd_execute(struct srpt_os_cmd *cmd)
{
	UNREACHED();
}

int srpt_os_cmd_post_rdma_read(struct srpt_os_cmd *cmd)
{
	UNREACHED();
	return -EOPNOTSUPP;
}

int srpt_os_cmd_post_response(struct srpt_os_cmd *cmd, u32 len, int with_data)
{
	UNREACHED();
	return -EOPNOTSUPP;
}

void srpt_os_cmd_put(struct srpt_os_cmd *cmd)
{
	UNREACHED();
}

void srpt_os_cmd_done(struct srpt_os_cmd *cmd)
{
	UNREACHED();
}
