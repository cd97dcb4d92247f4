/*
 * gemm.h - general matrix multiply on td_real for the CPU.
 *
 *   C = alpha * op(A) * op(B) + beta * C
 *
 * Matrices are row-major with a leading dimension (the distance in elements
 * between the starts of two consecutive stored rows). op(A) is m x k and
 * op(B) is k x n; C is m x n. With trans_a the stored A is k x m and op(A)
 * is its transpose; likewise trans_b.
 *
 * Determinism contract: every element of C is computed as
 *   s = 0; for p = 0 .. k-1 in order: s += op(A)[i][p] * op(B)[p][j];
 *   C[i][j] = alpha * s + beta * C[i][j]          (beta == 0: C is not read)
 * The order of p never depends on the thread count or on how output blocks
 * are shared among threads: threads only split independent output blocks.
 * So the result is bitwise the same for any thread count.
 */
#ifndef TD_GEMM_H
#define TD_GEMM_H

#include <stddef.h>
#include <stdint.h>

#include "real.h"

typedef struct {
	int trans_a;   /* nonzero: the stored A is k x m; op(A) = A^T */
	int trans_b;   /* nonzero: the stored B is n x k; op(B) = B^T */
	td_real alpha; /* scales op(A) * op(B) */
	td_real beta;  /* scales the old C; 0 means C is written, never read */
	int threads;   /* at most this many threads (>= 1); the result does not depend on it */
} td_gemm_opts;

#define TD_GEMM_OPTS_INIT                                                                          \
	{                                                                                          \
		.alpha = 1, .threads = 1                                                           \
	}

/*
 * Computes C = alpha * op(A) * op(B) + beta * C per the options (NULL opts
 * means TD_GEMM_OPTS_INIT). m, n or k may be 0: with m or n 0 nothing is
 * done; with k 0, C = beta * C. C must not overlap A or B.
 *
 * Refused with TD_EINVAL (C untouched): a NULL matrix that would be read or
 * written, a leading dimension smaller than the stored row length (ldc < n,
 * lda < k or m with trans_a, ldb < n or k with trans_b), threads < 1.
 * Threads that cannot be started are made up for by the calling thread (the
 * result is the same).
 */
int td_gemm(td_real *c, size_t ldc, const td_real *a, size_t lda, const td_real *b, size_t ldb,
	    size_t m, size_t n, size_t k, const td_gemm_opts *opts);

/*
 * The panel kernel td_gemm runs: "avx2" (32-byte vectors, a multiply then
 * an add; x86-64 builds on a CPU that has AVX2) or "baseline" (16-byte
 * vectors, any x86-64 or arm64). The kernels differ in speed only: each
 * follows the determinism contract above, so their results are bitwise
 * equal. By default td_gemm runs the widest one the CPU has.
 */
const char *td_gemm_kernel(void);

/*
 * Makes td_gemm run the kernel called name from now on (NULL: back to the
 * default), so that tests and benchmarks can compare kernels in one
 * process. Refused with TD_EINVAL for a name this build does not have and
 * with TD_ENOTSUP for one this CPU cannot run; the choice is then
 * unchanged. Not to be called while another thread is inside td_gemm.
 */
int td_gemm_use_kernel(const char *name);

/*
 * Counting, for benchmarks and tests that check a cost model against what
 * runs: td_gemm_count_begin zeroes the count and starts counting,
 * td_gemm_count_end stops and returns the multiply-adds asked of td_gemm
 * since, m * n * k for each call that was not refused, summed over every
 * thread's calls. Off by default; counting costs one atomic add per call.
 * Not to be nested, nor begun while another thread is inside td_gemm.
 */
void td_gemm_count_begin(void);
uint64_t td_gemm_count_end(void);

#endif
