/*
 * test_export.c - tdaudit ledger export --format sarif and --format junit:
 * the logs validate against the official schemas (tests/schemas/), hold one
 * result per thing the ledger holds, keep their fingerprints across runs and
 * line shifts, and are written atomically.
 *
 * The fixture ledger is written with ledger.h into a project in the test's
 * directory: a mutation run with one mutant of every outcome, two findings
 * with unverified guards, and an audit run with every status. The checkers
 * are Debian's: /usr/bin/python3 with python3-jsonschema, and xmllint
 * (libxml2-utils); without one, the test that needs it is skipped with the
 * package to install.
 *
 * What these tests guard: tdaudit mutate --list --file harness/sarif.c, and
 * --file harness/junit.c
 *
 * Edits seen breaking these tests:
 *   - dropping "version" from td_sarif_write's header, or "message" from
 *     put_result() -> the_sarif_log_validates_against_the_sarif_2_1_0_schema
 *   - testcase() writing <skipped message="..."/>, or suite_open() without
 *     name= -> the_junit_report_validates_against_the_jenkins_junit_xsd
 *   - mutant_results() not skipping killed mutants, or guard_results()
 *     not checking the role, or put_rules() writing a relative helpUri
 *     (the old code) -> every_kind_has_one_result_per_ledger_row
 *   - put_result() mixing x->line into the fingerprint
 *       -> fingerprints_hold_across_exports_and_line_shifts
 *   - mutant_verdict() calling stale a pass
 *       -> the_junit_counts_are_the_ledgers
 *   - export() writing FILE in place (fopen "r+") instead of td_file_write_atomic;
 *     export_format() accepting any name
 *       -> export_writes_atomically_and_refuses_an_unknown_format
 */
#include "tdtest.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <sqlite3.h>

#include "../base/error.h"
#include "../ledger/ledger.h"
#include "fixture.h"

#define SCHEMAS TD_SOURCE_DIR "/tests/schemas"

/* One mutant of the fixture run: id, file, line, outcome, killing test, generated. */
typedef struct {
	const char *id, *file;
	int line;
	const char *outcome, *killer;
	int generated;
} fx_mutant;

static const fx_mutant mutants[] = {
	{"m-killed", "core/a.c", 3, "killed", "test_a", 0},
	{"m-survived", "core/a.c", 10, "survived", NULL, 0},
	{"m-survived-gen", "core/b.c", 20, "survived", NULL, 1},
	{"m-stale", "core/b.c", 30, "stale", NULL, 0},
	{"m-elsewhere", "core/a.c", 40, "killed-elsewhere", "test_other", 0},
	{"m-timeout", "core/a.c", 50, "timeout", NULL, 0},
	{"m-equivalent", "core/a.c", 60, "equivalent", NULL, 0},
	{"m-buildfail-gen", "core/b.c", 70, "build-failed", NULL, 1},
	{"m-buildfail", "core/b.c", 80, "build-failed", NULL, 0},
	{"m-not-rebuilt", "core/c.h", 5, "not-rebuilt", NULL, 0},
};
#define N_MUTANTS (sizeof mutants / sizeof mutants[0])

/* One mutation run of every mutant in mutants[], each line moved by shift. */
static void put_mutation_run(td_ledger *lg, int shift)
{
	td_ledger_run_info info = {.command = "tdaudit mutate", .tool_version = "t",
				   .catalogue = "0123456789abcdef", .kill_matrix = "first-kill"};

	assert_int_equal(td_ledger_run_begin(lg, &info), 0);
	for (size_t i = 0; i < N_MUTANTS; i++) {
		const fx_mutant *x = &mutants[i];
		td_ledger_mutant m = {.id = x->id, .catalogue = "mutations/core.lua", .name = x->id,
				      .file = x->file, .line = x->line + shift, .finding = i == 1 ? 1 : 0,
				      .designed_against = i == 1 ? NULL : "an off-by-one \xff<&>",
				      .why = "why \"it\" matters", .function = x->generated ? "f" : NULL};
		td_ledger_outcome o = {x->id, x->outcome, x->killer, x->killer ? 1 : -1, 0, 120, NULL};

		assert_int_equal(td_ledger_put_mutant(lg, &m), 0);
		assert_int_equal(td_ledger_put_outcome(lg, &o), 0);
	}
	assert_int_equal(td_ledger_run_finish(lg, "findings"), 0);
}

static void put_findings_and_audits(td_ledger *lg)
{
	td_ledger_run_info info = {.command = "tdaudit reproduce", .tool_version = "t"};
	td_ledger_finding f1 = {1, "a <title> & more", "`core/a.c` — the edge", "high", "mutation",
				"fixed", "abc1234"};
	td_ledger_finding f2 = {2, "two", "`core/b.c:7` — b", "low", "review", "open", NULL};
	td_ledger_audit_run ar = {"tdaudit.lua:5", "configs/x.conf", 4, 1, 1, 1};
	td_ledger_audit_result res[] = {
		{"seed", "pass", "LOUD", "same seed, same weights", NULL, "[]", 10},
		{"eval", "fail", "SILENT", "the final eval is missing", "no eval line", "[]", 20},
		{"absent", "skip", "-", "applies to the core only", "not the core", "[]", 0},
		{"resume", "error", "-", "the trainer crashed", "exit 3", "[]", 30},
	};

	assert_int_equal(td_ledger_run_begin(lg, &info), 0);
	assert_int_equal(td_ledger_put_finding(lg, &f1), 0);
	assert_int_equal(td_ledger_put_finding(lg, &f2), 0);
	assert_int_equal(td_ledger_put_guard(lg, 1, "test_a", "guard"), 0);
	assert_int_equal(td_ledger_put_guard(lg, 1, "test_b", "unverified"), 0);
	assert_int_equal(td_ledger_put_guard(lg, 2, "test_c", "unverified"), 0);
	assert_int_equal(td_ledger_put_guard(lg, 2, "test_d", "pin"), 0);
	assert_int_equal(td_ledger_run_finish(lg, "ok"), 0);
	info.command = "tdaudit audit";
	assert_int_equal(td_ledger_run_begin(lg, &info), 0);
	assert_int_equal(td_ledger_put_audit_run(lg, &ar), 0);
	for (size_t i = 0; i < sizeof res / sizeof res[0]; i++)
		assert_int_equal(td_ledger_put_audit_result(lg, &res[i]), 0);
	assert_int_equal(td_ledger_run_finish(lg, "findings"), 0);
}

/* The project "repo" with its ledger holding the fixture runs; lines moved by shift. */
static void make_project(int shift)
{
	td_ledger *lg;

	fx_write("repo", "tdaudit.lua",
		 "build { \"true\" }\nrunner { list = { \"true\" }, run = { \"true\", \"{test}\" } }\n"
		 "audits { \"audits/*.lua\" }\n");
	fx_write("repo", "audits/eval.lua", "audit.result('pass', 'LOUD', 'x')\n");
	fx_git_commit_all("repo", "fixture");
	assert_int_equal(td_ledger_open(&lg, "repo/.tdaudit/ledger.db", TD_LEDGER_CREATE), 0);
	put_findings_and_audits(lg);
	put_mutation_run(lg, shift);
	td_ledger_free(lg);
}

/* Runs `tdaudit ledger export --format fmt --out out` in repo; its exit status. */
static int export_to(const char *fmt, const char *out)
{
	const char *args[] = {"ledger", "export", "--format", fmt, "--out", out, NULL};
	int rc = fx_tdaudit("repo", "export.log", args);

	if (rc)
		print_message("tdaudit ledger export --format %s: exit %d: %s\n", fmt, rc,
			      fx_slurp("export.log"));
	return rc;
}

/* A heap copy of a file. */
static char *slurp_dup(const char *path)
{
	char *s = strdup(fx_slurp(path));

	assert_non_null(s);
	return s;
}

static size_t count_of(const char *text, const char *needle)
{
	size_t n = 0;

	for (const char *p = text; (p = strstr(p, needle)); p += strlen(needle))
		n++;
	return n;
}

/* Writes text to path with the first `from` replaced by `to` (which must be there). */
static void write_edited(const char *path, const char *text, const char *from, const char *to)
{
	const char *at = strstr(text, from);
	FILE *f = fopen(path, "w");

	assert_non_null(at);
	assert_non_null(f);
	fwrite(text, 1, (size_t)(at - text), f);
	fputs(to, f);
	fputs(at + strlen(from), f);
	fclose(f);
}

/*
 * Runs the JSON schema checker on doc (a path relative to the test's
 * directory, run from repo/ so that validate.log lands beside it); 3 means
 * python3-jsonschema is missing.
 */
static int validate_json(const char *doc)
{
	char path[256];
	const char *argv[] = {"/usr/bin/python3", SCHEMAS "/validate.py",
			      SCHEMAS "/sarif-schema-2.1.0.json", path, NULL};

	snprintf(path, sizeof path, "../%s", doc);
	return fx_run("repo", "validate.log", argv);
}

static int validate_xml(const char *doc)
{
	char path[256];
	const char *argv[] = {"xmllint", "--noout", "--schema", SCHEMAS "/jenkins-junit.xsd", path, NULL};

	snprintf(path, sizeof path, "../%s", doc);
	return fx_run("repo", "validate.log", argv);
}

static void test_the_sarif_log_validates_against_the_sarif_2_1_0_schema(void **state)
{
	char *sarif;

	(void)state;
	if (access("/usr/bin/python3", X_OK) != 0)
		TD_SKIP("no /usr/bin/python3: install python3 and python3-jsonschema (ci/deps)");
	make_project(0);
	assert_int_equal(export_to("sarif", "../out.sarif"), 0);
	switch (validate_json("out.sarif")) {
	case 0:
		break;
	case 3:
		TD_SKIP("python3-jsonschema is not installed (ci/deps installs it)");
		break;
	default:
		fail_msg("the SARIF log is not valid SARIF 2.1.0: %s", fx_slurp("validate.log"));
	}
	sarif = slurp_dup("out.sarif");
	/* the same checker rejects a log without a property the schema requires */
	write_edited("broken.sarif", sarif, "\"version\": \"2.1.0\",", "");
	assert_int_equal(validate_json("broken.sarif"), 1);
	assert_non_null(strstr(fx_slurp("validate.log"), "'version' is a required property"));
	write_edited("broken.sarif", sarif, "\"message\": {", "\"note\": {");
	assert_int_equal(validate_json("broken.sarif"), 1);
	assert_non_null(strstr(fx_slurp("validate.log"), "'message' is a required property"));
	free(sarif);
}

static void test_the_junit_report_validates_against_the_jenkins_junit_xsd(void **state)
{
	char *xml;

	(void)state;
	if (access("/usr/bin/xmllint", X_OK) != 0)
		TD_SKIP("no xmllint: install libxml2-utils (ci/deps)");
	make_project(0);
	assert_int_equal(export_to("junit", "../out.xml"), 0);
	if (validate_xml("out.xml") != 0)
		fail_msg("the JUnit report does not validate: %s", fx_slurp("validate.log"));
	assert_non_null(strstr(fx_slurp("validate.log"), "../out.xml validates"));
	xml = slurp_dup("out.xml");
	write_edited("broken.xml", xml, " name=\"tdaudit.mutate\"", "");
	assert_int_not_equal(validate_xml("broken.xml"), 0);
	assert_non_null(strstr(fx_slurp("validate.log"), "The attribute 'name' is required"));
	free(xml);
}

/* The count of the latest run's mutants with outcome, read from the ledger with SQL. */
static long ledger_count(const char *sql)
{
	sqlite3 *db;
	sqlite3_stmt *st;
	long n = -1;

	assert_int_equal(sqlite3_open_v2("repo/.tdaudit/ledger.db", &db, SQLITE_OPEN_READONLY, NULL),
			 SQLITE_OK);
	assert_int_equal(sqlite3_prepare_v2(db, sql, -1, &st, NULL), SQLITE_OK);
	if (sqlite3_step(st) == SQLITE_ROW)
		n = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	sqlite3_close(db);
	return n;
}

#define LATEST_MUTATE "(SELECT run FROM mutant_outcomes JOIN runs ON runs.id = run ORDER BY started DESC LIMIT 1)"
#define LATEST_AUDIT "(SELECT run FROM audit_runs JOIN runs ON runs.id = run ORDER BY started DESC LIMIT 1)"

static void test_every_kind_has_one_result_per_ledger_row(void **state)
{
	static const struct {
		const char *rule, *sql;
	} kinds[] = {
		{"tdaudit/survived-mutant", "SELECT count(*) FROM mutant_outcomes WHERE outcome = 'survived'"
					    " AND run = " LATEST_MUTATE},
		{"tdaudit/stale-catalogue-entry", "SELECT count(*) FROM mutant_outcomes WHERE outcome = "
						  "'stale' AND run = " LATEST_MUTATE},
		{"tdaudit/killed-elsewhere", "SELECT count(*) FROM mutant_outcomes WHERE outcome = "
					     "'killed-elsewhere' AND run = " LATEST_MUTATE},
		{"tdaudit/not-rebuilt-mutant", "SELECT count(*) FROM mutant_outcomes WHERE outcome = "
					       "'not-rebuilt' AND run = " LATEST_MUTATE},
		{"tdaudit/unverified-guard", "SELECT count(*) FROM guards WHERE role = 'unverified'"},
		{"tdaudit/failed-audit", "SELECT count(*) FROM audit_results WHERE status IN ('fail', 'error')"
					 " AND run = " LATEST_AUDIT},
	};
	char needle[128];
	const char *sarif;
	long total = 0;

	(void)state;
	make_project(0);
	assert_int_equal(export_to("sarif", "../out.sarif"), 0);
	sarif = fx_slurp("out.sarif");
	for (size_t i = 0; i < sizeof kinds / sizeof kinds[0]; i++) {
		long want = ledger_count(kinds[i].sql);

		snprintf(needle, sizeof needle, "\"ruleId\": \"%s\"", kinds[i].rule);
		assert_true(want >= 1); /* the fixture has at least one of every kind */
		if ((long)count_of(sarif, needle) != want)
			fail_msg("%s: %zu results, the ledger has %ld", kinds[i].rule, count_of(sarif, needle), want);
		snprintf(needle, sizeof needle, "{\"id\": \"%s\"", kinds[i].rule);
		assert_int_equal(count_of(sarif, needle), 1); /* defined once in tool.driver.rules */
		total += want;
	}
	assert_int_equal(count_of(sarif, "\"partialFingerprints\""), total);
	/* locations: the mutant's file and line, the Where cell's file and line, the script */
	assert_non_null(strstr(sarif, "{\"uri\": \"core/a.c\", \"uriBaseId\": \"SRCROOT\"}, \"region\": {\"startLine\": 10}"));
	assert_non_null(strstr(sarif, "{\"uri\": \"core/b.c\", \"uriBaseId\": \"SRCROOT\"}, \"region\": {\"startLine\": 7}"));
	assert_non_null(strstr(sarif, "{\"uri\": \"audits/eval.lua\", \"uriBaseId\": \"SRCROOT\"}"));
	assert_non_null(strstr(sarif, "{\"uri\": \"tdaudit.lua\", \"uriBaseId\": \"SRCROOT\"}, \"region\": {\"startLine\": 5}"));
	/* helpUri must be absolute (SARIF 3.49.12), and tdaudit's docs are not in the audited
	 * repository: the help text names the page instead */
	assert_null(strstr(sarif, "\"helpUri\""));
	assert_non_null(strstr(sarif, "then run tdaudit mutate again. (tdaudit's manual: "
				      "docs/mutate.md#outcomes)\"}"));
	assert_null(strstr(sarif, "m-killed")); /* a kill needs nobody */
	assert_non_null(strstr(sarif, "an off-by-one \\ufffd<&>")); /* a bad byte is U+FFFD */
}

/* Every "tdaudit/v1" fingerprint of a SARIF text, in order, into a heap string. */
static char *fingerprints(const char *sarif)
{
	size_t n = 0;
	char *out = calloc(1, 4096);

	assert_non_null(out);
	for (const char *p = sarif; (p = strstr(p, "\"tdaudit/v1\": \"")); p += 15) {
		assert_true(n + 18 < 4096);
		memcpy(out + n, p + 15, 16);
		out[n + 16] = ' ';
		n += 17;
	}
	return out;
}

static void test_fingerprints_hold_across_exports_and_line_shifts(void **state)
{
	char *first, *again, *shifted, *a, *b;

	(void)state;
	make_project(0);
	assert_int_equal(export_to("sarif", "../one.sarif"), 0);
	assert_int_equal(export_to("sarif", "../two.sarif"), 0);
	first = slurp_dup("one.sarif");
	again = slurp_dup("two.sarif");
	assert_string_equal(first, again); /* the same ledger, the same bytes */
	{ /* a later mutation run with every line three lower */
		td_ledger *lg;

		nanosleep(&(struct timespec){0, 5000000}, NULL); /* a later start (ms resolution) */
		assert_int_equal(td_ledger_open(&lg, "repo/.tdaudit/ledger.db", 0), 0);
		put_mutation_run(lg, 3);
		td_ledger_free(lg);
	}
	assert_int_equal(export_to("sarif", "../shifted.sarif"), 0);
	shifted = slurp_dup("shifted.sarif");
	assert_non_null(strstr(shifted, "\"startLine\": 13}")); /* the survivor moved */
	assert_null(strstr(shifted, "\"startLine\": 10}"));
	a = fingerprints(first);
	b = fingerprints(shifted);
	assert_true(strlen(a) == 17 * 9); /* 2 survivors, stale, elsewhere, not-rebuilt, 2 guards, 2 audits */
	assert_string_equal(a, b);
	free(a), free(b), free(first), free(again), free(shifted);
}

static void test_the_junit_counts_are_the_ledgers(void **state)
{
	const char *xml;

	(void)state;
	make_project(0);
	assert_int_equal(export_to("junit", "../out.xml"), 0);
	xml = fx_slurp("out.xml");
	/* mutants: survived x2, stale, elsewhere, not-rebuilt, catalogue build-failed fail; equivalent and the
	 * generated build failure are skipped */
	assert_non_null(strstr(xml, "<testsuite name=\"tdaudit.mutate\" tests=\"10\" failures=\"6\" "
				    "errors=\"0\" skipped=\"2\""));
	assert_non_null(strstr(xml, "<testsuite name=\"tdaudit.audit\" tests=\"4\" failures=\"1\" "
				    "errors=\"1\" skipped=\"1\""));
	assert_non_null(strstr(xml, "<testsuites name=\"tdaudit\" tests=\"14\" failures=\"7\" errors=\"1\""));
	assert_int_equal(count_of(xml, "<testcase "), 14);
	assert_non_null(strstr(xml, "<testcase classname=\"core/b.c\" name=\"m-stale\" time=\"0.120\">"
				    "<failure type=\"stale\""));
	assert_non_null(strstr(xml, "name=\"resume\" time=\"0.030\"><error type=\"-\""));
	assert_non_null(strstr(xml, "<skipped>applies to the core only: not the core</skipped>"));
	assert_non_null(strstr(xml, "why &quot;it&quot; matters")); /* escaped */
	assert_non_null(strstr(xml, "an off-by-one \xef\xbf\xbd&lt;&amp;&gt;"));
}

/* The names in dir other than . and .. , space-separated, into buf. */
static const char *listing(char *buf, size_t size, const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	size_t n = 0;

	buf[0] = '\0';
	assert_non_null(d);
	while ((e = readdir(d)))
		if (strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))
			n += (size_t)snprintf(buf + n, size - n, "%s ", e->d_name);
	closedir(d);
	return buf;
}

static void test_export_writes_atomically_and_refuses_an_unknown_format(void **state)
{
	const char *to_stdout[] = {"ledger", "export", "--format", "junit", NULL};
	const char *unknown[] = {"ledger", "export", "--format", "xml", NULL};
	char names[512], *stdout_text;

	(void)state;
	make_project(0);
	assert_int_equal(mkdir("out", 0755), 0);
	fx_write("out", "report.xml", "an older report\n");
	assert_int_equal(link("out/report.xml", "old.xml"), 0); /* the old file's inode */
	assert_int_equal(export_to("junit", "../out/report.xml"), 0);
	/* a new file renamed over the old one: the old inode still holds the old text */
	assert_string_equal(fx_slurp("old.xml"), "an older report\n");
	assert_string_equal(listing(names, sizeof names, "out"), "report.xml "); /* no temp file left */
	assert_int_equal(fx_tdaudit("repo", "stdout.log", to_stdout), 0);
	stdout_text = slurp_dup("stdout.log");
	assert_string_equal(fx_slurp("out/report.xml"), stdout_text); /* replaced whole */
	free(stdout_text);
	/* a FILE that cannot be written: exit 2, naming it, nothing left behind */
	assert_int_equal(export_to("sarif", "../nonesuch/x.sarif"), 2);
	assert_non_null(strstr(fx_slurp("export.log"), "nonesuch"));
	assert_int_equal(access("nonesuch", F_OK), -1);
	assert_int_equal(fx_tdaudit("repo", "unknown.log", unknown), 2);
	assert_non_null(strstr(fx_slurp("unknown.log"), "md, json, sarif or junit, not 'xml'"));
}

static void test_a_ledger_with_no_run_exports_empty_valid_reports(void **state)
{
	td_ledger *lg;

	(void)state;
	fx_write("repo", "tdaudit.lua", "build { \"true\" }\nrunner { list = { \"true\" }, run = { \"true\", \"{test}\" } }\n");
	fx_git_commit_all("repo", "fixture");
	assert_int_equal(td_ledger_open(&lg, "repo/.tdaudit/ledger.db", TD_LEDGER_CREATE), 0);
	td_ledger_free(lg);
	assert_int_equal(export_to("sarif", "../empty.sarif"), 0);
	assert_non_null(strstr(fx_slurp("empty.sarif"), "\"results\": []"));
	assert_int_equal(export_to("junit", "../empty.xml"), 0);
	assert_non_null(strstr(fx_slurp("empty.xml"), "<testsuites name=\"tdaudit\" tests=\"0\" failures=\"0\""));
	assert_null(strstr(fx_slurp("empty.xml"), "<testsuite "));
	if (access("/usr/bin/xmllint", X_OK) == 0)
		assert_int_equal(validate_xml("empty.xml"), 0);
	if (access("/usr/bin/python3", X_OK) != 0 || validate_json("empty.sarif") == 3)
		TD_SKIP("the SARIF check needs /usr/bin/python3 with python3-jsonschema (ci/deps)");
	assert_int_equal(validate_json("empty.sarif"), 0);
}

/* One shard run (k of 2) of one mutant, outcome survived. */
static void put_shard(td_ledger *lg, int k, const char *id)
{
	td_ledger_run_info info = {.command = "tdaudit mutate --shard", .tool_version = "t",
				   .head_commit = "c0ffee", .shard_k = k, .shard_n = 2,
				   .catalogue = "0123456789abcdef", .kill_matrix = "first-kill"};
	td_ledger_mutant m = {.id = id, .catalogue = "c.lua", .name = id, .file = "core/a.c",
			      .line = 1, .designed_against = "x", .why = "y"};
	td_ledger_outcome o = {id, "survived", NULL, -1, 0, 1, NULL};

	assert_int_equal(td_ledger_run_begin(lg, &info), 0);
	assert_int_equal(td_ledger_put_mutant(lg, &m), 0);
	assert_int_equal(td_ledger_put_outcome(lg, &o), 0);
	assert_int_equal(td_ledger_run_finish(lg, "findings"), 0);
	nanosleep(&(struct timespec){0, 2000000}, NULL); /* the next run starts later */
}

static void test_the_outcomes_of_a_sharded_run_are_read_as_one(void **state)
{
	td_ledger_outcomes *o;
	td_ledger *lg;

	(void)state;
	assert_int_equal(td_ledger_open(&lg, "l.db", TD_LEDGER_CREATE), 0);
	put_mutation_run(lg, 0); /* an older unsharded run: not part of the latest */
	nanosleep(&(struct timespec){0, 2000000}, NULL);
	put_shard(lg, 2, "m-two");
	TD_ASSERT_REFUSED(td_ledger_outcomes_load(&o, lg), TD_ESTATE, "shard 1/2 is not in the ledger");
	put_shard(lg, 1, "m-one");
	assert_int_equal(td_ledger_outcomes_load(&o, lg), 0);
	assert_int_equal(o->n, 2);
	assert_string_equal(o->v[0].id, "m-one"); /* by id, both shards */
	assert_string_equal(o->v[1].id, "m-two");
	assert_int_equal(o->run.shard_n, 2);
	td_ledger_outcomes_free(o);
	td_ledger_free(lg);
}

static const struct CMUnitTest tests[] = {
	cmocka_unit_test(test_the_sarif_log_validates_against_the_sarif_2_1_0_schema),
	cmocka_unit_test(test_the_junit_report_validates_against_the_jenkins_junit_xsd),
	cmocka_unit_test(test_every_kind_has_one_result_per_ledger_row),
	cmocka_unit_test(test_fingerprints_hold_across_exports_and_line_shifts),
	cmocka_unit_test(test_the_junit_counts_are_the_ledgers),
	cmocka_unit_test(test_export_writes_atomically_and_refuses_an_unknown_format),
	cmocka_unit_test(test_a_ledger_with_no_run_exports_empty_valid_reports),
	cmocka_unit_test(test_the_outcomes_of_a_sharded_run_are_read_as_one),
};

TD_TEST_GROUP(export, tests);
