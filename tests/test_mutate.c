/*
 * test_mutate.c - tdaudit mutate end to end, on a fixture repository built
 * in the test's temporary directory: a C file, a test runner honouring the
 * list / run-one interface, a Makefile, tdaudit.lua and a catalogue with
 * one mutant per outcome.
 *
 * What these tests guard: tdaudit mutate --list --file harness/mutate.c
 *   and --list --file harness/catalogue.c
 *   and --list --file harness/cmd_mutate.c
 *   and --list --file harness/commands.c
 *
 * Edits seen breaking these tests that the catalogue may not hold:
 *   - judge() treating a timeout as killed -> every_outcome_is_reported
 *   - try_mutant() counting build-failed as killed -> every_outcome_is_reported
 *   - judge() skipping the rest of the suite when guards pass
 *       -> every_outcome_is_reported (killed-elsewhere reads survived)
 *   - bad() not counting a catalogue entry's build failure
 *       -> a_catalogue_entry_that_does_not_build_fails_the_run
 *   - baseline() ignoring failing tests -> a_red_baseline_stops_the_run
 *   - baseline() not checking the runner named the test
 *       -> a_runner_that_never_names_its_test_stops_the_run
 *   - try_mutant() not restoring the file -> the second mutant of a file
 *     sees the first still applied (every_outcome_is_reported)
 *   - run_test() ignoring fail_text -> fail_text_marks_a_zero_exit_as_a_failure
 *   - generate_file() not counting skips -> generated_mutants_run_and_skip_...
 *   - filter_diff() keeping every mutant -> diff_keeps_only_mutants_on_changed_lines
 *   - filter() accepting a pattern that matched nothing (DEBUG.md #20)
 *       -> an_only_pattern_that_matches_no_mutant_is_refused
 *   - locate_all() reading the working tree instead of r->src
 *       -> rev_mutates_the_committed_revision_not_the_working_tree
 *   - td_mutant_locate() searching generated mutants by text (ambiguous)
 *       -> generated_mutants_run_and_skip_comments_are_counted
 *   - writing the mutant into the root instead of the scratch tree
 *       -> the_users_tree_index_and_head_are_untouched
 *   - filter_shard() keeping shard k+1, or td_mutate_shard_of() hashing
 *     the position instead of the id -> shards_cover_every_mutant_exactly_once,
 *     adding_a_mutant_moves_no_other_between_shards
 *   - parse_shard() accepting K > N -> a_bad_shard_or_score_is_refused
 *   - probe() judging a test by its first run when it timed out
 *       -> a_timed_out_test_runs_again_with_twice_the_limit
 *   - use_ledger() not replacing the project's ledger path
 *       -> a_run_given_a_ledger_records_there_and_nowhere_else
 *   - ci/weekly merging only the last shard's ledger
 *       -> the_weekly_job_merges_three_shards_into_its_reports
 *   - td_report_all() ignoring fail_under
 *       -> fail_under_fails_a_passing_run_whose_score_is_below
 *   - baseline() not running negative_control(), or negative_control()
 *     taking a pass as working -> a_golden_output_runner_passes_by_its_negative_control,
 *     a_runner_that_never_names_its_test_stops_the_run
 *   - program_is_the_test() ignoring program_is_test
 *       -> program_is_test_declares_a_runner_that_needs_no_name
 *   - try_mutant() not comparing the tree's stamps before and after the
 *     build -> a_mutant_the_build_never_compiles_is_not_rebuilt (survived)
 *   - fingerprint() run after filter_shard() (each shard its own catalogue)
 *       -> merged_shards_give_the_outcomes_of_one_run (ledger merge refuses them)
 */
#define _XOPEN_SOURCE 700
#include "tdtest.h"

#include <dirent.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <sqlite3.h>

#include "fixture.h"

static const char calc_c[] =
	"int add(int a, int b)\n{\n\treturn a + b;\n}\n\n"
	"int clamp(int x)\n{\n\tif (x < 0)\n\t\treturn 0;\n\treturn x;\n}\n\n"
	"int sum_below(int n)\n{\n\tint s = 0;\n\n\tfor (int i = 0; i < n; i++)\n\t\ts += i;\n\treturn s;\n}\n\n"
	"int unused(void)\n{\n\treturn 7;\n}\n";

/* The runner: `./t --list`, `./t NAME` (prints NAME, exit 0 pass / 1 fail). */
static const char t_c[] =
	"#include <stdio.h>\n#include <string.h>\n"
	"int add(int, int); int clamp(int); int sum_below(int);\n"
	"static int test_add(void) { return add(2, 3) == 5; }\n"
	"static int test_clamp(void) { return clamp(-4) == 0 && clamp(3) == 3; }\n"
	"static int test_sum(void) { return sum_below(4) == 6; }\n"
	"static const struct { const char *name; int (*fn)(void); } tests[] = {\n"
	"\t{\"test_add\", test_add}, {\"test_clamp\", test_clamp}, {\"test_sum\", test_sum}};\n"
	"int main(int argc, char **argv)\n{\n"
	"\tfor (int i = 0; i < 3; i++) {\n"
	"\t\tif (argc > 1 && !strcmp(argv[1], \"--list\")) { puts(tests[i].name); continue; }\n"
	"\t\tif (argc > 1 && !strcmp(argv[1], tests[i].name)) {\n"
	"\t\t\tint ok = tests[i].fn();\n"
	"\t\t\tprintf(\"%s %s\\n\", tests[i].name, ok ? \"ok\" : \"FAILED\");\n"
	"\t\t\treturn !ok;\n\t\t}\n\t}\n"
	"\treturn argc > 1 && strcmp(argv[1], \"--list\") ? 2 : 0;\n}\n";

static const char makefile[] = "t: t.c calc.c\n\tcc -O0 -o t t.c calc.c\n";

static const char config[] =
	"build { \"make\", \"-s\" }\n"
	"runner { list = { \"./t\", \"--list\" }, run = { \"./t\", \"{test}\" } }\n"
	"sources { \"calc.c\" }\n"
	"tests { \"t.c\", \"Makefile\" }\n"
	"catalogues { \"cat.lua\" }\n"
	"timeout { factor = 5, floor = 2 }\n";

static const char catalogue[] =
	"mutant { name = \"calc-killed\", file = \"calc.c\", find = \"a + b\", replace = \"a - b\",\n"
	"  guards = { \"test_add\" }, designed_against = \"x\", why = \"adds wrong\" }\n"
	"mutant { name = \"calc-elsewhere\", file = \"calc.c\", find = \"return 0;\", replace = \"return 1;\",\n"
	"  guards = { \"test_add\" }, designed_against = \"x\", why = \"clamps to 1\" }\n"
	"mutant { name = \"calc-survived\", file = \"calc.c\", find = \"return 7;\", replace = \"return 8;\",\n"
	"  guards = { \"test_add\" }, designed_against = \"x\", why = \"nobody calls it\" }\n"
	"mutant { name = \"calc-timeout\", file = \"calc.c\", find = \"i++\", replace = \"i += 0\",\n"
	"  guards = { \"test_sum\" }, designed_against = \"x\", why = \"loops forever\" }\n"
	"mutant { name = \"calc-build-failed\", file = \"calc.c\", find = \"a + b;\", replace = \"a + ;\",\n"
	"  guards = { \"test_add\" }, designed_against = \"x\", why = \"does not compile\" }\n"
	"mutant { name = \"calc-stale\", file = \"calc.c\", find = \"no such text\", replace = \"x\",\n"
	"  guards = { \"test_add\" }, designed_against = \"x\", why = \"the code moved on\" }\n"
	"mutant { name = \"calc-equivalent\", file = \"calc.c\", find = \"x < 0\", replace = \"x <= 0\",\n"
	"  guards = { \"test_clamp\" }, designed_against = \"x\", why = \"0 clamps to 0 either way\",\n"
	"  equivalent = \"clamp(0) is 0 on both sides of the boundary\" }\n";

/* Builds the fixture repository in ./repo and commits it. */
static void make_fixture(const char *cat)
{
	fx_write("repo", "calc.c", calc_c);
	fx_write("repo", "t.c", t_c);
	fx_write("repo", "Makefile", makefile);
	fx_write("repo", "tdaudit.lua", config);
	fx_write("repo", "cat.lua", cat);
	fx_git_commit_all("repo", "fixture");
}

/* The outcome the JSON report gives mutant id (or "" if absent). */
static const char *outcome_of(const char *json, const char *id)
{
	static char out[64];
	char key[128];
	const char *p, *o;

	snprintf(key, sizeof key, "{\"id\": \"%s\"", id);
	p = strstr(json, key);
	o = p ? strstr(p, "\"outcome\": \"") : NULL;
	out[0] = '\0';
	if (o)
		sscanf(o + 12, "%63[^\"]", out);
	return out;
}

static void test_every_outcome_is_reported(void **state)
{
	const char *args[] = {"mutate", "-j", "2", "--json", "../report.json", NULL};
	const char *json;

	(void)state;
	make_fixture(catalogue);
	assert_int_equal(fx_tdaudit("repo", "mutate.log", args), 1);
	json = fx_slurp("report.json");
	assert_string_equal(outcome_of(json, "calc-killed"), "killed");
	assert_string_equal(outcome_of(json, "calc-elsewhere"), "killed-elsewhere");
	assert_string_equal(outcome_of(json, "calc-survived"), "survived");
	assert_string_equal(outcome_of(json, "calc-timeout"), "timeout");
	assert_string_equal(outcome_of(json, "calc-build-failed"), "build-failed");
	assert_string_equal(outcome_of(json, "calc-stale"), "stale");
	assert_string_equal(outcome_of(json, "calc-equivalent"), "equivalent");
	assert_non_null(strstr(json, "\"killed_by\": [\"test_clamp\"]")); /* the elsewhere kill */
}

static void test_all_caught_exits_0(void **state)
{
	const char *args[] = {"mutate", "--only", "calc-killed", NULL};

	(void)state;
	make_fixture(catalogue);
	assert_int_equal(fx_tdaudit("repo", "mutate.log", args), 0);
	assert_non_null(strstr(fx_slurp("mutate.log"), "killed by test_add"));
}

static void test_an_only_pattern_that_matches_no_mutant_is_refused(void **state)
{
	const char *args[] = {"mutate", "--only", "calc-kill", NULL}; /* a prefix without its '*' */
	const char *log;

	(void)state;
	make_fixture(catalogue);
	assert_int_equal(fx_tdaudit("repo", "mutate.log", args), 2);
	log = fx_slurp("mutate.log");
	assert_non_null(strstr(log, "--only 'calc-kill' matches none of the 7 mutants"));
	assert_null(strstr(log, "every mutant was caught"));
}

/* --only given twice runs the mutants of both patterns (it used to keep the last one). */
static void test_only_given_twice_keeps_the_mutants_of_both_patterns(void **state)
{
	const char *args[] = {"mutate", "--list", "--only", "calc-killed", "--only", "calc-stale", NULL};
	const char *both[] = {"mutate", "--list", "--only", "calc-killed", "--only", "calc-none", NULL};
	const char *log;

	(void)state;
	make_fixture(catalogue);
	assert_int_equal(fx_tdaudit("repo", "list.log", args), 0);
	log = fx_slurp("list.log");
	assert_non_null(strstr(log, "calc-killed\t"));
	assert_non_null(strstr(log, "calc-stale\t"));
	assert_null(strstr(log, "calc-survived\t"));
	assert_int_equal(fx_tdaudit("repo", "none.log", both), 2);
	assert_non_null(strstr(fx_slurp("none.log"), "--only 'calc-none' matches none of the 7 mutants"));
}

/* A value option given twice is refused in every command: the last one would silently win. */
static void test_a_value_option_given_twice_is_refused(void **state)
{
	const char *mutate[] = {"mutate", "--list", "-j", "1", "-j2", NULL};
	const char *reproduce[] = {"reproduce", "HEAD", "--runs", "2", "--runs", "3", NULL};
	const char *bisect[] = {"bisect", "--guard", "test_add", "--guard", "test_sum", NULL};
	const char *ledger[] = {"ledger", "export", "--format", "md", "--format", "json", NULL};

	(void)state;
	make_fixture(catalogue);
	assert_int_equal(fx_tdaudit("repo", "m.log", mutate), 2);
	assert_non_null(strstr(fx_slurp("m.log"), "-j is given twice; give it once"));
	assert_int_equal(fx_tdaudit("repo", "r.log", reproduce), 2);
	assert_non_null(strstr(fx_slurp("r.log"), "--runs is given twice; give it once"));
	assert_int_equal(fx_tdaudit("repo", "b.log", bisect), 2);
	assert_non_null(strstr(fx_slurp("b.log"), "--guard is given twice; give it once"));
	assert_int_equal(fx_tdaudit("repo", "l.log", ledger), 2);
	assert_non_null(strstr(fx_slurp("l.log"), "--format is given twice; give it once"));
}

static void test_a_catalogue_entry_that_does_not_build_fails_the_run(void **state)
{
	const char *args[] = {"mutate", "--only", "calc-build-failed", "--junit", "../r.xml", NULL};

	(void)state;
	make_fixture(catalogue);
	assert_int_equal(fx_tdaudit("repo", "mutate.log", args), 1);
	assert_non_null(strstr(fx_slurp("mutate.log"), "the entry tests nothing"));
	assert_non_null(strstr(fx_slurp("r.xml"), "failures=\"1\""));
}

/* The string value of key in mutant id's JSON object, into out ("" if absent or null). */
static void field_of(char *out, size_t size, const char *json, const char *id, const char *key)
{
	char k[128];
	const char *p, *v;

	snprintf(k, sizeof k, "{\"id\": \"%s\"", id);
	p = strstr(json, k);
	snprintf(k, sizeof k, "\"%s\": \"", key);
	v = p ? strstr(p, k) : NULL;
	out[0] = '\0';
	if (v && v < strchr(p, '}'))
		snprintf(out, size, "%.*s", (int)strcspn(v + strlen(k), "\""), v + strlen(k));
}

/* How many entries directory dir holds, . and .. aside. */
static int entries(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	int n = 0;

	assert_non_null(d);
	while ((e = readdir(d)))
		n += e->d_name[0] != '.';
	closedir(d);
	return n;
}

/*
 * Each mutant's build and test output is kept in its own log, in a
 * directory of the run that later runs do not overwrite; its path is in
 * the JSON and the ledger, the killing test's last lines in the JSON's
 * detail; the oldest run directories beyond ten are removed. The logs
 * used to be one per worker, overwritten by the next build or test, and
 * the detail said only "exit 1".
 */
static void test_each_mutant_keeps_its_log_and_the_detail_has_its_last_lines(void **state)
{
	const char *args[] = {"mutate", "--only", "calc-[kb]*", "--json", "../r.json", NULL};
	char log[4096], detail[512], runs[4096], old[4200], first[4096];
	const char *text;

	(void)state;
	make_fixture(catalogue);
	assert_int_equal(fx_tdaudit("repo", "mutate.log", args), 1); /* the build-failed entry */
	field_of(log, sizeof log, fx_slurp("r.json"), "calc-killed", "log");
	field_of(detail, sizeof detail, fx_slurp("r.json"), "calc-killed", "detail");
	assert_string_equal(detail, "exit 1: test_add FAILED");
	assert_true(log[0] == '/');
	text = fx_slurp(log);
	assert_non_null(strstr(text, "== build\n"));
	assert_non_null(strstr(text, "== test test_add\ntest_add FAILED\n"));
	field_of(detail, sizeof detail, fx_slurp("r.json"), "calc-build-failed", "detail");
	assert_non_null(strstr(detail, "exit 2: ")); /* make's exit, then the compiler's last words */
	assert_non_null(strstr(detail, "make"));
	assert_non_null(strstr(fx_slurp("mutate.log"), "  log:  "));
	/* the ledger has the path */
	{
		sqlite3 *db;
		sqlite3_stmt *st;

		assert_int_equal(sqlite3_open_v2("repo/.tdaudit/ledger.db", &db, SQLITE_OPEN_READONLY, NULL),
				 SQLITE_OK);
		assert_int_equal(sqlite3_prepare_v2(db, "SELECT count(*) FROM mutant_outcomes WHERE log = ?1",
						    -1, &st, NULL), SQLITE_OK);
		sqlite3_bind_text(st, 1, log, -1, SQLITE_TRANSIENT);
		assert_int_equal(sqlite3_step(st), SQLITE_ROW);
		assert_int_equal(sqlite3_column_int(st, 0), 1);
		sqlite3_finalize(st);
		sqlite3_close(db);
	}
	/* a later run keeps this one's logs; ten runs are kept, the oldest removed (the fake
	 * ones are named with a pid past pid_max: runs that have ended) */
	snprintf(first, sizeof first, "%s", log);
	snprintf(runs, sizeof runs, "%.*s", (int)(strrchr(log, '/') - log), log);
	*strrchr(runs, '/') = '\0';
	for (int i = 0; i < 12; i++) {
		snprintf(old, sizeof old, "%s/19990101T0000%02dZ-999999999", runs, i);
		assert_int_equal(mkdir(old, 0755), 0);
		snprintf(old, sizeof old, "%s/19990101T0000%02dZ-999999999/0001-x.log", runs, i);
		FILE *f = fopen(old, "w");

		assert_non_null(f);
		fclose(f);
	}
	assert_int_equal(fx_tdaudit("repo", "mutate.log", args), 1);
	assert_non_null(strstr(fx_slurp(first), "== test test_add\n")); /* still there */
	assert_int_equal(entries(runs), 10);
	snprintf(old, sizeof old, "%s/19990101T000003Z-999999999", runs); /* 14 runs: the 4 oldest go */
	assert_int_equal(access(old, F_OK), -1);
	snprintf(old, sizeof old, "%s/19990101T000004Z-999999999", runs);
	assert_int_equal(access(old, F_OK), 0);
}

/*
 * mutate's --junit report validates against the Jenkins JUnit XSD that
 * ledger export's is checked with (tests/schemas/): an equivalent mutant
 * used to be written <skipped message="..."/>, an attribute the XSD's
 * skipped does not have.
 */
static void test_the_junit_report_of_a_run_validates_against_the_jenkins_junit_xsd(void **state)
{
	const char *args[] = {"mutate", "--junit", "../r.xml", NULL};
	const char *lint[] = {"xmllint", "--noout", "--schema",
			      TD_SOURCE_DIR "/tests/schemas/jenkins-junit.xsd", "../r.xml", NULL};

	(void)state;
	if (access("/usr/bin/xmllint", X_OK) != 0)
		TD_SKIP("no xmllint: install libxml2-utils (ci/deps)");
	make_fixture(catalogue);
	assert_int_equal(fx_tdaudit("repo", "mutate.log", args), 1);
	if (fx_run("repo", "lint.log", lint) != 0)
		fail_msg("%s", fx_slurp("lint.log"));
	assert_non_null(strstr(fx_slurp("r.xml"), "<skipped>equivalent: clamp(0) is 0"));
}

/*
 * The reports are valid JSON and XML whatever bytes the catalogue's text
 * holds: a Latin-1 'why' and a stray byte in 'replace' used to reach both
 * raw (DEBUG.md #43). Python's own parsers are the reference; each byte
 * that is not UTF-8 comes out as U+FFFD, and valid UTF-8 (an e-acute)
 * unchanged.
 */
static void test_reports_are_valid_json_and_xml_whatever_the_catalogue_holds(void **state)
{
	const char *args[] = {"mutate", "--json", "../r.json", "--junit", "../r.xml", NULL};
	const char *check[] = {"python3", "-c",
			       "import json, xml.etree.ElementTree as E\n"
			       "j = json.load(open('r.json', encoding='utf-8'))\n"
			       "E.parse('r.xml')\n"
			       "s = json.dumps(j, ensure_ascii=False)\n"
			       "assert 'caf\\ufffd and caf\\u00e9' in s, s\n"
			       "assert 'a \\ufffd b' in s, s\n"
			       "x = open('r.xml', encoding='utf-8').read()\n"
			       "assert 'caf\\ufffd and caf\\u00e9' in x, x\n",
			       NULL};

	(void)state;
	make_fixture("mutant { name = \"calc-survived\", file = \"calc.c\", find = \"return 7;\",\n"
		     "  replace = \"return 8; /* a \xff b */\", guards = { \"test_add\" },\n"
		     "  designed_against = \"x\", why = \"caf\xe9 and caf\xc3\xa9\" }\n");
	assert_int_equal(fx_tdaudit("repo", "mutate.log", args), 1);
	if (fx_run(".", "check.log", check) != 0)
		fail_msg("%s", fx_slurp("../check.log"));
}

/*
 * What the end of a run writes is checked before the run: a --json or
 * --junit path that cannot be written, and a ledger that cannot be opened,
 * are refused before any build, where they used to be found after the
 * whole run, its results lost (DEBUG.md #44). Paths under a regular file
 * cannot be written even by root, who may write anywhere else.
 */
static void test_unwritable_reports_and_ledger_are_refused_before_the_run(void **state)
{
	const char *json[] = {"mutate", "--json", "calc.c/r.json", NULL};
	const char *junit[] = {"mutate", "--junit", "calc.c/r.xml", NULL};
	const char *plain[] = {"mutate", NULL};
	char cfg[sizeof config + 64];

	(void)state;
	make_fixture(catalogue);
	assert_int_equal(fx_tdaudit("repo", "m.log", json), 2);
	assert_non_null(strstr(fx_slurp("m.log"), "cannot write calc.c/r.json: its directory calc.c"));
	assert_null(strstr(fx_slurp("m.log"), "building scratch trees"));
	assert_int_equal(fx_tdaudit("repo", "m.log", junit), 2);
	assert_non_null(strstr(fx_slurp("m.log"), "cannot write calc.c/r.xml"));
	snprintf(cfg, sizeof cfg, "%sledger \"calc.c/ledger.db\"\n", config);
	fx_write("repo", "tdaudit.lua", cfg);
	assert_int_equal(fx_tdaudit("repo", "m.log", plain), 2);
	assert_non_null(strstr(fx_slurp("m.log"), "calc.c/ledger.db"));
	assert_null(strstr(fx_slurp("m.log"), "building scratch trees"));
}

/*
 * A mutant's tests run in a scratch tree outside the repository: one that
 * deletes ../../../DEBUG.md and writes ../../../pwned.txt (and the same one
 * and two levels up) reaches none of the user's files. With the scratch
 * trees in the repository's .tdaudit/work/N it deleted the user's DEBUG.md
 * and wrote the file into the repository (DEBUG.md #49).
 */
static void test_a_mutant_that_writes_up_its_tree_reaches_no_user_file(void **state)
{
	const char *args[] = {"mutate", NULL};
	static const char sh[] = "echo t_ok\nexit 0\n";

	(void)state;
	fx_write("repo", "t.sh", sh);
	fx_write("repo", "DEBUG.md", "# DEBUG.md\n");
	fx_write("repo", "tdaudit.lua", "build { \"true\" }\n"
				      "runner { list = { \"echo\", \"t_ok\" }, run = { \"sh\", \"t.sh\", \"{test}\" } }\n"
				      "catalogues { \"cat.lua\" }\n"
				      /* where the trees are, alone: test_confine.c checks the kernel's part */
				      "confine \"off\"\n");
	fx_write("repo", "cat.lua",
		 "mutant { name = \"t-escapes\", file = \"t.sh\", find = \"exit 0\",\n"
		 "  replace = \"for d in .. ../.. ../../.. ../../../..; do rm -f $d/DEBUG.md; "
		 "echo x > $d/pwned.txt; done; exit 1\",\n"
		 "  guards = { \"t_ok\" }, designed_against = \"x\", why = \"writes up its tree\" }\n");
	fx_git_commit_all("repo", "fixture");
	if (fx_tdaudit("repo", "m.log", args) != 0) /* killed: its test failed */
		fail_msg("%s", fx_slurp("m.log"));
	assert_string_equal(fx_slurp("repo/DEBUG.md"), "# DEBUG.md\n");
	assert_int_equal(access("repo/pwned.txt", F_OK), -1);
	assert_int_equal(access("repo/.tdaudit/pwned.txt", F_OK), -1);
	assert_string_equal(fx_slurp("repo/t.sh"), sh);
}

/*
 * A failure in a worker thread reaches the user with its message: the
 * message is per thread, and the main thread used to print its own, "no
 * error" (DEBUG.md #50). Here the unmutated code does not build.
 */
static void test_a_worker_s_failure_is_reported_with_its_message(void **state)
{
	const char *args[] = {"mutate", "-j", "2", NULL};
	char cfg[sizeof config + 64];
	const char *at;

	(void)state;
	make_fixture(catalogue);
	at = strstr(config, "\"make\", \"-s\"");
	assert_non_null(at);
	snprintf(cfg, sizeof cfg, "%.*s\"false\"%s", (int)(at - config), config,
		 at + strlen("\"make\", \"-s\""));
	fx_write("repo", "tdaudit.lua", cfg);
	assert_int_equal(fx_tdaudit("repo", "m.log", args), 2);
	assert_non_null(strstr(fx_slurp("m.log"), "the unmutated code does not build in "));
	assert_null(strstr(fx_slurp("m.log"), "no error"));
}

/* The loader refuses a name that does not start with its file's stem, saying which. */
static void test_an_entry_not_named_for_its_file_is_refused(void **state)
{
	const char *args[] = {"mutate", "--list", NULL};

	(void)state;
	make_fixture("mutant { name = \"add-wrong\", file = \"calc.c\", find = \"a + b\",\n"
		     "  replace = \"a - b\", guards = { \"test_add\" }, designed_against = \"x\",\n"
		     "  why = \"adds wrong\" }\n");
	assert_int_equal(fx_tdaudit("repo", "mutate.log", args), 2);
	assert_non_null(strstr(fx_slurp("mutate.log"), "cat.lua:1: mutant 'add-wrong' edits calc.c, "
							"so its name must start with 'calc-'"));
	/* the location once: it used to read "cat.lua:1: cat.lua:1: mutant ..." (DEBUG.md #46) */
	assert_null(strstr(fx_slurp("mutate.log"), "cat.lua:1: cat.lua:1:"));
	/* a refusal is its message, with no traceback of the host's C function (DEBUG.md #60) */
	assert_null(strstr(fx_slurp("mutate.log"), "stack traceback"));
	/* while a script's own error keeps the traceback that locates it */
	fx_write("repo", "cat.lua", "local t = nil\nlocal function f() return t.x end\nf()\n");
	assert_int_equal(fx_tdaudit("repo", "mutate.log", args), 2);
	assert_non_null(strstr(fx_slurp("mutate.log"), "cat.lua:2: attempt to index a nil value"));
	assert_non_null(strstr(fx_slurp("mutate.log"), "stack traceback"));
}

/* The fixture's catalogue and one entry on t.c: two files to tell apart. */
static const char t_entry[] =
	"mutant { name = \"t-add-expects-6\", file = \"t.c\", find = \"add(2, 3) == 5\",\n"
	"  replace = \"add(2, 3) == 6\", guards = { \"test_add\", \"test_sum\" },\n"
	"  designed_against = \"x\", why = \"the test expects the wrong sum\" }\n";

static void make_two_file_fixture(void)
{
	char cat[sizeof catalogue + sizeof t_entry];

	snprintf(cat, sizeof cat, "%s%s", catalogue, t_entry);
	make_fixture(cat);
}

/* --list --file GLOB: what breaks a file, and who guards it; tdaudit.lua's glob rules. */
static void test_list_file_shows_the_mutants_of_matching_files_and_their_guards(void **state)
{
	const char *calc[] = {"mutate", "--list", "--file", "calc.c", NULL};
	const char *any[] = {"mutate", "--list", "--file", "*.c", NULL};
	const char *none[] = {"mutate", "--list", "--file", "core/*.c", NULL};
	const char *both[] = {"mutate", "--list", "--file", "calc.c", "--file", "t.c", NULL};
	const char *one_bad[] = {"mutate", "--list", "--file", "calc.c", "--file", "core/*.c", NULL};
	const char *log;

	(void)state;
	make_two_file_fixture();
	assert_int_equal(fx_tdaudit("repo", "calc.log", calc), 0);
	log = fx_slurp("calc.log");
	assert_non_null(strstr(log, "calc-killed\tcalc.c:3\tcatalogue\trunnable\ttest_add\n"));
	assert_non_null(strstr(log, "calc-timeout\tcalc.c:17\tcatalogue\trunnable\ttest_sum\n"));
	assert_null(strstr(log, "t-add-expects-6"));
	assert_int_equal(fx_tdaudit("repo", "any.log", any), 0);
	log = fx_slurp("any.log");
	assert_non_null(strstr(log, "calc-killed\t"));
	assert_non_null(strstr(log, "t-add-expects-6\tt.c:4\tcatalogue\trunnable\ttest_add,test_sum\n"));
	assert_int_equal(fx_tdaudit("repo", "none.log", none), 2);
	assert_non_null(strstr(fx_slurp("none.log"), "--file 'core/*.c' matches the file of none of "
						      "the 8 mutants"));
	/* repeated: the files matching any; one glob matching nothing is refused all the same */
	assert_int_equal(fx_tdaudit("repo", "both.log", both), 0);
	log = fx_slurp("both.log");
	assert_non_null(strstr(log, "calc-killed\tcalc.c:3\t"));
	assert_non_null(strstr(log, "t-add-expects-6\tt.c:4\t"));
	assert_int_equal(fx_tdaudit("repo", "one_bad.log", one_bad), 2);
	assert_non_null(strstr(fx_slurp("one_bad.log"), "--file 'core/*.c' matches the file of none"));
}

/* --file without --list filters the run too. */
static void test_file_runs_only_the_mutants_of_matching_files(void **state)
{
	const char *args[] = {"mutate", "--file", "t.c", NULL};
	const char *log;

	(void)state;
	make_two_file_fixture();
	assert_int_equal(fx_tdaudit("repo", "mutate.log", args), 0);
	log = fx_slurp("mutate.log");
	assert_non_null(strstr(log, "tdaudit mutate: 1 mutants"));
	assert_non_null(strstr(log, "killed by test_add"));
}

/* --list --guard TEST: what does this test guard; a test that guards nothing is refused. */
static void test_list_guard_shows_the_entries_naming_the_test(void **state)
{
	const char *sum[] = {"mutate", "--list", "--guard", "test_sum", NULL};
	const char *none[] = {"mutate", "--list", "--guard", "test_none", NULL};
	const char *run[] = {"mutate", "--guard", "test_sum", NULL};
	const char *log;

	(void)state;
	make_two_file_fixture();
	assert_int_equal(fx_tdaudit("repo", "sum.log", sum), 0);
	log = fx_slurp("sum.log");
	assert_non_null(strstr(log, "calc-timeout\tcalc.c:17\tcatalogue\trunnable\ttest_sum\n"));
	assert_non_null(strstr(log, "t-add-expects-6\tt.c:4\tcatalogue\trunnable\ttest_add,test_sum\n"));
	assert_null(strstr(log, "calc-killed"));
	assert_int_equal(fx_tdaudit("repo", "none.log", none), 2);
	assert_non_null(strstr(fx_slurp("none.log"), "--guard 'test_none' is a guard of none of the 8 "
						      "mutants"));
	assert_int_equal(fx_tdaudit("repo", "run.log", run), 2);
	assert_non_null(strstr(fx_slurp("run.log"), "--guard only lists (with --list)"));
}

static void test_a_red_baseline_stops_the_run(void **state)
{
	const char *args[] = {"mutate", NULL};
	const char *log;

	(void)state;
	make_fixture(catalogue);
	fx_write("repo", "calc.c", "int add(int a, int b) { return a * b; }\n"
				   "int clamp(int x) { return x < 0 ? 0 : x; }\n"
				   "int sum_below(int n) { return n * (n - 1) / 2; }\n");
	assert_int_equal(fx_tdaudit("repo", "mutate.log", args), 2);
	log = fx_slurp("mutate.log");
	assert_non_null(strstr(log, "failed: test_add"));
	assert_non_null(strstr(log, "red baseline"));
	assert_null(strstr(log, "killed"));
}

static void test_a_runner_that_never_names_its_test_stops_the_run(void **state)
{
	const char *args[] = {"mutate", NULL};

	(void)state;
	make_fixture(catalogue);
	/* A runner that runs nothing and says nothing: every mutant would "survive",
	 * or with a broken runner every one would be "killed". Neither may happen. */
	fx_write("repo", "tdaudit.lua",
		 "build { \"make\", \"-s\" }\n"
		 "runner { list = { \"./t\", \"--list\" }, run = { \"true\", \"{test}\" } }\n"
		 "catalogues { \"cat.lua\" }\n");
	assert_int_equal(fx_tdaudit("repo", "mutate.log", args), 2);
	assert_non_null(strstr(fx_slurp("mutate.log"), "never names it"));
}

/*
 * Where each test is a program (plain make with test binaries), a test
 * that passes may print nothing: its run command names the program, so it
 * cannot have run another, and the baseline takes it without its name.
 */
static void test_a_test_that_is_its_own_program_need_not_print_its_name(void **state)
{
	const char *args[] = {"mutate", NULL};

	(void)state;
	fx_write("repo", "calc.c", calc_c);
	fx_write("repo", "check_add.c", "int add(int, int);\n"
					"int main(void)\n{\n\treturn add(2, 3) != 5;\n}\n");
	fx_write("repo", "Makefile", "check_add: check_add.c calc.c\n\tcc -O0 -o $@ $^\n");
	fx_write("repo", "tdaudit.lua",
		 "build { \"make\", \"-s\" }\n"
		 "runner { list = { \"sh\", \"-c\", \"echo check_add\" }, run = { \"./{test}\" } }\n"
		 "catalogues { \"cat.lua\" }\n");
	fx_write("repo", "cat.lua", "mutant { name = \"calc-adds-wrong\", file = \"calc.c\", find = \"a + b\",\n"
				    "  replace = \"a - b\", guards = { \"check_add\" },\n"
				    "  designed_against = \"x\", why = \"adds wrong\" }\n");
	fx_git_commit_all("repo", "fixture");
	assert_int_equal(fx_tdaudit("repo", "mutate.log", args), 0);
	assert_non_null(strstr(fx_slurp("mutate.log"), "killed by check_add"));
}

/*
 * A Makefile that tracks one of two headers: a mutant in the other
 * rebuilds nothing, so the tests run the unmutated program. That mutant is
 * not-rebuilt (a failure of the run, with the advice), never survived; a
 * mutant in the tracked header is built and killed as usual. The ledger
 * keeps the word: it used to store build-failed, so a merged ledger (and
 * the gates and reports read from it) lost it.
 */
static void test_a_mutant_the_build_never_compiles_is_not_rebuilt(void **state)
{
	const char *args[] = {"mutate", "--json", "../nr.json", NULL};
	const char *merge[] = {"ledger", "merge", ".tdaudit/ledger.db", "-o", "../merged.db", NULL};
	const char *gates[] = {"gates", "--ledger", "../merged.db", "--json", "../g.json", NULL};
	const char *json, *log;

	(void)state;
	fx_write("repo", "a.h", "static int add(int a, int b) { return a + b; }\n");
	fx_write("repo", "b.h", "static int twice(int x) { return x * 2; }\n");
	fx_write("repo", "t.c", "#include <stdio.h>\n#include <string.h>\n#include \"a.h\"\n"
				"#include \"b.h\"\nint main(int c, char **v)\n{\n"
				"\tif (c > 1 && !strcmp(v[1], \"--list\")) return puts(\"test_h\") < 0;\n"
				"\tputs(\"test_h\");\n\treturn add(2, 3) != 5 || twice(3) != 6;\n}\n");
	fx_write("repo", "Makefile", "t: t.c a.h\n\tcc -O0 -o t t.c\n"); /* b.h is missing */
	fx_write("repo", "tdaudit.lua",
		 "build { \"make\", \"-s\" }\n"
		 "runner { list = { \"./t\", \"--list\" }, run = { \"./t\", \"{test}\" } }\n"
		 "catalogues { \"cat.lua\" }\n");
	fx_write("repo", "cat.lua",
		 "mutant { name = \"a-tracked\", file = \"a.h\", find = \"a + b\", replace = \"a - b\",\n"
		 "  guards = { \"test_h\" }, designed_against = \"x\", why = \"adds wrong\" }\n"
		 "mutant { name = \"b-untracked\", file = \"b.h\", find = \"x * 2\", replace = \"x * 3\",\n"
		 "  guards = { \"test_h\" }, designed_against = \"x\", why = \"triples\" }\n");
	fx_git_commit_all("repo", "fixture");
	assert_int_equal(fx_tdaudit("repo", "mutate.log", args), 1);
	json = fx_slurp("nr.json");
	assert_string_equal(outcome_of(json, "a-tracked"), "killed");
	assert_string_equal(outcome_of(json, "b-untracked"), "not-rebuilt");
	log = fx_slurp("mutate.log");
	assert_non_null(strstr(log, "not-rebuilt       1"));
	assert_non_null(strstr(log, "fix the build's dependencies"));
	assert_null(strstr(log, "survived"));
	/* the ledger keeps the outcome, through a merge (the weekly job's) into gates */
	assert_int_equal(fx_tdaudit("repo", "merge.log", merge), 0);
	assert_int_not_equal(fx_tdaudit("repo", "gates.log", gates), 2);
	assert_non_null(strstr(fx_slurp("g.json"), "\"not-rebuilt\": 1"));
	assert_non_null(strstr(fx_slurp("g.json"), "\"build-failed\": 0"));
}

/*
 * A golden-output runner: each test is a program whose output is compared
 * with its .ans file, and nothing prints the test's name. The negative
 * control (the run command given a name no runner lists fails: there is no
 * such program) shows that a pass ran the named test, so the baseline
 * takes it, and a mutant is killed by the diff.
 */
static void test_a_golden_output_runner_passes_by_its_negative_control(void **state)
{
	const char *args[] = {"mutate", NULL};

	(void)state;
	fx_write("repo", "calc.c", calc_c);
	fx_write("repo", "add5.c", "#include <stdio.h>\nint add(int, int);\n"
				   "int main(void)\n{\n\tprintf(\"%d\\n\", add(2, 3));\n\treturn 0;\n}\n");
	fx_write("repo", "add5.ans", "5\n");
	fx_write("repo", "Makefile", "add5: add5.c calc.c\n\tcc -O0 -o $@ $^\n");
	fx_write("repo", "tdaudit.lua",
		 "build { \"make\", \"-s\" }\n"
		 "runner { list = { \"sh\", \"-c\", \"echo add5\" },\n"
		 "         run = { \"sh\", \"-c\", \"./{test} > {test}.out && diff {test}.out {test}.ans\" } }\n"
		 "catalogues { \"cat.lua\" }\n");
	fx_write("repo", "cat.lua", "mutant { name = \"calc-adds-wrong\", file = \"calc.c\", find = \"a + b\",\n"
				    "  replace = \"a - b\", guards = { \"add5\" },\n"
				    "  designed_against = \"x\", why = \"adds wrong\" }\n");
	fx_git_commit_all("repo", "fixture");
	assert_int_equal(fx_tdaudit("repo", "mutate.log", args), 0);
	assert_non_null(strstr(fx_slurp("mutate.log"), "killed by add5"));
}

/*
 * A runner whose run command passes for any name (here it ignores the
 * name it is given) fails the negative control; program_is_test = true is
 * the user's word that its program is the test, and the baseline takes it.
 */
static void test_program_is_test_declares_a_runner_that_needs_no_name(void **state)
{
	const char *args[] = {"mutate", "--only", "calc-killed", NULL};
	static const char cfg[] =
		"build { \"make\", \"-s\" }\n"
		"runner { list = { \"sh\", \"-c\", \"echo test_add\" },\n"
		"         run = { \"sh\", \"-c\", \": {test}; ./t test_add > /dev/null\" }%s }\n"
		"catalogues { \"cat.lua\" }\n";
	char text[512];

	(void)state;
	make_fixture(catalogue);
	snprintf(text, sizeof text, cfg, "");
	fx_write("repo", "tdaudit.lua", text);
	assert_int_equal(fx_tdaudit("repo", "mutate.log", args), 2);
	assert_non_null(strstr(fx_slurp("mutate.log"), "passes for a name no runner lists"));
	snprintf(text, sizeof text, cfg, ", program_is_test = true");
	fx_write("repo", "tdaudit.lua", text);
	assert_int_equal(fx_tdaudit("repo", "mutate.log", args), 0);
	assert_non_null(strstr(fx_slurp("mutate.log"), "killed by test_add"));
}

static void test_a_malformed_config_is_refused_with_its_line(void **state)
{
	const char *args[] = {"mutate", NULL};

	(void)state;
	make_fixture(catalogue);
	fx_write("repo", "tdaudit.lua", "build { \"make\" }\n\nbuild \"make all\"\n");
	assert_int_equal(fx_tdaudit("repo", "mutate.log", args), 2);
	assert_non_null(strstr(fx_slurp("mutate.log"), "tdaudit.lua:3: build is given twice"));
	fx_write("repo", "tdaudit.lua", "build { \"make\" }\nrunner { list = { \"./t\" }, run = { \"./t\" }, colour = 1 }\n");
	assert_int_equal(fx_tdaudit("repo", "mutate.log", args), 2);
	assert_non_null(strstr(fx_slurp("mutate.log"), "tdaudit.lua:2: runner has no field 'colour'"));
	/* a value without a name: the message says so, and names the fields */
	fx_write("repo", "tdaudit.lua", "build { \"make\" }\nrunner { \"./t {test}\" }\n");
	assert_int_equal(fx_tdaudit("repo", "mutate.log", args), 2);
	assert_non_null(strstr(fx_slurp("mutate.log"), "tdaudit.lua:2: runner takes named fields "
						       "(list, run, fail_text"));
	assert_non_null(strstr(fx_slurp("mutate.log"), "write NAME = VALUE"));
}

static void test_fail_text_marks_a_zero_exit_as_a_failure(void **state)
{
	const char *args[] = {"mutate", "--only", "calc-killed", NULL};
	const char *cfg = "build { \"make\", \"-s\" }\n"
			  "runner { list = { \"./t\", \"--list\" },\n"
			  "  run = { \"sh\", \"-c\", \"./t {test}; exit 0\" }%s }\n"
			  "catalogues { \"cat.lua\" }\n";
	char text[512];

	(void)state;
	make_fixture(catalogue);
	snprintf(text, sizeof text, cfg, ", fail_text = \"FAILED\"");
	fx_write("repo", "tdaudit.lua", text);
	assert_int_equal(fx_tdaudit("repo", "mutate.log", args), 0);
	assert_non_null(strstr(fx_slurp("mutate.log"), "output says \"FAILED\""));
	snprintf(text, sizeof text, cfg, ""); /* the control: exit 0 alone hides the failure */
	fx_write("repo", "tdaudit.lua", text);
	assert_int_equal(fx_tdaudit("repo", "mutate.log", args), 1);
	assert_non_null(strstr(fx_slurp("mutate.log"), "survived"));
}

static void test_generated_mutants_run_and_skip_comments_are_counted(void **state)
{
	const char *list[] = {"mutate", "--list", NULL};
	const char *run[] = {"mutate", "--only", "calc.c:sum_below:*", NULL};
	const char *log;

	(void)state;
	make_fixture("generate { files = { \"calc.c\" }, operators = { \"relational\" } }\n");
	assert_int_equal(fx_tdaudit("repo", "mutate.log", list), 0);
	log = fx_slurp("mutate.log");
	assert_non_null(strstr(log, "calc.c:sum_below:relational:<:1:<=\tcalc.c:17\trelational"));
	assert_non_null(strstr(log, "calc.c:clamp:relational:<:1:<="));
	assert_int_equal(fx_tdaudit("repo", "mutate.log", run), 0);
	assert_non_null(strstr(fx_slurp("mutate.log"), "killed by test_sum"));
	/* a skip comment removes the clamp mutant and says why */
	fx_write("repo", "calc.c", "int clamp(int x)\n{\n\tif (x < 0) /* tdaudit: skip 0 clamps to 0 "
				   "either way */\n\t\treturn 0;\n\treturn x;\n}\n");
	assert_int_equal(fx_tdaudit("repo", "mutate.log", list), 0);
	log = fx_slurp("mutate.log");
	assert_null(strstr(log, "calc.c:clamp:relational"));
	assert_non_null(strstr(log, "1 generated mutant skipped: 0 clamps to 0 either way"));
}

static void test_diff_keeps_only_mutants_on_changed_lines(void **state)
{
	const char *args[] = {"mutate", "--list", "--diff", "HEAD", NULL};
	char changed[sizeof calc_c + 16];
	const char *log;

	(void)state;
	make_fixture(catalogue);
	snprintf(changed, sizeof changed, "%s", calc_c);
	*strstr(changed, "return 7;") = '\0';
	strcat(changed, "return 7; }\n"); /* rewrites the line of calc-survived only */
	fx_write("repo", "calc.c", changed);
	assert_int_equal(fx_tdaudit("repo", "mutate.log", args), 0);
	log = fx_slurp("mutate.log");
	assert_non_null(strstr(log, "calc-survived\t"));
	assert_null(strstr(log, "calc-killed\t"));
	assert_non_null(strstr(log, "calc-stale\t")); /* a stale entry is always reported */
	assert_non_null(strstr(log, "2 of 7 mutants"));
}

/* --diff that selects no mutant says nothing was tested; it does not claim every mutant caught. */
static void test_a_diff_that_selects_no_mutant_claims_nothing(void **state)
{
	const char *args[] = {"mutate", "--diff", "HEAD", NULL};
	const char *log;

	(void)state;
	make_fixture(t_entry);
	assert_int_equal(fx_tdaudit("repo", "mutate.log", args), 0);
	log = fx_slurp("mutate.log");
	assert_non_null(strstr(log, "0 of 1 mutants"));
	if (strstr(log, "every mutant") || !strstr(log, "no mutant was selected"))
		fail_msg("an empty selection reads as a result:\n%s", log);
}

static void test_rev_mutates_the_committed_revision_not_the_working_tree(void **state)
{
	const char *args[] = {"mutate", "--rev", "HEAD", "--only", "calc-killed", NULL};
	const char *both[] = {"mutate", "--rev", "HEAD", "--diff", "HEAD", NULL};
	uint64_t before;

	(void)state;
	make_fixture(catalogue);
	/* the working tree no longer has the text: without --rev the entry is stale */
	fx_write("repo", "calc.c", "int add(int a, int b) { return b + a; }\n"
				   "int clamp(int x) { return x < 0 ? 0 : x; }\n"
				   "int sum_below(int n) { return n * (n - 1) / 2; }\n");
	before = fx_tree_hash("repo");
	assert_int_equal(fx_tdaudit("repo", "mutate.log", args), 0);
	assert_non_null(strstr(fx_slurp("mutate.log"), "killed by test_add"));
	assert_true(fx_tree_hash("repo") == before);
	assert_int_equal(fx_tdaudit("repo", "mutate.log", both), 2);
	assert_non_null(strstr(fx_slurp("mutate.log"), "do not combine"));
}

/*
 * --rev generates its mutants from REV's files, not the working tree's:
 * HEAD's add returns a + b, the working tree's a * b, and the list holds
 * HEAD's mutants of +, none stale, and none of *.
 */
static void test_rev_generates_its_mutants_from_the_revisions_files(void **state)
{
	const char *args[] = {"mutate", "--rev", "HEAD", "--list", NULL};
	char changed[sizeof calc_c];
	const char *log;

	(void)state;
	make_fixture("generate { files = { \"calc.c\" }, operators = { \"arithmetic\" } }\n");
	snprintf(changed, sizeof changed, "%s", calc_c);
	strstr(changed, "a + b")[2] = '*';
	fx_write("repo", "calc.c", changed);
	assert_int_equal(fx_tdaudit("repo", "mutate.log", args), 0);
	log = fx_slurp("mutate.log");
	assert_non_null(strstr(log, "calc.c:add:arithmetic:+:"));
	assert_null(strstr(log, "calc.c:add:arithmetic:*:"));
	assert_null(strstr(log, "\tstale"));
}

static void test_the_users_tree_index_and_head_are_untouched(void **state)
{
	const char *args[] = {"mutate", "-j", "2", NULL};
	uint64_t before;

	(void)state;
	make_fixture(catalogue);
	fx_write("repo", "untracked.txt", "not committed\n");
	fx_write("repo", "calc.c", calc_c); /* rewritten: same bytes, new mtime */
	before = fx_tree_hash("repo");
	assert_int_equal(fx_tdaudit("repo", "mutate.log", args), 1);
	assert_true(fx_tree_hash("repo") == before);
}

static void test_a_run_killed_halfway_leaves_the_tree_untouched(void **state)
{
	const char *argv[] = {TD_BUILD_DIR "/tdaudit", "mutate", "-j", "1", NULL};
	struct timespec nap = {0, 10 * 1000 * 1000};
	uint64_t before;
	pid_t pid;
	int st;

	(void)state;
	make_fixture(catalogue);
	before = fx_tree_hash("repo");
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		if (chdir("repo") != 0 || !freopen("../inner.log", "w", stdout))
			_exit(127);
		execv(argv[0], (char *const *)argv);
		_exit(127);
	}
	/* Kill it as soon as the first mutant is done: the others, the
	 * multi-second timeout mutant among them, are still to come. */
	for (int i = 0; i < 6000 && !strstr(fx_slurp("inner.log"), "[1/5]"); i++)
		nanosleep(&nap, NULL);
	kill(pid, SIGKILL);
	waitpid(pid, &st, 0);
	assert_non_null(strstr(fx_slurp("inner.log"), "[1/5]"));
	assert_null(strstr(fx_slurp("inner.log"), "summary:"));
	assert_true(WIFSIGNALED(st));
	assert_true(fx_tree_hash("repo") == before);
}

/* ---- --shard, --fail-under, and merged shard ledgers --------------------------- */

#define MAX_IDS 256

/* The ids `mutate --list` prints (the first column of each tab-separated line), in ids[]. */
static size_t list_ids(char ids[][128], const char *const *args)
{
	char *text, *save = NULL;
	size_t n = 0;

	assert_int_equal(fx_tdaudit("repo", "list.log", args), 0);
	text = strdup(fx_slurp("list.log"));
	assert_non_null(text);
	for (char *line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save))
		if (strchr(line, '\t') && n < MAX_IDS)
			sscanf(line, "%127[^\t]", ids[n++]);
	free(text);
	return n;
}

static long find_id(char ids[][128], size_t n, const char *id)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(ids[i], id))
			return (long)i;
	return -1;
}

/* Lists shard k/n of the mutants into part; returns how many. */
static size_t list_shard(char part[][128], int k, int n)
{
	char shard[32];
	const char *args[] = {"mutate", "--list", "--shard", shard, NULL};

	snprintf(shard, sizeof shard, "%d/%d", k, n);
	return list_ids(part, args);
}

static const char generated[] = "generate { files = { \"calc.c\" } }\n";

static void test_shards_cover_every_mutant_exactly_once(void **state)
{
	static char all[MAX_IDS][128], part[MAX_IDS][128];
	static const int ns[] = {1, 2, 3, 5, 8};
	const char *list[] = {"mutate", "--list", NULL};
	char cat[4096];
	size_t n_all;

	(void)state;
	snprintf(cat, sizeof cat, "%s%s", catalogue, generated);
	make_fixture(cat);
	n_all = list_ids(all, list);
	if (n_all < 12)
		fail_msg("only %zu mutants listed", n_all);
	for (size_t x = 0; x < sizeof ns / sizeof ns[0]; x++) {
		int seen[MAX_IDS] = {0}, nonempty = 0;

		for (int k = 1; k <= ns[x]; k++) {
			size_t n = list_shard(part, k, ns[x]);

			nonempty += n > 0;
			for (size_t i = 0; i < n; i++) {
				long at = find_id(all, n_all, part[i]);

				assert_true(at >= 0);
				seen[at]++;
			}
		}
		for (size_t i = 0; i < n_all; i++)
			if (seen[i] != 1)
				fail_msg("%s is in %d of %d shards", all[i], seen[i], ns[x]);
		assert_true(ns[x] == 1 || nonempty > 1); /* not everything in one shard */
	}
}

static void test_adding_a_mutant_moves_no_other_between_shards(void **state)
{
	static char before[3][MAX_IDS][128], after[MAX_IDS][128];
	size_t n[3];
	char cat[4096];

	(void)state;
	snprintf(cat, sizeof cat, "%s%s", catalogue, generated);
	make_fixture(cat);
	for (int k = 1; k <= 3; k++)
		n[k - 1] = list_shard(before[k - 1], k, 3);
	snprintf(cat, sizeof cat, "%s%s%s", /* first, so that the others' positions all move */
		 "mutant { name = \"calc-new\", file = \"calc.c\", find = \"s += i\", replace = "
		 "\"s -= i\",\n  guards = { \"test_sum\" }, designed_against = \"x\", why = \"y\" }\n",
		 catalogue, generated);
	fx_write("repo", "cat.lua", cat);
	for (int k = 1; k <= 3; k++) {
		size_t m = list_shard(after, k, 3);

		for (size_t i = 0; i < n[k - 1]; i++)
			assert_true(find_id(after, m, before[k - 1][i]) >= 0);
		assert_true(m == n[k - 1] || (m == n[k - 1] + 1 && find_id(after, m, "calc-new") >= 0));
	}
}

static void test_a_bad_shard_or_score_is_refused(void **state)
{
	static const char *const shards[] = {"0/3", "4/3", "3", "1/0", "a/b", "2/3x", "-1/3", "1/", "/3",
					     " 1/3"};
	static const char *const scores[] = {"nan", "NaN", "101", "-1", "50x", "", "inf", "abc",
					     "0x10", " 50", "+50", "5e1", ".5", "50.5.1"};
	const char *args[] = {"mutate", "--list", "--shard", NULL, NULL};

	(void)state;
	make_fixture(catalogue);
	for (size_t i = 0; i < sizeof shards / sizeof shards[0]; i++) {
		args[3] = shards[i];
		assert_int_equal(fx_tdaudit("repo", "mutate.log", args), 2);
		assert_non_null(strstr(fx_slurp("mutate.log"), "--shard is K/N"));
	}
	args[2] = "--fail-under";
	for (size_t i = 0; i < sizeof scores / sizeof scores[0]; i++) {
		args[3] = scores[i];
		assert_int_equal(fx_tdaudit("repo", "mutate.log", args), 2);
		assert_non_null(strstr(fx_slurp("mutate.log"), "--fail-under is a mutation score"));
	}
}

/* killed and timeout: the run passes, the score is 50 (a timeout is not a kill). */
static const char half[] =
	"mutant { name = \"calc-killed\", file = \"calc.c\", find = \"a + b\", replace = \"a - b\",\n"
	"  guards = { \"test_add\" }, designed_against = \"x\", why = \"adds wrong\" }\n"
	"mutant { name = \"calc-timeout\", file = \"calc.c\", find = \"i++\", replace = \"i += 0\",\n"
	"  guards = { \"test_sum\" }, designed_against = \"x\", why = \"loops forever\" }\n";

static void test_fail_under_fails_a_passing_run_whose_score_is_below(void **state)
{
	const char *above[] = {"mutate", "-j", "2", "--fail-under", "50", NULL};
	const char *below[] = {"mutate", "-j", "2", "--fail-under", "50.5", NULL};

	(void)state;
	make_fixture(half);
	assert_int_equal(fx_tdaudit("repo", "mutate.log", above), 0);
	assert_non_null(strstr(fx_slurp("mutate.log"), "mutation score: 50.0% (1 killed of 2 judged)"));
	assert_int_equal(fx_tdaudit("repo", "mutate.log", below), 1);
	assert_non_null(strstr(fx_slurp("mutate.log"), "below --fail-under 50.5"));
}

/* "mutant\toutcome\n" for every outcome row of the ledger at path, by mutant. */
static char *outcomes(const char *path)
{
	sqlite3 *db;
	sqlite3_stmt *st;
	char *out = calloc(1, 1 << 16);
	size_t len = 0;

	assert_non_null(out);
	assert_int_equal(sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, NULL), SQLITE_OK);
	assert_int_equal(sqlite3_prepare_v2(db, "SELECT mutant, outcome FROM mutant_outcomes"
						" ORDER BY mutant", -1, &st, NULL), SQLITE_OK);
	while (sqlite3_step(st) == SQLITE_ROW && len < (1 << 16) - 300)
		len += (size_t)snprintf(out + len, (1 << 16) - len, "%s\t%s\n",
					(const char *)sqlite3_column_text(st, 0),
					(const char *)sqlite3_column_text(st, 1));
	sqlite3_finalize(st);
	sqlite3_close(db);
	return out;
}

/* Moves the project's ledger to path, for the next run to start a fresh one. */
static void take_ledger(const char *path)
{
	assert_int_equal(rename("repo/.tdaudit/ledger.db", path), 0);
	unlink("repo/.tdaudit/ledger.db-wal");
	unlink("repo/.tdaudit/ledger.db-shm");
}

/* The gates JSON of the ledger at path, from its "load_bearing" on (the run's id differs). */
static char *gates_lists(const char *path, const char *json)
{
	const char *args[] = {"gates", "--ledger", path, "--json", json, NULL};
	char file[256];
	const char *lists;

	assert_int_equal(fx_tdaudit("repo", "gates.log", args), 0);
	snprintf(file, sizeof file, "%s", json + 3); /* "../x.json" from repo is ./x.json */
	lists = strstr(fx_slurp(file), "\"load_bearing\"");
	assert_non_null(lists);
	return strdup(lists);
}

static void test_merged_shards_give_the_outcomes_of_one_run(void **state)
{
	const char *whole[] = {"mutate", "-j", "2", NULL};
	const char *shard[] = {"mutate", "-j", "2", "--shard", NULL, NULL};
	const char *merge[] = {"ledger", "merge", "../s1.db", "../s2.db", "../s3.db", "-o",
			       "../merged.db", NULL};
	static const char *const ks[] = {"1/3", "2/3", "3/3"};
	char *one, *merged, *gates_one, *gates_merged;

	(void)state;
	make_fixture(catalogue);
	assert_int_equal(fx_tdaudit("repo", "mutate.log", whole), 1);
	take_ledger("whole.db");
	for (int k = 0; k < 3; k++) {
		char db[16];

		shard[4] = ks[k];
		assert_true(fx_tdaudit("repo", "mutate.log", shard) <= 1);
		assert_non_null(strstr(fx_slurp("mutate.log"), "baseline green")); /* in every shard */
		snprintf(db, sizeof db, "s%d.db", k + 1);
		take_ledger(db);
	}
	assert_int_equal(fx_tdaudit("repo", "merge.log", merge), 0);
	one = outcomes("whole.db");
	merged = outcomes("merged.db");
	assert_non_null(strstr(one, "calc-timeout\ttimeout\n"));
	assert_string_equal(merged, one);
	gates_one = gates_lists("../whole.db", "../gw.json");
	gates_merged = gates_lists("../merged.db", "../gm.json");
	assert_non_null(strstr(fx_slurp("gm.json"), "\"shards\": 3"));
	assert_string_equal(gates_merged, gates_one);
	free(one), free(merged), free(gates_one), free(gates_merged);
}

/*
 * A test that runs out of time runs once more with twice the limit: a
 * mutant slow only the first time (it sleeps past the 2 s floor, then
 * leaves a mark) is judged by its second run, killed, not a timeout.
 */
static void test_a_timed_out_test_runs_again_with_twice_the_limit(void **state)
{
	static const char slow_once[] =
		"mutant { name = \"calc-slow-once\", file = \"calc.c\", find = \"return a + b;\",\n"
		"  replace = \"extern int access(const char *, int); extern int creat(const char *, "
		"unsigned); extern unsigned sleep(unsigned); if (access(\\\"slow.once\\\", 0)) { "
		"creat(\\\"slow.once\\\", 0644); sleep(6); } return a - b;\",\n"
		"  guards = { \"test_add\" }, designed_against = \"x\", why = \"slow, then wrong\" }\n";
	const char *args[] = {"mutate", "-j", "1", "--json", "../report.json", NULL};

	(void)state;
	make_fixture(slow_once);
	assert_int_equal(fx_tdaudit("repo", "mutate.log", args), 0);
	assert_string_equal(outcome_of(fx_slurp("report.json"), "calc-slow-once"), "killed");
	assert_non_null(strstr(fx_slurp("mutate.log"), "1 test run timed out and ran again"));
}

/* --ledger DB: the run lands in DB, taken from the current directory; the project's is not made. */
static void test_a_run_given_a_ledger_records_there_and_nowhere_else(void **state)
{
	const char *args[] = {"mutate", "-j", "2", "--shard", "2/3", "--ledger", "../own.db", NULL};
	char *own;

	(void)state;
	make_fixture(catalogue);
	assert_true(fx_tdaudit("repo", "mutate.log", args) <= 1);
	assert_int_equal(access("repo/.tdaudit/ledger.db", F_OK), -1);
	own = outcomes("own.db");
	assert_non_null(strstr(own, "\t")); /* shard 2/3's outcomes are there */
	free(own);
}

/*
 * ci/weekly --shards 3 on the fixture: the merged ledger holds one run's
 * outcomes, and the gates, SARIF, JUnit and HTML report are made from it
 * (the score chart counts the shards as one run: it used to draw each as a
 * point); the survivor fails the job.
 */
static void test_the_weekly_job_merges_three_shards_into_its_reports(void **state)
{
	const char *weekly[] = {"env", "TDAUDIT=" TD_BUILD_DIR "/tdaudit", TD_SOURCE_DIR "/ci/weekly",
				"--shards", "3", "-j", "2", "--out", "../weekly", NULL};
	const char *whole[] = {"mutate", "-j", "2", NULL};
	char *one, *merged;
	int rc;

	(void)state;
	make_fixture(catalogue);
	rc = fx_run("repo", "weekly.log", weekly);
	if (rc != 1) /* calc-survived */
		fprintf(stderr, "%s", fx_slurp("weekly.log"));
	assert_int_equal(rc, 1);
	assert_non_null(strstr(fx_slurp("weekly.log"), "ci/weekly: shard 3/3"));
	assert_int_equal(access("repo/.tdaudit/ledger.db", F_OK), -1); /* shards kept apart */
	assert_int_equal(fx_tdaudit("repo", "mutate.log", whole), 1);
	take_ledger("whole.db");
	one = outcomes("whole.db");
	merged = outcomes("weekly/merged.db");
	assert_string_equal(merged, one);
	assert_non_null(strstr(fx_slurp("weekly/gates.json"), "\"shards\": 3"));
	assert_non_null(strstr(fx_slurp("weekly/tdaudit.sarif"), "calc-survived"));
	assert_non_null(strstr(fx_slurp("weekly/junit.xml"), "calc-survived"));
	assert_non_null(strstr(fx_slurp("weekly/report.html"), "calc-survived"));
	/* the score chart: the three shards are one run, one point */
	assert_non_null(strstr(fx_slurp("weekly/report.html"), "data-runs=\"1\">1 mutation run with"));
	free(one), free(merged);
}

/*
 * The pid of a process that carries the run mark of tdaudit process
 * tdaudit and whose command line holds word, or 0.
 */
static pid_t marked_process(pid_t tdaudit, const char *word)
{
	char mark[64], path[300], buf[8192];
	pid_t found = 0;
	DIR *d = opendir("/proc");
	struct dirent *e;

	snprintf(mark, sizeof mark, "TDAUDIT_PROC=%ld:", (long)tdaudit);
	while (d && !found && (e = readdir(d))) {
		FILE *f;
		size_t n;
		int hit_mark = 0, hit_word = 0;

		if (e->d_name[0] < '1' || e->d_name[0] > '9')
			continue;
		snprintf(path, sizeof path, "/proc/%s/environ", e->d_name);
		if ((f = fopen(path, "r"))) {
			n = fread(buf, 1, sizeof buf - 1, f);
			fclose(f);
			for (size_t i = 0; i < n; i += strlen(buf + i) + 1)
				buf[n] = '\0', hit_mark |= strncmp(buf + i, mark, strlen(mark)) == 0;
		}
		snprintf(path, sizeof path, "/proc/%s/cmdline", e->d_name);
		if (hit_mark && (f = fopen(path, "r"))) {
			n = fread(buf, 1, sizeof buf - 1, f);
			fclose(f);
			for (size_t i = 0; i < n; i += strlen(buf + i) + 1)
				buf[n] = '\0', hit_word |= strcmp(buf + i, word) == 0;
		}
		if (hit_mark && hit_word)
			found = (pid_t)atol(e->d_name);
	}
	if (d)
		closedir(d);
	return found;
}

/* SIGTERM to mutate while a mutant loops forever: the test dies, the run exits 143. */
static void test_a_stopped_run_kills_its_test_and_exits_128_plus_the_signal(void **state)
{
	const char *argv[] = {TD_BUILD_DIR "/tdaudit", "mutate", "-j", "1", "--only", "calc-timeout",
			      "--timeout", "600", NULL};
	struct timespec nap = {0, 20 * 1000 * 1000};
	uint64_t before;
	pid_t pid, looping = 0;
	int st;

	(void)state;
	make_fixture(catalogue);
	before = fx_tree_hash("repo");
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		if (chdir("repo") != 0 || !freopen("../inner.log", "w", stdout) ||
		    !freopen("../inner.err", "w", stderr))
			_exit(127);
		execv(argv[0], (char *const *)argv);
		_exit(127);
	}
	for (int i = 0; i < 6000 && !looping; i++) {
		nanosleep(&nap, NULL);
		if (strstr(fx_slurp("inner.log"), "baseline green"))
			looping = marked_process(pid, "test_sum");
	}
	kill(pid, SIGTERM);
	waitpid(pid, &st, 0);
	if (looping && !fx_gone(looping)) {
		kill(looping, SIGKILL);
		fail_msg("the looping test %ld outlived tdaudit", (long)looping);
	}
	assert_true(looping > 0);
	assert_true(WIFEXITED(st) && WEXITSTATUS(st) == 128 + SIGTERM);
	assert_non_null(strstr(fx_slurp("inner.err"), "stopped by SIGTERM"));
	assert_true(fx_tree_hash("repo") == before);
}

static const struct CMUnitTest tests[] = {
	cmocka_unit_test(test_every_outcome_is_reported),
	cmocka_unit_test(test_all_caught_exits_0),
	cmocka_unit_test(test_an_only_pattern_that_matches_no_mutant_is_refused),
	cmocka_unit_test(test_only_given_twice_keeps_the_mutants_of_both_patterns),
	cmocka_unit_test(test_a_value_option_given_twice_is_refused),
	cmocka_unit_test(test_a_catalogue_entry_that_does_not_build_fails_the_run),
	cmocka_unit_test(test_the_junit_report_of_a_run_validates_against_the_jenkins_junit_xsd),
	cmocka_unit_test(test_each_mutant_keeps_its_log_and_the_detail_has_its_last_lines),
	cmocka_unit_test(test_reports_are_valid_json_and_xml_whatever_the_catalogue_holds),
	cmocka_unit_test(test_unwritable_reports_and_ledger_are_refused_before_the_run),
	cmocka_unit_test(test_a_mutant_that_writes_up_its_tree_reaches_no_user_file),
	cmocka_unit_test(test_a_worker_s_failure_is_reported_with_its_message),
	cmocka_unit_test(test_an_entry_not_named_for_its_file_is_refused),
	cmocka_unit_test(test_list_file_shows_the_mutants_of_matching_files_and_their_guards),
	cmocka_unit_test(test_file_runs_only_the_mutants_of_matching_files),
	cmocka_unit_test(test_list_guard_shows_the_entries_naming_the_test),
	cmocka_unit_test(test_a_red_baseline_stops_the_run),
	cmocka_unit_test(test_a_runner_that_never_names_its_test_stops_the_run),
	cmocka_unit_test(test_a_test_that_is_its_own_program_need_not_print_its_name),
	cmocka_unit_test(test_a_mutant_the_build_never_compiles_is_not_rebuilt),
	cmocka_unit_test(test_a_golden_output_runner_passes_by_its_negative_control),
	cmocka_unit_test(test_program_is_test_declares_a_runner_that_needs_no_name),
	cmocka_unit_test(test_a_malformed_config_is_refused_with_its_line),
	cmocka_unit_test(test_fail_text_marks_a_zero_exit_as_a_failure),
	cmocka_unit_test(test_generated_mutants_run_and_skip_comments_are_counted),
	cmocka_unit_test(test_diff_keeps_only_mutants_on_changed_lines),
	cmocka_unit_test(test_a_diff_that_selects_no_mutant_claims_nothing),
	cmocka_unit_test(test_rev_mutates_the_committed_revision_not_the_working_tree),
	cmocka_unit_test(test_rev_generates_its_mutants_from_the_revisions_files),
	cmocka_unit_test(test_the_users_tree_index_and_head_are_untouched),
	cmocka_unit_test(test_a_run_killed_halfway_leaves_the_tree_untouched),
	cmocka_unit_test(test_shards_cover_every_mutant_exactly_once),
	cmocka_unit_test(test_adding_a_mutant_moves_no_other_between_shards),
	cmocka_unit_test(test_a_bad_shard_or_score_is_refused),
	cmocka_unit_test(test_fail_under_fails_a_passing_run_whose_score_is_below),
	cmocka_unit_test(test_merged_shards_give_the_outcomes_of_one_run),
	cmocka_unit_test(test_a_timed_out_test_runs_again_with_twice_the_limit),
	cmocka_unit_test(test_a_run_given_a_ledger_records_there_and_nowhere_else),
	cmocka_unit_test(test_the_weekly_job_merges_three_shards_into_its_reports),
	cmocka_unit_test(test_a_stopped_run_kills_its_test_and_exits_128_plus_the_signal),
};
TD_TEST_GROUP(mutate, tests);
