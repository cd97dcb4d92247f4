/*
 * bisect.c - tdaudit bisect (see bisect.h).
 *
 * One array of states, oldest commit first; lo is the newest commit known
 * to show the old outcome (or the good end, assumed), hi the oldest known
 * to show the new one (the bad end, tried first). Each step tries the
 * untried, buildable commit nearest the middle of (lo, hi).
 *
 * The result (found, or ambiguous) is written to the ledger as one run at
 * the end, so the ledger's write lock is never held during a build.
 *
 * Must never write outside root/.tdaudit/, never count a commit that did
 * not build as either outcome, and never judge a commit by another's
 * build: when a compiled file differs from the state the tree held and
 * the build writes nothing, the run stops (the tree's state is kept in
 * history/held across runs, beside its manifest).
 */
#define _GNU_SOURCE
#include "bisect.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../base/error.h"
#include "../base/fileio.h"
#include "../ledger/ledger.h"
#include "commands.h"
#include "project.h"
#include "record.h"
#include "repo.h"
#include "../base/strv.h"
#include "testrun.h"
#include "variant.h"

enum { UNTRIED, PASSES, FAILS, SKIPPED };

typedef struct {
	const td_bisect_opts *opts;
	td_project *proj;
	td_repo *repo;
	char **chain;  /* commit ids, oldest first */
	char tests_at[41]; /* --tests-at's commit id, or "" */
	int *state;    /* one per commit */
	size_t n, builds;
	char dir[4200], tree[4300], manifest[4300], held[4300], blog[4600], tlog[4600];
	char held_id[41]; /* the commit the tree holds, from this run or the last; "" unknown */
	char logs[4400]; /* this run's directory of logs (td_testrun_run_logs) */
	int variant;     /* --variant's index; -1: chosen per commit (variant.h) */
	int used[TD_PROJECT_MAX_VARIANTS]; /* builds per variant, fallbacks included */
	size_t fallbacks; /* commits built with a variant's fallback */
} bs_run;

/*
 * Builds the commit just written under variant v, and under v's fallback
 * when it names one and v's build fails (said and counted). *built gets the
 * variant that built it, or v when none did.
 */
static int build(int *ok, int *built, bs_run *r, int v, td_proc_result *pr)
{
	td_project *p = r->proj;
	int fb = p->variants[v].fallback, err;

	p->active = *built = v;
	err = td_testrun_build(ok, pr, p, r->tree, r->blog);
	r->builds++;
	r->used[v]++;
	if (err || *ok || fb < 0)
		return err;
	p->active = fb;
	err = td_testrun_build(ok, pr, p, r->tree, r->blog);
	r->builds++;
	r->used[fb]++;
	if (!err && *ok) {
		*built = fb;
		r->fallbacks++;
	}
	return err;
}

/*
 * Into code, a compiled file (td_testrun_compiled) that differs between
 * the commit the tree held and commit i, among the files written from
 * commit i (with --tests-at, the tests are not); "" when there is none,
 * or when what the tree held is unknown or no longer in the repository.
 */
static void changed_code(char *code, size_t size, bs_run *r, size_t i)
{
	char **changed = NULL;

	code[0] = '\0';
	if (!r->held_id[0] || td_repo_changed(&changed, r->repo, r->held_id, r->chain[i]) != 0)
		return;
	for (size_t k = 0; changed && changed[k] && !code[0]; k++)
		if (td_testrun_compiled(changed[k]) &&
		    !(r->tests_at[0] && td_project_matches(r->proj->tests, changed[k])))
			snprintf(code, size, "%s", changed[k]);
	td_strv_free(changed);
}

/* The tree now holds commit i: in r and in history/held, for the next run. */
static int hold(bs_run *r, size_t i)
{
	snprintf(r->held_id, sizeof r->held_id, "%s", r->chain[i]);
	return td_file_write_atomic(r->held, r->held_id, strlen(r->held_id), 0644);
}

/* Commit i's build wrote no file though code changed: its test would run another commit's build. */
static int not_rebuilt(const bs_run *r, const td_repo_commit *info, const char *code)
{
	printf("  tried %s: the build wrote no file\n", info->short_id);
	return TD_FAIL(TD_ESTATE, "the build of %s wrote no file though %s differs from the "
				  "commit built before it, so its test would run that commit's "
				  "build: the build does not notice the change (a header no rule "
				  "names as a dependency: name it, or make the build a clean one, "
				  "make -B); see %s",
		       info->short_id, code, r->blog);
}

/* Builds commit i and runs the guard once; sets r->state[i] and prints it. */
static int try_commit(bs_run *r, size_t i)
{
	td_repo_commit info;
	enum td_test_result res = TD_TEST_FAIL;
	td_proc_result pr;
	int ok = 0, runner = -1, v = r->variant, built = 0;
	char why[512] = "", tag[200] = "", code[4096] = "";
	uint64_t s0 = 0, s1 = 0;
	size_t n = 0;
	int err = td_repo_commit_info(&info, r->repo, r->chain[i]);

	if (!err && v < 0)
		err = td_variant_for_commit(&v, why, sizeof why, r->proj, r->repo, &info);

	if (!err) {
		snprintf(r->blog, sizeof r->blog, "%s/%s-build.log", r->logs, info.short_id);
		snprintf(r->tlog, sizeof r->tlog, "%s/%s-test.log", r->logs, info.short_id);
		err = td_repo_materialise(&n, r->repo, r->chain[i], r->tests_at[0] ? r->tests_at : NULL,
					  r->proj->tests, r->tree, r->manifest);
	}
	if (!err && n)
		changed_code(code, sizeof code, r, i);
	if (!err)
		err = hold(r, i);
	if (!err && code[0])
		err = td_testrun_tree_stamp(&s0, r->tree);
	if (!err)
		err = build(&ok, &built, r, v, &pr);
	if (!err && ok && code[0] && !(err = td_testrun_tree_stamp(&s1, r->tree)) && s0 == s1)
		return not_rebuilt(r, &info, code);
	if (!err && ok)
		err = td_testrun_find_runner(&runner, r->proj, r->opts->guard, r->tree, r->tlog);
	if (!err && ok)
		err = td_testrun_one(&res, &pr, r->proj, runner < 0 ? 0 : runner, r->opts->guard, r->tree,
				     r->tlog, r->opts->timeout > 0 ? r->opts->timeout : r->proj->timeout_build);
	if (err)
		return err;
	r->state[i] = !ok ? SKIPPED : res == TD_TEST_PASS ? PASSES : FAILS;
	if (r->proj->n_variants > 1 && built != v)
		snprintf(tag, sizeof tag, " [variant %s, built with its fallback %s]",
			 r->proj->variants[v].name, r->proj->variants[built].name);
	else if (r->proj->n_variants > 1)
		snprintf(tag, sizeof tag, " [variant %s%s]", r->proj->variants[v].name,
			 why[0] ? ", chosen by date or range" : "");
	printf("  tried %s (%zu of %zu) %-40.40s  %s%s%s\n", info.short_id, i + 1, r->n, info.summary,
	       !ok ? "does not build: skipped" : td_test_result_name(res),
	       ok && runner < 0 ? " (no runner lists it here)" : "", tag);
	return 0;
}

/* The untried, unskipped commit in (lo, hi) nearest the middle, or 0 if none. */
static size_t pick(const bs_run *r, size_t lo, size_t hi)
{
	size_t mid = lo + (hi - lo) / 2;

	for (size_t d = 0; d <= (hi - lo) / 2 + 1; d++) {
		if (mid + d < hi && mid + d > lo && r->state[mid + d] == UNTRIED)
			return mid + d;
		if (mid >= d && mid - d > lo && mid - d < hi && r->state[mid - d] == UNTRIED)
			return mid - d;
	}
	return 0;
}

/* Which outcome the search looks for, from the bad end; exit status 0 or 2. */
static int direction(int *want, const bs_run *r)
{
	const char *mode = r->opts->find == TD_BISECT_FIX ? "fix" : "regression";
	int at_bad = r->state[r->n - 1];

	if (at_bad == SKIPPED) {
		fprintf(stderr, "tdaudit bisect: the bad end %.12s does not build; see %s\n",
			r->chain[r->n - 1], r->blog);
		return 2;
	}
	if ((r->opts->find == TD_BISECT_FIX && at_bad != PASSES) ||
	    (r->opts->find == TD_BISECT_REGRESSION && at_bad != FAILS)) {
		fprintf(stderr, "tdaudit bisect: --find %s needs %s to %s at the bad end %.12s, but it "
				"%s there; see %s\n", mode, r->opts->guard,
			at_bad == PASSES ? "fail" : "pass", r->chain[r->n - 1],
			at_bad == PASSES ? "passes" : "fails", r->tlog);
		return 2;
	}
	*want = at_bad;
	printf("  looking for the %s: the first commit where %s %s\n",
	       at_bad == PASSES ? "fix" : "regression", r->opts->guard,
	       at_bad == PASSES ? "passes" : "fails");
	return 0;
}

/* Binary search between lo and hi; *lo_out, *hi_out get the final pair. */
static int search(size_t *lo_out, size_t *hi_out, bs_run *r, int want)
{
	size_t lo = 0, hi = r->n - 1, mid;
	int err = 0;

	while (!err && (mid = pick(r, lo, hi)) != 0) {
		err = try_commit(r, mid);
		if (!err && r->state[mid] == want)
			hi = mid;
		else if (!err && r->state[mid] != SKIPPED)
			lo = mid;
	}
	if (!err && lo == 0 && r->state[0] == UNTRIED)
		err = try_commit(r, 0);
	*lo_out = lo, *hi_out = hi;
	return err;
}

/* Prints the answer; returns the exit status. */
static int conclude(const bs_run *r, size_t lo, size_t hi, int want)
{
	td_repo_commit info;
	size_t skipped = 0;

	if (r->state[lo] == SKIPPED) {
		fprintf(stderr, "tdaudit bisect: the good end %.12s does not build; give a --good that "
				"does (see %s)\n", r->chain[lo], r->blog);
		return 2;
	}
	if (r->state[lo] == want) {
		fprintf(stderr, "tdaudit bisect: %s %s at the good end %.12s too: no flip between the "
				"ends\n", r->opts->guard, want == PASSES ? "passes" : "fails", r->chain[lo]);
		return 2;
	}
	for (size_t i = lo + 1; i < hi; i++)
		skipped += r->state[i] == SKIPPED;
	printf("tdaudit bisect: %zu build%s for %zu commits\n", r->builds, r->builds == 1 ? "" : "s",
	       r->n);
	if (r->fallbacks)
		printf("tdaudit bisect: %zu commit%s built with a variant's fallback (marked above)\n",
		       r->fallbacks, r->fallbacks == 1 ? "" : "s");
	if (skipped) {
		printf("tdaudit bisect: the first commit where it %s is one of these (the others do "
		       "not build):\n", want == PASSES ? "passes" : "fails");
		for (size_t i = lo + 1; i <= hi; i++)
			printf("  %s\n", r->chain[i]);
		return 1;
	}
	if (td_repo_commit_info(&info, r->repo, r->chain[hi]) != 0)
		return 2;
	printf("tdaudit bisect: first commit where %s %s: %s %s\n", r->opts->guard,
	       want == PASSES ? "passes" : "fails", info.id, info.summary);
	return 0;
}

/* The commits that did not build, oldest first. Caller frees with td_strv_free. */
static int skipped_commits(char ***out, const bs_run *r)
{
	int err = 0;

	*out = NULL;
	for (size_t i = 0; !err && i < r->n; i++)
		if (r->state[i] == SKIPPED)
			err = td_strv_push(out, r->chain[i]);
	return err;
}

/*
 * Writes the result of a search that ended with exit status `status` (0:
 * chain[hi] found; 1: ambiguous) to the ledger, as one run.
 */
static int record(const bs_run *r, size_t hi, int want, int status)
{
	td_ledger_run_info info = {0};
	td_ledger_bisect b = {r->opts->guard, r->chain[0], r->chain[r->n - 1],
			      status == 0 ? r->chain[hi] : NULL, want == PASSES ? "fix" : "regression",
			      NULL, (int)r->builds, NULL, NULL, NULL};
	td_ledger *lg = NULL;
	char path[8400], head[41], **skipped = NULL, names[1024] = "", build[2048], env[1024];
	int dirty = 0, err, n_used = 0, one = 0;

	for (int v = 0; v < r->proj->n_variants; v++)
		if (r->used[v]) {
			size_t k = strlen(names);

			snprintf(names + k, sizeof names - k, "%s%s", n_used++ ? "," : "",
				 r->proj->variants[v].name);
			one = v;
		}
	b.variant = names;
	if (n_used == 1) { /* one build line for the whole search: recorded with it */
		char **argv = NULL;

		if (td_variant_argv(&argv, r->proj, one) == 0) {
			td_proc_argv_string((const char *const *)argv, build, sizeof build);
			b.build = build;
		}
		td_strv_free(argv);
		b.build_env = td_variant_env_string(env, sizeof env, r->proj, one);
		info.variant = names, info.build = b.build, info.build_env = b.build_env;
	}

	td_record_ledger_path(path, sizeof path, r->proj);
	err = td_repo_head(head, &dirty, r->proj->root);
	info.command = r->opts->command ? r->opts->command : "tdaudit bisect";
	info.head_commit = head;
	info.dirty = dirty;
	info.tool_version = TDAUDIT_VERSION;
	if (!err)
		err = skipped_commits(&skipped, r);
	b.skipped = skipped;
	if (!err)
		err = td_ledger_open(&lg, path, TD_LEDGER_CREATE);
	if (!err)
		err = td_ledger_run_begin(lg, &info);
	if (!err)
		err = td_ledger_put_bisect(lg, &b);
	if (!err)
		err = td_ledger_run_finish(lg, status == 0 ? "ok" : "findings");
	if (!err)
		printf("tdaudit bisect: recorded in %s\n", r->proj->ledger);
	td_ledger_free(lg);
	td_strv_free(skipped);
	return err;
}

/* Resolves --tests-at, when given; says what it holds. */
static int load_tests_at(bs_run *r)
{
	td_repo_commit at;
	int err;

	if (!r->opts->tests_at)
		return 0;
	if (!r->proj->tests)
		return TD_FAIL(TD_EINVAL, "--tests-at needs to know which files are tests: give "
					  "tdaudit.lua a tests setting (tests { \"tests/*.c\" })");
	if ((err = td_repo_commit_info(&at, r->repo, r->opts->tests_at)))
		return err;
	snprintf(r->tests_at, sizeof r->tests_at, "%s", at.id);
	printf("  every commit tried gets the test files as at %s %s\n", at.short_id, at.summary);
	return 0;
}

/* Resolves the ends and lists the first-parent line between them. */
static int load_range(bs_run *r)
{
	td_repo_commit bad, good;
	int err = td_repo_commit_info(&bad, r->repo, r->opts->bad ? r->opts->bad : "HEAD");

	if (!err && r->opts->good)
		err = td_repo_commit_info(&good, r->repo, r->opts->good);
	if (!err)
		err = td_repo_first_parents(&r->chain, r->repo, r->opts->good ? good.id : NULL, bad.id);
	r->n = td_strv_len(r->chain);
	if (!err && r->n < 2)
		err = TD_FAIL(TD_EINVAL, "nothing to bisect: the range %s..%s holds one commit",
			      r->opts->good ? r->opts->good : "(root)", r->opts->bad ? r->opts->bad : "HEAD");
	if (!err && !(r->state = calloc(r->n, sizeof *r->state)))
		err = TD_FAIL(TD_ENOMEM, "out of memory");
	if (!err)
		printf("tdaudit bisect: %zu commits on the first-parent line from %.7s to %.7s\n", r->n,
		       r->chain[0], r->chain[r->n - 1]);
	return err ? err : load_tests_at(r);
}

/* What the tree holds, from history/held, where its manifest says a state was written. */
static void read_held(bs_run *r)
{
	char *id = NULL;
	size_t len = 0;

	if (access(r->manifest, F_OK) == 0 && td_file_read(r->held, &id, &len) == 0 &&
	    len == 40 && strspn(id, "0123456789abcdef") == 40)
		memcpy(r->held_id, id, 41);
	free(id);
}

int td_bisect(const char *root, const td_bisect_opts *opts)
{
	bs_run r = {.opts = opts};
	int lock_fd = -1, status = 2, want = 0, err = td_project_load(&r.proj, root);
	size_t lo = 0, hi = 0;

	r.variant = -1;
	if (!err && opts->variant && (r.variant = td_project_variant(r.proj, opts->variant)) < 0) {
		td_variant_set vs; /* for its message, which lists the variants */

		err = td_variant_pick(&vs, r.proj, (char *const[]){(char *)opts->variant, NULL}, NULL);
	}
	if (!err)
		err = td_repo_open(&r.repo, r.proj->root);
	if (!err)
		err = td_testrun_claim(&lock_fd, r.dir, sizeof r.dir, r.proj->root, "history");
	if (!err) {
		td_testrun_say_confinement("bisect", r.proj);
		td_project_say_empty_globs(r.proj, "bisect");
		snprintf(r.tree, sizeof r.tree, "%s/history/tree", r.dir);
		snprintf(r.manifest, sizeof r.manifest, "%s/history/manifest", r.dir);
		snprintf(r.held, sizeof r.held, "%s/history/held", r.dir);
		err = td_testrun_reset_if_cut("tdaudit bisect", r.tree, r.manifest);
	}
	if (!err)
		read_held(&r);
	if (!err && !(err = td_testrun_run_logs(r.logs, sizeof r.logs, r.dir)))
		printf("tdaudit bisect: logs in %s\n", r.logs);
	if (!err)
		err = load_range(&r);
	if (!err)
		err = try_commit(&r, r.n - 1);
	if (err || (status = direction(&want, &r)) != 0)
		goto done;
	err = search(&lo, &hi, &r, want);
	if (!err)
		status = conclude(&r, lo, hi, want);
	if (!err && status < 2)
		err = record(&r, hi, want, status);
done:
	if (err) {
		fprintf(stderr, "tdaudit bisect: %s\n", td_error_last());
		status = 2;
	}
	if (lock_fd >= 0)
		close(lock_fd);
	free(r.state);
	td_strv_free(r.chain);
	td_repo_free(r.repo);
	td_project_free(r.proj);
	return status;
}
