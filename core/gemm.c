/*
 * gemm.c - cache-blocked GEMM with a fixed reduction order (see gemm.h).
 *
 * C is cut into MC x NC output blocks. For one block, a zeroed accumulator
 * tile receives the k-panels in ascending order; each panel packs its slice
 * of op(A) (MC x KC) and op(B) (KC x NC) into contiguous buffers, so one
 * kernel serves all four transpose cases and its inner loop runs over
 * contiguous memory the compiler can vectorise. The tile is written to C
 * once, at the end.
 *
 * What this file must never do: let the summation order of an element depend
 * on anything but k. Threads take whole output blocks (block b goes to
 * worker b mod T); blocks never share an accumulator, so no reduction crosses
 * threads, and the result is bitwise independent of the thread count.
 */
#include "gemm.h"

#include <pthread.h>
#include <stdint.h>
#include <string.h>

#include "error.h"

enum {
	MAX_THREADS = 64, /* more threads than this are not started */
	MC = 32,	  /* rows of an output block */
	NC = 128,	  /* columns of an output block */
	KC = 128,	  /* depth of one packed panel */
};

/* Below this many multiply-adds a thread costs more than it saves. */
#define GEMM_SERIAL_WORK ((size_t)1 << 18)

/* One call's arguments, shared read-only by its workers. */
typedef struct {
	td_real *c;
	const td_real *a, *b;
	size_t ldc, lda, ldb, m, n, k;
	td_gemm_opts o;
	size_t n_bi, n_bj; /* output blocks down and across */
	size_t workers;	   /* worker w computes blocks w, w + workers, ... */
} gemm_job;

/* A worker's scratch: the accumulator tile and the two packed panels. */
typedef struct {
	td_real acc[MC * NC]; /* [mc][NC]: row i at acc + i * NC */
	td_real ap[MC * KC];  /* [mc][kc]: op(A)[i0 + i][p0 + p] */
	td_real bp[KC * NC];  /* [kc][nc]: op(B)[p0 + p][j0 + j] */
	size_t bp_bj;	      /* bp holds column block bj's only k-panel; SIZE_MAX: nothing */
} gemm_scratch;

static size_t min_size(size_t x, size_t y)
{
	return x < y ? x : y;
}

/* Packs op(A)[i0 .. i0+mc)[p0 .. p0+kc) into ap, row by row. */
static void pack_a(const gemm_job *g, td_real *ap, size_t i0, size_t mc, size_t p0, size_t kc)
{
	for (size_t i = 0; i < mc; i++)
		for (size_t p = 0; p < kc; p++)
			ap[i * kc + p] = g->o.trans_a ? g->a[(p0 + p) * g->lda + i0 + i]
						      : g->a[(i0 + i) * g->lda + p0 + p];
}

/* Packs op(B)[p0 .. p0+kc)[j0 .. j0+nc) into bp, row by row. */
static void pack_b(const gemm_job *g, td_real *bp, size_t p0, size_t kc, size_t j0, size_t nc)
{
	for (size_t p = 0; p < kc; p++)
		for (size_t j = 0; j < nc; j++)
			bp[p * nc + j] = g->o.trans_b ? g->b[(j0 + j) * g->ldb + p0 + p]
						      : g->b[(p0 + p) * g->ldb + j0 + j];
}

/*
 * A 16-byte vector of td_real (4 floats or 2 doubles), the width the
 * baseline x86-64 and arm64 instruction sets have everywhere. Loads and
 * stores go through memcpy: the packed panels and the tile are only
 * td_real-aligned.
 */
typedef td_real vec __attribute__((vector_size(16)));

#define LANES (sizeof(vec) / sizeof(td_real))

static vec vload(const td_real *p)
{
	vec v;

	memcpy(&v, p, sizeof v);
	return v;
}

static void vstore(td_real *p, vec v)
{
	memcpy(p, &v, sizeof v);
}

/*
 * acc[i][j .. j + 2 LANES) += sum over p ascending of ap[i][p] * bp[p][j ..]
 * for the four rows i, with the 4 x 2 vectors of sums held in registers
 * for the whole panel (the loop that kept them in the tile spent its time
 * on loads and stores). Each element still gets its products added one p
 * at a time, in order, a multiply then an add: bitwise the scalar sum.
 */
static void micro_4x2(td_real *restrict acc, const td_real *restrict ap, const td_real *restrict bp,
		      size_t nc, size_t kc)
{
	vec c00 = vload(acc), c01 = vload(acc + LANES);
	vec c10 = vload(acc + NC), c11 = vload(acc + NC + LANES);
	vec c20 = vload(acc + 2 * NC), c21 = vload(acc + 2 * NC + LANES);
	vec c30 = vload(acc + 3 * NC), c31 = vload(acc + 3 * NC + LANES);

	for (size_t p = 0; p < kc; p++) {
		const vec b0 = vload(bp + p * nc), b1 = vload(bp + p * nc + LANES);
		const td_real a0 = ap[p], a1 = ap[kc + p], a2 = ap[2 * kc + p], a3 = ap[3 * kc + p];

		c00 += a0 * b0, c01 += a0 * b1;
		c10 += a1 * b0, c11 += a1 * b1;
		c20 += a2 * b0, c21 += a2 * b1;
		c30 += a3 * b0, c31 += a3 * b1;
	}
	vstore(acc, c00), vstore(acc + LANES, c01);
	vstore(acc + NC, c10), vstore(acc + NC + LANES, c11);
	vstore(acc + 2 * NC, c20), vstore(acc + 2 * NC + LANES, c21);
	vstore(acc + 3 * NC, c30), vstore(acc + 3 * NC + LANES, c31);
}

/*
 * acc[i][j] += sum over p ascending of ap[i][p] * bp[p][j] for four rows:
 * column blocks of 2 LANES in registers (micro_4x2), the last nc mod
 * 2 LANES columns by the loop below. For each element the additions happen
 * one p at a time, in order; which elements share a loop or a register
 * never changes the order of one element's sum.
 */
static void kernel_rows4(td_real *restrict acc, const td_real *restrict ap,
			 const td_real *restrict bp, size_t nc, size_t kc)
{
	size_t j0 = 0;

	for (; j0 + 2 * LANES <= nc; j0 += 2 * LANES)
		micro_4x2(acc + j0, ap, bp + j0, nc, kc);
	for (size_t p = 0; j0 < nc && p < kc; p++) {
		const td_real a0 = ap[p], a1 = ap[kc + p], a2 = ap[2 * kc + p], a3 = ap[3 * kc + p];
		const td_real *restrict bpp = bp + p * nc;

		for (size_t j = j0; j < nc; j++) {
			acc[j] += a0 * bpp[j];
			acc[NC + j] += a1 * bpp[j];
			acc[2 * NC + j] += a2 * bpp[j];
			acc[3 * NC + j] += a3 * bpp[j];
		}
	}
}

static void kernel_row(td_real *restrict row, const td_real *restrict ap,
		       const td_real *restrict bp, size_t nc, size_t kc)
{
	for (size_t p = 0; p < kc; p++) {
		const td_real aip = ap[p];
		const td_real *restrict bpp = bp + p * nc;

		for (size_t j = 0; j < nc; j++)
			row[j] += aip * bpp[j];
	}
}

static void kernel(td_real *acc, const td_real *ap, const td_real *bp, size_t mc, size_t nc,
		   size_t kc)
{
	size_t i = 0;

	for (; i + 4 <= mc; i += 4)
		kernel_rows4(acc + i * NC, ap + i * kc, bp, nc, kc);
	for (; i < mc; i++)
		kernel_row(acc + i * NC, ap + i * kc, bp, nc, kc);
}

/* C block = alpha * acc + beta * C block; with beta 0, C is not read. */
static void store(const gemm_job *g, const td_real *acc, size_t i0, size_t mc, size_t j0, size_t nc)
{
	for (size_t i = 0; i < mc; i++) {
		td_real *crow = g->c + (i0 + i) * g->ldc + j0;
		const td_real *arow = acc + i * NC;

		for (size_t j = 0; j < nc; j++)
			crow[j] = g->o.beta == 0 ? g->o.alpha * arow[j]
						 : g->o.alpha * arow[j] + g->o.beta * crow[j];
	}
}

/* Computes output block (bi, bj) completely: every k-panel, then the store. */
static void do_block(const gemm_job *g, gemm_scratch *s, size_t bi, size_t bj)
{
	size_t i0 = bi * MC, j0 = bj * NC;
	size_t mc = min_size(MC, g->m - i0), nc = min_size(NC, g->n - j0);

	for (size_t i = 0; i < mc; i++)
		for (size_t j = 0; j < nc; j++)
			s->acc[i * NC + j] = 0;
	for (size_t p0 = 0; p0 < g->k; p0 += KC) {
		size_t kc = min_size(KC, g->k - p0);

		pack_a(g, s->ap, i0, mc, p0, kc);
		if (g->k > KC || s->bp_bj != bj) /* with one k-panel, a row block reuses it */
			pack_b(g, s->bp, p0, kc, j0, nc);
		s->bp_bj = g->k > KC ? SIZE_MAX : bj;
		kernel(s->acc, s->ap, s->bp, mc, nc, kc);
	}
	store(g, s->acc, i0, mc, j0, nc);
}

/* Runs worker w's share of the blocks. */
static void run_share(const gemm_job *g, size_t w)
{
	gemm_scratch s; /* ~100-200 KB of stack: fine for the main and pthread stacks */

	s.bp_bj = SIZE_MAX;
	for (size_t b = w; b < g->n_bi * g->n_bj; b += g->workers)
		do_block(g, &s, b / g->n_bj, b % g->n_bj);
}

typedef struct {
	const gemm_job *g;
	size_t w;
} gemm_worker;

static void *worker_main(void *arg)
{
	const gemm_worker *wk = arg;

	run_share(wk->g, wk->w);
	return NULL;
}

/* Runs every share: workers 1.. on threads, worker 0 (and any that failed to start) here. */
static void run_threads(const gemm_job *g)
{
	pthread_t tid[MAX_THREADS];
	gemm_worker wk[MAX_THREADS];
	int started[MAX_THREADS] = {0};

	for (size_t w = 1; w < g->workers; w++) {
		wk[w] = (gemm_worker){g, w};
		started[w] = pthread_create(&tid[w], NULL, worker_main, &wk[w]) == 0;
	}
	run_share(g, 0);
	for (size_t w = 1; w < g->workers; w++) {
		if (started[w])
			pthread_join(tid[w], NULL);
		else
			run_share(g, w);
	}
}

/* How many workers to use: never more than blocks, and one for small problems. */
static size_t pick_workers(const gemm_job *g)
{
	size_t blocks = g->n_bi * g->n_bj, w = (size_t)g->o.threads;

	if (w > MAX_THREADS)
		w = MAX_THREADS;
	if (w > blocks)
		w = blocks;
	if (g->m * g->n > GEMM_SERIAL_WORK / (g->k ? g->k : 1))
		return w;
	return 1;
}

static int check_args(const td_real *c, size_t ldc, const td_real *a, size_t lda, const td_real *b,
		      size_t ldb, size_t m, size_t n, size_t k, const td_gemm_opts *o)
{
	size_t a_cols = o->trans_a ? m : k, b_cols = o->trans_b ? k : n;

	if (o->threads < 1)
		return TD_FAIL(TD_EINVAL, "threads is %d; pass at least 1", o->threads);
	if (m == 0 || n == 0)
		return 0;
	if (!c)
		return TD_FAIL(TD_EINVAL, "C is NULL for a %zu x %zu result", m, n);
	if (ldc < n)
		return TD_FAIL(TD_EINVAL, "ldc %zu is less than n %zu", ldc, n);
	if (k == 0)
		return 0;
	if (!a || !b)
		return TD_FAIL(TD_EINVAL, "%s is NULL with k %zu", a ? "B" : "A", k);
	if (lda < a_cols)
		return TD_FAIL(TD_EINVAL, "lda %zu is less than the %zu columns of the stored A%s",
			       lda, a_cols, o->trans_a ? " (trans_a)" : "");
	if (ldb < b_cols)
		return TD_FAIL(TD_EINVAL, "ldb %zu is less than the %zu columns of the stored B%s",
			       ldb, b_cols, o->trans_b ? " (trans_b)" : "");
	return 0;
}

int td_gemm(td_real *c, size_t ldc, const td_real *a, size_t lda, const td_real *b, size_t ldb,
	    size_t m, size_t n, size_t k, const td_gemm_opts *opts)
{
	static const td_gemm_opts defaults = TD_GEMM_OPTS_INIT;
	const td_gemm_opts *o = opts ? opts : &defaults;
	gemm_job g;
	int err = check_args(c, ldc, a, lda, b, ldb, m, n, k, o);

	if (err || m == 0 || n == 0)
		return err;
	g = (gemm_job){c, a, b, ldc, lda, ldb, m, n, k, *o, (m + MC - 1) / MC, (n + NC - 1) / NC,
		       1};
	g.workers = pick_workers(&g);
	if (g.workers == 1)
		run_share(&g, 0);
	else
		run_threads(&g);
	return 0;
}
