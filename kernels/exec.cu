/*
 * exec.cu - the CUDA executor (core/exec.h): device memory, one stream,
 * kernels/ops.h's bodies as kernels (one thread per value, row or sum),
 * and cuBLAS for the products, on that stream.
 *
 * Every operation only queues its work; download alone waits (it reads
 * results back). cuBLAS runs in pedantic math (no TF32) with atomics
 * disallowed and a fixed workspace, so a given GPU and toolkit give the
 * same bits run after run. Must never abort: every status becomes a TD_E*
 * code with the runtime's words.
 */
#include <climits>
#include <cstring>

#include <cublas_v2.h>
extern "C" {
#include "backend.h"
#include "../core/exec.h"
}
#include "cuda_int.h"
#include "ops.h"

enum { THREADS = 128, WORKSPACE = 4 << 20 };

typedef struct {
	td_exec x; /* first: the executor's table, what callers hold */
	cudaStream_t stream;
	cudaEvent_t marks[TD_EXEC_MARKS];
	cublasHandle_t blas;
	void *workspace;
} cuda_exec;

static const cuda_exec *self(const td_exec *x)
{
	return (const cuda_exec *)x;
}

static unsigned grid(size_t n)
{
	return (unsigned)((n + THREADS - 1) / THREADS);
}

__device__ static size_t tid(void)
{
	return (size_t)blockIdx.x * blockDim.x + threadIdx.x;
}

/* Queues kernel<<<grid(n), THREADS>>> on x's stream and reports a failed launch. */
#define LAUNCH(x, n, kernel, ...)                                                            \
	do {                                                                                 \
		int err = 0;                                                                 \
		if ((n) > 0) {                                                               \
			kernel<<<grid(n), THREADS, 0, self(x)->stream>>>(__VA_ARGS__);      \
			CUDA_TRY(cudaGetLastError());                                        \
		}                                                                            \
	done:                                                                                \
		return err;                                                                  \
	} while (0)

__global__ static void select_kernel(float *dst, const float *a, const float *b,
				     const uint8_t *mask, const uint8_t *emask, size_t n_cells,
				     size_t channels, size_t all)
{
	const size_t i = tid();

	if (i < all)
		td_op_select(dst, a, b, mask, emask, n_cells, channels, i);
}

__global__ static void bias_kernel(float *out, const float *bias, size_t n, size_t all)
{
	const size_t i = tid();

	if (i < all)
		out[i] += bias[i % n];
}

__global__ static void rmsnorm_kernel(float *y, float *inv, const float *in, const float *gain,
				      size_t rows, size_t width)
{
	const size_t r = tid();

	if (r < rows)
		td_op_rmsnorm_row(y + r * width, inv + r, in + r * width, gain, width);
}

__global__ static void relu_kernel(float *act, const float *pre, size_t n)
{
	const size_t i = tid();

	if (i < n)
		act[i] = td_op_relu(pre[i]);
}

__global__ static void fold_kernel(float *dst, const float *src, const size_t *map,
				   const uint8_t *mask, const uint8_t *emask, size_t n_cells,
				   size_t channels, int unfold, size_t all)
{
	const size_t i = tid();

	if (i < all)
		td_op_fold_select(dst, src, map, mask, emask, n_cells, channels, unfold, i);
}

__global__ static void conv_kernel(float *y, const float *in, const float *w, td_op_conv s,
				   size_t all)
{
	const size_t i = tid(), per = s.length * s.channels;

	if (i < all)
		td_op_conv_forward(y + i / per * per, in + i / per * per, w, w + s.taps * s.channels,
				   &s, i % per / s.channels, i % s.channels);
}

__global__ static void head_kernel(float *y, const float *h, const float *wo, const float *bo,
				   size_t n_cells, size_t width, size_t out, size_t all)
{
	const size_t i = tid();

	if (i < all)
		td_op_head_cell(y, h, wo, bo, n_cells, width, out, i);
}

__global__ static void bias_grad_kernel(float *grad, const float *g, size_t rows, size_t n)
{
	const size_t j = tid();

	if (j < n)
		td_op_bias_grad(grad, g, rows, n, j);
}

__global__ static void rms_back_kernel(float *dx, const float *dy, const float *in,
				       const float *inv, const float *gain, size_t rows,
				       size_t width, int add)
{
	const size_t r = tid();

	if (r < rows)
		td_op_rmsnorm_backward_row(dx + r * width, dy + r * width, in + r * width, inv[r],
					   gain, width, add);
}

__global__ static void rms_dgain_kernel(float *dgain, const float *dy, const float *in,
					const float *inv, size_t rows, size_t width)
{
	const size_t k = tid();

	if (k < width)
		td_op_rmsnorm_dgain(dgain, dy, in, inv, rows, width, k);
}

__global__ static void relu_back_kernel(float *d, const float *pre, size_t n)
{
	const size_t i = tid();

	if (i < n)
		d[i] = td_op_relu_backward(pre[i], d[i]);
}

__global__ static void conv_dx_kernel(float *dx, const float *dy, const float *w, td_op_conv s,
				      size_t all)
{
	const size_t i = tid(), per = s.length * s.channels;

	if (i < all)
		td_op_conv_dx(dx + i / per * per, dy + i / per * per, w, &s, i % per / s.channels,
			      i % s.channels);
}

/* One chunk of lines lines: thread (row, channel) of (taps + 1) x channels. */
__global__ static void conv_grad_kernel(float *g, const float *dy, const float *in, size_t lines,
					td_op_conv s)
{
	const size_t i = tid();

	if (i < (s.taps + 1) * s.channels)
		td_op_conv_grad(g, dy, in, &s, lines, i / s.channels, i % s.channels);
}

__global__ static void head_dh_kernel(float *dh, const float *g, const float *wo, size_t n_cells,
				      size_t width, size_t out, size_t all)
{
	const size_t i = tid();

	if (i < all)
		td_op_head_cell_dh(dh, g, wo, n_cells, width, out, i);
}

__global__ static void head_dw_kernel(float *dwo, const float *g, const float *h, size_t batch,
				      size_t n_cells, size_t width, size_t out, size_t all)
{
	const size_t i = tid();

	if (i < all)
		td_op_head_cell_dw(dwo, g, h, batch, n_cells, width, out, i);
}

__global__ static void head_db_kernel(float *dbo, const float *g, size_t batch, size_t n_cells,
				      size_t out)
{
	const size_t j = tid();

	if (j < out)
		td_op_head_cell_db(dbo, g, batch, n_cells, out, j);
}

__global__ static void lru_decay_kernel(float *a, const float *w, size_t n)
{
	const size_t k = tid();

	if (k < n)
		a[k] = td_op_lru_decay(w[k]);
}

/* Thread (line, state) of lines x n. */
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

__global__ static void scale_kernel(float *y, const float *in, const float *d, size_t c,
				    size_t all)
{
	const size_t i = tid();

	if (i < all)
		y[i] = d[i % c] * in[i];
}

/* Thread q of n + c: the decay's gradient for state q < n, else the skip's for channel q - n. */
__global__ static void lru_grads_kernel(float *gw, float *gd, const float *g, const float *h,
					const float *dy, const float *in, const float *a,
					const float *w, size_t lines, size_t length, size_t n,
					size_t c, int reverse)
{
	const size_t q = tid();

	if (q < n)
		gw[q] += td_op_lru_dw(td_op_lru_decay_grad(g, h, lines, length, n, reverse, q), a[q],
				      w[q]);
	else if (q < n + c)
		gd[q - n] += td_op_lru_skip_grad(dy, in, lines * length, c, q - n);
}

__global__ static void clru_decay_kernel(float *a, const float *nu, const float *theta, size_t n)
{
	const size_t k = tid();

	if (k < n)
		td_op_clru_decay(a, nu, theta, n, k);
}

/* Thread (line, state) of lines x n; a line is [length][2n]. */
__global__ static void clru_scan_kernel(float *h, const float *a, size_t lines, size_t length,
					size_t n, int reverse, int adjoint)
{
	const size_t i = tid();

	if (i < lines * n)
		td_op_clru_scan(h + i / n * length * 2 * n, a, length, n, reverse, adjoint, i % n);
}

/* Thread q of n + c: dnu and dtheta for state q < n, else the skip's gradient for channel q - n. */
__global__ static void clru_grads_kernel(float *gnu, float *gtheta, float *gd, const float *g,
					 const float *h, const float *dy, const float *in,
					 const float *a, const float *nu, size_t lines,
					 size_t length, size_t n, size_t c, int reverse)
{
	const size_t q = tid();
	float dre, dim;

	if (q < n) {
		td_op_clru_decay_grad(&dre, &dim, g, h, lines, length, n, reverse, q);
		gtheta[q] += td_op_clru_dtheta(dre, dim, a[q], a[n + q]);
		gnu[q] += td_op_clru_dnu(dre, dim, a[q], a[n + q], nu[q]);
	} else if (q < n + c) {
		gd[q - n] += td_op_lru_skip_grad(dy, in, lines * length, c, q - n);
	}
}

__global__ static void gather_kernel(float *dst, const float *src, const size_t *map,
				     size_t n_from, size_t n_to, size_t channels, size_t all)
{
	const size_t i = tid();

	if (i < all)
		td_op_gather(dst, src, map, n_from, n_to, channels, i);
}

__global__ static void kernel_masses_kernel(float *den, float *deg, const float *k,
					    const uint8_t *mask, size_t n_cells, size_t n,
					    size_t inner, double cancel)
{
	const size_t at = tid();

	if (at < n_cells)
		td_op_kernel_mass(den, deg, k, mask, n, inner, cancel, at);
}

__global__ static void kernel_renorm_kernel(float *out, const float *den, const float *deg,
					    const uint8_t *mask, size_t n_cells, size_t c,
					    size_t all)
{
	const size_t i = tid();

	if (i < all)
		td_op_kernel_renorm(out, den, deg, mask, n_cells, c, i);
}

__global__ static void kernel_rows_kernel(float *r, float *q, const float *g, const float *out,
					  const float *den, const float *deg, size_t rows,
					  size_t n_cells, size_t c)
{
	const size_t row = tid();

	if (row < rows)
		td_op_kernel_rows(r, q, g, out, den, deg, n_cells, c, row);
}

__global__ static void kernel_dk_kernel(float *dk, const float *sk, const float *q,
					const uint8_t *mask, size_t blocks, size_t outer, size_t n,
					size_t inner, size_t n_cells)
{
	const size_t e = tid();

	if (e < n * n)
		td_op_kernel_dk(dk, sk, q, mask, blocks, outer, n, inner, n_cells, e);
}

/* Thread i of nr x ns: entry (i / ns, i % ns). */
__global__ static void products_kernel(float *out, size_t ors, size_t oss, const float *p,
				       size_t prs, size_t pts, const float *q, size_t qrs,
				       size_t qts, size_t ns, size_t nt, const float *diag, int mode,
				       size_t all)
{
	const size_t i = tid();

	if (i < all)
		td_op_product(out, ors, oss, p, prs, pts, q, qrs, qts, nt, diag, mode, i / ns,
			      i % ns);
}

__global__ static void diag_add_kernel(float *g, const float *dm, size_t c)
{
	const size_t i = tid();

	if (i < c)
		g[i] += dm[i * c + i];
}

__global__ static void shift_prev_kernel(float *prev, const float *src, size_t length,
					 size_t width, int reverse, size_t all)
{
	const size_t i = tid();

	if (i < all)
		td_op_shift_prev(prev, src, length, width, reverse, i);
}

/* Thread (line, channel) of lines x h, at step q. */
__global__ static void gru_step_kernel(float *g, float *hs, const float *gh, const float *b,
				       const float *c, size_t length, size_t h, size_t q,
				       int reverse, size_t all)
{
	const size_t i = tid();

	if (i < all)
		td_op_gru_step(g, hs, gh, b, c, length, h, q, reverse, i);
}

/* Thread (line, channel) of lines x h, at step q. */
__global__ static void gru_back_kernel(float *dgx, float *dgh, float *carry, const float *g,
				       const float *dy, const float *hp, size_t length, size_t h,
				       size_t q, int reverse, size_t all)
{
	const size_t i = tid();

	if (i < all)
		td_op_gru_step_back(dgx, dgh, carry, g, dy, hp, length, h, q, reverse, i);
}

/* Thread (line, channel) of lines x h, at step q. */
__global__ static void lstm_step_kernel(float *g, float *ss, float *ts, float *hs,
					const float *gh, const float *b, const float *c,
					size_t length, size_t h, size_t q, int reverse, size_t all)
{
	const size_t i = tid();

	if (i < all)
		td_op_lstm_step(g, ss, ts, hs, gh, b, c, length, h, q, reverse, i);
}

/* Thread (line, channel) of lines x h, at step q. */
__global__ static void lstm_back_kernel(float *dg, const float *dh, float *ds, const float *g,
					const float *ts, const float *sp, const float *dy,
					size_t length, size_t h, size_t q, int reverse, size_t all)
{
	const size_t i = tid();

	if (i < all)
		td_op_lstm_step_back(dg, dh, ds, g, ts, sp, dy, length, h, q, reverse, i);
}

/* Thread e of count: the blocks' parts of element e, in block order. */
__global__ static void add_parts_kernel(float *grad, const float *parts, size_t n, size_t stride,
					size_t count)
{
	const size_t e = tid();

	if (e < count)
		td_op_add_parts(grad, parts, n, stride, e);
}

/* Thread i of all: query step i of its (line, head) pair, forward. */
__global__ static void attend_kernel(float *att, float *ctx, const float *qkv, td_op_attn a,
				     size_t all)
{
	const size_t i = tid();

	if (i < all)
		td_op_attend(att, ctx, qkv, &a, i);
}

/* Thread i of all: query step i's ds row and dq. */
__global__ static void attend_query_kernel(float *ds, float *dqkv, const float *att,
					   const float *qkv, const float *dctx, td_op_attn a,
					   size_t all)
{
	const size_t i = tid();

	if (i < all)
		td_op_attend_back_query(ds, dqkv, att, qkv, dctx, &a, i);
}

/* Thread i of all: key step i's dv and dk, from every query's ds. */
__global__ static void attend_key_kernel(float *dqkv, const float *ds, const float *att,
					 const float *qkv, const float *dctx, td_op_attn a,
					 size_t all)
{
	const size_t i = tid();

	if (i < all)
		td_op_attend_back_key(dqkv, ds, att, qkv, dctx, &a, i);
}

/* Thread b of batch: example b's present cells, loss, arg max and dy. */
__global__ static void xent_kernel(float *dy, double *loss, int *best, uint8_t *present,
				   const float *y, const int *labels, const uint8_t *mask,
				   const uint8_t *emask, size_t batch, size_t n_cells, size_t k)
{
	const size_t b = tid();

	if (b < batch)
		loss[b] = td_op_xent_example(dy, &best[b], present + b * n_cells, y, labels, mask,
					     emask, batch, n_cells, k, b);
}

__global__ static void xent_sums_kernel(double *acc, const double *loss, const int *best,
					const int *labels, size_t batch)
{
	if (tid() == 0)
		td_op_xent_sums(acc, loss, best, labels, batch);
}

/* Thread q of n_parts: part q of the gradient's norm, with the firewall's search. */
__global__ static void norm_parts_kernel(double *part, size_t *bad, const float *g, size_t n,
					 size_t len, size_t n_parts)
{
	const size_t q = tid(), i0 = q * len;

	if (q < n_parts)
		part[q] = td_op_sumsq_checked(g, i0, n - i0 < len ? n : i0 + len, &bad[q]);
}

__global__ static void decide_kernel(td_op_opt_state *st, const double *part, const size_t *bad,
				     size_t n_parts, const float *g, double lr, double clip,
				     double weight_decay, const double *bc1, const double *bc2)
{
	if (tid() == 0)
		td_op_opt_decide(st, part, bad, n_parts, g, lr, clip, weight_decay, bc1, bc2);
}

/* The update where the decision applied the step; nothing where it skipped it. */
__global__ static void update_kernel(float *p, float *m, float *v, const float *g, size_t n,
				     const td_op_opt_state *st)
{
	const size_t i = tid();

	if (i < n && st->applied)
		td_op_adamw(p, m, v, g, &st->step, i);
}

static int ex_alloc(const td_exec *x, void *out, size_t bytes)
{
	void **p = (void **)out;
	int err = 0;

	*p = NULL;
	CUDA_TRY(cudaMalloc(p, bytes ? bytes : 1));
	CUDA_TRY(cudaMemsetAsync(*p, 0, bytes ? bytes : 1, self(x)->stream));
done:
	return err;
}

static void ex_release(const td_exec *x, void *p)
{
	(void)x;
	cudaFree(p);
}

static int ex_host_alloc(const td_exec *x, void *out, size_t bytes)
{
	void **p = (void **)out;
	int err = 0;

	(void)x;
	*p = NULL;
	CUDA_TRY(cudaHostAlloc(p, bytes ? bytes : 1, cudaHostAllocDefault));
	memset(*p, 0, bytes ? bytes : 1);
done:
	return err;
}

static void ex_host_release(const td_exec *x, void *p)
{
	(void)x;
	cudaFreeHost(p);
}

static int ex_mark(const td_exec *x, int k)
{
	int err = 0;

	CUDA_TRY(cudaEventRecord(self(x)->marks[k], self(x)->stream));
done:
	return err;
}

static int ex_wait_mark(const td_exec *x, int k)
{
	int err = 0;

	CUDA_TRY(cudaEventSynchronize(self(x)->marks[k]));
done:
	return err;
}

static int ex_upload(const td_exec *x, void *dst, const void *src, size_t bytes)
{
	int err = 0;

	if (bytes)
		CUDA_TRY(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyHostToDevice, self(x)->stream));
done:
	return err;
}

static int ex_download(const td_exec *x, void *dst, const void *src, size_t bytes)
{
	int err = 0;

	if (bytes)
		CUDA_TRY(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToHost, self(x)->stream));
	CUDA_TRY(cudaStreamSynchronize(self(x)->stream));
done:
	return err;
}

static int ex_copy(const td_exec *x, void *dst, const void *src, size_t bytes)
{
	int err = 0;

	if (bytes)
		CUDA_TRY(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToDevice, self(x)->stream));
done:
	return err;
}

/*
 * Row-major C = alpha op(A) op(B) + beta C is column-major C^T = alpha
 * op(B)^T op(A)^T + beta C^T (cuda.cu's sgemm).
 */
static int ex_gemm(const td_exec *x, float *c, size_t ldc, const float *a, size_t lda,
		   const float *b, size_t ldb, size_t m, size_t n, size_t k, int trans_a,
		   int trans_b, float alpha, float beta)
{
	int err = 0;

	if (m == 0 || n == 0)
		return 0;
	if (m > INT_MAX || n > INT_MAX || k > INT_MAX || ldc > INT_MAX || lda > INT_MAX ||
	    ldb > INT_MAX)
		return TD_FAIL(TD_EINVAL, "a %zu x %zu x %zu product: cuBLAS takes int", m, n, k);
	CUBLAS_TRY(cublasSgemm(self(x)->blas, trans_b ? CUBLAS_OP_T : CUBLAS_OP_N,
			       trans_a ? CUBLAS_OP_T : CUBLAS_OP_N, (int)n, (int)m, (int)k, &alpha,
			       b, (int)ldb, a, (int)lda, &beta, c, (int)ldc));
done:
	return err;
}

static int ex_gemm_batched(const td_exec *x, float *c, size_t ldc, size_t sc, const float *a,
			   size_t lda, size_t sa, const float *b, size_t ldb, size_t sb, size_t m,
			   size_t n, size_t k, size_t count, int trans_a, int trans_b, float alpha,
			   float beta)
{
	int err = 0;

	if (m == 0 || n == 0 || count == 0)
		return 0;
	if (m > INT_MAX || n > INT_MAX || k > INT_MAX || ldc > INT_MAX || lda > INT_MAX ||
	    ldb > INT_MAX || count > INT_MAX || sa > LLONG_MAX || sb > LLONG_MAX || sc > LLONG_MAX)
		return TD_FAIL(TD_EINVAL, "%zu products of %zu x %zu x %zu: cuBLAS takes int", count,
			       m, n, k);
	CUBLAS_TRY(cublasSgemmStridedBatched(
	    self(x)->blas, trans_b ? CUBLAS_OP_T : CUBLAS_OP_N, trans_a ? CUBLAS_OP_T : CUBLAS_OP_N,
	    (int)n, (int)m, (int)k, &alpha, b, (int)ldb, (long long)sb, a, (int)lda, (long long)sa,
	    &beta, c, (int)ldc, (long long)sc, (int)count));
done:
	return err;
}

static int ex_select(const td_exec *x, float *dst, const float *a, const float *b,
		     const uint8_t *mask, const uint8_t *emask, size_t n_cells, size_t rows,
		     size_t channels)
{
	LAUNCH(x, rows * channels, select_kernel, dst, a, b, mask, emask, n_cells, channels,
	       rows * channels);
}

static int ex_bias_add(const td_exec *x, float *out, const float *bias, size_t rows, size_t n)
{
	LAUNCH(x, rows * n, bias_kernel, out, bias, n, rows * n);
}

static int ex_rmsnorm(const td_exec *x, float *y, float *inv, const float *in, const float *gain,
		      size_t rows, size_t width)
{
	LAUNCH(x, rows, rmsnorm_kernel, y, inv, in, gain, rows, width);
}

static int ex_relu(const td_exec *x, float *act, const float *pre, size_t n)
{
	LAUNCH(x, n, relu_kernel, act, pre, n);
}

static int ex_fold(const td_exec *x, float *dst, const float *src, const size_t *map,
		   const uint8_t *mask, const uint8_t *emask, size_t batch, size_t n_cells,
		   size_t channels, int unfold)
{
	LAUNCH(x, batch * n_cells * channels, fold_kernel, dst, src, map, mask, emask, n_cells,
	       channels, unfold, batch * n_cells * channels);
}

static int ex_conv_forward(const td_exec *x, float *y, const float *in, const float *w,
			   size_t lines, const td_op_conv *s)
{
	LAUNCH(x, lines * s->length * s->channels, conv_kernel, y, in, w, *s,
	       lines * s->length * s->channels);
}

static int ex_head_cell(const td_exec *x, float *y, const float *h, const float *wo,
			const float *bo, size_t rows, size_t n_cells, size_t width, size_t out)
{
	LAUNCH(x, rows * out, head_kernel, y, h, wo, bo, n_cells, width, out, rows * out);
}

static int ex_zero(const td_exec *x, void *p, size_t bytes)
{
	int err = 0;

	if (bytes)
		CUDA_TRY(cudaMemsetAsync(p, 0, bytes, self(x)->stream));
done:
	return err;
}

static int ex_bias_grad(const td_exec *x, float *grad, const float *g, size_t rows, size_t n)
{
	LAUNCH(x, n, bias_grad_kernel, grad, g, rows, n);
}

static int ex_rmsnorm_backward(const td_exec *x, float *dx, float *dgain, const float *dy,
			       const float *in, const float *inv, const float *gain, size_t rows,
			       size_t width, int add)
{
	int err = 0;

	if (rows && width) {
		rms_back_kernel<<<grid(rows), THREADS, 0, self(x)->stream>>>(dx, dy, in, inv, gain,
									     rows, width, add);
		CUDA_TRY(cudaGetLastError());
		rms_dgain_kernel<<<grid(width), THREADS, 0, self(x)->stream>>>(dgain, dy, in, inv,
									       rows, width);
		CUDA_TRY(cudaGetLastError());
	}
done:
	return err;
}

static int ex_relu_backward(const td_exec *x, float *d, const float *pre, size_t n)
{
	LAUNCH(x, n, relu_back_kernel, d, pre, n);
}

/* dx, then the gradient chunk by chunk in chunk order: one launch per chunk. */
static int ex_conv_backward(const td_exec *x, float *dx, float *g, const float *dy,
			    const float *in, const float *w, size_t lines, size_t chunk,
			    const td_op_conv *s)
{
	const size_t per = s->length * s->channels, sums = (s->taps + 1) * s->channels;
	cudaStream_t st = self(x)->stream;
	int err = 0;

	if (lines > 0 && per > 0) {
		conv_dx_kernel<<<grid(lines * per), THREADS, 0, st>>>(dx, dy, w, *s, lines * per);
		CUDA_TRY(cudaGetLastError());
	}
	for (size_t at = 0; at < lines; at += chunk) {
		conv_grad_kernel<<<grid(sums), THREADS, 0, st>>>(
		    g, dy + at * per, in + at * per, lines - at < chunk ? lines - at : chunk, *s);
		CUDA_TRY(cudaGetLastError());
		if (chunk > lines - at)
			break; /* the last chunk; at + chunk may not fit */
	}
done:
	return err;
}

static int ex_head_cell_backward(const td_exec *x, float *dh, float *dwo, float *dbo,
				 const float *g, const float *h, const float *wo, size_t batch,
				 size_t n_cells, size_t width, size_t out)
{
	const size_t rows = batch * n_cells;
	cudaStream_t st = self(x)->stream;
	int err = 0;

	if (rows > 0 && width > 0 && out > 0) {
		head_dh_kernel<<<grid(rows * width), THREADS, 0, st>>>(dh, g, wo, n_cells, width, out,
								       rows * width);
		CUDA_TRY(cudaGetLastError());
		head_dw_kernel<<<grid(n_cells * out * width), THREADS, 0, st>>>(
		    dwo, g, h, batch, n_cells, width, out, n_cells * out * width);
		CUDA_TRY(cudaGetLastError());
		head_db_kernel<<<grid(out), THREADS, 0, st>>>(dbo, g, batch, n_cells, out);
		CUDA_TRY(cudaGetLastError());
	}
done:
	return err;
}

static int ex_lru_decay(const td_exec *x, float *a, const float *w, size_t n)
{
	LAUNCH(x, n, lru_decay_kernel, a, w, n);
}

static int ex_lru_scan(const td_exec *x, float *h, const float *a, size_t lines, size_t length,
		       size_t n, int reverse, int adjoint)
{
	LAUNCH(x, lines * n, lru_scan_kernel, h, a, lines, length, n, reverse, adjoint);
}

static int ex_scale(const td_exec *x, float *y, const float *in, const float *d, size_t rows,
		    size_t c)
{
	LAUNCH(x, rows * c, scale_kernel, y, in, d, c, rows * c);
}

static int ex_lru_grads(const td_exec *x, float *gw, float *gd, const float *g, const float *h,
			const float *dy, const float *in, const float *a, const float *w,
			size_t lines, size_t length, size_t n, size_t c, int reverse)
{
	LAUNCH(x, n + c, lru_grads_kernel, gw, gd, g, h, dy, in, a, w, lines, length, n, c,
	       reverse);
}

static int ex_clru_decay(const td_exec *x, float *a, const float *nu, const float *theta,
			 size_t n)
{
	LAUNCH(x, n, clru_decay_kernel, a, nu, theta, n);
}

static int ex_clru_scan(const td_exec *x, float *h, const float *a, size_t lines, size_t length,
			size_t n, int reverse, int adjoint)
{
	LAUNCH(x, lines * n, clru_scan_kernel, h, a, lines, length, n, reverse, adjoint);
}

static int ex_clru_grads(const td_exec *x, float *gnu, float *gtheta, float *gd, const float *g,
			 const float *h, const float *dy, const float *in, const float *a,
			 const float *nu, size_t lines, size_t length, size_t n, size_t c,
			 int reverse)
{
	LAUNCH(x, n + c, clru_grads_kernel, gnu, gtheta, gd, g, h, dy, in, a, nu, lines, length, n,
	       c, reverse);
}

static int ex_gather(const td_exec *x, float *dst, const float *src, const size_t *map,
		     size_t batch, size_t n_from, size_t n_to, size_t channels)
{
	LAUNCH(x, batch * n_to * channels, gather_kernel, dst, src, map, n_from, n_to, channels,
	       batch * n_to * channels);
}

static int ex_kernel_masses(const td_exec *x, float *den, float *deg, const float *k,
			    const uint8_t *mask, size_t n_cells, size_t n, size_t inner,
			    double cancel)
{
	LAUNCH(x, n_cells, kernel_masses_kernel, den, deg, k, mask, n_cells, n, inner, cancel);
}

static int ex_kernel_renorm(const td_exec *x, float *out, const float *den, const float *deg,
			    const uint8_t *mask, size_t rows, size_t n_cells, size_t c)
{
	LAUNCH(x, rows * c, kernel_renorm_kernel, out, den, deg, mask, n_cells, c, rows * c);
}

static int ex_kernel_rows(const td_exec *x, float *r, float *q, const float *g, const float *out,
			  const float *den, const float *deg, size_t rows, size_t n_cells, size_t c)
{
	LAUNCH(x, rows, kernel_rows_kernel, r, q, g, out, den, deg, rows, n_cells, c);
}

static int ex_kernel_dk(const td_exec *x, float *dk, const float *sk, const float *q,
			const uint8_t *mask, size_t blocks, size_t outer, size_t n, size_t inner,
			size_t n_cells)
{
	LAUNCH(x, n * n, kernel_dk_kernel, dk, sk, q, mask, blocks, outer, n, inner, n_cells);
}

static int ex_products(const td_exec *x, float *out, size_t ors, size_t oss, const float *p,
		       size_t prs, size_t pts, const float *q, size_t qrs, size_t qts, size_t nr,
		       size_t ns, size_t nt, const float *diag, int mode)
{
	LAUNCH(x, nr * ns, products_kernel, out, ors, oss, p, prs, pts, q, qrs, qts, ns, nt, diag,
	       mode, nr * ns);
}

static int ex_diag_add(const td_exec *x, float *g, const float *dm, size_t c)
{
	LAUNCH(x, c, diag_add_kernel, g, dm, c);
}

static int ex_shift_prev(const td_exec *x, float *prev, const float *src, size_t lines,
			 size_t length, size_t width, int reverse)
{
	LAUNCH(x, lines * length * width, shift_prev_kernel, prev, src, length, width, reverse,
	       lines * length * width);
}

static int ex_gru_step(const td_exec *x, float *g, float *hs, const float *gh, const float *b,
		       const float *c, size_t lines, size_t length, size_t h, size_t q, int reverse)
{
	LAUNCH(x, lines * h, gru_step_kernel, g, hs, gh, b, c, length, h, q, reverse, lines * h);
}

static int ex_gru_step_back(const td_exec *x, float *dgx, float *dgh, float *carry, const float *g,
			    const float *dy, const float *hp, size_t lines, size_t length, size_t h,
			    size_t q, int reverse)
{
	LAUNCH(x, lines * h, gru_back_kernel, dgx, dgh, carry, g, dy, hp, length, h, q, reverse,
	       lines * h);
}

static int ex_lstm_step(const td_exec *x, float *g, float *ss, float *ts, float *hs,
			const float *gh, const float *b, const float *c, size_t lines,
			size_t length, size_t h, size_t q, int reverse)
{
	LAUNCH(x, lines * h, lstm_step_kernel, g, ss, ts, hs, gh, b, c, length, h, q, reverse,
	       lines * h);
}

static int ex_lstm_step_back(const td_exec *x, float *dg, const float *dh, float *ds,
			     const float *g, const float *ts, const float *sp, const float *dy,
			     size_t lines, size_t length, size_t h, size_t q, int reverse)
{
	LAUNCH(x, lines * h, lstm_back_kernel, dg, dh, ds, g, ts, sp, dy, length, h, q, reverse,
	       lines * h);
}

static int ex_add_parts(const td_exec *x, float *grad, const float *parts, size_t n,
			size_t stride, size_t count)
{
	LAUNCH(x, count, add_parts_kernel, grad, parts, n, stride, count);
}

static int ex_attend(const td_exec *x, float *att, float *ctx, const float *qkv, size_t lines,
		     const td_op_attn *a)
{
	LAUNCH(x, lines * a->heads * a->length, attend_kernel, att, ctx, qkv, *a,
	       lines * a->heads * a->length);
}

/* The queries' launch, then the keys', which read every query's ds. */
static int ex_attend_backward(const td_exec *x, float *dqkv, float *ds, const float *att,
			      const float *qkv, const float *dctx, size_t lines,
			      const td_op_attn *a)
{
	const size_t n = lines * a->heads * a->length;
	cudaStream_t st = self(x)->stream;
	int err = 0;

	if (n > 0) {
		attend_query_kernel<<<grid(n), THREADS, 0, st>>>(ds, dqkv, att, qkv, dctx, *a, n);
		CUDA_TRY(cudaGetLastError());
		attend_key_kernel<<<grid(n), THREADS, 0, st>>>(dqkv, ds, att, qkv, dctx, *a, n);
		CUDA_TRY(cudaGetLastError());
	}
done:
	return err;
}

static int ex_xent(const td_exec *x, float *dy, double *acc, double *loss, int *best,
		   uint8_t *present, const float *y, const int *labels, const uint8_t *mask,
		   const uint8_t *emask, size_t batch, size_t n_cells, size_t k)
{
	cudaStream_t st = self(x)->stream;
	int err = 0;

	if (batch > 0) {
		xent_kernel<<<grid(batch), THREADS, 0, st>>>(dy, loss, best, present, y, labels, mask,
							     emask, batch, n_cells, k);
		CUDA_TRY(cudaGetLastError());
		xent_sums_kernel<<<1, 1, 0, st>>>(acc, loss, best, labels, batch);
		CUDA_TRY(cudaGetLastError());
	}
done:
	return err;
}

/* The norm's parts, the decision (one thread) and the update: three launches, no wait. */
static int ex_opt_step(const td_exec *x, td_op_opt_state *st, float *p, float *m, float *v,
		       const float *g, size_t n, double *part, size_t *bad, double lr, double clip,
		       double weight_decay, const double *bc1, const double *bc2)
{
	const size_t n_parts = (n + x->norm_part - 1) / x->norm_part;
	cudaStream_t s = self(x)->stream;
	int err = 0;

	if (n > 0) {
		norm_parts_kernel<<<grid(n_parts), THREADS, 0, s>>>(part, bad, g, n, x->norm_part,
								    n_parts);
		CUDA_TRY(cudaGetLastError());
		decide_kernel<<<1, 1, 0, s>>>(st, part, bad, n_parts, g, lr, clip, weight_decay, bc1,
					      bc2);
		CUDA_TRY(cudaGetLastError());
		update_kernel<<<grid(n), THREADS, 0, s>>>(p, m, v, g, n, st);
		CUDA_TRY(cudaGetLastError());
	}
done:
	return err;
}

extern "C" int td_cuda_exec_new(const td_exec **out, size_t real_size)
{
	cuda_exec *e;
	int err = 0;

	*out = NULL;
	if (real_size != sizeof(float))
		return TD_FAIL(TD_ENOTSUP, "the CUDA executor computes in float; this build's "
					   "td_real is %zu bytes (build without TD_REAL_DOUBLE)",
			       real_size);
	if (!(e = (cuda_exec *)calloc(1, sizeof *e)))
		return TD_FAIL(TD_ENOMEM, "out of memory for the CUDA executor");
	e->x.name = "cuda";
	e->x.norm_part = TD_OPS_NORM_PART;
	e->x.alloc = ex_alloc, e->x.release = ex_release;
	e->x.host_alloc = ex_host_alloc, e->x.host_release = ex_host_release;
	e->x.mark = ex_mark, e->x.wait_mark = ex_wait_mark;
	e->x.upload = ex_upload, e->x.download = ex_download, e->x.copy = ex_copy;
	e->x.gemm = ex_gemm, e->x.select = ex_select, e->x.bias_add = ex_bias_add;
	e->x.gemm_batched = ex_gemm_batched;
	e->x.rmsnorm = ex_rmsnorm, e->x.relu = ex_relu, e->x.fold = ex_fold;
	e->x.conv_forward = ex_conv_forward, e->x.head_cell = ex_head_cell;
	e->x.zero = ex_zero, e->x.bias_grad = ex_bias_grad;
	e->x.rmsnorm_backward = ex_rmsnorm_backward, e->x.relu_backward = ex_relu_backward;
	e->x.conv_backward = ex_conv_backward, e->x.head_cell_backward = ex_head_cell_backward;
	e->x.lru_decay = ex_lru_decay, e->x.lru_scan = ex_lru_scan, e->x.scale = ex_scale;
	e->x.lru_grads = ex_lru_grads;
	e->x.clru_decay = ex_clru_decay, e->x.clru_scan = ex_clru_scan;
	e->x.clru_grads = ex_clru_grads;
	e->x.products = ex_products, e->x.diag_add = ex_diag_add, e->x.gather = ex_gather;
	e->x.kernel_masses = ex_kernel_masses, e->x.kernel_renorm = ex_kernel_renorm;
	e->x.kernel_rows = ex_kernel_rows, e->x.kernel_dk = ex_kernel_dk;
	e->x.shift_prev = ex_shift_prev, e->x.gru_step = ex_gru_step;
	e->x.gru_step_back = ex_gru_step_back, e->x.add_parts = ex_add_parts;
	e->x.lstm_step = ex_lstm_step, e->x.lstm_step_back = ex_lstm_step_back;
	e->x.attend = ex_attend, e->x.attend_backward = ex_attend_backward;
	e->x.xent = ex_xent, e->x.opt_step = ex_opt_step;
	CUDA_TRY(cudaStreamCreateWithFlags(&e->stream, cudaStreamNonBlocking));
	for (int k = 0; k < TD_EXEC_MARKS; k++)
		CUDA_TRY(cudaEventCreateWithFlags(&e->marks[k], cudaEventDisableTiming));
	CUDA_TRY(cudaMalloc(&e->workspace, WORKSPACE));
	CUBLAS_TRY(cublasCreate(&e->blas));
	CUBLAS_TRY(cublasSetStream(e->blas, e->stream));
	CUBLAS_TRY(cublasSetMathMode(e->blas, CUBLAS_PEDANTIC_MATH));
	CUBLAS_TRY(cublasSetAtomicsMode(e->blas, CUBLAS_ATOMICS_NOT_ALLOWED));
	CUBLAS_TRY(cublasSetWorkspace(e->blas, e->workspace, WORKSPACE));
	*out = &e->x;
	return 0;
done:
	td_cuda_exec_free(&e->x);
	return err;
}

extern "C" void td_cuda_exec_free(const td_exec *x)
{
	cuda_exec *e = (cuda_exec *)x;

	if (!e)
		return;
	if (e->blas)
		cublasDestroy(e->blas);
	if (e->stream) {
		cudaStreamSynchronize(e->stream);
		cudaStreamDestroy(e->stream);
	}
	for (int k = 0; k < TD_EXEC_MARKS; k++)
		if (e->marks[k])
			cudaEventDestroy(e->marks[k]);
	cudaFree(e->workspace);
	free(e);
}

/* One thread that returns after ns nanoseconds of the GPU's global timer. */
__global__ static void hold_kernel(unsigned long long ns)
{
	unsigned long long t0, t;

	asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t0));
	do {
		__nanosleep(1000);
		asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
	} while (t - t0 < ns);
}

extern "C" int td_cuda_exec_hold(const td_exec *x, double seconds)
{
	int err = 0;

	hold_kernel<<<1, 1, 0, self(x)->stream>>>((unsigned long long)(seconds * 1e9));
	CUDA_TRY(cudaGetLastError());
done:
	return err;
}

extern "C" int td_cuda_exec_busy(const td_exec *x)
{
	cudaError_t e = cudaStreamQuery(self(x)->stream);

	if (e == cudaErrorNotReady)
		return 1;
	return e == cudaSuccess ? 0 : TD_FAIL(TD_EIO, "CUDA: %s", cudaGetErrorString(e));
}
