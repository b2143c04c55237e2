/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * What src/shim/module.c does at load and unload, minus IB and LIO: every
 * suite that reaches the core's workqueue uses these as its suite_init
 * and suite_exit (core_test.c).
 */
#ifndef SRPT_KUNIT_SUITE_H
#define SRPT_KUNIT_SUITE_H

#include <kunit/test.h>

int srpt_kunit_suite_init(struct kunit_suite *suite);
void srpt_kunit_suite_exit(struct kunit_suite *suite);

#endif /* SRPT_KUNIT_SUITE_H */
