/*
 * tdaudit_main.c - the tdaudit command line: dispatch to one command.
 *
 * Exit status everywhere: 0 all good, 1 findings, 2 usage or environment
 * error. Only this file may exit.
 */
#include <stdio.h>
#include <string.h>

#include "commands.h"

static const struct {
	const char *name;
	int (*run)(int argc, char **argv);
	void (*usage)(FILE *f);
	const char *summary;
} commands[] = {
	{"mutate", td_cmd_mutate, td_usage_mutate,
	 "break the code on purpose from Lua catalogues; check the guards notice"},
	{"reproduce", td_cmd_reproduce, td_usage_reproduce,
	 "check that a fix commit's guards fail without the fix and pass with it"},
	{"bisect", td_cmd_bisect, td_usage_bisect,
	 "find the first commit where a test's outcome flips"},
	{"audit", td_cmd_audit, td_usage_audit,
	 "run the audit scripts against the trainer's runs: seed, config, eval, resume ..."},
	{"gates", td_cmd_gates, td_usage_gates,
	 "from the kill matrix: load-bearing, dead and redundant tests, code with no gate"},
	{"ledger", td_cmd_ledger, td_usage_ledger,
	 "check DEBUG.md against the findings ledger; export or merge ledgers"},
	{"overlap", td_cmd_overlap, td_usage_overlap,
	 "find evaluation records that overlap training records"},
};
#define N_COMMANDS (sizeof commands / sizeof commands[0])

static void usage(FILE *f)
{
	fputs("usage: tdaudit <command> [options]\n\ncommands:\n", f);
	for (size_t i = 0; i < N_COMMANDS; i++)
		fprintf(f, "  %-10s %s\n", commands[i].name, commands[i].summary);
	fputs("  version    print the version\n"
	      "  help CMD   the options of one command\n"
	      "\n"
	      "tdaudit reads tdaudit.lua at the root of the git repository that holds the\n"
	      "current directory (or --root DIR). Exit status: 0 all good, 1 findings,\n"
	      "2 usage or environment error.\n",
	      f);
}

int main(int argc, char **argv)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc < 2) {
		usage(stderr);
		return 2;
	}
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") ||
	    (!strcmp(argv[1], "help") && argc == 2)) {
		usage(stdout);
		return 0;
	}
	if (!strcmp(argv[1], "version") || !strcmp(argv[1], "--version")) {
		printf("tdaudit %s\n", TDAUDIT_VERSION);
		return 0;
	}
	for (size_t i = 0; i < N_COMMANDS; i++) {
		if (!strcmp(argv[1], "help") && !strcmp(argv[2], commands[i].name)) {
			commands[i].usage(stdout);
			return 0;
		}
		if (!strcmp(argv[1], commands[i].name))
			return commands[i].run(argc - 1, argv + 1);
	}
	return td_usage_error(NULL, "no command '%s'", !strcmp(argv[1], "help") ? argv[2] : argv[1]);
}
