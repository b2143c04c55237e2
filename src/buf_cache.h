/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef SRPT_BUF_CACHE_H
#define SRPT_BUF_CACHE_H

#include <linux/slab.h>

/*
 * Slab caches of 512-byte aligned buffers, one per size and shared by
 * every user of that size; each get is paired with a put.
 */
struct kmem_cache *srpt_buf_cache_get(unsigned int size);
void srpt_buf_cache_put(struct kmem_cache *cache);

#endif /* SRPT_BUF_CACHE_H */
