/*
 * tdaudit_main.c - the tdaudit command line: dispatch to one command, and
 * the thread that takes SIGINT, SIGTERM and SIGHUP.
 *
 * Exit status everywhere: 0 all good, 1 findings, 2 usage or environment
 * error, 128+N after signal N. Only this file may exit.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "commands.h"
#include "reaper.h"

#define STOP_GRACE_S 10 /* for the command to clean up after a stop before the process ends */

/* SIGINT, SIGTERM and SIGHUP: the signals that stop tdaudit cleanly. */
static void stop_signals(sigset_t *set)
{
	sigemptyset(set);
	sigaddset(set, SIGINT);
	sigaddset(set, SIGTERM);
	sigaddset(set, SIGHUP);
}

/*
 * The signal thread. The first signal kills every running child (the
 * workers' waits return, the runs fail with "stopped", each mutant's file
 * is restored in its scratch tree, the command returns to main). If main
 * has not ended STOP_GRACE_S seconds later (a command busy in code that
 * runs no child), or a second signal comes, every descendant is killed
 * here and the process ends with 128+signo.
 */
static void *signal_thread(void *arg)
{
	sigset_t set;
	int sig = 0, again;

	(void)arg;
	stop_signals(&set);
	while (sigwait(&set, &sig) != 0)
		;
	fprintf(stderr, "tdaudit: SIG%s: stopping: killing the running tests\n", sigabbrev_np(sig));
	td_reaper_stop(sig);
	again = sigtimedwait(&set, NULL, &(struct timespec){STOP_GRACE_S, 0});
	fprintf(stderr, "tdaudit: SIG%s: %s; every child killed\n", sigabbrev_np(sig),
		again > 0 ? "a second signal" : "cleanup took too long");
	td_reaper_sweep_all();
	_exit(128 + sig);
}

/*
 * Blocks the stop signals in main (so in every thread it starts) and starts
 * the thread that takes them. Children start with an empty mask (proc.c).
 */
static void catch_signals(void)
{
	sigset_t set;
	pthread_t th;

	stop_signals(&set);
	pthread_sigmask(SIG_BLOCK, &set, NULL);
	if (pthread_create(&th, NULL, signal_thread, NULL) == 0)
		pthread_detach(th);
}

/* Runs a command; after it, kills what is left and turns a stop into 128+signo. */
static int run_command(int (*run)(int argc, char **argv), int argc, char **argv)
{
	int rc = run(argc, argv), sig;

	td_reaper_sweep_all();
	sig = td_reaper_stopped();
	if (!sig)
		return rc;
	fprintf(stderr, "tdaudit: stopped by SIG%s; every child killed, the working tree untouched\n",
		sigabbrev_np(sig));
	return 128 + sig;
}

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
	{"report", td_cmd_report, td_usage_report,
	 "write the ledger as one self-contained HTML page: score, survivors, findings ..."},
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
	      "2 usage or environment error, 128+N stopped by signal N.\n",
	      f);
}

int main(int argc, char **argv)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	catch_signals();
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
			return run_command(commands[i].run, argc - 1, argv + 1);
	}
	return td_usage_error(NULL, "no command '%s'", !strcmp(argv[1], "help") ? argv[2] : argv[1]);
}
