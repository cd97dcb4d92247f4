/*
 * test_adamw.c - AdamW against a naive double-precision re-implementation,
 * the bias correction at step 1 by hand, the warm-up/cosine schedule at
 * known steps, clipping, the NaN firewall, determinism, and the resume
 * property at the optimizer level (export/import then k steps equals the
 * uninterrupted run, bitwise).
 *
 * What these tests guard: tdaudit mutate --list --file core/adamw.c
 *
 * Edits seen breaking these tests that the catalogue may not hold:
 *   - td_adamw_lr() warming up with s in place of s + 1 (lr(0) = 0)
 *       -> the_schedule_warms_up_linearly_then_decays_by_cosine_to_the_floor
 *   - td_adamw_import() without the n check -> import_refuses_another_state
 *   - check_opts() with warmup > total_steps for >= -> bad_options_are_refused
 * Not tried: grad_norm() summing in another fixed order changes the value by
 * an ulp at most; the_same_inputs_give_bitwise_the_same_outputs holds the
 * determinism, the reference test the value.
 */
#include "tdtest.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../core/adamw.h"
#include "../core/counters.h"
#include "../base/error.h"

#define N 7

#ifdef TD_REAL_DOUBLE
#define REL_TOL 1e-12
#else
#define REL_TOL 2e-6
#endif

/* The gradient of step k (0-based), element i: smooth, signed, never zero. */
static double grad_at(int k, size_t i)
{
	return sin(1.0 + 0.7 * (double)i + 1.3 * (double)k) * (1.0 + 0.5 * (double)i) + 0.01;
}

static void fill_grads(td_real *g, int k)
{
	for (size_t i = 0; i < N; i++)
		g[i] = (td_real)grad_at(k, i);
}

static void fill_params(td_real *p)
{
	for (size_t i = 0; i < N; i++)
		p[i] = (td_real)(0.5 - 0.15 * (double)i);
}

static td_adamw_opts test_opts(void)
{
	td_adamw_opts o = TD_ADAMW_OPTS_INIT;

	o.lr = 0.05, o.lr_floor = 0.005, o.warmup = 2, o.total_steps = 10;
	o.beta1 = 0.8, o.beta2 = 0.95, o.eps = 1e-6, o.weight_decay = 0.1, o.clip = 0;
	return o;
}

static void assert_close(double got, double want, double rel)
{
	double tol = rel * fmax(1.0, fabs(want));

	if (!(fabs(got - want) <= tol))
		fail_msg("got %.17g, want %.17g (tolerance %g)", got, want, tol);
}

/*
 * The reference: AdamW written out plainly in double, its own schedule
 * included, from the published algorithm (Loshchilov & Hutter).
 */
static void reference(double *p, int steps, const td_adamw_opts *o)
{
	double m[N] = {0}, v[N] = {0};

	for (int k = 0; k < steps; k++) {
		int t = k + 1;
		double lr;

		if (k < o->warmup)
			lr = o->lr * (k + 1) / (double)o->warmup;
		else
			lr = o->lr_floor + (o->lr_floor - o->lr) * -0.5 *
						   (1 + cos(3.14159265358979323846 * (k - o->warmup) /
							    (double)(o->total_steps - o->warmup)));
		for (size_t i = 0; i < N; i++) {
			double g = (double)(td_real)grad_at(k, i);

			m[i] = o->beta1 * m[i] + (1 - o->beta1) * g;
			v[i] = o->beta2 * v[i] + (1 - o->beta2) * g * g;
			p[i] -= lr * o->weight_decay * p[i];
			p[i] -= lr * (m[i] / (1 - pow(o->beta1, t))) /
				(sqrt(v[i] / (1 - pow(o->beta2, t))) + o->eps);
		}
	}
}

static void test_matches_a_double_precision_reference_for_six_steps(void **state)
{
	td_adamw_opts o = test_opts();
	td_adamw *a;
	td_real p[N], g[N];
	double ref[N];

	(void)state;
	fill_params(p);
	for (size_t i = 0; i < N; i++)
		ref[i] = (double)p[i];
	assert_int_equal(td_adamw_new(&a, N, &o), 0);
	for (int k = 0; k < 6; k++) {
		fill_grads(g, k);
		assert_int_equal(td_adamw_step(a, p, g, NULL), 1);
	}
	reference(ref, 6, &o);
	for (size_t i = 0; i < N; i++)
		assert_close((double)p[i], ref[i], 20 * REL_TOL);
	assert_int_equal(td_adamw_updates(a), 6);
	td_adamw_free(a);
}

static void test_the_first_step_is_bias_corrected_to_lr_times_the_sign(void **state)
{
	td_adamw_opts o = TD_ADAMW_OPTS_INIT;
	td_adamw *a;
	td_real p[2] = {1, 1}, g[2] = {(td_real)0.5, (td_real)-0.25};

	(void)state;
	/* Step 1: m/(1-b1) = g and v/(1-b2) = g^2, so the step is lr * g / (|g| + eps). */
	o.lr = 0.1, o.warmup = 0, o.weight_decay = 0, o.clip = 0, o.eps = 1e-8;
	assert_int_equal(td_adamw_new(&a, 2, &o), 0);
	assert_int_equal(td_adamw_step(a, p, g, NULL), 1);
	assert_close((double)p[0], 1 - 0.1 * 0.5 / (0.5 + 1e-8), REL_TOL);	/* 0.9000000002 */
	assert_close((double)p[1], 1 + 0.1 * 0.25 / (0.25 + 1e-8), REL_TOL); /* 1.0999999996 */
	td_adamw_free(a);
}

static void test_the_schedule_warms_up_linearly_then_decays_by_cosine_to_the_floor(void **state)
{
	td_adamw_opts o = TD_ADAMW_OPTS_INIT;

	(void)state;
	o.lr = 1.0, o.lr_floor = 0.1, o.warmup = 4, o.total_steps = 14;
	assert_close(td_adamw_lr(&o, 0), 0.25, 1e-15);
	assert_close(td_adamw_lr(&o, 1), 0.50, 1e-15);
	assert_close(td_adamw_lr(&o, 3), 1.00, 1e-15);
	assert_close(td_adamw_lr(&o, 4), 1.00, 1e-15);	   /* the peak, p = 0 */
	assert_close(td_adamw_lr(&o, 6), 0.9140576475, 1e-9); /* 0.1 + 0.45 (1 + cos(0.2 pi)) */
	assert_close(td_adamw_lr(&o, 9), 0.55, 1e-15);	   /* half way: the mean of peak and floor */
	assert_close(td_adamw_lr(&o, 14), 0.1, 1e-15);	   /* the floor */
	assert_close(td_adamw_lr(&o, 99), 0.1, 1e-15);	   /* and it stays there */
	o.warmup = 0;
	assert_close(td_adamw_lr(&o, 0), 1.0, 1e-15);
}

static void test_clipping_keeps_the_direction_and_puts_the_norm_at_the_limit(void **state)
{
	td_adamw_opts o = TD_ADAMW_OPTS_INIT;
	td_adamw *a;
	td_real p[3] = {0, 0, 0}, g[3] = {3, -4, 12}; /* norm 13 */
	const td_real *m;
	double norm = 0;

	(void)state;
	/* beta1 = 0 makes the first moment the clipped gradient itself. */
	o.beta1 = 0, o.clip = 1.3, o.warmup = 0;
	assert_int_equal(td_adamw_new(&a, 3, &o), 0);
	assert_int_equal(td_adamw_step(a, p, g, NULL), 1);
	m = td_adamw_m(a);
	for (size_t i = 0; i < 3; i++) {
		assert_close((double)m[i] / (double)g[i], 0.1, REL_TOL); /* the same direction */
		norm += (double)m[i] * (double)m[i];
	}
	assert_close(sqrt(norm), 1.3, REL_TOL);
	assert_close(td_adamw_last(a)->grad_norm, 13.0, 1e-15);
	assert_close(td_adamw_last(a)->scale, 0.1, 1e-15);
	/* Under the limit nothing is scaled: m is g, bitwise. */
	g[0] = (td_real)0.3, g[1] = (td_real)0.4, g[2] = 0;
	assert_int_equal(td_adamw_step(a, p, g, NULL), 1);
	assert_memory_equal(td_adamw_m(a), g, sizeof g);
	assert_true(td_adamw_last(a)->scale == 1.0);
	td_adamw_free(a);
}

/* Runs two finite steps, then one with bad at g[2]; checks nothing moved and the count. */
static void check_skip(td_real bad, const char *why)
{
	td_adamw_opts o = test_opts();
	td_counters *c;
	td_adamw *a;
	td_real p[N], g[N], p0[N], m0[N], v0[N];

	assert_int_equal(td_counters_new(&c, 4), 0);
	assert_int_equal(td_adamw_new(&a, N, &o), 0);
	fill_params(p);
	for (int k = 0; k < 2; k++) {
		fill_grads(g, k);
		assert_int_equal(td_adamw_step(a, p, g, c), 1);
	}
	memcpy(p0, p, sizeof p), memcpy(m0, td_adamw_m(a), sizeof m0);
	memcpy(v0, td_adamw_v(a), sizeof v0);
	fill_grads(g, 2);
	g[2] = bad;
	assert_int_equal(td_adamw_step(a, p, g, c), 0);
	assert_memory_equal(p, p0, sizeof p);
	assert_memory_equal(td_adamw_m(a), m0, sizeof m0);
	assert_memory_equal(td_adamw_v(a), v0, sizeof v0);
	assert_int_equal(td_adamw_updates(a), 2);
	assert_int_equal(td_adamw_steps(a), 3);
	assert_int_equal(td_adamw_skipped(a), 1);
	assert_int_equal(td_adamw_last(a)->applied, 0);
	assert_int_equal(td_counter_get(c, "nan_step_skipped"), 1);
	assert_string_equal(td_counter_why(c, "nan_step_skipped", 0), why);
	td_adamw_free(a);
	td_counters_free(c);
}

static void test_a_non_finite_gradient_skips_the_step_and_leaves_params_and_moments_bitwise(
	void **state)
{
	(void)state;
	check_skip((td_real)NAN, "gradient[2] was nan at step 3");
	check_skip((td_real)INFINITY, "gradient[2] was inf at step 3");
	check_skip((td_real)-INFINITY, "gradient[2] was inf at step 3");
}

/* Runs steps steps from fill_params with the grads of steps first.., one NaN step at bad. */
static void run(td_adamw *a, td_real *p, int first, int steps, int bad)
{
	td_real g[N];

	for (int k = first; k < first + steps; k++) {
		fill_grads(g, k);
		if (k == bad)
			g[0] = (td_real)NAN;
		assert_int_equal(td_adamw_step(a, p, g, NULL), k != bad);
	}
}

static void test_the_same_inputs_give_bitwise_the_same_outputs(void **state)
{
	td_adamw_opts o = test_opts();
	td_adamw *a, *b;
	td_real pa[N], pb[N];

	(void)state;
	o.clip = 1.5;
	assert_int_equal(td_adamw_new(&a, N, &o), 0);
	assert_int_equal(td_adamw_new(&b, N, &o), 0);
	fill_params(pa), fill_params(pb);
	run(a, pa, 0, 8, 3), run(b, pb, 0, 8, 3);
	assert_memory_equal(pa, pb, sizeof pa);
	assert_memory_equal(td_adamw_m(a), td_adamw_m(b), N * sizeof(td_real));
	assert_memory_equal(td_adamw_v(a), td_adamw_v(b), N * sizeof(td_real));
	td_adamw_free(a);
	td_adamw_free(b);
}

static void test_export_import_then_k_steps_equals_the_uninterrupted_run_bitwise(void **state)
{
	td_adamw_opts o = test_opts();
	td_adamw *whole, *first, *resumed;
	td_real pw[N], pr[N];
	unsigned char *buf;
	size_t len;

	(void)state;
	o.clip = 1.5;
	assert_int_equal(td_adamw_new(&whole, N, &o), 0);
	assert_int_equal(td_adamw_new(&first, N, &o), 0);
	assert_int_equal(td_adamw_new(&resumed, N, &o), 0);
	fill_params(pw), fill_params(pr);
	run(whole, pw, 0, 9, 2);
	run(first, pr, 0, 4, 2); /* m = 4 steps, one of them skipped */
	len = td_adamw_state_size(first);
	buf = malloc(len);
	assert_non_null(buf);
	assert_int_equal(td_adamw_export(first, buf, len), 0);
	td_adamw_free(first);
	assert_int_equal(td_adamw_import(resumed, buf, len), 0);
	run(resumed, pr, 4, 5, -1); /* k = 5 more */
	assert_memory_equal(pw, pr, sizeof pw);
	assert_memory_equal(td_adamw_m(whole), td_adamw_m(resumed), N * sizeof(td_real));
	assert_memory_equal(td_adamw_v(whole), td_adamw_v(resumed), N * sizeof(td_real));
	assert_int_equal(td_adamw_steps(resumed), 9);
	assert_int_equal(td_adamw_updates(resumed), 8);
	assert_int_equal(td_adamw_skipped(resumed), 1);
	free(buf);
	td_adamw_free(whole);
	td_adamw_free(resumed);
}

static void test_import_refuses_another_state(void **state)
{
	td_adamw_opts o = test_opts();
	td_adamw *a, *b;
	unsigned char buf[512];

	(void)state;
	assert_int_equal(td_adamw_new(&a, N, &o), 0);
	assert_int_equal(td_adamw_new(&b, N + 1, &o), 0);
	assert_int_equal(td_adamw_export(a, buf, sizeof buf), 0);
	TD_ASSERT_REFUSED(td_adamw_import(b, buf, td_adamw_state_size(a)), TD_EINVAL,
			  "the state is for 7 parameters; this optimizer has 8");
	TD_ASSERT_REFUSED(td_adamw_import(a, buf, td_adamw_state_size(a) - 1), TD_EINVAL,
			  "7 parameters need");
	TD_ASSERT_REFUSED(td_adamw_export(a, buf, 10), TD_EINVAL, "too small");
	buf[0] = 'X';
	TD_ASSERT_REFUSED(td_adamw_import(a, buf, td_adamw_state_size(a)), TD_EINVAL,
			  "not an AdamW state");
	td_adamw_free(a);
	td_adamw_free(b);
}

/*
 * A state set from elsewhere (the GPU's) is the state exported: counts
 * and moments. Counts that do not add up are refused and change nothing.
 */
static void test_a_state_set_from_elsewhere_is_taken_whole_or_not_at_all(void **state)
{
	td_adamw_opts o = test_opts();
	td_real m[N], v[N];
	td_adamw *a;

	(void)state;
	for (int i = 0; i < N; i++)
		m[i] = (td_real)(i + 1), v[i] = (td_real)(2 * i + 1);
	assert_int_equal(td_adamw_new(&a, N, &o), 0);
	assert_int_equal(td_adamw_set_state(a, 9, 7, 2, m, v), 0);
	assert_int_equal(td_adamw_steps(a), 9);
	assert_int_equal(td_adamw_updates(a), 7);
	assert_int_equal(td_adamw_skipped(a), 2);
	assert_memory_equal(td_adamw_m(a), m, sizeof m);
	assert_memory_equal(td_adamw_v(a), v, sizeof v);
	TD_ASSERT_REFUSED(td_adamw_set_state(a, 10, 7, 2, v, m), TD_EINVAL,
			  "10 steps, 7 updates and 2 skips does not add up");
	TD_ASSERT_REFUSED(td_adamw_set_state(a, 0, 1, -1, v, m), TD_EINVAL, "does not add up");
	TD_ASSERT_REFUSED(td_adamw_set_state(a, 0, -1, 1, v, m), TD_EINVAL, "does not add up");
	assert_int_equal(td_adamw_steps(a), 9);
	assert_memory_equal(td_adamw_m(a), m, sizeof m);
	td_adamw_free(a);
}

static void test_bad_options_are_refused(void **state)
{
	td_adamw_opts o = TD_ADAMW_OPTS_INIT;
	td_adamw *a = (td_adamw *)1;

	(void)state;
	TD_ASSERT_REFUSED(td_adamw_new(&a, 0, &o), TD_EINVAL, "n is 0");
	assert_null(a);
	o.warmup = o.total_steps;
	TD_ASSERT_REFUSED(td_adamw_new(&a, 3, &o), TD_EINVAL, "below total_steps");
	o = (td_adamw_opts)TD_ADAMW_OPTS_INIT, o.lr_floor = 1;
	TD_ASSERT_REFUSED(td_adamw_new(&a, 3, &o), TD_EINVAL, "lr_floor");
	o = (td_adamw_opts)TD_ADAMW_OPTS_INIT, o.beta2 = 1;
	TD_ASSERT_REFUSED(td_adamw_new(&a, 3, &o), TD_EINVAL, "beta2");
	o = (td_adamw_opts)TD_ADAMW_OPTS_INIT, o.clip = -1;
	TD_ASSERT_REFUSED(td_adamw_new(&a, 3, &o), TD_EINVAL, "clip");
	o = (td_adamw_opts)TD_ADAMW_OPTS_INIT, o.eps = 0;
	TD_ASSERT_REFUSED(td_adamw_new(&a, 3, &o), TD_EINVAL, "eps");
	td_adamw_free(NULL);
}

/* Asserts that td_adamw_new accepts o, freeing what it made. */
static void accepts(td_adamw_opts o)
{
	td_adamw *a = NULL;

	if (td_adamw_new(&a, 3, &o))
		fail_msg("refused at its edge: %s", td_error_last());
	td_adamw_free(a);
}

#define REFUSES(o, needle) TD_ASSERT_REFUSED(td_adamw_new(&a, 3, &(o)), TD_EINVAL, needle)

/*
 * Each option at the edge of its range is accepted, and one step past it
 * (the next double, or the next integer) is refused naming the option.
 */
static void test_every_option_is_accepted_at_its_edge_and_refused_just_past_it(void **state)
{
	const td_adamw_opts init = TD_ADAMW_OPTS_INIT;
	td_adamw_opts o;
	td_adamw *a = NULL;

	(void)state;
	o = init, o.lr = 1e-300, accepts(o);
	o = init, o.lr = 0;
	REFUSES(o, "lr 0");
	o = init, o.lr = INFINITY;
	REFUSES(o, "lr inf");
	o = init, o.lr_floor = o.lr, accepts(o);
	o = init, o.lr_floor = nextafter(o.lr, 1);
	REFUSES(o, "lr_floor");
	o = init, o.lr_floor = -0x1p-1074;
	REFUSES(o, "lr_floor");
	o = init, o.total_steps = 1, o.warmup = 0, accepts(o);
	o = init, o.warmup = o.total_steps - 1, accepts(o);
	o = init, o.warmup = -1;
	REFUSES(o, "warmup -1");
	o = init, o.beta1 = 0, o.beta2 = 0, accepts(o);
	o = init, o.beta1 = nextafter(1, 0), o.beta2 = nextafter(1, 0), accepts(o);
	o = init, o.beta1 = 1;
	REFUSES(o, "beta1 1");
	o = init, o.beta2 = -0x1p-1074;
	REFUSES(o, "beta2");
	o = init, o.eps = 0x1p-1074, accepts(o);
	o = init, o.eps = INFINITY;
	REFUSES(o, "eps inf");
	o = init, o.weight_decay = 0, o.clip = 0, accepts(o);
	o = init, o.weight_decay = -0x1p-1074;
	REFUSES(o, "weight_decay");
	o = init, o.weight_decay = INFINITY;
	REFUSES(o, "weight_decay inf");
	o = init, o.clip = INFINITY;
	REFUSES(o, "clip inf");
}

/*
 * The skip's reason names element 0 when it is the first non-finite one,
 * and the norm with the step when every element was finite (an overflow
 * only a double build can reach from the gradients); a skip without
 * counters still returns 0; an applied step says so in td_adamw_last.
 */
static void test_a_skip_names_element_0_or_the_overflowed_norm_and_an_applied_step_says_so(
	void **state)
{
	td_adamw_opts o = test_opts();
	td_counters *c = NULL;
	td_adamw *a = NULL;
	td_real p[N], g[N];

	(void)state;
	assert_int_equal(td_counters_new(&c, 4), 0);
	assert_int_equal(td_adamw_new(&a, N, &o), 0);
	fill_params(p), fill_grads(g, 0);
	assert_int_equal(td_adamw_step(a, p, g, c), 1);
	assert_int_equal(td_adamw_last(a)->applied, 1);
	g[0] = (td_real)NAN, g[N - 1] = (td_real)INFINITY;
	assert_int_equal(td_adamw_step(a, p, g, c), 0);
	assert_string_equal(td_counter_why(c, "nan_step_skipped", 0), "gradient[0] was nan at step 2");
	assert_int_equal(td_adamw_count_skip(c, 3, SIZE_MAX, 0, INFINITY), 0);
	assert_string_equal(td_counter_why(c, "nan_step_skipped", 1),
			    "gradient norm overflowed to inf at step 4 (every element finite)");
	assert_int_equal(td_adamw_step(a, p, g, NULL), 0); /* skipped, with nothing to count in */
	assert_int_equal(td_adamw_skipped(a), 2);
	td_adamw_free(a);
	td_counters_free(c);
}

/* The state is the 48-byte header and the two moments; the header alone is refused for its length. */
static void test_the_state_is_its_header_and_two_moments_and_a_header_alone_is_short(void **state)
{
	td_adamw_opts o = test_opts();
	td_adamw *a = NULL;
	unsigned char buf[48 + 2 * N * sizeof(td_real)];

	(void)state;
	assert_int_equal(td_adamw_new(&a, N, &o), 0);
	assert_int_equal(td_adamw_state_size(a), 48 + 2 * N * sizeof(td_real));
	assert_int_equal(td_adamw_export(a, buf, sizeof buf), 0);
	TD_ASSERT_REFUSED(td_adamw_import(a, buf, 48), TD_EINVAL, "the state is 48 bytes");
	td_adamw_free(a);
}

static const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_matches_a_double_precision_reference_for_six_steps),
    cmocka_unit_test(test_every_option_is_accepted_at_its_edge_and_refused_just_past_it),
    cmocka_unit_test(test_a_skip_names_element_0_or_the_overflowed_norm_and_an_applied_step_says_so),
    cmocka_unit_test(test_the_state_is_its_header_and_two_moments_and_a_header_alone_is_short),
    cmocka_unit_test(test_the_first_step_is_bias_corrected_to_lr_times_the_sign),
    cmocka_unit_test(test_the_schedule_warms_up_linearly_then_decays_by_cosine_to_the_floor),
    cmocka_unit_test(test_clipping_keeps_the_direction_and_puts_the_norm_at_the_limit),
    cmocka_unit_test(test_a_non_finite_gradient_skips_the_step_and_leaves_params_and_moments_bitwise),
    cmocka_unit_test(test_the_same_inputs_give_bitwise_the_same_outputs),
    cmocka_unit_test(test_export_import_then_k_steps_equals_the_uninterrupted_run_bitwise),
    cmocka_unit_test(test_import_refuses_another_state),
    cmocka_unit_test(test_bad_options_are_refused),
    cmocka_unit_test(test_a_state_set_from_elsewhere_is_taken_whole_or_not_at_all),
};

TD_TEST_GROUP(adamw, tests);
