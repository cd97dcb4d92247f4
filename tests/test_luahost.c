/*
 * test_luahost.c - the Lua sandbox: only the safe libraries, file reads
 * confined to the repository, budgets on memory, instructions and wall time.
 *
 * What these tests guard: tdaudit mutate --list --file harness/luahost.c
 *   and --list --file harness/luapat.c
 *
 * Edits seen breaking these tests that the catalogue may not hold:
 *   - budget_alloc() ignoring mem_limit -> a_script_that_hoards_memory_is_stopped
 *   - l_glob() through glob(3) (follows links, lists directories)
 *       -> glob_lists_nothing_through_a_link_out_of_the_repository,
 *          glob_lists_no_directory_and_read_file_refuses_one_by_name
 *   - td_lua_read_confined() without its is_dir() check
 *       -> glob_lists_no_directory_and_read_file_refuses_one_by_name
 */
#define _XOPEN_SOURCE 700
#include "tdtest.h"

#include <lauxlib.h>
#include <lua.h>
#include <stdio.h>
#include <unistd.h>

#include "../base/error.h"
#include "../harness/luahost.h"
#include "fixture.h"

/* Runs script (written to ./repo/s.lua) in a fresh sandbox over ./repo. */
static int run(const char *script, const td_lua_opts *opts)
{
	td_lua *L;
	int err;

	fx_write("repo", "s.lua", script);
	assert_int_equal(td_lua_new(&L, "repo", opts), 0);
	err = td_lua_run_file(L, "s.lua");
	td_lua_free(L);
	return err;
}

static void test_only_safe_libraries_are_there(void **state)
{
	(void)state;
	assert_int_equal(run("assert(string and table and math and utf8)\n"
			     "assert(os == nil and io == nil and package == nil and debug == nil)\n"
			     "assert(require == nil and dofile == nil and loadfile == nil and load == nil)\n",
			     NULL),
			 0);
}

static void test_a_lua_error_comes_back_with_file_and_line(void **state)
{
	(void)state;
	TD_ASSERT_REFUSED(run("local x = 1\nerror('boom')\n", NULL), TD_EINVAL, "s.lua:2: boom");
	TD_ASSERT_REFUSED(run("local x = \n", NULL), TD_EINVAL, "s.lua:");
}

static void test_reads_are_confined_to_the_root(void **state)
{
	(void)state;
	fx_write("repo", "data.txt", "inside");
	fx_write(".", "secret.txt", "outside");
	assert_int_equal(run("assert(tdaudit.read_file('data.txt') == 'inside')\n", NULL), 0);
	TD_ASSERT_REFUSED(run("tdaudit.read_file('../secret.txt')\n", NULL), TD_EINVAL,
			  "not a path inside the repository");
	TD_ASSERT_REFUSED(run("tdaudit.read_file('/etc/passwd')\n", NULL), TD_EINVAL,
			  "not a path inside the repository");
}

static void test_a_symlink_out_of_the_root_is_refused(void **state)
{
	(void)state;
	fx_write(".", "secret.txt", "outside");
	fx_write("repo", "keep", "");
	assert_int_equal(symlink("../secret.txt", "repo/link.txt"), 0);
	TD_ASSERT_REFUSED(run("tdaudit.read_file('link.txt')\n", NULL), TD_EINVAL,
			  "leads outside the repository");
}

static void test_glob_lists_sorted_paths_relative_to_the_root(void **state)
{
	(void)state;
	fx_write("repo", "b.c", "");
	fx_write("repo", "a.c", "");
	assert_int_equal(run("local g = tdaudit.glob('*.c')\n"
			     "assert(#g == 2 and g[1] == 'a.c' and g[2] == 'b.c', table.concat(g, ','))\n",
			     NULL),
			 0);
}

/*
 * tdaudit.glob through a linked directory listed the files outside the
 * repository it leads to, and a link to a file outside too; a catalogue
 * could then read their names (and, through the link, learn what is
 * there).
 */
static void test_glob_lists_nothing_through_a_link_out_of_the_repository(void **state)
{
	(void)state;
	fx_write("outside", "secret.c", "");
	fx_write("repo", "a.c", "");
	assert_int_equal(symlink("../outside", "repo/ext"), 0);
	assert_int_equal(symlink("../outside/secret.c", "repo/leak.c"), 0);
	assert_int_equal(run("local g = tdaudit.glob('ext/*.c')\n"
			     "assert(#g == 0, table.concat(g, ','))\n"
			     "g = tdaudit.glob('*.c')\n"
			     "assert(#g == 1 and g[1] == 'a.c', table.concat(g, ','))\n",
			     NULL),
			 0);
}

/*
 * tdaudit.glob listed directories, and tdaudit.read_file of one failed
 * with "cannot read sub.d (9223372036854775807 bytes)": a catalogue that
 * read what it globbed stopped on a message that named no cause.
 */
static void test_glob_lists_no_directory_and_read_file_refuses_one_by_name(void **state)
{
	(void)state;
	fx_write("repo", "a.txt", "");
	fx_write("repo", "sub.d/b.txt", "");
	assert_int_equal(run("local g = tdaudit.glob('*')\n"
			     "assert(#g == 2 and g[1] == 'a.txt' and g[2] == 's.lua', table.concat(g, ','))\n",
			     NULL),
			 0);
	TD_ASSERT_REFUSED(run("tdaudit.read_file('sub.d')\n", NULL), TD_EINVAL,
			  "sub.d is a directory, not a file to read");
}

static void test_a_script_that_loops_forever_is_stopped(void **state)
{
	td_lua_opts o = {0};

	(void)state;
	o.instr_limit = 100000;
	TD_ASSERT_REFUSED(run("while true do end\n", &o), TD_EINVAL, "instruction budget exceeded");
}

static void test_a_script_that_hoards_memory_is_stopped(void **state)
{
	td_lua_opts o = {0};

	(void)state;
	o.mem_limit = 4 << 20;
	TD_ASSERT_REFUSED(run("local t = {}\nfor i = 1, 1e8 do t[i] = ('x'):rep(64) .. i end\n", &o),
			  TD_EINVAL, "not enough memory");
}

/* A backtracking pattern runs in C, out of the hook's reach; the matcher's own steps stop it. */
static void test_a_pattern_that_backtracks_without_end_is_stopped(void **state)
{
	td_lua_opts o = {.instr_limit = 5000000};

	(void)state;
	TD_ASSERT_REFUSED(run("return ('a'):rep(5000):find('.-.-.-.-.-b')\n", &o), TD_EINVAL,
			  "instruction budget exceeded");
	TD_ASSERT_REFUSED(run("return (('a'):rep(5000):gsub('.-.-.-.-.-b', ''))\n", &o),
			  TD_EINVAL, "instruction budget exceeded");
}

/* The budgeted matcher returns what Lua's own does. */
static void test_the_budgeted_patterns_match_as_lua_does(void **state)
{
	(void)state;
	assert_int_equal(
		run("assert(('hello world'):find('o w') == 5)\n"
		    "assert(('key = v1'):match('^(%w+)%s*=%s*(%w+)$') == 'key')\n"
		    "local n = 0; for w in ('a b c'):gmatch('%a') do n = n + 1 end; assert(n == 3)\n"
		    "assert(('abc'):gsub('%w', '%0%0') == 'aabbcc')\n"
		    "assert(string.find('a.b', '.', 1, true) == 2)\n"
		    "assert(('f(a(b)c)'):match('%b()') == '(a(b)c)')\n"
		    "assert(('  x  '):match('^%s*(.-)%s*$') == 'x')\n"
		    "assert(('x=1, y=2'):gsub('(%w+)=(%w+)', '%2=%1') == '1=x, 2=y')\n",
		    NULL),
		0);
}

/* Wall time is a budget of its own: a script the instruction budget allows still ends. */
static void test_a_script_is_held_to_its_wall_clock_budget(void **state)
{
	td_lua_opts o = {0};

	(void)state;
	o.instr_limit = 1L << 60;
	o.wall_limit_s = 0.5;
	TD_ASSERT_REFUSED(run("while true do end\n", &o), TD_EINVAL, "wall-clock budget exceeded");
}

/*
 * Lua runs finalizers with its hooks off, and again in lua_close: a __gc
 * that loops would hang tdaudit where no budget reaches. It is refused.
 */
static void test_a_script_may_not_set_a_gc_metamethod(void **state)
{
	(void)state;
	TD_ASSERT_REFUSED(run("setmetatable({}, {__gc = function() while true do end end})\n", NULL),
			  TD_EINVAL, "may not set a __gc metamethod");
	assert_int_equal(run("local t = setmetatable({}, {__index = {x = 1}})\n"
			     "assert(t.x == 1 and getmetatable(t).__index.x == 1)\n"
			     "local mt = {}; setmetatable(t, mt); mt.__gc = print -- too late to mark\n",
			     NULL),
			 0);
}

static const struct CMUnitTest tests[] = {
	cmocka_unit_test(test_only_safe_libraries_are_there),
	cmocka_unit_test(test_a_lua_error_comes_back_with_file_and_line),
	cmocka_unit_test(test_reads_are_confined_to_the_root),
	cmocka_unit_test(test_a_symlink_out_of_the_root_is_refused),
	cmocka_unit_test(test_glob_lists_sorted_paths_relative_to_the_root),
	cmocka_unit_test(test_glob_lists_nothing_through_a_link_out_of_the_repository),
	cmocka_unit_test(test_glob_lists_no_directory_and_read_file_refuses_one_by_name),
	cmocka_unit_test(test_a_script_that_loops_forever_is_stopped),
	cmocka_unit_test(test_a_script_that_hoards_memory_is_stopped),
	cmocka_unit_test(test_a_pattern_that_backtracks_without_end_is_stopped),
	cmocka_unit_test(test_the_budgeted_patterns_match_as_lua_does),
	cmocka_unit_test(test_a_script_is_held_to_its_wall_clock_budget),
	cmocka_unit_test(test_a_script_may_not_set_a_gc_metamethod),
};
TD_TEST_GROUP(luahost, tests);
