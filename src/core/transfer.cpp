// SPDX-License-Identifier: GPL-2.0-only
/* The cursor of a command's RDMA transfer over its buffers. */
#include <ktl/assert.h>
#include <ktl/new.h>
#include <ktl/utility.h>
#include <srpt/transfer.h>

namespace srpt {

bool Transfer::prepare(u32 count)
{
	/* Every command's transfer was cleared when its last one ended. */
	if (KTL_WARN_ON(count_ || lens_ != &one_len_))
		clear();
	/* One buffer is the common case: its length is one_len_, no allocation. */
	if (count > 1) {
		ktl::AllocChecker ac;
		u32 *lens = new (&ac) u32[count];

		if (!ac.check())
			return false;
		lens_ = lens;
	}
	count_ = count;
	return true;
}

void Transfer::add(u32 len)
{
	if (KTL_WARN_ON(added_ >= count_ || len == 0))
		return;
	lens_[added_] = len;
	added_++;
	total_ += len;
}

void Transfer::clear()
{
	if (lens_ != &one_len_)
		delete[] lens_;
	lens_ = &one_len_;
	count_ = added_ = total_ = one_len_ = 0;
	left_ = buf_ = off_ = 0;
}

void Transfer::start(u32 bytes)
{
	left_ = ktl::min(bytes, total_);
	buf_ = 0;
	off_ = 0;
}

Piece Transfer::next(u32 limit) const
{
	Piece p;

	if (!left_)
		return p;
	p.buf = buf_;
	p.off = off_;
	p.len = ktl::min(ktl::min(len(buf_) - off_, left_), limit);
	return p;
}

void Transfer::advance(const Piece &p)
{
	if (KTL_WARN_ON(p.buf != buf_ || p.off != off_ || p.len > left_))
		return;
	left_ -= p.len;
	off_ += p.len;
	if (off_ == len(buf_)) {
		buf_++;
		off_ = 0;
	}
}

} // namespace srpt
