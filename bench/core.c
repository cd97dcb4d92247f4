/*
 * bench/core.c - how fast the core's mixers train, and that threads do not
 * change a single bit.
 *
 * For each mixer: one forward and one backward over a batch of 32 images of
 * 28 x 28 cells with 32 channels, swept along the rows (32 * 28 lines of
 * length 28), timed as the best of several repetitions, with 1 and with 2
 * threads. The outputs, input gradients and parameter gradients of the two
 * thread counts are compared bitwise, and any difference fails the run.
 * Prints the figures with what was measured; asserts nothing about speed.
 *
 *   make && build/bench/core [REPS]
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../core/mixer.h"
#include "../core/rng.h"

enum { BATCH = 32, SIDE = 28, WIDTH = 32 };

typedef struct {
	td_real *y, *dx, *grads;
	double seconds;
} result;

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* Forward + backward of kind at the given thread count, best of reps. */
static int run(result *out, td_mixer_kind kind, int threads, int reps, const td_real *x,
	       const td_real *dy)
{
	td_mixer_opts o = TD_MIXER_OPTS_INIT;
	size_t lines = BATCH * SIDE, n = lines * SIDE * WIDTH, ws_len;
	td_mixer *m;
	td_real *ws;

	o.kind = kind, o.channels = WIDTH, o.threads = threads, o.kernel_size = 4;
	if (td_mixer_new(&m, &o) || td_mixer_ws_size(&ws_len, m, lines, SIDE))
		return -1;
	td_mixer_init(m, 7, 100);
	ws = malloc(ws_len * sizeof *ws);
	out->y = malloc(n * sizeof *out->y);
	out->dx = malloc(n * sizeof *out->dx);
	out->grads = malloc(td_mixer_n_params(m) * sizeof *out->grads);
	out->seconds = 1e30;
	for (int r = 0; r < reps; r++) {
		double t = now();

		td_mixer_zero_grads(m);
		if (td_mixer_forward(m, out->y, x, lines, SIDE, ws, ws_len) ||
		    td_mixer_backward(m, out->dx, dy, lines, SIDE, ws, ws_len))
			return -1;
		t = now() - t;
		out->seconds = t < out->seconds ? t : out->seconds;
	}
	memcpy(out->grads, td_mixer_grads(m), td_mixer_n_params(m) * sizeof *out->grads);
	free(ws);
	td_mixer_free(m);
	return 0;
}

static int same(const result *a, const result *b, size_t n, size_t n_params)
{
	return !memcmp(a->y, b->y, n * sizeof *a->y) && !memcmp(a->dx, b->dx, n * sizeof *a->dx) &&
	       !memcmp(a->grads, b->grads, n_params * sizeof *a->grads);
}

int main(int argc, char **argv)
{
	static const struct {
		const char *name;
		td_mixer_kind kind;
	} kinds[] = {{"lru", TD_MIXER_LRU}, {"conv", TD_MIXER_CONV}, {"gru", TD_MIXER_GRU}};
	int reps = argc > 1 ? atoi(argv[1]) : 5, failed = 0;
	size_t n = (size_t)BATCH * SIDE * SIDE * WIDTH;
	td_real *x = malloc(n * sizeof *x), *dy = malloc(n * sizeof *dy);

	td_rng_fill_normal(1, 1, 0, n, 0, 1, x);
	td_rng_fill_normal(1, 2, 0, n, 0, 1, dy);
	printf("forward+backward, batch %d, %dx%d lattice swept along rows, width %d, td_real = %s, "
	       "best of %d\n", BATCH, SIDE, SIDE, WIDTH, TD_REAL_NAME, reps);
	printf("%-6s %12s %12s %8s  %s\n", "mixer", "1 thread", "2 threads", "speedup",
	       "outputs and gradients, 1 vs 2 threads");
	for (size_t k = 0; k < sizeof kinds / sizeof kinds[0]; k++) {
		result r1, r2;
		td_mixer_opts o = TD_MIXER_OPTS_INIT;
		td_mixer *m;
		size_t n_params;
		int eq;

		o.kind = kinds[k].kind, o.channels = WIDTH, o.kernel_size = 4;
		if (td_mixer_new(&m, &o))
			return 2;
		n_params = td_mixer_n_params(m);
		td_mixer_free(m);
		if (run(&r1, kinds[k].kind, 1, reps, x, dy) || run(&r2, kinds[k].kind, 2, reps, x, dy)) {
			fprintf(stderr, "bench: %s failed\n", kinds[k].name);
			return 2;
		}
		eq = same(&r1, &r2, n, n_params);
		failed |= !eq;
		printf("%-6s %9.1f ms %9.1f ms %7.2fx  %s\n", kinds[k].name, r1.seconds * 1e3,
		       r2.seconds * 1e3, r1.seconds / r2.seconds, eq ? "bitwise equal" : "DIFFER");
		free(r1.y), free(r1.dx), free(r1.grads), free(r2.y), free(r2.dx), free(r2.grads);
	}
	free(x);
	free(dy);
	return failed;
}
