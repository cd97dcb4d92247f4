/*
 * test_runner.c - the runner's own contract, which tdaudit drives:
 * --list names every test, --only runs exactly one, and the exit status is
 * 0 iff nothing failed, 1 if a test failed, 2 for an unknown name.
 *
 * The runner is run as a child process (itself, via /proc/self/exe).
 * test_a_failing_fixture_fails_on_request is a fixture, not a guard: it
 * passes unless TDTEST_FIXTURE_FAIL is set, which only these tests do.
 *
 * What these tests guard: tdaudit mutate --list --file tests/tdtest.c
 *
 * Edits seen breaking these tests that the catalogue may not hold:
 *   - --only running the whole group -> only_runs_exactly_one_test
 *   - --group running every group, or none -> group_runs_that_files_tests_alone
 */
#define _XOPEN_SOURCE 700
#include "tdtest.h"

#include <fcntl.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

/* Runs this runner with args; its stdout+stderr go to out.txt. Exit status. */
static int run_self(const char *a1, const char *a2, const char *env_extra)
{
	char exe[4096];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
	char *argv[] = {exe, (char *)a1, (char *)a2, NULL};
	char *envp[256];
	posix_spawn_file_actions_t fa;
	pid_t pid;
	int st, k = 0;

	assert_true(n > 0);
	exe[n] = '\0';
	for (char **e = environ; *e && k < 254; e++)
		envp[k++] = *e;
	if (env_extra)
		envp[k++] = (char *)env_extra;
	envp[k] = NULL;
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_addopen(&fa, 1, "out.txt", O_WRONLY | O_CREAT | O_TRUNC, 0644);
	posix_spawn_file_actions_adddup2(&fa, 1, 2);
	assert_int_equal(posix_spawn(&pid, exe, &fa, NULL, argv, envp), 0);
	posix_spawn_file_actions_destroy(&fa);
	assert_int_equal(waitpid(pid, &st, 0), pid);
	assert_true(WIFEXITED(st));
	return WEXITSTATUS(st);
}

static char *slurp(const char *path)
{
	static char buf[1 << 16];
	FILE *f = fopen(path, "r");
	size_t n;

	assert_non_null(f);
	n = fread(buf, 1, sizeof buf - 1, f);
	buf[n] = '\0';
	fclose(f);
	return buf;
}

static void test_a_failing_fixture_fails_on_request(void **state)
{
	(void)state;
	if (getenv("TDTEST_FIXTURE_FAIL"))
		fail_msg("failing on purpose (TDTEST_FIXTURE_FAIL is set)");
}

static void test_a_failing_test_makes_the_runner_exit_1(void **state)
{
	(void)state;
	assert_int_equal(run_self("--only", "test_a_failing_fixture_fails_on_request",
				  "TDTEST_FIXTURE_FAIL=1"),
			 1);
	assert_non_null(strstr(slurp("out.txt"), "tdtest: 0 passed, 1 failed, 0 skipped"));
}

static void test_only_runs_exactly_one_test(void **state)
{
	(void)state;
	assert_int_equal(run_self("--only", "test_a_failing_fixture_fails_on_request", NULL), 0);
	assert_non_null(strstr(slurp("out.txt"), "tdtest: 1 passed, 0 failed, 0 skipped"));
}

static void test_an_unknown_test_name_exits_2(void **state)
{
	(void)state;
	assert_int_equal(run_self("--only", "test_that_does_not_exist", NULL), 2);
	assert_non_null(strstr(slurp("out.txt"), "no test named 'test_that_does_not_exist'"));
	assert_int_equal(run_self("--bogus", NULL, NULL), 2);
}

/* rng, not runner: a runner group run from here would run this test again. */
static void test_group_runs_that_files_tests_alone(void **state)
{
	const char *out;

	(void)state;
	assert_int_equal(run_self("--group", "rng", NULL), 0);
	out = slurp("out.txt");
	assert_non_null(strstr(out, "[ RUN      ] test_philox_matches_the_published_known_answer_vectors"));
	assert_null(strstr(out, "test_list_names_every_test_once"));
	assert_null(strstr(out, "tdtest: 0 passed"));
	assert_int_equal(run_self("--group", "no_such_group", NULL), 2);
	assert_non_null(strstr(slurp("out.txt"), "no group named 'no_such_group'"));
}

static void test_list_names_every_test_once(void **state)
{
	char *out;

	(void)state;
	assert_int_equal(run_self("--list", NULL, NULL), 0);
	out = slurp("out.txt");
	assert_non_null(strstr(out, "test_list_names_every_test_once\n"));
	assert_non_null(strstr(out, "test_philox_matches_the_published_known_answer_vectors\n"));
	assert_null(strstr(out, "[ RUN")); /* names only: nothing ran */
}

static const struct CMUnitTest tests[] = {
	cmocka_unit_test(test_a_failing_fixture_fails_on_request),
	cmocka_unit_test(test_a_failing_test_makes_the_runner_exit_1),
	cmocka_unit_test(test_only_runs_exactly_one_test),
	cmocka_unit_test(test_an_unknown_test_name_exits_2),
	cmocka_unit_test(test_list_names_every_test_once),
	cmocka_unit_test(test_group_runs_that_files_tests_alone),
};
TD_TEST_GROUP(runner, tests);
