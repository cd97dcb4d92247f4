/*
 * tdtest.h - what every test file includes.
 *
 * A test file tests/test_NAME.c ends with TD_TEST_GROUP(NAME, tests), where
 * tests is its array of cmocka_unit_test(...) entries; the Makefile finds
 * the groups from the file names, so adding a file adds its tests to the
 * runner. The runner (tests/tdtest.c) runs every test in a fresh temporary
 * directory with LC_ALL=C.
 *
 * Test names state the invariant they hold. A test that cannot run here
 * (no GPU, no data set) calls TD_SKIP("reason"): the reason is printed and
 * counted, and a skip never reads as a pass.
 */
#ifndef TD_TDTEST_H
#define TD_TDTEST_H

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

struct td_test_group {
	const char *name;
	const struct CMUnitTest *tests;
	size_t n;
};

#define TD_TEST_GROUP(NAME, ARRAY)                                                      \
	const struct td_test_group td_group_##NAME = {#NAME, ARRAY,                     \
						      sizeof(ARRAY) / sizeof((ARRAY)[0])}

/* Counted skips; defined by the runner. */
extern int td_test_skips;
#define TD_SKIP(...)                                                                     \
	do {                                                                             \
		print_message("[  SKIP    ] " __VA_ARGS__);                              \
		print_message("\n");                                                     \
		td_test_skips++;                                                         \
		skip();                                                                  \
	} while (0)

/* The repository's source directory (absolute), for fixtures. */
#ifndef TD_SOURCE_DIR
#define TD_SOURCE_DIR "."
#endif

/* Asserts that call failed with code and that its message contains needle. */
#define TD_ASSERT_REFUSED(call, code, needle)                                            \
	do {                                                                             \
		int rc_ = (call);                                                        \
		assert_int_equal(rc_, (code));                                           \
		if (!strstr(td_error_last(), (needle)))                                  \
			fail_msg("message lacks \"%s\": %s", (needle), td_error_last()); \
	} while (0)

#endif
