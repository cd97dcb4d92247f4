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
#include <string.h>
#include <unistd.h>

#include "../base/error.h"
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

/*
 * A mutant's file must be a normalised relative path inside the repository
 * that goes through no symbolic link: mutate writes the mutated text to
 * that path in a scratch copy, and "../../calc.c" or a tracked link to a
 * file outside used to reach the user's own files (DEBUG.md #42). Each is
 * refused at load with the catalogue's file:line; the plain path loads.
 */
static void test_a_mutant_file_outside_the_repository_is_refused(void **state)
{
	static const char *const bad[] = {"../calc.c", "/etc/passwd", "sub/../calc.c", "./calc.c",
					  "sub//calc.c", "link.c", "linkdir/calc.c", NULL};
	char *const globs[] = {"cat.lua", NULL};
	char text[512];
	td_mutants m = {0};

	(void)state;
	fx_write("repo", "calc.c", "int add(int a, int b) { return a + b; }\n");
	fx_write("repo", "sub/calc.c", "int add(int a, int b) { return a + b; }\n");
	fx_write("outside", "calc.c", "int add(int a, int b) { return a + b; }\n");
	assert_int_equal(symlink("../outside/calc.c", "repo/link.c"), 0);
	assert_int_equal(symlink("../outside", "repo/linkdir"), 0);
	for (int i = 0; bad[i]; i++) {
		const char *base = strrchr(bad[i], '/') ? strrchr(bad[i], '/') + 1 : bad[i];

		snprintf(text, sizeof text,
			 "mutant { name = \"%.*s-x\", file = \"%s\", find = \"a + b\",\n"
			 "  replace = \"a - b\", guards = { \"t\" }, designed_against = \"x\", why = \"y\" }\n",
			 (int)strcspn(base, "."), base, bad[i]);
		fx_write("repo", "cat.lua", text);
		if (td_catalogue_load(&m, "repo", globs) == 0)
			fail_msg("file = \"%s\" was accepted", bad[i]);
		if (!strstr(td_error_last(), "cat.lua:1:") || !strstr(td_error_last(), bad[i]))
			fail_msg("file = \"%s\": %s", bad[i], td_error_last());
		td_mutants_free(&m);
	}
	fx_write("repo", "cat.lua", "mutant { name = \"calc-x\", file = \"sub/calc.c\", "
				    "find = \"a + b\", replace = \"a - b\", guards = { \"t\" },\n"
				    "  designed_against = \"x\", why = \"y\" }\n");
	assert_int_equal(td_catalogue_load(&m, "repo", globs), 0);
	assert_int_equal(m.n, 1);
	td_mutants_free(&m);
}

/*
 * A generate glob that matches a directory skips it: it used to be read as
 * a file ("cannot read src/inputs (9223372036854775807 bytes)", DEBUG.md
 * #47). A glob that matches directories only is refused, saying so.
 */
static void test_a_generate_glob_skips_directories(void **state)
{
	char *const globs[] = {"cat.lua", NULL};
	td_mutants m = {0};

	(void)state;
	fx_write("repo", "src/calc.c", "int add(int a, int b)\n{\n\treturn a + b;\n}\n");
	fx_write("repo", "src/inputs/case1", "1 2\n");
	fx_write("repo", "cat.lua", "generate { files = { \"src/*\" }, guards = { \"t\" } }\n");
	assert_int_equal(td_catalogue_load(&m, "repo", globs), 0);
	assert_true(m.n > 0);
	for (size_t i = 0; i < m.n; i++)
		assert_string_equal(m.v[i].file, "src/calc.c");
	td_mutants_free(&m);
	fx_write("repo", "cat.lua", "generate { files = { \"src/inp*\" }, guards = { \"t\" } }\n");
	assert_int_not_equal(td_catalogue_load(&m, "repo", globs), 0);
	if (!strstr(td_error_last(), "cat.lua:1: generate: glob 'src/inp*' matches no file, only 1 "
				     "directory"))
		fail_msg("%s", td_error_last());
	td_mutants_free(&m);
}

/*
 * This repository's generated catalogue (ci/generated.lua, the weekly
 * job's) loads: every equivalent declaration names a mutant the
 * generator still makes, so an edit that moves a declared mutant's id
 * fails here, not first in the weekly run (DEBUG.md #100).
 */
static void test_this_repositorys_generated_catalogue_loads(void **state)
{
	char *const globs[] = {"ci/generated.lua", NULL};
	td_mutants m = {0};

	(void)state;
	if (td_catalogue_load(&m, TD_SOURCE_DIR, globs))
		fail_msg("%s", td_error_last());
	assert_true(m.n > 1000);
	td_mutants_free(&m);
}

static const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_a_refused_entry_leaves_nothing_allocated),
    cmocka_unit_test(test_a_mutant_file_outside_the_repository_is_refused),
    cmocka_unit_test(test_a_generate_glob_skips_directories),
	cmocka_unit_test(test_this_repositorys_generated_catalogue_loads),
};

TD_TEST_GROUP(catalogue, tests);
