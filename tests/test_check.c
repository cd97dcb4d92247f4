/*
 * test_check.c - the conformance suite: every family with every mixer of
 * the table below passes it at ranks 1, 2 and 3, dense and sparse, with
 * and without a time axis, and in the double build every one of those
 * configurations has its gradient checked by central finite differences
 * (a missing or skipped one fails the test); it runs only what was asked;
 * a skip stays a skip; it catches a schedule taken from storage order;
 * trainability with a negative control that must fail.
 *
 * What these tests guard: tdaudit mutate --list --file core/check.c
 *   and --list --file core/family_kernel.c
 *   and --list --file core/axial.c
 *   and --list --file core/mixer_lstm.c
 *
 * Edits seen breaking these tests that the catalogue may not hold:
 *   - in the double build: conv_backward_at reading its taps without the
 *     dilation (the forward keeps it), which the suite missed while it ran
 *     the convolution undilated; gru's step_backward dropping r from
 *     d(Un h + cn) (`dn * r` -> `dn`), now seen at rank 3 too
 *       -> every_*_model_passes_the_conformance_suite (gradient check)
 *   - dropping the rank range check -> bad_check_options_are_refused
 *   - in the double build: the kernel's dK dropping its `- out_i m_j`
 *     term, its dz using K transposed, RMSNorm's backward dropping its
 *     second term, the model's backward dropping the residual gradient
 *       -> every_*_model_passes_the_conformance_suite (gradient check)
 *   - the task's target being the input itself (`y[i] = s` -> `y[i] = x[i]`)
 *       -> a_model_that_never_sweeps_the_needed_axis_cannot_learn_it
 *          (the control then learns), the_task_target_is_the_running_sum_along_w
 *   - the task summing along h instead of w
 *       -> the_task_target_is_the_running_sum_along_w
 *   - the lstm's recurrent GEMM reading h_{t-1} one position apart instead
 *     of one line apart (lines read each other's states)
 *       -> every_*_model_passes_the_conformance_suite (rank1 check, both builds)
 *   - in the double build: the lstm's dU from x instead of h_{t-1}, the
 *     clru's dtheta sign flipped or its scan's line stride halved
 *       -> every_*_model_passes_the_conformance_suite (gradient check)
 */
#include "tdtest.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../core/axial.h"
#include "../core/check.h"
#include "../base/error.h"

/*
 * Every mixer kind as the suite builds it: adding a kind is one line here,
 * and every family then runs it at ranks 1, 2 and 3, dense and sparse, with
 * and without a time axis. Zero fields keep TD_MIXER_OPTS_INIT's value.
 * The options reach the paths a default would not: an LRU state that is
 * not the width (B and C not square), a dilated convolution whose taps
 * fall off the short lines, attention with two heads, causal and not.
 */
typedef struct {
	const char *name;
	td_mixer_kind kind;
	size_t state, kernel_size, dilation, heads;
	int causal;
} mixer_row;

static const mixer_row mixers[] = {
    {"lru", TD_MIXER_LRU, 3, 0, 0, 0, 0},
    {"conv", TD_MIXER_CONV, 0, 3, 2, 0, 0},
    {"gru", TD_MIXER_GRU, 0, 0, 0, 0, 0},
    {"lstm", TD_MIXER_LSTM, 0, 0, 0, 0, 0},
    {"clru", TD_MIXER_CLRU, 3, 0, 0, 0, 0},
    {"attention", TD_MIXER_ATTENTION, 0, 0, 0, 2, 0},
    {"attention causal", TD_MIXER_ATTENTION, 0, 0, 0, 2, 1},
};

#define N_MIXERS (sizeof mixers / sizeof mixers[0])

/* The model the other tests build: an LRU with 4 states. */
static const mixer_row lru4 = {"lru", TD_MIXER_LRU, 4, 0, 0, 0, 0};
#define LRU (&lru4)

/* The suite's width: small (the gradient check perturbs every value), divisible by heads. */
#define SUITE_WIDTH 4

/* What a factory builds; it also records what it was asked for. */
typedef struct {
	td_block_family fam;
	const mixer_row *mx;
	int only_h;	   /* a plan over h alone: the control that never sweeps w */
	int storage_order; /* a plan taken from storage order (DEBUG.md #22) */
	int seen_rank[8], n_seen;
	size_t seen_width[64];
} fctx;

/* Axis names in canonical order, or in storage order when asked to get it wrong. */
static int axes_of(const td_lattice *lat, const fctx *c, const char **names)
{
	int order[TD_LATTICE_MAX_RANK], rank = td_axial_order(lat, order);

	for (int i = 0; i < rank; i++)
		names[i] = td_lattice_axis_name(lat, c->storage_order ? i : order[i]);
	return rank;
}

static int factory(td_model **out, const td_check_shape *s, void *vctx)
{
	fctx *c = vctx;
	td_model_opts o = TD_MODEL_OPTS_INIT;
	const char *names[TD_LATTICE_MAX_RANK];
	int rank = axes_of(s->lat, c, names), err;
	td_plan *plan = NULL;

	if (c->n_seen < 64) {
		c->seen_rank[c->n_seen % 8] = td_lattice_rank(s->lat);
		c->seen_width[c->n_seen++] = s->width;
	}
	o.family = c->fam, o.mixer.kind = c->mx->kind;
	o.mixer.state = c->mx->state ? c->mx->state : o.mixer.state;
	o.mixer.kernel_size = c->mx->kernel_size ? c->mx->kernel_size : o.mixer.kernel_size;
	o.mixer.dilation = c->mx->dilation ? c->mx->dilation : o.mixer.dilation;
	o.mixer.heads = c->mx->heads, o.mixer.causal = c->mx->causal;
	o.in = s->in, o.width = s->width, o.out = s->out, o.max_batch = s->max_batch;
	o.chunk = 3;
	if (c->only_h)
		names[0] = "h", rank = 1;
	if (c->fam == TD_BLOCK_SCAN && c->storage_order) /* one sweep per axis, one way */
		err = td_plan_cyclic(&plan, names, rank, rank, NULL, 0);
	else if (c->fam == TD_BLOCK_SCAN)
		err = td_plan_cyclic(&plan, names, rank, 2 * rank, names, rank);
	else
		err = 0, o.n_layers = 2;
	o.plan = plan;
	if (!err)
		err = td_model_new(out, s->lat, &o);
	td_plan_free(plan);
	return err;
}

/* The report, a line per print_message (it cuts a message at 1 KiB). */
static void print_report(const td_check_report *r)
{
	char *s, *line, *save = NULL;

	assert_int_equal(td_check_report_format(r, &s), 0);
	for (line = strtok_r(s, "\n", &save); line; line = strtok_r(NULL, "\n", &save))
		print_message("%s\n", line);
	free(s);
}

static const int ranks123[] = {1, 2, 3};

/*
 * The gradient results a full run must hold: one per (rank, density, time
 * variant), each ok. In a float build each is a skip that says why.
 */
static void assert_every_gradient_checked(const td_check_report *r, const char *what)
{
	static const char *const dens[] = {"dense", "sparse"};
	static const char *const times[] = {"no time axis", "time axis"};
	char where[64];

	for (int rank = 1; rank <= 3; rank++)
		for (int d = 0; d < 2; d++)
			for (int t = 0; t < 2; t++) {
				const td_check_result *g;

				snprintf(where, sizeof where, "rank %d, %s, %s", rank, dens[d],
					 times[t]);
				if (!(g = td_check_find(r, "gradient", where)))
					fail_msg("%s: no gradient check at %s", what, where);
#ifdef TD_REAL_DOUBLE
				if (g->status != TD_CHECK_OK)
					fail_msg("%s: gradient at %s: %s", what, where, g->why);
#else
				assert_int_equal(g->status, TD_CHECK_SKIP);
#endif
			}
}

/*
 * Runs the whole suite on one family with every mixer of the table at
 * ranks 1, 2 and 3, dense and sparse, with and without a time axis; fails
 * on any FAIL and on any configuration whose gradient was not checked.
 */
static void suite(td_block_family fam)
{
	static const char *const family_name[] = {"", "scan", "kernel", "flatten"};

	for (size_t k = 0; k < N_MIXERS; k++) {
		fctx c = {fam, &mixers[k], 0, 0, {0}, 0, {0}};
		td_check_opts o = TD_CHECK_OPTS_INIT;
		td_check_report r = TD_CHECK_REPORT_INIT;
		char what[64];

		snprintf(what, sizeof what, "%s family, mixer %s", family_name[fam],
			 mixers[k].name);
		o.ranks = ranks123, o.n_ranks = 3, o.width = SUITE_WIDTH;
		assert_int_equal(td_check_block(&r, factory, &c, &o), 0);
		if (r.n_fail) {
			print_report(&r);
			fail_msg("%s: %d checks failed", what, r.n_fail);
		}
		assert_true(r.n_ok > 0);
		assert_every_gradient_checked(&r, what);
		td_check_report_free(&r);
	}
}

static void test_every_scan_model_passes_the_conformance_suite(void **state)
{
	(void)state;
	suite(TD_BLOCK_SCAN);
}

static void test_every_kernel_model_passes_the_conformance_suite(void **state)
{
	(void)state;
	suite(TD_BLOCK_KERNEL);
}

static void test_every_flatten_model_passes_the_conformance_suite(void **state)
{
	(void)state;
	suite(TD_BLOCK_FLATTEN);
}

static void test_checks_run_only_at_the_ranks_and_width_asked_for(void **state)
{
	static const int two[] = {2};
	fctx c = {TD_BLOCK_SCAN, LRU, 0, 0, {0}, 0, {0}};
	td_check_opts o = TD_CHECK_OPTS_INIT;
	td_check_report r = TD_CHECK_REPORT_INIT;
	const td_check_result *eq;

	(void)state;
	o.ranks = two, o.n_ranks = 1, o.width = 6, o.densities = TD_CHECK_SPARSE;
	assert_int_equal(td_check_block(&r, factory, &c, &o), 0);
	assert_true(c.n_seen > 0);
	for (int i = 0; i < c.n_seen && i < 8; i++)
		if (c.seen_rank[i] != 2)
			fail_msg("the factory was asked for rank %d; only rank 2 was requested",
				 c.seen_rank[i]);
	for (int i = 0; i < c.n_seen; i++)
		assert_int_equal(c.seen_width[i], 6);
	for (size_t i = 0; i < r.n; i++)
		if (!strstr(r.v[i].where, "rank 2, sparse") && r.v[i].where[0])
			fail_msg("a result for %s, which was not requested", r.v[i].where);
	eq = td_check_find(&r, "rank1", "");
	assert_non_null(eq);
	assert_int_equal(eq->status, TD_CHECK_SKIP);
	assert_non_null(strstr(eq->why, "rank 1 was not requested"));
	td_check_report_free(&r);
}

static void test_a_skip_is_reported_as_a_skip_never_as_a_pass(void **state)
{
	static const int two[] = {2};
	fctx c = {TD_BLOCK_FLATTEN, LRU, 0, 0, {0}, 0, {0}};
	td_check_opts o = TD_CHECK_OPTS_INIT;
	td_check_report r = TD_CHECK_REPORT_INIT;
	const td_check_result *g, *a;
	char *text;
	int ok = 0, fail = 0, skip = 0;

	(void)state;
	o.ranks = two, o.n_ranks = 1, o.densities = TD_CHECK_DENSE, o.times = TD_CHECK_NO_TIME;
	assert_int_equal(td_check_block(&r, factory, &c, &o), 0);
	a = td_check_find(&r, "absent", "rank 2, dense, no time axis");
	assert_non_null(a); /* a dense lattice has nothing absent: a skip, with why */
	assert_int_equal(a->status, TD_CHECK_SKIP);
	assert_non_null(strstr(a->why, "dense"));
	g = td_check_find(&r, "gradient", "");
	assert_non_null(g);
#ifdef TD_REAL_DOUBLE
	assert_int_equal(g->status, TD_CHECK_OK);
#else
	assert_int_equal(g->status, TD_CHECK_SKIP);
	assert_non_null(strstr(g->why, "double"));
#endif
	for (size_t i = 0; i < r.n; i++)
		ok += r.v[i].status == TD_CHECK_OK, fail += r.v[i].status == TD_CHECK_FAIL,
		    skip += r.v[i].status == TD_CHECK_SKIP;
	assert_int_equal(ok, r.n_ok), assert_int_equal(fail, r.n_fail);
	assert_int_equal(skip, r.n_skip);
	assert_int_equal(td_check_report_format(&r, &text), 0);
	assert_non_null(strstr(text, "[skip] absent"));
	free(text);
	td_check_report_free(&r);
}

static void test_the_suite_catches_a_schedule_taken_from_storage_order(void **state)
{
	static const int two[] = {2};
	fctx c = {TD_BLOCK_SCAN, LRU, 0, 1, {0}, 0, {0}};
	td_check_opts o = TD_CHECK_OPTS_INIT;
	td_check_report r = TD_CHECK_REPORT_INIT;
	const td_check_result *cov;

	(void)state;
	o.ranks = two, o.n_ranks = 1, o.densities = TD_CHECK_DENSE, o.times = TD_CHECK_NO_TIME;
	assert_int_equal(td_check_block(&r, factory, &c, &o), 0);
	cov = td_check_find(&r, "covariance", "");
	assert_non_null(cov);
	if (cov->status != TD_CHECK_FAIL) {
		print_report(&r);
		fail_msg("a plan that follows storage order passed the covariance check");
	}
	td_check_report_free(&r);
}

static void test_bad_check_options_are_refused(void **state)
{
	static const int four[] = {4}, one[] = {1};
	fctx c = {TD_BLOCK_SCAN, LRU, 0, 0, {0}, 0, {0}};
	td_check_opts o = TD_CHECK_OPTS_INIT;
	td_check_report r = TD_CHECK_REPORT_INIT;

	(void)state;
	TD_ASSERT_REFUSED(td_check_block(&r, factory, &c, &o), TD_EINVAL, "no rank requested");
	o.ranks = four, o.n_ranks = 1;
	TD_ASSERT_REFUSED(td_check_block(&r, factory, &c, &o), TD_EINVAL, "rank 4");
	o.ranks = one, o.width = 0;
	TD_ASSERT_REFUSED(td_check_block(&r, factory, &c, &o), TD_EINVAL, "width is 0");
	o.width = 8, o.densities = 0;
	TD_ASSERT_REFUSED(td_check_block(&r, factory, &c, &o), TD_EINVAL, "no density");
	assert_int_equal(c.n_seen, 0);
	assert_int_equal(r.n, 0);
}

/* ---- trainability -------------------------------------------------------------- */

static void trainable(td_check_report *r, td_trainable_scores *s, int control_only_h)
{
	fctx m = {TD_BLOCK_SCAN, LRU, 0, 0, {0}, 0, {0}};
	fctx ctl = {TD_BLOCK_SCAN, LRU, control_only_h, 0, {0}, 0, {0}};
	td_trainable_opts o = TD_TRAINABLE_OPTS_INIT;

	assert_int_equal(td_check_trainable(r, s, factory, &m, factory, &ctl, &o), 0);
	print_message("  held-out error: model %.4f, control %.4f\n", s->model, s->control);
}

static void test_a_model_that_sweeps_w_learns_the_running_sum(void **state)
{
	td_check_report r = TD_CHECK_REPORT_INIT;
	td_trainable_scores s;

	(void)state;
	trainable(&r, &s, 1);
	if (r.n_fail) {
		print_report(&r);
		fail_msg("the trainability check failed");
	}
	assert_int_equal(td_check_find(&r, "trainable", "model")->status, TD_CHECK_OK);
	assert_true(s.model < 0.25);
	td_check_report_free(&r);
}

static void test_a_model_that_never_sweeps_the_needed_axis_cannot_learn_it(void **state)
{
	td_check_report r = TD_CHECK_REPORT_INIT;
	td_trainable_scores s;

	(void)state;
	trainable(&r, &s, 1);
	assert_true(s.control >= 0.25); /* the control fails, as it must */
	assert_int_equal(td_check_find(&r, "trainable", "control")->status, TD_CHECK_OK);
	td_check_report_free(&r);
}

static void test_the_trainable_check_fails_when_the_control_learns_too(void **state)
{
	td_check_report r = TD_CHECK_REPORT_INIT;
	td_trainable_scores s;

	(void)state;
	trainable(&r, &s, 0); /* the "control" sweeps w: it learns, so nothing is shown */
	assert_int_equal(td_check_find(&r, "trainable", "control")->status, TD_CHECK_FAIL);
	assert_true(r.n_fail > 0);
	td_check_report_free(&r);
}

static void test_training_draws_a_fresh_batch_every_step_and_never_the_held_out_one(void **state)
{
	enum { STEPS = 1000 };
	static uint8_t seen[STEPS + 2];
	td_real x0[16], y0[16], x1[16], y1[16];

	(void)state;
	memset(seen, 0, sizeof seen);
	for (int s = 0; s < STEPS; s++) {
		uint64_t i = td_check_train_index(s);

		assert_true(i != TD_CHECK_HELDOUT_INDEX);
		assert_true(i < STEPS + 2 && !seen[i]);
		seen[i] = 1;
	}
	td_check_task_batch(x0, y0, 1, 1, td_check_train_index(0));
	td_check_task_batch(x1, y1, 1, 1, td_check_train_index(1));
	assert_memory_not_equal(x0, x1, sizeof x0);
	td_check_task_batch(x1, y1, 1, 1, TD_CHECK_HELDOUT_INDEX);
	assert_memory_not_equal(x0, x1, sizeof x0);
}

static void test_the_task_target_is_the_running_sum_along_w(void **state)
{
	td_real x[32], y[32];
	td_lattice *lat;

	(void)state;
	assert_int_equal(td_check_task_lattice(&lat), 0);
	assert_string_equal(td_lattice_axis_name(lat, 1), "w");
	td_check_task_batch(x, y, 2, 9, 4);
	for (int b = 0; b < 2; b++)
		for (int h = 0; h < 4; h++)
			for (int w = 0; w < 4; w++) {
				double s = 0;

				for (int k = 0; k <= w; k++)
					s += (double)x[b * 16 + h * 4 + k];
				assert_float_equal((double)y[b * 16 + h * 4 + w], s, 1e-5);
			}
	td_lattice_free(lat);
}

static const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_every_scan_model_passes_the_conformance_suite),
    cmocka_unit_test(test_every_kernel_model_passes_the_conformance_suite),
    cmocka_unit_test(test_every_flatten_model_passes_the_conformance_suite),
    cmocka_unit_test(test_checks_run_only_at_the_ranks_and_width_asked_for),
    cmocka_unit_test(test_a_skip_is_reported_as_a_skip_never_as_a_pass),
    cmocka_unit_test(test_the_suite_catches_a_schedule_taken_from_storage_order),
    cmocka_unit_test(test_bad_check_options_are_refused),
    cmocka_unit_test(test_a_model_that_sweeps_w_learns_the_running_sum),
    cmocka_unit_test(test_a_model_that_never_sweeps_the_needed_axis_cannot_learn_it),
    cmocka_unit_test(test_the_trainable_check_fails_when_the_control_learns_too),
    cmocka_unit_test(test_training_draws_a_fresh_batch_every_step_and_never_the_held_out_one),
    cmocka_unit_test(test_the_task_target_is_the_running_sum_along_w),
};
TD_TEST_GROUP(check, tests);
