/*
 * backend.h - the core's GPU backend interface.
 *
 * Built from kernels/cuda.cu by nvcc where the CUDA toolkit exists
 * (make CUDA=auto, the default), or from kernels/nocuda.c otherwise, so
 * callers never need an #ifdef: without CUDA every call returns TD_ENOTSUP
 * with a message saying so. Nothing here may abort on a machine without a
 * GPU: "no device" is an answer, not a crash.
 */
#ifndef TD_BACKEND_H
#define TD_BACKEND_H

#include <stddef.h>

/* 1 if this build has the CUDA backend compiled in, else 0. */
int td_cuda_compiled(void);

/*
 * Number of usable CUDA devices in *count. Returns TD_EIO with the runtime's
 * reason (no driver, no device) and *count = 0 when the runtime cannot be
 * used, and TD_ENOTSUP when the build has no CUDA backend.
 */
int td_cuda_device_count(int *count);

/*
 * y[i] = a * x[i] + y[i] for i < n, on device 0: a placeholder kernel that
 * exercises compile, launch and copy until the real kernels land. Host
 * pointers in and out.
 */
int td_cuda_axpy(size_t n, float a, const float *x, float *y);

#endif
