/*
 * exec_host.c - the host's executor (see exec.h): kernels/ops.h's bodies in
 * loops over plain memory, td_gemm for the products. What the GPU runs as
 * one thread per value runs here as one iteration, in index order.
 */
#include "exec.h"

#include <stdlib.h>
#include <string.h>

#include "../base/error.h"
#include "../kernels/ops.h"
#include "gemm.h"

static int host_alloc(const td_exec *x, void *out, size_t bytes)
{
	void **p = out;

	(void)x;
	if (!(*p = calloc(bytes ? bytes : 1, 1)))
		return TD_FAIL(TD_ENOMEM, "out of memory for %zu bytes of the host executor", bytes);
	return 0;
}

static void host_release(const td_exec *x, void *p)
{
	(void)x;
	free(p);
}

static int host_mark(const td_exec *x, int k)
{
	(void)x, (void)k;
	return 0;
}

static int host_copy(const td_exec *x, void *dst, const void *src, size_t bytes)
{
	(void)x;
	if (bytes)
		memmove(dst, src, bytes);
	return 0;
}

static int host_gemm(const td_exec *x, td_real *c, size_t ldc, const td_real *a, size_t lda,
		     const td_real *b, size_t ldb, size_t m, size_t n, size_t k, int trans_a,
		     int trans_b, td_real alpha, td_real beta)
{
	td_gemm_opts o = TD_GEMM_OPTS_INIT;

	(void)x;
	o.trans_a = trans_a, o.trans_b = trans_b, o.alpha = alpha, o.beta = beta;
	return td_gemm(c, ldc, a, lda, b, ldb, m, n, k, &o);
}

static int host_gemm_batched(const td_exec *x, td_real *c, size_t ldc, size_t sc,
			     const td_real *a, size_t lda, size_t sa, const td_real *b, size_t ldb,
			     size_t sb, size_t m, size_t n, size_t k, size_t count, int trans_a,
			     int trans_b, td_real alpha, td_real beta)
{
	int err = 0;

	for (size_t i = 0; !err && i < count; i++)
		err = host_gemm(x, c + i * sc, ldc, a + i * sa, lda, b + i * sb, ldb, m, n, k,
				trans_a, trans_b, alpha, beta);
	return err;
}

static int host_select(const td_exec *x, td_real *dst, const td_real *a, const td_real *b,
		       const uint8_t *mask, const uint8_t *emask, size_t n_cells, size_t rows,
		       size_t channels)
{
	(void)x;
	for (size_t i = 0; i < rows * channels; i++)
		td_op_select(dst, a, b, mask, emask, n_cells, channels, i);
	return 0;
}

static int host_bias_add(const td_exec *x, td_real *out, const td_real *bias, size_t rows,
			 size_t n)
{
	(void)x;
	for (size_t i = 0; i < rows * n; i++)
		out[i] += bias[i % n];
	return 0;
}

static int host_rmsnorm(const td_exec *x, td_real *y, td_real *inv, const td_real *in,
			const td_real *gain, size_t rows, size_t width)
{
	(void)x;
	for (size_t r = 0; r < rows; r++)
		td_op_rmsnorm_row(y + r * width, inv + r, in + r * width, gain, width);
	return 0;
}

static int host_relu(const td_exec *x, td_real *act, const td_real *pre, size_t n)
{
	(void)x;
	for (size_t i = 0; i < n; i++)
		act[i] = td_op_relu(pre[i]);
	return 0;
}

static int host_fold(const td_exec *x, td_real *dst, const td_real *src, const size_t *map,
		     const uint8_t *mask, const uint8_t *emask, size_t batch, size_t n_cells,
		     size_t channels, int unfold)
{
	(void)x;
	for (size_t i = 0; i < batch * n_cells * channels; i++)
		td_op_fold_select(dst, src, map, mask, emask, n_cells, channels, unfold, i);
	return 0;
}

static int host_gather(const td_exec *x, td_real *dst, const td_real *src, const size_t *map,
		       size_t batch, size_t n_from, size_t n_to, size_t channels)
{
	(void)x;
	for (size_t i = 0; i < batch * n_to * channels; i++)
		td_op_gather(dst, src, map, n_from, n_to, channels, i);
	return 0;
}

static int host_conv_forward(const td_exec *x, td_real *y, const td_real *in, const td_real *w,
			     size_t lines, const td_op_conv *s)
{
	const size_t per = s->length * s->channels;

	(void)x;
	for (size_t l = 0; l < lines; l++)
		for (size_t t = 0; t < s->length; t++)
			for (size_t k = 0; k < s->channels; k++)
				td_op_conv_forward(y + l * per, in + l * per, w,
						   w + s->taps * s->channels, s, t, k);
	return 0;
}

static int host_head_cell(const td_exec *x, td_real *y, const td_real *h, const td_real *wo,
			  const td_real *bo, size_t rows, size_t n_cells, size_t width,
			  size_t out)
{
	(void)x;
	for (size_t i = 0; i < rows * out; i++)
		td_op_head_cell(y, h, wo, bo, n_cells, width, out, i);
	return 0;
}

static int host_zero(const td_exec *x, void *p, size_t bytes)
{
	(void)x;
	if (bytes)
		memset(p, 0, bytes);
	return 0;
}

static int host_bias_grad(const td_exec *x, td_real *grad, const td_real *g, size_t rows,
			  size_t n)
{
	(void)x;
	for (size_t j = 0; j < n; j++)
		td_op_bias_grad(grad, g, rows, n, j);
	return 0;
}

static int host_rmsnorm_backward(const td_exec *x, td_real *dx, td_real *dgain, const td_real *dy,
				 const td_real *in, const td_real *inv, const td_real *gain,
				 size_t rows, size_t width, int add)
{
	(void)x;
	for (size_t r = 0; r < rows; r++)
		td_op_rmsnorm_backward_row(dx + r * width, dy + r * width, in + r * width, inv[r], gain,
					   width, add);
	for (size_t k = 0; k < width; k++)
		td_op_rmsnorm_dgain(dgain, dy, in, inv, rows, width, k);
	return 0;
}

static int host_relu_backward(const td_exec *x, td_real *d, const td_real *pre, size_t n)
{
	(void)x;
	for (size_t i = 0; i < n; i++)
		d[i] = td_op_relu_backward(pre[i], d[i]);
	return 0;
}

static int host_conv_backward(const td_exec *x, td_real *dx, td_real *g, const td_real *dy,
			      const td_real *in, const td_real *w, size_t lines, size_t chunk,
			      const td_op_conv *s)
{
	const size_t per = s->length * s->channels;

	(void)x;
	for (size_t l = 0; l < lines; l++)
		for (size_t t = 0; t < s->length; t++)
			for (size_t k = 0; k < s->channels; k++)
				td_op_conv_dx(dx + l * per, dy + l * per, w, s, t, k);
	for (size_t at = 0; at < lines; at += chunk)
		for (size_t i = 0; i <= s->taps; i++)
			for (size_t k = 0; k < s->channels; k++)
				td_op_conv_grad(g, dy + at * per, in + at * per, s,
						lines - at < chunk ? lines - at : chunk, i, k);
	return 0;
}

static int host_head_cell_backward(const td_exec *x, td_real *dh, td_real *dwo, td_real *dbo,
				   const td_real *g, const td_real *h, const td_real *wo,
				   size_t batch, size_t n_cells, size_t width, size_t out)
{
	(void)x;
	for (size_t i = 0; i < batch * n_cells * width; i++)
		td_op_head_cell_dh(dh, g, wo, n_cells, width, out, i);
	for (size_t i = 0; i < n_cells * out * width; i++)
		td_op_head_cell_dw(dwo, g, h, batch, n_cells, width, out, i);
	for (size_t j = 0; j < out; j++)
		td_op_head_cell_db(dbo, g, batch, n_cells, out, j);
	return 0;
}

static int host_lru_decay(const td_exec *x, td_real *a, const td_real *w, size_t n)
{
	(void)x;
	for (size_t k = 0; k < n; k++)
		a[k] = td_op_lru_decay(w[k]);
	return 0;
}

static int host_lru_scan(const td_exec *x, td_real *h, const td_real *a, size_t lines,
			 size_t length, size_t n, int reverse, int adjoint)
{
	(void)x;
	for (size_t l = 0; l < lines; l++)
		for (size_t k = 0; k < n; k++)
			if (adjoint)
				td_op_lru_scan_adjoint(h + l * length * n, a, length, n, reverse, k);
			else
				td_op_lru_scan(h + l * length * n, a, length, n, reverse, k);
	return 0;
}

static int host_scale(const td_exec *x, td_real *y, const td_real *in, const td_real *d,
		      size_t rows, size_t c)
{
	(void)x;
	for (size_t i = 0; i < rows * c; i++)
		y[i] = d[i % c] * in[i];
	return 0;
}

static int host_lru_grads(const td_exec *x, td_real *gw, td_real *gd, const td_real *g,
			  const td_real *h, const td_real *dy, const td_real *in, const td_real *a,
			  const td_real *w, size_t lines, size_t length, size_t n, size_t c,
			  int reverse)
{
	(void)x;
	for (size_t k = 0; k < n; k++)
		gw[k] += td_op_lru_dw(td_op_lru_decay_grad(g, h, lines, length, n, reverse, k), a[k],
				      w[k]);
	for (size_t k = 0; k < c; k++)
		gd[k] += td_op_lru_skip_grad(dy, in, lines * length, c, k);
	return 0;
}

static int host_clru_decay(const td_exec *x, td_real *a, const td_real *nu, const td_real *theta,
			   size_t n)
{
	(void)x;
	for (size_t k = 0; k < n; k++)
		td_op_clru_decay(a, nu, theta, n, k);
	return 0;
}

static int host_clru_scan(const td_exec *x, td_real *h, const td_real *a, size_t lines,
			  size_t length, size_t n, int reverse, int adjoint)
{
	(void)x;
	for (size_t l = 0; l < lines; l++)
		for (size_t k = 0; k < n; k++)
			td_op_clru_scan(h + l * length * 2 * n, a, length, n, reverse, adjoint, k);
	return 0;
}

static int host_clru_grads(const td_exec *x, td_real *gnu, td_real *gtheta, td_real *gd,
			   const td_real *g, const td_real *h, const td_real *dy, const td_real *in,
			   const td_real *a, const td_real *nu, size_t lines, size_t length,
			   size_t n, size_t c, int reverse)
{
	(void)x;
	for (size_t k = 0; k < n; k++) {
		td_real dre, dim;

		td_op_clru_decay_grad(&dre, &dim, g, h, lines, length, n, reverse, k);
		gtheta[k] += td_op_clru_dtheta(dre, dim, a[k], a[n + k]);
		gnu[k] += td_op_clru_dnu(dre, dim, a[k], a[n + k], nu[k]);
	}
	for (size_t k = 0; k < c; k++)
		gd[k] += td_op_lru_skip_grad(dy, in, lines * length, c, k);
	return 0;
}

static int host_products(const td_exec *x, td_real *out, size_t ors, size_t oss,
			 const td_real *p, size_t prs, size_t pts, const td_real *q, size_t qrs,
			 size_t qts, size_t nr, size_t ns, size_t nt, const td_real *diag, int mode)
{
	(void)x;
	for (size_t r = 0; r < nr; r++)
		for (size_t s = 0; s < ns; s++)
			td_op_product(out, ors, oss, p, prs, pts, q, qrs, qts, nt, diag, mode, r, s);
	return 0;
}

static int host_diag_add(const td_exec *x, td_real *g, const td_real *dm, size_t c)
{
	(void)x;
	for (size_t i = 0; i < c; i++)
		g[i] += dm[i * c + i];
	return 0;
}

static int host_kernel_masses(const td_exec *x, td_real *den, td_real *deg, const td_real *k,
			      const uint8_t *mask, size_t n_cells, size_t n, size_t inner,
			      double cancel)
{
	(void)x;
	for (size_t at = 0; at < n_cells; at++)
		td_op_kernel_mass(den, deg, k, mask, n, inner, cancel, at);
	return 0;
}

static int host_kernel_renorm(const td_exec *x, td_real *out, const td_real *den,
			      const td_real *deg, const uint8_t *mask, size_t rows, size_t n_cells,
			      size_t c)
{
	(void)x;
	for (size_t i = 0; i < rows * c; i++)
		td_op_kernel_renorm(out, den, deg, mask, n_cells, c, i);
	return 0;
}

static int host_kernel_rows(const td_exec *x, td_real *r, td_real *q, const td_real *g,
			    const td_real *out, const td_real *den, const td_real *deg, size_t rows,
			    size_t n_cells, size_t c)
{
	(void)x;
	for (size_t row = 0; row < rows; row++)
		td_op_kernel_rows(r, q, g, out, den, deg, n_cells, c, row);
	return 0;
}

static int host_kernel_dk(const td_exec *x, td_real *dk, const td_real *sk, const td_real *q,
			  const uint8_t *mask, size_t blocks, size_t outer, size_t n, size_t inner,
			  size_t n_cells)
{
	(void)x;
	for (size_t e = 0; e < n * n; e++)
		td_op_kernel_dk(dk, sk, q, mask, blocks, outer, n, inner, n_cells, e);
	return 0;
}

static int host_shift_prev(const td_exec *x, td_real *prev, const td_real *src, size_t lines,
			   size_t length, size_t width, int reverse)
{
	(void)x;
	for (size_t i = 0; i < lines * length * width; i++)
		td_op_shift_prev(prev, src, length, width, reverse, i);
	return 0;
}

static int host_gru_step(const td_exec *x, td_real *g, td_real *hs, const td_real *gh,
			 const td_real *b, const td_real *c, size_t lines, size_t length, size_t h,
			 size_t q, int reverse)
{
	(void)x;
	for (size_t i = 0; i < lines * h; i++)
		td_op_gru_step(g, hs, gh, b, c, length, h, q, reverse, i);
	return 0;
}

static int host_gru_step_back(const td_exec *x, td_real *dgx, td_real *dgh, td_real *carry,
			      const td_real *g, const td_real *dy, const td_real *hp, size_t lines,
			      size_t length, size_t h, size_t q, int reverse)
{
	(void)x;
	for (size_t i = 0; i < lines * h; i++)
		td_op_gru_step_back(dgx, dgh, carry, g, dy, hp, length, h, q, reverse, i);
	return 0;
}

static int host_lstm_step(const td_exec *x, td_real *g, td_real *ss, td_real *ts, td_real *hs,
			  const td_real *gh, const td_real *b, const td_real *c, size_t lines,
			  size_t length, size_t h, size_t q, int reverse)
{
	(void)x;
	for (size_t i = 0; i < lines * h; i++)
		td_op_lstm_step(g, ss, ts, hs, gh, b, c, length, h, q, reverse, i);
	return 0;
}

static int host_lstm_step_back(const td_exec *x, td_real *dg, const td_real *dh, td_real *ds,
			       const td_real *g, const td_real *ts, const td_real *sp,
			       const td_real *dy, size_t lines, size_t length, size_t h, size_t q,
			       int reverse)
{
	(void)x;
	for (size_t i = 0; i < lines * h; i++)
		td_op_lstm_step_back(dg, dh, ds, g, ts, sp, dy, length, h, q, reverse, i);
	return 0;
}

static int host_add_parts(const td_exec *x, td_real *grad, const td_real *parts, size_t n,
			  size_t stride, size_t count)
{
	(void)x;
	for (size_t e = 0; e < count; e++)
		td_op_add_parts(grad, parts, n, stride, e);
	return 0;
}

static int host_attend(const td_exec *x, td_real *att, td_real *ctx, const td_real *qkv,
		       size_t lines, const td_op_attn *a)
{
	(void)x;
	for (size_t i = 0; i < lines * a->heads * a->length; i++)
		td_op_attend(att, ctx, qkv, a, i);
	return 0;
}

static int host_attend_backward(const td_exec *x, td_real *dqkv, td_real *ds, const td_real *att,
				const td_real *qkv, const td_real *dctx, size_t lines,
				const td_op_attn *a)
{
	const size_t n = lines * a->heads * a->length;

	(void)x;
	for (size_t i = 0; i < n; i++)
		td_op_attend_back_query(ds, dqkv, att, qkv, dctx, a, i);
	for (size_t i = 0; i < n; i++)
		td_op_attend_back_key(dqkv, ds, att, qkv, dctx, a, i);
	return 0;
}

static int host_xent(const td_exec *x, td_real *dy, double *acc, double *loss, int *best,
		     uint8_t *present, const td_real *y, const int *labels, const uint8_t *mask,
		     const uint8_t *emask, size_t batch, size_t n_cells, size_t k)
{
	(void)x;
	for (size_t b = 0; b < batch; b++)
		loss[b] = td_op_xent_example(dy, &best[b], present + b * n_cells, y, labels, mask,
					     emask, batch, n_cells, k, b);
	td_op_xent_sums(acc, loss, best, labels, batch);
	return 0;
}

static int host_opt_step(const td_exec *x, td_op_opt_state *st, td_real *p, td_real *m,
			 td_real *v, const td_real *g, size_t n, double *part, size_t *bad,
			 double lr, double clip, double weight_decay, const double *bc1,
			 const double *bc2)
{
	const size_t len = x->norm_part ? x->norm_part : n;
	size_t n_parts = 0;

	for (size_t i0 = 0; i0 < n; i0 += len, n_parts++)
		part[n_parts] = td_op_sumsq_checked(g, i0, n - i0 < len ? n : i0 + len, &bad[n_parts]);
	td_op_opt_decide(st, part, bad, n_parts, g, lr, clip, weight_decay, bc1, bc2);
	for (size_t i = 0; i < n && st->applied; i++)
		td_op_adamw(p, m, v, g, &st->step, i);
	return 0;
}

static const td_exec host = {
	.name = "host",
	.alloc = host_alloc,
	.release = host_release,
	.host_alloc = host_alloc,
	.host_release = host_release,
	.mark = host_mark,
	.wait_mark = host_mark,
	.upload = host_copy,
	.download = host_copy,
	.copy = host_copy,
	.gemm = host_gemm,
	.gemm_batched = host_gemm_batched,
	.select = host_select,
	.bias_add = host_bias_add,
	.rmsnorm = host_rmsnorm,
	.relu = host_relu,
	.fold = host_fold,
	.conv_forward = host_conv_forward,
	.head_cell = host_head_cell,
	.zero = host_zero,
	.bias_grad = host_bias_grad,
	.rmsnorm_backward = host_rmsnorm_backward,
	.relu_backward = host_relu_backward,
	.conv_backward = host_conv_backward,
	.head_cell_backward = host_head_cell_backward,
	.lru_decay = host_lru_decay,
	.lru_scan = host_lru_scan,
	.scale = host_scale,
	.lru_grads = host_lru_grads,
	.clru_decay = host_clru_decay,
	.clru_scan = host_clru_scan,
	.clru_grads = host_clru_grads,
	.products = host_products,
	.gather = host_gather,
	.kernel_masses = host_kernel_masses,
	.kernel_renorm = host_kernel_renorm,
	.kernel_rows = host_kernel_rows,
	.kernel_dk = host_kernel_dk,
	.diag_add = host_diag_add,
	.shift_prev = host_shift_prev,
	.gru_step = host_gru_step,
	.gru_step_back = host_gru_step_back,
	.lstm_step = host_lstm_step,
	.lstm_step_back = host_lstm_step_back,
	.add_parts = host_add_parts,
	.attend = host_attend,
	.attend_backward = host_attend_backward,
	.xent = host_xent,
	.opt_step = host_opt_step,
};

const td_exec *td_exec_host(void)
{
	return &host;
}
