/*
 * bench/core.c - how fast the core trains, how close that is to the
 * machine, and that threads do not change a single bit.
 *
 * The cases (bench/cases.h), all on a batch of 32 images of 28 x 28
 * cells at width 32, dense: each bare mixer swept along the rows, each
 * family (scan, kernel, flatten) with each mixer, and the whole model of
 * each family with each mixer, for the mixers lru, conv (4 taps), gru,
 * lstm and attention (4 heads, not causal).
 * Each case is one forward and one backward (a training step without the
 * optimizer), timed as the best of REPS, with 1 and with 2 threads; the
 * outputs, input gradients and parameter gradients of the two thread
 * counts are compared bitwise, and any difference fails the run (exit 1).
 * The last column hashes the 1-thread results, so that two builds (or two
 * versions of the code) can be compared bitwise too.
 *
 * Roofline: the program measures the peak arithmetic rate of the vector
 * width its GEMM kernel issues (a multiply-add loop on 32-byte vectors for
 * the avx2 kernel, 16-byte ones for the baseline), the memory bandwidth (memcpy of 128 MiB)
 * and, for reference, the cache bandwidth (memcpy of 4 MiB); counts each
 * case's floating-point operations and bytes moved per step from the
 * shapes (cost_of in cases.h: the GEMMs' exactly, checked against
 * td_gemm's count of each case's first step, which fails the run when
 * they differ; the rest estimates); and prints the achieved rates at 1 thread against
 * the roof min(peak, intensity x memory bandwidth), with which of the two
 * bounds it. A case whose data stays in the caches can pass that roof.
 *
 *   make && build/bench/core [REPS] [--only SUBSTRING] [--kernel GEMM_KERNEL]
 *
 * --kernel baseline runs every case on the baseline GEMM kernel instead of
 * the widest the CPU has (gemm.h); the hashes must not change.
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
#include "cases.h"

static const bench_shape shape = BENCH_SHAPE;

#define N_VALUES (shape.batch * shape.side * shape.side * shape.width) /* 802,816 values */

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* ---- the machine ---------------------------------------------------------- */

/*
 * Operations per second of a multiply-add loop: 12 independent vector
 * accumulators, each acc = acc * m + a, so neither latency nor memory
 * limits it (with 8, a multiply's and an add's latency, 3 cycles each on
 * Zen 3 and Zen 4, left the pipes idle a third of the time: the GEMM ran
 * faster than that "peak"). C11 mode never fuses the two, so that is a multiply and an
 * add per lane, as the core's own loops compile. PEAK_LOOP(name, bytes,
 * target) defines name() for vectors of that many bytes.
 */
#define PEAK_LOOP(name, bytes, target)                                                             \
	typedef td_real name##_vec __attribute__((vector_size(bytes)));                            \
	target static double name(void)                                                            \
	{                                                                                          \
		const long iters = 20 * 1000 * 1000;                                               \
		volatile td_real seed_m = (td_real)0.999999, seed_a = (td_real)1e-7;               \
		const name##_vec zero = {0}, m = zero + seed_m, a = zero + seed_a;                 \
		name##_vec acc[12];                                                                \
		double best = 1e30;                                                                \
		td_real sink = 0;                                                                  \
                                                                                                   \
		for (int r = 0; r < 3; r++) {                                                      \
			double t;                                                                  \
                                                                                                   \
			for (int k = 0; k < 12; k++)                                               \
				acc[k] = zero + (td_real)(k + 1);                                  \
			t = now();                                                                 \
			for (long i = 0; i < iters; i++) {                                         \
				acc[0] = acc[0] * m + a, acc[1] = acc[1] * m + a;                  \
				acc[2] = acc[2] * m + a, acc[3] = acc[3] * m + a;                  \
				acc[4] = acc[4] * m + a, acc[5] = acc[5] * m + a;                  \
				acc[6] = acc[6] * m + a, acc[7] = acc[7] * m + a;                  \
				acc[8] = acc[8] * m + a, acc[9] = acc[9] * m + a;                  \
				acc[10] = acc[10] * m + a, acc[11] = acc[11] * m + a;              \
			}                                                                          \
			t = now() - t;                                                             \
			best = t < best ? t : best;                                                \
			for (int k = 0; k < 12; k++)                                               \
				sink += acc[k][0];                                                 \
		}                                                                                  \
		if (sink == 42) /* keeps the loop */                                               \
			printf(" ");                                                               \
		return 2.0 * 12 * (double)(bytes / sizeof(td_real)) * (double)iters / best;        \
	}

PEAK_LOOP(peak_16, 16, )
#if defined(__x86_64__) && defined(__GNUC__)
PEAK_LOOP(peak_32, 32, __attribute__((target("avx2"))))
#endif

/* The peak of the vector width the GEMM kernel in use issues; *what names it. */
static double peak_flops(const char **what)
{
#if defined(__x86_64__) && defined(__GNUC__)
	if (!strcmp(td_gemm_kernel(), "avx2")) {
		*what = "32-byte (AVX2) vector multiply+add loop, as the avx2 GEMM kernel";
		return peak_32();
	}
#endif
	*what = "16-byte vector multiply+add loop, as the baseline GEMM kernel";
	return peak_16();
}

/*
 * Bytes read plus bytes written per second by memcpy of n bytes, `times`
 * copies per timing, best of 3: 128 MiB measures memory, 4 MiB the caches
 * (this machine's L3 is 32 MiB).
 */
static double peak_bandwidth(size_t n, int times)
{
	char *src = malloc(n), *dst = malloc(n);
	double best = 1e30;

	if (!src || !dst) {
		free(src), free(dst);
		return 0;
	}
	memset(src, 1, n), memset(dst, 2, n); /* fault the pages in first */
	for (int r = 0; r < 3; r++) {
		double t = now();

		for (int k = 0; k < times; k++)
			memcpy(k % 2 ? src : dst, k % 2 ? dst : src, n);
		t = now() - t;
		best = t < best ? t : best;
	}
	free(src), free(dst);
	return 2.0 * (double)n * times / best;
}

/* The parameter gradients, borrowed from the subject. */
static const td_real *subject_grads(subject *s, size_t *n)
{
	if (s->model) {
		*n = td_model_n_params(s->model);
		return td_model_grads(s->model);
	}
	if (s->block) { /* NULL when the groups are not one slab */
		*n = td_block_n_params(s->block);
		return td_block_n_groups(s->block) == 1 ? td_block_group(s->block, 0).grad : NULL;
	}
	*n = td_mixer_n_params(s->mixer);
	return td_mixer_grads(s->mixer);
}

/* ---- one case at one thread count -------------------------------------------- */

typedef struct {
	td_real *y, *dx, *grads; /* copies, for the comparison */
	size_t n_in, n_out, n_params;
	double seconds;
	double gemm_ops; /* 2 x td_gemm's multiply-adds in the first step */
} result;

static void result_free(result *r)
{
	free(r->y), free(r->dx), free(r->grads);
	memset(r, 0, sizeof *r);
}

/* Copies every parameter gradient, group by group for a block with two. */
static int copy_grads(result *r, subject *s)
{
	const td_real *g = subject_grads(s, &r->n_params);

	if (!(r->grads = malloc((r->n_params ? r->n_params : 1) * sizeof *r->grads)))
		return -1;
	if (g) {
		memcpy(r->grads, g, r->n_params * sizeof *g);
		return 0;
	}
	for (size_t i = 0, at = 0; i < td_block_n_groups(s->block); i++) {
		td_param_group pg = td_block_group(s->block, i);

		memcpy(r->grads + at, pg.grad, pg.count * sizeof *pg.grad);
		at += pg.count;
	}
	return 0;
}

static int run(result *r, const bench_case *c, const td_lattice *lat, int threads, int reps,
	       const td_real *x, const td_real *dy)
{
	subject s;
	int err = subject_new(&s, &shape, c, lat, threads);

	memset(r, 0, sizeof *r);
	r->seconds = 1e30;
	r->n_in = s.n_in, r->n_out = s.n_out;
	r->y = td_reals_alloc(s.n_out), r->dx = td_reals_alloc(s.n_in);
	if (!err && (!r->y || !r->dx))
		err = -1;
	for (int k = 0; !err && k < reps; k++) {
		double t = now();

		if (k == 0)
			td_gemm_count_begin();
		err = subject_step(&s, r->y, r->dx, x, dy);
		t = now() - t;
		if (k == 0)
			r->gemm_ops = 2.0 * (double)td_gemm_count_end();
		r->seconds = t < r->seconds ? t : r->seconds;
	}
	if (!err)
		err = copy_grads(r, &s);
	subject_free(&s);
	return err;
}

/* FNV-1a of the outputs, input gradients and parameter gradients: compares builds. */
static uint32_t result_hash(const result *r)
{
	uint64_t h = td_fnv1a64(TD_FNV1A64_OFFSET, r->y, r->n_out * sizeof *r->y);

	h = td_fnv1a64(h, r->dx, r->n_in * sizeof *r->dx);
	h = td_fnv1a64(h, r->grads, r->n_params * sizeof *r->grads);
	return (uint32_t)(h ^ (h >> 32));
}

static int same(const result *a, const result *b)
{
	return a->n_params == b->n_params && !memcmp(a->y, b->y, a->n_out * sizeof *a->y) &&
	       !memcmp(a->dx, b->dx, a->n_in * sizeof *a->dx) &&
	       !memcmp(a->grads, b->grads, a->n_params * sizeof *a->grads);
}

/* ---- the run ------------------------------------------------------------------ */

/*
 * Runs one case at 1 and 2 threads and prints its line; 1 when they
 * differ or the cost model's GEMM operations are not those that ran, 2 on
 * error.
 */
static int bench_one(const bench_case *c, const td_lattice *lat, int reps, const td_real *x,
		     const td_real *dy, double flops_peak, double bw_peak)
{
	const double bytes_per = (double)sizeof(td_real);
	result r1, r2;
	cost k = cost_of(&shape, c);
	double gflops, gbs, roof, intensity;
	int eq, bad;

	if (run(&r1, c, lat, 1, reps, x, dy) || run(&r2, c, lat, 2, reps, x, dy)) {
		fprintf(stderr, "bench: %s failed\n", c->name);
		result_free(&r1), result_free(&r2);
		return 2;
	}
	eq = same(&r1, &r2);
	bad = !eq || k.gemm != r1.gemm_ops; /* before result_free, which zeroes r1 */
	if (k.gemm != r1.gemm_ops)
		fprintf(stderr,
			"bench: %s: cost_of (bench/cases.h) claims %.0f GEMM operations, %.0f ran\n",
			c->name, k.gemm, r1.gemm_ops);
	gflops = k.flops / r1.seconds * 1e-9, gbs = k.values * bytes_per / r1.seconds * 1e-9;
	intensity = k.flops / (k.values * bytes_per);
	roof = intensity * bw_peak < flops_peak ? intensity * bw_peak : flops_peak;
	printf("%-22s %9.1f ms %9.1f ms %6.2fx  %-13s %6.2f %7.1f %6.2f %8.2f %6.2f %6.1f%%  %-7s  "
	       "%08x\n",
	       c->name, r1.seconds * 1e3, r2.seconds * 1e3, r1.seconds / r2.seconds,
	       eq ? "bitwise equal" : "DIFFER", k.flops * 1e-9, k.values * bytes_per * 1e-6,
	       intensity, gflops, gbs, 100 * gflops / (roof * 1e-9),
	       roof < flops_peak ? "memory" : "compute", result_hash(&r1));
	fflush(stdout);
	result_free(&r1), result_free(&r2);
	return bad;
}

int main(int argc, char **argv)
{
	bench_case cases[N_CASES];
	size_t n_cases = make_cases(cases);
	const char *only = NULL, *peak_what = NULL;
	int reps = 3, failed = 0;
	td_real *x = td_reals_alloc(N_VALUES), *dy = td_reals_alloc(N_VALUES);
	td_lattice *lat = NULL;
	double fp, bw, bw_cache;

	for (int i = 1; i < argc; i++)
		if (!strcmp(argv[i], "--only") && i + 1 < argc) {
			only = argv[++i];
		} else if (!strcmp(argv[i], "--kernel") && i + 1 < argc) {
			if (td_gemm_use_kernel(argv[++i])) {
				fprintf(stderr, "%s: %s\n", argv[0], td_error_last());
				return 2;
			}
		} else if (atoi(argv[i]) > 0) {
			reps = atoi(argv[i]);
		} else {
			fprintf(stderr, "usage: %s [REPS] [--only SUBSTRING] [--kernel GEMM_KERNEL]\n", argv[0]);
			return 2;
		}
	if (!x || !dy || bench_lattice(&lat, &shape))
		return 2;
	td_rng_fill_normal(1, 1, 0, N_VALUES, 0, 1, x);
	td_rng_fill_normal(1, 2, 0, N_VALUES, 0, 1, dy);
	fp = peak_flops(&peak_what), bw = peak_bandwidth((size_t)128 << 20, 1);
	bw_cache = peak_bandwidth((size_t)4 << 20, 16);
	printf("forward+backward, batch %zu, %zux%zu lattice, width %zu, td_real = %s, best of %d\n",
	       shape.batch, shape.side, shape.side, shape.width, TD_REAL_NAME, reps);
	printf("GEMM kernel: %s\n", td_gemm_kernel());
	printf("peak, 1 thread: %.1f GFLOP/s (%s); memory %.1f GB/s "
	       "(memcpy of 128 MiB, read + write), caches %.1f GB/s (4 MiB); balance %.1f flop/B\n",
	       fp * 1e-9, peak_what, bw * 1e-9, bw_cache * 1e-9, fp / bw);
	printf("roof = min(peak, flop/B x memory bandwidth); a case whose data stays in cache can "
	       "pass it\n");
	printf("%-22s %12s %12s %7s  %-13s %6s %7s %6s %8s %6s %7s  %-7s  %s\n", "case", "1 thread",
	       "2 threads", "speedup", "1 vs 2", "GFLOP", "MB", "flop/B", "GFLOP/s", "GB/s",
	       "of roof", "bound", "hash");
	for (size_t i = 0; i < n_cases; i++)
		if (!only || strstr(cases[i].name, only))
			failed |= bench_one(&cases[i], lat, reps, x, dy, fp, bw);
	td_lattice_free(lat);
	free(x), free(dy);
	return failed;
}
