/*
 * pool.c - the core's worker threads (see pool.h).
 *
 * Workers are started on first need and kept. A thread per call, as the
 * GEMM had before, paid for its start and for its stack: glibc releases a
 * finished thread's stack pages, the next thread faults them back in, and
 * a quarter of a 2-thread model step went to the kernel clearing them.
 *
 * A call posts its job (fn, arg, how many shares the workers take) under
 * the lock and bumps gen; worker w wakes, runs share w if the job has one
 * for it, and the last to finish signals done. The job's pointers are
 * read only by workers that take a share of it, while the caller waits: a
 * worker that wakes late for a job that was not its own never follows a
 * pointer into a call that has returned.
 *
 * Waking a sleeping thread costs tens of microseconds on a virtual
 * machine, as much as a small job: a chunked mixer call or a recurrence's
 * step made 2 threads slower than 1. So both sides spin a little before
 * they sleep: a worker watches gen for SPIN pauses after each job, and the
 * caller watches pending. gen and pending are atomics for that watching;
 * they still change only under the lock, and the conditions are waited on
 * only after a check under the lock, so no wake-up is lost.
 *
 * td_pool_ranges cuts n items into one range per share and carries a
 * share's failure, whose message lives in its thread, back to the caller.
 *
 * Must never: let two calls post jobs at once (use is held by the call
 * that owns the workers), or wait for workers that do not exist (after
 * fork, the child forgets the parent's).
 */
#include "pool.h"

#include <pthread.h>
#include <stdio.h>
#include <stdatomic.h>
#include <stdint.h>

#include "../base/error.h"

enum { SPIN = 4000 }; /* pauses a thread watches before it sleeps: 0.1 ms at 25 ns each */

static struct {
	pthread_mutex_t use;			 /* held by the call that owns the workers */
	pthread_mutex_t lock;			 /* guards everything below */
	pthread_cond_t wake, done;		 /* a job was posted; its last share finished */
	void (*fn)(void *arg, size_t w);	 /* the job: read only by workers w < n_shares */
	void *arg;
	size_t n_shares;			 /* shares of the job, the caller's included */
	atomic_ulong gen;			 /* bumped for every job */
	unsigned long birth[TD_POOL_MAX];	 /* gen when worker w was started */
	size_t started;				 /* workers 1 .. started are running */
	atomic_size_t pending;			 /* started workers still on the job */
} pool = {PTHREAD_MUTEX_INITIALIZER,
	  PTHREAD_MUTEX_INITIALIZER,
	  PTHREAD_COND_INITIALIZER,
	  PTHREAD_COND_INITIALIZER,
	  NULL,
	  NULL,
	  0,
	  0,
	  {0},
	  0,
	  0};

static pthread_once_t pool_once = PTHREAD_ONCE_INIT;

static void pause_once(void)
{
#if defined(__x86_64__) || defined(__i386__)
	__builtin_ia32_pause();
#endif
}

/* Spins while *v == old, for at most SPIN pauses (no lock held). */
static void spin_while_equal(atomic_ulong *v, unsigned long old)
{
	for (int i = 0; i < SPIN && atomic_load(v) == old; i++)
		pause_once();
}

/* Spins until *v is 0, for at most SPIN pauses (no lock held). */
static void spin_until_zero(atomic_size_t *v)
{
	for (int i = 0; i < SPIN && atomic_load(v) > 0; i++)
		pause_once();
}

/* In a child after fork(): none of the parent's workers exist here. */
static void pool_after_fork(void)
{
	pthread_mutex_init(&pool.use, NULL);
	pthread_mutex_init(&pool.lock, NULL);
	pthread_cond_init(&pool.wake, NULL);
	pthread_cond_init(&pool.done, NULL);
	pool.started = 0;
	atomic_store(&pool.pending, 0);
}

static void pool_register_fork(void)
{
	pthread_atfork(NULL, NULL, pool_after_fork);
}

static void *worker_main(void *arg)
{
	const size_t w = (size_t)(uintptr_t)arg;
	unsigned long seen;

	pthread_mutex_lock(&pool.lock);
	seen = pool.birth[w];
	for (;;) {
		void (*fn)(void *, size_t);
		void *job_arg;

		if (atomic_load(&pool.gen) == seen) {
			pthread_mutex_unlock(&pool.lock);
			spin_while_equal(&pool.gen, seen);
			pthread_mutex_lock(&pool.lock);
		}
		while (atomic_load(&pool.gen) == seen)
			pthread_cond_wait(&pool.wake, &pool.lock);
		seen = atomic_load(&pool.gen);
		if (w >= pool.n_shares)
			continue; /* not this job's: its pointers may be gone already */
		fn = pool.fn, job_arg = pool.arg;
		pthread_mutex_unlock(&pool.lock);
		fn(job_arg, w);
		pthread_mutex_lock(&pool.lock);
		if (atomic_fetch_sub(&pool.pending, 1) == 1)
			pthread_cond_signal(&pool.done);
	}
	return NULL;
}

/* Starts workers up to w = want - 1 (pool.lock held); some may fail to start. */
static void grow(size_t want)
{
	pthread_once(&pool_once, pool_register_fork);
	while (pool.started + 1 < want && pool.started + 1 < TD_POOL_MAX) {
		pthread_t tid;
		size_t w = pool.started + 1;

		pool.birth[w] = atomic_load(&pool.gen);
		if (pthread_create(&tid, NULL, worker_main, (void *)(uintptr_t)w) != 0)
			return;
		pthread_detach(tid);
		pool.started = w;
	}
}

void td_pool_run(size_t n, void (*fn)(void *arg, size_t w), void *arg)
{
	size_t on_workers;

	if (n <= 1 || pthread_mutex_trylock(&pool.use) != 0) {
		for (size_t w = 0; w < n; w++)
			fn(arg, w);
		return;
	}
	pthread_mutex_lock(&pool.lock);
	grow(n);
	on_workers = pool.started < n - 1 ? pool.started : n - 1;
	pool.fn = fn, pool.arg = arg, pool.n_shares = on_workers + 1;
	atomic_store(&pool.pending, on_workers);
	atomic_fetch_add(&pool.gen, 1);
	pthread_cond_broadcast(&pool.wake);
	pthread_mutex_unlock(&pool.lock);
	fn(arg, 0);
	for (size_t w = on_workers + 1; w < n; w++)
		fn(arg, w);
	spin_until_zero(&pool.pending);
	pthread_mutex_lock(&pool.lock);
	while (atomic_load(&pool.pending) > 0)
		pthread_cond_wait(&pool.done, &pool.lock);
	pthread_mutex_unlock(&pool.lock);
	pthread_mutex_unlock(&pool.use);
}

typedef struct {
	int (*fn)(void *arg, size_t i0, size_t i1);
	void *arg;
	size_t n, shares;
	int err[TD_POOL_MAX];	   /* each share's failure, 0 if none */
	char msg[TD_POOL_MAX][256]; /* its message, read in the share's thread */
} range_job;

static void range_share(void *arg, size_t w)
{
	range_job *j = arg;

	j->err[w] = j->fn(j->arg, j->n * w / j->shares, j->n * (w + 1) / j->shares);
	if (j->err[w])
		snprintf(j->msg[w], sizeof j->msg[w], "%s", td_error_last());
}

int td_pool_ranges(int threads, size_t n, int (*fn)(void *arg, size_t i0, size_t i1), void *arg)
{
	range_job j = {fn, arg, n, threads > 1 ? (size_t)threads : 1, {0}, {""}};

	if (j.shares > n)
		j.shares = n;
	if (j.shares > TD_POOL_MAX)
		j.shares = TD_POOL_MAX;
	if (j.shares <= 1)
		return fn(arg, 0, n);
	td_pool_run(j.shares, range_share, &j);
	for (size_t w = 0; w < j.shares; w++)
		if (j.err[w])
			return TD_FAIL(j.err[w], "%s", j.msg[w]);
	return 0;
}
