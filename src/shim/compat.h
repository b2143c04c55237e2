/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The differences between the supported kernels (Debian's 5.10, 6.1,
 * 6.12 and 7.x), each behind one small helper. Kbuild defines the
 * SRPT_HAVE_* macros from the headers, so that a distribution backport
 * counts as the newer kernel.
 */
#ifndef SRPT_COMPAT_H
#define SRPT_COMPAT_H

#include <linux/ratelimit.h>
#include <linux/scatterlist.h>
#include <linux/workqueue.h>
#include <rdma/ib_cm.h>
#include <target/target_core_base.h>
#include <target/target_core_fabric.h>

/*
 * Since 6.10 a fabric may submit to the backend in its own context; we
 * do, as we submit from the CQ's work item already.
 */
#ifdef SRPT_HAVE_DIRECT_SUBMIT
#define SRPT_FABRIC_SUBMIT_OPS						\
	.direct_submit_supp = 1,					\
	.default_submit_type = TARGET_DIRECT_SUBMIT,
#else
#define SRPT_FABRIC_SUBMIT_OPS
#endif

/*
 * Since 6.17 a workqueue says whether it is per-CPU; 7.x warns when it
 * does not. Ours always was (the default before).
 */
#ifdef SRPT_HAVE_WQ_PERCPU
#define SRPT_WQ_PERCPU WQ_PERCPU
#else
#define SRPT_WQ_PERCPU 0
#endif

/* Since 5.11 an IB/CM listener matches its service ID exactly. */
static inline int srpt_ib_cm_listen(struct ib_cm_id *id, __be64 service_id)
{
#ifdef SRPT_HAVE_IB_CM_SERVICE_MASK
	return ib_cm_listen(id, service_id, 0);
#else
	return ib_cm_listen(id, service_id);
#endif
}

/* Before 5.12: mark the session as tearing down, as target_stop_session() does. */
static inline void srpt_target_stop_session(struct se_session *sess)
{
#ifdef SRPT_HAVE_TARGET_STOP_SESSION
	target_stop_session(sess);
#else
	target_sess_cmd_list_set_waiting(sess);
#endif
}

#ifdef SRPT_HAVE_TARGET_INIT_CMD
static inline int srpt_target_init_cmd(struct se_cmd *cmd, struct se_session *sess,
				       unsigned char *sense, u64 lun, u32 len,
				       int task_attr, int dir, int flags)
{
	return target_init_cmd(cmd, sess, sense, lun, len, task_attr, dir, flags);
}

static inline int srpt_target_submit_prep(struct se_cmd *cmd, unsigned char *cdb,
					  struct scatterlist *sgl, u32 sgl_count)
{
	return target_submit_prep(cmd, cdb, sgl, sgl_count, NULL, 0, NULL, 0, GFP_KERNEL);
}

/* target_submit() returns int since 6.10; failures reach queue_status anyway. */
static inline void srpt_target_submit(struct se_cmd *cmd)
{
	target_submit(cmd);
}
#else
/*
 * Before 5.13 target_submit_cmd_map_sgls() did all three in one call;
 * these are its steps, split where 5.13 split them (the SGL mapping of
 * transport_generic_map_mem_to_cmd(), which is not exported, inline).
 */
static inline int srpt_target_init_cmd(struct se_cmd *cmd, struct se_session *sess,
				       unsigned char *sense, u64 lun, u32 len,
				       int task_attr, int dir, int flags)
{
	transport_init_se_cmd(cmd, sess->se_tpg->se_tpg_tfo, sess, len, dir, task_attr,
			      sense, lun);
	return target_get_sess_cmd(cmd, flags & TARGET_SCF_ACK_KREF);
}

static inline int srpt_target_submit_prep(struct se_cmd *cmd, unsigned char *cdb,
					  struct scatterlist *sgl, u32 sgl_count)
{
	sense_reason_t rc;

	rc = target_cmd_init_cdb(cmd, cdb);
	if (!rc)
		rc = transport_lookup_cmd_lun(cmd);
	if (rc) {
		transport_send_check_condition_and_sense(cmd, rc, 0);
		target_put_sess_cmd(cmd);
		return -EIO;
	}
	rc = target_cmd_parse_cdb(cmd);
	if (!rc && sgl_count && (cmd->se_cmd_flags & SCF_OVERFLOW_BIT))
		rc = TCM_INVALID_CDB_FIELD;
	if (rc) {
		transport_generic_request_failure(cmd, rc);
		return -EIO;
	}
	if (sgl_count) {
		cmd->t_data_sg = sgl;
		cmd->t_data_nents = sgl_count;
		cmd->se_cmd_flags |= SCF_PASSTHROUGH_SG_TO_MEM_NOALLOC;
	}
	return 0;
}

static inline void srpt_target_submit(struct se_cmd *cmd)
{
	struct scatterlist *sgl = cmd->t_data_sg;

	/* What target_submit() zeroes: a non-data read's single buffer. */
	if (cmd->t_data_nents && !(cmd->se_cmd_flags & SCF_SCSI_DATA_CDB) &&
	    cmd->data_direction == DMA_FROM_DEVICE)
		memset(sg_virt(sgl), 0, sgl->length);
	core_alua_check_nonop_delay(cmd);
	transport_handle_cdb_direct(cmd);
}
#endif

/* Since 6.16 a ratelimit_state counts what it dropped in an atomic_t. */
static inline int srpt_ratelimit_take_missed(struct ratelimit_state *rs)
{
#ifdef SRPT_HAVE_RATELIMIT_RESET_MISS
	return ratelimit_state_reset_miss(rs);
#else
	unsigned long flags;
	int missed;

	raw_spin_lock_irqsave(&rs->lock, flags);
	missed = rs->missed;
	rs->missed = 0;
	raw_spin_unlock_irqrestore(&rs->lock, flags);
	return missed;
#endif
}

#endif /* SRPT_COMPAT_H */
