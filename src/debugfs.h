/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef SRPT_DEBUGFS_H
#define SRPT_DEBUGFS_H

void srpt_debugfs_init(void);
void srpt_debugfs_exit(void);

#endif /* SRPT_DEBUGFS_H */
