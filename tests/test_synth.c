/*
 * test_synth.c - synthetic families: purity, the label rules (the row task's
 * label depends on h only), disjoint and checked train/eval ranges, batches
 * and series splits that refuse what cannot be meant.
 *
 * What these tests guard: tdaudit mutate --list --file core/synth.c
 */
#include "tdtest.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../base/error.h"
#include "../core/lattice.h"
#include "../core/synth.h"

static td_synth_example *gen(td_synth_family f, uint64_t seed, uint64_t index)
{
	td_synth_example *ex;

	if (td_synth_example_new(&ex, f, seed, index) != 0)
		fail_msg("generating %d/%llu/%llu: %s", (int)f, (unsigned long long)seed,
			 (unsigned long long)index, td_error_last());
	return ex;
}

/* Whether a and b are bitwise the same example, id aside. */
static int same_content(const td_synth_example *a, const td_synth_example *b)
{
	return a->n_cells == b->n_cells && a->n_times == b->n_times &&
	       memcmp(a->x, b->x, a->n_cells * sizeof *a->x) == 0 &&
	       memcmp(a->mask, b->mask, a->n_cells) == 0 &&
	       (!a->n_times || memcmp(a->times, b->times, a->n_times * sizeof *a->times) == 0) &&
	       a->has_target == b->has_target && a->target == b->target;
}

static void test_an_example_is_a_pure_function_of_family_seed_and_index(void **state)
{
	(void)state;
	for (int f = 0; f < TD_SYNTH_N_FAMILIES; f++) {
		td_synth_example *a = gen((td_synth_family)f, 3, 17),
				 *b = gen((td_synth_family)f, 3, 17);
		td_synth_example *s = gen((td_synth_family)f, 4, 17),
				 *i = gen((td_synth_family)f, 3, 18);

		assert_true(same_content(a, b));
		assert_true(td_synth_content_hash(a) == td_synth_content_hash(b));
		assert_memory_not_equal(a->x, s->x, a->n_cells * sizeof *a->x);
		assert_memory_not_equal(a->x, i->x, a->n_cells * sizeof *a->x);
		assert_true(td_synth_content_hash(a) != td_synth_content_hash(s));
		td_synth_example_free(a);
		td_synth_example_free(b);
		td_synth_example_free(s);
		td_synth_example_free(i);
	}
	td_synth_example_free(NULL);
}

/* Checks the rule and the shape of n examples of f; every class must occur. */
static void check_family(td_synth_family f, size_t n)
{
	const td_synth_info *info = td_synth_info_of(f);
	int seen[16] = {0};
	size_t absent = 0, cells = 0;

	for (size_t k = 0; k < n; k++) {
		td_synth_example *ex = gen(f, 1, k);
		int y;

		assert_int_equal(td_synth_label(&y, f, ex->x, ex->mask), 0);
		assert_int_equal(ex->target, y);
		assert_true(ex->has_target && y >= 0 && y < info->n_classes);
		seen[y] = 1;
		for (size_t c = 0; c < ex->n_cells; c++) {
			absent += !ex->mask[c];
			if (!ex->mask[c])
				assert_true(ex->x[c] == 0);
		}
		cells += ex->n_cells;
		for (size_t t = 1; t < ex->n_times; t++)
			assert_true(ex->times[t] > ex->times[t - 1]);
		td_synth_example_free(ex);
	}
	for (int c = 0; c < info->n_classes; c++)
		if (!seen[c])
			fail_msg("family %s: class %d never occurs in %zu examples", info->name, c,
				 n);
	if (f == TD_SYNTH_ABSENT && fabs((double)absent / (double)cells - 0.3) > 0.03)
		fail_msg("family absent: %zu of %zu cells absent, not about 30%%", absent, cells);
	if (f != TD_SYNTH_ABSENT)
		assert_int_equal(absent, 0);
}

static void test_generated_targets_follow_each_family_rule(void **state)
{
	(void)state;
	check_family(TD_SYNTH_ROW, 200);
	check_family(TD_SYNTH_ABSENT, 200);
	check_family(TD_SYNTH_TIME, 200);
}

/* y = x with its axis-`axis` index mapped by perm (8x8). */
static void permute(td_real *y, const td_real *x, int axis, const size_t perm[8])
{
	for (size_t h = 0; h < 8; h++)
		for (size_t w = 0; w < 8; w++)
			y[(axis == 0 ? perm[h] : h) * 8 + (axis == 1 ? perm[w] : w)] = x[h * 8 + w];
}

static void test_the_row_label_depends_on_the_h_axis_only(void **state)
{
	static const size_t perm[8] = {3, 7, 0, 5, 1, 6, 2, 4}; /* no fixed point */
	td_real y[64];
	int label;

	(void)state;
	for (uint64_t k = 0; k < 100; k++) {
		td_synth_example *ex = gen(TD_SYNTH_ROW, 2, k);

		permute(y, ex->x, 1, perm); /* shuffle w: the label stays */
		assert_int_equal(td_synth_label(&label, TD_SYNTH_ROW, y, NULL), 0);
		assert_int_equal(label, ex->target);
		permute(y, ex->x, 0, perm); /* shuffle h: the label follows its row */
		assert_int_equal(td_synth_label(&label, TD_SYNTH_ROW, y, NULL), 0);
		assert_int_equal(label, (int)perm[ex->target]);
		td_synth_example_free(ex);
	}
}

static void test_absent_cells_cannot_change_the_absent_label(void **state)
{
	td_real y[64];
	int label;

	(void)state;
	for (uint64_t k = 0; k < 100; k++) {
		td_synth_example *ex = gen(TD_SYNTH_ABSENT, 2, k);

		for (size_t c = 0; c < 64; c++)
			y[c] =
			    ex->mask[c] ? ex->x[c] : (td_real)(5 + c); /* larger than any present */
		assert_int_equal(td_synth_label(&label, TD_SYNTH_ABSENT, y, ex->mask), 0);
		assert_int_equal(label, ex->target);
		td_synth_example_free(ex);
	}
}

static void test_training_and_evaluation_ranges_are_disjoint_and_pass_the_check(void **state)
{
	td_synth_range train, eval;

	(void)state;
	assert_int_equal(td_synth_ranges(&train, &eval, 500, 200), 0);
	assert_true(train.first + train.count <= eval.first ||
		    eval.first + eval.count <= train.first);
	for (int f = 0; f < TD_SYNTH_N_FAMILIES; f++)
		assert_int_equal(td_synth_check_split((td_synth_family)f, 1, train, eval), 0);
	TD_ASSERT_REFUSED(td_synth_ranges(&train, &eval, TD_SYNTH_EVAL_FIRST + 1, 1), TD_EINVAL,
			  "would run into the evaluation range");
	TD_ASSERT_REFUSED(td_synth_ranges(&train, &eval, 5, 0), TD_EINVAL, "at least 1");
}

static void test_overlapping_ranges_are_refused_naming_both_ids(void **state)
{
	const td_synth_range train = {0, 500}, eval = {450, 100}, before = {0, 10};
	const td_synth_range after = {5, 100};

	(void)state;
	TD_ASSERT_REFUSED(
	    td_synth_check_split(TD_SYNTH_ROW, 1, train, eval), TD_EINVAL,
	    "training example row:1:450 and evaluation example row:1:450 are the same example: "
	    "the ranges [0, +500) and [450, +100) overlap");
	TD_ASSERT_REFUSED(
	    td_synth_check_split(TD_SYNTH_TIME, 9, after, before), TD_EINVAL,
	    "training example time:9:5 and evaluation example time:9:5 are the same example: "
	    "the ranges [5, +100) and [0, +10) overlap");
}

static void test_a_copied_example_under_another_id_is_refused_by_content(void **state)
{
	td_synth_example *train[10], *eval[10], *copy;

	(void)state;
	for (uint64_t k = 0; k < 10; k++) {
		train[k] = gen(TD_SYNTH_ABSENT, 1, k);
		eval[k] = gen(TD_SYNTH_ABSENT, 1, TD_SYNTH_EVAL_FIRST + k);
	}
	assert_int_equal(td_synth_check_disjoint((const td_synth_example *const *)train, 10,
						 (const td_synth_example *const *)eval, 10),
			 0);
	copy = eval[3]; /* eval[3] becomes train[5]'s content under eval[3]'s id */
	memcpy(copy->x, train[5]->x, copy->n_cells * sizeof *copy->x);
	memcpy(copy->mask, train[5]->mask, copy->n_cells);
	copy->target = train[5]->target;
	TD_ASSERT_REFUSED(
	    td_synth_check_disjoint((const td_synth_example *const *)train, 10,
				    (const td_synth_example *const *)eval, 10),
	    TD_EINVAL,
	    "absent:1:5 and evaluation example absent:1:1099511627779 have the same content");
	copy->index = 7; /* and now the same id as train[7] */
	TD_ASSERT_REFUSED(td_synth_check_disjoint((const td_synth_example *const *)train, 10,
						  (const td_synth_example *const *)eval, 10),
			  TD_EINVAL,
			  "absent:1:7 and evaluation example absent:1:7 are the same example");
	for (int k = 0; k < 10; k++) {
		td_synth_example_free(train[k]);
		td_synth_example_free(eval[k]);
	}
}

static void test_a_batch_refuses_examples_that_disagree_on_carrying_a_target(void **state)
{
	td_synth_example *ex[3] = {gen(TD_SYNTH_TIME, 1, 0), gen(TD_SYNTH_TIME, 1, 1),
				   gen(TD_SYNTH_TIME, 1, 2)};
	td_synth_example *row = gen(TD_SYNTH_ROW, 1, 0);
	const td_synth_example *mixed[2] = {ex[0], row};
	td_synth_batch *b = (td_synth_batch *)1;

	(void)state;
	assert_int_equal(td_synth_batch_new(&b, (const td_synth_example *const *)ex, 3), 0);
	assert_true(b->has_target && b->target[2] == ex[2]->target && b->index[1] == 1);
	assert_memory_equal(b->x + 2 * b->n_cells, ex[2]->x, b->n_cells * sizeof *b->x);
	assert_memory_equal(b->times + b->n_times, ex[1]->times, b->n_times * sizeof *b->times);
	td_synth_batch_free(b);
	ex[1]->has_target = 0;
	TD_ASSERT_REFUSED(
	    td_synth_batch_new(&b, (const td_synth_example *const *)ex, 3), TD_EINVAL,
	    "example 0 (time:1:0) carries a target but example 1 (time:1:1) does not");
	assert_null(b);
	ex[0]->has_target = ex[2]->has_target = 0; /* all unlabelled is a batch */
	assert_int_equal(td_synth_batch_new(&b, (const td_synth_example *const *)ex, 3), 0);
	assert_true(!b->has_target && !b->target);
	td_synth_batch_free(b);
	TD_ASSERT_REFUSED(td_synth_batch_new(&b, mixed, 2), TD_EINVAL, "differ in family or size");
	TD_ASSERT_REFUSED(td_synth_batch_new(&b, mixed, 0), TD_EINVAL, "at least one example");
	for (int k = 0; k < 3; k++)
		td_synth_example_free(ex[k]);
	td_synth_example_free(row);
	td_synth_batch_free(NULL);
}

static void test_splitting_a_series_at_a_time_refuses_unsorted_times(void **state)
{
	td_synth_example *ex = gen(TD_SYNTH_TIME, 1, 4);
	double times[16];
	size_t k;

	(void)state;
	assert_int_equal(td_synth_split_at_time(&k, ex->times, ex->n_times, 5.0), 0);
	assert_int_equal(k, 5); /* times[i] is in [i, i + 0.5) */
	assert_int_equal(td_synth_split_at_time(&k, ex->times, ex->n_times, -1), 0);
	assert_int_equal(k, 0);
	assert_int_equal(td_synth_split_at_time(&k, ex->times, ex->n_times, 100), 0);
	assert_int_equal(k, 16);
	memcpy(times, ex->times, sizeof times);
	times[9] = ex->times[10], times[10] = ex->times[9];
	TD_ASSERT_REFUSED(td_synth_split_at_time(&k, times, 16, 5.0), TD_EINVAL,
			  "times are not strictly increasing: time 10 is");
	times[10] = times[9];
	TD_ASSERT_REFUSED(td_synth_split_at_time(&k, times, 16, 5.0), TD_EINVAL, "time 10");
	TD_ASSERT_REFUSED(td_synth_split_at_time(&k, ex->times, 16, NAN), TD_EINVAL, "NaN");
	td_synth_example_free(ex);
}

static void test_an_example_lattice_carries_its_mask_and_time_axis(void **state)
{
	td_synth_example *a = gen(TD_SYNTH_ABSENT, 3, 1), *t = gen(TD_SYNTH_TIME, 3, 1);
	td_lattice *la, *lt;
	size_t present = 0;

	(void)state;
	for (size_t c = 0; c < a->n_cells; c++)
		present += a->mask[c];
	assert_int_equal(td_synth_example_lattice(&la, a), 0);
	assert_int_equal(td_lattice_n_present(la), present);
	assert_true(present < a->n_cells);
	assert_int_equal(td_synth_example_lattice(&lt, t), 0);
	assert_int_equal(td_lattice_time_axis(lt), 0);
	assert_string_equal(td_lattice_axis_name(lt, 0), "t");
	td_lattice_free(la);
	td_lattice_free(lt);
	td_synth_example_free(a);
	td_synth_example_free(t);
}

static void test_family_names_resolve_and_bad_requests_are_refused(void **state)
{
	td_synth_family f;
	td_synth_example *ex = (td_synth_example *)1;

	(void)state;
	for (int k = 0; k < TD_SYNTH_N_FAMILIES; k++) {
		assert_int_equal(
		    td_synth_family_named(&f, td_synth_info_of((td_synth_family)k)->name), 0);
		assert_int_equal(f, k);
	}
	assert_null(td_synth_info_of(TD_SYNTH_N_FAMILIES));
	TD_ASSERT_REFUSED(td_synth_family_named(&f, "rows"), TD_EINVAL, "row, absent, time");
	TD_ASSERT_REFUSED(td_synth_example_new(&ex, TD_SYNTH_ROW, 1, TD_SYNTH_INDEX_LIMIT),
			  TD_EINVAL, "2^48");
	assert_null(ex);
}

static const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_an_example_is_a_pure_function_of_family_seed_and_index),
    cmocka_unit_test(test_generated_targets_follow_each_family_rule),
    cmocka_unit_test(test_the_row_label_depends_on_the_h_axis_only),
    cmocka_unit_test(test_absent_cells_cannot_change_the_absent_label),
    cmocka_unit_test(test_training_and_evaluation_ranges_are_disjoint_and_pass_the_check),
    cmocka_unit_test(test_overlapping_ranges_are_refused_naming_both_ids),
    cmocka_unit_test(test_a_copied_example_under_another_id_is_refused_by_content),
    cmocka_unit_test(test_a_batch_refuses_examples_that_disagree_on_carrying_a_target),
    cmocka_unit_test(test_splitting_a_series_at_a_time_refuses_unsorted_times),
    cmocka_unit_test(test_an_example_lattice_carries_its_mask_and_time_axis),
    cmocka_unit_test(test_family_names_resolve_and_bad_requests_are_refused),
};

TD_TEST_GROUP(synth, tests);
