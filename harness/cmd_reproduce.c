/*
 * cmd_reproduce.c - the command line of `tdaudit reproduce` (see
 * reproduce.h for what a run decides).
 */
#define _GNU_SOURCE
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "commands.h"
#include "proc.h"
#include "reproduce.h"
#include "../base/strv.h"

const char td_usage_reproduce[] =
	"usage: tdaudit reproduce COMMIT [--guard NAME]... [--runs N] [--timeout S] [--root DIR]\n"
	"       tdaudit reproduce --at-head COMMIT [--guard NAME]... [--runs N] [--timeout S] [--root DIR]\n"
	"       tdaudit reproduce --all [--runs N] [--timeout S] [--root DIR]\n"
	"\n"
	"Checks that a fix commit's guards guard: builds, in a scratch tree under\n"
	".tdaudit/ written from git (the working tree, index and HEAD are never\n"
	"touched), the fix with its non-test files reverted to its first parent\n"
	"(before) and the fix as it is (after), and runs each test in both.\n"
	"Verdicts: guard (fails before, passes after), pin (passes both), broken\n"
	"(fails after), no-build (the pre-fix code does not build against the new\n"
	"tests), flaky (runs disagree). Results go into the ledger.\n"
	"\n"
	"  --guard NAME  a test to check (repeatable); default: the tests DEBUG.md\n"
	"                cites for the finding fixed by COMMIT, else the test\n"
	"                functions COMMIT added or changed\n"
	"  --at-head     does the guard still guard today? before = HEAD with COMMIT\n"
	"                reverted in memory (test files as at HEAD), after = HEAD;\n"
	"                recorded with the HEAD it ran on. A non-test file that does\n"
	"                not revert cleanly is listed and exits 1 (\"conflict: the fix\n"
	"                no longer reverts cleanly at HEAD\"), as does a revert that\n"
	"                changes nothing; neither is ever read as a pass\n"
	"  --all         every finding in DEBUG.md with a fix commit\n"
	"  --runs N      runs per test in each state (default 2)\n"
	"  --timeout S   seconds per test run (default: the build timeout after the fix,\n"
	"                factor x the slowest run after it, floor, before it)\n"
	"  --root DIR    the repository (default: the one holding the current directory)\n"
	"\n"
	"exit status: 0 every cited test is what it is cited as (or the commit\n"
	"changes only tests: nothing to revert); 1 a cited guard is not a guard, a\n"
	"cited pin not a pin, or none of the commit's own tests is a guard, or with\n"
	"--at-head the fix conflicts or changes nothing at HEAD; 2 usage or environment\n"
	"error (a repository owned by another user included: see safe.directory and\n"
	"TDAUDIT_TRUST_OWNER=1 in README).\n";

/* The options after the command's name; returns -1 when they parsed, else the exit status. */
static int parse(td_reproduce_opts *o, char ***guards, const char **commit, const char **root,
		 int argc, char **argv)
{
	td_opts_seen seen = {{NULL}, 0};

	for (int i = 1; i < argc; i++) {
		const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;

		if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
			fputs(td_usage_reproduce, stdout);
			return 0;
		} else if (!strcmp(a, "--all")) {
			o->all = 1;
			continue;
		} else if (!strcmp(a, "--at-head")) {
			o->at_head = 1;
			continue;
		} else if (a[0] == '-' && strcmp(a, "--guard") && strcmp(a, "--runs") &&
			   strcmp(a, "--timeout") && strcmp(a, "--root")) {
			return td_usage_error("reproduce", "unknown option '%s'", a);
		} else if (a[0] != '-') {
			if (*commit)
				return td_usage_error("reproduce", "one commit at a time, not '%s' and '%s'",
						      *commit, a);
			*commit = a;
			continue;
		} else if (!v) {
			return td_usage_error("reproduce", "%s needs a value", a);
		} else if (strcmp(a, "--guard") && td_option_once(&seen, "reproduce", a)) {
			return 2;
		} else if (!strcmp(a, "--guard")) {
			if (td_strv_push(guards, v) != 0)
				return 2;
		} else if (!strcmp(a, "--runs")) {
			if (td_positive(v) < 1 || td_positive(v) > 100 || td_positive(v) != (int)td_positive(v))
				return td_usage_error("reproduce", "--runs needs a whole number 1..100, not '%s'", v);
			o->runs = (int)td_positive(v);
		} else if (!strcmp(a, "--timeout")) {
			if ((o->timeout = td_positive(v)) < 0)
				return td_usage_error("reproduce", "--timeout needs a positive number of seconds, not '%s'", v);
		} else {
			*root = v;
		}
		i++;
	}
	if (o->all && o->at_head)
		return td_usage_error("reproduce", "--at-head reverts one fix at HEAD; give it a COMMIT, "
						   "not --all");
	if (o->all && (*commit || *guards))
		return td_usage_error("reproduce", "--all takes the commits and tests from DEBUG.md; "
						   "give no COMMIT and no --guard with it");
	if (!o->all && !*commit)
		return td_usage_error("reproduce", "which commit? give COMMIT (the fix) or --all");
	return -1;
}

int td_cmd_reproduce(int argc, char **argv)
{
	td_reproduce_opts o = TD_REPRODUCE_OPTS_INIT;
	const char *commit = NULL, *root_arg = NULL;
	char root[PATH_MAX], cmd[1024] = "tdaudit ", **guards = NULL;
	int rc = parse(&o, &guards, &commit, &root_arg, argc, argv);

	if (rc >= 0)
		goto done;
	rc = td_find_root(root, sizeof root, root_arg);
	if (rc == 0) {
		td_proc_argv_string((const char *const *)argv, cmd + 8, (unsigned)(sizeof cmd - 8));
		o.command = cmd;
		o.guards = guards;
		rc = td_reproduce(root, commit, &o);
	}
done:
	td_strv_free(guards);
	return rc;
}
