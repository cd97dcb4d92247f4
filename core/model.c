/*
 * model.c - the model: embedding, layers of RMSNorm + block + residual,
 * head (see model.h).
 *
 * Parameter slab (one allocation; gradients in a second of the same layout):
 *   We   [width][in]    embedding weights
 *   be   [width]        embedding bias
 *   gain [L][width]     each layer's RMSNorm gain
 *   Wo   [H][out][width] head weights (H = n_cells with head_per_cell, else 1)
 *   bo   [out]          head bias
 *   with ffn = F > 0, each layer's channel MLP:
 *   g2   [L][width]     its RMSNorm gain
 *   W1   [L][F][width], b1 [L][F], W2 [L][width][F], b2 [L][width]
 *   then each layer's block parameters, in layer order (td_block_use_slabs)
 *
 * Workspace, for R = max_batch * n_cells rows:
 *   xs  [R][in]          the selected input (saved)
 *   h   [L+1][R][width]  the stream entering layer l; h[L] enters the head (saved)
 *   inv [L][R]           each layer's RMSNorm 1/rms (saved)
 *   n   [R][width]       the normed stream (scratch)
 *   u   [R][width]       a block's output, then a norm's input gradient (scratch)
 *   g   [R][width]       dL/dh (scratch)
 *   gn  [R][width]       dL/d(normed) (scratch)
 *   gy  [R][out]         dL/dy, selected (scratch)
 *   sum [max(width,out,F)] a bias gradient summed whole (scratch)
 *   with ffn = F > 0:
 *   hm  [L][R][width]    the stream between a layer's block and its MLP (saved)
 *   inv2 [L][R]          the MLP norm's 1/rms (saved)
 *   pre [L][R][F]        W1 rmsnorm'(hm) + b1, the ReLU's input (saved)
 *   act [R][F]           relu(pre) (scratch)
 *   dact [R][F]          its gradient (scratch)
 *
 * Must never: zero an absent cell by multiplying it, skip the selection on
 * the residual path, or build fewer layers than asked without counting it.
 */
#include "model.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "axial.h"
#include "../base/error.h"
#include "gemm.h"
#include "norm.h"
#include "pool.h"
#include "rng.h"
#include "tensor.h"

#define MAX_GROUPS_PER_LAYER TD_BLOCK_MAX_GROUPS

struct td_model {
	td_model_opts o;	/* plan cleared: not kept */
	const td_lattice *lat;	/* borrowed */
	int n_layers;
	td_block **block;	/* [n_layers] owned */
	uint8_t *mask;		/* [n_cells] */
	const uint8_t *emask;	/* [max_batch][n_cells] per example, or NULL: borrowed */
	size_t n_cells, rows;	/* rows = max_batch * n_cells */
	size_t n_params, n_own; /* all parameters; the model's own (before the blocks') */
	td_real *params, *grads;
	size_t we, be, gain, wo, bo; /* offsets of the own tensors */
	size_t g2, w1, b1, w2, b2;   /* the MLP's, when o.ffn > 0 */
	td_param_group *groups;
	size_t n_groups;
	td_real *ws;
	size_t ws_len;
	td_counters *counters;
};

typedef struct {
	td_real *xs, *h, *inv, *n, *u, *g, *gn, *gy, *sum;
	td_real *hm, *inv2, *pre, *act, *dact; /* ffn > 0 only */
} model_ws;

static size_t max3(size_t a, size_t b, size_t c)
{
	size_t m = a > b ? a : b;

	return m > c ? m : c;
}

static model_ws carve(const td_model *m)
{
	const size_t r = m->rows, w = m->o.width, l = (size_t)m->n_layers;
	model_ws s;

	s.xs = m->ws;
	s.h = s.xs + r * m->o.in;
	s.inv = s.h + (l + 1) * r * w;
	s.n = s.inv + l * r;
	s.u = s.n + r * w;
	s.g = s.u + r * w;
	s.gn = s.g + r * w;
	s.gy = s.gn + r * w;
	s.sum = s.gy + r * m->o.out;
	s.hm = s.sum + max3(w, m->o.out, m->o.ffn);
	s.inv2 = s.hm + l * r * w;
	s.pre = s.inv2 + l * r;
	s.act = s.pre + l * r * m->o.ffn;
	s.dact = s.act + r * m->o.ffn;
	return s;
}

/* Option checks; *layers gets the layer count (the plan's for SCAN). */
static int check_opts(const td_model_opts *o, int *layers)
{
	if (o->in == 0 || o->width == 0 || o->out == 0)
		return TD_FAIL(TD_EINVAL, "%s is 0; in, width and out must be >= 1",
			       o->in == 0 ? "in" : o->width == 0 ? "width" : "out");
	if (o->mixer.channels != 0 && o->mixer.channels != o->width)
		return TD_FAIL(TD_EINVAL, "mixer.channels is %zu but width is %zu; leave it 0",
			       o->mixer.channels, o->width);
	if (o->n_layers < 0)
		return TD_FAIL(TD_EINVAL, "n_layers is %d; pass >= 1, or 0 with a plan",
			       o->n_layers);
	if (o->family == TD_BLOCK_SCAN && !o->plan)
		return TD_FAIL(TD_EINVAL, "a scan model needs a plan: its layers sweep its steps");
	if (o->family != TD_BLOCK_SCAN && o->plan)
		return TD_FAIL(TD_EINVAL, "plan is set but family %d sweeps no plan; pass NULL",
			       (int)o->family);
	if (!o->plan && o->n_layers == 0)
		return TD_FAIL(TD_EINVAL, "n_layers is 0 and there is no plan; pass >= 1");
	*layers = o->plan ? td_plan_n_steps(o->plan) : o->n_layers;
	return 0;
}

/* The plan wins over an explicit layer count that disagrees, counted with why. */
static int count_override(td_model *m, const td_model_opts *o)
{
	if (!o->plan || o->n_layers == 0 || o->n_layers == m->n_layers)
		return 0;
	return td_counter_addf(m->counters, "plan_overrides_n_layers",
			       "n_layers is %d but the plan has %d steps: built %d layers, one "
			       "per step",
			       o->n_layers, m->n_layers, m->n_layers);
}

/* Layer i's block options. */
static td_block_opts layer_opts(const td_model *m, const td_plan *plan, int i)
{
	td_block_opts b = TD_BLOCK_OPTS_INIT;

	b.family = m->o.family;
	b.mixer = m->o.mixer;
	b.mixer.channels = m->o.width;
	b.max_batch = m->o.max_batch;
	b.chunk = m->o.chunk;
	b.cancel = m->o.cancel;
	if (plan) {
		td_plan_step s = td_plan_step_at(plan, i);

		b.axis = s.axis;
		b.reverse = s.reverse;
	}
	return b;
}

static int build_blocks(td_model *m, const td_plan *plan)
{
	int err;

	if (!(m->block = calloc((size_t)m->n_layers, sizeof *m->block)))
		return TD_FAIL(TD_ENOMEM, "out of memory for %d layers", m->n_layers);
	for (int i = 0; i < m->n_layers; i++) {
		td_block_opts b = layer_opts(m, plan, i);

		if ((err = td_block_new(&m->block[i], m->lat, &b)))
			return err;
	}
	return 0;
}

static void add_group(td_model *m, const char *name, size_t off, size_t count)
{
	td_param_group *g = &m->groups[m->n_groups++];

	snprintf(g->name, sizeof g->name, "%s", name);
	g->value = m->params + off, g->grad = m->grads + off, g->count = count;
}

/* One slab for everything: the own tensors, then each block's, moved in. */
static int build_slabs(td_model *m)
{
	const size_t w = m->o.width, l = (size_t)m->n_layers;
	const size_t f = m->o.ffn, heads = m->o.head_per_cell ? m->n_cells : 1;
	size_t at;
	int err;

	m->we = 0, m->be = w * m->o.in, m->gain = m->be + w, m->wo = m->gain + l * w;
	m->bo = m->wo + heads * m->o.out * w, m->g2 = m->bo + m->o.out;
	m->w1 = m->g2 + l * w * (f > 0), m->b1 = m->w1 + l * f * w, m->w2 = m->b1 + l * f;
	m->b2 = m->w2 + l * w * f, m->n_own = m->b2 + l * w * (f > 0);
	m->n_params = m->n_own;
	for (int i = 0; i < m->n_layers; i++)
		m->n_params += td_block_n_params(m->block[i]);
	m->params = calloc(m->n_params, sizeof *m->params);
	m->grads = calloc(m->n_params, sizeof *m->grads);
	m->groups = calloc(10 + l * MAX_GROUPS_PER_LAYER, sizeof *m->groups);
	if (!m->params || !m->grads || !m->groups)
		return TD_FAIL(TD_ENOMEM, "out of memory for %zu parameters", m->n_params);
	add_group(m, "embed.w", m->we, w * m->o.in), add_group(m, "embed.b", m->be, w);
	add_group(m, "norm.gain", m->gain, l * w);
	add_group(m, "head.w", m->wo, m->bo - m->wo), add_group(m, "head.b", m->bo, m->o.out);
	if (f) {
		add_group(m, "ffn.gain", m->g2, l * w), add_group(m, "ffn.w1", m->w1, l * f * w);
		add_group(m, "ffn.b1", m->b1, l * f), add_group(m, "ffn.w2", m->w2, l * w * f);
		add_group(m, "ffn.b2", m->b2, l * w);
	}
	at = m->n_own;
	for (int i = 0; i < m->n_layers; i++) {
		td_block *b = m->block[i];
		char name[48];

		if ((err = td_block_use_slabs(b, m->params + at, m->grads + at)))
			return err;
		for (size_t k = 0; k < td_block_n_groups(b); k++) {
			td_param_group g = td_block_group(b, k);

			snprintf(name, sizeof name, "layer%d.%.24s", i, g.name);
			add_group(m, name, (size_t)(g.value - m->params), g.count);
		}
		at += td_block_n_params(b);
	}
	return 0;
}

static int build_ws(td_model *m)
{
	const size_t r = m->rows, w = m->o.width, l = (size_t)m->n_layers, f = m->o.ffn;

	m->ws_len = r * m->o.in + (l + 1) * r * w + l * r + 4 * r * w + r * m->o.out +
		    max3(w, m->o.out, f) + l * r * w * (f > 0) + l * r * (f > 0) + l * r * f +
		    2 * r * f;
	if (!(m->ws = td_reals_alloc(m->ws_len)))
		return TD_FAIL(TD_ENOMEM, "out of memory for a %zu-value model workspace",
			       m->ws_len);
	return 0;
}

int td_model_new(td_model **out, const td_lattice *lat, const td_model_opts *opts)
{
	td_model *m;
	int layers = 0, err;

	*out = NULL;
	if (!lat || !opts)
		return TD_FAIL(TD_EINVAL, "%s is NULL", !lat ? "lat" : "opts");
	if ((err = check_opts(opts, &layers)))
		return err;
	if (!(m = calloc(1, sizeof *m)))
		return TD_FAIL(TD_ENOMEM, "out of memory for a model");
	m->o = *opts, m->o.plan = NULL, m->o.mixer.channels = opts->width;
	m->lat = lat, m->n_layers = layers, m->n_cells = td_lattice_n_cells(lat);
	m->rows = opts->max_batch * m->n_cells;
	if ((err = td_counters_new(&m->counters, 8)) || (err = count_override(m, opts)) ||
	    (err = td_lattice_mask(lat, &m->mask)) || (err = build_blocks(m, opts->plan)) ||
	    (err = build_slabs(m)) || (err = build_ws(m))) {
		td_model_free(m);
		return err;
	}
	*out = m;
	return 0;
}

void td_model_free(td_model *m)
{
	if (!m)
		return;
	for (int i = 0; m->block && i < m->n_layers; i++)
		td_block_free(m->block[i]);
	free(m->block);
	free(m->ws);
	free(m->groups);
	free(m->params);
	free(m->grads);
	free(m->mask);
	td_counters_free(m->counters);
	free(m);
}

void td_model_init(td_model *m, uint64_t seed)
{
	const size_t w = m->o.width, l = (size_t)m->n_layers, f = m->o.ffn;

	td_rng_fill_normal(seed, 1, 0, w * m->o.in, 0, (td_real)(1 / sqrt((double)m->o.in)),
			   m->params + m->we);
	/* a bias keeps a narrow input's magnitude visible through the first norm */
	td_rng_fill_normal(seed, 2, 0, w, 0, 1, m->params + m->be);
	for (size_t i = 0; i < l * w; i++)
		m->params[m->gain + i] = 1;
	td_rng_fill_normal(seed, 4, 0, m->bo - m->wo, 0, (td_real)(1 / sqrt((double)w)),
			   m->params + m->wo);
	memset(m->params + m->bo, 0, m->o.out * sizeof *m->params);
	for (size_t i = 0; f && i < l * w; i++)
		m->params[m->g2 + i] = 1;
	td_rng_fill_normal(seed, 5, 0, l * f * w, 0, (td_real)(1 / sqrt((double)w)),
			   m->params + m->w1);
	memset(m->params + m->b1, 0, l * f * sizeof *m->params);
	td_rng_fill_normal(seed, 6, 0, l * w * f, 0, (td_real)(1 / sqrt((double)(f ? f : 1))),
			   m->params + m->w2);
	memset(m->params + m->b2, 0, l * w * (f > 0) * sizeof *m->params);
	for (int i = 0; i < m->n_layers; i++)
		td_block_init(m->block[i], seed, (uint64_t)(i + 1) << 20);
}

/* out [rows][n] = in [rows][k] W^T + bias, W stored [n][k]. */
static int linear(const td_model *m, td_real *out, const td_real *in, size_t rows, size_t n,
		  size_t k, const td_real *wt, const td_real *bias)
{
	td_gemm_opts o = TD_GEMM_OPTS_INIT;
	int err;

	o.trans_b = 1, o.threads = m->o.mixer.threads;
	if ((err = td_gemm(out, n, in, k, wt, k, rows, n, k, &o)))
		return err;
	for (size_t r = 0; r < rows; r++)
		for (size_t j = 0; j < n; j++)
			out[r * n + j] += bias[j];
	return 0;
}

/*
 * The backward of linear given g [rows][n] (selected): dW += g^T in,
 * dbias += column sums of g (summed whole in sum first), and, when din is
 * not NULL, din = g W.
 */
static int linear_back(const td_model *m, td_real *din, const td_real *g, const td_real *in,
		       size_t rows, size_t n, size_t k, size_t w_off, size_t b_off, td_real *sum)
{
	td_gemm_opts acc = TD_GEMM_OPTS_INIT, put = TD_GEMM_OPTS_INIT;
	int err;

	acc.trans_a = 1, acc.beta = 1, acc.threads = put.threads = m->o.mixer.threads;
	if ((err = td_gemm(m->grads + w_off, k, g, n, in, k, n, k, rows, &acc)))
		return err;
	memset(sum, 0, n * sizeof *sum);
	for (size_t r = 0; r < rows; r++)
		for (size_t j = 0; j < n; j++)
			sum[j] += g[r * n + j];
	for (size_t j = 0; j < n; j++)
		m->grads[b_off + j] += sum[j];
	return din ? td_gemm(din, k, g, n, m->params + w_off, k, rows, k, n, &put) : 0;
}

/* Whether no cell can be absent, on the lattice or in an example. */
static int no_absent(const td_model *m)
{
	return !m->emask && td_lattice_n_present(m->lat) == m->n_cells;
}

/* One pass over the cells of a batch, shared by threads in ranges of cells (flat e * n_cells + c). */
typedef struct {
	const td_model *m;
	size_t w;
	td_real *dst;
	const td_real *a, *b; /* b NULL: select dst in place */
	td_real *n, *inv;     /* not NULL: dst's rows normed too (td_rmsnorm_row) */
	const td_real *gain;
} cells_job;

static int select_cells(void *arg, size_t i0, size_t i1)
{
	const cells_job *j = arg;
	const td_model *m = j->m;

	if (j->b && no_absent(m)) {
		/* no cell absent: the add alone (dst may be a), and each row's norm if asked */
		for (size_t i = i0; i < i1; i++) {
			td_real *dst = j->dst + i * j->w;
			const td_real *a = j->a + i * j->w, *b = j->b + i * j->w;

			for (size_t k = 0; k < j->w; k++)
				dst[k] = a[k] + b[k];
			if (j->n) /* the row is still in the caches */
				td_rmsnorm_row(j->n + i * j->w, j->inv + i, dst, j->gain, j->w);
		}
		return 0;
	}
	for (size_t i = i0; i < i1; i++) {
		const size_t at = i * j->w;
		const int keep = m->mask[i % m->n_cells] && (!m->emask || m->emask[i]);

		if (!keep)
			for (size_t k = 0; k < j->w; k++)
				j->dst[at + k] = 0;
		else if (j->b)
			for (size_t k = 0; k < j->w; k++)
				j->dst[at + k] = j->a[at + k] + j->b[at + k];
		if (j->n) /* the row is still in the caches */
			td_rmsnorm_row(j->n + at, j->inv + i, j->dst + at, j->gain, j->w);
	}
	return 0;
}

/*
 * buf [batch][n_cells][channels]: cells absent on the lattice or in their
 * example become 0. Nothing to do when no cell can be absent.
 */
static int model_select(const td_model *m, size_t batch, size_t channels, td_real *buf)
{
	cells_job j = {m, channels, buf, buf, NULL, NULL, NULL, NULL};
	int err;

	if (no_absent(m))
		return 0;
	err = td_pool_ranges(m->o.mixer.threads, batch * m->n_cells, select_cells, &j);
	TD_REQUIRE(err == 0); /* select_cells never fails, and the pool fails only where it does */
	return 0;
}

/*
 * dst [batch][n_cells][w] = a + b where the cell is present (on the
 * lattice, and in its example's mask if there is one), else 0: the
 * residual add and the selection after it in one pass. dst may be a.
 * With n not NULL, the same pass norms each row of dst into n and inv
 * (td_rmsnorm_row with gain): the next layer's norm without a read of
 * its own.
 */
static int add_select(const td_model *m, size_t batch, size_t w, td_real *dst, const td_real *a,
		      const td_real *b, td_real *n, td_real *inv, const td_real *gain)
{
	cells_job j = {m, w, dst, a, b, n, inv, gain};
	int err = td_pool_ranges(m->o.mixer.threads, batch * m->n_cells, select_cells, &j);

	TD_REQUIRE(err == 0); /* as in model_select */
	return 0;
}

int td_model_set_example_mask(td_model *m, const uint8_t *mask)
{
	for (int l = 0; l < m->n_layers; l++) {
		int err = td_block_set_example_mask(m->block[l], mask);

		if (err) {
			for (int k = 0; k < l; k++) /* all or nothing */
				td_block_set_example_mask(m->block[k], m->emask);
			return err;
		}
	}
	m->emask = mask;
	return 0;
}

static int check_call(const td_model *m, const void *out, const void *in, size_t batch)
{
	if (!out || !in)
		return TD_FAIL(TD_EINVAL, "%s is NULL", !out ? "the output" : "the input");
	if (batch < 1 || batch > m->o.max_batch)
		return TD_FAIL(TD_EINVAL, "batch %zu is outside 1..%zu (the model's max_batch)",
			       batch, m->o.max_batch);
	return 0;
}

/*
 * The layer after l's norm, made in the pass that makes its input (h[l+1]):
 * n, inv and gain for add_select, or NULLs after the last layer.
 */
static void next_norm(const td_model *m, const model_ws *s, int l, td_real **n, td_real **inv,
		      const td_real **gain)
{
	const size_t next = (size_t)l + 1;

	*n = *inv = NULL, *gain = NULL;
	if (l + 1 < m->n_layers)
		*n = s->n, *inv = s->inv + next * m->rows, *gain = m->params + m->gain + next * m->o.width;
}

/*
 * Layer l's MLP sublayer: next = select(hm + W2 relu(W1 rmsnorm'(hm) + b1) +
 * b2), rmsnorm'(hm) already in s->n (layer_forward's add_select made it).
 */
static int ffn_forward(td_model *m, const model_ws *s, int l, size_t batch, td_real *next)
{
	const size_t w = m->o.width, f = m->o.ffn, r = batch * m->n_cells, lu = (size_t)l;
	const td_real *hm = s->hm + lu * m->rows * w, *gain;
	td_real *pre = s->pre + lu * m->rows * f, *n, *inv;
	int err;

	if ((err = linear(m, pre, s->n, r, f, w, m->params + m->w1 + lu * f * w,
			  m->params + m->b1 + lu * f)))
		return err;
	for (size_t i = 0; i < r * f; i++)
		s->act[i] = pre[i] > 0 ? pre[i] : 0;
	if ((err = linear(m, s->u, s->act, r, w, f, m->params + m->w2 + lu * w * f,
			  m->params + m->b2 + lu * w)))
		return err;
	next_norm(m, s, l, &n, &inv, &gain);
	return add_select(m, batch, w, next, hm, s->u, n, inv, gain);
}

/*
 * h[l+1] = select(m + MLP(m)) with m = select(h[l] + block_l(rmsnorm_l(h[l]))).
 * rmsnorm_l(h[l]) is in s->n already but for layer 0: each layer's last
 * add_select norms the rows it makes for the next norm that reads them
 * (the MLP's, then the next layer's), while they are in the caches.
 */
static int layer_forward(td_model *m, const model_ws *s, int l, size_t batch)
{
	const size_t w = m->o.width, r = batch * m->n_cells, at = (size_t)l * m->rows * w;
	td_real *h = s->h + at, *next = h + m->rows * w;
	td_real *mid = m->o.ffn ? s->hm + at : next, *n, *inv;
	const td_real *gain;
	int err;

	if (l == 0 && (err = td_rmsnorm_forward(s->n, s->inv, h, m->params + m->gain, r, w,
						m->o.mixer.threads)))
		return err;
	if ((err = td_block_forward(m->block[l], s->u, s->n, batch)))
		return err;
	if (m->o.ffn)
		n = s->n, inv = s->inv2 + (size_t)l * m->rows, gain = m->params + m->g2 + (size_t)l * w;
	else
		next_norm(m, s, l, &n, &inv, &gain);
	if ((err = add_select(m, batch, w, mid, h, s->u, n, inv, gain)))
		return err;
	return m->o.ffn ? ffn_forward(m, s, l, batch, next) : 0;
}

/* y [rows][out] = W_o[cell] h + b_o, one weight matrix per cell. */
static void head_per_cell(const td_model *m, td_real *y, const td_real *h, size_t batch)
{
	const size_t w = m->o.width, k = m->o.out;

	for (size_t b = 0; b < batch; b++)
		for (size_t c = 0; c < m->n_cells; c++) {
			const td_real *hc = h + (b * m->n_cells + c) * w;
			const td_real *wc = m->params + m->wo + c * k * w;
			td_real *yc = y + (b * m->n_cells + c) * k;

			for (size_t j = 0; j < k; j++) {
				td_real a = m->params[m->bo + j];

				for (size_t i = 0; i < w; i++)
					a += wc[j * w + i] * hc[i];
				yc[j] = a;
			}
		}
}

/* The head's backward given g [rows][out] (selected): gradients added, dh written. */
static void head_per_cell_back(td_model *m, td_real *dh, const td_real *g, const td_real *h,
			       size_t batch, td_real *sum)
{
	const size_t w = m->o.width, k = m->o.out;

	memset(sum, 0, k * sizeof *sum);
	for (size_t c = 0; c < m->n_cells; c++) {
		const td_real *wc = m->params + m->wo + c * k * w;
		td_real *dwc = m->grads + m->wo + c * k * w;

		for (size_t b = 0; b < batch; b++) {
			const size_t row = b * m->n_cells + c;

			for (size_t i = 0; i < w; i++)
				dh[row * w + i] = 0;
			for (size_t j = 0; j < k; j++) {
				const td_real gj = g[row * k + j];

				sum[j] += gj;
				for (size_t i = 0; i < w; i++) {
					dwc[j * w + i] += gj * h[row * w + i];
					dh[row * w + i] += gj * wc[j * w + i];
				}
			}
		}
	}
	for (size_t j = 0; j < k; j++)
		m->grads[m->bo + j] += sum[j];
}

int td_model_forward(td_model *m, td_real *y, const td_real *x, size_t batch)
{
	const size_t r = batch * m->n_cells, w = m->o.width;
	model_ws s = carve(m);
	int err = check_call(m, y, x, batch);

	if (err)
		return err;
	memcpy(s.xs, x, r * m->o.in * sizeof *x);
	if ((err = model_select(m, batch, m->o.in, s.xs)) ||
	    (err = linear(m, s.h, s.xs, r, w, m->o.in, m->params + m->we, m->params + m->be)) ||
	    (err = model_select(m, batch, w, s.h)))
		return err;
	for (int l = 0; l < m->n_layers && !err; l++)
		err = layer_forward(m, &s, l, batch);
	if (err)
		return err;
	if (m->o.head_per_cell)
		head_per_cell(m, y, s.h + (size_t)m->n_layers * m->rows * w, batch);
	else if ((err = linear(m, y, s.h + (size_t)m->n_layers * m->rows * w, r, m->o.out, w,
			       m->params + m->wo, m->params + m->bo)))
		return err;
	return model_select(m, batch, m->o.out, y);
}

/* Given g = dL/dh[l+1] (selected): g becomes dL/dm_l, selected. */
static int ffn_backward(td_model *m, const model_ws *s, int l, size_t batch)
{
	const size_t w = m->o.width, f = m->o.ffn, r = batch * m->n_cells, lu = (size_t)l;
	const td_real *hm = s->hm + lu * m->rows * w, *pre = s->pre + lu * m->rows * f;
	const size_t go = m->g2 + lu * w;
	int err;

	for (size_t i = 0; i < r * f; i++)
		s->act[i] = pre[i] > 0 ? pre[i] : 0;
	if ((err = linear_back(m, s->dact, s->g, s->act, r, w, f, m->w2 + lu * w * f,
			       m->b2 + lu * w, s->sum)))
		return err;
	for (size_t i = 0; i < r * f; i++)
		s->dact[i] = pre[i] > 0 ? s->dact[i] : 0;
	/* the norm's output again, from the saved input: the forward's bytes */
	if ((err = td_rmsnorm_forward(s->n, s->inv2 + lu * m->rows, hm, m->params + go, r, w,
				      m->o.mixer.threads)) ||
	    (err = linear_back(m, s->gn, s->dact, s->n, r, f, w, m->w1 + lu * f * w, m->b1 + lu * f,
			       s->sum)))
		return err;
	/* g += the norm's dx: the residual path, then the selection */
	if ((err =
		 td_rmsnorm_backward(s->g, m->grads + go, s->sum, s->gn, hm, s->inv2 + lu * m->rows,
				     m->params + go, r, w, m->o.mixer.threads, 1)))
		return err;
	return model_select(m, batch, w, s->g);
}

/* Given g = dL/dh[l+1] (selected): g becomes dL/dh[l], selected. */
static int layer_backward(td_model *m, const model_ws *s, int l, size_t batch)
{
	const size_t w = m->o.width, r = batch * m->n_cells, at = (size_t)l * m->rows * w;
	const size_t go = m->gain + (size_t)l * w;
	int err;

	if (m->o.ffn && (err = ffn_backward(m, s, l, batch)))
		return err;
	if ((err = td_block_backward(m->block[l], s->gn, s->g, batch)))
		return err;
	if ((err = td_rmsnorm_backward(s->g, m->grads + go, s->sum, s->gn, s->h + at,
				       s->inv + (size_t)l * m->rows, m->params + go, r, w,
				       m->o.mixer.threads, 1)))
		return err;
	return model_select(m, batch, w, s->g);
}

int td_model_backward(td_model *m, td_real *dx, const td_real *dy, size_t batch)
{
	const size_t r = batch * m->n_cells, w = m->o.width;
	model_ws s = carve(m);
	int err = check_call(m, dy, dy, batch); /* dx may be NULL */

	if (err)
		return err;
	memcpy(s.gy, dy, r * m->o.out * sizeof *dy);
	if ((err = model_select(m, batch, m->o.out, s.gy)))
		return err;
	if (m->o.head_per_cell)
		head_per_cell_back(m, s.g, s.gy, s.h + (size_t)m->n_layers * m->rows * w, batch,
				   s.sum);
	else if ((err = linear_back(m, s.g, s.gy, s.h + (size_t)m->n_layers * m->rows * w, r,
				    m->o.out, w, m->wo, m->bo, s.sum)))
		return err;
	if ((err = model_select(m, batch, w, s.g)))
		return err;
	for (int l = m->n_layers; l-- > 0 && !err;)
		err = layer_backward(m, &s, l, batch);
	if (err || (err = linear_back(m, dx, s.g, s.xs, r, w, m->o.in, m->we, m->be, s.sum)))
		return err;
	return dx ? model_select(m, batch, m->o.in, dx) : 0;
}

size_t td_model_n_params(const td_model *m)
{
	return m->n_params;
}

td_real *td_model_params(td_model *m)
{
	return m->params;
}

td_real *td_model_grads(td_model *m)
{
	return m->grads;
}

void td_model_zero_grads(td_model *m)
{
	memset(m->grads, 0, m->n_params * sizeof *m->grads);
}

size_t td_model_n_groups(const td_model *m)
{
	return m->n_groups;
}

td_param_group td_model_group(const td_model *m, size_t i)
{
	td_param_group none = {"", NULL, NULL, 0};

	return i < m->n_groups ? m->groups[i] : none;
}

const td_model_opts *td_model_options(const td_model *m)
{
	return &m->o;
}

int td_model_n_layers(const td_model *m)
{
	return m->n_layers;
}

td_block *td_model_block(const td_model *m, int i)
{
	return i >= 0 && i < m->n_layers ? m->block[i] : NULL;
}

size_t td_model_in(const td_model *m)
{
	return m->o.in;
}

size_t td_model_out(const td_model *m)
{
	return m->o.out;
}

size_t td_model_width(const td_model *m)
{
	return m->o.width;
}

const td_real *td_model_stream(const td_model *m, int l)
{
	if (l < 0 || l > m->n_layers)
		return NULL;
	return carve(m).h + (size_t)l * m->rows * m->o.width;
}

const td_counters *td_model_counters(const td_model *m)
{
	return m->counters;
}
