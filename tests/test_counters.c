/*
 * test_counters.c - counters carry their reason into both log forms, and
 * the NaN firewall stops a run after two log windows without a finite step.
 *
 * What these tests guard: tdaudit mutate --list --file core/counters.c
 *   and --list --file core/adamw.c
 *
 * Edits seen breaking these tests that the catalogue may not hold:
 *   - td_counter_add() without the empty-why check
 *       -> a_count_without_a_reason_or_a_plain_name_is_refused
 *   - remember() without the duplicate check
 *       -> distinct_reasons_are_kept_up_to_the_limit_and_the_rest_counted
 */
#include "tdtest.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../core/adamw.h"
#include "../core/counters.h"
#include "../base/error.h"
#include "../core/jsonl.h"

static void test_a_counters_reason_appears_in_both_the_text_line_and_the_json(void **state)
{
	td_json_buf line = TD_JSON_BUF_INIT, json = TD_JSON_BUF_INIT;
	td_counters *c;

	(void)state;
	assert_int_equal(td_counters_new(&c, 4), 0);
	assert_int_equal(td_counter_add(c, "nan_step_skipped", "grad norm inf at step 37"), 0);
	assert_int_equal(td_counter_add(c, "eval_fallback", "no \"accuracy\" for a regression"), 0);
	assert_int_equal(td_counter_addf(c, "nan_step_skipped", "grad norm %s at step %d", "nan", 40),
			 0);
	assert_int_equal(td_counters_line(&line, c), 0);
	assert_string_equal(line.s, "eval_fallback=1 (why: no \"accuracy\" for a regression) "
				    "nan_step_skipped=2 (why: grad norm inf at step 37; grad norm "
				    "nan at step 40)");
	assert_int_equal(td_counters_json(&json, c), 0);
	assert_string_equal(json.s,
			    "{\"eval_fallback\":{\"count\":1,\"why\":[\"no \\\"accuracy\\\" for a "
			    "regression\"]},\"nan_step_skipped\":{\"count\":2,\"why\":[\"grad norm inf "
			    "at step 37\",\"grad norm nan at step 40\"]}}");
	assert_int_equal(td_counter_get(c, "nan_step_skipped"), 2);
	assert_int_equal(td_counter_get(c, "never_added"), 0);
	td_counters_reset(c);
	td_json_buf_clear(&line), td_json_buf_clear(&json);
	assert_int_equal(td_counters_line(&line, c), 0);
	assert_int_equal(td_counters_json(&json, c), 0);
	assert_string_equal(line.s, "");
	assert_string_equal(json.s, "{}");
	td_json_buf_free(&line), td_json_buf_free(&json);
	td_counters_free(c);
}

static void test_a_count_without_a_reason_or_a_plain_name_is_refused(void **state)
{
	td_counters *c, *none;

	(void)state;
	assert_int_equal(td_counters_new(&c, 1), 0);
	TD_ASSERT_REFUSED(td_counter_add(c, "skipped", ""), TD_EINVAL, "without a reason");
	TD_ASSERT_REFUSED(td_counter_add(c, "skipped", NULL), TD_EINVAL, "without a reason");
	TD_ASSERT_REFUSED(td_counter_add(c, "Skipped", "x"), TD_EINVAL, "'Skipped'");
	TD_ASSERT_REFUSED(td_counter_add(c, "a b", "x"), TD_EINVAL, "[a-z0-9_]");
	assert_int_equal(td_counter_get(c, "skipped"), 0);
	assert_int_equal(td_counter_add(c, "one", "x"), 0);
	TD_ASSERT_REFUSED(td_counter_add(c, "two", "x"), TD_ESTATE, "all 1 counter slots");
	TD_ASSERT_REFUSED(td_counters_new(&none, 0), TD_EINVAL, "max_counters is 0");
	assert_null(none);
	td_counters_free(c);
	td_counters_free(NULL);
}

static void test_distinct_reasons_are_kept_up_to_the_limit_and_the_rest_counted(void **state)
{
	td_json_buf line = TD_JSON_BUF_INIT, json = TD_JSON_BUF_INIT;
	char long_why[400];
	td_counters *c;

	(void)state;
	assert_int_equal(td_counters_new(&c, 2), 0);
	for (int k = 0; k < 6; k++)
		assert_int_equal(td_counter_addf(c, "skip", "r%d", k), 0);
	assert_int_equal(td_counter_add(c, "skip", "r0"), 0); /* seen before: not a new reason */
	assert_int_equal(td_counter_get(c, "skip"), 7);
	assert_string_equal(td_counter_why(c, "skip", 3), "r3");
	assert_null(td_counter_why(c, "skip", 4));
	assert_int_equal(td_counters_line(&line, c), 0);
	assert_string_equal(line.s, "skip=7 (why: r0; r1; r2; r3; +2 more)");
	assert_int_equal(td_counters_json(&json, c), 0);
	assert_string_equal(json.s,
			    "{\"skip\":{\"count\":7,\"why\":[\"r0\",\"r1\",\"r2\",\"r3\"],\"why_more\":2}}");
	memset(long_why, 'x', sizeof long_why - 1);
	long_why[sizeof long_why - 1] = '\0';
	assert_int_equal(td_counter_add(c, "long", long_why), 0);
	assert_int_equal(strlen(td_counter_why(c, "long", 0)), TD_COUNTER_WHY_MAX);
	assert_non_null(strstr(td_counter_why(c, "long", 0), "xx..."));
	td_json_buf_free(&line), td_json_buf_free(&json);
	td_counters_free(c);
}

/*
 * A name is 1 to TD_COUNTER_NAME_MAX bytes of [a-z0-9_], every end of each
 * range included: one byte and the longest name are taken, the empty name
 * and one byte more refused. Seen failing with valid_name's n == 0 made
 * n == 1, its || made &&, n > TD_COUNTER_NAME_MAX made >=, and each
 * bound of the three ranges moved one inward (>= made >, <= made <).
 */
static void test_a_name_of_every_edge_of_the_plain_bytes_is_taken(void **state)
{
	char longest[TD_COUNTER_NAME_MAX + 2];
	td_counters *c;

	(void)state;
	assert_int_equal(td_counters_new(&c, 4), 0);
	assert_int_equal(td_counter_add(c, "a", "x"), 0);
	assert_int_equal(td_counter_add(c, "z09_", "x"), 0);
	TD_ASSERT_REFUSED(td_counter_add(c, "", "x"), TD_EINVAL, "counter name ''");
	memset(longest, 'q', sizeof longest - 1);
	longest[sizeof longest - 1] = '\0';
	TD_ASSERT_REFUSED(td_counter_add(c, longest, "x"), TD_EINVAL, "is not 1-47 bytes");
	longest[TD_COUNTER_NAME_MAX] = '\0';
	assert_int_equal(td_counter_add(c, longest, "x"), 0);
	assert_int_equal(td_counter_get(c, longest), 1);
	assert_int_equal(td_counter_get(c, "a"), 1);
	assert_int_equal(td_counter_get(c, "z09_"), 1);
	td_counters_free(c);
}

/*
 * A reason of exactly TD_COUNTER_WHY_MAX bytes is kept whole, not cut.
 * Seen failing with copy_why's n <= TD_COUNTER_WHY_MAX made <.
 */
static void test_a_reason_of_the_longest_kept_length_is_kept_whole(void **state)
{
	char why[TD_COUNTER_WHY_MAX + 1];
	td_counters *c;

	(void)state;
	memset(why, 'y', sizeof why - 1);
	why[sizeof why - 1] = '\0';
	assert_int_equal(td_counters_new(&c, 1), 0);
	assert_int_equal(td_counter_add(c, "long", why), 0);
	assert_string_equal(td_counter_why(c, "long", 0), why);
	td_counters_free(c);
}

/*
 * Past the kept reasons, a new one is counted whatever its bytes, even a
 * reason of one byte 4, what the slot holds just past its kept reasons (the
 * count of them). Seen failing with remember's k < s->n_why made <=, which
 * compared the reason with those bytes too.
 */
static void test_a_reason_past_the_kept_ones_is_counted_whatever_its_bytes(void **state)
{
	td_json_buf json = TD_JSON_BUF_INIT;
	td_counters *c;

	(void)state;
	assert_int_equal(td_counters_new(&c, 1), 0);
	for (int k = 0; k < TD_COUNTER_WHY_KEEP; k++)
		assert_int_equal(td_counter_addf(c, "skip", "r%d", k), 0);
	assert_int_equal(td_counter_add(c, "skip", "\x04"), 0);
	assert_int_equal(td_counters_json(&json, c), 0);
	assert_non_null(strstr(json.s, "\"why_more\":1}"));
	td_json_buf_free(&json);
	td_counters_free(c);
}

/*
 * Counters inserted after others, at the end of a full set and between
 * two, keep the sorted order and every count; under the sanitizers, no
 * slot is moved past the set's room. Seen failing (ASan: heap overflow)
 * with get_slot's memmove of c->n - i slots made c->n + i.
 */
static void test_counters_inserted_in_any_order_fill_their_room_sorted(void **state)
{
	td_json_buf line = TD_JSON_BUF_INIT;
	td_counters *c;

	(void)state;
	assert_int_equal(td_counters_new(&c, 3), 0);
	assert_int_equal(td_counter_add(c, "a", "x"), 0);
	assert_int_equal(td_counter_add(c, "c", "y"), 0);
	assert_int_equal(td_counter_add(c, "b", "z"), 0);
	assert_int_equal(td_counters_line(&line, c), 0);
	assert_string_equal(line.s, "a=1 (why: x) b=1 (why: z) c=1 (why: y)");
	td_json_buf_free(&line);
	td_counters_free(c);
}

/*
 * A formatted reason is cut as a plain one is: one of the longest kept
 * length whole, a longer one to that length ending in "...". Seen failing
 * with td_counter_addf's buffer of TD_COUNTER_WHY_MAX + 1 bytes (the
 * longer reason was cut by vsnprintf, without the "..."), and with the
 * buffer one or two bytes shorter.
 */
static void test_a_formatted_reason_is_cut_as_a_plain_one(void **state)
{
	char why[TD_COUNTER_WHY_MAX + 51];
	td_counters *c;
	const char *kept;

	(void)state;
	memset(why, 'f', sizeof why - 1);
	why[sizeof why - 1] = '\0';
	assert_int_equal(td_counters_new(&c, 2), 0);
	assert_int_equal(td_counter_addf(c, "long", "%s", why), 0);
	kept = td_counter_why(c, "long", 0);
	assert_int_equal(strlen(kept), TD_COUNTER_WHY_MAX);
	assert_string_equal(kept + TD_COUNTER_WHY_MAX - 4, "f...");
	why[TD_COUNTER_WHY_MAX] = '\0';
	assert_int_equal(td_counter_addf(c, "exact", "%s", why), 0);
	assert_string_equal(td_counter_why(c, "exact", 0), why);
	td_counters_free(c);
}

/* Runs one window of n optimizer steps, NaN gradients when nan is set. */
static int window(td_firewall *fw, td_counters *c, td_adamw *a, int64_t *step, int n, int nan)
{
	td_real p[2] = {1, 1}, g[2] = {(td_real)0.5, nan ? (td_real)NAN : (td_real)0.5};

	for (int k = 0; k < n; k++) {
		int applied = td_adamw_step(a, p, g, c);

		assert_true(applied >= 0);
		td_firewall_step(fw, ++*step, applied);
	}
	return td_firewall_window_end(fw, c, *step);
}

static void test_two_windows_without_a_finite_step_stop_the_run_loudly(void **state)
{
	td_adamw_opts o = TD_ADAMW_OPTS_INIT;
	td_firewall fw = TD_FIREWALL_INIT;
	td_counters *c;
	td_adamw *a;
	int64_t step = 0;

	(void)state;
	assert_int_equal(td_counters_new(&c, 4), 0);
	assert_int_equal(td_adamw_new(&a, 2, &o), 0);
	assert_int_equal(window(&fw, c, a, &step, 3, 0), 0);
	assert_int_equal(window(&fw, c, a, &step, 3, 1), 0); /* one dead window: counted */
	assert_int_equal(td_counter_get(c, "window_without_finite_step"), 1);
	assert_string_equal(td_counter_why(c, "window_without_finite_step", 0),
			    "steps 4-6: all 3 gradients were NaN or inf");
	assert_int_equal(td_counter_get(c, "nan_step_skipped"), 3);
	TD_ASSERT_REFUSED(window(&fw, c, a, &step, 3, 1), TD_ESTATE,
			  "2 consecutive log windows (the last steps 7-9) had no finite step");
	assert_non_null(strstr(td_error_last(), "the run is stopped"));
	assert_int_equal(td_counter_get(c, "window_without_finite_step"), 2);
	td_adamw_free(a);
	td_counters_free(c);
}

static void test_a_finite_window_between_dead_ones_resets_the_streak(void **state)
{
	td_firewall fw = TD_FIREWALL_INIT;
	td_counters *c;

	(void)state;
	assert_int_equal(td_counters_new(&c, 4), 0);
	td_firewall_step(&fw, 1, 0);
	assert_int_equal(td_firewall_window_end(&fw, c, 1), 0);
	td_firewall_step(&fw, 2, 0), td_firewall_step(&fw, 3, 1); /* one finite step is enough */
	assert_int_equal(td_firewall_window_end(&fw, c, 3), 0);
	assert_int_equal(td_firewall_window_end(&fw, c, 3), 0); /* an empty window changes nothing */
	td_firewall_step(&fw, 4, 0);
	assert_int_equal(td_firewall_window_end(&fw, c, 4), 0);
	assert_int_equal(td_counter_get(c, "window_without_finite_step"), 2);
	assert_int_equal(fw.dead_in_row, 1);
	td_counters_free(c);
}

static const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_a_counters_reason_appears_in_both_the_text_line_and_the_json),
    cmocka_unit_test(test_a_count_without_a_reason_or_a_plain_name_is_refused),
    cmocka_unit_test(test_distinct_reasons_are_kept_up_to_the_limit_and_the_rest_counted),
    cmocka_unit_test(test_a_name_of_every_edge_of_the_plain_bytes_is_taken),
    cmocka_unit_test(test_a_reason_of_the_longest_kept_length_is_kept_whole),
    cmocka_unit_test(test_a_reason_past_the_kept_ones_is_counted_whatever_its_bytes),
    cmocka_unit_test(test_counters_inserted_in_any_order_fill_their_room_sorted),
    cmocka_unit_test(test_a_formatted_reason_is_cut_as_a_plain_one),
    cmocka_unit_test(test_two_windows_without_a_finite_step_stop_the_run_loudly),
    cmocka_unit_test(test_a_finite_window_between_dead_ones_resets_the_streak),
};

TD_TEST_GROUP(counters, tests);
