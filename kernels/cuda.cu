/*
 * cuda.cu - the CUDA backend (see backend.h).
 *
 * Must never abort or exit: every CUDA status is turned into a TD_E* code
 * with the runtime's own words in the message.
 */
#include <cuda_runtime.h>

extern "C" {
#include "backend.h"
#include "../core/error.h"
}

#define CUDA_TRY(call)                                                                      \
	do {                                                                                \
		cudaError_t e_ = (call);                                                    \
		if (e_ != cudaSuccess) {                                                    \
			err = TD_FAIL(TD_EIO, "%s failed: %s", #call, cudaGetErrorString(e_)); \
			goto done;                                                          \
		}                                                                           \
	} while (0)

__global__ static void axpy_kernel(size_t n, float a, const float *x, float *y)
{
	size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;

	if (i < n)
		y[i] = a * x[i] + y[i];
}

extern "C" int td_cuda_compiled(void)
{
	return 1;
}

extern "C" int td_cuda_device_count(int *count)
{
	cudaError_t e = cudaGetDeviceCount(count);

	if (e != cudaSuccess) {
		*count = 0;
		cudaGetLastError(); /* clear the sticky status */
		return TD_FAIL(TD_EIO, "no usable CUDA device: %s", cudaGetErrorString(e));
	}
	return 0;
}

extern "C" int td_cuda_axpy(size_t n, float a, const float *x, float *y)
{
	float *dx = NULL, *dy = NULL;
	int err = 0;
	unsigned blocks = (unsigned)((n + 255) / 256);

	if (n == 0)
		return 0;
	CUDA_TRY(cudaMalloc((void **)&dx, n * sizeof *dx));
	CUDA_TRY(cudaMalloc((void **)&dy, n * sizeof *dy));
	CUDA_TRY(cudaMemcpy(dx, x, n * sizeof *dx, cudaMemcpyHostToDevice));
	CUDA_TRY(cudaMemcpy(dy, y, n * sizeof *dy, cudaMemcpyHostToDevice));
	axpy_kernel<<<blocks, 256>>>(n, a, dx, dy);
	CUDA_TRY(cudaGetLastError());
	CUDA_TRY(cudaMemcpy(y, dy, n * sizeof *dy, cudaMemcpyDeviceToHost));
done:
	cudaFree(dy);
	cudaFree(dx);
	return err;
}
