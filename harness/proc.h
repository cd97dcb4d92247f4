/*
 * proc.h - the one way the harness runs another program.
 *
 * argv arrays only (never a shell), the child in its own process group, a
 * deadline on every run, and on timeout the whole group killed with SIGKILL
 * and reaped. Every descendant that outlives the child, even one that left
 * the group with setsid(), is killed and reaped before td_proc_run returns
 * (reaper.h: the harness is their subreaper). Output goes to a file (or
 * /dev/null) through a pipe the harness drains while it waits, bounded:
 * the head and the tail of a long output are kept, with a line saying how
 * much was cut (capture.h). system() and popen() do not appear in the
 * harness; everything goes through td_proc_run.
 */
#ifndef TD_PROC_H
#define TD_PROC_H

#include <stddef.h>

/* Zero is every default: td_proc_opts o = {.argv = argv, .timeout_s = 60}. */
typedef struct {
	const char *const *argv; /* argv[0] is looked up on PATH; NULL-terminated */
	const char *cwd;         /* run there; NULL: the current directory */
	const char *out_path;    /* stdout (and stderr, without err_path) appended here; NULL: /dev/null */
	const char *err_path;    /* stderr appended here, apart from stdout; NULL: with stdout */
	const char *const *env;  /* extra NAME=VALUE entries, NULL-terminated; may be NULL */
	double timeout_s;        /* kill the group after this long; <= 0: no limit */
	size_t out_limit;        /* bytes kept of each output stream, then cut (capture.h); 0: 16 MiB */
	/* Resource limits of every process it starts (setrlimit, inherited by its descendants). */
	double cpu_limit_s;      /* RLIMIT_CPU; < 0: none; 0: timeout_s times the cores, plus 10 (none
				  * without a timeout): only a process that outlived its deadline,
				  * one that escaped a SIGKILLed tdaudit, reaches it */
	unsigned long long fsize_limit; /* RLIMIT_FSIZE, the largest file it may write; 0: 1 GiB */
	unsigned long long as_limit;    /* RLIMIT_AS; 0: none, since ASan, CUDA and many runtimes
					 * reserve terabytes of address space they never touch */
	long nproc_extra;        /* RLIMIT_NPROC: the user's count of threads when it starts, plus
				  * this; 0: 1024. Linux does not enforce it for root */
	const char *const *write_dirs; /* NULL-terminated: writes only beneath these (and to
					* /dev/null and the like), by Landlock (confine.h); TD_ESTATE
					* where it is unavailable. NULL: not confined */
} td_proc_opts;

typedef struct {
	int exited;      /* 1 if it exited (then status is its exit status) */
	int status;      /* exit status, or the signal number when !exited */
	int timed_out;   /* 1 if the deadline passed and the group was killed */
	int stopped;     /* the signal of a stop (td_reaper_stop) that killed it, or 0 */
	unsigned long long out_dropped; /* bytes of output cut, not kept (0: all of it kept) */
	double seconds;  /* wall time from spawn to reap */
} td_proc_result;

/*
 * Runs opts->argv to completion or deadline and fills *res. Returns 0 when
 * the program ran (whatever its exit status: read res), or TD_EIO when it
 * could not be started (no such program, cwd missing, output file not
 * writable), with a message naming the program. A program that is not found
 * is reported as such, never as a test failure. After td_reaper_stop
 * (SIGINT, SIGTERM or SIGHUP to tdaudit) the running child and its
 * descendants are killed and it returns TD_ESTATE, res->stopped set;
 * later calls return TD_ESTATE without starting anything.
 */
int td_proc_run(td_proc_result *res, const td_proc_opts *opts);

/* A short description of res ("exit 1", "signal 11 (SIGSEGV)", "timeout after 5.0s"). */
const char *td_proc_describe(const td_proc_result *res, char *buf, unsigned size);

/*
 * Joins argv for display ("make -j 2 all"), quoting words with spaces.
 * Only for messages: never executed.
 */
const char *td_proc_argv_string(const char *const *argv, char *buf, unsigned size);

#endif
