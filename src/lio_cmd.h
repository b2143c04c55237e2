/* SPDX-License-Identifier: GPL-2.0-only */
/* LIO callbacks for sessions and commands (see lio_cmd.c). */
#ifndef SRPT_LIO_CMD_H
#define SRPT_LIO_CMD_H

#include <target/target_core_base.h>

int srpt_check_stop_free(struct se_cmd *cmd);
void srpt_release_cmd(struct se_cmd *cmd);
void srpt_close_session(struct se_session *sess);
int srpt_write_pending(struct se_cmd *cmd);
int srpt_get_tcm_cmd_state(struct se_cmd *cmd);
int srpt_queue_data_in(struct se_cmd *cmd);
int srpt_queue_status(struct se_cmd *cmd);
void srpt_queue_tm_rsp(struct se_cmd *cmd);
void srpt_aborted_task(struct se_cmd *cmd);

#endif /* SRPT_LIO_CMD_H */
