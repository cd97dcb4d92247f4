/*
 * test_badinput.c - bad inputs of docs/bad-input.md that no other test
 * file checks: each refused with its exit status and the message the
 * table gives, before any build.
 *
 * Edits seen breaking these tests:
 *   - td_lua_run_file() dropping the position of a load error
 *     -> a_tdaudit_lua_that_is_not_lua_is_refused_with_its_line
 *   - td_project_load()'s message for a missing tdaudit.lua reworded
 *     -> a_missing_tdaudit_lua_says_where_it_must_be
 * Edits expected to break them (not tried):
 *   - mutate opening its ledger only after the run
 *     -> a_ledger_that_cannot_be_opened_is_refused_naming_it
 */
#include "tdtest.h"

#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "fixture.h"

static const char config[] =
	"build { \"make\", \"-s\" }\n"
	"runner { list = { \"./t\", \"--list\" }, run = { \"./t\", \"{test}\" } }\n"
	"sources { \"calc.c\" }\n"
	"catalogues { \"cat.lua\" }\n";

static const char catalogue[] =
	"mutant { name = \"calc-sub\", file = \"calc.c\", find = \"a + b\", replace = \"a - b\",\n"
	"  guards = { \"test_add\" }, designed_against = \"x\", why = \"subtracts\" }\n";

/* A committed repository in ./repo with the given tdaudit.lua (none when NULL). */
static void make_repo(const char *lua)
{
	fx_write("repo", "calc.c", "int add(int a, int b)\n{\n\treturn a + b;\n}\n");
	fx_write("repo", "Makefile", "t: calc.c\n\tfalse\n"); /* never reached */
	fx_write("repo", "cat.lua", catalogue);
	if (lua)
		fx_write("repo", "tdaudit.lua", lua);
	fx_git_commit_all("repo", "C0");
}

static void test_a_tdaudit_lua_that_is_not_lua_is_refused_with_its_line(void **state)
{
	const char *args[] = {"mutate", "--list", NULL};
	const char *log;

	(void)state;
	make_repo("build { \"make\"\n");
	assert_int_equal(fx_tdaudit("repo", "m.log", args), 2);
	log = fx_slurp("m.log");
	if (!strstr(log, "tdaudit mutate: tdaudit.lua:2: '}' expected (to close '{' at line 1)") ||
	    strstr(log, "traceback"))
		fail_msg("refused as:\n%s", log);
}

static void test_a_missing_tdaudit_lua_says_where_it_must_be(void **state)
{
	const char *args[] = {"mutate", NULL};

	(void)state;
	make_repo(NULL);
	assert_int_equal(fx_tdaudit("repo", "m.log", args), 2);
	assert_non_null(strstr(fx_slurp("m.log"), "/tdaudit.lua: cannot read it; tdaudit needs one at "
						  "the repository root"));
}

static void test_a_ledger_that_cannot_be_opened_is_refused_naming_it(void **state)
{
	const char *export[] = {"ledger", "export", "--format", "md", NULL};
	const char *mutate[] = {"mutate", NULL};
	char lua[sizeof config + 64];

	(void)state;
	snprintf(lua, sizeof lua, "%sledger \"dir.db\"\n", config);
	make_repo(lua);
	assert_int_equal(mkdir("repo/dir.db", 0755), 0); /* a directory where the ledger should be */
	assert_int_equal(fx_tdaudit("repo", "e.log", export), 2);
	assert_non_null(strstr(fx_slurp("e.log"), "tdaudit ledger export: cannot open ledger "));
	assert_non_null(strstr(fx_slurp("e.log"), "/dir.db"));
	assert_int_equal(fx_tdaudit("repo", "m.log", mutate), 2);
	assert_non_null(strstr(fx_slurp("m.log"), "tdaudit mutate: cannot open ledger "));
	assert_null(strstr(fx_slurp("m.log"), "building scratch trees"));
}

static const struct CMUnitTest tests[] = {
	cmocka_unit_test(test_a_tdaudit_lua_that_is_not_lua_is_refused_with_its_line),
	cmocka_unit_test(test_a_missing_tdaudit_lua_says_where_it_must_be),
	cmocka_unit_test(test_a_ledger_that_cannot_be_opened_is_refused_naming_it),
};

TD_TEST_GROUP(badinput, tests);
