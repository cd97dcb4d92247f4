/*
 * mixer_clru.c - the complex diagonal linear recurrence (the LRU paper's,
 * Orvieto et al. 2023, without its input normalisation gamma).
 *
 * For one line, with N complex states and C channels:
 *   u_t = B x_t                    B = B_re + i B_im: N x C (two GEMMs over all lines and steps)
 *   h_t = lambda * h_{t-1} + u_t   lambda = exp(-exp(nu) + i theta), |lambda| < 1, h_{-1} = 0
 *   y_t = Re(C h_t) + D * x_t      C = C_re + i C_im: C x N, so Re(C h) = C_re h_re - C_im h_im
 * With reverse, t-1 reads t+1 and the sweep runs from the end of the line.
 * A state is stored as its real parts then its imaginary parts: h_t is
 * 2N values [re | im], so every projection is a GEMM on a half of it.
 * Lines of one step have no recurrence: y = x M with M = B_re^T C_re^T -
 * B_im^T C_im^T + diag(D), one real map [C x C] (as in mixer_lru.c).
 *
 * The backward keeps the adjoint g = dL/dh_re + i dL/dh_im. Through
 * h_t = lambda h_{t-1} + u_t it flows as g_{t-1} += conj(lambda) g_t, and
 * dL/dlambda = sum_t g_t conj(h_{t-1}); the chain rule through
 * lambda = r (cos theta + i sin theta), r = exp(-exp(nu)) gives
 *   dL/dtheta = Re(dL/dlambda) * -Im(lambda) + Im(dL/dlambda) * Re(lambda)
 *   dL/dnu    = -(Re(dL/dlambda) Re(lambda) + Im(dL/dlambda) Im(lambda)) * exp(nu)
 *
 * Workspace, for P = lines * length positions (what backward reads is saved
 * by forward; the rest is backward's scratch):
 *   a   [2N]      lambda's real then imaginary parts (saved)
 *   x   [P][C]    a copy of the input (saved)
 *   h   [P][2N]   the states (saved)
 *   g   [P][2N]   the adjoint states (scratch)
 *   da  [2N]      dL/dlambda (scratch)
 *   dd  [C]       dL/dD (scratch)
 *   mm  [C][C]    M, lines of one step only (saved)
 *   dm  [C][C]    dL/dM, lines of one step only (scratch)
 * A gradient is summed whole in scratch (or in a GEMM's accumulator) and then
 * added to the slab once, so a backward adds exactly this call's gradient.
 *
 * Must never: let the sum behind any gradient depend on the thread count
 * (the GEMMs guarantee it; the loops here are serial in a fixed order).
 */
#include <math.h>
#include <string.h>

#include "../base/error.h"
#include "gemm.h"
#include "mixer_int.h"

/* tensor order, also the rng stream offsets */
enum { T_BRE, T_BIM, T_NU, T_THETA, T_CRE, T_CIM, T_D };

static int clru_setup(td_mixer *m)
{
	size_t c = m->o.channels, n;
	td_real sb = (td_real)(1 / sqrt(2.0 * (double)c)), sc;
	int err;

	if (m->o.state == 0)
		m->o.state = c;
	n = m->o.state;
	if (n > SIZE_MAX / 4) /* so that 2N and 4N never wrap */
		return TD_FAIL(TD_EINVAL, "state %zu is too large for a clru", n);
	sc = (td_real)(1 / sqrt((double)n));
	/* nu uniform in (-4.5, 0): |lambda| from about 0.37 to 0.99; theta covers
	   every frequency up to the Nyquist rate (a phase past pi aliases) */
	if ((err = td_mixer_add_tensor(m, "B_re", n, c, (td_init_rule){TD_INIT_NORMAL, 0, sb})) ||
	    (err = td_mixer_add_tensor(m, "B_im", n, c, (td_init_rule){TD_INIT_NORMAL, 0, sb})) ||
	    (err = td_mixer_add_tensor(m, "nu", 1, n,
				       (td_init_rule){TD_INIT_UNIFORM, (td_real)-4.5, 0})) ||
	    (err = td_mixer_add_tensor(
		 m, "theta", 1, n,
		 (td_init_rule){TD_INIT_UNIFORM, 0, (td_real)3.14159265358979324})) ||
	    (err = td_mixer_add_tensor(m, "C_re", c, n, (td_init_rule){TD_INIT_NORMAL, 0, sc})) ||
	    (err = td_mixer_add_tensor(m, "C_im", c, n, (td_init_rule){TD_INIT_NORMAL, 0, sc})) ||
	    (err = td_mixer_add_tensor(m, "D", 1, c, (td_init_rule){TD_INIT_NORMAL, 0, 1})))
		return err;
	return 0;
}

static int clru_ws_size(size_t *out, const td_mixer *m, size_t lines, size_t length)
{
	size_t n = m->o.state, c = m->o.channels, per;

	if (c > SIZE_MAX - 4 * n) /* 4N fits (clru_setup checked) */
		return TD_FAIL(TD_ENOMEM, "the clru workspace overflows: %zu channels", c);
	per = c + 4 * n; /* x, h, g per position */
	if (c > (SIZE_MAX - 4 * n - c) / (2 * c)) /* 4N + C + 2C^2 fits */
		return TD_FAIL(TD_ENOMEM, "the clru workspace overflows: %zu channels", c);
	return td_mixer_size_muladd(out, lines * length, per, 4 * n + c + 2 * c * c,
				    "the clru workspace");
}

/* The workspace's parts, carved in the order the file comment lists. */
typedef struct {
	td_real *a, *x, *h, *g, *da, *dd, *mm, *dm;
} clru_ws;

static clru_ws carve(const td_mixer *m, td_real *ws, size_t positions)
{
	size_t c = m->o.channels, n = m->o.state;
	clru_ws w;

	w.a = ws;
	w.x = w.a + 2 * n;
	w.h = w.x + positions * c;
	w.g = w.h + positions * 2 * n;
	w.da = w.g + positions * 2 * n;
	w.dd = w.da + 2 * n;
	w.mm = w.dd + c;
	w.dm = w.mm + c * c;
	return w;
}

/* The position of step s of a line's sweep (s = 0 is where the sweep starts). */
static size_t at(size_t s, size_t length, int reverse)
{
	return reverse ? length - 1 - s : s;
}

/*
 * h_t += lambda * h_{t-1} along every line in sweep order, in place; with
 * adjoint set, g_t += conj(lambda) * g_{t+1} against sweep order instead.
 */
static void scan(td_real *h, const td_real *a, size_t lines, size_t length, size_t n, int rev,
		 int adjoint)
{
	const td_real *are = a, *aim = a + n;
	td_real sign = adjoint ? -1 : 1; /* conj(lambda) negates the imaginary part */

	for (size_t l = 0; l < lines; l++) {
		td_real *line = h + l * length * 2 * n;

		for (size_t i = 1; i < length; i++) {
			size_t s = adjoint ? length - 1 - i : i, from = adjoint ? s + 1 : s - 1;
			td_real *cur = line + at(s, length, rev) * 2 * n;
			const td_real *prev = line + at(from, length, rev) * 2 * n;

			for (size_t k = 0; k < n; k++) {
				td_real ai = sign * aim[k];

				cur[k] += are[k] * prev[k] - ai * prev[n + k];
				cur[n + k] += are[k] * prev[n + k] + ai * prev[k];
			}
		}
	}
}

/* da = dL/dlambda = sum over lines and steps s >= 1 of g_s conj(h_{s-1}), in a fixed order. */
static void decay_grad(td_real *da, const td_real *g, const td_real *h, size_t lines, size_t length,
		       size_t n, int rev)
{
	memset(da, 0, 2 * n * sizeof *da);
	for (size_t l = 0; l < lines; l++)
		for (size_t s = 1; s < length; s++) {
			const td_real *gs = g + (l * length + at(s, length, rev)) * 2 * n;
			const td_real *hp = h + (l * length + at(s - 1, length, rev)) * 2 * n;

			for (size_t k = 0; k < n; k++) {
				da[k] += gs[k] * hp[k] + gs[n + k] * hp[n + k];
				da[n + k] += gs[n + k] * hp[k] - gs[k] * hp[n + k];
			}
		}
}

/*
 * Lines of one step, forward: M[i][j] = D[i] (i == j) + sum_k B_re[k][i]
 * C_re[j][k], in double, less sum_k B_im[k][i] C_im[j][k] (in double too:
 * M is rounded twice), then y = x M and the copy of x the backward reads.
 */
static int one_step_forward(td_mixer *m, td_real *y, const td_real *x, size_t p, clru_ws *w)
{
	const size_t c = m->o.channels, n = m->o.state;
	const td_mixer_strided bre = {td_mixer_slab_at(m, m->params, T_BRE), 1, c};
	const td_mixer_strided bim = {td_mixer_slab_at(m, m->params, T_BIM), 1, c};
	const td_mixer_strided cre = {td_mixer_slab_at(m, m->params, T_CRE), n, 1};
	const td_mixer_strided cim = {td_mixer_slab_at(m, m->params, T_CIM), n, 1};

	td_mixer_products(w->mm, c, 1, bre, cre, c, c, n, td_mixer_slab_at(m, m->params, T_D), 0);
	td_mixer_products(w->mm, c, 1, bim, cim, c, c, n, NULL, -1);
	return td_mixer_map_forward(m, y, x, w->x, w->mm, p);
}

/*
 * Lines of one step, backward: dM = x^T dy and dx = dy M^T; from dM, in
 * double, dB_re[k][i] = sum_j C_re[j][k] dM[i][j], dB_im the same of C_im
 * negated, dC_re[j][k] = sum_i dM[i][j] B_re[k][i], dC_im the same of B_im
 * negated, dD[i] = dM[i][i]. nu and theta have no step to act on: their
 * gradients are 0.
 */
static int one_step_backward(td_mixer *m, td_real *dx, const td_real *dy, size_t p, clru_ws *w)
{
	const size_t c = m->o.channels, n = m->o.state;
	const td_mixer_strided dm_rows = {w->dm, c, 1}, dm_cols = {w->dm, 1, c};
	td_real *gd = td_mixer_slab_at(m, m->grads, T_D);
	int err = td_mixer_map_backward(m, dx, w->dm, dy, w->x, w->mm, p);

	if (err)
		return err;
	for (int im = 0; im < 2; im++) { /* the real parts, then the imaginary ones, negated */
		const size_t tb = im ? T_BIM : T_BRE, tc = im ? T_CIM : T_CRE;
		const td_mixer_strided bv = {td_mixer_slab_at(m, m->params, tb), c, 1};
		const td_mixer_strided cv = {td_mixer_slab_at(m, m->params, tc), 1, n};
		const int mode = im ? -1 : 1;

		td_mixer_products(td_mixer_slab_at(m, m->grads, tb), c, 1, cv, dm_rows, n, c, c, NULL,
				  mode);
		td_mixer_products(td_mixer_slab_at(m, m->grads, tc), n, 1, dm_cols, bv, c, n, c, NULL,
				  mode);
	}
	for (size_t i = 0; i < c; i++)
		gd[i] += w->dm[i * c + i];
	return 0;
}

static int clru_forward(td_mixer *m, td_real *y, const td_real *x, size_t lines, size_t length,
			td_real *ws)
{
	const size_t c = m->o.channels, n = m->o.state, p = lines * length;
	const td_real *nu = td_mixer_slab_at(m, m->params, T_NU);
	const td_real *theta = td_mixer_slab_at(m, m->params, T_THETA);
	const td_real *dv = td_mixer_slab_at(m, m->params, T_D);
	clru_ws w = carve(m, ws, p);
	td_gemm_opts o = TD_GEMM_OPTS_INIT;
	int err;

	if (length == 1)
		return one_step_forward(m, y, x, p, &w);
	o.threads = m->o.threads;
	for (size_t k = 0; k < n; k++) {
		double r = exp(-exp((double)nu[k]));

		w.a[k] = (td_real)(r * cos((double)theta[k]));
		w.a[n + k] = (td_real)(r * sin((double)theta[k]));
	}
	memcpy(w.x, x, p * c * sizeof *x);
	o.trans_b = 1; /* h_re = x B_re^T, h_im = x B_im^T: [p x c] [c x n] */
	if ((err = td_gemm(w.h, 2 * n, x, c, td_mixer_slab_at(m, m->params, T_BRE), c, p, n, c,
			   &o)) ||
	    (err = td_gemm(w.h + n, 2 * n, x, c, td_mixer_slab_at(m, m->params, T_BIM), c, p, n, c,
			   &o)))
		return err;
	scan(w.h, w.a, lines, length, n, m->o.reverse, 0);
	for (size_t i = 0; i < p; i++)
		for (size_t j = 0; j < c; j++)
			y[i * c + j] = dv[j] * x[i * c + j];
	o.beta = 1; /* y += h_re C_re^T - h_im C_im^T: [p x n] [n x c] */
	if ((err =
		 td_gemm(y, c, w.h, 2 * n, td_mixer_slab_at(m, m->params, T_CRE), n, p, c, n, &o)))
		return err;
	o.alpha = -1;
	return td_gemm(y, c, w.h + n, 2 * n, td_mixer_slab_at(m, m->params, T_CIM), n, p, c, n, &o);
}

/* dnu and dtheta from dL/dlambda (the chain rule in the file comment). */
static void decay_to_params(td_mixer *m, const clru_ws *w)
{
	const size_t n = m->o.state;
	const td_real *nu = td_mixer_slab_at(m, m->params, T_NU);
	td_real *gnu = td_mixer_slab_at(m, m->grads, T_NU);
	td_real *gtheta = td_mixer_slab_at(m, m->grads, T_THETA);

	for (size_t k = 0; k < n; k++) {
		double dre = (double)w->da[k], dim = (double)w->da[n + k];
		double are = (double)w->a[k], aim = (double)w->a[n + k];

		gtheta[k] += (td_real)(-dre * aim + dim * are);
		gnu[k] += (td_real)(-(dre * are + dim * aim) * exp((double)nu[k]));
	}
}

/* dD[j] += sum_i dy[i][j] * x[i][j]; and dx = D * dy (the skip path). */
static void skip_backward(td_mixer *m, td_real *dx, const td_real *dy, const clru_ws *w, size_t p)
{
	const size_t c = m->o.channels;
	const td_real *dv = td_mixer_slab_at(m, m->params, T_D), *x = w->x;
	td_real *gd = td_mixer_slab_at(m, m->grads, T_D);

	memset(w->dd, 0, c * sizeof *w->dd);
	for (size_t i = 0; i < p; i++)
		for (size_t j = 0; j < c; j++) {
			w->dd[j] += dy[i * c + j] * x[i * c + j];
			dx[i * c + j] = dv[j] * dy[i * c + j];
		}
	for (size_t j = 0; j < c; j++)
		gd[j] += w->dd[j];
}

/* dC_re += dy^T h_re, dC_im -= dy^T h_im: [c x p] [p x n]. */
static int output_grads(td_mixer *m, const td_real *dy, const clru_ws *w, size_t p)
{
	const size_t c = m->o.channels, n = m->o.state;
	td_gemm_opts acc = TD_GEMM_OPTS_INIT;
	int err;

	acc.threads = m->o.threads, acc.beta = 1, acc.trans_a = 1;
	if ((err = td_gemm(td_mixer_slab_at(m, m->grads, T_CRE), n, dy, c, w->h, 2 * n, c, n, p,
			   &acc)))
		return err;
	acc.alpha = -1;
	return td_gemm(td_mixer_slab_at(m, m->grads, T_CIM), n, dy, c, w->h + n, 2 * n, c, n, p,
		       &acc);
}

/* dB_re += g_re^T x, dB_im += g_im^T x: [n x p] [p x c]; then dx += g_re B_re + g_im B_im. */
static int input_grads(td_mixer *m, td_real *dx, const clru_ws *w, size_t p)
{
	const size_t c = m->o.channels, n = m->o.state;
	td_gemm_opts acc = TD_GEMM_OPTS_INIT;
	int err;

	acc.threads = m->o.threads, acc.beta = 1, acc.trans_a = 1;
	if ((err = td_gemm(td_mixer_slab_at(m, m->grads, T_BRE), c, w->g, 2 * n, w->x, c, n, c, p,
			   &acc)) ||
	    (err = td_gemm(td_mixer_slab_at(m, m->grads, T_BIM), c, w->g + n, 2 * n, w->x, c, n, c,
			   p, &acc)))
		return err;
	acc.trans_a = 0; /* [p x n] [n x c] */
	if ((err = td_gemm(dx, c, w->g, 2 * n, td_mixer_slab_at(m, m->params, T_BRE), c, p, c, n,
			   &acc)))
		return err;
	return td_gemm(dx, c, w->g + n, 2 * n, td_mixer_slab_at(m, m->params, T_BIM), c, p, c, n,
		       &acc);
}

static int clru_backward(td_mixer *m, td_real *dx, const td_real *dy, size_t lines, size_t length,
			 td_real *ws)
{
	const size_t c = m->o.channels, n = m->o.state, p = lines * length;
	clru_ws w = carve(m, ws, p);
	td_gemm_opts put = TD_GEMM_OPTS_INIT;
	int err;

	if (length == 1)
		return one_step_backward(m, dx, dy, p, &w);
	put.threads = m->o.threads;
	if ((err = output_grads(m, dy, &w, p)))
		return err;
	/* g_re = dy C_re, g_im = -dy C_im: [p x c] [c x n], then the adjoint recurrence */
	if ((err = td_gemm(w.g, 2 * n, dy, c, td_mixer_slab_at(m, m->params, T_CRE), n, p, n, c,
			   &put)))
		return err;
	put.alpha = -1;
	if ((err = td_gemm(w.g + n, 2 * n, dy, c, td_mixer_slab_at(m, m->params, T_CIM), n, p, n, c,
			   &put)))
		return err;
	scan(w.g, w.a, lines, length, n, m->o.reverse, 1);
	decay_grad(w.da, w.g, w.h, lines, length, n, m->o.reverse);
	decay_to_params(m, &w);
	skip_backward(m, dx, dy, &w, p);
	return input_grads(m, dx, &w, p);
}

const td_mixer_ops td_mixer_clru_ops = {"clru", clru_setup, clru_ws_size, clru_forward,
					clru_backward};
