/* SPDX-License-Identifier: GPL-2.0-only */
/* The kernel side of LIO target ports and TPGs. */
#ifndef SRPT_LIO_H
#define SRPT_LIO_H

#include <target/target_core_base.h>

#include <srpt/abi.h>

struct srpt_os_tport {
	struct se_wwn wwn;
	struct srpt_tport *core;
};

struct srpt_os_tpg {
	struct se_portal_group se_tpg;
	struct srpt_tpg *core;
};

int srpt_lio_register(void);
void srpt_lio_unregister(void);

#endif /* SRPT_LIO_H */
