/*
 * tdaudit_main.c - the tdaudit command line.
 *
 * Parses arguments, finds the repository, and hands over to one command.
 * Exit status everywhere: 0 all good, 1 findings, 2 usage or environment
 * error. Only this file may exit.
 */
#define _GNU_SOURCE
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../core/error.h"
#include "mutate.h"
#include "repo.h"

#define TDAUDIT_VERSION "0.1.0"

static const char usage_main[] =
	"usage: tdaudit <command> [options]\n"
	"\n"
	"commands:\n"
	"  mutate     break the code on purpose from Lua catalogues; check the guards notice\n"
	"  version    print the version\n"
	"  help CMD   the options of one command\n"
	"\n"
	"tdaudit reads tdaudit.lua at the root of the git repository that holds the\n"
	"current directory (or --root DIR). Exit status: 0 all good, 1 findings,\n"
	"2 usage or environment error.\n";

static const char usage_mutate[] =
	"usage: tdaudit mutate [--only PATTERN] [-j N] [--timeout S] [--list]\n"
	"                      [--json FILE] [--junit FILE] [--root DIR]\n"
	"\n"
	"Runs every mutant of the catalogues named in tdaudit.lua in scratch copies\n"
	"under .tdaudit/ (the working tree, index and HEAD are never touched): build,\n"
	"run the guards, then the rest of the suite.\n"
	"\n"
	"  --only PATTERN  only mutants whose id matches the shell pattern\n"
	"  -j, --jobs N    scratch workers (default: the number of cores)\n"
	"  --timeout S     seconds per test (default: factor x its baseline time, floor)\n"
	"  --list          print the mutants (id, file:line, operator, state); run nothing\n"
	"  --json FILE     write the report as JSON (schema tdaudit.mutate/1)\n"
	"  --junit FILE    write the report as JUnit XML (survivors are failures)\n"
	"  --root DIR      the repository (default: the one holding the current directory)\n"
	"\n"
	"exit status: 0 every mutant caught; 1 a mutant survived, was stale or was\n"
	"killed only by a test not named as its guard; 2 usage or environment error\n"
	"(a red baseline included).\n";

static int usage_error(const char *cmd, const char *fmt, const char *arg)
{
	fprintf(stderr, "tdaudit%s%s: ", cmd ? " " : "", cmd ? cmd : "");
	fprintf(stderr, fmt, arg);
	fprintf(stderr, "\n(tdaudit help%s%s for the options)\n", cmd ? " " : "", cmd ? cmd : "");
	return 2;
}

/* Parses a positive number; -1 if s is not one. */
static double positive(const char *s)
{
	char *end;
	double v = s ? strtod(s, &end) : -1;

	return s && *s && !*end && v > 0 ? v : -1;
}

static int find_root(char *root, size_t size, const char *given)
{
	char cwd[PATH_MAX];

	if (!given && !getcwd(cwd, sizeof cwd)) {
		fprintf(stderr, "tdaudit: cannot read the current directory\n");
		return 2;
	}
	if (td_repo_root(root, size, given ? given : cwd) != 0) {
		fprintf(stderr, "tdaudit: %s\n", td_error_last());
		return 2;
	}
	return 0;
}

static int cmd_mutate(int argc, char **argv)
{
	td_mutate_opts o = TD_MUTATE_OPTS_INIT;
	const char *root_arg = NULL;
	char root[PATH_MAX];
	int rc;

	for (int i = 1; i < argc; i++) {
		const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
		int takes = 1;

		if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
			fputs(usage_mutate, stdout);
			return 0;
		} else if (!strcmp(a, "--list")) {
			o.list = 1, takes = 0;
		} else if (!strcmp(a, "-j") || !strcmp(a, "--jobs")) {
			if (positive(v) < 1 || positive(v) > 64 || positive(v) != (int)positive(v))
				return usage_error("mutate", "-j needs a whole number 1..64, not '%s'", v ? v : "");
			o.jobs = (int)positive(v);
		} else if (!strcmp(a, "--timeout")) {
			if ((o.timeout = positive(v)) < 0)
				return usage_error("mutate", "--timeout needs a positive number of seconds, not '%s'",
						   v ? v : "");
		} else if (!strcmp(a, "--only") || !strcmp(a, "--json") || !strcmp(a, "--junit") ||
			   !strcmp(a, "--root")) {
			if (!v)
				return usage_error("mutate", "%s needs a value", a);
			if (!strcmp(a, "--only"))
				o.only = v;
			else if (!strcmp(a, "--json"))
				o.json = v;
			else if (!strcmp(a, "--junit"))
				o.junit = v;
			else
				root_arg = v;
		} else {
			return usage_error("mutate", "unknown option '%s'", a);
		}
		i += takes;
	}
	rc = find_root(root, sizeof root, root_arg);
	if (rc)
		return rc;
	o.color = isatty(1) && !getenv("NO_COLOR");
	return td_mutate(root, &o);
}

int main(int argc, char **argv)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc < 2 || !strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") ||
	    (!strcmp(argv[1], "help") && argc == 2)) {
		fputs(usage_main, argc < 2 ? stderr : stdout);
		return argc < 2 ? 2 : 0;
	}
	if (!strcmp(argv[1], "help"))
		return !strcmp(argv[2], "mutate") ? (fputs(usage_mutate, stdout), 0)
						 : usage_error(NULL, "no command '%s'", argv[2]);
	if (!strcmp(argv[1], "version") || !strcmp(argv[1], "--version")) {
		printf("tdaudit %s\n", TDAUDIT_VERSION);
		return 0;
	}
	if (!strcmp(argv[1], "mutate"))
		return cmd_mutate(argc - 1, argv + 1);
	return usage_error(NULL, "no command '%s'", argv[1]);
}
