/*
 * sanitize.h - tdaudit mutate --sanitize: mutants built and run under
 * AddressSanitizer, LeakSanitizer and UndefinedBehaviorSanitizer, where a
 * sanitizer's report in a test's output is a kill, recorded with the
 * report's first lines.
 *
 * tdaudit cannot know how a project builds with the sanitizers, so the
 * build is the project's own: tdaudit.lua's variant "sanitize" (or the
 * one --variant names), e.g.
 *
 *   variant { name = "sanitize",
 *             args = { "CFLAGS=-fsanitize=address,undefined -fno-omit-frame-pointer -g" } }
 *
 * What tdaudit adds is the run time's options, in that variant's
 * environment, so that every report ends the process with a non-zero
 * status: ASAN_OPTIONS (halt_on_error=1, detect_leaks=1,
 * exitcode=TD_SANITIZE_EXIT) and UBSAN_OPTIONS (halt_on_error=1,
 * print_stacktrace=1, exitcode=TD_SANITIZE_EXIT). A variant that sets
 * them already keeps its own options, followed by these, which win.
 */
#ifndef TD_SANITIZE_H
#define TD_SANITIZE_H

#include <stddef.h>

#include "project.h"

/* The exit status a sanitizer report ends a test with under --sanitize. */
#define TD_SANITIZE_EXIT 86

/* The example declaration a refusal shows: a variant { } that builds with the sanitizers. */
#define TD_SANITIZE_EXAMPLE                                                                        \
	"variant { name = \"sanitize\", args = { \"CFLAGS=-fsanitize=address,undefined "        \
	"-fno-omit-frame-pointer -g\" } }"

/* Adds the sanitizers' options (above) to variant v's environment. TD_ENOMEM on failure. */
int td_sanitize_env(td_project *p, int v);

/*
 * Whether the output in log holds a sanitizer's report (a line with
 * "ERROR: ...Sanitizer: ", "WARNING: ThreadSanitizer: " or UBSan's
 * "runtime error: "). If so, detail gets "sanitizer: " and that line (its
 * "==PID==" left out), tail the next lines (at most 3, " / " between
 * them), each cut to fit; else neither is touched. Quiet: it reads the log
 * without setting the thread's error message.
 */
int td_sanitize_report(char *detail, size_t dsize, char *tail, size_t tsize, const char *log);

#endif
