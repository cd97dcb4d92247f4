/*
 * test_pathglob.c - the globs of tdaudit.lua, catalogues and tdaudit.glob:
 * what '*', '?', '[]' and '**' match, that a directory is never listed or
 * read as a file, that a glob a file list needs says so when it matches
 * nothing, and that no link lists or reads a file outside the repository.
 *
 * What these tests guard: tdaudit mutate --list --file harness/pathglob.c
 *
 * Edits seen breaking these tests:
 *   - match() letting '*' cross a '/' -> star_and_question_stay_in_one_component
 *   - match() trying "**" + "/" only at the path's start (no directories
 *     skipped) -> double_star_matches_any_number_of_directories
 *   - walk() entering linked directories, or link_inside() not checking
 *     the root -> no_link_lists_a_file_outside_the_repository
 *   - walk() listing directories -> a_directory_is_never_listed_or_read_as_a_file
 *   - td_pathglob_need() accepting an empty list
 *       -> a_glob_a_file_list_needs_names_itself_when_it_matches_nothing
 */
#define _XOPEN_SOURCE 700
#include "tdtest.h"

#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "../base/error.h"
#include "../base/strv.h"
#include "../harness/catalogue.h"
#include "../harness/luahost.h"
#include "../harness/pathglob.h"
#include "fixture.h"

static void test_star_and_question_stay_in_one_component(void **state)
{
	(void)state;
	assert_true(td_pathglob_match("*.c", "a.c"));
	assert_false(td_pathglob_match("*.c", "src/a.c"));
	assert_true(td_pathglob_match("src/*.c", "src/a.c"));
	assert_false(td_pathglob_match("src/*.c", "src/x/a.c"));
	assert_true(td_pathglob_match("?.c", "a.c"));
	assert_false(td_pathglob_match("src?a.c", "src/a.c"));
	assert_true(td_pathglob_match("[ab].c", "b.c"));
	assert_false(td_pathglob_match("[!ab].c", "b.c"));
	assert_true(td_pathglob_match("[a-c]x", "bx"));
	assert_true(td_pathglob_match("a\\*b", "a*b"));
	assert_false(td_pathglob_match("a\\*b", "axb"));
	assert_true(td_pathglob_match(".hidden", ".hidden"));
}

static void test_double_star_matches_any_number_of_directories(void **state)
{
	(void)state;
	assert_true(td_pathglob_match("**/*.c", "a.c"));
	assert_true(td_pathglob_match("**/*.c", "src/a.c"));
	assert_true(td_pathglob_match("**/*.c", "src/x/y/a.c"));
	assert_false(td_pathglob_match("**/*.c", "src/a.h"));
	assert_true(td_pathglob_match("src/**/a.c", "src/a.c"));
	assert_true(td_pathglob_match("src/**/a.c", "src/x/y/a.c"));
	assert_false(td_pathglob_match("src/**/a.c", "lib/x/a.c"));
	assert_false(td_pathglob_match("src/**/a.c", "src/xa.c"));
	assert_true(td_pathglob_match("src/**", "src/x/y/z.txt"));
	assert_false(td_pathglob_match("src/**", "lib/z.txt"));
	TD_ASSERT_REFUSED(td_pathglob_check("src/a**b"), TD_EINVAL, "whole path component");
	TD_ASSERT_REFUSED(td_pathglob_check("../x/*.c"), TD_EINVAL, "'..'");
	TD_ASSERT_REFUSED(td_pathglob_check("/etc/*"), TD_EINVAL, "relative");
	assert_int_equal(td_pathglob_check("src/**/*.c"), 0);
}

/* A tree of files at two depths, with a directory whose name ends in .c. */
static void make_tree(void)
{
	fx_write("repo", "top.c", "");
	fx_write("repo", "src/a.c", "");
	fx_write("repo", "src/deep/b.c", "");
	fx_write("repo", "src/deep/b.h", "");
	fx_write("repo", "src/dir.c/inside.txt", "");
	fx_write("repo", ".git/x.c", "");
}

static void test_double_star_lists_files_at_every_depth_sorted(void **state)
{
	char **f = NULL;

	(void)state;
	make_tree();
	assert_int_equal(td_pathglob_list(&f, "repo", "**/*.c", NULL), 0);
	assert_int_equal(td_strv_len(f), 3);
	assert_string_equal(f[0], "src/a.c");
	assert_string_equal(f[1], "src/deep/b.c");
	assert_string_equal(f[2], "top.c");
	td_strv_free(f), f = NULL;
	assert_int_equal(td_pathglob_list(&f, "repo", "src/*.c", NULL), 0);
	assert_int_equal(td_strv_len(f), 1); /* not src/dir.c: a directory */
	assert_string_equal(f[0], "src/a.c");
	td_strv_free(f);
}

static void test_a_directory_is_never_listed_or_read_as_a_file(void **state)
{
	td_pathglob_skips sk = {0};
	char **f = NULL;
	td_lua *L;

	(void)state;
	make_tree();
	assert_int_equal(td_pathglob_list(&f, "repo", "src/*", &sk), 0);
	assert_int_equal(td_strv_len(f), 1);
	assert_int_equal(sk.dirs, 2); /* src/deep, src/dir.c */
	td_strv_free(f);
	fx_write("repo", "s.lua", "local g = tdaudit.glob('src/*')\n"
				  "assert(#g == 1 and g[1] == 'src/a.c', table.concat(g, ','))\n"
				  "tdaudit.read_file('src/deep')\n");
	assert_int_equal(td_lua_new(&L, "repo", NULL), 0);
	TD_ASSERT_REFUSED(td_lua_run_file(L, "s.lua"), TD_EINVAL,
			  "src/deep is a directory, not a file");
	td_lua_free(L);
}

static void test_a_glob_a_file_list_needs_names_itself_when_it_matches_nothing(void **state)
{
	char *const globs[] = {"mutations/**/*.lua", NULL};
	td_mutants m = {0};
	char **f = NULL;

	(void)state;
	make_tree();
	TD_ASSERT_REFUSED(td_pathglob_need(&f, "repo", "lib/*.c", "sources"), TD_EINVAL,
			  "sources glob 'lib/*.c' matches no file");
	TD_ASSERT_REFUSED(td_pathglob_need(&f, "repo", "src/d*", "catalogue"), TD_EINVAL,
			  "catalogue glob 'src/d*' matches no file, only directories");
	assert_null(f);
	TD_ASSERT_REFUSED(td_catalogue_load(&m, "repo", globs), TD_EINVAL,
			  "catalogue glob 'mutations/**/*.lua' matches no file");
	td_mutants_free(&m);
	fx_write("repo", "mutations/x/y/c.lua", "");
	assert_int_equal(td_catalogue_load(&m, "repo", globs), 0); /* "**" reaches it */
	td_mutants_free(&m);
}

static void test_no_link_lists_a_file_outside_the_repository(void **state)
{
	td_pathglob_skips sk = {0};
	char **f = NULL;

	(void)state;
	make_tree();
	fx_write("outside", "secret.c", "");
	fx_write("outside", "sub/more.c", "");
	assert_int_equal(symlink("../outside/secret.c", "repo/leak.c"), 0);
	assert_int_equal(symlink("../../outside", "repo/src/linked"), 0);
	assert_int_equal(symlink("top.c", "repo/alias.c"), 0); /* inside: listed */
	assert_int_equal(td_pathglob_list(&f, "repo", "**/*.c", &sk), 0);
	assert_int_equal(td_strv_len(f), 4);
	assert_string_equal(f[0], "alias.c");
	assert_string_equal(f[1], "src/a.c");
	assert_string_equal(f[2], "src/deep/b.c");
	assert_string_equal(f[3], "top.c");
	assert_int_equal(sk.links_outside, 1);
	td_strv_free(f);
}

static const struct CMUnitTest tests[] = {
	cmocka_unit_test(test_star_and_question_stay_in_one_component),
	cmocka_unit_test(test_double_star_matches_any_number_of_directories),
	cmocka_unit_test(test_double_star_lists_files_at_every_depth_sorted),
	cmocka_unit_test(test_a_directory_is_never_listed_or_read_as_a_file),
	cmocka_unit_test(test_a_glob_a_file_list_needs_names_itself_when_it_matches_nothing),
	cmocka_unit_test(test_no_link_lists_a_file_outside_the_repository),
};
TD_TEST_GROUP(pathglob, tests);
