/*
 * bench/gemm.c - td_gemm alone on the products the bench's mixers make.
 *
 * Each shape is C = op(A) op(B) at 1 thread, timed as the best of REPS
 * calls on operands written once (so they are in whatever cache holds
 * them after the first call: the 25088-row products come from L3 or
 * memory, the per-block ones from L1 and L2), with its rate in GFLOP/s
 * (2 m n k operations). The last column hashes C, so that two kernels
 * or two versions of the kernel can be compared bitwise.
 *
 *   make && build/bench/gemm [REPS] [--kernel GEMM_KERNEL]
 *
 * Prints figures; asserts nothing about speed.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../base/error.h"
#include "../core/gemm.h"
#include "../base/hash.h"
#include "../core/rng.h"
#include "../core/tensor.h"

typedef struct {
	const char *what;
	size_t m, n, k;
	int trans_a, trans_b;
} shape;

static const shape shapes[] = {
    {"projection x W^T (LRU, attention out)", 25088, 32, 32, 0, 1},
    {"input gradient dy W", 25088, 32, 32, 0, 0},
    {"weight gradient dy^T x", 32, 32, 25088, 1, 0},
    {"attention qkv = x Wqkv^T", 25088, 96, 32, 0, 1},
    {"attention dx = dqkv Wqkv", 25088, 32, 96, 0, 0},
    {"attention block qkv (1024 rows)", 1024, 96, 32, 0, 1},
    {"attention block dWqkv", 96, 32, 1024, 1, 0},
    {"GRU step (35 lines) h U^T, U^T stored", 35, 96, 32, 0, 0},
    {"LSTM step (35 lines) h U^T, U^T stored", 35, 128, 32, 0, 0},
    {"LSTM step backward (35 lines) dg U", 35, 32, 128, 0, 0},
    {"model head x Wo^T (10 outputs)", 25088, 10, 32, 0, 1},
    {"kernel family dK part R Z^T (one line)", 28, 28, 32, 0, 1},
    {"kernel family dK part R Z^T (one example)", 28, 28, 896, 0, 1},
    {"kernel family K Z along h (one example)", 28, 896, 28, 0, 0},
    {"kernel family K Z along w (one line)", 28, 32, 28, 0, 0},
    {"kernel family dz = K^T R along h", 28, 896, 28, 1, 0},
    {"kernel family dz = K^T R along w", 28, 32, 28, 1, 0},
    {"GRU one step x W^T (896 lines)", 896, 96, 32, 0, 0},
    {"LSTM one step dx = dg W (896 lines)", 896, 32, 128, 0, 0},
};

#define N_SHAPES (sizeof shapes / sizeof shapes[0])

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* Times one shape; returns nonzero when td_gemm refused it. */
static int run(const shape *s, int reps)
{
	const size_t na = s->m * s->k, nb = s->k * s->n, nc = s->m * s->n;
	td_real *a = td_reals_alloc(na), *b = td_reals_alloc(nb), *c = td_reals_alloc(nc);
	td_gemm_opts o = TD_GEMM_OPTS_INIT;
	double best = 1e30;
	int err = !a || !b || !c;

	o.trans_a = s->trans_a, o.trans_b = s->trans_b;
	if (!err) {
		td_rng_fill_normal(1, 1, 0, na, 0, 1, a);
		td_rng_fill_normal(1, 2, 0, nb, 0, 1, b);
	}
	for (int r = 0; !err && r < reps; r++) {
		double t = now();

		err = td_gemm(c, s->n, a, s->trans_a ? s->m : s->k, b, s->trans_b ? s->k : s->n,
			      s->m, s->n, s->k, &o);
		t = now() - t;
		best = t < best ? t : best;
	}
	if (err)
		fprintf(stderr, "gemm %zux%zux%zu: %s\n", s->m, s->n, s->k,
			a && b && c ? td_error_last() : "out of memory");
	else
		printf("%-40s %6zu x %4zu x %6zu %-5s %10.4f ms %8.1f  %08x\n", s->what, s->m, s->n,
		       s->k, s->trans_a ? "A^T" : s->trans_b ? "B^T" : "", best * 1e3,
		       2.0 * (double)(s->m * s->n * s->k) / best * 1e-9,
		       (unsigned)td_fnv1a64(TD_FNV1A64_OFFSET, c, nc * sizeof *c));
	free(a), free(b), free(c);
	return err != 0;
}

int main(int argc, char **argv)
{
	int reps = 15, failed = 0;

	for (int i = 1; i < argc; i++)
		if (!strcmp(argv[i], "--kernel") && i + 1 < argc) {
			if (td_gemm_use_kernel(argv[++i])) {
				fprintf(stderr, "%s: %s\n", argv[0], td_error_last());
				return 2;
			}
		} else if (atoi(argv[i]) > 0) {
			reps = atoi(argv[i]);
		} else {
			fprintf(stderr, "usage: %s [REPS] [--kernel GEMM_KERNEL]\n", argv[0]);
			return 2;
		}
	printf("td_gemm, 1 thread, td_real = %s, GEMM kernel %s, best of %d\n", TD_REAL_NAME,
	       td_gemm_kernel(), reps);
	printf("%-40s %-22s %-5s %13s %8s  %s\n", "product", "m x n x k", "op", "time",
	       "GFLOP/s", "hash of C");
	for (size_t i = 0; i < N_SHAPES; i++)
		failed |= run(&shapes[i], reps);
	return failed;
}
