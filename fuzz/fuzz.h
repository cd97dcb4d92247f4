/*
 * fuzz.h - what the libFuzzer targets of fuzz/ share: the entry point's
 * prototype, and a private temporary directory per process into which a
 * target writes its input as a file, for the loaders that read files.
 *
 * Each fuzz_*.c file is one target (see fuzz/README.md). A target must
 * never print, exit or keep state between inputs beyond this directory;
 * the directory is removed when the process exits normally.
 */
#ifndef TD_FUZZ_H
#define TD_FUZZ_H

#define _XOPEN_SOURCE 700
#include <ftw.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static char fuzz_dir[4096];

static inline int fuzz_rm_entry(const char *path, const struct stat *sb, int flag, struct FTW *ftw)
{
	(void)sb, (void)flag, (void)ftw;
	return remove(path);
}

static inline void fuzz_rm_dir(void)
{
	nftw(fuzz_dir, fuzz_rm_entry, 16, FTW_DEPTH | FTW_PHYS);
}

/*
 * The process's temporary directory ($TMPDIR or /tmp), made on the first
 * call; a target that cannot make it stops the run (abort), which is the
 * fuzzer's environment failing, not the code under test.
 */
static inline const char *fuzz_tmpdir(void)
{
	const char *tmp = getenv("TMPDIR");

	if (fuzz_dir[0])
		return fuzz_dir;
	snprintf(fuzz_dir, sizeof fuzz_dir, "%s/tdfuzz-XXXXXX", tmp && *tmp ? tmp : "/tmp");
	if (!mkdtemp(fuzz_dir)) {
		perror("fuzz: mkdtemp");
		abort();
	}
	atexit(fuzz_rm_dir);
	return fuzz_dir;
}

/*
 * Writes n bytes of data to rel inside fuzz_tmpdir() (rel's one directory
 * level is made when missing) and puts the full path in path. Aborts as
 * fuzz_tmpdir does when the file cannot be written.
 */
static inline void fuzz_write(char *path, size_t cap, const char *rel, const void *data, size_t n)
{
	const char *slash = strchr(rel, '/');
	FILE *f;

	if (slash) {
		snprintf(path, cap, "%s/%.*s", fuzz_tmpdir(), (int)(slash - rel), rel);
		mkdir(path, 0700);
	}
	snprintf(path, cap, "%s/%s", fuzz_tmpdir(), rel);
	f = fopen(path, "wb");
	if (!f || fwrite(data, 1, n, f) != n || fclose(f) != 0) {
		perror(path);
		abort();
	}
}

#endif
