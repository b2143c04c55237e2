/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * LIO objects of the core: a target port (a WWN directory under
 * /sys/kernel/config/target/srpt) and its TPGs.
 */
#pragma once

#include <ktl/list.h>
#include <ktl/refptr.h>
#include <srpt/abi.h>
#include <srpt/rdma_port.h>
#include <srpt/port_name.h>

namespace srpt {

class TargetPort;

class Tpg {
public:
	[[nodiscard]] static int create(TargetPort *tport, srpt_os_tpg *os, Tpg **out);
	void destroy();

	[[nodiscard]] int enable(bool enable);
	bool enabled() const;
	/* Under the port's logins mutex (Logins::set_tpg_enabled). */
	void set_enabled_locked(bool enable) { enabled_.store(enable); }
	TargetPort *tport() const { return tport_; }
	srpt_os_tpg *os() const { return os_; }

	ktl::ListNode tport_node;	/* on tport_->tpgs_, under its tpgs_mutex_ */

private:
	Tpg(TargetPort *tport, srpt_os_tpg *os);
	~Tpg();

	TargetPort *const tport_;
	srpt_os_tpg *const os_;
	ktl::Atomic<bool> enabled_{false};
};

class TargetPort {
public:
	[[nodiscard]] static int create(const char *name, srpt_os_tport *os, TargetPort **out);
	void destroy();

	const char *name() const { return name_.c_str(); }
	RdmaPort *port() const { return port_.get(); }
	PortNameKind kind() const { return kind_; }
	srpt_os_tport *os() const { return os_; }

	/* Calls @fn(tpg) for each TPG until it returns true; true if one did. */
	template <typename Fn> bool find_tpg(Fn fn)
	{
		ktl::MutexGuard guard(tpgs_mutex_);

		for (Tpg *tpg : tpgs_)
			if (fn(tpg))
				return true;
		return false;
	}


private:
	friend class Tpg;
	TargetPort(ktl::RefPtr<RdmaPort> port, PortNameKind kind, srpt_os_tport *os);
	~TargetPort();

	ktl::RefPtr<RdmaPort> port_;
	const PortNameKind kind_;
	srpt_os_tport *const os_;
	GidName name_;
	ktl::Mutex tpgs_mutex_;
	ktl::List<Tpg, &Tpg::tport_node> tpgs_ KTL_GUARDED_BY(tpgs_mutex_);
};

/*
 * A TPG's attribute @a (enum srpt_tpg_attrib, checked here) of its port:
 * the value and a newline. -EINVAL for no such attribute.
 */
[[nodiscard]] int show_tpg_attrib(const Tpg &tpg, int a, ktl::TextBuf &out);
/* Parses and stores it: @count, or -EINVAL with the reason logged. */
srpt_ssize_t store_tpg_attrib(Tpg &tpg, int a, const char *page, srpt_size_t count);
/* Validates a node ACL name: 0, or -EINVAL with the reason logged. */
[[nodiscard]] int check_acl_name(const char *name);

} // namespace srpt
