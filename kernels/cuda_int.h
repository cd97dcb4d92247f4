/*
 * cuda_int.h - what the CUDA backend's files share: a CUDA or cuBLAS
 * status turned into a TD_E* code with the runtime's own words (each
 * function using them declares int err and a done: label), and device
 * buffers filled from and read back to the host.
 */
#ifndef TD_CUDA_INT_H
#define TD_CUDA_INT_H

#include <cuda_runtime.h>

extern "C" {
#include "../base/error.h"
}

#define CUDA_TRY(call)                                                                      \
	do {                                                                                \
		cudaError_t e_ = (call);                                                    \
		if (e_ != cudaSuccess) {                                                    \
			err = TD_FAIL(TD_EIO, "%s failed: %s", #call, cudaGetErrorString(e_)); \
			goto done;                                                          \
		}                                                                           \
	} while (0)

#define CUBLAS_TRY(call)                                                                    \
	do {                                                                                \
		cublasStatus_t s_ = (call);                                                 \
		if (s_ != CUBLAS_STATUS_SUCCESS) {                                          \
			err = TD_FAIL(TD_EIO, "%s failed: cuBLAS status %d", #call, (int)s_);     \
			goto done;                                                          \
		}                                                                           \
	} while (0)

/* bytes on the device in *d, copied from host when host is not NULL; the caller cudaFrees *d. */
static inline int td_cuda_upload(void *d, const void *host, size_t bytes)
{
	void **dp = (void **)d;
	int err = 0;

	*dp = NULL;
	CUDA_TRY(cudaMalloc(dp, bytes ? bytes : 1));
	if (host && bytes)
		CUDA_TRY(cudaMemcpy(*dp, host, bytes, cudaMemcpyHostToDevice));
done:
	return err;
}

/* bytes from the device's d into host. */
static inline int td_cuda_download(void *host, const void *d, size_t bytes)
{
	int err = 0;

	if (bytes)
		CUDA_TRY(cudaMemcpy(host, d, bytes, cudaMemcpyDeviceToHost));
done:
	return err;
}

#endif
