/*
 * test_norm.c - RMSNorm's backward (core/norm.h), in the float build too.
 *
 * Independent reference: the derivative of y = x inv gain written out in
 * double from norm.h's definition, with inv computed here from x (not the
 * one the forward saved), held to a few float ulps. The model's finite
 * differences check the same code only in the double build.
 *
 * What these tests guard: tdaudit mutate --list --file core/norm.c
 *   and --list --file core/fixedsum.h
 */
#include "tdtest.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../core/fixedsum.h"
#include "../core/norm.h"
#include "../core/rng.h"

enum { ROWS = 37, WIDTH = 21 }; /* a width that is not a multiple of 8: the sums' tails */

/* dx from the definition, in double: dx_j = inv g_j dy_j - inv^3 x_j sum_k g_k dy_k x_k / W. */
static void reference(double *dx, const td_real *dy, const td_real *x, const td_real *gain)
{
	for (size_t r = 0; r < ROWS; r++) {
		const td_real *xr = x + r * WIDTH, *dyr = dy + r * WIDTH;
		double ss = 0, s = 0, inv;

		for (size_t k = 0; k < WIDTH; k++)
			ss += (double)xr[k] * xr[k], s += (double)gain[k] * dyr[k] * xr[k];
		inv = 1 / sqrt(ss / WIDTH + TD_RMSNORM_EPS);
		for (size_t k = 0; k < WIDTH; k++)
			dx[r * WIDTH + k] = inv * gain[k] * dyr[k] - inv * inv * inv * xr[k] * s / WIDTH;
	}
}

typedef struct {
	td_real x[ROWS * WIDTH], dy[ROWS * WIDTH], y[ROWS * WIDTH], gain[WIDTH], inv[ROWS];
	td_real dgain[WIDTH], scratch[WIDTH];
} rig;

static void rig_fill(rig *g)
{
	td_rng_fill_normal(3, 1, 0, ROWS * WIDTH, 0, 1, g->x);
	td_rng_fill_normal(3, 2, 0, ROWS * WIDTH, 0, 1, g->dy);
	td_rng_fill_uniform(3, 3, 0, WIDTH, (td_real)0.5, (td_real)1.5, g->gain);
	td_rmsnorm_forward(g->y, g->inv, g->x, g->gain, ROWS, WIDTH, 1);
	memset(g->dgain, 0, sizeof g->dgain);
}

static void test_rmsnorm_backward_matches_its_definition(void **state)
{
	static rig g;
	static td_real dx[ROWS * WIDTH];
	static double want[ROWS * WIDTH];

	(void)state;
	rig_fill(&g);
	reference(want, g.dy, g.x, g.gain);
	td_rmsnorm_backward(dx, g.dgain, g.scratch, g.dy, g.x, g.inv, g.gain, ROWS, WIDTH, 1, 0);
	for (size_t i = 0; i < ROWS * WIDTH; i++)
		if (fabs((double)dx[i] - want[i]) > 1e-5 * (1 + fabs(want[i])))
			fail_msg("dx[%zu] = %.9g, the definition gives %.9g", i, (double)dx[i],
				 want[i]);
}

/* With add, dx = dx + the gradient: bitwise the sum of the old dx and add's absence. */
static void test_add_mode_adds_the_gradient_to_dx(void **state)
{
	static rig g;
	static td_real alone[ROWS * WIDTH], old[ROWS * WIDTH], dx[ROWS * WIDTH];

	(void)state;
	rig_fill(&g);
	td_rng_fill_normal(3, 4, 0, ROWS * WIDTH, 0, 1, old);
	for (int threads = 1; threads <= 2; threads++) {
		td_rmsnorm_backward(alone, g.dgain, g.scratch, g.dy, g.x, g.inv, g.gain, ROWS, WIDTH,
				    threads, 0);
		memcpy(dx, old, sizeof dx);
		td_rmsnorm_backward(dx, g.dgain, g.scratch, g.dy, g.x, g.inv, g.gain, ROWS, WIDTH,
				    threads, 1);
		for (size_t i = 0; i < ROWS * WIDTH; i++) {
			td_real want = old[i] + alone[i];

			if (memcmp(&dx[i], &want, sizeof want) != 0)
				fail_msg("threads %d, dx[%zu] = %.9g, old + gradient = %.9g", threads,
					 i, (double)dx[i], (double)want);
		}
	}
}

/* A zero dy gives exactly zero gradients: nothing but the rows' sums reaches dgain. */
static void test_a_zero_dy_gives_exactly_zero_gradients(void **state)
{
	static rig g;
	static td_real dx[ROWS * WIDTH];

	(void)state;
	rig_fill(&g);
	memset(g.dy, 0, sizeof g.dy);
	for (int threads = 1; threads <= 2; threads++) {
		td_rmsnorm_backward(dx, g.dgain, g.scratch, g.dy, g.x, g.inv, g.gain, ROWS, WIDTH,
				    threads, 0);
		for (size_t i = 0; i < ROWS * WIDTH; i++)
			assert_true(dx[i] == 0);
		for (size_t k = 0; k < WIDTH; k++)
			if (g.dgain[k] != 0)
				fail_msg("threads %d: dgain[%zu] = %g, not 0", threads, k,
					 (double)g.dgain[k]);
	}
}

/*
 * dL/dgain is the same bits for one thread and two when the width is one
 * short of two groups of channels, and nothing past dgain's width is
 * written (the rows' values go on past them, so a group too many would).
 */
static void test_dgain_keeps_to_its_width_whatever_the_thread_count(void **state)
{
	enum { R = 5, W = 31, PAD = 64 };
	static struct {
		td_real x[R * W + PAD], dy[R * W + PAD], dgain[W + PAD];
	} a;
	td_real y[R * W], inv[R], dx[R * W], scratch[W], gain[W], one[W];

	(void)state;
	for (size_t i = 0; i < sizeof a / sizeof(td_real); i++)
		((td_real *)&a)[i] = 1;
	td_rng_fill_normal(5, 1, 0, R * W, 0, 1, a.x);
	td_rng_fill_normal(5, 2, 0, R * W, 0, 1, a.dy);
	td_rng_fill_uniform(5, 3, 0, W, (td_real)0.5, (td_real)1.5, gain);
	td_rmsnorm_forward(y, inv, a.x, gain, R, W, 1);
	memset(a.dgain, 0, W * sizeof *a.dgain);
	td_rmsnorm_backward(dx, a.dgain, scratch, a.dy, a.x, inv, gain, R, W, 1, 0);
	memcpy(one, a.dgain, sizeof one);
	memset(a.dgain, 0, W * sizeof *a.dgain);
	td_rmsnorm_backward(dx, a.dgain, scratch, a.dy, a.x, inv, gain, R, W, 2, 0);
	assert_memory_equal(a.dgain, one, sizeof one);
	for (size_t k = W; k < W + PAD; k++)
		if (a.dgain[k] != 1)
			fail_msg("dgain[%zu], past the width, became %g", k, (double)a.dgain[k]);
}

/* td_dot3_fixed(a, b, c) is td_dot_fixed of the products a b stored in td_real, bitwise. */
static void test_dot3_is_dot_fixed_of_the_stored_products(void **state)
{
	td_real a[45], b[45], c[45], p[45];

	(void)state;
	td_rng_fill_normal(9, 1, 0, 45, 0, 1, a);
	td_rng_fill_normal(9, 2, 0, 45, 0, 1, b);
	td_rng_fill_normal(9, 3, 0, 45, 0, 1, c);
	for (size_t n = 0; n <= 45; n++) {
		double got, want;

		for (size_t j = 0; j < n; j++)
			p[j] = a[j] * b[j];
		got = td_dot3_fixed(a, b, c, n), want = td_dot_fixed(p, c, n);
		if (memcmp(&got, &want, sizeof got) != 0)
			fail_msg("n = %zu: %.17g, td_dot_fixed of the products %.17g", n, got, want);
	}
}

static const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_rmsnorm_backward_matches_its_definition),
    cmocka_unit_test(test_add_mode_adds_the_gradient_to_dx),
    cmocka_unit_test(test_a_zero_dy_gives_exactly_zero_gradients),
    cmocka_unit_test(test_dgain_keeps_to_its_width_whatever_the_thread_count),
    cmocka_unit_test(test_dot3_is_dot_fixed_of_the_stored_products),
};
TD_TEST_GROUP(norm, tests);
