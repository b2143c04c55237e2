/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Included by the shim wrappers after the kernel headers and before the
 * shim's source: every kernel call of the shim that touches a device,
 * DMA or LIO goes to verbs_double.c instead. ib_post_send() and friends
 * need no redirect: they call the fake device's ops.
 */
#ifndef SRPT_KUNIT_SHIM_REDIRECT_H
#define SRPT_KUNIT_SHIM_REDIRECT_H

#include "verbs_double.h"

#undef ib_uses_virt_dma
#define ib_uses_virt_dma			vd_uses_virt_dma
#undef dma_need_sync
#define dma_need_sync				vd_dma_need_sync
#undef ib_dma_map_single
#define ib_dma_map_single			vd_dma_map_single
#undef ib_dma_unmap_single
#define ib_dma_unmap_single			vd_dma_unmap_single
#undef ib_dma_mapping_error
#define ib_dma_mapping_error			vd_dma_mapping_error
#undef ib_dma_map_page
#define ib_dma_map_page				vd_dma_map_page
#undef ib_dma_unmap_page
#define ib_dma_unmap_page			vd_dma_unmap_single
#undef ib_dma_sync_single_for_cpu
#define ib_dma_sync_single_for_cpu		vd_dma_sync_for_cpu
#undef ib_dma_sync_single_for_device
#define ib_dma_sync_single_for_device		vd_dma_sync_for_device
#undef rdma_rw_ctx_init
#define rdma_rw_ctx_init			vd_rw_ctx_init
#undef rdma_rw_ctx_destroy
#define rdma_rw_ctx_destroy			vd_rw_ctx_destroy
#undef rdma_rw_ctx_wrs
#define rdma_rw_ctx_wrs				vd_rw_ctx_wrs
#undef ib_event_msg
#define ib_event_msg				vd_ib_event_msg
#undef ib_create_srq
#define ib_create_srq				vd_create_srq
#undef ib_destroy_srq
#define ib_destroy_srq				vd_destroy_srq
#undef alloc_page
#define alloc_page				vd_alloc_page
#undef kmalloc
#define kmalloc					vd_kmalloc
#undef kzalloc
#define kzalloc					vd_kzalloc
#undef kmem_cache_create
#define kmem_cache_create			vd_kmem_cache_create
#undef kmem_cache_alloc
#define kmem_cache_alloc			vd_kmem_cache_alloc
#undef target_alloc_sgl
#define target_alloc_sgl			vd_alloc_sgl
#undef target_free_sgl
#define target_free_sgl				vd_free_sgl
#undef target_init_cmd
#define target_init_cmd				vd_target_init_cmd
#undef target_submit_prep
#define target_submit_prep			vd_target_submit_prep
#undef target_submit
#define target_submit				vd_target_submit
#undef transport_generic_request_failure
#define transport_generic_request_failure	vd_request_failure
#undef target_submit_tmr
#define target_submit_tmr			vd_target_submit_tmr
#undef target_execute_cmd
#define target_execute_cmd			vd_target_execute_cmd
#undef target_put_sess_cmd
#define target_put_sess_cmd			vd_target_put_sess_cmd
#undef transport_generic_free_cmd
#define transport_generic_free_cmd		vd_generic_free_cmd

#endif /* SRPT_KUNIT_SHIM_REDIRECT_H */
