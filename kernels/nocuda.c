/*
 * nocuda.c - the backend for builds without CUDA (see backend.h).
 *
 * Must never pretend to compute: every call says the build has no CUDA.
 * tests/test_device.c compiles this file again under other names (a CUDA
 * build links cuda.cu's): a function added here needs its #define there.
 */
#include "backend.h"

#include "../base/error.h"

int td_cuda_compiled(void)
{
	return 0;
}

int td_cuda_device_count(int *count)
{
	*count = 0;
	return TD_FAIL(TD_ENOTSUP, "built without CUDA; rebuild with nvcc on PATH (make CUDA=1)");
}

int td_cuda_axpy(size_t n, float a, const float *x, float *y)
{
	(void)n, (void)a, (void)x, (void)y;
	return TD_FAIL(TD_ENOTSUP, "built without CUDA; rebuild with nvcc on PATH (make CUDA=1)");
}

int td_cuda_sgemm(float *c, size_t ldc, const float *a, size_t lda, const float *b, size_t ldb,
		  size_t m, size_t n, size_t k, int trans_a, int trans_b, float alpha, float beta)
{
	(void)c, (void)ldc, (void)a, (void)lda, (void)b, (void)ldb, (void)m, (void)n, (void)k;
	(void)trans_a, (void)trans_b, (void)alpha, (void)beta;
	return TD_FAIL(TD_ENOTSUP, "built without CUDA; rebuild with nvcc on PATH (make CUDA=1)");
}


/* The one refusal of every kernel call below. */
static int no_cuda(void)
{
	return TD_FAIL(TD_ENOTSUP, "built without CUDA; rebuild with nvcc on PATH (make CUDA=1)");
}

int td_cuda_rmsnorm_forward(float *y, float *inv, const float *x, const float *gain, size_t rows,
			    size_t width)
{
	(void)y, (void)inv, (void)x, (void)gain, (void)rows, (void)width;
	return no_cuda();
}

int td_cuda_rmsnorm_backward(float *dx, float *dgain, const float *dy, const float *x,
			     const float *inv, const float *gain, size_t rows, size_t width, int add)
{
	(void)dx, (void)dgain, (void)dy, (void)x, (void)inv, (void)gain, (void)rows, (void)width, (void)add;
	return no_cuda();
}

int td_cuda_softmax_rows(float *w, const float *s, size_t rows, size_t n)
{
	(void)w, (void)s, (void)rows, (void)n;
	return no_cuda();
}

int td_cuda_relu(float *act, float *dpre, const float *pre, const float *dact, size_t n)
{
	(void)act, (void)dpre, (void)pre, (void)dact, (void)n;
	return no_cuda();
}

int td_cuda_xent(float *dy, double *loss, int *best, const float *y, const uint8_t *present,
		 const int *labels, size_t batch, size_t n_cells, size_t k, double scale)
{
	(void)dy, (void)loss, (void)best, (void)y, (void)present, (void)labels, (void)batch, (void)n_cells, (void)k, (void)scale;
	return no_cuda();
}

int td_cuda_grad_norm(double *norm, const float *g, size_t n)
{
	(void)norm, (void)g, (void)n;
	return no_cuda();
}

int td_cuda_adamw(float *p, float *m, float *v, const float *g, size_t n,
		  const struct td_op_adamw_step *s)
{
	(void)p, (void)m, (void)v, (void)g, (void)n, (void)s;
	return no_cuda();
}

int td_cuda_conv_forward(float *y, const float *x, const float *w, size_t lines,
			 const struct td_op_conv *s)
{
	(void)y, (void)x, (void)w, (void)lines, (void)s;
	return no_cuda();
}

int td_cuda_conv_backward(float *dx, float *g, const float *dy, const float *x, const float *w,
			  size_t lines, const struct td_op_conv *s)
{
	(void)dx, (void)g, (void)dy, (void)x, (void)w, (void)lines, (void)s;
	return no_cuda();
}

int td_cuda_lru_scan(float *h, const float *a, size_t lines, size_t length, size_t n, int reverse,
		     int adjoint)
{
	(void)h, (void)a, (void)lines, (void)length, (void)n, (void)reverse, (void)adjoint;
	return no_cuda();
}

int td_cuda_lru_grads(float *da, float *dd, const float *g, const float *h, const float *dy,
		      const float *x, size_t lines, size_t length, size_t n, size_t c, int reverse)
{
	(void)da, (void)dd, (void)g, (void)h, (void)dy, (void)x, (void)lines, (void)length, (void)n, (void)c, (void)reverse;
	return no_cuda();
}

int td_cuda_adamw_steps(float *p, float *m, float *v, struct td_op_opt_state *st, const float *g,
			size_t n, size_t steps, const double *lr, double clip, double weight_decay,
			const double *bc1, const double *bc2)
{
	(void)p, (void)m, (void)v, (void)st, (void)g, (void)n, (void)steps, (void)lr, (void)clip, (void)weight_decay, (void)bc1, (void)bc2;
	return no_cuda();
}

int td_cuda_fold_select(float *dst, const float *src, const size_t *map, const uint8_t *mask,
			const uint8_t *emask, size_t batch, size_t n_cells, size_t channels,
			int unfold)
{
	(void)dst, (void)src, (void)map, (void)mask, (void)emask, (void)batch, (void)n_cells, (void)channels, (void)unfold;
	return no_cuda();
}

int td_cuda_exec_new(const struct td_exec **out, size_t real_size)
{
	(void)real_size;
	*out = NULL;
	return no_cuda();
}

void td_cuda_exec_free(const struct td_exec *x)
{
	(void)x;
}

int td_cuda_exec_hold(const struct td_exec *x, double seconds)
{
	(void)x, (void)seconds;
	return no_cuda();
}

int td_cuda_exec_busy(const struct td_exec *x)
{
	(void)x;
	return no_cuda();
}
