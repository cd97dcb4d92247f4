/*
 * ops.cu - the training kernels (see backend.h): each thread calls one
 * body of kernels/ops.h, for one row, channel, example or element.
 *
 * Built with -fmad=false (Makefile): a multiply and an add stay two IEEE
 * operations, as in the C core, so the bodies give the CPU's bits wherever
 * they use only +, -, *, /, sqrt and td_exp. Must never: reduce across
 * threads (no atomics, no shared-memory trees: every sum is one thread's,
 * in ops.h's fixed order), or abort.
 */
#include <climits>

extern "C" {
#include "backend.h"
}
#include "cuda_int.h"
#include "ops.h"

static_assert(sizeof(td_real) == sizeof(float), "the kernels are float: build without TD_REAL_DOUBLE");

enum { THREADS = 128 };

static unsigned blocks(size_t n)
{
	return (unsigned)((n + THREADS - 1) / THREADS);
}

/* The thread's index in a one-dimensional launch. */
__device__ static size_t tid(void)
{
	return (size_t)blockIdx.x * blockDim.x + threadIdx.x;
}

__global__ static void rmsnorm_forward_kernel(float *y, float *inv, const float *x,
					      const float *gain, size_t rows, size_t width)
{
	size_t r = tid();

	if (r < rows)
		td_op_rmsnorm_row(y + r * width, inv + r, x + r * width, gain, width);
}

__global__ static void rmsnorm_backward_kernel(float *dx, const float *dy, const float *x,
					       const float *inv, const float *gain, size_t rows,
					       size_t width, int add)
{
	size_t r = tid();

	if (r < rows)
		td_op_rmsnorm_backward_row(dx + r * width, dy + r * width, x + r * width, inv[r],
					   gain, width, add);
}

__global__ static void rmsnorm_dgain_kernel(float *dgain, const float *dy, const float *x,
					    const float *inv, size_t rows, size_t width)
{
	size_t k = tid();

	if (k < width)
		td_op_rmsnorm_dgain(dgain, dy, x, inv, rows, width, k);
}

__global__ static void softmax_kernel(float *w, const float *s, size_t rows, size_t n)
{
	size_t r = tid();

	if (r < rows)
		td_op_softmax_row(w + r * n, s + r * n, n);
}

__global__ static void relu_kernel(float *act, float *dpre, const float *pre, const float *dact,
				   size_t n)
{
	size_t i = tid();

	if (i < n) {
		act[i] = td_op_relu(pre[i]);
		if (dpre)
			dpre[i] = td_op_relu_backward(pre[i], dact[i]);
	}
}

__global__ static void xent_kernel(float *dy, double *loss, int *best, const float *y,
				   const uint8_t *present, const int *labels, size_t batch,
				   size_t n_cells, size_t k, double scale)
{
	size_t b = tid();

	if (b < batch)
		loss[b] = td_op_xent(dy + b * n_cells * k, best + b, y + b * n_cells * k,
				     present + b * n_cells, n_cells, k, labels[b], scale);
}

__global__ static void sumsq_kernel(double *part, const float *g, size_t n, size_t n_parts)
{
	size_t p = tid();

	if (p < n_parts) {
		size_t i0 = p * TD_OPS_NORM_PART, i1 = n - i0 < TD_OPS_NORM_PART ? n : i0 + TD_OPS_NORM_PART;

		part[p] = td_op_sumsq(g, i0, i1);
	}
}

__global__ static void norm_kernel(double *norm, const double *part, size_t n_parts)
{
	if (tid() == 0)
		*norm = sqrt(td_op_sumsq_total(part, n_parts));
}

__global__ static void adamw_kernel(float *p, float *m, float *v, const float *g, size_t n,
				    td_op_adamw_step s)
{
	size_t i = tid();

	if (i < n)
		td_op_adamw(p, m, v, g, &s, i);
}

/* Thread (l, t, k) of lines x length x channels: the conv's forward at line l's position t, channel k. */
__global__ static void conv_forward_kernel(float *y, const float *x, const float *w, size_t lines,
					   td_op_conv s)
{
	const size_t i = tid(), per = s.length * s.channels;

	if (i < lines * per)
		td_op_conv_forward(y + i / per * per, x + i / per * per, w, w + s.taps * s.channels, &s,
				   i % per / s.channels, i % s.channels);
}

__global__ static void conv_dx_kernel(float *dx, const float *dy, const float *w, size_t lines,
				      td_op_conv s)
{
	const size_t i = tid(), per = s.length * s.channels;

	if (i < lines * per)
		td_op_conv_dx(dx + i / per * per, dy + i / per * per, w, &s, i % per / s.channels,
			      i % s.channels);
}

/* Thread (row, k) of (taps + 1) x channels: one sum of the weight and bias gradients. */
__global__ static void conv_grad_kernel(float *g, const float *dy, const float *x, size_t lines,
					td_op_conv s)
{
	const size_t i = tid();

	if (i < (s.taps + 1) * s.channels)
		td_op_conv_grad(g, dy, x, &s, lines, i / s.channels, i % s.channels);
}

/* Thread (l, k) of lines x n: state k of line l's recurrence, or of its adjoint. */
__global__ static void lru_scan_kernel(float *h, const float *a, size_t lines, size_t length,
				       size_t n, int reverse, int adjoint)
{
	const size_t i = tid();

	if (i >= lines * n)
		return;
	if (adjoint)
		td_op_lru_scan_adjoint(h + i / n * length * n, a, length, n, reverse, i % n);
	else
		td_op_lru_scan(h + i / n * length * n, a, length, n, reverse, i % n);
}

/* Thread q of n + c: dL/da for state q < n, else dL/dD for channel q - n. */
__global__ static void lru_grads_kernel(float *da, float *dd, const float *g, const float *h,
					const float *dy, const float *x, size_t lines,
					size_t length, size_t n, size_t c, int reverse)
{
	const size_t q = tid();

	if (q < n)
		da[q] = td_op_lru_decay_grad(g, h, lines, length, n, reverse, q);
	else if (q < n + c)
		dd[q - n] = td_op_lru_skip_grad(dy, x, lines * length, c, q - n);
}

/* Thread q of n_parts: part q of the norm with the firewall's search. */
__global__ static void opt_parts_kernel(double *part, size_t *bad, const float *g, size_t n,
					size_t n_parts)
{
	const size_t q = tid();

	if (q < n_parts) {
		const size_t i0 = q * TD_OPS_NORM_PART;

		part[q] = td_op_sumsq_checked(g, i0, n - i0 < TD_OPS_NORM_PART ? n : i0 + TD_OPS_NORM_PART,
					      &bad[q]);
	}
}

__global__ static void opt_decide_kernel(td_op_opt_state *st, const double *part, const size_t *bad,
					 size_t n_parts, const float *g, double lr, double clip,
					 double weight_decay, const double *bc1, const double *bc2)
{
	if (tid() == 0)
		td_op_opt_decide(st, part, bad, n_parts, g, lr, clip, weight_decay, bc1, bc2);
}

/* The update where the decision applied the step; nothing where it skipped it. */
__global__ static void opt_update_kernel(float *p, float *m, float *v, const float *g, size_t n,
					 const td_op_opt_state *st)
{
	const size_t i = tid();

	if (i < n && st->applied)
		td_op_adamw(p, m, v, g, &st->step, i);
}

__global__ static void fold_select_kernel(float *dst, const float *src, const size_t *map,
					  const uint8_t *mask, const uint8_t *emask, size_t all,
					  size_t n_cells, size_t channels, int unfold)
{
	const size_t i = tid();

	if (i < all)
		td_op_fold_select(dst, src, map, mask, emask, n_cells, channels, unfold, i);
}

extern "C" int td_cuda_rmsnorm_forward(float *y, float *inv, const float *x, const float *gain,
				       size_t rows, size_t width)
{
	float *dy = NULL, *dinv = NULL, *dx = NULL, *dg = NULL;
	int err = 0;

	if ((err = td_cuda_upload(&dx, x, rows * width * sizeof *x)) ||
	    (err = td_cuda_upload(&dg, gain, width * sizeof *gain)) ||
	    (err = td_cuda_upload(&dy, NULL, rows * width * sizeof *y)) ||
	    (err = td_cuda_upload(&dinv, NULL, rows * sizeof *inv)))
		goto done;
	rmsnorm_forward_kernel<<<blocks(rows), THREADS>>>(dy, dinv, dx, dg, rows, width);
	CUDA_TRY(cudaGetLastError());
	if (!(err = td_cuda_download(y, dy, rows * width * sizeof *y)))
		err = td_cuda_download(inv, dinv, rows * sizeof *inv);
done:
	cudaFree(dinv), cudaFree(dy), cudaFree(dg), cudaFree(dx);
	return err;
}

extern "C" int td_cuda_rmsnorm_backward(float *dx, float *dgain, const float *dy, const float *x,
					const float *inv, const float *gain, size_t rows,
					size_t width, int add)
{
	float *ddx = NULL, *ddg = NULL, *ddy = NULL, *dxx = NULL, *dinv = NULL, *dg = NULL;
	const size_t rw = rows * width * sizeof *x;
	int err = 0;

	if ((err = td_cuda_upload(&ddx, dx, rw)) ||
	    (err = td_cuda_upload(&ddg, dgain, width * sizeof *dgain)) ||
	    (err = td_cuda_upload(&ddy, dy, rw)) || (err = td_cuda_upload(&dxx, x, rw)) ||
	    (err = td_cuda_upload(&dinv, inv, rows * sizeof *inv)) ||
	    (err = td_cuda_upload(&dg, gain, width * sizeof *gain)))
		goto done;
	rmsnorm_backward_kernel<<<blocks(rows), THREADS>>>(ddx, ddy, dxx, dinv, dg, rows, width, add);
	CUDA_TRY(cudaGetLastError());
	rmsnorm_dgain_kernel<<<blocks(width), THREADS>>>(ddg, ddy, dxx, dinv, rows, width);
	CUDA_TRY(cudaGetLastError());
	if (!(err = td_cuda_download(dx, ddx, rw)))
		err = td_cuda_download(dgain, ddg, width * sizeof *dgain);
done:
	cudaFree(dg), cudaFree(dinv), cudaFree(dxx), cudaFree(ddy), cudaFree(ddg), cudaFree(ddx);
	return err;
}

extern "C" int td_cuda_softmax_rows(float *w, const float *s, size_t rows, size_t n)
{
	float *dw = NULL, *ds = NULL;
	int err = 0;

	if ((err = td_cuda_upload(&ds, s, rows * n * sizeof *s)) ||
	    (err = td_cuda_upload(&dw, NULL, rows * n * sizeof *w)))
		goto done;
	softmax_kernel<<<blocks(rows), THREADS>>>(dw, ds, rows, n);
	CUDA_TRY(cudaGetLastError());
	err = td_cuda_download(w, dw, rows * n * sizeof *w);
done:
	cudaFree(dw), cudaFree(ds);
	return err;
}

extern "C" int td_cuda_relu(float *act, float *dpre, const float *pre, const float *dact, size_t n)
{
	float *da = NULL, *dd = NULL, *dp = NULL, *ddact = NULL;
	int err = 0;

	if ((err = td_cuda_upload(&dp, pre, n * sizeof *pre)) ||
	    (err = td_cuda_upload(&da, NULL, n * sizeof *act)) ||
	    (dpre && ((err = td_cuda_upload(&dd, NULL, n * sizeof *dpre)) ||
		      (err = td_cuda_upload(&ddact, dact, n * sizeof *dact)))))
		goto done;
	relu_kernel<<<blocks(n), THREADS>>>(da, dd, dp, ddact, n);
	CUDA_TRY(cudaGetLastError());
	if (!(err = td_cuda_download(act, da, n * sizeof *act)) && dpre)
		err = td_cuda_download(dpre, dd, n * sizeof *dpre);
done:
	cudaFree(ddact), cudaFree(dd), cudaFree(da), cudaFree(dp);
	return err;
}

extern "C" int td_cuda_xent(float *dy, double *loss, int *best, const float *y,
			    const uint8_t *present, const int *labels, size_t batch,
			    size_t n_cells, size_t k, double scale)
{
	const size_t all = batch * n_cells * k;
	float *ddy = NULL, *dyy = NULL;
	double *dloss = NULL;
	int *dbest = NULL, *dlab = NULL;
	uint8_t *dpres = NULL;
	int err = 0;

	if (k > TD_OPS_MAX_CLASSES)
		return TD_FAIL(TD_EINVAL, "%zu classes: at most %d", k, TD_OPS_MAX_CLASSES);
	if ((err = td_cuda_upload(&dyy, y, all * sizeof *y)) ||
	    (err = td_cuda_upload(&dpres, present, batch * n_cells)) ||
	    (err = td_cuda_upload(&dlab, labels, batch * sizeof *labels)) ||
	    (err = td_cuda_upload(&ddy, NULL, all * sizeof *dy)) ||
	    (err = td_cuda_upload(&dloss, NULL, batch * sizeof *loss)) ||
	    (err = td_cuda_upload(&dbest, NULL, batch * sizeof *best)))
		goto done;
	xent_kernel<<<blocks(batch), THREADS>>>(ddy, dloss, dbest, dyy, dpres, dlab, batch, n_cells,
						k, scale);
	CUDA_TRY(cudaGetLastError());
	if (!(err = td_cuda_download(dy, ddy, all * sizeof *dy)) &&
	    !(err = td_cuda_download(loss, dloss, batch * sizeof *loss)))
		err = td_cuda_download(best, dbest, batch * sizeof *best);
done:
	cudaFree(dbest), cudaFree(dloss), cudaFree(ddy), cudaFree(dlab), cudaFree(dpres);
	cudaFree(dyy);
	return err;
}

extern "C" int td_cuda_grad_norm(double *norm, const float *g, size_t n)
{
	const size_t n_parts = (n + TD_OPS_NORM_PART - 1) / TD_OPS_NORM_PART;
	float *dg = NULL;
	double *dpart = NULL, *dnorm = NULL;
	int err = 0;

	if ((err = td_cuda_upload(&dg, g, n * sizeof *g)) ||
	    (err = td_cuda_upload(&dpart, NULL, n_parts * sizeof *dpart)) ||
	    (err = td_cuda_upload(&dnorm, NULL, sizeof *dnorm)))
		goto done;
	sumsq_kernel<<<blocks(n_parts), THREADS>>>(dpart, dg, n, n_parts);
	CUDA_TRY(cudaGetLastError());
	norm_kernel<<<1, 1>>>(dnorm, dpart, n_parts);
	CUDA_TRY(cudaGetLastError());
	err = td_cuda_download(norm, dnorm, sizeof *norm);
done:
	cudaFree(dnorm), cudaFree(dpart), cudaFree(dg);
	return err;
}

extern "C" int td_cuda_adamw(float *p, float *m, float *v, const float *g, size_t n,
			     const struct td_op_adamw_step *s)
{
	float *dp = NULL, *dm = NULL, *dv = NULL, *dg = NULL;
	int err = 0;

	if ((err = td_cuda_upload(&dp, p, n * sizeof *p)) ||
	    (err = td_cuda_upload(&dm, m, n * sizeof *m)) ||
	    (err = td_cuda_upload(&dv, v, n * sizeof *v)) ||
	    (err = td_cuda_upload(&dg, g, n * sizeof *g)))
		goto done;
	adamw_kernel<<<blocks(n), THREADS>>>(dp, dm, dv, dg, n, *s);
	CUDA_TRY(cudaGetLastError());
	if (!(err = td_cuda_download(p, dp, n * sizeof *p)) &&
	    !(err = td_cuda_download(m, dm, n * sizeof *m)))
		err = td_cuda_download(v, dv, n * sizeof *v);
done:
	cudaFree(dg), cudaFree(dv), cudaFree(dm), cudaFree(dp);
	return err;
}

extern "C" int td_cuda_conv_forward(float *y, const float *x, const float *w, size_t lines,
				    const struct td_op_conv *s)
{
	const size_t n = lines * s->length * s->channels * sizeof *x;
	float *dy = NULL, *dx = NULL, *dw = NULL;
	int err = 0;

	if ((err = td_cuda_upload(&dx, x, n)) ||
	    (err = td_cuda_upload(&dw, w, (s->taps + 1) * s->channels * sizeof *w)) ||
	    (err = td_cuda_upload(&dy, NULL, n)))
		goto done;
	conv_forward_kernel<<<blocks(n / sizeof *x), THREADS>>>(dy, dx, dw, lines, *s);
	CUDA_TRY(cudaGetLastError());
	err = td_cuda_download(y, dy, n);
done:
	cudaFree(dy), cudaFree(dw), cudaFree(dx);
	return err;
}

extern "C" int td_cuda_conv_backward(float *dx, float *g, const float *dy, const float *x,
				     const float *w, size_t lines, const struct td_op_conv *s)
{
	const size_t n = lines * s->length * s->channels * sizeof *x;
	const size_t nw = (s->taps + 1) * s->channels * sizeof *w;
	float *ddx = NULL, *dg = NULL, *ddy = NULL, *dxx = NULL, *dw = NULL;
	int err = 0;

	if ((err = td_cuda_upload(&ddy, dy, n)) || (err = td_cuda_upload(&dxx, x, n)) ||
	    (err = td_cuda_upload(&dw, w, nw)) || (err = td_cuda_upload(&dg, g, nw)) ||
	    (err = td_cuda_upload(&ddx, NULL, n)))
		goto done;
	conv_dx_kernel<<<blocks(n / sizeof *x), THREADS>>>(ddx, ddy, dw, lines, *s);
	CUDA_TRY(cudaGetLastError());
	conv_grad_kernel<<<blocks(nw / sizeof *w), THREADS>>>(dg, ddy, dxx, lines, *s);
	CUDA_TRY(cudaGetLastError());
	if (!(err = td_cuda_download(dx, ddx, n)))
		err = td_cuda_download(g, dg, nw);
done:
	cudaFree(ddx), cudaFree(dw), cudaFree(dxx), cudaFree(ddy), cudaFree(dg);
	return err;
}

extern "C" int td_cuda_lru_scan(float *h, const float *a, size_t lines, size_t length, size_t n,
				int reverse, int adjoint)
{
	const size_t bytes = lines * length * n * sizeof *h;
	float *dh = NULL, *dav = NULL;
	int err = 0;

	if ((err = td_cuda_upload(&dh, h, bytes)) || (err = td_cuda_upload(&dav, a, n * sizeof *a)))
		goto done;
	lru_scan_kernel<<<blocks(lines * n), THREADS>>>(dh, dav, lines, length, n, reverse, adjoint);
	CUDA_TRY(cudaGetLastError());
	err = td_cuda_download(h, dh, bytes);
done:
	cudaFree(dav), cudaFree(dh);
	return err;
}

extern "C" int td_cuda_lru_grads(float *da, float *dd, const float *g, const float *h,
				 const float *dy, const float *x, size_t lines, size_t length,
				 size_t n, size_t c, int reverse)
{
	const size_t pn = lines * length * n * sizeof *g, pc = lines * length * c * sizeof *x;
	float *dda = NULL, *ddd = NULL, *dg = NULL, *dh = NULL, *ddy = NULL, *dx = NULL;
	int err = 0;

	if ((err = td_cuda_upload(&dg, g, pn)) || (err = td_cuda_upload(&dh, h, pn)) ||
	    (err = td_cuda_upload(&ddy, dy, pc)) || (err = td_cuda_upload(&dx, x, pc)) ||
	    (err = td_cuda_upload(&dda, NULL, n * sizeof *da)) ||
	    (err = td_cuda_upload(&ddd, NULL, c * sizeof *dd)))
		goto done;
	lru_grads_kernel<<<blocks(n + c), THREADS>>>(dda, ddd, dg, dh, ddy, dx, lines, length, n, c,
						     reverse);
	CUDA_TRY(cudaGetLastError());
	if (!(err = td_cuda_download(da, dda, n * sizeof *da)))
		err = td_cuda_download(dd, ddd, c * sizeof *dd);
done:
	cudaFree(dx), cudaFree(ddy), cudaFree(dh), cudaFree(dg), cudaFree(ddd), cudaFree(dda);
	return err;
}

extern "C" int td_cuda_adamw_steps(float *p, float *m, float *v, struct td_op_opt_state *st,
				   const float *g, size_t n, size_t steps, const double *lr,
				   double clip, double weight_decay, const double *bc1,
				   const double *bc2)
{
	const size_t n_parts = (n + TD_OPS_NORM_PART - 1) / TD_OPS_NORM_PART;
	const size_t n_bc = (size_t)st->t + steps + 1, bytes = n * sizeof *p;
	float *dp = NULL, *dm = NULL, *dv = NULL, *dg = NULL;
	double *dpart = NULL, *dbc1 = NULL, *dbc2 = NULL;
	size_t *dbad = NULL;
	td_op_opt_state *dst = NULL;
	int err = 0;

	if ((err = td_cuda_upload(&dp, p, bytes)) || (err = td_cuda_upload(&dm, m, bytes)) ||
	    (err = td_cuda_upload(&dv, v, bytes)) || (err = td_cuda_upload(&dg, g, steps * bytes)) ||
	    (err = td_cuda_upload(&dst, st, sizeof *st)) ||
	    (err = td_cuda_upload(&dpart, NULL, n_parts * sizeof *dpart)) ||
	    (err = td_cuda_upload(&dbad, NULL, n_parts * sizeof *dbad)) ||
	    (err = td_cuda_upload(&dbc1, bc1, n_bc * sizeof *bc1)) ||
	    (err = td_cuda_upload(&dbc2, bc2, n_bc * sizeof *bc2)))
		goto done;
	for (size_t k = 0; k < steps; k++) { /* no copy and no wait between steps */
		const float *gk = dg + k * n;

		opt_parts_kernel<<<blocks(n_parts), THREADS>>>(dpart, dbad, gk, n, n_parts);
		CUDA_TRY(cudaGetLastError());
		opt_decide_kernel<<<1, 1>>>(dst, dpart, dbad, n_parts, gk, lr[k], clip, weight_decay,
					     dbc1, dbc2);
		CUDA_TRY(cudaGetLastError());
		opt_update_kernel<<<blocks(n), THREADS>>>(dp, dm, dv, gk, n, dst);
		CUDA_TRY(cudaGetLastError());
	}
	if (!(err = td_cuda_download(p, dp, bytes)) && !(err = td_cuda_download(m, dm, bytes)) &&
	    !(err = td_cuda_download(v, dv, bytes)))
		err = td_cuda_download(st, dst, sizeof *st);
done:
	cudaFree(dbc2), cudaFree(dbc1), cudaFree(dbad), cudaFree(dpart), cudaFree(dst);
	cudaFree(dg), cudaFree(dv), cudaFree(dm), cudaFree(dp);
	return err;
}

extern "C" int td_cuda_fold_select(float *dst, const float *src, const size_t *map,
				   const uint8_t *mask, const uint8_t *emask, size_t batch,
				   size_t n_cells, size_t channels, int unfold)
{
	const size_t all = batch * n_cells * channels;
	float *ddst = NULL, *dsrc = NULL;
	size_t *dmap = NULL;
	uint8_t *dmask = NULL, *demask = NULL;
	int err = 0;

	if ((err = td_cuda_upload(&dsrc, src, all * sizeof *src)) ||
	    (err = td_cuda_upload(&dmap, map, n_cells * sizeof *map)) ||
	    (err = td_cuda_upload(&dmask, mask, n_cells)) ||
	    (emask && (err = td_cuda_upload(&demask, emask, batch * n_cells))) ||
	    (err = td_cuda_upload(&ddst, NULL, all * sizeof *dst)))
		goto done;
	fold_select_kernel<<<blocks(all), THREADS>>>(ddst, dsrc, dmap, dmask, demask, all, n_cells,
						     channels, unfold);
	CUDA_TRY(cudaGetLastError());
	err = td_cuda_download(dst, ddst, all * sizeof *dst);
done:
	cudaFree(ddst), cudaFree(demask), cudaFree(dmask), cudaFree(dmap), cudaFree(dsrc);
	return err;
}
