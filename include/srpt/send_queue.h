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
#include <srpt/ioctx.h>
#include <srpt/types.h>

namespace srpt {

class SendQueue {
public:
	SendQueue();
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

	/* For Cmd::post_step(), under the mutex. */
	u32 free_slots() const { return free_.load(); }
	u32 slots() const { return slots_; }
	/* Takes @n of @free_slots(); cannot fail under the mutex. */
	void take(u32 n) KTL_REQUIRES(mutex_);
	/* Gives back what take() took for a post that failed. */
	void untake(u32 n) { free_.fetch_add(n); }
	bool closed() const KTL_REQUIRES(mutex_) { return closed_; }
	u32 piece_limit() const KTL_REQUIRES(mutex_) { return piece_limit_; }
	/* Halves the piece size after a piece did not fit; false at the minimum. */
	[[nodiscard]] bool shrink_piece_limit() KTL_REQUIRES(mutex_);
	/*
	 * Names the mutex in Cmd::post_step()'s annotation, on its definition
	 * (in ioctx.h SendQueue is incomplete); nothing can take it through this.
	 */
	const ktl::Mutex &mutex() const KTL_RETURN_CAPABILITY(mutex_) { return mutex_; }

	/* Commands waiting now. */
	u32 waiting() const { return n_waiting_.load(ktl::MemoryOrder::relaxed); }

private:
	using CmdList = ktl::List<Cmd, &Cmd::send_node>;

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

	ktl::Mutex mutex_;
	CmdList waiting_ KTL_GUARDED_BY(mutex_);
	ktl::Atomic<u32> n_waiting_{0};		/* waiting_'s length, read without mutex_ */
	ktl::Atomic<u32> free_{0};		/* slots not held by posted work */
	u32 slots_ = 0;
	u32 piece_limit_ KTL_GUARDED_BY(mutex_);
	bool closed_ KTL_GUARDED_BY(mutex_) = false;
};

} // namespace srpt
