/*
 * test_project.c - tdaudit.lua read in process: what a setting may hold.
 *
 * What these tests guard: tdaudit mutate --list --file harness/project.c
 *
 * Edits seen breaking these tests:
 *   - register_dsl() without the globals' __index
 *     -> an_unknown_setting_is_refused_naming_it_and_the_settings
 */
#include "tdtest.h"

#include <stdio.h>
#include <string.h>

#include "../base/error.h"
#include "../harness/project.h"
#include "fixture.h"

/* Loads a tdaudit.lua of build, runner and the given timeout line; the load's status. */
static int load_with_timeout(const char *timeout)
{
	char text[512];
	td_project *p = NULL;
	int err;

	snprintf(text, sizeof text,
		 "build { \"make\" }\n"
		 "runner { list = { \"make\", \"list\" }, run = { \"./{test}\" } }\n%s\n", timeout);
	fx_write("repo", "tdaudit.lua", text);
	err = td_project_load(&p, "repo");
	td_project_free(p);
	return err;
}

/*
 * A timeout must be a finite positive number of seconds: NaN compares
 * false with everything, so a check written as "v <= 0 is refused" lets it
 * through, and a NaN or infinite floor turns every test's limit off.
 */
static void test_a_timeout_that_is_not_a_finite_positive_number_is_refused(void **state)
{
	static const char *const bad[] = {"timeout { floor = 0/0 }", "timeout { factor = 0/0 }",
					  "timeout { build = 0/0 }", "timeout { floor = math.huge }",
					  "timeout { floor = -1 }", "timeout { floor = 0 }"};

	(void)state;
	assert_int_equal(load_with_timeout("timeout { factor = 3, floor = 0.5, build = 60 }"), 0);
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		int err = load_with_timeout(bad[i]);

		if (err == 0 || !strstr(td_error_last(), "positive number of seconds"))
			fail_msg("'%s' was %s: %s", bad[i], err ? "refused for another reason" : "accepted",
				 err ? td_error_last() : "");
	}
}

/*
 * timeout { } given twice is refused like every other setting: the second
 * call replaced the fields it named and kept the others, so half of what
 * the user wrote second was silently the first call's.
 */
static void test_a_timeout_given_twice_is_refused(void **state)
{
	(void)state;
	assert_int_not_equal(load_with_timeout("timeout { factor = 3 }\ntimeout { floor = 1 }"), 0);
	if (!strstr(td_error_last(), "timeout is given twice"))
		fail_msg("refused for another reason: %s", td_error_last());
}

/*
 * A misspelt setting is refused with its line and the settings there are,
 * not as Lua's "attempt to call a nil value (global 'sourcse')" with a
 * traceback; Lua's own names still resolve.
 */
static void test_an_unknown_setting_is_refused_naming_it_and_the_settings(void **state)
{
	(void)state;
	assert_int_equal(load_with_timeout("local n = math.floor(2.5) + #string.rep('x', 2)\n"
					   "timeout { floor = n }"), 0);
	assert_int_not_equal(load_with_timeout("sourcse { \"*.c\" }"), 0);
	if (!strstr(td_error_last(), "tdaudit.lua:3: 'sourcse' is no setting of tdaudit.lua (the "
				     "settings: build, runner, sources,") ||
	    strstr(td_error_last(), "traceback"))
		fail_msg("refused as: %s", td_error_last());
}

static const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_a_timeout_that_is_not_a_finite_positive_number_is_refused),
    cmocka_unit_test(test_a_timeout_given_twice_is_refused),
    cmocka_unit_test(test_an_unknown_setting_is_refused_naming_it_and_the_settings),
};

TD_TEST_GROUP(project, tests);
