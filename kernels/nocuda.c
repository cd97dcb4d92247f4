/*
 * nocuda.c - the backend for builds without CUDA (see backend.h).
 *
 * Must never pretend to compute: every call says the build has no CUDA.
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
