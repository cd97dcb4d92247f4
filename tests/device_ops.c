/*
 * device_ops.c - the training kernels (kernels/ops.cu) on the device
 * against the same bodies of kernels/ops.h on the CPU, as plain functions
 * without cmocka: tests/test_cuda.c runs them inside tdtest, and
 * ci/device-check runs them from a small driver on a device machine that
 * lacks the suite's libraries. Each prints PASS or FAIL with its name (and
 * the first failed checks) and returns the number of failed checks.
 *
 * Bitwise everywhere but cross-entropy, whose device exp and log in
 * double are the device's own, and the model on the CUDA executor
 * (core/xmodel.c), whose GEMMs are cuBLAS's, and training on it (core/
 * xtrain.c through td_train), whose tolerance is measured on the host:
 * each bound is stated above its check. Callers first make sure a device
 * is there (backend.h).
 */
#include "device_ops.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../base/error.h"
#include "../base/fileio.h"
#include "../core/exec.h"
#include "../core/idx.h"
#include "../core/config.h"
#include "../core/model.h"
#include "../core/train.h"
#include "../core/xmodel.h"
#include "../core/xtrain.h"
#include "../kernels/backend.h"
#include "../kernels/ops.h"
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wunused-function" /* bench/core's, used in part here */
#include "../bench/cases.h"
#pragma GCC diagnostic pop

#ifndef TD_REAL_DOUBLE

/* Counts a failed check, printing the first few with the last error message. */
#define CHECK(c)                                                                                   \
	do {                                                                                       \
		if (!(c) && fails++ < 5)                                                           \
			printf("  failed: %s:%d: %s (last error: %s)\n", __func__, __LINE__, #c,  \
			       td_error_last());                                                   \
	} while (0)

static uint64_t dev_rng = 11;

static void dev_fill(float *x, size_t n, double scale)
{
	for (size_t i = 0; i < n; i++) {
		uint64_t z = (dev_rng += 0x9e3779b97f4a7c15u);

		z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9u;
		z = (z ^ (z >> 27)) * 0x94d049bb133111ebu;
		x[i] = (float)(scale * ((double)((z ^ (z >> 31)) >> 11) / 4503599627370496.0 - 1));
	}
}

/* Elements whose bits differ between a and b. */
static size_t dev_differ(const float *a, const float *b, size_t n)
{
	size_t d = 0;

	for (size_t i = 0; i < n; i++)
		d += memcmp(&a[i], &b[i], sizeof a[i]) != 0;
	return d;
}

static float *dev_alloc(size_t n)
{
	float *p = calloc(n ? n : 1, sizeof *p);

	if (!p) { /* a test driver: nothing to free, nothing to say but this */
		fprintf(stderr, "device_ops: out of memory for %zu floats\n", n);
		exit(2);
	}
	return p;
}

/* RMSNorm forward and backward (add 0 and 1) on rows x widths: the GPU gives the bodies' bits. */
int td_devcheck_rmsnorm_kernels_give_their_bodies_bits(void)
{
	int fails = 0;
	static const size_t widths[] = {1, 13, 64, 257};
	const size_t rows = 1031; /* not a multiple of the block */

	for (size_t wi = 0; wi < 4; wi++)
		for (int add = 0; add < 2; add++) {
			const size_t w = widths[wi], n = rows * w;
			float *x = dev_alloc(n), *g = dev_alloc(w), *y = dev_alloc(n), *y2 = dev_alloc(n);
			float *inv = dev_alloc(rows), *inv2 = dev_alloc(rows), *dy = dev_alloc(n);
			float *dx = dev_alloc(n), *dx2 = dev_alloc(n), *dg = dev_alloc(w), *dg2 = dev_alloc(w);

			dev_fill(x, n, 2), dev_fill(g, w, 1.5), dev_fill(dy, n, 1), dev_fill(dx, n, 1);
			dev_fill(dg, w, 0.5);
			memcpy(dx2, dx, n * sizeof *dx), memcpy(dg2, dg, w * sizeof *dg);
			for (size_t r = 0; r < rows; r++)
				td_op_rmsnorm_row(y + r * w, inv + r, x + r * w, g, w);
			CHECK((td_cuda_rmsnorm_forward(y2, inv2, x, g, rows, w)) == 0);
			CHECK((dev_differ(y, y2, n) + dev_differ(inv, inv2, rows)) == 0);
			for (size_t r = 0; r < rows; r++)
				td_op_rmsnorm_backward_row(dx + r * w, dy + r * w, x + r * w, inv[r], g, w, add);
			for (size_t k = 0; k < w; k++)
				td_op_rmsnorm_dgain(dg, dy, x, inv, rows, w, k);
			CHECK((td_cuda_rmsnorm_backward(dx2, dg2, dy, x, inv, g, rows, w, add)) == 0);
			CHECK((dev_differ(dx, dx2, n) + dev_differ(dg, dg2, w)) == 0);
			free(x), free(g), free(y), free(y2), free(inv), free(inv2), free(dy), free(dx);
			free(dx2), free(dg), free(dg2);
		}
	printf("%s rmsnorm_kernels_give_their_bodies_bits\n", fails ? "FAIL" : "PASS");
	return fails;
}

/* Softmax rows of 1 .. 200 scores, and the ReLU forward and backward, signed zeros and NaN included. */
int td_devcheck_softmax_and_relu_kernels_give_their_bodies_bits(void)
{
	int fails = 0;
	const size_t rows = 300, n_max = 200, n = 100003;
	float *s, *w, *w2, *pre, *d, *a, *a2, *dp, *dp2;

	s = dev_alloc(rows * n_max), w = dev_alloc(rows * n_max), w2 = dev_alloc(rows * n_max);
	pre = dev_alloc(n), d = dev_alloc(n), a = dev_alloc(n), a2 = dev_alloc(n);
	dp = dev_alloc(n), dp2 = dev_alloc(n);
	for (size_t len = 1; len <= n_max; len += 13) {
		dev_fill(s, rows * len, 10);
		for (size_t r = 0; r < rows; r++)
			td_op_softmax_row(w + r * len, s + r * len, len);
		CHECK((td_cuda_softmax_rows(w2, s, rows, len)) == 0);
		CHECK((dev_differ(w, w2, rows * len)) == 0);
	}
	dev_fill(pre, n, 3), dev_fill(d, n, 1);
	pre[0] = 0, pre[1] = -0.0f, pre[2] = NAN, pre[3] = INFINITY, pre[4] = -INFINITY, pre[5] = 1e-40f;
	for (size_t i = 0; i < n; i++)
		a[i] = td_op_relu(pre[i]), dp[i] = td_op_relu_backward(pre[i], d[i]);
	CHECK((td_cuda_relu(a2, dp2, pre, d, n)) == 0);
	CHECK((dev_differ(a, a2, n) + dev_differ(dp, dp2, n)) == 0);
	free(s), free(w), free(w2), free(pre), free(d), free(a), free(a2), free(dp), free(dp2);
	printf("%s softmax_and_relu_kernels_give_their_bodies_bits\n", fails ? "FAIL" : "PASS");
	return fails;
}

/*
 * Cross-entropy per example. The device's exp and log in double are its
 * own (CUDA's are within 1 ulp, glibc's within 1), so not bitwise: each of
 * the k exps differs by at most 2u relative (u = 2^-53), so z by 2u and
 * log z by 2u + u |log z|; with the subtractions' 3 roundings the losses
 * are within 8u (1 + |loss| + |log z|) <= 2^-46 (1 + |loss|) at these
 * logits (|log z| < 8 + |loss|). dy is a double within 16u of the host's
 * rounded once to float: equal, or one float ulp apart where the two
 * straddle a rounding boundary. best compares logits that need no exp:
 * equal.
 */
int td_devcheck_cross_entropy_kernel_agrees_with_its_body(void)
{
	int fails = 0;
	enum { B = 257, C = 49, K = 10 };
	static uint8_t present[B * C];
	int labels[B], best[B], best2[B];
	double loss[B], loss2[B];
	size_t off = 0;
	float *y, *dy, *dy2;

	y = dev_alloc(B * C * K), dy = dev_alloc(B * C * K), dy2 = dev_alloc(B * C * K);
	dev_fill(y, B * C * K, 4);
	for (size_t i = 0; i < B * C; i++)
		present[i] = (i * 7 % 5) != 0 || i % C == 0;
	for (int b = 0; b < B; b++)
		labels[b] = b % K;
	for (size_t b = 0; b < B; b++)
		loss[b] = td_op_xent(dy + b * C * K, &best[b], y + b * C * K, present + b * C, C, K,
				     labels[b], 1.0 / B);
	CHECK((td_cuda_xent(dy2, loss2, best2, y, present, labels, B, C, K, 1.0 / B)) == 0);
	for (size_t b = 0; b < B; b++) {
		CHECK(best[b] == best2[b]);
		CHECK(fabs(loss[b] - loss2[b]) <= 0x1p-46 * (1 + fabs(loss[b])));
	}
	for (size_t i = 0; i < B * C * K; i++)
		if (dy[i] != dy2[i]) {
			CHECK(fabsf(dy[i] - dy2[i]) <= 0x1p-23f * fabsf(dy[i]));
			off++;
		}
	printf("  losses within 2^-46 relative; %zu of %d dy one float ulp apart\n", off,
		      B * C * K);
	free(y), free(dy), free(dy2);
	printf("%s cross_entropy_kernel_agrees_with_its_body\n", fails ? "FAIL" : "PASS");
	return fails;
}

/*
 * The norm in parts (one thread each, TD_OPS_NORM_PART elements) and the
 * fused AdamW step: the GPU gives the bodies' bits, the bias corrections
 * taken on the host as training will.
 */
int td_devcheck_norm_and_adamw_kernels_give_their_bodies_bits(void)
{
	int fails = 0;
	const size_t n = 3 * TD_OPS_NORM_PART + 1001;
	float *g, *p, *m, *v, *p2, *m2, *v2;
	double parts[8], norm = 0, norm2 = -1;
	size_t np = 0;
	td_op_adamw_step st = {0};

	g = dev_alloc(n), p = dev_alloc(n), m = dev_alloc(n), v = dev_alloc(n);
	p2 = dev_alloc(n), m2 = dev_alloc(n), v2 = dev_alloc(n);
	dev_fill(g, n, 0.05), dev_fill(p, n, 1), dev_fill(m, n, 0.01), dev_fill(v, n, 0.001);
	for (size_t i = 0; i < n; i++)
		v[i] = v[i] * v[i];
	for (size_t i0 = 0; i0 < n; i0 += TD_OPS_NORM_PART)
		parts[np++] = td_op_sumsq(g, i0, n - i0 < TD_OPS_NORM_PART ? n : i0 + TD_OPS_NORM_PART);
	norm = sqrt(td_op_sumsq_total(parts, np));
	CHECK((td_cuda_grad_norm(&norm2, g, n)) == 0);
	CHECK(memcmp(&norm, &norm2, sizeof norm) == 0);
	st.lr = 0.003, st.beta1 = 0.9, st.beta2 = 0.999, st.eps = 1e-8;
	st.bc1 = 1 - pow(0.9, 7), st.bc2 = 1 - pow(0.999, 7), st.decay = 1 - 0.003 * 0.01;
	st.scale = td_op_clip_scale(norm, 1.0);
	memcpy(p2, p, n * sizeof *p), memcpy(m2, m, n * sizeof *m), memcpy(v2, v, n * sizeof *v);
	for (size_t i = 0; i < n; i++)
		td_op_adamw(p, m, v, g, &st, i);
	CHECK((td_cuda_adamw(p2, m2, v2, g, n, &st)) == 0);
	CHECK((dev_differ(p, p2, n) + dev_differ(m, m2, n) + dev_differ(v, v2, n)) == 0);
	free(g), free(p), free(m), free(v), free(p2), free(m2), free(v2);
	printf("%s norm_and_adamw_kernels_give_their_bodies_bits\n", fails ? "FAIL" : "PASS");
	return fails;
}

/*
 * The causal convolution, forward and backward, over 1 to 64 channels, 1
 * and 4 taps, dilations 1 and 3, both directions and lines shorter than the
 * kernel's reach: the GPU gives the bodies' bits (one thread per output
 * value, each sum in the body's order).
 */
int td_devcheck_conv_kernels_give_their_bodies_bits(void)
{
	static const size_t chans[] = {1, 37, 64}, lengths[] = {1, 5, 28};
	const size_t lines = 301;
	int fails = 0;

	for (size_t ci = 0; ci < 3; ci++)
		for (size_t li = 0; li < 3; li++)
			for (int case_ = 0; case_ < 8; case_++) {
				const size_t c = chans[ci], len = lengths[li], n = lines * len * c;
				const td_op_conv s = {case_ & 1 ? 4 : 1, case_ & 2 ? 3 : 1, c, len, case_ >> 2};
				const size_t nw = (s.taps + 1) * c;
				float *x = dev_alloc(n), *y = dev_alloc(n), *y2 = dev_alloc(n);
				float *dy = dev_alloc(n), *dx = dev_alloc(n), *dx2 = dev_alloc(n);
				float *w = dev_alloc(nw), *g = dev_alloc(nw), *g2 = dev_alloc(nw);

				dev_fill(x, n, 2), dev_fill(dy, n, 1), dev_fill(w, nw, 1);
				dev_fill(g, nw, 0.5), memcpy(g2, g, nw * sizeof *g);
				for (size_t l = 0; l < lines; l++)
					for (size_t t = 0; t < len; t++)
						for (size_t k = 0; k < c; k++) {
							td_op_conv_forward(y + l * len * c, x + l * len * c, w,
									   w + s.taps * c, &s, t, k);
							td_op_conv_dx(dx + l * len * c, dy + l * len * c, w,
								      &s, t, k);
						}
				for (size_t i = 0; i <= s.taps; i++)
					for (size_t k = 0; k < c; k++)
						td_op_conv_grad(g, dy, x, &s, lines, i, k);
				CHECK((td_cuda_conv_forward(y2, x, w, lines, &s)) == 0);
				CHECK((td_cuda_conv_backward(dx2, g2, dy, x, w, lines, &s)) == 0);
				CHECK((dev_differ(y, y2, n) + dev_differ(dx, dx2, n) +
				       dev_differ(g, g2, nw)) == 0);
				free(x), free(y), free(y2), free(dy), free(dx), free(dx2), free(w);
				free(g), free(g2);
			}
	printf("%s conv_kernels_give_their_bodies_bits\n", fails ? "FAIL" : "PASS");
	return fails;
}

/*
 * The recurrences' map on lines of one step on the CUDA executor: M from
 * B, C and D, less a second product (the CLRU's), then a gradient added
 * to by a strided product and dM's diagonal, at C = 24, N = 33; the
 * failed checks.
 */
static int map_case(void)
{
	const size_t c = 24, n = 33;
	float *b = dev_alloc(n * c), *cm = dev_alloc(c * n), *d = dev_alloc(c);
	float *mm = dev_alloc(c * c), *mm2 = dev_alloc(c * c), *g = dev_alloc(n * c);
	float *g2 = dev_alloc(n * c), *bufs[6] = {NULL};
	const td_exec *x = NULL;
	int fails = 0;

	dev_fill(b, n * c, 1), dev_fill(cm, c * n, 1), dev_fill(d, c, 1), dev_fill(g, n * c, 1);
	memcpy(g2, g, n * c * sizeof *g);
	for (size_t r = 0; r < c; r++)
		for (size_t q = 0; q < c; q++) {
			td_op_product(mm, c, 1, b, 1, c, cm, n, 1, n, d, 0, r, q);
			td_op_product(mm, c, 1, cm, 1, c, b, n, 1, n, NULL, -1, r, q);
		}
	for (size_t r = 0; r < n; r++)
		for (size_t q = 0; q < c; q++)
			td_op_product(g, c, 1, cm, 1, n, mm, c, 1, c, NULL, 1, r, q);
	for (size_t i = 0; i < c; i++)
		g[i] += mm[i * c + i];
	CHECK((td_cuda_exec_new(&x, sizeof(float))) == 0);
	for (int i = 0; x && i < 6; i++)
		CHECK((x->alloc(x, &bufs[i], c * n * sizeof(float))) == 0);
	if (x && bufs[5]) {
		float *xb = bufs[0], *xc = bufs[1], *xd = bufs[2], *xm = bufs[3], *xg = bufs[4];

		CHECK((x->upload(x, xb, b, n * c * sizeof *b) || x->upload(x, xc, cm, n * c * sizeof *b) ||
		       x->upload(x, xd, d, c * sizeof *d) || x->upload(x, xg, g2, n * c * sizeof *g) ||
		       x->products(x, xm, c, 1, xb, 1, c, xc, n, 1, c, c, n, xd, 0) ||
		       x->products(x, xm, c, 1, xc, 1, c, xb, n, 1, c, c, n, NULL, -1) ||
		       x->products(x, xg, c, 1, xc, 1, n, xm, c, 1, n, c, c, NULL, 1) ||
		       x->diag_add(x, xg, xm, c) || x->download(x, mm2, xm, c * c * sizeof *mm) ||
		       x->download(x, g2, xg, n * c * sizeof *g)) == 0);
		CHECK((dev_differ(mm, mm2, c * c) + dev_differ(g, g2, n * c)) == 0);
	}
	for (int i = 0; x && i < 6; i++)
		x->release(x, bufs[i]);
	td_cuda_exec_free(x);
	free(b), free(cm), free(d), free(mm), free(mm2), free(g), free(g2);
	return fails;
}

/*
 * The LRU's recurrence and its adjoint on lines of 1 to 30 steps both
 * ways, and its decay and skip gradients: the GPU gives the bodies' bits;
 * and so does the recurrences' map on lines of one step (map_case).
 */
int td_devcheck_lru_kernels_give_their_bodies_bits(void)
{
	static const size_t states[] = {1, 16, 33}, lengths[] = {1, 2, 30};
	const size_t lines = 257, c = 24;
	int fails = 0;

	for (size_t si = 0; si < 3; si++)
		for (size_t li = 0; li < 3; li++)
			for (int rev = 0; rev < 2; rev++) {
				const size_t n = states[si], len = lengths[li], pn = lines * len * n;
				const size_t pc = lines * len * c;
				float *h = dev_alloc(pn), *h2 = dev_alloc(pn), *g = dev_alloc(pn);
				float *g2 = dev_alloc(pn), *a = dev_alloc(n), *dy = dev_alloc(pc);
				float *x = dev_alloc(pc), *da = dev_alloc(n), *da2 = dev_alloc(n);
				float *dd = dev_alloc(c), *dd2 = dev_alloc(c);

				dev_fill(h, pn, 1), dev_fill(g, pn, 1), dev_fill(a, n, 1);
				dev_fill(dy, pc, 1), dev_fill(x, pc, 2);
				memcpy(h2, h, pn * sizeof *h), memcpy(g2, g, pn * sizeof *g);
				for (size_t l = 0; l < lines; l++)
					for (size_t k = 0; k < n; k++) {
						td_op_lru_scan(h + l * len * n, a, len, n, rev, k);
						td_op_lru_scan_adjoint(g + l * len * n, a, len, n, rev, k);
					}
				for (size_t k = 0; k < n; k++)
					da[k] = td_op_lru_decay_grad(g, h, lines, len, n, rev, k);
				for (size_t k = 0; k < c; k++)
					dd[k] = td_op_lru_skip_grad(dy, x, lines * len, c, k);
				CHECK((td_cuda_lru_scan(h2, a, lines, len, n, rev, 0)) == 0);
				CHECK((td_cuda_lru_scan(g2, a, lines, len, n, rev, 1)) == 0);
				CHECK((dev_differ(h, h2, pn) + dev_differ(g, g2, pn)) == 0);
				CHECK((td_cuda_lru_grads(da2, dd2, g, h, dy, x, lines, len, n, c, rev)) == 0);
				CHECK((dev_differ(da, da2, n) + dev_differ(dd, dd2, c)) == 0);
				free(h), free(h2), free(g), free(g2), free(a), free(dy), free(x), free(da);
				free(da2), free(dd), free(dd2);
			}
	fails += map_case();
	printf("%s lru_kernels_give_their_bodies_bits\n", fails ? "FAIL" : "PASS");
	return fails;
}

/*
 * One shape of attention's pairs: the bodies in loops against the CUDA
 * executor's attend and attend_backward; the failed checks.
 */
static int attention_case(const td_op_attn *a, size_t lines)
{
	const size_t c = a->heads * a->d, p = lines * a->length, na = lines * a->heads * a->length;
	const size_t nw = na * a->tp;
	float *qkv = dev_alloc(p * 3 * c), *dctx = dev_alloc(p * c), *att = dev_alloc(nw);
	float *att2 = dev_alloc(nw), *ctx = dev_alloc(p * c), *ctx2 = dev_alloc(p * c);
	float *ds = dev_alloc(nw), *dqkv = dev_alloc(p * 3 * c), *dqkv2 = dev_alloc(p * 3 * c);
	float *bufs[6] = {NULL};
	const size_t sizes[6] = {p * 3 * c, p * c, nw, p * c, nw, p * 3 * c};
	const td_exec *x = NULL;
	int fails = 0;

	dev_fill(qkv, p * 3 * c, 2), dev_fill(dctx, p * c, 1);
	for (size_t i = 0; i < na; i++)
		td_op_attend(att, ctx, qkv, a, i);
	for (size_t i = 0; i < na; i++)
		td_op_attend_back_query(ds, dqkv, att, qkv, dctx, a, i);
	for (size_t i = 0; i < na; i++)
		td_op_attend_back_key(dqkv, ds, att, qkv, dctx, a, i);
	CHECK((td_cuda_exec_new(&x, sizeof(float))) == 0);
	for (int i = 0; x && i < 6; i++)
		CHECK((x->alloc(x, &bufs[i], sizes[i] * sizeof(float))) == 0);
	if (x && bufs[5]) { /* qkv, dctx, att, ctx, ds, dqkv */
		CHECK((x->upload(x, bufs[0], qkv, sizes[0] * sizeof *qkv) ||
		       x->upload(x, bufs[1], dctx, sizes[1] * sizeof *dctx) ||
		       x->attend(x, bufs[2], bufs[3], bufs[0], lines, a) ||
		       x->download(x, att2, bufs[2], nw * sizeof *att) ||
		       x->download(x, ctx2, bufs[3], p * c * sizeof *ctx) ||
		       x->attend_backward(x, bufs[5], bufs[4], bufs[2], bufs[0], bufs[1], lines, a) ||
		       x->download(x, dqkv2, bufs[5], p * 3 * c * sizeof *dqkv)) == 0);
		CHECK((dev_differ(att, att2, nw) + dev_differ(ctx, ctx2, p * c)) == 0);
		CHECK((dev_differ(dqkv, dqkv2, p * 3 * c)) == 0);
	}
	for (int i = 0; x && i < 6; i++)
		x->release(x, bufs[i]);
	td_cuda_exec_free(x);
	free(qkv), free(dctx), free(att), free(att2), free(ctx), free(ctx2), free(ds), free(dqkv);
	free(dqkv2);
	return fails;
}

/*
 * Attention's pairs on lines of 1, 7 and 12 steps (weights of stride 1,
 * 8 and 16), causal or not, both ways, 2 heads of 5 channels: the GPU's
 * weights, outputs and dq, dk, dv are the bodies' bits.
 */
int td_devcheck_attention_kernels_give_their_bodies_bits(void)
{
	static const size_t lengths[] = {1, 7, 12};
	int fails = 0;

	for (size_t li = 0; li < 3; li++)
		for (int causal = 0; causal < 2; causal++)
			for (int rev = 0; rev < 2; rev++) {
				const size_t t = lengths[li];
				const td_op_attn a = {t,	  2,	  5, t == 1 ? 1 : (t + 7) / 8 * 8,
						      0.4472136f, causal, rev};

				fails += attention_case(&a, 3);
			}
	printf("%s attention_kernels_give_their_bodies_bits\n", fails ? "FAIL" : "PASS");
	return fails;
}

/*
 * Ten optimizer steps on the device without a wait between them, a NaN,
 * an infinity before a NaN in a later part, and one clipped step among
 * them: p, m, v and the state (counts, last figures, kept skips) are the
 * bodies' bits.
 */
int td_devcheck_optimizer_steps_give_their_bodies_bits(void)
{
	const size_t n = 3 * TD_OPS_NORM_PART + 17, steps = 10;
	float *p = dev_alloc(n), *m = dev_alloc(n), *v = dev_alloc(n), *g = dev_alloc(steps * n);
	float *p2 = dev_alloc(n), *m2 = dev_alloc(n), *v2 = dev_alloc(n);
	double lr[10], bc1[11], bc2[11], part[4];
	td_op_opt_state st = {0}, st2;
	size_t bad[4];
	int fails = 0;

	st.step.beta1 = 0.9, st.step.beta2 = 0.999, st.step.eps = 1e-8;
	for (size_t t = 0; t <= steps; t++)
		bc1[t] = 1.0 - pow(0.9, (double)t), bc2[t] = 1.0 - pow(0.999, (double)t);
	dev_fill(p, n, 1), dev_fill(g, steps * n, 0.01);
	for (size_t i = 0; i < n; i++)
		g[4 * n + i] *= 100; /* step 4 clipped */
	g[2 * n + 5] = NAN, g[6 * n + 2 * TD_OPS_NORM_PART] = INFINITY, g[6 * n + n - 1] = NAN;
	memcpy(p2, p, n * sizeof *p), st2 = st;
	for (size_t k = 0; k < steps; k++) {
		const float *gk = g + k * n;
		size_t q = 0;

		lr[k] = 0.003 * (double)(k + 1) / (double)steps;
		for (size_t i0 = 0; i0 < n; i0 += TD_OPS_NORM_PART, q++)
			part[q] = td_op_sumsq_checked(gk, i0, n - i0 < TD_OPS_NORM_PART ? n : i0 + TD_OPS_NORM_PART,
						      &bad[q]);
		td_op_opt_decide(&st, part, bad, q, gk, lr[k], 1.0, 0.01, bc1, bc2);
		for (size_t i = 0; i < n && st.applied; i++)
			td_op_adamw(p, m, v, gk, &st.step, i);
	}
	CHECK((td_cuda_adamw_steps(p2, m2, v2, &st2, g, n, steps, lr, 1.0, 0.01, bc1, bc2)) == 0);
	CHECK((dev_differ(p, p2, n) + dev_differ(m, m2, n) + dev_differ(v, v2, n)) == 0);
	CHECK(st.s == 10 && st.t == 8 && st.skips == 2 && st.skip[1].index == 2 * TD_OPS_NORM_PART);
	CHECK(st2.s == st.s && st2.t == st.t && st2.skips == st.skips && st2.unread == st.unread);
	CHECK(memcmp(&st2.step, &st.step, sizeof st.step) == 0 && memcmp(&st2.norm, &st.norm, sizeof st.norm) == 0);
	for (int k = 0; k < 2; k++)
		CHECK(st2.skip[k].s == st.skip[k].s && st2.skip[k].index == st.skip[k].index &&
		      st2.skip[k].nan == st.skip[k].nan);
	free(p), free(m), free(v), free(g), free(p2), free(m2), free(v2);
	printf("%s optimizer_steps_give_their_bodies_bits\n", fails ? "FAIL" : "PASS");
	return fails;
}

/*
 * Folds and unfolds with selection over 97 examples of 784 cells (a
 * permutation of the cells, every seventh absent on the lattice, every
 * eleventh in its example), with and without masks per example: the GPU
 * gives the body's values, absent cells exactly 0 whatever they held.
 */
int td_devcheck_fold_kernels_give_their_bodies_values(void)
{
	const size_t batch = 97, n = 784, c = 9, all = batch * n * c;
	float *src = dev_alloc(all), *dst = dev_alloc(all), *dst2 = dev_alloc(all);
	size_t *map = calloc(n, sizeof *map);
	uint8_t *mask = calloc(n, 1), *emask = calloc(batch * n, 1);
	int fails = 0;

	if (!map || !mask || !emask) {
		fprintf(stderr, "device_ops: out of memory for the fold's maps\n");
		exit(2);
	}
	dev_fill(src, all, 3);
	src[5] = NAN, src[6 * c] = INFINITY;
	for (size_t i = 0; i < n; i++)
		map[i] = (i * 29 + 3) % n, mask[i] = i % 7 != 0; /* 29 is prime to 784 */
	for (size_t i = 0; i < batch * n; i++)
		emask[i] = i % 11 != 4;
	for (int k = 0; k < 4; k++) {
		const uint8_t *em = k & 2 ? emask : NULL;

		for (size_t i = 0; i < all; i++)
			td_op_fold_select(dst, src, map, mask, em, n, c, k & 1, i);
		CHECK((td_cuda_fold_select(dst2, src, map, mask, em, batch, n, c, k & 1)) == 0);
		CHECK((dev_differ(dst, dst2, all)) == 0);
	}
	free(src), free(dst), free(dst2), free(map), free(mask), free(emask);
	printf("%s fold_kernels_give_their_bodies_values\n", fails ? "FAIL" : "PASS");
	return fails;
}

/* The negative control's executor: the CUDA one, but the residual add drops its second term. */
static const td_exec *control_of;

static int select_dropping_b(const td_exec *x, float *dst, const float *a, const float *b,
			     const uint8_t *mask, const uint8_t *emask, size_t n_cells, size_t rows,
			     size_t channels)
{
	(void)x, (void)b;
	return control_of->select(control_of, dst, a, NULL, mask, emask, n_cells, rows, channels);
}

/* The model's y, dx and gradients on executor x: one forward and backward, downloaded; a failure counted. */
static void xmodel_run(const td_exec *x, td_model *m, const float *xin, const float *dyin,
		       size_t n_in, size_t n_out, size_t batch, float *y, float *dx, float *grads,
		       int *fails)
{
	td_xmodel *xm = NULL;
	float *dxin = NULL, *dy = NULL, *ddy = NULL, *ddx = NULL;

	if (td_xmodel_new(&xm, x, m) || x->alloc(x, &dxin, n_in * sizeof *dxin) ||
	    x->alloc(x, &dy, n_out * sizeof *dy) || x->alloc(x, &ddy, n_out * sizeof *ddy) ||
	    x->alloc(x, &ddx, n_in * sizeof *ddx) ||
	    x->upload(x, dxin, xin, n_in * sizeof *dxin) ||
	    x->upload(x, ddy, dyin, n_out * sizeof *ddy) || td_xmodel_forward(xm, dy, dxin, batch) ||
	    td_xmodel_backward(xm, ddx, ddy, batch) || x->download(x, y, dy, n_out * sizeof *dy) ||
	    x->download(x, dx, ddx, n_in * sizeof *ddx) || td_xmodel_download(xm, NULL, grads)) {
		printf("  failed: the model on the %s executor: %s\n", x->name, td_error_last());
		++*fails;
	}
	x->release(x, dxin), x->release(x, dy), x->release(x, ddy), x->release(x, ddx);
	td_xmodel_free(xm);
}

/* max |a - b| over max |a|; infinity where either holds a NaN. */
static double max_rel_diff(const float *a, const float *b, size_t n)
{
	double d = 0, top = 0;

	for (size_t i = 0; i < n; i++) {
		if (isnan(a[i]) || isnan(b[i]))
			return INFINITY;
		d = fmax(d, fabs((double)a[i] - b[i])), top = fmax(top, fabs((double)a[i]));
	}
	return d / (top > 0 ? top : 1);
}

/*
 * The Fashion-MNIST recipe's kind of model (axial scan, conv mixer, the
 * channel MLP, a head per cell) at 12 x 10 cells with absent ones, batch 8,
 * and the same with the LRU and the complex LRU mixers (32 states, whose
 * more products per layer are of length 32 or 64, within the same
 * estimate; the CLRU's decay takes the device's exp, cos and sin, an ulp
 * or so of lambda, far below it), and the two at 1 x 10 cells, where
 * the lines along h are one step and the recurrences are their map y =
 * x M (M's products in double; products of length 32 in y and 80 in dM,
 * within the same bounds), flatten models of the conv and the LRU (one
 * line of 113 present cells an example: the same products) and a kernel
 * model of the LRU (products of length 12 or 10 per block, R Z^T of
 * length up to 320 summed over up to 96 blocks in one order on both:
 * within the same bounds), and attention on lines of 12 and 10 steps
 * (scan) and of one step (kernel without time: every pair's one key), one
 * head of 32 channels (scores of length 32, the pairs' products of length
 * 12 or less; the softmax's exp is fastmath.h's, one IEEE operation at a
 * time, so bitwise), on the CUDA executor against the host's: y, dx and
 * every gradient. Only the GEMMs may differ: every other
 * operation is an ops.h body, bitwise on both (checked above; M's
 * products, not checked there, are sums in double in one order on
 * both). cuBLAS sums in another order than td_gemm: a value
 * of a product of length k carries at most gamma_k sum |a||b| of rounding
 * on either side (gamma_k ~ k 2^-24). Forward, k <= 64: 2 gamma_64 ~ 7.6e-6
 * of sum |a||b|, within about 8x the value's size for these random signs,
 * ~6e-5 per product and ten products in a row (the norms rescale, they do
 * not amplify) ~6e-4 of max |y|: the bound is 2^-8 (3.9e-3). Backward, the
 * weight gradients sum over k = 960 rows: 2 gamma_960 ~ 1.1e-4 of sum
 * |a||b|, ~30x a value's size for random signs (sqrt 960), ~3.4e-3 of it,
 * and a fraction of that of the slab's max |g|: the bound is 2^-6 (1.6e-2)
 * of max |dx| and of max |g|. The negative control (the residual add
 * dropping the block's output) differs by the size of y, and must fail.
 */
/* One model of the check below: mixer kind, family fam, rows x 10 cells; the failed checks. */
static int xmodel_case(td_mixer_kind kind, td_block_family fam, size_t rows)
{
	static const char *const hw[] = {"h", "w"};
	const size_t shape[] = {rows, 10}, batch = 8, n = rows * 10, n_in = batch * n,
		     n_out = batch * n * 10;
	td_lattice_spec ls = TD_LATTICE_SPEC_INIT;
	td_model_opts o = TD_MODEL_OPTS_INIT;
	td_lattice *lat = NULL;
	td_plan *plan = NULL;
	td_model *m = NULL;
	const td_exec *cuda = NULL;
	td_exec control;
	uint8_t mask[120];
	float *xin = dev_alloc(n_in), *dyin = dev_alloc(n_out), *y = dev_alloc(n_out);
	float *y2 = dev_alloc(n_out), *dx = dev_alloc(n_in), *dx2 = dev_alloc(n_in), *g = NULL;
	float *g2 = NULL;
	double ry = INFINITY, rdx = INFINITY, rg = INFINITY, bad = 0;
	size_t np = 0;
	int fails = 0;

	for (size_t i = 0; i < n; i++)
		mask[i] = i % 17 != 5;
	ls.rank = 2, ls.shape = shape, ls.names = hw, ls.mask = mask, ls.mask_len = n;
	CHECK(td_lattice_new(&lat, &ls) == 0);
	CHECK(td_plan_cyclic(&plan, hw, 2, 4, hw, 2) == 0);
	o.family = fam, o.plan = fam == TD_BLOCK_SCAN ? plan : NULL, o.n_layers = 4;
	o.mixer.kind = kind, o.mixer.kernel_size = 4;
	o.in = 1, o.width = 32, o.out = 10, o.ffn = 64, o.head_per_cell = 1, o.max_batch = batch;
	CHECK(lat && plan && td_model_new(&m, lat, &o) == 0);
	CHECK((td_cuda_exec_new(&cuda, sizeof(float))) == 0);
	if (m && cuda) {
		np = td_model_n_params(m), g = dev_alloc(np), g2 = dev_alloc(np);
		td_model_init(m, 7);
		dev_fill(xin, n_in, 1), dev_fill(dyin, n_out, 0.01);
		xmodel_run(td_exec_host(), m, xin, dyin, n_in, n_out, batch, y, dx, g, &fails);
		xmodel_run(cuda, m, xin, dyin, n_in, n_out, batch, y2, dx2, g2, &fails);
		ry = max_rel_diff(y, y2, n_out), rdx = max_rel_diff(dx, dx2, n_in);
		rg = max_rel_diff(g, g2, np);
		control = *cuda, control.select = select_dropping_b, control_of = cuda;
		xmodel_run(&control, m, xin, dyin, n_in, n_out, batch, y2, dx2, g2, &fails);
		bad = max_rel_diff(y, y2, n_out);
	}
	printf("  %s %s, %zu x 10: the GPU's against the host's, over the max of the host's: y "
	       "%.3g (bound %.3g), dx %.3g, gradients %.3g (bound %.3g); the control's y %.3g\n",
	       fam == TD_BLOCK_SCAN ? "scan" : fam == TD_BLOCK_FLATTEN ? "flatten" : "kernel",
	       kind == TD_MIXER_LRU		? "lru"
	       : kind == TD_MIXER_CLRU	? "clru"
	       : kind == TD_MIXER_ATTENTION ? "attention"
					      : "conv",
	       rows, ry,
	       1.0 / 256, rdx, rg, 1.0 / 64, bad);
	CHECK(ry <= 1.0 / 256);
	CHECK(rdx <= 1.0 / 64 && rg <= 1.0 / 64);
	CHECK(bad > 1.0 / 256);
	td_cuda_exec_free(cuda), td_model_free(m), td_plan_free(plan), td_lattice_free(lat);
	free(xin), free(dyin), free(y), free(y2), free(dx), free(dx2), free(g), free(g2);
	return fails;
}

int td_devcheck_xmodel_agrees_with_the_host(void)
{
	const td_block_family scan = TD_BLOCK_SCAN, flatten = TD_BLOCK_FLATTEN;
	int fails = xmodel_case(TD_MIXER_CONV, scan, 12) + xmodel_case(TD_MIXER_LRU, scan, 12) +
		    xmodel_case(TD_MIXER_CLRU, scan, 12) + xmodel_case(TD_MIXER_LRU, scan, 1) +
		    xmodel_case(TD_MIXER_CLRU, scan, 1) + xmodel_case(TD_MIXER_LRU, flatten, 12) +
		    xmodel_case(TD_MIXER_CONV, flatten, 12) +
		    xmodel_case(TD_MIXER_LRU, TD_BLOCK_KERNEL, 12) +
		    xmodel_case(TD_MIXER_ATTENTION, scan, 12) +
		    xmodel_case(TD_MIXER_ATTENTION, TD_BLOCK_KERNEL, 12);

	printf("%s xmodel_agrees_with_the_host\n", fails ? "FAIL" : "PASS");
	return fails;
}

/*
 * A product as cuBLAS's reordering may round it: the host's, then each
 * value of C moved by -e, 0 or +e of itself in a fixed pattern, e =
 * sqrt(k) 2^-24 (a sum of k terms whose rounding errors have random
 * signs: the typical size of the reordering's difference).
 */
static int gemm_reordered(const td_exec *x, float *c, size_t ldc, const float *a, size_t lda,
			  const float *b, size_t ldb, size_t m, size_t n, size_t k, int trans_a,
			  int trans_b, float alpha, float beta)
{
	const td_exec *h = td_exec_host();
	const double e = sqrt((double)k) * 0x1p-24;
	int err = h->gemm(h, c, ldc, a, lda, b, ldb, m, n, k, trans_a, trans_b, alpha, beta);

	(void)x;
	for (size_t i = 0; !err && i < m; i++)
		for (size_t j = 0; j < n; j++)
			c[i * ldc + j] *= (float)(1 + ((double)((i * 7 + j * 13) % 3) - 1) * e);
	return err;
}

/*
 * The run of cfg's sets on executor x into dir, stopping after stop_after
 * steps (0: none) or resuming from resume (NULL: none): 0 or the failure, said.
 */
static int train_on(const td_exec *x, const char *dir, const char *const *sets, size_t n_sets,
		    int64_t stop_after, const char *resume)
{
	td_config_spec spec = TD_CONFIG_SPEC_INIT;
	td_train_opts o = TD_TRAIN_OPTS_INIT;
	td_config *cfg = NULL;
	int err;

	spec.overrides = sets, spec.n_overrides = n_sets;
	o.out_dir = dir, o.quiet = 1, o.exec = x, o.stop_after = stop_after, o.resume = resume;
	err = td_config_new(&cfg, &spec);
	if (!err)
		err = td_train(cfg, &o);
	if (err)
		printf("  failed: training on the %s executor into %s: %s\n", x->name, dir,
		       td_error_last());
	td_config_free(cfg);
	return err;
}

/* The value of "key": after the last "kind":"<kind>" line of dir's log; NAN when absent. */
static double logged(const char *dir, const char *kind, const char *key)
{
	char path[4200], want[64], *text = NULL, *at = NULL, *p;
	size_t len = 0;
	double v = NAN;

	snprintf(path, sizeof path, "%s/log.jsonl", dir);
	snprintf(want, sizeof want, "\"kind\":\"%s\"", kind);
	if (td_file_read(path, &text, &len))
		return NAN;
	for (p = strstr(text, want); p; p = strstr(p + 1, want))
		at = p;
	snprintf(want, sizeof want, "\"%s\":", key);
	if (at && (p = strstr(at, want)))
		v = strtod(p + strlen(want), NULL);
	free(text);
	return v;
}

/* 1 when the files dir/name of a and b differ or cannot be read. */
static int run_files_differ(const char *a, const char *b, const char *name)
{
	char pa[4200], pb[4200], *da = NULL, *db = NULL;
	size_t na = 0, nb = 0;
	int d;

	snprintf(pa, sizeof pa, "%s/%s", a, name), snprintf(pb, sizeof pb, "%s/%s", b, name);
	d = td_file_read(pa, &da, &na) || td_file_read(pb, &db, &nb) || na != nb ||
	    memcmp(da, db, na);
	free(da), free(db);
	return d;
}

static double now_s(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/*
 * tdtrain's run on the GPU against the same run on the host executor (the
 * CPU run bit for bit, tests/test_xtrain.c): the synthetic row task, 200
 * steps, with mixer (conv, lru, clru, gru, lstm or attention). Checked:
 *   - the same seed twice on the GPU: log.jsonl and checkpoint.bin equal,
 *     and the run stopped after 100 steps and resumed on the GPU ends
 *     with the uninterrupted run's checkpoint.bin;
 *   - the loss of the last progress window and the final evaluation's
 *     loss within tol of the host's. The tolerance is measured, not
 *     guessed: the same run on the host with every product's values moved
 *     by sqrt(k) 2^-24 of themselves (gemm_reordered: what a reordered
 *     sum of k terms typically changes) diverges from the host's by d over
 *     these steps; tol = 8 d, with a floor of 2^-16 of the loss (a run
 *     that does not diverge at all). Everything else the GPU computes is
 *     the host's bodies, bitwise (the checks above), so only the
 *     products' rounding is left, and 8x leaves room for a reordering
 *     worse than typical;
 *   - the negative control (the residual add dropping the block's output,
 *     on the GPU) must land farther than tol from the host.
 * Prints the GPU's and the host's time for the 200 steps.
 */
static int training_case(const char *mixer, const char *root)
{
	char mset[32], host[4200], gpu[4200], gpu2[4200], noisy[4200], ctl[4200], split[4200];
	char ckpt[4300];
	const char *sets[] = {"dataset=synth-row", "width=16", "layers=4", "steps=200",
			      "warmup=20", "batch=32", "log_every=50", "eval_every=200",
			      "eval_batches=8", "lr=0.03", mset};
	const size_t n_sets = sizeof sets / sizeof sets[0];
	const td_exec *cuda = NULL;
	td_exec reordered = *td_exec_host(), control;
	double t0, t_host = 0, t_gpu = 0, d[2] = {INFINITY, INFINITY}, dn[2] = {0, 0};
	double dc[2] = {0, 0}, tol[2] = {0, 0};
	static const char *const kind[] = {"step", "eval"};
	int fails = 0;

	snprintf(mset, sizeof mset, "mixer=%s", mixer);
	snprintf(host, sizeof host, "%s/%s-host", root, mixer);
	snprintf(gpu, sizeof gpu, "%s/%s-gpu", root, mixer);
	snprintf(gpu2, sizeof gpu2, "%s/%s-gpu2", root, mixer);
	snprintf(noisy, sizeof noisy, "%s/%s-reordered", root, mixer);
	snprintf(ctl, sizeof ctl, "%s/%s-control", root, mixer);
	snprintf(split, sizeof split, "%s/%s-split", root, mixer);
	reordered.gemm = gemm_reordered;
	CHECK(td_cuda_exec_new(&cuda, sizeof(float)) == 0);
	if (!cuda)
		return fails;
	t0 = now_s();
	CHECK(train_on(td_exec_host(), host, sets, n_sets, 0, NULL) == 0);
	t_host = now_s() - t0, t0 = now_s();
	CHECK(train_on(cuda, gpu, sets, n_sets, 0, NULL) == 0);
	t_gpu = now_s() - t0;
	CHECK(train_on(cuda, gpu2, sets, n_sets, 0, NULL) == 0);
	CHECK(train_on(&reordered, noisy, sets, n_sets, 0, NULL) == 0);
	control = *cuda, control.select = select_dropping_b, control_of = cuda;
	CHECK(train_on(&control, ctl, sets, n_sets, 0, NULL) == 0);
	CHECK(run_files_differ(gpu, gpu2, "log.jsonl") == 0);
	CHECK(run_files_differ(gpu, gpu2, "checkpoint.bin") == 0);
	snprintf(ckpt, sizeof ckpt, "%s/checkpoint.bin", split);
	CHECK(train_on(cuda, split, sets, n_sets, 100, NULL) == 0);
	CHECK(train_on(cuda, split, sets, n_sets, 0, ckpt) == 0);
	CHECK(run_files_differ(gpu, split, "checkpoint.bin") == 0);
	for (int i = 0; i < 2; i++) {
		const double l = logged(host, kind[i], "loss");

		d[i] = fabs(logged(gpu, kind[i], "loss") - l);
		dn[i] = fabs(logged(noisy, kind[i], "loss") - l);
		dc[i] = fabs(logged(ctl, kind[i], "loss") - l);
		tol[i] = fmax(8 * dn[i], fabs(l) * 0x1p-16);
		printf("  %s, %s loss: host %.9g, GPU off by %.3g (tol %.3g = max(8 x %.3g "
		       "reordered, 2^-16 of it)), the control off by %.3g\n",
		       mixer, kind[i], l, d[i], tol[i], dn[i], dc[i]);
		CHECK(d[i] <= tol[i]);
		CHECK(dc[i] > tol[i]);
	}
	printf("  %s: 200 steps of batch 32 in %.3f s on the GPU, %.3f s on the host executor "
	       "(one thread)\n",
	       mixer, t_gpu, t_host);
	td_cuda_exec_free(cuda);
	return fails;
}

int td_devcheck_training_agrees_with_the_host(void)
{
	char root[] = "/tmp/td-devcheck-XXXXXX";
	int fails = 0;

	if (!mkdtemp(root)) {
		printf("FAIL training_agrees_with_the_host: no temporary directory\n");
		return 1;
	}
	fails = training_case("conv", root) + training_case("lru", root) +
		training_case("clru", root) + training_case("gru", root) +
		training_case("lstm", root) + training_case("attention", root);
	printf("%s training_agrees_with_the_host (runs in %s)\n", fails ? "FAIL" : "PASS", root);
	return fails;
}

/* The negative control's executor: the CUDA one, but every upload then waits for the GPU. */
static int upload_then_wait(const td_exec *x, void *dst, const void *src, size_t bytes)
{
	char byte;
	int err = control_of->upload(control_of, dst, src, bytes);

	(void)x;
	return err ? err : control_of->download(control_of, &byte, dst, bytes ? 1 : 0);
}

/*
 * The seconds 10 steps on x take to queue behind a kernel that holds the
 * GPU for hold seconds, and in *busy whether the GPU was still busy after
 * (a step that waited for the device would have waited out the hold).
 * After two steps and a read as a warm-up (cuBLAS and the kernels load on
 * first use). A negative time on failure.
 */
static double queue_time(const td_exec *x, const td_exec *cuda, double hold, int *busy)
{
	static const size_t shape[] = {8, 8};
	static const char *const hw[] = {"h", "w"};
	const size_t batch = 32, n = 64;
	td_lattice_spec ls = TD_LATTICE_SPEC_INIT;
	td_model_opts o = TD_MODEL_OPTS_INIT;
	td_adamw_opts ao = TD_ADAMW_OPTS_INIT;
	td_lattice *lat = NULL;
	td_plan *plan = NULL;
	td_model *m = NULL;
	td_adamw *opt = NULL;
	td_xtrain *xt = NULL;
	td_counters *c = NULL;
	td_firewall fw = TD_FIREWALL_INIT;
	td_xtrain_read_out r;
	float *xin = dev_alloc(batch * n);
	int labels[32], err;
	double t = -1, t0;

	for (size_t i = 0; i < batch; i++)
		labels[i] = (int)(i % 8);
	dev_fill(xin, batch * n, 1);
	ls.rank = 2, ls.shape = shape, ls.names = hw;
	o.mixer.kind = TD_MIXER_CONV, o.in = 1, o.width = 16, o.out = 8, o.max_batch = batch;
	ao.total_steps = 100, ao.warmup = 10;
	if (!(err = td_lattice_new(&lat, &ls)) && !(err = td_plan_cyclic(&plan, hw, 2, 4, hw, 2)) &&
	    !(err = (o.plan = plan, td_model_new(&m, lat, &o))) &&
	    !(err = td_adamw_new(&opt, td_model_n_params(m), &ao)) &&
	    !(err = td_counters_new(&c, 8)) && !(err = td_xtrain_new(&xt, x, m, &ao, opt, 0)))
		for (int k = 0; k < 2 && !err; k++)
			err = td_xtrain_batch(xt, xin, NULL, labels, batch, 1);
	if (!err && !(err = td_xtrain_read(xt, &r, c, &fw)) &&
	    !(err = td_cuda_exec_hold(cuda, hold))) {
		t0 = now_s();
		for (int k = 0; k < 10 && !err; k++)
			err = td_xtrain_batch(xt, xin, NULL, labels, batch, 1);
		t = now_s() - t0;
		*busy = td_cuda_exec_busy(cuda);
		err = err ? err : td_xtrain_read(xt, &r, c, &fw);
	}
	if (err) {
		printf("  failed: steps on the %s executor: %s\n", x->name, td_error_last());
		t = -1;
	}
	td_xtrain_free(xt), td_counters_free(c), td_adamw_free(opt), td_model_free(m);
	td_plan_free(plan), td_lattice_free(lat), free(xin);
	return t;
}

/*
 * No training step waits for the GPU: 10 steps (upload, forward, loss,
 * backward, AdamW with its firewall) queue behind a kernel that holds the
 * GPU for 2 s in well under 1 s, and the GPU is still busy after them.
 * The negative control (every upload followed by a one-byte download)
 * must take the hold out.
 */
int td_devcheck_a_step_never_waits_for_the_gpu(void)
{
	const td_exec *cuda = NULL;
	td_exec control;
	double t = -1, tc = -1;
	int fails = 0, busy = -1, busy_c = -1;

	CHECK(td_cuda_exec_new(&cuda, sizeof(float)) == 0);
	if (cuda) {
		t = queue_time(cuda, cuda, 2.0, &busy);
		control = *cuda, control.upload = upload_then_wait, control_of = cuda;
		tc = queue_time(&control, cuda, 2.0, &busy_c);
	}
	printf("  10 steps queued behind a 2 s hold in %.3f s, the GPU %s after them; the control "
	       "took %.3f s\n",
	       t, busy == 1 ? "still busy" : "idle", tc);
	CHECK(t >= 0 && t < 1.0 && busy == 1);
	CHECK(tc >= 1.0);
	td_cuda_exec_free(cuda);
	printf("%s a_step_never_waits_for_the_gpu\n", fails ? "FAIL" : "PASS");
	return fails;
}

/*
 * The Fashion-MNIST recipe (configs/fmnist.conf, read from the working
 * directory) with device = cuda: its final accuracy on the 10,000 test
 * images must reach 88%, as on the CPU (bench/README.md); its time is
 * printed against the target of a minute. Skipped, saying so, where the
 * dataset is not in dir (NULL: Debian's place).
 */
int td_devcheck_fmnist_recipe_on_the_gpu(const char *dir)
{
	const char *set = "device=cuda";
	char root[] = "/tmp/td-fmnist-XXXXXX", out[64];
	td_config_spec spec = TD_CONFIG_SPEC_INIT;
	td_train_opts o = TD_TRAIN_OPTS_INIT;
	td_config *cfg = NULL;
	td_fmnist *probe = NULL;
	double t0, acc = NAN;
	int fails = 0, err;

	if (td_fmnist_load(&probe, dir, TD_FMNIST_TEST)) {
		printf("SKIP fmnist_recipe_on_the_gpu: %s (set FMNIST_DIR)\n", td_error_last());
		return 0;
	}
	td_fmnist_free(probe);
	CHECK(mkdtemp(root) != NULL);
	snprintf(out, sizeof out, "%s/run", root);
	spec.path = "configs/fmnist.conf", spec.overrides = &set, spec.n_overrides = 1;
	o.out_dir = out, o.quiet = 1, o.fmnist_dir = dir;
	t0 = now_s();
	err = td_config_new(&cfg, &spec);
	if (!err)
		err = td_train(cfg, &o);
	if (err)
		printf("  failed: the recipe on the GPU: %s\n", td_error_last());
	else
		acc = logged(out, "eval", "accuracy");
	printf("  the recipe on the GPU: accuracy %.4f on the 10,000 test images in %.1f s, "
	       "reading the data and the evaluation included (target: 0.88 in under 60 s); %s\n",
	       acc, now_s() - t0, out);
	CHECK(err == 0 && acc >= 0.88);
	td_config_free(cfg);
	printf("%s fmnist_recipe_on_the_gpu\n", fails ? "FAIL" : "PASS");
	return fails;
}

/*
 * The GPU benchmark: bench/core's whole-model cases (bench/cases.h: batch
 * 32, 28 x 28 cells, width 32, 4 layers, every family with every mixer),
 * one forward and one backward on the CUDA executor (bench/core's step,
 * without the optimizer), best of 20 after one to warm up, each ended by
 * a download so that the time is the GPU's work and not its queueing.
 * Prints a "gpu-bench CASE MS ms" line per case, which bench/torch_core.py
 * --cuda reads to run PyTorch eager on the same shapes beside it. Figures
 * only: fails only where a case cannot run.
 */
int td_devcheck_gpu_benchmark(void)
{
	const bench_shape sh = BENCH_SHAPE;
	bench_case cases[N_CASES];
	const size_t n_cases = make_cases(cases);
	td_lattice *lat = NULL;
	const td_exec *cuda = NULL;
	int fails = 0;

	CHECK(bench_lattice(&lat, &sh) == 0);
	CHECK(td_cuda_exec_new(&cuda, sizeof(float)) == 0);
	for (size_t i = 0; lat && cuda && i < n_cases; i++) {
		subject s;
		td_xmodel *xm = NULL;
		float *host = NULL, *x = NULL, *dy = NULL, *y = NULL, *dx = NULL, last;
		double best = INFINITY;
		int err;

		if (cases[i].lv != MODEL)
			continue;
		CHECK(subject_new(&s, &sh, &cases[i], lat, 1) == 0);
		CHECK((s.model && td_xmodel_new(&xm, cuda, s.model) == 0) == 1);
		host = dev_alloc(s.n_out);
		dev_fill(host, s.n_out, 1);
		CHECK((xm && !cuda->alloc(cuda, &x, s.n_in * sizeof *x) &&
		       !cuda->alloc(cuda, &dy, s.n_out * sizeof *dy) &&
		       !cuda->alloc(cuda, &y, s.n_out * sizeof *y) &&
		       !cuda->alloc(cuda, &dx, s.n_in * sizeof *dx) &&
		       !cuda->upload(cuda, x, host, s.n_in * sizeof *x) &&
		       !cuda->upload(cuda, dy, host, s.n_out * sizeof *dy)) == 1);
		for (int r = 0; r <= 20 && dx; r++) {
			double t = now_s();

			if ((err = td_xmodel_zero_grads(xm)) ||
			    (err = td_xmodel_forward(xm, y, x, sh.batch)) ||
			    (err = td_xmodel_backward(xm, dx, dy, sh.batch)) ||
			    (err = cuda->download(cuda, &last, dx, sizeof last))) {
				printf("  failed: %s: %s\n", cases[i].name, td_error_last());
				fails++;
				break;
			}
			t = now_s() - t;
			best = r > 0 && t < best ? t : best; /* run 0 warms up */
		}
		printf("gpu-bench %-22s %8.3f ms\n", cases[i].name, best * 1e3);
		cuda->release(cuda, x), cuda->release(cuda, dy), cuda->release(cuda, y);
		cuda->release(cuda, dx);
		td_xmodel_free(xm), subject_free(&s), free(host);
	}
	td_cuda_exec_free(cuda), td_lattice_free(lat);
	printf("%s gpu_benchmark\n", fails ? "FAIL" : "PASS");
	return fails;
}

#else /* the kernels are float: nothing to compare in a double build */

int td_devcheck_rmsnorm_kernels_give_their_bodies_bits(void)
{
	return -1;
}

int td_devcheck_softmax_and_relu_kernels_give_their_bodies_bits(void)
{
	return -1;
}

int td_devcheck_cross_entropy_kernel_agrees_with_its_body(void)
{
	return -1;
}

int td_devcheck_norm_and_adamw_kernels_give_their_bodies_bits(void)
{
	return -1;
}

int td_devcheck_conv_kernels_give_their_bodies_bits(void)
{
	return -1;
}

int td_devcheck_lru_kernels_give_their_bodies_bits(void)
{
	return -1;
}

int td_devcheck_attention_kernels_give_their_bodies_bits(void)
{
	return -1;
}

int td_devcheck_optimizer_steps_give_their_bodies_bits(void)
{
	return -1;
}

int td_devcheck_fold_kernels_give_their_bodies_values(void)
{
	return -1;
}

int td_devcheck_xmodel_agrees_with_the_host(void)
{
	return -1;
}

int td_devcheck_training_agrees_with_the_host(void)
{
	return -1;
}

int td_devcheck_a_step_never_waits_for_the_gpu(void)
{
	return -1;
}

int td_devcheck_fmnist_recipe_on_the_gpu(const char *dir)
{
	(void)dir;
	return -1;
}

int td_devcheck_gpu_benchmark(void)
{
	return -1;
}

#endif
