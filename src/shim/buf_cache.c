// SPDX-License-Identifier: GPL-2.0-only
/*
 * Shared slab caches for receive buffers: immediate data lands at a fixed
 * offset of a receive buffer and is handed to the backend as is, so the
 * buffers are 512-byte aligned, which kmalloc does not promise for sizes
 * that are not powers of two.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/slab.h>

#include "shim.h"

struct srpt_buf_cache {
	struct list_head entry;
	struct kmem_cache *cache;
	unsigned int size;
	unsigned int users;
};

static DEFINE_MUTEX(srpt_buf_cache_mutex);
static LIST_HEAD(srpt_buf_caches);	/* protected by srpt_buf_cache_mutex */

struct kmem_cache *srpt_buf_cache_get(unsigned int size)
{
	struct srpt_buf_cache *c;
	char name[32];

	mutex_lock(&srpt_buf_cache_mutex);
	list_for_each_entry(c, &srpt_buf_caches, entry) {
		if (c->size == size) {
			c->users++;
			goto out;
		}
	}
	c = kzalloc(sizeof(*c), GFP_KERNEL);
	if (!c)
		goto out;
	snprintf(name, sizeof(name), "srpt-%u", size);
	c->cache = kmem_cache_create(name, size, 512, 0, NULL);
	if (!c->cache) {
		kfree(c);
		c = NULL;
		goto out;
	}
	c->size = size;
	c->users = 1;
	list_add(&c->entry, &srpt_buf_caches);
out:
	mutex_unlock(&srpt_buf_cache_mutex);
	return c ? c->cache : NULL;
}

void srpt_buf_cache_put(struct kmem_cache *cache)
{
	struct srpt_buf_cache *c;

	if (!cache)
		return;
	mutex_lock(&srpt_buf_cache_mutex);
	list_for_each_entry(c, &srpt_buf_caches, entry) {
		if (c->cache == cache)
			goto found;
	}
	WARN_ONCE(1, "ib_srpt: putting an unknown buffer cache\n");
	goto out;
found:
	if (--c->users == 0) {
		list_del(&c->entry);
		kmem_cache_destroy(c->cache);
		kfree(c);
	}
out:
	mutex_unlock(&srpt_buf_cache_mutex);
}
