// SPDX-License-Identifier: GPL-2.0-only
/*
 * The test double itself: the kernel rules it enforces really fire, and
 * its work queue, completions and failure injection behave as the
 * kernel's do. Every other suite trusts these.
 */
#include "fixture.h"

#include <cerrno>
#include <cstring>
#include <thread>

using Fake = CoreTest;

namespace {

bool has_violation(const std::vector<std::string> &v, const std::string &needle)
{
	for (const std::string &s : v)
		if (s.find(needle) != std::string::npos)
			return true;
	return false;
}

struct Counter {
	srpt_os_work w;
	int runs = 0;
	static void fn(void *arg) { static_cast<Counter *>(arg)->runs++; }
};

} // namespace

TEST_F(Fake, SleepingUnderASpinlockOrInAtomicContextIsCaught)
{
	srpt_os_spinlock l;
	srpt_os_mutex m;
	srpt_os_spin_init(&l, "l", nullptr);
	srpt_os_mutex_init(&m, "m", nullptr);

	const unsigned long flags = srpt_os_spin_lock_irqsave(&l);
	void *p = srpt_os_alloc(16, 8);
	srpt_os_spin_unlock_irqrestore(&l, flags);
	EXPECT_TRUE(has_violation(fake::take_violations(), "srpt_os_alloc may sleep but was called under a spinlock"));
	{
		fake::AtomicScope irq;
		srpt_os_mutex_lock(&m);
		srpt_os_mutex_unlock(&m);
	}
	EXPECT_TRUE(has_violation(fake::take_violations(), "srpt_os_mutex_lock may sleep but was called in atomic context"));
	srpt_os_mutex_lock(&m);
	srpt_os_mutex_unlock(&m);
	EXPECT_TRUE(fake::take_violations().empty());
	srpt_os_mutex_destroy(&m);
	srpt_os_free(p);
}

TEST_F(Fake, LockMisuseIsCaught)
{
	srpt_os_mutex m;
	srpt_os_spinlock l;
	srpt_os_mutex_init(&m, "m", nullptr);
	srpt_os_spin_init(&l, "l", nullptr);

	srpt_os_mutex_lock(&m);
	srpt_os_mutex_lock(&m);	/* would deadlock: reported and skipped */
	EXPECT_TRUE(has_violation(fake::take_violations(), "locked recursively"));
	srpt_os_mutex_unlock(&m);
	srpt_os_mutex_unlock(&m);
	EXPECT_TRUE(has_violation(fake::take_violations(), "unlocked but not held"));

	const unsigned long a = srpt_os_spin_lock_irqsave(&l);
	(void)srpt_os_spin_lock_irqsave(&l);
	EXPECT_TRUE(has_violation(fake::take_violations(), "spinlock"));
	srpt_os_spin_unlock_irqrestore(&l, a);

	/* Fresh memory the fake has never seen a lock in. */
	auto *uninit = static_cast<srpt_os_mutex *>(srpt_os_alloc(sizeof(srpt_os_mutex), 8));
	std::memset(uninit, 0, sizeof(*uninit));
	srpt_os_mutex_lock(uninit);
	EXPECT_TRUE(has_violation(fake::take_violations(), "uninitialised mutex"));
	srpt_os_free(uninit);

	/* A locked mutex freed with its object. */
	auto *heap = static_cast<srpt_os_mutex *>(srpt_os_alloc(sizeof(srpt_os_mutex), 8));
	srpt_os_mutex_init(heap, "heap", nullptr);
	srpt_os_mutex_lock(heap);
	srpt_os_free(heap);
	EXPECT_TRUE(has_violation(fake::take_violations(), "freeing a locked mutex"));
	srpt_os_mutex_destroy(&m);
}

TEST_F(Fake, LockOrderInversionsAndNestedClassesAreCaught)
{
	/* Two lock classes, as two KTL_LOCK_INIT() sites make them. */
	static srpt_os_lock_class class_a, class_b;
	srpt_os_mutex a1, a2, b;
	srpt_os_mutex_init(&a1, "a1", &class_a);
	srpt_os_mutex_init(&a2, "a2", &class_a);
	srpt_os_mutex_init(&b, "b", &class_b);

	srpt_os_mutex_lock(&a1);
	srpt_os_mutex_lock(&b);	/* a before b: learnt */
	srpt_os_mutex_unlock(&b);
	srpt_os_mutex_unlock(&a1);
	EXPECT_TRUE(fake::take_violations().empty());

	/* Another lock of class a, after b: the inverse order, on other objects. */
	srpt_os_mutex_lock(&b);
	srpt_os_mutex_lock(&a2);
	srpt_os_mutex_unlock(&a2);
	srpt_os_mutex_unlock(&b);
	EXPECT_TRUE(has_violation(fake::take_violations(), "lock order: a2 taken while holding b"));

	/* Two locks of one class nested. */
	srpt_os_mutex_lock(&a1);
	srpt_os_mutex_lock(&a2);
	srpt_os_mutex_unlock(&a2);
	srpt_os_mutex_unlock(&a1);
	EXPECT_TRUE(has_violation(fake::take_violations(), "possible recursive locking"));

	srpt_os_mutex_destroy(&a1);
	srpt_os_mutex_destroy(&a2);
	srpt_os_mutex_destroy(&b);
}

TEST_F(Fake, WorksAreLocksToTheLockOrder)
{
	/* What lockdep reported on the debug kernel when every work shared INIT_WORK()'s class. */
	struct Pair {
		srpt_os_work first, second;
		static void fn(void *arg) { srpt_os_work_cancel_sync(&static_cast<Pair *>(arg)->second); }
		static void nop(void *) {}
	};
	static srpt_os_lock_class one, other;
	Pair same;
	srpt_os_work_init(&same.first, Pair::fn, &same, "same.first", &one);
	srpt_os_work_init(&same.second, Pair::nop, &same, "same.second", &one);
	EXPECT_EQ(1, srpt_os_work_schedule(&same.first));
	EXPECT_EQ(1u, fake::run_work());
	EXPECT_TRUE(has_violation(fake::take_violations(), "possible recursive locking"));

	Pair apart;
	srpt_os_work_init(&apart.first, Pair::fn, &apart, "apart.first", &one);
	srpt_os_work_init(&apart.second, Pair::nop, &apart, "apart.second", &other);
	EXPECT_EQ(1, srpt_os_work_schedule(&apart.first));
	EXPECT_EQ(1u, fake::run_work());
	EXPECT_TRUE(fake::take_violations().empty());

	/* Waiting, under a mutex, for a work that takes that mutex. */
	struct Locker {
		srpt_os_work w;
		srpt_os_mutex m;
		static void fn(void *arg)
		{
			auto *l = static_cast<Locker *>(arg);
			srpt_os_mutex_lock(&l->m);
			srpt_os_mutex_unlock(&l->m);
		}
	} locker;
	static srpt_os_lock_class work_class, mutex_class;
	srpt_os_mutex_init(&locker.m, "locker.m", &mutex_class);
	srpt_os_work_init(&locker.w, Locker::fn, &locker, "locker.w", &work_class);
	EXPECT_EQ(1, srpt_os_work_schedule(&locker.w));
	EXPECT_EQ(1u, fake::run_work());
	EXPECT_TRUE(fake::take_violations().empty());
	srpt_os_mutex_lock(&locker.m);
	srpt_os_work_cancel_sync(&locker.w);
	srpt_os_mutex_unlock(&locker.m);
	EXPECT_TRUE(has_violation(fake::take_violations(), "lock order: locker.w taken while holding locker.m"));
	srpt_os_mutex_destroy(&locker.m);
}

TEST_F(Fake, MemoryAccountingAndFailureInjection)
{
	EXPECT_EQ(0, fake::live_allocs());
	void *a = srpt_os_alloc(100, 64);
	ASSERT_NE(nullptr, a);
	EXPECT_EQ(0u, reinterpret_cast<std::uintptr_t>(a) % 64);
	EXPECT_EQ(0xa5, static_cast<unsigned char *>(a)[99]) << "fresh memory is poisoned";
	void *z = srpt_os_alloc(10, 8);
	EXPECT_EQ(0xa5, static_cast<unsigned char *>(z)[9]);
	EXPECT_EQ(2, fake::live_allocs());
	EXPECT_EQ(110u, fake::live_bytes());

	fake::fail_alloc(2);
	void *b = srpt_os_alloc(8, 8);
	EXPECT_NE(nullptr, b);
	EXPECT_EQ(nullptr, srpt_os_alloc(8, 8));
	void *c = srpt_os_alloc(8, 8);
	EXPECT_NE(nullptr, c) << "only the Nth fails";
	EXPECT_EQ(1, fake::failed_allocs());
	EXPECT_EQ(5, fake::alloc_calls());

	int local;
	srpt_os_free(&local);
	EXPECT_TRUE(has_violation(fake::take_violations(), "which srpt_os_alloc did not return"));
	srpt_os_free(nullptr);
	for (void *p : {a, z, b, c})
		srpt_os_free(p);
	EXPECT_EQ(0, fake::live_allocs());
}

TEST_F(Fake, WorkQueueSemantics)
{
	Counter c;
	static srpt_os_lock_class counter_class;
	srpt_os_work_init(&c.w, Counter::fn, &c, "c.w", &counter_class);
	EXPECT_EQ(1, srpt_os_work_schedule(&c.w));
	EXPECT_EQ(0, srpt_os_work_schedule(&c.w)) << "already pending";
	EXPECT_EQ(1u, fake::pending_work());
	EXPECT_EQ(1u, fake::run_work());
	EXPECT_EQ(1, c.runs);
	EXPECT_EQ(1, srpt_os_work_schedule(&c.w));
	srpt_os_work_cancel_sync(&c.w);
	EXPECT_EQ(0u, fake::run_work());
	EXPECT_EQ(1, c.runs);

	/* Pending work freed with its object. */
	auto *heap = static_cast<Counter *>(srpt_os_alloc(sizeof(Counter), 8));
	new (heap) Counter;
	srpt_os_work_init(&heap->w, Counter::fn, heap, "heap->w", &counter_class);
	EXPECT_EQ(1, srpt_os_work_schedule(&heap->w));
	srpt_os_free(heap);
	EXPECT_TRUE(has_violation(fake::take_violations(), "freeing pending work"));
	EXPECT_EQ(0u, fake::pending_work());
}

TEST_F(Fake, CompletionsAndTime)
{
	srpt_os_completion c;
	srpt_os_completion_init(&c);
	const auto t0 = fake::now_ns();
	EXPECT_EQ(-ETIMEDOUT, srpt_os_wait_for_completion(&c, 250));
	EXPECT_EQ(t0 + 250000000ull, fake::now_ns()) << "a timeout advances the fake clock";
	srpt_os_complete_all(&c);
	EXPECT_EQ(0, srpt_os_wait_for_completion(&c, 1));
	EXPECT_EQ(0, srpt_os_wait_for_completion(&c, 1)) << "complete_all wakes every waiter";

	/* Another thread completes while we wait for real. */
	srpt_os_completion d;
	srpt_os_completion_init(&d);
	fake::config().max_real_wait_ms = 5000;
	std::thread t([&] {
		std::this_thread::sleep_for(std::chrono::milliseconds(20));
		srpt_os_complete_all(&d);
	});
	EXPECT_EQ(0, srpt_os_wait_for_completion(&d, 60000));
	t.join();
}

TEST_F(Fake, WaitRunsPendingWorkLikeAWorkqueue)
{
	struct Job {
		srpt_os_work w;
		srpt_os_completion done;
		static void fn(void *arg) { srpt_os_complete_all(&static_cast<Job *>(arg)->done); }
	} job;
	srpt_os_completion_init(&job.done);
	static srpt_os_lock_class job_class;
	srpt_os_work_init(&job.w, Job::fn, &job, "job.w", &job_class);
	EXPECT_EQ(1, srpt_os_work_schedule(&job.w));
	EXPECT_EQ(0, srpt_os_wait_for_completion(&job.done, 1000));
	EXPECT_EQ(0u, fake::pending_work());
}

TEST_F(Fake, LogRules)
{
	srpt_os_log(SRPT_LOG_INFO, "no newline");
	EXPECT_TRUE(has_violation(fake::take_violations(), "without a trailing newline"));
	srpt_os_log(42, "odd level\n");
	EXPECT_TRUE(has_violation(fake::take_violations(), "level 42"));
	SRPT_LOG_LIMITED(SRPT_LOG_WARN, "from the wire %d\n", 7);
	EXPECT_TRUE(fake::take_violations().empty());
	const auto logs = fake::logs();
	ASSERT_EQ(3u, logs.size());
	EXPECT_EQ(SRPT_LOG_WARN, logs[2].level);
	EXPECT_TRUE(logs[2].ratelimited);
	EXPECT_EQ("from the wire 7\n", logs[2].text);
}

/*
 * srpt_os_inet_pton() decides as inet_pton_with_scope() after src/shim/os.c's
 * whole-name check; every case here was checked against net/core/utils.c.
 */
TEST_F(Fake, InetPtonDecidesAsTheKernel)
{
	const struct {
		const char *name;
		int ret;
	} cases[] = {
		{"10.0.0.1", 0},
		{"fe80::1", 0},
		{"::ffff:10.0.0.1", 0},
		/* the address must be the whole name, or be followed by a scope */
		{"10.0.0.1:5", -EINVAL},
		{"::ffff:10.0.0.1:5", -EINVAL},
		{"10.0.0.1%lo", -EINVAL},
		/* a link-local scope (fe80::/10, ff02::/16) is an interface or a kstrtouint() number */
		{"fe80::1%srpt0", 0},
		{"ff02::1%lo", 0},
		{"fe80::1%eth9", -EINVAL},
		{"ff02::1%eth9", -EINVAL},
		{"fe80::1%", -EINVAL},
		{"fe80::1%4294967295", 0},
		{"fe80::1%4294967296", -EINVAL},
		{"fe80::1%0x10", 0},
		{"fe80::1%010", 0},
		{"fe80::1%08", -EINVAL},
		{"fe80::1%+2", 0},
		{"fe80::1%-2", -EINVAL},
		/* ... of at most 15 characters: the rest is not read */
		{"fe80::1%0000000000000001x", 0},
		/* any other address's scope is not read at all */
		{"2001:db8::1%eth9", 0},
		{"::1%", 0},
		/* 48 characters at most (the kernel's INET6_ADDRSTRLEN), the scope included */
		{"0000:0000:0000:0000:0000:ffff:255.255.255.255%lo", 0},
		{"0000:0000:0000:0000:0000:ffff:255.255.255.255%lo0", -EINVAL},
	};
	for (const auto &c : cases)
		EXPECT_EQ(c.ret, srpt_os_inet_pton(c.name, std::strlen(c.name))) << c.name;
	EXPECT_TRUE(fake::take_violations().empty());

	/* The interfaces are the test's to choose. */
	fake::config().netdevs = {"ib0.8001"};
	EXPECT_EQ(0, srpt_os_inet_pton("fe80::1%ib0.8001", 16));
	EXPECT_EQ(-EINVAL, srpt_os_inet_pton("fe80::1%srpt0", 13));

	(void)srpt_os_inet_pton("1.2.3.4\0", 8);
	EXPECT_TRUE(has_violation(fake::take_violations(), "with a NUL"));
}

TEST_F(Fake, CalloutsAfterRemovalAreCaught)
{
	fake::Device &d = add_device("mlx5_0", 1, 0x0002c90300a1b2c0ull);
	remove_device(d);
	srpt_port_attr attr;
	(void)srpt_os_port_query(&d, 1, &attr);
	EXPECT_TRUE(has_violation(fake::take_violations(), "after srpt_core_device_remove()"));
	(void)srpt_os_port_query(&d, 2, &attr);
	EXPECT_TRUE(has_violation(fake::take_violations(), "with port 2: a nonexistent port"));
}

TEST_F(Fake, GenericCallFailureInjection)
{
	fake::Device &d = add_device("mlx5_0", 1, 0x0002c90300a1b2c0ull);
	fake::fail_call("srq_create", 2, -ENOMEM);
	EXPECT_EQ(0, srpt_os_srq_create(&d, 16));
	srpt_os_srq_destroy(&d);
	EXPECT_EQ(-ENOMEM, srpt_os_srq_create(&d, 16));
	EXPECT_FALSE(d.srq);
	EXPECT_EQ(2, fake::calls("srpt_os_srq_create"));

	fake::fail_call("recv_alloc", 1, -ENOMEM);
	void *iu = nullptr;
	EXPECT_EQ(nullptr, srpt_os_recv_alloc(&d, nullptr, 100, 0, &iu));
	srpt_os_recv *r = srpt_os_recv_alloc(&d, nullptr, 100, 48, &iu);
	ASSERT_NE(nullptr, r);
	EXPECT_EQ(48u, reinterpret_cast<std::uintptr_t>(iu) % 512);
	EXPECT_EQ(-EINVAL, srpt_os_recv_post(&d, nullptr, r)) << "no SRQ: reported";
	EXPECT_TRUE(has_violation(fake::take_violations(), "srpt_os_recv_post: recv_post on the SRQ of a device without one"));
	srpt_os_recv_free(r);
	EXPECT_EQ(0u, fake::live_recvs());
}

TEST_F(Fake, TheChannelContractAllowsTheDocumentedOrderOnly)
{
	/* The shared rules themselves: a login and its release, in order. */
	srpt_contract c{};
	for (srpt_contract_call call :
	     {SRPT_CONTRACT_CREATE_QP, SRPT_CONTRACT_RECV_POST, SRPT_CONTRACT_OPEN_SESSION,
	      SRPT_CONTRACT_ACCEPT, SRPT_CONTRACT_ZERO_WRITE, SRPT_CONTRACT_QP_ERROR,
	      SRPT_CONTRACT_CLOSE_SESSION, SRPT_CONTRACT_DESTROY_CM, SRPT_CONTRACT_DESTROY_QP,
	      SRPT_CONTRACT_FREE}) {
		EXPECT_EQ(nullptr, srpt_contract_check(&c, call)) << call;
		srpt_contract_done(&c, call);
	}
	EXPECT_STREQ("a call after srpt_os_channel_free()",
		     srpt_contract_check(&c, SRPT_CONTRACT_DESTROY_QP));

	/* A login refused before its QP existed: a reject, and no QP to destroy. */
	srpt_contract refused{};
	EXPECT_EQ(nullptr, srpt_contract_check(&refused, SRPT_CONTRACT_REJECT));
	srpt_contract_done(&refused, SRPT_CONTRACT_REJECT);
	EXPECT_STREQ("cm_reject twice", srpt_contract_check(&refused, SRPT_CONTRACT_REJECT));
	EXPECT_EQ(nullptr, srpt_contract_check(&refused, SRPT_CONTRACT_DESTROY_QP));
	srpt_contract_done(&refused, SRPT_CONTRACT_DESTROY_QP);
	EXPECT_FALSE(refused.qp_destroyed) << "there was no QP";
}

TEST_F(Fake, ChannelContractBreachesAreCaught)
{
	srpt_os_channel ch;
	auto *core = reinterpret_cast<srpt_channel *>(&ch);

	EXPECT_EQ(0, srpt_os_channel_accept(&ch, "", 0));
	EXPECT_TRUE(has_violation(fake::take_violations(), "srpt_os_channel_accept: accept without a QP"));
	srpt_qp_params p{};
	p.max_send_wr = 8;
	ASSERT_EQ(0, srpt_os_channel_create_qp(&ch, core, &p));
	srpt_os_tpg *tpg = reinterpret_cast<srpt_os_tpg *>(&p);
	ASSERT_EQ(0, srpt_os_channel_open_session(&ch, tpg, "initiator"));
	srpt_os_channel_destroy_cm(&ch);
	EXPECT_TRUE(has_violation(fake::take_violations(), "destroy_cm while the LIO session is open"));
	srpt_os_channel_close_session(&ch);
	EXPECT_TRUE(has_violation(fake::take_violations(),
				  "close_session after the CM id or the QP was destroyed"));
	srpt_os_channel_free(&ch);
	EXPECT_TRUE(has_violation(fake::take_violations(), "srpt_os_channel_free: free before destroy_qp"));
	(void)srpt_os_channel_ready(&ch);
	EXPECT_TRUE(has_violation(fake::take_violations(), "after srpt_os_channel_free()"));
}
