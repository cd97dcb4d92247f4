/*
 * testrun.h - building a scratch tree, listing its tests and running one
 * named test in it: the one way every command does it (mutate, reproduce,
 * bisect).
 *
 * Everything runs through td_proc_run with the argv arrays of tdaudit.lua:
 * the project's build argv, a runner's list argv, a runner's run argv with
 * "{test}" replaced. A test fails when it exits non-zero, dies on a signal,
 * or prints the runner's fail_text; a run past its deadline is a timeout,
 * which is a failure too but reported as its own word. A program that
 * cannot be started is an error (TD_EIO), never a test failure.
 *
 * Each run gets TMPDIR set to a private directory beside its tree
 * (TREE.tmp) and, unless the project turns it off (p->confine) or the
 * kernel cannot (confine.h), may write only beneath its tree and that
 * directory.
 */
#ifndef TD_TESTRUN_H
#define TD_TESTRUN_H

#include <stddef.h>
#include <stdint.h>

#include "proc.h"
#include "project.h"

enum td_test_result { TD_TEST_PASS, TD_TEST_FAIL, TD_TEST_TIMEOUT };

/* "pass", "fail" or "timeout": the ledger's outcome words. */
const char *td_test_result_name(enum td_test_result r);

/*
 * The directory that holds root's scratch trees, history trees, logs and
 * locks, outside root: $TDAUDIT_STATE_DIR/NAME-HASH when that is set, else
 * ${XDG_CACHE_HOME:-$HOME/.cache}/tdaudit/NAME-HASH, where NAME is root's
 * last path component and HASH FNV-1a 64 of its real path (one directory
 * per repository). Created with its parents. TD_EINVAL when it would lie
 * inside root (a TDAUDIT_STATE_DIR inside the repository), or when
 * neither variable nor HOME says where.
 */
int td_testrun_state_dir(char *out, size_t size, const char *root);

/*
 * Claims root's state directory (td_testrun_state_dir) for a command:
 * creates its logs/ and sub/ directories and takes the lock sub/lock; dir
 * gets the state directory. Also makes root/.tdaudit/ with a .gitignore of
 * "*", the default ledger's home, so git never shows it; then kills what
 * killed runs of the directory left running (td_testrun_reap_dead).
 * TD_ESTATE when another run holds the lock. The caller closes *lock_fd (which releases
 * it) when done.
 */
int td_testrun_claim(int *lock_fd, char *dir, size_t size, const char *root, const char *sub);

/*
 * Kills what the SIGKILLed tdaudit runs of the state directory state left
 * running and registers this process there (td_reaper_claim), saying on
 * stderr how many it killed. td_testrun_claim does it; mutate's claim too.
 */
int td_testrun_reap_dead(const char *state);

/*
 * Makes this run's own directory of logs under the state directory state,
 * logs/runs/STAMP-PID (the start in UTC, the process id), into out, and
 * removes the oldest run directories beyond the TD_RUNS_KEPT newest (the
 * names sort by time; a removal that fails is left for the next run),
 * except those of runs still going (their PID names a live process).
 */
#define TD_RUNS_KEPT 10

/* name made a file name into out: every byte but [A-Za-z0-9.-] becomes '_', cut to fit. */
void td_testrun_file_name(char *out, size_t size, const char *name);

int td_testrun_run_logs(char *out, size_t size, const char *state);

/* Makes root/.tdaudit/ with a .gitignore of "*" (the default ledger's home). */
int td_testrun_ignore_dir(const char *root);

/*
 * Runs the build argv of p's active variant (td_variant_argv) in tree, output to log, with the build
 * timeout. *ok = 1 when it exited 0 in time; res gets the details (for
 * td_proc_describe). While the build runs, a mark tree.building lies
 * beside the tree; a process killed during the build leaves it there
 * (see td_testrun_reset_if_cut).
 */
int td_testrun_build(int *ok, td_proc_result *res, const td_project *p, const char *tree,
		     const char *log);

/*
 * Removes tree and its sync manifest when the last build in it never
 * ended (its mark is there: the process running it was killed). Such a
 * build may leave half-written outputs newer than their sources, which an
 * incremental build takes as up to date. Call before the tree is synced;
 * the next sync then makes a whole copy and the next build a clean one.
 * Says so on stderr, after who ("tdaudit mutate"), when it removes one.
 */
int td_testrun_reset_if_cut(const char *who, const char *tree, const char *manifest);

/*
 * The names runner k's list argv prints, run in tree (output to log): one
 * a line, empty lines skipped. TD_EIO when it fails. Caller frees *names
 * with td_strv_free; NULL when it lists none.
 */
int td_testrun_list(char ***names, const td_project *p, int k, const char *tree, const char *log);

/*
 * The runner (index into p->runners) whose list argv, run in tree, prints
 * test; -1 when none does. TD_EIO when a list argv fails.
 */
int td_testrun_find_runner(int *runner, const td_project *p, const char *test, const char *tree,
			   const char *log);

/*
 * Runs test with runner k in tree, output to log (truncated first), killed
 * after limit seconds. *out gets the result; res the run's details (its
 * time, exit status or signal: td_proc_describe), which say why a failed
 * test failed: an exit 0 with TD_TEST_FAIL means the runner's fail_text.
 */
int td_testrun_one(enum td_test_result *out, td_proc_result *res, const td_project *p, int k,
		   const char *test, const char *tree, const char *log, double limit);

/*
 * Removes tree.tmp, the private TMPDIR of tree's runs (td_testrun_jail), so
 * that what one mutant's tests left there cannot decide the next one's.
 * td_testrun_build does it before each build.
 */
int td_testrun_empty_tmp(const char *tree);

/*
 * td_testrun_one with one more environment entry, "NAME=VALUE", after the
 * variant's (a schema's mutant number, schema.h); NULL adds none.
 */
int td_testrun_one_env(enum td_test_result *out, td_proc_result *res, const td_project *p, int k,
		       const char *test, const char *tree, const char *log, double limit,
		       const char *extra);

/*
 * A fingerprint of every file a build could have written in tree: the
 * path, size, modification time and inode of each file and link below it
 * (directories named .git skipped), summed so that the order the
 * directories list them in does not matter. Equal stamps before and after
 * a build mean the build wrote, changed and removed no file: a mutant it
 * was given was never compiled. Stops at the first directory it cannot
 * read.
 */
int td_testrun_tree_stamp(uint64_t *out, const char *tree);

/*
 * Whether file is one a build compiles (by its extension: C, C++, CUDA,
 * Objective-C sources and headers): a change to it must make the build
 * write something.
 */
int td_testrun_compiled(const char *file);

/* What a confined run's td_proc_opts point to (td_testrun_jail). */
typedef struct {
	const char *dirs[3];
	const char *env[TD_VARIANT_ENV_MAX + 3]; /* TMPDIR, the active variant's environment,
						    one more entry, NULL */
	char tmp[4400];     /* TREE.tmp, beside the tree: the private TMPDIR */
	char tmp_env[4420]; /* "TMPDIR=" tmp */
} td_jail;

/*
 * Sets po->env to TMPDIR=TREE.tmp (a private directory beside tree,
 * created) followed by the environment of p's active variant, and, unless p->confine is off or the kernel cannot, po's
 * write_dirs to tree and that directory; counts a run left unconfined.
 * j must outlive the run (po points into it). Replaces po->env.
 */
int td_testrun_jail(td_jail *j, td_proc_opts *po, const td_project *p, const char *tree);

/*
 * The header line saying which confinement runs of p get, into buf:
 * "confinement: landlock (ABI 7): ...", or "confinement: NONE ..." with
 * the reason. Returns buf.
 */
const char *td_testrun_confinement(const td_project *p, char *buf, size_t size);

/*
 * Prints "tdaudit COMMAND: " and that line on stdout, the header of a run;
 * an unconfined run's line is marked WARNING and repeated on stderr.
 */
void td_testrun_say_confinement(const char *command, const td_project *p);

/* How many builds, listings and test runs of this process ran unconfined. */
size_t td_testrun_unconfined_runs(void);

/* Whether the file at path holds text (NULL text, or no such file: no). */
int td_testrun_log_mentions(const char *path, const char *text);

#endif
