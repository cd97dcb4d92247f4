/*
 * test_examples.c - the runner styles of the worked examples
 * (docs/examples/), each on a small fixture of the same shape, reproduced
 * and mutated end to end:
 *   cmake_ctest  CMake + ctest, one test per test file (cJSON): a fix
 *                whose new test file is registered in CMakeLists.txt
 *   binaries     plain make, one test file built twice into two programs
 *                that exit non-zero on failure, one of them with -DLINKS
 *                (jsmn): tests_of names both, the run command is the
 *                program, and only the LINKS program guards the fix
 *   golden       programs whose output is compared with NAME.ans, a fix
 *                that shows only under a variant's flags (uthash)
 *
 * What these tests guard: tdaudit mutate --list --file harness/testrun.c
 *   and --list --file harness/reproduce.c
 *
 * Edits seen breaking these tests that the catalogue may not hold:
 *   - td_strv_subst() replacing "{test}" only where it is a whole argument
 *     (ctest -R '^{test}$' then matches nothing) -> a_cmake_ctest_project_...
 */
#define _XOPEN_SOURCE 700
#include "tdtest.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fixture.h"

static int td(const char *log, const char *const *args)
{
	unlink(log); /* fx_run appends */
	return fx_tdaudit("repo", log, args);
}

/* Whether the program name runs here (sh -c 'command -v NAME'). */
static int have(const char *name)
{
	const char *argv[] = {"sh", "-c", NULL, NULL};
	char cmd[128];

	snprintf(cmd, sizeof cmd, "command -v %s", name);
	argv[2] = cmd;
	return fx_run(".", "have.log", argv) == 0;
}

static const char clamp_bug[] = "int clamp(int x)\n{\n\treturn x;\n}\n";
static const char clamp_fix[] = "int clamp(int x)\n{\n\treturn x < 0 ? 0 : x;\n}\n";

/* ---- cmake_ctest ------------------------------------------------------------- */

static const char cmake_lists[] =
	"cmake_minimum_required(VERSION 3.13)\nproject(calc C)\n"
	"add_library(calc STATIC calc.c)\nenable_testing()\n"
	"foreach(t %s)\n"
	"  add_executable(${t} tests/${t}.c)\n  target_link_libraries(${t} calc)\n"
	"  add_test(NAME ${t} COMMAND ${t})\nendforeach()\n";

static const char ctest_config[] =
	"build { \"sh\", \"-c\", \"cmake -S . -B build >/dev/null && cmake --build build >/dev/null\" }\n"
	"runner { list = { \"sh\", \"-c\", \"ctest --test-dir build -N | sed -n 's/^ *Test *#[0-9]*: //p'\" },\n"
	"         run = { \"ctest\", \"--test-dir\", \"build\", \"-R\", \"^{test}$\", \"--no-tests=error\",\n"
	"                 \"--output-on-failure\" } }\n"
	"sources { \"calc.c\" }\ntests { \"tests/*.c\", \"CMakeLists.txt\" }\n"
	"catalogues { \"cat.lua\" }\ntimeout { factor = 10, floor = 10 }\n";

/*
 * C0 has one ctest test, check_zero; C1 fixes clamp() and registers a new
 * test file, check_clamp, in CMakeLists.txt. check_clamp guards C1 (its
 * CMakeLists.txt is test code, kept in the before state), and a mutant that
 * puts the bug back is killed by it: ctest's output names the test it ran.
 */
static void test_a_cmake_ctest_project_reproduces_its_fix_and_kills_its_mutant(void **state)
{
	const char *repro[] = {"reproduce", "HEAD", NULL};
	const char *mutate[] = {"mutate", "-j", "1", NULL};
	char text[1024];

	(void)state;
	if (!have("cmake") || !have("ctest"))
		skip(); /* cmake is no dependency of tdaudit's */
	snprintf(text, sizeof text, cmake_lists, "check_zero");
	fx_write("repo", "CMakeLists.txt", text);
	fx_write("repo", "calc.c", clamp_bug);
	fx_write("repo", "tests/check_zero.c", "int clamp(int);\nint main(void)\n{\n"
					       "\treturn clamp(0) != 0;\n}\n");
	fx_write("repo", "tdaudit.lua", ctest_config);
	fx_write("repo", "cat.lua",
		 "mutant { name = \"calc-no-clamp\", file = \"calc.c\", find = \"x < 0 ? 0 : x\",\n"
		 "  replace = \"x\", guards = { \"check_clamp\" }, designed_against = \"x\",\n"
		 "  why = \"puts the bug back\" }\n");
	fx_git_commit_all("repo", "C0");
	snprintf(text, sizeof text, cmake_lists, "check_zero check_clamp");
	fx_write("repo", "CMakeLists.txt", text);
	fx_write("repo", "calc.c", clamp_fix);
	fx_write("repo", "tests/check_clamp.c", "int clamp(int);\nint main(void)\n{\n"
						"\treturn clamp(-5) != 0;\n}\n");
	fx_git_commit_all("repo", "C1 clamp clamps");
	assert_int_equal(td("r.log", repro), 0);
	assert_non_null(strstr(fx_slurp("r.log"), "check_clamp: a test file of that name changed"));
	assert_true(fx_has_row("r.log", "check_clamp fail 2/2 pass 2/2 guard"));
	assert_null(strstr(fx_slurp("r.log"), "check_zero")); /* not changed by C1 */
	assert_int_equal(td("m.log", mutate), 0);
	assert_non_null(strstr(fx_slurp("m.log"), "killed by check_clamp"));
}

/* ---- binaries ---------------------------------------------------------------- */

/* With LINKS, the bug is only in the code under #ifdef LINKS. */
static const char parse_bug[] =
	"int parse(int x)\n{\n#ifdef LINKS\n\treturn x;\n#else\n\treturn x < 0 ? 0 : x;\n#endif\n}\n";
static const char parse_fix[] =
	"int parse(int x)\n{\n#ifdef LINKS\n\treturn x < 0 ? 0 : x + 0;\n#else\n"
	"\treturn x < 0 ? 0 : x;\n#endif\n}\n";

/* The Makefile builds and runs each program at once, as jsmn's does. */
static const char binaries_makefile[] =
	"test: test_default test_links\n"
	"test_default: test/tests.c parse.c\n\t$(CC) $(CFLAGS) test/tests.c parse.c -o test/$@\n\t./test/$@\n"
	"test_links: test/tests.c parse.c\n\t$(CC) -DLINKS $(CFLAGS) test/tests.c parse.c -o test/$@\n"
	"\t./test/$@\n";

static const char binaries_config[] =
	"build { \"sh\", \"-c\", \"cmds=$(make -n test \\\"$@\\\") && "
	"printf '%s\\\\n' \\\"$cmds\\\" | grep -v '^\\\\./' | sh -e\", \"build\" }\n"
	"runner { list = { \"sh\", \"-c\", \"echo test_default; echo test_links\" },\n"
	"         run = { \"test/{test}\" }, fail_text = \"(at line \",\n"
	"         tests_of = { [\"test/tests.c\"] = { \"test_default\", \"test_links\" } } }\n"
	"sources { \"parse.c\" }\ntests { \"test/*.c\", \"Makefile\" }\n"
	"catalogues { \"cat.lua\" }\ntimeout { factor = 10, floor = 5 }\n";

/*
 * One test file, two programs that print nothing on success (the second
 * built with -DLINKS), run as test/{test}. The build runs the Makefile's
 * recipe less the lines that run a program, so a failing test does not
 * fail the build. The fix is in LINKS code: test_links guards it,
 * test_default pins it. The mutant in the LINKS branch is killed by
 * test_links alone, which prints its failure yet exits 0: fail_text sees it.
 */
static void test_one_test_file_built_into_two_programs_guards_under_one(void **state)
{
	const char *repro[] = {"reproduce", "HEAD", NULL};
	const char *mutate[] = {"mutate", "-j", "1", NULL};

	(void)state;
	fx_write("repo", "Makefile", binaries_makefile);
	fx_write("repo", "parse.c", parse_bug);
	fx_write("repo", "test/tests.c", "#include <stdio.h>\nint parse(int);\n"
					 "int main(void)\n{\n\treturn parse(1) != 1;\n}\n");
	fx_write("repo", "tdaudit.lua", binaries_config);
	fx_write("repo", "cat.lua",
		 "mutant { name = \"parse-links-negative\", file = \"parse.c\", find = \"x < 0 ? 0 : x + 0\",\n"
		 "  replace = \"x + 0\", guards = { \"test_links\" }, designed_against = \"x\",\n"
		 "  why = \"puts the bug back\" }\n");
	fx_git_commit_all("repo", "C0");
	fx_write("repo", "parse.c", parse_fix);
	fx_write("repo", "test/tests.c",
		 "#include <stdio.h>\nint parse(int);\n"
		 "int main(void)\n{\n\tif (parse(-5) != 0)\n"
		 "\t\tprintf(\"FAILED: negative (at line %d)\\n\", __LINE__);\n" /* exit 0 */
		 "\treturn parse(1) != 1;\n}\n");
	fx_git_commit_all("repo", "C1 parse with links");
	if (td("r.log", repro) != 0)
		fail_msg("reproduce: %s", fx_slurp("r.log"));
	assert_true(fx_has_row("r.log", "test_default pass 2/2 pass 2/2 pin"));
	assert_true(fx_has_row("r.log", "test_links fail 2/2 pass 2/2 guard"));
	assert_int_equal(td("m.log", mutate), 0);
	assert_non_null(strstr(fx_slurp("m.log"), "killed by test_links"));
}

/* ---- golden ------------------------------------------------------------------ */

/*
 * Each test a program whose output must equal tests/NAME.ans, built by a
 * Makefile in tests/; the bug shows only with -DBLOOM, which the variant
 * bloom passes through EXTRA_CFLAGS. Under --variants all the fix's test
 * is a pin under default and a guard under bloom, and the run holds (exit
 * 0): a claim holds when one variant bears it out.
 */
static void test_a_golden_output_fix_that_shows_under_one_variant_is_a_guard_there(void **state)
{
	const char *repro[] = {"reproduce", "HEAD", "--variants", "all", NULL};

	(void)state;
	fx_write("repo", "tests/Makefile",
		 "CFLAGS = -I../src $(EXTRA_CFLAGS)\n"
		 "test1: test1.c ../src/calc.h\n\t$(CC) $(CFLAGS) -o $@ $@.c\n");
	fx_write("repo", "src/calc.h", "#ifdef BLOOM\n#define CLAMP(x) (x)\n#else\n"
				       "#define CLAMP(x) ((x) < 0 ? 0 : (x))\n#endif\n");
	fx_write("repo", "tests/test1.c", "#include <stdio.h>\n#include \"calc.h\"\n"
					  "int main(void)\n{\n\tprintf(\"%d\\n\", CLAMP(1));\n\treturn 0;\n}\n");
	fx_write("repo", "tests/test1.ans", "1\n");
	fx_write("repo", "tdaudit.lua",
		 "build { \"sh\", \"-c\", \"cd tests && make -B test1 \\\"$@\\\"\", \"build\" }\n"
		 "runner { list = { \"sh\", \"-c\", \"echo test1\" },\n"
		 "         run = { \"sh\", \"-c\", \"cd tests && ./{test} > {test}.out && "
		 "diff {test}.out {test}.ans\" } }\n"
		 "sources { \"src/*.h\" }\ntests { \"tests/*.c\", \"tests/*.ans\", \"tests/Makefile\" }\n"
		 "timeout { factor = 10, floor = 5 }\n"
		 "variant { name = \"bloom\", args = { \"EXTRA_CFLAGS=-DBLOOM\" } }\n");
	fx_git_commit_all("repo", "C0");
	fx_write("repo", "src/calc.h", "#define CLAMP(x) ((x) < 0 ? 0 : (x))\n");
	fx_write("repo", "tests/test1.c", "#include <stdio.h>\n#include \"calc.h\"\n"
					  "int main(void)\n{\n\tprintf(\"%d %d\\n\", CLAMP(1), CLAMP(-5));\n"
					  "\treturn 0;\n}\n");
	fx_write("repo", "tests/test1.ans", "1 0\n");
	fx_git_commit_all("repo", "C1 clamp with BLOOM");
	assert_int_equal(td("r.log", repro), 0);
	assert_true(fx_has_row("r.log", "test1 pass 2/2 pass 2/2 pin default"));
	assert_true(fx_has_row("r.log", "test1 fail 2/2 pass 2/2 guard bloom"));
	assert_non_null(strstr(fx_slurp("r.log"), "test1: pin under default, guard under bloom"));
}

static const struct CMUnitTest tests[] = {
	cmocka_unit_test(test_a_cmake_ctest_project_reproduces_its_fix_and_kills_its_mutant),
	cmocka_unit_test(test_one_test_file_built_into_two_programs_guards_under_one),
	cmocka_unit_test(test_a_golden_output_fix_that_shows_under_one_variant_is_a_guard_there),
};
TD_TEST_GROUP(examples, tests);
