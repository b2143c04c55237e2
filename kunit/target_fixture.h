/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The fixture of the login, channel and command suites: a fake RDMA
 * device with one InfiniBand port, a target port and an enabled TPG whose
 * ACLs the case chooses, logins through srpt_core_login(), IUs written
 * into the receive buffers of fake_datapath.c, and a teardown that logs
 * every channel out and checks that nothing was left behind.
 *
 * Wire formats are built and read with the kernel's struct srp_* of
 * <scsi/srp.h> or at the byte offsets of the SRP standard, never with the
 * core's own constants, so a wrong offset in the core cannot cancel out.
 */
#ifndef SRPT_KUNIT_TARGET_FIXTURE_H
#define SRPT_KUNIT_TARGET_FIXTURE_H

#include <kunit/test.h>
#include <linux/completion.h>
#include <linux/delay.h>
#include <linux/jiffies.h>
#include <linux/types.h>

#include "../tests/doubles/port_api.h"

#include "fake_datapath.h"
#include "fake_ib.h"
#include "suite.h"

#define TF_MAX_CHANNELS 16

/* Port 1 of the fake device: GID fe80::2:c903:a1:b2c0. */
#define TF_NODE_GUID 0x0002c90300a1b2c0ULL
#define TF_PORT_GUID_NAME "0002:c903:00a1:b2c0"
#define TF_PORT_GID_NAME "0xfe800000000000000002c90300a1b2c0"

/* The initiator: its port id and how each CM names it. */
#define TF_I_PORT_ID_HI 0x0000000000000000ULL
#define TF_I_PORT_ID_LO 0x0002c90300abcdefULL
#define TF_I_PORT_NAME "0x00000000000000000002c90300abcdef"
/* The IB/CM initiator's port GUID, and how the core names it. */
#define TF_IB_PEER_GUID 0x0002c90300abcdefULL
#define TF_IB_PEER "0002:c903:00ab:cdef"
#define TF_RDMA_PEER "192.0.2.7"

/* IB_CM_REQ_PRIVATE_DATA_SIZE: IB/CM hands over the padded REQ data. */
#define TF_IB_CM_PRIVATE_DATA 92

/* srpt_core_close_session() in a kthread of its own, as LIO calls it. */
struct tf_closer {
	struct srpt_channel *core;
	struct srpt_os_channel *ch;
	struct completion done;		/* close_session returned */
	bool freed_at_return;		/* and the channel was freed by then */
};

struct srpt_tf {
	struct srpt_os_device os;
	struct srpt_device *dev;
	struct srpt_port *port;		/* a reference, for the probes */
	struct srpt_tport *tport;
	struct srpt_tpg *tpg;
	struct srpt_os_tpg os_tpg;	/* the ACLs */
	struct srpt_os_channel *chans[TF_MAX_CHANNELS];
	unsigned int n_chans;
	struct tf_closer *closer;	/* a close_session thread */
	bool srq_size_changed;
};

/* A login request, in either CM's form. */
struct tf_login {
	enum srpt_cm_kind cm;
	u64 tag;
	u32 it_iu_len;
	u16 buf_fmt;
	u8 flags;
	u16 imm_offset;
	u8 i_port_id[16];
	u64 id_ext;		/* target port id, first half */
	u64 ioc_guid;		/* and second half */
};

int tf_init(struct kunit *test);
void tf_exit(struct kunit *test);

/*
 * A device with one port (max_qp_wr as given), a target port named in
 * the form @kind, a TPG admitting the initiator names @acls (NULL-ended,
 * up to FAKE_MAX_ACLS), enabled.
 */
void tf_setup(struct kunit *test, enum srpt_port_id_kind kind, u32 max_qp_wr,
	      const char * const *acls);

/* srp_max_req_size as the module parameter reads. */
u32 tf_max_req_size(struct kunit *test);

/* A fresh channel of the fake device, torn down by tf_exit(). */
struct srpt_os_channel *tf_channel(struct kunit *test);

/* The initiator's usual login: single channel, both buffer formats. */
void tf_default_login(struct tf_login *l, enum srpt_cm_kind cm, u32 it_iu_len);

/* srpt_core_login() with @l; a rejected channel is marked gone. */
int tf_login(struct kunit *test, struct srpt_os_channel *ch, const struct tf_login *l,
	     struct srpt_channel **out);
/* A login that must be accepted. */
struct srpt_channel *tf_login_ok(struct kunit *test, struct srpt_os_channel *ch,
				 const struct tf_login *l);
/* ESTABLISHED and the zero-length write that follows: LIVE. */
void tf_establish(struct kunit *test, struct srpt_os_channel *ch);
/* DREQ, the drain write flushed, the release work run: freed. */
void tf_logout(struct kunit *test, struct srpt_os_channel *ch);

/* Starts srpt_core_close_session() for @ch in a new kthread. */
struct tf_closer *tf_close_session_async(struct kunit *test, struct srpt_os_channel *ch);

/*
 * An SRP_CMD of the Linux initiator: WRITE(10) of @len bytes to LUN 0
 * from one direct descriptor. Returns the IU's length.
 */
u32 tf_build_write(u8 *iu, u64 tag, u64 va, u32 rkey, u32 len);

/* Writes @len bytes of IU into the next posted buffer and completes it. */
struct srpt_os_recv *tf_send_iu(struct kunit *test, struct srpt_os_channel *ch,
				const void *iu, u32 len);

/* Expects the calls since @mark to be exactly @want. */
void tf_expect_calls(struct kunit *test, struct srpt_os_channel *ch, unsigned int mark,
		     const u8 *want, unsigned int n);
#define TF_EXPECT_CALLS(test, ch, mark, ...)					\
	do {									\
		static const u8 __want[] = { __VA_ARGS__ };			\
		tf_expect_calls(test, ch, mark, __want, ARRAY_SIZE(__want));	\
	} while (0)

#define TF_EXPECT_NO_CALLS(test, ch, mark) tf_expect_calls(test, ch, mark, NULL, 0)

/* Expects @n bytes at @p to equal @want; @what names them in a failure. */
void tf_expect_bytes(struct kunit *test, const u8 *p, const u8 *want, size_t n,
		     const char *what);

/* Polls @cond for up to 5 s. */
#define TF_WAIT_FOR(cond)							\
	({									\
		unsigned long __end = jiffies + 5 * HZ;			\
		bool __ok;							\
		while (!(__ok = (cond)) && time_before(jiffies, __end))	\
			usleep_range(1000, 2000);				\
		__ok;								\
	})

#endif /* SRPT_KUNIT_TARGET_FIXTURE_H */
