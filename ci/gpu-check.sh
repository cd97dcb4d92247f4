#!/bin/sh
# ci/gpu-check.sh - the CUDA backend on a real GPU, without the rest of the
# build's dependencies (libgit2, SQLite, Lua, cmocka may be missing there):
# kernels/cuda.cu and base/error.c with nvcc and cc, and a driver that runs
# the backend's calls against host loops (the same checks as
# tests/test_cuda.c). Then the negative control: the same driver over a copy
# of cuda.cu whose GEMM transposes A the wrong way must FAIL. Prints PASS or
# FAIL per check and exits non-zero on any unexpected result. Used on the
# device machine; CI has no GPU.
set -eu
out=${OUT:-/tmp}/gpu-check
mkdir -p "$out"
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader || true
nvcc --version | tail -1
cat >"$out/driver.c" <<'C'
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include "kernels/backend.h"
#include "base/error.h"
int main(void)
{
	enum { N = 1000003 }; /* not a multiple of the block size */
	float *x = malloc(N * sizeof *x), *y = malloc(N * sizeof *y), *want = malloc(N * sizeof *want);
	int count = -1, bad = 0, fails = 0;

	if (td_cuda_device_count(&count) || count < 1) {
		printf("FAIL device count: %d (%s)\n", count, td_error_last());
		return 1;
	}
	printf("PASS device count: %d\n", count);
	for (int i = 0; i < N; i++) {
		x[i] = (float)(i % 977) * 0.5f - 100;
		y[i] = (float)(i % 131) - 65;
		want[i] = 3.0f * x[i] + y[i];
	}
	if (td_cuda_axpy(N, 3.0f, x, y)) {
		printf("FAIL axpy: %s\n", td_error_last());
		return 1;
	}
	for (int i = 0; i < N; i++)
		bad += y[i] != want[i]; /* one rounding each side: must be equal */
	printf("%s axpy over %d values: %d differ from the host loop\n", bad ? "FAIL" : "PASS", N, bad);
	fails += bad != 0;
	{ /* cuBLAS GEMM: inputs k/4, so float is exact and the result must equal a double loop */
		enum { M = 37, NN = 45, K = 129, LD = 131 };
		static float a[K * LD], b[K * LD], c[M * LD], c0[M * LD];

		for (int i = 0; i < K * LD; i++) {
			a[i] = (float)(i * 7 % 9 - 4) / 4;
			b[i] = (float)(i * 5 % 9 - 4) / 4;
		}
		for (int t = 0; t < 4; t++) {
			int ta = t & 1, tb = t >> 1, wrong = 0;

			for (int i = 0; i < M * LD; i++)
				c[i] = c0[i] = (float)(i % 11 - 5) / 4;
			if (td_cuda_sgemm(c, LD, a, LD, b, LD, M, NN, K, ta, tb, 1.5f, 0.5f)) {
				printf("FAIL sgemm: %s\n", td_error_last());
				return 1;
			}
			for (int i = 0; i < M; i++)
				for (int j = 0; j < NN; j++) {
					double s = 0;

					for (int p = 0; p < K; p++)
						s += (double)(ta ? a[p * LD + i] : a[i * LD + p]) *
						     (double)(tb ? b[j * LD + p] : b[p * LD + j]);
					wrong += (double)c[i * LD + j] != 1.5 * s + 0.5 * (double)c0[i * LD + j];
				}
			printf("%s sgemm trans_a %d trans_b %d: %d of %d differ from the host loop\n",
			       wrong ? "FAIL" : "PASS", ta, tb, wrong, M * NN);
			fails += wrong != 0;
		}
	}
	return fails;
}
C
cc -std=c11 -O2 -I. -c base/error.c -o "$out/error.o"
cc -std=c11 -O2 -I. -c "$out/driver.c" -o "$out/driver.o"
build() { # $1: cuda source, $2: program
	nvcc -O2 -std=c++17 -gencode arch=compute_90,code=sm_90 -I. -Ikernels -c "$1" -o "$2-cuda.o"
	nvcc "$out/driver.o" "$2-cuda.o" "$out/error.o" -o "$2" -lcublas -lcudart
}
build kernels/cuda.cu "$out/driver"
"$out/driver"
echo "negative control: A's transpose inverted in td_cuda_sgemm; the sgemm checks must FAIL"
sed 's/trans_a ? CUBLAS_OP_T : CUBLAS_OP_N/trans_a ? CUBLAS_OP_N : CUBLAS_OP_T/' kernels/cuda.cu \
	>"$out/broken.cu"
if cmp -s kernels/cuda.cu "$out/broken.cu"; then echo "FAIL the edit did not apply"; exit 1; fi
build "$out/broken.cu" "$out/broken"
if "$out/broken"; then echo "FAIL the negative control passed"; exit 1; fi
echo "PASS the negative control failed, as it must"
