/*
 * fixture.h - small git repositories built by end-to-end tests, in the
 * test's temporary directory, and the programs run against them.
 */
#ifndef TD_FIXTURE_H
#define TD_FIXTURE_H

#include <stdint.h>
#include <sys/types.h>

/* Writes text to dir/rel (parents created); fails the test on error. */
void fx_write(const char *dir, const char *rel, const char *text);

/* Runs argv (NULL-terminated) in dir, output to dir/../<log> (replaced); exit status. */
int fx_run(const char *dir, const char *log, const char *const *argv);

/* git init + add + commit of everything in dir, with a fixed identity. */
void fx_git_commit_all(const char *dir, const char *message);

/*
 * The full id of rev in the repository at dir (git rev-parse). Static
 * buffer: valid until the next call.
 */
const char *fx_git_rev(const char *dir, const char *rev);

/* The file descriptors this process has open (the entries of /proc/self/fd). */
int fx_open_fds(void);

/* Runs build/tdaudit (of this build) with args in dir; exit status. */
int fx_tdaudit(const char *dir, const char *log, const char *const *args);

/*
 * A hash of every file under dir except .tdaudit/ (contents, paths and
 * modes), the .git directory included: index, HEAD, refs, objects.
 */
uint64_t fx_tree_hash(const char *dir);

/*
 * Whether pid is gone: no such process, or a zombie nobody reaped yet.
 * Waits up to a few seconds for it (SIGKILL's delivery is asynchronous).
 */
int fx_gone(pid_t pid);

/* The contents of a file (static buffer, 1 MiB max). */
const char *fx_slurp(const char *path);

/*
 * Whether the file log has a line equal to want once runs of blanks are
 * made one space and the ends trimmed (a table row: "test_x fail 2/2 pass
 * 2/2 guard"); prints want and the log when not.
 */
int fx_has_row(const char *log, const char *want);

#endif
