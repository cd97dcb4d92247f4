/*
 * mixer_lru.c - the real diagonal linear recurrence (S4D/LRU-like).
 *
 * For one line, with N states and C channels:
 *   u_t = B x_t                    B: N x C   (one GEMM over all lines and steps)
 *   h_t = a * h_{t-1} + u_t        a = exp(-softplus(w)) in (0, 1), h_{-1} = 0
 *   y_t = C h_t + D * x_t          C: C x N   (one GEMM), D: per channel
 * With reverse, t-1 reads t+1 and the sweep runs from the end of the line.
 *
 * Lines of one step have no recurrence: y = x (B^T C^T + diag(D)), one
 * linear map M [C x C] per call (one_step_forward), one product per
 * position where the sweep takes two, and two backward where it takes four.
 *
 * Workspace, for P = lines * length positions (what backward reads is saved
 * by forward; the rest is backward's scratch):
 *   a   [N]      the decays forward used (saved)
 *   x   [P][C]   a copy of the input (saved)
 *   h   [P][N]   the states (saved)
 *   g   [P][N]   dL/dh, the adjoint state (scratch)
 *   da  [N]      dL/da (scratch)
 *   dd  [C]      dL/dD (scratch)
 *   mm  [C][C]   M, lines of one step only (saved)
 *   dm  [C][C]   dL/dM, lines of one step only (scratch)
 * A gradient is summed whole in scratch (or in a GEMM's accumulator) and then
 * added to the slab once, so a backward adds exactly this call's gradient.
 *
 * Threads (td_pool_ranges) take ranges of lines for the recurrences and the
 * skip path, and groups of GROUP states or channels for da and dD, each
 * summed over every position in order.
 *
 * Must never: let the sum behind any gradient depend on the thread count
 * (the GEMMs guarantee it; the loops here sum in a fixed order).
 */
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "../base/error.h"
#include "gemm.h"
#include "mixer_int.h"
#include "pool.h"

enum { T_B, T_W, T_C, T_D }; /* tensor order, also the rng stream offsets */

enum { GROUP = 16 }; /* states or channels one thread sums a gradient for (64 bytes) */

static int lru_setup(td_mixer *m)
{
	size_t c = m->o.channels, n;
	int err;

	if (m->o.state == 0)
		m->o.state = c;
	n = m->o.state;
	/* w uniform in (-4.5, 0.5): decays a from about 0.38 to 0.99 */
	if ((err = td_mixer_add_tensor(
		 m, "B", n, c,
		 (td_init_rule){TD_INIT_NORMAL, 0, (td_real)(1 / sqrt((double)c))})) ||
	    (err = td_mixer_add_tensor(
		 m, "w", 1, n, (td_init_rule){TD_INIT_UNIFORM, (td_real)-4.5, (td_real)0.5})) ||
	    (err = td_mixer_add_tensor(
		 m, "C", c, n,
		 (td_init_rule){TD_INIT_NORMAL, 0, (td_real)(1 / sqrt((double)n))})) ||
	    (err = td_mixer_add_tensor(m, "D", 1, c, (td_init_rule){TD_INIT_NORMAL, 0, 1})))
		return err;
	return 0;
}

static int lru_ws_size(size_t *out, const td_mixer *m, size_t lines, size_t length)
{
	size_t n = m->o.state, c = m->o.channels;

	if (n > SIZE_MAX / 4 || c > SIZE_MAX - 2 * n) /* 2N and C + 2N fit */
		return TD_FAIL(TD_ENOMEM, "the lru workspace overflows: state %zu, %zu channels",
			       n, c);
	if (c > (SIZE_MAX - 2 * n - c) / (2 * c)) /* 2N + C + 2C^2 fits */
		return TD_FAIL(TD_ENOMEM, "the lru workspace overflows: %zu channels", c);
	/* x, h, g per position; 2N + C + 2C^2 for the call */
	return td_mixer_size_muladd(out, lines * length, c + 2 * n, 2 * n + c + 2 * c * c,
				    "the lru workspace");
}

/* The workspace's parts, carved in the order the file comment lists. */
typedef struct {
	td_real *a, *x, *h, *g, *da, *dd, *mm, *dm;
} lru_ws;

static lru_ws carve(const td_mixer *m, td_real *ws, size_t positions)
{
	size_t c = m->o.channels, n = m->o.state;
	lru_ws w;

	w.a = ws;
	w.x = w.a + n;
	w.h = w.x + positions * c;
	w.g = w.h + positions * n;
	w.da = w.g + positions * n;
	w.dd = w.da + n;
	w.mm = w.dd + c;
	w.dm = w.mm + c * c;
	return w;
}

static double softplus(double v)
{
	return v > 0 ? v + log1p(exp(-v)) : log1p(exp(v));
}

/* The position of step s of a line's sweep (s = 0 is where the sweep starts). */
static size_t at(size_t s, size_t length, int reverse)
{
	return reverse ? length - 1 - s : s;
}

/* h_t += a * h_{t-1} along every line, in sweep order, in place. */
static void scan(td_real *h, const td_real *a, size_t lines, size_t length, size_t n, int rev)
{
	for (size_t l = 0; l < lines; l++) {
		td_real *line = h + l * length * n;

		for (size_t s = 1; s < length; s++) {
			td_real *cur = line + at(s, length, rev) * n;
			const td_real *prev = line + at(s - 1, length, rev) * n;

			for (size_t k = 0; k < n; k++)
				cur[k] += a[k] * prev[k];
		}
	}
}

/* The adjoint of scan: g_t += a * g_{t+1} against sweep order, in place. */
static void scan_adjoint(td_real *g, const td_real *a, size_t lines, size_t length, size_t n,
			 int rev)
{
	for (size_t l = 0; l < lines; l++) {
		td_real *line = g + l * length * n;

		for (size_t s = length - 1; s-- > 0;) {
			td_real *cur = line + at(s, length, rev) * n;
			const td_real *next = line + at(s + 1, length, rev) * n;

			for (size_t k = 0; k < n; k++)
				cur[k] += a[k] * next[k];
		}
	}
}

/*
 * da[k] = sum over lines and steps s >= 1 of g_s[k] * h_{s-1}[k], in line
 * then step order, for k0 <= k < k1 (at most GROUP): summed in a local
 * accumulator, so that threads summing neighbouring ranges never write
 * one cache line.
 */
static void decay_grad(td_real *da, const td_real *g, const td_real *h, size_t lines, size_t length,
		       size_t n, int rev, size_t k0, size_t k1)
{
	td_real acc[GROUP] = {0};

	for (size_t l = 0; l < lines; l++)
		for (size_t s = 1; s < length; s++) {
			const td_real *gs = g + (l * length + at(s, length, rev)) * n + k0;
			const td_real *hp = h + (l * length + at(s - 1, length, rev)) * n + k0;

			for (size_t k = 0; k < k1 - k0; k++)
				acc[k] += gs[k] * hp[k];
		}
	memcpy(da + k0, acc, (k1 - k0) * sizeof *da);
}

/* One call's arguments, shared by its threads' ranges. */
typedef struct {
	td_mixer *m;
	const lru_ws *w;
	td_real *y;	  /* forward: y; backward: dx */
	const td_real *x; /* forward: x; backward: dy */
	size_t lines, length;
} lru_job;

/* The groups of GROUP states, then of GROUP channels, that lru_sums splits. */
static size_t n_groups(const td_mixer *m)
{
	return (m->o.state + GROUP - 1) / GROUP + (m->o.channels + GROUP - 1) / GROUP;
}

/*
 * Forward, lines l0 .. l1-1: the recurrence over their states, and at
 * their positions the copy of x the backward reads and the skip path y =
 * D x.
 */
static int forward_lines(void *arg, size_t l0, size_t l1)
{
	const lru_job *j = arg;
	const size_t c = j->m->o.channels, n = j->m->o.state;
	const td_real *dv = td_mixer_slab_at(j->m, j->m->params, T_D);

	scan(j->w->h + l0 * j->length * n, j->w->a, l1 - l0, j->length, n, j->m->o.reverse);
	for (size_t i = l0 * j->length; i < l1 * j->length; i++)
		for (size_t k = 0; k < c; k++) {
			const td_real xk = j->x[i * c + k];

			j->w->x[i * c + k] = xk;
			j->y[i * c + k] = dv[k] * xk;
		}
	return 0;
}

/* Backward, lines l0 .. l1-1: the adjoint recurrence, and dx = D dy at their positions. */
static int backward_lines(void *arg, size_t l0, size_t l1)
{
	const lru_job *j = arg;
	const size_t c = j->m->o.channels, n = j->m->o.state;
	const td_real *dv = td_mixer_slab_at(j->m, j->m->params, T_D);

	scan_adjoint(j->w->g + l0 * j->length * n, j->w->a, l1 - l0, j->length, n,
		     j->m->o.reverse);
	for (size_t i = l0 * j->length; i < l1 * j->length; i++)
		for (size_t k = 0; k < c; k++)
			j->y[i * c + k] = dv[k] * j->x[i * c + k];
	return 0;
}

/*
 * Backward, groups q0 .. q1-1 of n_groups: a group of states gets its
 * share of da, a group of channels its share of dD = sum over positions,
 * in order, of dy x (the skip path's gradient, into w->dd).
 */
static int backward_sums(void *arg, size_t q0, size_t q1)
{
	const lru_job *j = arg;
	const size_t c = j->m->o.channels, n = j->m->o.state, gn = (n + GROUP - 1) / GROUP;

	for (size_t q = q0; q < q1; q++) {
		const size_t k0 = (q < gn ? q : q - gn) * GROUP, end = q < gn ? n : c;
		const size_t k1 = end - k0 < GROUP ? end : k0 + GROUP;
		td_real acc[GROUP] = {0};

		if (q < gn) {
			decay_grad(j->w->da, j->w->g, j->w->h, j->lines, j->length, n,
				   j->m->o.reverse, k0, k1);
			continue;
		}
		for (size_t i = 0; i < j->lines * j->length; i++)
			for (size_t k = 0; k < k1 - k0; k++)
				acc[k] += j->x[i * c + k0 + k] * j->w->x[i * c + k0 + k];
		memcpy(j->w->dd + k0, acc, (k1 - k0) * sizeof *acc);
	}
	return 0;
}

/*
 * Lines of one step, forward: M[i][j] = D[i] (i == j) + sum_k B[k][i]
 * C[j][k], in double, then y = x M ([P x C] [C x C]) and the copy of x the
 * backward reads.
 */
static int one_step_forward(td_mixer *m, td_real *y, const td_real *x, size_t p, lru_ws *w)
{
	const size_t c = m->o.channels, n = m->o.state;
	const td_mixer_strided bv = {td_mixer_slab_at(m, m->params, T_B), 1, c};
	const td_mixer_strided cv = {td_mixer_slab_at(m, m->params, T_C), n, 1};

	td_mixer_products(w->mm, c, 1, bv, cv, c, c, n, td_mixer_slab_at(m, m->params, T_D), 0);
	return td_mixer_map_forward(m, y, x, w->x, w->mm, p);
}

/*
 * Lines of one step, backward: dM = x^T dy ([C x P] [P x C]) and dx = dy
 * M^T; from dM, in double, dB[k][i] = sum_j C[j][k] dM[i][j], dC[j][k] =
 * sum_i dM[i][j] B[k][i] and dD[i] = dM[i][i], each added to its slab once.
 * The decay's gradient is 0: there is no step for it to act on.
 */
static int one_step_backward(td_mixer *m, td_real *dx, const td_real *dy, size_t p, lru_ws *w)
{
	const size_t c = m->o.channels, n = m->o.state;
	const td_real *bv = td_mixer_slab_at(m, m->params, T_B);
	const td_real *cv = td_mixer_slab_at(m, m->params, T_C);
	td_real *gd = td_mixer_slab_at(m, m->grads, T_D);
	int err = td_mixer_map_backward(m, dx, w->dm, dy, w->x, w->mm, p);

	if (err)
		return err;
	/* dB: (r, s, t) = (k, i, j); dC: (j, k, i) */
	td_mixer_products(td_mixer_slab_at(m, m->grads, T_B), c, 1, (td_mixer_strided){cv, 1, n},
			  (td_mixer_strided){w->dm, c, 1}, n, c, c, NULL, 1);
	td_mixer_products(td_mixer_slab_at(m, m->grads, T_C), n, 1, (td_mixer_strided){w->dm, 1, c},
			  (td_mixer_strided){bv, c, 1}, c, n, c, NULL, 1);
	for (size_t i = 0; i < c; i++)
		gd[i] += w->dm[i * c + i];
	return 0;
}

static int lru_forward(td_mixer *m, td_real *y, const td_real *x, size_t lines, size_t length,
		       td_real *ws)
{
	const size_t c = m->o.channels, n = m->o.state, p = lines * length;
	const td_real *wv = td_mixer_slab_at(m, m->params, T_W);
	lru_ws w = carve(m, ws, p);
	lru_job j = {m, &w, y, x, lines, length};
	td_gemm_opts o = TD_GEMM_OPTS_INIT;
	int err;

	if (length == 1)
		return one_step_forward(m, y, x, p, &w);
	o.threads = m->o.threads;
	for (size_t k = 0; k < n; k++)
		w.a[k] = (td_real)exp(-softplus((double)wv[k]));
	o.trans_b = 1; /* h = x B^T: [p x c] [c x n] */
	if ((err = td_gemm(w.h, n, x, c, td_mixer_slab_at(m, m->params, T_B), c, p, n, c, &o)))
		return err;
	if ((err = td_pool_ranges(m->o.threads, lines, forward_lines, &j)))
		return err;
	o.beta = 1; /* y += h C^T: [p x n] [n x c] */
	return td_gemm(y, c, w.h, n, td_mixer_slab_at(m, m->params, T_C), n, p, c, n, &o);
}

/* dw += da * da/dw, with da/dw = -a * sigmoid(w). */
static void decay_to_w(td_mixer *m, const lru_ws *w)
{
	const td_real *wv = td_mixer_slab_at(m, m->params, T_W);
	td_real *gw = td_mixer_slab_at(m, m->grads, T_W);

	for (size_t k = 0; k < m->o.state; k++) {
		double sig = 1 / (1 + exp(-(double)wv[k]));

		gw[k] += (td_real)(-(double)w->da[k] * (double)w->a[k] * sig);
	}
}

static int lru_backward(td_mixer *m, td_real *dx, const td_real *dy, size_t lines, size_t length,
			td_real *ws)
{
	const size_t c = m->o.channels, n = m->o.state, p = lines * length;
	lru_ws w = carve(m, ws, p);
	lru_job j = {m, &w, dx, dy, lines, length};
	td_real *gd = td_mixer_slab_at(m, m->grads, T_D);
	td_gemm_opts acc = TD_GEMM_OPTS_INIT, put = TD_GEMM_OPTS_INIT;
	int err;

	if (length == 1)
		return one_step_backward(m, dx, dy, p, &w);
	acc.threads = put.threads = m->o.threads;
	acc.beta = 1;
	acc.trans_a = 1; /* dC += dy^T h: [c x p] [p x n] */
	if ((err = td_gemm(td_mixer_slab_at(m, m->grads, T_C), n, dy, c, w.h, n, c, n, p, &acc)))
		return err;
	/* g = dy C: [p x c] [c x n], then the adjoint recurrence */
	if ((err = td_gemm(w.g, n, dy, c, td_mixer_slab_at(m, m->params, T_C), n, p, n, c, &put)))
		return err;
	if ((err = td_pool_ranges(m->o.threads, lines, backward_lines, &j)) ||
	    (err = td_pool_ranges(m->o.threads, n_groups(m), backward_sums, &j)))
		return err;
	decay_to_w(m, &w);
	for (size_t k = 0; k < c; k++)
		gd[k] += w.dd[k];
	/* dB += g^T x: [n x p] [p x c] */
	if ((err = td_gemm(td_mixer_slab_at(m, m->grads, T_B), c, w.g, n, w.x, c, n, c, p, &acc)))
		return err;
	acc.trans_a = 0; /* dx += g B: [p x n] [n x c] */
	return td_gemm(dx, c, w.g, n, td_mixer_slab_at(m, m->params, T_B), c, p, c, n, &acc);
}

const td_mixer_ops td_mixer_lru_ops = {"lru", lru_setup, lru_ws_size, lru_forward, lru_backward};
