/*
 * confine.h - the kernel's confinement of what a build or a test may write.
 *
 * A mutant's build and tests run the mutated code, which may write or
 * delete anything its user can. With Landlock (Linux 5.13 and later) the
 * harness confines them: read and execute everywhere, write (create,
 * change, remove, rename, truncate) only beneath the directories it names,
 * plus the device files a compiler or a shell needs (/dev/null, /dev/tty
 * ...). The rules are made in the harness and applied in the child between
 * fork and exec, so tdaudit itself is never confined. Where the kernel has
 * no Landlock, or refuses it (a container's seccomp filter), runs are not
 * confined, and td_confine_abi says so, with the reason.
 */
#ifndef TD_CONFINE_H
#define TD_CONFINE_H

/*
 * The Landlock ABI version this kernel offers and lets a child apply, or 0
 * when there is none (then *why, if not NULL, says why: borrowed, static).
 * Probed once per process, the first time (it forks a child to try).
 */
int td_confine_abi(const char **why);

/*
 * Makes the rules of a run, before the fork: writes only beneath the dirs
 * (NULL-terminated; each must exist) and to the usual device files, and to
 * the file TDAUDIT_COVERAGE names in tdaudit's own environment when it
 * exists (tdaudit run by a test of a schema run, mutate.h: a child that
 * reaches a mutation point records it there as the test itself would). *fd
 * gets the ruleset (close-on-exec; the caller closes it after the fork).
 * TD_EIO, naming the directory, when a rule cannot be made; TD_ESTATE
 * when there is no Landlock (td_confine_abi is 0).
 */
int td_confine_rules(int *fd, const char *const *dirs);

/*
 * In the child, after fork, before exec: no new privileges (Landlock
 * requires it of an unprivileged process), then the rules of fd. Only
 * system calls (async-signal-safe). Returns 0, or -1 with errno set.
 */
int td_confine_apply(int fd);

#endif
