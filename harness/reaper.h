/*
 * reaper.h - every descendant of every child the harness starts, found,
 * killed and reaped (for proc.c), and the stop that a signal asks for.
 *
 * The process is made a child subreaper, so a grandchild orphaned by its
 * parent, even one that called setsid() to leave the run's process group,
 * is reparented to us rather than to init. Each run puts a token in its
 * child's environment, TDAUDIT_PROC=<our pid>:<serial>, followed by the
 * tokens of the tdaudit runs this process runs under (",<pid>:<serial>"
 * each: one variable, since a shell keeps only one of two of a name),
 * which every descendant inherits; an orphan of ours carrying the token of a run that
 * has ended, or of the run being swept, is killed and reaped. An orphan
 * carrying the token of a run still going is left to that run. An orphan
 * that emptied its environment cannot be told apart from a child that
 * other code of this process forked; it is killed by td_reaper_sweep_all
 * only (a stop, and the end of tdaudit).
 *
 * A run is registered under one lock from before its fork until it is
 * reaped: a sweep never reaps a zombie some worker is about to wait for.
 */
#ifndef TD_REAPER_H
#define TD_REAPER_H

#include <sys/types.h>

#define TD_REAPER_ENV "TDAUDIT_PROC" /* the token's variable */

/* One run: filled by td_reaper_begin, the pid by td_reaper_started. */
typedef struct {
	unsigned long serial;
	pid_t pid;       /* the direct child (its process group's id); 0 before the fork */
	char env[512];   /* "TDAUDIT_PROC=<pid>:<serial>[,<outer tokens>]", for the child */
} td_reaper_run;

/*
 * Registers a run about to fork and takes the registry lock, which the
 * caller holds across fork() and gives back with td_reaper_started. Makes
 * the process a subreaper on first use. TD_ESTATE (lock not taken) when a
 * stop was asked for: no child is started after a stop.
 */
int td_reaper_begin(td_reaper_run *run);

/* Records the child's pid (-1: the fork failed) and releases the lock. */
void td_reaper_started(td_reaper_run *run, pid_t pid);

/*
 * After the run's direct child was reaped: kills its process group and
 * every orphan carrying its token (or a dead run's), waits for them and
 * reaps them, then unregisters the run. Bounded: gives up on processes
 * that do not die within a few seconds of SIGKILL (a stuck NFS read).
 */
void td_reaper_end(td_reaper_run *run);

/*
 * Asks every run to stop: records signo (the first one wins), SIGKILLs the
 * process group and the tree of every live run; td_reaper_begin refuses
 * from then on, and the runs' waits return. Thread-safe; not for signal
 * handlers (call it from a thread that took the signal with sigwait).
 */
void td_reaper_stop(int signo);

/* The signal a stop was asked for with, or 0. Async-signal-safe. */
int td_reaper_stopped(void);

/*
 * Kills and reaps every child of this process that is not a registered
 * run's direct child, whatever its token, until none is left (bounded, as
 * td_reaper_end). For the end of a program and after a stop.
 */
void td_reaper_sweep_all(void);

/*
 * For a command claiming the state directory state: kills what the tdaudit
 * runs of that directory that were themselves SIGKILLed left running (their
 * children's children, reparented to init, which no sweep of theirs
 * reached: a recipe's shell, a compiler, a test's background process), then
 * registers this process. Each run leaves state/pids/PID; a PID that no
 * longer exists is a run that ended, and every process whose innermost
 * token names it is killed (*killed counts them, *dead_pid gets one such
 * PID) before its file is removed; a process that exits normally removes
 * its own file (atexit), so only killed runs leave one. A PID taken again
 * by another process is left for later: its orphans live on a while, never
 * the reverse. Runs of other state directories are not touched.
 */
int td_reaper_claim(int *killed, long *dead_pid, const char *state);

/*
 * SIGKILLs every process of our user and pid namespace whose innermost
 * token names dead, a pid found to exist no more, except those that have
 * a process of that pid among their ancestors: the pid was given to a new
 * process since, and they are its children, not orphans. Returns how many.
 */
int td_reaper_kill_orphans_of(long dead);

#endif
