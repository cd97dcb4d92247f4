/*
 * test_report.c - tdaudit report --html end to end: a real mutation run on
 * a fixture repository (one mutant killed, one killed elsewhere, two
 * survivors, one that does not build), a finding with a reproduced guard
 * and an audit run put through the ledger's API, a tdtrain-style log; then
 * the page, read as text and as headless Chromium renders it. Every figure
 * the page shows is checked against the ledger read here with plain SQL,
 * not through the report's code.
 *
 * What these tests guard: tdaudit mutate --list --file harness/html.c
 *   and --list --file harness/cmd_report.c
 *
 * Chromium (Debian's chromium, see ci/deps) renders the page; where it is
 * missing or cannot start, the browser test is skipped with the reason.
 * TDTEST_REPORT_PNG=PATH also copies its screenshot to PATH.
 *
 * Edits seen breaking these tests:
 *   - key_figures() writing count[i] + 1 for data-count-* -> the_page_shows_
 *     the_ledger_s_figures and ..._in_a_browser (data-count-killed reads 2)
 *   - td_html_js throwing before its last statement (an undefined call)
 *       -> the_page_renders_in_a_browser_with_the_ledger_s_figures (no
 *          data-script="ok" in the DOM)
 *   - the script writing n + 1 into "N of M mutants shown"
 *       -> the_page_renders_in_a_browser_with_the_ledger_s_figures
 *   - the script's sort ignoring dir (always ascending), or its filter
 *     ignoring the outcome -> ..._in_a_browser (check_filtered)
 *   - survivors() skipping the last survivor -> both figure tests
 *   - survivor_row() writing the why with raw() instead of esc()
 *       -> every_text_is_escaped
 *   - other_sections() writing no id="empty" -> an_empty_ledger_gives_a_page_...
 */
#define _GNU_SOURCE
#include "tdtest.h"

#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../base/error.h"
#include "../base/fileio.h"
#include "../base/json.h"
#include "../harness/proc.h"
#include "../ledger/ledger.h"
#include "fixture.h"

static const char calc_c[] =
	"int add(int a, int b)\n{\n\treturn a + b;\n}\n\n"
	"int clamp(int x)\n{\n\tif (x < 0)\n\t\treturn 0;\n\treturn x;\n}\n\n"
	"int unused(void)\n{\n\treturn 7;\n}\n\n"
	"int spare(void)\n{\n\treturn 9;\n}\n";

/* The runner: `./t --list`, `./t NAME` (prints NAME, exit 0 pass / 1 fail). */
static const char t_c[] =
	"#include <stdio.h>\n#include <string.h>\n"
	"int add(int, int); int clamp(int);\n"
	"static int test_add(void) { return add(2, 3) == 5; }\n"
	"static int test_clamp(void) { return clamp(-4) == 0 && clamp(3) == 3; }\n"
	"static int test_spare(void) { return 1; }\n"
	"static const struct { const char *name; int (*fn)(void); } tests[] = {\n"
	"\t{\"test_add\", test_add}, {\"test_clamp\", test_clamp}, {\"test_spare\", test_spare}};\n"
	"int main(int argc, char **argv)\n{\n"
	"\tfor (int i = 0; i < 3; i++) {\n"
	"\t\tif (argc > 1 && !strcmp(argv[1], \"--list\")) { puts(tests[i].name); continue; }\n"
	"\t\tif (argc > 1 && !strcmp(argv[1], tests[i].name)) {\n"
	"\t\t\tint ok = tests[i].fn();\n"
	"\t\t\tprintf(\"%s %s\\n\", tests[i].name, ok ? \"ok\" : \"FAILED\");\n"
	"\t\t\treturn !ok;\n\t\t}\n\t}\n"
	"\treturn argc > 1 && strcmp(argv[1], \"--list\") ? 2 : 0;\n}\n";

static const char config[] =
	"build { \"make\", \"-s\" }\n"
	"runner { list = { \"./t\", \"--list\" }, run = { \"./t\", \"{test}\" } }\n"
	"sources { \"calc.c\" }\n"
	"tests { \"t.c\", \"Makefile\" }\n"
	"catalogues { \"cat.lua\" }\n"
	"timeout { factor = 5, floor = 2 }\n";

/* The survivor's why holds markup and non-ASCII text: the page must escape it. */
static const char catalogue[] =
	"mutant { name = \"calc-killed\", file = \"calc.c\", find = \"a + b\", replace = \"a - b\",\n"
	"  guards = { \"test_add\" }, finding = 1, why = \"adds wrong\" }\n"
	"mutant { name = \"calc-elsewhere\", file = \"calc.c\", find = \"return 0;\",\n"
	"  replace = \"return 1;\", guards = { \"test_add\" }, designed_against = \"x\",\n"
	"  why = \"clamps to 1\" }\n"
	"mutant { name = \"calc-survived\", file = \"calc.c\", find = \"return 7;\",\n"
	"  replace = \"return 8;\", guards = { \"test_add\" }, designed_against = \"x\",\n"
	"  why = \"nobody calls <unused> & \\\"it\\\" \\u{2014} d\\u{e9}j\\u{e0} vu\" }\n"
	"mutant { name = \"calc-spare\", file = \"calc.c\", find = \"return 9;\",\n"
	"  replace = \"return 10;\", guards = { \"test_spare\" }, designed_against = \"x\",\n"
	"  why = \"spare() is never checked\" }\n"
	"mutant { name = \"calc-build-failed\", file = \"calc.c\", find = \"a + b;\",\n"
	"  replace = \"a + ;\", guards = { \"test_add\" }, designed_against = \"x\",\n"
	"  why = \"does not compile\" }\n";

/* A tdtrain log.jsonl: steps, evaluations (the last final), a hash line. */
static const char log_jsonl[] =
	"{\"kind\":\"step\",\"step\":1,\"loss\":2.30,\"lr\":0.001,\"grad_norm\":1.5}\n"
	"{\"kind\":\"step\",\"step\":2,\"loss\":1.90,\"lr\":0.001,\"grad_norm\":1.2}\n"
	"{\"kind\":\"eval\",\"step\":2,\"loss\":2.00,\"accuracy\":0.31,\"examples\":64,"
	"\"final\":false}\n"
	"{\"kind\":\"step\",\"step\":3,\"loss\":1.40,\"lr\":0.001,\"grad_norm\":0.9}\n"
	"{\"kind\":\"step\",\"step\":4,\"loss\":1.10,\"lr\":0.001,\"grad_norm\":0.7}\n"
	"{\"kind\":\"eval\",\"step\":4,\"loss\":1.25,\"accuracy\":0.58,\"examples\":64,"
	"\"final\":true}\n"
	"{\"kind\":\"hash\",\"weights\":\"0123456789abcdef\"}\n";

#define LEDGER "repo/.tdaudit/ledger.db"

/* A finding guarded by test_add, its reproduction, and an audit run, in one run. */
static void add_finding_and_audit(void)
{
	td_ledger *lg;
	td_ledger_run_info info = {.command = "tdaudit reproduce", .tool_version = "0.1"};
	td_ledger_finding f = {1, "add() subtracts", "`calc.c` \xe2\x80\x94 add", "high",
			       "mutation", "fixed", fx_git_rev("repo", "HEAD")};
	td_ledger_reproduction r = {f.fix_commit, "test_add", "fail", "pass", "guard", 3, 3, NULL, NULL, NULL, NULL};
	td_ledger_reproduction strict = {f.fix_commit, "test_add", "pass", "pass", "pin", 3, 3,
					 "strict", "make CFLAGS=-DSTRICT", "", NULL};
	td_ledger_audit_run a = {"tdaudit.lua:9", "run/config.txt", 2, 1, 1, 0};
	td_ledger_audit_result pass = {"seed", "pass", "LOUD", "same seed, same weights", NULL,
				       "[\"tdtrain train --seed 1: exit 0\", \"hash 0xab\"]", 10};
	td_ledger_audit_result bad = {"resume", "fail", "SILENT", "resume changes the loss",
				      "step 3 differs", "[\"tdtrain train: exit 0\"]", 20};

	assert_int_equal(td_ledger_open(&lg, LEDGER, 0), 0);
	assert_int_equal(td_ledger_run_begin(lg, &info), 0);
	assert_int_equal(td_ledger_put_finding(lg, &f), 0);
	assert_int_equal(td_ledger_put_guard(lg, 1, "test_add", "guard"), 0);
	assert_int_equal(td_ledger_put_reproduction(lg, &r), 0);
	assert_int_equal(td_ledger_put_reproduction(lg, &strict), 0);
	assert_int_equal(td_ledger_put_audit_run(lg, &a), 0);
	assert_int_equal(td_ledger_put_audit_result(lg, &pass), 0);
	assert_int_equal(td_ledger_put_audit_result(lg, &bad), 0);
	assert_int_equal(td_ledger_run_finish(lg, "findings"), 0);
	td_ledger_free(lg);
}

/* The fixture repository, a real mutation run over it, then the page in ./report.html. */
static void make_report(void)
{
	const char *mutate[] = {"mutate", "-j", "2", NULL};
	const char *report[] = {"report", "--html", "../report.html", "--log", "../log.jsonl",
				NULL};

	fx_write("repo", "calc.c", calc_c);
	fx_write("repo", "t.c", t_c);
	fx_write("repo", "Makefile", "t: t.c calc.c\n\tcc -O0 -o t t.c calc.c\n");
	fx_write("repo", "tdaudit.lua", config);
	fx_write("repo", "cat.lua", catalogue);
	fx_write("repo", ".gitignore", "t\n.tdaudit/\n");
	fx_git_commit_all("repo", "fixture");
	fx_write(".", "log.jsonl", log_jsonl);
	assert_int_equal(fx_tdaudit("repo", "mutate.log", mutate), 1); /* survivors */
	add_finding_and_audit();
	if (fx_tdaudit("repo", "report.log", report) != 0)
		fail_msg("tdaudit report failed: %s", fx_slurp("report.log"));
}

/* --- the ledger, read here with plain SQL ------------------------------------ */

static const char *const outcomes[] = {"killed", "killed-elsewhere", "survived", "timeout",
				       "build-failed", "stale", "equivalent"};
#define N_OUTCOMES (sizeof outcomes / sizeof outcomes[0])

typedef struct {
	long count[N_OUTCOMES];
	char survivors[8][64]; /* ids, sorted */
	int n_survivors;
	long mutants;
	char score[16];
} truth;

static void read_truth(truth *t)
{
	sqlite3 *db;
	sqlite3_stmt *st;
	char run[64] = "";
	long judged;

	memset(t, 0, sizeof *t);
	assert_int_equal(sqlite3_open_v2(LEDGER, &db, SQLITE_OPEN_READONLY, NULL), SQLITE_OK);
	assert_int_equal(sqlite3_prepare_v2(db, "SELECT run FROM mutant_outcomes o JOIN runs r"
						" ON r.id = o.run ORDER BY r.started DESC LIMIT 1",
					    -1, &st, NULL),
			 SQLITE_OK);
	assert_int_equal(sqlite3_step(st), SQLITE_ROW);
	snprintf(run, sizeof run, "%s", (const char *)sqlite3_column_text(st, 0));
	sqlite3_finalize(st);
	assert_int_equal(sqlite3_prepare_v2(db, "SELECT outcome, mutant FROM mutant_outcomes"
						" WHERE run = ?1 ORDER BY mutant",
					    -1, &st, NULL),
			 SQLITE_OK);
	sqlite3_bind_text(st, 1, run, -1, SQLITE_STATIC);
	while (sqlite3_step(st) == SQLITE_ROW) {
		const char *o = (const char *)sqlite3_column_text(st, 0);

		t->mutants++;
		for (size_t i = 0; i < N_OUTCOMES; i++)
			t->count[i] += !strcmp(o, outcomes[i]);
		if (!strcmp(o, "survived") && t->n_survivors < 8)
			snprintf(t->survivors[t->n_survivors++], 64, "%s",
				 (const char *)sqlite3_column_text(st, 1));
	}
	sqlite3_finalize(st);
	sqlite3_close(db);
	judged = t->count[0] + t->count[1] + t->count[2] + t->count[3];
	snprintf(t->score, sizeof t->score, "%.1f", 100.0 * (double)t->count[0] / (double)judged);
}

/* Fails unless html (the page's text, or the DOM Chromium rendered) shows t's figures. */
static void check_figures(const char *html, const truth *t)
{
	char want[256];
	const char *p = html;
	int rows = 0;

	snprintf(want, sizeof want, "id=\"score\" class=\"figure\" data-score=\"%s\"", t->score);
	if (!strstr(html, want))
		fail_msg("the page lacks %s", want);
	for (size_t i = 0; i < N_OUTCOMES; i++) {
		snprintf(want, sizeof want, "data-count-%s=\"%ld\"", outcomes[i], t->count[i]);
		if (!strstr(html, want))
			fail_msg("the page lacks %s", want);
	}
	for (int i = 0; i < t->n_survivors; i++) {
		snprintf(want, sizeof want, "<tr class=\"survivor\" data-mutant=\"%s\"",
			 t->survivors[i]);
		if (!strstr(html, want))
			fail_msg("the page lacks the survivor %s", t->survivors[i]);
	}
	while ((p = strstr(p, "<tr class=\"survivor\"")))
		rows++, p++;
	assert_int_equal(rows, t->n_survivors);
	snprintf(want, sizeof want, "data-mutants=\"%ld\"", t->mutants);
	if (!strstr(html, want))
		fail_msg("the kill matrix lacks %s", want);
}

static void test_the_page_shows_the_ledger_s_figures(void **state)
{
	truth t;
	const char *html;

	(void)state;
	make_report();
	read_truth(&t);
	assert_int_equal(t.n_survivors, 2); /* the fixture is what the test means */
	assert_int_equal(t.count[0], 1);
	html = fx_slurp("report.html");
	check_figures(html, &t);
	assert_non_null(strstr(html, "<pre class=\"diff\"><span class=\"del\">- return 7;</span>"
				     "<span class=\"add\">+ return 8;</span></pre>"));
	assert_non_null(strstr(html, "data-findings=\"1\""));
	assert_non_null(strstr(html, "v-good\">guard</span>"));
	/* the same run's verdict under another build variant, named, in the same cell */
	assert_non_null(strstr(html, "<br><span class=\"verdict v-bad\">pin</span> <span "
				     "class=\"sub\">under strict, 3/3 runs"));
	assert_non_null(strstr(html, "resume changes the loss"));
	assert_non_null(strstr(html, "<li><code>tdtrain train --seed 1: exit 0</code></li>"));
	assert_non_null(strstr(html, "data-steps=\"4\" data-evals=\"2\""));
	assert_non_null(strstr(html, "data-runs=\"1\">1 mutation run with")); /* the one run */
	assert_non_null(strstr(html, "<title>25.0% on "));                   /* its point */
	assert_non_null(strstr(html, "<svg id=\"score-chart\""));
	assert_non_null(strstr(html, "<svg id=\"loss-chart\""));
	assert_null(strstr(html, "src=\"http")); /* self-contained */
	assert_null(strstr(html, "href=\"http"));
}

static void test_every_text_is_escaped(void **state)
{
	const char *html;

	(void)state;
	make_report();
	html = fx_slurp("report.html");
	assert_null(strstr(html, "<unused>"));
	assert_non_null(strstr(html, "nobody calls &lt;unused&gt; &amp; &quot;it&quot; "
				     "\xe2\x80\x94 d\xc3\xa9j\xc3\xa0 vu"));
	for (const char *p = html; *p; p += td_utf8_len(p)) /* valid UTF-8 throughout */
		if (!td_utf8_len(p))
			fail_msg("invalid UTF-8 at byte %td", p - html);
}

/* --- the browser -------------------------------------------------------------- */

/* Chromium's path on PATH ("chromium", then "chromium-browser"), or NULL. */
static const char *find_chromium(void)
{
	static char found[4096];
	const char *names[] = {"chromium", "chromium-browser"};
	const char *path = getenv("PATH");

	for (size_t k = 0; k < 2; k++) {
		char *copy = strdup(path ? path : "/usr/bin"), *save = NULL;

		for (char *d = strtok_r(copy, ":", &save); d; d = strtok_r(NULL, ":", &save)) {
			snprintf(found, sizeof found, "%s/%s", d, names[k]);
			if (access(found, X_OK) == 0) {
				free(copy);
				return found;
			}
		}
		free(copy);
	}
	return NULL;
}

/* Runs chromium headless on ./file with one more option; stdout to out. Exit status. */
static int chromium(const char *bin, const char *file, const char *opt, const char *out)
{
	char url[4096], cwd[2048];
	const char *argv[] = {bin, "--headless", "--no-sandbox", "--disable-gpu",
			      "--user-data-dir=chrome-profile", "--window-size=1280,2000",
			      "--virtual-time-budget=2000", opt, url, NULL};
	td_proc_opts o = {0};
	td_proc_result r;

	assert_non_null(getcwd(cwd, sizeof cwd));
	snprintf(url, sizeof url, "file://%s/%s", cwd, file);
	unlink(out);
	o.argv = argv;
	o.out_path = out;
	o.err_path = "chromium.err";
	o.timeout_s = 120;
	if (td_proc_run(&r, &o) != 0)
		return -1;
	return r.exited ? r.status : 128 + r.status;
}

/* Copies the screenshot to $TDTEST_REPORT_PNG when set. */
static void keep_screenshot(void)
{
	const char *to = getenv("TDTEST_REPORT_PNG");
	char *data = NULL;
	size_t len = 0;

	if (!to || !*to)
		return;
	assert_int_equal(td_file_read("report.png", &data, &len), 0);
	if (td_file_write_atomic(to, data, len, 0644) != 0)
		print_message("tdtest: cannot copy the screenshot: %s\n", td_error_last());
	free(data);
}

/*
 * Fails unless dom (the page opened with ?outcome=survived&sort=id&dir=desc)
 * shows the kill matrix's rows by id, descending, only t's survivors visible.
 */
static void check_filtered(const char *dom, const truth *t)
{
	char prev[128] = "", id[128], want[64];
	int visible = 0;

	for (const char *p = strstr(dom, "<tr data-id=\""); p; p = strstr(p + 1, "<tr data-id=\"")) {
		const char *end = strchr(p, '>');

		assert_int_equal(sscanf(p, "<tr data-id=\"%127[^\"]", id), 1);
		if (*prev && strcmp(prev, id) <= 0)
			fail_msg("the matrix is not sorted by id, descending: %s before %s", prev, id);
		snprintf(prev, sizeof prev, "%s", id);
		if (end && memmem(p, (size_t)(end - p), "display: none", 13))
			continue;
		visible++;
		if (!strstr(p, "data-outcome=\"survived\"") ||
		    strstr(p, "data-outcome=\"survived\"") > end)
			fail_msg("%s is shown, filtered for survivors", id);
	}
	assert_int_equal(visible, t->n_survivors);
	snprintf(want, sizeof want, "%d of %ld mutants shown", t->n_survivors, t->mutants);
	if (!strstr(dom, want))
		fail_msg("the filtered matrix lacks \"%s\"", want);
}

static void test_the_page_renders_in_a_browser_with_the_ledger_s_figures(void **state)
{
	const char *bin = find_chromium();
	truth t;
	const char *dom;
	char want[128];
	struct stat st;

	(void)state;
	if (!bin)
		TD_SKIP("no chromium on PATH (Debian's chromium package, see ci/deps)");
	fx_write(".", "probe.html", "<!DOCTYPE html><p id=\"probe\">ok</p>");
	if (chromium(bin, "probe.html", "--dump-dom", "probe.dom") != 0 ||
	    !strstr(fx_slurp("probe.dom"), "id=\"probe\""))
		TD_SKIP("chromium cannot start here: %.300s", fx_slurp("chromium.err"));
	make_report();
	read_truth(&t);
	assert_int_equal(chromium(bin, "report.html", "--dump-dom", "report.dom"), 0);
	dom = fx_slurp("report.dom");
	if (!strstr(dom, "data-script=\"ok\"")) /* the inline script ran to its end */
		fail_msg("the page's script did not finish: %.300s",
			 strstr(dom, "data-script-error") ? strstr(dom, "data-script-error")
							   : fx_slurp("chromium.err"));
	check_figures(dom, &t);
	snprintf(want, sizeof want, "%ld of %ld mutants shown", t.mutants, t.mutants);
	if (!strstr(dom, want)) /* written by the script itself */
		fail_msg("the kill matrix's script did not write \"%s\"", want);
	assert_int_equal(chromium(bin, "report.html?outcome=survived&sort=id&dir=desc",
				  "--dump-dom", "filtered.dom"),
			 0);
	check_filtered(fx_slurp("filtered.dom"), &t);
	assert_int_equal(chromium(bin, "report.html", "--screenshot=report.png", "shot.log"), 0);
	assert_int_equal(stat("report.png", &st), 0);
	assert_true(st.st_size > 20000); /* a rendered page, not a blank one */
	assert_int_equal(memcmp(fx_slurp("report.png"), "\x89PNG", 4), 0);
	keep_screenshot();
}

/* --- the edges --------------------------------------------------------------------- */

static void test_an_empty_ledger_gives_a_page_that_says_there_is_nothing_yet(void **state)
{
	const char *args[] = {"report", "--ledger", "../empty.db", "--html", "../empty.html", NULL};
	td_ledger *lg;
	const char *html;

	(void)state;
	fx_write("repo", "README", "x\n");
	fx_git_commit_all("repo", "empty");
	assert_int_equal(td_ledger_open(&lg, "empty.db", TD_LEDGER_CREATE), 0);
	td_ledger_free(lg);
	assert_int_equal(fx_tdaudit("repo", "report.log", args), 0);
	html = fx_slurp("empty.html");
	assert_non_null(strstr(html, "id=\"empty\""));
	assert_non_null(strstr(html, "Nothing yet"));
	assert_non_null(strstr(html, "</html>"));
}

static void test_a_missing_ledger_or_html_option_is_refused(void **state)
{
	const char *missing[] = {"report", "--ledger", "../none.db", "--html", "../x.html", NULL};
	const char *no_html[] = {"report", "--ledger", "../none.db", NULL};
	struct stat st;

	(void)state;
	fx_write("repo", "README", "x\n");
	fx_git_commit_all("repo", "empty");
	assert_int_equal(fx_tdaudit("repo", "missing.log", missing), 2);
	assert_non_null(strstr(fx_slurp("missing.log"), "no ledger at ../none.db"));
	assert_int_equal(stat("none.db", &st), -1); /* not created */
	assert_int_equal(stat("x.html", &st), -1);
	assert_int_equal(fx_tdaudit("repo", "nohtml.log", no_html), 2);
	assert_non_null(strstr(fx_slurp("nohtml.log"), "--html FILE is required"));
}

static const struct CMUnitTest tests[] = {
	cmocka_unit_test(test_the_page_shows_the_ledger_s_figures),
	cmocka_unit_test(test_every_text_is_escaped),
	cmocka_unit_test(test_the_page_renders_in_a_browser_with_the_ledger_s_figures),
	cmocka_unit_test(test_an_empty_ledger_gives_a_page_that_says_there_is_nothing_yet),
	cmocka_unit_test(test_a_missing_ledger_or_html_option_is_refused),
};

TD_TEST_GROUP(report, tests);
