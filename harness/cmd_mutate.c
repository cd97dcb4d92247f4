/*
 * cmd_mutate.c - the command line of `tdaudit mutate` (see mutate.h for
 * what a run does).
 */
#define _GNU_SOURCE
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "commands.h"
#include "mutate.h"

const char td_usage_mutate[] =
	"usage: tdaudit mutate [--only PATTERN] [--file GLOB] [--diff REV | --rev REV] [-j N]\n"
	"                      [--timeout S] [--list [--guard TEST]] [--json FILE]\n"
	"                      [--junit FILE] [--root DIR] [--cold]\n"
	"\n"
	"Runs every mutant of the catalogues named in tdaudit.lua in scratch copies\n"
	"under .tdaudit/ (the working tree, index and HEAD are never touched): build,\n"
	"run the guards, then the rest of the suite.\n"
	"\n"
	"  --only PATTERN  only mutants whose id matches the shell pattern (repeatable:\n"
	"                  those matching any; a pattern that matches none is refused)\n"
	"  --file GLOB     only mutants of files matching GLOB, as tdaudit.lua's globs match\n"
	"                  ('*' does not cross '/'); with --list, also shows their guards:\n"
	"                  what breaks core/plan.c, and who guards it?\n"
	"  --diff REV      only mutants on lines changed since REV (working tree included)\n"
	"  --rev REV       mutate the committed revision REV instead of the working tree\n"
	"                  (tdaudit.lua and the catalogues still come from the working tree)\n"
	"  -j, --jobs N    scratch workers (default: the number of cores)\n"
	"  --timeout S     seconds per test (default: factor x its baseline time, floor)\n"
	"  --list          print the mutants (id, file:line, operator, state); run nothing\n"
	"  --guard TEST    with --list: only entries naming a guard matching the shell\n"
	"                  pattern TEST, with their guards: what does this test guard?\n"
	"                  (--file and --guard refuse a pattern that matches none)\n"
	"  --json FILE     write the report as JSON (schema tdaudit.mutate/1)\n"
	"  --junit FILE    write the report as JUnit XML (survivors are failures)\n"
	"  --root DIR      the repository (default: the one holding the current directory)\n"
	"  --cold          the naive way, for benchmarks: a fresh copy, a clean build and\n"
	"                  the whole suite for every mutant (same outcomes, much slower)\n"
	"\n"
	"exit status: 0 every mutant caught; 1 a mutant survived, was stale, was\n"
	"killed only by a test not named as its guard, or is a catalogue entry that\n"
	"does not build; 2 usage or environment error (a red baseline included).\n";

int td_cmd_mutate(int argc, char **argv)
{
	td_mutate_opts o = TD_MUTATE_OPTS_INIT;
	td_opts_seen seen = {{NULL}, 0};
	const char *root_arg = NULL, *only[32];
	char root[PATH_MAX], command[1024];
	int rc;

	o.only = only;
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
		int takes = 1;

		if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
			fputs(td_usage_mutate, stdout);
			return 0;
		} else if (!strcmp(a, "--list")) {
			o.list = 1, takes = 0;
		} else if (!strcmp(a, "--cold")) {
			o.cold = 1, takes = 0;
		} else if (!strncmp(a, "-j", 2) && a[2]) { /* -j4 */
			v = a + 2, takes = 0;
			if (td_option_once(&seen, "mutate", "-j"))
				return 2;
			if (td_positive(v) < 1 || td_positive(v) > 64 || td_positive(v) != (int)td_positive(v))
				return td_usage_error("mutate", "-j needs a whole number 1..64, not '%s'", v);
			o.jobs = (int)td_positive(v);
		} else if (!strcmp(a, "-j") || !strcmp(a, "--jobs")) {
			if (td_option_once(&seen, "mutate", "-j"))
				return 2;
			if (td_positive(v) < 1 || td_positive(v) > 64 || td_positive(v) != (int)td_positive(v))
				return td_usage_error("mutate", "-j needs a whole number 1..64, not '%s'", v ? v : "");
			o.jobs = (int)td_positive(v);
		} else if (!strcmp(a, "--timeout")) {
			if (td_option_once(&seen, "mutate", "--timeout"))
				return 2;
			if ((o.timeout = td_positive(v)) < 0)
				return td_usage_error("mutate", "--timeout needs a positive number of seconds, not '%s'",
						   v ? v : "");
		} else if (!strcmp(a, "--only") || !strcmp(a, "--json") || !strcmp(a, "--junit") ||
			   !strcmp(a, "--root") || !strcmp(a, "--diff") || !strcmp(a, "--rev") ||
			   !strcmp(a, "--file") || !strcmp(a, "--guard")) {
			if (!v)
				return td_usage_error("mutate", "%s needs a value", a);
			if (strcmp(a, "--only") && td_option_once(&seen, "mutate", a))
				return 2;
			if (!strcmp(a, "--only") && o.n_only == sizeof only / sizeof only[0])
				return td_usage_error("mutate", "--only is given more than %zu times; "
						  "one shell pattern can match many ids",
						  sizeof only / sizeof only[0]);
			if (!strcmp(a, "--only"))
				only[o.n_only++] = v;
			else if (!strcmp(a, "--json"))
				o.json = v;
			else if (!strcmp(a, "--junit"))
				o.junit = v;
			else if (!strcmp(a, "--diff"))
				o.diff = v;
			else if (!strcmp(a, "--rev"))
				o.rev = v;
			else if (!strcmp(a, "--file"))
				o.file = v;
			else if (!strcmp(a, "--guard"))
				o.guard = v;
			else
				root_arg = v;
		} else {
			return td_usage_error("mutate", "unknown option '%s'", a);
		}
		i += takes;
	}
	rc = td_find_root(root, sizeof root, root_arg);
	if (rc)
		return rc;
	o.color = isatty(1) && !getenv("NO_COLOR");
	o.command = td_command_line(command, sizeof command, argc, argv);
	return td_mutate(root, &o);
}

