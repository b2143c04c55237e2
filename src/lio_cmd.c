// SPDX-License-Identifier: GPL-2.0-only
/*
 * LIO callbacks for sessions and commands. No session exists until the
 * login path creates one, so none of these can be called yet.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/bug.h>
#include <target/target_core_fabric.h>

#include "lio_cmd.h"

int srpt_check_stop_free(struct se_cmd *cmd)
{
	return target_put_sess_cmd(cmd);
}

void srpt_release_cmd(struct se_cmd *cmd)
{
	WARN_ON_ONCE(1);
}

void srpt_close_session(struct se_session *sess)
{
	WARN_ON_ONCE(1);
}

int srpt_write_pending(struct se_cmd *cmd)
{
	WARN_ON_ONCE(1);
	return -EINVAL;
}

int srpt_get_tcm_cmd_state(struct se_cmd *cmd)
{
	return 0;
}

int srpt_queue_data_in(struct se_cmd *cmd)
{
	WARN_ON_ONCE(1);
	return -EINVAL;
}

int srpt_queue_status(struct se_cmd *cmd)
{
	WARN_ON_ONCE(1);
	return -EINVAL;
}

void srpt_queue_tm_rsp(struct se_cmd *cmd)
{
	WARN_ON_ONCE(1);
}

void srpt_aborted_task(struct se_cmd *cmd)
{
	WARN_ON_ONCE(1);
}
