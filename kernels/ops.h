/*
 * ops.h - the bodies of the GPU's training kernels: one row, one channel,
 * one example or one element each, as plain functions that the kernels of
 * kernels/ops.cu call once per thread and tests/test_ops.c calls in loops
 * on the CPU, against the core's own functions.
 *
 * Each body takes the core's operations in the core's order (named beside
 * it), so on the CPU it gives the core's bits; on the GPU it gives them too
 * where every operation is one IEEE operation: ops.cu is built with
 * -fmad=false (no fused multiply-add), and the pow() of AdamW's bias
 * corrections is taken on the host and passed in. exp and log in double
 * (cross-entropy; the double build's softmax) are the device's own
 * functions there, within an ulp or two of the host's, not bitwise.
 *
 * Must never: reduce in an order that depends on the thread or the launch
 * (every sum here runs serially in a fixed order inside one body), use an
 * atomic, or allocate.
 */
#ifndef TD_OPS_H
#define TD_OPS_H

#include <stddef.h>
#include <stdint.h>

#include "../core/fastmath.h"
#include "../core/fixedsum.h"
#include "../core/hd.h"
#include "../core/real.h"

#define TD_OPS_RMSNORM_EPS 1e-6 /* core/norm.h's TD_RMSNORM_EPS */
#define TD_OPS_MAX_CLASSES 64	/* core/train.h's TD_TRAIN_MAX_CLASSES */

/* ---- RMSNorm (core/norm.c) ------------------------------------------------ */

/* One row: y[width] and *inv from x[width]; td_rmsnorm_row's operations. */
TD_HD void td_op_rmsnorm_row(td_real *TD_RESTRICT y, td_real *inv, const td_real *TD_RESTRICT x,
			     const td_real *TD_RESTRICT gain, size_t width)
{
	const td_real ivr =
	    (td_real)(1 / sqrt(td_dot_fixed(x, x, width) / (double)width + TD_OPS_RMSNORM_EPS));

	*inv = ivr;
	for (size_t k = 0; k < width; k++)
		y[k] = x[k] * ivr * gain[k];
}

/*
 * One row of td_rmsnorm_backward's dx: dx = (or with add, dx +) inv g dy -
 * inv^3 x (sum_k g_k dy_k x_k) / width, in backward_rows' operations.
 */
TD_HD void td_op_rmsnorm_backward_row(td_real *TD_RESTRICT dx, const td_real *TD_RESTRICT dy,
				      const td_real *TD_RESTRICT x, td_real ivr,
				      const td_real *TD_RESTRICT gain, size_t width, int add)
{
	const double iv = (double)ivr;
	const double c = iv * iv * iv * td_dot3_fixed(gain, dy, x, width) / (double)width;

	for (size_t k = 0; k < width; k++) {
		const td_real d = (td_real)(iv * (double)(td_real)(gain[k] * dy[k]) - c * (double)x[k]);

		dx[k] = add ? dx[k] + d : d;
	}
}

/*
 * One channel k of dL/dgain: dgain[k] += the sum over rows, in row order
 * from 0, of dy x inv in td_real (gain_groups' and the fused pass's sum).
 */
TD_HD void td_op_rmsnorm_dgain(td_real *dgain, const td_real *dy, const td_real *x,
			       const td_real *inv, size_t rows, size_t width, size_t k)
{
	td_real acc = 0;

	for (size_t r = 0; r < rows; r++)
		acc += dy[r * width + k] * x[r * width + k] * inv[r];
	dgain[k] += acc;
}

/* ---- the attention's softmax (core/mixer_attention.c) ----------------------- */

/*
 * One row of n scores: w[j] = exp(s[j] - max) / sum, the sum in eight
 * lanes (lane q the terms j = q mod 8, ascending) added in the core's tree
 * (lanes_total); the maximum ignores NaN, as the lanes' does. n need not
 * be a multiple of 8: the core's -infinity padding adds exact zeros.
 */
TD_HD void td_op_softmax_row(td_real *w, const td_real *s, size_t n) /* w may be s */
{
	td_real mx = (td_real)-INFINITY, lane[8] = {0, 0, 0, 0, 0, 0, 0, 0}, sum;

	for (size_t j = 0; j < n; j++)
		mx = s[j] > mx ? s[j] : mx;
	for (size_t j = 0; j < n; j++) {
		w[j] = td_exp(s[j] - mx);
		lane[j % 8] += w[j];
	}
	sum = ((lane[0] + lane[1]) + (lane[2] + lane[3])) + ((lane[4] + lane[5]) + (lane[6] + lane[7]));
	for (size_t j = 0; j < n; j++)
		w[j] /= sum;
}

/* ---- the attention's pairs (core/mixer_attention.c) --------------------------- */

/*
 * A pair is (line, head) of lines [lines][length][C] (qkv's rows 3C wide:
 * q, k, v), C = heads d; its row i is the sweep's step i, the line's
 * position i, or length - 1 - i with reverse. Its weights are [length][tp]
 * (the core's att: tp = length rounded up to 8, 1 for length 1), its keys
 * past those query i sees (causal: i + 1) scored -infinity, so weighted 0.
 * Each body is one (pair, step) i of [lines][heads][length], and every sum
 * is the core's: a product from 0 over its index ascending, the softmax's
 * in eight lanes (td_op_softmax_row) over the groups of 8 up to the row's
 * last key (attend_pair's row_end; on lines of one step, attend_one's one
 * key, which gives its bits: the padding adds exact zeros).
 */
typedef struct td_op_attn {
	size_t length, heads, d, tp;
	td_real scale; /* 1 / sqrt(d), rounded to a td_real */
	int causal, reverse;
} td_op_attn;

/* The position along its line of a pair's row i: i, or from the last with reverse. */
TD_HD size_t td_op_attn_row(const td_op_attn *a, size_t i)
{
	return a->reverse ? a->length - 1 - i : i;
}

/* The end of query i's groups of 8 keys: its softmax's entries (attend_pair's row_end). */
TD_HD size_t td_op_attn_end(const td_op_attn *a, size_t i)
{
	const size_t keys = a->causal ? i + 1 : a->length, end = (keys + 7) / 8 * 8;

	return end < a->tp ? end : a->tp;
}

/*
 * Query i of pair p = i / length (line p / heads, head p % heads) forward:
 * its weights att row (scale q k^T, the softmax, 0 past its groups) and
 * its output, ctx's head columns of its row: sum over keys of p v.
 */
TD_HD void td_op_attend(td_real *att, td_real *ctx, const td_real *qkv, const td_op_attn *a,
			size_t i)
{
	const size_t t = a->length, q = i % t, pair = i / t, hd = pair % a->heads;
	const size_t line = pair / a->heads, c = a->heads * a->d, end = td_op_attn_end(a, q);
	const size_t keys = a->causal ? q + 1 : t;
	const td_real *base = qkv + line * t * 3 * c + hd * a->d;
	const td_real *qi = base + td_op_attn_row(a, q) * 3 * c;
	td_real *w = att + i * a->tp, *o = ctx + (line * t + td_op_attn_row(a, q)) * c + hd * a->d;

	for (size_t j = 0; j < end; j++) {
		const td_real *kj = base + td_op_attn_row(a, j < t ? j : 0) * 3 * c + c;
		td_real s = 0;

		for (size_t e = 0; j < keys && e < a->d; e++)
			s += qi[e] * kj[e];
		w[j] = j < keys ? s * a->scale : (td_real)-INFINITY;
	}
	td_op_softmax_row(w, w, end);
	for (size_t j = end; j < a->tp; j++)
		w[j] = 0;
	for (size_t e = 0; e < a->d; e++) {
		td_real sum = 0;

		for (size_t k = 0; k < t; k++)
			sum += w[k] * base[td_op_attn_row(a, k) * 3 * c + 2 * c + e];
		o[e] = sum;
	}
}

/*
 * Query i backward, first of two: its row of ds [lines][heads][length][tp]
 * from dp = do v^T (0 past its keys) and the saved weights, ds = scale p
 * (dp - the lanes' sum of p dp) up to its groups' end and dp's 0 past it;
 * then its dq = sum over keys of ds k, into dqkv.
 */
TD_HD void td_op_attend_back_query(td_real *ds, td_real *dqkv, const td_real *att,
				   const td_real *qkv, const td_real *dctx, const td_op_attn *a,
				   size_t i)
{
	const size_t t = a->length, q = i % t, pair = i / t, hd = pair % a->heads;
	const size_t line = pair / a->heads, c = a->heads * a->d, end = td_op_attn_end(a, q);
	const size_t keys = a->causal ? q + 1 : t, row = line * t + td_op_attn_row(a, q);
	const td_real *base = qkv + line * t * 3 * c + hd * a->d, *p = att + i * a->tp;
	const td_real *dout = dctx + row * c + hd * a->d;
	td_real *d = ds + i * a->tp, *dq = dqkv + row * 3 * c + hd * a->d;
	td_real lane[8] = {0, 0, 0, 0, 0, 0, 0, 0}, pdp;

	for (size_t j = 0; j < a->tp; j++) {
		const td_real *vj = base + td_op_attn_row(a, j < t ? j : 0) * 3 * c + 2 * c;
		td_real s = 0;

		for (size_t e = 0; j < keys && e < a->d; e++)
			s += dout[e] * vj[e];
		d[j] = j < keys ? s : 0;
		if (j < end)
			lane[j % 8] += p[j] * d[j];
	}
	pdp = ((lane[0] + lane[1]) + (lane[2] + lane[3])) + ((lane[4] + lane[5]) + (lane[6] + lane[7]));
	for (size_t j = 0; j < end; j++)
		d[j] = a->scale * p[j] * (d[j] - pdp);
	for (size_t e = 0; e < a->d; e++) {
		td_real sum = 0;

		for (size_t k = 0; k < t; k++)
			sum += d[k] * base[td_op_attn_row(a, k) * 3 * c + c + e];
		dq[e] = sum;
	}
}

/*
 * Key i backward, second (after every query's ds): its dv = sum over
 * queries of p do and dk = sum over queries of ds q, into dqkv.
 */
TD_HD void td_op_attend_back_key(td_real *dqkv, const td_real *ds, const td_real *att,
				 const td_real *qkv, const td_real *dctx, const td_op_attn *a,
				 size_t i)
{
	const size_t t = a->length, k = i % t, pair = i / t, hd = pair % a->heads;
	const size_t line = pair / a->heads, c = a->heads * a->d;
	const size_t row = line * t + td_op_attn_row(a, k), first = pair * t * a->tp;
	const td_real *base = qkv + line * t * 3 * c + hd * a->d;
	const td_real *dbase = dctx + line * t * c + hd * a->d;
	td_real *dk = dqkv + row * 3 * c + c + hd * a->d, *dv = dk + c;

	for (size_t e = 0; e < a->d; e++) {
		td_real sv = 0, sk = 0;

		for (size_t q = 0; q < t; q++) {
			const size_t at = td_op_attn_row(a, q);

			sv += att[first + q * a->tp + k] * dbase[at * c + e];
			sk += ds[first + q * a->tp + k] * base[at * 3 * c + e];
		}
		dv[e] = sv, dk[e] = sk;
	}
}

/* ---- the channel MLP's ReLU (core/model.c, ffn_forward and ffn_backward) ---- */

TD_HD td_real td_op_relu(td_real pre)
{
	return pre > 0 ? pre : 0;
}

/* dL/dpre from dL/dact: passed where pre > 0, else 0 (NaN included). */
TD_HD td_real td_op_relu_backward(td_real pre, td_real dact)
{
	return pre > 0 ? dact : 0;
}

/* ---- cross-entropy (core/train.c, td_train_xent) ----------------------------- */

/*
 * One example: logits = the mean over present cells of y [n_cells][k],
 * loss = -log softmax(logits)[label], dy = scale * dL/dy (0 at absent
 * cells), *best the arg max; td_train_xent's operations in its order. k
 * <= TD_OPS_MAX_CLASSES. Returns the loss.
 */
TD_HD double td_op_xent(td_real *dy, int *best, const td_real *y, const uint8_t *present,
			size_t n_cells, size_t k, int label, double scale)
{
	double logit[TD_OPS_MAX_CLASSES], mx = -INFINITY, z = 0;
	size_t np = 0;

	for (size_t i = 0; i < n_cells; i++)
		np += present[i] != 0;
	*best = 0;
	for (size_t c = 0; c < k; c++) {
		logit[c] = 0;
		for (size_t i = 0; i < n_cells; i++)
			if (present[i])
				logit[c] += (double)y[i * k + c];
		logit[c] /= (double)(np ? np : 1);
		mx = logit[c] > mx ? logit[c] : mx;
		*best = logit[c] > logit[*best] ? (int)c : *best;
	}
	for (size_t c = 0; c < k; c++)
		z += exp(logit[c] - mx);
	for (size_t c = 0; c < k; c++) {
		double g = (exp(logit[c] - mx) / z - (double)(c == (size_t)label)) /
			   (double)(np ? np : 1) * scale;

		for (size_t i = 0; i < n_cells; i++)
			dy[i * k + c] = present[i] ? (td_real)g : 0;
	}
	return -(logit[label] - mx - log(z));
}

/* ---- gradient-norm clipping (core/adamw.c, grad_norm and td_adamw_step) ---- */

/*
 * The sum of squares of g[i0 .. i1) in double, in index order: one part of
 * the global norm. One part over all n is adamw.c's grad_norm sum, bit for
 * bit; the GPU takes parts of TD_OPS_NORM_PART elements, one thread each.
 */
#define TD_OPS_NORM_PART 4096

TD_HD double td_op_sumsq(const td_real *g, size_t i0, size_t i1)
{
	double sum = 0;

	for (size_t i = i0; i < i1; i++)
		sum += (double)g[i] * (double)g[i];
	return sum;
}

/* The parts' total, in part order from 0: a fixed order for a given n. */
TD_HD double td_op_sumsq_total(const double *part, size_t n_parts)
{
	double sum = 0;

	for (size_t p = 0; p < n_parts; p++)
		sum += part[p];
	return sum;
}

/* td_adamw_step's clip scale for a finite norm: clip / norm above clip (clip > 0), else 1. */
TD_HD double td_op_clip_scale(double norm, double clip)
{
	return clip > 0 && norm > clip ? clip / norm : 1.0;
}

/* ---- folds and selection (core/axial.c, core/block.c) ------------------------- */

/*
 * Whether cell i of a batch (i = e n_cells + cell) is present: on the
 * lattice (mask [n_cells]) and in its example (emask [batch][n_cells], or
 * NULL when examples have no mask of their own).
 */
TD_HD int td_op_present(const uint8_t *mask, const uint8_t *emask, size_t n_cells, size_t i)
{
	return mask[i % n_cells] && (!emask || emask[i]);
}

/*
 * Value i of a fold with selection over [batch][n_cells][channels] (unfold
 * 0: folded position r of example e reads cell map[r], map the fold's
 * fold) or of an unfold (1: cell r reads folded position map[r], map its
 * unfold). An absent cell gives 0 by selection, never by multiplication:
 * td_block_fold_select's and td_block_unfold_select's values.
 */
TD_HD void td_op_fold_select(td_real *TD_RESTRICT dst, const td_real *TD_RESTRICT src,
			     const size_t *map, const uint8_t *mask, const uint8_t *emask,
			     size_t n_cells, size_t channels, int unfold, size_t i)
{
	const size_t per = n_cells * channels, e = i / per, r = i % per / channels;
	const size_t cell = unfold ? r : map[r];

	dst[i] = td_op_present(mask, emask, n_cells, e * n_cells + cell)
		     ? src[(e * n_cells + map[r]) * channels + i % channels]
		     : 0;
}

/*
 * Element i of dst [batch][n_to][channels]: row map[r] of its example in
 * src [batch][n_from][channels], or 0 where map[r] is SIZE_MAX (flatten's
 * gather, n_to present cells from n_from cells, and its scatter back).
 */
TD_HD void td_op_gather(td_real *TD_RESTRICT dst, const td_real *TD_RESTRICT src,
			const size_t *map, size_t n_from, size_t n_to, size_t channels, size_t i)
{
	const size_t per = n_to * channels, e = i / per, r = i % per / channels;

	dst[i] = map[r] == SIZE_MAX ? 0 : src[(e * n_from + map[r]) * channels + i % channels];
}

/* ---- the axial kernel's contractions (core/family_kernel.c) --------------------- */

/*
 * Cell at of one example along an axis of size n with inner cells a
 * step ([outer][n][inner] cells): den = the sum over the present cells
 * (o, j, in) of K_ij, in double, j ascending, and deg = 1 where |den| is
 * not above cancel times the sum of |K_ij| (masses).
 */
TD_HD void td_op_kernel_mass(td_real *den, td_real *deg, const td_real *k, const uint8_t *mask,
			     size_t n, size_t inner, double cancel, size_t at)
{
	const size_t o = at / (n * inner), i = at / inner % n, in = at % inner;
	double sg = 0, ab = 0;

	for (size_t j = 0; j < n; j++)
		if (mask[(o * n + j) * inner + in]) {
			sg += (double)k[i * n + j];
			ab += fabs((double)k[i * n + j]);
		}
	den[at] = (td_real)sg;
	deg[at] = !(fabs(sg) > cancel * ab);
}

/*
 * Element idx of out [rows][c] after the contraction's product: 0 at an
 * absent cell, divided by its cell's den where the line is not
 * degenerate (contract_blocks).
 */
TD_HD void td_op_kernel_renorm(td_real *out, const td_real *den, const td_real *deg,
			       const uint8_t *mask, size_t n_cells, size_t c, size_t idx)
{
	const size_t cell = idx / c % n_cells;

	if (!mask[cell])
		out[idx] = 0;
	else if (deg[cell] == 0)
		out[idx] = out[idx] / den[cell];
}

/*
 * Row row of the contraction's backward (back_blocks): R = g, q = 0 where
 * the cell's line is degenerate, else R = g / den and q = R . out.
 */
TD_HD void td_op_kernel_rows(td_real *TD_RESTRICT rows, td_real *q, const td_real *g,
			     const td_real *out, const td_real *den, const td_real *deg,
			     size_t n_cells, size_t c, size_t row)
{
	const size_t cell = row % n_cells;
	td_real *TD_RESTRICT rr = rows + row * c;

	if (deg[cell] != 0) {
		for (size_t ch = 0; ch < c; ch++)
			rr[ch] = g[row * c + ch];
		q[row] = 0;
		return;
	}
	for (size_t ch = 0; ch < c; ch++)
		rr[ch] = g[row * c + ch] / den[cell];
	q[row] = (td_real)td_dot_fixed(rr, out + row * c, c);
}

/*
 * Entry e = (i, j) of dL/dK, added to dk once summed (reduce_dk): over
 * the blocks u in order, + (R Z^T)_u[i][j], then - q of (i, in) for each
 * in where cell (o, j, in) is present, o = u % outer.
 */
TD_HD void td_op_kernel_dk(td_real *dk, const td_real *sk, const td_real *q, const uint8_t *mask,
			   size_t blocks, size_t outer, size_t n, size_t inner, size_t n_cells,
			   size_t e)
{
	const size_t i = e / n, j = e % n;
	td_real d = 0;

	for (size_t u = 0; u < blocks; u++) {
		const size_t cell0 = (u % outer) * n * inner;
		const td_real *qu = q + (u / outer) * n_cells + cell0;

		d += sk[u * n * n + e];
		for (size_t in = 0; in < inner; in++)
			d -= mask[((u % outer) * n + j) * inner + in] ? qu[i * inner + in] : 0;
	}
	dk[e] += d;
}

/* ---- the loss of a batch (core/train.c, run_batch) ----------------------------- */

/*
 * Example b of a batch: its present cells (td_op_present of mask and
 * emask) in present [n_cells], then td_op_xent with scale 1 / batch into
 * dy and *best. Returns its loss.
 */
TD_HD double td_op_xent_example(td_real *dy, int *best, uint8_t *present, const td_real *y,
				const int *labels, const uint8_t *mask, const uint8_t *emask,
				size_t batch, size_t n_cells, size_t k, size_t b)
{
	for (size_t i = 0; i < n_cells; i++)
		present[i] = (uint8_t)td_op_present(mask, emask, n_cells, b * n_cells + i);
	return td_op_xent(dy + b * n_cells * k, best, y + b * n_cells * k, present, n_cells, k,
			  labels[b], 1 / (double)batch);
}

/*
 * The batch's sums, in one thread in example order, as core/train.c's
 * run_batch and evaluate take them: mean = the losses summed from 0, over
 * batch; acc[0] += mean, acc[1] += mean batch, acc[2] += the examples
 * whose arg max is their label.
 */
TD_HD void td_op_xent_sums(double *acc, const double *loss, const int *best, const int *labels,
			   size_t batch)
{
	double sum = 0;

	for (size_t b = 0; b < batch; b++) {
		sum += loss[b];
		acc[2] += best[b] == labels[b];
	}
	sum /= (double)batch;
	acc[0] += sum;
	acc[1] += sum * (double)batch;
}

/* ---- the model's own layers (core/model.c) ------------------------------------ */

/*
 * Value i of dst [rows][channels] = a (+ b) where row i / channels is a
 * present cell, else 0 (model_select, add_select: the residual add and the
 * selection after it; b NULL: the selection alone).
 */
TD_HD void td_op_select(td_real *dst, const td_real *a, const td_real *b, const uint8_t *mask,
			const uint8_t *emask, size_t n_cells, size_t channels, size_t i)
{
	dst[i] = td_op_present(mask, emask, n_cells, i / channels) ? (b ? a[i] + b[i] : a[i]) : 0;
}

/*
 * Value i of a head per cell, y [rows][out] (row = example n_cells + cell):
 * bo[j], then + wo[cell][j][k] h[row][k] for k ascending (head_per_cell).
 */
TD_HD void td_op_head_cell(td_real *TD_RESTRICT y, const td_real *TD_RESTRICT h,
			   const td_real *TD_RESTRICT wo, const td_real *TD_RESTRICT bo,
			   size_t n_cells, size_t width, size_t out, size_t i)
{
	const size_t row = i / out, j = i % out;
	const td_real *wc = wo + (row % n_cells * out + j) * width, *hr = h + row * width;
	td_real a = bo[j];

	for (size_t k = 0; k < width; k++)
		a += wc[k] * hr[k];
	y[i] = a;
}

/*
 * Bias gradient j of a linear layer over g [rows][n]: grad[j] += the sum
 * over rows, from 0 in row order, of g (linear_back's, summed whole then
 * added once).
 */
TD_HD void td_op_bias_grad(td_real *grad, const td_real *g, size_t rows, size_t n, size_t j)
{
	td_real sum = 0;

	for (size_t r = 0; r < rows; r++)
		sum += g[r * n + j];
	grad[j] += sum;
}

/* The head per cell's backward (head_per_cell_back), g [rows][out] selected, rows = batch n_cells. */

/* dh value i of [rows][width]: from 0, g[row][j] wo[cell][j][k] for j ascending. */
TD_HD void td_op_head_cell_dh(td_real *dh, const td_real *g, const td_real *wo, size_t n_cells,
			      size_t width, size_t out, size_t i)
{
	const size_t row = i / width, k = i % width;
	const td_real *wc = wo + row % n_cells * out * width;
	td_real d = 0;

	for (size_t j = 0; j < out; j++)
		d += g[row * out + j] * wc[j * width + k];
	dh[i] = d;
}

/* dwo value i of [n_cells][out][width]: += g[row][j] h[row][k] over the cell's rows, example order. */
TD_HD void td_op_head_cell_dw(td_real *dwo, const td_real *g, const td_real *h, size_t batch,
			      size_t n_cells, size_t width, size_t out, size_t i)
{
	const size_t c = i / (out * width), j = i / width % out, k = i % width;

	for (size_t b = 0; b < batch; b++)
		dwo[i] += g[(b * n_cells + c) * out + j] * h[(b * n_cells + c) * width + k];
}

/* dbo[j] += the sum, from 0, of g[row][j] over cells, then examples (its loops' order). */
TD_HD void td_op_head_cell_db(td_real *dbo, const td_real *g, size_t batch, size_t n_cells,
			      size_t out, size_t j)
{
	td_real sum = 0;

	for (size_t c = 0; c < n_cells; c++)
		for (size_t b = 0; b < batch; b++)
			sum += g[(b * n_cells + c) * out + j];
	dbo[j] += sum;
}

/* ---- the causal convolution (core/mixer_conv.c) ------------------------------ */

/*
 * One conv mixer's shape: taps K (kernel_size), dilation d, channels C,
 * reverse, and the line's length. Lines are [length][C]; the weights w
 * [K][C] tap-major, bias [C]; taps * dilation does not overflow (the
 * mixer refuses it).
 */
typedef struct td_op_conv {
	size_t taps, dilation, channels, length;
	int reverse;
} td_op_conv;

/*
 * Forward, position t and channel k of the line x: y = bias + w[0] x_t,
 * then + w[i] x_(t -+ i d) for the taps i = 1, 2, ... on the line, in
 * forward_lines' operations and order.
 */
TD_HD void td_op_conv_forward(td_real *TD_RESTRICT y, const td_real *TD_RESTRICT x,
			      const td_real *TD_RESTRICT w, const td_real *TD_RESTRICT bias,
			      const td_op_conv *s, size_t t, size_t k)
{
	const size_t c = s->channels;
	td_real sum = bias[k] + w[k] * x[t * c + k];

	for (size_t i = 1; i < s->taps; i++) {
		const size_t off = i * s->dilation;

		if (s->reverse ? off >= s->length - t : off > t)
			break; /* later taps are further off */
		sum += w[i * c + k] * x[(s->reverse ? t + off : t - off) * c + k];
	}
	y[t * c + k] = sum;
}

/*
 * dx at position src and channel k of the line: from 0, w[i] dy_t over the
 * positions t whose tap i reads src, in ascending t (dx_lines' order:
 * ascending taps forward, descending in reverse).
 */
TD_HD void td_op_conv_dx(td_real *TD_RESTRICT dx, const td_real *TD_RESTRICT dy,
			 const td_real *TD_RESTRICT w, const td_op_conv *s, size_t src, size_t k)
{
	const size_t c = s->channels, d = s->dilation;
	const size_t room = s->reverse ? src : s->length - 1 - src;
	const size_t n = room / d + 1 < s->taps ? room / d + 1 : s->taps;
	td_real sum = 0;

	for (size_t q = 0; q < n; q++) {
		const size_t i = s->reverse ? n - 1 - q : q;

		sum += w[i * c + k] * dy[(s->reverse ? src - i * d : src + i * d) * c + k];
	}
	dx[src * c + k] = sum;
}

/*
 * Row i of the weight gradient (i < K: tap i's, i = K: the bias's),
 * channel k: g[i][k] += the sum over lines, then positions ascending, of
 * dy_t x_(t -+ i d) (dy_t alone for the bias), from 0 in one accumulator;
 * grad_rows' order. dy and x hold lines lines of [length][C]; g is the
 * slab's w [K][C] followed by bias [C].
 */
TD_HD void td_op_conv_grad(td_real *g, const td_real *dy, const td_real *x, const td_op_conv *s,
			   size_t lines, size_t i, size_t k)
{
	const size_t c = s->channels, len = s->length, off = i < s->taps ? i * s->dilation : 0;
	td_real acc = 0;

	for (size_t l = 0; off < len && l < lines; l++) {
		const td_real *dyl = dy + (l * len + (s->reverse ? 0 : off)) * c + k;
		const td_real *xl = x + (l * len + (s->reverse ? off : 0)) * c + k;

		for (size_t t = 0; t < len - off; t++)
			acc += i < s->taps ? dyl[t * c] * xl[t * c] : dyl[t * c];
	}
	g[i * c + k] += acc;
}

/* ---- the LRU's recurrences (core/mixer_lru.c) --------------------------------- */

/*
 * Around the GEMMs (u = x B^T, y += h C^T forward; dC, g = dy C, dB and
 * dx += g B backward), lines of length >= 2: the state recurrence per
 * (line, state), its adjoint, the decay's and the skip path's gradients,
 * each in lru_forward's and lru_backward's operations and order. A line
 * is [length][n] states (or adjoints); step q of its sweep is position q,
 * or length - 1 - q in reverse.
 */
TD_HD size_t td_op_at(size_t q, size_t length, int reverse)
{
	return reverse ? length - 1 - q : q;
}

/* a = exp(-softplus(w)), in double, rounded once: the decay of a state. */
TD_HD td_real td_op_lru_decay(td_real w)
{
	const double v = (double)w;

	return (td_real)exp(-(v > 0 ? v + log1p(exp(-v)) : log1p(exp(v))));
}

/* State k of one line h: h_q += a_k h_(q-1), q = 1 .. length - 1 in sweep order (scan). */
TD_HD void td_op_lru_scan(td_real *h, const td_real *a, size_t length, size_t n, int reverse,
			  size_t k)
{
	for (size_t q = 1; q < length; q++)
		h[td_op_at(q, length, reverse) * n + k] +=
		    a[k] * h[td_op_at(q - 1, length, reverse) * n + k];
}

/* Its adjoint: g_q += a_k g_(q+1), q = length - 2 .. 0 (scan_adjoint). */
TD_HD void td_op_lru_scan_adjoint(td_real *g, const td_real *a, size_t length, size_t n,
				  int reverse, size_t k)
{
	for (size_t q = length - 1; q-- > 0;)
		g[td_op_at(q, length, reverse) * n + k] +=
		    a[k] * g[td_op_at(q + 1, length, reverse) * n + k];
}

/*
 * dL/da_k: from 0, g_q h_(q-1) over lines, then steps q >= 1, of lines
 * lines of [length][n] (decay_grad).
 */
TD_HD td_real td_op_lru_decay_grad(const td_real *g, const td_real *h, size_t lines,
				   size_t length, size_t n, int reverse, size_t k)
{
	td_real acc = 0;

	for (size_t l = 0; l < lines; l++)
		for (size_t q = 1; q < length; q++)
			acc += g[(l * length + td_op_at(q, length, reverse)) * n + k] *
			       h[(l * length + td_op_at(q - 1, length, reverse)) * n + k];
	return acc;
}

/* What dL/da_k adds to dL/dw_k: da a sigmoid(w) negated, in double, rounded once (decay_to_w). */
TD_HD td_real td_op_lru_dw(td_real da, td_real a, td_real w)
{
	return (td_real)(-(double)da * (double)a * (1 / (1 + exp(-(double)w))));
}

/* dL/dD_k of the skip path y = D x: from 0, dy x over positions in order (backward_sums). */
TD_HD td_real td_op_lru_skip_grad(const td_real *dy, const td_real *x, size_t positions,
				  size_t channels, size_t k)
{
	td_real acc = 0;

	for (size_t i = 0; i < positions; i++)
		acc += dy[i * channels + k] * x[i * channels + k];
	return acc;
}

/* ---- the complex LRU's recurrences (core/mixer_clru.c) ------------------------ */

/*
 * Around the GEMMs (h_re = x B_re^T, h_im = x B_im^T, y += h_re C_re^T,
 * y -= h_im C_im^T forward; dC_re, dC_im, g_re = dy C_re, g_im = -dy
 * C_im, dB_re, dB_im and dx += g_re B_re + g_im B_im backward), lines of
 * length >= 2: the decay lambda, the complex recurrence per (line, state),
 * its adjoint, and dL/dlambda with what it adds to dL/dnu and dL/dtheta,
 * each in clru_forward's and clru_backward's operations and order. A
 * line is [length][2n]: each position's real parts, then its imaginary
 * ones. The skip path's gradient is the LRU's (td_op_lru_skip_grad).
 */

/*
 * State k's lambda = exp(-exp(nu)) (cos theta + i sin theta), in double,
 * each part rounded once: a[k] the real part, a[n + k] the imaginary.
 */
TD_HD void td_op_clru_decay(td_real *a, const td_real *nu, const td_real *theta, size_t n,
			    size_t k)
{
	const double r = exp(-exp((double)nu[k]));

	a[k] = (td_real)(r * cos((double)theta[k]));
	a[n + k] = (td_real)(r * sin((double)theta[k]));
}

/*
 * State k of one line h: h_q += lambda_k h_(q-1), q = 1 .. length - 1 in
 * sweep order; with adjoint, h_q += conj(lambda_k) h_(q+1), q = length -
 * 2 .. 0 (scan, both ways).
 */
TD_HD void td_op_clru_scan(td_real *h, const td_real *a, size_t length, size_t n, int reverse,
			   int adjoint, size_t k)
{
	const td_real sign = adjoint ? -1 : 1, are = a[k], ai = sign * a[n + k];

	for (size_t i = 1; i < length; i++) {
		const size_t q = adjoint ? length - 1 - i : i, from = adjoint ? q + 1 : q - 1;
		td_real *cur = h + td_op_at(q, length, reverse) * 2 * n;
		const td_real *prev = h + td_op_at(from, length, reverse) * 2 * n;

		cur[k] += are * prev[k] - ai * prev[n + k];
		cur[n + k] += are * prev[n + k] + ai * prev[k];
	}
}

/*
 * dL/dlambda_k: from 0, g_q conj(h_(q-1)) over lines, then steps q >= 1,
 * of lines lines of [length][2n]; the real part in *re, the imaginary in
 * *im (decay_grad).
 */
TD_HD void td_op_clru_decay_grad(td_real *re, td_real *im, const td_real *g, const td_real *h,
				 size_t lines, size_t length, size_t n, int reverse, size_t k)
{
	td_real dre = 0, dim = 0;

	for (size_t l = 0; l < lines; l++)
		for (size_t q = 1; q < length; q++) {
			const td_real *gs = g + (l * length + td_op_at(q, length, reverse)) * 2 * n;
			const td_real *hp =
			    h + (l * length + td_op_at(q - 1, length, reverse)) * 2 * n;

			dre += gs[k] * hp[k] + gs[n + k] * hp[n + k];
			dim += gs[n + k] * hp[k] - gs[k] * hp[n + k];
		}
	*re = dre, *im = dim;
}

/* What dL/dlambda (dre, dim) adds to dL/dtheta: in double, rounded once (decay_to_params). */
TD_HD td_real td_op_clru_dtheta(td_real dre, td_real dim, td_real are, td_real aim)
{
	return (td_real)(-(double)dre * (double)aim + (double)dim * (double)are);
}

/* What it adds to dL/dnu: in double, rounded once (decay_to_params). */
TD_HD td_real td_op_clru_dnu(td_real dre, td_real dim, td_real are, td_real aim, td_real nu)
{
	return (td_real)(-((double)dre * (double)are + (double)dim * (double)aim) *
			 exp((double)nu));
}

/* ---- the recurrences' map on lines of one step (core/mixer.c) ---------------- */

/*
 * Entry (r, s) of td_mixer_products: in double, from diag[r] where r == s
 * and diag is not NULL, else 0, plus p[r prs + t pts] q[s qrs + t qts]
 * for t = 0 .. nt - 1; then out[r ors + s oss] = it (mode 0), + it (mode
 * 1) or - it (mode -1), rounded once.
 */
TD_HD void td_op_product(td_real *out, size_t ors, size_t oss, const td_real *p, size_t prs,
			 size_t pts, const td_real *q, size_t qrs, size_t qts, size_t nt,
			 const td_real *diag, int mode, size_t r, size_t s)
{
	double acc = diag && r == s ? (double)diag[r] : 0;
	td_real *o = out + r * ors + s * oss;

	for (size_t t = 0; t < nt; t++)
		acc += (double)p[r * prs + t * pts] * (double)q[s * qrs + t * qts];
	*o = mode > 0 ? *o + (td_real)acc : mode < 0 ? *o - (td_real)acc : (td_real)acc;
}

/* ---- the recurrences' steps (core/mixer_rnn.c, mixer_gru.c, mixer_lstm.c) ------- */

/*
 * Around the GEMMs (a call's input projections x W^T, each step's h_{t-1}
 * U^T, the carry's dgh_t U, dx = dgx W and each block's dW and dU), lines
 * of length >= 2: one (line, channel) of step q of the sweep, in the
 * core's per-row loops' operations. A call's buffers are as x is laid
 * out, [lines][length][width], line-major: the rows step q reads and
 * writes are line l's row at position td_op_at(q); its h_{t-1} is the row
 * at position td_op_at(q - 1), none at q = 0. Each step body is one
 * (line, channel) i of [lines][h]: l = i / h, k = i % h.
 */

/* prev[i], i of [lines][length][width]: td_mixer_shift_prev (0 at a line's first step). */
TD_HD void td_op_shift_prev(td_real *prev, const td_real *x, size_t length, size_t width,
			    int reverse, size_t i)
{
	const size_t k = i % width, t = i / width % length, l = i / width / length;

	if (reverse ? t + 1 == length : t == 0)
		prev[i] = 0;
	else
		prev[i] = x[(l * length + (reverse ? t + 1 : t - 1)) * width + k];
}

/*
 * The GRU's step q forward for (line, channel) i (mixer_gru.c's
 * gates_row, then state_row): g [lines][length][4h] holds x W^T in its
 * first 3h columns (without b) and gets r, z, n and Un h_{t-1} + cn; gh
 * [lines][3h] holds h_{t-1} U^T (without c; not read at q = 0, where
 * the core's gh is c itself); hs [lines][length][h] gets h_t.
 */
TD_HD void td_op_gru_step(td_real *g, td_real *hs, const td_real *gh, const td_real *b,
			  const td_real *c, size_t length, size_t h, size_t q, int reverse,
			  size_t i)
{
	const size_t l = i / h, k = i % h, t = td_op_at(q, length, reverse);
	td_real *row = g + (l * length + t) * 4 * h;
	const td_real *u = q ? gh + l * 3 * h : NULL;
	const td_real ghr = u ? u[k] + c[k] : c[k], ghz = u ? u[h + k] + c[h + k] : c[h + k];
	const td_real ghn = u ? u[2 * h + k] + c[2 * h + k] : c[2 * h + k];
	const td_real r = td_sigmoid((row[k] + b[k]) + ghr);
	const td_real z = td_sigmoid((row[h + k] + b[h + k]) + ghz);
	const td_real n = td_tanh((row[2 * h + k] + b[2 * h + k]) + r * ghn);

	row[k] = r, row[h + k] = z, row[2 * h + k] = n, row[3 * h + k] = ghn;
	if (q)
		hs[(l * length + t) * h + k] =
		    (1 - z) * n + z * hs[(l * length + td_op_at(q - 1, length, reverse)) * h + k];
	else
		hs[(l * length + t) * h + k] = (1 - z) * n;
}

/*
 * Its backward at step q for (line, channel) i (mixer_gru.c's back_row):
 * from dh = dy + carry, the gate adjoints into dgx and dgh
 * ([lines][length][3h], the position's row) and carry [lines][h] = dh z;
 * g the saved gates, hp [lines][length][h] h_{t-1} (td_op_shift_prev of
 * the saved h).
 */
TD_HD void td_op_gru_step_back(td_real *dgx, td_real *dgh, td_real *carry, const td_real *g,
			       const td_real *dy, const td_real *hp, size_t length, size_t h,
			       size_t q, int reverse, size_t i)
{
	const size_t l = i / h, k = i % h, pos = l * length + td_op_at(q, length, reverse);
	const td_real *row = g + pos * 4 * h;
	const td_real r = row[k], z = row[h + k], n = row[2 * h + k], ghn = row[3 * h + k];
	const td_real dh = dy[pos * h + k] + carry[l * h + k];
	const td_real dz = dh * (hp[pos * h + k] - n) * z * (1 - z);
	const td_real dn = dh * (1 - z) * (1 - n * n);
	const td_real dr = dn * ghn * r * (1 - r);
	td_real *ax = dgx + pos * 3 * h, *ah = dgh + pos * 3 * h;

	ax[k] = dr, ax[h + k] = dz, ax[2 * h + k] = dn;
	ah[k] = dr, ah[h + k] = dz, ah[2 * h + k] = dn * r;
	carry[l * h + k] = dh * z;
}

/*
 * The LSTM's step q forward for (line, channel) i (mixer_lstm.c's
 * step_in's biases, gates_row and state_row): g [lines][length][4h]
 * holds x W^T and gets the gates i, f, g, o, from x W^T + (b + c), plus
 * gh [lines][4h] = h_{t-1} U^T after the first step; ss, ts and hs
 * [lines][length][h] get s_t, tanh(s_t) and h_t = o tanh(s_t).
 */
TD_HD void td_op_lstm_step(td_real *g, td_real *ss, td_real *ts, td_real *hs, const td_real *gh,
			   const td_real *b, const td_real *c, size_t length, size_t h, size_t q,
			   int reverse, size_t i)
{
	const size_t l = i / h, k = i % h, pos = l * length + td_op_at(q, length, reverse);
	td_real *row = g + pos * 4 * h, pre[4];
	td_real s;

	for (size_t j = 0; j < 4; j++) {
		const size_t e = j * h + k;

		pre[j] = row[e] + (b[e] + c[e]);
		if (q)
			pre[j] = pre[j] + gh[l * 4 * h + e];
	}
	row[k] = td_sigmoid(pre[0]);
	row[h + k] = length == 1 ? 0 : td_sigmoid(pre[1]); /* dead on one step (mixer_lstm.c) */
	row[2 * h + k] = td_tanh(pre[2]), row[3 * h + k] = td_sigmoid(pre[3]);
	if (q)
		s = row[h + k] * ss[(l * length + td_op_at(q - 1, length, reverse)) * h + k] +
		    row[k] * row[2 * h + k];
	else
		s = row[k] * row[2 * h + k];
	ss[pos * h + k] = s, ts[pos * h + k] = td_tanh(s);
	hs[pos * h + k] = row[3 * h + k] * ts[pos * h + k];
}

/*
 * Its backward at step q for (line, channel) i (mixer_lstm.c's
 * back_row): from dh = dy + dh [lines][h] (through step q + 1) and ds
 * [lines][h], the gate adjoints into dg [lines][length][4h] (the
 * position's row) and ds = ds_t f; g, ts the saved gates and tanh(s_t),
 * sp [lines][length][h] s_{t-1} (td_op_shift_prev of the saved s). dh
 * is read only: the step's dg U replaces it.
 */
TD_HD void td_op_lstm_step_back(td_real *dg, const td_real *dh, td_real *ds, const td_real *g,
				const td_real *ts, const td_real *sp, const td_real *dy,
				size_t length, size_t h, size_t q, int reverse, size_t i)
{
	const size_t l = i / h, k = i % h, pos = l * length + td_op_at(q, length, reverse);
	const td_real *row = g + pos * 4 * h;
	const td_real ig = row[k], f = row[h + k], gg = row[2 * h + k], o = row[3 * h + k];
	const td_real t = ts[pos * h + k];
	const td_real d = dy[pos * h + k] + dh[l * h + k];
	const td_real dsv = d * o * (1 - t * t) + ds[l * h + k];
	td_real *a = dg + pos * 4 * h;

	a[k] = dsv * gg * ig * (1 - ig);
	a[h + k] = dsv * sp[pos * h + k] * f * (1 - f);
	a[2 * h + k] = dsv * ig * (1 - gg * gg);
	a[3 * h + k] = d * t * o * (1 - o);
	ds[l * h + k] = dsv * f;
}

/*
 * Element e of a call's parameter gradient: grad[e] += the blocks' parts
 * (parts [n][stride]) summed in block order from block 0's
 * (td_mixer_add_parts).
 */
TD_HD void td_op_add_parts(td_real *grad, const td_real *parts, size_t n, size_t stride,
			   size_t e)
{
	td_real sum = parts[e];

	for (size_t b = 1; b < n; b++)
		sum += parts[b * stride + e];
	grad[e] += sum;
}

/* ---- the fused AdamW step (core/adamw.c, update) ----------------------------- */

/*
 * What one applied step shares across elements, taken on the host:
 * bc1 = 1 - pow(beta1, t), bc2 = 1 - pow(beta2, t) (the device's pow is
 * not the host's), decay = 1 - lr weight_decay, scale the clip scale.
 */
typedef struct td_op_adamw_step {
	double lr, beta1, beta2, bc1, bc2, decay, eps, scale;
} td_op_adamw_step;

/* Element i: m, v and p updated as adamw.c's update does, each rounded once. */
TD_HD void td_op_adamw(td_real *p, td_real *m, td_real *v, const td_real *g,
		       const td_op_adamw_step *s, size_t i)
{
	const double gi = s->scale * (double)g[i];
	const double mi = s->beta1 * (double)m[i] + (1.0 - s->beta1) * gi;
	const double vi = s->beta2 * (double)v[i] + (1.0 - s->beta2) * gi * gi;
	const double step = s->lr * (mi / s->bc1) / (sqrt(vi / s->bc2) + s->eps);

	m[i] = (td_real)mi;
	v[i] = (td_real)vi;
	p[i] = (td_real)((double)p[i] * s->decay - step);
}

/* ---- the optimizer's step without the host (core/adamw.c, td_adamw_step) ----- */

/*
 * What a step on the device keeps there, so that no step waits on the
 * host: td_adamw's counts, the last step's figures (the update reads
 * step and applied), and the skips the host has not read yet, the first
 * TD_OPS_SKIPS_KEPT of them described. The host reads it once per log
 * window and counts each skip with td_adamw_count_skip.
 */
#define TD_OPS_SKIPS_KEPT 16

typedef struct td_op_skip {
	int64_t s;    /* the schedule step skipped */
	size_t index; /* its first element not finite; SIZE_MAX: every one finite */
	int nan;      /* that element was a NaN (else an infinity) */
	double norm;  /* the norm that was not finite */
} td_op_skip;

typedef struct td_op_opt_state {
	int64_t s, t, skips;   /* steps taken, steps applied, steps skipped */
	td_op_adamw_step step; /* the last step's figures (beta1, beta2, eps set once) */
	double norm;	       /* the last step's norm, before clipping */
	int applied;	       /* the last step was applied (0: skipped) */
	int64_t unread;	       /* skips since the host last read; skip[] holds the first ones */
	td_op_skip skip[TD_OPS_SKIPS_KEPT];
} td_op_opt_state;

/*
 * One part of the norm and the firewall's search: td_op_sumsq of g[i0 ..
 * i1), and in *bad the index of the first element there that is not
 * finite (SIZE_MAX when none).
 */
TD_HD double td_op_sumsq_checked(const td_real *g, size_t i0, size_t i1, size_t *bad)
{
	double sum = 0;

	*bad = SIZE_MAX;
	for (size_t i = i0; i < i1; i++) {
		if (*bad == SIZE_MAX && !isfinite(g[i]))
			*bad = i;
		sum += (double)g[i] * (double)g[i];
	}
	return sum;
}

/*
 * One step's decision, td_adamw_step's, in one thread: the norm from the
 * parts in order; when it is not finite, the skip (s advances, the first
 * non-finite element over the parts kept); else t advances and the
 * update's figures are set: lr = lr(s), taken on the host (which counts s
 * itself), the decay, the clip scale, and the bias corrections bc1[t] and
 * bc2[t] (1 - beta^t, taken on the host, whose pow the device's is not).
 */
TD_HD void td_op_opt_decide(td_op_opt_state *st, const double *part, const size_t *bad,
			    size_t n_parts, const td_real *g, double lr, double clip,
			    double weight_decay, const double *bc1, const double *bc2)
{
	const double norm = sqrt(td_op_sumsq_total(part, n_parts));

	st->norm = norm;
	st->applied = isfinite(norm);
	if (!st->applied) {
		size_t first = SIZE_MAX;

		for (size_t p = 0; p < n_parts && first == SIZE_MAX; p++)
			first = bad[p];
		if (st->unread < TD_OPS_SKIPS_KEPT) {
			td_op_skip *k = &st->skip[st->unread];

			k->s = st->s, k->index = first, k->norm = norm;
			k->nan = first != SIZE_MAX && isnan(g[first]);
		}
		st->unread++, st->skips++, st->s++;
		return;
	}
	st->t++, st->s++;
	st->step.lr = lr;
	st->step.bc1 = bc1[st->t], st->step.bc2 = bc2[st->t];
	st->step.decay = 1.0 - lr * weight_decay;
	st->step.scale = td_op_clip_scale(norm, clip);
}

#endif
