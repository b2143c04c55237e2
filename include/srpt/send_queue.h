/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The send queue of a channel: its work request slots, accounted here and
 * nowhere else, and the commands waiting for them, in arrival order.
 *
 * A command's next step goes out when it is at the head and the slots it
 * needs are free: a round of its RDMA transfer (write data in, or read
 * data out), or the rest of the read data with its response, or just the
 * response. Completions give slots back and post what waits. A full
 * queue only delays a command: nothing is dropped, and a transfer larger
 * than the whole queue goes in rounds.
 *
 * Lock: mutex_ serialises mapping and posting, so that only the command
 * at the head ever holds memory registrations it has not posted. It is
 * a leaf (srpt/locking.h): LIO is never called under it.
 */
#pragma once

#include <ktl/atomic.h>
#include <ktl/list.h>
#include <ktl/lock.h>
#include <srpt/cmd.h>
#include <srpt/credits.h>
#include <srpt/types.h>

namespace srpt {

class SendQueue {
public:
	/* Responses take the credits they carry from @credits. */
	explicit SendQueue(Credits &credits);
	~SendQueue();
	SendQueue(const SendQueue &) = delete;
	SendQueue &operator=(const SendQueue &) = delete;

	/* @slots work requests for commands (responses and transfers). */
	void init(u32 slots);

	enum class Result {
		kPosted,	/* the step is on the wire */
		kQueued,	/* it waits for slots; a completion posts it */
		kFailed,	/* it cannot go now and nothing would retry it */
	};
	/*
	 * Posts @c's next step, or queues it behind the commands already
	 * waiting. On kFailed the caller ends @c (Cmd::post_failed() or
	 * an error to LIO).
	 */
	[[nodiscard]] Result submit(Cmd *c);
	/* A completion gave @n slots back: post what waits and fits now. */
	void release(u32 n);
	/*
	 * The QP is in the error state: nothing goes out any more. Commands
	 * that wait end at the next completion, or at flush().
	 */
	void stop();
	/* Stops, and ends every command still waiting (Cmd::post_failed()). */
	void flush();
	/* Runs @fn() under the mutex unless closed: a post outside the queue. */
	template <typename Fn> bool if_open(Fn fn)
	{
		ktl::MutexGuard g(mutex_);

		if (closed_)
			return false;
		fn();
		return true;
	}

	/* Commands waiting now, and slots not held by posted work. */
	u32 waiting() const { return n_waiting_.load(ktl::MemoryOrder::relaxed); }
	u32 free_slots() const { return free_.load(); }

private:
	using CmdList = ktl::List<Cmd, &Cmd::send_node>;
	enum class Step { kPosted, kWait, kFailed };

	/*
	 * Under the mutex: maps and posts @c's next step (a round of its
	 * transfer, with its response when that fits) if the slots it needs
	 * are free, else remembers how many it waits for.
	 */
	Step post(Cmd &c) KTL_REQUIRES(mutex_);
	/* Takes @n of the free slots; cannot fail under the mutex. */
	void take(u32 n) KTL_REQUIRES(mutex_);
	/* Gives back what take() took for a post that failed. */
	void untake(u32 n) { free_.fetch_add(n); }
	/* Halves the piece size after a piece did not fit; false at the minimum. */
	[[nodiscard]] bool shrink_piece_limit() KTL_REQUIRES(mutex_);

	/*
	 * The slow paths, out of line: the fast ones keep no list on their
	 * stack (nor the stack protector's check that comes with it).
	 */
	/*
	 * submit() for a step that waits: queues @c and pumps, called with
	 * mutex_ held and releasing it (@first and @seen: whether nothing
	 * waited, and the free slots, as submit() found them).
	 */
	[[gnu::noinline]] Result queue_and_unlock(Cmd *c, bool first, u32 seen) KTL_RELEASE(mutex_);
	/* Posts what waits and fits, ending what fails. */
	[[gnu::noinline]] void pump() KTL_EXCLUDES(mutex_);
	/* Posts from the head while that works; failed commands go to @failed. */
	[[gnu::noinline]] void pump_locked(CmdList *failed) KTL_REQUIRES(mutex_);
	[[gnu::noinline]] static void end_failed(CmdList *failed);

	Credits &credits_;
	ktl::Mutex mutex_;
	CmdList waiting_ KTL_GUARDED_BY(mutex_);
	ktl::Atomic<u32> n_waiting_{0};		/* waiting_'s length, read without mutex_ */
	ktl::Atomic<u32> free_{0};		/* slots not held by posted work */
	u32 slots_ = 0;
	u32 piece_limit_ KTL_GUARDED_BY(mutex_);
	bool closed_ KTL_GUARDED_BY(mutex_) = false;
};

} // namespace srpt
