/*
 * test_reproduce.c - tdaudit reproduce end to end, on a fixture repository
 * built in the test's temporary directory with git: a function, a test
 * runner honouring the list / run-one interface, a Makefile, tdaudit.lua,
 * and a history with one commit per verdict:
 *   C0 root      add() subtracts; test_add_zero (passes either way)
 *   C1 fix       add() adds; test_add                     -> guard (test_add_zero: pin)
 *   C2 mul       mul.c added with test_mul                -> no-build before
 *                (mul.c must be gone from the before state)
 *   C3 big       calc.c touched; test_add_big fails       -> broken
 *   C4 flaky     calc.c touched; test_flaky fails every other run -> flaky
 *   C5 tests     t.c only                                 -> nothing to revert
 *
 * What these tests guard: tdaudit mutate --list --file harness/reproduce.c
 *   and --list --file harness/repo.c
 *   and --list --file harness/mutate.c
 *   and --list --file ledger/debugmd.c
 *
 * Edits seen breaking these tests that the catalogue may not hold:
 *   - build_state() without the not-rebuilt check (the old code)
 *     -> a_before_state_the_build_did_not_rebuild_is_no_verdict (a pin)
 *   - td_reproduce() not calling record() -> a_guard_fails_... (the ledger)
 *   - choose_tests() not looking at DEBUG.md's findings
 *     -> guards_and_pins_come_from_debug_md
 *   - scan_line() reading removed lines as added and the other way round;
 *     find_runners() calling a name it drops a helper's, when test_notes
 *     is a file named in a comment (DEBUG.md #26) [cat]
 *     -> without_citations_the_commits_own_tests_are_run
 *   - reproduce_one() without the root-commit check; load_doc() returning
 *     0 for a missing DEBUG.md with --all; td_repo_open() without the
 *     shallow check [cat] -> bad_input_exits_2_with_a_clear_message
 *   - reproduce_one() not saying it took the first parent of a merge
 *     -> a_merge_commit_is_reverted_against_its_first_parent
 *   - check_claims() without its no-build case ("NO GUARD" for tests that
 *     never ran before the fix)
 *     -> tests_from_the_diff_that_do_not_build_before_are_no_evidence
 *   - reproduce_all() stopping after the first finding
 *     -> all_reproduces_every_finding_with_a_fix_commit
 *   - reproduce_all() exiting 0 past DEBUG.md lines that do not parse
 *     -> all_fails_when_a_debug_md_line_does_not_parse
 *   - add_file_names() not asking td_runner_tests_of() (only the file's
 *     stem, which no runner lists) -> tests_of_names_the_tests_a_changed_test_file_holds
 *
 * --at-head (HEAD = C5, or C6/C7 committed on top by the test):
 *   - writes_to_memory() not called from td_repo_open() [cat]: the revert's
 *     content-merged calc.c lands in .git/objects (26 files -> 27)
 *     -> at_head_writes_no_object_and_leaves_the_users_index_tree_and_head
 *   - list_conflicts() counting conflicts in test files [cat]; list_reverted()
 *     taking test files from the revert (duplicates: write_state() refuses)
 *     or not taking HEAD's (t.c missing) [cat];
 *     write_state() building the fix, not HEAD, as after; record() writing
 *     at_head NULL -> at_head_a_fix_that_still_reverts_shows_its_guard_still_guards
 *   - check_revert() reporting a conflict with status 0 [cat];
 *     td_repo_materialise_revert() never saying unchanged
 *     -> at_head_a_fix_that_no_longer_reverts_is_a_conflict_never_a_pass
 *   - open_repo() not asking owner_problem() [cat]
 *     -> a_repository_owned_by_another_user_is_refused_saying_what_to_do
 */
#define _XOPEN_SOURCE 700
#include "tdtest.h"

#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <sqlite3.h>

#include "../base/error.h"
#include "../harness/reproduce.h"
#include "../harness/testrun.h"
#include "../ledger/ledger.h"
#include "fixture.h"

/* The runner: `./t --list`, `./t NAME` (prints NAME, exit 0 pass / 1 fail). */
static const char t_head[] =
	"#include <stdio.h>\n#include <string.h>\n"
	"int add(int, int); int mul(int, int);\n"
	"static int flip(void)\n{\n\tFILE *f = fopen(\"flaky.count\", \"r\");\n\tint n = 0;\n\n"
	"\tif (f) {\n\t\tif (fscanf(f, \"%d\", &n) != 1)\n\t\t\tn = 0;\n\t\tfclose(f);\n\t}\n"
	"\tif ((f = fopen(\"flaky.count\", \"w\"))) {\n\t\tfprintf(f, \"%d\\n\", n + 1);\n"
	"\t\tfclose(f);\n\t}\n\treturn n % 2;\n}\n";

static const char t_main[] =
	"int main(int argc, char **argv)\n{\n"
	"\t(void)flip;\n"
	"\tfor (unsigned i = 0; i < sizeof tests / sizeof tests[0]; i++) {\n"
	"\t\tif (argc > 1 && !strcmp(argv[1], \"--list\")) { puts(tests[i].name); continue; }\n"
	"\t\tif (argc > 1 && !strcmp(argv[1], tests[i].name)) {\n"
	"\t\t\tint ok = tests[i].fn();\n"
	"\t\t\tprintf(\"%s %s\\n\", tests[i].name, ok ? \"ok\" : \"FAILED\");\n"
	"\t\t\treturn !ok;\n\t\t}\n\t}\n"
	"\treturn argc > 1 && strcmp(argv[1], \"--list\") ? 2 : 0;\n}\n";

/* Every test the history ever has: name, body; the first n are in t.c. */
static const char *const all_tests[][2] = {
	{"test_add_zero", "add(0, 0) == 0"}, /* C0 */
	{"test_add", "add(2, 3) == 5 /* more in test_notes.txt */"}, /* C1 */
	{"test_mul", "mul(2, 3) == 6"},      /* C2 */
	{"test_add_big", "add(1, 1) == 3"},  /* C3 */
	{"test_flaky", "flip()"},            /* C4 */
	{"test_add_neg", "add(-1, 1) == 0"}, /* C5 */
	{"test_zero", "add(0, 0) + 0 == 0"}, /* only in the --at-head tests */
};

/* Writes repo/t.c with the first n tests of all_tests. */
static void write_t(int n)
{
	char text[8192];
	size_t len = (size_t)snprintf(text, sizeof text, "%s", t_head);

	for (int i = 0; i < n; i++)
		len += (size_t)snprintf(text + len, sizeof text - len,
					"static int %s(void)\n{\n\treturn %s;\n}\n\n", all_tests[i][0],
					all_tests[i][1]);
	len += (size_t)snprintf(text + len, sizeof text - len,
				"static const struct { const char *name; int (*fn)(void); } tests[] = {\n");
	for (int i = 0; i < n; i++)
		len += (size_t)snprintf(text + len, sizeof text - len, "\t{\"%s\", %s},\n",
					all_tests[i][0], all_tests[i][0]);
	snprintf(text + len, sizeof text - len, "};\n%s", t_main);
	fx_write("repo", "t.c", text);
}

static const char config[] =
	"build { \"make\", \"-s\" }\n"
	"runner { list = { \"./t\", \"--list\" }, run = { \"./t\", \"{test}\" } }\n"
	"sources { \"*.c\" }\n"
	"tests { \"t.c\", \"Makefile\" }\n"
	"ledger \".tdaudit/ledger.db\"\n"
	"timeout { factor = 5, floor = 5 }\n";

static char ids[6][41]; /* C0 .. C5 */

/* Commits calc.c and t.c (first n_tests tests) as commit number k. */
static void commit(int k, const char *calc, int n_tests, const char *msg)
{
	fx_write("repo", "calc.c", calc);
	write_t(n_tests);
	fx_git_commit_all("repo", msg);
	snprintf(ids[k], sizeof ids[k], "%s", fx_git_rev("repo", "HEAD"));
}

/* The fixture history C0 .. C5 in ./repo. */
static void make_history(void)
{
	static const char add_bad[] = "int add(int a, int b)\n{\n\treturn a - b;\n}\n";
	static const char add_ok[] = "int add(int a, int b)\n{\n\treturn a + b;\n}\n";

	fx_write("repo", "Makefile", "t: t.c calc.c $(wildcard mul.c)\n"
				     "\tcc -O0 -o t t.c calc.c $(wildcard mul.c)\n");
	fx_write("repo", "tdaudit.lua", config);
	commit(0, add_bad, 1, "C0: add subtracts");
	commit(1, add_ok, 2, "C1: add adds");
	fx_write("repo", "mul.c", "int mul(int a, int b)\n{\n\treturn a * b;\n}\n");
	commit(2, add_ok, 3, "C2: mul");
	commit(3, "/* big */\n" "int add(int a, int b)\n{\n\treturn a + b;\n}\n", 4, "C3: big");
	commit(4, "/* flaky */\n" "int add(int a, int b)\n{\n\treturn a + b;\n}\n", 5, "C4: flaky");
	write_t(6);
	fx_git_commit_all("repo", "C5: tests only");
	snprintf(ids[5], sizeof ids[5], "%s", fx_git_rev("repo", "HEAD"));
}

/* DEBUG.md with finding 1 fixed by C1 (guard and pin cited as given) and 2 by `fix2`. */
static void write_debug_md(const char *guards1, const char *fix2, const char *guards2)
{
	char text[4096];

	snprintf(text, sizeof text,
		 "# DEBUG.md\n\n"
		 "| # | Where | Severity | Found by | Status |\n"
		 "|---|---|---|---|---|\n"
		 "| 1 | `calc.c` | high | test | fixed, `%.7s` |\n"
		 "| 2 | `calc.c` | low | test | fixed, `%.7s` |\n\n"
		 "## 1. add subtracted\n\n%s\n\n"
		 "## 2. the second one\n\n%s\n",
		 ids[1], fix2, guards1, guards2);
	fx_write("repo", "DEBUG.md", text);
}

/* Runs tdaudit with args in ./repo, its output (stdout and stderr) in log. */
static int td(const char *log, const char *const *args)
{
	unlink(log); /* fx_run appends */
	return fx_tdaudit("repo", log, args);
}

/* Whether the log has the table row "test before after verdict" (blanks squeezed). */
static int has_row(const char *log, const char *test, const char *before, const char *after,
		   const char *verdict)
{
	char want[512];

	snprintf(want, sizeof want, "%s %s %s %s", test, before, after, verdict);
	return fx_has_row(log, want);
}

static void test_a_guard_fails_before_the_fix_and_passes_after(void **state)
{
	const char *args[] = {"reproduce", ids[1], "--guard", "test_add", NULL};
	td_ledger *lg = NULL;
	int ok = 0;

	(void)state;
	make_history();
	args[1] = ids[1];
	assert_int_equal(td("r.log", args), 0);
	assert_true(has_row("r.log", "test_add", "fail 2/2", "pass 2/2", "guard"));
	assert_int_equal(td_ledger_open(&lg, "repo/.tdaudit/ledger.db", 0), 0);
	assert_int_equal(td_ledger_guard_verified(&ok, lg, ids[1], "test_add"), 0);
	td_ledger_free(lg);
	assert_int_equal(ok, 1);
}

/*
 * A fail and a timeout before the fix are two failures: a guard, agreed by
 * both pairs. They used to make the before state "mixed", so the verdict
 * was flaky and the table said "pass 0/2" (DEBUG.md #40): make audit failed
 * on a loaded machine where one of a guard's failing runs ran past its limit.
 */
static void test_a_fail_and_a_timeout_before_the_fix_make_a_guard(void **state)
{
	const int before[] = {TD_TEST_FAIL, TD_TEST_TIMEOUT}, after[] = {TD_TEST_PASS, TD_TEST_PASS};
	const int mixed[] = {TD_TEST_PASS, TD_TEST_TIMEOUT};
	int k = 0;

	(void)state;
	assert_string_equal(td_reproduce_verdict(&k, before, 1, after, 2), "guard");
	assert_int_equal(k, 2);
	/* a pass among them is still flaky: one run did not fail */
	assert_string_equal(td_reproduce_verdict(&k, mixed, 1, after, 2), "flaky");
	/* after the fix a timeout is no pass */
	assert_string_equal(td_reproduce_verdict(&k, after, 1, before, 2), "broken");
}

static void test_a_test_that_passes_both_ways_is_a_pin_not_a_guard(void **state)
{
	const char *args[] = {"reproduce", "HEAD", "--guard", "test_add_zero", NULL};

	(void)state;
	make_history();
	args[1] = ids[1];
	assert_int_equal(td("r.log", args), 1);
	assert_true(has_row("r.log", "test_add_zero", "pass 2/2", "pass 2/2", "pin"));
	assert_non_null(strstr(fx_slurp("r.log"), "NOT A GUARD: test_add_zero"));
}

static void test_guards_and_pins_come_from_debug_md(void **state)
{
	const char *args[] = {"reproduce", "HEAD", NULL};

	(void)state;
	make_history();
	write_debug_md("**Guarded by** `test_add`.\n\n**Pins** `test_add_zero`.", "0000000",
		       "**Guarded by** none, it is prose.");
	args[1] = ids[1];
	assert_int_equal(td("r.log", args), 0);
	assert_non_null(strstr(fx_slurp("r.log"), "finding #1 cites this commit"));
	assert_true(has_row("r.log", "test_add", "fail 2/2", "pass 2/2", "guard"));
	assert_true(has_row("r.log", "test_add_zero", "pass 2/2", "pass 2/2", "pin"));
	/* the same tests, cited the other way round, are both wrong */
	write_debug_md("**Guarded by** `test_add_zero`.\n\n**Pins** `test_add`.", "0000000",
		       "**Guarded by** none, it is prose.");
	assert_int_equal(td("r.log", args), 1);
	assert_non_null(strstr(fx_slurp("r.log"), "NOT A GUARD: test_add_zero"));
	assert_non_null(strstr(fx_slurp("r.log"), "NOT A PIN: test_add"));
}

static void test_without_citations_the_commits_own_tests_are_run(void **state)
{
	const char *args[] = {"reproduce", "HEAD", NULL};

	(void)state;
	make_history();
	write_debug_md("**Guarded by** none, for the test.", "0000000", "**Guarded by** none.");
	args[1] = ids[1];
	assert_int_equal(td("r.log", args), 0);
	assert_non_null(strstr(fx_slurp("r.log"), "test functions it added or changed"));
	assert_true(has_row("r.log", "test_add", "fail 2/2", "pass 2/2", "guard"));
	assert_null(strstr(fx_slurp("r.log"), "test_add_zero")); /* not changed by C1 */
	/* a name from a comment on a changed line: said to be dropped as what it is */
	assert_non_null(strstr(fx_slurp("r.log"), "test_notes: no runner lists this name from a "
						"changed line: not a test, skipped"));
}

/* A third-party repository has no DEBUG.md: one commit is still reproduced, from its diff. */
static void test_without_debug_md_the_commits_own_tests_are_run(void **state)
{
	const char *args[] = {"reproduce", "HEAD", NULL};

	(void)state;
	make_history();
	args[1] = ids[1];
	assert_int_equal(td("r.log", args), 0);
	assert_non_null(strstr(fx_slurp("r.log"), "no DEBUG.md at "));
	assert_non_null(strstr(fx_slurp("r.log"), "taking the test functions it added or changed"));
	assert_true(has_row("r.log", "test_add", "fail 2/2", "pass 2/2", "guard"));
}

/*
 * Nothing to infer: a commit touching no test file is refused before any
 * build; one whose changed test file and names no runner lists, after the
 * build that lists them. Both say to name the guards.
 */
static void test_a_commit_with_no_test_to_infer_is_refused_saying_what_to_do(void **state)
{
	const char *args[] = {"reproduce", "HEAD", NULL};
	char t[8192];

	(void)state;
	make_history();
	fx_write("repo", "calc.c", "/* faster */\nint add(int a, int b)\n{\n\treturn a + b;\n}\n");
	fx_git_commit_all("repo", "C6: calc.c alone");
	assert_int_equal(td("r.log", args), 2);
	assert_non_null(strstr(fx_slurp("r.log"), "no test file and no test_ name; name the guards"));
	assert_null(strstr(fx_slurp("r.log"), "building"));
	snprintf(t, sizeof t, "/* checked */\n%s", fx_slurp("repo/t.c"));
	fx_write("repo", "t.c", t);
	fx_write("repo", "calc.c", "int add(int a, int b)\n{\n\treturn a + b;\n}\n");
	fx_git_commit_all("repo", "C7: a comment in t.c");
	assert_int_equal(td("r.log", args), 2);
	assert_non_null(strstr(fx_slurp("r.log"), "no test a runner lists; name the guards"));
}

/* The directory a run's "tdaudit CMD: logs in DIR" line names, into out. */
static void logs_dir(char *out, size_t size, const char *log)
{
	const char *p = strstr(fx_slurp(log), ": logs in ");

	assert_non_null(p);
	snprintf(out, size, "%.*s", (int)strcspn(p + 10, "\n"), p + 10);
}

/*
 * Every reproduction's build and test output stays in its run's directory
 * of logs, one file per fix, state and test run, so a later fix (or a
 * later run) does not empty the log a message pointed to, as it did when
 * each run wrote logs/reproduce-build-before.log again.
 */
static void test_each_fix_keeps_its_build_and_test_logs(void **state)
{
	const char *first[] = {"reproduce", ids[1], "--guard", "test_add", NULL};
	const char *second[] = {"reproduce", ids[3], "--guard", "test_add", NULL};
	char dir[4096], path[4400];

	(void)state;
	make_history();
	assert_int_equal(td("r.log", first), 0);
	logs_dir(dir, sizeof dir, "r.log");
	assert_int_equal(td("r2.log", second), 1); /* a pin: test_add passes before C3 too */
	snprintf(path, sizeof path, "%s/%.7s-before-test_add-1.log", dir, ids[1]);
	assert_string_equal(fx_slurp(path), "test_add FAILED\n");
	snprintf(path, sizeof path, "%s/%.7s-after-test_add-2.log", dir, ids[1]);
	assert_string_equal(fx_slurp(path), "test_add ok\n");
	snprintf(path, sizeof path, "%s/%.7s-build-before.log", dir, ids[1]);
	assert_int_equal(access(path, F_OK), 0);
}

/* A test name with a '/' (a runner that lists suite/test) still gets its log file. */
static void test_a_test_name_with_a_slash_is_reproduced(void **state)
{
	const char *args[] = {"reproduce", ids[1], "--guard", "t/test_add", NULL};
	static const char cfg[] =
		"build { \"make\", \"-s\" }\n"
		"runner { list = { \"sh\", \"-c\", \"./t --list | sed 's|^|t/|'\" },\n"
		"  run = { \"sh\", \"-c\", \"./t \\\"${0#t/}\\\"\", \"{test}\" } }\n"
		"sources { \"*.c\" }\n"
		"tests { \"t.c\", \"Makefile\" }\n"
		"timeout { factor = 5, floor = 5 }\n";

	(void)state;
	make_history();
	fx_write("repo", "tdaudit.lua", cfg);
	if (td("r.log", args) != 0)
		fail_msg("%s", fx_slurp("r.log"));
	assert_true(has_row("r.log", "t/test_add", "fail 2/2", "pass 2/2", "guard"));
}

/*
 * A tests glob that matches no file of the working tree (a directory
 * misspelt) would make every fix look as if it added no test: reproduce
 * and bisect say so before anything else, naming the glob; globs that
 * match say nothing.
 */
static void test_a_sources_or_tests_glob_matching_no_file_is_warned_of(void **state)
{
	const char *args[] = {"reproduce", ids[1], "--guard", "test_add", NULL};
	const char *bisect[] = {"bisect", "--guard", "test_add", "--good", ids[1], "--bad", ids[0], NULL};
	static const char cfg[] =
		"build { \"make\", \"-s\" }\n"
		"runner { list = { \"./t\", \"--list\" }, run = { \"./t\", \"{test}\" } }\n"
		"sources { \"src/**\" }\n"
		"tests { \"test/*.c\", \"Makefile\" }\n"
		"timeout { factor = 5, floor = 5 }\n";

	(void)state;
	make_history();
	assert_int_equal(td("r.log", args), 0);
	assert_null(strstr(fx_slurp("r.log"), "matches no file"));
	fx_write("repo", "tdaudit.lua", cfg);
	td("r.log", args);
	assert_non_null(strstr(fx_slurp("r.log"), "tdaudit reproduce: WARNING: tdaudit.lua's tests glob "
						  "'test/*.c' matches no file of the working tree"));
	assert_non_null(strstr(fx_slurp("r.log"), "sources glob 'src/**' matches no file"));
	assert_null(strstr(fx_slurp("r.log"), "'Makefile' matches no file"));
	td("b.log", bisect);
	assert_non_null(strstr(fx_slurp("b.log"), "tdaudit bisect: WARNING: tdaudit.lua's tests glob "
						  "'test/*.c' matches no file"));
}

/*
 * Where each test file is a test of its own (ctest, a Makefile's test
 * binaries), the runner lists file names, not functions: a commit that
 * changes tests/check_add.c is guarded by the test check_add. Here no
 * test_ word appears anywhere, so the file's name is all there is.
 */
static void test_a_changed_test_file_named_as_a_test_is_run(void **state)
{
	const char *args[] = {"reproduce", "HEAD", NULL};

	(void)state;
	fx_write("repo", "Makefile", "all: check_add check_sub\n"
				     "check_%: tests/check_%.c calc.c\n\tcc -O0 -o $@ $^\n");
	fx_write("repo", "tdaudit.lua",
		 "build { \"make\", \"-s\" }\n"
		 "runner { list = { \"sh\", \"-c\", \"echo check_add; echo check_sub\" },\n"
		 "         run = { \"sh\", \"-c\", \"echo {test}; ./{test}\" } }\n"
		 "sources { \"calc.c\" }\ntests { \"tests/*.c\", \"Makefile\" }\n");
	fx_write("repo", "calc.c", "int add(int a, int b)\n{\n\treturn a - b;\n}\n");
	fx_write("repo", "tests/check_add.c", "int add(int, int);\n"
					       "int main(void)\n{\n\treturn add(0, 0) != 0;\n}\n");
	fx_write("repo", "tests/check_sub.c", "int main(void)\n{\n\treturn 0;\n}\n");
	fx_git_commit_all("repo", "add subtracts");
	fx_write("repo", "calc.c", "int add(int a, int b)\n{\n\treturn a + b;\n}\n");
	fx_write("repo", "tests/check_add.c", "int add(int, int);\n"
					       "int main(void)\n{\n\treturn add(2, 3) != 5;\n}\n");
	fx_write("repo", "Makefile", "# the checks\nall: check_add check_sub\n"
				     "check_%: tests/check_%.c calc.c\n\tcc -O0 -o $@ $^\n");
	fx_git_commit_all("repo", "add adds");
	assert_int_equal(td("r.log", args), 0);
	assert_non_null(strstr(fx_slurp("r.log"), "check_add: a test file of that name changed"));
	assert_true(has_row("r.log", "check_add", "fail 2/2", "pass 2/2", "guard"));
	assert_null(strstr(fx_slurp("r.log"), "check_sub")); /* not changed */
	assert_null(strstr(fx_slurp("r.log"), "Makefile:")); /* a test file, but not a test */
}

/*
 * One test file, two test programs: tests/test.c builds check_g and (with
 * -DFAST) check_fast. Its name names no test, so only the runner's
 * tests_of can say which tests a change to it touches; a name tests_of
 * gives that no runner lists is skipped with a line saying so.
 */
static void test_tests_of_names_the_tests_a_changed_test_file_holds(void **state)
{
	const char *args[] = {"reproduce", "HEAD", NULL};
	const char *log;

	(void)state;
	fx_write("repo", "Makefile", "all: check_g check_fast\n"
				     "check_g: tests/test.c calc.c\n\tcc -O0 -o $@ $^\n"
				     "check_fast: tests/test.c calc.c\n\tcc -O0 -DFAST -o $@ $^\n");
	fx_write("repo", "tdaudit.lua",
		 "build { \"make\", \"-s\" }\n"
		 "runner { list = { \"sh\", \"-c\", \"echo check_g; echo check_fast\" },\n"
		 "         run = { \"sh\", \"-c\", \"echo {test}; ./{test}\" },\n"
		 "         tests_of = { [\"tests/test.c\"] = { \"check_g\", \"check_fast\", \"check_gone\" } } }\n"
		 "sources { \"calc.c\" }\ntests { \"tests/*.c\", \"Makefile\" }\n");
	fx_write("repo", "calc.c", "int add(int a, int b)\n{\n\treturn a - b;\n}\n");
	fx_write("repo", "tests/test.c", "int add(int, int);\n"
					  "int main(void)\n{\n\treturn add(0, 0) != 0;\n}\n");
	fx_git_commit_all("repo", "add subtracts");
	fx_write("repo", "calc.c", "int add(int a, int b)\n{\n\treturn a + b;\n}\n");
	fx_write("repo", "tests/test.c", "int add(int, int);\nint main(void)\n{\n#ifdef FAST\n"
					  "\treturn 0;\n#else\n\treturn add(2, 3) != 5;\n#endif\n}\n");
	fx_git_commit_all("repo", "add adds");
	assert_int_equal(td("r.log", args), 0);
	log = fx_slurp("r.log");
	assert_non_null(strstr(log, "check_g: tests_of declares it for a changed test file"));
	assert_non_null(strstr(log, "check_gone: tests_of declares it for a changed test file, but "
				    "no runner lists it"));
	assert_true(has_row("r.log", "check_g", "fail 2/2", "pass 2/2", "guard"));
	assert_true(has_row("r.log", "check_fast", "pass 2/2", "pass 2/2", "pin"));
}

static void test_pre_fix_code_that_does_not_build_is_no_build_never_a_pass(void **state)
{
	const char *args[] = {"reproduce", "HEAD", "--guard", "test_mul", NULL};

	(void)state;
	make_history();
	args[1] = ids[2];
	assert_int_equal(td("r.log", args), 1);
	assert_non_null(strstr(fx_slurp("r.log"), "before: the build failed"));
	assert_non_null(strstr(fx_slurp("r.log"), "no-build"));
	assert_non_null(strstr(fx_slurp("r.log"), "changes 1 source file (mul.c)"));
	assert_true(has_row("r.log", "test_mul", "no-build", "pass 2/2", "no-build"));
}

/* Tests taken from the diff that only show no-build: no evidence, never "no guard". */
static void test_tests_from_the_diff_that_do_not_build_before_are_no_evidence(void **state)
{
	const char *args[] = {"reproduce", "HEAD", NULL};

	(void)state;
	make_history();
	args[1] = ids[2];
	assert_int_equal(td("r.log", args), 1);
	assert_true(has_row("r.log", "test_mul", "no-build", "pass 2/2", "no-build"));
	assert_non_null(strstr(fx_slurp("r.log"), "NO EVIDENCE: the code before the fix does not build"));
	assert_null(strstr(fx_slurp("r.log"), "NO GUARD"));
}

static void test_files_outside_sources_are_kept_as_in_the_fix(void **state)
{
	const char *args[] = {"reproduce", "HEAD", "--guard", "test_mul", NULL};
	char cfg[sizeof config + 8];
	const char *glob;

	(void)state;
	make_history();
	/* mul.c is no longer a source: C2 then changes no source, nothing reverts */
	glob = strstr(config, "\"*.c\"");
	snprintf(cfg, sizeof cfg, "%.*s\"calc.c\"%s", (int)(glob - config), config, glob + 5);
	fx_write("repo", "tdaudit.lua", cfg);
	args[1] = ids[2];
	assert_int_equal(td("r.log", args), 0);
	assert_non_null(strstr(fx_slurp("r.log"), "1 other file kept as in the fix (mul.c)"));
	assert_non_null(strstr(fx_slurp("r.log"), "nothing to revert: it changes no source file"));
}

/*
 * --guard with a name no runner lists is refused before anything runs: it
 * used to be run anyway, fail after the fix (no such test), and go into the
 * ledger as a broken guard (DEBUG.md #41).
 */
static void test_a_guard_no_runner_lists_is_refused(void **state)
{
	const char *args[] = {"reproduce", NULL, "--guard", "test_no_such_test", NULL};
	td_ledger *lg = NULL;
	int ok = 1;

	(void)state;
	make_history();
	args[1] = ids[1];
	assert_int_equal(td("r.log", args), 2);
	assert_non_null(strstr(fx_slurp("r.log"), "--guard test_no_such_test: no runner lists a test "
						  "of that name at the fix"));
	assert_false(has_row("r.log", "test_no_such_test", "fail 2/2", "fail 2/2", "broken"));
	if (td_ledger_open(&lg, "repo/.tdaudit/ledger.db", 0) == 0) {
		assert_int_equal(td_ledger_guard_verified(&ok, lg, ids[1], "test_no_such_test"), 0);
		td_ledger_free(lg);
		assert_int_equal(ok, 0);
	}
}

static void test_a_test_failing_after_the_fix_is_broken(void **state)
{
	const char *args[] = {"reproduce", "HEAD", "--guard", "test_add_big", NULL};

	(void)state;
	make_history();
	args[1] = ids[3];
	assert_int_equal(td("r.log", args), 1);
	assert_true(has_row("r.log", "test_add_big", "fail 2/2", "fail 2/2", "broken"));
}

static void test_outcomes_that_differ_between_runs_are_flaky(void **state)
{
	const char *args[] = {"reproduce", "HEAD", "--guard", "test_flaky", NULL};

	(void)state;
	make_history();
	args[1] = ids[4];
	assert_int_equal(td("r.log", args), 1);
	/* runs 1, 2 after the fix fail then pass; 3, 4 before it fail then pass */
	assert_true(has_row("r.log", "test_flaky", "pass 1/2", "pass 1/2", "flaky"));
}

static void test_a_commit_changing_only_tests_has_nothing_to_revert(void **state)
{
	const char *args[] = {"reproduce", "HEAD", "--guard", "test_add_neg", NULL};

	(void)state;
	make_history();
	assert_int_equal(td("r.log", args), 0);
	assert_non_null(strstr(fx_slurp("r.log"), "nothing to revert"));
	assert_null(strstr(fx_slurp("r.log"), "building"));
	assert_int_equal(access("repo/.tdaudit/ledger.db", F_OK), -1); /* nothing recorded */
}

static void test_bad_input_exits_2_with_a_clear_message(void **state)
{
	const char *unknown[] = {"reproduce", "feedface", "--guard", "test_add", NULL};
	const char *root[] = {"reproduce", "HEAD", "--guard", "test_add", NULL};
	const char *no_md[] = {"reproduce", "--all", NULL};
	const char *bare[] = {"git", "init", "-q", "--bare", "bare.git", NULL};
	const char *plain[] = {"reproduce", "HEAD", "--guard", "test_add", "--root", "../plain", NULL};
	const char *in_bare[] = {"reproduce", "HEAD", "--guard", "x", "--root", "../bare.git", NULL};
	const char *in_shallow[] = {"reproduce", "HEAD", "--guard", "x", "--root", "../shallow", NULL};
	const char *usage[] = {"reproduce", "--all", "HEAD", NULL};
	char url[4200], cwd[4096];
	const char *clone[] = {"git", "clone", "-q", "--depth", "1", url, "shallow", NULL};

	(void)state;
	make_history();
	assert_int_equal(td("r.log", unknown), 2);
	assert_non_null(strstr(fx_slurp("r.log"), "unknown commit 'feedface'"));
	root[1] = ids[0];
	assert_int_equal(td("r.log", root), 2);
	assert_non_null(strstr(fx_slurp("r.log"), "is a root commit"));
	assert_int_equal(td("r.log", no_md), 2); /* --all has nothing else to go on */
	assert_non_null(strstr(fx_slurp("r.log"), "no DEBUG.md"));
	fx_write("plain", "tdaudit.lua", config);
	assert_int_equal(td("r.log", plain), 2);
	assert_non_null(strstr(fx_slurp("r.log"), "not a git repository"));
	assert_int_equal(fx_run(".", "git.log", bare), 0);
	assert_int_equal(td("r.log", in_bare), 2);
	assert_non_null(strstr(fx_slurp("r.log"), "bare repository"));
	assert_non_null(getcwd(cwd, sizeof cwd));
	snprintf(url, sizeof url, "file://%s/repo", cwd);
	assert_int_equal(fx_run(".", "git.log", clone), 0);
	assert_int_equal(td("r.log", in_shallow), 2);
	assert_non_null(strstr(fx_slurp("r.log"), "shallow clone"));
	assert_int_equal(td("r.log", usage), 2);
	assert_non_null(strstr(fx_slurp("r.log"), "give no COMMIT"));
}

static void test_a_merge_commit_is_reverted_against_its_first_parent(void **state)
{
	const char *branch[] = {"git", "checkout", "-q", "-b", "side", NULL};
	const char *back[] = {"git", "checkout", "-q", "main", NULL};
	const char *merge[] = {"git", "-c", "user.name=f", "-c", "user.email=f@x", "merge", "-q",
			       "--no-ff", "-m", "merge side", "side", NULL};
	const char *args[] = {"reproduce", "HEAD", "--guard", "test_add_zero", NULL};

	(void)state;
	make_history();
	assert_int_equal(fx_run("repo", "git.log", branch), 0);
	fx_write("repo", "other.c", "int other(void) { return 1; }\n");
	fx_git_commit_all("repo", "side");
	assert_int_equal(fx_run("repo", "git.log", back), 0);
	assert_int_equal(fx_run("repo", "git.log", merge), 0);
	assert_int_equal(td("r.log", args), 1); /* other.c changes nothing test_add_zero sees */
	assert_non_null(strstr(fx_slurp("r.log"), "is a merge commit (2 parents): reverting against "
						  "its first parent"));
	assert_non_null(strstr(fx_slurp("r.log"), "(other.c)"));
	assert_true(has_row("r.log", "test_add_zero", "pass 2/2", "pass 2/2", "pin"));
}

static void test_no_command_touches_the_users_tree_index_or_head(void **state)
{
	const char *add[] = {"git", "add", "calc.c", NULL};
	const char *guard[] = {"reproduce", "HEAD", "--guard", "test_add", NULL};
	const char *nobuild[] = {"reproduce", "HEAD", "--guard", "test_mul", NULL};
	const char *all[] = {"reproduce", "--all", NULL};
	const char *bisect[] = {"bisect", "--guard", "test_add", NULL};
	uint64_t before;

	(void)state;
	make_history();
	write_debug_md("**Guarded by** `test_add`.", "0000000", "**Guarded by** none.");
	fx_write("repo", "calc.c", "int add(int a, int b) { return 0; } /* staged */\n");
	assert_int_equal(fx_run("repo", "git.log", add), 0);
	fx_write("repo", "calc.c", "int add(int a, int b) { return 1; } /* unstaged */\n");
	fx_write("repo", "untracked.txt", "not committed\n");
	before = fx_tree_hash("repo");
	guard[1] = ids[1];
	assert_int_equal(td("r.log", guard), 0);
	nobuild[1] = ids[2];
	assert_int_equal(td("r.log", nobuild), 1);
	assert_int_equal(td("r.log", all), 2); /* 0000000 does not resolve */
	assert_int_equal(td("b.log", bisect), 0);
	assert_true(fx_tree_hash("repo") == before);
}

static void test_all_reproduces_every_finding_with_a_fix_commit(void **state)
{
	const char *args[] = {"reproduce", "--all", NULL};
	char fix2[8];

	(void)state;
	make_history();
	snprintf(fix2, sizeof fix2, "%.7s", ids[3]);
	write_debug_md("**Guarded by** `test_add`.", fix2, "**Guarded by** `test_add_big`.");
	assert_int_equal(td("r.log", args), 1);
	assert_non_null(strstr(fx_slurp("r.log"), "== finding #1"));
	assert_non_null(strstr(fx_slurp("r.log"), "== finding #2"));
	assert_true(has_row("r.log", "test_add", "fail 2/2", "pass 2/2", "guard"));
	assert_true(has_row("r.log", "test_add_big", "fail 2/2", "fail 2/2", "broken"));
}

/* A DEBUG.md row that does not parse fails --all: the finding it holds was never reproduced. */
static void test_all_fails_when_a_debug_md_line_does_not_parse(void **state)
{
	const char *args[] = {"reproduce", "--all", NULL};
	char text[1024];

	(void)state;
	make_history();
	snprintf(text, sizeof text,
		 "# DEBUG.md\n\n"
		 "| # | Where | Severity | Found by | Status |\n"
		 "|---|---|---|---|---|\n"
		 "| 1 | `calc.c` | high | test | fixed, `%.7s` |\n"
		 "| 2 | `calc.c` | low | test | fixed `%.7s`\n\n"
		 "## 1. add subtracted\n\n**Guarded by** `test_add`.\n",
		 ids[1], ids[3]);
	fx_write("repo", "DEBUG.md", text);
	assert_int_equal(td("r.log", args), 1);
	assert_true(has_row("r.log", "test_add", "fail 2/2", "pass 2/2", "guard"));
	assert_non_null(strstr(fx_slurp("r.log"), "1 DEBUG.md line does not parse"));
}

/* ---- --at-head ---------------------------------------------------------- */

/* The text of the first column of sql's first row in the fixture's ledger ("" if none). */
static const char *ledger_text(const char *sql)
{
	static char out[256];
	sqlite3 *db;
	sqlite3_stmt *st;

	out[0] = '\0';
	assert_int_equal(sqlite3_open_v2("repo/.tdaudit/ledger.db", &db, SQLITE_OPEN_READONLY, NULL),
			 SQLITE_OK);
	assert_int_equal(sqlite3_prepare_v2(db, sql, -1, &st, NULL), SQLITE_OK);
	if (sqlite3_step(st) == SQLITE_ROW && sqlite3_column_text(st, 0))
		snprintf(out, sizeof out, "%s", (const char *)sqlite3_column_text(st, 0));
	sqlite3_finalize(st);
	sqlite3_close(db);
	return out;
}

static void test_at_head_a_fix_that_still_reverts_shows_its_guard_still_guards(void **state)
{
	const char *args[] = {"reproduce", "--at-head", "C1", "--guard", "test_add", NULL};

	(void)state;
	make_history(); /* HEAD C5: calc.c gained a comment since C1, t.c many tests */
	args[2] = ids[1];
	assert_int_equal(td("r.log", args), 0);
	assert_non_null(strstr(fx_slurp("r.log"), "before = HEAD with the fix reverted"));
	assert_true(has_row("r.log", "test_add", "fail 2/2", "pass 2/2", "guard"));
	assert_string_equal(ledger_text("SELECT at_head FROM reproductions WHERE test = 'test_add'"),
			    ids[5]);
	assert_string_equal(ledger_text("SELECT fix_commit FROM reproductions"), ids[1]);
	/* test files stay as at HEAD: test_add_neg, added after the fix (C5), runs before too */
	args[4] = "test_add_neg";
	assert_int_equal(td("r.log", args), 0);
	assert_true(has_row("r.log", "test_add_neg", "fail 2/2", "pass 2/2", "guard"));
	/* even where the test file would revert cleanly: C6 adds test_zero, a pin, with a comment */
	fx_write("repo", "calc.c", "/* C6 */\nint add(int a, int b)\n{\n\treturn a + b;\n}\n");
	write_t(7);
	fx_git_commit_all("repo", "C6: test_zero");
	args[2] = "HEAD";
	args[4] = "test_zero";
	assert_int_equal(td("r.log", args), 1);
	assert_true(has_row("r.log", "test_zero", "pass 2/2", "pass 2/2", "pin"));
}

/* Commits calc.c as `text` on top of the fixture history. */
static void commit_calc(const char *text, const char *msg)
{
	fx_write("repo", "calc.c", text);
	fx_git_commit_all("repo", msg);
}

static void test_at_head_a_fix_that_no_longer_reverts_is_a_conflict_never_a_pass(void **state)
{
	const char *args[] = {"reproduce", "--at-head", "C1", "--guard", "test_add", NULL};
	const char *log;

	(void)state;
	make_history();
	commit_calc("/* flaky */\nint add(int a, int b)\n{\n\treturn b + a;\n}\n", "C6: b + a");
	args[2] = ids[1];
	assert_int_equal(td("r.log", args), 1);
	log = fx_slurp("r.log");
	assert_non_null(strstr(log, "conflict: the fix no longer reverts cleanly at HEAD"));
	assert_non_null(strstr(log, "\n    calc.c\n"));
	assert_null(strstr(log, "t.c\n")); /* a conflict in a test file is no conflict: HEAD's is used */
	assert_null(strstr(log, "building"));
	assert_null(strstr(log, "guard\n"));
	assert_int_equal(access("repo/.tdaudit/ledger.db", F_OK), -1); /* nothing recorded */
	/* HEAD undoing the fix by hand: the revert changes nothing */
	commit_calc("/* flaky */\nint add(int a, int b)\n{\n\treturn a - b;\n}\n", "C7: undone");
	assert_int_equal(td("r.log", args), 1);
	assert_non_null(strstr(fx_slurp("r.log"), "nothing to revert at HEAD"));
	assert_null(strstr(fx_slurp("r.log"), "building"));
}

static long n_objects;

static int count_object(const char *path, const struct stat *sb, int flag, struct FTW *ftw)
{
	(void)path, (void)sb, (void)ftw;
	n_objects += flag == FTW_F;
	return 0;
}

/* The number of files under repo/.git/objects (loose objects, packs, their indexes). */
static long objects(void)
{
	n_objects = 0;
	assert_int_equal(nftw("repo/.git/objects", count_object, 16, FTW_PHYS), 0);
	return n_objects;
}

static void test_at_head_writes_no_object_and_leaves_the_users_index_tree_and_head(void **state)
{
	const char *add[] = {"git", "add", "calc.c", NULL};
	const char *args[] = {"reproduce", "--at-head", "C1", "--guard", "test_add", NULL};
	const char *conflict[] = {"reproduce", "--at-head", "C3", "--guard", "test_add", NULL};
	uint64_t before;
	long n;

	(void)state;
	make_history();
	fx_write("repo", "calc.c", "int add(int a, int b) { return 0; } /* staged */\n");
	assert_int_equal(fx_run("repo", "git.log", add), 0);
	fx_write("repo", "calc.c", "int add(int a, int b) { return 1; } /* unstaged */\n");
	fx_write("repo", "untracked.txt", "not committed\n");
	before = fx_tree_hash("repo");
	n = objects();
	args[2] = ids[1];
	/* the revert merges calc.c by content (C3's comment, C1's line): a new blob, kept in memory */
	assert_int_equal(td("r.log", args), 0);
	assert_true(has_row("r.log", "test_add", "fail 2/2", "pass 2/2", "guard"));
	conflict[2] = ids[3]; /* C4 rewrote C3's comment: a conflict */
	assert_int_equal(td("c.log", conflict), 1);
	assert_non_null(strstr(fx_slurp("c.log"), "conflict:"));
	assert_int_equal(objects(), n);
	assert_true(fx_tree_hash("repo") == before);
	assert_string_equal(fx_git_rev("repo", "HEAD"), ids[5]);
}

/* ---- a repository owned by another user ---------------------------------- */

static uid_t chown_to;

static int chown_one(const char *path, const struct stat *sb, int flag, struct FTW *ftw)
{
	(void)sb, (void)flag, (void)ftw;
	return lchown(path, chown_to, (gid_t)-1) == 0 ? 0 : 1;
}

/* Gives everything under dir to uid; 0 when it could. */
static int chown_tree(const char *dir, uid_t uid)
{
	chown_to = uid;
	return nftw(dir, chown_one, 16, FTW_PHYS);
}

static void test_a_repository_owned_by_another_user_is_refused_saying_what_to_do(void **state)
{
	const char *rep[] = {"reproduce", "C5", "--guard", "test_add_neg", NULL};
	const char *bis[] = {"bisect", "--guard", "test_add", NULL};
	const char *mut[] = {"mutate", NULL};
	const char *chk[] = {"ledger", "check", NULL};
	const char *const *cmds[] = {rep, bis, mut, chk};
	int rc[4], trusted, owned, refused = 1;
	char cwd[4096], want[4400];

	(void)state;
	make_history();
	rep[1] = ids[5];
	if (geteuid() != 0)
		skip(); /* only root can give a directory away */
	owned = chown_tree("repo", 12345);
	for (int i = 0; i < 4; i++) {
		rc[i] = td("o.log", cmds[i]);
		refused &= strstr(fx_slurp("o.log"), "is owned by another user (uid 12345") &&
			   strstr(fx_slurp("o.log"), "git config --global --add safe.directory") &&
			   strstr(fx_slurp("o.log"), "TDAUDIT_TRUST_OWNER=1");
	}
	setenv("TDAUDIT_TRUST_OWNER", "1", 1);
	trusted = td("t.log", rep);
	unsetenv("TDAUDIT_TRUST_OWNER");
	assert_int_equal(chown_tree("repo", 0), 0); /* first: the temp dir must stay removable */
	assert_int_equal(owned, 0);
	for (int i = 0; i < 4; i++)
		assert_int_equal(rc[i], 2);
	assert_true(refused);
	assert_non_null(getcwd(cwd, sizeof cwd));
	snprintf(want, sizeof want, "the repository at %s/repo is owned", cwd);
	assert_non_null(strstr(fx_slurp("o.log"), want));
	assert_int_equal(trusted, 0);
	assert_non_null(strstr(fx_slurp("t.log"), "nothing to revert"));
}

static void test_ledger_check_lists_the_tests_of_the_working_tree_not_a_stale_copy(void **state)
{
	const char *chk[] = {"ledger", "check", NULL};
	const char *gone = "guard test_add_neg is not a test the runners list";

	(void)state;
	make_history();
	write_debug_md("**Guarded by** `test_add_neg`", ids[2], "**Guarded by** `test_mul`");
	td("c1.log", chk); /* builds the scratch copy that lists the tests */
	if (!strstr(fx_slurp("c1.log"), "ledger check: 2 findings"))
		fail_msg("ledger check did not run to its summary:\n%s", fx_slurp("c1.log"));
	assert_null(strstr(fx_slurp("c1.log"), gone));
	write_t(5); /* the guard is deleted from the working tree */
	td("c2.log", chk);
	if (!strstr(fx_slurp("c2.log"), gone))
		fail_msg("ledger check still lists a deleted test:\n%s", fx_slurp("c2.log"));
}

/*
 * A Guarded by field is its one line: a runnable test named on a line that
 * continues it is reported, not dropped. Other tokens there (an option),
 * and the tests a "none" field's reason names, are prose.
 */
/* Without DEBUG.md there is nothing to check: say so, and what works without it. */
static void test_ledger_check_without_debug_md_says_what_it_needs(void **state)
{
	const char *args[] = {"ledger", "check", NULL};

	(void)state;
	make_history();
	assert_int_equal(td("c.log", args), 2);
	assert_non_null(strstr(fx_slurp("c.log"), "no DEBUG.md at "));
	assert_non_null(strstr(fx_slurp("c.log"), "mutate, reproduce and bisect work without it"));
}

static void test_a_test_named_on_a_wrapped_guarded_by_line_is_reported(void **state)
{
	const char *chk[] = {"ledger", "check", NULL};
	const char *wrapped = "test_add_neg is named on a line that continues the **Guarded by** "
			      "line (line 10)";

	(void)state;
	make_history();
	write_debug_md("**Guarded by** `test_add` (run with\n`--guard`) and\n`test_add_neg`.", ids[2],
		       "**Guarded by** none: it needs two builds;\n`test_mul` passes both ways.");
	td("c.log", chk);
	if (!strstr(fx_slurp("c.log"), "DEBUG.md:12: test_add_neg is named") ||
	    !strstr(fx_slurp("c.log"), wrapped))
		fail_msg("ledger check did not report the wrapped guard at its line:\n%s",
			 fx_slurp("c.log"));
	for (int i = 0; i < 3; i++) {
		static const char *const prose[] = {"--guard is named", "test_mul is named",
						    "test_add is named"};

		if (strstr(fx_slurp("c.log"), prose[i]))
			fail_msg("ledger check reported prose (%s):\n%s", prose[i], fx_slurp("c.log"));
	}
}

/*
 * A Makefile that does not name calc.h: reverting the fix to calc.h makes
 * make do nothing, and the before state's tests would run the fix's
 * program. That is an error, never a verdict.
 */
static void test_a_before_state_the_build_did_not_rebuild_is_no_verdict(void **state)
{
	static const char t0[] = "int main(int argc, char **argv) { (void)argv; return argc > 2; }\n";
	static const char t1[] =
		"#include <stdio.h>\n#include <string.h>\nint zero(void);\n"
		"int main(int argc, char **argv)\n{\n"
		"\tif (argc > 1 && !strcmp(argv[1], \"--list\")) { puts(\"test_zero\"); return 0; }\n"
		"\tif (argc > 1 && !strcmp(argv[1], \"test_zero\")) {\n"
		"\t\tprintf(\"test_zero %s\\n\", zero() == 0 ? \"ok\" : \"FAILED\");\n"
		"\t\treturn zero() != 0;\n\t}\n\treturn 2;\n}\n";
	static const char stale_config[] =
		"build { \"make\", \"-s\" }\n"
		"runner { list = { \"./t\", \"--list\" }, run = { \"./t\", \"{test}\" } }\n"
		"sources { \"calc.c\", \"calc.h\" }\ntests { \"t.c\", \"Makefile\" }\n";
	char fix[41];
	const char *args[] = {"reproduce", fix, NULL};

	(void)state;
	fx_write("stale", "Makefile", "t: t.c calc.c\n\tcc -O0 -o t t.c calc.c\n");
	fx_write("stale", "calc.c", "#include \"calc.h\"\nint zero(void)\n{\n\treturn ZERO;\n}\n");
	fx_write("stale", "calc.h", "#define ZERO 1\n");
	fx_write("stale", "t.c", t0);
	fx_write("stale", "tdaudit.lua", stale_config);
	fx_git_commit_all("stale", "C0");
	fx_write("stale", "calc.h", "#define ZERO 0\n");
	fx_write("stale", "t.c", t1);
	fx_git_commit_all("stale", "C1 zero is 0");
	snprintf(fix, sizeof fix, "%s", fx_git_rev("stale", "HEAD"));
	if (fx_tdaudit("stale", "stale.log", args) != 2)
		fail_msg("a stale before state gave a verdict:\n%s", fx_slurp("stale.log"));
	assert_non_null(strstr(fx_slurp("stale.log"), "the build wrote no file after calc.h was reverted"));
	assert_null(strstr(fx_slurp("stale.log"), " pin"));
	/* the control: a clean build (make -B) rebuilds it, and the test is a guard */
	fx_write("stale", "tdaudit.lua", "build { \"make\", \"-s\", \"-B\" }\n"
					 "runner { list = { \"./t\", \"--list\" }, run = { \"./t\", \"{test}\" } }\n"
					 "sources { \"calc.c\", \"calc.h\" }\ntests { \"t.c\", \"Makefile\" }\n");
	if (fx_tdaudit("stale", "stale.log", args) != 0)
		fail_msg("with make -B: %s", fx_slurp("stale.log"));
	assert_non_null(strstr(fx_slurp("stale.log"), "guard"));
}

static const struct CMUnitTest tests[] = {
	cmocka_unit_test(test_a_guard_fails_before_the_fix_and_passes_after),
	cmocka_unit_test(test_a_before_state_the_build_did_not_rebuild_is_no_verdict),
	cmocka_unit_test(test_a_test_that_passes_both_ways_is_a_pin_not_a_guard),
	cmocka_unit_test(test_a_fail_and_a_timeout_before_the_fix_make_a_guard),
	cmocka_unit_test(test_a_guard_no_runner_lists_is_refused),
	cmocka_unit_test(test_guards_and_pins_come_from_debug_md),
	cmocka_unit_test(test_without_citations_the_commits_own_tests_are_run),
	cmocka_unit_test(test_without_debug_md_the_commits_own_tests_are_run),
	cmocka_unit_test(test_a_sources_or_tests_glob_matching_no_file_is_warned_of),
	cmocka_unit_test(test_each_fix_keeps_its_build_and_test_logs),
	cmocka_unit_test(test_a_test_name_with_a_slash_is_reproduced),
	cmocka_unit_test(test_a_changed_test_file_named_as_a_test_is_run),
	cmocka_unit_test(test_a_commit_with_no_test_to_infer_is_refused_saying_what_to_do),
	cmocka_unit_test(test_tests_of_names_the_tests_a_changed_test_file_holds),
	cmocka_unit_test(test_pre_fix_code_that_does_not_build_is_no_build_never_a_pass),
	cmocka_unit_test(test_tests_from_the_diff_that_do_not_build_before_are_no_evidence),
	cmocka_unit_test(test_files_outside_sources_are_kept_as_in_the_fix),
	cmocka_unit_test(test_a_test_failing_after_the_fix_is_broken),
	cmocka_unit_test(test_outcomes_that_differ_between_runs_are_flaky),
	cmocka_unit_test(test_a_commit_changing_only_tests_has_nothing_to_revert),
	cmocka_unit_test(test_bad_input_exits_2_with_a_clear_message),
	cmocka_unit_test(test_a_merge_commit_is_reverted_against_its_first_parent),
	cmocka_unit_test(test_no_command_touches_the_users_tree_index_or_head),
	cmocka_unit_test(test_all_reproduces_every_finding_with_a_fix_commit),
	cmocka_unit_test(test_all_fails_when_a_debug_md_line_does_not_parse),
	cmocka_unit_test(test_at_head_a_fix_that_still_reverts_shows_its_guard_still_guards),
	cmocka_unit_test(test_at_head_a_fix_that_no_longer_reverts_is_a_conflict_never_a_pass),
	cmocka_unit_test(test_at_head_writes_no_object_and_leaves_the_users_index_tree_and_head),
	cmocka_unit_test(test_a_repository_owned_by_another_user_is_refused_saying_what_to_do),
	cmocka_unit_test(test_ledger_check_lists_the_tests_of_the_working_tree_not_a_stale_copy),
	cmocka_unit_test(test_a_test_named_on_a_wrapped_guarded_by_line_is_reported),
	cmocka_unit_test(test_ledger_check_without_debug_md_says_what_it_needs),
};
TD_TEST_GROUP(reproduce, tests);
