/*
 * test_strv.c - string lists: td_strv_push keeps every entry, in order,
 * NULL-terminated, across the doublings of its inferred capacity.
 *
 * What these tests guard: tdaudit mutate --list --file 'base/strv.*'
 */
#include "tdtest.h"

#include <stdio.h>
#include <stdlib.h>

#include "../base/strv.h"

static void test_a_list_keeps_every_push_across_its_growths(void **state)
{
	char **v = NULL, name[32];

	(void)state;
	for (int i = 0; i < 1000; i++) {
		snprintf(name, sizeof name, "entry-%d", i);
		assert_int_equal(td_strv_push(&v, name), 0);
		assert_int_equal(td_strv_len(v), (size_t)i + 1);
		assert_null(v[i + 1]);
	}
	for (int i = 0; i < 1000; i++) {
		snprintf(name, sizeof name, "entry-%d", i);
		assert_string_equal(v[i], name);
	}
	assert_int_equal(td_strv_find(v, "entry-517"), 517);
	td_strv_free(v);
}

static const struct CMUnitTest tests[] = {
	cmocka_unit_test(test_a_list_keeps_every_push_across_its_growths),
};
TD_TEST_GROUP(strv, tests);
