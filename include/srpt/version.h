/* SPDX-License-Identifier: GPL-2.0-only */
/* The module version, shared by the shims (MODULE_VERSION) and the core. */
#ifndef SRPT_VERSION_H
#define SRPT_VERSION_H

#define SRPT_VERSION "0.1.0"

#endif
