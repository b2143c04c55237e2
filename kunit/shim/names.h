/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The shim suite builds the module's own src/shim/lio_cmd.c, src/shim/recv.c and
 * src/shim/buf_cache.c into the KUnit kernel beside the core, whose data path
 * callouts the C double (kunit/fake_datapath.c) provides under the same
 * names. Included before anything that declares them, these names give
 * the shims' copies their own symbols, and send the core entry points
 * the shims call to the recorder of verbs_double.c.
 */
#ifndef SRPT_KUNIT_SHIM_NAMES_H
#define SRPT_KUNIT_SHIM_NAMES_H

#define srpt_os_cmd_alloc		shim_os_cmd_alloc
#define srpt_os_cmd_free		shim_os_cmd_free
#define srpt_os_cmd_init		shim_os_cmd_init
#define srpt_os_cmd_map_imm		shim_os_cmd_map_imm
#define srpt_os_cmd_buf_add		shim_os_cmd_buf_add
#define srpt_os_cmd_rdma_map		shim_os_cmd_rdma_map
#define srpt_os_cmd_rdma_unmap		shim_os_cmd_rdma_unmap
#define srpt_os_cmd_release_data	shim_os_cmd_release_data
#define srpt_os_cmd_submit		shim_os_cmd_submit
#define srpt_os_cmd_abort		shim_os_cmd_abort
#define srpt_os_cmd_submit_tmr		shim_os_cmd_submit_tmr
#define srpt_os_cmd_execute		shim_os_cmd_execute
#define srpt_os_cmd_post		shim_os_cmd_post
#define srpt_os_cmd_put			shim_os_cmd_put
#define srpt_os_cmd_done		shim_os_cmd_done
#define srpt_os_recv_alloc		shim_os_recv_alloc
#define srpt_os_recv_free		shim_os_recv_free
#define srpt_os_recv_post		shim_os_recv_post
#define srpt_os_srq_create		shim_os_srq_create
#define srpt_os_srq_destroy		shim_os_srq_destroy
#define srpt_buf_cache_get		shim_buf_cache_get
#define srpt_buf_cache_put		shim_buf_cache_put
#define srpt_check_stop_free		shim_check_stop_free
#define srpt_release_cmd		shim_release_cmd
#define srpt_close_session		shim_close_session
#define srpt_write_pending		shim_write_pending
#define srpt_get_tcm_cmd_state		shim_get_tcm_cmd_state
#define srpt_queue_data_in		shim_queue_data_in
#define srpt_queue_status		shim_queue_status
#define srpt_queue_tm_rsp		shim_queue_tm_rsp
#define srpt_aborted_task		shim_aborted_task

#define srpt_core_send_done		vd_core_send_done
#define srpt_core_rdma_done		vd_core_rdma_done
#define srpt_core_recv_done		vd_core_recv_done
#define srpt_core_release_cmd		vd_core_release_cmd
#define srpt_core_close_session		vd_core_close_session
#define srpt_core_write_pending		vd_core_write_pending
#define srpt_core_cmd_state		vd_core_cmd_state
#define srpt_core_queue_response	vd_core_queue_response
#define srpt_core_queue_tm_response	vd_core_queue_tm_response
#define srpt_core_aborted_task		vd_core_aborted_task

#endif /* SRPT_KUNIT_SHIM_NAMES_H */
