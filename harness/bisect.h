/*
 * bisect.h - tdaudit bisect: the first commit where a guard's outcome flips.
 *
 * The range is the first-parent line from --bad (default HEAD) back to
 * --good (default the first commit of that line). Each commit tried is
 * written from git blobs into the history scratch tree (shared with
 * reproduce, so builds stay incremental), built with the project's build
 * argv, and the guard run once with its runner. A commit that does not
 * build is skipped (as `git bisect run` treats exit 125) and reported; a
 * timeout counts as a failure. With --tests-at REV every commit tried
 * gets the test files (tdaudit.lua's `tests` globs) as they are at REV,
 * as reproduce's before state does: to find which commit fixed what a
 * test added later checks, hold the tests at the commit that added it.
 *
 * The bad end is tried first: its outcome says what is being looked for
 * (--find fix: the guard passes there and failed before; --find
 * regression: it fails there and passed before; without --find, whichever
 * the bad end shows). The good end is tried only if the search ends next
 * to it, so that every answer rests on two adjacent observations. This
 * takes at most ceil(log2 N) + 1 builds for N commits, plus one per
 * skipped commit.
 *
 * Exit status: 0 the commit was found; 1 skipped commits hide which of
 * them it is (all are listed); 2 usage or environment error (unknown
 * revisions, --good not on --bad's first-parent line, an end that does not
 * build, no flip between the ends, --find contradicted by the bad end,
 * --tests-at without a tests setting).
 * A result (exit 0 or 1) is recorded in the ledger as one run (status ok
 * or findings) with one row of bisects: the guard, both ends, the commit
 * found (NULL when ambiguous), the direction, the commits skipped and the
 * builds used. Exit 2 records nothing.
 *
 * Never: write outside root/.tdaudit/; touch the user's working tree,
 * index or HEAD; read a commit that did not build as a pass or a fail.
 */
#ifndef TD_BISECT_H
#define TD_BISECT_H

enum { TD_BISECT_AUTO, TD_BISECT_FIX, TD_BISECT_REGRESSION }; /* AUTO is 0, the default */

/* Zero is every default but guard: td_bisect_opts o = {.guard = "test_x"}. */
typedef struct {
	const char *guard;   /* the test to run */
	const char *good;    /* the old end; NULL: the first commit of bad's first-parent line */
	const char *bad;     /* the new end; NULL: HEAD */
	int find;            /* TD_BISECT_AUTO, _FIX or _REGRESSION */
	double timeout;      /* seconds per test run; 0: tdaudit.lua's build timeout */
	const char *command; /* the command line, recorded with the run in the ledger */
	const char *tests_at; /* the test files (tdaudit.lua's tests) as at this commit in
				 every state; NULL: each commit's own */
	const char *variant; /* --variant: the build variant of every commit; NULL: each
				commit gets the one chosen for it (variant.h) */
} td_bisect_opts;

/* Bisects the repository at root; prints every commit tried; returns the exit status above. */
int td_bisect(const char *root, const td_bisect_opts *opts);

#endif
