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

/* What listens, inside the mutex that serialises switching it. */
struct Listening {
	u32 port = 0;		/* 0: none */
	bool ipv6 = false;	/* IPv6 listens on it too */
	bool stored = false;	/* discovery_auth/rdma_cm_port was written */
};
constinit ktl::Guarded<Listening, ktl::Mutex> g_listening{};

/*
 * listen_rdma_cm() under that mutex. The same port again retries only
 * what failed: IPv6, which may have been down for a while.
 */
int switch_port(Listening &l, u32 port)
{
	const auto p = static_cast<srpt_u16>(port);
	const bool same = port == l.port;

	if (same && (l.ipv6 || !port))
		return 0;
	/* IPv4 decides: without it the port cannot serve RoCE v1/v2 over IPv4 or iWARP. */
	const int ret = same ? 0 : srpt_os_rdma_cm_listen(SRPT_INET4, p);
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
	l.ipv6 = port && !ret6;
	if (same) {
		if (l.ipv6)
			srpt_os_log(SRPT_LOG_INFO, "RDMA/CM: port %u takes IPv6 logins too\n", port);
	} else if (port) {
		srpt_os_log(SRPT_LOG_INFO, "RDMA/CM: listening for logins on port %u\n", port);
	} else {
		srpt_os_log(SRPT_LOG_INFO, "RDMA/CM: no longer listening for logins\n");
	}
	l.port = port;
	return 0;
}

} // namespace

void listener_init()
{
	KTL_LOCK_INIT(g_listening);
}

void reset_listener_for_test()
{
	g_listening.with([](Listening &l) {
		KTL_WARN_ON(l.port);
		l = Listening{};
	});
}

int listen_rdma_cm(u32 port)
{
	return g_listening.with([port](Listening &l) {
		l.stored = true;
		return switch_port(l, port);
	});
}

/*
 * A port that cannot be bound does not fail the load: at boot that would
 * lose the whole srpt configuration targetctl restores, and IB/CM logins
 * need no listener. The administrator is told how to listen later.
 */
void listener_start()
{
	const u32 port = rdma_cm_port_param();
	u32 now = 0;
	bool stored = false;
	/* configfs is there once LIO has the fabric: a write during the load wins. */
	const int ret = g_listening.with([&](Listening &l) {
		stored = l.stored;
		now = l.port;
		return stored ? 0 : switch_port(l, port);
	});

	if (stored && port && now != port)
		srpt_os_log(SRPT_LOG_INFO,
			    "rdma_cm_port=%u not applied: discovery_auth/rdma_cm_port was written during the load (now %u)\n",
			    port, now);
	if (ret)
		srpt_os_log(SRPT_LOG_ERR,
			    "rdma_cm_port: loaded without an RDMA/CM listener; once port %u is free, write it to discovery_auth/rdma_cm_port\n",
			    port);
}

void show_rdma_cm_port(ktl::TextBuf &s)
{
	s.dec(g_listening.with([](const Listening &l) { return l.port; }));
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
