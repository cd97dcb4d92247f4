/*
 * test_catalogue.c - loading catalogues in process: what a refused entry
 * leaves behind.
 *
 * What these tests guard: tdaudit mutate --list --file harness/catalogue.c
 */
#define _GNU_SOURCE
#include "tdtest.h"

#include <malloc.h>
#include <stdio.h>

#include "../harness/catalogue.h"
#include "fixture.h"

/* Bytes in use on the heap (glibc's count; 0 under ASan, where LSan checks). */
static size_t heap_in_use(void)
{
	return mallinfo2().uordblks;
}

/*
 * An entry refused after its fields were copied (here: named for another
 * file) must leave nothing allocated: every refusal is a Lua error that
 * unwinds past the loader's C code. After 200 loads that fill the
 * allocator's caches, 1000 more may grow glibc's count of bytes in use by
 * 100 bytes a load at most: its own noise is 15 to 25 bytes a load (as much
 * for loads that succeed), the leak this guards against was 370.
 */
static void test_a_refused_entry_leaves_nothing_allocated(void **state)
{
	char *const globs[] = {"mutations/*.lua", NULL};
	td_mutants m = {0};
	size_t before;

	(void)state;
	fx_write("repo", "mutations/cat.lua",
		 "mutant { name = \"add-wrong\", file = \"calc.c\", find = \"a + b\",\n"
		 "  replace = \"a - b\", guards = { \"test_add\", \"test_sum\" },\n"
		 "  designed_against = \"x\", why = \"adds wrong\" }\n");
	for (int i = 0; i < 200; i++) { /* the allocator's caches fill up first */
		assert_int_not_equal(td_catalogue_load(&m, "repo", globs), 0);
		td_mutants_free(&m);
	}
	before = heap_in_use();
	for (int i = 0; i < 1000; i++) {
		assert_int_not_equal(td_catalogue_load(&m, "repo", globs), 0);
		td_mutants_free(&m);
	}
	if (heap_in_use() > before + 100 * 1000)
		fail_msg("1000 refused loads left %zu bytes allocated", heap_in_use() - before);
}

static const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_a_refused_entry_leaves_nothing_allocated),
};

TD_TEST_GROUP(catalogue, tests);
