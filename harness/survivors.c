/*
 * survivors.c - mutate --survivors (see survivors.h).
 *
 * Must never run a mutant that did not survive the run it names, and never
 * drop a survivor without saying so.
 */
#define _GNU_SOURCE
#include "survivors.h"

#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "../base/error.h"
#include "../base/strv.h"
#include "../ledger/ledger.h"
#include "record.h"

/* *run, and its survivors into *ids (a td_strv): TD_ESTATE when there is no run to read. */
static int read_survivors(td_ledger_mutation_run *run, char ***ids, const td_project *p)
{
	char path[4400];
	td_ledger *lg = NULL;
	int err;

	td_record_ledger_path(path, sizeof path, p);
	if (access(path, F_OK) != 0)
		return TD_FAIL(TD_ESTATE, "--survivors: there is no ledger at %s, so no previous run "
					  "to take survivors from; run tdaudit mutate first", path);
	err = td_ledger_open(&lg, path, 0);
	if (!err)
		err = td_ledger_survivors(run, ids, lg);
	td_ledger_free(lg);
	if (!err && !run->found)
		err = TD_FAIL(TD_ESTATE, "--survivors: the ledger %s holds no finished unsharded "
					 "mutate run to take survivors from; run tdaudit mutate "
					 "first", path);
	return err;
}

/* Whether m holds a mutant with id. */
static int has_mutant(const td_mutants *m, const char *id)
{
	for (size_t i = 0; i < m->n; i++)
		if (!strcmp(m->v[i].id, id))
			return 1;
	return 0;
}

int td_survivors_keep(td_mutants *m, const td_project *p)
{
	td_ledger_mutation_run run;
	char **ids = NULL;
	size_t n, k = 0, gone = 0;
	int err = read_survivors(&run, &ids, p);

	if (err)
		return err;
	n = td_strv_len(ids);
	printf("tdaudit mutate: --survivors: run %s of %s (commit %.12s%s): %zu survivor%s\n",
	       run.run, run.started, run.head_commit[0] ? run.head_commit : "(none)",
	       run.dirty ? " with uncommitted changes" : "", n, n == 1 ? "" : "s");
	for (size_t i = 0; i < n; i++)
		if (!has_mutant(m, ids[i])) {
			printf("tdaudit mutate: --survivors: gone: %s is no mutant of the catalogues "
			       "any more\n", ids[i]);
			gone++;
		}
	for (size_t i = 0; i < m->n; i++) {
		if (td_strv_find(ids, m->v[i].id) >= 0)
			m->v[k++] = m->v[i];
		else
			td_mutant_free(&m->v[i]);
	}
	m->n = k;
	if (!n)
		printf("tdaudit mutate: --survivors: nothing to run again: no mutant survived that run\n");
	else if (!k)
		printf("tdaudit mutate: --survivors: nothing to run again: every survivor is gone\n");
	else if (gone)
		printf("tdaudit mutate: --survivors: running %zu again (%zu gone)\n", k, gone);
	td_strv_free(ids);
	return 0;
}
