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

/*
 * C = alpha * op(A) op(B) + beta * C in single precision on device 0
 * through cuBLAS, with td_gemm's row-major layout and arguments (gemm.h):
 * C is m x n with leading dimension ldc, op(A) m x k, op(B) k x n, A and B
 * stored transposed when trans_a / trans_b is nonzero. Host pointers in and
 * out. cuBLAS runs in pedantic math mode (no TF32, IEEE float products and
 * sums), and a given GPU architecture, SM count and toolkit give the same
 * bits every run; its summation order is not td_gemm's, so results agree
 * with the CPU to rounding, not bitwise. Refused with TD_EINVAL, before any
 * device work: a leading dimension below its row length, a NULL matrix
 * with m, n and k nonzero.
 */
int td_cuda_sgemm(float *c, size_t ldc, const float *a, size_t lda, const float *b, size_t ldb,
		  size_t m, size_t n, size_t k, int trans_a, int trans_b, float alpha, float beta);

#endif
