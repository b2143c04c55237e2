// SPDX-License-Identifier: GPL-2.0-only
/*
 * /sys/kernel/debug/ib_srpt/objects: the core's live objects, one
 * "<kind> <count>" line each, for leak checks.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/debugfs.h>
#include <linux/fs.h>
#include <linux/seq_file.h>
#include <linux/slab.h>

#include <srpt/abi.h>

#include "shim.h"

static struct dentry *srpt_debugfs_dir;

static int srpt_objects_show(struct seq_file *m, void *v)
{
	char *buf = kmalloc(PAGE_SIZE, GFP_KERNEL);

	if (!buf)
		return -ENOMEM;
	srpt_core_objects_show(buf, PAGE_SIZE);
	seq_puts(m, buf);
	kfree(buf);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(srpt_objects);

void srpt_debugfs_init(void)
{
	/* Debug aid only: failures are not worth failing the load. */
	srpt_debugfs_dir = debugfs_create_dir(KBUILD_MODNAME, NULL);
	debugfs_create_file("objects", 0444, srpt_debugfs_dir, NULL,
			    &srpt_objects_fops);
}

void srpt_debugfs_exit(void)
{
	debugfs_remove_recursive(srpt_debugfs_dir);
}
