/*
 * reproduce.c - tdaudit reproduce (see reproduce.h for what it decides).
 *
 * The order for one commit: resolve it and its first parent; split what it
 * changed into tests and non-tests; choose the tests; write the after state
 * into the scratch tree, build it, find each test's runner, run each test
 * N times; write the before state (only the files that differ are
 * rewritten), build it, run each test N times; judge; print. Results of
 * every commit go into the ledger as one run at the end, so the ledger's
 * write lock is never held during a build.
 *
 * Must never write outside root/.tdaudit/ (the history scratch tree, its
 * logs, the ledger), never check anything out into the user's repository,
 * and never read a state that did not build as a pass.
 */
#define _GNU_SOURCE
#include "reproduce.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../base/error.h"
#include "../base/grow.h"
#include "../ledger/debugmd.h"
#include "../ledger/ledger.h"
#include "commands.h"
#include "project.h"
#include "record.h"
#include "repo.h"
#include "../base/strv.h"
#include "testrun.h"
#include "variant.h"

/*
 * INFERRED: a test_ name from a changed line; INFERRED_FILE: a changed test
 * file's name; DECLARED: a test a runner's tests_of says a changed test
 * file holds.
 */
enum { CITED_GUARD, CITED_PIN, INFERRED, INFERRED_FILE, DECLARED };

typedef struct {
	char *name;
	int role;            /* CITED_GUARD, CITED_PIN, INFERRED, INFERRED_FILE or DECLARED */
	int runner;          /* index into the project's runners; -1: none lists it */
	int *before, *after; /* opts->runs outcomes each (enum td_test_result) */
	int before_built;
	const char *verdict; /* static string from td_reproduce_verdict */
	int k;
} rp_test;

typedef struct {
	char fix[41];
	rp_test *t;
	size_t n, cap;
	int variant;        /* the build variant it was judged under (index into the project's) */
	char fallback[128]; /* "before=NAME" ...: states built with the variant's fallback; "" none */
} rp_commit;



typedef struct {
	const td_reproduce_opts *opts;
	td_project *proj;
	td_repo *repo;
	td_debugmd *doc;   /* DEBUG.md, once read; NULL before */
	char **keep;       /* globs kept at the fix in the before state: the tests, plus
			      changed files that are neither tests nor sources */
	char **changed;    /* the paths the commit being reproduced changed */
	char dir[4200];    /* root/.tdaudit */
	char tree[4300], manifest[4300], tlog[4600], blog[2][4600];
	char logs[4400];   /* this run's directory of logs (td_testrun_run_logs) */
	char fix[64];      /* the short id of the fix being reproduced (and its variant): its
			      logs' prefix */
	td_variant_set vs; /* the variants to judge each fix under (--variant, --variants) */
	size_t fallbacks;  /* states built with a variant's fallback */
	rp_commit *done;   /* every commit judged, for the ledger */
	size_t n_done, cap_done;
	td_repo_commit head; /* --at-head: HEAD, the state the fix is reverted on */
} rp_run;

/* ---- verdicts ------------------------------------------------------------ */

/*
 * "pass", "fail", "timeout" when all n agree; "fail" when none passed but
 * some failed and some timed out (a timeout is a failure: on a loaded
 * machine a failing test may run past its limit); else "mixed".
 */
static const char *state_word(const int *v, int n)
{
	int passes = 0, same = 1;

	for (int i = 0; i < n; i++) {
		passes += v[i] == TD_TEST_PASS;
		same &= v[i] == v[0];
	}
	if (same)
		return td_test_result_name((enum td_test_result)v[0]);
	return passes ? "mixed" : "fail";
}

/* The verdict of one before/after pair of runs (never flaky). */
static const char *pair_verdict(int before, int before_built, int after)
{
	if (after != TD_TEST_PASS)
		return "broken";
	if (!before_built)
		return "no-build";
	return before == TD_TEST_PASS ? "pin" : "guard";
}

const char *td_reproduce_verdict(int *k, const int *before, int before_built, const int *after,
				 int n)
{
	const char *a = state_word(after, n), *v;
	int best = 0;

	if (!strcmp(a, "mixed") || (before_built && !strcmp(state_word(before, n), "mixed")))
		v = strcmp(a, "mixed") && strcmp(a, "pass") ? "broken" : "flaky";
	else
		v = pair_verdict(before[0], before_built, after[0]);
	for (int i = 0; i < n; i++) {
		int agree = 0;

		for (int j = 0; j < n; j++)
			agree += !strcmp(pair_verdict(before[i], before_built, after[i]),
					 pair_verdict(before[j], before_built, after[j]));
		if (!strcmp(pair_verdict(before[i], before_built, after[i]), v) || !strcmp(v, "flaky"))
			best = agree > best ? agree : best;
	}
	*k = best;
	return v;
}

/* ---- choosing the tests -------------------------------------------------- */

static int add_test(rp_commit *c, const char *name, int role)
{
	rp_test *t;
	int err;

	for (size_t i = 0; i < c->n; i++)
		if (!strcmp(c->t[i].name, name))
			return 0; /* cited twice: the first role stands */
	if ((err = td_grow(&c->t, &c->cap, c->n + 1, sizeof *c->t)))
		return err;
	t = c->t;
	memset(&t[c->n], 0, sizeof *t);
	t[c->n].role = role;
	t[c->n].runner = -1;
	if (!(t[c->n].name = strdup(name)))
		return TD_FAIL(TD_ENOMEM, "out of memory");
	c->n++;
	return 0;
}

static void commit_free(rp_commit *c)
{
	for (size_t i = 0; i < c->n; i++) {
		free(c->t[i].name);
		free(c->t[i].before);
		free(c->t[i].after);
	}
	free(c->t);
}

/*
 * Reads root/DEBUG.md once. When it is missing: TD_EIO if required (--all
 * has nothing else to go on), else 0 with r->doc left NULL.
 */
static int load_doc(rp_run *r, int required)
{
	char path[4200];
	int err;

	if (r->doc)
		return 0;
	snprintf(path, sizeof path, "%s/DEBUG.md", r->proj->root);
	if (access(path, F_OK) != 0)
		return required ? TD_FAIL(TD_EIO, "no DEBUG.md at %s, so no finding names a fix "
						  "commit to reproduce; give one COMMIT, or write DEBUG.md",
					  r->proj->root)
				: 0;
	err = td_debugmd_parse_file(&r->doc, path);
	for (size_t i = 0; !err && i < r->doc->problems.n; i++)
		fprintf(stderr, "tdaudit reproduce: warning: DEBUG.md:%d: %s\n",
			r->doc->problems.v[i].line, r->doc->problems.v[i].msg);
	return err;
}

/* Adds finding f's guards and pins; *n_added counts them. */
static int add_cited(rp_commit *c, const td_debugmd_finding *f, size_t *n_added)
{
	int err = 0;

	for (size_t i = 0; !err && i < f->n_guards; i++)
		err = add_test(c, f->guards[i].name, CITED_GUARD);
	for (size_t i = 0; !err && i < f->n_pins; i++)
		err = add_test(c, f->pins[i].name, CITED_PIN);
	*n_added += f->n_guards + f->n_pins;
	return err;
}

/*
 * The tests each test file the commit added or changed holds: those a
 * runner's tests_of declares for it (one test.c building two programs),
 * else the file's name less its directory and extension: where every test
 * file is a test of its own (ctest's add_test per file, a Makefile's test
 * binaries), that name is the test the runner lists (tests/misc_tests.c ->
 * misc_tests).
 */
static int add_file_names(rp_run *r, rp_commit *c)
{
	char **changed = r->changed, name[256];
	int err = 0;

	for (size_t i = 0; !err && changed && changed[i]; i++) {
		const char *slash = strrchr(changed[i], '/'), *base = slash ? slash + 1 : changed[i];
		const char *dot = strrchr(base, '.');
		const size_t len = dot ? (size_t)(dot - base) : strlen(base);
		char **declared = NULL;
		int any = 0, hit;

		if (!td_project_matches(r->proj->tests, changed[i]))
			continue;
		for (int k = 0; !err && k < r->proj->n_runners; k++) {
			err = td_runner_tests_of(&declared, &hit, &r->proj->runners[k], changed[i]);
			any |= hit;
		}
		for (size_t d = 0; !err && declared && declared[d]; d++)
			err = add_test(c, declared[d], DECLARED);
		td_strv_free(declared);
		if (err || any || len == 0 || len >= sizeof name)
			continue;
		snprintf(name, sizeof name, "%.*s", (int)len, base);
		err = add_test(c, name, INFERRED_FILE);
	}
	return err;
}

/*
 * The tests for commit info: --guard, else DEBUG.md (finding f when given,
 * else every finding whose Status names the commit), else the diff: its
 * test_ names and the names of its test files (find_runners keeps those a
 * runner lists).
 */
static int choose_tests(rp_run *r, rp_commit *c, const td_repo_commit *info,
			const td_debugmd_finding *f)
{
	char **names = NULL;
	size_t cited = 0;
	int err = 0;

	for (size_t i = 0; r->opts->guards && r->opts->guards[i] && !err; i++)
		err = add_test(c, r->opts->guards[i], CITED_GUARD);
	if (err || c->n)
		return err;
	if (!f)
		err = load_doc(r, 0);
	for (size_t i = 0; !err && !f && r->doc && i < r->doc->n_findings; i++) {
		const td_debugmd_finding *g = &r->doc->findings[i];

		if (g->commit && td_ledger_commits_match(g->commit, info->id)) {
			printf("  DEBUG.md finding #%d cites this commit\n", g->number);
			err = add_cited(c, g, &cited);
		}
	}
	if (!err && f)
		err = add_cited(c, f, &cited);
	if (err || cited)
		return err;
	if (r->doc)
		printf("  DEBUG.md cites no test for it");
	else
		printf("  no DEBUG.md at %s, so no finding cites a test for it", r->proj->root);
	printf(": taking the test functions it added or changed\n");
	err = td_repo_test_functions(&names, r->repo, info->parent, info->id, r->proj->tests);
	for (size_t i = 0; !err && names && names[i]; i++)
		err = add_test(c, names[i], INFERRED);
	td_strv_free(names);
	return err ? err : add_file_names(r, c);
}

/* ---- the two states ---------------------------------------------------------- */

/*
 * With --at-head, writes a state into the scratch tree: after, HEAD as it
 * is; before, HEAD with commit fix reverted in memory (the caller has
 * checked that it reverts cleanly, see check_revert).
 */
static int write_at_head(size_t *n, rp_run *r, const char *fix, int after)
{
	td_repo_revert rv;
	int err;

	if (after)
		return td_repo_materialise(n, r->repo, r->head.id, NULL, NULL, r->tree, r->manifest);
	err = td_repo_materialise_revert(&rv, r->repo, r->head.id, fix, r->proj->tests, r->tree,
					 r->manifest);
	if (!err && (rv.conflicts || rv.unchanged))
		err = TD_FAIL(TD_ESTATE, "the revert at HEAD %.7s changed between two reads",
			      r->head.id);
	*n = rv.n_written;
	td_strv_free(rv.conflicts);
	return err;
}

/*
 * Writes the state (base, with the tests of overlay when not NULL; with
 * --at-head see write_at_head, overlay being the fix) into the scratch
 * tree and builds it. *ok = 1 when it built.
 */
static int kind_of(const rp_run *r, const char *path);

/* The first compiled file the before state reverts (a source the fix changed), or NULL. */
static const char *reverted_code(const rp_run *r)
{
	for (size_t i = 0; r->changed && r->changed[i]; i++)
		if (kind_of(r, r->changed[i]) == 1 && td_testrun_compiled(r->changed[i]))
			return r->changed[i];
	return NULL;
}

/*
 * The before state's build, just run, wrote no file (stamps s0 and s1 of
 * the tree before and after it are equal) though the state reverts the
 * compiled file code: its tests would run the fix's build. TD_ESTATE.
 */
static int not_rebuilt(const rp_run *r, const char *code)
{
	printf("  before: the build wrote no file\n");
	return TD_FAIL(TD_ESTATE, "the build wrote no file after %s was reverted, so the tests "
				  "before the fix would run what was built with it: the build does "
				  "not notice the change (a header no rule names as a dependency: name "
				  "it, or make the build a clean one, make -B) or does not compile "
				  "that file at all (a variant that does: --variant); see %s",
		       code, r->blog[0]);
}

static int build_state(int *ok, rp_run *r, rp_commit *c, const char *base, const char *overlay,
		       int after)
{
	td_project *p = r->proj;
	td_proc_result pr;
	size_t n = 0;
	char d[64];
	const char *code = after ? NULL : reverted_code(r);
	uint64_t s0 = 0, s1 = 0;
	int fb;
	int err = r->head.id[0] ? write_at_head(&n, r, overlay, after)
				: td_repo_materialise(&n, r->repo, base, overlay,
						      r->keep ? r->keep : r->proj->tests, r->tree, r->manifest);

	if (!err && code)
		err = td_testrun_tree_stamp(&s0, r->tree);
	if (err)
		return err;
	printf("  %s: %zu file%s written; building ... ", after ? "after " : "before", n,
	       n == 1 ? "" : "s");
	fflush(stdout);
	p->active = c->variant;
	err = td_testrun_build(ok, &pr, p, r->tree, r->blog[after]);
	if (!err && *ok && code && n && (err = td_testrun_tree_stamp(&s1, r->tree)) == 0 &&
	    s0 == s1) {
		printf("ok\n");
		return not_rebuilt(r, code);
	}
	if (!err)
		printf("%s\n", *ok ? "ok" : "FAILED");
	if (!err && !*ok)
		printf("  %s: the build failed (%s); see %s\n", after ? "after" : "before",
		       td_proc_describe(&pr, d, sizeof d), r->blog[after]);
	fb = p->variants[c->variant].fallback;
	if (err || *ok || fb < 0)
		return err;
	printf("  %s: building with variant %s instead, the fallback of %s (%s) ... ",
	       after ? "after " : "before", p->variants[fb].name, p->variants[c->variant].name,
	       p->variants[c->variant].where);
	fflush(stdout);
	p->active = fb; /* the state's tests run under the variant that built it */
	err = td_testrun_build(ok, &pr, p, r->tree, r->blog[after]);
	if (!err)
		printf("%s\n", *ok ? "ok" : "FAILED");
	if (!err && !*ok)
		printf("  %s: the fallback's build failed too (%s); see %s\n",
		       after ? "after" : "before", td_proc_describe(&pr, d, sizeof d), r->blog[after]);
	if (!err && *ok) {
		size_t k = strlen(c->fallback);

		snprintf(c->fallback + k, sizeof c->fallback - k, "%s%s=%s", k ? "," : "",
			 after ? "after" : "before", p->variants[fb].name);
		r->fallbacks++;
	}
	return err;
}

/* Runs every test of c opts->runs times in the state just built. */
static int run_tests(rp_run *r, rp_commit *c, int after, double limit, double *slowest)
{
	int err = 0;

	for (size_t i = 0; i < c->n && !err; i++) {
		rp_test *t = &c->t[i];
		int *out = after ? t->after : t->before;

		for (int j = 0; j < r->opts->runs && !err; j++) {
			enum td_test_result res;
			td_proc_result pr = {0};
			char name[65];

			td_testrun_file_name(name, sizeof name, t->name); /* a name may hold '/' */
			snprintf(r->tlog, sizeof r->tlog, "%s/%s-%s-%s-%d.log", r->logs, r->fix,
				 after ? "after" : "before", name, j + 1);
			err = td_testrun_one(&res, &pr, r->proj, t->runner < 0 ? 0 : t->runner, t->name,
					     r->tree, r->tlog, limit);
			out[j] = (int)res;
			*slowest = pr.seconds > *slowest ? pr.seconds : *slowest;
		}
	}
	return err;
}

/*
 * Finds each test's runner in the after state; drops inferred names no
 * runner lists. Those are any test_ words of the changed lines (a helper's
 * name, a file's named in a comment), so the message says no more than
 * that; a test file's name that no runner lists is only a file, dropped
 * without a word (the changed files are listed above).
 */
static int find_runners(rp_run *r, rp_commit *c)
{
	size_t k = 0;
	int err = 0;

	for (size_t i = 0; i < c->n && !err; i++) {
		rp_test *t = &c->t[i];

		err = td_testrun_find_runner(&t->runner, r->proj, t->name, r->tree, r->tlog);
		if (!err && t->role == INFERRED_FILE && t->runner >= 0)
			printf("  %s: a test file of that name changed, and a runner lists it as a "
			       "test\n", t->name);
		if (!err && t->role == DECLARED && t->runner >= 0)
			printf("  %s: tests_of declares it for a changed test file\n", t->name);
		if (!err && t->role == DECLARED && t->runner < 0) {
			printf("  %s: tests_of declares it for a changed test file, but no runner "
			       "lists it: skipped (check runner.tests_of in tdaudit.lua)\n",
			       t->name);
			free(t->name);
			continue;
		}
		if (!err && t->runner < 0 && t->role == INFERRED_FILE) { /* a file, not a test */
			free(t->name);
			continue;
		}
		if (!err && t->runner < 0 && t->role == INFERRED) {
			printf("  %s: no runner lists this name from a changed line: not a test, "
			       "skipped\n",
			       t->name);
			free(t->name);
			continue;
		}
		if (!err && t->runner < 0 && r->opts->guards)
			err = TD_FAIL(TD_EINVAL, "--guard %s: no runner lists a test of that name at %s; "
						 "give a name the runner's list prints",
				      t->name, r->head.id[0] ? "HEAD" : "the fix");
		if (!err && t->runner < 0)
			printf("  %s: no runner lists it at %s; running it anyway\n", t->name,
			       r->head.id[0] ? "HEAD" : "the fix");
		if (!err && (!(t->before = calloc((size_t)r->opts->runs, sizeof(int))) ||
			     !(t->after = calloc((size_t)r->opts->runs, sizeof(int)))))
			err = TD_FAIL(TD_ENOMEM, "out of memory");
		c->t[k++] = *t;
	}
	c->n = k;
	return err;
}

/* ---- output ----------------------------------------------------------------- */

/* "fail 2/2", "pass 1/2" for mixed runs (the passes), "no-build". */
static const char *state_cell(char *buf, size_t size, const int *v, int n, int built)
{
	const char *w = built ? state_word(v, n) : "no-build";
	int k = 0;

	if (!built)
		return w;
	if (!strcmp(w, "mixed"))
		w = "pass";
	for (int i = 0; i < n; i++) /* "fail" counts the timeouts too */
		k += !strcmp(w, "fail") ? v[i] != TD_TEST_PASS
					: !strcmp(td_test_result_name((enum td_test_result)v[i]), w);
	snprintf(buf, size, "%s %d/%d", w, k, n);
	return buf;
}

/* The table of c's verdicts; variant (NULL: none declared) is printed on each verdict line. */
static void print_table(const rp_commit *c, int n, const char *variant)
{
	int w = 4;
	char b[64], a[64];

	for (size_t i = 0; i < c->n; i++)
		w = (int)strlen(c->t[i].name) > w ? (int)strlen(c->t[i].name) : w;
	printf("\n  %-*s  %-12s  %-12s  %s%s\n", w, "test", "before", "after", "verdict",
	       variant ? "   variant" : "");
	for (size_t i = 0; i < c->n; i++) {
		const rp_test *t = &c->t[i];

		printf("  %-*s  %-12s  %-12s  %-8s%s%s%s%s%s\n", w, t->name,
		       state_cell(b, sizeof b, t->before, n, t->before_built),
		       state_cell(a, sizeof a, t->after, n, 1), t->verdict, variant ? " " : "",
		       variant ? variant : "", variant && c->fallback[0] ? " (built: " : "",
		       variant && c->fallback[0] ? c->fallback : "",
		       variant && c->fallback[0] ? ")" : "");
	}
	printf("\n");
}

static const char *why_not(const char *verdict)
{
	if (!strcmp(verdict, "pin"))
		return "it passes without the fix too: a pin, not a guard";
	if (!strcmp(verdict, "broken"))
		return "it fails with the fix: broken";
	if (!strcmp(verdict, "no-build"))
		return "the pre-fix code does not build against the new tests: no evidence (no-build)";
	if (!strcmp(verdict, "flaky"))
		return "its outcome changes between runs: flaky";
	return "it fails without the fix: a guard, not a pin";
}

/* Whether test name came earlier than (a, i) in cs: each name is judged once. */
static int seen_before(const rp_commit *cs, size_t a, size_t i, const char *name)
{
	for (size_t b = 0; b <= a; b++)
		for (size_t j = 0; j < (b == a ? i : cs[b].n); j++)
			if (!strcmp(cs[b].t[j].name, name))
				return 1;
	return 0;
}

/*
 * 0 when every claim holds, else 1, with a line per claim that does not.
 * cs holds one fix judged under nc variants: a claim holds when one variant
 * bears it out, and with more than one variant each test's verdicts are
 * printed side by side ("guard under no-decltype, pin under default").
 * unjudged names the variants asked for that could not be judged ("" none):
 * then no line says "every variant", and each test's line names them.
 */
static int check_claims(const rp_commit *cs, size_t nc, const td_project *p, const char *unjudged)
{
	const int every = !unjudged[0]; /* every variant asked for was judged */

	int status = 0, inferred = 0, inferred_guard = 0, inferred_unbuilt = 0;

	for (size_t a = 0; a < nc; a++)
		for (size_t i = 0; i < cs[a].n; i++) {
			const rp_test *t = &cs[a].t[i];
			const char *want = t->role == CITED_PIN ? "pin" : "guard";
			const int guessed = t->role == INFERRED || t->role == INFERRED_FILE ||
					    t->role == DECLARED;
			int holds = 0, guard = 0, unbuilt = 1, agree = 1;

			if (seen_before(cs, a, i, t->name))
				continue;
			for (size_t b = a; b < nc; b++)
				for (size_t j = 0; j < cs[b].n; j++) {
					const char *v = cs[b].t[j].verdict;

					if (strcmp(cs[b].t[j].name, t->name))
						continue;
					holds |= !strcmp(v, want);
					guard |= !strcmp(v, "guard");
					unbuilt &= !strcmp(v, "no-build");
					agree &= !strcmp(v, t->verdict);
				}
			if (nc > 1 && agree && every) {
				printf("  %s: %s under every variant\n", t->name, t->verdict);
			} else if (nc > 1 || !every) {
				printf("  %s:", t->name);
				for (size_t b = a, k = 0; b < nc; b++)
					for (size_t j = 0; j < cs[b].n; j++)
						if (!strcmp(cs[b].t[j].name, t->name))
							printf("%s %s under %s%s", k++ ? "," : "",
							       cs[b].t[j].verdict,
							       p->variants[cs[b].variant].name,
							       cs[b].fallback[0] ? " (built with its fallback)"
										 : "");
				printf("%s%s\n", every ? "" : "; not judged under ", unjudged);
			}
			inferred += guessed;
			inferred_guard += guessed && guard;
			inferred_unbuilt += guessed && unbuilt;
			if (!guessed && !holds) {
				printf("  NOT A %s: %s is cited as a %s, but %s%s\n",
				       t->role == CITED_PIN ? "PIN" : "GUARD", t->name, want,
				       why_not(t->verdict),
				       nc > 1 && agree && every ? ", under every variant" : "");
				status = 1;
			}
		}
	if (inferred && inferred_unbuilt == inferred) {
		printf("  NO EVIDENCE: the code before the fix does not build against the tests this "
		       "commit added or changed (no-build), so nothing shows whether they guard it; "
		       "name a test that builds on both sides with --guard%s\n",
		       p->n_variants > 1 ? ", or a variant that builds it with --variant" : "");
		status = 1;
	} else if (inferred && !inferred_guard) {
		printf("  NO GUARD: none of the tests this commit added or changed fails without it%s\n",
		       nc > 1 || !every ? " under any variant judged" : "");
		status = 1;
	}
	return status;
}

/* ---- one commit ---------------------------------------------------------------- */

/* Splits the files changed between parent and fix; prints them. *n_code gets the non-tests. */
/* path with fnmatch's special characters escaped, as a glob matching itself. */
static int push_literal(char ***globs, const char *path)
{
	char buf[8192];
	size_t k = 0;

	for (const char *p = path; *p && k + 2 < sizeof buf; p++) {
		if (strchr("*?[\\", *p))
			buf[k++] = '\\';
		buf[k++] = *p;
	}
	buf[k] = '\0';
	return td_strv_push(globs, buf);
}

/* 0 test, 1 source (reverted), 2 other: kept as in the fix (docs, data ...). */
static int kind_of(const rp_run *r, const char *path)
{
	if (td_project_matches(r->proj->tests, path))
		return 0;
	return !r->proj->sources || td_project_matches(r->proj->sources, path) ? 1 : 2;
}

static void print_kind(char *const *changed, const rp_run *r, int kind, const char *what,
		       const char *sep)
{
	size_t n = 0;

	for (size_t i = 0; changed && changed[i]; i++)
		n += kind_of(r, changed[i]) == kind;
	printf("%s%zu %s%s%s", sep, n, what, n == 1 ? "" : "s",
	       kind == 2 ? " kept as in the fix" : "");
	for (size_t i = 0, j = 0; kind && changed && changed[i]; i++)
		if (kind_of(r, changed[i]) == kind)
			printf("%s%s", j++ ? ", " : " (", changed[i]);
	if (kind && n)
		printf(")");
}

/*
 * Prints what the fix changed: source files (reverted in the before state),
 * test files, and, when tdaudit.lua names sources, other files (kept as in
 * the fix). Sets r->changed, r->keep and *n_code, the number of source
 * files.
 */
static int show_changes(size_t *n_code, rp_run *r, const td_repo_commit *info)
{
	char **changed;
	int err;

	td_strv_free(r->changed);
	r->changed = NULL;
	err = td_repo_changed(&r->changed, r->repo, info->parent, info->id);
	changed = r->changed;
	*n_code = 0;
	td_strv_free(r->keep);
	r->keep = NULL;
	for (size_t i = 0; !err && r->proj->tests && r->proj->tests[i]; i++)
		err = td_strv_push(&r->keep, r->proj->tests[i]);
	for (size_t i = 0; !err && changed && changed[i]; i++) {
		int kind = kind_of(r, changed[i]);

		*n_code += kind == 1;
		if (kind == 2)
			err = push_literal(&r->keep, changed[i]);
	}
	if (!err) {
		printf("  changes");
		print_kind(changed, r, 1, "source file", " ");
		if (r->proj->sources)
			print_kind(changed, r, 2, "other file", ", ");
		print_kind(changed, r, 0, "test file", " and ");
		printf("\n");
	}
	return err;
}

/* Runs both states for c and judges each test; 0, or a TD_E code. */
static int run_states(rp_run *r, rp_commit *c, const td_repo_commit *info)
{
	double slowest = 0, limit;
	int ok = 0, err = 0;

	if (c->n == 0) /* nothing to look for: no build */
		return TD_FAIL(TD_EINVAL, "commit %s adds or changes no test file and no test_ "
					  "name; name the guards with --guard NAME",
			       info->short_id);
	err = build_state(&ok, r, c, info->id, NULL, 1);
	if (!err && !ok && r->head.id[0])
		return TD_FAIL(TD_ESTATE, "HEAD (%s) does not build; see %s", r->head.short_id,
			       r->blog[1]);
	if (!err && !ok)
		return TD_FAIL(TD_ESTATE, "the fix commit %s itself does not build; see %s",
			       info->short_id, r->blog[1]);
	if (!err)
		err = find_runners(r, c);
	if (!err && c->n == 0)
		return TD_FAIL(TD_EINVAL, "commit %s adds or changes no test a runner lists; name the "
					  "guards with --guard NAME",
			       info->short_id);
	if (!err)
		err = run_tests(r, c, 1, r->opts->timeout > 0 ? r->opts->timeout : r->proj->timeout_build,
				&slowest);
	if (!err)
		err = build_state(&ok, r, c, info->parent, info->id, 0);
	limit = r->proj->timeout_factor * slowest;
	limit = limit > r->proj->timeout_floor ? limit : r->proj->timeout_floor;
	if (!err && ok)
		err = run_tests(r, c, 0, r->opts->timeout > 0 ? r->opts->timeout : limit, &slowest);
	for (size_t i = 0; !err && i < c->n; i++) {
		c->t[i].before_built = ok;
		c->t[i].verdict = td_reproduce_verdict(&c->t[i].k, c->t[i].before, ok, c->t[i].after,
						       r->opts->runs);
	}
	return err;
}

/* Keeps c's results for the ledger (takes what c owns). */
static int keep(rp_run *r, rp_commit *c)
{
	int err = td_grow(&r->done, &r->cap_done, r->n_done + 1, sizeof *r->done);

	if (err)
		return err;
	r->done[r->n_done++] = *c;
	memset(c, 0, sizeof *c);
	return 0;
}

/*
 * With --at-head: reverts the fix at HEAD once to see whether it reverts
 * at all. *status = 1 (and a message) when a non-test file conflicts or
 * the revert changes nothing (the fix's changes are gone from HEAD); the
 * clean state is left written in the scratch tree.
 */
static int check_revert(int *status, rp_run *r, const td_repo_commit *info)
{
	td_repo_revert rv;
	int err = td_repo_materialise_revert(&rv, r->repo, r->head.id, info->id, r->proj->tests,
					     r->tree, r->manifest);

	*status = 0;
	if (!err && rv.conflicts) {
		printf("  conflict: the fix no longer reverts cleanly at HEAD (%s); these files "
		       "conflict:\n", r->head.short_id);
		for (size_t i = 0; rv.conflicts[i]; i++)
			printf("    %s\n", rv.conflicts[i]);
		printf("  no test run, nothing recorded: whether the guard still guards at HEAD is "
		       "unknown, never a pass\n");
		*status = 1;
	} else if (!err && rv.unchanged) {
		printf("  nothing to revert at HEAD (%s): HEAD's non-test files already read as "
		       "without the fix (its changes are gone); no test run, nothing recorded\n",
		       r->head.short_id);
		*status = 1;
	}
	td_strv_free(rv.conflicts);
	return err;
}

/* The logs of fix info under variant v: SHORT[-VARIANT]-build-before.log ... */
static void log_names(rp_run *r, const td_repo_commit *info, int v)
{
	if (v)
		snprintf(r->fix, sizeof r->fix, "%s-%s", info->short_id, r->proj->variants[v].name);
	else
		snprintf(r->fix, sizeof r->fix, "%s", info->short_id);
	snprintf(r->tlog, sizeof r->tlog, "%s/%s-tests.log", r->logs, r->fix);
	snprintf(r->blog[0], sizeof r->blog[0], "%s/%s-build-before.log", r->logs, r->fix);
	snprintf(r->blog[1], sizeof r->blog[1], "%s/%s-build-after.log", r->logs, r->fix);
}

/*
 * Judges fix info (its tests from f when not NULL) under each variant of
 * r->vs (the automatic one when none was named), keeping each result, then
 * checks the claims across them into *status. A variant whose judgement
 * fails is said on stderr and gives status 2; the others still run.
 */
static int judge_variants(int *status, rp_run *r, const td_repo_commit *info,
			  const td_debugmd_finding *f)
{
	size_t first = r->n_done;
	char unjudged[512] = ""; /* the variants asked for that could not be judged, ", "-joined */
	int err = 0;

	for (int k = 0; k < r->vs.n && !err; k++) {
		rp_commit c = {{0}, NULL, 0, 0, r->vs.v[k], ""};
		char why[512] = "", line[2048];

		if (r->vs.automatic)
			err = td_variant_for_commit(&c.variant, why, sizeof why, r->proj, r->repo, info);
		if (err)
			break;
		if (r->proj->n_variants > 1)
			printf("  variant %s: %s%s%s%s\n", r->proj->variants[c.variant].name,
			       td_variant_describe(line, sizeof line, r->proj, c.variant),
			       why[0] ? " [" : "", why, why[0] ? "]" : "");
		log_names(r, info, c.variant);
		err = choose_tests(r, &c, info, f);
		if (!err)
			err = run_states(r, &c, info);
		if (err && r->vs.n > 1) { /* the next variant may build: say it, go on */
			fprintf(stderr, "tdaudit reproduce: variant %s: %s\n",
				r->proj->variants[c.variant].name, td_error_last());
			snprintf(unjudged + strlen(unjudged), sizeof unjudged - strlen(unjudged), "%s%s",
				 unjudged[0] ? ", " : "", r->proj->variants[c.variant].name);
			*status = 2;
			err = 0;
			commit_free(&c);
			continue;
		}
		if (!err) {
			print_table(&c, r->opts->runs,
				    r->proj->n_variants > 1 ? r->proj->variants[c.variant].name : NULL);
			snprintf(c.fix, sizeof c.fix, "%s", info->id);
			err = keep(r, &c);
		}
		commit_free(&c);
	}
	if (!err && r->n_done > first) {
		int s = check_claims(r->done + first, r->n_done - first, r->proj, unjudged);

		*status = s > *status ? s : *status;
	}
	return err;
}

/*
 * Reproduces rev (its tests from finding f when not NULL). Returns the
 * exit status for this commit; errors are printed here.
 */
static int reproduce_one(rp_run *r, const char *rev, const td_debugmd_finding *f)
{
	td_repo_commit info;
	size_t n_code = 0;
	int err = td_repo_commit_info(&info, r->repo, rev), status = 0;

	if (!err && info.n_parents == 0)
		err = TD_FAIL(TD_EINVAL, "%s is a root commit: it has no parent to revert to", rev);
	if (err)
		goto done;
	printf("tdaudit reproduce: %s %s\n", info.short_id, info.summary);
	log_names(r, &info, 0);
	if (info.n_parents > 1)
		printf("  %s is a merge commit (%u parents): reverting against its first parent %.7s\n",
		       info.short_id, info.n_parents, info.parent);
	err = show_changes(&n_code, r, &info);
	if (!err && n_code == 0) {
		printf("  nothing to revert: it changes no source file (only tests%s), so the state "
		       "before it would be the fix itself; no test run, nothing recorded\n",
		       r->proj->sources ? " and files outside sources" : "");
		goto done;
	}
	if (!err && r->head.id[0]) {
		printf("  at HEAD %s %s: before = HEAD with the fix reverted (tests as at HEAD), "
		       "after = HEAD\n", r->head.short_id, r->head.summary);
		err = check_revert(&status, r, &info);
		if (err || status)
			goto done;
	}
	if (!err)
		err = judge_variants(&status, r, &info, f);
done:
	if (err) {
		fprintf(stderr, "tdaudit reproduce: %s\n", td_error_last());
		status = 2;
	}
	return status;
}

/* ---- the ledger ------------------------------------------------------------------ */

/*
 * The verdict this run gave test for the fix commit matching commit, or
 * NULL; under several variants, the one that bears out want (the role
 * DEBUG.md cites it in) if one does, as check_claims judges.
 */
static const char *verdict_for(const rp_run *r, const char *commit, const char *test,
			       const char *want)
{
	const char *got = NULL;

	for (size_t i = 0; commit && i < r->n_done; i++)
		if (td_ledger_commits_match(r->done[i].fix, commit))
			for (size_t j = 0; j < r->done[i].n; j++)
				if (!strcmp(r->done[i].t[j].name, test)) {
					if (!strcmp(r->done[i].t[j].verdict, want))
						return want;
					got = got ? got : r->done[i].t[j].verdict;
				}
	return got;
}

static const char *role_of(const char *verdict)
{
	if (verdict && (!strcmp(verdict, "guard") || !strcmp(verdict, "pin") ||
			!strcmp(verdict, "broken")))
		return verdict;
	return "unverified";
}

/*
 * The findings of DEBUG.md this run speaks for (all of them with --all;
 * else those whose fix commit was reproduced), with every cited guard and
 * pin and the role this run's verdicts give it ("unverified" when it was not
 * run or its verdict settles nothing).
 */
static int put_findings(td_ledger *lg, const rp_run *r)
{
	int err = 0;

	for (size_t i = 0; !err && r->doc && i < r->doc->n_findings; i++) {
		const td_debugmd_finding *f = &r->doc->findings[i];
		td_ledger_finding lf = {f->number, f->title ? f->title : "", f->where ? f->where : "",
					f->severity ? f->severity : "", f->found_by ? f->found_by : "",
					f->status ? f->status : "", f->commit};
		int ours = r->opts->all;

		for (size_t k = 0; !ours && f->commit && k < r->n_done; k++)
			ours = td_ledger_commits_match(r->done[k].fix, f->commit);
		if (!ours)
			continue;
		err = td_ledger_put_finding(lg, &lf);
		for (size_t g = 0; !err && g < f->n_guards; g++)
			err = td_ledger_put_guard(lg, f->number, f->guards[g].name,
						  role_of(verdict_for(r, f->commit, f->guards[g].name,
								      "guard")));
		for (size_t g = 0; !err && g < f->n_pins; g++)
			err = td_ledger_put_guard(lg, f->number, f->pins[g].name,
						  role_of(verdict_for(r, f->commit, f->pins[g].name, "pin")));
	}
	return err;
}

static int put_reproductions(td_ledger *lg, const rp_run *r)
{
	int err = 0;

	for (size_t i = 0; !err && i < r->n_done; i++) {
		const rp_commit *c = &r->done[i];
		char build[2048], env[1024];
		char **argv = NULL;

		err = td_variant_argv(&argv, r->proj, c->variant);
		if (!err)
			td_proc_argv_string((const char *const *)argv, build, sizeof build);
		td_strv_free(argv);
		td_variant_env_string(env, sizeof env, r->proj, c->variant);
		for (size_t j = 0; !err && j < c->n; j++) {
			const rp_test *t = &c->t[j];
			td_ledger_reproduction rep = {c->fix, t->name,
						      t->before_built ? state_word(t->before, r->opts->runs)
								      : "no-build",
						      state_word(t->after, r->opts->runs), t->verdict,
						      t->k, r->opts->runs, r->proj->variants[c->variant].name,
						      build, env, c->fallback[0] ? c->fallback : NULL};

			err = td_ledger_put_reproduction_at(lg, &rep, r->head.id[0] ? r->head.id : NULL);
		}
	}
	return err;
}

static int record(rp_run *r, int status)
{
	td_ledger_run_info info = {0};
	td_ledger *lg = NULL;
	char path[8400], head[41];
	int dirty = 0, err;

	if (r->n_done == 0 && !(r->opts->all && r->doc))
		return 0;
	td_record_ledger_path(path, sizeof path, r->proj);
	err = td_repo_head(head, &dirty, r->proj->root);
	info.command = r->opts->command ? r->opts->command : "tdaudit reproduce";
	info.head_commit = head;
	info.dirty = dirty;
	info.tool_version = TDAUDIT_VERSION;
	if (!err)
		err = td_ledger_open(&lg, path, TD_LEDGER_CREATE);
	if (!err)
		err = td_ledger_run_begin(lg, &info);
	if (!err && !r->head.id[0]) /* an at-head verdict speaks for HEAD, not for DEBUG.md's claim */
		err = put_findings(lg, r);
	if (!err)
		err = put_reproductions(lg, r);
	if (!err)
		err = td_ledger_run_finish(lg, status == 0 ? "ok" : status == 1 ? "findings" : "error");
	if (!err)
		printf("tdaudit reproduce: recorded in %s\n", r->proj->ledger);
	td_ledger_free(lg);
	return err;
}

/* ---- the command ------------------------------------------------------------------- */

/* Every finding of DEBUG.md with a fix commit, one after the other. */
static int reproduce_all(rp_run *r)
{
	int status = 0, err = load_doc(r, 1), n = 0;

	if (err) {
		fprintf(stderr, "tdaudit reproduce: %s\n", td_error_last());
		return 2;
	}
	for (size_t i = 0; i < r->doc->n_findings; i++) {
		const td_debugmd_finding *f = &r->doc->findings[i];
		int s;

		if (!f->commit)
			continue;
		printf("%s== finding #%d: %s\n", n++ ? "\n" : "", f->number, f->title ? f->title : "");
		s = reproduce_one(r, f->commit, f);
		status = s > status ? s : status;
	}
	if (n == 0)
		printf("tdaudit reproduce: no finding in DEBUG.md names a fix commit; nothing to do\n");
	if (r->doc->problems.n) { /* a row that does not parse may hold a finding not reproduced */
		printf("tdaudit reproduce: %zu DEBUG.md line%s not parse (above, on stderr): a "
		       "finding they hold was not reproduced; tdaudit ledger check lists them\n",
		       r->doc->problems.n, r->doc->problems.n == 1 ? " does" : "s do");
		status = status > 1 ? status : 1;
	}
	return status;
}

int td_reproduce(const char *root, const char *commit, const td_reproduce_opts *given)
{
	td_reproduce_opts o = *given, *opts = &o; /* with the defaults filled in */
	rp_run r = {.opts = opts};
	int lock_fd = -1, status = 2, err;

	if (o.runs == 0)
		o.runs = TD_REPRODUCE_RUNS;
	err = td_project_load(&r.proj, root);

	if (!err)
		err = td_variant_pick(&r.vs, r.proj, o.variants, o.variant_set);
	if (!err)
		err = td_repo_open(&r.repo, r.proj->root);
	if (!err && opts->at_head)
		err = td_repo_commit_info(&r.head, r.repo, "HEAD");
	if (!err)
		err = td_testrun_claim(&lock_fd, r.dir, sizeof r.dir, r.proj->root, "history");
	if (err)
		goto done;
	td_testrun_say_confinement("reproduce", r.proj);
	td_project_say_empty_globs(r.proj, "reproduce");
	snprintf(r.tree, sizeof r.tree, "%s/history/tree", r.dir);
	snprintf(r.manifest, sizeof r.manifest, "%s/history/manifest", r.dir);
	if ((err = td_testrun_reset_if_cut("tdaudit reproduce", r.tree, r.manifest)))
		goto done;
	if ((err = td_testrun_run_logs(r.logs, sizeof r.logs, r.dir)))
		goto done;
	printf("tdaudit reproduce: logs in %s\n", r.logs);
	status = opts->all ? reproduce_all(&r) : reproduce_one(&r, commit, NULL);
	if (r.fallbacks)
		printf("tdaudit reproduce: %zu state%s built with a variant's fallback (listed above; "
		       "recorded with each verdict)\n", r.fallbacks, r.fallbacks == 1 ? " was" : "s were");
	err = record(&r, status);
done:
	if (err) {
		fprintf(stderr, "tdaudit reproduce: %s\n", td_error_last());
		status = 2;
	}
	if (lock_fd >= 0)
		close(lock_fd);
	for (size_t i = 0; i < r.n_done; i++)
		commit_free(&r.done[i]);
	free(r.done);
	td_debugmd_free(r.doc);
	td_repo_free(r.repo);
	td_strv_free(r.keep);
	td_strv_free(r.changed);
	td_project_free(r.proj);
	return status;
}
