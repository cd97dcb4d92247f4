/*
 * cmd_bisect.c - the command line of `tdaudit bisect` (see bisect.h for
 * what a run does): its table of options for base/opt.c.
 */
#define _GNU_SOURCE
#include <limits.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bisect.h"
#include "commands.h"
#include "proc.h"
#include "variant.h"
#include "../base/error.h"
#include "../base/strv.h"
#include "../base/opt.h"

/* What bisect's options set; zero: not given. */
typedef struct {
	td_bisect_opts o;
	char **variants;   /* the --variant names (a td_strv) */
	const char *which; /* --variants */
	const char *root;  /* --root DIR */
} args;

/* --find fix|regression. */
static int direction(const td_opt *opt, void *a, const char *v, char *why, size_t why_size)
{
	(void)opt;
	if (strcmp(v, "fix") && strcmp(v, "regression"))
		return snprintf(why, why_size, "is fix or regression, not '%s'", v), 1;
	((args *)a)->o.find = !strcmp(v, "fix") ? TD_BISECT_FIX : TD_BISECT_REGRESSION;
	return 0;
}

static const td_opt opts[] = {
	{.name = "--guard", .arg = "NAME", .required = 1, .type = TD_OPT_STRING,
	 .at = offsetof(args, o.guard), .help = "the test to run (required)"},
	{.name = "--good", .arg = "REV", .type = TD_OPT_STRING, .at = offsetof(args, o.good),
	 .help = "the old end (default: the first commit of the line)"},
	{.name = "--bad", .arg = "REV", .type = TD_OPT_STRING, .at = offsetof(args, o.bad),
	 .help = "the new end (default: HEAD)"},
	{.name = "--find", .arg = "fix|regression", .type = TD_OPT_CALL, .call = direction,
	 .help = "fix: the first commit where NAME passes (it must pass at --bad); regression: "
		 "the first commit where NAME fails (it must fail at --bad); default: whichever "
		 "--bad shows"},
	{.name = "--tests-at", .arg = "REV", .type = TD_OPT_STRING, .at = offsetof(args, o.tests_at),
	 .help = "every commit tried gets the test files (tdaudit.lua's tests) as at REV: to find "
		 "the fix for what a later test checks"},
	{.name = "--timeout", .arg = "S", .type = TD_OPT_POSITIVE, .at = offsetof(args, o.timeout),
	 .unit = "seconds", .help = "seconds per test run (default: tdaudit.lua's build timeout)"},
	{.name = "--variant", .arg = "NAME", .repeatable = 1, .type = TD_OPT_STRINGS,
	 .at = offsetof(args, variants),
	 .help = "build every commit with the variant NAME of tdaudit.lua (\"default\": build { } "
		 "itself); repeatable: one search per variant, each recorded; default: each commit "
		 "gets the variant its date or range chooses, else default"},
	{.name = "--variants", .arg = "WHICH", .type = TD_OPT_STRING, .at = offsetof(args, which),
	 .help = "\"all\": one search per variant of tdaudit.lua, default first; or a comma list "
		 "of names"},
	{.name = "--root", .arg = "DIR", .type = TD_OPT_STRING, .at = offsetof(args, root),
	 .help = "the repository (default: the one holding the current directory)"},
	{0},
};

static const td_opt_cmd cmd = {
	.program = "tdaudit",
	.name = "bisect",
	.hint = "tdaudit help bisect",
	.opts = opts,
	.about = "Finds the first commit on the first-parent line from --bad back to --good\n"
		 "where the test NAME's outcome flips, by binary search. Each commit tried is\n"
		 "built in a scratch tree under .tdaudit/ written from git (the working tree,\n"
		 "index and HEAD are never touched); one that does not build is skipped and\n"
		 "reported. Every commit tried is printed with its outcome.\n",
	.after = "exit status: 0 found; 1 commits that do not build hide which one it is (all\n"
		 "are listed); 2 usage or environment error (an end that does not build, no\n"
		 "flip between the ends included, a repository owned by another user too).\n"
		 "A result (0 or 1) is recorded in the ledger: the ends, the commit found\n"
		 "(none when ambiguous), the direction, the commits skipped, the builds.\n",
};

void td_usage_bisect(FILE *f)
{
	td_opt_usage(f, &cmd);
}

int td_cmd_bisect(int argc, char **argv)
{
	args a = {0};
	char root[PATH_MAX], line[1024] = "tdaudit ", **names = NULL;
	size_t n;
	int rc = td_opt_parse(&cmd, &a, argc, argv, NULL);

	if (rc != TD_OPT_RUN)
		goto done;
	rc = td_find_root(root, sizeof root, a.root);
	if (rc)
		goto done;
	td_proc_argv_string((const char *const *)argv, line + 8, (unsigned)(sizeof line - 8));
	a.o.command = line;
	if (td_variant_names(&names, root, a.variants, a.which) != 0) {
		fprintf(stderr, "tdaudit bisect: %s\n", td_error_last());
		rc = 2;
		goto done;
	}
	n = td_strv_len(names);
	if (n <= 1) {
		a.o.variant = n ? names[0] : NULL;
		rc = td_bisect(root, &a.o);
		goto done;
	}
	for (size_t i = 0; i < n; i++) { /* one search per variant; the worst status wins */
		int one;

		printf("%stdaudit bisect: variant %s (%zu of %zu)\n", i ? "\n" : "", names[i], i + 1, n);
		fflush(stdout);
		a.o.variant = names[i];
		one = td_bisect(root, &a.o);
		rc = one > rc ? one : rc;
	}
done:
	td_strv_free(a.variants);
	td_strv_free(names);
	return rc;
}
