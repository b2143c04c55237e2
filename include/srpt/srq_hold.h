/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * A channel's hold on its device's shared receive queue: the SRQ lives
 * while a QP uses it, even when use_srq is switched off meanwhile.
 */
#pragma once

namespace srpt {

class Device;

class SrqHold {
public:
	SrqHold() = default;
	~SrqHold() { reset(); }
	SrqHold(const SrqHold &) = delete;
	SrqHold &operator=(const SrqHold &) = delete;

	/* False when @dev has no SRQ (use_srq was switched off meanwhile). */
	[[nodiscard]] bool acquire(Device *dev);
	/* After the QP that used the SRQ is destroyed. */
	void reset();

private:
	Device *dev_ = nullptr;
};

} // namespace srpt
