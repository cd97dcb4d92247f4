/*
 * testrun.h - building a scratch tree and running one named test in it,
 * for the commands that walk history (reproduce, bisect).
 *
 * Everything runs through td_proc_run with the argv arrays of tdaudit.lua:
 * the project's build argv, a runner's list argv, a runner's run argv with
 * "{test}" replaced. A test fails when it exits non-zero, dies on a signal,
 * or prints the runner's fail_text; a run past its deadline is a timeout,
 * which is a failure too but reported as its own word. A program that
 * cannot be started is an error (TD_EIO), never a test failure.
 *
 * (mutate.c has its own copy of "run one test", because the mutation
 * catalogue names the lines it mutates there.)
 */
#ifndef TD_TESTRUN_H
#define TD_TESTRUN_H

#include <stddef.h>

#include "proc.h"
#include "project.h"

enum td_test_result { TD_TEST_PASS, TD_TEST_FAIL, TD_TEST_TIMEOUT };

/* "pass", "fail" or "timeout": the ledger's outcome words. */
const char *td_test_result_name(enum td_test_result r);

/*
 * Claims root/.tdaudit/ for a history command: creates it with a
 * .gitignore of "*" (so git never shows it), its logs/ and sub/
 * directories, and takes the lock root/.tdaudit/sub/lock. dir gets
 * root/.tdaudit. TD_ESTATE when another run holds the lock. The caller
 * closes *lock_fd (which releases it) when done.
 */
int td_testrun_claim(int *lock_fd, char *dir, size_t size, const char *root, const char *sub);

/*
 * Runs the project's build argv in tree, output to log, with the build
 * timeout. *ok = 1 when it exited 0 in time; res gets the details (for
 * td_proc_describe).
 */
int td_testrun_build(int *ok, td_proc_result *res, const td_project *p, const char *tree,
		     const char *log);

/*
 * The runner (index into p->runners) whose list argv, run in tree, prints
 * test; -1 when none does. TD_EIO when a list argv fails.
 */
int td_testrun_find_runner(int *runner, const td_project *p, const char *test, const char *tree,
			   const char *log);

/*
 * Runs test with runner k in tree, output to log (truncated first), killed
 * after limit seconds. *out gets the result, *seconds the time it took.
 */
int td_testrun_one(enum td_test_result *out, double *seconds, const td_project *p, int k,
		   const char *test, const char *tree, const char *log, double limit);

#endif
