/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * A strict RDMA device, DMA API and LIO under the module's own shims
 * (src/shim/lio_cmd.c, src/shim/recv.c): the kernel calls they make are redirected
 * here (redirect.h), and the core entry points they call are recorded
 * (names.h). What it holds the shims to, as real hardware does:
 *
 *  - DMA profiles: "virt" (soft-RoCE: the address is the kernel's),
 *    "direct" (an HCA on a coherent bus: device and CPU share memory),
 *    and "bounce" (swiotlb, as with an IOMMU-less guest or a device with
 *    a short address range: dma_need_sync() is true, and bytes move
 *    between the CPU's buffer and the device's copy only at map, unmap
 *    and sync, as 6.1's swiotlb moves them). A missing or misordered
 *    sync shows as wrong bytes on the wire or in a buffer;
 *  - the device touches only live mappings, within their bounds, in
 *    their direction, with the PD's local DMA lkey; a mapping is undone
 *    with the address, size and direction it was made with;
 *  - the send queue holds exactly the slots asked for (qp_model.h): a
 *    chain posts the WRs that fit and fails the rest with -ENOMEM, and a
 *    slot is free again only once its signalled completion is polled;
 *  - receives are copied at post and consumed in order; an IU longer
 *    than the posted buffer completes with a local length error;
 *  - every posted WR runs at once: SENDs are logged with their bytes,
 *    RDMA WRITEs and READs move bytes to and from the initiator's
 *    registered buffers, bounds-checked by rkey; completions wait until
 *    the test polls them.
 *
 * A breach is a violation: it WARNs (which fails scripts/kunit) and
 * counts in vd_violations(), which the suite checks after every case.
 */
#ifndef SRPT_KUNIT_VERBS_DOUBLE_H
#define SRPT_KUNIT_VERBS_DOUBLE_H

#include <linux/dma-mapping.h>
#include <linux/gfp.h>
#include <linux/scatterlist.h>
#include <linux/types.h>
#include <rdma/ib_verbs.h>
#include <rdma/rw.h>
#include <target/target_core_base.h>
#include <target/target_core_fabric.h>

#include "names.h"
#include <srpt/abi.h>

enum vd_dma_profile {
	VD_DMA_VIRT,
	VD_DMA_DIRECT,
	VD_DMA_BOUNCE,
};

#define VD_LKEY 0x1234u
#define VD_MAX_WIRE 16
#define VD_WIRE_BYTES 2048		/* the bytes of a SEND the log keeps */
#define VD_MAX_DATA (256 * 1024)	/* the bytes target_execute_cmd() keeps */

/* One send WR as the device ran it. */
struct vd_wire {
	enum ib_wr_opcode opcode;
	u32 len;
	u64 remote_addr;
	u32 rkey;
	bool signaled;
	u8 bytes[VD_WIRE_BYTES];	/* a SEND's first bytes */
};

/* What the shims told the core, and what LIO saw of the commands. */
struct vd_record {
	/* srpt_core_*() */
	unsigned int send_done, rdma_done, recv_done;
	enum srpt_wc_status last_status;	/* the kernel's, passed through */
	struct srpt_cmd *last_cmd;
	struct srpt_recv *last_recv;
	struct srpt_channel *last_ch;
	u32 recv_len;
	u8 iu[512];			/* the IU's first bytes as the core read them */
	unsigned int queue_response;
	struct srpt_cmd_status st;
	int with_data;
	unsigned int tm_response;
	enum srpt_tmr_response tmr;
	unsigned int aborted, released, closed, write_pending;
	/* LIO */
	struct se_cmd *se_cmd;		/* of the last target_init_cmd() */
	unsigned int init, prep, submit, execute, put, free, failure, tmr_submit;
	u64 lun;
	u32 data_len;
	int data_dir;
	int task_attr;
	u8 cdb[16];
	struct scatterlist *sgl;
	u32 sgl_count;
	sense_reason_t reason;
	unsigned char tmf;
	u64 tmr_tag;
	u32 exec_len;
	u8 *exec_data;			/* the data-out as the backend saw it at execute */
};

/* Failures on request: each counts down, and the call that reaches 0 fails. */
struct vd_faults {
	int map;			/* ib_dma_map_*() */
	int rw_init;			/* rdma_rw_ctx_init(): -ENOMEM */
	int sgl;			/* target_alloc_sgl() */
	int page;			/* alloc_page() */
	int init_cmd;			/* target_init_cmd(): -ESHUTDOWN */
	int alloc;			/* the shims' kmalloc(), kzalloc(), slab caches */
};

struct vd_state {
	enum vd_dma_profile profile;
	struct vd_faults faults;
	struct vd_record rec;
	struct vd_wire wire[VD_MAX_WIRE];
	unsigned int nr_wire;
};

extern struct vd_state vd;

/* Starts a case: nothing mapped, posted or recorded; the DMA profile. */
int vd_reset(enum vd_dma_profile profile);
/* Ends it: 0 when nothing leaked, else why (and a violation). */
const char *vd_leftovers(void);
unsigned int vd_violations(void);
const char *vd_first_violation(void);

/* The device, PD and a QP with @sq send and @rq receive slots (0: an SRQ). */
struct ib_device *vd_device(void);
struct ib_pd *vd_pd(void);
struct ib_qp *vd_qp_create(void *qp_context, unsigned int sq, unsigned int rq);
void vd_qp_destroy(struct ib_qp *qp);

/* The initiator's memory for RDMA, @len bytes at @va under @rkey, filled with @fill. */
u8 *vd_remote_add(u64 va, u32 rkey, u32 len, u8 fill);

/*
 * The initiator sends @len bytes: the next receive posted for @qp (its
 * own queue, or the SRQ) takes them. -ENOENT when none is posted.
 */
int vd_deliver(struct ib_qp *qp, const void *bytes, u32 len);
/* Polls up to @n completions of @qp's CQ, calling their done(); how many. */
unsigned int vd_poll(struct ib_qp *qp, unsigned int n);
/* Completions waiting on @qp's CQ. */
unsigned int vd_pending(struct ib_qp *qp);
/* Send WRs posted on @qp and not yet freed by a polled completion. */
unsigned int vd_sq_used(struct ib_qp *qp);
/* The status that the next send WR completes with (IB_WC_SUCCESS by default). */
void vd_fail_next_send(enum ib_wc_status status);
/* Live DMA mappings: the ones made and not undone. */
unsigned int vd_live_mappings(void);

/* The kernel calls the shims make, as redirect.h names them. */
bool vd_uses_virt_dma(struct ib_device *dev);
bool vd_dma_need_sync(struct device *dev, dma_addr_t addr);
u64 vd_dma_map_single(struct ib_device *dev, void *cpu, size_t size,
		      enum dma_data_direction dir);
void vd_dma_unmap_single(struct ib_device *dev, u64 addr, size_t size,
			 enum dma_data_direction dir);
int vd_dma_mapping_error(struct ib_device *dev, u64 addr);
u64 vd_dma_map_page(struct ib_device *dev, struct page *page, unsigned long off,
		    size_t size, enum dma_data_direction dir);
void vd_dma_sync_for_cpu(struct ib_device *dev, u64 addr, size_t size,
			 enum dma_data_direction dir);
void vd_dma_sync_for_device(struct ib_device *dev, u64 addr, size_t size,
			    enum dma_data_direction dir);
int vd_rw_ctx_init(struct rdma_rw_ctx *ctx, struct ib_qp *qp, u32 port_num,
		   struct scatterlist *sg, u32 sg_cnt, u32 sg_offset,
		   u64 remote_addr, u32 rkey, enum dma_data_direction dir);
void vd_rw_ctx_destroy(struct rdma_rw_ctx *ctx, struct ib_qp *qp, u32 port_num,
		       struct scatterlist *sg, u32 sg_cnt, enum dma_data_direction dir);
struct ib_send_wr *vd_rw_ctx_wrs(struct rdma_rw_ctx *ctx, struct ib_qp *qp,
				 u32 port_num, struct ib_cqe *cqe,
				 struct ib_send_wr *chain_wr);
const char *vd_ib_event_msg(enum ib_event_type event);
struct ib_srq *vd_create_srq(struct ib_pd *pd, struct ib_srq_init_attr *attr);
void vd_destroy_srq(struct ib_srq *srq);
struct page *vd_alloc_page(gfp_t gfp);
void *vd_kmalloc(size_t size, gfp_t gfp);
void *vd_kzalloc(size_t size, gfp_t gfp);
struct kmem_cache *vd_kmem_cache_create(const char *name, unsigned int size,
					unsigned int align, slab_flags_t flags,
					void (*ctor)(void *));
void *vd_kmem_cache_alloc(struct kmem_cache *cache, gfp_t gfp);
int vd_alloc_sgl(struct scatterlist **sgl, unsigned int *nents, u32 length,
		 bool zero_page, bool chainable);
void vd_free_sgl(struct scatterlist *sgl, int nents);
int vd_target_init_cmd(struct se_cmd *se_cmd, struct se_session *sess,
		       unsigned char *sense, u64 lun, u32 data_length,
		       int task_attr, int data_dir, int flags);
int vd_target_submit_prep(struct se_cmd *se_cmd, unsigned char *cdb,
			  struct scatterlist *sgl, u32 sgl_count,
			  struct scatterlist *sgl_bidi, u32 sgl_bidi_count,
			  struct scatterlist *sgl_prot, u32 sgl_prot_count, gfp_t gfp);
void vd_target_submit(struct se_cmd *se_cmd);
void vd_request_failure(struct se_cmd *se_cmd, sense_reason_t reason);
int vd_target_submit_tmr(struct se_cmd *se_cmd, struct se_session *sess,
			 unsigned char *sense, u64 lun, void *fabric_tmr_ptr,
			 unsigned char tm_type, gfp_t gfp, u64 tag, int flags);
void vd_target_execute_cmd(struct se_cmd *se_cmd);
int vd_target_put_sess_cmd(struct se_cmd *se_cmd);
int vd_generic_free_cmd(struct se_cmd *se_cmd, int wait);

/* The core's receive buffer as the recorder reads it: its IU. */
struct vd_core_recv {
	void *iu;
};

#endif /* SRPT_KUNIT_VERBS_DOUBLE_H */
