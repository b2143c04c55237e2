/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The differences between the supported kernels (Debian's 6.1 and the
 * bookworm-backports 6.12), each behind one small helper.
 */
#ifndef SRPT_COMPAT_H
#define SRPT_COMPAT_H

#include <target/target_core_fabric.h>

/*
 * Since 6.10 a fabric may submit to the backend in its own context; we
 * do, as we submit from the CQ's work item already. Kbuild defines
 * SRPT_HAVE_DIRECT_SUBMIT when the headers have the field (distribution
 * backports included).
 */
#ifdef SRPT_HAVE_DIRECT_SUBMIT
#define SRPT_FABRIC_SUBMIT_OPS						\
	.direct_submit_supp = 1,					\
	.default_submit_type = TARGET_DIRECT_SUBMIT,
#else
#define SRPT_FABRIC_SUBMIT_OPS
#endif

/* target_submit() returns int since 6.10; failures reach queue_status anyway. */
static inline void srpt_target_submit(struct se_cmd *cmd)
{
	target_submit(cmd);
}

#endif /* SRPT_COMPAT_H */
