/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The LIO side of an RDMA port: the target ports that name it (at most
 * one per name form) and the attributes every TPG of the port shares
 * (configfs "attrib", stored per port as in the in-tree target). One
 * mutex guards both.
 */
#pragma once

#include <ktl/assert.h>
#include <ktl/errno.h>
#include <ktl/lock.h>
#include <srpt/abi.h>
#include <srpt/types.h>

namespace srpt {

class TargetPort;

struct PortAttrib {
	static constexpr u32 kMinMaxRdmaSize = 65536;
	static constexpr u32 kMaxMaxRdmaSize = 1u << 24;
	static constexpr u32 kMinMaxRspSize = 40;	/* SRP_RSP (36) + 4 */
	static constexpr u32 kMaxMaxRspSize = 1024;
	static constexpr u32 kMinSqSize = 4;
	static constexpr u32 kMaxSqSize = 65535;

	u32 srp_max_rdma_size = 65536;
	u32 srp_max_rsp_size = 256;
	u32 srp_sq_size = 4096;
	bool use_srq = false;
};

class PortTargets {
public:
	PortTargets() { KTL_LOCK_INIT(mutex_); }
	~PortTargets()
	{
		KTL_WARN_ON(tports_[0] || tports_[1]);
		mutex_.destroy();
	}
	PortTargets(const PortTargets &) = delete;
	PortTargets &operator=(const PortTargets &) = delete;

	/* -kEEXIST when a target port of that name form exists. */
	[[nodiscard]] int attach(PortNameKind kind, TargetPort *tport)
	{
		ktl::MutexGuard guard(mutex_);
		TargetPort *&s = tports_[slot(kind)];

		if (s)
			return -ktl::kEEXIST;
		s = tport;
		return 0;
	}
	void detach(PortNameKind kind, TargetPort *tport)
	{
		ktl::MutexGuard guard(mutex_);
		TargetPort *&s = tports_[slot(kind)];

		if (!KTL_WARN_ON(s != tport))
			s = nullptr;
	}
	/*
	 * @fn(the target port of @kind, or nullptr) under the mutex, so that
	 * the target port cannot go (rmdir) while @fn uses it.
	 */
	template <typename Fn> bool with_tport(PortNameKind kind, Fn fn)
	{
		ktl::MutexGuard guard(mutex_);
		return fn(tports_[slot(kind)]);
	}

	PortAttrib attrib() const
	{
		ktl::MutexGuard guard(mutex_);
		return attrib_;
	}
	/*
	 * Read-modify-write of the attributes in one critical section, so
	 * that concurrent stores of different attributes (configfs serialises
	 * only per file) are all kept.
	 */
	template <typename Fn> void update_attrib(Fn fn)
	{
		ktl::MutexGuard guard(mutex_);
		fn(attrib_);
	}

private:
	static int slot(PortNameKind kind) { return kind == PortNameKind::kGuid ? 0 : 1; }

	mutable ktl::Mutex mutex_;
	TargetPort *tports_[2] KTL_GUARDED_BY(mutex_) = {};
	PortAttrib attrib_ KTL_GUARDED_BY(mutex_);
};

} // namespace srpt
