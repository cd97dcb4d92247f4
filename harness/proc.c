/*
 * proc.c - spawning children with deadlines and process groups (proc.h).
 *
 * Must never leave a child or grandchild running after td_proc_run returns:
 * the group is killed when the deadline passes and swept after a normal
 * exit, and the run's orphans (a grandchild that called setsid() is one)
 * are killed and reaped by reaper.c. Between fork and exec the child only makes async-signal-safe calls,
 * since the harness runs workers in threads.
 */
#define _GNU_SOURCE
#include "proc.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "../base/error.h"
#include "capture.h"
#include "confine.h"
#include "reaper.h"

extern char **environ;

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* Resolves argv[0] on PATH before fork (execvp may allocate). */
static int resolve(const char *prog, char *out, size_t size)
{
	const char *path = getenv("PATH");

	if (strchr(prog, '/')) {
		snprintf(out, size, "%s", prog);
		return 0;
	}
	for (const char *p = path ? path : "/usr/bin:/bin"; *p;) {
		const char *end = strchrnul(p, ':');
		int n = snprintf(out, size, "%.*s/%s", (int)(end - p), p, prog);

		if (n > 0 && (size_t)n < size && access(out, X_OK) == 0)
			return 0;
		p = *end ? end + 1 : end;
	}
	return TD_FAIL(TD_EIO, "program '%s' is not on PATH; install it or give its path", prog);
}

/* Whether the entry "NAME=..." names the variable of entry (its NAME and the '='). */
static int same_name(const char *entry, const char *other)
{
	size_t n = strcspn(entry, "=");

	return strncmp(entry, other, n) == 0 && other[n] == '=';
}

/*
 * The variables by which a make passes its flags and level to the makes
 * of its recipes. When tdaudit itself runs in a recipe (make audit) they
 * describe that make, not the project's build: -n, -i or -k would reach
 * every build, and a nested make would print its directory into a
 * recipe's output. A variant's env may still set them.
 */
static const char *const outer_make[] = {"MAKEFLAGS=", "MFLAGS=", "MAKELEVEL=", "MAKEOVERRIDES=",
					 "GNUMAKEFLAGS=", NULL};

/*
 * Whether environ entry e is left out: replaced by the run's token or one
 * of the extra entries, or a variable of the make tdaudit runs under.
 * (The token's text is filled in later, by td_reaper_begin.)
 */
static int replaced(const char *e, const char *const *extra)
{
	if (same_name(TD_REAPER_ENV "=", e))
		return 1;
	for (size_t i = 0; outer_make[i]; i++)
		if (same_name(outer_make[i], e))
			return 1;
	for (size_t i = 0; extra && extra[i]; i++)
		if (same_name(extra[i], e))
			return 1;
	return 0;
}

/*
 * The run's token (which carries on the chain of an earlier one, reaper.h),
 * then the extra entries, then environ without the variables those name:
 * one entry per name, since programs disagree on which of two counts
 * (getenv takes the first, a shell the last).
 */
static char **build_env(const char *token, const char *const *extra)
{
	size_t n = 0, k = 0, e = 0;
	char **env;

	while (environ[n])
		n++;
	while (extra && extra[e])
		e++;
	env = calloc(n + e + 2, sizeof *env);
	if (!env)
		return NULL;
	env[k++] = (char *)token;
	for (size_t i = 0; i < e; i++)
		env[k++] = (char *)extra[i];
	for (size_t i = 0; i < n; i++)
		if (!replaced(environ[i], extra))
			env[k++] = environ[i];
	return env;
}

#define FSIZE_LIMIT (1ull << 30)
#define NPROC_EXTRA 1024

/* The resource limits of a run, worked out before the fork. */
typedef struct {
	struct rlimit cpu, fsize, as, nproc;
	int has_cpu, has_as;
} limits;

/* Tasks (threads) of the real user id uid: what RLIMIT_NPROC counts. */
static long user_tasks(uid_t uid)
{
	DIR *d = opendir("/proc");
	struct dirent *e;
	long n = 0;

	while (d && (e = readdir(d))) {
		char path[300], line[256];
		long threads = 0, ruid = -1;
		FILE *f;

		if (e->d_name[0] < '1' || e->d_name[0] > '9')
			continue;
		snprintf(path, sizeof path, "/proc/%s/status", e->d_name);
		if (!(f = fopen(path, "r")))
			continue;
		while (fgets(line, sizeof line, f)) {
			sscanf(line, "Uid: %ld", &ruid);
			sscanf(line, "Threads: %ld", &threads);
		}
		fclose(f);
		if (ruid == (long)uid)
			n += threads;
	}
	if (d)
		closedir(d);
	return n;
}

/*
 * A soft and a hard limit, never looser than the ones the harness runs
 * under, which *r holds when got (getrlimit's result into r) is 0. The
 * caller calls getrlimit with the resource's constant: glibc's takes an
 * enum under _GNU_SOURCE, and an int variable would not convert cleanly.
 */
static void cap(struct rlimit *r, int got, rlim_t soft, rlim_t hard)
{
	if (got == 0) { /* RLIM_INFINITY is the largest rlim_t */
		soft = soft < r->rlim_cur ? soft : r->rlim_cur;
		hard = hard < r->rlim_max ? hard : r->rlim_max;
	}
	r->rlim_cur = soft < hard ? soft : hard;
	r->rlim_max = hard;
}

static void plan_limits(limits *l, const td_proc_opts *o)
{
	double cpu = o->cpu_limit_s;
	long cores = sysconf(_SC_NPROCESSORS_ONLN);
	rlim_t fsize = o->fsize_limit ? o->fsize_limit : FSIZE_LIMIT;
	rlim_t nproc = (rlim_t)user_tasks(getuid()) + (rlim_t)(o->nproc_extra > 0 ? o->nproc_extra
										  : NPROC_EXTRA);

	if (cpu == 0 && o->timeout_s > 0)
		cpu = o->timeout_s * (double)(cores > 0 ? cores : 1) + 10;
	l->has_cpu = cpu > 0 && cpu < 1e12;
	if (l->has_cpu) /* SIGXCPU at the soft limit, SIGKILL at the hard one */
		cap(&l->cpu, getrlimit(RLIMIT_CPU, &l->cpu), (rlim_t)ceil(cpu), (rlim_t)ceil(cpu) + 5);
	cap(&l->fsize, getrlimit(RLIMIT_FSIZE, &l->fsize), fsize, fsize);
	l->has_as = o->as_limit > 0;
	if (l->has_as)
		cap(&l->as, getrlimit(RLIMIT_AS, &l->as), o->as_limit, o->as_limit);
	cap(&l->nproc, getrlimit(RLIMIT_NPROC, &l->nproc), nproc, nproc);
}

/* In the child: the limits of l (setrlimit is a plain system call). */
static void apply_limits(const limits *l)
{
	if (l->has_cpu)
		setrlimit(RLIMIT_CPU, &l->cpu);
	setrlimit(RLIMIT_FSIZE, &l->fsize);
	if (l->has_as)
		setrlimit(RLIMIT_AS, &l->as);
	setrlimit(RLIMIT_NPROC, &l->nproc);
}

/* In the child, its stderr in place: the Landlock rules, if any; exit 126 when refused. */
static void apply_rules(int rules_fd, const char *prog)
{
	static const char msg[] = "tdaudit: the kernel refused to confine the writes of ";

	if (rules_fd < 0 || td_confine_apply(rules_fd) == 0)
		return;
	if (write(2, msg, sizeof msg - 1) > 0 && write(2, prog, strlen(prog)) > 0)
		(void)!write(2, "\n", 1);
	_exit(126);
}

/*
 * In the child: own group, killed when its parent dies, cwd, output, the
 * write confinement, exec. Never returns. PR_SET_PDEATHSIG fires when the thread that forked dies,
 * which waits for the child: so it fires only if tdaudit itself dies (even
 * by SIGKILL, when no sweep can run).
 */
static void child(const char *exe, const td_proc_opts *o, char **env, int out_fd, int err_fd,
		  pid_t parent, const sigset_t *none, const limits *lim, int rules_fd)
{
	setpgid(0, 0);
	sigprocmask(SIG_SETMASK, none, NULL); /* tdaudit blocks the signals its own thread waits for */
	if (prctl(PR_SET_PDEATHSIG, SIGKILL) != 0 || getppid() != parent)
		_exit(126); /* the parent died before the death signal was armed */
	apply_limits(lim);
	if (o->cwd && chdir(o->cwd) != 0)
		_exit(126);
	dup2(out_fd, 1);
	dup2(err_fd >= 0 ? err_fd : out_fd, 2);
	if (out_fd > 2)
		close(out_fd);
	if (err_fd > 2)
		close(err_fd);
	apply_rules(rules_fd, o->argv[0]);
	execve(exe, (char *const *)o->argv, env);
	_exit(127);
}

/*
 * Waits for pid until the deadline or a stop, keeping its output (the n
 * streams of cap); kills the group when either comes.
 */
static void wait_for(pid_t pid, const td_proc_opts *o, double start, td_proc_result *res,
		     td_capture *cap, int n)
{
	int st = 0, nap = 1; /* ms, growing to 20 */

	for (;;) {
		pid_t r = waitpid(pid, &st, WNOHANG);

		if (r == pid || (r < 0 && errno != EINTR))
			break;
		if (td_reaper_stopped() || (o->timeout_s > 0 && now() - start > o->timeout_s)) {
			kill(-pid, SIGKILL);
			while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
				;
			res->stopped = td_reaper_stopped();
			res->timed_out = !res->stopped;
			break;
		}
		td_capture_wait(cap, n, nap); /* returns early with output to keep */
		if (nap < 20)
			nap *= 2;
	}
	res->exited = WIFEXITED(st);
	res->status = WIFEXITED(st) ? WEXITSTATUS(st) : WIFSIGNALED(st) ? WTERMSIG(st) : 0;
	res->seconds = now() - start;
}

/*
 * The child's stdout and stderr: a pipe each into out_fd and err_fd (one
 * for both when err_fd < 0), or /dev/null (out_fd itself) when there is no
 * output file. *n gets the number of captures made.
 */
static int open_captures(const td_proc_opts *o, int out_fd, int err_fd, td_capture *cap, int *n,
			 int *child_out, int *child_err)
{
	int err = 0;

	*child_out = out_fd;
	if (o->out_path && (err = td_capture_open(&cap[(*n)++], out_fd, o->out_limit, child_out)))
		return err;
	if (err_fd >= 0 && (err = td_capture_open(&cap[(*n)++], err_fd, o->out_limit, child_err)))
		return err;
	return 0;
}

/* Closes the pipes' write ends in the parent (the child has its copies). */
static void close_child_ends(int out_fd, int *child_out, int *child_err)
{
	if (*child_out >= 0 && *child_out != out_fd)
		close(*child_out);
	if (*child_err >= 0)
		close(*child_err);
	*child_out = *child_err = -1;
}

/* "TERM" for SIGTERM; never NULL. */
static const char *sig_name(int sig)
{
	const char *n = sigabbrev_np(sig);

	return n ? n : "?";
}

int td_proc_run(td_proc_result *res, const td_proc_opts *o)
{
	char exe[4096];
	char **env = NULL;
	int out_fd = -1, err_fd = -1, err = 0, n_cap = 0, child_out = -1, child_err = -1, rules = -1;
	td_capture cap[2] = {{.in = -1}, {.in = -1}};
	td_reaper_run run;
	limits lim;
	sigset_t none;
	pid_t pid, parent;
	double start;

	memset(res, 0, sizeof *res);
	if (!o->argv || !o->argv[0])
		return TD_FAIL(TD_EINVAL, "empty argv; give at least the program to run");
	err = resolve(o->argv[0], exe, sizeof exe);
	if (err)
		return err;
	if (o->cwd && access(o->cwd, X_OK) != 0)
		return TD_FAIL(TD_EIO, "cannot run %s in %s: %s", o->argv[0], o->cwd, strerror(errno));
	if (o->cwd && exe[0] != '/') {
		char full[8192];

		snprintf(full, sizeof full, "%s/%s", o->cwd, exe);
		if (access(full, X_OK) != 0)
			return TD_FAIL(TD_EIO, "cannot run %s: %s (in %s); is it built?", exe, strerror(errno),
				       o->cwd);
	} else if (access(exe, X_OK) != 0) {
		return TD_FAIL(TD_EIO, "cannot run %s: %s", exe, strerror(errno));
	}
	out_fd = open(o->out_path ? o->out_path : "/dev/null",
		      O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
	if (out_fd < 0)
		return TD_FAIL(TD_EIO, "cannot open %s for %s's output: %s",
			       o->out_path ? o->out_path : "/dev/null", o->argv[0], strerror(errno));
	if (o->err_path &&
	    (err_fd = open(o->err_path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644)) < 0) {
		err = TD_FAIL(TD_EIO, "cannot open %s for %s's stderr: %s", o->err_path, o->argv[0],
			      strerror(errno));
		goto done;
	}
	err = open_captures(o, out_fd, err_fd, cap, &n_cap, &child_out, &child_err);
	if (err)
		goto done;
	env = build_env(run.env, o->env); /* run.env is filled in by td_reaper_begin */
	if (!env) {
		err = TD_FAIL(TD_ENOMEM, "out of memory for %s's environment", o->argv[0]);
		goto done;
	}
	plan_limits(&lim, o);
	if (o->write_dirs && (err = td_confine_rules(&rules, o->write_dirs)))
		goto done;
	err = td_reaper_begin(&run);
	if (err)
		goto done;
	start = now();
	parent = getpid();
	sigemptyset(&none);
	pid = fork();
	if (pid == 0)
		child(exe, o, env, child_out, child_err, parent, &none, &lim, rules);
	if (pid > 0)
		setpgid(pid, pid); /* also in the parent: no race with an early kill */
	td_reaper_started(&run, pid);
	close_child_ends(out_fd, &child_out, &child_err);
	if (pid < 0) {
		err = TD_FAIL(TD_EIO, "fork for %s failed: %s", o->argv[0], strerror(errno));
		td_reaper_end(&run);
		goto done;
	}
	wait_for(pid, o, start, res, cap, n_cap);
	td_reaper_end(&run); /* orphans, setsid() ones included, and what is left of the group */
	res->seconds = now() - start;
	for (int i = 0; i < n_cap; i++)
		res->out_dropped += td_capture_close(&cap[i]);
	if (res->stopped)
		err = TD_FAIL(TD_ESTATE, "%s was killed: tdaudit was stopped by signal %d (SIG%s)",
			      o->argv[0], res->stopped, sig_name(res->stopped));
done:
	for (int i = 0; i < n_cap; i++)
		td_capture_close(&cap[i]);
	close_child_ends(out_fd, &child_out, &child_err);
	free(env);
	if (rules >= 0)
		close(rules);
	close(out_fd);
	if (err_fd >= 0)
		close(err_fd);
	return err;
}

const char *td_proc_describe(const td_proc_result *res, char *buf, unsigned size)
{
	if (res->stopped)
		snprintf(buf, size, "stopped by SIG%s", sig_name(res->stopped));
	else if (res->timed_out)
		snprintf(buf, size, "timeout after %.1fs", res->seconds);
	else if (res->exited)
		snprintf(buf, size, "exit %d", res->status);
	else
		snprintf(buf, size, "signal %d (SIG%s)", res->status, sig_name(res->status));
	return buf;
}

const char *td_proc_argv_string(const char *const *argv, char *buf, unsigned size)
{
	size_t len = 0;

	buf[0] = '\0';
	for (int i = 0; argv && argv[i] && len + 1 < size; i++) {
		int q = strchr(argv[i], ' ') != NULL || !argv[i][0];
		int n = snprintf(buf + len, size - len, "%s%s%s%s", i ? " " : "", q ? "'" : "",
				 argv[i], q ? "'" : "");

		if (n < 0)
			break;
		len += (size_t)n;
	}
	return buf;
}
