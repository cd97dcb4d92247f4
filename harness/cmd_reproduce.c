/*
 * cmd_reproduce.c - the command line of `tdaudit reproduce` (see
 * reproduce.h for what a run decides): its table of options for
 * base/opt.c, and the rules that tie COMMIT, --all and --at-head.
 */
#define _GNU_SOURCE
#include <limits.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "commands.h"
#include "proc.h"
#include "reproduce.h"
#include "../base/opt.h"
#include "../base/strv.h"

/* What reproduce's options set; zero: not given. */
typedef struct {
	td_reproduce_opts o;
	char **guards;    /* the --guard names (a td_strv) */
	char **variants;  /* the --variant names (a td_strv) */
	const char *root; /* --root DIR */
} args;

static const td_opt opts[] = {
	{.name = "--guard", .arg = "NAME", .repeatable = 1, .type = TD_OPT_STRINGS,
	 .at = offsetof(args, guards),
	 .help = "a test to check (repeatable); default: the tests DEBUG.md cites for the finding "
		 "fixed by COMMIT, else the test functions COMMIT added or changed"},
	{.name = "--at-head", .type = TD_OPT_FLAG, .at = offsetof(args, o.at_head),
	 .help = "does the guard still guard today? before = HEAD with COMMIT reverted in memory "
		 "(test files as at HEAD), after = HEAD; recorded with the HEAD it ran on. A "
		 "non-test file that does not revert cleanly is listed and exits 1 (\"conflict: the "
		 "fix no longer reverts cleanly at HEAD\"), as does a revert that changes nothing; "
		 "neither is ever read as a pass. Needs a COMMIT, not --all"},
	{.name = "--all", .type = TD_OPT_FLAG, .at = offsetof(args, o.all),
	 .help = "every finding in DEBUG.md with a fix commit (no COMMIT, no --guard)"},
	{.name = "--runs", .arg = "N", .type = TD_OPT_INT, .at = offsetof(args, o.runs), .min = 1,
	 .max = 100, .help = "runs per test in each state (default 2: TD_REPRODUCE_RUNS)"},
	{.name = "--timeout", .arg = "S", .type = TD_OPT_POSITIVE, .at = offsetof(args, o.timeout),
	 .unit = "seconds",
	 .help = "seconds per test run (default: the build timeout after the fix, factor x the "
		 "slowest run after it, floor, before it)"},
	{.name = "--variant", .arg = "NAME", .repeatable = 1, .type = TD_OPT_STRINGS,
	 .at = offsetof(args, variants),
	 .help = "judge each fix under the build variant NAME of tdaudit.lua (repeatable; "
		 "\"default\" is build { } itself); default: the variant chosen for the fix commit "
		 "by its before/since/range, else default"},
	{.name = "--variants", .arg = "WHICH", .type = TD_OPT_STRING, .at = offsetof(args, o.variant_set),
	 .help = "\"all\": judge each fix under every variant, default first; or a comma list of "
		 "names"},
	{.name = "--root", .arg = "DIR", .type = TD_OPT_STRING, .at = offsetof(args, root),
	 .help = "the repository (default: the one holding the current directory)"},
	{0},
};

static const td_opt_cmd cmd = {
	.program = "tdaudit",
	.name = "reproduce",
	.operands = "[COMMIT]",
	.hint = "tdaudit help reproduce",
	.opts = opts,
	.about = "Checks that a fix commit's guards guard: builds, in a scratch tree under\n"
		 ".tdaudit/ written from git (the working tree, index and HEAD are never\n"
		 "touched), the fix with its non-test files reverted to its first parent\n"
		 "(before) and the fix as it is (after), and runs each test in both.\n"
		 "Verdicts: guard (fails before, passes after), pin (passes both), broken\n"
		 "(fails after), no-build (the pre-fix code does not build against the new\n"
		 "tests), flaky (runs disagree). Results go into the ledger. COMMIT is the\n"
		 "fix; with --all there is none.\n",
	.after = "exit status: 0 every cited test is what it is cited as (or the commit\n"
		 "changes only tests: nothing to revert); 1 a cited guard is not a guard, a\n"
		 "cited pin not a pin, or none of the commit's own tests is a guard, or with\n"
		 "--at-head the fix conflicts or changes nothing at HEAD; 2 usage or environment\n"
		 "error (a repository owned by another user included: see safe.directory and\n"
		 "TDAUDIT_TRUST_OWNER=1 in tdaudit's docs/reproduce.md).\n",
};

void td_usage_reproduce(FILE *f)
{
	td_opt_usage(f, &cmd);
}

/* What the options do not say alone: one COMMIT, or --all; -1 when they agree, else 2. */
static int check(const args *a, char **commits)
{
	size_t n = td_strv_len(commits);

	if (n > 1)
		return td_usage_error("reproduce", "one commit at a time, not '%s' and '%s'", commits[0],
				      commits[1]);
	if (a->o.all && a->o.at_head)
		return td_usage_error("reproduce", "--at-head reverts one fix at HEAD; give it a COMMIT, "
						   "not --all");
	if (a->o.all && (n || a->guards))
		return td_usage_error("reproduce", "--all takes the commits and tests from DEBUG.md; "
						   "give no COMMIT and no --guard with it");
	if (!a->o.all && !n)
		return td_usage_error("reproduce", "which commit? give COMMIT (the fix) or --all");
	return -1;
}

int td_cmd_reproduce(int argc, char **argv)
{
	args a = {0};
	char root[PATH_MAX], line[1024] = "tdaudit ", **commits = NULL;
	int rc = td_opt_parse(&cmd, &a, argc, argv, &commits);

	if (rc == TD_OPT_RUN)
		rc = check(&a, commits);
	if (rc >= 0)
		goto done;
	rc = td_find_root(root, sizeof root, a.root);
	if (rc == 0) {
		td_proc_argv_string((const char *const *)argv, line + 8, (unsigned)(sizeof line - 8));
		a.o.command = line;
		a.o.guards = a.guards;
		a.o.variants = a.variants;
		rc = td_reproduce(root, commits ? commits[0] : NULL, &a.o);
	}
done:
	td_strv_free(commits);
	td_strv_free(a.guards);
	td_strv_free(a.variants);
	return rc;
}
