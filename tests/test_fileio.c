/*
 * test_fileio.c - the atomic write (temporary file, fsync, rename, fsync the
 * directory): a failed write leaves the old file whole and no temporary
 * behind, the mode asked for is applied; td_mkdirs creates the parents;
 * td_file_read refuses a missing file naming it.
 *
 * A write is made to fail in two places: halfway through its data (a file
 * size limit, RLIMIT_FSIZE, the way a full disk fails; it works as root,
 * where a read-only directory would not stop the write) and at the rename
 * (the target is a directory); and at fchmod, which this test binary
 * replaces (below) so that it can be made to fail.
 *
 * What these tests guard: tdaudit mutate --list --file base/fileio.c
 */
#define _GNU_SOURCE /* syscall() */
#include "tdtest.h"

#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../base/error.h"
#include "../base/fileio.h"
#include "fixture.h"

static const char old_text[] = "the old contents, longer than the new ones\n";
static const char new_text[] = "new\n";

/* The number of entries in the current directory, . and .. excluded. */
static int dir_entries(void)
{
	DIR *d = opendir(".");
	struct dirent *e;
	int n = 0;

	assert_non_null(d);
	while ((e = readdir(d)))
		n += strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0;
	closedir(d);
	return n;
}

static void write_plain(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	assert_int_equal(fputs(text, f) >= 0, 1);
	assert_int_equal(fclose(f), 0);
}

static void assert_file_holds(const char *path, const char *want)
{
	char *got;
	size_t len;

	assert_int_equal(td_file_read(path, &got, &len), 0);
	assert_int_equal(len, strlen(want));
	assert_string_equal(got, want);
	free(got);
}

/*
 * td_file_write_atomic of len bytes under a file size limit of limit bytes:
 * the write fails with EFBIG after limit bytes. SIGXFSZ is ignored and the
 * limit lifted before anything is printed. Returns the call's result.
 */
static int write_with_size_limit(const char *path, size_t len, rlim_t limit)
{
	struct rlimit keep, lim;
	void (*old_handler)(int) = signal(SIGXFSZ, SIG_IGN);
	char *data = malloc(len);
	int rc;

	assert_non_null(data);
	memset(data, 'x', len);
	assert_int_equal(getrlimit(RLIMIT_FSIZE, &keep), 0);
	lim = keep;
	lim.rlim_cur = limit;
	assert_int_equal(setrlimit(RLIMIT_FSIZE, &lim), 0);
	rc = td_file_write_atomic(path, data, len, 0644);
	assert_int_equal(setrlimit(RLIMIT_FSIZE, &keep), 0);
	signal(SIGXFSZ, old_handler);
	free(data);
	return rc;
}

static void test_a_failed_write_leaves_the_old_file_whole(void **state)
{
	(void)state;
	write_plain("target.txt", old_text);
	TD_ASSERT_REFUSED(write_with_size_limit("target.txt", 4096, 16), TD_EIO, "target.txt");
	assert_file_holds("target.txt", old_text);

	assert_int_equal(mkdir("target.d", 0755), 0);
	write_plain("target.d/kept.txt", old_text);
	TD_ASSERT_REFUSED(td_file_write_atomic("target.d", new_text, strlen(new_text), 0644),
			  TD_EIO, "target.d");
	assert_file_holds("target.d/kept.txt", old_text);
}

static void test_a_failed_write_leaves_no_temporary_file(void **state)
{
	(void)state;
	write_plain("target.txt", old_text);
	assert_int_equal(mkdir("target.d", 0755), 0);
	assert_int_equal(dir_entries(), 2);
	TD_ASSERT_REFUSED(write_with_size_limit("target.txt", 4096, 16), TD_EIO, "target.txt");
	assert_int_equal(dir_entries(), 2);
	TD_ASSERT_REFUSED(td_file_write_atomic("target.d", new_text, strlen(new_text), 0644),
			  TD_EIO, "target.d");
	assert_int_equal(dir_entries(), 2);
}

static void test_a_written_file_gets_the_mode_asked_for(void **state)
{
	struct stat st;

	(void)state;
	assert_int_equal(td_file_write_atomic("a.txt", new_text, strlen(new_text), 0644), 0);
	assert_int_equal(stat("a.txt", &st), 0);
	assert_int_equal(st.st_mode & 07777, 0644);
	assert_int_equal(td_file_write_atomic("a.txt", new_text, strlen(new_text), 0640), 0);
	assert_int_equal(stat("a.txt", &st), 0);
	assert_int_equal(st.st_mode & 07777, 0640);
}

static void test_a_write_replaces_the_old_file_whole(void **state)
{
	(void)state;
	write_plain("target.txt", old_text);
	assert_int_equal(td_file_write_atomic("target.txt", new_text, strlen(new_text), 0644), 0);
	assert_file_holds("target.txt", new_text);
	assert_int_equal(dir_entries(), 1);
}

static void test_mkdirs_creates_the_missing_parents(void **state)
{
	struct stat st;

	(void)state;
	assert_int_equal(td_mkdirs("a/b/c"), 0);
	assert_int_equal(stat("a/b/c", &st), 0);
	assert_true(S_ISDIR(st.st_mode));
	assert_int_equal(td_mkdirs("a/b/c"), 0); /* existing directories are fine */
	assert_int_equal(td_mkdirs("a/b/d/"), 0);
	assert_int_equal(stat("a/b/d", &st), 0);
	assert_true(S_ISDIR(st.st_mode));
}

static void test_reading_a_missing_file_is_refused_naming_it(void **state)
{
	char *buf = (char *)&buf; /* must come back NULL */

	(void)state;
	TD_ASSERT_REFUSED(td_file_read("missing.txt", &buf, NULL), TD_EIO, "missing.txt");
	assert_null(buf);
	if (!strstr(td_error_last(), "No such file"))
		fail_msg("message lacks the reason: %s", td_error_last());
}

/*
 * fchmod as libtdbase sees it in this binary: the executable's definition
 * takes the place of libc's, so a test can make it fail (EIO) without root
 * losing its rights; otherwise it is the system call.
 */
static int fchmod_fails;

int fchmod(int fd, mode_t mode)
{
	if (fchmod_fails) {
		errno = EIO;
		return -1;
	}
	return (int)syscall(SYS_fchmod, fd, mode);
}

/*
 * A failed fchmod (or fsync) after the data is written must close the
 * temporary file and remove it: 20 failed writes may not leave a single
 * descriptor or file behind.
 */
static void test_a_failed_fchmod_closes_and_removes_the_temporary_file(void **state)
{
	int before, entries;

	(void)state;
	entries = dir_entries();
	before = fx_open_fds();
	fchmod_fails = 1;
	for (int i = 0; i < 20; i++)
		assert_int_not_equal(td_file_write_atomic("target", new_text, sizeof new_text - 1, 0644), 0);
	fchmod_fails = 0;
	if (fx_open_fds() != before)
		fail_msg("20 failed writes left %d descriptors open", fx_open_fds() - before);
	assert_int_equal(dir_entries(), entries);
}

/*
 * A writer killed between creating its temporary file and the rename
 * leaves "<path>.tmp.<pid>.XXXXXX"; the next write of path removes it once
 * that process is gone, and leaves alone a live writer's and another
 * target's. It used to stay forever: every killed checkpoint write left
 * one more (DEBUG.md #45).
 */
static void test_the_next_write_removes_a_killed_writers_temporary_file(void **state)
{
	char dead[64], live[64], other[64];
	pid_t pid = fork();
	int status;

	(void)state;
	assert_true(pid >= 0);
	if (pid == 0)
		_exit(0); /* a writer that is gone, as after a SIGKILL */
	assert_int_equal(waitpid(pid, &status, 0), pid);
	snprintf(dead, sizeof dead, "ckpt.bin.tmp.%ld.Ab3dEf", (long)pid);
	snprintf(live, sizeof live, "ckpt.bin.tmp.%ld.Gh1jKl", (long)getpid());
	snprintf(other, sizeof other, "other.bin.tmp.%ld.Ab3dEf", (long)pid);
	write_plain(dead, "half a checkpoint");
	write_plain(live, "a write in progress");
	write_plain(other, "another file's");
	assert_int_equal(td_file_write_atomic("ckpt.bin", new_text, strlen(new_text), 0644), 0);
	assert_int_equal(access(dead, F_OK), -1);
	assert_int_equal(access(live, F_OK), 0);
	assert_int_equal(access(other, F_OK), 0);
	assert_file_holds("ckpt.bin", new_text);
}

static const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_a_failed_write_leaves_the_old_file_whole),
    cmocka_unit_test(test_a_failed_write_leaves_no_temporary_file),
    cmocka_unit_test(test_a_failed_fchmod_closes_and_removes_the_temporary_file),
    cmocka_unit_test(test_a_written_file_gets_the_mode_asked_for),
    cmocka_unit_test(test_a_write_replaces_the_old_file_whole),
    cmocka_unit_test(test_mkdirs_creates_the_missing_parents),
    cmocka_unit_test(test_reading_a_missing_file_is_refused_naming_it),
    cmocka_unit_test(test_the_next_write_removes_a_killed_writers_temporary_file),
};
TD_TEST_GROUP(fileio, tests);
