/*
 * test_ops.c - the GPU kernels' bodies (kernels/ops.h) on the CPU, against
 * the core's own functions: bitwise where the body takes the core's
 * operations in the core's order, within a derived bound where it does
 * not (the norm taken in parts). Each comparison also runs a deliberately
 * wrong body, which must fail it: the negative control that shows the
 * comparison can see the kind of slip it is there for.
 *
 * The core's side: td_rmsnorm_forward and td_rmsnorm_backward (1 and 2
 * threads), td_attention_softmax_row (mixer_attention.c's own exp_sum),
 * td_train_xent, td_adamw_step and its td_adamw_last figures, the conv
 * mixer's forward and backward, the LRU mixer's (its bodies composed
 * with td_gemm as lru_forward and lru_backward compose them) and the
 * complex LRU's (likewise, clru_forward's and clru_backward's), the
 * recurrences' shift to h_{t-1} and sum of block parts
 * (td_mixer_shift_prev, td_mixer_add_parts), and
 * td_adamw_step's skips and counted reasons, and a scan block's forward
 * and backward (td_block_forward, td_block_backward); the ReLU has
 * no function of its own in the core, so its reference is model.c's two
 * expressions, copied (ffn_forward, ffn_backward).
 *
 * Edits that make them fail (each tried): TD_OPS_RMSNORM_EPS 1e-5; the
 * backward row's c with iv * iv; the softmax's lanes added 0..7 in a row;
 * td_op_relu `pre >= 0 ? pre : 0`; td_op_xent dividing by n_cells; the
 * norm's parts from i0 + 1; td_op_clip_scale without its clip > 0; the
 * dgain sum as dy (x inv); td_op_adamw's v with gi in place of gi * gi;
 * td_op_conv_forward stopping a tap early (off >= t); td_op_conv_grad
 * skipping each line's first position; td_op_lru_dw without its minus;
 * td_op_lru_skip_grad from position 1; td_op_opt_decide's bc2 from t - 1;
 * the scan block's weight gradient summed over all lines in one chunk.
 * The complex LRU's test runs its own, one body swapped at a time:
 * lambda's parts swapped, the adjoint carried by lambda unconjugated,
 * dL/dlambda from conj(g) h, dtheta without its minus, dnu without its
 * factor exp(nu).
 */
#include "tdtest.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../core/adamw.h"
#include "../core/axial.h"
#include "../core/block.h"
#include "../core/counters.h"
#include "../core/gemm.h"
#include "../core/mixer_int.h"
#include "../core/norm.h"
#include "../core/train.h"
#include "../kernels/ops.h"

/* splitmix64: a fixed stream of test inputs. */
static uint64_t rng_state;

static double uniform(void) /* in [-1, 1) */
{
	uint64_t z = (rng_state += 0x9e3779b97f4a7c15u);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9u;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebu;
	return (double)((z ^ (z >> 31)) >> 11) / 4503599627370496.0 - 1;
}

static void fill(td_real *x, size_t n, double scale)
{
	for (size_t i = 0; i < n; i++)
		x[i] = (td_real)(scale * uniform());
}

/* Elements of a and b whose bits differ. */
static size_t bits_differ(const td_real *a, const td_real *b, size_t n)
{
	size_t d = 0;

	for (size_t i = 0; i < n; i++)
		d += memcmp(&a[i], &b[i], sizeof a[i]) != 0;
	return d;
}

static void *must(void *p)
{
	assert_non_null(p);
	return p;
}

/* ---- RMSNorm ---------------------------------------------------------------- */

typedef void rms_row_fn(td_real *, td_real *, const td_real *, const td_real *, size_t);

/* The negative control: eps 1e-5, not 1e-6. */
static void rms_row_wrong_eps(td_real *y, td_real *inv, const td_real *x, const td_real *gain,
			      size_t width)
{
	const td_real ivr = (td_real)(1 / sqrt(td_dot_fixed(x, x, width) / (double)width + 1e-5));

	*inv = ivr;
	for (size_t k = 0; k < width; k++)
		y[k] = x[k] * ivr * gain[k];
}

static void rms_row_body(td_real *y, td_real *inv, const td_real *x, const td_real *gain,
			 size_t width)
{
	td_op_rmsnorm_row(y, inv, x, gain, width);
}

/* Values of y and inv where row over rows x widths differs from td_rmsnorm_forward. */
static size_t rms_forward_differ(rms_row_fn *row)
{
	static const size_t widths[] = {1, 3, 8, 13, 64, 100};
	size_t differ = 0;

	rng_state = 1;
	for (size_t wi = 0; wi < sizeof widths / sizeof widths[0]; wi++) {
		const size_t w = widths[wi], rows = 7;
		td_real *x = must(malloc(rows * w * sizeof *x)), *g = must(malloc(w * sizeof *g));
		td_real *y = must(malloc(rows * w * sizeof *y)), *y2 = must(malloc(rows * w * sizeof *y));
		td_real inv[7], inv2[7];

		fill(x, rows * w, 2), fill(g, w, 1.5);
		assert_int_equal(td_rmsnorm_forward(y, inv, x, g, rows, w, 1), 0);
		for (size_t r = 0; r < rows; r++)
			row(y2 + r * w, inv2 + r, x + r * w, g, w);
		differ += bits_differ(y, y2, rows * w) + bits_differ(inv, inv2, rows);
		free(x), free(g), free(y), free(y2);
	}
	return differ;
}

static void test_the_rmsnorm_row_body_gives_the_cores_bits(void **state)
{
	(void)state;
	assert_int_equal(rms_forward_differ(rms_row_body), 0);
	assert_true(rms_forward_differ(rms_row_wrong_eps) > 0);
}

typedef void rms_back_fn(td_real *, const td_real *, const td_real *, td_real, const td_real *,
			 size_t, int);

/* The negative control: c = inv^2 (not inv^3) x the sum. */
static void rms_back_wrong_c(td_real *dx, const td_real *dy, const td_real *x, td_real ivr,
			     const td_real *gain, size_t width, int add)
{
	const double iv = (double)ivr, c = iv * iv * td_dot3_fixed(gain, dy, x, width) / (double)width;

	for (size_t k = 0; k < width; k++) {
		const td_real d = (td_real)(iv * (double)(td_real)(gain[k] * dy[k]) - c * (double)x[k]);

		dx[k] = add ? dx[k] + d : d;
	}
}

static void rms_back_body(td_real *dx, const td_real *dy, const td_real *x, td_real ivr,
			  const td_real *gain, size_t width, int add)
{
	td_op_rmsnorm_backward_row(dx, dy, x, ivr, gain, width, add);
}

/* Values of dx and dgain where the bodies differ from td_rmsnorm_backward (1 and 2 threads, add 0 and 1). */
static size_t rms_backward_differ(rms_back_fn *row)
{
	static const size_t widths[] = {1, 5, 16, 37, 64};
	size_t differ = 0;

	rng_state = 2;
	for (size_t wi = 0; wi < sizeof widths / sizeof widths[0]; wi++)
		for (int case_ = 0; case_ < 4; case_++) {
			const size_t w = widths[wi], rows = 19;
			const int threads = 1 + (case_ & 1), add = case_ >> 1;
			td_real *x = must(malloc(rows * w * sizeof *x)), *dy = must(malloc(rows * w * sizeof *x));
			td_real *y = must(malloc(rows * w * sizeof *x)), *g = must(malloc(w * sizeof *g));
			td_real *dx = must(malloc(rows * w * sizeof *x)), *dx2 = must(malloc(rows * w * sizeof *x));
			td_real *dg = must(malloc(w * sizeof *g)), *dg2 = must(malloc(w * sizeof *g));
			td_real *scratch = must(malloc(w * sizeof *g)), inv[19];

			fill(x, rows * w, 2), fill(dy, rows * w, 1), fill(g, w, 1.5);
			fill(dx, rows * w, 1), fill(dg, w, 0.5);
			memcpy(dx2, dx, rows * w * sizeof *dx), memcpy(dg2, dg, w * sizeof *dg);
			assert_int_equal(td_rmsnorm_forward(y, inv, x, g, rows, w, 1), 0);
			assert_int_equal(td_rmsnorm_backward(dx, dg, scratch, dy, x, inv, g, rows, w, threads, add), 0);
			for (size_t r = 0; r < rows; r++)
				row(dx2 + r * w, dy + r * w, x + r * w, inv[r], g, w, add);
			for (size_t k = 0; k < w; k++)
				td_op_rmsnorm_dgain(dg2, dy, x, inv, rows, w, k);
			differ += bits_differ(dx, dx2, rows * w) + bits_differ(dg, dg2, w);
			free(x), free(dy), free(y), free(g), free(dx), free(dx2), free(dg), free(dg2);
			free(scratch);
		}
	return differ;
}

static void test_the_rmsnorm_backward_bodies_give_the_cores_bits(void **state)
{
	(void)state;
	assert_int_equal(rms_backward_differ(rms_back_body), 0);
	assert_true(rms_backward_differ(rms_back_wrong_c) > 0);
}

/* ---- softmax ------------------------------------------------------------------ */

typedef void softmax_fn(td_real *, const td_real *, size_t);

/* The negative control: one running sum, j = 0, 1, ..., in place of the eight lanes. */
static void softmax_one_sum(td_real *w, const td_real *s, size_t n)
{
	td_real mx = (td_real)-INFINITY, sum = 0;

	for (size_t j = 0; j < n; j++)
		mx = s[j] > mx ? s[j] : mx;
	for (size_t j = 0; j < n; j++)
		sum += w[j] = td_exp(s[j] - mx);
	for (size_t j = 0; j < n; j++)
		w[j] /= sum;
}

/*
 * Weights where body differs from the attention's softmax over rows of
 * 1 .. 70 keys, each row padded with -infinity to a multiple of 8 for the
 * core (as the attention stores them), scores up to 8 in magnitude.
 */
static size_t softmax_differ(softmax_fn *body)
{
	size_t differ = 0;

	rng_state = 3;
	for (size_t n = 1; n <= 70; n++) {
		const size_t np = (n + 7) / 8 * 8;
		td_real s[72], w[72], w2[72];

		fill(s, n, 8);
		for (size_t j = n; j < np; j++)
			s[j] = (td_real)-INFINITY;
		td_attention_softmax_row(w, s, np);
		body(w2, s, n);
		differ += bits_differ(w, w2, n);
		for (size_t j = n; j < np; j++) /* the padding's weights are +0 */
			differ += w[j] != 0;
	}
	return differ;
}

static void test_the_softmax_body_gives_the_attention_softmax_bits(void **state)
{
	(void)state;
	assert_int_equal(softmax_differ(td_op_softmax_row), 0);
	assert_true(softmax_differ(softmax_one_sum) > 0);
}

/* ---- ReLU --------------------------------------------------------------------- */

static td_real relu_wrong(td_real pre)
{
	return pre >= 0 ? pre : 0; /* keeps -0 */
}

static td_real relu_body(td_real pre)
{
	return td_op_relu(pre);
}

static td_real relu_back_wrong(td_real pre, td_real d)
{
	return pre < 0 ? 0 : d; /* passes NaN's and -0's gradients */
}

static td_real relu_back_body(td_real pre, td_real d)
{
	return td_op_relu_backward(pre, d);
}

/* Values where the bodies differ from model.c's expressions on signed zeros, NaN, infinities, denormals and random values. */
static size_t relu_differ(td_real (*fwd)(td_real), td_real (*bwd)(td_real, td_real))
{
	td_real pre[64], d[64];
	size_t differ = 0;

	rng_state = 4;
	fill(pre, 64, 3), fill(d, 64, 1);
	pre[0] = 0, pre[1] = -(td_real)0, pre[2] = (td_real)NAN, pre[3] = (td_real)INFINITY;
	pre[4] = -(td_real)INFINITY, pre[5] = (td_real)(TD_REAL_EPSILON * 1e-300);
	for (size_t i = 0; i < 64; i++) {
		const td_real act = pre[i] > 0 ? pre[i] : 0;	   /* model.c, ffn_forward */
		const td_real dact = pre[i] > 0 ? d[i] : 0; /* model.c, ffn_backward */
		const td_real a2 = fwd(pre[i]), d2 = bwd(pre[i], d[i]);

		differ += bits_differ(&act, &a2, 1) + bits_differ(&dact, &d2, 1);
	}
	return differ;
}

static void test_the_relu_bodies_match_the_models_expressions(void **state)
{
	(void)state;
	assert_int_equal(relu_differ(relu_body, relu_back_body), 0);
	assert_true(relu_differ(relu_wrong, relu_back_body) > 0);
	assert_true(relu_differ(relu_body, relu_back_wrong) > 0);
}

/* ---- cross-entropy ------------------------------------------------------------- */

typedef double xent_fn(td_real *, int *, const td_real *, const uint8_t *, size_t, size_t, int,
		       double);

/* The negative control: the logits averaged over every cell, absent ones included. */
static double xent_all_cells(td_real *dy, int *best, const td_real *y, const uint8_t *present,
			     size_t n_cells, size_t k, int label, double scale)
{
	uint8_t all[64];

	memset(all, 1, sizeof all);
	(void)present;
	return td_op_xent(dy, best, y, all, n_cells, k, label, scale);
}

/* Values (dy, loss, best) where body differs from td_train_xent over shapes, masks and labels. */
static size_t xent_differ(xent_fn *body)
{
	static const size_t cells[] = {1, 7, 30, 64}, classes[] = {2, 10, 64};
	size_t differ = 0;

	rng_state = 5;
	for (size_t ci = 0; ci < 4; ci++)
		for (size_t ki = 0; ki < 3; ki++) {
			const size_t n = cells[ci], k = classes[ki];
			td_real y[64 * 64], dy[64 * 64], dy2[64 * 64];
			uint8_t present[64];
			const int label = (int)((uniform() + 1) / 2 * (double)k) % (int)k;
			int best, best2;
			double loss, loss2;

			fill(y, n * k, 4);
			for (size_t i = 0; i < n; i++)
				present[i] = n == 1 || uniform() > -0.5;
			loss = td_train_xent(dy, &best, y, present, n, k, label, 0.125);
			loss2 = body(dy2, &best2, y, present, n, k, label, 0.125);
			differ += bits_differ(dy, dy2, n * k) + (memcmp(&loss, &loss2, sizeof loss) != 0) +
				  (best != best2);
		}
	return differ;
}

static void test_the_cross_entropy_body_gives_td_train_xents_bits(void **state)
{
	td_real y[4] = {1, 2, 3, 4}, dy[4];
	uint8_t none[2] = {0, 0};
	int best = -1;

	(void)state;
	assert_int_equal(xent_differ(td_op_xent), 0);
	assert_true(xent_differ(xent_all_cells) > 0);
	/* no present cell: logits 0, loss log k, dy 0 */
	assert_true(fabs(td_op_xent(dy, &best, y, none, 2, 2, 1, 1) - log(2)) < 1e-15);
	assert_true(dy[0] == 0 && dy[3] == 0 && best == 0);
}

/* ---- the gradient norm and clipping ------------------------------------------------ */

/* The negative control: the parts summed in float. */
static double sumsq_in_float(const td_real *g, size_t i0, size_t i1)
{
	float sum = 0;

	for (size_t i = i0; i < i1; i++)
		sum += (float)g[i] * (float)g[i];
	return sum;
}

/* The sum of squares of g[n] in parts of part elements, each by sumsq, totalled in order. */
static double sum_in_parts(double (*sumsq)(const td_real *, size_t, size_t), const td_real *g,
			   size_t n, size_t part)
{
	double parts[512];
	size_t np = 0;

	for (size_t i0 = 0; i0 < n; i0 += part, np++) {
		assert_true(np < 512);
		parts[np] = sumsq(g, i0, n - i0 < part ? n : i0 + part);
	}
	return td_op_sumsq_total(parts, np);
}

/*
 * Whether the norm in parts of 97 (and of TD_OPS_NORM_PART) stays within
 * the bound of adamw.c's norm, and one part gives its bits. The bound: a
 * sum of n nonnegative terms, each exact in double (a float squared), taken
 * in any order in double, is within (n - 1) u S of the exact S (u =
 * 2^-53; Higham, Accuracy and Stability, 4.2); two such sums are within
 * 2 (n - 1) u S of each other, and the square root halves a relative
 * error, so the norms within (n - 1) u norm (plus the two roots' own half
 * ulps, well inside). The double build's squares are not exact; its bound
 * grows by n u S, inside the same factor 2 at these n.
 */
static int norm_within_bound(double (*sumsq)(const td_real *, size_t, size_t))
{
	enum { N = 30011 };
	const double u = 0x1p-53;
	td_real *p = must(calloc(N, sizeof *p)), *g = must(malloc(N * sizeof *g));
	td_adamw_opts o = TD_ADAMW_OPTS_INIT;
	td_adamw *a = NULL;
	int ok = 1;

	rng_state = 6;
	fill(g, N, 0.01);
	o.clip = 0.5;
	assert_int_equal(td_adamw_new(&a, N, &o), 0);
	assert_int_equal(td_adamw_step(a, p, g, NULL), 1);
	{
		const double want = td_adamw_last(a)->grad_norm;
		const double one = sqrt(sum_in_parts(sumsq, g, N, N));
		const double parts = sqrt(sum_in_parts(sumsq, g, N, 97));
		const double big = sqrt(sum_in_parts(sumsq, g, N, TD_OPS_NORM_PART));
		const double bound = (N - 1) * u * want;

		ok = one == want && fabs(parts - want) <= bound && fabs(big - want) <= bound &&
		     td_op_clip_scale(one, o.clip) == td_adamw_last(a)->scale;
		print_message("  norm %.17g; in parts of 97 off by %.3g, of %d by %.3g (bound %.3g)\n",
			      want, fabs(parts - want), TD_OPS_NORM_PART, fabs(big - want), bound);
	}
	td_adamw_free(a);
	free(p), free(g);
	return ok;
}

static void test_the_norm_in_parts_stays_within_its_bound_of_adamws(void **state)
{
	(void)state;
	assert_true(norm_within_bound(td_op_sumsq));
	assert_true(!norm_within_bound(sumsq_in_float));
	assert_true(td_op_clip_scale(2, 0) == 1 && td_op_clip_scale(0.5, 1) == 1 &&
		    td_op_clip_scale(4, 1) == 0.25);
}

/* ---- the causal convolution --------------------------------------------------- */

typedef void conv_fwd_fn(td_real *, const td_real *, const td_real *, const td_real *,
			 const td_op_conv *, size_t, size_t);
typedef void conv_dx_fn(td_real *, const td_real *, const td_real *, const td_op_conv *, size_t,
			size_t);
typedef void conv_grad_fn(td_real *, const td_real *, const td_real *, const td_op_conv *, size_t,
			  size_t, size_t);

/* The negative controls: the bias added last; dx's taps ascending in reverse too; dw per line. */
static void conv_fwd_bias_last(td_real *y, const td_real *x, const td_real *w, const td_real *bias,
			       const td_op_conv *s, size_t t, size_t k)
{
	td_op_conv_forward(y, x, w, (td_real[64]){0}, s, t, k);
	y[t * s->channels + k] += bias[k];
}

static void conv_dx_ascending(td_real *dx, const td_real *dy, const td_real *w,
			      const td_op_conv *s, size_t src, size_t k)
{
	const size_t c = s->channels, d = s->dilation;
	const size_t room = s->reverse ? src : s->length - 1 - src;
	td_real sum = 0;

	for (size_t i = 0; i < s->taps && i <= room / d; i++)
		sum += w[i * c + k] * dy[(s->reverse ? src - i * d : src + i * d) * c + k];
	dx[src * c + k] = sum;
}

static void conv_grad_per_line(td_real *g, const td_real *dy, const td_real *x,
			       const td_op_conv *s, size_t lines, size_t i, size_t k)
{
	const size_t per = s->length * s->channels;
	td_real sum = 0;

	for (size_t l = 0; l < lines; l++) {
		td_real one[5 * 64] = {0}; /* rows i <= K <= 4 of at most 64 channels */

		td_op_conv_grad(one, dy + l * per, x + l * per, s, 1, i, k);
		sum += one[i * s->channels + k];
	}
	g[i * s->channels + k] += sum;
}

/*
 * Values of y, dx and the weight and bias gradients where the bodies
 * differ from the conv mixer's forward and backward (threads 1 and 2),
 * over channels that take its vector paths and its scalar tail, 1 to 4
 * taps, dilations 1 to 3, both directions, and lines shorter than the
 * kernel's reach.
 */
static size_t conv_differ(conv_fwd_fn *fwd, conv_dx_fn *dxf, conv_grad_fn *grad)
{
	static const size_t chans[] = {1, 5, 8, 37, 40}, lengths[] = {1, 4, 11};
	const size_t lines = 3;
	size_t differ = 0;

	rng_state = 9;
	for (size_t ci = 0; ci < 5; ci++)
		for (size_t li = 0; li < 3; li++)
			for (int case_ = 0; case_ < 48; case_++) {
				const size_t c = chans[ci], len = lengths[li], n = lines * len * c;
				td_mixer_opts o = TD_MIXER_OPTS_INIT;
				td_op_conv s;
				td_mixer *m = NULL;
				td_real *x, *y, *y2, *dy, *dx, *dx2, *ws, *g2;
				size_t ws_len;

				o.kind = TD_MIXER_CONV, o.channels = c, o.kernel_size = 1 + case_ % 4;
				o.dilation = 1 + case_ / 4 % 3, o.reverse = case_ / 12 % 2;
				o.threads = 1 + case_ / 24;
				s = (td_op_conv){o.kernel_size, o.dilation, c, len, o.reverse};
				assert_int_equal(td_mixer_new(&m, &o), 0);
				td_mixer_init(m, 5, 0);
				assert_int_equal(td_mixer_tensor_at(m, 1)->offset, o.kernel_size * c);
				fill(td_mixer_params(m) + o.kernel_size * c, c, 0.5); /* a bias not 0 */
				assert_int_equal(td_mixer_ws_size(&ws_len, m, lines, len), 0);
				x = must(malloc(n * sizeof *x)), y = must(malloc(n * sizeof *x));
				y2 = must(malloc(n * sizeof *x)), dy = must(malloc(n * sizeof *x));
				dx = must(malloc(n * sizeof *x)), dx2 = must(malloc(n * sizeof *x));
				ws = must(malloc(ws_len * sizeof *ws));
				g2 = must(calloc(td_mixer_n_params(m), sizeof *g2));
				fill(x, n, 2), fill(dy, n, 1);
				assert_int_equal(td_mixer_forward(m, y, x, lines, len, ws, ws_len), 0);
				assert_int_equal(td_mixer_backward(m, dx, dy, lines, len, ws, ws_len), 0);
				for (size_t l = 0; l < lines; l++)
					for (size_t t = 0; t < len; t++)
						for (size_t k = 0; k < c; k++) {
							fwd(y2 + l * len * c, x + l * len * c,
							    td_mixer_params(m),
							    td_mixer_params(m) + o.kernel_size * c, &s, t,
							    k);
							dxf(dx2 + l * len * c, dy + l * len * c,
							    td_mixer_params(m), &s, t, k);
						}
				for (size_t i = 0; i <= o.kernel_size; i++)
					for (size_t k = 0; k < c; k++)
						grad(g2, dy, x, &s, lines, i, k);
				differ += bits_differ(y, y2, n) + bits_differ(dx, dx2, n) +
					  bits_differ(td_mixer_grads(m), g2, td_mixer_n_params(m));
				td_mixer_free(m);
				free(x), free(y), free(y2), free(dy), free(dx), free(dx2), free(ws), free(g2);
			}
	return differ;
}

static void test_the_conv_bodies_give_the_conv_mixers_bits(void **state)
{
	(void)state;
	assert_int_equal(conv_differ(td_op_conv_forward, td_op_conv_dx, td_op_conv_grad), 0);
	assert_true(conv_differ(conv_fwd_bias_last, td_op_conv_dx, td_op_conv_grad) > 0);
	assert_true(conv_differ(td_op_conv_forward, conv_dx_ascending, td_op_conv_grad) > 0);
	assert_true(conv_differ(td_op_conv_forward, td_op_conv_dx, conv_grad_per_line) > 0);
}

/* ---- the LRU --------------------------------------------------------------------- */

/* The negative controls: the scan's adjoint swept forward in reverse too; da pairing g_q with h_q. */
static void lru_adjoint_unreversed(td_real *g, const td_real *a, size_t length, size_t n,
				   int reverse, size_t k)
{
	(void)reverse;
	td_op_lru_scan_adjoint(g, a, length, n, 0, k);
}

static td_real lru_decay_grad_same_step(const td_real *g, const td_real *h, size_t lines,
					size_t length, size_t n, int reverse, size_t k)
{
	td_real acc = 0;

	for (size_t l = 0; l < lines; l++)
		for (size_t q = 1; q < length; q++)
			acc += g[(l * length + td_op_at(q, length, reverse)) * n + k] *
			       h[(l * length + td_op_at(q, length, reverse)) * n + k];
	return acc;
}

typedef void lru_adjoint_fn(td_real *, const td_real *, size_t, size_t, int, size_t);
typedef td_real lru_da_fn(const td_real *, const td_real *, size_t, size_t, size_t, int, size_t);

/*
 * Values of y, dx and the gradients where the LRU's bodies, composed with
 * td_gemm as lru_forward and lru_backward compose them (the GPU's order
 * of calls, cuBLAS in td_gemm's place), differ from the mixer's forward
 * and backward: states below, equal to and above the channels, lines of
 * 2 to 9 steps both ways, 1 and 2 threads.
 */
static size_t lru_differ(lru_adjoint_fn *adjoint, lru_da_fn *decay_grad)
{
	static const size_t states[] = {3, 8, 21}, lengths[] = {2, 9};
	const size_t lines = 5, c = 8;
	size_t differ = 0;

	rng_state = 13;
	for (size_t si = 0; si < 3; si++)
		for (size_t li = 0; li < 2; li++)
			for (int case_ = 0; case_ < 4; case_++) {
				const size_t n = states[si], len = lengths[li], p = lines * len;
				const int rev = case_ & 1;
				td_mixer_opts o = TD_MIXER_OPTS_INIT;
				td_gemm_opts put = TD_GEMM_OPTS_INIT, acc = TD_GEMM_OPTS_INIT;
				td_mixer *m = NULL;
				td_real *x, *y, *y2, *dy, *dx, *dx2, *ws, *g2, *h, *g, a[21];
				const td_real *pb, *pw, *pc, *pd;
				td_real *gb, *gw, *gc, *gd;
				size_t ws_len;

				o.kind = TD_MIXER_LRU, o.channels = c, o.state = n, o.reverse = rev;
				o.threads = 1 + (case_ >> 1);
				assert_int_equal(td_mixer_new(&m, &o), 0);
				td_mixer_init(m, 7, 0);
				assert_int_equal(td_mixer_ws_size(&ws_len, m, lines, len), 0);
				x = must(malloc(p * c * sizeof *x)), y = must(malloc(p * c * sizeof *x));
				y2 = must(malloc(p * c * sizeof *x)), dy = must(malloc(p * c * sizeof *x));
				dx = must(malloc(p * c * sizeof *x)), dx2 = must(malloc(p * c * sizeof *x));
				h = must(malloc(p * n * sizeof *x)), g = must(malloc(p * n * sizeof *x));
				ws = must(malloc(ws_len * sizeof *ws));
				g2 = must(calloc(td_mixer_n_params(m), sizeof *g2));
				pb = td_mixer_params(m) + td_mixer_tensor_at(m, 0)->offset;
				pw = td_mixer_params(m) + td_mixer_tensor_at(m, 1)->offset;
				pc = td_mixer_params(m) + td_mixer_tensor_at(m, 2)->offset;
				pd = td_mixer_params(m) + td_mixer_tensor_at(m, 3)->offset;
				gb = g2 + td_mixer_tensor_at(m, 0)->offset;
				gw = g2 + td_mixer_tensor_at(m, 1)->offset;
				gc = g2 + td_mixer_tensor_at(m, 2)->offset;
				gd = g2 + td_mixer_tensor_at(m, 3)->offset;
				fill(x, p * c, 2), fill(dy, p * c, 1);
				assert_int_equal(td_mixer_forward(m, y, x, lines, len, ws, ws_len), 0);
				assert_int_equal(td_mixer_backward(m, dx, dy, lines, len, ws, ws_len), 0);

				/* forward: h = x B^T, the scan, y = D x, y += h C^T */
				for (size_t k = 0; k < n; k++)
					a[k] = td_op_lru_decay(pw[k]);
				put.trans_b = 1;
				assert_int_equal(td_gemm(h, n, x, c, pb, c, p, n, c, &put), 0);
				for (size_t l = 0; l < lines; l++)
					for (size_t k = 0; k < n; k++)
						td_op_lru_scan(h + l * len * n, a, len, n, rev, k);
				for (size_t i = 0; i < p * c; i++)
					y2[i] = pd[i % c] * x[i];
				acc.beta = 1, acc.trans_b = 1;
				assert_int_equal(td_gemm(y2, c, h, n, pc, n, p, c, n, &acc), 0);
				put.trans_b = acc.trans_b = 0;

				/* backward: dC += dy^T h, g = dy C, the adjoint, dx = D dy, da, dD, dB, dx += g B */
				acc.trans_a = 1;
				assert_int_equal(td_gemm(gc, n, dy, c, h, n, c, n, p, &acc), 0);
				assert_int_equal(td_gemm(g, n, dy, c, pc, n, p, n, c, &put), 0);
				for (size_t l = 0; l < lines; l++)
					for (size_t k = 0; k < n; k++)
						adjoint(g + l * len * n, a, len, n, rev, k);
				for (size_t i = 0; i < p * c; i++)
					dx2[i] = pd[i % c] * dy[i];
				for (size_t k = 0; k < n; k++)
					gw[k] += td_op_lru_dw(decay_grad(g, h, lines, len, n, rev, k), a[k],
							      pw[k]);
				for (size_t k = 0; k < c; k++)
					gd[k] += td_op_lru_skip_grad(dy, x, p, c, k);
				assert_int_equal(td_gemm(gb, c, g, n, x, c, n, c, p, &acc), 0);
				acc.trans_a = 0;
				assert_int_equal(td_gemm(dx2, c, g, n, pb, c, p, c, n, &acc), 0);
				differ += bits_differ(y, y2, p * c) + bits_differ(dx, dx2, p * c) +
					  bits_differ(td_mixer_grads(m), g2, td_mixer_n_params(m));
				td_mixer_free(m);
				free(x), free(y), free(y2), free(dy), free(dx), free(dx2), free(h), free(g);
				free(ws), free(g2);
			}
	return differ;
}

static void test_the_lru_bodies_with_td_gemm_give_the_lru_mixers_bits(void **state)
{
	(void)state;
	assert_int_equal(lru_differ(td_op_lru_scan_adjoint, td_op_lru_decay_grad), 0);
	assert_true(lru_differ(lru_adjoint_unreversed, td_op_lru_decay_grad) > 0);
	assert_true(lru_differ(td_op_lru_scan_adjoint, lru_decay_grad_same_step) > 0);
}

/* ---- the complex LRU ------------------------------------------------------------- */

/* The bodies clru_differ composes: ops.h's, or one of them swapped for a negative control. */
typedef struct {
	void (*decay)(td_real *, const td_real *, const td_real *, size_t, size_t);
	void (*scan)(td_real *, const td_real *, size_t, size_t, int, int, size_t);
	void (*decay_grad)(td_real *, td_real *, const td_real *, const td_real *, size_t, size_t,
			   size_t, int, size_t);
	td_real (*dtheta)(td_real, td_real, td_real, td_real);
	td_real (*dnu)(td_real, td_real, td_real, td_real, td_real);
} clru_bodies;

/* The negative controls: lambda's parts swapped (sin for the real part, cos for the imaginary). */
static void clru_decay_parts_swapped(td_real *a, const td_real *nu, const td_real *theta,
				     size_t n, size_t k)
{
	td_real re;

	td_op_clru_decay(a, nu, theta, n, k);
	re = a[k], a[k] = a[n + k], a[n + k] = re;
}

/* The adjoint carried by lambda itself, not its conjugate. */
static void clru_adjoint_unconjugated(td_real *h, const td_real *a, size_t length, size_t n,
				      int reverse, int adjoint, size_t k)
{
	td_real flipped[2 * 21];

	memcpy(flipped, a, 2 * n * sizeof *a);
	flipped[n + k] = adjoint ? -a[n + k] : a[n + k];
	td_op_clru_scan(h, flipped, length, n, reverse, adjoint, k);
}

/* dL/dlambda as sum conj(g_q) h_(q-1): the imaginary part's sign turned. */
static void clru_decay_grad_conj_g(td_real *re, td_real *im, const td_real *g, const td_real *h,
				   size_t lines, size_t length, size_t n, int reverse, size_t k)
{
	td_op_clru_decay_grad(re, im, g, h, lines, length, n, reverse, k);
	*im = -*im;
}

/* dtheta without its minus; dnu without the factor exp(nu). */
static td_real clru_dtheta_unsigned(td_real dre, td_real dim, td_real are, td_real aim)
{
	return (td_real)((double)dre * (double)aim + (double)dim * (double)are);
}

static td_real clru_dnu_no_exp(td_real dre, td_real dim, td_real are, td_real aim, td_real nu)
{
	(void)nu;
	return (td_real)(-((double)dre * (double)are + (double)dim * (double)aim));
}

static const clru_bodies clru_ops = {td_op_clru_decay, td_op_clru_scan, td_op_clru_decay_grad,
				     td_op_clru_dtheta, td_op_clru_dnu};

/* The CLRU's tensors in clru_setup's order: B_re, B_im, nu, theta, C_re, C_im, D. */
enum { CL_BRE, CL_BIM, CL_NU, CL_THETA, CL_CRE, CL_CIM, CL_D, CL_N };

/*
 * y = D x, then h = x B^T (both halves), the recurrence and y += h_re
 * C_re^T - h_im C_im^T, as clru_forward composes them (td_gemm with alpha
 * -1 where it subtracts); h [p][2n].
 */
static void clru_forward_bodies(const clru_bodies *b, td_real *y, td_real *h, td_real *a,
				const td_real *x, const td_real *const *t, size_t lines,
				size_t len, size_t n, size_t c, int rev)
{
	const size_t p = lines * len;
	td_gemm_opts o = TD_GEMM_OPTS_INIT;

	for (size_t k = 0; k < n; k++)
		b->decay(a, t[CL_NU], t[CL_THETA], n, k);
	o.trans_b = 1;
	assert_int_equal(td_gemm(h, 2 * n, x, c, t[CL_BRE], c, p, n, c, &o), 0);
	assert_int_equal(td_gemm(h + n, 2 * n, x, c, t[CL_BIM], c, p, n, c, &o), 0);
	for (size_t l = 0; l < lines; l++)
		for (size_t k = 0; k < n; k++)
			b->scan(h + l * len * 2 * n, a, len, n, rev, 0, k);
	for (size_t i = 0; i < p * c; i++)
		y[i] = t[CL_D][i % c] * x[i];
	o.beta = 1;
	assert_int_equal(td_gemm(y, c, h, 2 * n, t[CL_CRE], n, p, c, n, &o), 0);
	o.alpha = -1;
	assert_int_equal(td_gemm(y, c, h + n, 2 * n, t[CL_CIM], n, p, c, n, &o), 0);
}

/*
 * dC_re += dy^T h_re, dC_im -= dy^T h_im, g = dy C_re - i dy C_im, the
 * adjoint, dnu and dtheta from dL/dlambda, dx = D dy, dD, dB_re, dB_im,
 * dx += g_re B_re + g_im B_im, as clru_backward composes them; gr the
 * gradients' tensors, g [p][2n].
 */
static void clru_backward_bodies(const clru_bodies *b, td_real *dx, td_real *g,
				 td_real *const *gr, const td_real *dy, const td_real *x,
				 const td_real *h, const td_real *a, const td_real *const *t,
				 size_t lines, size_t len, size_t n, size_t c, int rev)
{
	const size_t p = lines * len;
	td_gemm_opts acc = TD_GEMM_OPTS_INIT, put = TD_GEMM_OPTS_INIT;

	acc.beta = 1, acc.trans_a = 1;
	assert_int_equal(td_gemm(gr[CL_CRE], n, dy, c, h, 2 * n, c, n, p, &acc), 0);
	acc.alpha = -1;
	assert_int_equal(td_gemm(gr[CL_CIM], n, dy, c, h + n, 2 * n, c, n, p, &acc), 0);
	assert_int_equal(td_gemm(g, 2 * n, dy, c, t[CL_CRE], n, p, n, c, &put), 0);
	put.alpha = -1;
	assert_int_equal(td_gemm(g + n, 2 * n, dy, c, t[CL_CIM], n, p, n, c, &put), 0);
	for (size_t l = 0; l < lines; l++)
		for (size_t k = 0; k < n; k++)
			b->scan(g + l * len * 2 * n, a, len, n, rev, 1, k);
	for (size_t k = 0; k < n; k++) {
		td_real dre, dim;

		b->decay_grad(&dre, &dim, g, h, lines, len, n, rev, k);
		gr[CL_THETA][k] += b->dtheta(dre, dim, a[k], a[n + k]);
		gr[CL_NU][k] += b->dnu(dre, dim, a[k], a[n + k], t[CL_NU][k]);
	}
	for (size_t i = 0; i < p * c; i++)
		dx[i] = t[CL_D][i % c] * dy[i];
	for (size_t k = 0; k < c; k++)
		gr[CL_D][k] += td_op_lru_skip_grad(dy, x, p, c, k);
	acc.alpha = 1;
	assert_int_equal(td_gemm(gr[CL_BRE], c, g, 2 * n, x, c, n, c, p, &acc), 0);
	assert_int_equal(td_gemm(gr[CL_BIM], c, g + n, 2 * n, x, c, n, c, p, &acc), 0);
	acc.trans_a = 0;
	assert_int_equal(td_gemm(dx, c, g, 2 * n, t[CL_BRE], c, p, c, n, &acc), 0);
	assert_int_equal(td_gemm(dx, c, g + n, 2 * n, t[CL_BIM], c, p, c, n, &acc), 0);
}

/*
 * Values of y, dx and the gradients where the complex LRU's bodies,
 * composed with td_gemm as clru_forward and clru_backward compose them,
 * differ from the mixer's forward and backward: states below, equal to
 * and above the channels, lines of 2 to 9 steps both ways, 1 and 2
 * threads.
 */
static size_t clru_differ(const clru_bodies *b)
{
	static const size_t states[] = {3, 8, 21}, lengths[] = {2, 9};
	const size_t lines = 5, c = 8;
	size_t differ = 0;

	rng_state = 17;
	for (size_t si = 0; si < 3; si++)
		for (size_t li = 0; li < 2; li++)
			for (int case_ = 0; case_ < 4; case_++) {
				const size_t n = states[si], len = lengths[li], p = lines * len;
				td_mixer_opts o = TD_MIXER_OPTS_INIT;
				td_mixer *m = NULL;
				td_real *x, *y, *y2, *dy, *dx, *dx2, *ws, *g2, *h, *g, a[2 * 21];
				const td_real *t[CL_N];
				td_real *gr[CL_N];
				size_t ws_len;

				o.kind = TD_MIXER_CLRU, o.channels = c, o.state = n;
				o.reverse = case_ & 1, o.threads = 1 + (case_ >> 1);
				assert_int_equal(td_mixer_new(&m, &o), 0);
				td_mixer_init(m, 7, 0);
				assert_int_equal(td_mixer_ws_size(&ws_len, m, lines, len), 0);
				x = must(malloc(p * c * sizeof *x)), y = must(malloc(p * c * sizeof *x));
				y2 = must(malloc(p * c * sizeof *x)), dy = must(malloc(p * c * sizeof *x));
				dx = must(malloc(p * c * sizeof *x)), dx2 = must(malloc(p * c * sizeof *x));
				h = must(malloc(p * 2 * n * sizeof *x));
				g = must(malloc(p * 2 * n * sizeof *x));
				ws = must(malloc(ws_len * sizeof *ws));
				g2 = must(calloc(td_mixer_n_params(m), sizeof *g2));
				for (int i = 0; i < CL_N; i++) {
					t[i] = td_mixer_params(m) + td_mixer_tensor_at(m, (size_t)i)->offset;
					gr[i] = g2 + td_mixer_tensor_at(m, (size_t)i)->offset;
				}
				fill(x, p * c, 2), fill(dy, p * c, 1);
				assert_int_equal(td_mixer_forward(m, y, x, lines, len, ws, ws_len), 0);
				assert_int_equal(td_mixer_backward(m, dx, dy, lines, len, ws, ws_len), 0);
				clru_forward_bodies(b, y2, h, a, x, t, lines, len, n, c, o.reverse);
				clru_backward_bodies(b, dx2, g, gr, dy, x, h, a, t, lines, len, n, c,
						     o.reverse);
				differ += bits_differ(y, y2, p * c) + bits_differ(dx, dx2, p * c) +
					  bits_differ(td_mixer_grads(m), g2, td_mixer_n_params(m));
				td_mixer_free(m);
				free(x), free(y), free(y2), free(dy), free(dx), free(dx2), free(h), free(g);
				free(ws), free(g2);
			}
	return differ;
}

static void test_the_clru_bodies_with_td_gemm_give_the_clru_mixers_bits(void **state)
{
	clru_bodies wrong;

	(void)state;
	assert_int_equal(clru_differ(&clru_ops), 0);
	wrong = clru_ops, wrong.decay = clru_decay_parts_swapped;
	assert_true(clru_differ(&wrong) > 0);
	wrong = clru_ops, wrong.scan = clru_adjoint_unconjugated;
	assert_true(clru_differ(&wrong) > 0);
	wrong = clru_ops, wrong.decay_grad = clru_decay_grad_conj_g;
	assert_true(clru_differ(&wrong) > 0);
	wrong = clru_ops, wrong.dtheta = clru_dtheta_unsigned;
	assert_true(clru_differ(&wrong) > 0);
	wrong = clru_ops, wrong.dnu = clru_dnu_no_exp;
	assert_true(clru_differ(&wrong) > 0);
}

/* ---- AdamW ------------------------------------------------------------------------ */

typedef void adamw_fn(td_real *, td_real *, td_real *, const td_real *, const td_op_adamw_step *,
		      size_t);

/* The negative control: v decays toward |g'|, not g'^2. */
static void adamw_wrong_v(td_real *p, td_real *m, td_real *v, const td_real *g,
			  const td_op_adamw_step *s, size_t i)
{
	const double gi = s->scale * (double)g[i];
	const double mi = s->beta1 * (double)m[i] + (1.0 - s->beta1) * gi;
	const double vi = s->beta2 * (double)v[i] + (1.0 - s->beta2) * fabs(gi);
	const double step = s->lr * (mi / s->bc1) / (sqrt(vi / s->bc2) + s->eps);

	m[i] = (td_real)mi;
	v[i] = (td_real)vi;
	p[i] = (td_real)((double)p[i] * s->decay - step);
}

/*
 * Values of p, m and v where body differs from td_adamw_step over 6 steps
 * (the first clipped, the rest not), the body's shared figures taken on
 * the host from the optimizer's options and td_adamw_last.
 */
static size_t adamw_differ(adamw_fn *body)
{
	enum { N = 1001 };
	td_real *p = must(malloc(N * sizeof *p)), *g = must(malloc(N * sizeof *g));
	td_real *p2 = must(malloc(N * sizeof *p)), *m2 = must(calloc(N, sizeof *p));
	td_real *v2 = must(calloc(N, sizeof *p));
	td_adamw_opts o = TD_ADAMW_OPTS_INIT;
	td_adamw *a = NULL;
	size_t differ = 0;

	rng_state = 7;
	o.warmup = 2, o.total_steps = 6, o.lr = 0.01, o.weight_decay = 0.1, o.clip = 1;
	fill(p, N, 1);
	memcpy(p2, p, N * sizeof *p);
	assert_int_equal(td_adamw_new(&a, N, &o), 0);
	for (int s = 0; s < 6; s++) {
		const td_adamw_stats *st;
		td_op_adamw_step k;
		double t;

		fill(g, N, s == 0 ? 1 : 0.001);
		assert_int_equal(td_adamw_step(a, p, g, NULL), 1);
		st = td_adamw_last(a), t = (double)td_adamw_updates(a);
		k.lr = st->lr, k.beta1 = o.beta1, k.beta2 = o.beta2, k.eps = o.eps;
		k.bc1 = 1.0 - pow(o.beta1, t), k.bc2 = 1.0 - pow(o.beta2, t);
		k.decay = 1.0 - st->lr * o.weight_decay;
		k.scale = td_op_clip_scale(sqrt(td_op_sumsq(g, 0, N)), o.clip);
		assert_true(k.scale == st->scale && (s > 0 || k.scale < 1));
		for (size_t i = 0; i < N; i++)
			body(p2, m2, v2, g, &k, i);
		differ += bits_differ(p, p2, N) + bits_differ(td_adamw_m(a), m2, N) +
			  bits_differ(td_adamw_v(a), v2, N);
	}
	td_adamw_free(a);
	free(p), free(g), free(p2), free(m2), free(v2);
	return differ;
}

/* ---- the recurrences' shift and block parts (mixer.c) ----------------------------- */

/* The negative controls: h_{t-1} always from the forward sweep's step before. */
static void shift_prev_unreversed(td_real *prev, const td_real *x, size_t length, size_t width,
				  int reverse, size_t i)
{
	(void)reverse;
	td_op_shift_prev(prev, x, length, width, 0, i);
}

/* The blocks' parts added last block first. */
static void add_parts_reversed(td_real *grad, const td_real *parts, size_t n, size_t stride,
			       size_t e)
{
	td_real sum = parts[(n - 1) * stride + e];

	for (size_t b = n - 1; b-- > 0;)
		sum += parts[b * stride + e];
	grad[e] += sum;
}

/*
 * Values whose bits differ between the core and the bodies: shift, per
 * element, against td_mixer_shift_prev over 3 lines of 5 steps of 4
 * channels, both ways; add, per element, against td_mixer_add_parts of
 * a GRU's (3 channels) 5 blocks' parts on lines of 4 steps.
 */
static size_t rnn_differ(void (*shift)(td_real *, const td_real *, size_t, size_t, int, size_t),
			 void (*add)(td_real *, const td_real *, size_t, size_t, size_t))
{
	td_mixer_opts o = TD_MIXER_OPTS_INIT;
	td_mixer *m = NULL;
	td_real x[3 * 5 * 4], p[3 * 5 * 4], p2[3 * 5 * 4], *parts, *copy, *grads;
	size_t d = 0, np;

	fill(x, 60, 1);
	for (int rev = 0; rev < 2; rev++) {
		td_mixer_shift_prev(p, x, 3, 5, 4, rev);
		memset(p2, 0xff, sizeof p2);
		for (size_t i = 0; i < 60; i++)
			shift(p2, x, 5, 4, rev, i);
		d += bits_differ(p, p2, 60);
	}
	o.kind = TD_MIXER_GRU, o.channels = 3;
	assert_int_equal(td_mixer_new(&m, &o), 0);
	np = td_mixer_n_params(m);
	parts = must(malloc(5 * np * sizeof *parts)), copy = must(malloc(5 * np * sizeof *copy));
	grads = must(malloc(np * sizeof *grads));
	fill(parts, 5 * np, 1), fill(td_mixer_grads(m), np, 1);
	memcpy(copy, parts, 5 * np * sizeof *parts);
	memcpy(grads, td_mixer_grads(m), np * sizeof *grads);
	td_mixer_add_parts(m, copy, 5, 1, 4); /* tensor 1 is U */
	for (size_t e = 0; e < np; e++)
		add(grads, parts, 5, np, e);
	d += bits_differ(grads, td_mixer_grads(m), np);
	free(parts), free(copy), free(grads);
	td_mixer_free(m);
	return d;
}

static void test_the_recurrences_shift_and_parts_bodies_give_the_cores_bits(void **state)
{
	(void)state;
	assert_int_equal(rnn_differ(td_op_shift_prev, td_op_add_parts), 0);
	assert_true(rnn_differ(shift_prev_unreversed, td_op_add_parts) > 0);
	assert_true(rnn_differ(td_op_shift_prev, add_parts_reversed) > 0);
}

static void test_the_adamw_body_gives_td_adamw_steps_bits(void **state)
{
	(void)state;
	assert_int_equal(adamw_differ(td_op_adamw), 0);
	assert_true(adamw_differ(adamw_wrong_v) > 0);
}

/* ---- an axial scan block: folds, selection and the conv mixer in chunks ---------- */

/* The negative control: an unfold that does not select (an absent cell keeps the mixer's value). */
static void unfold_unselected(td_real *dst, const td_real *src, const size_t *map,
			      const uint8_t *mask, const uint8_t *emask, size_t n_cells,
			      size_t channels, int unfold, size_t i)
{
	(void)mask, (void)emask, (void)unfold;
	dst[i] = src[(i / (n_cells * channels) * n_cells + map[i % (n_cells * channels) / channels]) *
			 channels +
		     i % channels];
}

typedef void fold_fn(td_real *, const td_real *, const size_t *, const uint8_t *, const uint8_t *,
		     size_t, size_t, int, size_t);

/*
 * Values of y, dx and the mixer's gradient where a scan block with a conv
 * mixer, composed of the bodies as the GPU runs it (fold with selection,
 * the conv over every line, unfold with selection; backward the same, the
 * weight gradient summed per chunk of lines in chunk order), differs from
 * td_block_forward and td_block_backward: a 3 x 4 lattice with two absent
 * cells and a mask per example, along h and w, both ways, the kind of
 * slip the negative control makes.
 */
static size_t scan_block_differ(fold_fn *unfold_body)
{
	static const size_t shape[] = {3, 4};
	static const char *const names[] = {"h", "w"};
	static const uint8_t lmask[] = {1, 1, 0, 1, 1, 1, 1, 1, 1, 0, 1, 1};
	const size_t batch = 3, n = 12, c = 5, all = batch * n * c;
	uint8_t emask[36];
	size_t differ = 0;

	rng_state = 19;
	for (size_t i = 0; i < 36; i++)
		emask[i] = i % 7 != 3;
	for (int case_ = 0; case_ < 4; case_++) {
		td_lattice_spec ls = TD_LATTICE_SPEC_INIT;
		td_block_opts o = TD_BLOCK_OPTS_INIT;
		td_lattice *lat = NULL;
		td_block *b = NULL;
		td_fold *f = NULL;
		uint8_t *mask = NULL;
		td_real x[180], y[180], y2[180], dy[180], dx[180], dx2[180], xf[180], yf[180];
		td_real g2[5 * 5] = {0};
		const td_mixer *mx;
		const td_real *w;
		td_op_conv s;

		ls.rank = 2, ls.shape = shape, ls.names = names, ls.mask = lmask, ls.mask_len = n;
		assert_int_equal(td_lattice_new(&lat, &ls), 0);
		assert_int_equal(td_lattice_mask(lat, &mask), 0);
		o.family = TD_BLOCK_SCAN, o.axis = case_ & 1 ? "w" : "h", o.reverse = case_ >> 1;
		o.max_batch = batch, o.chunk = 2, o.mixer.kind = TD_MIXER_CONV, o.mixer.channels = c;
		o.mixer.kernel_size = 3;
		assert_int_equal(td_block_new(&b, lat, &o), 0);
		td_block_init(b, 3, 1 << 20);
		assert_int_equal(td_block_set_example_mask(b, emask), 0);
		mx = td_block_mixer(b), w = td_mixer_params((td_mixer *)mx);
		assert_int_equal(td_fold_new(&f, lat, td_lattice_axis(lat, o.axis)), 0);
		s = (td_op_conv){3, 1, c, f->length, o.reverse};
		fill(x, all, 2), fill(dy, all, 1);
		assert_int_equal(td_block_forward(b, y, x, batch), 0);
		assert_int_equal(td_block_backward(b, dx, dy, batch), 0);

		for (size_t i = 0; i < all; i++)
			td_op_fold_select(xf, x, f->fold, mask, emask, n, c, 0, i);
		for (size_t l = 0; l < batch * f->lines; l++)
			for (size_t t = 0; t < f->length; t++)
				for (size_t k = 0; k < c; k++)
					td_op_conv_forward(yf + l * f->length * c, xf + l * f->length * c,
							   w, w + 3 * c, &s, t, k);
		for (size_t i = 0; i < all; i++)
			unfold_body(y2, yf, f->unfold, mask, emask, n, c, 1, i);
		for (size_t i = 0; i < all; i++)
			td_op_fold_select(yf, dy, f->fold, mask, emask, n, c, 0, i);
		for (size_t l = 0; l < batch * f->lines; l++)
			for (size_t t = 0; t < f->length; t++)
				for (size_t k = 0; k < c; k++)
					td_op_conv_dx(xf + l * f->length * c, yf + l * f->length * c, w,
						      &s, t, k);
		for (size_t i = 0; i < all; i++)
			unfold_body(dx2, xf, f->unfold, mask, emask, n, c, 1, i);
		/* the weight gradient reads the folded input again: fold x back into xf */
		for (size_t i = 0; i < all; i++)
			td_op_fold_select(xf, x, f->fold, mask, emask, n, c, 0, i);
		for (size_t at = 0; at < batch * f->lines; at += o.chunk) {
			const size_t lines = batch * f->lines - at < o.chunk ? batch * f->lines - at
									      : o.chunk;

			for (size_t i = 0; i <= 3; i++)
				for (size_t k = 0; k < c; k++)
					td_op_conv_grad(g2, yf + at * f->length * c,
							xf + at * f->length * c, &s, lines, i, k);
		}
		differ += bits_differ(y, y2, all) + bits_differ(dx, dx2, all) +
			  bits_differ(td_mixer_grads((td_mixer *)mx), g2, 4 * c);
		td_fold_free(f), free(mask), td_block_free(b), td_lattice_free(lat);
	}
	return differ;
}

static void test_a_scan_block_of_bodies_gives_the_blocks_bits(void **state)
{
	(void)state;
	assert_int_equal(scan_block_differ(td_op_fold_select), 0);
	assert_true(scan_block_differ(unfold_unselected) > 0);
}

/* ---- the optimizer's step without the host ------------------------------------- */

typedef void decide_fn(td_op_opt_state *, const double *, const size_t *, size_t, const td_real *,
		       double, double, double, const double *, const double *);

/* The negative control: the skip reports the last part's first non-finite element, not the first part's. */
static void decide_last_part(td_op_opt_state *st, const double *part, const size_t *bad,
			     size_t n_parts, const td_real *g, double lr, double clip, double wd,
			     const double *bc1, const double *bc2)
{
	size_t last = SIZE_MAX;

	td_op_opt_decide(st, part, bad, n_parts, g, lr, clip, wd, bc1, bc2);
	for (size_t p = 0; p < n_parts; p++)
		last = bad[p] != SIZE_MAX ? bad[p] : last;
	if (!st->applied && st->unread <= TD_OPS_SKIPS_KEPT)
		st->skip[st->unread - 1].index = last;
}

/* One step as the device runs it: the norm's parts, the decision, the update where applied. */
static void device_step(td_op_opt_state *st, td_real *p, td_real *m, td_real *v, const td_real *g,
			size_t n, double lr, const td_adamw_opts *o, const double *bc1,
			const double *bc2, decide_fn *decide, int update_always)
{
	double part[8];
	size_t bad[8], np = 0;

	for (size_t i0 = 0; i0 < n; i0 += TD_OPS_NORM_PART, np++)
		part[np] = td_op_sumsq_checked(g, i0, n - i0 < TD_OPS_NORM_PART ? n : i0 + TD_OPS_NORM_PART,
					       &bad[np]);
	decide(st, part, bad, np, g, lr, o->clip, o->weight_decay, bc1, bc2);
	for (size_t i = 0; i < n && (st->applied || update_always); i++)
		td_op_adamw(p, m, v, g, &st->step, i);
}

/*
 * Where the device's step (its bodies, run here) and td_adamw_step part
 * ways over 8 steps with a NaN, an infinity before a NaN, and an infinity
 * in the last part: values of p, m and v whose bits differ, plus 1 for
 * each count (s, t, skips) and each counted reason that differ. One part
 * with clipping (the norm is then adamw.c's, bit for bit), and four
 * parts without (the norm only decides the skips).
 */
static size_t opt_differ(decide_fn *decide, int update_always)
{
	size_t differ = 0;

	for (int case_ = 0; case_ < 2; case_++) {
		const size_t n = case_ ? 3 * TD_OPS_NORM_PART + 17 : 1001;
		td_real *p = must(malloc(n * sizeof *p)), *g = must(malloc(n * sizeof *g));
		td_real *p2 = must(malloc(n * sizeof *p)), *m2 = must(calloc(n, sizeof *p));
		td_real *v2 = must(calloc(n, sizeof *p));
		td_adamw_opts o = TD_ADAMW_OPTS_INIT;
		td_op_opt_state st = {0};
		td_counters *c1 = NULL, *c2 = NULL;
		td_json_buf l1 = TD_JSON_BUF_INIT, l2 = TD_JSON_BUF_INIT;
		td_adamw *a = NULL;
		double bc1[9], bc2[9];

		rng_state = 17;
		o.warmup = 2, o.total_steps = 8, o.lr = 0.01, o.weight_decay = 0.1;
		o.clip = case_ ? 0 : 1;
		st.step.beta1 = o.beta1, st.step.beta2 = o.beta2, st.step.eps = o.eps;
		for (int t = 0; t < 9; t++)
			bc1[t] = 1.0 - pow(o.beta1, t), bc2[t] = 1.0 - pow(o.beta2, t);
		fill(p, n, 1);
		memcpy(p2, p, n * sizeof *p);
		assert_int_equal(td_adamw_new(&a, n, &o), 0);
		assert_int_equal(td_counters_new(&c1, 4), 0);
		assert_int_equal(td_counters_new(&c2, 4), 0);
		for (int64_t s = 0; s < 8; s++) {
			fill(g, n, s == 0 ? 1 : 0.001);
			if (s == 2)
				g[n / 2] = NAN;
			if (s == 3)
				g[7] = INFINITY, g[n - 3] = NAN;
			if (s == 5)
				g[n - 1] = -INFINITY;
			assert_true(td_adamw_step(a, p, g, c1) >= 0);
			device_step(&st, p2, m2, v2, g, n, td_adamw_lr(&o, s), &o, bc1, bc2, decide,
				    update_always);
		}
		for (int64_t k = 0; k < st.unread && k < TD_OPS_SKIPS_KEPT; k++)
			assert_int_equal(td_adamw_count_skip(c2, st.skip[k].s, st.skip[k].index,
							     st.skip[k].nan, st.skip[k].norm), 0);
		assert_int_equal(td_counters_line(&l1, c1), 0);
		assert_int_equal(td_counters_line(&l2, c2), 0);
		differ += bits_differ(p, p2, n) + bits_differ(td_adamw_m(a), m2, n) +
			  bits_differ(td_adamw_v(a), v2, n) + (st.s != td_adamw_steps(a)) +
			  (st.t != td_adamw_updates(a)) + (st.skips != td_adamw_skipped(a)) +
			  (strcmp(l1.s, l2.s) != 0);
		assert_int_equal(td_adamw_skipped(a), 3);
		td_json_buf_free(&l1), td_json_buf_free(&l2);
		td_counters_free(c1), td_counters_free(c2), td_adamw_free(a);
		free(p), free(g), free(p2), free(m2), free(v2);
	}
	return differ;
}

static void test_the_device_optimizer_step_gives_td_adamw_steps_bits_and_skips(void **state)
{
	(void)state;
	assert_int_equal(opt_differ(td_op_opt_decide, 0), 0);
	assert_true(opt_differ(decide_last_part, 0) > 0);
	assert_true(opt_differ(td_op_opt_decide, 1) > 0);
}

static const struct CMUnitTest tests[] = {
	cmocka_unit_test(test_the_rmsnorm_row_body_gives_the_cores_bits),
	cmocka_unit_test(test_the_rmsnorm_backward_bodies_give_the_cores_bits),
	cmocka_unit_test(test_the_softmax_body_gives_the_attention_softmax_bits),
	cmocka_unit_test(test_the_relu_bodies_match_the_models_expressions),
	cmocka_unit_test(test_the_cross_entropy_body_gives_td_train_xents_bits),
	cmocka_unit_test(test_the_norm_in_parts_stays_within_its_bound_of_adamws),
	cmocka_unit_test(test_the_adamw_body_gives_td_adamw_steps_bits),
	cmocka_unit_test(test_the_conv_bodies_give_the_conv_mixers_bits),
	cmocka_unit_test(test_the_lru_bodies_with_td_gemm_give_the_lru_mixers_bits),
	cmocka_unit_test(test_the_clru_bodies_with_td_gemm_give_the_clru_mixers_bits),
	cmocka_unit_test(test_the_recurrences_shift_and_parts_bodies_give_the_cores_bits),
	cmocka_unit_test(test_a_scan_block_of_bodies_gives_the_blocks_bits),
	cmocka_unit_test(test_the_device_optimizer_step_gives_td_adamw_steps_bits_and_skips),
};
TD_TEST_GROUP(ops, tests);
