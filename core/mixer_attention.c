/*
 * mixer_attention.c - multi-head self-attention along a line (equations in
 * mixer.h), laid out as torch.nn.MultiheadAttention: Wqkv is its
 * in_proj_weight (q, k, v blocks of C rows), bqkv its in_proj_bias, Wo and
 * bo its out_proj.
 *
 * The projections in and out are one GEMM each over every line and
 * position; the attention itself is a serial loop per line, head and query
 * whose sums over keys run in sweep order (so reverse is exactly the
 * mirror of forward) and never depend on the thread count.
 *
 * Workspace, for P = lines * length positions, T = length, L = lines,
 * C = channels, nh = heads:
 *   x     [P][C]         a copy of the input (saved)
 *   qkv   [P][3C]        x Wqkv^T + bqkv (saved)
 *   att   [L][nh][T][T]  the softmax weights p_ts, 0 where masked (saved)
 *   ctx   [P][C]         the heads' outputs o_t side by side (saved)
 *   dctx  [P][C]         dL/d(ctx) (backward scratch)
 *   dqkv  [P][3C]        dL/d(qkv) (backward scratch)
 *   dp    [T]            one row's dL/dp (backward scratch)
 *   db    [4C]           dL/dbqkv and dL/dbo summed before they reach the slab
 *   kv    [d][T]         one line's keys (forward) or values (backward) of one
 *                        head, transposed, so that a row's dot products run
 *                        across keys where they vectorise (scratch)
 *
 * Must never: let a masked key reach a weight (with causal set, a query sees
 * only the keys its sweep has passed), or take exp of an unshifted score
 * (each row's maximum is subtracted first, so a large score cannot overflow).
 */
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "error.h"
#include "gemm.h"
#include "mixer_int.h"

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

/*
 * 9C values per position, L * nh * T * T weights, (d + 1) T + 4C scratch;
 * each product checked (lines * heads fits: heads <= channels, and
 * mixer.c has checked that lines * length * channels fits, so (d + 1) T
 * does too).
 */
static int attention_ws_size(size_t *out, const td_mixer *m, size_t lines, size_t length)
{
	size_t c = m->o.channels, tt, weights, rest;
	int err;

	if ((err = td_mixer_size_muladd(&tt, length, length, 0, "the attention weights")) ||
	    (err = td_mixer_size_muladd(&weights, lines * m->o.heads, tt, 0,
					"the attention weights")) ||
	    (err = td_mixer_size_muladd(&rest, 1, weights, (c / m->o.heads + 1) * length + 4 * c,
					"the attention workspace")))
		return err;
	return td_mixer_size_muladd(out, lines * length, 9 * c, rest, "the attention workspace");
}

typedef struct {
	td_real *x, *qkv, *att, *ctx, *dctx, *dqkv, *dp, *db, *kv;
} att_ws;

static att_ws carve(const td_mixer *m, td_real *ws, size_t lines, size_t length)
{
	size_t c = m->o.channels, p = lines * length;
	att_ws w;

	w.x = ws;
	w.qkv = w.x + p * c;
	w.att = w.qkv + p * 3 * c;
	w.ctx = w.att + lines * m->o.heads * length * length;
	w.dctx = w.ctx + p * c;
	w.dqkv = w.dctx + p * c;
	w.dp = w.dqkv + p * 3 * c;
	w.db = w.dp + length;
	w.kv = w.db + 4 * c;
	return w;
}

/* The position in a line of step s of the sweep. */
static size_t at(size_t s, size_t length, int reverse)
{
	return reverse ? length - 1 - s : s;
}

/* How many keys, in sweep order, query step i sees. */
static size_t n_keys(const td_mixer *m, size_t i, size_t length)
{
	return m->o.causal ? i + 1 : length;
}

/*
 * kv[k][s] = qkv[line l][s][part * C + h * d + k]: head h's keys (part 1)
 * or values (part 2) of line l, one row per component.
 */
static void transpose_head(const td_mixer *m, att_ws *w, size_t l, size_t h, size_t part,
			   size_t length)
{
	const size_t c = m->o.channels, d = c / m->o.heads;
	const td_real *src = w->qkv + l * length * 3 * c + part * c + h * d;

	for (size_t s = 0; s < length; s++)
		for (size_t k = 0; k < d; k++)
			w->kv[k * length + s] = src[s * 3 * c + k];
}

/*
 * out[s] = sum over k < d of a[k] * kv[k][s] for the keys query step i
 * sees (whichever way the line is swept they are one range of positions),
 * 0 elsewhere. Each sum starts at 0 and adds k = 0, 1, ... in order: the
 * dot product it replaces, computed for all keys at once.
 */
static void dot_keys(const td_mixer *m, td_real *restrict out, const td_real *restrict a,
		     const td_real *restrict kv, size_t i, size_t length)
{
	const size_t d = m->o.channels / m->o.heads, nk = n_keys(m, i, length);
	const size_t lo = m->o.reverse ? length - nk : 0, hi = lo + nk;

	memset(out, 0, length * sizeof *out);
	for (size_t k = 0; k < d; k++) {
		const td_real ak = a[k], *restrict row = kv + k * length;

		for (size_t s = lo; s < hi; s++)
			out[s] += ak * row[s];
	}
}

/* One query row: the weights p over its keys (0 elsewhere), then its output o. */
static void attend_row(const td_mixer *m, att_ws *w, size_t l, size_t h, size_t i, size_t length)
{
	const size_t c = m->o.channels, d = c / m->o.heads, nk = n_keys(m, i, length);
	const size_t t = at(i, length, m->o.reverse);
	const td_real scale = (td_real)(1 / sqrt((double)d));
	const td_real *q = w->qkv + (l * length + t) * 3 * c + h * d;
	td_real *p = w->att + ((l * m->o.heads + h) * length + t) * length;
	td_real *o = w->ctx + (l * length + t) * c + h * d, mx = -INFINITY, sum = 0;

	dot_keys(m, p, q, w->kv, i, length); /* with the keys transposed */
	for (size_t j = 0; j < nk; j++) {
		size_t s = at(j, length, m->o.reverse);

		p[s] = scale * p[s];
		mx = p[s] > mx ? p[s] : mx;
	}
	for (size_t j = 0; j < nk; j++) {
		size_t s = at(j, length, m->o.reverse);

		p[s] = (td_real)exp((double)(p[s] - mx));
		sum += p[s];
	}
	memset(o, 0, d * sizeof *o);
	for (size_t j = 0; j < nk; j++) {
		size_t s = at(j, length, m->o.reverse);
		const td_real *v = w->qkv + (l * length + s) * 3 * c + 2 * c + h * d;

		p[s] /= sum;
		for (size_t k = 0; k < d; k++)
			o[k] += p[s] * v[k];
	}
}

static int attention_forward(td_mixer *m, td_real *y, const td_real *x, size_t lines, size_t length,
			     td_real *ws)
{
	const size_t c = m->o.channels, p = lines * length;
	const td_real *b = td_mixer_slab_at(m, m->params, T_BQKV);
	const td_real *bo = td_mixer_slab_at(m, m->params, T_BO);
	att_ws w = carve(m, ws, lines, length);
	td_gemm_opts o = TD_GEMM_OPTS_INIT;
	int err;

	o.threads = m->o.threads, o.trans_b = 1;
	memcpy(w.x, x, p * c * sizeof *x);
	/* qkv = x Wqkv^T + bqkv: [P x C] [C x 3C] */
	if ((err = td_gemm(w.qkv, 3 * c, x, c, td_mixer_slab_at(m, m->params, T_WQKV), c, p, 3 * c,
			   c, &o)))
		return err;
	for (size_t i = 0; i < p; i++)
		for (size_t k = 0; k < 3 * c; k++)
			w.qkv[i * 3 * c + k] += b[k];
	for (size_t l = 0; l < lines; l++)
		for (size_t h = 0; h < m->o.heads; h++) {
			transpose_head(m, &w, l, h, 1, length);
			for (size_t i = 0; i < length; i++)
				attend_row(m, &w, l, h, i, length);
		}
	/* y = ctx Wo^T + bo: [P x C] [C x C] */
	if ((err = td_gemm(y, c, w.ctx, c, td_mixer_slab_at(m, m->params, T_WO), c, p, c, c, &o)))
		return err;
	for (size_t i = 0; i < p; i++)
		for (size_t k = 0; k < c; k++)
			y[i * c + k] += bo[k];
	return 0;
}

/*
 * One query row backwards, from dctx: dv_s += p_s do, and through the
 * softmax ds_s = p_s (dp_s - sum_j p_j dp_j) into dq_t and dk_s.
 */
static void attend_row_backward(const td_mixer *m, att_ws *w, size_t l, size_t h, size_t i,
				size_t length)
{
	const size_t c = m->o.channels, d = c / m->o.heads, nk = n_keys(m, i, length);
	const size_t t = at(i, length, m->o.reverse);
	const td_real scale = (td_real)(1 / sqrt((double)d));
	const td_real *q = w->qkv + (l * length + t) * 3 * c + h * d;
	const td_real *p = w->att + ((l * m->o.heads + h) * length + t) * length;
	const td_real *dout = w->dctx + (l * length + t) * c + h * d;
	td_real *dq = w->dqkv + (l * length + t) * 3 * c + h * d, pdp = 0;

	dot_keys(m, w->dp, dout, w->kv, i, length); /* dp[s] = dout . v_s, values transposed */
	for (size_t j = 0; j < nk; j++) {
		size_t s = at(j, length, m->o.reverse);
		td_real *dv = w->dqkv + (l * length + s) * 3 * c + 2 * c + h * d;

		pdp += p[s] * w->dp[s];
		for (size_t k = 0; k < d; k++)
			dv[k] += p[s] * dout[k];
	}
	for (size_t j = 0; j < nk; j++) {
		size_t s = at(j, length, m->o.reverse);
		const td_real *k_s = w->qkv + (l * length + s) * 3 * c + c + h * d;
		td_real *dk = w->dqkv + (l * length + s) * 3 * c + c + h * d;
		td_real ds = scale * p[s] * (w->dp[s] - pdp);

		for (size_t k = 0; k < d; k++) {
			dq[k] += ds * k_s[k];
			dk[k] += ds * q[k];
		}
	}
}

/* dbqkv = column sums of dqkv, dbo = those of dy (fixed order), added to the slab once. */
static void bias_grads(td_mixer *m, att_ws *w, const td_real *dy, size_t p)
{
	const size_t c = m->o.channels;
	td_real *gb = td_mixer_slab_at(m, m->grads, T_BQKV);
	td_real *gbo = td_mixer_slab_at(m, m->grads, T_BO);

	memset(w->db, 0, 4 * c * sizeof *w->db);
	for (size_t i = 0; i < p; i++) {
		for (size_t k = 0; k < 3 * c; k++)
			w->db[k] += w->dqkv[i * 3 * c + k];
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
	att_ws w = carve(m, ws, lines, length);
	td_gemm_opts acc = TD_GEMM_OPTS_INIT, put = TD_GEMM_OPTS_INIT;
	int err;

	acc.threads = put.threads = m->o.threads;
	acc.beta = 1, acc.trans_a = 1;
	/* dctx = dy Wo: [P x C] [C x C]; dWo += dy^T ctx: [C x P] [P x C] */
	if ((err = td_gemm(w.dctx, c, dy, c, td_mixer_slab_at(m, m->params, T_WO), c, p, c, c,
			   &put)) ||
	    (err = td_gemm(td_mixer_slab_at(m, m->grads, T_WO), c, dy, c, w.ctx, c, c, c, p, &acc)))
		return err;
	memset(w.dqkv, 0, p * 3 * c * sizeof *w.dqkv);
	for (size_t l = 0; l < lines; l++)
		for (size_t h = 0; h < m->o.heads; h++) {
			transpose_head(m, &w, l, h, 2, length);
			for (size_t i = 0; i < length; i++)
				attend_row_backward(m, &w, l, h, i, length);
		}
	bias_grads(m, &w, dy, p);
	/* dWqkv += dqkv^T x: [3C x P] [P x C]; dx = dqkv Wqkv: [P x 3C] [3C x C] */
	if ((err = td_gemm(td_mixer_slab_at(m, m->grads, T_WQKV), c, w.dqkv, 3 * c, w.x, c, 3 * c,
			   c, p, &acc)))
		return err;
	return td_gemm(dx, c, w.dqkv, 3 * c, td_mixer_slab_at(m, m->params, T_WQKV), c, p, c, 3 * c,
		       &put);
}

const td_mixer_ops td_mixer_attention_ops = {"attention", attention_setup, attention_ws_size,
					     attention_forward, attention_backward};
