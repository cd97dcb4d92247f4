/*
 * cmd_bisect.c - the command line of `tdaudit bisect` (see bisect.h for
 * what a run does).
 */
#define _GNU_SOURCE
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bisect.h"
#include "commands.h"
#include "proc.h"

const char td_usage_bisect[] =
	"usage: tdaudit bisect --guard NAME [--good REV] [--bad REV] [--find fix|regression]\n"
	"                      [--tests-at REV] [--timeout S] [--root DIR]\n"
	"\n"
	"Finds the first commit on the first-parent line from --bad back to --good\n"
	"where the test NAME's outcome flips, by binary search. Each commit tried is\n"
	"built in a scratch tree under .tdaudit/ written from git (the working tree,\n"
	"index and HEAD are never touched); one that does not build is skipped and\n"
	"reported. Every commit tried is printed with its outcome.\n"
	"\n"
	"  --guard NAME    the test to run (required)\n"
	"  --good REV      the old end (default: the first commit of the line)\n"
	"  --bad REV       the new end (default: HEAD)\n"
	"  --find fix      the first commit where NAME passes (it must pass at --bad)\n"
	"  --find regression  the first commit where NAME fails (it must fail at --bad)\n"
	"                  (default: whichever --bad shows)\n"
	"  --tests-at REV  every commit tried gets the test files (tdaudit.lua's tests)\n"
	"                  as at REV: to find the fix for what a later test checks\n"
	"  --timeout S     seconds per test run (default: tdaudit.lua's build timeout)\n"
	"  --root DIR      the repository (default: the one holding the current directory)\n"
	"\n"
	"exit status: 0 found; 1 commits that do not build hide which one it is (all\n"
	"are listed); 2 usage or environment error (an end that does not build, no\n"
	"flip between the ends included, a repository owned by another user too).\n"
	"A result (0 or 1) is recorded in the ledger: the ends, the commit found\n"
	"(none when ambiguous), the direction, the commits skipped, the builds.\n";

/* Parses the options; returns -1 when they parsed, else the exit status. */
static int parse(td_bisect_opts *o, const char **root, int argc, char **argv)
{
	td_opts_seen seen = {{NULL}, 0};

	for (int i = 1; i < argc; i++) {
		const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;

		if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
			fputs(td_usage_bisect, stdout);
			return 0;
		}
		if (strcmp(a, "--guard") && strcmp(a, "--good") && strcmp(a, "--bad") &&
		    strcmp(a, "--find") && strcmp(a, "--timeout") && strcmp(a, "--root") &&
		    strcmp(a, "--tests-at"))
			return td_usage_error("bisect", "unknown option or argument '%s'", a);
		if (!v)
			return td_usage_error("bisect", "%s needs a value", a);
		if (td_option_once(&seen, "bisect", a))
			return 2;
		if (!strcmp(a, "--guard"))
			o->guard = v;
		else if (!strcmp(a, "--good"))
			o->good = v;
		else if (!strcmp(a, "--bad"))
			o->bad = v;
		else if (!strcmp(a, "--tests-at"))
			o->tests_at = v;
		else if (!strcmp(a, "--root"))
			*root = v;
		else if (!strcmp(a, "--timeout") && (o->timeout = td_positive(v)) < 0)
			return td_usage_error("bisect", "--timeout needs a positive number of seconds, not '%s'", v);
		else if (!strcmp(a, "--find") && strcmp(v, "fix") && strcmp(v, "regression"))
			return td_usage_error("bisect", "--find is fix or regression, not '%s'", v);
		else if (!strcmp(a, "--find"))
			o->find = !strcmp(v, "fix") ? TD_BISECT_FIX : TD_BISECT_REGRESSION;
		i++;
	}
	if (!o->guard)
		return td_usage_error("bisect", "which test? give --guard NAME");
	return -1;
}

int td_cmd_bisect(int argc, char **argv)
{
	td_bisect_opts o = TD_BISECT_OPTS_INIT;
	const char *root_arg = NULL;
	char root[PATH_MAX], cmd[1024] = "tdaudit ";
	int rc = parse(&o, &root_arg, argc, argv);

	if (rc >= 0)
		return rc;
	rc = td_find_root(root, sizeof root, root_arg);
	if (rc)
		return rc;
	td_proc_argv_string((const char *const *)argv, cmd + 8, (unsigned)(sizeof cmd - 8));
	o.command = cmd;
	return td_bisect(root, &o);
}
