/*
 * test_plan.c - scan plans: the bidirectional schedule, immutability,
 * refusals and the printed table.
 *
 * What these tests guard: tdaudit mutate --list --file core/plan.c
 */
#include "tdtest.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../base/error.h"
#include "../core/plan.h"

static const char *const axes4[] = {"a", "b", "c", "d"};

/* Whether every axis of a cyclic plan over n axes sweeps both ways. */
static int every_axis_gets_both_directions(int n)
{
	td_plan *p;
	int seen[4][2] = {{0}};
	int ok = 1;

	assert_int_equal(td_plan_cyclic(&p, axes4, n, 2 * n, axes4, n), 0);
	for (int i = 0; i < td_plan_n_steps(p); i++) {
		td_plan_step s = td_plan_step_at(p, i);

		seen[s.axis[0] - 'a'][s.reverse] = 1;
	}
	for (int a = 0; a < n; a++)
		ok &= seen[a][0] && seen[a][1];
	td_plan_free(p);
	return ok;
}

static void test_bidirectional_cyclic_gives_every_axis_both_directions(void **state)
{
	int failed = 0;

	(void)state;
	for (int n = 1; n <= 4; n++)
		if (!every_axis_gets_both_directions(n)) {
			print_message("  %d axes: some axis is swept one way only\n", n);
			failed++;
		}
	assert_int_equal(failed, 0);
}

static void test_cyclic_cycles_axes_and_flips_once_per_cycle(void **state)
{
	static const char *const hw[] = {"h", "w"};
	static const char *const want_axis = "hwhwhwhw";
	static const int want_rev[] = {0, 0, 1, 1, 0, 0, 1, 1}; /* four cycles: odd ones flip */
	td_plan *p;

	(void)state;
	assert_int_equal(td_plan_cyclic(&p, hw, 2, 8, hw, 2), 0);
	for (int i = 0; i < 8; i++) {
		td_plan_step s = td_plan_step_at(p, i);

		assert_int_equal(s.axis[0], want_axis[i]);
		assert_int_equal(s.reverse, want_rev[i]);
	}
	td_plan_free(p);
}

static void test_only_bidirectional_axes_are_reversed(void **state)
{
	static const char *const hw[] = {"h", "w"}, *const w[] = {"w"};
	td_plan *p;

	(void)state;
	assert_int_equal(td_plan_cyclic(&p, hw, 2, 8, w, 1), 0);
	for (int i = 0; i < 8; i++) {
		td_plan_step s = td_plan_step_at(p, i);

		if (strcmp(s.axis, "h") == 0)
			assert_int_equal(s.reverse, 0);
	}
	assert_int_equal(td_plan_step_at(p, 3).reverse, 1); /* w, second cycle */
	td_plan_free(p);
}

static void test_cyclic_builds_exactly_the_layers_asked_for(void **state)
{
	(void)state;
	for (int layers = 1; layers <= 9; layers++) {
		td_plan *p;

		assert_int_equal(td_plan_cyclic(&p, axes4, 3, layers, NULL, 0), 0);
		assert_int_equal(td_plan_n_steps(p), layers);
		assert_null(td_plan_step_at(p, layers).axis);
		assert_int_equal(td_plan_step_at(p, layers).reverse, 0);
		assert_null(td_plan_step_at(p, -1).axis);
		assert_int_equal(td_plan_step_at(p, -1).reverse, 0);
		td_plan_free(p);
	}
}

static void test_paired_sweeps_each_axis_forward_then_backward(void **state)
{
	td_plan *p;
	char *table;

	(void)state;
	assert_int_equal(td_plan_paired(&p, axes4, 2, 2), 0);
	assert_int_equal(td_plan_n_steps(p), 8);
	assert_int_equal(td_plan_format(p, &table), 0);
	assert_string_equal(table, "step  axis  direction\n"
				   "   0  a     forward\n"
				   "   1  a     backward\n"
				   "   2  b     forward\n"
				   "   3  b     backward\n"
				   "   4  a     forward\n"
				   "   5  a     backward\n"
				   "   6  b     forward\n"
				   "   7  b     backward\n");
	free(table);
	td_plan_free(p);
}

/*
 * The table whole for names of the longest length allowed: its buffer was
 * sized for 63-character names plus 32 per step and 32 in all, while a
 * line takes the name's column and 18 more, so a plan of 1 to 3 steps
 * over such an axis lost the end of its last line.
 */
static void test_a_plans_table_is_whole_with_the_longest_axis_names(void **state)
{
	char name[TD_AXIS_NAME_MAX + 1], want[1024];
	const char *names[] = {name};

	(void)state;
	memset(name, 'n', TD_AXIS_NAME_MAX);
	name[TD_AXIS_NAME_MAX] = '\0';
	for (int steps = 1; steps <= 4; steps++) {
		td_plan *p;
		char *table;
		int len = snprintf(want, sizeof want, "step  %-*s  direction\n", TD_AXIS_NAME_MAX,
				   "axis");

		for (int i = 0; i < steps; i++)
			len += snprintf(want + len, sizeof want - (size_t)len, "%4d  %s  %s\n", i, name,
					i % 2 ? "backward" : "forward");
		assert_int_equal(td_plan_cyclic(&p, names, 1, steps, names, 1), 0);
		assert_int_equal(td_plan_format(p, &table), 0);
		assert_string_equal(table, want);
		free(table);
		td_plan_free(p);
	}
}

static void test_a_plan_copies_the_axis_names_it_is_given(void **state)
{
	char h[] = "height", w[] = "width";
	const char *names[] = {h, w};
	td_plan *p;

	(void)state;
	assert_int_equal(td_plan_cyclic(&p, names, 2, 4, names, 2), 0);
	strcpy(h, "XXXXXX"); /* the caller reuses its buffers */
	strcpy(w, "YYYYY");
	assert_string_equal(td_plan_step_at(p, 0).axis, "height");
	assert_string_equal(td_plan_step_at(p, 3).axis, "width");
	td_plan_free(p);
}

static void test_bad_plans_are_refused_with_a_message(void **state)
{
	static const char *const dup[] = {"h", "h"}, *const z[] = {"z"}, *const empty[] = {""};
	td_plan *p = (td_plan *)&p; /* must come back NULL */

	(void)state;
	TD_ASSERT_REFUSED(td_plan_cyclic(&p, axes4, 2, 0, NULL, 0), TD_EINVAL, "n_layers is 0");
	assert_null(p);
	TD_ASSERT_REFUSED(td_plan_cyclic(&p, axes4, 0, 2, NULL, 0), TD_EINVAL, "got 0");
	TD_ASSERT_REFUSED(td_plan_cyclic(&p, dup, 2, 2, NULL, 0), TD_EINVAL, "'h' is listed twice");
	TD_ASSERT_REFUSED(td_plan_cyclic(&p, axes4, 2, 2, z, 1), TD_EINVAL,
			  "bidirectional axis 'z' is not one of the plan's 2 axes");
	TD_ASSERT_REFUSED(td_plan_cyclic(&p, empty, 1, 2, NULL, 0), TD_EINVAL, "empty");
	TD_ASSERT_REFUSED(td_plan_paired(&p, axes4, 2, 0), TD_EINVAL, "repeats is 0");
	assert_null(p);
	TD_ASSERT_REFUSED(td_plan_cyclic(&p, NULL, 2, 2, NULL, 0), TD_EINVAL, "got 2");
	TD_ASSERT_REFUSED(td_plan_cyclic(&p, axes4, 2, 2, NULL, 1), TD_EINVAL,
			  "bidirectional axis '(null)'");
	assert_int_equal(td_plan_paired(&p, axes4, 2, 1), 0); /* the fewest repeats */
	assert_int_equal(td_plan_n_steps(p), 4);
	td_plan_free(p);
}

/* The limits themselves are allowed, one past them refused, whichever way the steps are counted. */
static void test_a_plan_takes_the_most_axes_and_steps_and_refuses_one_more(void **state)
{
	static const char *const names[] = {"a", "b", "c", "d", "e", "f", "g", "h", "i"};
	static const char *const z[] = {"z"};
	char long_name[TD_AXIS_NAME_MAX + 2], *table;
	const char *too_long[] = {long_name};
	td_plan *p;

	(void)state;
	assert_int_equal((int)(sizeof names / sizeof *names), TD_PLAN_MAX_AXES + 1);
	assert_int_equal(td_plan_cyclic(&p, names, TD_PLAN_MAX_AXES, TD_PLAN_MAX_STEPS, NULL, 0), 0);
	assert_int_equal(td_plan_n_steps(p), TD_PLAN_MAX_STEPS);
	assert_string_equal(td_plan_step_at(p, TD_PLAN_MAX_AXES - 1).axis, "h");
	assert_int_equal(td_plan_format(p, &table), 0); /* every axis's name read, none past them */
	assert_non_null(strstr(table, "4095  h     forward\n"));
	free(table);
	td_plan_free(p);
	TD_ASSERT_REFUSED(td_plan_cyclic(&p, names, TD_PLAN_MAX_AXES + 1, 2, NULL, 0), TD_EINVAL,
			  "got 9");
	TD_ASSERT_REFUSED(td_plan_cyclic(&p, names, 2, TD_PLAN_MAX_STEPS + 1, NULL, 0), TD_EINVAL,
			  "would have 4097");
	assert_int_equal(td_plan_paired(&p, names, TD_PLAN_MAX_AXES, 256), 0); /* 2 x 8 x 256 */
	assert_int_equal(td_plan_n_steps(p), TD_PLAN_MAX_STEPS);
	td_plan_free(p);
	TD_ASSERT_REFUSED(td_plan_paired(&p, names, TD_PLAN_MAX_AXES, 257), TD_EINVAL,
			  "would have 4112");
	/* a bidirectional axis looked for among all of them, and not found */
	TD_ASSERT_REFUSED(td_plan_cyclic(&p, names, TD_PLAN_MAX_AXES, 2, z, 1), TD_EINVAL,
			  "'z' is not one of the plan's 8 axes");
	/* spelled as the bytes after the last name (the step count, 2, on a little-endian machine) */
	TD_ASSERT_REFUSED(td_plan_cyclic(&p, names, TD_PLAN_MAX_AXES, 2, (const char *const[]){"\x02"}, 1),
			  TD_EINVAL, "is not one of the plan's 8 axes");
	memset(long_name, 'n', TD_AXIS_NAME_MAX + 1);
	long_name[TD_AXIS_NAME_MAX + 1] = '\0';
	TD_ASSERT_REFUSED(td_plan_cyclic(&p, too_long, 1, 1, NULL, 0), TD_EINVAL,
			  "longer than 63 characters");
	long_name[TD_AXIS_NAME_MAX] = '\0'; /* the longest allowed */
	assert_int_equal(td_plan_cyclic(&p, too_long, 1, 1, NULL, 0), 0);
	td_plan_free(p);
}

static void test_a_plan_over_an_axis_the_lattice_lacks_is_refused(void **state)
{
	static const size_t shape[] = {4, 4};
	static const char *const hw[] = {"h", "w"}, *const hz[] = {"h", "z"}, *const zw[] = {"z", "w"};
	td_lattice_spec s = TD_LATTICE_SPEC_INIT;
	td_lattice *lat;
	td_plan *good, *bad;

	(void)state;
	s.rank = 2, s.shape = shape, s.names = hw;
	assert_int_equal(td_lattice_new(&lat, &s), 0);
	assert_int_equal(td_plan_cyclic(&good, hw, 2, 2, NULL, 0), 0);
	assert_int_equal(td_plan_cyclic(&bad, hz, 2, 2, NULL, 0), 0);
	assert_int_equal(td_plan_check(good, lat), 0);
	TD_ASSERT_REFUSED(td_plan_check(bad, lat), TD_EINVAL, "axis 'z'");
	td_plan_free(bad);
	assert_int_equal(td_plan_cyclic(&bad, zw, 2, 2, NULL, 0), 0); /* the first axis is checked too */
	TD_ASSERT_REFUSED(td_plan_check(bad, lat), TD_EINVAL, "axis 'z'");
	td_plan_free(good);
	td_plan_free(bad);
	td_lattice_free(lat);
}

static const struct CMUnitTest tests[] = {
	cmocka_unit_test(test_bidirectional_cyclic_gives_every_axis_both_directions),
	cmocka_unit_test(test_cyclic_cycles_axes_and_flips_once_per_cycle),
	cmocka_unit_test(test_only_bidirectional_axes_are_reversed),
	cmocka_unit_test(test_cyclic_builds_exactly_the_layers_asked_for),
	cmocka_unit_test(test_paired_sweeps_each_axis_forward_then_backward),
	cmocka_unit_test(test_a_plans_table_is_whole_with_the_longest_axis_names),
	cmocka_unit_test(test_a_plan_copies_the_axis_names_it_is_given),
	cmocka_unit_test(test_bad_plans_are_refused_with_a_message),
	cmocka_unit_test(test_a_plan_takes_the_most_axes_and_steps_and_refuses_one_more),
	cmocka_unit_test(test_a_plan_over_an_axis_the_lattice_lacks_is_refused),
};
TD_TEST_GROUP(plan, tests);
