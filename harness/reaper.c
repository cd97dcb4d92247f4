/*
 * reaper.c - the subreaper, the registry of live runs, the sweeps of their
 * orphans and the stop a signal asks for (reaper.h).
 *
 * Must never reap a registered run's direct child (its worker waits for
 * it), nor kill a child of ours that carries no token of this process
 * except in td_reaper_sweep_all, nor hold the lock while it sleeps.
 */
#define _GNU_SOURCE
#include "reaper.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "../base/error.h"
#include "../base/fileio.h"

#define MAX_RUNS 256         /* live runs at once: workers, each one child at a time */
#define SWEEP_GIVE_UP_S 5.0  /* a SIGKILLed process that is not dead by then is stuck in the kernel */

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_once_t once = PTHREAD_ONCE_INIT;
static atomic_int stop_signo;
static unsigned long next_serial;
static td_reaper_run *live[MAX_RUNS]; /* borrowed from the runs' callers */
static int n_live;

/* One child of ours, from /proc/PID/stat. */
typedef struct {
	pid_t pid, pgrp;
	char state;
} kid;

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void become_subreaper(void)
{
	prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0); /* Linux >= 3.4; without it orphans go to init */
}

/* Whether serial names a run still registered. Under the lock. */
static int serial_live(unsigned long serial)
{
	for (int i = 0; i < n_live; i++)
		if (live[i]->serial == serial)
			return 1;
	return 0;
}

/* Whether pid is a registered run's direct child. Under the lock. */
static int pid_registered(pid_t pid)
{
	for (int i = 0; i < n_live; i++)
		if (live[i]->pid == pid)
			return 1;
	return 0;
}

/*
 * run->env: our token, then the ones this process inherited (outermost
 * last). When the chain does not fit, the outermost tokens are dropped at
 * a comma: the nearest harnesses matter most.
 */
static void set_token(td_reaper_run *run)
{
	const char *outer = getenv(TD_REAPER_ENV);
	int n = snprintf(run->env, sizeof run->env, "%s=%ld:%lu", TD_REAPER_ENV, (long)getpid(),
			 run->serial);

	if (outer && *outer && n > 0 && (size_t)n + 1 < sizeof run->env) {
		snprintf(run->env + n, sizeof run->env - (size_t)n, ",%s", outer);
		if (strlen(outer) + 1 >= sizeof run->env - (size_t)n)
			*strrchr(run->env, ',') = '\0'; /* cut: no half token */
	}
}

int td_reaper_begin(td_reaper_run *run)
{
	pthread_once(&once, become_subreaper);
	pthread_mutex_lock(&lock);
	if (atomic_load(&stop_signo) || n_live == MAX_RUNS) {
		int sig = atomic_load(&stop_signo);

		pthread_mutex_unlock(&lock);
		if (sig)
			return TD_FAIL(TD_ESTATE, "stopped by signal %d (SIG%s): no new child is started",
				       sig, sigabbrev_np(sig) ? sigabbrev_np(sig) : "?");
		return TD_FAIL(TD_ESTATE, "more than %d children at once", MAX_RUNS);
	}
	run->serial = ++next_serial;
	run->pid = 0;
	set_token(run);
	live[n_live++] = run;
	return 0;
}

void td_reaper_started(td_reaper_run *run, pid_t pid)
{
	run->pid = pid > 0 ? pid : 0;
	pthread_mutex_unlock(&lock);
}

/* Reads /proc/PID/stat of pid into *k; 0, or -1 when it is gone. */
static int read_stat(const char *pid, kid *k, pid_t *ppid)
{
	char path[64], buf[512], *p;
	int fd, n;
	long pp = 0, pg = 0;

	snprintf(path, sizeof path, "/proc/%s/stat", pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	n = (int)read(fd, buf, sizeof buf - 1);
	close(fd);
	if (n <= 0)
		return -1;
	buf[n] = '\0';
	p = strrchr(buf, ')'); /* the name may hold spaces and parentheses */
	if (!p || sscanf(p + 1, " %c %ld %ld", &k->state, &pp, &pg) != 3)
		return -1;
	k->pid = (pid_t)atol(pid);
	k->pgrp = (pid_t)pg;
	*ppid = (pid_t)pp;
	return 0;
}

/*
 * Whether a token chain ("pid:serial,pid:serial...") holds a token of this
 * process naming serial or a run no longer registered. Under the lock.
 */
static int chain_dooms(const char *chain, unsigned long serial)
{
	long self = (long)getpid();

	for (const char *p = chain; p && *p; p = strchr(p, ',') ? strchr(p, ',') + 1 : NULL) {
		char *end;
		long who = strtol(p, &end, 10);

		if (who == self && *end == ':') {
			unsigned long s = strtoul(end + 1, NULL, 10);

			return s == serial || !serial_live(s);
		}
	}
	return 0;
}

/*
 * Whether the live process pid carries a token of this process naming
 * serial or a run no longer registered. Under the lock.
 */
static int doomed(pid_t pid, unsigned long serial)
{
	static char env[1 << 18]; /* under the lock: one sweep at a time */
	char path[64];
	size_t n = 0, vlen = strlen(TD_REAPER_ENV);
	int fd, hit = 0;
	ssize_t got;

	snprintf(path, sizeof path, "/proc/%ld/environ", (long)pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	while (n < sizeof env - 1 && (got = read(fd, env + n, sizeof env - 1 - n)) > 0)
		n += (size_t)got;
	close(fd);
	env[n] = '\0'; /* empty: a zombie, or not ours to read */
	for (size_t i = 0; i < n && !hit; i += strlen(env + i) + 1)
		if (strncmp(env + i, TD_REAPER_ENV, vlen) == 0 && env[i + vlen] == '=')
			hit = chain_dooms(env + i + vlen + 1, serial);
	return hit;
}

/*
 * One pass over our children: reaps the zombies that are orphans of runs
 * (not in our own process group) and SIGKILLs the live ones that are
 * doomed (all: every unregistered one). Returns how many it killed.
 * Under the lock.
 */
static int sweep_pass(unsigned long serial, int all)
{
	DIR *d = opendir("/proc");
	struct dirent *e;
	pid_t self = getpid(), group = getpgrp(), ppid;
	int killed = 0;
	kid k;

	if (!d)
		return 0;
	while ((e = readdir(d))) {
		if (e->d_name[0] < '1' || e->d_name[0] > '9' || read_stat(e->d_name, &k, &ppid) != 0)
			continue;
		if (ppid != self || pid_registered(k.pid))
			continue;
		if (k.state == 'Z' || k.state == 'X') {
			if (all || k.pgrp != group)
				waitpid(k.pid, NULL, WNOHANG);
		} else if (all || doomed(k.pid, serial)) {
			kill(k.pid, SIGKILL);
			killed++;
		}
	}
	closedir(d);
	return killed;
}

/* Passes until one kills nothing (everything killed before is reaped), or the give-up time. */
static void sweep(unsigned long serial, int all)
{
	double give_up = now() + SWEEP_GIVE_UP_S;
	long nap = 200000; /* 0.2 ms, growing to 10 ms */

	for (;;) {
		int killed;

		pthread_mutex_lock(&lock);
		killed = sweep_pass(serial, all);
		pthread_mutex_unlock(&lock);
		if (!killed || now() > give_up)
			break;
		nanosleep(&(struct timespec){0, nap}, NULL);
		if (nap < 10000000)
			nap *= 2;
	}
}

void td_reaper_end(td_reaper_run *run)
{
	if (run->pid > 0) /* what is left of its group, marked or not */
		kill(-run->pid, SIGKILL);
	sweep(run->serial, 0);
	pthread_mutex_lock(&lock);
	for (int i = 0; i < n_live; i++)
		if (live[i] == run)
			live[i] = live[--n_live];
	pthread_mutex_unlock(&lock);
}

void td_reaper_stop(int signo)
{
	int none = 0;

	atomic_compare_exchange_strong(&stop_signo, &none, signo);
	pthread_mutex_lock(&lock);
	for (int i = 0; i < n_live; i++) {
		if (live[i]->pid > 0) {
			kill(-live[i]->pid, SIGKILL);
			kill(live[i]->pid, SIGKILL);
		}
	}
	pthread_mutex_unlock(&lock);
}

int td_reaper_stopped(void)
{
	return atomic_load(&stop_signo);
}

void td_reaper_sweep_all(void)
{
	sweep(0, 1);
}

/*
 * The pid of the innermost tdaudit whose token process pid carries
 * ("TDAUDIT_PROC=PID:SERIAL[,...]"), or 0 when it carries none or cannot be
 * read.
 */
static long token_owner(const char *pid)
{
	char path[300], *env = NULL;
	size_t n = 0, cap = 1 << 18, vlen = strlen(TD_REAPER_ENV);
	long who = 0;
	ssize_t got;
	int fd;

	snprintf(path, sizeof path, "/proc/%s/environ", pid);
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
		return 0;
	if (!(env = malloc(cap))) {
		close(fd);
		return 0;
	}
	while (n < cap - 1 && (got = read(fd, env + n, cap - 1 - n)) > 0)
		n += (size_t)got;
	close(fd);
	env[n] = '\0';
	for (size_t i = 0; i < n && !who; i += strlen(env + i) + 1)
		if (strncmp(env + i, TD_REAPER_ENV, vlen) == 0 && env[i + vlen] == '=')
			who = strtol(env + i + vlen + 1, NULL, 10);
	free(env);
	return who;
}

/* Whether process pid runs as our user in our pid namespace, where its token's pid means ours. */
static int ours(const char *pid)
{
	char path[300], a[64] = "", b[64] = "";
	struct stat st;
	ssize_t k;

	snprintf(path, sizeof path, "/proc/%s", pid);
	if (stat(path, &st) != 0 || st.st_uid != geteuid())
		return 0;
	snprintf(path, sizeof path, "/proc/%s/ns/pid", pid);
	if ((k = readlink(path, a, sizeof a - 1)) <= 0)
		return 0;
	a[k] = '\0';
	if ((k = readlink("/proc/self/ns/pid", b, sizeof b - 1)) <= 0)
		return 0;
	b[k] = '\0';
	return !strcmp(a, b);
}

/*
 * Whether process pid has dead among its ancestors. A pid that was dead
 * when the sweep began may have been given to a new process since (pid_max
 * can be 32768): its children carry the same token, and are not orphans.
 */
static int under(const char *pid, long dead)
{
	char buf[300];
	kid k;
	pid_t ppid = 0;

	snprintf(buf, sizeof buf, "%s", pid);
	for (int depth = 0; depth < 256 && read_stat(buf, &k, &ppid) == 0 && ppid > 1; depth++) {
		if ((long)ppid == dead)
			return 1;
		snprintf(buf, sizeof buf, "%ld", (long)ppid);
	}
	return 0;
}

int td_reaper_kill_orphans_of(long dead)
{
	DIR *d = opendir("/proc");
	struct dirent *e;
	int killed = 0;

	if (!d)
		return 0;
	while ((e = readdir(d)))
		if (e->d_name[0] >= '1' && e->d_name[0] <= '9' && token_owner(e->d_name) == dead &&
		    ours(e->d_name) && !under(e->d_name, dead) &&
		    kill((pid_t)atol(e->d_name), SIGKILL) == 0)
			killed++;
	closedir(d);
	return killed;
}

/* The pid files this process left (td_reaper_claim), removed when it exits normally. */
static char claimed[8][4500];

static void forget_claims(void)
{
	for (int i = 0; i < 8; i++)
		if (claimed[i][0])
			unlink(claimed[i]);
}

/* Records path to be removed at exit; a run that is killed leaves it for the next. */
static void remember_claim(const char *path)
{
	static int registered;
	int i;

	for (i = 0; i < 8 && claimed[i][0] && strcmp(claimed[i], path); i++)
		;
	if (i == 8 || claimed[i][0])
		return;
	snprintf(claimed[i], sizeof claimed[i], "%s", path);
	if (!registered)
		registered = atexit(forget_claims) == 0;
}

int td_reaper_claim(int *killed, long *dead_pid, const char *state)
{
	char dir[4200], path[4500];
	DIR *d;
	struct dirent *e;
	int fd, err, k;

	*killed = 0, *dead_pid = 0;
	snprintf(dir, sizeof dir, "%s/pids", state);
	if ((err = td_mkdirs(dir)))
		return err;
	if (!(d = opendir(dir)))
		return TD_FAIL(TD_EIO, "cannot read %s: %s", dir, strerror(errno));
	while ((e = readdir(d))) {
		char *end;
		long pid = strtol(e->d_name, &end, 10);

		if (pid <= 0 || *end || pid == (long)getpid())
			continue;
		if (kill((pid_t)pid, 0) == 0 || errno != ESRCH)
			continue; /* still running (or its pid was taken again): not ours to judge */
		if ((k = td_reaper_kill_orphans_of(pid)) > 0)
			*killed += k, *dead_pid = pid;
		snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
		unlink(path);
	}
	closedir(d);
	snprintf(path, sizeof path, "%s/%ld", dir, (long)getpid());
	fd = open(path, O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
	if (fd < 0)
		return TD_FAIL(TD_EIO, "cannot create %s: %s", path, strerror(errno));
	close(fd);
	remember_claim(path);
	return 0;
}
