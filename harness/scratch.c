/*
 * scratch.c - syncing scratch trees (see scratch.h).
 *
 * Must never write under the source root, and never rewrite a file whose
 * bytes are already right (that would make every build a full build).
 */
#define _GNU_SOURCE
#include "scratch.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../base/error.h"
#include "../base/fileio.h"
#include "../base/hash.h"
#include "../base/strv.h"

static int path_join(char *buf, size_t size, const char *a, const char *b)
{
	int n = snprintf(buf, size, "%s/%s", a, b);

	if (n < 0 || (size_t)n >= size)
		return TD_FAIL(TD_EINVAL, "path %s/%s is too long", a, b);
	return 0;
}

static int mkparent(const char *path)
{
	char dir[PATH_MAX];
	char *slash;

	snprintf(dir, sizeof dir, "%s", path);
	slash = strrchr(dir, '/');
	if (!slash)
		return 0;
	*slash = '\0';
	return td_mkdirs(dir);
}

int td_scratch_put_mode(const char *path, const char *data, size_t len, unsigned mode)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, (mode_t)mode);
	size_t done = 0;

	if (fd < 0)
		return TD_FAIL(TD_EIO, "cannot write %s: %s", path, strerror(errno));
	while (done < len) {
		ssize_t w = write(fd, data + done, len - done);

		if (w <= 0 && errno != EINTR) {
			close(fd);
			return TD_FAIL(TD_EIO, "cannot write %s: %s", path, strerror(errno));
		}
		done += w > 0 ? (size_t)w : 0;
	}
	fchmod(fd, (mode_t)mode);
	close(fd);
	return 0;
}

/* Copies a symlink src -> dst unless dst already is the same link. */
static int sync_link(const char *src, const char *dst, int *wrote)
{
	char a[PATH_MAX], b[PATH_MAX];
	ssize_t na = readlink(src, a, sizeof a - 1), nb = readlink(dst, b, sizeof b - 1);

	if (na < 0)
		return TD_FAIL(TD_EIO, "cannot read link %s: %s", src, strerror(errno));
	a[na] = '\0';
	if (nb >= 0) {
		b[nb] = '\0';
		if (strcmp(a, b) == 0)
			return 0;
	}
	unlink(dst);
	if (mkparent(dst) != 0 || symlink(a, dst) != 0)
		return TD_FAIL(TD_EIO, "cannot create link %s: %s", dst, strerror(errno));
	*wrote = 1;
	return 0;
}

/* Copies a regular file src -> dst unless bytes and mode already agree. */
static int sync_file(const char *src, const char *dst, mode_t mode, int *wrote)
{
	char *a = NULL, *b = NULL;
	size_t na = 0, nb = 0;
	struct stat st;
	int err = td_file_read(src, &a, &na);

	if (err)
		return err;
	if (lstat(dst, &st) == 0 && S_ISREG(st.st_mode) && (st.st_mode & 0111) == (mode & 0111) &&
	    td_file_read(dst, &b, &nb) == 0 && na == nb && memcmp(a, b, na) == 0)
		goto done;
	if (lstat(dst, &st) == 0 && !S_ISREG(st.st_mode))
		unlink(dst);
	err = mkparent(dst);
	if (!err)
		err = td_scratch_put_mode(dst, a, na, mode & 0777);
	*wrote = !err;
done:
	free(a);
	free(b);
	return err;
}

int td_scratch_put(const char *dst, const char *rel, const char *data, size_t len)
{
	char path[PATH_MAX];
	struct stat st;
	int err = path_join(path, sizeof path, dst, rel);

	if (err)
		return err;
	return td_scratch_put_mode(path, data, len, stat(path, &st) == 0 ? st.st_mode & 0777 : 0644);
}

/* Removes what the previous sync copied and the source no longer has. */
static int prune(const char *dst, const char *manifest, char *const *files, size_t *n)
{
	char *old = NULL, path[PATH_MAX];

	if (td_file_read(manifest, &old, NULL) != 0)
		return 0; /* first sync */
	char *save = NULL; /* strtok_r: strtok has one cursor for all threads */
	for (char *line = strtok_r(old, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save))
		if (td_strv_find(files, line) < 0 && path_join(path, sizeof path, dst, line) == 0 &&
		    unlink(path) == 0)
			(*n)++;
	free(old);
	return 0;
}

static int write_manifest(const char *manifest, char *const *files)
{
	size_t len = 0, cap = 1;
	char *buf;
	int err;

	for (size_t i = 0; files && files[i]; i++)
		cap += strlen(files[i]) + 1;
	buf = malloc(cap);
	if (!buf)
		return TD_FAIL(TD_ENOMEM, "out of memory for the scratch manifest");
	for (size_t i = 0; files && files[i]; i++)
		len += (size_t)sprintf(buf + len, "%s\n", files[i]);
	err = td_file_write_atomic(manifest, buf, len, 0644);
	free(buf);
	return err;
}

int td_scratch_content_hash(uint64_t *h, const char *dst, const char *manifest)
{
	char *list = NULL, *save = NULL, path[PATH_MAX];
	int err = td_file_read(manifest, &list, NULL);

	for (char *line = err ? NULL : strtok_r(list, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		char *text = NULL;
		size_t len = 0;
		int missing = path_join(path, sizeof path, dst, line) != 0 ||
			      td_file_read(path, &text, &len) != 0;

		*h = td_fnv1a64(*h, line, strlen(line) + 1);
		*h = td_fnv1a64(*h, &missing, sizeof missing);
		*h = td_fnv1a64(*h, &len, sizeof len);
		*h = td_fnv1a64(*h, text ? text : "", len);
		free(text);
	}
	free(list);
	return err;
}

int td_scratch_stamp(uint64_t *out, const char *dst, const char *manifest)
{
	char *list = NULL, *save = NULL, path[PATH_MAX];
	uint64_t h = TD_FNV1A64_OFFSET;
	int err = td_file_read(manifest, &list, NULL);

	*out = 0;
	if (err)
		return err;
	for (char *line = strtok_r(list, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		struct stat st;
		long long f[8] = {-1};

		if (path_join(path, sizeof path, dst, line) == 0 && lstat(path, &st) == 0) {
			f[0] = (long long)st.st_mode, f[1] = (long long)st.st_size;
			f[2] = (long long)st.st_ino, f[3] = (long long)st.st_dev;
			f[4] = (long long)st.st_mtim.tv_sec, f[5] = st.st_mtim.tv_nsec;
			f[6] = (long long)st.st_ctim.tv_sec, f[7] = st.st_ctim.tv_nsec;
		}
		h = td_fnv1a64(h, line, strlen(line) + 1);
		h = td_fnv1a64(h, f, sizeof f);
	}
	free(list);
	*out = h;
	return 0;
}

int td_scratch_sync(const char *src_root, char *const *files, const char *dst,
		    const char *manifest, size_t *n_written)
{
	size_t n = 0;
	int err = td_mkdirs(dst);

	for (size_t i = 0; !err && files && files[i]; i++) {
		char src[PATH_MAX], out[PATH_MAX];
		struct stat st;
		int wrote = 0;

		err = path_join(src, sizeof src, src_root, files[i]);
		if (!err)
			err = path_join(out, sizeof out, dst, files[i]);
		if (err)
			break;
		if (lstat(src, &st) != 0)
			continue; /* vanished since it was listed */
		if (S_ISLNK(st.st_mode))
			err = sync_link(src, out, &wrote);
		else if (S_ISREG(st.st_mode))
			err = sync_file(src, out, st.st_mode, &wrote);
		n += (size_t)wrote;
	}
	if (!err)
		err = prune(dst, manifest, files, &n);
	if (!err)
		err = write_manifest(manifest, files);
	if (n_written)
		*n_written = n;
	return err;
}
