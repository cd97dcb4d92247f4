/*
 * cuda.cu - the CUDA backend (see backend.h).
 *
 * Must never abort or exit: every CUDA status is turned into a TD_E* code
 * with the runtime's own words in the message.
 */
#include <climits>

#include <cublas_v2.h>
extern "C" {
#include "backend.h"
}
#include "cuda_int.h"

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

/*
 * Row-major C (m x n) is column-major C^T (n x m) with the same leading
 * dimension, so cuBLAS computes C^T = op(B)^T op(A)^T: B first, then A,
 * each transposed in cuBLAS's terms exactly when it is not in ours.
 */
extern "C" int td_cuda_sgemm(float *c, size_t ldc, const float *a, size_t lda, const float *b,
			     size_t ldb, size_t m, size_t n, size_t k, int trans_a, int trans_b,
			     float alpha, float beta)
{
	size_t a_rows = trans_a ? k : m, a_cols = trans_a ? m : k;
	size_t b_rows = trans_b ? n : k, b_cols = trans_b ? k : n;
	float *da = NULL, *db = NULL, *dc = NULL;
	cublasHandle_t h = NULL;
	int err = 0;

	if (m == 0 || n == 0)
		return 0;
	if (!c || (k && (!a || !b)))
		return TD_FAIL(TD_EINVAL, "%s is NULL for a %zu x %zu x %zu product",
			       !c ? "C" : !a ? "A" : "B", m, n, k);
	if (ldc < n || (k && (lda < a_cols || ldb < b_cols)))
		return TD_FAIL(TD_EINVAL, "a leading dimension is below its row length: ldc %zu "
					  "(n %zu), lda %zu (%zu), ldb %zu (%zu)",
			       ldc, n, lda, a_cols, ldb, b_cols);
	if (m > INT_MAX || n > INT_MAX || k > INT_MAX || ldc > INT_MAX || lda > INT_MAX ||
	    ldb > INT_MAX)
		return TD_FAIL(TD_EINVAL, "a dimension above INT_MAX: cuBLAS takes int");
	CUDA_TRY(cudaMalloc((void **)&dc, m * ldc * sizeof *dc));
	CUDA_TRY(cudaMemcpy(dc, c, m * ldc * sizeof *dc, cudaMemcpyHostToDevice));
	if (k) {
		CUDA_TRY(cudaMalloc((void **)&da, a_rows * lda * sizeof *da));
		CUDA_TRY(cudaMalloc((void **)&db, b_rows * ldb * sizeof *db));
		CUDA_TRY(cudaMemcpy(da, a, a_rows * lda * sizeof *da, cudaMemcpyHostToDevice));
		CUDA_TRY(cudaMemcpy(db, b, b_rows * ldb * sizeof *db, cudaMemcpyHostToDevice));
	}
	CUBLAS_TRY(cublasCreate(&h));
	CUBLAS_TRY(cublasSetMathMode(h, CUBLAS_PEDANTIC_MATH));
	CUBLAS_TRY(cublasSgemm(h, trans_b ? CUBLAS_OP_T : CUBLAS_OP_N,
			       trans_a ? CUBLAS_OP_T : CUBLAS_OP_N, (int)n, (int)m, (int)k, &alpha,
			       db, (int)ldb, da, (int)lda, &beta, dc, (int)ldc));
	CUDA_TRY(cudaMemcpy(c, dc, m * ldc * sizeof *dc, cudaMemcpyDeviceToHost));
done:
	if (h)
		cublasDestroy(h);
	cudaFree(dc);
	cudaFree(db);
	cudaFree(da);
	return err;
}
