/*
 * cmd_gates.c - the command line of `tdaudit gates` (see gates.h for what
 * it computes): its table of options for base/opt.c, which parses them
 * and prints the usage.
 */
#define _GNU_SOURCE
#include <limits.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../base/error.h"
#include "../base/fileio.h"
#include "../base/opt.h"
#include "commands.h"
#include "gates.h"
#include "project.h"
#include "record.h"
#include "report.h"

/* What gates' options set; zero: not given. */
typedef struct {
	const char *ledger; /* --ledger DB */
	const char *root;   /* --root DIR */
	const char *json;   /* --json FILE */
	double fail_under;  /* --fail-under SCORE; 0: no gate */
} args;

static int parse_score(const td_opt *opt, void *a, const char *v, char *why, size_t why_size)
{
	(void)opt;
	return td_parse_score(&((args *)a)->fail_under, v, why, why_size);
}

static const td_opt opts[] = {
	{.name = "--ledger", .arg = "DB", .type = TD_OPT_STRING, .at = offsetof(args, ledger),
	 .help = "read this ledger (a merged one, say) instead of the one tdaudit.lua names"},
	{.name = "--json", .arg = "FILE", .type = TD_OPT_STRING, .at = offsetof(args, json),
	 .help = "also write the gates as JSON (schema tdaudit.gates/1), atomically"},
	{.name = "--fail-under", .arg = "SCORE", .type = TD_OPT_CALL, .call = parse_score,
	 .help = "exit 1 when the run's mutation score (as tdaudit mutate computes it) is below "
		 "SCORE (0 to 100)"},
	{.name = "--root", .arg = "DIR", .type = TD_OPT_STRING, .at = offsetof(args, root),
	 .help = "the repository whose tdaudit.lua names the ledger (default: the one holding the "
		 "current directory)"},
	{0},
};

static const td_opt_cmd cmd = {
	.program = "tdaudit",
	.name = "gates",
	.hint = "tdaudit help gates",
	.opts = opts,
	.about = "Reads the kill matrix of the ledger's latest mutation run (a sharded run's\n"
		 "merged shards as one) and lists the load-bearing tests (the only killer of\n"
		 "some mutant), the tests that killed nothing, the redundant tests (every\n"
		 "mutant they kill is killed by another) and the files and functions where\n"
		 "every mutant survived.\n",
	.after = "exit status: 0 listed; 1 the score is below --fail-under; 2 usage or\n"
		 "environment error (no ledger, no mutation run, a shard missing).\n",
};

void td_usage_gates(FILE *f)
{
	td_opt_usage(f, &cmd);
}

/* The ledger to read: --ledger, or the project's. */
static int ledger_path(char *out, size_t size, const args *a)
{
	char root[PATH_MAX];
	td_project *p = NULL;
	int rc;

	if (a->ledger) {
		snprintf(out, size, "%s", a->ledger);
		return 0;
	}
	if ((rc = td_find_root(root, sizeof root, a->root)))
		return rc;
	if (td_project_load(&p, root) != 0) {
		fprintf(stderr, "tdaudit gates: %s\n", td_error_last());
		return 2;
	}
	td_record_ledger_path(out, size, p);
	td_project_free(p);
	return 0;
}

/* Writes g's JSON to path atomically. */
static int write_json(const td_gates *g, const char *path)
{
	char *text = NULL;
	int err = td_gates_json(&text, g);

	if (!err)
		err = td_file_write_atomic(path, text, strlen(text), 0644);
	free(text);
	return err;
}

int td_cmd_gates(int argc, char **argv)
{
	args a = {0};
	char path[8192];
	td_gates *g = NULL;
	int rc = td_opt_parse(&cmd, &a, argc, argv, NULL);

	if (rc != TD_OPT_RUN)
		return rc;
	if ((rc = ledger_path(path, sizeof path, &a)))
		return rc;
	if (td_gates_compute(&g, path) != 0 || (a.json && write_json(g, a.json) != 0)) {
		fprintf(stderr, "tdaudit gates: %s\n", td_error_last());
		td_gates_free(g);
		return 2;
	}
	td_gates_print(g);
	rc = td_report_below(g->count, a.fail_under);
	if (rc)
		printf("\ntdaudit gates: FAILED: the mutation score is below --fail-under %g\n",
		       a.fail_under);
	td_gates_free(g);
	return rc;
}
