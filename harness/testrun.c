/*
 * testrun.c - builds and single test runs in scratch trees (testrun.h).
 *
 * Must never run anything in the user's tree (every call names the tree
 * to run in), and never call a test that could not be started a failure.
 */
#define _GNU_SOURCE
#include "testrun.h"

#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <fcntl.h>
#include <ftw.h>
#include <stdatomic.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "../base/error.h"
#include "../base/fileio.h"
#include "../base/hash.h"
#include "../base/strv.h"
#include "confine.h"
#include "reaper.h"

/* Empties log (creating it); td_proc_run appends. */
static void clear_log(const char *log)
{
	FILE *f = fopen(log, "w");

	if (f)
		fclose(f);
}

/* Runs that asked for confinement and ran without it (it was off, or unavailable). */
static atomic_size_t unconfined_runs;

static int confined(const td_project *p)
{
	return p->confine && td_confine_abi(NULL) > 0;
}

int td_testrun_jail(td_jail *j, td_proc_opts *po, const td_project *p, const char *tree)
{
	char real[PATH_MAX];
	int err;

	snprintf(j->tmp, sizeof j->tmp, "%s.tmp", tree);
	if ((err = td_mkdirs(j->tmp)))
		return err;
	if (realpath(j->tmp, real)) /* absolute: the child runs elsewhere (in tree) */
		snprintf(j->tmp, sizeof j->tmp, "%s", real);
	snprintf(j->tmp_env, sizeof j->tmp_env, "TMPDIR=%s", j->tmp);
	j->env[0] = j->tmp_env;
	{
		char *const *venv = p->variants[p->active].env;
		size_t n = 1;

		for (size_t i = 0; venv && venv[i] && n + 2 < sizeof j->env / sizeof *j->env; i++)
			j->env[n++] = venv[i];
		j->env[n] = NULL;
	}
	po->env = j->env;
	j->dirs[0] = tree, j->dirs[1] = j->tmp, j->dirs[2] = NULL;
	if (confined(p))
		po->write_dirs = j->dirs;
	else
		atomic_fetch_add(&unconfined_runs, 1);
	return 0;
}

size_t td_testrun_unconfined_runs(void)
{
	return atomic_load(&unconfined_runs);
}

const char *td_testrun_confinement(const td_project *p, char *buf, size_t size)
{
	const char *why = NULL;
	int abi = td_confine_abi(&why);

	if (p->confine && abi > 0)
		snprintf(buf, size, "confinement: landlock (ABI %d): writes only in the scratch tree "
				    "and a private TMPDIR", abi);
	else if (!p->confine)
		snprintf(buf, size, "confinement: NONE (turned off by %s): builds and tests may "
				    "write anywhere this user can", p->confine_off_by);
	else
		snprintf(buf, size, "confinement: NONE: %s; builds and tests may write anywhere "
				    "this user can (confine \"off\" in tdaudit.lua says you accept it)",
			 why);
	return buf;
}

void td_testrun_say_confinement(const char *command, const td_project *p)
{
	char line[512];
	int loud = !confined(p);

	td_testrun_confinement(p, line, sizeof line);
	printf("tdaudit %s: %s%s\n", command, loud ? "WARNING: " : "", line);
	fflush(stdout);
	if (loud)
		fprintf(stderr, "tdaudit %s: WARNING: %s\n", command, line);
}

const char *td_test_result_name(enum td_test_result r)
{
	return r == TD_TEST_PASS ? "pass" : r == TD_TEST_FAIL ? "fail" : "timeout";
}

int td_testrun_state_dir(char *out, size_t size, const char *root)
{
	const char *env = getenv("TDAUDIT_STATE_DIR"), *xdg = getenv("XDG_CACHE_HOME");
	const char *home = getenv("HOME"), *name;
	char real[PATH_MAX], base[PATH_MAX], made[PATH_MAX];
	size_t n;
	int err;

	if (!realpath(root, real))
		return TD_FAIL(TD_EIO, "cannot resolve the repository %s", root);
	if (env && *env)
		snprintf(base, sizeof base, "%s", env);
	else if (xdg && *xdg == '/')
		snprintf(base, sizeof base, "%s/tdaudit", xdg);
	else if (home && *home)
		snprintf(base, sizeof base, "%s/.cache/tdaudit", home);
	else
		return TD_FAIL(TD_EINVAL, "no place for scratch trees: set TDAUDIT_STATE_DIR (or HOME)");
	name = strrchr(real, '/') ? strrchr(real, '/') + 1 : real;
	if (snprintf(out, size, "%s/%.64s-%016llx", base, *name ? name : "root",
		     (unsigned long long)td_fnv1a64(TD_FNV1A64_OFFSET, real, strlen(real))) >=
	    (int)size)
		return TD_FAIL(TD_EINVAL, "the state directory under %s is too long a path", base);
	if ((err = td_mkdirs(out)))
		return err;
	n = strlen(real);
	if (realpath(out, made) && !strncmp(made, real, n) && (made[n] == '/' || !made[n]))
		return TD_FAIL(TD_EINVAL, "the state directory %s is inside the repository %s: a "
					  "mutant's tree must not be; set TDAUDIT_STATE_DIR outside it",
			       made, real);
	return 0;
}

int td_testrun_ignore_dir(const char *root)
{
	char p[4400];
	int err;

	snprintf(p, sizeof p, "%s/.tdaudit", root);
	err = td_mkdirs(p);
	snprintf(p, sizeof p, "%s/.tdaudit/.gitignore", root);
	if (!err && access(p, F_OK) != 0)
		err = td_file_write_atomic(p, "*\n", 2, 0644);
	return err;
}

int td_testrun_reap_dead(const char *state)
{
	long dead = 0;
	int killed = 0, err = td_reaper_claim(&killed, &dead, state);

	if (!err && killed)
		fprintf(stderr, "tdaudit: killed %d process%s left running by tdaudit %ld, a run of "
				"this repository that was killed before it could stop %s\n",
			killed, killed == 1 ? "" : "es", dead, killed == 1 ? "it" : "them");
	return err;
}

int td_testrun_claim(int *lock_fd, char *dir, size_t size, const char *root, const char *sub)
{
	char p[4400];
	int err;

	*lock_fd = -1;
	err = td_testrun_state_dir(dir, size, root);
	snprintf(p, sizeof p, "%s/logs", dir);
	if (!err)
		err = td_mkdirs(p);
	snprintf(p, sizeof p, "%s/%s", dir, sub);
	if (!err)
		err = td_mkdirs(p);
	if (!err)
		err = td_testrun_ignore_dir(root);
	if (err)
		return err;
	snprintf(p, sizeof p, "%s/%s/lock", dir, sub);
	*lock_fd = open(p, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
	if (*lock_fd < 0)
		return TD_FAIL(TD_EIO, "cannot open the lock %s", p);
	if (flock(*lock_fd, LOCK_EX | LOCK_NB) != 0)
		return TD_FAIL(TD_ESTATE, "another tdaudit run holds %s; wait for it to finish", p);
	return td_testrun_reap_dead(dir);
}

/* The mark of a build running in tree: tree.building, beside it (never in it). */
static void build_mark(char *out, size_t size, const char *tree)
{
	snprintf(out, size, "%s.building", tree);
}

static int rm_entry(const char *path, const struct stat *sb, int flag, struct FTW *ftw)
{
	(void)sb, (void)flag, (void)ftw;
	return remove(path);
}

int td_testrun_reset_if_cut(const char *who, const char *tree, const char *manifest)
{
	char mark[4400];

	build_mark(mark, sizeof mark, tree);
	if (access(mark, F_OK) != 0)
		return 0;
	fprintf(stderr, "%s: the last build in %s never ended (a run was killed): building from a "
			"clean copy\n", who, tree);
	if (nftw(tree, rm_entry, 32, FTW_DEPTH | FTW_PHYS) != 0 && errno != ENOENT)
		return TD_FAIL(TD_EIO, "cannot remove %s, whose last build was cut short: %s; remove it by hand",
			       tree, strerror(errno));
	if (unlink(manifest) != 0 && errno != ENOENT)
		return TD_FAIL(TD_EIO, "cannot remove %s: %s", manifest, strerror(errno));
	if (unlink(mark) != 0 && errno != ENOENT)
		return TD_FAIL(TD_EIO, "cannot remove %s: %s", mark, strerror(errno));
	return 0;
}

/*
 * Removes tree.tmp, the private TMPDIR of tree's runs, so that each build
 * (each mutant, each state of a fix) starts with an empty one: what one
 * mutant's tests left there must not decide the next one's.
 */
int td_testrun_empty_tmp(const char *tree)
{
	char tmp[4400];

	snprintf(tmp, sizeof tmp, "%s.tmp", tree);
	if (nftw(tmp, rm_entry, 32, FTW_DEPTH | FTW_PHYS) != 0 && errno != ENOENT)
		return TD_FAIL(TD_EIO, "cannot empty %s, the private TMPDIR of %s: %s", tmp, tree,
			       strerror(errno));
	return 0;
}

int td_testrun_build(int *ok, td_proc_result *res, const td_project *p, const char *tree,
		     const char *log)
{
	td_proc_opts po = {0};
	char mark[4400], **argv = NULL;
	td_jail j;
	int err = td_testrun_empty_tmp(tree);

	if (!err)
		err = td_testrun_jail(&j, &po, p, tree);
	if (!err)
		err = td_variant_argv(&argv, p, p->active);
	*ok = 0;
	if (err)
		return err;
	po.argv = (const char *const *)argv;
	po.cwd = tree;
	po.out_path = log;
	po.timeout_s = p->timeout_build;
	clear_log(log);
	build_mark(mark, sizeof mark, tree);
	err = td_file_write_atomic(mark, "", 0, 0644);
	if (!err)
		err = td_proc_run(res, &po);
	if (!err && unlink(mark) != 0)
		err = TD_FAIL(TD_EIO, "cannot remove %s: %s", mark, strerror(errno));
	*ok = !err && res->exited && res->status == 0 && !res->timed_out;
	td_strv_free(argv);
	return err;
}

int td_testrun_list(char ***names, const td_project *p, int k, const char *tree, const char *log)
{
	td_proc_opts po = {0};
	td_proc_result pr;
	char *out = NULL, a[256], d[64];
	td_jail j;
	int err = td_testrun_jail(&j, &po, p, tree);

	*names = NULL;
	if (err)
		return err;
	po.argv = (const char *const *)p->runners[k].list;
	po.cwd = tree;
	po.out_path = log;
	po.timeout_s = p->timeout_build;
	clear_log(log);
	err = td_proc_run(&pr, &po);
	if (!err && (!pr.exited || pr.status != 0))
		err = TD_FAIL(TD_EIO, "%s: listing tests with '%s' failed (%s); see %s",
			      p->runners[k].where, td_proc_argv_string(po.argv, a, sizeof a),
			      td_proc_describe(&pr, d, sizeof d), log);
	if (!err)
		err = td_file_read(log, &out, NULL);
	char *save = NULL; /* strtok_r: strtok has one cursor for all threads */
	for (char *l = err ? NULL : strtok_r(out, "\n", &save); l && !err;
	     l = strtok_r(NULL, "\n", &save)) {
		l[strcspn(l, "\r")] = '\0';
		if (l[0])
			err = td_strv_push(names, l);
	}
	free(out);
	if (err) {
		td_strv_free(*names);
		*names = NULL;
	}
	return err;
}

int td_testrun_find_runner(int *runner, const td_project *p, const char *test, const char *tree,
			   const char *log)
{
	*runner = -1;
	for (int k = 0; k < p->n_runners && *runner < 0; k++) {
		char **names;
		int err = td_testrun_list(&names, p, k, tree, log);

		if (err)
			return err;
		if (names && td_strv_find(names, test) >= 0)
			*runner = k;
		td_strv_free(names);
	}
	return 0;
}

/* Adds the stamp of every entry under dir (path relative: rel) to *sum. */
static int stamp_dir(uint64_t *sum, const char *dir, const char *rel, int depth)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	int err = 0;

	if (!d)
		return TD_FAIL(TD_EIO, "cannot read the directory %s: %s", dir, strerror(errno));
	while (!err && (e = readdir(d))) {
		char path[PATH_MAX], sub[PATH_MAX];
		struct stat st;
		uint64_t h;

		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..") || !strcmp(e->d_name, ".git"))
			continue;
		if (snprintf(path, sizeof path, "%s/%s", dir, e->d_name) >= (int)sizeof path ||
		    snprintf(sub, sizeof sub, "%s/%s", rel, e->d_name) >= (int)sizeof sub)
			err = TD_FAIL(TD_EINVAL, "a path under %s is too long", dir);
		else if (lstat(path, &st) != 0)
			continue; /* removed while we looked: the next stamp differs anyway */
		else if (S_ISDIR(st.st_mode) && depth < 64)
			err = stamp_dir(sum, path, sub, depth + 1);
		else {
			h = td_fnv1a64(TD_FNV1A64_OFFSET, sub, strlen(sub) + 1);
			h = td_fnv1a64(h, &st.st_size, sizeof st.st_size);
			h = td_fnv1a64(h, &st.st_mtim, sizeof st.st_mtim);
			h = td_fnv1a64(h, &st.st_ino, sizeof st.st_ino);
			*sum += h;
		}
	}
	closedir(d);
	return err;
}

int td_testrun_compiled(const char *file)
{
	static const char *const ext[] = {"c", "h", "cc", "cpp", "cxx", "c++", "hh", "hpp",
					  "hxx", "h++", "inl", "ipp", "cu", "cuh", "m", "mm", NULL};
	const char *dot = strrchr(file, '.');

	for (int i = 0; dot && !strchr(dot, '/') && ext[i]; i++)
		if (!strcmp(dot + 1, ext[i]))
			return 1;
	return 0;
}

int td_testrun_tree_stamp(uint64_t *out, const char *tree)
{
	*out = 0;
	return stamp_dir(out, tree, "", 0);
}

int td_testrun_log_mentions(const char *path, const char *text)
{
	char *body = NULL;
	int yes = text && td_file_read(path, &body, NULL) == 0 && strstr(body, text) != NULL;

	free(body);
	return yes;
}

int td_testrun_one(enum td_test_result *out, td_proc_result *res, const td_project *p, int k,
		   const char *test, const char *tree, const char *log, double limit)
{
	return td_testrun_one_env(out, res, p, k, test, tree, log, limit, NULL);
}

int td_testrun_one_env(enum td_test_result *out, td_proc_result *res, const td_project *p, int k,
		       const char *test, const char *tree, const char *log, double limit,
		       const char *extra)
{
	td_proc_opts po = {0};
	char **argv = NULL;
	td_jail j;
	int err = td_testrun_jail(&j, &po, p, tree);

	if (!err && extra) { /* the jail leaves room for it */
		size_t n = 0;

		while (j.env[n])
			n++;
		j.env[n] = extra, j.env[n + 1] = NULL;
	}
	if (!err)
		err = td_strv_subst(&argv, p->runners[k].run, "{test}", test);
	if (err)
		return err;
	po.argv = (const char *const *)argv;
	po.cwd = tree;
	po.out_path = log;
	po.timeout_s = limit;
	clear_log(log);
	err = td_proc_run(res, &po);
	td_strv_free(argv);
	if (err)
		return err;
	if (res->timed_out)
		*out = TD_TEST_TIMEOUT;
	else if (!res->exited || res->status != 0 ||
		 td_testrun_log_mentions(log, p->runners[k].fail_text))
		*out = TD_TEST_FAIL;
	else
		*out = TD_TEST_PASS;
	return 0;
}

static int is_run_dir(const struct dirent *e)
{
	return e->d_name[0] != '.';
}

/*
 * Whether the run whose directory of logs is called name (STAMP-PID) may
 * still be going: its process exists. A reused pid keeps an old directory
 * a little longer, never loses a live one.
 */
static int running(const char *name)
{
	const char *dash = strrchr(name, '-');
	char *end = NULL;
	long pid = dash ? strtol(dash + 1, &end, 10) : 0;

	if (pid <= 0 || !end || *end || pid == (long)getpid())
		return 0;
	return kill((pid_t)pid, 0) == 0 || errno == EPERM;
}

int td_testrun_run_logs(char *out, size_t size, const char *state)
{
	char runs[4300], stamp[32], old[4600];
	time_t t = time(NULL);
	struct tm tm;
	struct dirent **v = NULL;
	int n, err;

	snprintf(runs, sizeof runs, "%s/logs/runs", state);
	strftime(stamp, sizeof stamp, "%Y%m%dT%H%M%SZ", gmtime_r(&t, &tm));
	if ((size_t)snprintf(out, size, "%s/%s-%ld", runs, stamp, (long)getpid()) >= size)
		return TD_FAIL(TD_EINVAL, "the state directory's path is too long: %s", state);
	if ((err = td_mkdirs(out)))
		return err;
	n = scandir(runs, &v, is_run_dir, alphasort);
	for (int i = 0; i < n; i++) {
		snprintf(old, sizeof old, "%s/%s", runs, v[i]->d_name);
		if (i < n - TD_RUNS_KEPT && strcmp(old, out) && !running(v[i]->d_name))
			nftw(old, rm_entry, 8, FTW_DEPTH | FTW_PHYS); /* best effort */
		free(v[i]);
	}
	free(v);
	return 0;
}

void td_testrun_file_name(char *out, size_t size, const char *name)
{
	size_t k = 0;

	for (const char *c = name; *c && k + 1 < size; c++)
		out[k++] = (*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') ||
				   (*c >= '0' && *c <= '9') || *c == '-' || *c == '.'
			   ? *c
			   : '_';
	if (size)
		out[k] = '\0';
}
