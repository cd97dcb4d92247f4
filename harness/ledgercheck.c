/*
 * ledgercheck.c - tdaudit ledger check: DEBUG.md against the ledger, the
 * test runner, git history and the catalogues (see ledgercheck.h).
 *
 * Must never pass what it could not check: an unresolvable commit in a
 * shallow clone is printed as skipped, and a missing ledger is a failure.
 */
#define _GNU_SOURCE
#include "ledgercheck.h"

#include <git2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../base/error.h"
#include "../ledger/debugmd.h"
#include "../ledger/ledger.h"
#include "catalogue.h"
#include "mutate.h"
#include "project.h"
#include "record.h"
#include "../base/strv.h"

typedef struct {
	int problems, skipped;
} tally_t;

static void problem(tally_t *t, int line, const char *fmt, const char *a, const char *b)
{
	printf("DEBUG.md:%d: ", line);
	printf(fmt, a, b);
	printf("\n");
	t->problems++;
}

/*
 * Every test DEBUG.md cites must be one the runners list, and a test it
 * names on a line continuing a field (a wrapped Guarded by) is reported.
 */
static void check_tests(tally_t *t, const td_debugmd *doc, char *const *tests)
{
	for (size_t i = 0; i < doc->n_findings; i++) {
		const td_debugmd_finding *f = &doc->findings[i];

		for (size_t g = 0; g < f->n_guards; g++)
			if (td_strv_find(tests, f->guards[g].name) < 0)
				problem(t, f->guards[g].line, "guard %s is not a test the runners list%s",
					f->guards[g].name, " (renamed or deleted?)");
		for (size_t g = 0; g < f->n_pins; g++)
			if (td_strv_find(tests, f->pins[g].name) < 0)
				problem(t, f->pins[g].line, "pin %s is not a test the runners list%s",
					f->pins[g].name, "");
		for (size_t k = 0; k < f->n_mentions; k++) {
			const td_debugmd_mention *m = &f->mentions[k];
			char where[128];

			if (td_strv_find(tests, m->name) < 0)
				continue; /* prose: an option, a catalogue entry, a file */
			snprintf(where, sizeof where, "%s line (line %d)",
				 m->pin ? "**Pins**" : "**Guarded by**", m->field_line);
			problem(t, m->line, "%s is named on a line that continues the %s, but a field is "
				"its one line and this test is not read: move it onto that line",
				m->name, where);
		}
	}
}

/* 1 resolves, 0 does not, -1 cannot tell (shallow clone). */
static int resolves(git_repository *repo, const char *rev)
{
	git_object *obj = NULL;
	int ok = git_revparse_single(&obj, repo, rev) == 0 && git_object_type(obj) == GIT_OBJECT_COMMIT;

	git_object_free(obj);
	if (!ok && git_repository_is_shallow(repo))
		return -1;
	return ok;
}

static void check_commit(tally_t *t, git_repository *repo, const char *rev, int line)
{
	int r = resolves(repo, rev);

	if (r == 0)
		problem(t, line, "commit %s does not resolve in this repository%s", rev,
			" (rewritten history, or a typo)");
	else if (r < 0) {
		printf("DEBUG.md:%d: skipped: commit %s cannot be checked in a shallow clone "
		       "(fetch full history: git fetch --unshallow)\n", line, rev);
		t->skipped++;
	}
}

static int check_commits(tally_t *t, const td_debugmd *doc, const char *root)
{
	git_repository *repo = NULL;

	git_libgit2_init();
	if (git_repository_open(&repo, root) != 0)
		return TD_FAIL(TD_EIO, "cannot open the repository at %s", root);
	for (size_t i = 0; i < doc->n_findings; i++) {
		const td_debugmd_finding *f = &doc->findings[i];

		if (f->commit)
			check_commit(t, repo, f->commit, f->table_line);
		for (size_t k = 0; k < f->n_repro; k++)
			check_commit(t, repo, f->repro[k].commit, f->repro[k].line);
	}
	git_repository_free(repo);
	return 0;
}

/* Every catalogue entry that names a finding names one DEBUG.md has. */
static void check_catalogues(tally_t *t, const td_debugmd *doc, const td_mutants *m)
{
	for (size_t i = 0; i < m->n; i++)
		if (m->v[i].finding && !td_debugmd_find(doc, m->v[i].finding)) {
			printf("%s: mutant '%s' names finding %d, which DEBUG.md does not have\n",
			       m->v[i].where, m->v[i].name, m->v[i].finding);
			t->problems++;
		}
}

static void check_ledger(tally_t *t, const td_debugmd *doc, const td_project *p)
{
	td_debugmd_problems *probs = NULL;
	td_ledger *lg = NULL;
	char path[8192];

	td_record_ledger_path(path, sizeof path, p);
	if (td_ledger_open(&lg, path, 0) != 0) {
		printf("%s: no ledger to check against (%s); run tdaudit reproduce --all first\n", path,
		       td_error_last());
		t->problems++;
		return;
	}
	if (td_debugmd_check(&probs, doc, lg) != 0) {
		printf("ledger check: %s\n", td_error_last());
		t->problems++;
	}
	for (size_t i = 0; probs && i < probs->n; i++)
		problem(t, probs->v[i].line, "%s%s", probs->v[i].msg, "");
	td_debugmd_problems_free(probs);
	td_ledger_free(lg);
}

int td_ledger_check(const char *root)
{
	td_project *p = NULL;
	td_debugmd *doc = NULL;
	td_mutants muts = {0};
	char **tests = NULL, path[8192];
	tally_t t = {0, 0};
	int err;

	err = td_project_load(&p, root);
	snprintf(path, sizeof path, "%s/DEBUG.md", root);
	if (!err && access(path, F_OK) != 0)
		err = TD_FAIL(TD_EIO, "no DEBUG.md at %s: ledger check compares DEBUG.md's findings "
				      "with the ledger, so it needs one (its format: tdaudit's docs/debug-md.md); "
				      "mutate, reproduce and bisect work without it",
			      root);
	if (!err)
		err = td_debugmd_parse_file(&doc, path);
	if (!err)
		err = td_catalogue_load(&muts, p->root, p->catalogues);
	if (!err)
		err = td_mutate_list_tests(&tests, p);
	if (!err)
		err = check_commits(&t, doc, p->root);
	if (err) {
		fprintf(stderr, "tdaudit ledger check: %s\n", td_error_last());
		goto done;
	}
	for (size_t i = 0; i < doc->problems.n; i++)
		problem(&t, doc->problems.v[i].line, "%s%s", doc->problems.v[i].msg, "");
	check_tests(&t, doc, tests);
	check_catalogues(&t, doc, &muts);
	check_ledger(&t, doc, p);
	printf("ledger check: %zu findings, %d problem%s, %d skipped\n", doc->n_findings, t.problems,
	       t.problems == 1 ? "" : "s", t.skipped);
done:
	td_strv_free(tests);
	td_mutants_free(&muts);
	td_debugmd_free(doc);
	td_project_free(p);
	return err ? 2 : t.problems ? 1 : 0;
}
