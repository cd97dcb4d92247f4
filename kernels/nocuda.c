/*
 * nocuda.c - the backend for builds without CUDA (see backend.h).
 *
 * Must never pretend to compute: every call says the build has no CUDA.
 */
#include "backend.h"

#include "../core/error.h"

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
