/*
 * test_gemm.c - the blocked GEMM: agreement with a naive triple loop, bitwise
 * independence of the thread count, BLAS beta semantics, leading dimensions
 * and refusals.
 *
 * Independent reference: a naive triple loop in double precision written
 * here from the definition C = alpha * op(A) * op(B) + beta * C, reading the
 * stored matrices through their leading dimensions.
 *
 * Every test that computes runs each kernel (baseline, avx2) the CPU has;
 * one that could not run turns the test into a visible skip.
 *
 * What these tests guard: tdaudit mutate --list --file core/gemm.c
 *   and --list --file core/gemm_kernel.inc
 *   and --list --file core/pool.c
 *
 * Edits seen breaking these tests that the catalogue may not hold:
 *   - do_block reading B as stored whatever trans_b says
 *     (`if (!g->o.trans_b) {` -> `if (1) {`)
 *       -> matches_a_naive_triple_loop (the trans_b cases)
 *   - do_block swapping a transposed A's strides -> matches_a_naive_...
 *   - do_block dropping the last partial k-panel (`p0 < g->k` ->
 *     `p0 + KC <= g->k`) -> matches_a_naive_triple_loop, and
 *     with_beta_zero_the_old_c_is_never_read (k = 1 < KC: no panel at all)
 *   - store() reading C when beta == 0 (`if (beta == 0)` -> `if (0)`), or
 *     small_product doing so (`g->o.beta == 0 ?` -> `0 ?`)
 *       -> with_beta_zero_the_old_c_is_never_read (the store's case only
 *          since its 10 x 8 product: DEBUG.md #24)
 *   - store() writing one past the block (`j < nc` -> `j <= nc`)
 *       -> leaves_the_padding_outside_the_matrix_untouched (and the naive
 *          and thread-count tests, through stale tile values)
 *   - dropping the ldb check -> bad_arguments_are_refused_with_a_message
 *   - micro_4x1, the one-vector column block (n = 8 on AVX2), summing k
 *     backwards -> every_element_is_its_sum_in_k_order_bitwise
 *   - small_product summing k backwards (`p = 0; p < g->k; p++` ->
 *     `p = g->k; p-- > 0;`) -> every_element_is_its_sum_in_k_order_bitwise
 *   - micro_4x2 (gemm_kernel.inc) running its panel's k steps backwards
 *     (`p = 0; p < kc; p++` -> `p = kc; p-- > 0;`), which the naive
 *     comparison and the thread-count test both tolerate
 *       -> every_element_is_its_sum_in_k_order_bitwise
 *   - micro_6x2, the six-row block, summing k backwards (as micro_4x2
 *     above) -> every_element_is_its_sum_in_k_order_bitwise; its sixth
 *     row's first vector taking the fifth row's A (`ap[5 * ars] * b0` ->
 *     `ap[4 * ars] * b0`) -> matches_a_naive_triple_loop and
 *     every_element_is_its_sum_in_k_order_bitwise
 *   - split_rows not recounting the row blocks it cut smaller (its
 *     n_bi line dropped) -> results_are_bitwise_equal_for_any_thread_count
 *   - a swapped job (A^T B or A B with fewer than 8 columns, computed as
 *     C^T) stored untransposed, written into C directly with one panel,
 *     or reading A B's A untransposed as C^T's B; micro_1x2 starting each
 *     panel from zero
 *       -> every_element_is_its_sum_in_k_order_bitwise
 *
 *   - the worker pool not reset in a child after fork (no pthread_atfork)
 *       -> with_threads_works_in_a_child_after_fork (the child hangs and
 *          its alarm fires)
 *   - two callers posting jobs to the pool at once (the busy check
 *     dropped) -> pool_a_call_made_while_the_workers_are_busy_runs_in_its_caller
 *     (every run: the second call is made while the first holds a
 *     worker). called_from_two_threads_at_once_gives_the_same_bits hangs
 *     on it only when the two calls happen to overlap badly: it did here,
 *     and passed in a CI run (DEBUG.md #19), so it is not the guard
 *   - the caller returning once its spin is over, without waiting for
 *     pending to reach 0 -> pool_run_returns_after_every_share_has_finished
 *   - td_pool_ranges ending each range but the last one item early, or
 *     dropping a worker's failure message
 *       -> pool_ranges_cover_each_item_once_and_carry_a_failure_back
 *
 * Second reference: the contract of gemm.h itself, the sum in k order in
 * td_real, held bitwise (every_element_is_its_sum_in_k_order_bitwise).
 */
#include "tdtest.h"

#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../base/error.h"
#include "../core/gemm.h"
#include "../core/pool.h"
#include "../core/rng.h"

/* Every kernel gemm.c has; a test runs each one this CPU can run. */
static const char *const kernels[] = {"baseline", "avx2"};

enum { N_KERNELS = sizeof kernels / sizeof kernels[0] };

/*
 * Makes td_gemm run kernel i; returns 0 when this build or CPU lacks it
 * (the caller counts it and skips visibly at the end: a kernel that did
 * not run is never a pass).
 */
static int use_kernel(size_t i)
{
	int err = td_gemm_use_kernel(kernels[i]);

	if (err)
		print_message("[  NOTE    ] %s\n", td_error_last());
	return err == 0;
}

/*
 * Runs cases (which returns how many elements were wrong) on every kernel
 * this CPU can run, then goes back to the default kernel; asserts that none
 * was wrong, and skips visibly if a kernel did not run.
 */
static void on_every_kernel(int (*cases)(void))
{
	int bad = 0, ran = 0;

	for (size_t kn = 0; kn < N_KERNELS; kn++) {
		if (!use_kernel(kn))
			continue;
		ran++;
		bad += cases();
	}
	td_gemm_use_kernel(NULL);
	assert_int_equal(bad, 0);
	if (ran < N_KERNELS)
		TD_SKIP("%d of %d GEMM kernels ran on this CPU\n", ran, N_KERNELS);
}

/* A stored matrix with padded rows, filled from a stream. */
typedef struct {
	td_real *v;
	size_t rows, cols, ld;
} mat;

static mat mat_new(size_t rows, size_t cols, size_t pad, uint64_t stream)
{
	mat x = {NULL, rows, cols, cols + pad};

	x.v = malloc((rows * x.ld + 1) * sizeof *x.v);
	assert_non_null(x.v);
	td_rng_fill_uniform(5, stream, 0, rows * x.ld + 1, -1, 1, x.v);
	return x;
}

/* The definition, in double: the reference the blocked code is held to. */
static void naive(double *out, const mat *c, const mat *a, const mat *b, size_t m, size_t n,
		  size_t k, const td_gemm_opts *o)
{
	for (size_t i = 0; i < m; i++)
		for (size_t j = 0; j < n; j++) {
			double s = 0;

			for (size_t p = 0; p < k; p++) {
				double av = o->trans_a ? a->v[p * a->ld + i] : a->v[i * a->ld + p];
				double bv = o->trans_b ? b->v[j * b->ld + p] : b->v[p * b->ld + j];

				s += av * bv;
			}
			out[i * n + j] =
			    o->alpha * s + (o->beta == 0 ? 0 : o->beta * c->v[i * c->ld + j]);
		}
}

/* Runs one case and returns how many elements are off by more than the error bound. */
static int check_case(size_t m, size_t n, size_t k, const td_gemm_opts *o)
{
	mat a = o->trans_a ? mat_new(k, m, 3, 1) : mat_new(m, k, 3, 1);
	mat b = o->trans_b ? mat_new(n, k, 2, 2) : mat_new(k, n, 2, 2);
	mat c = mat_new(m, n, 1, 3);
	double *want = malloc(m * n * sizeof *want);
	int bad = 0;

	assert_non_null(want);
	naive(want, &c, &a, &b, m, n, k, o);
	assert_int_equal(td_gemm(c.v, c.ld, a.v, a.ld, b.v, b.ld, m, n, k, o), 0);
	for (size_t i = 0; i < m * n; i++) {
		/* |entries| <= 1: the rounding error is at most ~ (k + 2) eps */
		double tol = 4.0 * (double)(k + 2) * TD_REAL_EPSILON;

		if (fabs((double)c.v[(i / n) * c.ld + i % n] - want[i]) > tol && bad++ < 3)
			print_message(
			    "  m %zu n %zu k %zu ta %d tb %d: C[%zu][%zu] = %g, want %g\n", m, n, k,
			    o->trans_a, o->trans_b, i / n, i % n,
			    (double)c.v[(i / n) * c.ld + i % n], want[i]);
	}
	free(want), free(a.v), free(b.v), free(c.v);
	return bad;
}

/* The naive comparison on the current kernel: every size, transpose and alpha/beta. */
static int naive_cases(void)
{
	/* 1, primes, sizes around and past the block sizes (32, 128), k = 0 on both paths */
	static const size_t sizes[][3] = {{1, 1, 1},	{1, 7, 3},    {7, 1, 5},
					  {13, 17, 1},	{33, 129, 2}, {67, 131, 129},
					  {31, 5, 257}, {2, 0, 3},    {5, 4, 0},
					  {70, 3, 0}};
	static const td_real ab[][2] = {{1, 0}, {(td_real)-0.5, 2}, {2, 1}, {1, 1}};
	int bad = 0;

	for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++)
		for (int t = 0; t < 4; t++)
			for (size_t v = 0; v < 4; v++) {
				td_gemm_opts o = TD_GEMM_OPTS_INIT;

				o.trans_a = t & 1, o.trans_b = t >> 1;
				o.alpha = ab[v][0], o.beta = ab[v][1];
				o.threads = 2;
				bad += check_case(sizes[s][0], sizes[s][1], sizes[s][2], &o);
			}
	return bad;
}

static void test_gemm_matches_a_naive_triple_loop(void **state)
{
	(void)state;
	on_every_kernel(naive_cases);
}

/*
 * gemm.h's determinism contract, element by element: s = 0, then s += the
 * products one k at a time in order, in td_real; C = alpha s (+ beta C).
 * Returns how many elements are not bitwise that.
 */
static int check_order(size_t m, size_t n, size_t k, const td_gemm_opts *o)
{
	mat a = o->trans_a ? mat_new(k, m, 1, 4) : mat_new(m, k, 1, 4);
	mat b = o->trans_b ? mat_new(n, k, 3, 5) : mat_new(k, n, 3, 5);
	mat c = mat_new(m, n, 2, 6);
	td_real *want = malloc((m * n + 1) * sizeof *want);
	int bad = 0;

	assert_non_null(want);
	for (size_t i = 0; i < m; i++)
		for (size_t j = 0; j < n; j++) {
			td_real s = 0;

			for (size_t p = 0; p < k; p++)
				s += (o->trans_a ? a.v[p * a.ld + i] : a.v[i * a.ld + p]) *
				     (o->trans_b ? b.v[j * b.ld + p] : b.v[p * b.ld + j]);
			want[i * n + j] = o->beta == 0 ? o->alpha * s
						       : o->alpha * s + o->beta * c.v[i * c.ld + j];
		}
	assert_int_equal(td_gemm(c.v, c.ld, a.v, a.ld, b.v, b.ld, m, n, k, o), 0);
	for (size_t i = 0; i < m * n; i++)
		bad += memcmp(&c.v[(i / n) * c.ld + i % n], &want[i], sizeof *want) != 0;
	free(want), free(a.v), free(b.v), free(c.v);
	return bad;
}

/* The k-order check on the current kernel. */
static int order_cases(void)
{
	/*
	 * register blocks of 4 rows x 2 vectors of either width (8 or 16
	 * floats), their row and column remainders, k-panels (64 deep with a
	 * transposed A, 128 without); products small enough for small_product
	 * (at most 64 multiply-adds), one a long sum; several row blocks whose
	 * C fits one tile, taken panel by panel (run_panels); A^T B and A B
	 * with fewer than 8 columns, computed as C^T (swap_pays): one panel
	 * (which the kernel must not write into C directly) and several, rows of 4 and
	 * fewer, C^T wider than a column block; blocks of 6 rows (micro_6x2)
	 * followed by blocks of 4, by one row, or by nothing, over one
	 * panel and several; with a transposed B and columns that are not
	 * whole vectors, tiles whose rows have room for the last vectors
	 * whole (wide) and, 200 x 20 over several panels, one whose rows
	 * are exactly n apart (the tile has no room for 200 rows of 32)
	 */
	static const size_t sizes[][3] = {{4, 8, 3},	{5, 9, 7},	{3, 3, 8},
					  {4, 16, 5},	{9, 35, 4},	{33, 129, 2},
					  {67, 131, 129}, {31, 16, 257}, {8, 10, 300},
					  {4, 12, 5},	{6, 28, 9},	{8, 8, 1},
					  {2, 3, 10},	{1, 1, 64},	{40, 20, 100},
					  {70, 33, 200}, {40, 1, 300},	{33, 7, 130},
					  {300, 2, 70},	{9, 4, 65},	{20, 3, 10},
					  {32, 32, 70},	{7, 16, 9},	{13, 48, 130},
					  {12, 32, 5},	{200, 20, 200}};
	int bad = 0;

	for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++)
		for (int t = 0; t < 8; t++) {
			td_gemm_opts o = TD_GEMM_OPTS_INIT;

			o.trans_a = t & 1, o.trans_b = (t >> 1) & 1;
			o.alpha = t & 4 ? (td_real)-0.5 : 1, o.beta = t & 4 ? 2 : 0;
			bad += check_order(sizes[s][0], sizes[s][1], sizes[s][2], &o);
		}
	return bad;
}

static void test_gemm_every_element_is_its_sum_in_k_order_bitwise(void **state)
{
	(void)state;
	on_every_kernel(order_cases);
}

/* One caller of the concurrency test: its own C, computed `rounds` times with 2 threads. */
typedef struct {
	const mat *a, *b;
	td_real *c;
	size_t m, n, k;
	int rounds, err;
	pthread_barrier_t *start; /* both callers begin together, so that their calls overlap */
} caller;

static void *caller_main(void *arg)
{
	caller *cl = arg;
	td_gemm_opts o = TD_GEMM_OPTS_INIT;

	o.threads = 2;
	pthread_barrier_wait(cl->start);
	for (int r = 0; r < cl->rounds && !cl->err; r++)
		cl->err = td_gemm(cl->c, cl->n, cl->a->v, cl->k, cl->b->v, cl->n, cl->m, cl->n, cl->k,
				  &o);
	return NULL;
}

static void test_gemm_called_from_two_threads_at_once_gives_the_same_bits(void **state)
{
	const size_t m = 100, n = 300, k = 40; /* enough blocks for 2 workers */
	mat a = mat_new(m, k, 0, 1), b = mat_new(k, n, 0, 2);
	td_real *want = calloc(m * n, sizeof *want);
	caller cl[2];
	pthread_t tid[2];
	pthread_barrier_t start;
	td_gemm_opts o = TD_GEMM_OPTS_INIT;

	(void)state;
	assert_non_null(want);
	assert_int_equal(pthread_barrier_init(&start, NULL, 2), 0);
	assert_int_equal(td_gemm(want, n, a.v, k, b.v, n, m, n, k, &o), 0); /* 1 thread */
	for (int t = 0; t < 2; t++) {
		cl[t] = (caller){&a, &b, calloc(m * n, sizeof(td_real)), m, n, k, 1000, 0, &start};
		assert_non_null(cl[t].c);
		assert_int_equal(pthread_create(&tid[t], NULL, caller_main, &cl[t]), 0);
	}
	for (int t = 0; t < 2; t++) {
		pthread_join(tid[t], NULL);
		assert_int_equal(cl[t].err, 0);
		assert_memory_equal(cl[t].c, want, m * n * sizeof *want);
		free(cl[t].c);
	}
	pthread_barrier_destroy(&start);
	free(want), free(a.v), free(b.v);
}

/*
 * The busy-pool test. Job a's share 1 holds the workers until job b has
 * finished; job b is called from another thread meanwhile. A pool that
 * turns b away runs it in b's caller, which then releases a. A pool that
 * posts b over a has b wait for a worker that waits for b: share 1 gives
 * up after a few seconds, and the pool's books are wrong from then on.
 */
typedef struct {
	pthread_mutex_t m;
	pthread_cond_t cv;
	int a_waiting, b_done, a_gave_up;
	pthread_t b_caller;
	int b_runs[2], b_elsewhere;
	void (*b_job)(void *arg, size_t w); /* job b; job_b when NULL */
} busy_pool;

static void job_a(void *arg, size_t w)
{
	busy_pool *s = arg;
	struct timespec until;

	if (w != 1)
		return;
	clock_gettime(CLOCK_REALTIME, &until);
	until.tv_sec += 3;
	pthread_mutex_lock(&s->m);
	s->a_waiting = 1;
	pthread_cond_broadcast(&s->cv);
	while (!s->b_done && !s->a_gave_up)
		s->a_gave_up = pthread_cond_timedwait(&s->cv, &s->m, &until) == ETIMEDOUT;
	pthread_mutex_unlock(&s->m);
}

static void job_b(void *arg, size_t w)
{
	busy_pool *s = arg;

	pthread_mutex_lock(&s->m);
	s->b_runs[w]++;
	s->b_elsewhere += !pthread_equal(pthread_self(), s->b_caller);
	pthread_mutex_unlock(&s->m);
}

static void *b_caller_main(void *arg)
{
	busy_pool *s = arg;

	pthread_mutex_lock(&s->m);
	s->b_caller = pthread_self();
	while (!s->a_waiting)
		pthread_cond_wait(&s->cv, &s->m);
	pthread_mutex_unlock(&s->m);
	td_pool_run(2, s->b_job ? s->b_job : job_b, s);
	pthread_mutex_lock(&s->m);
	s->b_done = 1;
	pthread_cond_broadcast(&s->cv);
	pthread_mutex_unlock(&s->m);
	return NULL;
}

/* In a child, so that a broken pool hangs or corrupts only it: 0 when job b ran in its caller. */
static int busy_pool_child(void (*b_job)(void *arg, size_t w))
{
	busy_pool s = {.m = PTHREAD_MUTEX_INITIALIZER, .cv = PTHREAD_COND_INITIALIZER};
	pthread_t tid;

	s.b_job = b_job;
	if (pthread_create(&tid, NULL, b_caller_main, &s) != 0)
		return 2;
	td_pool_run(2, job_a, &s);
	pthread_join(tid, NULL);
	return s.a_gave_up || s.b_runs[0] != 1 || s.b_runs[1] != 1 || s.b_elsewhere != 0;
}

/* Share w sleeps 4 (w + 1) ms, longer than the pool's spin, then says it finished. */
static void slow_share(void *arg, size_t w)
{
	struct timespec t = {0, 4000000 * (long)(w + 1)};

	nanosleep(&t, NULL);
	((int *)arg)[w] = 1;
}

/* What td_pool_ranges handed out: how many ranges held each item; the last range fails. */
static int log_range(void *arg, size_t i0, size_t i1)
{
	int *seen = arg;

	for (size_t i = i0; i < i1; i++)
		seen[i]++;
	if (i1 == 10) /* on a worker when there are several ranges */
		return TD_FAIL(TD_EINVAL, "the range %zu .. %zu failed", i0, i1);
	return 0;
}

static void test_pool_ranges_cover_each_item_once_and_carry_a_failure_back(void **state)
{
	(void)state;
	for (int threads = 1; threads <= 12; threads += 2) {
		int seen[10] = {0};

		td_error_clear();
		assert_int_equal(td_pool_ranges(threads, 10, log_range, seen), TD_EINVAL);
		assert_non_null(strstr(td_error_last(), threads == 1 ? "the range 0 .. 10 failed"
								      : " .. 10 failed"));
		for (size_t i = 0; i < 10; i++)
			if (seen[i] != 1)
				fail_msg("%d threads: item %zu was in %d ranges", threads, i, seen[i]);
	}
}

/* Counts its calls. */
static int count_range(void *arg, size_t i0, size_t i1)
{
	(void)i0, (void)i1;
	atomic_fetch_add((atomic_int *)arg, 1);
	return 0;
}

/* Counts its calls; the range holding item 0 fails. */
static int first_range_fails(void *arg, size_t i0, size_t i1)
{
	atomic_int *calls = arg;

	atomic_fetch_add(calls, 1);
	if (i0 == 0)
		return TD_FAIL(TD_EINVAL, "the range %zu .. %zu failed", i0, i1);
	return 0;
}

/*
 * With 3 threads, 10 items are cut into 3 ranges, one call each, and a
 * failure of the first range (share 0, in the caller) comes back with its
 * message; with 1 thread, fn's failure comes back as fn raised it, its
 * origin kept. Seen failing with td_pool_ranges's shares <= 1 check
 * negated (one call of all the items), made shares < 1 or shares <= 0
 * (one share through the pool, whose failure is raised again in
 * td_pool_ranges), its failure loop starting at w = 1, and (UBSan: err[]
 * read past its end at TD_POOL_MAX shares) that loop's w < shares made <=.
 */
static void test_pool_ranges_make_one_call_per_thread_and_carry_the_firsts_failure(void **state)
{
	atomic_int calls = 0;

	(void)state;
	td_error_clear();
	assert_int_equal(td_pool_ranges(3, 10, first_range_fails, &calls), TD_EINVAL);
	assert_non_null(strstr(td_error_last(), "the range 0 .. 3 failed"));
	assert_int_equal(atomic_load(&calls), 3);
	td_error_clear(); /* one thread: fn's own failure, raised where fn raised it */
	assert_int_equal(td_pool_ranges(1, 10, first_range_fails, &calls), TD_EINVAL);
	assert_non_null(strstr(td_error_origin(), "first_range_fails"));
	assert_int_equal(atomic_load(&calls), 4);
	atomic_store(&calls, 0); /* the most shares: their failures read, none past them */
	assert_int_equal(td_pool_ranges(TD_POOL_MAX + 1, 100, count_range, &calls), 0);
	assert_int_equal(atomic_load(&calls), TD_POOL_MAX);
}

static void test_pool_run_returns_after_every_share_has_finished(void **state)
{
	(void)state;
	for (int round = 0; round < 3; round++) {
		int finished[3] = {0, 0, 0};

		td_pool_run(3, slow_share, finished);
		for (int w = 0; w < 3; w++)
			if (!finished[w])
				fail_msg("round %d: td_pool_run returned before share %d finished", round, w);
	}
}

/* Where share 1 of a call ran: on a thread other than caller's or not. */
typedef struct {
	pthread_t caller;
	int elsewhere;
} where_ran;

static void note_elsewhere(void *arg, size_t w)
{
	where_ran *r = arg;

	if (w == 1)
		r->elsewhere = !pthread_equal(pthread_self(), r->caller);
}

/*
 * Job b of the busy-pool test, forking while job a holds the workers: in
 * the grandchild, a call of 2 shares must still run share 1 on a worker
 * (0), the busy parent's hold on the pool forgotten; b_elsewhere is set
 * when it did not (or the grandchild failed).
 */
static void job_b_forks(void *arg, size_t w)
{
	busy_pool *s = arg;
	int status = 0;
	pid_t pid;

	job_b(arg, w);
	if (w != 0)
		return;
	pid = fork();
	if (pid == 0) {
		where_ran r = {pthread_self(), 0};

		alarm(3);
		td_pool_run(2, note_elsewhere, &r);
		_exit(!r.elsewhere);
	}
	if (pid < 0 || waitpid(pid, &status, 0) != pid || !WIFEXITED(status) ||
	    WEXITSTATUS(status) != 0) {
		pthread_mutex_lock(&s->m);
		s->b_elsewhere++;
		pthread_mutex_unlock(&s->m);
	}
}

/*
 * busy_pool_child(b) in a child of its own, given 6 s: fails the test with
 * what when it exits non-zero, and says so when a caller waited for ever.
 */
static void in_busy_child(void (*b)(void *arg, size_t w), const char *what)
{
	int status = 0;
	pid_t pid = fork();

	assert_true(pid >= 0);
	if (pid == 0) {
		alarm(6);
		_exit(busy_pool_child(b));
	}
	assert_int_equal(waitpid(pid, &status, 0), pid);
	if (WIFSIGNALED(status))
		fail_msg("the child died of signal %d (SIGALRM: a caller waited forever)",
			 WTERMSIG(status));
	if (WEXITSTATUS(status) != 0)
		fail_msg("%s (exit %d)", what, WEXITSTATUS(status));
}

static void test_pool_a_call_made_while_the_workers_are_busy_runs_in_its_caller(void **state)
{
	(void)state;
	in_busy_child(NULL, "a call made while the workers were busy did not run all its "
			    "shares in its caller");
}

/*
 * A child forked while another thread of its parent holds the workers
 * (job a of the busy-pool test) has a pool of its own: a call of 2
 * shares there runs share 1 on a new worker, not in its caller for
 * good. Seen failing with pool_after_fork's pthread_mutex_init of
 * pool.use removed.
 */
static void test_pool_a_child_forked_while_the_workers_are_busy_has_its_own(void **state)
{
	(void)state;
	in_busy_child(job_b_forks, "the grandchild ran share 1 in its caller, or failed");
}

/* Seconds of CPU time this process has used, all its threads together. */
static double cpu_seconds(void)
{
	struct timespec t;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
	return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

/* Share 1 sleeps 100 ms; the others return at once. */
static void sleepy_share(void *arg, size_t w)
{
	struct timespec t = {0, 100000000};

	(void)arg;
	if (w == 1)
		nanosleep(&t, NULL);
}

/*
 * Neither side of a call spins for long: the caller waiting 100 ms for a
 * sleeping share, and then the idle workers for 100 ms more, use far less
 * CPU time than the 200 ms they wait (0.1 ms of spinning each, then they
 * sleep). Seen failing with spin_while_equal's && made || (idle workers
 * spinning until the next job) and spin_until_zero's && made || (the
 * caller spinning until its shares are done).
 */
static void test_pool_threads_sleep_rather_than_spin_while_they_wait(void **state)
{
	struct timespec idle = {0, 100000000};
	double used;

	(void)state;
	if (getenv("TDTEST_VALGRIND"))
		TD_SKIP("memcheck runs the spins 20-50 times slower: their CPU time says nothing");
	td_pool_run(2, sleepy_share, NULL); /* the worker exists from here on */
	used = cpu_seconds();
	td_pool_run(2, sleepy_share, NULL);
	nanosleep(&idle, NULL);
	used = cpu_seconds() - used;
	if (used > 0.02)
		fail_msg("waiting 200 ms used %.0f ms of CPU time", used * 1e3);
}

/* The threads of this process: the entries of /proc/self/task. */
static int threads_now(void)
{
	DIR *d = opendir("/proc/self/task");
	struct dirent *e;
	int n = 0;

	if (!d)
		return -1;
	while ((e = readdir(d)))
		n += e->d_name[0] != '.';
	closedir(d);
	return n;
}

/* Share w records the thread that ran it. */
static void record_thread(void *arg, size_t w)
{
	((pthread_t *)arg)[w] = pthread_self();
}

/*
 * In a child, whose pool starts with no workers: 0 when n shares ran share
 * 0 and every share at or past TD_POOL_MAX in the caller, each other share
 * on a thread of its own, and left the process with spare threads beside
 * the caller's.
 */
static int shares_on_threads(size_t n, int spare)
{
	pthread_t tid[TD_POOL_MAX + 6];
	const pthread_t self = pthread_self();

	td_pool_run(n, record_thread, tid);
	if (threads_now() != spare + 1)
		return 1;
	for (size_t w = 0; w < n; w++) {
		int in_caller = pthread_equal(tid[w], self);

		if (in_caller != (w == 0 || w >= TD_POOL_MAX))
			return 2;
		for (size_t v = 1; v < w && !in_caller; v++)
			if (pthread_equal(tid[v], tid[w]))
				return 3;
	}
	return 0;
}

static int pool_threads_child(void)
{
	int err;

	if (threads_now() != 1)
		return 4;
	if ((err = shares_on_threads(3, 2)) || (err = shares_on_threads(3, 2)))
		return err;
	return shares_on_threads(TD_POOL_MAX + 6, TD_POOL_MAX - 1) ? 5 : 0;
}

/*
 * The pool starts the workers a call needs, once, and no more: a call of 3
 * shares runs shares 1 and 2 each on a thread of its own, leaving 2
 * threads beside the caller's, and a second such call starts none; a call
 * of TD_POOL_MAX + 6 shares brings the workers to TD_POOL_MAX - 1 and
 * runs the shares past them in the caller. In a child, which has no
 * workers yet. Seen failing with grow's loop condition negated or its &&
 * made ||, its started + 1 < want made started - 1 or started + 0, its
 * started + 1 < TD_POOL_MAX made started - 1, started + 0 or <= (ASan:
 * birth[] overrun), its pthread_create check negated or made != 1, and
 * with td_pool_run's call to grow removed, its trylock check made != 1,
 * its unlock of pool.use removed or its calls of the shares past the
 * workers removed.
 */
static void test_pool_starts_one_worker_per_share_once_up_to_its_most(void **state)
{
	int status = 0;
	pid_t pid;

	(void)state;
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		alarm(6);
		_exit(pool_threads_child());
	}
	assert_int_equal(waitpid(pid, &status, 0), pid);
	if (WIFSIGNALED(status))
		fail_msg("the child died of signal %d", WTERMSIG(status));
	if (WEXITSTATUS(status) != 0)
		fail_msg("the pool's shares or threads were not as counted (exit %d: 1 threads, 2 "
			 "the share's thread, 3 a thread shared, 4 the child's start, 5 past "
			 "TD_POOL_MAX)", WEXITSTATUS(status));
}

static void test_gemm_with_threads_works_in_a_child_after_fork(void **state)
{
	const size_t m = 100, n = 300, k = 40;
	mat a = mat_new(m, k, 0, 1), b = mat_new(k, n, 0, 2);
	td_real *c = calloc(m * n, sizeof *c), *want = calloc(m * n, sizeof *want);
	td_gemm_opts o = TD_GEMM_OPTS_INIT;
	int status = 0;
	pid_t pid;

	(void)state;
	assert_true(c && want);
	o.threads = 2; /* the parent's workers exist from here on */
	assert_int_equal(td_gemm(want, n, a.v, k, b.v, n, m, n, k, &o), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) { /* the child: a hang (waiting for workers it lacks) ends at the alarm */
		int bad;

		alarm(3);
		bad = td_gemm(c, n, a.v, k, b.v, n, m, n, k, &o) != 0 ||
		      memcmp(c, want, m * n * sizeof *c) != 0;
		/* the child's copies are its own: freed, or memcheck (make valgrind) counts them
		   as lost in the child and exits 99, which reads as a failure of td_gemm */
		free(c), free(want), free(a.v), free(b.v);
		_exit(bad);
	}
	assert_int_equal(waitpid(pid, &status, 0), pid);
	if (WIFSIGNALED(status))
		fail_msg("the child died of signal %d (SIGALRM: it hung in td_gemm)", WTERMSIG(status));
	assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	free(c), free(want), free(a.v), free(b.v);
}

static void test_gemm_kernels_are_chosen_by_name_and_unknown_names_refused(void **state)
{
	const char *def = td_gemm_kernel();

	(void)state;
	assert_int_equal(td_gemm_use_kernel("baseline"), 0);
	assert_string_equal(td_gemm_kernel(), "baseline");
	TD_ASSERT_REFUSED(td_gemm_use_kernel("avx9"), TD_EINVAL, "no GEMM kernel is called \"avx9\"");
	assert_string_equal(td_gemm_kernel(), "baseline"); /* a refusal changes nothing */
	assert_int_equal(td_gemm_use_kernel(NULL), 0);
	assert_string_equal(td_gemm_kernel(), def);
}

/* C = op(A) B + beta C (C starting at 0.5) with 1, 2 and 3 threads: the same bits. */
static void same_bits_for_1_2_3_threads(size_t m, size_t n, size_t k, int trans_a, td_real beta)
{
	mat a = trans_a ? mat_new(k, m, 0, 1) : mat_new(m, k, 0, 1), b = mat_new(k, n, 0, 2);
	td_real *c[3];

	for (int t = 0; t < 3; t++) {
		td_gemm_opts o = TD_GEMM_OPTS_INIT;

		c[t] = malloc(m * n * sizeof *c[t]);
		assert_non_null(c[t]);
		for (size_t e = 0; e < m * n; e++)
			c[t][e] = (td_real)0.5;
		o.threads = t + 1, o.trans_a = trans_a, o.beta = beta;
		assert_int_equal(td_gemm(c[t], n, a.v, a.ld, b.v, n, m, n, k, &o), 0);
	}
	assert_memory_equal(c[0], c[1], m * n * sizeof *c[0]);
	assert_memory_equal(c[0], c[2], m * n * sizeof *c[0]);
	for (int t = 0; t < 3; t++)
		free(c[t]);
	free(a.v), free(b.v);
}

static void test_gemm_results_are_bitwise_equal_for_any_thread_count(void **state)
{
	(void)state;
	same_bits_for_1_2_3_threads(100, 300, 300, 0, 0); /* 4 x 3 output blocks, 3 k-panels */
	/*
	 * weight gradients, taken panel by panel across all their blocks
	 * (run_panels), their rows cut for 2 and 3 threads (split_rows): 96
	 * rows in 3 blocks of 32 or 4 of 24; 30 rows in 1, in 16 + 14 or in
	 * 12 + 12 + 6
	 */
	same_bits_for_1_2_3_threads(96, 32, 3000, 1, 1);
	same_bits_for_1_2_3_threads(30, 20, 500, 1, 0);
}

static void test_gemm_with_beta_zero_the_old_c_is_never_read(void **state)
{
	const td_real a[] = {1, 2}, b[] = {3, 4};
	td_real c[] = {(td_real)NAN, (td_real)INFINITY}, ones[80], big[80];
	td_gemm_opts o = TD_GEMM_OPTS_INIT; /* beta 0 */

	(void)state;
	assert_int_equal(td_gemm(c, 1, a, 1, b, 1, 2, 1, 1, &o), 0); /* small_product */
	assert_true(c[0] == 3 && c[1] == 6);
	for (size_t i = 0; i < 80; i++)
		ones[i] = 1, big[i] = (td_real)NAN;
	assert_int_equal(td_gemm(big, 1, ones, 1, b, 1, 80, 1, 1, &o), 0); /* 80 > 64: blocks */
	for (size_t i = 0; i < 80; i++)
		assert_true(big[i] == 3);
	for (size_t i = 0; i < 80; i++)
		big[i] = (td_real)NAN;
	o.alpha = 2; /* not written straight into C: the tile and the store (of C^T) */
	assert_int_equal(td_gemm(big, 1, ones, 1, b, 1, 80, 1, 1, &o), 0);
	for (size_t i = 0; i < 80; i++)
		assert_true(big[i] == 6);
	/*
	 * 10 x 8 (n >= 8: not swapped, DEBUG.md #24): the store of C itself.
	 * The 80 x 1 products above are computed as C^T since A B with
	 * fewer than 8 columns is swapped, so they no longer reach it.
	 */
	for (size_t i = 0; i < 80; i++)
		big[i] = (td_real)NAN;
	assert_int_equal(td_gemm(big, 8, ones, 1, ones, 8, 10, 8, 1, &o), 0);
	for (size_t i = 0; i < 80; i++)
		assert_true(big[i] == 2);
}

/*
 * Two column blocks, the second of 2 or 8 columns: with B as stored
 * (alpha 1: written straight into C; 2: the store) and with B^T, whose
 * last 2 columns the kernel computes whole vectors wide in its tile
 * (wide) and whose last 8 it writes into C, neither reaching C past
 * column n.
 */
static void test_gemm_leaves_the_padding_outside_the_matrix_untouched(void **state)
{
	const size_t m = 40, k = 3;
	mat a = mat_new(m, k, 0, 1), b = mat_new(k, 136, 0, 2);
	td_real *c = malloc(m * (136 + 5) * sizeof *c);

	(void)state;
	assert_non_null(c);
	for (int t = 0; t < 8; t++) {
		const size_t n = t < 4 ? 130 : 136, ldc = n + 5;
		td_gemm_opts o = TD_GEMM_OPTS_INIT;

		o.alpha = (td_real)(t % 2 + 1), o.trans_b = t / 2 % 2; /* B^T: b's values as n x k */
		for (size_t i = 0; i < m * ldc; i++)
			c[i] = 99;
		assert_int_equal(td_gemm(c, ldc, a.v, k, b.v, o.trans_b ? k : n, m, n, k, &o), 0);
		for (size_t i = 0; i < m; i++)
			for (size_t j = n; j < ldc; j++)
				assert_true(c[i * ldc + j] == 99);
	}
	free(c), free(a.v), free(b.v);
}

static void test_gemm_bad_arguments_are_refused_with_a_message(void **state)
{
	td_real a[6] = {0}, b[6] = {0}, c[6] = {7, 7, 7, 7, 7, 7};
	td_gemm_opts o = TD_GEMM_OPTS_INIT;

	(void)state;
	TD_ASSERT_REFUSED(td_gemm(c, 3, a, 2, b, 2, 2, 3, 2, NULL), TD_EINVAL,
			  "ldb 2 is less than");
	TD_ASSERT_REFUSED(td_gemm(c, 3, a, 1, b, 3, 2, 3, 2, NULL), TD_EINVAL,
			  "lda 1 is less than");
	TD_ASSERT_REFUSED(td_gemm(c, 2, a, 2, b, 3, 2, 3, 2, NULL), TD_EINVAL,
			  "ldc 2 is less than n 3");
	TD_ASSERT_REFUSED(td_gemm(c, 3, NULL, 2, b, 3, 2, 3, 2, NULL), TD_EINVAL, "A is NULL");
	o.trans_b = 1; /* the stored B is 3 x 2 */
	TD_ASSERT_REFUSED(td_gemm(c, 3, a, 2, b, 1, 2, 3, 2, &o), TD_EINVAL, "(trans_b)");
	o.threads = 0;
	TD_ASSERT_REFUSED(td_gemm(c, 3, a, 2, b, 2, 2, 3, 2, &o), TD_EINVAL, "threads is 0");
	for (int i = 0; i < 6; i++)
		assert_true(c[i] == 7);
}

/*
 * The count is m * n * k of each call made between begin and end, over
 * every path (a small product, a product computed as its transpose, one
 * shared by two threads, k = 0), a refused call and calls outside the
 * window not counted.
 */
static void test_gemm_counts_the_multiply_adds_asked_of_it(void **state)
{
	const size_t big = 100;
	mat a = mat_new(big, big, 0, 1), b = mat_new(big, big, 0, 2);
	td_real *c = calloc(big * big, sizeof *c);
	td_gemm_opts two = TD_GEMM_OPTS_INIT;

	(void)state;
	assert_non_null(c);
	two.threads = 2;
	assert_int_equal(td_gemm(c, big, a.v, big, b.v, big, 3, 3, 3, NULL), 0); /* not counted */
	td_gemm_count_begin();
	assert_int_equal(td_gemm(c, big, a.v, big, b.v, big, 2, 3, 4, NULL), 0); /* small */
	assert_int_equal(td_gemm(c, 1, a.v, big, b.v, 1, 80, 1, 100, NULL), 0); /* as C^T */
	assert_int_equal(td_gemm(c, big, a.v, big, b.v, big, 100, 100, 100, &two), 0);
	assert_int_equal(td_gemm(c, big, a.v, big, b.v, big, 5, 7, 0, NULL), 0); /* k = 0 */
	TD_ASSERT_REFUSED(td_gemm(c, 2, a.v, big, b.v, big, 5, 7, 3, NULL), TD_EINVAL, "ldc 2");
	assert_int_equal(td_gemm_count_end(), 2 * 3 * 4 + 80 * 100 + 100 * 100 * 100);
	assert_int_equal(td_gemm(c, big, a.v, big, b.v, big, 3, 3, 3, NULL), 0); /* not counted */
	td_gemm_count_begin(); /* zeroed */
	assert_int_equal(td_gemm(c, big, a.v, big, b.v, big, 1, 2, 3, NULL), 0);
	assert_int_equal(td_gemm_count_end(), 6);
	free(c), free(a.v), free(b.v);
}

static const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_gemm_matches_a_naive_triple_loop),
    cmocka_unit_test(test_gemm_every_element_is_its_sum_in_k_order_bitwise),
    cmocka_unit_test(test_gemm_results_are_bitwise_equal_for_any_thread_count),
    cmocka_unit_test(test_gemm_kernels_are_chosen_by_name_and_unknown_names_refused),
    cmocka_unit_test(test_gemm_called_from_two_threads_at_once_gives_the_same_bits),
    cmocka_unit_test(test_gemm_with_threads_works_in_a_child_after_fork),
    cmocka_unit_test(test_pool_a_call_made_while_the_workers_are_busy_runs_in_its_caller),
    cmocka_unit_test(test_pool_a_child_forked_while_the_workers_are_busy_has_its_own),
    cmocka_unit_test(test_pool_run_returns_after_every_share_has_finished),
    cmocka_unit_test(test_pool_ranges_cover_each_item_once_and_carry_a_failure_back),
    cmocka_unit_test(test_pool_ranges_make_one_call_per_thread_and_carry_the_firsts_failure),
    cmocka_unit_test(test_pool_starts_one_worker_per_share_once_up_to_its_most),
    cmocka_unit_test(test_pool_threads_sleep_rather_than_spin_while_they_wait),
    cmocka_unit_test(test_gemm_with_beta_zero_the_old_c_is_never_read),
    cmocka_unit_test(test_gemm_leaves_the_padding_outside_the_matrix_untouched),
    cmocka_unit_test(test_gemm_bad_arguments_are_refused_with_a_message),
    cmocka_unit_test(test_gemm_counts_the_multiply_adds_asked_of_it),
};
TD_TEST_GROUP(gemm, tests);
