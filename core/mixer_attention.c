/*
 * mixer_attention.c - multi-head self-attention along a line (equations in
 * mixer.h), laid out as torch.nn.MultiheadAttention: Wqkv is its
 * in_proj_weight (q, k, v blocks of C rows), bqkv its in_proj_bias, Wo and
 * bo its out_proj.
 *
 * On lines of more than one step the lines run in blocks of about 1024
 * positions (td_mixer_blocks, by_blocks), each worker taking a
 * consecutive share of the blocks: a block's projection in, its pairs and
 * its projection out (backward: dctx, its pairs, its parameter gradients
 * and dx) follow one another while its rows are in the caches; each
 * block's parameter gradients are added in block order. On lines of one
 * step (the value path, attend_one) the projections are one GEMM each over
 * every line. The attention itself is a few small products per (line, head)
 * pair: scores q k^T, then o = p v forward; dp = do v^T, dv = p^T do, dq =
 * ds k and dk = ds^T q backward, with the softmax in between
 * (attend_pair). They are T x T x d and T x d x T, a few thousand of them
 * per step, so they are written out here (score_rows, prod_rows) rather than
 * handed to td_gemm, whose per-call costs were most of their time; each
 * sum is the one gemm.h's contract defines, so the bits are td_gemm's. A
 * pair works on its rows in sweep order, in place in the [P][3C] buffers:
 * row i of a pair is step i of the sweep, its rows a signed stride apart
 * (negative when the sweep runs in reverse), so every sum over keys or
 * queries (the products' and the softmax's) runs in sweep order and
 * reverse is exactly the mirror of forward. On lines
 * of one step threads split the pairs (pair b goes to worker b mod
 * workers). A pair is computed the same way whichever worker takes it,
 * and the blocks depend on the shape alone, so the result is bitwise
 * independent of the thread count.
 *
 * Workspace, for P = lines * length positions, T = length, L = lines,
 * C = channels, nh = heads, d = C / nh, W = workers (threads, at most
 * L * nh and TD_POOL_MAX):
 *   x     [P][C]         a copy of the input (saved)
 *   qkv   [P][3C]        x Wqkv^T + bqkv (saved); not written where lines
 *                        of one step take the value path (attend_one)
 *   att   [L][nh][T][Tp] the softmax weights, row i query step i and
 *                        column j key step j of the sweep, 0 where masked
 *                        and in the padding (saved); Tp = stride(T), T
 *                        rounded up to 8 (1 for T = 1)
 *   ctx   [P][C]         the heads' outputs o_t side by side (saved); on
 *                        the value path, v, which stands for them
 *   dctx  [P][C]         dL/d(ctx) (backward scratch)
 *   dqkv  [P][3C]        dL/d(qkv) (backward scratch)
 *   db    [4C]           dL/dbqkv and dL/dbo summed before they reach the slab
 *   vmax  [16]           vmax[0]: where lines of one step take the value
 *                        path, a bound on |v| (+inf past TD_REAL_MAX), else
 *                        NaN (saved); the rest pads the scratch onto a
 *                        64-byte line
 *   per worker, [W] of (scratch):
 *     ds  [T][Tp]        one pair's raw scores (forward), or its dL/dp, then
 *                        dL/ds (backward)
 *     kt  [d][Tp]        its k^T (forward) or v^T (backward), for scores
 *     tail [LANES][d]    k's or v's last T mod LANES rows, padded with 0
 *                        (transpose_rows)
 *   parts [B][params]    on lines of more than one step, each of the B
 *                        blocks' parameter gradients (backward scratch)
 *
 * Must never: let a masked key reach a weight (with causal set, a query sees
 * only the keys its sweep has passed), or take exp of an unshifted score
 * (each row's maximum is subtracted first, so a large score cannot overflow).
 */
#include <assert.h>
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "../base/error.h"
#include "fastmath.h"
#include "gemm.h"
#include "mixer_int.h"
#include "pool.h"
#include "transpose.h"
#include "vec8.h"

enum { T_WQKV, T_BQKV, T_WO, T_BO };

static int attention_setup(td_mixer *m)
{
	size_t c = m->o.channels;
	td_real s = (td_real)(1 / sqrt((double)c));
	int err;

	if (m->o.heads == 0)
		m->o.heads = 1;
	if (c % m->o.heads != 0)
		return TD_FAIL(TD_EINVAL,
			       "heads %zu does not divide channels %zu; heads must divide channels",
			       m->o.heads, c);
	if (c > SIZE_MAX / 16) /* so that 3C, 4C ... 9C below never wrap */
		return TD_FAIL(TD_EINVAL, "channels %zu is too large for attention", c);
	if ((err =
		 td_mixer_add_tensor(m, "Wqkv", 3 * c, c, (td_init_rule){TD_INIT_NORMAL, 0, s})) ||
	    (err = td_mixer_add_tensor(m, "bqkv", 1, 3 * c,
				       (td_init_rule){TD_INIT_UNIFORM, -s, s})) ||
	    (err = td_mixer_add_tensor(m, "Wo", c, c, (td_init_rule){TD_INIT_NORMAL, 0, s})) ||
	    (err = td_mixer_add_tensor(m, "bo", 1, c, (td_init_rule){TD_INIT_UNIFORM, -s, s})))
		return err;
	return 0;
}

/* How many workers share the (line, head) pairs: threads, at most the pairs and TD_POOL_MAX. */
static size_t n_workers(const td_mixer *m, size_t lines)
{
	size_t w = (size_t)m->o.threads, pairs = lines * m->o.heads;

	if (w > pairs)
		w = pairs;
	return w < TD_POOL_MAX ? w : TD_POOL_MAX;
}

enum { LANES = 8 }; /* the softmax's lanes (see lanes_total) */

/* The row stride of the weights and of a pair's scores: T rounded up to LANES, 1 for T = 1. */
static size_t stride(size_t length)
{
	return length == 1 ? 1 : (length + LANES - 1) / LANES * LANES;
}

/* One worker's scratch: (T + d) Tp + LANES d values. */
static size_t scratch_size(const td_mixer *m, size_t length)
{
	const size_t d = m->o.channels / m->o.heads;

	return (length + d) * stride(length) + LANES * d;
}

/*
 * Blocks of lines whose parameter gradients the backward keeps apart
 * (by_blocks): td_mixer_blocks's, on lines of more than one step.
 */
static size_t n_parts(size_t lines, size_t length)
{
	return length > 1 ? td_mixer_blocks(lines, length) : 0;
}

/*
 * 9C values per position, L * nh * T * Tp weights, W ((T + d) Tp +
 * LANES d) + 4C + 16 scratch, a parameter slab per block
 * (n_parts); each product checked (lines * heads fits: heads <= channels,
 * and mixer.c has checked that lines * length * channels fits).
 */
static int attention_ws_size(size_t *out, const td_mixer *m, size_t lines, size_t length)
{
	size_t c = m->o.channels, d = c / m->o.heads, tt, weights, kt, per, scratch, rest;
	int err;

	if (length > SIZE_MAX / 2) /* so that stride() cannot wrap */
		return TD_FAIL(TD_EINVAL, "length %zu is too large for attention", length);
	if ((err = td_mixer_size_muladd(&tt, length, stride(length), 0, "the attention weights")) ||
	    (err = td_mixer_size_muladd(&weights, lines * m->o.heads, tt, 0,
					"the attention weights")) ||
	    (err = td_mixer_size_muladd(&kt, d, stride(length), tt, "the attention scratch")) ||
	    (err = td_mixer_size_muladd(&per, LANES, d, kt, "the attention scratch")))
		return err;
	if ((err = td_mixer_size_muladd(&scratch, n_workers(m, lines), per, 4 * c + 16,
					"the attention scratch")) ||
	    (err = td_mixer_size_muladd(&scratch, n_parts(lines, length), m->n_params, scratch,
					"the attention backward's parts")) ||
	    (err = td_mixer_size_muladd(&rest, 1, weights, scratch, "the attention workspace")))
		return err;
	return td_mixer_size_muladd(out, lines * length, 9 * c, rest, "the attention workspace");
}

typedef struct {
	td_real *x, *qkv, *att, *ctx, *dctx, *dqkv, *db, *vmax, *scratch, *parts;
} att_ws;

static att_ws carve(const td_mixer *m, td_real *ws, size_t lines, size_t length)
{
	size_t c = m->o.channels, p = lines * length;
	att_ws w;

	w.x = ws;
	w.qkv = w.x + p * c;
	w.att = w.qkv + p * 3 * c;
	w.ctx = w.att + lines * m->o.heads * length * stride(length);
	w.dctx = w.ctx + p * c;
	w.dqkv = w.dctx + p * c;
	w.db = w.dqkv + p * 3 * c;
	w.vmax = w.db + 4 * c;
	w.scratch = w.vmax + 16; /* vmax is one value: the scratch starts on a 64-byte line */
	w.parts = w.scratch + n_workers(m, lines) * scratch_size(m, length);
	return w;
}

/* How many keys, in sweep order, query step i sees (causal: the mixer's option). */
static size_t n_keys(int causal, size_t i, size_t length)
{
	return causal ? i + 1 : length;
}

/* The pairs' work, shared read-only by the workers, with what every pair needs once. */
typedef struct {
	const td_mixer *m;
	const att_ws *w;
	size_t lines, length, workers;
	size_t c, d;   /* channels, and channels per head */
	td_real scale; /* 1 / sqrt(d), the scores' scale */
	int backward;
	char *unsettled; /* ds_share: [workers], 1 where a worker met a ds that is not 0 */
} pair_job;

/* A block of one line's rows, row i the sweep's step i: base + i * ld. */
typedef struct {
	td_real *base;
	ptrdiff_t ld;
} rows;

/*
 * Head h's columns of line l of a [P][width] buffer in sweep order, in
 * place: from the line's first row, or its last when the sweep runs in
 * reverse (ld then negative).
 */
static rows head_rows(const pair_job *j, td_real *buf, size_t width, size_t l, size_t h)
{
	const size_t t = j->length;
	td_real *line = buf + l * t * width + h * j->d;

	if (!j->m->o.reverse)
		return (rows){line, (ptrdiff_t)width};
	return (rows){line + (t - 1) * width, -(ptrdiff_t)width};
}

/* One pair's q, k, v (or dq, dk, dv) in sweep order, and its o (or do). */
typedef struct {
	rows q, k, v;
} qkv_rows;

static qkv_rows pair_qkv(const pair_job *j, td_real *buf, size_t l, size_t h)
{
	const size_t c = j->c;
	qkv_rows r;

	r.q = head_rows(j, buf, 3 * c, l, h);
	r.k = head_rows(j, buf + c, 3 * c, l, h);
	r.v = head_rows(j, buf + 2 * c, 3 * c, l, h);
	return r;
}

/*
 * The softmax's sums run in eight lanes, lane k taking the terms j = k mod
 * 8 in ascending order, combined pairwise at the end: the order depends on
 * the keys alone, and the lanes vectorise where one running sum would wait
 * on each addition. Rows are stored with a stride of T rounded up to 8
 * (stride()) and taken in whole groups of 8, so that no loop has a scalar
 * remainder: the entries past a row's last key hold -infinity among the
 * scores and 0 among the weights and gradients, which add exp(-inf) = 0 or
 * 0 x 0 to their lane and leave it exactly as it was. The padding is
 * written before the GEMM that fills the row, so that the row's vector
 * loads never wait on narrower stores just made.
 */
static td_real lanes_total(const td_real *lane)
{
	return ((lane[0] + lane[1]) + (lane[2] + lane[3])) +
	       ((lane[4] + lane[5]) + (lane[6] + lane[7]));
}

/* The end of query step i's last group of LANES keys, within the row stride. */
static size_t row_end(int causal, size_t i, size_t length)
{
	return (n_keys(causal, i, length) + LANES - 1) / LANES * LANES;
}

/*
 * The pair products. Each element is the sum gemm.h's contract defines for
 * alpha 1 and beta 0: from 0, its products added in ascending order, a
 * multiply then an add (C11 mode never fuses them), so these give
 * td_gemm's bits. Vectors of LANES values hold a row's adjacent columns;
 * their lanes are independent sums, whatever the width the compiler gives
 * them.
 */
typedef td_vec8 vec;
#ifdef TD_REAL_DOUBLE
typedef int64_t lane_int;
#else
typedef int32_t lane_int;
#endif
typedef lane_int vmask __attribute__((vector_size(LANES * sizeof(td_real))));
_Static_assert(LANES == 8 && (int)LANES == (int)TD_VEC8_LANES,
	       "past_keys's lane indices are written out for 8 lanes, a vec8's");

/*
 * bt[p][j] = b[j][p] for j < n and p < kd, b's row j at b + j ldb, rows
 * np long, 0 for n <= j < np: op(B) of q k^T. The last n mod 8 rows of b
 * go through a copy padded with rows of 0 to 8 (tail), so that
 * td_transpose takes them, and writes the 0s, as a whole block of
 * columns. Rows a negative stride apart (a reverse sweep's) are taken in
 * the order they are stored, and then each row of bt is reversed.
 */
static void transpose_rows(td_real *bt, size_t np, const td_real *b, ptrdiff_t ldb, size_t n,
			   size_t kd, td_real *tail)
{
	const size_t whole = n / LANES * LANES;

	if (ldb < 0) {
		transpose_rows(bt, np, b + (ptrdiff_t)(n - 1) * ldb, -ldb, n, kd, tail);
		for (size_t p = 0; p < kd; p++)
			for (size_t i = 0, k = n - 1; i < k; i++, k--) {
				const td_real v = bt[p * np + i];

				bt[p * np + i] = bt[p * np + k], bt[p * np + k] = v;
			}
		return;
	}
	td_transpose(bt, np, b, (size_t)ldb, whole, kd);
	if (whole == n)
		return;
	memset(tail, 0, LANES * kd * sizeof *tail);
	for (size_t j = whole; j < n; j++)
		memcpy(tail + (j - whole) * kd, b + (ptrdiff_t)j * ldb, kd * sizeof *tail);
	td_transpose(bt + whole, np, tail, kd, LANES, kd);
}

/*
 * v with fill in its lanes k with j0 + k >= nk, selected on the bits (a
 * row's values are stored whole, so that the softmax's vector loads never
 * wait on narrower stores).
 */
static vec past_keys(vec v, size_t j0, size_t nk, td_real fill)
{
	const vmask lane = {0, 1, 2, 3, 4, 5, 6, 7};
	const vmask keep = lane < (vmask){0} + (lane_int)(nk > j0 ? nk - j0 : 0);
	const vec f = (vec){0} + fill;

	return (vec)(((vmask)v & keep) | ((vmask)f & ~keep));
}

/* The lanes of m replaced by those of x that are greater (m is kept where x is NaN). */
static vec vmax(vec x, vec m)
{
	const vmask gt = x > m;

	return (vec)(((vmask)x & gt) | ((vmask)m & ~gt));
}

/*
 * What a block of rows of scores or dL/dp carries across its columns: per
 * row, the lanes of its maximum (scores) or of its sum of p dp (dL/dp).
 */
typedef struct {
	int causal;	     /* the mixer's option */
	td_real *out;	     /* row i at out + (i - i0) np */
	const td_real *a;    /* q or do, rows lda apart (negative: see rows) */
	const td_real *bt;   /* k^T or v^T, [kd][np] */
	const td_real *p;    /* dL/dp only: the weights, [t][np] */
	ptrdiff_t lda;
	size_t np, t, kd, i0;
	td_real scale, fill; /* scores: 1 / sqrt(d) and -infinity; dL/dp: 1 and 0 */
} score_job;

/*
 * R rows from i, V vectors of columns from j, of a bt: sums over p < kd of
 * a[i][p] bt[p][j], scaled, fill past the keys query step i sees, stored
 * whole (the softmax's vector loads never wait on narrower stores); and,
 * for the groups up to row_end, lane[r] takes each: their maximum
 * (scores), or p times them added (dL/dp), in ascending groups as the
 * softmax steps took them. Inlined with constant R and V, so that the
 * R V sums stay in registers, and constant causal (sj->causal) and with_p
 * (sj->p set), so that the tests on them leave the loops.
 */
static inline __attribute__((always_inline)) void
score_tile(const score_job *sj, vec *lane, size_t i, size_t j, size_t R, size_t V, int causal,
	   int with_p)
{
	vec acc[4][2] = {{{0}}};

	for (size_t p = 0; p < sj->kd; p++)
#pragma GCC unroll 2
		for (size_t v = 0; v < V; v++) {
			const vec b = td_vec8_load(sj->bt + p * sj->np + j + v * LANES);

#pragma GCC unroll 4
			for (size_t r = 0; r < R; r++)
				acc[r][v] += sj->a[(ptrdiff_t)(i + r) * sj->lda + (ptrdiff_t)p] * b;
		}
#pragma GCC unroll 4
	for (size_t r = 0; r < R; r++)
#pragma GCC unroll 2
		for (size_t v = 0; v < V; v++) {
			const size_t j0 = j + v * LANES, nk = n_keys(causal, i + r, sj->t);
			vec x = acc[r][v] * sj->scale;

			if (j0 + LANES > nk)
				x = past_keys(x, j0, nk, sj->fill);
			td_vec8_store(sj->out + (i + r - sj->i0) * sj->np + j0, x);
			if (j0 >= row_end(causal, i + r, sj->t))
				continue;
			if (with_p)
				lane[r] += td_vec8_load(sj->p + (i + r) * sj->np + j0) * x;
			else
				lane[r] = vmax(x, lane[r]);
		}
}

/* The lanes of a row's maximum (-infinity) or of its sum of p dp (0), before its first group. */
static vec lane_start(int with_p)
{
	return (vec){0} + (with_p ? 0 : -INFINITY);
}

/* What lane_start's lanes add up to: the row's maximum, in the lanes' order, or lanes_total. */
static td_real lane_result(int with_p, vec lane)
{
	td_real v[LANES], mx = -INFINITY;

	td_vec8_store(v, lane);
	if (with_p)
		return lanes_total(v);
	for (size_t k = 0; k < LANES; k++)
		mx = v[k] > mx ? v[k] : mx;
	return mx;
}

/*
 * Rows [i0, i1) of a pair's scale (a bt), np = stride(t) wide: a [t][kd]
 * (rows lda apart) times bt [kd][np] (transpose_rows), each query's row
 * filled past the keys it sees, its padding included: the scores (scale
 * 1 / sqrt(d), fill -infinity) or dL/dp (scale 1, fill 0) that the
 * softmax steps expect; into res[i - i0], each row's maximum (scores) or
 * its sum of p dp (dL/dp, sj->p set). Inlined with constant causal and
 * with_p (score_rows).
 */
static inline __attribute__((always_inline)) void
score_rows_as(const score_job *job, td_real *res, size_t i1, int causal, int with_p)
{
	/*
	 * a copy, held in registers: a vector store (vec8.h's, through
	 * memcpy) may write anywhere as far as the compiler knows, and the
	 * tiles read every field of *job again after each
	 */
	const score_job copy = *job, *sj = &copy;
	const size_t np = sj->np;
	size_t i = sj->i0;

	for (; i + 4 <= i1; i += 4) {
		vec lane[4];
		size_t j = 0;

		for (size_t r = 0; r < 4; r++)
			lane[r] = lane_start(with_p);
		for (; j + 2 * LANES <= np; j += 2 * LANES)
			score_tile(sj, lane, i, j, 4, 2, causal, with_p);
		if (j < np)
			score_tile(sj, lane, i, j, 4, 1, causal, with_p);
		for (size_t r = 0; r < 4; r++)
			res[i + r - sj->i0] = lane_result(with_p, lane[r]);
	}
	for (; i < i1; i++) {
		vec lane = lane_start(with_p);

		for (size_t j = 0; j < np; j += LANES)
			score_tile(sj, &lane, i, j, 1, 1, causal, with_p);
		res[i - sj->i0] = lane_result(with_p, lane);
	}
}

/* score_rows_as for sj's causal and for the scores (sj->p NULL) or dL/dp. */
static void score_rows(const score_job *sj, td_real *res, size_t i1)
{
	if (sj->causal)
		sj->p ? score_rows_as(sj, res, i1, 1, 1) : score_rows_as(sj, res, i1, 1, 0);
	else
		sj->p ? score_rows_as(sj, res, i1, 0, 1) : score_rows_as(sj, res, i1, 0, 0);
}

/*
 * R rows from i, LANES columns from e, of out = A b, A(i, k) = a[i ars +
 * k aps]: out[i][e] = sum over k < kn of A(i, k) b[k][e]. Inlined with
 * constant R, as score_tile.
 */
static inline __attribute__((always_inline)) void
rows_tile(td_real *out, ptrdiff_t ldo, const td_real *a, size_t ars, size_t aps,
	  const td_real *b, ptrdiff_t ldb, size_t kn, size_t i, size_t e, size_t R)
{
	vec acc[8] = {0};

	for (size_t k = 0; k < kn; k++) {
		const vec bk = td_vec8_load(b + (ptrdiff_t)k * ldb + (ptrdiff_t)e);

#pragma GCC unroll 8
		for (size_t r = 0; r < R; r++)
			acc[r] += a[(i + r) * ars + k * aps] * bk;
	}
#pragma GCC unroll 8
	for (size_t r = 0; r < R; r++)
		td_vec8_store(out + (ptrdiff_t)(i + r) * ldo + (ptrdiff_t)e, acc[r]);
}

/*
 * out [m][d] (rows ldo apart) = A b, A(i, k) = a[i ars + k aps] for k < kn
 * and b [kn][d] (rows ldb apart; either stride may be negative: see rows):
 * o = p v, dq = ds k, and with ars 1, aps tp, dv = p^T do and dk = ds^T q.
 * Eight rows at a time, so that eight sums are in flight; columns past the
 * last whole vector one at a time.
 */
static void prod_rows(td_real *out, ptrdiff_t ldo, const td_real *a, size_t ars, size_t aps,
		      const td_real *b, ptrdiff_t ldb, size_t m, size_t d, size_t kn)
{
	size_t e = 0;

	for (; e + LANES <= d; e += LANES) {
		size_t i = 0;

		for (; i + 8 <= m; i += 8)
			rows_tile(out, ldo, a, ars, aps, b, ldb, kn, i, e, 8);
		for (; i + 4 <= m; i += 4)
			rows_tile(out, ldo, a, ars, aps, b, ldb, kn, i, e, 4);
		for (; i < m; i++)
			rows_tile(out, ldo, a, ars, aps, b, ldb, kn, i, e, 1);
	}
	for (; e < d; e++)
		for (size_t i = 0; i < m; i++) {
			td_real sum = 0;

			for (size_t k = 0; k < kn; k++)
				sum += a[i * ars + k * aps] * b[(ptrdiff_t)k * ldb + (ptrdiff_t)e];
			out[(ptrdiff_t)i * ldo + (ptrdiff_t)e] = sum;
		}
}

/*
 * w[j] = exp(s[j] - mx) for j < n; returns their sum in the lanes' order,
 * each lane summed as its values are made (one pass over the row). The
 * exps go TD_VEC8_EXPS groups at a time (td_vec8_exps), the rest one by one.
 */
static td_real exp_sum(td_real *restrict w, const td_real *restrict s, size_t n, td_real mx)
{
	vec lane = {0}, x[TD_VEC8_EXPS];
	td_real total[LANES];
	size_t j = 0;

	for (; j + TD_VEC8_EXPS * LANES <= n; j += TD_VEC8_EXPS * LANES) {
#pragma GCC unroll 4
		for (size_t u = 0; u < TD_VEC8_EXPS; u++)
			x[u] = td_vec8_load(s + j + u * LANES) - mx;
		td_vec8_exps(x, TD_VEC8_EXPS);
#pragma GCC unroll 4
		for (size_t u = 0; u < TD_VEC8_EXPS; u++) {
			td_vec8_store(w + j + u * LANES, x[u]);
			lane += x[u];
		}
	}
	for (; j < n; j += LANES) {
		x[0] = td_vec8_load(s + j) - mx;
		td_vec8_exps(x, 1);
		td_vec8_store(w + j, x[0]);
		lane += x[0];
	}
	td_vec8_store(total, lane);
	return lanes_total(total);
}

/*
 * One row's softmax as attend_pair takes it, for checking other
 * implementations of it (kernels/ops.h): the row's maximum, exp_sum, then
 * the divisions. n is a multiple of LANES, the entries past the last key
 * -infinity (they get weight 0).
 */
void td_attention_softmax_row(td_real *w, const td_real *s, size_t n)
{
	td_real mx = -INFINITY, sum;

	assert(n % LANES == 0);
	for (size_t j = 0; j < n; j++) /* the lanes' maximum: NaN never replaces one */
		mx = s[j] > mx ? s[j] : mx;
	sum = exp_sum(w, s, n, mx);
	for (size_t k = 0; k < n; k++)
		w[k] /= sum;
}

enum { ROWS = 32 }; /* rows whose softmax steps run side by side */

/*
 * Pair (l, h) forward: p = softmax(scale q k^T) into att, o = p v into
 * ctx. ROWS rows at a time: their scaled scores and maxima (score_rows),
 * then their exps and sums, then their divisions, so that the rows'
 * chains of dependent steps overlap instead of running one row after
 * another, and a block's scores are still in the caches when the
 * softmax reads them. Per query, the softmax runs over the keys it sees,
 * shifted by the row's maximum; the rest of its row is 0.
 */
static void attend_pair(const pair_job *j, td_real *s, size_t l, size_t h)
{
	const size_t c = j->c, d = j->d, t = j->length, tp = stride(t);
	td_real *p = j->w->att + (l * j->m->o.heads + h) * t * tp;
	td_real *kt = s + t * tp, mx[ROWS], sum[ROWS];
	qkv_rows in = pair_qkv(j, j->w->qkv, l, h);
	rows o = head_rows(j, j->w->ctx, c, l, h);
	score_job sj = {j->m->o.causal, s, in.q.base, kt, NULL, in.q.ld, tp, t, d, 0, j->scale,
			-INFINITY};

	transpose_rows(kt, tp, in.k.base, in.k.ld, t, d, kt + d * tp);
	for (size_t i0 = 0; i0 < t; i0 += ROWS) {
		const size_t i1 = t - i0 < ROWS ? t : i0 + ROWS;

		/* scale q k^T: [ROWS x d] [d x T] */
		sj.i0 = i0;
		score_rows(&sj, mx, i1);
		for (size_t i = i0; i < i1; i++)
			sum[i - i0] = exp_sum(p + i * tp, s + (i - i0) * tp,
					      row_end(sj.causal, i, t), mx[i - i0]);
		for (size_t i = i0; i < i1; i++) {
			const size_t n = row_end(sj.causal, i, t);
			td_real *w = p + i * tp;

			for (size_t k = 0; k < n; k++)
				w[k] /= sum[i - i0];
			if (n < tp) /* causal only: the keys and padding past the row's groups */
				memset(w + n, 0, (tp - n) * sizeof *w);
		}
	}
	/* o = p v: [T x T] [T x d] */
	prod_rows(o.base, o.ld, p, tp, 1, in.v.base, in.v.ld, t, d, t);
}

/*
 * Pair (l, h) backward: from dctx and the saved weights, its dq, dk, dv
 * into dqkv. Through the softmax ROWS rows at a time: their dp = do v^T
 * and sums of p dp (score_rows), then ds = scale p (dp - sum_j p_j dp_j)
 * in place. p is the forward's weights, 0 past the keys up to row_end,
 * and dp is 0 past the keys, so a masked key's ds is 0 x (0 - the sum)
 * and the keys past row_end keep dp's 0. dv = p^T do and dk = ds^T q sum
 * over queries: products that read p or ds down its columns, written
 * straight into the rows of dv and dk.
 */
static void attend_pair_backward(const pair_job *j, td_real *s, size_t l, size_t h)
{
	const size_t c = j->c, d = j->d, t = j->length, tp = stride(t);
	const td_real *p = j->w->att + (l * j->m->o.heads + h) * t * tp;
	td_real *ds = s, *vt = s + t * tp, pdp[ROWS];
	qkv_rows in = pair_qkv(j, j->w->qkv, l, h);
	rows dout = head_rows(j, j->w->dctx, c, l, h);
	qkv_rows g = pair_qkv(j, j->w->dqkv, l, h);
	score_job sj = {j->m->o.causal, ds, dout.base, vt, p, dout.ld, tp, t, d, 0, 1, 0};

	transpose_rows(vt, tp, in.v.base, in.v.ld, t, d, vt + d * tp);
	for (size_t i0 = 0; i0 < t; i0 += ROWS) {
		const size_t i1 = t - i0 < ROWS ? t : i0 + ROWS;

		/* dp = do v^T: [ROWS x d] [d x T] */
		sj.i0 = i0, sj.out = ds + i0 * tp;
		score_rows(&sj, pdp, i1);
		for (size_t i = i0; i < i1; i++) {
			const size_t n = row_end(sj.causal, i, t);
			const td_real *restrict pi = p + i * tp;
			td_real *restrict di = ds + i * tp;

			for (size_t k = 0; k < n; k++)
				di[k] = j->scale * pi[k] * (di[k] - pdp[i - i0]);
		}
	}
	/* dv = p^T do: [T x T] [T x d] */
	prod_rows(g.v.base, g.v.ld, p, 1, tp, dout.base, dout.ld, t, d, t);
	/* dq = ds k: [T x T] [T x d]; dk = ds^T q: [T x T] [T x d] */
	prod_rows(g.q.base, g.q.ld, ds, tp, 1, in.k.base, in.k.ld, t, d, t);
	prod_rows(g.k.base, g.k.ld, ds, 1, tp, in.q.base, in.q.ld, t, d, t);
}

/*
 * Lines of one step. Every softmax there is over one key: p = e / (0 + e)
 * with e = exp(z - z), which is 1 when the score z is finite and NaN when
 * not, and o = 0 + p v. So q and k reach nothing but that test. When no
 * score can overflow (scores_bounded), the forward computes v alone of the
 * projections, into ctx, where its rows are C apart rather than qkv's 3C
 * (measured on 25088 x 32 x 32 from memory: 1.21 ms writing rows 3C
 * apart, 0.91 ms reading them, 0.59 ms either with C), sets p = 1
 * (value_share) and takes v for o = 0 + 1 v, leaving q and k unwritten.
 * The backward's ds = scale p (dp - (0 + p dp)) is then +0 at every pair
 * whose dp is finite, and so are dq = 0 + ds k and dk = 0 + q ds (q and k
 * are finite where p is 1: an infinite or NaN term makes z so). When every
 * pair's ds is +0 (shown by a bound on dp, ds_all_zero, or else pair by
 * pair, ds_share), every sum dq and dk enter gets +0 terms: dx,
 * whose sums take q's and k's terms first and stay +0 through them, and
 * dWq, dWk, dbq and dbk, which gain +0. Those are computed from v alone,
 * bitwise what the whole products give, and with do in place of dv = 0 +
 * 1 do: they differ only in the sign of a zero, which no sum from +0 can
 * tell (+0 + -0 is +0, and x + -0 is x). Otherwise the backward computes
 * q and k again from the saved x and takes the pairs one at a time
 * (attend_one_backward).
 */

/* p for a finite score over one key: attend_one's e / (0 + e), e = exp(z - z) = exp(+0). */
static td_real one_key_weight(void)
{
	const td_real e = td_exp(0);

	return e / (0 + e);
}

/* Pair (l, h) of a line of one step, forward, from its q and k: attend_pair for T = 1. */
static void attend_one(const pair_job *j, size_t l, size_t h)
{
	const size_t c = j->c, d = j->d;
	const td_real *q = j->w->qkv + l * 3 * c + h * d, *k = q + c, *v = q + 2 * c;
	td_real *p = j->w->att + l * j->m->o.heads + h, *o = j->w->ctx + l * c + h * d, s = 0, z, e;

	for (size_t i = 0; i < d; i++)
		s += q[i] * k[i];
	z = s * j->scale;
	e = td_exp(z - (z > -INFINITY ? z : -INFINITY)); /* less its maximum, as attend_pair */
	*p = e / (0 + e);
	for (size_t i = 0; i < d; i++)
		o[i] = 0 + *p * v[i];
}

/*
 * Pair (l, h) of a line of one step, backward: dp, then ds as
 * attend_pair_backward computes it for one key (its sum p dp is 0 + p dp).
 */
static td_real attend_one_ds(const pair_job *j, size_t l, size_t h)
{
	const size_t c = j->c, d = j->d;
	const td_real *v = isnan(j->w->vmax[0]) ? j->w->qkv + l * 3 * c + 2 * c + h * d
						 : j->w->ctx + l * c + h * d; /* the value path's */
	const td_real p = j->w->att[l * j->m->o.heads + h], *dout = j->w->dctx + l * c + h * d;
	td_real ds = 0;

	for (size_t e = 0; e < d; e++)
		ds += dout[e] * v[e];
	return j->scale * p * (ds - (0 + p * ds));
}

/* The pair's ds (attend_one_ds), then its dv = 0 + p do, dq and dk. */
static void attend_one_backward(const pair_job *j, size_t l, size_t h)
{
	const size_t c = j->c, d = j->d;
	const td_real *q = j->w->qkv + l * 3 * c + h * d, *k = q + c, ds = attend_one_ds(j, l, h);
	const td_real p = j->w->att[l * j->m->o.heads + h], *dout = j->w->dctx + l * c + h * d;
	td_real *dq = j->w->dqkv + l * 3 * c + h * d, *dk = dq + c, *dv = dq + 2 * c;

	for (size_t e = 0; e < d; e++)
		dv[e] = 0 + dout[e] * p;
	for (size_t e = 0; e < d; e++)
		dq[e] = 0 + ds * k[e], dk[e] = 0 + q[e] * ds;
}

/* Worker w's lines: a consecutive share, so that no two workers write one line's values. */
static void line_share(const pair_job *j, size_t w, size_t *l0, size_t *l1)
{
	*l0 = j->lines * w / j->workers;
	*l1 = j->lines * (w + 1) / j->workers;
}

/*
 * Forward, worker w's lines of one step whose scores are finite: p = 1.
 * Their o = 0 + 1 v is not written: v, projected into ctx, stands for it
 * (o is v but for the sign of a zero, which no sum from +0 can tell).
 */
static void value_share(void *arg, size_t w)
{
	const pair_job *j = arg;
	const size_t nh = j->m->o.heads;
	const td_real one = one_key_weight();
	size_t l0, l1;

	line_share(j, w, &l0, &l1);
	for (size_t i = l0 * nh; i < l1 * nh; i++)
		j->w->att[i] = one;
}

/* Backward, worker w's lines of one step: sets its flag when a ds is not 0. */
static void ds_share(void *arg, size_t w)
{
	const pair_job *j = arg;
	size_t l0, l1;
	int unsettled = 0;

	line_share(j, w, &l0, &l1);
	for (size_t l = l0; l < l1; l++)
		for (size_t h = 0; h < j->m->o.heads; h++) /* -0 is settled: 0 + -0 k is +0 */
			unsettled |= attend_one_ds(j, l, h) != 0;
	j->unsettled[w] = (char)unsettled;
}

/* Runs worker w's share of the pairs of lines of one step (pairs w, w + workers, ...). */
static void pair_share(void *arg, size_t w)
{
	const pair_job *j = arg;

	for (size_t b = w; b < j->lines * j->m->o.heads; b += j->workers) {
		const size_t l = b / j->m->o.heads, h = b % j->m->o.heads;

		if (j->backward)
			attend_one_backward(j, l, h);
		else
			attend_one(j, l, h);
	}
}

/* The pairs' work for a call: workers share them; unsettled is ds_share's flags, or NULL. */
static pair_job pairs_of(const td_mixer *m, const att_ws *w, size_t lines, size_t length,
			 size_t workers, int backward, char *unsettled)
{
	const size_t d = m->o.channels / m->o.heads;

	return (pair_job){m, w, lines, length, workers, m->o.channels, d,
			  (td_real)(1 / sqrt((double)d)), backward, unsettled};
}

/*
 * Every pair forward (or backward) by share (pair_share, value_share or
 * ds_share), split among the workers (pool.h). Returns whether a worker
 * met a ds that is not 0 (ds_share).
 */
static int each_pair(const td_mixer *m, const att_ws *w, size_t lines, size_t length, int backward,
		     void (*share)(void *arg, size_t w))
{
	char unsettled[TD_POOL_MAX] = {0};
	pair_job job = pairs_of(m, w, lines, length, n_workers(m, lines), backward, unsettled);

	td_pool_run(job.workers, share, &job);
	return memchr(unsettled, 1, job.workers) != NULL;
}

/*
 * Largest |x| of n values, NaN when one is not finite; with dst, copies
 * them there as it reads them.
 */
static td_real max_abs(td_real *restrict dst, const td_real *restrict x, size_t n)
{
	vec mx = {0}, bad = {0};
	td_real lane[LANES], lane_bad[LANES], out = 0, out_bad = 0;
	size_t i = 0;

	for (; i + LANES <= n; i += LANES) {
		const vec v = td_vec8_load(x + i);

		if (dst)
			td_vec8_store(dst + i, v);
		mx = vmax(vmax(-v, v), mx);
		bad += v - v; /* 0, or NaN from an infinity or a NaN */
	}
	td_vec8_store(lane, mx), td_vec8_store(lane_bad, bad);
	for (size_t k = 0; k < LANES; k++) {
		out = lane[k] > out ? lane[k] : out;
		out_bad += lane_bad[k];
	}
	for (; i < n; i++) {
		const td_real a = x[i] < 0 ? -x[i] : x[i];

		if (dst)
			dst[i] = x[i];
		out = a > out ? a : out;
		out_bad += x[i] - x[i];
	}
	return out + out_bad;
}

/* A bound's growth by its roundings on the way to a score: fewer than 2C + d + 6 on any path. */
static double rounding_growth(const td_mixer *m)
{
	const size_t c = m->o.channels;

	return pow(1 + TD_REAL_EPSILON, (double)(2 * c + c / m->o.heads + 6));
}

/*
 * A bound on |q_e|, |k_e| or |v_e| (block s: 0, 1, 2) of lines whose
 * inputs are at most xmax in magnitude: max |b| + xmax max_e sum_f
 * |W[e][f]|, grown by the roundings on the way; NaN when a weight or bias
 * of the block is not finite.
 */
static double projection_bound(const td_mixer *m, size_t s, td_real xmax)
{
	const size_t c = m->o.channels;
	const td_real *w = td_mixer_slab_at(m, m->params, T_WQKV);
	const td_real *b = td_mixer_slab_at(m, m->params, T_BQKV);
	double sums = 0, bias = 0, all = 0;

	for (size_t e = s * c; e < (s + 1) * c; e++) {
		double row = 0;

		for (size_t f = 0; f < c; f++)
			row += fabs((double)w[e * c + f]);
		sums = row > sums ? row : sums;
		bias = fabs((double)b[e]) > bias ? fabs((double)b[e]) : bias;
		all += row + fabs((double)b[e]);
	}
	/* + 0 all: NaN when a weight or bias is not finite */
	return (bias + (double)xmax * sums) * rounding_growth(m) + 0 * all;
}

/*
 * Whether no score of lines whose inputs are at most xmax in magnitude can
 * overflow, nor any q or k on the way: |q_e| <= Q and |k_e| <= K
 * (projection_bound), |sum_e q_e k_e| <= d Q K (the score before its
 * scale, which is at most 1), grown by its roundings. False when xmax or
 * a weight or bias of q or k is not finite.
 */
static int scores_bounded(const td_mixer *m, td_real xmax)
{
	const double q = projection_bound(m, 0, xmax), k = projection_bound(m, 1, xmax);
	const double d = (double)(m->o.channels / m->o.heads), qk = d * q * k * rounding_growth(m);

	return q <= TD_REAL_MAX && k <= TD_REAL_MAX && qk <= TD_REAL_MAX; /* each false for a NaN */
}

/*
 * Whether every ds of a backward of lines of one step is 0, without
 * computing them: when the forward took the value path (every p is 1, and
 * it saved vmax) and no dp = do . v can overflow: |dp| <= d max |do| vmax
 * with |do_e| = |sum_k dy_k Wo[k][e]| <= max |dy| max_e sum_k |Wo[k][e]|,
 * grown by their roundings; ds = scale (dp - dp) is then +0. False (the
 * pairs are checked one by one) when that cannot be shown.
 */
static int ds_all_zero(const td_mixer *m, const att_ws *w, const td_real *dy, size_t p)
{
	const size_t c = m->o.channels;
	const td_real *wo = td_mixer_slab_at(m, m->params, T_WO);
	double cols = 0, dout;

	if (!(w->vmax[0] <= TD_REAL_MAX)) /* NaN: the general path; +inf: no bound on |v| */
		return 0;
	for (size_t e = 0; e < c; e++) {
		double col = 0;

		for (size_t k = 0; k < c; k++)
			col += fabs((double)wo[k * c + e]);
		cols = col > cols ? col : cols;
		cols += 0 * col; /* NaN when a column is not finite */
	}
	dout = (double)max_abs(NULL, dy, p * c) * cols * rounding_growth(m);
	return (double)(c / m->o.heads) * dout * (double)w->vmax[0] * rounding_growth(m) <=
	       TD_REAL_MAX;
}

/*
 * Rows [r0, r1) of qkv = x Wqkv^T + bqkv: [P x C] [C x 3C]; or, value_only,
 * of v alone, into ctx (the value path, see attend_one), its rows C apart.
 */
static int project(const td_mixer *m, const att_ws *w, const td_real *x, size_t r0, size_t r1,
		   int value_only, int threads)
{
	const size_t c = m->o.channels, first = value_only ? 2 : 0, ld = value_only ? c : 3 * c;
	const td_real *b = td_mixer_slab_at(m, m->params, T_BQKV) + first * c;
	td_real *out = value_only ? w->ctx : w->qkv;
	td_gemm_opts o = TD_GEMM_OPTS_INIT;
	int err;

	o.threads = threads, o.trans_b = 1;
	if ((err = td_gemm(out + r0 * ld, ld, x + r0 * c, c,
			   td_mixer_slab_at(m, m->params, T_WQKV) + first * c * c, c, r1 - r0, ld, c,
			   &o)))
		return err;
	for (size_t i = r0; i < r1; i++)
		for (size_t k = 0; k < ld; k++)
			out[i * ld + k] += b[k];
	return 0;
}

/* Rows [r0, r1) of y = ctx Wo^T + bo: [P x C] [C x C]. */
static int project_out(const td_mixer *m, const att_ws *w, td_real *y, size_t r0, size_t r1,
		       int threads)
{
	const size_t c = m->o.channels;
	const td_real *bo = td_mixer_slab_at(m, m->params, T_BO);
	td_gemm_opts o = TD_GEMM_OPTS_INIT;
	int err;

	o.threads = threads, o.trans_b = 1;
	if ((err = td_gemm(y + r0 * c, c, w->ctx + r0 * c, c, td_mixer_slab_at(m, m->params, T_WO),
			   c, r1 - r0, c, c, &o)))
		return err;
	for (size_t i = r0; i < r1; i++)
		for (size_t k = 0; k < c; k++)
			y[i * c + k] += bo[k];
	return 0;
}

/*
 * Lines of more than one step, forward or backward, block by block
 * (by_blocks): in is x or dy, out is y or dx.
 */
typedef struct {
	td_mixer *m;
	pair_job pj; /* the pairs' work (pj.workers: the workers taking blocks) */
	td_real *out;
	const td_real *in;
	size_t blocks; /* td_mixer_blocks's (n_parts) */
	size_t inner;  /* workers within a block: 1, or with one block (one line) the threads' */
} block_job;

/* Share w of one block's pairs (pairs w, w + inner, ...), on worker w's scratch. */
static void inner_share(void *arg, size_t w)
{
	const block_job *j = arg;
	td_real *s = j->pj.w->scratch + w * scratch_size(j->m, j->pj.length);
	const size_t nh = j->m->o.heads;

	for (size_t b = w; b < j->pj.lines * nh; b += j->inner)
		if (j->pj.backward)
			attend_pair_backward(&j->pj, s, b / nh, b % nh);
		else
			attend_pair(&j->pj, s, b / nh, b % nh);
}

/*
 * The pairs of lines [l0, l1), one block: in turn on scratch s, or, when
 * the block is the call's only one (one line), shared among the threads
 * (inner_share), which the blocks cannot use.
 */
static void block_pairs(const block_job *j, td_real *s, size_t l0, size_t l1)
{
	const att_ws *w = j->pj.w;
	const size_t c = j->m->o.channels, t = j->pj.length;

	if (j->inner > 1) {
		td_pool_run(j->inner, inner_share, (void *)j);
		return;
	}
	for (size_t l = l0; l < l1; l++) {
		const char *next = (const char *)(w->qkv + (l + 1) * t * 3 * c);

		/*
		 * backward, the next line's q, k and v, from memory: a pair
		 * reads its line's rows d values at a time, 3C apart, which the
		 * hardware's prefetchers did not keep ahead of (bare mixer, best
		 * of 20 runs, when the pairs were shared out one by one: 15.7 ->
		 * 15.3 ms)
		 */
		for (size_t o = 0; j->pj.backward && l + 1 < l1 && o < t * 3 * c * sizeof(td_real);
		     o += 64)
			__builtin_prefetch(next + o);
		for (size_t h = 0; h < j->m->o.heads; h++)
			if (j->pj.backward)
				attend_pair_backward(&j->pj, s, l, h);
			else
				attend_pair(&j->pj, s, l, h);
	}
}

/* part's Wo, Wqkv, bqkv and bo from rows [r0, r1) of dy, ctx, dqkv and x (one block). */
static int block_grads(const block_job *j, td_real *part, size_t r0, size_t r1)
{
	const td_mixer *m = j->m;
	const att_ws *w = j->pj.w;
	const size_t c = m->o.channels;
	td_real *bqkv = td_mixer_slab_at(m, part, T_BQKV), *bo = td_mixer_slab_at(m, part, T_BO);
	td_gemm_opts put = TD_GEMM_OPTS_INIT;
	int err;

	put.trans_a = 1, put.threads = (int)j->inner; /* the workers take whole blocks */
	/* Wo = dy^T ctx: [C x n] [n x C]; Wqkv = dqkv^T x: [3C x n] [n x C] */
	if ((err = td_gemm(td_mixer_slab_at(m, part, T_WO), c, j->in + r0 * c, c, w->ctx + r0 * c,
			   c, c, c, r1 - r0, &put)) ||
	    (err = td_gemm(td_mixer_slab_at(m, part, T_WQKV), c, w->dqkv + r0 * 3 * c, 3 * c,
			   w->x + r0 * c, c, 3 * c, c, r1 - r0, &put)))
		return err;
	memset(bqkv, 0, 3 * c * sizeof *bqkv), memset(bo, 0, c * sizeof *bo);
	for (size_t i = r0; i < r1; i++) {
		for (size_t k = 0; k < 3 * c; k++)
			bqkv[k] += w->dqkv[i * 3 * c + k];
		for (size_t k = 0; k < c; k++)
			bo[k] += j->in[i * c + k];
	}
	return 0;
}

/* Block b's rows [r0, r1) backward: dctx = dy Wo, the pairs, block_grads, dx = dqkv Wqkv. */
static int block_backward(const block_job *j, td_real *s, size_t b, size_t l0, size_t l1)
{
	const td_mixer *m = j->m;
	const att_ws *w = j->pj.w;
	const size_t c = m->o.channels, t = j->pj.length, r0 = l0 * t, r1 = l1 * t;
	td_gemm_opts o = TD_GEMM_OPTS_INIT;
	int err;

	o.threads = (int)j->inner;
	/* dctx = dy Wo: [n x C] [C x C] */
	if ((err = td_gemm(w->dctx + r0 * c, c, j->in + r0 * c, c,
			   td_mixer_slab_at(m, m->params, T_WO), c, r1 - r0, c, c, &o)))
		return err;
	block_pairs(j, s, l0, l1);
	if ((err = block_grads(j, w->parts + b * m->n_params, r0, r1)))
		return err;
	/* dx = dqkv Wqkv: [n x 3C] [3C x C] */
	return td_gemm(j->out + r0 * c, c, w->dqkv + r0 * 3 * c, 3 * c,
		       td_mixer_slab_at(m, m->params, T_WQKV), c, r1 - r0, c, 3 * c, &o);
}

/* Block rows [r0, r1) forward: x saved, qkv = x Wqkv^T + bqkv, the pairs, y = ctx Wo^T + bo. */
static int block_forward(const block_job *j, td_real *s, size_t l0, size_t l1)
{
	const td_mixer *m = j->m;
	const att_ws *w = j->pj.w;
	const size_t c = m->o.channels, t = j->pj.length;
	int err;

	memcpy(w->x + l0 * t * c, j->in + l0 * t * c, (l1 - l0) * t * c * sizeof *w->x);
	if ((err = project(m, w, j->in, l0 * t, l1 * t, 0, (int)j->inner)))
		return err;
	block_pairs(j, s, l0, l1);
	return project_out(m, w, j->out, l0 * t, l1 * t, (int)j->inner);
}

/*
 * Worker w's blocks, a consecutive share of them, on its own scratch
 * (with one worker per range, td_pool_ranges's w0 is the worker).
 */
static int block_share(void *arg, size_t w0, size_t w1)
{
	const block_job *j = arg;
	td_real *s = j->pj.w->scratch + w0 * scratch_size(j->m, j->pj.length);
	int err = 0;

	for (size_t b = j->blocks * w0 / j->pj.workers;
	     !err && b < j->blocks * w1 / j->pj.workers; b++) {
		size_t l0, l1;

		td_mixer_block(j->pj.lines, j->blocks, b, &l0, &l1);
		err = j->pj.backward ? block_backward(j, s, b, l0, l1) : block_forward(j, s, l0, l1);
	}
	return err;
}

/*
 * Lines of more than one step, forward or backward, in the blocks of
 * lines td_mixer_blocks gives (about 1024 positions each), each worker
 * taking a consecutive share of them, so that a block's qkv and ctx
 * (forward) and dqkv (backward) are still in the caches when the products
 * after its pairs read them: from one GEMM over all lines, qkv and dqkv
 * (3C values a position) went out to memory and came back. Each block's
 * parameter gradients are its own, added in block order
 * (td_mixer_add_parts), so that no sum depends on the thread count.
 */
static int by_blocks(td_mixer *m, const att_ws *w, td_real *out, const td_real *in, size_t lines,
		     size_t length, int backward)
{
	const size_t blocks = n_parts(lines, length);
	size_t workers = (size_t)m->o.threads < blocks ? (size_t)m->o.threads : blocks;
	block_job j = {m,
		       pairs_of(m, w, lines, length, workers < TD_POOL_MAX ? workers : TD_POOL_MAX,
				backward, NULL),
		       out,
		       in,
		       blocks,
		       blocks == 1 ? n_workers(m, lines) : 1};
	int err;

	if ((err = td_pool_ranges((int)j.pj.workers, j.pj.workers, block_share, &j)))
		return err;
	if (backward)
		td_mixer_add_parts(m, w->parts, blocks, T_WO, length);
	return 0;
}

static int attention_forward(td_mixer *m, td_real *y, const td_real *x, size_t lines, size_t length,
			     td_real *ws)
{
	const size_t c = m->o.channels, p = lines * length;
	att_ws w = carve(m, ws, lines, length);
	td_real xmax;
	double v;
	int value_only, err;

	w.vmax[0] = (td_real)NAN;
	if (length > 1)
		return by_blocks(m, &w, y, x, lines, length, 0);
	xmax = max_abs(w.x, x, p * c); /* lines of one step: see attend_one */
	v = projection_bound(m, 2, xmax) * (1 + 2 * TD_REAL_EPSILON);
	value_only = scores_bounded(m, xmax);
	if (value_only) /* rounded up to a td_real (the factor covers the rounding) */
		w.vmax[0] = v <= TD_REAL_MAX ? (td_real)v : (td_real)INFINITY;
	if ((err = project(m, &w, x, 0, p, value_only, m->o.threads)))
		return err;
	each_pair(m, &w, lines, length, 0, value_only ? value_share : pair_share);
	return project_out(m, &w, y, 0, p, m->o.threads);
}

/*
 * dbqkv = column sums of dqkv (rows ld apart from g) from block first (0
 * q, 1 k, 2 v) on, dbo = those of dy (fixed order), added to the slab
 * once; the blocks before first gain +0, as their sums of dq or dk of +0
 * would add.
 */
static void bias_grads(td_mixer *m, att_ws *w, const td_real *dy, size_t p, const td_real *g,
		       size_t ld, size_t first)
{
	const size_t c = m->o.channels;
	td_real *gb = td_mixer_slab_at(m, m->grads, T_BQKV);
	td_real *gbo = td_mixer_slab_at(m, m->grads, T_BO);

	memset(w->db, 0, 4 * c * sizeof *w->db);
	for (size_t i = 0; i < p; i++) {
		for (size_t k = first * c; k < 3 * c; k++)
			w->db[k] += g[i * ld + k - first * c];
		for (size_t k = 0; k < c; k++)
			w->db[3 * c + k] += dy[i * c + k];
	}
	for (size_t k = 0; k < 3 * c; k++)
		gb[k] += w->db[k];
	for (size_t k = 0; k < c; k++)
		gbo[k] += w->db[3 * c + k];
}

static int attention_backward(td_mixer *m, td_real *dx, const td_real *dy, size_t lines,
			      size_t length, td_real *ws)
{
	const size_t c = m->o.channels, p = lines * length;
	td_real *gw = td_mixer_slab_at(m, m->grads, T_WQKV);
	att_ws w = carve(m, ws, lines, length);
	td_gemm_opts acc = TD_GEMM_OPTS_INIT, put = TD_GEMM_OPTS_INIT;
	const td_real *g = w.dqkv; /* dL/dqkv from block first on, rows ld apart */
	size_t first = 0, ld = 3 * c;
	int err;

	if (length > 1)
		return by_blocks(m, &w, dx, dy, lines, length, 1);
	acc.threads = put.threads = m->o.threads;
	acc.beta = 1, acc.trans_a = 1;
	/* dctx = dy Wo: [P x C] [C x C]; dWo += dy^T ctx: [C x P] [P x C] */
	if ((err = td_gemm(w.dctx, c, dy, c, td_mixer_slab_at(m, m->params, T_WO), c, p, c, c,
			   &put)) ||
	    (err = td_gemm(td_mixer_slab_at(m, m->grads, T_WO), c, dy, c, w.ctx, c, c, c, p,
			   &acc)))
		return err;
	/*
	 * lines of one step (attend_one): nothing when every ds is 0 (dv is do
	 * then), else q and k again (the forward may have left them) and then
	 * every pair's columns of dqkv
	 */
	if (ds_all_zero(m, &w, dy, p) || !each_pair(m, &w, lines, length, 1, ds_share))
		first = 2, g = w.dctx, ld = c;
	else if ((err = project(m, &w, w.x, 0, p, 0, m->o.threads)) == 0)
		each_pair(m, &w, lines, length, 1, pair_share);
	else
		return err;
	bias_grads(m, &w, dy, p, g, ld, first);
	/* dWqkv += dqkv^T x: [3C x P] [P x C]; dx = dqkv Wqkv: [P x 3C] [3C x C]; from first */
	for (size_t k = 0; k < first * c * c; k++)
		gw[k] += 0;
	if ((err = td_gemm(gw + first * c * c, c, g, ld, w.x, c, (3 - first) * c, c, p, &acc)))
		return err;
	return td_gemm(dx, c, g, ld, td_mixer_slab_at(m, m->params, T_WQKV) + first * c * c, c, p,
		       c, (3 - first) * c, &put);
}

const td_mixer_ops td_mixer_attention_ops = {"attention", attention_setup, attention_ws_size,
					     attention_forward, attention_backward};
