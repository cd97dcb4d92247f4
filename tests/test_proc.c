/*
 * test_proc.c - child processes: argv only, deadlines, process groups.
 *
 * What these tests guard: tdaudit mutate --list --file harness/proc.c
 *   and --list --file harness/reaper.c
 *   and --list --file harness/capture.c
 *
 * Edits seen breaking these tests that the catalogue may not hold:
 *   - td_proc_run() not checking the program exists -> a_missing_program_is_an_error
 *   - td_reaper_kill_orphans_of() without its ancestor check (the old code)
 *     -> the_sweep_of_a_dead_pid_spares_the_children_of_its_new_owner
 */
#define _XOPEN_SOURCE 700
#include "tdtest.h"

#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "../base/error.h"
#include "../harness/capture.h"
#include "../harness/proc.h"
#include "../harness/reaper.h"
#include "fixture.h"

/* The pid the shell wrote to file, or -1. */
static pid_t read_pid(const char *file)
{
	FILE *f = fopen(file, "r");
	long pid = -1;

	if (f) {
		if (fscanf(f, "%ld", &pid) != 1)
			pid = -1;
		fclose(f);
	}
	return (pid_t)pid;
}

static void test_exit_status_and_output_are_reported(void **state)
{
	const char *argv[] = {"sh", "-c", "echo hello; exit 3", NULL};
	td_proc_opts o = {0};
	td_proc_result r;
	char buf[64];

	(void)state;
	o.argv = argv;
	o.out_path = "out.txt";
	assert_int_equal(td_proc_run(&r, &o), 0);
	assert_true(r.exited && r.status == 3 && !r.timed_out);
	assert_string_equal(td_proc_describe(&r, buf, sizeof buf), "exit 3");
	assert_non_null(strstr(fx_slurp("out.txt"), "hello"));
}

static void test_a_signal_is_reported_as_a_signal(void **state)
{
	const char *argv[] = {"sh", "-c", "kill -SEGV $$", NULL};
	td_proc_opts o = {0};
	td_proc_result r;
	char buf[64];

	(void)state;
	o.argv = argv;
	assert_int_equal(td_proc_run(&r, &o), 0);
	assert_false(r.exited);
	assert_int_equal(r.status, SIGSEGV);
	assert_string_equal(td_proc_describe(&r, buf, sizeof buf), "signal 11 (SIGSEGV)");
}

static void test_a_timeout_kills_the_whole_process_group(void **state)
{
	const char *argv[] = {"sh", "-c", "sleep 30 & echo $! > grandchild.pid; wait", NULL};
	td_proc_opts o = {0};
	td_proc_result r;
	pid_t grandchild;

	(void)state;
	o.argv = argv;
	o.timeout_s = 0.5;
	assert_int_equal(td_proc_run(&r, &o), 0);
	assert_true(r.timed_out);
	assert_true(r.seconds < 5);
	grandchild = read_pid("grandchild.pid");
	assert_true(grandchild > 0);
	assert_true(fx_gone(grandchild));
}

/*
 * env -i: no run mark to find it by, so only the group kill reaches it.
 * The child exits only once the grandchild is sleep, its environment
 * empty: until env has run sleep it still carries the mark, and a sweep
 * that came first killed it by the mark (on a loaded machine, with the
 * group kill gone, the test still passed).
 */
static void test_grandchildren_do_not_outlive_a_finished_run(void **state)
{
	const char *argv[] = {"sh", "-c",
			      "env -i sleep 600 & p=$!; echo $p > grandchild.pid; "
			      "until [ \"$(cat /proc/$p/comm)\" = sleep ]; do sleep 0.01; done; exit 0",
			      NULL};
	td_proc_opts o = {0};
	td_proc_result r;

	(void)state;
	o.argv = argv;
	o.timeout_s = 10;
	assert_int_equal(td_proc_run(&r, &o), 0);
	assert_true(r.exited && r.status == 0);
	assert_true(fx_gone(read_pid("grandchild.pid")));
}

/* A grandchild that calls setsid() leaves the group; the timeout still kills it. */
static void test_a_timeout_kills_a_grandchild_that_left_the_group(void **state)
{
	const char *argv[] = {"sh", "-c",
			      "setsid sh -c 'echo $$ > grandchild.pid; exec sleep 60' & "
			      "while [ ! -s grandchild.pid ]; do sleep 0.05; done; sleep 60",
			      NULL};
	td_proc_opts o = {0};
	td_proc_result r;
	pid_t grandchild;

	(void)state;
	o.argv = argv;
	o.timeout_s = 3;
	assert_int_equal(td_proc_run(&r, &o), 0);
	assert_true(r.timed_out);
	grandchild = read_pid("grandchild.pid");
	assert_true(grandchild > 0);
	assert_true(fx_gone(grandchild));
}

/* ... and so does the sweep after a normal exit, the child having waited for it to start. */
static void test_a_grandchild_that_left_the_group_does_not_outlive_the_run(void **state)
{
	const char *argv[] = {"sh", "-c",
			      "setsid sh -c 'echo $$ > grandchild.pid; exec sleep 60' & "
			      "while [ ! -s grandchild.pid ]; do sleep 0.05; done; exit 0",
			      NULL};
	td_proc_opts o = {0};
	td_proc_result r;

	(void)state;
	o.argv = argv;
	o.timeout_s = 60;
	assert_int_equal(td_proc_run(&r, &o), 0);
	assert_true(r.exited && r.status == 0);
	assert_true(read_pid("grandchild.pid") > 0);
	assert_true(fx_gone(read_pid("grandchild.pid")));
}

/* The child dies with the process that started it, even when that one is SIGKILLed. */
static void test_a_child_does_not_outlive_a_killed_harness(void **state)
{
	struct timespec nap = {0, 10 * 1000 * 1000};
	pid_t harness, child;
	int st;

	(void)state;
	harness = fork();
	assert_true(harness >= 0);
	if (harness == 0) {
		const char *argv[] = {"sh", "-c", "echo $$ > child.pid; exec sleep 60", NULL};
		td_proc_opts o = {.argv = argv, .timeout_s = 120};
		td_proc_result r;

		_exit(td_proc_run(&r, &o) == 0 ? 0 : 1);
	}
	for (int i = 0; i < 6000 && read_pid("child.pid") <= 0; i++)
		nanosleep(&nap, NULL);
	kill(harness, SIGKILL);
	waitpid(harness, &st, 0);
	child = read_pid("child.pid");
	assert_true(child > 0);
	if (!fx_gone(child)) {
		kill(child, SIGKILL);
		fail_msg("the child %ld outlived its SIGKILLed parent", (long)child);
	}
}

/*
 * A dead run's pid may be given to a new process before the sweep of its
 * orphans reaches them (pid_max can be 32768): the new process's children
 * carry the same token but are not orphans, and must live. An orphan of a
 * pid that is really gone dies.
 */
static void test_the_sweep_of_a_dead_pid_spares_the_children_of_its_new_owner(void **state)
{
	pid_t owner, gone, orphan_parent;
	char token[64];
	int st, orphan_gone, child_gone;

	(void)state;
	owner = fork(); /* stands for a new process given the dead run's pid */
	assert_true(owner >= 0);
	if (owner == 0) {
		snprintf(token, sizeof token, "%ld:1", (long)getpid());
		setenv("TDAUDIT_PROC", token, 1);
		if (fork() == 0) {
			FILE *f = fopen("child.pid", "w");

			fprintf(f, "%ld\n", (long)getpid());
			fclose(f);
			execlp("sleep", "sleep", "600", (char *)NULL);
			_exit(127);
		}
		sleep(60); /* never pause(): a failed test must not leave it behind for long */
		_exit(0);
	}
	gone = fork(); /* a pid that will be gone, and an orphan that carries it */
	assert_true(gone >= 0);
	if (gone == 0)
		_exit(0);
	assert_int_equal(waitpid(gone, &st, 0), gone);
	orphan_parent = fork();
	assert_true(orphan_parent >= 0);
	if (orphan_parent == 0) {
		snprintf(token, sizeof token, "%ld:1", (long)gone);
		setenv("TDAUDIT_PROC", token, 1);
		if (fork() == 0) {
			FILE *f = fopen("orphan.pid", "w");

			fprintf(f, "%ld\n", (long)getpid());
			fclose(f);
			execlp("sleep", "sleep", "600", (char *)NULL);
			_exit(127);
		}
		_exit(0); /* its child is an orphan now */
	}
	assert_int_equal(waitpid(orphan_parent, &st, 0), orphan_parent);
	for (int i = 0; i < 500 && (read_pid("child.pid") <= 0 || read_pid("orphan.pid") <= 0); i++)
		nanosleep(&(struct timespec){0, 10 * 1000 * 1000}, NULL);
	nanosleep(&(struct timespec){0, 100 * 1000 * 1000}, NULL); /* both exec'd sleep */
	/* the sweep as if owner's pid had been found dead a moment before */
	td_reaper_kill_orphans_of((long)owner);
	td_reaper_kill_orphans_of((long)gone);
	orphan_gone = fx_gone(read_pid("orphan.pid"));
	child_gone = fx_gone(read_pid("child.pid"));
	kill(read_pid("orphan.pid"), SIGKILL);
	kill(read_pid("child.pid"), SIGKILL);
	kill(owner, SIGKILL);
	waitpid(owner, &st, 0);
	if (!orphan_gone)
		fail_msg("the orphan of a gone pid lived");
	if (child_gone)
		fail_msg("the child of the pid's new owner was killed");
}

/* tdaudit blocks the stop signals for its signal thread; its children must not inherit that. */
static void test_a_child_starts_with_no_signal_blocked(void **state)
{
	const char *argv[] = {"sh", "-c", "kill -TERM $$; exit 0", NULL};
	td_proc_opts o = {.argv = argv, .timeout_s = 60};
	td_proc_result r;
	sigset_t term, old;

	(void)state;
	sigemptyset(&term);
	sigaddset(&term, SIGTERM);
	pthread_sigmask(SIG_BLOCK, &term, &old);
	assert_int_equal(td_proc_run(&r, &o), 0);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	assert_false(r.exited);
	assert_int_equal(r.status, SIGTERM);
}

/*
 * A child that prints without end fills neither the disk nor the memory:
 * past the default limit (16 MiB) the output is cut, the cut is said, and
 * the end is kept.
 */
static void test_output_past_the_limit_is_cut_counted_and_its_tail_kept(void **state)
{
	const char *argv[] = {"sh", "-c", "echo START; yes 0123456789 | head -c 20000000; echo END",
			      NULL};
	td_proc_opts o = {.argv = argv, .timeout_s = 120, .out_path = "out.txt"};
	td_proc_result r;
	struct stat st;
	char cut[256] = "", end[8] = "";
	FILE *f;

	(void)state;
	assert_int_equal(td_proc_run(&r, &o), 0);
	assert_true(r.exited && r.status == 0);
	assert_int_equal(stat("out.txt", &st), 0);
	assert_true(st.st_size <= (16 << 20) + 65536 + 200);
	assert_true(strncmp(fx_slurp("out.txt"), "START\n", 6) == 0);
	f = fopen("out.txt", "r");
	assert_non_null(f);
	fseek(f, 16 << 20, SEEK_SET); /* the note follows the head */
	assert_true(fread(cut, 1, sizeof cut - 1, f) > 0);
	fseek(f, -4, SEEK_END);
	assert_true(fread(end, 1, 4, f) == 4);
	fclose(f);
	assert_non_null(strstr(cut, "bytes not kept"));
	assert_string_equal(end, "END\n");
}

/* td_proc_opts.out_limit sets the head kept; the cut is counted in out_dropped. */
static void test_a_small_output_limit_is_honoured(void **state)
{
	const char *argv[] = {"sh", "-c", "yes 0123456789 | head -c 3000000; echo END", NULL};
	td_proc_opts o = {.argv = argv, .timeout_s = 120, .out_path = "out.txt", .out_limit = 100000};
	td_proc_result r;
	struct stat st;

	(void)state;
	assert_int_equal(td_proc_run(&r, &o), 0);
	assert_int_equal(stat("out.txt", &st), 0);
	assert_true(st.st_size <= 100000 + TD_CAPTURE_TAIL + 200);
	assert_true(r.out_dropped == 3000004 - 100000 - TD_CAPTURE_TAIL);
	assert_non_null(strstr(fx_slurp("out.txt") + 100000, "bytes not kept"));
}

/* The number a shell's ulimit option prints for a child run with o ("unlimited": -1). */
static long child_ulimit_with(const char *option, td_proc_opts o)
{
	char script[64];
	const char *argv[] = {"sh", "-c", script, NULL};
	td_proc_result r;
	const char *text;

	snprintf(script, sizeof script, "ulimit %s", option);
	o.argv = argv;
	o.out_path = "ulimit.txt";
	unlink("ulimit.txt");
	assert_int_equal(td_proc_run(&r, &o), 0);
	assert_true(r.exited && r.status == 0);
	text = fx_slurp("ulimit.txt");
	return strncmp(text, "unlimited", 9) == 0 ? -1 : atol(text);
}

static long child_ulimit(const char *option, double timeout_s)
{
	return child_ulimit_with(option, (td_proc_opts){.timeout_s = timeout_s});
}

/* Tasks (threads) of this real user id now: what RLIMIT_NPROC counts. */
static long my_tasks(void)
{
	const char *argv[] = {"sh", "-c", "ps -L -U $(id -ru) -o lwp= | wc -l", NULL};
	td_proc_opts o = {.argv = argv, .timeout_s = 60, .out_path = "tasks.txt"};
	td_proc_result r;

	assert_int_equal(td_proc_run(&r, &o), 0);
	return atol(fx_slurp("tasks.txt"));
}

#define NPROC_OPTION "-u 2>/dev/null || ulimit -p" /* bash, dash */

/* The soft limit this process runs under for resource r, or -1 when there is none. */
static long soft_limit(int r)
{
	struct rlimit l;

	return getrlimit(r, &l) == 0 && l.rlim_cur != RLIM_INFINITY ? (long)l.rlim_cur : -1;
}

/* The smaller of a limit and the one this process runs under (-1: none). */
static long tighter(long want, long mine)
{
	return mine >= 0 && mine < want ? mine : want;
}

/*
 * What `ulimit -t` prints for a child that a process with the soft CPU
 * limit soft starts. In a fork: its CPU time starts at zero, where the
 * suite's process may have used more than soft already.
 */
static long child_cpu_under(rlim_t soft)
{
	pid_t pid = fork();
	int st;

	assert_true(pid >= 0);
	if (pid == 0) {
		const char *argv[] = {"sh", "-c", "ulimit -t", NULL};
		td_proc_opts o = {.argv = argv, .timeout_s = 30, .out_path = "ulimit.txt"};
		td_proc_result r;
		struct rlimit l;

		unlink("ulimit.txt");
		if (getrlimit(RLIMIT_CPU, &l) != 0)
			_exit(2);
		l.rlim_cur = soft;
		_exit(setrlimit(RLIMIT_CPU, &l) == 0 && td_proc_run(&r, &o) == 0 && r.exited &&
		      r.status == 0 ? 0 : 1);
	}
	assert_int_equal(waitpid(pid, &st, 0), pid);
	assert_true(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	return atol(fx_slurp("ulimit.txt"));
}

/*
 * Every child runs under a CPU limit that only a process outliving its
 * deadline reaches (its timeout times the cores, plus 10 s), a 1 GiB file
 * size limit and a process limit 1024 above the user's count, each never
 * looser than the limit the harness itself runs under (tdaudit mutate runs
 * this test under limits of its own, which the test once took to be
 * absent). Limits asked for below any a harness sets must then be set, not
 * inherited; and a parent's CPU limit below the child's is kept.
 */
static void test_a_child_runs_under_cpu_file_size_and_process_limits(void **state)
{
	long cores = sysconf(_SC_NPROCESSORS_ONLN), blocks = child_ulimit("-f", 30);
	long tasks = my_tasks(), nproc = child_ulimit(NPROC_OPTION, 30);
	long fsize = tighter(1L << 30, soft_limit(RLIMIT_FSIZE));
	long lower = tighter(20, soft_limit(RLIMIT_CPU)); /* below the child's 30 x cores + 10 */

	(void)state;
	assert_int_equal(child_ulimit("-t", 30), tighter(30 * cores + 10, soft_limit(RLIMIT_CPU)));
	if (blocks != fsize / 512 && blocks != fsize / 1024) /* dash counts 512 bytes, bash 1024 */
		fail_msg("ulimit -f is %ld blocks, not %ld bytes", blocks, fsize);
	if (nproc < 0 || nproc > tasks + 1024 + 512) /* slack: other processes come and go */
		fail_msg("ulimit -u is %ld with %ld tasks of this user", nproc, tasks);
	/* tighter than what tdaudit mutate gives a test (at least 20 s, 1 GiB, 1024 tasks more) */
	assert_int_equal(child_ulimit_with("-t", (td_proc_opts){.timeout_s = 30, .cpu_limit_s = 7}),
			 tighter(7, soft_limit(RLIMIT_CPU)));
	blocks = child_ulimit_with("-f", (td_proc_opts){.timeout_s = 30, .fsize_limit = 1 << 20});
	if (blocks != (1L << 20) / 512 && blocks != (1L << 20) / 1024)
		fail_msg("ulimit -f is %ld blocks, not 1 MiB", blocks);
	tasks = my_tasks();
	nproc = child_ulimit_with(NPROC_OPTION, (td_proc_opts){.timeout_s = 30, .nproc_extra = 16});
	if (nproc < 0 || nproc > tasks + 16 + 256)
		fail_msg("ulimit -u is %ld with %ld tasks of this user, not 16 more", nproc, tasks);
	assert_int_equal(child_cpu_under((rlim_t)lower), lower);
}

/* A process that spins is stopped by its CPU limit, well before the deadline. */
static void test_a_child_is_held_to_its_cpu_limit(void **state)
{
	const char *argv[] = {"sh", "-c", "while :; do :; done", NULL};
	td_proc_opts o = {.argv = argv, .timeout_s = 60, .cpu_limit_s = 1};
	td_proc_result r;

	(void)state;
	assert_int_equal(td_proc_run(&r, &o), 0);
	assert_false(r.timed_out);
	assert_false(r.exited);
	assert_true(r.status == SIGXCPU || r.status == SIGKILL);
}

/* A process that writes a file past its size limit is stopped there: the disk is not filled. */
static void test_a_child_cannot_write_a_file_past_its_size_limit(void **state)
{
	const char *argv[] = {"sh", "-c", "head -c 5000000 /dev/zero > big.bin", NULL};
	td_proc_opts o = {.argv = argv, .timeout_s = 120, .fsize_limit = 1 << 20};
	td_proc_result r;
	struct stat st;

	(void)state;
	assert_int_equal(td_proc_run(&r, &o), 0);
	assert_false(r.exited && r.status == 0);
	assert_int_equal(stat("big.bin", &st), 0);
	assert_true(st.st_size <= 1 << 20);
}

/*
 * A fork bomb is held to its process limit: forks fail and the shell gives
 * up, long before the deadline. Linux does not hold root to RLIMIT_NPROC,
 * so as root the run is made by a helper that drops to nobody.
 */
static void test_a_child_cannot_start_processes_past_its_limit(void **state)
{
	pid_t helper;
	int st;

	(void)state;
	helper = fork();
	assert_true(helper >= 0);
	if (helper == 0) {
		const char *argv[] = {"sh", "-c",
				      "i=0; while [ $i -lt 300 ]; do sleep 100 & i=$((i+1)); done; wait",
				      NULL};
		td_proc_opts o = {.argv = argv, .timeout_s = 100, .nproc_extra = 40};
		td_proc_result r;

		if (getuid() == 0 && (setgid(65534) != 0 || setuid(65534) != 0))
			_exit(3);
		if (td_proc_run(&r, &o) != 0)
			_exit(4);
		_exit(r.timed_out ? 1 : r.exited && r.status == 0 ? 2 : 0);
	}
	assert_int_equal(waitpid(helper, &st, 0), helper);
	assert_true(WIFEXITED(st));
	if (WEXITSTATUS(st) != 0)
		fail_msg("the fork bomb was not held to its limit (helper status %d: 1 timeout, 2 "
			 "every fork worked, 3 no setuid, 4 not run)", WEXITSTATUS(st));
}

static void test_a_missing_program_is_an_error(void **state)
{
	const char *argv[] = {"no-such-program-tdaudit", NULL};
	const char *rel[] = {"build/no-such-binary", NULL};
	td_proc_opts o = {0};
	td_proc_result r;

	(void)state;
	o.argv = argv;
	TD_ASSERT_REFUSED(td_proc_run(&r, &o), TD_EIO, "is not on PATH");
	o.argv = rel;
	o.cwd = ".";
	TD_ASSERT_REFUSED(td_proc_run(&r, &o), TD_EIO, "is it built?");
}

static void test_extra_environment_entries_reach_the_child(void **state)
{
	const char *argv[] = {"sh", "-c", "test \"$TD_PROC_PROBE\" = yes", NULL};
	const char *env[] = {"TD_PROC_PROBE=yes", NULL};
	td_proc_opts o = {0};
	td_proc_result r;

	(void)state;
	o.argv = argv;
	o.env = env;
	assert_int_equal(td_proc_run(&r, &o), 0);
	assert_true(r.exited && r.status == 0);
}

/*
 * An extra entry replaces the harness's own variable of that name: the
 * child's environment holds one of each name, since a shell (dash) keeps
 * the last of two (a mutant's TMPDIR used to lose to tdaudit's own).
 */
static void test_an_extra_entry_replaces_the_variable_of_its_name(void **state)
{
	const char *argv[] = {"sh", "-c", "test \"$TD_PROC_PROBE\" = inner && "
					  "test \"$(env | grep -c ^TD_PROC_PROBE=)\" = 1", NULL};
	const char *env[] = {"TD_PROC_PROBE=inner", NULL};
	td_proc_opts o = {0};
	td_proc_result r;
	int err;

	(void)state;
	o.argv = argv;
	o.env = env;
	setenv("TD_PROC_PROBE", "outer", 1);
	err = td_proc_run(&r, &o);
	unsetenv("TD_PROC_PROBE");
	assert_int_equal(err, 0);
	assert_true(r.exited && r.status == 0);
}

/*
 * The variables by which a make hands its flags and level to the makes
 * below it do not reach a child: a tdaudit started from a recipe (make
 * audit) would otherwise build the project under that make's -n, -i or -k,
 * and a nested make would print "make[2]: Entering directory" into a
 * recipe's output. A variant's own entry of such a name still does.
 */
static const char *const make_vars[] = {"MAKEFLAGS", "MFLAGS", "MAKELEVEL", "MAKEOVERRIDES",
					 "GNUMAKEFLAGS", NULL};

static void test_the_flags_of_a_make_that_runs_tdaudit_do_not_reach_a_child(void **state)
{
	const char *argv[] = {"sh", "-c", "test -z \"${MAKEFLAGS+x}${MFLAGS+x}${MAKELEVEL+x}"
					  "${MAKEOVERRIDES+x}${GNUMAKEFLAGS+x}\"", NULL};
	const char *kept[] = {"sh", "-c", "test \"$MAKEFLAGS\" = k && test -z \"${MAKELEVEL+x}\"",
			      NULL};
	const char *env[] = {"MAKEFLAGS=k", NULL};
	td_proc_opts o = {0};
	td_proc_result r, rk;
	int err, errk;

	(void)state;
	for (int i = 0; make_vars[i]; i++)
		setenv(make_vars[i], "n", 1);
	o.argv = argv;
	err = td_proc_run(&r, &o);
	o.argv = kept;
	o.env = env;
	errk = td_proc_run(&rk, &o);
	for (int i = 0; make_vars[i]; i++)
		unsetenv(make_vars[i]);
	assert_int_equal(err, 0);
	assert_true(r.exited && r.status == 0);
	assert_int_equal(errk, 0);
	assert_true(rk.exited && rk.status == 0);
}

/*
 * A grandchild that left the group is killed when the harness itself runs
 * under a tdaudit (a mutant's test): the mark is one variable holding both
 * tokens, since a shell passes on only one of two variables of a name.
 */
static void test_a_grandchild_is_killed_when_the_harness_runs_under_another(void **state)
{
	const char *argv[] = {"sh", "-c",
			      "setsid sh -c 'echo $$ > grandchild.pid; exec sleep 60' & "
			      "while [ ! -s grandchild.pid ]; do sleep 0.05; done; exit 0",
			      NULL};
	td_proc_opts o = {.argv = argv, .timeout_s = 60};
	td_proc_result r;
	pid_t grandchild;
	int err;

	(void)state;
	setenv("TDAUDIT_PROC", "1:1", 1); /* as a tdaudit of pid 1 would have set it */
	err = td_proc_run(&r, &o);
	unsetenv("TDAUDIT_PROC");
	assert_int_equal(err, 0);
	grandchild = read_pid("grandchild.pid");
	assert_true(grandchild > 0);
	/* killed by the sweep; a zombie its reaper has not reaped yet runs no more */
	if (!fx_gone(grandchild)) {
		kill(grandchild, SIGKILL);
		fail_msg("the grandchild %ld outlived the run", (long)grandchild);
	}
}

static const struct CMUnitTest tests[] = {
	cmocka_unit_test(test_exit_status_and_output_are_reported),
	cmocka_unit_test(test_a_signal_is_reported_as_a_signal),
	cmocka_unit_test(test_a_timeout_kills_the_whole_process_group),
	cmocka_unit_test(test_grandchildren_do_not_outlive_a_finished_run),
	cmocka_unit_test(test_a_timeout_kills_a_grandchild_that_left_the_group),
	cmocka_unit_test(test_a_grandchild_that_left_the_group_does_not_outlive_the_run),
	cmocka_unit_test(test_a_child_does_not_outlive_a_killed_harness),
	cmocka_unit_test(test_the_sweep_of_a_dead_pid_spares_the_children_of_its_new_owner),
	cmocka_unit_test(test_a_child_starts_with_no_signal_blocked),
	cmocka_unit_test(test_output_past_the_limit_is_cut_counted_and_its_tail_kept),
	cmocka_unit_test(test_a_small_output_limit_is_honoured),
	cmocka_unit_test(test_a_child_runs_under_cpu_file_size_and_process_limits),
	cmocka_unit_test(test_a_child_is_held_to_its_cpu_limit),
	cmocka_unit_test(test_a_child_cannot_write_a_file_past_its_size_limit),
	cmocka_unit_test(test_a_child_cannot_start_processes_past_its_limit),
	cmocka_unit_test(test_a_missing_program_is_an_error),
	cmocka_unit_test(test_extra_environment_entries_reach_the_child),
	cmocka_unit_test(test_an_extra_entry_replaces_the_variable_of_its_name),
	cmocka_unit_test(test_the_flags_of_a_make_that_runs_tdaudit_do_not_reach_a_child),
	cmocka_unit_test(test_a_grandchild_is_killed_when_the_harness_runs_under_another),
};
TD_TEST_GROUP(proc, tests);
