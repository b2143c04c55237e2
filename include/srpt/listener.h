/* SPDX-License-Identifier: GPL-2.0-only */
/* The RDMA/CM listener (src/core/listener.cpp). */
#pragma once

#include <ktl/span.h>
#include <ktl/string.h>
#include <srpt/types.h>

namespace srpt {

void listener_init();
/* At load: the port rdma_cm_port names, if any; a failure is logged. */
void listener_start();
/*
 * discovery_auth/rdma_cm_port's write: listens on @port (0: none) in place
 * of the current one, kept on failure; the load's parameter no longer applies.
 */
[[nodiscard]] int listen_rdma_cm(u32 port);
/* discovery_auth/rdma_cm_port: the port and a newline; a write of one. */
void show_rdma_cm_port(ktl::TextBuf &out);
[[nodiscard]] int store_rdma_cm_port(ktl::Span<const char> page);
/* As after listener_init(), once nothing listens; for tests, which load once. */
void reset_listener_for_test();

} // namespace srpt
