/*
 * test_confine.c - a mutant's build and tests are isolated: the kernel
 * confines their writes to the scratch tree and a private TMPDIR
 * (confine.h), and a scratch tree its tests changed is synced again before
 * the next mutant (mutate.c), on fixture repositories (fixture.h).
 *
 * Edits seen breaking these tests:
 *   - proc.c not applying the rules in the child (apply_rules returning at
 *     once) -> a_mutant_s_test_cannot_write_or_delete_outside_its_tree
 *   - testrun.c not setting TMPDIR, or leaving TREE.tmp out of the rules
 *     -> the same test (its baseline goes red)
 *   - td_report_json() leaving out or miscounting "isolation"
 *       -> the first two and the last test
 *   - confine.c's probe() ignoring a failed ruleset or a refused
 *     restrict_self (abi set regardless) -> the two kernel_without_landlock
 *     tests (the header claims landlock, or tdaudit fails)
 *   - td_testrun_build() not emptying TREE.tmp first
 *       -> each_mutant_starts_with_an_empty_private_tmpdir
 *   - confine.c leaving out the rule for TDAUDIT_COVERAGE's file
 *       -> a_confined_child_of_a_schema_run_can_record_its_coverage
 *   - try_mutant() not calling resync()
 *       -> a_test_that_deletes_a_file_of_its_tree_does_not_break_the_next_mutant
 *         (the next mutant reads build-failed)
 */
#define _GNU_SOURCE
#include "tdtest.h"

#include <errno.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../harness/confine.h"
#include "../harness/proc.h"
#include "../harness/schema.h"
#include "fixture.h"

/* The baseline test needs a writable, private $TMPDIR; prints its name. */
static const char t_sh[] = "touch \"$TMPDIR/t\" || exit 1\necho t_ok\nexit 0\n";

static void skip_without_landlock(void)
{
	const char *why = NULL;

	if (td_confine_abi(&why) <= 0)
		TD_SKIP("the kernel cannot confine writes here: %s", why);
}

/* A repository whose one mutant writes into it and deletes its DEBUG.md, by absolute path. */
static void make_escaping_fixture(void)
{
	char cwd[4096], cat[9000];

	assert_non_null(getcwd(cwd, sizeof cwd));
	fx_write("repo", "t.sh", t_sh);
	fx_write("repo", "DEBUG.md", "# DEBUG.md\n");
	fx_write("repo", "tdaudit.lua", "build { \"true\" }\n"
				      "runner { list = { \"echo\", \"t_ok\" }, run = { \"sh\", \"t.sh\", \"{test}\" } }\n"
				      "catalogues { \"cat.lua\" }\n");
	snprintf(cat, sizeof cat,
		 "mutant { name = \"t-escapes\", file = \"t.sh\", find = \"exit 0\",\n"
		 "  replace = \"echo x > %s/repo/pwned.txt; rm -f %s/repo/DEBUG.md; exit 1\",\n"
		 "  guards = { \"t_ok\" }, designed_against = \"x\", why = \"writes outside\" }\n",
		 cwd, cwd);
	fx_write("repo", "cat.lua", cat);
	fx_git_commit_all("repo", "fixture");
}

static void test_a_mutant_s_test_cannot_write_or_delete_outside_its_tree(void **state)
{
	const char *args[] = {"mutate", "-j", "1", "--json", "../r.json", NULL};
	uint64_t before;

	(void)state;
	skip_without_landlock();
	make_escaping_fixture();
	before = fx_tree_hash("repo");
	if (fx_tdaudit("repo", "m.log", args) != 0) /* killed: its test exits 1 */
		fail_msg("%s", fx_slurp("m.log"));
	if (!strstr(fx_slurp("m.log"), "tdaudit mutate: confinement: landlock (ABI "))
		fail_msg("no confinement line: %s", fx_slurp("m.log"));
	assert_int_equal(access("repo/pwned.txt", F_OK), -1);
	assert_string_equal(fx_slurp("repo/DEBUG.md"), "# DEBUG.md\n");
	assert_true(fx_tree_hash("repo") == before);
	assert_non_null(strstr(fx_slurp("r.json"), "\"isolation\": {\"confinement\": \"landlock\", "
						    "\"unconfined_runs\": 0, "));
}

/* The negative control: unconfined, the same mutant does write and delete, and the header says so. */
static void test_turned_off_the_same_mutant_escapes_and_the_header_warns(void **state)
{
	const char *args[] = {"mutate", "-j", "1", "--json", "../r.json", NULL};

	(void)state;
	make_escaping_fixture();
	setenv("TDAUDIT_CONFINE", "off", 1);
	int rc = fx_tdaudit("repo", "m.log", args);
	unsetenv("TDAUDIT_CONFINE");
	if (rc != 0)
		fail_msg("%s", fx_slurp("m.log"));
	if (!strstr(fx_slurp("m.log"), "WARNING: confinement: NONE (turned off by TDAUDIT_CONFINE=off)") ||
	    !strstr(fx_slurp("m.log"), "builds and test runs were not confined"))
		fail_msg("no warning: %s", fx_slurp("m.log"));
	assert_int_equal(access("repo/pwned.txt", F_OK), 0);
	assert_int_equal(access("repo/DEBUG.md", F_OK), -1);
	assert_non_null(strstr(fx_slurp("r.json"), "\"isolation\": {\"confinement\": \"none\", "));
	assert_null(strstr(fx_slurp("r.json"), "\"unconfined_runs\": 0,"));
}

#if defined(__x86_64__)
#define FX_AUDIT_ARCH AUDIT_ARCH_X86_64
#elif defined(__aarch64__)
#define FX_AUDIT_ARCH AUDIT_ARCH_AARCH64
#endif

#ifdef FX_AUDIT_ARCH
/*
 * Runs tdaudit mutate in a child whose kernel, as far as it can tell, has
 * no Landlock: a seccomp filter (inherited by tdaudit and everything it
 * starts) makes landlock_create_ruleset fail with create_errno, or, when
 * that is 0, lets it work and makes landlock_restrict_self fail with
 * EPERM, as a container's policy would. Returns tdaudit's exit status.
 */
static int mutate_without_landlock(int create_errno)
{
	const char *args[] = {"mutate", "-j", "1", "--json", "../r.json", NULL};
	int nr = create_errno ? SYS_landlock_create_ruleset : SYS_landlock_restrict_self;
	unsigned ret = SECCOMP_RET_ERRNO | (unsigned)(create_errno ? create_errno : EPERM);
	struct sock_filter code[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, arch)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, FX_AUDIT_ARCH, 1, 0),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, (unsigned)nr, 0, 1),
		BPF_STMT(BPF_RET | BPF_K, ret),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	};
	struct sock_fprog prog = {sizeof code / sizeof code[0], code};
	int st = 0;
	pid_t pid = fork();

	assert_true(pid >= 0);
	if (pid == 0) {
		if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0 ||
		    prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog) != 0)
			_exit(125);
		_exit(fx_tdaudit("repo", "m.log", args));
	}
	assert_int_equal(waitpid(pid, &st, 0), pid);
	assert_true(WIFEXITED(st));
	if (WEXITSTATUS(st) == 125)
		fail_msg("cannot install a seccomp filter: %s", strerror(errno));
	return WEXITSTATUS(st);
}

/* Where the kernel has none, the run goes on unconfined and says so, loudly, with the reason. */
static void check_unconfined_run(int rc, const char *reason)
{
	const char *log = fx_slurp("m.log");

	if (rc != 0)
		fail_msg("exit %d: %s", rc, log);
	if (!strstr(log, "tdaudit mutate: WARNING: confinement: NONE: ") || !strstr(log, reason) ||
	    !strstr(log, "builds and test runs were not confined"))
		fail_msg("no warning naming '%s': %s", reason, log);
	assert_null(strstr(log, "landlock (ABI"));
	assert_non_null(strstr(fx_slurp("r.json"), "\"isolation\": {\"confinement\": \"none\", "));
	assert_null(strstr(fx_slurp("r.json"), "\"unconfined_runs\": 0,"));
}

static void test_a_kernel_without_landlock_runs_unconfined_and_says_why(void **state)
{
	(void)state;
	make_escaping_fixture();
	check_unconfined_run(mutate_without_landlock(ENOSYS),
			     "this kernel has no Landlock (built without it)");
}

static void test_a_kernel_that_refuses_landlock_runs_unconfined_and_says_why(void **state)
{
	(void)state;
	skip_without_landlock(); /* the ruleset must be made for restrict_self to be refused */
	make_escaping_fixture();
	check_unconfined_run(mutate_without_landlock(0), "a child could not apply a ruleset");
}
#else
static void test_a_kernel_without_landlock_runs_unconfined_and_says_why(void **state)
{
	(void)state;
	TD_SKIP("no seccomp architecture constant for this machine in the test");
}

static void test_a_kernel_that_refuses_landlock_runs_unconfined_and_says_why(void **state)
{
	(void)state;
	TD_SKIP("no seccomp architecture constant for this machine in the test");
}
#endif

static void test_a_bad_confine_setting_is_refused(void **state)
{
	const char *args[] = {"mutate", "--list", NULL};

	(void)state;
	make_escaping_fixture();
	setenv("TDAUDIT_CONFINE", "maybe", 1);
	int rc = fx_tdaudit("repo", "m.log", args);
	unsetenv("TDAUDIT_CONFINE");
	assert_int_equal(rc, 2);
	assert_non_null(strstr(fx_slurp("m.log"), "TDAUDIT_CONFINE=maybe: give off"));
	fx_write("repo", "tdaudit.lua", "build { \"true\" }\nconfine \"sometimes\"\n"
				      "runner { list = { \"echo\", \"t_ok\" }, run = { \"sh\", \"t.sh\", \"{test}\" } }\n");
	assert_int_equal(fx_tdaudit("repo", "m.log", args), 2);
	assert_non_null(strstr(fx_slurp("m.log"), "tdaudit.lua:2: confine must be"));
}

/* The outcome the JSON report gives mutant id (or "" if absent). */
static const char *outcome_of(const char *json, const char *id)
{
	static char out[64];
	char key[128];
	const char *p, *o;

	snprintf(key, sizeof key, "{\"id\": \"%s\"", id);
	p = strstr(json, key);
	o = p ? strstr(p, "\"outcome\": \"") : NULL;
	out[0] = '\0';
	if (o)
		sscanf(o + 12, "%63[^\"]", out);
	return out;
}

/*
 * The first mutant's test deletes data.txt, a file of its own tree that
 * the build needs; the second mutant, on the same worker, must still
 * build.
 */
static void test_a_test_that_deletes_a_file_of_its_tree_does_not_break_the_next_mutant(void **state)
{
	const char *args[] = {"mutate", "-j", "1", "--json", "../r.json", NULL};
	const char *json;

	(void)state;
	fx_write("repo", "t.sh", t_sh);
	fx_write("repo", "data.txt", "needed by the build\n");
	fx_write("repo", "tdaudit.lua", "build { \"test\", \"-f\", \"data.txt\" }\n"
				      "runner { list = { \"echo\", \"t_ok\" }, run = { \"sh\", \"t.sh\", \"{test}\" } }\n"
				      "catalogues { \"cat.lua\" }\n");
	fx_write("repo", "cat.lua",
		 "mutant { name = \"t-deletes\", file = \"t.sh\", find = \"exit 0\",\n"
		 "  replace = \"rm -f data.txt; exit 1\",\n"
		 "  guards = { \"t_ok\" }, designed_against = \"x\", why = \"deletes a file\" }\n"
		 "mutant { name = \"t-next\", file = \"t.sh\", find = \"echo t_ok\",\n"
		 "  replace = \"echo t_ok; exit 1\",\n"
		 "  guards = { \"t_ok\" }, designed_against = \"x\", why = \"fails\" }\n");
	fx_git_commit_all("repo", "fixture");
	if (fx_tdaudit("repo", "m.log", args) != 0)
		fail_msg("%s", fx_slurp("m.log"));
	json = fx_slurp("r.json");
	assert_string_equal(outcome_of(json, "t-deletes"), "killed");
	assert_string_equal(outcome_of(fx_slurp("r.json"), "t-next"), "killed");
	if (!strstr(fx_slurp("m.log"), "re-synced after a mutant changed them: 1"))
		fail_msg("no re-sync counted: %s", fx_slurp("m.log"));
	assert_non_null(strstr(fx_slurp("r.json"), "\"resynced_trees\": 1}"));
	assert_string_equal(fx_slurp("repo/data.txt"), "needed by the build\n");
}

/*
 * A test that leaves a file in its private TMPDIR must not change the
 * next mutant's outcome: every build starts with an empty TREE.tmp. Here
 * the test fails when it finds its own mark there, so a TMPDIR kept from
 * the baseline made the harmless mutant a kill.
 */
static void test_each_mutant_starts_with_an_empty_private_tmpdir(void **state)
{
	const char *args[] = {"mutate", "-j", "1", "--json", "../r.json", NULL};

	(void)state;
	fx_write("repo", "t.sh", "[ \"$1\" = t_ok ] || exit 1\n"
				 "[ -e \"$TMPDIR/mark\" ] && { echo left over; exit 1; }\n"
				 "touch \"$TMPDIR/mark\"\necho t_ok\nexit 0\n");
	fx_write("repo", "data.txt", "x\n");
	fx_write("repo", "tdaudit.lua", "build { \"true\" }\n"
				      "runner { list = { \"echo\", \"t_ok\" }, run = { \"sh\", \"t.sh\", \"{test}\" } }\n"
				      "catalogues { \"cat.lua\" }\n");
	fx_write("repo", "cat.lua",
		 "mutant { name = \"data-harmless\", file = \"data.txt\", find = \"x\", replace = \"y\",\n"
		 "  guards = { \"t_ok\" }, designed_against = \"x\", why = \"the test never reads it\" }\n");
	fx_git_commit_all("repo", "fixture");
	if (fx_tdaudit("repo", "m.log", args) != 1) /* it survives */
		fail_msg("%s", fx_slurp("m.log"));
	assert_string_equal(outcome_of(fx_slurp("r.json"), "data-harmless"), "survived");
}

/* Runs sh -c script confined to box/, with F=PATH in its environment; its exit status. */
static int confined_sh(const char *script, const char *path)
{
	char f[4200], box[4200], cwd[4096];
	const char *argv[] = {"sh", "-c", script, NULL}, *env[] = {f, NULL}, *dirs[] = {box, NULL};
	td_proc_opts o = {.argv = argv, .env = env, .write_dirs = dirs, .timeout_s = 30};
	td_proc_result r = {0};

	assert_non_null(getcwd(cwd, sizeof cwd));
	snprintf(f, sizeof f, "F=%s", path);
	snprintf(box, sizeof box, "%s/box", cwd);
	fx_write("box", "x", "");
	assert_int_equal(td_proc_run(&r, &o), 0);
	return r.exited ? r.status : 128 + r.status;
}

/*
 * A tdaudit that a test of a schema run starts (test_audit's nested runs)
 * confines its own children; the coverage file of the outer run is outside
 * their tree, so a point they reach went unrecorded and the mutant read as
 * no-coverage. The rules allow that one file when TDAUDIT_COVERAGE names it
 * and it exists; without the variable the same write is refused (the
 * negative control), and nothing else outside the tree becomes writable.
 */
static void test_a_confined_child_of_a_schema_run_can_record_its_coverage(void **state)
{
	char cov[4200], other[4200], cwd[4096];

	(void)state;
	skip_without_landlock();
	assert_non_null(getcwd(cwd, sizeof cwd));
	snprintf(cov, sizeof cov, "%s/coverage", cwd);
	snprintf(other, sizeof other, "%s/other", cwd);
	fx_write(".", "coverage", "");
	fx_write(".", "other", "");
	unsetenv(TD_SCHEMA_COVERAGE_ENV);
	assert_int_not_equal(confined_sh("echo 7 >> \"$F\"", cov), 0);
	assert_string_equal(fx_slurp("coverage"), "");
	setenv(TD_SCHEMA_COVERAGE_ENV, cov, 1);
	assert_int_equal(confined_sh("echo 7 >> \"$F\"", cov), 0);
	assert_int_not_equal(confined_sh("echo 8 >> \"$F\"", other), 0);
	unsetenv(TD_SCHEMA_COVERAGE_ENV);
	assert_string_equal(fx_slurp("coverage"), "7\n");
	assert_string_equal(fx_slurp("other"), "");
}

static const struct CMUnitTest tests[] = {
	cmocka_unit_test(test_a_mutant_s_test_cannot_write_or_delete_outside_its_tree),
	cmocka_unit_test(test_turned_off_the_same_mutant_escapes_and_the_header_warns),
	cmocka_unit_test(test_a_kernel_without_landlock_runs_unconfined_and_says_why),
	cmocka_unit_test(test_a_kernel_that_refuses_landlock_runs_unconfined_and_says_why),
	cmocka_unit_test(test_a_bad_confine_setting_is_refused),
	cmocka_unit_test(test_a_test_that_deletes_a_file_of_its_tree_does_not_break_the_next_mutant),
	cmocka_unit_test(test_each_mutant_starts_with_an_empty_private_tmpdir),
	cmocka_unit_test(test_a_confined_child_of_a_schema_run_can_record_its_coverage),
};
TD_TEST_GROUP(confine, tests);
