/*
 * tdtest.c - the test runner: every group, or one named test.
 *
 *   tdtest               run every test; exit 0 iff none failed
 *   tdtest --list        print every test name, one per line
 *   tdtest --only NAME   run exactly that test; exit 0 iff it passed
 *                        (unknown NAME: exit 2 with a message)
 *   tdtest --group NAME  run the tests of tests/test_NAME.c (make valgrind
 *                        runs one group per process); unknown: exit 2
 *
 * The tdaudit harness drives exactly this interface. Each test runs in a
 * fresh temporary directory, removed afterwards, with LC_ALL=C. The last
 * line of a run is "tdtest: N passed, N failed, N skipped".
 */
#define _XOPEN_SOURCE 700
#include "tdtest.h"

#include <errno.h>
#include <ftw.h>
#include <locale.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "groups.h" /* generated: #define TD_GROUPS X(name) ... */

#define X(n) extern const struct td_test_group td_group_##n;
TD_GROUPS
#undef X

static const struct td_test_group *const groups[] = {
#define X(n) &td_group_##n,
	TD_GROUPS
#undef X
};
static const size_t n_groups = sizeof groups / sizeof groups[0];

int td_test_skips;
static char home[4096];
static char scratch[4096];
static char state_dir[4200]; /* TDAUDIT_STATE_DIR: the test's scratch trees, inside its directory */

static int rm_entry(const char *path, const struct stat *sb, int flag, struct FTW *ftw)
{
	(void)sb, (void)flag, (void)ftw;
	return remove(path);
}

static int enter_tmpdir(void **state)
{
	const char *tmp = getenv("TMPDIR");

	(void)state;
	snprintf(scratch, sizeof scratch, "%s/tdtest-XXXXXX", tmp && *tmp ? tmp : "/tmp");
	if (!mkdtemp(scratch) || chdir(scratch) != 0) {
		print_error("tdtest: cannot make a temporary directory in %s: %s\n",
			    tmp && *tmp ? tmp : "/tmp", strerror(errno));
		return -1;
	}
	/* every tdaudit the test runs keeps its scratch trees here, removed with it */
	snprintf(state_dir, sizeof state_dir, "%s/.state", scratch);
	setenv("TDAUDIT_STATE_DIR", state_dir, 1);
	return 0;
}

static int leave_tmpdir(void **state)
{
	(void)state;
	if (chdir(home) != 0)
		return -1;
	return nftw(scratch, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
}

/* Runs tests[0..n) as one cmocka group; returns the number that failed. */
static int run(const char *name, const struct CMUnitTest *tests, size_t n)
{
	struct CMUnitTest *t = calloc(n, sizeof *t);
	int failed;

	if (!t) {
		fprintf(stderr, "tdtest: out of memory\n");
		exit(2);
	}
	for (size_t i = 0; i < n; i++) {
		t[i] = tests[i];
		t[i].setup_func = enter_tmpdir;
		t[i].teardown_func = leave_tmpdir;
	}
	failed = _cmocka_run_group_tests(name, t, n, NULL, NULL);
	free(t);
	return failed;
}

static const struct CMUnitTest *find(const char *name, const struct td_test_group **group)
{
	for (size_t g = 0; g < n_groups; g++)
		for (size_t i = 0; i < groups[g]->n; i++)
			if (strcmp(groups[g]->tests[i].name, name) == 0) {
				*group = groups[g];
				return &groups[g]->tests[i];
			}
	return NULL;
}

/* Two tests with one name would make --only ambiguous: refuse to start. */
static int check_unique(void)
{
	for (size_t g = 0; g < n_groups; g++)
		for (size_t i = 0; i < groups[g]->n; i++) {
			const struct td_test_group *first;
			const struct CMUnitTest *t = find(groups[g]->tests[i].name, &first);

			if (t != &groups[g]->tests[i]) {
				fprintf(stderr, "tdtest: test %s is defined in groups %s and %s; rename one\n",
					t->name, first->name, groups[g]->name);
				return -1;
			}
		}
	return 0;
}

static void usage(FILE *f)
{
	fprintf(f, "usage: tdtest [--list | --only NAME | --group NAME | --help]\n"
		   "  (no option)   run every test; exit 0 iff none failed\n"
		   "  --list        print every test name, one per line\n"
		   "  --only NAME   run exactly the test NAME; exit 0 iff it passed\n"
		   "  --group NAME  run the tests of tests/test_NAME.c; exit 0 iff all passed\n"
		   "exit status: 0 all passed, 1 a test failed, 2 usage error or unknown test\n");
}

int main(int argc, char **argv)
{
	size_t total = 0;
	int failed = 0;

	setvbuf(stdout, NULL, _IOLBF, 0); /* keep order with cmocka's stderr in a pipe */
	setenv("LC_ALL", "C", 1);
	setlocale(LC_ALL, "C");
	if (!getcwd(home, sizeof home) || check_unique() != 0)
		return 2;
	if (argc == 2 && strcmp(argv[1], "--help") == 0) {
		usage(stdout);
		return 0;
	}
	if (argc == 2 && strcmp(argv[1], "--list") == 0) {
		for (size_t g = 0; g < n_groups; g++)
			for (size_t i = 0; i < groups[g]->n; i++)
				printf("%s\n", groups[g]->tests[i].name);
		return 0;
	}
	if (argc == 3 && strcmp(argv[1], "--only") == 0) {
		const struct td_test_group *g;
		const struct CMUnitTest *t = find(argv[2], &g);

		if (!t) {
			fprintf(stderr, "tdtest: no test named '%s'; tdtest --list prints every name\n",
				argv[2]);
			return 2;
		}
		total = 1;
		failed = run(g->name, t, 1);
	} else if (argc == 3 && strcmp(argv[1], "--group") == 0) {
		size_t g = 0;

		while (g < n_groups && strcmp(groups[g]->name, argv[2]) != 0)
			g++;
		if (g == n_groups) {
			fprintf(stderr, "tdtest: no group named '%s'; a group is a tests/test_NAME.c file\n",
				argv[2]);
			return 2;
		}
		total = groups[g]->n;
		failed = run(groups[g]->name, groups[g]->tests, groups[g]->n);
	} else if (argc == 1) {
		for (size_t g = 0; g < n_groups; g++) {
			total += groups[g]->n;
			failed += run(groups[g]->name, groups[g]->tests, groups[g]->n);
		}
	} else {
		usage(stderr);
		return 2;
	}
	printf("tdtest: %zu passed, %d failed, %d skipped\n",
	       total - (size_t)failed - (size_t)td_test_skips, failed, td_test_skips);
	return failed ? 1 : 0;
}
