/*
 * test_error.c - the error model: codes pass up, messages name the place.
 *
 * What these tests guard: tdaudit mutate --list --file 'base/error.*'
 *
 * Edits seen breaking these tests that the catalogue may not hold:
 *   - TD_REQUIRE evaluating its expression twice
 *       -> a_requirement_evaluates_its_expression_once
 */
#include "tdtest.h"

#include <stdio.h>
#include <string.h>

#include "../base/error.h"

static int fails(void)
{
	return TD_FAIL(TD_EINVAL, "value %d is bad; pass 1", 7);
}

static int required_at; /* the line of requires_positive's TD_REQUIRE */

static int requires_positive(int x)
{
	required_at = __LINE__ + 1;
	TD_REQUIRE(x > 0);
	return 0;
}

static int requires_first_call(int *calls)
{
	TD_REQUIRE((*calls)++ == 0);
	return 0;
}

static void test_last_error_is_never_null(void **state)
{
	(void)state;
	td_error_clear();
	assert_non_null(td_error_last());
	assert_string_equal(td_error_last(), "no error");
	assert_int_equal(td_error_code(), TD_OK);
}

/*
 * The message is for the user, exactly what was formatted: the file and
 * function that raised it used to open every message a user read
 * ("harness/luahost.c: td_lua_run_file: m.lua:1: ...", DEBUG.md #48).
 */
static void test_a_message_is_what_was_formatted(void **state)
{
	(void)state;
	assert_int_equal(fails(), TD_EINVAL);
	assert_int_equal(td_error_code(), TD_EINVAL);
	assert_string_equal(td_error_last(), "value 7 is bad; pass 1");
	assert_string_equal(td_error_name(TD_EINVAL), "TD_EINVAL");
}

/* Where a failure was raised is kept apart, for a developer; "" once cleared. */
static void test_the_origin_of_a_failure_names_file_and_function(void **state)
{
	(void)state;
	assert_int_equal(fails(), TD_EINVAL);
	assert_non_null(strstr(td_error_origin(), "test_error.c: fails"));
	td_error_clear();
	assert_string_equal(td_error_origin(), "");
}

static void test_an_overlong_message_is_truncated_not_overflowed(void **state)
{
	char big[4096];

	(void)state;
	memset(big, 'x', sizeof big - 1);
	big[sizeof big - 1] = '\0';
	TD_FAIL(TD_EIO, "%s", big);
	assert_true(strlen(td_error_last()) < 1024);
}

static void test_a_broken_requirement_returns_einval_naming_expression_and_line(void **state)
{
	char want[128];

	(void)state;
	td_error_clear();
	assert_int_equal(requires_positive(1), 0);
	assert_int_equal(td_error_code(), TD_OK);
	assert_int_equal(requires_positive(-1), TD_EINVAL);
	assert_int_equal(td_error_code(), TD_EINVAL);
	snprintf(want, sizeof want, "test_error.c: requires_positive: line %d: requirement failed: x > 0",
		 required_at);
	assert_non_null(strstr(td_error_last(), want));
}

static void test_a_requirement_evaluates_its_expression_once(void **state)
{
	int calls = 0;

	(void)state;
	assert_int_equal(requires_first_call(&calls), 0);
	assert_int_equal(calls, 1);
	assert_int_equal(requires_first_call(&calls), TD_EINVAL);
	assert_int_equal(calls, 2);
}

static const struct CMUnitTest tests[] = {
	cmocka_unit_test(test_last_error_is_never_null),
	cmocka_unit_test(test_a_message_is_what_was_formatted),
	cmocka_unit_test(test_the_origin_of_a_failure_names_file_and_function),
	cmocka_unit_test(test_an_overlong_message_is_truncated_not_overflowed),
	cmocka_unit_test(test_a_broken_requirement_returns_einval_naming_expression_and_line),
	cmocka_unit_test(test_a_requirement_evaluates_its_expression_once),
};
TD_TEST_GROUP(error, tests);
