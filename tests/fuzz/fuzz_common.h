/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Shared by the fuzz targets: a core initialised once over the fake, and
 * invariant checks that abort (libFuzzer then keeps the input).
 */
#pragma once

#include "fake_os.h"

#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#define FUZZ_CHECK(cond, ...)                                                     \
	do {                                                                      \
		if (!(cond)) {                                                    \
			std::fprintf(stderr, "invariant broken at %s:%d: %s\n  ", \
				     __FILE__, __LINE__, #cond);                  \
			std::fprintf(stderr, __VA_ARGS__);                        \
			std::fprintf(stderr, "\n");                               \
			std::abort();                                             \
		}                                                                 \
	} while (0)

namespace fuzz {

/* srpt_core_init() once, with the log not kept (it would grow forever). */
inline void init_core()
{
	static bool done = [] {
		fake::reset();
		fake::config().capture_log = false;
		if (srpt_core_init() != 0)
			std::abort();
		return true;
	}();
	(void)done;
}

/* After each input: no srpt_os_warn(), no broken kernel rule, no work left. */
inline void check_fake()
{
	const auto w = fake::take_warnings();
	FUZZ_CHECK(w.empty(), "srpt_os_warn: %s", w.empty() ? "" : w[0].c_str());
	const auto v = fake::take_violations();
	FUZZ_CHECK(v.empty(), "kernel rule broken: %s", v.empty() ? "" : v[0].c_str());
	FUZZ_CHECK(fake::pending_work() == 0, "work left queued");
	fake::take_trace();
}

inline std::string printable(const std::uint8_t *p, std::size_t n)
{
	std::string s;
	char buf[8];
	for (std::size_t i = 0; i < n && i < 80; i++) {
		if (p[i] >= 0x20 && p[i] < 0x7f && p[i] != '\\') {
			s += static_cast<char>(p[i]);
		} else {
			std::snprintf(buf, sizeof(buf), "\\x%02x", p[i]);
			s += buf;
		}
	}
	return s;
}

} // namespace fuzz
