#!/bin/sh
# ci/gpu-check.sh - the CUDA backend on a real GPU, without the rest of the
# build's dependencies (libgit2, SQLite, Lua, cmocka may be missing there):
# kernels/cuda.cu and core/error.c with nvcc and cc, and a driver that runs
# the backend's calls against a host loop. Prints PASS or FAIL per check and
# exits non-zero on any failure. Used on the device machine; CI has no GPU.
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
#include "core/error.h"
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
	return fails;
}
C
nvcc -O2 -std=c++17 -gencode arch=compute_90,code=sm_90 -c kernels/cuda.cu -o "$out/cuda.o"
cc -std=c11 -O2 -I. -c core/error.c -o "$out/error.o"
cc -std=c11 -O2 -I. -c "$out/driver.c" -o "$out/driver.o"
nvcc "$out/driver.o" "$out/cuda.o" "$out/error.o" -o "$out/driver" -lcudart
"$out/driver"
