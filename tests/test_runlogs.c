/*
 * test_runlogs.c - each run's directory of logs (td_testrun_run_logs):
 * the oldest are pruned to the TD_RUNS_KEPT newest, but never the
 * directory of a run still going, whose logs it is writing.
 *
 * What these tests guard: tdaudit mutate --list --file harness/testrun.c
 *
 * Edits seen breaking these tests:
 *   - the pruning loop without its running() check (the old code)
 *     -> a_running_runs_logs_are_never_pruned
 *   - i < n - TD_RUNS_KEPT made i < n (everything pruned)
 *     -> the_oldest_finished_runs_are_pruned_to_the_newest_ten
 */
#define _XOPEN_SOURCE 700
#include "tdtest.h"

#include <signal.h>
#include <stdio.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../base/error.h"
#include "../base/fileio.h"
#include "../harness/testrun.h"

/* The pid of a process that has ended and been reaped. */
static pid_t dead_pid(void)
{
	pid_t pid = fork();

	assert_true(pid >= 0);
	if (pid == 0)
		_exit(0);
	assert_int_equal(waitpid(pid, NULL, 0), pid);
	return pid;
}

static int exists(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0;
}

/* state/logs/runs/2020010100000KZ-PID with a log in it. */
static void make_run(char *out, size_t size, int k, long pid)
{
	char log[600];

	snprintf(out, size, "state/logs/runs/20200101T0000%02dZ-%ld", k, pid);
	assert_int_equal(td_mkdirs(out), 0);
	snprintf(log, sizeof log, "%s/x.log", out);
	assert_int_equal(td_file_write_atomic(log, "x\n", 2, 0644), 0);
}

static void test_the_oldest_finished_runs_are_pruned_to_the_newest_ten(void **state)
{
	char dirs[14][300], mine[4400];
	long gone = (long)dead_pid();

	(void)state;
	for (int k = 0; k < 14; k++)
		make_run(dirs[k], sizeof dirs[k], k, gone);
	assert_int_equal(td_testrun_run_logs(mine, sizeof mine, "state"), 0);
	assert_true(exists(mine));
	/* 15 in all: the 5 oldest go, so that 10 are left with this run's */
	for (int k = 0; k < 14; k++)
		if (exists(dirs[k]) != (k >= 5))
			fail_msg("%s: %s", dirs[k], k >= 5 ? "pruned, but among the newest ten" : "kept");
}

static void test_a_running_runs_logs_are_never_pruned(void **state)
{
	char dirs[14][300], mine[4400];
	long gone = (long)dead_pid();
	pid_t alive = fork();

	(void)state;
	assert_true(alive >= 0);
	if (alive == 0) {
		pause();
		_exit(0);
	}
	/* the oldest run is still going: a long mutate, while newer ones came and went */
	make_run(dirs[0], sizeof dirs[0], 0, (long)alive);
	for (int k = 1; k < 14; k++)
		make_run(dirs[k], sizeof dirs[k], k, gone);
	assert_int_equal(td_testrun_run_logs(mine, sizeof mine, "state"), 0);
	kill(alive, SIGKILL);
	waitpid(alive, NULL, 0);
	if (!exists(dirs[0]))
		fail_msg("the logs of running process %ld were pruned", (long)alive);
	assert_true(exists(mine));
	for (int k = 1; k < 5; k++) /* finished ones still go */
		assert_false(exists(dirs[k]));
}

static const struct CMUnitTest tests[] = {
	cmocka_unit_test(test_the_oldest_finished_runs_are_pruned_to_the_newest_ten),
	cmocka_unit_test(test_a_running_runs_logs_are_never_pruned),
};
TD_TEST_GROUP(runlogs, tests);
