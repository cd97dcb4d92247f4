/*
 * record.c - harness runs into the ledger (see record.h).
 *
 * Must never leave a half-written run: every write goes between
 * td_ledger_run_begin and td_ledger_run_finish, and any failure abandons
 * the run.
 */
#include "record.h"

#include <stdio.h>

#include "../base/error.h"
#include "../ledger/ledger.h"
#include "mutate.h"
#include "proc.h"
#include "repo.h"
#include "../base/strv.h"

void td_record_ledger_path(char *out, size_t size, const td_project *p)
{
	if (p->ledger[0] == '/')
		snprintf(out, size, "%s", p->ledger);
	else
		snprintf(out, size, "%s/%s", p->root, p->ledger);
}

static int put_one(td_ledger *lg, const td_mutant *m, const td_mutation_result *r)
{
	td_ledger_mutant lm = {m->id, m->catalogue, m->name, m->file, m->line > 0 ? m->line : 1,
			       m->finding, m->designed_against, m->why, m->func};
	td_ledger_outcome lo = {m->id, td_outcome_name((enum td_outcome)r->outcome),
				r->killers ? r->killers[0] : NULL, r->killers ? r->exit_status : -1,
				r->killers ? r->signal : 0, (long)(r->seconds * 1000),
				r->log[0] ? r->log : NULL};
	int err = td_ledger_put_mutant(lg, &lm);

	if (!err)
		err = td_ledger_put_outcome(lg, &lo);
	for (size_t k = 0; !err && r->killers && r->killers[k]; k++)
		err = td_ledger_put_kill(lg, m->id, r->killers[k]);
	return err;
}

int td_record_check(const td_project *p)
{
	td_ledger *lg = NULL;
	char path[8192];
	int err;

	td_record_ledger_path(path, sizeof path, p);
	err = td_ledger_open(&lg, path, TD_LEDGER_CREATE);
	if (!err)
		err = td_ledger_check_writable(lg);
	td_ledger_free(lg);
	return err;
}

int td_record_mutation_run(const td_project *p, const char *command, const char *commit,
			   const td_mutants *m, const td_mutation_result *res, int status,
			   const td_record_mutation_info *x)
{
	td_ledger_run_info info = {0};
	td_ledger *lg = NULL;
	char path[8192], sha[41] = "", build[2048], env[1024], **argv = NULL;
	int dirty = 0, err;

	td_record_ledger_path(path, sizeof path, p);
	info.command = command ? command : "tdaudit mutate";
	info.tool_version = TD_TOOL_VERSION;
	if (commit)
		info.head_commit = commit; /* --rev: a clean committed tree */
	else if (td_repo_head(sha, &dirty, p->root) == 0 && sha[0] != '(')
		info.head_commit = sha;
	info.dirty = dirty;
	info.shard_k = x->shard_k, info.shard_n = x->shard_n;
	info.catalogue = x->catalogue;
	info.kill_matrix = x->full ? "full" : "first-kill";
	info.variant = p->variants[p->active].name; /* every mutant was built with it */
	if (td_variant_argv(&argv, p, p->active) == 0)
		info.build = td_proc_argv_string((const char *const *)argv, build, sizeof build);
	info.build_env = td_variant_env_string(env, sizeof env, p, p->active);
	err = td_ledger_open(&lg, path, TD_LEDGER_CREATE);
	if (!err)
		err = td_ledger_run_begin(lg, &info);
	for (size_t i = 0; !err && x->tests && x->tests[i]; i++)
		err = td_ledger_put_run_test(lg, x->tests[i]);
	for (size_t i = 0; !err && i < m->n; i++)
		err = put_one(lg, &m->v[i], &res[i]);
	if (!err)
		err = td_ledger_run_finish(lg, status == 0 ? "ok" : status == 1 ? "findings" : "error");
	td_ledger_free(lg); /* rolls back an unfinished run */
	td_strv_free(argv);
	return err;
}
