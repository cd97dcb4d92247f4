/*
 * test_mutate_scale.c - tdaudit mutate at scale, end to end on fixture
 * repositories built in the test's temporary directory: running again only
 * the previous run's survivors (--survivors), generated mutants declared
 * equivalent by id in a catalogue (equivalent { }), mutants built and run
 * under the sanitizers (--sanitize), the generated mutants that do not
 * build counted by operator and by file, and mutant schemata (--schemata).
 *
 * What these tests guard: tdaudit mutate --list --file harness/survivors.c
 *   and --list --file harness/sanitize.c
 *   and --list --only 'mutate-schema-*' and --list --only 'report-files-*'
 *   and --list --only 'weekly-*' and --list --only mutate-catalogue-option-ignored
 *
 * Edits seen breaking these tests:
 *   - td_ledger_survivors() taking sharded runs too (no "shard_n IS NULL")
 *     -> survivors_runs_again_only_what_the_previous_run_let_through (reads the shard)
 *   - td_survivors_keep() keeping every mutant
 *     -> survivors_runs_again_only_what_the_previous_run_let_through
 *   - td_survivors_keep() not printing the gone ones
 *     -> a_survivor_gone_from_the_catalogues_is_listed_as_gone
 *   - td_mutate() going on to build when no survivor is left
 *     -> survivors_without_a_previous_run_or_without_survivors_say_so
 *   - resolve_equivalents() passing over an id no generated mutant has
 *     -> an_equivalent_declaration_that_matches_nothing_is_refused
 *   - locate_all() honouring equivalent for hand-written entries only
 *     -> a_generated_mutant_declared_equivalent_is_reported_with_its_reason
 *   - print_equivalents() not called by td_report_all()
 *     -> a_generated_mutant_declared_equivalent_is_reported_with_its_reason
 *   - tally_build_failed() counting hand-written entries too, or
 *     td_report_json() leaving put_build_failed() out
 *     -> generated_mutants_that_do_not_build_are_counted_by_operator_and_file
 *   - worst_first() ordering the files by name, or put_by_file() listing
 *     the files at 100% -> the_score_of_each_file_is_reported_worst_first
 *   - td_mutate() loading tdaudit.lua's catalogues whatever --catalogue says
 *     -> catalogue_runs_the_named_catalogues_instead_of_the_configured_ones
 *   - ci/weekly's merge adding up the uncaught outcomes without no-coverage
 *     -> a_weekly_merge_fails_on_a_no_coverage_mutant
 *   - ci/weekly dropping --catalogue and --schemata on the way to mutate
 *   - ci/weekly dropping --sanitize -> the_weekly_job_passes_sanitize_to_its_shards
 *     -> the_weekly_job_runs_a_named_catalogue_in_schemata
 *   - td_sanitize_env() setting detect_leaks=0
 *     -> sanitize_kills_a_leak_and_a_read_past_the_end_that_the_plain_run_misses
 *   - probe() not calling td_sanitize_report() (the detail reads "exit 86")
 *     -> sanitize_kills_a_leak_and_a_read_past_the_end_that_the_plain_run_misses
 *   - sanitize_variant() building with "default" when no variant "sanitize" exists
 *     -> sanitize_without_a_sanitize_variant_is_refused_with_an_example
 */
#define _XOPEN_SOURCE 700
#include "tdtest.h"

#include <glob.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <sqlite3.h>

#include "fixture.h"

static const char calc_c[] =
	"int add(int a, int b)\n{\n\treturn a + b;\n}\n\n"
	"int clamp(int x)\n{\n\tif (x < 0)\n\t\treturn 0;\n\treturn x;\n}\n\n"
	"int unused(void)\n{\n\treturn 7;\n}\n";

/* The runner: `./t --list`, `./t NAME` (prints NAME, exit 0 pass / 1 fail). */
static const char t_c[] =
	"#include <stdio.h>\n#include <string.h>\n"
	"int add(int, int); int clamp(int); int unused(void);\n"
	"static int test_add(void) { return add(2, 3) == 5; }\n"
	"static int test_clamp(void) { return clamp(-4) == 0 && clamp(3) == 3; }\n"
	"static int test_unused(void) { return UNUSED_CHECK; }\n"
	"static const struct { const char *name; int (*fn)(void); } tests[] = {\n"
	"\t{\"test_add\", test_add}, {\"test_clamp\", test_clamp}, {\"test_unused\", test_unused}};\n"
	"int main(int argc, char **argv)\n{\n"
	"\tfor (int i = 0; i < 3; i++) {\n"
	"\t\tif (argc > 1 && !strcmp(argv[1], \"--list\")) { puts(tests[i].name); continue; }\n"
	"\t\tif (argc > 1 && !strcmp(argv[1], tests[i].name)) {\n"
	"\t\t\tint ok = tests[i].fn();\n"
	"\t\t\tprintf(\"%s %s\\n\", tests[i].name, ok ? \"ok\" : \"FAILED\");\n"
	"\t\t\treturn !ok;\n\t\t}\n\t}\n"
	"\treturn argc > 1 && strcmp(argv[1], \"--list\") ? 2 : 0;\n}\n";

/* test_unused checks nothing, unless -DUNUSED_CHECK says what (survivors_runs_again_...) */
static const char makefile[] =
	"t: t.c calc.c $(wildcard lib.c)\n\tcc -O0 -DUNUSED_CHECK=1 -o t t.c calc.c $(wildcard lib.c)\n";

static const char config[] =
	"build { \"make\", \"-s\" }\n"
	"runner { list = { \"./t\", \"--list\" }, run = { \"./t\", \"{test}\" } }\n"
	"sources { \"*.c\" }\n"
	"tests { \"t.c\", \"Makefile\" }\n"
	"catalogues { \"cat.lua\" }\n"
	"timeout { factor = 5, floor = 5 }\n";

static const char two_mutants[] =
	"mutant { name = \"calc-killed\", file = \"calc.c\", find = \"a + b\", replace = \"a - b\",\n"
	"  guards = { \"test_add\" }, designed_against = \"x\", why = \"adds wrong\" }\n"
	"mutant { name = \"calc-survived\", file = \"calc.c\", find = \"return 7;\", replace = \"return 8;\",\n"
	"  guards = { \"test_unused\" }, designed_against = \"x\", why = \"nobody checks it\" }\n";

/* Builds the fixture repository in ./repo with catalogue cat and commits it. */
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
	char key[512];
	const char *p, *o;

	snprintf(key, sizeof key, "{\"id\": \"%s\"", id);
	p = strstr(json, key);
	o = p ? strstr(p, "\"outcome\": \"") : NULL;
	out[0] = '\0';
	if (o)
		sscanf(o + 12, "%63[^\"]", out);
	return out;
}

/* The id of the latest run of the ledger of ./repo, sharded (1) or not (0). */
static const char *latest_run(int sharded)
{
	static char id[64];
	sqlite3 *db;
	sqlite3_stmt *st;

	assert_int_equal(sqlite3_open_v2("repo/.tdaudit/ledger.db", &db, SQLITE_OPEN_READONLY, NULL),
			 SQLITE_OK);
	assert_int_equal(sqlite3_prepare_v2(db, sharded ? "SELECT id FROM runs WHERE shard_n IS NOT "
							  "NULL ORDER BY started DESC LIMIT 1"
							: "SELECT id FROM runs WHERE shard_n IS NULL "
							  "ORDER BY started DESC LIMIT 1",
					    -1, &st, NULL),
			 SQLITE_OK);
	assert_int_equal(sqlite3_step(st), SQLITE_ROW);
	snprintf(id, sizeof id, "%s", (const char *)sqlite3_column_text(st, 0));
	sqlite3_finalize(st);
	sqlite3_close(db);
	return id;
}

/* ---- --survivors ------------------------------------------------------------ */

/*
 * --survivors runs only the mutants that survived the latest finished
 * unsharded run, names that run, and ignores a later shard; once the
 * suite catches the survivor, the next --survivors run says so.
 */
static void test_survivors_runs_again_only_what_the_previous_run_let_through(void **state)
{
	const char *all[] = {"mutate", NULL};
	const char *shard[] = {"mutate", "--shard", "1/1", "--only", "calc-killed", NULL};
	const char *again[] = {"mutate", "--survivors", "--json", "../r.json", NULL};
	char run[64], want[128];
	const char *json, *log;

	(void)state;
	make_fixture(two_mutants);
	assert_int_equal(fx_tdaudit("repo", "all.log", all), 1);
	snprintf(run, sizeof run, "%s", latest_run(0));
	assert_int_equal(fx_tdaudit("repo", "shard.log", shard), 0); /* a later shard: not a run */
	assert_int_equal(fx_tdaudit("repo", "again.log", again), 1);
	log = fx_slurp("again.log");
	snprintf(want, sizeof want, "--survivors: run %s of ", run);
	if (!strstr(log, want) || !strstr(log, "1 survivor\n"))
		fail_msg("expected '%s' ... '1 survivor':\n%s", want, log);
	json = fx_slurp("r.json");
	assert_string_equal(outcome_of(json, "calc-survived"), "survived");
	assert_string_equal(outcome_of(json, "calc-killed"), ""); /* not run again */
	/* the suite catches it now: the survivor of the last run is killed */
	fx_write("repo", "Makefile", "t: t.c calc.c Makefile\n\tcc -O0 '-DUNUSED_CHECK=unused() == 7' -o t t.c "
				     "calc.c\n");
	assert_int_equal(fx_tdaudit("repo", "again.log", again), 0);
	assert_string_equal(outcome_of(fx_slurp("r.json"), "calc-survived"), "killed");
}

/*
 * A survivor whose mutant the catalogues no longer hold is listed as gone,
 * not dropped in silence; the others still run.
 */
static void test_a_survivor_gone_from_the_catalogues_is_listed_as_gone(void **state)
{
	const char *all[] = {"mutate", NULL};
	const char *again[] = {"mutate", "--survivors", NULL};
	char cat[2048];
	const char *log;

	(void)state;
	snprintf(cat, sizeof cat, "%s%s", two_mutants,
		 "mutant { name = \"calc-survived-too\", file = \"calc.c\", find = \"return x;\",\n"
		 "  replace = \"return x + 0;\", guards = { \"test_clamp\" }, designed_against = \"x\",\n"
		 "  why = \"adds nothing\" }\n");
	make_fixture(cat);
	assert_int_equal(fx_tdaudit("repo", "all.log", all), 1);
	fx_write("repo", "cat.lua", two_mutants); /* calc-survived-too is gone */
	assert_int_equal(fx_tdaudit("repo", "again.log", again), 1);
	log = fx_slurp("again.log");
	assert_non_null(strstr(log, "2 survivors\n"));
	assert_non_null(strstr(log, "--survivors: gone: calc-survived-too is no mutant of the "
				    "catalogues any more"));
	assert_non_null(strstr(log, "running 1 again (1 gone)"));
	assert_non_null(strstr(log, "summary: 1 mutants"));
}

/*
 * Without a previous run --survivors is refused (exit 2); after a run in
 * which nothing survived it says there is nothing to run again and exits
 * 0 without building anything or recording a run.
 */
static void test_survivors_without_a_previous_run_or_without_survivors_say_so(void **state)
{
	const char *again[] = {"mutate", "--survivors", NULL};
	const char *killed[] = {"mutate", "--only", "calc-killed", NULL};
	const char *log;
	char run[64];

	(void)state;
	make_fixture(two_mutants);
	assert_int_equal(fx_tdaudit("repo", "none.log", again), 2);
	assert_non_null(strstr(fx_slurp("none.log"), "--survivors: there is no ledger at "));
	assert_int_equal(fx_tdaudit("repo", "killed.log", killed), 0);
	snprintf(run, sizeof run, "%s", latest_run(0));
	assert_int_equal(fx_tdaudit("repo", "again.log", again), 0);
	log = fx_slurp("again.log");
	assert_non_null(strstr(log, "0 survivors\n"));
	assert_non_null(strstr(log, "nothing to run again: no mutant survived that run"));
	assert_null(strstr(log, "building scratch trees"));
	assert_string_equal(latest_run(0), run); /* nothing recorded */
}

/* ---- equivalent { } ------------------------------------------------------------ */

#define CLAMP_LT "calc.c:clamp:relational:<:1:<="

/*
 * A generated mutant declared equivalent by its id is not run; the run's
 * output and JSON give its reason and where it was declared.
 */
static void test_a_generated_mutant_declared_equivalent_is_reported_with_its_reason(void **state)
{
	const char *args[] = {"mutate", "--only", "calc.c:clamp:relational:*", "--json", "../r.json",
			      NULL};
	const char *list[] = {"mutate", "--list", "--only", CLAMP_LT, NULL};

	(void)state;
	make_fixture("generate { files = { \"calc.c\" }, operators = { \"relational\" } }\n"
		     "equivalent { id = \"" CLAMP_LT "\",\n"
		     "  reason = \"clamp(0) is 0 on both sides of the boundary\" }\n");
	assert_int_equal(fx_tdaudit("repo", "list.log", list), 0);
	assert_non_null(strstr(fx_slurp("list.log"), CLAMP_LT "\tcalc.c:8\trelational\tequivalent"));
	assert_int_equal(fx_tdaudit("repo", "run.log", args), 0);
	assert_non_null(strstr(fx_slurp("run.log"), "  " CLAMP_LT ": clamp(0) is 0 on both sides of "
							  "the boundary (cat.lua:2)"));
	assert_string_equal(outcome_of(fx_slurp("r.json"), CLAMP_LT), "equivalent");
	assert_non_null(strstr(fx_slurp("r.json"),
			       "\"equivalent\": \"clamp(0) is 0 on both sides of the boundary\""));
}

/*
 * A declaration that names no generated mutant (the code moved on), names a
 * hand-written entry, or repeats an id is refused with its line: a stale
 * declaration would otherwise say nothing forever.
 */
static void test_an_equivalent_declaration_that_matches_nothing_is_refused(void **state)
{
	const char *list[] = {"mutate", "--list", NULL};
	const char *gen = "generate { files = { \"calc.c\" }, operators = { \"relational\" } }\n";
	char cat[2048];

	(void)state;
	snprintf(cat, sizeof cat, "%sequivalent { id = \"calc.c:clamp:relational:<:2:<=\", "
				  "reason = \"r\" }\n", gen);
	make_fixture(cat);
	assert_int_equal(fx_tdaudit("repo", "stale.log", list), 2);
	assert_non_null(strstr(fx_slurp("stale.log"),
			       "cat.lua:2: equivalent: no generated mutant has the id "
			       "'calc.c:clamp:relational:<:2:<='"));
	snprintf(cat, sizeof cat, "%s%sequivalent { id = \"calc-killed\", reason = \"r\" }\n", gen,
		 two_mutants);
	fx_write("repo", "cat.lua", cat);
	assert_int_equal(fx_tdaudit("repo", "hand.log", list), 2);
	assert_non_null(strstr(fx_slurp("hand.log"), "'calc-killed' is a hand-written entry"));
	snprintf(cat, sizeof cat, "%sequivalent { id = \"" CLAMP_LT "\", reason = \"r\" }\n"
				  "equivalent { id = \"" CLAMP_LT "\", reason = \"s\" }\n", gen);
	fx_write("repo", "cat.lua", cat);
	assert_int_equal(fx_tdaudit("repo", "twice.log", list), 2);
	assert_non_null(strstr(fx_slurp("twice.log"), "cat.lua:3: equivalent: '" CLAMP_LT
						       "' is already declared at cat.lua:2"));
	fx_write("repo", "cat.lua", "equivalent { id = \"x\", why = \"r\" }\n");
	assert_int_equal(fx_tdaudit("repo", "field.log", list), 2);
	assert_non_null(strstr(fx_slurp("field.log"), "equivalent has no field 'why'"));
}

/* ---- build-failed generated mutants, counted ------------------------------------ */

/*
 * The generated mutants that do not build are counted by operator class and
 * by file, in the summary and the JSON: a catalogue whose generator mostly
 * makes code that does not compile shows where. A hand-written entry that
 * does not build is a failure of its own, not in these counts.
 */
static void test_generated_mutants_that_do_not_build_are_counted_by_operator_and_file(void **state)
{
	const char *args[] = {"mutate", "--only", "*:add:*", "--only", "*:twice:*", "--only",
			      "calc-no-build", "--json", "../r.json", NULL};
	const char *log, *json;

	(void)state;
	/* and a hand-written entry that does not build: a failure of the run, not counted here */
	make_fixture("generate { files = { \"*.c\" }, operators = { \"relational\", \"constant\" } }\n"
		     "mutant { name = \"calc-no-build\", file = \"calc.c\", find = \"a + b;\",\n"
		     "  replace = \"a + ;\", guards = { \"test_add\" }, designed_against = \"x\",\n"
		     "  why = \"does not compile\" }\n");
	/* _Static_assert(1 == 1): both constants and the == do not build mutated */
	fx_write("repo", "calc.c", "int add(int a, int b)\n{\n\t_Static_assert(1 == 1, \"one\");\n"
				   "\treturn a + b;\n}\nint clamp(int x)\n{\n\treturn x > 0 ? x : 0;\n}\n"
				   "int unused(void)\n{\n\treturn 7;\n}\n");
	fx_write("repo", "lib.c", "int twice(int a)\n{\n\t_Static_assert(1, \"one\");\n"
				  "\treturn a + a;\n}\n");
	assert_int_equal(fx_tdaudit("repo", "run.log", args), 1);
	log = fx_slurp("run.log");
	if (!strstr(log, "build-failed generated mutants, by operator: constant 3, relational 1\n") ||
	    !strstr(log, "build-failed generated mutants, by file: calc.c 3, lib.c 1\n"))
		fail_msg("the counts are missing:\n%s", log);
	json = fx_slurp("r.json");
	assert_non_null(strstr(json, "\"build_failed_generated\": {\"by_operator\": {\"constant\": 3, "
				     "\"relational\": 1}, \"by_file\": {\"calc.c\": 3, \"lib.c\": 1}}"));
}

/*
 * The score of each file, in the summary (the files below 100% only, when
 * there are several), the JSON (every file, worst first) and the HTML
 * report, so that a run over many files shows where its holes are.
 */
static void test_the_score_of_each_file_is_reported_worst_first(void **state)
{
	const char *args[] = {"mutate", "--json", "../r.json", NULL};
	const char *html[] = {"report", "--html", "../r.html", NULL};
	const char *log;

	(void)state;
	/* calc.c 100%, t.c 0%: worst first is not the order of the names */
	make_fixture("mutant { name = \"calc-killed\", file = \"calc.c\", find = \"a + b\", replace = \"a - b\",\n"
		     "  guards = { \"test_add\" }, designed_against = \"x\", why = \"adds wrong\" }\n"
		     "mutant { name = \"t-survived\", file = \"t.c\", find = \"? \\\"ok\\\"\",\n"
		     "  replace = \"? \\\"fine\\\"\", guards = { \"test_add\" }, designed_against = \"x\",\n"
		     "  why = \"only the exit status is read\" }\n");
	assert_int_equal(fx_tdaudit("repo", "run.log", args), 1);
	log = fx_slurp("run.log");
	if (!strstr(log, "mutation score by file, worst first (1 of 2 at 100% not listed):\n"
			 "  t.c  0.0% (0 killed of 1 judged)\n") || strstr(log, "  calc.c  "))
		fail_msg("no score by file, or calc.c listed at 100%%:\n%s", log);
	assert_non_null(strstr(fx_slurp("r.json"),
			       "\"score_by_file\": [{\"file\": \"t.c\", \"killed\": 0, \"judged\": 1, "
			       "\"score\": 0.0}, {\"file\": \"calc.c\", \"killed\": 1, \"judged\": 1, "
			       "\"score\": 100.0}]"));
	assert_int_equal(fx_tdaudit("repo", "html.log", html), 0);
	log = fx_slurp("r.html");
	if (!strstr(log, "<tr><td><code>t.c</code></td><td>0</td><td>1</td><td>0.0%</td></tr>"
			 "<tr><td><code>calc.c</code></td><td>1</td><td>1</td><td>100.0%</td></tr>"))
		fail_msg("the HTML has no score by file:\n%s", strstr(log, "by-file") ? strstr(log, "by-file") : "");
}

/*
 * --catalogue runs the catalogues it names instead of tdaudit.lua's (a
 * generated catalogue over a whole tree, for a weekly job only); one that
 * matches no file is refused.
 */
static void test_catalogue_runs_the_named_catalogues_instead_of_the_configured_ones(void **state)
{
	const char *list[] = {"mutate", "--catalogue", "weekly/*.lua", "--list", NULL};
	const char *none[] = {"mutate", "--catalogue", "nothere.lua", "--list", NULL};
	const char *log;

	(void)state;
	make_fixture(two_mutants);
	fx_write("repo", "weekly/gen.lua", "generate { files = { \"calc.c\" }, operators = { \"relational\" } }\n");
	assert_int_equal(fx_tdaudit("repo", "list.log", list), 0);
	log = fx_slurp("list.log");
	if (!strstr(log, CLAMP_LT "\t") || strstr(log, "calc-killed"))
		fail_msg("not the named catalogue alone:\n%s", log);
	assert_int_equal(fx_tdaudit("repo", "none.log", none), 2);
	assert_non_null(strstr(fx_slurp("none.log"), "catalogue glob 'nothere.lua' matches no file"));
}

/* ---- --schemata ------------------------------------------------------------------ */

static const char schema_calc_c[] =
	"int add(int a, int b)\n{\n\treturn a + b;\n}\n\n"
	"int clamp(int x)\n{\n\tif (x < 0)\n\t\treturn 0;\n\tif (x > 100)\n\t\treturn 100;\n"
	"\treturn x;\n}\n\n"
	"long span(const char *p, const char *q)\n{\n\treturn q - p;\n}\n\n"
	"int unused(void)\n{\n\treturn 7;\n}\n";

static const char schema_t_c[] =
	"#include <stdio.h>\n#include <string.h>\n"
	"int add(int, int); int clamp(int); long span(const char *, const char *); int unused(void);\n"
	"static const char s[] = \"abc\";\n"
	"static int test_add(void) { return add(2, 3) == 5; }\n"
	"static int test_clamp(void) { return clamp(-4) == 0 && clamp(3) == 3; }\n"
	"static int test_span(void) { return span(s, s + 2) == 2; }\n"
	"static int test_unused(void) { return unused() > 0; }\n"
	"static const struct { const char *name; int (*fn)(void); } tests[] = {\n"
	"\t{\"test_add\", test_add}, {\"test_clamp\", test_clamp}, {\"test_span\", test_span},\n"
	"\t{\"test_unused\", test_unused}};\n"
	"int main(int argc, char **argv)\n{\n"
	"\tfor (int i = 0; i < 4; i++) {\n"
	"\t\tif (argc > 1 && !strcmp(argv[1], \"--list\")) { puts(tests[i].name); continue; }\n"
	"\t\tif (argc > 1 && !strcmp(argv[1], tests[i].name)) {\n"
	"\t\t\tint ok = tests[i].fn();\n"
	"\t\t\tprintf(\"%s %s\\n\", tests[i].name, ok ? \"ok\" : \"FAILED\");\n"
	"\t\t\treturn !ok;\n\t\t}\n\t}\n"
	"\treturn argc > 1 && strcmp(argv[1], \"--list\") ? 2 : 0;\n}\n";

/* How many mutants of each outcome the JSON report holds, as "killed 3 survived 2 ...". */
static int count_outcome(const char *json, const char *outcome)
{
	char key[64];
	int n = 0;

	snprintf(key, sizeof key, "\"outcome\": \"%s\"", outcome);
	for (const char *p = strstr(json, key); p; p = strstr(p + 1, key))
		n++;
	return n;
}

/*
 * Checks that each mutant of the JSON report base has the same outcome in
 * the report at path (what: how that run differs), save unreached (NULL:
 * none), which must be no-coverage there. Returns how many were compared.
 */
static int same_outcomes(const char *base, const char *path, const char *unreached,
			 const char *what)
{
	int n = 0;

	for (const char *p = strstr(base, "{\"id\": \""); p; p = strstr(p + 1, "{\"id\": \"")) {
		char id[256], want[64];

		sscanf(p + 8, "%255[^\"]", id);
		snprintf(want, sizeof want, "%s", outcome_of(base, id));
		if (unreached && !strcmp(id, unreached))
			snprintf(want, sizeof want, "no-coverage");
		if (strcmp(outcome_of(fx_slurp(path), id), want) != 0)
			fail_msg("%s: %s first, %s %s", id, want, outcome_of(fx_slurp(path), id), what);
		n++;
	}
	return n;
}

/* The schema fixture: calc.c and t.c above, generated mutants of calc.c, committed. */
static void make_schema_fixture(void)
{
	make_fixture("generate { files = { \"calc.c\" } }\n");
	fx_write("repo", "calc.c", schema_calc_c);
	fx_write("repo", "t.c", schema_t_c);
	fx_write("repo", "Makefile", "t: t.c calc.c\n\tcc -O0 -o t t.c calc.c\n");
	fx_git_commit_all("repo", "schema fixture");
}

/*
 * ci/weekly passes --catalogue and --schemata to each shard, and its merge
 * counts what they leave uncaught, no-coverage included.
 */
static void test_the_weekly_job_runs_a_named_catalogue_in_schemata(void **state)
{
	const char *shard[] = {"env", "TDAUDIT=" TD_BUILD_DIR "/tdaudit", TD_SOURCE_DIR "/ci/weekly",
			       "--shard", "1/1", "--catalogue", "weekly/gen.lua", "--schemata", "-j", "2",
			       "--out", "../weekly", NULL};
	const char *merge[] = {"env", "TDAUDIT=" TD_BUILD_DIR "/tdaudit", TD_SOURCE_DIR "/ci/weekly",
			       "--merge", "--out", "../weekly", "../weekly/shard-1.db", NULL};
	const char *json, *p;
	char want[64];
	int survived = -1, unreached = -1;

	(void)state;
	make_schema_fixture();
	/* the constants of clamp: `return 100` no test reaches, `x < 0` to `x < 1` survives */
	fx_write("repo", "weekly/gen.lua", "generate { files = { \"calc.c\" }, operators = { \"constant\" } }\n");
	assert_int_equal(fx_run("repo", "shard.log", shard), 1);
	json = fx_slurp("weekly/shard-1.json");
	if (count_outcome(json, "no-coverage") != 1 || strstr(json, ":relational:"))
		fail_msg("not the named catalogue in schemata:\n%s", fx_slurp("shard.log"));
	assert_int_equal(fx_run("repo", "merge.log", merge), 1);
	json = fx_slurp("weekly/gates.json");
	if ((p = strstr(json, "\"survived\": ")))
		sscanf(p + 12, "%d", &survived);
	if ((p = strstr(json, "\"no-coverage\": ")))
		sscanf(p + 15, "%d", &unreached);
	assert_int_equal(unreached, 1);
	assert_true(survived >= 1);
	snprintf(want, sizeof want, "ci/weekly: %d mutant(s) not caught", survived + unreached);
	if (!strstr(fx_slurp("merge.log"), want))
		fail_msg("the merge does not count the no-coverage mutant (%s):\n%s", want, fx_slurp("merge.log"));
}

/*
 * A no-coverage mutant is a survivor, and ci/weekly's merge of shard
 * ledgers made with --schemata must fail on it: the merge added up the
 * other uncaught outcomes only, so a week whose only hole was code no test
 * reaches passed (exit 0, "0 mutant(s) not caught").
 */
static void test_a_weekly_merge_fails_on_a_no_coverage_mutant(void **state)
{
	/* add's mutant is killed; `return 100` no test reaches */
	const char *shard[] = {"mutate", "--schemata", "--only", "calc.c:add:*", "--only",
			       "calc.c:clamp:constant:100:2:101", "--shard", "1/1", "--ledger", "../s1.db",
			       "-j", "2", NULL};
	const char *merge[] = {"env", "TDAUDIT=" TD_BUILD_DIR "/tdaudit", TD_SOURCE_DIR "/ci/weekly",
			       "--merge", "--out", "../weekly", "../s1.db", NULL};

	(void)state;
	make_schema_fixture();
	assert_int_equal(fx_tdaudit("repo", "shard.log", shard), 1);
	assert_non_null(strstr(fx_slurp("shard.log"), "  no-coverage       1\n"));
	if (fx_run("repo", "merge.log", merge) != 1 ||
	    !strstr(fx_slurp("merge.log"), "ci/weekly: 1 mutant(s) not caught"))
		fail_msg("the merge passes a no-coverage mutant:\n%s", fx_slurp("merge.log"));
}

/*
 * Parity: every generated mutant of a file gets the same outcome in one
 * schema build as in a build of its own: killed, survived and, for the
 * function whose schema does not build (a pointer sum), build-failed
 * after the schema is split and that function falls back. The tests that
 * reached a mutant unmutated run first. `return 100`, which no test
 * reaches, survives built alone; in the schema it is no-coverage, judged
 * without running a test, and with --run-unreached it survives there too.
 */
static void test_schemata_judge_every_mutant_as_its_own_build_does(void **state)
{
	const char *one[] = {"mutate", "-j", "2", "--json", "../one.json", NULL};
	const char *sch[] = {"mutate", "-j", "2", "--schemata", "--json", "../schema.json", NULL};
	const char *all[] = {"mutate", "-j", "2", "--schemata", "--run-unreached", "--json",
			     "../all.json", NULL};
	const char *gates[] = {"gates", "--json", "../g.json", NULL};
	const char *sarif[] = {"ledger", "export", "--format", "sarif", "-o", "../r.sarif", NULL};
	const char *junit[] = {"ledger", "export", "--format", "junit", "-o", "../r.xml", NULL};
	const char *unreached = "calc.c:clamp:constant:100:2:101";
	char one_json[1 << 16], path[4096];
	const char *log, *kept;

	(void)state;
	make_schema_fixture();
	assert_int_equal(fx_tdaudit("repo", "one.log", one), 1);
	assert_int_equal(fx_tdaudit("repo", "all.log", all), 1);
	assert_int_equal(fx_tdaudit("repo", "schema.log", sch), 1);
	snprintf(one_json, sizeof one_json, "%s", fx_slurp("one.json"));
	assert_int_equal(same_outcomes(one_json, "all.json", NULL, "in the schema with --run-unreached"),
			 11);
	assert_int_equal(same_outcomes(one_json, "schema.json", unreached, "in the schema"), 11);
	assert_string_equal(outcome_of(one_json, unreached), "survived");
	assert_int_equal(count_outcome(fx_slurp("schema.json"), "no-coverage"), 1);
	assert_non_null(strstr(fx_slurp("all.log"), "(1 reached by no test unmutated, run all the same)"));
	assert_non_null(strstr(fx_slurp("all.log"), "the schema of calc.c passes the suite with no "
						     "mutant on in "));
	/* the ledger keeps it: gates count it as judged, SARIF and JUnit report it */
	assert_int_not_equal(fx_tdaudit("repo", "gates.log", gates), 2);
	assert_non_null(strstr(fx_slurp("g.json"), "\"no-coverage\": 1"));
	assert_int_equal(fx_tdaudit("repo", "export.log", sarif), 0);
	assert_non_null(strstr(fx_slurp("r.sarif"), "\"ruleId\": \"tdaudit/uncovered-mutant\""));
	assert_int_equal(fx_tdaudit("repo", "export.log", junit), 0);
	assert_non_null(strstr(fx_slurp("r.xml"), "type=\"no-coverage\""));
	assert_true(count_outcome(one_json, "killed") > 0 && count_outcome(one_json, "survived") > 0 &&
		    count_outcome(one_json, "build-failed") > 0);
	log = fx_slurp("schema.log");
	if (!strstr(log, "the schema of calc.c does not build with function span's mutants in it") ||
	    !strstr(log, "10 mutants judged in 5 schema builds (1 reached by no test unmutated: "
			 "no-coverage, nothing run), 1 "
			 "generated mutant to build one by one: 1 its function's schema does not "
			 "build\n") || strstr(log, "re-synced from the source"))
		fail_msg("the schemata lines are missing:\n%s", strstr(log, "schema") ? strstr(log, "schema") : log);
	kept = strstr(log, "span's mutants in it (see ");
	assert_non_null(kept);
	snprintf(path, sizeof path, "%.*s", (int)strcspn(kept + 26, ")"), kept + 26);
	assert_non_null(strstr(fx_slurp(path), "error")); /* the failed build's log, not a later one */
	/* the test that reached it unmutated ran first: test_add, listed first, never ran */
	kept = strstr(fx_slurp("schema.json"), "{\"id\": \"calc.c:clamp:negated-condition:if:1:!\"");
	kept = kept ? strstr(kept, "\"log\": \"") : NULL;
	assert_non_null(kept);
	snprintf(path, sizeof path, "%.*s", (int)strcspn(kept + 8, "\""), kept + 8);
	assert_string_equal(fx_slurp(path), "== test test_clamp\ntest_clamp FAILED\n");
}

/*
 * A test that empties its TMPDIR when it is done (a clean-up many suites
 * do) takes the coverage file with it: what it reached was read as
 * nothing, so every mutant of the file was no-coverage, test_add's kill
 * included. A coverage file gone after a test means the coverage is not
 * known: every mutant runs the suite, and the schema's line says why.
 */
static void test_a_test_that_empties_its_tmpdir_never_makes_a_mutant_no_coverage(void **state)
{
	const char *sch[] = {"mutate", "-j", "1", "--schemata", "--json", "../s.json", NULL};

	(void)state;
	make_fixture("generate { files = { \"calc.c\" } }\n");
	fx_write("repo", "calc.c", schema_calc_c);
	fx_write("repo", "t.c", schema_t_c);
	fx_write("repo", "Makefile", "t: t.c calc.c\n\tcc -O0 -o t t.c calc.c\n");
	fx_write("repo", "tdaudit.lua",
		 "build { \"make\", \"-s\" }\n"
		 "runner { list = { \"./t\", \"--list\" },\n"
		 "         run = { \"sh\", \"-c\", \"./t {test}; s=$?; rm -rf \\\"$TMPDIR\\\"/*; exit $s\" } }\n"
		 "sources { \"*.c\" }\ntests { \"t.c\", \"Makefile\" }\ncatalogues { \"cat.lua\" }\n"
		 "timeout { factor = 5, floor = 5 }\n");
	fx_git_commit_all("repo", "tests that clean their TMPDIR");
	assert_int_equal(fx_tdaudit("repo", "s.log", sch), 1);
	assert_string_equal(outcome_of(fx_slurp("s.json"), "calc.c:add:arithmetic:+:1:-"), "killed");
	assert_int_equal(count_outcome(fx_slurp("s.json"), "no-coverage"), 0);
	if (!strstr(fx_slurp("s.log"), "its coverage could not be recorded: every mutant runs the suite"))
		fail_msg("%s", fx_slurp("s.log"));
}

/*
 * The coverage of a schema's unmutated suite is kept by content: a second
 * run of the same tree reads it instead of running the suite, with the same
 * outcomes; once a test changes (it now reaches `return 100`), the suite
 * runs again and the mutant that was no-coverage is killed. A key blind to
 * the tests would have kept it no-coverage.
 */
static void test_the_coverage_of_an_unchanged_schema_is_kept_and_a_changed_test_measures_it_again(void **state)
{
	const char *sch[] = {"mutate", "-j", "1", "--schemata", "--json", "../s.json", NULL};
	const char *unreached = "calc.c:clamp:constant:100:2:101", *kept = "coverage kept from a run";
	char first[1 << 16], reaching[sizeof schema_t_c + 64];
	const char *at = strstr(schema_t_c, "clamp(3) == 3;");

	(void)state;
	make_schema_fixture();
	assert_int_equal(fx_tdaudit("repo", "s1.log", sch), 1);
	assert_null(strstr(fx_slurp("s1.log"), kept));
	snprintf(first, sizeof first, "%s", fx_slurp("s.json"));
	assert_string_equal(outcome_of(first, unreached), "no-coverage");
	assert_int_equal(fx_tdaudit("repo", "s2.log", sch), 1);
	if (!strstr(fx_slurp("s2.log"), kept))
		fail_msg("not kept:\n%s", fx_slurp("s2.log"));
	same_outcomes(first, "s.json", NULL, "from the kept coverage");
	assert_non_null(at);
	snprintf(reaching, sizeof reaching, "%.*sclamp(3) == 3 && clamp(200) == 100;%s",
		 (int)(at - schema_t_c), schema_t_c, at + strlen("clamp(3) == 3;"));
	fx_write("repo", "t.c", reaching);
	fx_git_commit_all("repo", "a test reaches the top clamp");
	fx_tdaudit("repo", "s3.log", sch);
	assert_null(strstr(fx_slurp("s3.log"), kept));
	assert_string_equal(outcome_of(fx_slurp("s.json"), unreached), "killed");
}

/*
 * A schema build on which the suite is not green with no mutant on (here a
 * test that reads the source, as a lint test does) is not trusted: the
 * file falls back to builds one by one, said so with the test's name, and
 * every mutant still gets its outcome. And --schemata with --cold is refused.
 */
static void test_a_schema_the_unmutated_suite_fails_on_falls_back_to_builds_one_by_one(void **state)
{
	const char *sch[] = {"mutate", "-j", "1", "--schemata", "--json", "../schema.json", NULL};
	const char *cold[] = {"mutate", "--schemata", "--cold", NULL};
	const char *unreached[] = {"mutate", "--run-unreached", NULL};
	const char *log, *json;

	(void)state;
	make_fixture("generate { files = { \"calc.c\" }, operators = { \"arithmetic\" } }\n");
	fx_write("repo", "tdaudit.lua",
		 "build { \"make\", \"-s\" }\n"
		 "runner { list = { \"./t\", \"--list\" }, run = { \"./t\", \"{test}\" } }\n"
		 "runner { list = { \"echo\", \"test_lint\" },\n"
		 "         run = { \"sh\", \"-c\", \"echo {test}; ! grep -q td_schema calc.c\" } }\n"
		 "sources { \"*.c\" }\ntests { \"t.c\", \"Makefile\" }\ncatalogues { \"cat.lua\" }\n"
		 "timeout { factor = 5, floor = 5 }\n");
	fx_git_commit_all("repo", "a lint test");
	assert_int_equal(fx_tdaudit("repo", "schema.log", sch), 0);
	log = fx_slurp("schema.log");
	if (!strstr(log, "the schema of calc.c falls back: with no mutant on, test_lint fails in the "
			 "schema build; 1 mutant to build one by one") ||
	    !strstr(log, "0 mutants judged in 1 schema build (0 reached by no test unmutated: "
			 "no-coverage, nothing run), 1 "
			 "generated mutant to build one by one: 1 its file's schema fell back\n"))
		fail_msg("no fall back:\n%s", strstr(log, "schema") ? strstr(log, "schema") : log);
	json = fx_slurp("schema.json");
	assert_string_equal(outcome_of(json, "calc.c:add:arithmetic:+:1:-"), "killed");
	assert_int_equal(fx_tdaudit("repo", "cold.log", cold), 2);
	assert_non_null(strstr(fx_slurp("cold.log"), "--schemata and --cold do not combine"));
	assert_int_equal(fx_tdaudit("repo", "unreached.log", unreached), 2);
	assert_non_null(strstr(fx_slurp("unreached.log"), "--run-unreached needs --schemata"));
}

/* ---- -Werror ------------------------------------------------------------------------ */

/* calc.c's pos(): u > 0 ? u : 1, built with -Wall -Wextra -Werror; test_pos checks pos(0). */
static void make_werror_fixture(void)
{
	make_fixture("generate { files = { \"calc.c\" }, operators = { \"relational\" } }\n");
	fx_write("repo", "calc.c", "unsigned pos(unsigned u)\n{\n\treturn u > 0 ? u : 1;\n}\n"
				   "int add(int a, int b)\n{\n\treturn a + b;\n}\n"
				   "int clamp(int x)\n{\n\treturn x;\n}\nint unused(void)\n{\n\treturn 7;\n}\n");
	fx_write("repo", "t.c", "#include <stdio.h>\n#include <string.h>\nunsigned pos(unsigned);\n"
				"int main(int argc, char **argv)\n{\n"
				"\tif (argc > 1 && !strcmp(argv[1], \"--list\")) { puts(\"test_pos\"); return 0; }\n"
				"\tif (argc > 1 && !strcmp(argv[1], \"test_pos\")) {\n"
				"\t\tint ok = pos(0) == 1 && pos(3) == 3;\n\n"
				"\t\tprintf(\"test_pos %s\\n\", ok ? \"ok\" : \"FAILED\");\n\t\treturn !ok;\n\t}\n"
				"\treturn 2;\n}\n");
	fx_write("repo", "Makefile", "t: t.c calc.c\n\tcc -O0 -Wall -Wextra -Werror -o t t.c calc.c\n");
	fx_git_commit_all("repo", "an unsigned");
}

/*
 * A mutant that only provokes a warning is a mutant: with the project's
 * -Werror (here u > 0 to u >= 0 on an unsigned, "always true" under
 * -Wextra) it would be build-failed. By default mutants build with
 * -Wno-error after the project's flags, said in the header, and the
 * mutant is killed; --keep-werror keeps the project's flags.
 */
static void test_mutants_build_without_werror_unless_told_to_keep_it(void **state)
{
	const char *plain[] = {"mutate", "--only", "calc.c:pos:*", "--json", "../plain.json", NULL};
	const char *keep[] = {"mutate", "--only", "calc.c:pos:*", "--keep-werror", "--json",
			      "../keep.json", NULL};
	const char *id = "calc.c:pos:relational:>:1:>=";

	(void)state;
	make_werror_fixture();
	assert_int_equal(fx_tdaudit("repo", "plain.log", plain), 0);
	assert_non_null(strstr(fx_slurp("plain.log"), "tdaudit mutate: mutants build without -Werror: "
						      "-Wno-error follows the flags of every cc"));
	assert_string_equal(outcome_of(fx_slurp("plain.json"), id), "killed");
	fx_tdaudit("repo", "keep.log", keep);
	assert_null(strstr(fx_slurp("keep.log"), "without -Werror"));
	assert_string_equal(outcome_of(fx_slurp("keep.json"), id), "build-failed");
}

/*
 * --keep-werror holds when tdaudit runs under a mutate that dropped
 * -Werror (this suite's own tests, run by make audit): the outer run's
 * shims are first on the PATH it hands down, and must let the inner run's
 * compilers keep the project's flags.
 */
static void test_keep_werror_holds_under_a_mutate_that_dropped_it(void **state)
{
	const char *plain[] = {"mutate", "--only", "calc.c:pos:*", NULL};
	const char *keep[] = {"mutate", "--only", "calc.c:pos:*", "--keep-werror", "--json",
			      "../keep.json", NULL};
	char *old = strdup(getenv("PATH")), path[8192], cwd[4096];
	glob_t g;

	(void)state;
	make_werror_fixture();
	assert_int_equal(fx_tdaudit("repo", "plain.log", plain), 0); /* writes its shims */
	assert_int_equal(glob(".state/*/nowerror", 0, NULL, &g), 0);
	assert_non_null(getcwd(cwd, sizeof cwd));
	snprintf(path, sizeof path, "%s/%s:%s", cwd, g.gl_pathv[0], old);
	globfree(&g);
	setenv("PATH", path, 1); /* as the outer run's tests see it */
	fx_tdaudit("repo", "keep.log", keep);
	setenv("PATH", old, 1);
	free(old);
	assert_string_equal(outcome_of(fx_slurp("keep.json"), "calc.c:pos:relational:>:1:>="),
			    "build-failed");
}

/*
 * A run under another mutate run (make audit runs this suite so) finds
 * that run's shims first on PATH; its own must run the real compiler, or
 * what they do would be the outer run's doing (a broken shim of its own
 * would go unseen). Here a directory marked as shims, first on PATH.
 */
static void test_a_shim_runs_the_real_compiler_not_another_runs_shim(void **state)
{
	const char *plain[] = {"mutate", "--only", "calc.c:pos:*", NULL};
	char *old = strdup(getenv("PATH")), path[8192], cwd[4096];
	glob_t g;

	(void)state;
	make_werror_fixture();
	fx_write("outer", ".tdaudit-nowerror", "");
	fx_write("outer", "cc", "#!/bin/sh\nexec /usr/bin/cc \"$@\" -Wno-error\n");
	assert_int_equal(chmod("outer/cc", 0755), 0);
	assert_non_null(getcwd(cwd, sizeof cwd));
	snprintf(path, sizeof path, "%s/outer:%s", cwd, old);
	setenv("PATH", path, 1);
	fx_tdaudit("repo", "plain.log", plain);
	setenv("PATH", old, 1);
	free(old);
	assert_int_equal(glob(".state/*/nowerror/cc", 0, NULL, &g), 0);
	assert_null(strstr(fx_slurp(g.gl_pathv[0]), "/outer/"));
	globfree(&g);
}

/* ---- --sanitize ------------------------------------------------------------------ */

static const char buf_c[] =
	"#include <stdlib.h>\n"
	"int sum3(void)\n{\n\tint *p = malloc(3 * sizeof *p), s = 0;\n\n"
	"\tif (!p)\n\t\treturn -1;\n"
	"\tfor (int i = 0; i < 3; i++)\n\t\tp[i] = i;\n"
	"\tfor (int i = 0; i < 3; i++)\n\t\ts += p[i];\n"
	"\tif (p[2] > 100)\n\t\ts = -1;\n"
	"\tfree(p);\n\treturn s;\n}\n";

static const char buf_t_c[] =
	"#include <stdio.h>\n#include <string.h>\n"
	"int sum3(void);\n"
	"int main(int argc, char **argv)\n{\n"
	"\tif (argc > 1 && !strcmp(argv[1], \"--list\")) { puts(\"test_sum3\"); return 0; }\n"
	"\tif (argc > 1 && !strcmp(argv[1], \"test_sum3\")) {\n"
	"\t\tint ok = 1;\n\n"
	"\t\tfor (int i = 0; i < 10; i++) /* a leak of one may hide in a stale stack slot */\n"
	"\t\t\tok &= sum3() == 3;\n"
	"\t\tprintf(\"test_sum3 %s\\n\", ok ? \"ok\" : \"FAILED\");\n"
	"\t\treturn !ok;\n\t}\n\treturn 2;\n}\n";

static const char buf_cat[] =
	"mutant { name = \"buf-leak\", file = \"buf.c\", find = \"free(p);\", replace = \"\",\n"
	"  guards = { \"test_sum3\" }, designed_against = \"x\", why = \"leaks the buffer\" }\n"
	"mutant { name = \"buf-past-the-end\", file = \"buf.c\", find = \"p[2] > 100\",\n"
	"  replace = \"p[3] > 100\", guards = { \"test_sum3\" }, designed_against = \"x\",\n"
	"  why = \"reads one past the buffer\" }\n";

/* The buffer fixture, with tdaudit.lua's variants as given. */
static void make_buf_fixture(const char *variants)
{
	char cfg[2048];

	snprintf(cfg, sizeof cfg, "build { \"make\", \"-s\" }\n"
				  "runner { list = { \"./t\", \"--list\" }, run = { \"./t\", \"{test}\" } }\n"
				  "catalogues { \"cat.lua\" }\n"
				  "timeout { factor = 10, floor = 10 }\n%s", variants);
	fx_write("repo", "buf.c", buf_c);
	fx_write("repo", "t.c", buf_t_c);
	fx_write("repo", "Makefile", "t: t.c buf.c\n\tcc -O0 $(CFLAGS) -o t t.c buf.c\n");
	fx_write("repo", "tdaudit.lua", cfg);
	fx_write("repo", "cat.lua", buf_cat);
	fx_git_commit_all("repo", "buffer fixture");
}

/* The JSON detail of mutant id ("" if absent). */
static const char *detail_of(const char *json, const char *id)
{
	static char out[512];
	char key[256];
	const char *p, *d;

	snprintf(key, sizeof key, "{\"id\": \"%s\"", id);
	p = strstr(json, key);
	d = p ? strstr(p, "\"detail\": \"") : NULL;
	out[0] = '\0';
	if (d)
		snprintf(out, sizeof out, "%.*s", (int)strcspn(d + 11, "\""), d + 11);
	return out;
}

static int starts(const char *s, const char *prefix)
{
	return !strncmp(s, prefix, strlen(prefix));
}

/* Whether cc builds and runs a program with -fsanitize=address,undefined here. */
static int sanitizers_build(void)
{
	const char *probe[] = {"sh", "-c", "printf 'int main(void){return 0;}' > p.c && "
					   "cc -fsanitize=address,undefined -o p p.c && ./p", NULL};

	mkdir("probe", 0755);
	return fx_run("probe", "probe.log", probe) == 0;
}

/*
 * A leak (a free removed) and a read one past a heap buffer survive the
 * plain run, and under --sanitize are killed, the detail naming the
 * sanitizer's report.
 */
static void test_sanitize_kills_a_leak_and_a_read_past_the_end_that_the_plain_run_misses(void **state)
{
	const char *plain[] = {"mutate", "-j", "1", "--json", "../plain.json", NULL};
	const char *san[] = {"mutate", "-j", "1", "--sanitize", "--json", "../san.json", NULL};
	const char *json;
	char leak[512], past[512];

	(void)state;
	if (!sanitizers_build())
		TD_SKIP("the compiler cannot build with -fsanitize=address,undefined here (libasan, "
			"libubsan: Debian's gcc brings them)");
	make_buf_fixture("variant { name = \"sanitize\", args = { \"CFLAGS=-fsanitize=address,"
			 "undefined -fno-omit-frame-pointer -g\" } }\n");
	assert_int_equal(fx_tdaudit("repo", "plain.log", plain), 1);
	json = fx_slurp("plain.json");
	assert_string_equal(outcome_of(json, "buf-leak"), "survived");
	/* what p[3] reads is what the allocator left there (0 with glibc, which clears
	   its tcache key): the plain run can catch it only by luck */
	assert_string_not_equal(outcome_of(json, "buf-past-the-end"), "");
	assert_int_equal(fx_tdaudit("repo", "san.log", san), 0);
	assert_non_null(strstr(fx_slurp("san.log"), "variant sanitize: make -s 'CFLAGS=-fsanitize="
						    "address,undefined -fno-omit-frame-pointer -g' (env "
						    "ASAN_OPTIONS=halt_on_error=1:detect_leaks=1:exitcode=86 "
						    "UBSAN_OPTIONS="));
	json = fx_slurp("san.json");
	assert_string_equal(outcome_of(json, "buf-leak"), "killed");
	assert_string_equal(outcome_of(json, "buf-past-the-end"), "killed");
	snprintf(leak, sizeof leak, "%s", detail_of(json, "buf-leak"));
	snprintf(past, sizeof past, "%s", detail_of(json, "buf-past-the-end"));
	if (!starts(leak, "sanitizer: ERROR: LeakSanitizer: detected memory leaks: Direct leak of ") ||
	    !starts(past, "sanitizer: ERROR: AddressSanitizer: heap-buffer-overflow on address "))
		fail_msg("details: '%s' and '%s'", leak, past);
}

/* ci/weekly --sanitize: each shard's mutants built and run under the sanitizers. */
static void test_the_weekly_job_passes_sanitize_to_its_shards(void **state)
{
	const char *plain[] = {"env", "TDAUDIT=" TD_BUILD_DIR "/tdaudit", TD_SOURCE_DIR "/ci/weekly",
			       "--shard", "1/1", "-j", "1", "--out", "../plain", NULL};
	const char *san[] = {"env", "TDAUDIT=" TD_BUILD_DIR "/tdaudit", TD_SOURCE_DIR "/ci/weekly",
			     "--shard", "1/1", "--sanitize", "-j", "1", "--out", "../san", NULL};

	(void)state;
	if (!sanitizers_build())
		TD_SKIP("the compiler cannot build with -fsanitize=address,undefined here (libasan, "
			"libubsan: Debian's gcc brings them)");
	make_buf_fixture("variant { name = \"sanitize\", args = { \"CFLAGS=-fsanitize=address,"
			 "undefined -fno-omit-frame-pointer -g\" } }\n");
	assert_int_equal(fx_run("repo", "plain.log", plain), 1); /* the leak survives */
	assert_string_equal(outcome_of(fx_slurp("plain/shard-1.json"), "buf-leak"), "survived");
	if (fx_run("repo", "san.log", san) != 0)
		fail_msg("a shard with --sanitize:\n%s", fx_slurp("san.log"));
	assert_string_equal(outcome_of(fx_slurp("san/shard-1.json"), "buf-leak"), "killed");
}

/* --sanitize with no variant "sanitize" declared is refused, showing one. */
static void test_sanitize_without_a_sanitize_variant_is_refused_with_an_example(void **state)
{
	const char *args[] = {"mutate", "--sanitize", NULL};
	const char *log;

	(void)state;
	make_buf_fixture("");
	assert_int_equal(fx_tdaudit("repo", "san.log", args), 2);
	log = fx_slurp("san.log");
	assert_non_null(strstr(log, "--sanitize builds with the variant \"sanitize\", and tdaudit.lua "
				    "declares none"));
	assert_non_null(strstr(log, "variant { name = \"sanitize\", args = { \"CFLAGS=-fsanitize="));
	assert_null(strstr(log, "building scratch trees"));
}

static const struct CMUnitTest tests[] = {
	cmocka_unit_test(test_survivors_runs_again_only_what_the_previous_run_let_through),
	cmocka_unit_test(test_a_survivor_gone_from_the_catalogues_is_listed_as_gone),
	cmocka_unit_test(test_survivors_without_a_previous_run_or_without_survivors_say_so),
	cmocka_unit_test(test_a_generated_mutant_declared_equivalent_is_reported_with_its_reason),
	cmocka_unit_test(test_an_equivalent_declaration_that_matches_nothing_is_refused),
	cmocka_unit_test(test_generated_mutants_that_do_not_build_are_counted_by_operator_and_file),
	cmocka_unit_test(test_the_score_of_each_file_is_reported_worst_first),
	cmocka_unit_test(test_catalogue_runs_the_named_catalogues_instead_of_the_configured_ones),
	cmocka_unit_test(test_sanitize_kills_a_leak_and_a_read_past_the_end_that_the_plain_run_misses),
	cmocka_unit_test(test_sanitize_without_a_sanitize_variant_is_refused_with_an_example),
	cmocka_unit_test(test_the_weekly_job_passes_sanitize_to_its_shards),
	cmocka_unit_test(test_schemata_judge_every_mutant_as_its_own_build_does),
	cmocka_unit_test(test_a_weekly_merge_fails_on_a_no_coverage_mutant),
	cmocka_unit_test(test_the_weekly_job_runs_a_named_catalogue_in_schemata),
	cmocka_unit_test(test_the_coverage_of_an_unchanged_schema_is_kept_and_a_changed_test_measures_it_again),
	cmocka_unit_test(test_a_test_that_empties_its_tmpdir_never_makes_a_mutant_no_coverage),
	cmocka_unit_test(test_a_schema_the_unmutated_suite_fails_on_falls_back_to_builds_one_by_one),
	cmocka_unit_test(test_mutants_build_without_werror_unless_told_to_keep_it),
	cmocka_unit_test(test_keep_werror_holds_under_a_mutate_that_dropped_it),
	cmocka_unit_test(test_a_shim_runs_the_real_compiler_not_another_runs_shim),
};
TD_TEST_GROUP(mutate_scale, tests);
