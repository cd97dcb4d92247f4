/*
 * covcache.c - the coverage of a schema's unmutated suite, kept by content
 * (see covcache.h).
 */
#define _GNU_SOURCE
#include "covcache.h"

#include <dirent.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../base/error.h"
#include "../base/fileio.h"

/* A record's name: 16 hex digits, nothing else (a temporary file is not one). */
static int is_record(const struct dirent *d)
{
	return strlen(d->d_name) == 16 && strspn(d->d_name, "0123456789abcdef") == 16;
}

int td_covcache_get(char **text, const char *dir, uint64_t key)
{
	char path[4400];

	*text = NULL;
	snprintf(path, sizeof path, "%s/%016" PRIx64, dir, key);
	if (access(path, R_OK) != 0 || td_file_read(path, text, NULL) != 0)
		return 1;
	utimensat(AT_FDCWD, path, NULL, 0); /* used: the newest to keep */
	return 0;
}

typedef struct {
	char name[17];
	struct timespec mtime;
} entry;

static int oldest_first(const void *a, const void *b)
{
	const struct timespec *x = &((const entry *)a)->mtime, *y = &((const entry *)b)->mtime;

	if (x->tv_sec != y->tv_sec)
		return x->tv_sec < y->tv_sec ? -1 : 1;
	if (x->tv_nsec != y->tv_nsec)
		return x->tv_nsec < y->tv_nsec ? -1 : 1;
	return strcmp(((const entry *)a)->name, ((const entry *)b)->name);
}

/* Removes the oldest records of dir beyond TD_COVCACHE_KEEP (best effort). */
static void prune(const char *dir)
{
	struct dirent **v = NULL;
	entry *e;
	char path[4400];
	int n = scandir(dir, &v, is_record, NULL), k = 0;

	if (n <= TD_COVCACHE_KEEP) {
		for (int i = 0; i < n; i++)
			free(v[i]);
		free(v);
		return;
	}
	e = calloc((size_t)n, sizeof *e);
	for (int i = 0; i < n; i++) {
		struct stat st;

		snprintf(path, sizeof path, "%s/%s", dir, v[i]->d_name);
		if (e && stat(path, &st) == 0) {
			memcpy(e[k].name, v[i]->d_name, 17); /* 16 hex digits and the NUL */
			e[k++].mtime = st.st_mtim;
		}
		free(v[i]);
	}
	free(v);
	if (e)
		qsort(e, (size_t)k, sizeof *e, oldest_first);
	for (int i = 0; e && i < k - TD_COVCACHE_KEEP; i++) {
		snprintf(path, sizeof path, "%s/%s", dir, e[i].name);
		unlink(path);
	}
	free(e);
}

int td_covcache_put(const char *dir, uint64_t key, const char *text, size_t len)
{
	char path[4400];
	int err = td_mkdirs(dir);

	snprintf(path, sizeof path, "%s/%016" PRIx64, dir, key);
	if (!err)
		err = td_file_write_atomic(path, text, len, 0644);
	if (!err)
		prune(dir);
	return err;
}
