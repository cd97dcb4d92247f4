/*
 * fixture.c - fixture repositories for end-to-end tests (see fixture.h).
 */
#define _XOPEN_SOURCE 700
#include "fixture.h"

#include "tdtest.h"

#include <dirent.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "../base/error.h"
#include "../base/fileio.h"
#include "../harness/proc.h"

#ifndef TD_BUILD_DIR
#define TD_BUILD_DIR "build"
#endif

void fx_write(const char *dir, const char *rel, const char *text)
{
	char path[4096], parent[4096];
	char *slash;

	snprintf(path, sizeof path, "%s/%s", dir, rel);
	snprintf(parent, sizeof parent, "%s", path);
	slash = strrchr(parent, '/');
	*slash = '\0';
	if (td_mkdirs(parent) != 0 || td_file_write_atomic(path, text, strlen(text), 0644) != 0)
		fail_msg("fixture: %s", td_error_last());
}

int fx_run(const char *dir, const char *log, const char *const *argv)
{
	td_proc_opts o = {0};
	td_proc_result r;
	char out[4096];

	snprintf(out, sizeof out, "%s/../%s", dir, log);
	unlink(out); /* each run's log holds that run only */
	o.argv = argv;
	o.cwd = dir;
	o.out_path = out;
	o.timeout_s = 300;
	if (td_proc_run(&r, &o) != 0)
		fail_msg("fixture: %s", td_error_last());
	return r.exited ? r.status : 128 + r.status;
}

void fx_git_commit_all(const char *dir, const char *message)
{
	const char *init[] = {"git", "init", "-q", "-b", "main", NULL};
	const char *add[] = {"git", "add", "-A", NULL};
	const char *commit[] = {"git", "-c", "user.name=fixture", "-c", "user.email=f@x",
				"commit", "-q", "-m", message, NULL};
	struct stat st;
	char git[4096];

	snprintf(git, sizeof git, "%s/.git", dir);
	if (stat(git, &st) != 0)
		assert_int_equal(fx_run(dir, "git.log", init), 0);
	assert_int_equal(fx_run(dir, "git.log", add), 0);
	assert_int_equal(fx_run(dir, "git.log", commit), 0);
}

const char *fx_git_rev(const char *dir, const char *rev)
{
	static char id[41];
	const char *argv[] = {"git", "rev-parse", "--verify", "-q", rev, NULL};
	char log[4096];

	snprintf(log, sizeof log, "%s/../rev.log", dir);
	assert_int_equal(fx_run(dir, "rev.log", argv), 0);
	snprintf(id, sizeof id, "%.40s", fx_slurp(log));
	return id;
}

int fx_tdaudit(const char *dir, const char *log, const char *const *args)
{
	const char *argv[32] = {TD_BUILD_DIR "/tdaudit"};
	int n = 1;

	while (args[n - 1] && n < 31) {
		argv[n] = args[n - 1];
		n++;
	}
	argv[n] = NULL;
	return fx_run(dir, log, argv);
}

static uint64_t tree_hash; /* sum of per-entry hashes: independent of walk order */
static size_t tree_skip;

static uint64_t mix(uint64_t h, const void *p, size_t n)
{
	const unsigned char *b = p;

	for (size_t i = 0; i < n; i++) {
		h ^= b[i];
		h *= 1099511628211ull; /* FNV-1a */
	}
	return h;
}

static int hash_entry(const char *path, const struct stat *sb, int flag, struct FTW *ftw)
{
	char *text;
	size_t len;
	uint64_t h;

	(void)ftw;
	if (strstr(path + tree_skip, "/.tdaudit"))
		return 0;
	h = mix(14695981039346656037ull, path + tree_skip, strlen(path + tree_skip) + 1);

	h = mix(h, &sb->st_mode, sizeof sb->st_mode);
	if (flag == FTW_F && td_file_read(path, &text, &len) == 0) {
		h = mix(h, text, len);
		free(text);
	}
	tree_hash += h;
	return 0;
}

uint64_t fx_tree_hash(const char *dir)
{
	tree_hash = 0;
	tree_skip = strlen(dir);
	nftw(dir, hash_entry, 32, FTW_PHYS);
	return tree_hash;
}

const char *fx_slurp(const char *path)
{
	static char buf[1 << 20];
	FILE *f = fopen(path, "r");
	size_t n = 0;

	if (f) {
		n = fread(buf, 1, sizeof buf - 1, f);
		fclose(f);
	}
	buf[n] = '\0';
	return buf;
}

/* Whether pid is dead: no such process, or a zombie nobody reaped yet. */
static int dead(pid_t pid)
{
	char path[64], state = '?';
	FILE *f;

	snprintf(path, sizeof path, "/proc/%ld/stat", (long)pid);
	f = fopen(path, "r");
	if (!f)
		return 1;
	if (fscanf(f, "%*d (%*[^)]) %c", &state) != 1)
		state = '?';
	fclose(f);
	return state == 'Z' || state == 'X';
}

int fx_gone(pid_t pid)
{
	struct timespec nap = {0, 10 * 1000 * 1000};

	for (int i = 0; i < 500; i++) {
		if (dead(pid))
			return 1;
		nanosleep(&nap, NULL);
	}
	return 0;
}

/* Copies line into out with runs of blanks made one space, trimmed. */
static void squeeze(char *out, size_t size, const char *line, size_t len)
{
	size_t k = 0;

	for (size_t i = 0; i < len && k + 1 < size; i++) {
		if (line[i] != ' ' && line[i] != '\t')
			out[k++] = line[i];
		else if (k && out[k - 1] != ' ')
			out[k++] = ' ';
	}
	while (k && out[k - 1] == ' ')
		k--;
	out[k] = '\0';
}

int fx_has_row(const char *log, const char *want)
{
	const char *text = fx_slurp(log);
	char got[512];

	for (const char *p = text; *p;) {
		size_t len = strcspn(p, "\n");

		squeeze(got, sizeof got, p, len);
		if (!strcmp(got, want))
			return 1;
		p += len + (p[len] == '\n');
	}
	print_message("no row '%s' in:\n%s\n", want, text);
	return 0;
}

int fx_open_fds(void)
{
	DIR *d = opendir("/proc/self/fd");
	int n = 0;

	assert_non_null(d);
	while (readdir(d))
		n++;
	closedir(d);
	return n;
}
