/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * A command's data transfer by RDMA, as a cursor over its buffers: one
 * buffer per non-empty remote buffer (direct descriptor) of the request,
 * in order. The transfer moves the first bytes of them (all of them for
 * write data; for read data exactly the bytes of the SCSI transfer, never
 * more) in pieces, each inside one buffer and at most a given size, so
 * that it can be posted in rounds that fit any send queue (SendQueue).
 */
#pragma once

#include <srpt/types.h>

namespace srpt {

/* Bytes [off, off + len) of buffer buf. */
struct Piece {
	u32 buf = 0;
	u32 off = 0;
	u32 len = 0;
};

class Transfer {
public:
	Transfer() = default;
	~Transfer() { clear(); }
	Transfer(const Transfer &) = delete;
	Transfer &operator=(const Transfer &) = delete;

	/* Room for @count buffer lengths; false when out of memory. */
	[[nodiscard]] bool prepare(u32 count);
	/* The length of the next buffer (not 0), up to the prepared count. */
	void add(u32 len);
	/* Forgets the buffers. */
	void clear();

	u32 buffers() const { return added_; }
	u32 total() const { return total_; }

	/* Moves the first @bytes bytes (at most total()) from the start. */
	void start(u32 bytes);
	/* Bytes not yet in a piece. */
	u32 left() const { return left_; }
	/* The next piece: at most @limit bytes, a multiple of SRPT_RDMA_PIECE_ALIGN. */
	Piece next(u32 limit) const;
	/* @p (the last next()) is under way. */
	void advance(const Piece &p);
	/* The buffer the next piece comes from. */
	u32 cursor() const { return buf_; }

	/* Where the transfer stands, to go back to when pieces are taken back. */
	struct Mark {
		u32 left = 0;
		u32 buf = 0;
		u32 off = 0;
	};
	Mark mark() const { return {left_, buf_, off_}; }
	void rewind(const Mark &m)
	{
		left_ = m.left;
		buf_ = m.buf;
		off_ = m.off;
	}

private:
	u32 len(u32 i) const { return lens_[i]; }

	u32 count_ = 0;
	u32 added_ = 0;
	u32 total_ = 0;
	u32 one_len_ = 0;		/* the length when there is one buffer */
	u32 *lens_ = &one_len_;		/* count_ lengths: one_len_, or allocated */
	u32 left_ = 0;
	u32 buf_ = 0;
	u32 off_ = 0;
};

} // namespace srpt
