/*
 * mutate.c - the mutation run (see mutate.h).
 *
 * The order of a run: load tdaudit.lua and the catalogues; locate every
 * mutant in the source (stale ones are settled there); sync one warm
 * scratch tree per worker under .tdaudit/work/ and build each; list the
 * tests and run every one unmutated (the baseline: a red suite, or a runner
 * whose output does not name the test it ran, stops the run); then workers
 * take mutants from one queue: apply, rebuild, guards first, then the rest
 * of the suite, restore.
 *
 * Must never write into the user's tree outside .tdaudit/, and never count
 * a mutant as killed because the harness could not build or run the tests.
 */
#define _GNU_SOURCE
#include "mutate.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <ftw.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "../base/error.h"
#include "../base/fileio.h"
#include "../base/grow.h"
#include "../base/hash.h"
#include "../base/json.h"
#include "audit.h"
#include "catalogue.h"
#include "commands.h"
#include "confine.h"
#include "covcache.h"
#include "diffrange.h"
#include "proc.h"
#include "project.h"
#include "record.h"
#include "repo.h"
#include "report.h"
#include "sanitize.h"
#include "schema.h"
#include "scratch.h"
#include "survivors.h"
#include "testrun.h"
#include "variant.h"
#include "../base/strv.h"

static const char *const outcome_names[TD_N_OUTCOMES] = {
	"killed", "killed-elsewhere", "survived", "timeout", "build-failed", "stale", "equivalent",
	"not-rebuilt", "no-coverage",
};

const char *td_outcome_name(enum td_outcome o)
{
	return o < TD_N_OUTCOMES ? outcome_names[o] : "?";
}

typedef struct {
	char *name;
	int runner;        /* index into the project's runners; -1: an audit */
	char *script;      /* an audit's script (relative to the root); NULL for a test */
	double baseline_s; /* unmutated run time */
} test_t;

/* --schemata: the mutants of one .c file judged in one schema build (schema.h). */
typedef struct {
	const char *file; /* borrowed from its first mutant */
	size_t *idx;      /* indices into the run's mutants, in order */
	size_t n;
} group_t;

/* How many generated mutants were built alone for one reason (static text). */
typedef struct {
	const char *why;
	size_t n;
} alone_t;

/* A guard "audit:NAME" names the audit audits/NAME.lua (tdaudit audit). */
#define AUDIT_PREFIX "audit:"

typedef struct {
	const td_mutate_opts *opts;
	td_project *proj;
	td_mutants muts;
	td_mutation_result *res; /* one per mutant */
	test_t *tests;
	size_t n_tests, tests_cap;
	char dir[4200];      /* root/.tdaudit */
	char src[4400];      /* where the code to mutate is: the root, or --rev's tree */
	char rev_id[41];     /* --rev's full commit id; "" without --rev */
	char catalogue[17];  /* the fingerprint of the selected mutants, before --shard */
	size_t next, done;   /* queue position, mutants finished */
	size_t todo;         /* mutants to run (not settled before the run) */
	size_t reruns;       /* test runs that timed out and ran again with twice the limit */
	size_t resynced;     /* mutants whose build or tests changed their scratch tree's files */
	pthread_mutex_t mu;
	double t0;
	char logs[4400];     /* this run's directory of logs (td_testrun_run_logs) */
	group_t *groups;     /* --schemata: one per .c file with mutants in a schema */
	size_t n_groups, next_group;
	size_t schema_judged, schema_builds; /* mutants judged in schema builds; those builds */
	size_t schema_unreached; /* of those, mutants no test reached unmutated */
	alone_t alone[24];   /* --schemata: generated mutants built alone, by reason */
	size_t n_alone;
} run_t;

typedef struct {
	run_t *run;
	int id;
	char tree[4300]; /* .tdaudit/work/<id> */
	char log[4300];  /* .tdaudit/logs/worker-<id>.log: the latest build or test only */
	char *mlog;      /* the current mutant's log (its result's log), or NULL */
	size_t mlog_len; /* bytes in it so far */
	int err;
	char msg[1024];  /* err's message: td_error_last() is per thread */
	char env[4600];  /* while a schema's suite runs: "TDAUDIT_MUTANT=N", or the coverage
			    file's "TDAUDIT_COVERAGE=PATH" (schema.h); "" otherwise */
	const size_t *order; /* the order judge() runs the suite in; NULL: the list's */
} worker_t;

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* ---- tests: listing and running one (testrun.h) ---------------------- */

static double test_limit(const run_t *r, const test_t *t)
{
	double lim = r->proj->timeout_factor * t->baseline_s;

	if (r->opts->timeout > 0)
		return r->opts->timeout;
	return lim > r->proj->timeout_floor ? lim : r->proj->timeout_floor;
}

/* ---- mutant logs ------------------------------------------------------------- */

#define MUTANT_LOG_CAP (256 * 1024) /* bytes of one mutant's log; the rest is left out */

/*
 * The text of log (a worker's, bounded by the capture), or NULL with *len
 * 0. Quiet: it must not replace the thread's error message, since it runs
 * after a build or test whose error the caller has yet to return.
 */
static char *read_quietly(const char *log, size_t *len)
{
	FILE *f = fopen(log, "rb");
	char *text = NULL;
	long n = -1;

	*len = 0;
	if (f && fseek(f, 0, SEEK_END) == 0 && (n = ftell(f)) >= 0 && fseek(f, 0, SEEK_SET) == 0 &&
	    (text = malloc((size_t)n + 1)))
		*len = fread(text, 1, (size_t)n, f);
	if (f)
		fclose(f);
	return text;
}

/*
 * Appends what the worker's last build or test printed (w->log) to the
 * current mutant's log, under a "== WHAT" line, up to MUTANT_LOG_CAP.
 * Best effort: a log that cannot be written loses text, never the run.
 */
static void keep_log(worker_t *w, const char *what)
{
	char *text;
	size_t len = 0, room;
	FILE *f;

	if (!w->mlog || w->mlog_len >= MUTANT_LOG_CAP || !(f = fopen(w->mlog, "a")))
		return;
	text = read_quietly(w->log, &len);
	w->mlog_len += (size_t)fprintf(f, "== %s\n", what);
	room = w->mlog_len < MUTANT_LOG_CAP ? MUTANT_LOG_CAP - w->mlog_len : 0;
	fwrite(text ? text : "", 1, len < room ? len : room, f);
	w->mlog_len += len < room ? len : room;
	if (len > room) {
		fprintf(f, "\n[the rest is left out: a mutant's log keeps %d KiB]\n", MUTANT_LOG_CAP / 1024);
		w->mlog_len = MUTANT_LOG_CAP;
	}
	fclose(f);
	free(text);
}

/*
 * Copies into tail the last lines (at most 3) the worker's latest run
 * printed, as one line (" / " between them, control bytes as spaces), cut
 * to fit; "" when it printed nothing.
 */
static void get_tail(char *tail, size_t size, const char *log)
{
	size_t len = 0, n = 0, start;
	char *text = read_quietly(log, &len);
	int lines = 0;

	tail[0] = '\0';
	if (!len) {
		free(text);
		return;
	}
	while (len && (text[len - 1] == '\n' || text[len - 1] == '\r'))
		len--;
	for (start = len; start > 0; start--)
		if (text[start - 1] == '\n' && ++lines == 3)
			break;
	for (size_t i = start; i < len && n + 1 < size; i++) {
		unsigned char c = (unsigned char)text[i];

		if (c == '\n' && n + 4 < size)
			n += (size_t)snprintf(tail + n, size - n, " / ");
		else if (c != '\n')
			tail[n++] = c < 0x20 || c == 0x7f ? ' ' : (char)c;
	}
	tail[n < size ? n : size - 1] = '\0';
	free(text);
}

/* Starts mutant i's log in this run's directory: NNNN-ID.log, the id made a file name. */
static void start_mutant_log(run_t *r, worker_t *w, size_t i, td_mutation_result *res)
{
	char name[64];

	td_testrun_file_name(name, sizeof name, r->muts.v[i].id);
	snprintf(res->log, sizeof res->log, "%s/%04zu-%s.log", r->logs, i + 1, name);
	unlink(res->log);
	w->mlog = r->logs[0] ? res->log : NULL;
	w->mlog_len = 0;
	if (!w->mlog)
		res->log[0] = '\0';
}

/*
 * Runs audit t in tree (td_audit_run_one; the audit's own trainer timeout
 * applies). It fails when the audit fails or errors (the mutant made the
 * trainer's runs disagree, or break); a skip is not a failure, since the
 * audit checked nothing. The result's words go to log; res->status is 1
 * for a failure, and *skipped says it skipped.
 */
static int run_audit(const run_t *r, const test_t *t, const char *tree, const char *log,
		     td_proc_result *res, int *failed, int *skipped, char *detail, size_t size)
{
	td_audit_result a;
	char text[2048];
	int err = td_audit_run_one(&a, r->proj, tree, t->name + strlen(AUDIT_PREFIX), t->script);

	memset(res, 0, sizeof *res);
	if (err)
		return err;
	*failed = a.status == TD_AUDIT_FAIL || a.status == TD_AUDIT_ERROR;
	*skipped = a.status == TD_AUDIT_SKIP;
	res->exited = 1, res->status = *failed, res->seconds = a.seconds;
	snprintf(text, sizeof text, "%s: %s: %s%s%s\n", t->name, td_audit_status_name(a.status),
		 a.summary ? a.summary : "", a.reason ? "\n  " : "", a.reason ? a.reason : "");
	if (detail)
		snprintf(detail, size, "audit %s: %s", td_audit_status_name(a.status),
			 a.summary ? a.summary : "");
	err = td_file_write_atomic(log, text, strlen(text), 0644);
	td_audit_result_free(&a);
	return err;
}

/*
 * Runs test t in tree with output to log (td_testrun_one). *failed is 1
 * when it failed (non-zero exit, signal, fail_text or timeout), *timed_out
 * when it ran out of time; res gets the details.
 */
static int run_test(const run_t *r, const test_t *t, const worker_t *w, double limit,
		    td_proc_result *res, int *failed, int *timed_out)
{
	enum td_test_result out = TD_TEST_FAIL;
	int skipped = 0, err;

	*timed_out = 0;
	if (t->runner < 0)
		return run_audit(r, t, w->tree, w->log, res, failed, &skipped, NULL, 0);
	err = td_testrun_one_env(&out, res, r->proj, t->runner, t->name, w->tree, w->log, limit,
				 w->env[0] ? w->env : NULL);

	*failed = !err && out != TD_TEST_PASS;
	*timed_out = !err && out == TD_TEST_TIMEOUT;
	return err;
}

/* Appends the test names printed by runner k (run in tree) to r->tests. */
static int list_tests(run_t *r, int k, const char *tree, const char *log)
{
	char **names = NULL;
	size_t n = 0;
	int err = td_testrun_list(&names, r->proj, k, tree, log);

	if (!err)
		n = td_strv_len(names);
	if (!err)
		err = td_grow(&r->tests, &r->tests_cap, r->n_tests + n, sizeof *r->tests);
	for (size_t i = 0; !err && i < n; i++) {
		test_t *t = &r->tests[r->n_tests++];

		t->name = names[i], names[i] = NULL; /* r->tests owns it now */
		t->runner = k;
		t->script = NULL;
		t->baseline_s = 0;
	}
	td_strv_free(names);
	return err;
}

static test_t *find_test(const run_t *r, const char *name)
{
	for (size_t i = 0; i < r->n_tests; i++)
		if (strcmp(r->tests[i].name, name) == 0)
			return &r->tests[i];
	return NULL;
}

/*
 * Adds a test entry for every audit the selected mutants name as a guard
 * ("audit:seed"): run only as those mutants' guards, never in the kill
 * matrix of others (an audit runs the trainer several times). A name with
 * no audit script is left out, for check_guards to report.
 */
static int list_audits(run_t *r)
{
	char **names = NULL, **scripts = NULL;
	int err = td_audit_list(&names, &scripts, r->proj);

	for (size_t i = 0; !err && i < r->muts.n; i++)
		for (size_t g = 0; !err && r->muts.v[i].guards && r->muts.v[i].guards[g]; g++) {
			const char *guard = r->muts.v[i].guards[g];
			long k = strncmp(guard, AUDIT_PREFIX, strlen(AUDIT_PREFIX))
					 ? -1
					 : td_strv_find(names, guard + strlen(AUDIT_PREFIX));
			test_t *t;

			if (k < 0 || find_test(r, guard))
				continue;
			err = td_grow(&r->tests, &r->tests_cap, r->n_tests + 1, sizeof *r->tests);
			if (err)
				break;
			t = &r->tests[r->n_tests];
			*t = (test_t){strdup(guard), -1, strdup(scripts[k]), 0};
			if (!t->name || !t->script) {
				free(t->name), free(t->script);
				err = TD_FAIL(TD_ENOMEM, "out of memory");
			} else {
				r->n_tests++;
			}
		}
	td_strv_free(names);
	td_strv_free(scripts);
	return err;
}

/* Refuses a name listed twice: --only-style running would be ambiguous. */
static int check_test_names(const run_t *r)
{
	if (r->n_tests == 0)
		return TD_FAIL(TD_EINVAL, "the runners listed no tests; check runner.list in tdaudit.lua");
	for (size_t i = 0; i < r->n_tests; i++)
		if (find_test(r, r->tests[i].name) != &r->tests[i])
			return TD_FAIL(TD_EINVAL, "test '%s' is listed twice (runners %d and %d)",
				       r->tests[i].name, find_test(r, r->tests[i].name)->runner + 1,
				       r->tests[i].runner + 1);
	return 0;
}

/* ---- the baseline ---------------------------------------------------------- */

/*
 * Whether test t's run command runs a program named by the test, as where
 * each test is a binary (run = { "tests/{test}" }): then it cannot have
 * run another, and the output need not name it.
 */
static int program_is_the_test(const run_t *r, const test_t *t)
{
	if (t->runner < 0) /* an audit: its result is its own */
		return 1;
	return r->proj->runners[t->runner].program_is_test ||
	       strstr(r->proj->runners[t->runner].run[0], "{test}") != NULL;
}

/* A test name no runner lists, for the negative control. */
#define NO_SUCH_TEST "tdaudit-no-such-test"

/*
 * The negative control of runner k: its run command given a name no runner
 * lists must fail (exit non-zero, a signal, fail_text or a timeout). If it
 * does, a pass means the named test ran, whatever the output says (a
 * `stdbuf -o0 ./{test}` wrapper, a golden-output `./{test} > out; diff`).
 * *works = 1 when it failed as it should. Its log is logs/control-K.log.
 */
static int negative_control(const run_t *r, int k, const worker_t *w, int *works)
{
	char name[] = NO_SUCH_TEST;
	test_t t = {name, k, NULL, 0};
	td_proc_result pr = {0};
	char keep[4400];
	int failed = 0, timed_out = 0, err;

	*works = 0;
	if (find_test(r, NO_SUCH_TEST))
		return TD_FAIL(TD_EINVAL, "a runner lists a test named '%s'; rename it: tdaudit "
					  "runs that name as a negative control", NO_SUCH_TEST);
	err = run_test(r, &t, w, r->proj->timeout_floor, &pr, &failed, &timed_out);
	snprintf(keep, sizeof keep, "%s/logs/control-%d.log", r->dir, k + 1);
	rename(w->log, keep); /* best effort: kept to show what the control printed */
	*works = !err && failed;
	return err;
}

/*
 * Runs every test unmutated in worker w's tree. A failing test, or one
 * whose output does not name it (unless its program does), stops the run:
 * TD_ESTATE; so does an audit guard that fails or skips (a skip checked
 * nothing, so it could not guard a mutant).
 */
static int baseline(run_t *r, worker_t *w)
{
	char **red = NULL, **mute = NULL;
	int control[TD_PROJECT_MAX_RUNNERS]; /* -1 not run; 0 passed (no control); 1 failed */
	int err = 0;

	for (int k = 0; k < TD_PROJECT_MAX_RUNNERS; k++)
		control[k] = -1;
	for (size_t i = 0; i < r->n_tests && !err; i++) {
		td_proc_result pr = {0};
		int failed = 0, timed_out = 0, skipped = 0;

		if (r->tests[i].runner < 0)
			err = run_audit(r, &r->tests[i], w->tree, w->log, &pr, &failed, &skipped, NULL,
					0);
		else
			err = run_test(r, &r->tests[i], w, r->proj->timeout_build, &pr, &failed,
				       &timed_out);
		failed |= skipped;
		r->tests[i].baseline_s = pr.seconds;
		if (!err && failed) {
			char keep[4400];

			snprintf(keep, sizeof keep, "%s/logs/baseline-%s.log", r->dir, r->tests[i].name);
			rename(w->log, keep); /* best effort: the path is printed below */
			err = td_strv_push(&red, r->tests[i].name);
		}
		else if (!err && !program_is_the_test(r, &r->tests[i]) &&
			 !td_testrun_log_mentions(w->log, r->tests[i].name)) {
			int k = r->tests[i].runner;

			if (control[k] < 0)
				err = negative_control(r, k, w, &control[k]);
			if (!err && !control[k])
				err = td_strv_push(&mute, r->tests[i].name);
		}
	}
	if (!err && (red || mute)) {
		fprintf(stderr, "tdaudit: the unmutated suite is not green, so no mutant can be judged:\n");
		for (size_t i = 0; red && red[i]; i++)
			fprintf(stderr, "  failed: %s (log: %s/logs/baseline-%s.log)\n", red[i], r->dir,
				red[i]);
		for (size_t i = 0; mute && mute[i]; i++)
			fprintf(stderr, "  ran, but its output never names it, and its runner's run "
					"command passes for a name no runner lists (%s): %s\n",
				NO_SUCH_TEST, mute[i]);
		if (mute)
			fprintf(stderr, "  a runner passes the baseline when its run output names the "
					"test, when run given an unknown name fails, or with "
					"program_is_test = true in tdaudit.lua\n");
		err = TD_FAIL(TD_ESTATE, "red baseline (%zu failed, %zu unconfirmed); fix the suite first",
			      td_strv_len(red), td_strv_len(mute));
	}
	td_strv_free(red);
	td_strv_free(mute);
	return err;
}

/* ---- one mutant -------------------------------------------------------------- */

/* Runs t for mutant m; on failure records it. *failed tells the caller. */
static int probe(run_t *r, worker_t *w, test_t *t, td_mutation_result *res, int *failed,
		 int *timed_out)
{
	td_proc_result pr = {0};
	char audit_detail[sizeof res->detail], what[300];
	int skipped = 0, err;

	if (t->runner < 0) { /* an audit guard: its words, not an exit status */
		*timed_out = 0;
		err = run_audit(r, t, w->tree, w->log, &pr, failed, &skipped, audit_detail,
				sizeof audit_detail);
		snprintf(what, sizeof what, "audit %s", t->name);
		keep_log(w, what);
		if (err || !*failed)
			return err;
		if (!res->killers)
			snprintf(res->detail, sizeof res->detail, "%s", audit_detail);
		return td_strv_push(&res->killers, t->name);
	}
	err = run_test(r, t, w, test_limit(r, t), &pr, failed, timed_out);
	snprintf(what, sizeof what, "test %s", t->name);
	keep_log(w, what);
	if (!err && *timed_out) { /* once more with twice the time: a loaded machine is no kill */
		pthread_mutex_lock(&r->mu);
		r->reruns++;
		pthread_mutex_unlock(&r->mu);
		err = run_test(r, t, w, 2 * test_limit(r, t), &pr, failed, timed_out);
		snprintf(what, sizeof what, "test %s, again with twice the time", t->name);
		keep_log(w, what);
	}
	if (err || !*failed)
		return err;
	if (!res->killers) {
		res->exit_status = pr.exited ? pr.status : -1;
		res->signal = pr.exited ? 0 : pr.status;
	}
	if (!res->killers && pr.exited && pr.status == 0 && !pr.timed_out)
		snprintf(res->detail, sizeof res->detail, "exit 0, but its output says \"%s\"",
			 r->proj->runners[t->runner].fail_text);
	else if (!res->killers)
		td_proc_describe(&pr, res->detail, sizeof res->detail);
	if (!res->killers)
		get_tail(res->tail, sizeof res->tail, w->log);
	if (!res->killers) /* a sanitizer's report says more than its exit status */
		td_sanitize_report(res->detail, sizeof res->detail, res->tail, sizeof res->tail, w->log);
	return td_strv_push(&res->killers, t->name);
}

/*
 * --cold: every test, in list order, no fail-fast; the outcome is then read
 * off the failures: a guard among them kills, any other test kills
 * elsewhere. Same outcomes as judge(), found the slow way.
 */
static int judge_whole_suite(run_t *r, worker_t *w, const td_mutant *m, td_mutation_result *res)
{
	int failed = 0, timed_out = 0, any_guard = 0, any_timeout = 0, err = 0;

	for (size_t i = 0; i < r->n_tests && !err; i++) {
		int guard = !m->guards || td_strv_find(m->guards, r->tests[i].name) >= 0;

		if (r->tests[i].runner < 0 && !(m->guards && guard))
			continue; /* an audit runs only for the mutants that name it */
		err = probe(r, w, &r->tests[i], res, &failed, &timed_out);
		any_guard |= failed && guard;
		any_timeout |= failed && guard && timed_out;
	}
	if (any_guard)
		res->outcome = any_timeout ? TD_TIMEOUT : TD_KILLED;
	else
		res->outcome = res->killers ? TD_KILLED_ELSEWHERE : TD_SURVIVED;
	return err;
}

/*
 * Guards first, in the catalogue's order: the first that fails kills the
 * mutant. Then every other test, all of them (the kill matrix): if one
 * fails, the mutant was killed elsewhere. A mutant with no guards named (a
 * generated one) is killed by the first test that fails.
 */
static int judge(run_t *r, worker_t *w, const td_mutant *m, td_mutation_result *res)
{
	int failed = 0, timed_out = 0, err = 0;

	if (r->opts->cold)
		return judge_whole_suite(r, w, m, res);
	for (size_t g = 0; m->guards && m->guards[g]; g++) {
		err = probe(r, w, find_test(r, m->guards[g]), res, &failed, &timed_out);
		if (err || failed) {
			res->outcome = timed_out ? TD_TIMEOUT : TD_KILLED;
			return err;
		}
	}
	for (size_t x = 0; x < r->n_tests; x++) {
		size_t i = w->order ? w->order[x] : x;

		if (m->guards && td_strv_find(m->guards, r->tests[i].name) >= 0)
			continue;
		if (r->tests[i].runner < 0) /* an audit runs only for the mutants that name it */
			continue;
		err = probe(r, w, &r->tests[i], res, &failed, &timed_out);
		if (err)
			return err;
		if (failed && !m->guards) {
			res->outcome = timed_out ? TD_TIMEOUT : TD_KILLED;
			return 0;
		}
	}
	res->outcome = res->killers ? TD_KILLED_ELSEWHERE : TD_SURVIVED;
	return 0;
}

/*
 * Locates m in a scratch copy of its file. The copy is the source
 * locate_all found m in, so this holds; if it does not (the source changed
 * under the run), the run stops rather than judge a mutant it never saw.
 */
static int locate_in_copy(td_mutant *m, const char *text, size_t len)
{
	size_t count;

	TD_REQUIRE(td_mutant_locate(m, text, len, &count) == TD_LOCATE_OK);
	return 0;
}

static int source_files(const run_t *r, char ***files);

/*
 * After a mutant whose build or tests changed the files of w's scratch
 * tree (deleted one, say): syncs it from the source again, so the next
 * mutant on this worker starts from the code, and says so.
 */
static int resync(run_t *r, worker_t *w, const td_mutant *m)
{
	char manifest[4300], **files = NULL;
	size_t n = 0;
	int err = source_files(r, &files);

	snprintf(manifest, sizeof manifest, "%s/work/%d.manifest", r->dir, w->id);
	if (!err)
		err = td_scratch_sync(r->src, files, w->tree, manifest, &n);
	td_strv_free(files);
	pthread_mutex_lock(&r->mu);
	r->resynced++;
	printf("tdaudit mutate: %s changed the files of its scratch tree %s; re-synced from the "
	       "source (%zu more file%s rewritten or removed)\n", m->id, w->tree, n, n == 1 ? "" : "s");
	fflush(stdout);
	pthread_mutex_unlock(&r->mu);
	return err;
}

/* The fingerprint of w's scratch tree (td_scratch_stamp); 0 when it cannot be read. */
static uint64_t stamp(const run_t *r, const worker_t *w)
{
	char manifest[4300];
	uint64_t h = 0;

	snprintf(manifest, sizeof manifest, "%s/work/%d.manifest", r->dir, w->id);
	td_scratch_stamp(&h, w->tree, manifest);
	return h;
}

static int try_mutant(run_t *r, worker_t *w, td_mutant *m, td_mutation_result *res)
{
	char path[8400], *orig = NULL, *mut = NULL;
	size_t len, mlen;
	td_proc_result pr;
	uint64_t before = 0, after = 0, synced = 0;
	int err, ok = 0, changed;

	snprintf(path, sizeof path, "%s/%s", w->tree, m->file);
	err = td_file_read(path, &orig, &len);
	if (err)
		return err;
	if ((err = locate_in_copy(m, orig, len)))
		goto done;
	err = td_mutant_apply(m, orig, len, &mut, &mlen);
	if (!err)
		err = td_scratch_put(w->tree, m->file, mut, mlen);
	synced = stamp(r, w); /* with the mutant in place: what its build and tests start from */
	if (!err)
		err = td_testrun_tree_stamp(&before, w->tree);
	if (!err)
		err = td_testrun_build(&ok, &pr, r->proj, w->tree, w->log);
	keep_log(w, "build");
	if (!err && ok)
		err = td_testrun_tree_stamp(&after, w->tree);
	if (!err && !ok) {
		res->outcome = TD_BUILD_FAILED;
		td_proc_describe(&pr, res->detail, sizeof res->detail);
		get_tail(res->tail, sizeof res->tail, w->log);
	} else if (!err && before == after && td_testrun_compiled(m->file)) { /* nothing compiled: the tests would see no mutant */
		res->outcome = TD_NOT_REBUILT;
		snprintf(res->detail, sizeof res->detail, "the build wrote no file after %s changed",
			 m->file);
	} else if (!err) {
		err = judge(r, w, m, res);
	}
	changed = stamp(r, w) != synced;
	if (td_scratch_put(w->tree, m->file, orig, len) != 0 && !err)
		err = TD_FAIL(TD_EIO, "could not restore %s in %s", m->file, w->tree);
	if (changed && !err)
		err = resync(r, w, m);
done:
	free(orig);
	free(mut);
	return err;
}

/* ---- workers ---------------------------------------------------------------- */

static void progress(run_t *r, size_t i)
{
	const td_mutation_result *res = &r->res[i];
	const td_mutant *m = &r->muts.v[i];
	double el = now() - r->t0, eta = el / (double)r->done * (double)(r->todo - r->done);
	char who[300] = "", tag[64] = "";

	if (res->killers)
		snprintf(who, sizeof who, " %s %s (%s)", res->outcome == TD_KILLED ? "by" : "-",
			 res->killers[0], res->detail);
	if (r->proj->n_variants > 1) /* which build the verdict holds for */
		snprintf(tag, sizeof tag, "  [%s]", r->proj->variants[r->proj->active].name);
	printf("[%zu/%zu] %s:%d %s  %s%s%s%s%s  %.1fs  eta %.0fs\n", r->done, r->todo, m->file,
	       m->line, m->op, td_report_color(r->opts->color, res->outcome),
	       td_outcome_name((enum td_outcome)res->outcome), td_report_color(r->opts->color, TD_N_OUTCOMES), who,
	       tag, res->seconds, eta);
	fflush(stdout);
}

/*
 * The files of the code to mutate: the working tree's (tracked and
 * untracked, not ignored) or, with --rev, those written from REV's tree
 * (the manifest of .tdaudit/rev/). Caller frees with td_strv_free.
 */
static int source_files(const run_t *r, char ***files)
{
	char manifest[4400], *text = NULL;
	int err;

	if (!r->rev_id[0])
		return td_repo_files(files, r->proj->root);
	*files = NULL;
	snprintf(manifest, sizeof manifest, "%s/rev/manifest", r->dir);
	err = td_file_read(manifest, &text, NULL);
	char *save = NULL; /* strtok_r: strtok has one cursor for all threads */
	for (char *line = err ? NULL : strtok_r(text, "\n", &save); line && !err;
	     line = strtok_r(NULL, "\n", &save))
		err = td_strv_push(files, line);
	free(text);
	return err;
}

static int rm_entry(const char *path, const struct stat *sb, int flag, struct FTW *ftw)
{
	(void)sb, (void)flag, (void)ftw;
	return remove(path);
}

/*
 * --cold: the naive way, kept for comparison (the benchmark): a fresh copy
 * of the repository for every mutant, so every build is a clean build.
 */
static int cold_copy(run_t *r, worker_t *w)
{
	char manifest[4400], **files = NULL;
	int err;

	snprintf(manifest, sizeof manifest, "%s/work/%d.manifest", r->dir, w->id);
	if (nftw(w->tree, rm_entry, 32, FTW_DEPTH | FTW_PHYS) != 0 && errno != ENOENT)
		return TD_FAIL(TD_EIO, "cannot remove %s: %s", w->tree, strerror(errno));
	unlink(manifest);
	err = source_files(r, &files);
	if (!err)
		err = td_scratch_sync(r->src, files, w->tree, manifest, NULL);
	td_strv_free(files);
	return err;
}

static void *worker_main(void *arg)
{
	worker_t *w = arg;
	run_t *r = w->run;

	for (;;) {
		size_t i;
		double t;

		pthread_mutex_lock(&r->mu);
		while (r->next < r->muts.n && r->res[r->next].settled)
			r->next++;
		i = r->next++;
		pthread_mutex_unlock(&r->mu);
		if (i >= r->muts.n || w->err)
			break;
		t = now();
		start_mutant_log(r, w, i, &r->res[i]);
		if (r->opts->cold)
			w->err = cold_copy(r, w);
		if (!w->err)
			w->err = try_mutant(r, w, &r->muts.v[i], &r->res[i]);
		r->res[i].seconds = now() - t;
		w->mlog = NULL;
		pthread_mutex_lock(&r->mu);
		r->res[i].settled = 1;
		r->done++;
		if (!w->err)
			progress(r, i);
		else
			fprintf(stderr, "tdaudit: worker %d: %s\n", w->id, td_error_last());
		pthread_mutex_unlock(&r->mu);
	}
	if (w->err)
		snprintf(w->msg, sizeof w->msg, "%s", td_error_last());
	return NULL;
}

static void *worker_prepare(void *arg)
{
	worker_t *w = arg;
	run_t *r = w->run;
	char manifest[4300], **files = NULL;
	td_proc_result pr;
	size_t n;
	int ok = 0;

	snprintf(manifest, sizeof manifest, "%s/work/%d.manifest", r->dir, w->id);
	w->err = td_testrun_reset_if_cut("tdaudit mutate", w->tree, manifest);
	if (!w->err)
		w->err = source_files(r, &files);
	if (!w->err)
		w->err = td_scratch_sync(r->src, files, w->tree, manifest, &n);
	td_strv_free(files);
	if (!w->err)
		w->err = td_testrun_build(&ok, &pr, r->proj, w->tree, w->log);
	if (!w->err && !ok) {
		char d[64];

		w->err = TD_FAIL(TD_EIO, "the unmutated code does not build in %s (%s); see %s", w->tree,
				 td_proc_describe(&pr, d, sizeof d), w->log);
	}
	if (w->err)
		snprintf(w->msg, sizeof w->msg, "%s", td_error_last());
	return NULL;
}

static int run_threads(worker_t *ws, int n, void *(*fn)(void *))
{
	pthread_t th[64];

	for (int i = 0; i < n; i++)
		if (pthread_create(&th[i], NULL, fn, &ws[i]) != 0)
			return TD_FAIL(TD_EIO, "cannot start worker thread %d", i);
	for (int i = 0; i < n; i++)
		pthread_join(th[i], NULL);
	for (int i = 0; i < n; i++) /* the worker's message, raised again in this thread */
		if (ws[i].err)
			return TD_FAIL(ws[i].err, "%s", ws[i].msg);
	return 0;
}

/* ---- schemata (--schemata) --------------------------------------------------- */

/*
 * A schema falls back to builds one by one when its build runs the
 * unmutated suite more than this many times slower than the plain build's
 * baseline, and at least SCHEMA_SLACK_S seconds slower (below that the
 * figures are noise).
 */
#define SCHEMA_SLOWDOWN 2.0
#define SCHEMA_SLACK_S 1.0

/*
 * Counts n generated mutants built alone for reason why (static text);
 * workers call it holding r->mu.
 */
static void count_alone(run_t *r, const char *why, size_t n)
{
	size_t k = 0;

	while (k < r->n_alone && strcmp(r->alone[k].why, why) != 0)
		k++;
	if (k == r->n_alone && k < sizeof r->alone / sizeof r->alone[0])
		r->alone[r->n_alone++] = (alone_t){why, 0};
	if (k < r->n_alone)
		r->alone[k].n += n;
}

/* Prints ": N REASON; M REASON" for the generated mutants built alone, if any. */
static void print_alone(const run_t *r)
{
	for (size_t a = 0; a < r->n_alone; a++)
		printf("%s %zu %s", a ? ";" : ":", r->alone[a].n, r->alone[a].why);
}

/* Whether mutant i may go in a schema: generated, still to run, of a .c file. */
static int schema_candidate(const run_t *r, size_t i)
{
	const td_mutant *m = &r->muts.v[i];
	size_t n = strlen(m->file);

	return m->generated && !r->res[i].settled && n > 2 && strcmp(m->file + n - 2, ".c") == 0;
}

/* The points of group g, each numbered by its mutant's index plus 1; NULL when out of memory. */
static td_schema_point *group_points(const run_t *r, const group_t *g)
{
	td_schema_point *p = calloc(g->n + 1, sizeof *p);

	for (size_t k = 0; p && k < g->n; k++) {
		const td_mutant *m = &r->muts.v[g->idx[k]];

		p[k].cls = m->op;
		p[k].off = m->offset;
		p[k].len = strlen(m->find);
		p[k].repl = m->replace;
		p[k].number = (unsigned)g->idx[k] + 1;
	}
	return p;
}

/* Adds mutant i to the group of its file. */
static int add_to_group(run_t *r, size_t i)
{
	const char *file = r->muts.v[i].file;
	size_t k = 0, cap = r->n_groups;
	group_t *g;
	int err = 0;

	while (k < r->n_groups && strcmp(r->groups[k].file, file) != 0)
		k++;
	if (k == r->n_groups) {
		err = td_grow(&r->groups, &cap, r->n_groups + 1, sizeof *r->groups);
		if (err)
			return err;
		r->groups[r->n_groups++] = (group_t){file, NULL, 0};
	}
	g = &r->groups[k];
	cap = g->n;
	err = td_grow(&g->idx, &cap, g->n + 1, sizeof *g->idx);
	if (!err)
		g->idx[g->n++] = i;
	return err;
}

/*
 * Keeps in group g the mutants its schema can hold, read from the source;
 * the others stay in the queue, to be built one by one, counted by reason.
 */
static int fit_group(run_t *r, group_t *g)
{
	char path[8400], *text = NULL, *schema = NULL;
	size_t len, slen, n_in, k = 0;
	td_schema_point *p = group_points(r, g);
	int err;

	snprintf(path, sizeof path, "%s/%s", r->src, g->file);
	err = p ? td_file_read(path, &text, &len) : TD_FAIL(TD_ENOMEM, "out of memory");
	if (!err)
		err = td_schema_write(&schema, &slen, &n_in, g->file, text, len, p, g->n);
	for (size_t j = 0; !err && j < g->n; j++) {
		if (p[j].why_not)
			count_alone(r, p[j].why_not, 1);
		else
			g->idx[k++] = g->idx[j];
	}
	if (!err)
		g->n = k;
	free(schema);
	free(text);
	free(p);
	return err;
}

/* Groups the generated mutants still to run by .c file, and says what goes where. */
static int plan_schemata(run_t *r)
{
	size_t in = 0, alone = 0, others = 0, k = 0;
	int err = 0;

	for (size_t i = 0; i < r->muts.n && !err; i++) {
		if (schema_candidate(r, i))
			err = add_to_group(r, i);
		else if (!r->res[i].settled && r->muts.v[i].generated)
			count_alone(r, "not in a .c file", 1);
		else if (!r->res[i].settled)
			others++;
	}
	for (size_t g = 0; g < r->n_groups && !err; g++)
		err = fit_group(r, &r->groups[g]);
	for (size_t g = 0; g < r->n_groups && !err; g++) {
		in += r->groups[g].n;
		if (r->groups[g].n)
			r->groups[k++] = r->groups[g];
		else
			free(r->groups[g].idx);
	}
	r->n_groups = err ? r->n_groups : k;
	for (size_t a = 0; a < r->n_alone; a++)
		alone += r->alone[a].n;
	if (err)
		return err;
	printf("tdaudit mutate: schemata: %zu generated mutant%s of %zu file%s in schema builds, "
	       "%zu built one by one", in, in == 1 ? "" : "s", r->n_groups, r->n_groups == 1 ? "" : "s",
	       alone);
	print_alone(r);
	if (others)
		printf("; and %zu catalogue entr%s, one by one", others, others == 1 ? "y" : "ies");
	printf("\n");
	fflush(stdout);
	return 0;
}

/*
 * Keeps w's latest log (a schema's failed build) as the run's
 * LOGS/schema-WHAT.log, WHAT made a file name; *kept gets its path.
 */
static void keep_schema_log(const run_t *r, const worker_t *w, const char *what, char *kept,
			    size_t size)
{
	char name[64];

	td_testrun_file_name(name, sizeof name, what);
	snprintf(kept, size, "%s/schema-%s.log", r->logs[0] ? r->logs : r->dir, name);
	if (rename(w->log, kept) != 0)
		snprintf(kept, size, "%s", w->log);
}

/* What one schema build of a group tries: the functions it holds. */
typedef struct {
	run_t *r;
	worker_t *w;
	const group_t *g;
	td_schema_point *p;
	const char *orig;
	size_t len;
	char **funcs;          /* the group's functions, in order */
	size_t *func_of;       /* per point: its index in funcs */
	unsigned char *good;   /* per function: built in a schema with the good ones */
	unsigned char *broken; /* per function: its schema does not build */
	int built;             /* the latest build was of exactly the good functions, and built */
	uint64_t before, after; /* the tree's stamps around the latest build that built */
} schema_try;

/* Writes and builds the schema of the functions in good or in [lo, hi); *ok says it built. */
static int try_schema(schema_try *t, size_t lo, size_t hi, int *ok)
{
	char *text = NULL;
	size_t len, n_in;
	td_proc_result pr;
	int err = 0;

	for (size_t k = 0; k < t->g->n; k++) {
		size_t f = t->func_of[k];

		t->p[k].leave_out = !(t->good[f] || (f >= lo && f < hi));
	}
	err = td_schema_write(&text, &len, &n_in, t->g->file, t->orig, t->len, t->p, t->g->n);
	if (!err)
		err = td_scratch_put(t->w->tree, t->g->file, text, len);
	free(text);
	if (!err)
		err = td_testrun_tree_stamp(&t->before, t->w->tree);
	if (!err)
		err = td_testrun_build(ok, &pr, t->r->proj, t->w->tree, t->w->log);
	if (!err && *ok)
		err = td_testrun_tree_stamp(&t->after, t->w->tree);
	pthread_mutex_lock(&t->r->mu);
	t->r->schema_builds++;
	pthread_mutex_unlock(&t->r->mu);
	return err;
}

/*
 * Finds the functions whose schema builds with the good ones, halving
 * [lo, hi) while it does not; a single function that does not is broken.
 */
static int split(schema_try *t, size_t lo, size_t hi)
{
	int ok = 0, err = try_schema(t, lo, hi, &ok);

	t->built = ok && !err;
	if (err || ok) {
		for (size_t f = lo; !err && f < hi; f++)
			t->good[f] = 1;
		return err;
	}
	if (hi - lo == 1) { /* its build's log kept, and said */
		char what[600], kept[4500];

		t->broken[lo] = 1;
		snprintf(what, sizeof what, "%s:%s", t->g->file, t->funcs[lo]);
		keep_schema_log(t->r, t->w, what, kept, sizeof kept);
		pthread_mutex_lock(&t->r->mu);
		printf("tdaudit mutate: the schema of %s does not build with function %s's mutants in "
		       "it (see %s): they are built one by one\n", t->g->file, t->funcs[lo], kept);
		fflush(stdout);
		pthread_mutex_unlock(&t->r->mu);
		return 0;
	}
	err = split(t, lo, lo + (hi - lo) / 2);
	return err ? err : split(t, lo + (hi - lo) / 2, hi);
}

/*
 * Builds group g's schema in w's tree, split by function until what is
 * left builds. Sets the points of functions that do not build to fall
 * back; *why (a buffer of size bytes) says why the whole file falls back,
 * or is left empty.
 */
static int build_schema(schema_try *t, char *why, size_t size)
{
	size_t nf = 0, n_good = 0;
	int err = 0, ok = 0;

	for (size_t k = 0; k < t->g->n && !err; k++) {
		const char *f = t->r->muts.v[t->g->idx[k]].func;
		long at = td_strv_find(t->funcs, f ? f : "");

		if (at < 0)
			err = td_strv_push(&t->funcs, f ? f : ""), at = (long)nf++;
		t->func_of[k] = (size_t)at;
	}
	if (!err && !(t->good = calloc(nf + 1, 1)))
		err = TD_FAIL(TD_ENOMEM, "out of memory");
	if (!err && !(t->broken = calloc(nf + 1, 1)))
		err = TD_FAIL(TD_ENOMEM, "out of memory");
	if (!err)
		err = split(t, 0, nf);
	for (size_t f = 0; f < nf; f++)
		n_good += t->good[f];
	if (!err && n_good && !t->built) /* the last try held a broken function: build the good ones */
		err = try_schema(t, 0, 0, &ok), t->built = ok;
	if (!err && !n_good)
		snprintf(why, size, "no function's mutants build in a schema");
	else if (!err && !t->built)
		snprintf(why, size, "its functions build in a schema one by one but not together");
	else if (!err && t->before == t->after)
		snprintf(why, size, "its build wrote no file after the schema was written");
	return err;
}

/*
 * Marks in reach (row k per point of g, a byte per test) the points test i
 * reached: the numbers in text, one per line or space-separated.
 */
static void mark_reached(const group_t *g, unsigned char *reach, size_t n_tests, size_t i,
			 const char *text)
{
	for (const char *p = text; *p;) {
		char *end;
		unsigned long n = strtoul(p, &end, 10);
		size_t lo = 0, hi = g->n;

		while (lo < hi) { /* g->idx is in ascending order; number = index + 1 */
			size_t mid = lo + (hi - lo) / 2;

			if (g->idx[mid] + 1 < n)
				lo = mid + 1;
			else
				hi = mid;
		}
		if (end == p)
			break;
		if (lo < g->n && g->idx[lo] + 1 == n)
			reach[lo * n_tests + i] = 1;
		p = end;
	}
}

/*
 * The key of the coverage cache (covcache.h) for w's tree as it is now,
 * schema written: its files' bytes, the build, the options that change a
 * test's run and the tests. 0 when the tree's files cannot be listed.
 */
static uint64_t coverage_key(const run_t *r, const worker_t *w)
{
	char manifest[4300], build[2048];
	int flags[3] = {r->opts->keep_werror, r->opts->sanitize, r->proj->confine};
	uint64_t h = TD_FNV1A64_OFFSET;

	snprintf(manifest, sizeof manifest, "%s/work/%d.manifest", r->dir, w->id);
	if (td_scratch_content_hash(&h, w->tree, manifest) != 0)
		return 0;
	td_variant_describe(build, sizeof build, r->proj, r->proj->active);
	h = td_fnv1a64(h, TDAUDIT_VERSION, sizeof TDAUDIT_VERSION);
	h = td_fnv1a64(h, build, strlen(build) + 1);
	h = td_fnv1a64(h, flags, sizeof flags);
	for (size_t i = 0; i < r->n_tests; i++) {
		h = td_fnv1a64(h, r->tests[i].name, strlen(r->tests[i].name) + 1);
		h = td_fnv1a64(h, &r->tests[i].runner, sizeof r->tests[i].runner);
	}
	return h ? h : 1;
}

/*
 * Reads the kept record of key (lines "TEST SECONDS POINT..."): the points
 * each test reached into reach, the suite's time on the schema build into
 * *schema_s. Returns 1 when there is a whole record, else 0.
 */
static int cached_coverage(const run_t *r, const group_t *g, uint64_t key, unsigned char *reach,
			   double *schema_s)
{
	char dir[4300], *text = NULL;
	size_t lines = 0;

	snprintf(dir, sizeof dir, "%s/coverage", r->dir);
	if (!key || td_covcache_get(&text, dir, key) != 0)
		return 0;
	*schema_s = 0;
	for (char *line = text, *next; line && *line; line = next) {
		char *end;
		unsigned long i = strtoul(line, &end, 10);
		double t = strtod(end, &end);

		if ((next = strchr(line, '\n')))
			*next++ = '\0';
		if (i >= r->n_tests)
			break;
		mark_reached(g, reach, r->n_tests, i, end);
		*schema_s += t;
		lines++;
	}
	free(text);
	if (lines < r->n_tests) /* cut short: measure again */
		memset(reach, 0, g->n * r->n_tests);
	return lines == r->n_tests;
}

/*
 * Runs the whole suite on w's schema build with no mutant on: every test
 * must pass, and not too much slower than on the plain build. Each test
 * records the points it reaches (the schema's coverage file, in its
 * private TMPDIR) into reach; *known is 1 when every test could record
 * them; secs gets the suite's time on the plain build (its baseline) and
 * on the schema's. *why (size bytes) says why the file falls back, or is
 * left empty.
 */
static int schema_baseline(run_t *r, worker_t *w, const group_t *g, unsigned char *reach,
			   int *known, double secs[2], td_json_buf *record, char *why, size_t size)
{
	char file[4500], head[64];
	double plain = 0, schema = 0;
	int err = 0, fd;

	snprintf(file, sizeof file, "%s.tmp/tdaudit-coverage", w->tree);
	*known = file[0] == '/'; /* the test runs in the tree: only an absolute path reaches it */
	for (size_t i = 0; i < r->n_tests && !err && !why[0]; i++) {
		const test_t *t = &r->tests[i];
		td_proc_result pr = {0};
		int failed = 0, timed_out = 0;
		char *text = NULL;
		struct stat st;

		if (t->runner < 0) { /* an audit runs only for the mutants that name it */
			snprintf(head, sizeof head, "%zu 0\n", i);
			td_json_put_raw(record, head);
			continue;
		}
		/* made empty before, so a confinement inside a test can allow it */
		if ((fd = open(file, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600)) >= 0)
			close(fd);
		else
			*known = 0;
		if (*known)
			snprintf(w->env, sizeof w->env, TD_SCHEMA_COVERAGE_ENV "=%s", file);
		err = run_test(r, t, w, test_limit(r, t), &pr, &failed, &timed_out);
		w->env[0] = '\0';
		if (lstat(file, &st) != 0 || !S_ISREG(st.st_mode))
			*known = 0; /* the test removed it (a TMPDIR cleaned): what it reached is lost */
		if (*known && td_file_read(file, &text, NULL) == 0) {
			mark_reached(g, reach, r->n_tests, i, text);
			for (char *c = text; *c; c++)
				*c = *c == '\n' ? ' ' : *c;
		}
		snprintf(head, sizeof head, "%zu %.3f ", i, pr.seconds);
		td_json_put_raw(record, head);
		td_json_put_raw(record, text ? text : "");
		td_json_put_raw(record, "\n");
		free(text);
		if (!err && failed)
			snprintf(why, size, "with no mutant on, %s %s in the schema build", t->name,
				 timed_out ? "runs out of time" : "fails");
		plain += t->baseline_s;
		schema += pr.seconds;
	}
	unlink(file);
	secs[0] = plain, secs[1] = schema;
	if (!err && !why[0] && schema > SCHEMA_SLOWDOWN * plain && schema > plain + SCHEMA_SLACK_S)
		snprintf(why, size, "with no mutant on, the suite takes %.1fs in the schema build "
				    "against %.1fs (more than %.0fx slower)",
			 schema, plain, SCHEMA_SLOWDOWN);
	return err;
}

/*
 * Settles mutant i, whose point no test reached with no mutant on: the run
 * of every test is the unmutated one, so it is judged without running them.
 */
static void no_coverage(run_t *r, size_t i)
{
	td_mutation_result *res = &r->res[i];

	pthread_mutex_lock(&r->mu);
	res->outcome = TD_NO_COVERAGE, res->exit_status = -1, res->settled = 1;
	snprintf(res->detail, sizeof res->detail, "no test reached it with no mutant on");
	r->done++;
	r->schema_judged++;
	r->schema_unreached++;
	progress(r, i);
	pthread_mutex_unlock(&r->mu);
}

/*
 * Judges each mutant of g in the schema built in w's tree, its number in
 * the tests' environment, from an empty TMPDIR; the tests that reached it
 * unmutated (reach) run first, so a kill comes sooner. With known (the
 * coverage of every test recorded), a mutant no test reached is
 * no-coverage unless --run-unreached.
 */
static int judge_group(run_t *r, worker_t *w, const group_t *g, const td_schema_point *p,
		       const unsigned char *reach, int known)
{
	size_t *order = calloc(r->n_tests + 1, sizeof *order);
	int err = order ? 0 : TD_FAIL(TD_ENOMEM, "out of memory");

	for (size_t k = 0; k < g->n && !err; k++) {
		size_t i = g->idx[k], n = 0, reached;
		double t = now();

		if (p[k].leave_out || p[k].why_not)
			continue;
		for (size_t x = 0; x < r->n_tests; x++) /* first the tests that reach it */
			if (reach[k * r->n_tests + x])
				order[n++] = x;
		reached = n;
		for (size_t x = 0; x < r->n_tests; x++)
			if (!reach[k * r->n_tests + x])
				order[n++] = x;
		if (!reached && known && !r->opts->run_unreached) { /* nothing can notice it */
			no_coverage(r, i);
			continue;
		}
		start_mutant_log(r, w, i, &r->res[i]);
		err = td_testrun_empty_tmp(w->tree);
		snprintf(w->env, sizeof w->env, TD_SCHEMA_ENV "=%u", p[k].number);
		w->order = order;
		if (!err)
			err = judge(r, w, &r->muts.v[i], &r->res[i]);
		w->env[0] = '\0';
		w->order = NULL;
		r->res[i].seconds = now() - t;
		w->mlog = NULL;
		pthread_mutex_lock(&r->mu);
		r->res[i].settled = 1;
		r->done++;
		r->schema_judged++;
		r->schema_unreached += reached == 0;
		if (!err)
			progress(r, i);
		pthread_mutex_unlock(&r->mu);
	}
	free(order);
	return err;
}

/*
 * One group: its schema built (split where it must be), the suite green on
 * it with no mutant on, then each mutant judged without a build; the file
 * restored. What falls back stays in the queue, to be built one by one.
 */
static int run_group(run_t *r, worker_t *w, const group_t *g)
{
	char path[8400], why[512] = "", *orig = NULL;
	unsigned char *reach = NULL; /* per point, a byte per test: reached unmutated */
	size_t len = 0, n_alone = 0;
	schema_try t = {r, w, g, NULL, NULL, 0, NULL, NULL, NULL, NULL, 0, 0, 0};
	uint64_t synced;
	char cdir[4300];
	int err, changed, known = 0, cached = 0;
	double secs[2] = {0, 0}; /* the suite unmutated: plain build, schema build */
	uint64_t key = 0;
	td_json_buf record = TD_JSON_BUF_INIT; /* what the coverage cache keeps of the run */

	snprintf(path, sizeof path, "%s/%s", w->tree, g->file);
	snprintf(cdir, sizeof cdir, "%s/coverage", r->dir);
	err = td_file_read(path, &orig, &len);
	t.orig = orig, t.len = len;
	if (!err && (!(t.p = group_points(r, g)) || !(t.func_of = calloc(g->n + 1, sizeof *t.func_of))))
		err = TD_FAIL(TD_ENOMEM, "out of memory");
	if (!err && !(reach = calloc(g->n * r->n_tests + 1, 1)))
		err = TD_FAIL(TD_ENOMEM, "out of memory");
	if (!err)
		err = build_schema(&t, why, sizeof why);
	synced = err ? 0 : stamp(r, w);
	if (!err && !why[0]) {
		key = coverage_key(r, w);
		cached = cached_coverage(r, g, key, reach, &secs[1]);
		for (size_t i = 0; cached && i < r->n_tests; i++)
			secs[0] += r->tests[i].runner < 0 ? 0 : r->tests[i].baseline_s;
		known |= cached;
	}
	if (!err && !why[0] && !cached)
		err = schema_baseline(r, w, g, reach, &known, secs, &record, why, sizeof why);
	if (!err && !why[0] && !cached && known && key && !record.err &&
	    td_covcache_put(cdir, key, record.s ? record.s : "", record.len) != 0) {
		pthread_mutex_lock(&r->mu);
		printf("tdaudit mutate: WARNING: the coverage of %s's schema is not kept for the next "
		       "run: %s\n", g->file, td_error_last());
		pthread_mutex_unlock(&r->mu);
	}
	if (!err && !why[0]) { /* what the run-time choice costs this file's code */
		char ratio[64] = "too short to compare";

		if (secs[0] >= 0.5)
			snprintf(ratio, sizeof ratio, "%.2fx", secs[1] / secs[0]);
		pthread_mutex_lock(&r->mu);
		printf("tdaudit mutate: the schema of %s passes the suite with no mutant on in "
		       "%.2fs, against %.2fs built plain (%s)%s\n", g->file, secs[1], secs[0], ratio,
		       cached  ? "; coverage kept from a run of the same files, build and tests"
		       : known ? ""
			       : "; its coverage could not be recorded: every mutant runs the suite");
		fflush(stdout);
		pthread_mutex_unlock(&r->mu);
		err = judge_group(r, w, g, t.p, reach, known);
	}
	for (size_t k = 0; !err && k < g->n; k++)
		n_alone += why[0] || t.p[k].leave_out || t.p[k].why_not;
	pthread_mutex_lock(&r->mu);
	if (!err && why[0]) {
		count_alone(r, "its file's schema fell back", n_alone);
		printf("tdaudit mutate: the schema of %s falls back: %s; %zu mutant%s to build one "
		       "by one\n", g->file, why, n_alone, n_alone == 1 ? "" : "s");
	} else if (!err && n_alone) {
		count_alone(r, "its function's schema does not build", n_alone);
	}
	fflush(stdout);
	pthread_mutex_unlock(&r->mu);
	changed = !err && stamp(r, w) != synced;
	if (orig && td_scratch_put(w->tree, g->file, orig, len) != 0 && !err)
		err = TD_FAIL(TD_EIO, "could not restore %s in %s", g->file, w->tree);
	if (!err && changed) {
		td_mutant m = {.id = (char *)g->file};

		err = resync(r, w, &m);
	}
	free(orig);
	free(reach);
	td_json_buf_free(&record);
	free(t.p);
	free(t.func_of);
	free(t.good);
	free(t.broken);
	td_strv_free(t.funcs);
	return err;
}

static void *worker_schemata(void *arg)
{
	worker_t *w = arg;
	run_t *r = w->run;

	for (;;) {
		const group_t *g = NULL;

		pthread_mutex_lock(&r->mu);
		if (r->next_group < r->n_groups)
			g = &r->groups[r->next_group++];
		pthread_mutex_unlock(&r->mu);
		if (!g || w->err)
			break;
		w->err = run_group(r, w, g);
	}
	if (w->err)
		snprintf(w->msg, sizeof w->msg, "%s", td_error_last());
	return NULL;
}

/* ---- preparation ------------------------------------------------------------ */

/* Settles stale mutants and refuses ambiguous ones, against the source. */
static int locate_all(run_t *r)
{
	int err = 0;

	for (size_t i = 0; i < r->muts.n; i++) {
		td_mutant *m = &r->muts.v[i];
		char path[8400], *text = NULL;
		size_t len, count;
		int rc;

		snprintf(path, sizeof path, "%s/%s", r->src, m->file);
		if (td_file_read(path, &text, &len) != 0) {
			r->res[i].outcome = TD_STALE, r->res[i].settled = 1;
			snprintf(r->res[i].detail, sizeof r->res[i].detail, "file %s is gone", m->file);
			continue;
		}
		rc = td_mutant_locate(m, text, len, &count);
		free(text);
		if (rc == TD_LOCATE_STALE) {
			r->res[i].outcome = TD_STALE, r->res[i].settled = 1;
			snprintf(r->res[i].detail, sizeof r->res[i].detail, "find text matches %zu times%s",
				 count, m->occurrence ? ", fewer than occurrence" : "");
		} else if (rc == TD_LOCATE_AMBIGUOUS) {
			fprintf(stderr, "%s: mutant '%s': find text matches %zu times in %s; make it "
					"unique or set occurrence = k\n", m->where, m->name, count, m->file);
			err = TD_FAIL(TD_EINVAL, "ambiguous catalogue entries");
		} else if (m->equivalent) {
			r->res[i].outcome = TD_EQUIVALENT, r->res[i].settled = 1;
			snprintf(r->res[i].detail, sizeof r->res[i].detail, "%s", m->equivalent);
		}
	}
	return err;
}

static int check_guards(const run_t *r)
{
	int err = 0;

	for (size_t i = 0; i < r->muts.n; i++)
		for (size_t g = 0; r->muts.v[i].guards && r->muts.v[i].guards[g]; g++)
			if (!find_test(r, r->muts.v[i].guards[g])) {
				const char *guard = r->muts.v[i].guards[g];

				if (!strncmp(guard, AUDIT_PREFIX, strlen(AUDIT_PREFIX)))
					fprintf(stderr, "%s: mutant '%s': guard %s names no audit script "
						"(tdaudit.lua's audits list them: tdaudit audit --help)\n",
						r->muts.v[i].where, r->muts.v[i].name, guard);
				else
					fprintf(stderr, "%s: mutant '%s': guard %s is not a test the "
						"runners list\n", r->muts.v[i].where, r->muts.v[i].name, guard);
				err = TD_FAIL(TD_EINVAL, "catalogue names unknown guards");
			}
	return err;
}

/* Whether id matches one of the n patterns. */
static int matches_any(const char *id, const char *const *pattern, size_t n)
{
	for (size_t p = 0; p < n; p++)
		if (fnmatch(pattern[p], id, 0) == 0)
			return 1;
	return 0;
}

/*
 * Keeps only the mutants whose id matches one of the patterns; a pattern
 * that matches none is refused, since a run of no mutants would report them
 * all caught, and a run of the others would not say that one was dropped.
 */
static int filter(td_mutants *m, const char *const *pattern, size_t n_pattern)
{
	size_t k = 0, n = m->n;

	for (size_t p = 0; p < n_pattern; p++) {
		size_t hits = 0;

		for (size_t i = 0; i < n; i++)
			hits += fnmatch(pattern[p], m->v[i].id, 0) == 0;
		if (hits == 0)
			return TD_FAIL(TD_EINVAL,
				       "--only '%s' matches none of the %zu mutants; tdaudit mutate "
				       "--list prints their ids (a shell pattern: add '*' to match a "
				       "prefix)",
				       pattern[p], n);
	}
	for (size_t i = 0; i < n; i++) {
		if (matches_any(m->v[i].id, pattern, n_pattern)) {
			m->v[k++] = m->v[i];
		} else {
			td_mutant_free(&m->v[i]);
		}
	}
	m->n = k;
	return 0;
}

/* Whether one of the mutant's guards matches the shell pattern. */
static int guarded_by(const td_mutant *m, const char *pattern)
{
	for (size_t g = 0; m->guards && m->guards[g]; g++)
		if (fnmatch(pattern, m->guards[g], 0) == 0)
			return 1;
	return 0;
}

/* The first of globs that matches the file of none of the mutants, else NULL. */
static const char *unmatched_glob(const td_mutants *m, char *const *globs)
{
	for (size_t g = 0; globs[g]; g++) {
		char *const one[] = {globs[g], NULL};
		size_t i = 0;

		while (i < m->n && !td_project_matches(one, m->v[i].file))
			i++;
		if (i == m->n)
			return globs[g];
	}
	return NULL;
}

/*
 * --file GLOB... and --guard TEST: keeps the mutants whose file matches one
 * of globs (as tdaudit.lua's globs match: '*' does not cross '/') and, with
 * test, that name a guard matching it. Refuses a glob that matches no
 * mutant's file and a filter that keeps nothing, as filter() does: an empty
 * listing would read as "nothing breaks it".
 */
static int filter_file_guard(td_mutants *m, char *const *globs, const char *test)
{
	const char *bad = globs ? unmatched_glob(m, globs) : NULL;
	size_t k = 0, n = m->n;

	if (bad)
		return TD_FAIL(TD_EINVAL, "--file '%s' matches the file of none of the %zu mutants "
					  "('*' does not cross '/': core/*.c, not *.c)", bad, n);
	for (size_t i = 0; i < n; i++) {
		if ((!globs || td_project_matches(globs, m->v[i].file)) &&
		    (!test || guarded_by(&m->v[i], test)))
			m->v[k++] = m->v[i];
		else
			td_mutant_free(&m->v[i]);
	}
	m->n = k;
	if (k == 0 && globs)
		return TD_FAIL(TD_EINVAL, "no mutant of a file matching --file '%s'%s names a guard "
					  "matching --guard '%s' (of %zu mutants)", globs[0],
			       globs[1] ? " or the other --file globs" : "", test, n);
	if (k == 0)
		return TD_FAIL(TD_EINVAL, "--guard '%s' is a guard of none of the %zu mutants; "
					  "--list --file GLOB shows each entry's guards", test, n);
	return 0;
}

/* --diff REV: keeps the mutants on lines changed since REV (and the stale ones). */
static int filter_diff(run_t *r, const char *rev)
{
	td_diffrange *d = NULL;
	size_t k = 0;
	int err = td_diffrange_new(&d, r->proj->root, rev);

	if (err)
		return err;
	for (size_t i = 0; i < r->muts.n; i++) {
		const td_mutant *m = &r->muts.v[i];

		if (r->res[i].outcome == TD_STALE || td_diffrange_has(d, m->file, m->line)) {
			r->muts.v[k] = r->muts.v[i];
			r->res[k++] = r->res[i];
		} else {
			td_mutant_free(&r->muts.v[i]);
		}
	}
	printf("tdaudit mutate: --diff %s: %ld changed lines, %zu of %zu mutants on them\n", rev,
	       td_diffrange_count(d), k, r->muts.n);
	r->muts.n = k;
	td_diffrange_free(d);
	return 0;
}

/*
 * --rev REV: writes REV's tree from git blobs into .tdaudit/rev/tree (no
 * checkout; only changed files rewritten) and makes it the source.
 */
static int use_rev(run_t *r, const char *rev)
{
	td_repo *repo = NULL;
	td_repo_commit info;
	char tree[4400], manifest[4400];
	int err = td_repo_open(&repo, r->proj->root);

	snprintf(tree, sizeof tree, "%s/rev/tree", r->dir);
	snprintf(manifest, sizeof manifest, "%s/rev/manifest", r->dir);
	if (!err)
		err = td_repo_commit_info(&info, repo, rev);
	if (!err)
		err = td_mkdirs(tree);
	if (!err)
		err = td_repo_materialise(NULL, repo, info.id, NULL, NULL, tree, manifest);
	if (!err) {
		snprintf(r->src, sizeof r->src, "%s", tree);
		snprintf(r->rev_id, sizeof r->rev_id, "%s", info.id);
		printf("tdaudit mutate: --rev %s: mutating %.12s %s\n", rev, info.id, info.summary);
	}
	td_repo_free(repo);
	return err;
}

int td_mutate_shard_of(const char *id, int n)
{
	uint64_t h = td_fnv1a64(TD_FNV1A64_OFFSET, id, strlen(id));

	return n > 0 ? (int)(h % (uint64_t)n) + 1 : 1;
}

/* Continues h over s and its terminating NUL (so "ab","c" differs from "a","bc"). */
static uint64_t hash_str(uint64_t h, const char *s)
{
	return td_fnv1a64(h, s ? s : "", s ? strlen(s) + 1 : 1);
}

/*
 * The fingerprint of the selected mutants, into r->catalogue: the sum of
 * one FNV-1a hash per mutant over its id, file, edit, occurrence and guards
 * (a sum: independent of the catalogues' order), then the count. Numbers
 * are hashed as decimal text, so every machine of a CI matrix computes the
 * same fingerprint whatever its byte order or word size. Every shard of
 * one run computes it before --shard, so two shards agree on it exactly
 * when they partitioned the same mutants.
 */
static void fingerprint(run_t *r)
{
	uint64_t sum = 0, h;
	char num[48];

	for (size_t i = 0; i < r->muts.n; i++) {
		const td_mutant *m = &r->muts.v[i];

		h = hash_str(hash_str(TD_FNV1A64_OFFSET, m->id), m->file);
		h = hash_str(hash_str(h, m->find), m->replace);
		snprintf(num, sizeof num, "%d", m->occurrence);
		h = hash_str(h, num);
		for (size_t g = 0; m->guards && m->guards[g]; g++)
			h = hash_str(h, m->guards[g]);
		sum += h;
	}
	snprintf(num, sizeof num, "%llu %zu", (unsigned long long)sum, r->muts.n);
	h = hash_str(TD_FNV1A64_OFFSET, num);
	snprintf(r->catalogue, sizeof r->catalogue, "%016llx", (unsigned long long)h);
}

/* --shard K/N: keeps the mutants of shard K (stale and equivalent ones too, so each is reported once). */
static void filter_shard(run_t *r, int k, int n)
{
	size_t kept = 0, all = r->muts.n;

	for (size_t i = 0; i < all; i++) {
		if (td_mutate_shard_of(r->muts.v[i].id, n) == k) {
			r->muts.v[kept] = r->muts.v[i];
			r->res[kept++] = r->res[i];
		} else {
			td_mutant_free(&r->muts.v[i]);
		}
	}
	r->muts.n = kept;
	if (!r->opts->list)
		printf("tdaudit mutate: --shard %d/%d: %zu of %zu mutants\n", k, n, kept, all);
}

/* .tdaudit/ with its own .gitignore, so git never shows it; one run at a time. */
static int claim_dir(run_t *r, int *lock_fd)
{
	char p[4400];
	int err = td_testrun_state_dir(r->dir, sizeof r->dir, r->proj->root);

	snprintf(p, sizeof p, "%s/logs", r->dir);
	if (!err)
		err = td_mkdirs(p);
	snprintf(p, sizeof p, "%s/work", r->dir);
	if (!err)
		err = td_mkdirs(p);
	if (!err)
		err = td_testrun_ignore_dir(r->proj->root);
	if (err)
		return err;
	snprintf(p, sizeof p, "%s/lock", r->dir);
	*lock_fd = open(p, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
	if (*lock_fd < 0 || flock(*lock_fd, LOCK_EX | LOCK_NB) != 0)
		return TD_FAIL(TD_ESTATE, "another tdaudit run holds %s; wait for it to finish", p);
	return td_testrun_reap_dead(r->dir);
}

static int n_jobs(run_t *r)
{
	long cores = sysconf(_SC_NPROCESSORS_ONLN);
	size_t todo = 0;
	int j = r->opts->jobs > 0 ? r->opts->jobs : (int)(cores > 0 ? cores : 1);

	for (size_t i = 0; i < r->muts.n; i++)
		todo += !r->res[i].settled;
	r->todo = todo;
	if ((size_t)j > todo)
		j = todo ? (int)todo : 1;
	return j > 64 ? 64 : j;
}

/*
 * --list: id, file:line, operator, state; with --file or --guard also the
 * guards, comma-separated ("any test" for a generated mutant without any).
 */
static void list_mutants(const run_t *r)
{
	int guards = r->opts->files || r->opts->guard;

	for (size_t i = 0; i < r->muts.n; i++) {
		const td_mutant *m = &r->muts.v[i];

		printf("%s\t%s:%d\t%s\t%s", m->id, m->file, m->line, m->op,
		       r->res[i].settled ? td_outcome_name((enum td_outcome)r->res[i].outcome) : "runnable");
		for (size_t g = 0; guards && m->guards && m->guards[g]; g++)
			printf("%c%s", g ? ',' : '\t', m->guards[g]);
		if (guards && !m->guards)
			printf("\tany test");
		putchar('\n');
	}
}

/* The compilers whose -Werror a mutation run turns off, where a build runs them by name. */
static const char *const compilers[] = {"cc", "gcc", "clang", "c++", "g++", "clang++", NULL};

/* The first executable dir/name of the PATH list path, other than in skip; 0 if none. */
/* The file that marks a directory of no_werror()'s shims. */
#define SHIM_MARK ".tdaudit-nowerror"

/*
 * The first executable dir/name of the PATH list path, in no directory of
 * shims (one of a run this one runs under, say: the real compiler is what
 * a shim must run); 0 if none.
 */
static int on_path(char *out, size_t size, const char *path, const char *name)
{
	size_t n;

	for (const char *p = path; p && *p; p += n + (p[n] == ':')) {
		n = strcspn(p, ":");
		snprintf(out, size, "%.*s/" SHIM_MARK, (int)n, p);
		if (n == 0 || access(out, F_OK) == 0)
			continue;
		snprintf(out, size, "%.*s/%s", (int)n, p, name);
		if (access(out, X_OK) == 0)
			return 1;
	}
	return 0;
}

/*
 * The variable that tells every shim (below) on PATH to keep -Werror: a
 * mutate run with --keep-werror sets it to "keep", one without unsets it,
 * for the builds and tests it runs, which may run tdaudit in turn.
 */
#define WERROR_ENV "TDAUDIT_WERROR"

/*
 * Mutants build without -Werror: a warning a mutant provokes makes it no
 * less a mutant. For each compiler on PATH, a shim in STATE/nowerror/ runs
 * it with -Wno-error last, and that directory goes first on PATH (the old
 * one is kept in *old_path, which the caller restores and frees). A build
 * that runs its compiler by path keeps its flags. Each shim runs the real
 * compiler, never another run's shim. With --keep-werror, no shim, and
 * TDAUDIT_WERROR=keep makes those of a run this one runs under pass the
 * flags through.
 */
static int no_werror(run_t *r, char **old_path)
{
	char dir[4400], shim[4500], real[4500], script[9300], names[128] = "", *path;
	const char *old = getenv("PATH");
	int err;

	if (r->opts->keep_werror)
		return setenv(WERROR_ENV, "keep", 1) ? TD_FAIL(TD_EIO, "cannot set %s: %s",
							       WERROR_ENV, strerror(errno))
						      : 0;
	unsetenv(WERROR_ENV);
	snprintf(dir, sizeof dir, "%s/nowerror", r->dir);
	snprintf(shim, sizeof shim, "%s/" SHIM_MARK, dir);
	if (!(err = td_mkdirs(dir)))
		err = td_file_write_atomic(shim, "", 0, 0644);
	for (size_t i = 0; compilers[i] && !err; i++) {
		if (!on_path(real, sizeof real, old, compilers[i]) || strchr(real, '\''))
			continue;
		snprintf(shim, sizeof shim, "%s/%s", dir, compilers[i]);
		snprintf(script, sizeof script, "#!/bin/sh\n# tdaudit mutate: mutants build without "
						 "-Werror (docs/mutate.md)\n"
						 "[ \"$" WERROR_ENV "\" = keep ] && exec '%s' \"$@\"\n"
						 "exec '%s' \"$@\" -Wno-error\n",
			 real, real);
		err = td_file_write_atomic(shim, script, strlen(script), 0755);
		snprintf(names + strlen(names), sizeof names - strlen(names), "%s%s",
			 names[0] ? ", " : "", compilers[i]);
	}
	if (err)
		return err;
	*old_path = strdup(old ? old : "");
	path = malloc(strlen(dir) + strlen(old ? old : "") + 2);
	if (!*old_path || !path) {
		free(path);
		return TD_FAIL(TD_ENOMEM, "out of memory");
	}
	sprintf(path, "%s%s%s", dir, old && *old ? ":" : "", old ? old : "");
	err = setenv("PATH", path, 1) ? TD_FAIL(TD_EIO, "cannot set PATH: %s", strerror(errno)) : 0;
	free(path);
	if (!err)
		printf("tdaudit mutate: mutants build without -Werror: -Wno-error follows the flags of "
		       "every %s the build runs by name (--keep-werror keeps them)\n",
		       names[0] ? names : "(no compiler found on PATH)");
	return err;
}

/* The reports and the ledger can be written: checked before any build. */
static int preflight(const run_t *r)
{
	int err = 0;

	if (r->opts->json)
		err = td_file_check_writable(r->opts->json);
	if (!err && r->opts->junit)
		err = td_file_check_writable(r->opts->junit);
	return err ? err : td_record_check(r->proj);
}

/* The steps after loading: workers, baseline, mutants. */
static int execute(run_t *r, worker_t *ws, int jobs)
{
	int err;

	for (int i = 0; i < jobs; i++) {
		ws[i].run = r;
		ws[i].id = i;
		snprintf(ws[i].tree, sizeof ws[i].tree, "%s/work/%d", r->dir, i);
		snprintf(ws[i].log, sizeof ws[i].log, "%s/logs/worker-%d.log", r->dir, i);
	}
	if ((err = td_testrun_run_logs(r->logs, sizeof r->logs, r->dir)))
		return err;
	printf("tdaudit mutate: %zu mutants, %d worker%s; syncing and building scratch trees in %s\n",
	       r->muts.n, jobs, jobs == 1 ? "" : "s", r->dir);
	td_testrun_say_confinement("mutate", r->proj);
	err = run_threads(ws, jobs, worker_prepare);
	for (int k = 0; !err && k < r->proj->n_runners; k++)
		err = list_tests(r, k, ws[0].tree, ws[0].log);
	if (!err)
		err = check_test_names(r);
	if (!err)
		err = list_audits(r);
	if (!err)
		err = check_guards(r);
	if (!err)
		err = baseline(r, &ws[0]);
	if (err)
		return err;
	printf("tdaudit mutate: baseline green: %zu tests\n", r->n_tests);
	fflush(stdout);
	r->t0 = now();
	if (r->opts->schemata)
		err = plan_schemata(r);
	if (!err && r->n_groups)
		err = run_threads(ws, jobs, worker_schemata);
	if (!err && r->opts->schemata) {
		size_t alone = 0;

		for (size_t a = 0; a < r->n_alone; a++)
			alone += r->alone[a].n;
		printf("tdaudit mutate: schemata: %zu mutant%s judged in %zu schema build%s (%zu "
		       "reached by no test unmutated%s), %zu generated mutant%s to build one by one",
		       r->schema_judged, r->schema_judged == 1 ? "" : "s", r->schema_builds,
		       r->schema_builds == 1 ? "" : "s", r->schema_unreached,
		       r->opts->run_unreached ? ", run all the same" : ": no-coverage, nothing run",
		       alone, alone == 1 ? "" : "s");
		print_alone(r);
		printf("\n");
		fflush(stdout);
	}
	return err ? err : run_threads(ws, jobs, worker_main);
}

/* Writes the finished run to the ledger (record.h), with its shard, fingerprint and tests. */
static int record(const run_t *r, int status)
{
	td_record_mutation_info x = {r->opts->shard_k, r->opts->shard_n, r->catalogue, r->opts->cold,
				     NULL};
	char **tests = NULL;
	int err = 0;

	for (size_t i = 0; !err && i < r->n_tests; i++)
		err = td_strv_push(&tests, r->tests[i].name);
	x.tests = tests;
	if (!err)
		err = td_record_mutation_run(r->proj, r->opts->command, r->rev_id[0] ? r->rev_id : NULL,
					     &r->muts, r->res, status, &x);
	td_strv_free(tests);
	return err;
}

int td_mutate_list_tests(char ***names, td_project *proj)
{
	td_mutate_opts opts = {0};
	run_t r = {.opts = &opts, .proj = proj, .mu = PTHREAD_MUTEX_INITIALIZER};
	worker_t w = {.run = &r};
	int err, lock_fd = -1;

	*names = NULL;
	snprintf(r.src, sizeof r.src, "%s", proj->root); /* the tree to list: the working tree */
	err = claim_dir(&r, &lock_fd);
	snprintf(w.tree, sizeof w.tree, "%s/work/0", r.dir);
	snprintf(w.log, sizeof w.log, "%s/logs/worker-0.log", r.dir);
	if (!err) {
		worker_prepare(&w);
		err = w.err;
	}
	for (int k = 0; !err && k < proj->n_runners; k++)
		err = list_tests(&r, k, w.tree, w.log);
	for (size_t i = 0; i < r.n_tests; i++) {
		if (!err)
			err = td_strv_push(names, r.tests[i].name);
		free(r.tests[i].name);
	}
	free(r.tests);
	if (lock_fd >= 0)
		close(lock_fd);
	return err;
}

/*
 * --sanitize: the variant it builds with (--variant's, else "sanitize"),
 * with the sanitizers' options added to its environment (sanitize.h).
 * Refused, with an example declaration, when tdaudit.lua declares no
 * variant "sanitize" and --variant names none.
 */
static int sanitize_variant(run_t *r)
{
	td_project *p = r->proj;
	int v = td_project_variant(p, r->opts->variant ? r->opts->variant : "sanitize"), err;

	if (v < 0 && !r->opts->variant)
		return TD_FAIL(TD_EINVAL, "--sanitize builds with the variant \"sanitize\", and "
					  "tdaudit.lua declares none; declare how your project builds "
					  "with the sanitizers, e.g. %s (or name another with --variant; "
					  "docs/mutate.md)", TD_SANITIZE_EXAMPLE);
	if (v < 0) {
		td_variant_set vs; /* for its message, which lists the variants */

		return td_variant_pick(&vs, p, (char *const[]){(char *)r->opts->variant, NULL}, NULL);
	}
	p->active = v;
	err = td_sanitize_env(p, v);
	if (!err) /* with the sanitizers' options, which the ledger records too */
		td_variant_say("mutate", p, v, "--sanitize");
	return err;
}

/*
 * The build variant every mutant is built with: --variant's, else the one
 * the mutated commit (--rev, else HEAD) is chosen for (variant.h); printed
 * in the run's header when tdaudit.lua declares variants. --sanitize's
 * is sanitize_variant's.
 */
static int choose_variant(run_t *r)
{
	td_project *p = r->proj;
	char why[512] = "";
	int v = 0, err = 0, chosen = 0;

	if (r->opts->sanitize)
		return sanitize_variant(r);
	for (int i = 1; i < p->n_variants; i++)
		chosen |= p->variants[i].before || p->variants[i].since || p->variants[i].range;
	if (r->opts->variant && (v = td_project_variant(p, r->opts->variant)) < 0) {
		td_variant_set vs; /* for its message, which lists the variants */

		return td_variant_pick(&vs, p, (char *const[]){(char *)r->opts->variant, NULL}, NULL);
	}
	if (!r->opts->variant && chosen) {
		td_repo *repo = NULL;
		td_repo_commit c;

		err = td_repo_open(&repo, p->root);
		if (!err)
			err = td_repo_commit_info(&c, repo, r->rev_id[0] ? r->rev_id : "HEAD");
		if (!err)
			err = td_variant_for_commit(&v, why, sizeof why, p, repo, &c);
		td_repo_free(repo);
	}
	p->active = v;
	if (!err)
		td_variant_say("mutate", p, v, why);
	return err;
}

/*
 * --ledger DB: the run is recorded there instead of in the ledger tdaudit.lua
 * names. A relative DB is taken from the current directory, as a user typing
 * it means, not from the repository root.
 */
static int use_ledger(td_project *p, const char *db)
{
	char cwd[4096], *path;

	if (!db[0])
		return TD_FAIL(TD_EINVAL, "--ledger needs a file name");
	if (db[0] != '/' && !getcwd(cwd, sizeof cwd))
		return TD_FAIL(TD_EIO, "cannot read the current directory for --ledger %s", db);
	if (db[0] == '/')
		path = strdup(db);
	else if (asprintf(&path, "%s/%s", cwd, db) < 0)
		path = NULL;
	if (!path)
		return TD_FAIL(TD_ENOMEM, "out of memory");
	free(p->ledger);
	p->ledger = path;
	return 0;
}

int td_mutate(const char *root, const td_mutate_opts *opts)
{
	run_t r = {.opts = opts, .mu = PTHREAD_MUTEX_INITIALIZER};
	worker_t ws[64] = {{0}};
	char *old_path = NULL, *old_werror = NULL;
	int err, lock_fd = -1, status = 2, jobs;

	err = td_project_load(&r.proj, root);
	if (!err && opts->ledger)
		err = use_ledger(r.proj, opts->ledger);
	if (!err && opts->rev && opts->diff)
		err = TD_FAIL(TD_EINVAL, "--rev and --diff do not combine: --diff compares the working "
					 "tree with a revision; give one of them");
	if (!err && opts->schemata && opts->cold)
		err = TD_FAIL(TD_EINVAL, "--schemata and --cold do not combine: --cold builds every "
					 "mutant from a fresh copy; give one of them");
	if (!err && opts->run_unreached && !opts->schemata)
		err = TD_FAIL(TD_EINVAL, "--run-unreached needs --schemata: only a schema build "
					 "records which tests reach a mutant");
	snprintf(r.src, sizeof r.src, "%s", r.proj ? r.proj->root : "");
	if (!err && opts->rev)
		err = claim_dir(&r, &lock_fd);
	if (!err && opts->rev) /* before the catalogues: generate {} reads REV's files */
		err = use_rev(&r, opts->rev);
	if (!err)
		err = td_catalogue_load_at(&r.muts, r.proj->root, r.src,
					   opts->catalogues ? opts->catalogues : r.proj->catalogues);
	if (!err && opts->survivors)
		err = td_survivors_keep(&r.muts, r.proj);
	if (!err && opts->survivors && r.muts.n == 0) { /* said why; nothing to run, nothing to record */
		status = 0;
		goto done;
	}
	if (!err && opts->n_only)
		err = filter(&r.muts, opts->only, opts->n_only);
	if (!err && opts->guard && !opts->list)
		err = TD_FAIL(TD_EINVAL, "--guard only lists (with --list): to run what a test "
					 "guards, give the ids --list --guard prints to --only");
	if (!err && (opts->files || opts->guard))
		err = filter_file_guard(&r.muts, opts->files, opts->guard);
	if (!err && !(r.res = calloc(r.muts.n + 1, sizeof *r.res)))
		err = TD_FAIL(TD_ENOMEM, "out of memory");
	if (!err)
		err = locate_all(&r);
	if (!err && opts->diff)
		err = filter_diff(&r, opts->diff);
	if (!err)
		fingerprint(&r);
	if (!err && opts->shard_n)
		filter_shard(&r, opts->shard_k, opts->shard_n);
	if (!err && opts->list) {
		list_mutants(&r);
		status = 0;
		goto done;
	}
	if (!err && lock_fd < 0)
		err = claim_dir(&r, &lock_fd);
	if (!err)
		err = choose_variant(&r);
	if (!err) {
		const char *w = getenv(WERROR_ENV);

		old_werror = w ? strdup(w) : NULL;
		err = no_werror(&r, &old_path);
	}
	if (!err) /* what the end of the run writes, checked before the run */
		err = preflight(&r);
	jobs = err ? 0 : n_jobs(&r);
	if (!err)
		err = execute(&r, ws, jobs);
	if (!err) {
		td_report_isolation iso = {r.proj->confine && td_confine_abi(NULL) > 0,
					   td_testrun_unconfined_runs(), r.resynced};

		status = td_report_all(&r.muts, r.res, opts->json, opts->junit, opts->color,
				       opts->fail_under, &iso);
	}
	if (!err && r.reruns)
		printf("%zu test run%s timed out and ran again with twice the limit (a timeout "
		       "counts only when the second run also runs out of time)\n",
		       r.reruns, r.reruns == 1 ? "" : "s");
	if (!err && record(&r, status) != 0) {
		fprintf(stderr, "tdaudit mutate: the run is not in the ledger: %s\n", td_error_last());
		status = 2;
	}
done:
	if (err)
		fprintf(stderr, "tdaudit mutate: %s\n", td_error_last());
	if (lock_fd >= 0)
		close(lock_fd);
	if (old_path) /* the shims of no_werror() off PATH again */
		setenv("PATH", old_path, 1);
	if (old_werror)
		setenv(WERROR_ENV, old_werror, 1);
	else
		unsetenv(WERROR_ENV);
	free(old_path);
	free(old_werror);
	for (size_t i = 0; r.res && i < r.muts.n; i++)
		td_strv_free(r.res[i].killers);
	free(r.res);
	for (size_t i = 0; i < r.n_tests; i++)
		free(r.tests[i].name), free(r.tests[i].script);
	free(r.tests);
	for (size_t g = 0; g < r.n_groups; g++)
		free(r.groups[g].idx);
	free(r.groups);
	td_mutants_free(&r.muts);
	td_project_free(r.proj);
	return status;
}
