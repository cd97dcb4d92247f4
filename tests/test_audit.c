/*
 * test_audit.c - tdaudit audit end to end, on a fixture repository built in
 * the test's temporary directory: the repository's own audit scripts, the
 * fixture trainer (tests/fixtures/trainer/, a Python trainer that is not
 * ours, with one defect switch per audit) and a tdaudit.lua whose trainer
 * block runs it under `env TRAINER_DEFECT=...`.
 *
 * The matrix: with no switch every audit passes, but absent, which is for
 * the tdaudit core only and skips with its reason; with each switch exactly
 * the audit made for it fails, naming the defect, and the others pass or
 * skip with a reason.
 */
#define _XOPEN_SOURCE 700
#include "tdtest.h"

#include <glob.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fixture.h"

/* tdaudit.lua of the fixture; %s is the defect switch ("" for none). */
static const char config_fmt[] =
	"build { \"true\" }\n"
	"runner { list = { \"true\" }, run = { \"true\", \"{test}\" } }\n"
	"audits { \"audits/*.lua\" }\n"
	"local function py(...)\n"
	"  local a = { \"env\", \"TRAINER_DEFECT=%s\", \"python3\", \"{root}/trainer/trainer.py\" }\n"
	"  for _, w in ipairs({ ... }) do a[#a + 1] = w end\n"
	"  return a\n"
	"end\n"
	"trainer {\n"
	"  config = \"trainer/small.conf\", steps = 20, timeout = 60,\n"
	"  init = py(\"hash\", \"--config\", \"{config}\"),\n"
	"  train = py(\"train\", \"--config\", \"{config}\", \"--out\", \"{dir}\"),\n"
	"  stop = py(\"train\", \"--config\", \"{config}\", \"--out\", \"{dir}\", \"--steps\", \"{steps}\"),\n"
	"  resume = py(\"train\", \"--out\", \"{dir}\", \"--resume\", \"{from}\"),\n"
	"  eval = py(\"eval\", \"--checkpoint\", \"{dir}/checkpoint.json\"),\n"
	"  set = { \"--set\", \"{key}={value}\" },\n"
	"  hash = { file = \"{dir}/weights.hash\" },\n"
	"  init_hash = { line = \"^init%%-hash (%%x+)\" },\n"
	"  log = \"{dir}/log.jsonl\",\n"
	"  seed = { key = \"seed\", other = 2 },\n"
	"  eval_line = { pattern = '\"accuracy\": ([^,]+), \"content_hash\": \"(%%x+)\",.*\"loss\": ([^,]+), \"n\": (%%d+)',\n"
	"                names = \"accuracy content_hash loss n\" },\n"
	"  final_eval = { kind = \"eval\", final = true },\n"
	"  counters = { field = \"counters\" },\n"
	"  manifests = { train = \"{dir}/train.jsonl\", eval = \"{dir}/eval.jsonl\" },\n"
	"  keys = { seed = 2, steps = 16, lr = 0.3, momentum = 0.5, batch = 8, n_train = 64,\n"
	"           n_eval = 16, dim = 6, clip = 0.1, weight_decay = 0.1, log_every = 4, eval_every = 4 },\n"
	"  inert = { \"log_every\", \"eval_every\" },\n"
	"}\n";

/* A smaller run than default.conf's: the matrix runs the audits eight times. */
static const char small_conf[] = "seed = 1\nsteps = 20\nlr = 0.5\nmomentum = 0.9\nbatch = 16\n"
				 "n_train = 128\nn_eval = 32\ndim = 8\nclip = 0.2\n"
				 "weight_decay = 0.01\nlog_every = 5\neval_every = 5\n";

static const char *const audits[] = {"absent", "config", "counters", "eval",
				     "overlap", "resume", "seed"};
#define N_AUDITS (sizeof audits / sizeof audits[0])

/* Copies the repository file rel into repo/dst. */
static void copy_in(const char *rel, const char *dst)
{
	char src[4096];

	snprintf(src, sizeof src, "%s/%s", TD_SOURCE_DIR, rel);
	fx_write("repo", dst, fx_slurp(src));
}

/* The fixture with extra appended to its tdaudit.lua (NULL: none). */
static void make_fixture_with(const char *defect, const char *extra)
{
	char text[8192], pat[4096];
	glob_t g;

	snprintf(pat, sizeof pat, "%s/audits/*.lua", TD_SOURCE_DIR);
	assert_int_equal(glob(pat, 0, NULL, &g), 0);
	for (size_t i = 0; i < g.gl_pathc; i++) {
		const char *rel = g.gl_pathv[i] + strlen(TD_SOURCE_DIR) + 1;

		copy_in(rel, rel);
	}
	globfree(&g);
	copy_in("tests/fixtures/trainer/trainer.py", "trainer/trainer.py");
	fx_write("repo", "trainer/small.conf", small_conf);
	snprintf(text, sizeof text, config_fmt, defect);
	if (extra)
		snprintf(text + strlen(text), sizeof text - strlen(text), "%s", extra);
	fx_write("repo", "tdaudit.lua", text);
	fx_git_commit_all("repo", "fixture");
}

static void make_fixture(const char *defect)
{
	make_fixture_with(defect, NULL);
}

/* The status the JSON report gives audit name ("pass", "fail", "skip"). */
static const char *status_of(const char *json, const char *name)
{
	static char st[16];
	char key[128];
	const char *p;

	snprintf(key, sizeof key, "{\"name\": \"%s\", \"script\": \"audits/%s.lua\", \"status\": \"",
		 name, name);
	p = strstr(json, key);
	if (!p)
		return "missing";
	snprintf(st, sizeof st, "%.*s", (int)strcspn(p + strlen(key), "\""), p + strlen(key));
	return st;
}

/*
 * Runs every audit under defect; the one named failing must fail with
 * needle in its report, every other pass (absent: skip, with its reason).
 */
static void check_switch(const char *defect, const char *failing, const char *needle)
{
	const char *args[] = {"audit", "-j", "2", "--json", "../audit.json", NULL};
	const char *json;

	make_fixture(defect);
	assert_int_equal(fx_tdaudit("repo", "audit.log", args), failing ? 1 : 0);
	json = fx_slurp("audit.json");
	for (size_t i = 0; i < N_AUDITS; i++) {
		const char *want = failing && !strcmp(audits[i], failing) ? "fail"
				   : !strcmp(audits[i], "absent")		  ? "skip"
										  : "pass";
		const char *got = status_of(json, audits[i]);

		if (strcmp(want, got) && strcmp(got, "skip") == 0 && strcmp(want, "fail") &&
		    !strcmp(defect, "unseeded-init"))
			continue; /* an unreproducible run: config and resume skip, saying why */
		if (strcmp(want, got))
			print_message("TRAINER_DEFECT=%s: audit %s is %s, not %s\n%s\n", defect, audits[i],
				      got, want, fx_slurp("audit.log"));
		assert_string_equal(got, want);
	}
	if (needle)
		assert_non_null(strstr(json, needle));
	assert_non_null(strstr(json, "applies to the tdaudit core only"));
}

static void test_with_no_defect_every_audit_passes_on_the_fixture_trainer(void **state)
{
	(void)state;
	check_switch("", NULL, NULL);
}

static void test_unseeded_init_fails_the_seed_audit_alone(void **state)
{
	(void)state;
	check_switch("unseeded-init", "seed", "unseeded initial weights");
}

static void test_eval_from_train_fails_the_overlap_audit_alone(void **state)
{
	(void)state;
	check_switch("eval-from-train", "overlap", "evaluation overlaps training");
	/* the engine names the relation: the evaluation set is where training starts */
	assert_non_null(strstr(fx_slurp("audit.json"), ": a prefix"));
}

static void test_an_ignored_key_fails_the_config_audit_naming_it(void **state)
{
	(void)state;
	check_switch("ignored-key", "config", "config key accepted and ignored: weight_decay");
}

static void test_eval_without_rewind_fails_the_eval_audit_alone(void **state)
{
	(void)state;
	check_switch("eval-no-rewind", "eval", "two evaluations of one checkpoint differ");
}

static void test_a_resume_that_drops_a_buffer_fails_the_resume_audit_alone(void **state)
{
	(void)state;
	check_switch("resume-drops-buffer", "resume", "a resumed run differs from the uninterrupted");
}

static void test_a_dropped_counter_reason_fails_the_counters_audit_alone(void **state)
{
	(void)state;
	check_switch("reason-dropped", "counters", "has no reason in the JSON log");
}

static void test_a_final_eval_missing_from_the_log_fails_the_eval_audit(void **state)
{
	(void)state;
	check_switch("final-eval-missing", "eval", "the final evaluation is missing from the machine log");
}

static void test_a_name_no_audit_has_is_refused(void **state)
{
	const char *args[] = {"audit", "seed", "nosuch", NULL};

	(void)state;
	make_fixture("");
	assert_int_equal(fx_tdaudit("repo", "audit.log", args), 2);
	assert_non_null(strstr(fx_slurp("audit.log"), "no audit is named 'nosuch'"));
}

static void test_names_select_audits_and_every_report_and_the_ledger_get_them(void **state)
{
	const char *args[] = {"audit", "overlap", "absent", "--junit", "../audit.xml", NULL};
	const char *exp[] = {"ledger", "export", "--format", "json", NULL};
	const char *md[] = {"ledger", "export", "--format", "md", NULL};
	const char *log;

	(void)state;
	make_fixture("eval-from-train");
	assert_int_equal(fx_tdaudit("repo", "audit.log", args), 1);
	log = fx_slurp("audit.log");
	assert_non_null(strstr(log, "overlap  fail"));
	assert_non_null(strstr(log, "absent   skip"));
	assert_null(strstr(log, "seed "));
	assert_non_null(strstr(fx_slurp("audit.xml"), "<skipped>the trainer block names no"));
	assert_non_null(strstr(fx_slurp("audit.xml"), "tests=\"2\" failures=\"1\" errors=\"0\" skipped=\"1\""));
	assert_int_equal(fx_tdaudit("repo", "export.log", exp), 0);
	assert_non_null(strstr(fx_slurp("export.log"), "\"audit\": \"overlap\", \"status\": \"fail\", \"class\": \"SILENT\""));
	assert_int_equal(fx_tdaudit("repo", "export.log", md), 0);
	assert_non_null(strstr(fx_slurp("export.log"), "| absent | skip | - | applies to the tdaudit core only |"));
}

/* The --junit report validates against the Jenkins JUnit XSD, a skip included (no message attribute). */
static void test_the_audit_junit_report_validates_against_the_jenkins_junit_xsd(void **state)
{
	const char *args[] = {"audit", "overlap", "absent", "--junit", "../audit.xml", NULL};
	const char *lint[] = {"xmllint", "--noout", "--schema",
			      TD_SOURCE_DIR "/tests/schemas/jenkins-junit.xsd", "../audit.xml", NULL};

	(void)state;
	if (access("/usr/bin/xmllint", X_OK) != 0)
		TD_SKIP("no xmllint: install libxml2-utils (ci/deps)");
	make_fixture("eval-from-train");
	assert_int_equal(fx_tdaudit("repo", "audit.log", args), 1);
	if (fx_run("repo", "lint.log", lint) != 0)
		fail_msg("%s", fx_slurp("lint.log"));
	assert_non_null(strstr(fx_slurp("audit.xml"), "<skipped>"));
	assert_non_null(strstr(fx_slurp("audit.xml"), "<failure message="));
}

static void test_an_unknown_trainer_field_is_refused_with_its_line(void **state)
{
	const char *args[] = {"audit", NULL};

	(void)state;
	make_fixture("");
	fx_write("repo", "tdaudit.lua", "build { \"true\" }\nrunner { list = { \"true\" }, run = { \"true\", \"{test}\" } }\n"
		 "audits { \"audits/*.lua\" }\n\ntrainer { config = \"x\", steps = 2, train = { \"t\" },\n"
		 "  hash = { line = \"(.*)\" }, colour = 1 }\n");
	assert_int_equal(fx_tdaudit("repo", "audit.log", args), 2);
	assert_non_null(strstr(fx_slurp("audit.log"), "tdaudit.lua:5: trainer has no field 'colour'"));
	/* said once: it used to read "tdaudit.lua:5: tdaudit.lua:5: trainer ..." (DEBUG.md #46) */
	assert_null(strstr(fx_slurp("audit.log"), "tdaudit.lua:5: tdaudit.lua:5:"));
}

static void test_an_audit_has_no_os_and_reads_nothing_outside_its_scratch_dir(void **state)
{
	const char *args[] = {"audit", NULL};

	(void)state;
	make_fixture("");
	fx_write("repo", "audits/escape.lua", "audit.hash('../../../tdaudit.lua')\n");
	fx_write("repo", "audits/shell.lua", "os.execute('touch pwned')\n");
	assert_int_equal(fx_tdaudit("repo", "audit.log", (const char *[]){"audit", "escape", NULL}), 2);
	assert_non_null(strstr(fx_slurp("audit.log"), "is not a path inside the audit's scratch directory"));
	assert_int_equal(fx_tdaudit("repo", "audit.log", (const char *[]){"audit", "shell", NULL}), 2);
	assert_non_null(strstr(fx_slurp("audit.log"), "global 'os'"));
	(void)args;
}

/* A runner with one test, and the catalogue mutations.lua (written by the test). */
static const char mutate_extra[] =
	"runner { list = { \"echo\", \"t_ok\" }, run = { \"echo\", \"{test}\" } }\n"
	"catalogues { \"mutations.lua\" }\n";

/* A mutant of the fixture trainer.py, guarded by guard. */
static void write_mutant(FILE *f, const char *name, const char *find, const char *replace,
			 const char *guard)
{
	fprintf(f, "mutant { name = \"%s\", file = \"trainer/trainer.py\", find = %s, replace = %s,\n"
		   "  guards = { \"%s\" }, designed_against = \"the audit as a guard\", why = \"test\" }\n",
		name, find, replace, guard);
}

/*
 * An audit as a mutant's guard: mutate builds the mutant, then runs the
 * audit against the mutated trainer in the scratch tree. The unseeded
 * init is killed by audit:seed; an ignored key, which the seed audit
 * cannot see, survives it (the negative control: the kill is the
 * audit's, not the mechanism's).
 */
static void test_an_audit_guard_kills_the_defect_it_is_for_and_no_other(void **state)
{
	const char *args[] = {"mutate", "-j", "1", "--json", "../mutate.json", NULL};
	const char *json;
	FILE *f;

	(void)state;
	make_fixture_with("", mutate_extra);
	f = fopen("repo/mutations.lua", "w");
	assert_non_null(f);
	write_mutant(f, "trainer-init-unseeded", "'if defect() == \"unseeded-init\":'", "'if True:'",
		     "audit:seed");
	write_mutant(f, "trainer-weight-decay-ignored",
		     "'wd = 0.0 if defect() == \"ignored-key\" else cfg[\"weight_decay\"]'",
		     "'wd = 0.0'", "audit:seed");
	fclose(f);
	fx_git_commit_all("repo", "catalogue");
	assert_int_equal(fx_tdaudit("repo", "mutate.log", args), 1); /* one survivor */
	json = fx_slurp("mutate.json");
	if (!strstr(json, "\"killed_by\": [\"audit:seed\"]"))
		print_message("%s\n", json);
	assert_non_null(strstr(json, "\"killed_by\": [\"audit:seed\"]"));
	assert_non_null(strstr(fx_slurp("mutate.log"), "killed by audit:seed (audit fail: "));
	assert_non_null(strstr(fx_slurp("mutate.log"), "trainer-weight-decay-ignored"));
	assert_non_null(strstr(fx_slurp("mutate.log"), "survived"));
}

/*
 * An audit guard must exist and must pass on the unmutated code: a name
 * with no script is refused before the run, and an audit that skips there
 * (absent: the fixture is not this core) is a red baseline, since it
 * could guard nothing.
 */
static void test_an_audit_guard_that_is_unknown_or_skips_is_refused(void **state)
{
	const char *args[] = {"mutate", "-j", "1", NULL};
	FILE *f;

	(void)state;
	make_fixture_with("", mutate_extra);
	f = fopen("repo/mutations.lua", "w");
	assert_non_null(f);
	write_mutant(f, "trainer-a", "'if defect() == \"unseeded-init\":'", "'if True:'",
		     "audit:nope");
	fclose(f);
	fx_git_commit_all("repo", "unknown");
	assert_int_equal(fx_tdaudit("repo", "mutate.log", args), 2);
	assert_non_null(strstr(fx_slurp("mutate.log"), "guard audit:nope names no audit script"));
	f = fopen("repo/mutations.lua", "w");
	assert_non_null(f);
	write_mutant(f, "trainer-a", "'if defect() == \"unseeded-init\":'", "'if True:'",
		     "audit:absent");
	fclose(f);
	fx_git_commit_all("repo", "skipping");
	assert_int_equal(fx_tdaudit("repo", "mutate.log", args), 2);
	assert_non_null(strstr(fx_slurp("mutate.log"), "failed: audit:absent"));
}

static const struct CMUnitTest tests[] = {
	cmocka_unit_test(test_with_no_defect_every_audit_passes_on_the_fixture_trainer),
	cmocka_unit_test(test_unseeded_init_fails_the_seed_audit_alone),
	cmocka_unit_test(test_eval_from_train_fails_the_overlap_audit_alone),
	cmocka_unit_test(test_an_ignored_key_fails_the_config_audit_naming_it),
	cmocka_unit_test(test_eval_without_rewind_fails_the_eval_audit_alone),
	cmocka_unit_test(test_a_resume_that_drops_a_buffer_fails_the_resume_audit_alone),
	cmocka_unit_test(test_a_dropped_counter_reason_fails_the_counters_audit_alone),
	cmocka_unit_test(test_a_final_eval_missing_from_the_log_fails_the_eval_audit),
	cmocka_unit_test(test_a_name_no_audit_has_is_refused),
	cmocka_unit_test(test_names_select_audits_and_every_report_and_the_ledger_get_them),
	cmocka_unit_test(test_the_audit_junit_report_validates_against_the_jenkins_junit_xsd),
	cmocka_unit_test(test_an_unknown_trainer_field_is_refused_with_its_line),
	cmocka_unit_test(test_an_audit_has_no_os_and_reads_nothing_outside_its_scratch_dir),
	cmocka_unit_test(test_an_audit_guard_kills_the_defect_it_is_for_and_no_other),
	cmocka_unit_test(test_an_audit_guard_that_is_unknown_or_skips_is_refused),
};

TD_TEST_GROUP(audit, tests);
