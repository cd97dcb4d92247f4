/*
 * confine.c - Landlock rules for the children the harness starts
 * (confine.h).
 *
 * glibc has no wrappers for Landlock's three system calls, so they go
 * through syscall(2). The rights handled are the write rights of the ABI
 * the kernel offers; read, execute and directory listing are not handled,
 * so they stay allowed everywhere. Must never confine tdaudit itself:
 * td_confine_apply runs only in a forked child (and in the probe's).
 */
#define _GNU_SOURCE
#include "confine.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/landlock.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "schema.h"
#include "../base/error.h"

#ifndef LANDLOCK_ACCESS_FS_TRUNCATE /* ABI 3; older headers stop at ABI 2 */
#define LANDLOCK_ACCESS_FS_TRUNCATE (1ULL << 14)
#endif

#define WRITE_FILE_RIGHTS (LANDLOCK_ACCESS_FS_WRITE_FILE)
#define WRITE_DIR_RIGHTS                                                                   \
	(LANDLOCK_ACCESS_FS_WRITE_FILE | LANDLOCK_ACCESS_FS_REMOVE_DIR |                   \
	 LANDLOCK_ACCESS_FS_REMOVE_FILE | LANDLOCK_ACCESS_FS_MAKE_CHAR |                   \
	 LANDLOCK_ACCESS_FS_MAKE_DIR | LANDLOCK_ACCESS_FS_MAKE_REG |                       \
	 LANDLOCK_ACCESS_FS_MAKE_SOCK | LANDLOCK_ACCESS_FS_MAKE_FIFO |                     \
	 LANDLOCK_ACCESS_FS_MAKE_BLOCK | LANDLOCK_ACCESS_FS_MAKE_SYM)

/* Device files every build and test may write; those missing here are skipped. */
static const char *const dev_files[] = {"/dev/null", "/dev/zero", "/dev/full", "/dev/tty",
					"/dev/random", "/dev/urandom", "/dev/ptmx", NULL};
/* Directories of devices and shared memory (a pseudo-terminal, a POSIX semaphore). */
static const char *const dev_dirs[] = {"/dev/pts", "/dev/shm", NULL};

static int abi;
static const char *abi_why = "not probed";
static pthread_once_t probed = PTHREAD_ONCE_INIT;

static int ruleset_create(const struct landlock_ruleset_attr *attr, size_t size, unsigned flags)
{
	return (int)syscall(SYS_landlock_create_ruleset, attr, size, flags);
}

/* The rights handled (denied unless a rule allows them) at ABI version v. */
static unsigned long long dir_rights(int v)
{
	return WRITE_DIR_RIGHTS | (v >= 2 ? LANDLOCK_ACCESS_FS_REFER : 0) |
	       (v >= 3 ? LANDLOCK_ACCESS_FS_TRUNCATE : 0);
}

static unsigned long long file_rights(int v)
{
	return WRITE_FILE_RIGHTS | (v >= 3 ? LANDLOCK_ACCESS_FS_TRUNCATE : 0);
}

/* A ruleset handling the write rights of ABI v, with no rule yet: -1 on failure. */
static int new_ruleset(int v)
{
	struct landlock_ruleset_attr attr = {.handled_access_fs = dir_rights(v)};

	return ruleset_create(&attr, sizeof attr, 0);
}

/* Tries the whole thing in a child, which a seccomp filter or an LSM may refuse. */
static void probe(void)
{
	int v = ruleset_create(NULL, 0, LANDLOCK_CREATE_RULESET_VERSION), st = 0;
	pid_t pid;

	if (v < 0) {
		abi_why = errno == ENOSYS      ? "this kernel has no Landlock (built without it)"
			  : errno == EOPNOTSUPP ? "Landlock is disabled on this kernel (lsm= boot option)"
						: "Landlock is refused here (ruleset creation failed)";
		return;
	}
	pid = fork();
	if (pid == 0) {
		int fd = new_ruleset(v);

		_exit(fd >= 0 && td_confine_apply(fd) == 0 ? 0 : 1);
	}
	while (pid > 0 && waitpid(pid, &st, 0) < 0 && errno == EINTR)
		;
	if (pid < 0 || !WIFEXITED(st) || WEXITSTATUS(st) != 0) {
		abi_why = "Landlock is refused here (a child could not apply a ruleset: a seccomp "
			  "filter or container policy?)";
		return;
	}
	abi = v;
	abi_why = "";
}

int td_confine_abi(const char **why)
{
	pthread_once(&probed, probe);
	if (why)
		*why = abi_why;
	return abi;
}

/* Adds a rule allowing rights beneath path (O_PATH: no read permission needed). */
static int add_rule(int rs, const char *path, unsigned long long rights, int must_exist)
{
	struct landlock_path_beneath_attr pb = {.allowed_access = rights};
	int rc;

	pb.parent_fd = open(path, O_PATH | O_CLOEXEC);
	if (pb.parent_fd < 0)
		return must_exist ? TD_FAIL(TD_EIO, "cannot confine writes to %s: %s", path,
					    strerror(errno))
				  : 0;
	rc = (int)syscall(SYS_landlock_add_rule, rs, LANDLOCK_RULE_PATH_BENEATH, &pb, 0);
	close(pb.parent_fd);
	if (rc != 0 && must_exist)
		return TD_FAIL(TD_EIO, "cannot confine writes to %s: %s", path, strerror(errno));
	return 0;
}

int td_confine_rules(int *fd, const char *const *dirs)
{
	const char *cov = getenv(TD_SCHEMA_COVERAGE_ENV);
	int v = td_confine_abi(NULL), err = 0;

	*fd = -1;
	if (v <= 0)
		return TD_FAIL(TD_ESTATE, "writes cannot be confined: %s", abi_why);
	*fd = new_ruleset(v);
	if (*fd < 0)
		return TD_FAIL(TD_EIO, "cannot make a Landlock ruleset: %s", strerror(errno));
	for (int i = 0; !err && dirs && dirs[i]; i++)
		err = add_rule(*fd, dirs[i], dir_rights(v), 1);
	for (int i = 0; !err && dev_dirs[i]; i++)
		err = add_rule(*fd, dev_dirs[i], dir_rights(v), 0);
	for (int i = 0; !err && dev_files[i]; i++) /* a file's rule takes only file rights */
		err = add_rule(*fd, dev_files[i], file_rights(v), 0);
	if (!err && cov && cov[0] == '/') /* under a schema run: its children record coverage too */
		err = add_rule(*fd, cov, file_rights(v), 0);
	if (err) {
		close(*fd);
		*fd = -1;
	}
	return err;
}

int td_confine_apply(int fd)
{
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0)
		return -1;
	return (int)syscall(SYS_landlock_restrict_self, fd, 0);
}
