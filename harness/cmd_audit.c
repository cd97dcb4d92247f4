/*
 * cmd_audit.c - the command line of `tdaudit audit` (see audit.h for what
 * a run does): its table of options for base/opt.c.
 */
#define _GNU_SOURCE
#include <limits.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>

#include "../base/opt.h"
#include "../base/strv.h"
#include "audit.h"
#include "commands.h"
#include "proc.h"

/* What audit's options set; zero: not given. */
typedef struct {
	const char *json, *junit, *root;
	int jobs;
} args;

static const td_opt opts[] = {
	{.name = "--json", .arg = "FILE", .type = TD_OPT_STRING, .at = offsetof(args, json),
	 .help = "write the results as JSON (schema tdaudit.audit/1), atomically"},
	{.name = "--junit", .arg = "FILE", .type = TD_OPT_STRING, .at = offsetof(args, junit),
	 .help = "write the results as JUnit XML, atomically"},
	{.name = "--jobs", .short_name = 'j', .arg = "N", .type = TD_OPT_INT, .at = offsetof(args, jobs),
	 .min = 1, .max = 64, .help = "audits run at once (default 1)"},
	{.name = "--root", .arg = "DIR", .type = TD_OPT_STRING, .at = offsetof(args, root),
	 .help = "the repository (default: the one holding the current directory)"},
	{0},
};

static const td_opt_cmd cmd = {
	.program = "tdaudit",
	.name = "audit",
	.operands = "[NAME]...",
	.hint = "tdaudit help audit",
	.opts = opts,
	.about = "Runs the audit scripts tdaudit.lua names (audits { ... }), or the ones NAME\n"
		 "selects, against the trainer its trainer { ... } block describes: each runs\n"
		 "the trainer in a fresh scratch directory outside the tree and records\n"
		 "pass, fail or skip (a skip is never a pass) with the class of what it found\n"
		 "(LOUD, COUNTED, SILENT), its evidence and a one-line summary. The results\n"
		 "are printed as a table and written to the ledger (docs/audit.md).\n",
	.after = "exit status: 0 every audit passed or skipped; 1 an audit failed; 2 usage or\n"
		 "environment error (a NAME no audit has, an audit that could not run to a\n"
		 "result, a report or the ledger that could not be written).\n",
};

void td_usage_audit(FILE *f)
{
	td_opt_usage(f, &cmd);
}

int td_cmd_audit(int argc, char **argv)
{
	args a = {0};
	td_audit_opts o = {0};
	char root[PATH_MAX], line[1024] = "tdaudit ", **names = NULL;
	int rc = td_opt_parse(&cmd, &a, argc, argv, &names);

	if (rc != TD_OPT_RUN)
		goto done;
	rc = td_find_root(root, sizeof root, a.root);
	if (rc)
		goto done;
	td_proc_argv_string((const char *const *)argv, line + 8, (unsigned)(sizeof line - 8));
	o.names = names, o.jobs = a.jobs, o.json = a.json, o.junit = a.junit, o.command = line;
	rc = td_audit(root, &o);
done:
	td_strv_free(names);
	return rc;
}
