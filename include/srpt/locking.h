/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The core's locks and the one order in which they nest. Every lock is
 * initialised with KTL_LOCK_INIT() (ktl/lock.h), which gives it a lock
 * class of its own, so the kernel's lockdep checks this order in the
 * debug tier (make check-debug).
 *
 * A lock further down the list may be taken while holding one above it,
 * never the other way round:
 *
 *   RdmaPort::dev_mutex_           refresh, stop/detach, use_srq switches
 *     Logins::mutex_               logins, channel lists, TPG enable, logouts
 *       PortTargets::mutex_        target ports and attributes of the port
 *         TargetPort::tpgs_mutex_  the TPGs of a target port
 *       SendQueue::mutex_          a channel's send queue (closing the
 *                                  channel stops it); takes no core lock,
 *                                  and LIO is never called under it
 *     Device::srq_mutex_           the shared receive queue
 *
 *   g_listening                    the RDMA/CM listener (listener.cpp, a
 *                                  Guarded<Listening, Mutex>); takes no core lock
 *
 * Spinlocks are leaves, taken with interrupts disabled and nothing that
 * sleeps inside:
 *
 *   g_devices (registry.cpp) -> RdmaPort::cache_
 *
 * (Both ktl::Guarded<T, SpinLock>: the data lives inside its lock.)
 *
 * The data path takes no lock but SendQueue::mutex_: see channel_io.h.
 *
 * What each lock guards is said where the data is, as annotations that
 * clang checks in the host tier (ktl/thread_annotations.h): fields are
 * KTL_GUARDED_BY their lock, or live inside it as a ktl::Guarded.
 *
 * Waiting for a channel's release (Channel::disconnect_and_wait) happens
 * with no lock held but RdmaPort::dev_mutex_: the release work takes
 * Logins::mutex_ and Device::srq_mutex_.
 *
 * Works count as locks too (lockdep takes a work's class while it runs
 * and while someone waits for it): each is initialised with
 * KTL_WORK_INIT() for a class of its own. Channel::logout_work_ takes
 * Logins::mutex_, so it is never cancelled under it (a login refused
 * under the mutex is undone after it); Channel::release_work_ cancels
 * the logout work.
 */
#pragma once
