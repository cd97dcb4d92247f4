/*
 * test_bisect.c - tdaudit bisect end to end, on a fixture repository of
 * ten commits built in the test's temporary directory: test_add fails
 * until the fix, passes from it on; one commit in the range does not
 * build.
 *
 * What these tests guard: tdaudit mutate --list --file harness/bisect.c
 *
 * Edits seen breaking these tests that the catalogue may not hold:
 *   - conclude() without the skipped-commits check
 *     -> skipped_commits_next_to_the_flip_leave_it_ambiguous
 *   - td_bisect() not calling record() [cat]; skipped_commits() listing
 *     the passing commits -> a_bisect_result_is_recorded_in_the_ledger_in_one_run
 *   - record() writing chain[hi] as found when ambiguous [cat]; td_bisect()
 *     recording an exit-2 search -> an_ambiguous_bisect_is_recorded_with_no_commit_found
 */
#define _XOPEN_SOURCE 700
#include "tdtest.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <sqlite3.h>

#include "fixture.h"

static const char t_c[] =
	"#include <stdio.h>\n#include <string.h>\n"
	"int add(int, int);\n"
	"int main(int argc, char **argv)\n{\n"
	"\tif (argc > 1 && !strcmp(argv[1], \"--list\")) { puts(\"test_add\"); return 0; }\n"
	"\tif (argc > 1 && !strcmp(argv[1], \"test_add\")) {\n"
	"\t\tint ok = add(2, 3) == 5;\n"
	"\t\tprintf(\"test_add %s\\n\", ok ? \"ok\" : \"FAILED\");\n"
	"\t\treturn !ok;\n\t}\n\treturn 2;\n}\n";

static const char config[] =
	"build { \"make\", \"-s\" }\n"
	"runner { list = { \"./t\", \"--list\" }, run = { \"./t\", \"{test}\" } }\n"
	"tests { \"t.c\", \"Makefile\" }\n"
	"timeout { factor = 5, floor = 5 }\n";

#define N_COMMITS 10
static char ids[N_COMMITS][41];

/* Commits C0 .. C9: add() is fixed at commit `fix`; commit `broken` does not build. */
static void make_history(int fix, int broken)
{
	fx_write("repo", "t.c", t_c);
	fx_write("repo", "Makefile", "t: t.c calc.c\n\tcc -O0 -o t t.c calc.c\n");
	fx_write("repo", "tdaudit.lua", config);
	for (int k = 0; k < N_COMMITS; k++) {
		char calc[256], msg[32];

		snprintf(calc, sizeof calc, "int version = %d;\n%s\nint add(int a, int b)\n{\n\treturn a %c b;\n}\n",
			 k, k == broken ? "this does not compile" : "", k >= fix ? '+' : '-');
		snprintf(msg, sizeof msg, "C%d", k);
		fx_write("repo", "calc.c", calc);
		fx_git_commit_all("repo", msg);
		snprintf(ids[k], sizeof ids[k], "%s", fx_git_rev("repo", "HEAD"));
	}
}

static int bisect(const char *const *args)
{
	unlink("b.log"); /* fx_run appends */
	return fx_tdaudit("repo", "b.log", args);
}

/* How many times text occurs in s. */
static int count(const char *s, const char *text)
{
	int n = 0;

	for (const char *p = s; (p = strstr(p, text)) != NULL; p++)
		n++;
	return n;
}

/*
 * The bisects row of the fixture's ledger as "good bad found direction
 * skipped builds" (found "-" when NULL), or "" when there is none.
 */
static const char *bisect_row(void)
{
	static char out[1024];
	sqlite3 *db;
	sqlite3_stmt *st;

	out[0] = '\0';
	assert_int_equal(sqlite3_open_v2("repo/.tdaudit/ledger.db", &db, SQLITE_OPEN_READONLY, NULL),
			 SQLITE_OK);
	assert_int_equal(sqlite3_prepare_v2(db, "SELECT good, bad, coalesce(found, '-'), direction,"
						" skipped, builds FROM bisects JOIN runs ON runs.id = run"
						" WHERE guard_test = 'test_add' AND runs.status IN ('ok', 'findings')",
					    -1, &st, NULL),
			 SQLITE_OK);
	if (sqlite3_step(st) == SQLITE_ROW)
		snprintf(out, sizeof out, "%s %s %s %s %s %d", sqlite3_column_text(st, 0),
			 sqlite3_column_text(st, 1), sqlite3_column_text(st, 2),
			 sqlite3_column_text(st, 3), sqlite3_column_text(st, 4), sqlite3_column_int(st, 5));
	sqlite3_finalize(st);
	sqlite3_close(db);
	return out;
}

static void test_a_bisect_result_is_recorded_in_the_ledger_in_one_run(void **state)
{
	const char *args[] = {"bisect", "--guard", "test_add", NULL};
	char want[1024];
	const char *log, *p;

	(void)state;
	make_history(6, 4);
	assert_int_equal(bisect(args), 0);
	log = fx_slurp("b.log");
	assert_non_null(strstr(log, "recorded in .tdaudit/ledger.db"));
	assert_non_null(p = strstr(log, " builds for 10 commits"));
	while (p > log && p[-1] != ' ')
		p--; /* to the number of builds */
	snprintf(want, sizeof want, "%s %s %s fix %s %d", ids[0], ids[9], ids[6], ids[4], atoi(p));
	assert_string_equal(bisect_row(), want);
}

static void test_an_ambiguous_bisect_is_recorded_with_no_commit_found(void **state)
{
	const char *args[] = {"bisect", "--guard", "test_add", "--find", "fix", NULL};
	const char *none[] = {"bisect", "--guard", "test_add", "--good", "HEAD~2", NULL};
	char want[1024];

	(void)state;
	make_history(6, 5);
	assert_int_equal(bisect(none), 2); /* no flip: no result, nothing recorded */
	assert_int_equal(access("repo/.tdaudit/ledger.db", F_OK), -1);
	assert_int_equal(bisect(args), 1);
	snprintf(want, sizeof want, "%s %s - fix %s ", ids[0], ids[9], ids[5]);
	assert_non_null(strstr(bisect_row(), want));
}

static void test_finds_the_fix_in_log2_builds_skipping_a_commit_that_does_not_build(void **state)
{
	const char *args[] = {"bisect", "--guard", "test_add", "--find", "fix", NULL};
	char want[128];
	const char *log;

	(void)state;
	make_history(6, 4);
	assert_int_equal(bisect(args), 0);
	log = fx_slurp("b.log");
	snprintf(want, sizeof want, "first commit where test_add passes: %s C6", ids[6]);
	assert_non_null(strstr(log, want));
	snprintf(want, sizeof want, "tried %.7s (5 of 10) C4", ids[4]);
	assert_non_null(strstr(log, want));
	assert_non_null(strstr(log, "does not build: skipped"));
	/* ceil(log2 10) + 2 = 6, the skipped build included */
	assert_true(count(log, "  tried ") <= 6);
	assert_non_null(strstr(log, "builds for 10 commits"));
}

static void test_skipped_commits_next_to_the_flip_leave_it_ambiguous(void **state)
{
	const char *args[] = {"bisect", "--guard", "test_add", NULL};
	const char *log;

	(void)state;
	make_history(6, 5);
	assert_int_equal(bisect(args), 1);
	log = fx_slurp("b.log");
	assert_non_null(strstr(log, "is one of these"));
	assert_non_null(strstr(log, ids[5]));
	assert_non_null(strstr(log, ids[6]));
	assert_null(strstr(log, "first commit where test_add passes:"));
}

static void test_no_flip_between_the_ends_exits_2(void **state)
{
	const char *after[] = {"bisect", "--guard", "test_add", "--good", "HEAD~2", NULL};
	const char *wrong[] = {"bisect", "--guard", "test_add", "--find", "regression", NULL};
	const char *off[] = {"bisect", "--guard", "test_add", "--good", "nosuchrev", NULL};

	(void)state;
	make_history(6, 4);
	assert_int_equal(bisect(after), 2);
	assert_non_null(strstr(fx_slurp("b.log"), "passes at the good end"));
	assert_int_equal(bisect(wrong), 2);
	assert_non_null(strstr(fx_slurp("b.log"), "--find regression needs test_add to fail"));
	assert_int_equal(bisect(off), 2);
	assert_non_null(strstr(fx_slurp("b.log"), "unknown commit 'nosuchrev'"));
}

/*
 * add() is fixed at C3, but until C5 test_add checks only add(0, 0), which
 * passes either way: with each commit's own tests nothing flips between the
 * ends; with the tests held at C5 the fix is found. A tdaudit.lua without a
 * tests setting is told what --tests-at needs.
 */
static void test_tests_held_at_a_later_commit_find_the_fix_they_check(void **state)
{
	const char *own[] = {"bisect", "--guard", "test_add", "--find", "fix", NULL};
	const char *held[] = {"bisect", "--guard", "test_add", "--find", "fix", "--tests-at", "HEAD",
			      NULL};
	char weak[sizeof t_c], want[128];
	char *p;

	(void)state;
	snprintf(weak, sizeof weak, "%s", t_c);
	assert_non_null(p = strstr(weak, "add(2, 3) == 5"));
	memcpy(p, "add(0, 0) == 0", 14);
	fx_write("repo", "Makefile", "t: t.c calc.c\n\tcc -O0 -o t t.c calc.c\n");
	fx_write("repo", "tdaudit.lua", config);
	for (int k = 0; k < 6; k++) {
		char calc[128], msg[32];

		snprintf(calc, sizeof calc,
			 "int version = %d;\nint add(int a, int b)\n{\n\treturn a %c b;\n}\n", k,
			 k >= 3 ? '+' : '-');
		snprintf(msg, sizeof msg, "C%d", k);
		fx_write("repo", "calc.c", calc);
		fx_write("repo", "t.c", k < 5 ? weak : t_c);
		fx_git_commit_all("repo", msg);
		snprintf(ids[k], sizeof ids[k], "%s", fx_git_rev("repo", "HEAD"));
	}
	assert_int_equal(bisect(own), 2);
	assert_non_null(strstr(fx_slurp("b.log"), "passes at the good end"));
	assert_int_equal(bisect(held), 0);
	assert_non_null(strstr(fx_slurp("b.log"), "test files as at"));
	snprintf(want, sizeof want, "first commit where test_add passes: %s C3", ids[3]);
	assert_non_null(strstr(fx_slurp("b.log"), want));
	fx_write("repo", "tdaudit.lua", "build { \"make\", \"-s\" }\n"
					"runner { list = { \"./t\", \"--list\" }, run = { \"./t\", \"{test}\" } }\n");
	assert_int_equal(bisect(held), 2);
	assert_non_null(strstr(fx_slurp("b.log"), "--tests-at needs to know which files are tests"));
}

/*
 * A Makefile that does not name calc.h, whose OP turns + at C5 of C0 ..
 * C7: after C7, the search's C3 reverts calc.h and make does nothing, so
 * its test would run C7's program (a pass, and a wrong verdict). That is
 * an error (exit 2, the file named), never a verdict; the next run's first
 * commit is checked against the state the last run left (C3's, so C7's
 * calc.h differs) and gets no verdict either. With make -B every commit is
 * rebuilt and C5 is found.
 */
static void test_a_commit_the_build_did_not_rebuild_is_no_verdict(void **state)
{
	const char *args[] = {"bisect", "--guard", "test_add", NULL};
	const char *log;

	(void)state;
	fx_write("stale", "t.c", t_c);
	fx_write("stale", "Makefile", "t: t.c calc.c\n\tcc -O0 -o t t.c calc.c\n");
	fx_write("stale", "calc.c", "#include \"calc.h\"\nint add(int a, int b)\n{\n\treturn a OP b;\n}\n");
	fx_write("stale", "tdaudit.lua", config);
	for (int k = 0; k < 8; k++) {
		char calc_h[64], msg[16];

		snprintf(calc_h, sizeof calc_h, "/* %d */\n#define OP %c\n", k, k >= 5 ? '+' : '-');
		snprintf(msg, sizeof msg, "C%d", k);
		fx_write("stale", "calc.h", calc_h);
		fx_git_commit_all("stale", msg);
	}
	for (int run = 0; run < 2; run++) {
		unlink("s.log");
		if (fx_tdaudit("stale", "s.log", args) != 2)
			fail_msg("run %d: a commit its build did not rebuild gave a verdict:\n%s", run,
				 fx_slurp("s.log"));
		log = fx_slurp("s.log");
		assert_non_null(strstr(log, "wrote no file though calc.h differs"));
		assert_null(strstr(log, "test_add passes: "));
		if (run == 1 && strstr(log, "(8 of 8)")) /* C7, first, against C3's build */
			fail_msg("the second run judged its first commit:\n%s", log);
	}
	fx_write("stale", "tdaudit.lua", "build { \"make\", \"-s\", \"-B\" }\n"
					 "runner { list = { \"./t\", \"--list\" }, run = { \"./t\", \"{test}\" } }\n"
					 "tests { \"t.c\", \"Makefile\" }\n");
	fx_git_commit_all("stale", "C8 make -B");
	unlink("s.log");
	assert_int_equal(fx_tdaudit("stale", "s.log", args), 0);
	assert_non_null(strstr(fx_slurp("s.log"), " C5\n"));
}

static const struct CMUnitTest tests[] = {
	cmocka_unit_test(test_finds_the_fix_in_log2_builds_skipping_a_commit_that_does_not_build),
	cmocka_unit_test(test_skipped_commits_next_to_the_flip_leave_it_ambiguous),
	cmocka_unit_test(test_no_flip_between_the_ends_exits_2),
	cmocka_unit_test(test_tests_held_at_a_later_commit_find_the_fix_they_check),
	cmocka_unit_test(test_a_bisect_result_is_recorded_in_the_ledger_in_one_run),
	cmocka_unit_test(test_an_ambiguous_bisect_is_recorded_with_no_commit_found),
	cmocka_unit_test(test_a_commit_the_build_did_not_rebuild_is_no_verdict),
};
TD_TEST_GROUP(bisect, tests);
