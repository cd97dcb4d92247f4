/*
 * test_killed.c - a tdaudit run SIGKILLed in the middle of a build: the
 * next run of the same command must build again, not take the half-written
 * output the killed build left in the scratch tree as up to date.
 *
 * The fixture's build writes its output in two steps, as a linker does: a
 * file that cannot run first, the program after. While a flag file exists
 * it pauses between the two, says so, and is killed there.
 *
 * What these tests guard: tdaudit mutate --list --file harness/testrun.c
 *
 * Edits seen breaking these tests:
 *   - td_testrun_build() not writing its mark, or
 *     td_testrun_reset_if_cut() not removing the tree
 *     -> a_build_killed_halfway_is_built_again_by_the_next_run
 *        (the next run cannot run ./t: Permission denied, exit 2)
 *   - td_reaper_claim() not killing the orphans of a dead run (the old
 *     code: none did) -> the_next_run_kills_what_a_killed_run_left_running
 */
#define _XOPEN_SOURCE 700
#include "tdtest.h"

#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "fixture.h"

static const char t_c[] =
	"#include <stdio.h>\n#include <string.h>\n"
	"int add(int, int);\n"
	"int main(int argc, char **argv)\n{\n"
	"\tif (argc > 1 && !strcmp(argv[1], \"--list\")) { puts(\"test_add\"); return 0; }\n"
	"\tif (argc > 1 && !strcmp(argv[1], \"test_add\")) {\n"
	"\t\tint ok = add(2, 3) == 5;\n"
	"\t\tprintf(\"test_add %s\\n\", ok ? \"ok\" : \"FAILED\");\n"
	"\t\treturn !ok;\n\t}\n\treturn 2;\n}\n";

static const char config[] =
	"build { \"make\", \"-s\" }\n"
	"runner { list = { \"./t\", \"--list\" }, run = { \"./t\", \"{test}\" } }\n"
	"sources { \"calc.c\" }\n"
	"tests { \"t.c\", \"Makefile\" }\n"
	"catalogues { \"cat.lua\" }\n"
	"timeout { factor = 5, floor = 5 }\n"
	"confine \"off\"\n"; /* the build tells the test it paused by a file outside its tree */

static const char catalogue[] =
	"mutant { name = \"calc-sub\", file = \"calc.c\", find = \"a + b\", replace = \"a - b\",\n"
	"  guards = { \"test_add\" }, designed_against = \"x\", why = \"subtracts\" }\n";

static char here[PATH_MAX]; /* the test's directory: the flag files live there */

/* C0: add() subtracts; C1: add() adds. The build pauses while here/slow exists. */
static void make_history(void)
{
	char mk[4 * PATH_MAX];

	assert_non_null(getcwd(here, sizeof here));
	snprintf(mk, sizeof mk,
		 "t: t.c calc.c\n"
		 "\tprintf 'half-written' > t\n"
		 "\tif [ -f %s/slow ]; then echo $$$$ > %s/recipe.pid; touch %s/started; sleep 10; fi\n"
		 "\tcc -O0 -o t t.c calc.c\n",
		 here, here, here);
	fx_write("repo", "t.c", t_c);
	fx_write("repo", "Makefile", mk);
	fx_write("repo", "tdaudit.lua", config);
	fx_write("repo", "cat.lua", catalogue);
	fx_write("repo", "calc.c", "int add(int a, int b)\n{\n\treturn a - b;\n}\n");
	fx_git_commit_all("repo", "C0");
	fx_write("repo", "calc.c", "int add(int a, int b)\n{\n\treturn a + b;\n}\n");
	fx_git_commit_all("repo", "C1");
}

/* Starts tdaudit args in ./repo, waits for its build to pause, and SIGKILLs it. */
static void kill_in_build(const char *const *args)
{
	const char *argv[16] = {TD_BUILD_DIR "/tdaudit"};
	struct timespec nap = {0, 10 * 1000 * 1000};
	int n = 1, st;
	pid_t pid;

	while (args[n - 1] && n < 15) {
		argv[n] = args[n - 1];
		n++;
	}
	argv[n] = NULL;
	fx_write(".", "slow", "");
	unlink("started");
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		int fd = open("killed.log", O_WRONLY | O_CREAT | O_TRUNC, 0644);

		if (fd < 0 || dup2(fd, 1) < 0 || dup2(fd, 2) < 0 || chdir("repo") != 0)
			_exit(127);
		execv(argv[0], (char *const *)argv);
		_exit(127);
	}
	for (int i = 0; i < 3000 && access("started", F_OK) != 0; i++)
		nanosleep(&nap, NULL);
	if (access("started", F_OK) != 0) {
		kill(pid, SIGKILL);
		fail_msg("the build never paused:\n%s", fx_slurp("killed.log"));
	}
	kill(pid, SIGKILL);
	assert_int_equal(waitpid(pid, &st, 0), pid);
	assert_true(WIFSIGNALED(st));
	{
		char text[32];

		snprintf(text, sizeof text, "%ld", (long)pid);
		fx_write(".", "killed.pid", text);
	}
	unlink("slow");
}

static void test_a_build_killed_halfway_is_built_again_by_the_next_run(void **state)
{
	char fix[41];
	const char *mutate[] = {"mutate", NULL};
	const char *reproduce[] = {"reproduce", fix, "--guard", "test_add", NULL};
	const char *bisect[] = {"bisect", "--guard", "test_add", NULL};
	const char *const *cmds[] = {mutate, reproduce, bisect};

	(void)state;
	make_history();
	snprintf(fix, sizeof fix, "%s", fx_git_rev("repo", "HEAD"));
	for (size_t i = 0; i < sizeof cmds / sizeof cmds[0]; i++) {
		kill_in_build(cmds[i]);
		if (fx_tdaudit("repo", "again.log", cmds[i]) != 0)
			fail_msg("tdaudit %s after a kill in its build:\n%s", cmds[i][0], fx_slurp("again.log"));
		assert_non_null(strstr(fx_slurp("again.log"), "never ended (a run was killed)"));
	}
}

/* The pid in file, or -1. */
static pid_t pid_in(const char *file)
{
	const char *text = fx_slurp(file);

	return text && *text ? (pid_t)atol(text) : -1;
}

/* Whether pid is a live process (not a zombie). */
static int alive(pid_t pid)
{
	char path[64], state = 'X';
	FILE *f;

	snprintf(path, sizeof path, "/proc/%ld/stat", (long)pid);
	if (!(f = fopen(path, "r")))
		return 0;
	if (fscanf(f, "%*d (%*[^)]) %c", &state) != 1)
		state = 'X';
	fclose(f);
	return state != 'Z' && state != 'X';
}

/*
 * make dies with the SIGKILLed tdaudit (PDEATHSIG), but its recipe's shell,
 * a grandchild, is reparented and runs on: the next run of the repository
 * kills it, and says so.
 */
static void test_the_next_run_kills_what_a_killed_run_left_running(void **state)
{
	const char *mutate[] = {"mutate", NULL};
	char want[160];
	pid_t shell;

	(void)state;
	make_history();
	unlink("recipe.pid");
	kill_in_build(mutate);
	shell = pid_in("recipe.pid");
	assert_true(shell > 0);
	if (!alive(shell)) /* the premise: nothing else has killed it */
		fail_msg("the recipe's shell %ld did not outlive the killed run", (long)shell);
	if (fx_tdaudit("repo", "again.log", mutate) != 0)
		fail_msg("tdaudit mutate after a kill in its build:\n%s", fx_slurp("again.log"));
	if (alive(shell) && !fx_gone(shell)) {
		kill(shell, SIGKILL);
		fail_msg("the recipe's shell %ld outlived the next run:\n%s", (long)shell,
			 fx_slurp("again.log"));
	}
	snprintf(want, sizeof want, "left running by tdaudit %ld, a run of this repository",
		 (long)pid_in("killed.pid"));
	if (!strstr(fx_slurp("again.log"), want))
		fail_msg("wanted \"%s\" in:\n%s", want, fx_slurp("again.log"));
}

static const struct CMUnitTest tests[] = {
	cmocka_unit_test(test_a_build_killed_halfway_is_built_again_by_the_next_run),
	cmocka_unit_test(test_the_next_run_kills_what_a_killed_run_left_running),
};

TD_TEST_GROUP(killed, tests);
