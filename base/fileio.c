/*
 * fileio.c - whole-file reads and atomic writes (see fileio.h).
 *
 * Must never leave a half-written target: write to a temporary, fsync,
 * rename, fsync the directory.
 */
#include "fileio.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "error.h"

int td_file_read(const char *path, char **out, size_t *len)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC), err = 0;
	struct stat st;
	char *buf = NULL;
	size_t got = 0;

	*out = NULL;
	if (fd < 0)
		return TD_FAIL(TD_EIO, "cannot open %s: %s", path, strerror(errno));
	if (fstat(fd, &st) != 0 || !(buf = malloc((size_t)st.st_size + 1))) {
		err = TD_FAIL(TD_EIO, "cannot read %s: %s", path, strerror(errno));
		goto done;
	}
	while (got < (size_t)st.st_size) {
		ssize_t n = read(fd, buf + got, (size_t)st.st_size - got);

		if (n <= 0) {
			err = TD_FAIL(TD_EIO, "cannot read %s: %s", path, n ? strerror(errno) : "file shrank");
			goto done;
		}
		got += (size_t)n;
	}
	buf[got] = '\0';
	if (len)
		*len = got;
	*out = buf;
	buf = NULL;
done:
	free(buf);
	close(fd);
	return err;
}

static int fsync_dir_of(const char *path)
{
	char *copy = strdup(path);
	int fd, rc = -1;

	if (!copy)
		return -1;
	fd = open(dirname(copy), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd >= 0) {
		rc = fsync(fd);
		close(fd);
	}
	free(copy);
	return rc;
}

/*
 * Removes the temporary files an earlier write of path left behind when
 * its process died before the rename (killed mid-write): those named
 * "<base>.tmp.<pid>.XXXXXX" whose pid no longer exists. A live writer's
 * temporary file, or anything else, is left alone. Best effort.
 */
static void sweep_stale(const char *path)
{
	char *copy = strdup(path), *base, dir[4096], prefix[512], *end;
	struct dirent *e;
	DIR *d;

	if (!copy)
		return;
	base = strrchr(copy, '/') ? strrchr(copy, '/') + 1 : copy;
	snprintf(dir, sizeof dir, "%.*s", base == copy ? 1 : (int)(base - copy - 1),
		 base == copy ? "." : copy);
	snprintf(prefix, sizeof prefix, "%s.tmp.", base);
	if ((d = opendir(dir))) {
		while ((e = readdir(d))) {
			long pid;

			if (strncmp(e->d_name, prefix, strlen(prefix)))
				continue;
			pid = strtol(e->d_name + strlen(prefix), &end, 10);
			if (end == e->d_name + strlen(prefix) || *end != '.' || strlen(end) != 7 ||
			    pid <= 0 || !(kill((pid_t)pid, 0) != 0 && errno == ESRCH))
				continue;
			unlinkat(dirfd(d), e->d_name, 0);
		}
		closedir(d);
	}
	free(copy);
}

int td_file_write_atomic(const char *path, const void *data, size_t len, unsigned mode)
{
	char tmp[4096];
	const char *p = data;
	int fd, n = snprintf(tmp, sizeof tmp, "%s.tmp.%ld.XXXXXX", path, (long)getpid());

	if (n < 0 || (size_t)n >= sizeof tmp)
		return TD_FAIL(TD_EINVAL, "path %s is too long", path);
	sweep_stale(path);
	fd = mkstemp(tmp);
	if (fd < 0)
		return TD_FAIL(TD_EIO, "cannot create a temporary file beside %s: %s", path, strerror(errno));
	for (size_t done = 0; done < len;) {
		ssize_t w = write(fd, p + done, len - done);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			goto fail;
		done += (size_t)w;
	}
	if (fchmod(fd, (mode_t)mode) != 0 || fsync(fd) != 0)
		goto fail; /* fd is still open: fail closes it */
	if (close(fd) != 0) {
		fd = -1;
		goto fail;
	}
	if (rename(tmp, path) != 0)
		goto fail_closed;
	if (fsync_dir_of(path) != 0)
		return TD_FAIL(TD_EIO, "wrote %s but could not fsync its directory: %s", path,
			       strerror(errno));
	return 0;
fail:
	if (fd >= 0)
		close(fd);
fail_closed:
	{
		int e = errno;

		unlink(tmp);
		return TD_FAIL(TD_EIO, "cannot write %s: %s", path, strerror(e));
	}
}

int td_mkdirs(const char *dir)
{
	char buf[4096];
	size_t n = strlen(dir);

	if (n == 0 || n >= sizeof buf)
		return TD_FAIL(TD_EINVAL, "directory path '%s' is empty or too long", dir);
	memcpy(buf, dir, n + 1);
	for (char *p = buf + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = '\0';
		if (mkdir(buf, 0755) != 0 && errno != EEXIST)
			return TD_FAIL(TD_EIO, "cannot create %s: %s", buf, strerror(errno));
		*p = '/';
	}
	if (mkdir(buf, 0755) != 0 && errno != EEXIST)
		return TD_FAIL(TD_EIO, "cannot create %s: %s", buf, strerror(errno));
	return 0;
}

int td_file_check_writable(const char *path)
{
	const char *slash = strrchr(path, '/');
	char dir[4096];
	struct stat st;

	if (stat(path, &st) == 0 && S_ISDIR(st.st_mode))
		return TD_FAIL(TD_EIO, "cannot write %s: it is a directory", path);
	if (!slash)
		snprintf(dir, sizeof dir, ".");
	else
		snprintf(dir, sizeof dir, "%.*s", (int)(slash == path ? 1 : slash - path), path);
	if (access(dir, W_OK | X_OK) != 0)
		return TD_FAIL(TD_EIO, "cannot write %s: its directory %s: %s", path, dir,
			       strerror(errno));
	return 0;
}
