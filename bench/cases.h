/*
 * bench/cases.h - the cases bench/core times, and what each one costs.
 *
 * bench/core.c runs them at the bench's shape (BENCH_SHAPE); a test can
 * run them at a smaller one.
 *
 * A shape is the lattice and the models' sizes:
 *   mixer/KIND          one bare mixer swept along the rows (batch * side
 *                       lines of length side)
 *   scan/KIND           one axial scan block sweeping w (the same lines)
 *   kernel/KIND         one axial kernel block: h and w contracted, then
 *                       the mixer over every cell as a line of length 1
 *   flatten/KIND        one flatten block: each image one line of side^2
 *   model-FAMILY/KIND   a whole model (model.c): embedding from 1 input
 *                       channel, layers of RMSNorm + block + residual, a
 *                       head of out outputs; scan layers sweep h, w, h
 *                       reversed, w reversed (tdtrain's default plan)
 * for KIND in lru, conv (taps), gru, lstm, attention (heads, not causal).
 */
#ifndef TD_BENCH_CASES_H
#define TD_BENCH_CASES_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../core/block.h"
#include "../core/mixer.h"
#include "../core/model.h"
#include "../core/plan.h"
#include "../core/tensor.h"

typedef struct {
	size_t batch, side, width, heads, taps, out;
	int layers;
} bench_shape;

#define BENCH_SHAPE                                                                                \
	{                                                                                          \
		32, 28, 32, 4, 4, 10, 4                                                            \
	}

typedef enum { BARE, BLOCK, MODEL } level;

typedef struct {
	level lv;
	td_block_family fam; /* BLOCK, MODEL */
	td_mixer_kind kind;
	char name[32];
} bench_case;

static const struct {
	const char *name;
	td_mixer_kind kind;
} kinds[] = {{"lru", TD_MIXER_LRU},
	     {"conv", TD_MIXER_CONV},
	     {"gru", TD_MIXER_GRU},
	     {"lstm", TD_MIXER_LSTM},
	     {"attention", TD_MIXER_ATTENTION}};
static const char *const family_names[] = {"", "scan", "kernel", "flatten"};

#define N_KINDS (sizeof kinds / sizeof kinds[0])
#define N_CASES (N_KINDS + 2 * 3 * N_KINDS)

/* Every case, into v (N_CASES of them); returns how many. */
static size_t make_cases(bench_case *v)
{
	size_t n = 0;

	for (size_t k = 0; k < N_KINDS; k++, n++) {
		v[n] = (bench_case){BARE, TD_BLOCK_SCAN, kinds[k].kind, ""};
		snprintf(v[n].name, sizeof v[n].name, "mixer/%s", kinds[k].name);
	}
	for (int lv = BLOCK; lv <= MODEL; lv++)
		for (int f = TD_BLOCK_SCAN; f <= TD_BLOCK_FLATTEN; f++)
			for (size_t k = 0; k < N_KINDS; k++, n++) {
				v[n] =
				    (bench_case){(level)lv, (td_block_family)f, kinds[k].kind, ""};
				snprintf(v[n].name, sizeof v[n].name, "%s%s/%s",
					 lv == MODEL ? "model-" : "", family_names[f],
					 kinds[k].name);
			}
	return n;
}

/* The side x side lattice, axes h and w. */
static int bench_lattice(td_lattice **out, const bench_shape *sh)
{
	const size_t shape[] = {sh->side, sh->side};
	static const char *const hw[] = {"h", "w"};
	td_lattice_spec spec = TD_LATTICE_SPEC_INIT;

	spec.rank = 2, spec.shape = shape, spec.names = hw;
	return td_lattice_new(out, &spec);
}

static td_mixer_opts mixer_opts(const bench_shape *sh, td_mixer_kind kind, int threads)
{
	td_mixer_opts o = TD_MIXER_OPTS_INIT;

	o.kind = kind, o.channels = sh->width, o.threads = threads;
	o.kernel_size = sh->taps, o.heads = sh->heads;
	return o;
}

/* What one case runs on: exactly one of mixer, block, model. */
typedef struct {
	const bench_shape *sh;
	td_mixer *mixer;
	td_block *block;
	td_model *model;
	td_plan *plan;
	td_real *ws; /* the bare mixer's workspace */
	size_t ws_len;
	size_t n_in, n_out; /* values of x (and dx), of y (and dy) */
} subject;

static void subject_free(subject *s)
{
	td_model_free(s->model);
	td_block_free(s->block);
	td_mixer_free(s->mixer);
	td_plan_free(s->plan);
	free(s->ws);
	memset(s, 0, sizeof *s);
}

static int model_new(subject *s, const bench_case *c, const td_lattice *lat, int threads)
{
	static const char *const hw[] = {"h", "w"};
	const bench_shape *sh = s->sh;
	td_model_opts o = TD_MODEL_OPTS_INIT;
	int err = 0;

	o.family = c->fam, o.mixer = mixer_opts(sh, c->kind, threads), o.mixer.channels = 0;
	o.in = 1, o.width = sh->width, o.out = sh->out, o.max_batch = sh->batch;
	o.n_layers = sh->layers;
	if (c->fam == TD_BLOCK_SCAN && !(err = td_plan_cyclic(&s->plan, hw, 2, sh->layers, hw, 2)))
		o.plan = s->plan, o.n_layers = 0;
	if (!err && !(err = td_model_new(&s->model, lat, &o)))
		td_model_init(s->model, 7);
	s->n_in = sh->batch * sh->side * sh->side, s->n_out = s->n_in * sh->out;
	return err;
}

/* Case c at shape sh on lat (sh's lattice) with that many threads; *s freed by subject_free. */
static int subject_new(subject *s, const bench_shape *sh, const bench_case *c,
		       const td_lattice *lat, int threads)
{
	td_block_opts b = TD_BLOCK_OPTS_INIT;
	int err;

	memset(s, 0, sizeof *s);
	s->sh = sh;
	s->n_in = s->n_out = sh->batch * sh->side * sh->side * sh->width;
	if (c->lv == MODEL)
		return model_new(s, c, lat, threads);
	if (c->lv == BARE) {
		td_mixer_opts o = mixer_opts(sh, c->kind, threads);

		if ((err = td_mixer_new(&s->mixer, &o)) ||
		    (err = td_mixer_ws_size(&s->ws_len, s->mixer, sh->batch * sh->side, sh->side)))
			return err;
		td_mixer_init(s->mixer, 7, 100);
		return (s->ws = td_reals_alloc(s->ws_len)) ? 0 : -1;
	}
	b.family = c->fam, b.mixer = mixer_opts(sh, c->kind, threads), b.max_batch = sh->batch;
	b.axis = c->fam == TD_BLOCK_SCAN ? "w" : NULL;
	if ((err = td_block_new(&s->block, lat, &b)))
		return err;
	td_block_init(s->block, 7, 100);
	return 0;
}

/* One forward and backward; gradients zeroed first. */
static int subject_step(subject *s, td_real *y, td_real *dx, const td_real *x, const td_real *dy)
{
	const size_t batch = s->sh->batch, side = s->sh->side;

	if (s->model) {
		td_model_zero_grads(s->model);
		return td_model_forward(s->model, y, x, batch) ||
		       td_model_backward(s->model, dx, dy, batch);
	}
	if (s->block) {
		td_block_zero_grads(s->block);
		return td_block_forward(s->block, y, x, batch) ||
		       td_block_backward(s->block, dx, dy, batch);
	}
	td_mixer_zero_grads(s->mixer);
	return td_mixer_forward(s->mixer, y, x, batch * side, side, s->ws, s->ws_len) ||
	       td_mixer_backward(s->mixer, dx, dy, batch * side, side, s->ws, s->ws_len);
}

/* ---- costs: floating-point operations and bytes per step ---------------------- */

/*
 * Counted per training step (forward + backward), from the shapes, for
 * what the code does: the GEMMs at 2 operations per multiply-add (gemm:
 * those done by td_gemm), the other loops at their arithmetic (an exp or
 * tanh counted as one), and bytes as the passes over activation-sized
 * arrays each function makes (reads and writes; a GEMM's small weight
 * matrix is taken to stay in cache). Estimates of the dominant terms, not
 * instruction counts.
 */
typedef struct {
	double gemm;   /* operations td_gemm does, included in flops */
	double flops;  /* every operation */
	double values; /* values moved; bytes = values * sizeof(td_real) */
} cost;

/*
 * The recurrent products a GRU or LSTM does not run, each of gate_ops
 * (2 x gates x H^2) per position: the forward's h_{t-1} U^T and the
 * backward's dh_{t-1} skip each line's first step, and on lines of one
 * step, where h_{t-1} is 0 throughout, dU is not computed either.
 */
static double recurrent_skips(double gate_ops, double lines, double length)
{
	return 2 * gate_ops * lines + (length == 1 ? gate_ops * lines : 0);
}

static cost mixer_cost(const bench_shape *sh, td_mixer_kind kind, double lines, double length)
{
	const double p = lines * length, c = (double)sh->width, t = length;
	const double nh = (double)sh->heads;
	double other = 0;
	cost k = {0, 0, 0};

	switch (kind) {
	case TD_MIXER_LRU: /* state N = C: 6 GEMMs of 2PNC; scans; the D skip */
		k.gemm = 12 * p * c * c, other = 6 * p * c + 4 * p * c;
		k.values = 15 * p * c + 12 * p * c;
		if (length == 1) /* one map M: y = x M, dM = x^T dy, dx = dy M^T; M, dB, dC */
			k.gemm = 6 * p * c * c, other = 6 * c * c * c, k.values = 7 * p * c;
		break;
	case TD_MIXER_CONV: /* K taps: forward 2PCK, backward dx and dw 4PCK, none in td_gemm */
		other = 6 * p * c * (double)sh->taps + p * c;
		k.values = 9 * p * c;
		break;
	case TD_MIXER_GRU: /* 6 GEMMs of 6PH^2, less the recurrent ones' skips (below) */
		k.gemm = 36 * p * c * c - recurrent_skips(6 * c * c, lines, length),
		other = 50 * p * c;
		k.values = 71 * p * c;
		break;
	case TD_MIXER_LSTM: /* as the GRU with 4 gates: 8 GEMMs of 8PH^2, less the skips */
		/* on one step, also f's quarter of x W^T and of dW (its gate multiplies 0) */
		k.gemm = 48 * p * c * c - recurrent_skips(8 * c * c, lines, length) -
			 (length == 1 ? 4 * p * c * c : 0),
		other = 60 * p * c;
		k.values = 90 * p * c;
		break;
	case TD_MIXER_CLRU: /* the LRU with real and imaginary halves: twice its GEMMs */
		k.gemm = 24 * p * c * c, other = 20 * p * c;
		k.values = 30 * p * c + 24 * p * c;
		if (length == 1) /* one real map, as the LRU's; M, dB and dC of both halves */
			k.gemm = 6 * p * c * c, other = 12 * c * c * c, k.values = 7 * p * c;
		break;
	case TD_MIXER_ATTENTION: /* projections 24PC^2; scores, mixing and their adjoints 12LT^2C */
		/*
		 * on lines of one step, v and the output's projections and their
		 * gradients alone: the softmax over one key is 1 (mixer_attention.c's
		 * one-step path, which finite data of the bench's scale takes)
		 */
		k.gemm = t == 1 ? 12 * p * c * c : 24 * p * c * c;
		other = 12 * lines * t * t * c + 8 * lines * nh * t * t + 10 * p * c;
		k.values = 33 * p * c + 3 * lines * nh * t * t;
		break;
	}
	k.flops = k.gemm + other;
	return k;
}

/* One block over the batch: the family's own work plus its mixer's. */
static cost block_cost(const bench_shape *sh, td_block_family fam, td_mixer_kind kind)
{
	const double n = (double)sh->side, p = (double)sh->batch * n * n, c = (double)sh->width;
	cost k;

	switch (fam) {
	case TD_BLOCK_SCAN: /* selections, fold and unfold, both ways */
		k = mixer_cost(sh, kind, (double)sh->batch * n, n);
		k.values += 20 * p * c;
		break;
	case TD_BLOCK_KERNEL: /* 2 axes: contraction 2n per value, adjoint 5n (dK and dz) */
		k = mixer_cost(sh, kind, p, 1);
		k.gemm += 2 * 6 * n * p * c; /* per axis the contraction, dz and dK's R Z^T */
		k.flops += 2 * 7 * n * p * c;
		k.values += 46 * p * c;
		break;
	default: /* FLATTEN: gather and scatter, both ways */
		k = mixer_cost(sh, kind, (double)sh->batch, n * n);
		k.values += 10 * p * c;
		break;
	}
	return k;
}

/* The model around its blocks: embedding, norms, residuals, selections, head. */
static cost model_cost(const bench_shape *sh, td_block_family fam, td_mixer_kind kind)
{
	const double p = (double)(sh->batch * sh->side * sh->side), w = (double)sh->width;
	const double layers = (double)sh->layers, out = (double)sh->out;
	cost b = block_cost(sh, fam, kind), k;

	/* the head and the embedding (1 input): forward, dW and dx, each a GEMM */
	k.flops = layers * (b.flops + 14 * p * w) + 6 * p * w * out + 6 * p * w;
	k.gemm = layers * b.gemm + 6 * p * w * out + 6 * p * w;
	k.values = layers * (b.values + 15 * p * w) + 4 * p * w + 4 * p * out + 4 * p;
	return k;
}

static cost cost_of(const bench_shape *sh, const bench_case *c)
{
	return c->lv == MODEL ? model_cost(sh, c->fam, c->kind)
	       : c->lv == BLOCK
		   ? block_cost(sh, c->fam, c->kind)
		   : mixer_cost(sh, c->kind, (double)(sh->batch * sh->side), (double)sh->side);
}

#endif
