// SPDX-License-Identifier: GPL-2.0-only
/*
 * The RDMA/CM listener: the port logins over RoCE and iWARP arrive on,
 * from the rdma_cm_port parameter at load and discovery_auth/rdma_cm_port
 * after. The shim listens; the core decides on which port and says so.
 */
#include <ktl/assert.h>
#include <ktl/errno.h>
#include <ktl/lock.h>
#include <ktl/string.h>
#include <srpt/abi.h>
#include <srpt/listener.h>
#include <srpt/params.h>

namespace srpt {
namespace {

/* The port listened on (0: none), inside the mutex that serialises switching it. */
constinit ktl::Guarded<u32, ktl::Mutex> g_listening_port{0};

/* listen_rdma_cm() under that mutex: @listening is the port listened on. */
int switch_port(u32 &listening, u32 port)
{
	if (port == listening)
		return 0;
	const auto p = static_cast<srpt_u16>(port);
	/* IPv4 decides: without it the port cannot serve RoCE v1/v2 over IPv4 or iWARP. */
	const int ret = srpt_os_rdma_cm_listen(SRPT_INET4, p);
	if (ret) {
		srpt_os_log(SRPT_LOG_ERR, "rdma_cm_port: listening on port %u failed (%pe)\n", port,
			    ktl::err_arg(ret));
		return ret;
	}
	/*
	 * IPv4 logins alone where IPv6 cannot listen: a kernel without IPv6
	 * (ipv6.disable=1), or 5.10's soft-iWARP, whose IPv6 listener ignores
	 * afonly and collides with the IPv4 one.
	 */
	const int ret6 = srpt_os_rdma_cm_listen(SRPT_INET6, p);
	if (ret6) {
		srpt_os_log(SRPT_LOG_INFO,
			    "RDMA/CM: port %u takes IPv4 logins only: listening for IPv6 failed (%pe)\n",
			    port, ktl::err_arg(ret6));
		/* Not the old port's IPv6 listener beside the new IPv4 one. */
		KTL_WARN_ON(srpt_os_rdma_cm_listen(SRPT_INET6, 0));
	}
	if (port)
		srpt_os_log(SRPT_LOG_INFO, "RDMA/CM: listening for logins on port %u\n", port);
	else
		srpt_os_log(SRPT_LOG_INFO, "RDMA/CM: no longer listening for logins\n");
	listening = port;
	return 0;
}

} // namespace

void listener_init()
{
	KTL_LOCK_INIT(g_listening_port);
}

int listen_rdma_cm(u32 port)
{
	return g_listening_port.with(
		[port](u32 &listening) { return switch_port(listening, port); });
}

/*
 * A port that cannot be bound does not fail the load: at boot that would
 * lose the whole srpt configuration targetctl restores, and IB/CM logins
 * need no listener. The administrator is told how to listen later.
 */
void listener_start()
{
	const u32 port = rdma_cm_port_param();

	if (listen_rdma_cm(port))
		srpt_os_log(SRPT_LOG_ERR,
			    "rdma_cm_port: loaded without an RDMA/CM listener; once port %u is free, write it to discovery_auth/rdma_cm_port\n",
			    port);
}

void show_rdma_cm_port(ktl::TextBuf &s)
{
	s.dec(g_listening_port.with([](u32 listening) { return listening; }));
	s.put('\n');
}

int store_rdma_cm_port(ktl::Span<const char> page)
{
	ktl::u64 v;

	if (ktl::parse_u64(page, 0, kMaxRdmaCmPort, &v)) {
		srpt_os_log(SRPT_LOG_ERR, "rdma_cm_port: invalid value: must be 0..%u\n",
			    kMaxRdmaCmPort);
		return -ktl::kEINVAL;
	}
	return listen_rdma_cm(static_cast<u32>(v));
}

} // namespace srpt
