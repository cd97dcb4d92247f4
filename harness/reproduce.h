/*
 * reproduce.h - tdaudit reproduce: does a fix commit's guard really guard?
 *
 * For a fix commit C with first parent P, two states of history are
 * written from git blobs into one scratch tree (.tdaudit/history/tree),
 * never through a checkout:
 *   before  C's tree with every non-test file C changed taken from P
 *           (files C added are absent, files C deleted are back), C's tests
 *   after   C's tree as it is
 * Test files are the paths matching tdaudit.lua's `tests` globs; every
 * other path is a non-test. Each state is built with the project's build
 * argv and each test runs N times in it (after first: it is the baseline
 * whose times set the limit for before). Verdicts, in this order:
 *   flaky     the runs of the after state disagree
 *   broken    it fails (or times out) after the fix
 *   no-build  the pre-fix code does not build against the new tests
 *   flaky     the runs of the before state disagree
 *   pin       it passes before and after: it pins behaviour, it does not
 *             guard against the bug
 *   guard     it fails (or times out) before and passes after
 * Which tests: --guard NAME ...; else the tests DEBUG.md cites (Guarded by,
 * and Pins) for the finding whose Status names C (a repository without
 * DEBUG.md has none, and says so); else the test functions
 * C added or changed (td_repo_test_functions) and the names of the test
 * files it added or changed, less directory and extension (where each
 * file is a test, as with ctest), each kept when a runner lists it. A cited guard must come out guard and a cited pin pin; of the
 * inferred tests at least one must be a guard.
 *
 * --at-head: does the guard still guard today? The fix is reverted at
 * HEAD in memory (git_revert_commit: the user's index, working tree and
 * HEAD untouched; its merged blobs kept in memory, never in .git/objects):
 *   before  HEAD with the fix reverted in its non-test files; test files
 *           as at HEAD (a conflict in a test file is therefore ignored)
 *   after   HEAD as it is (committed: uncommitted changes are not read)
 * The tests are chosen as above, from the fix; the verdicts are the same.
 * When a non-test file does not revert cleanly, the conflicting paths are
 * listed and the exit status is 1 ("conflict: the fix no longer reverts
 * cleanly at HEAD"): no test runs, nothing is recorded, and it never reads
 * as a pass. When the revert changes nothing (the fix's changes are gone
 * from HEAD), it says so with exit status 1. Verdicts go into the ledger
 * with reproductions.at_head = HEAD's id; the findings and guard roles of
 * DEBUG.md are not written by an at-head run (they speak for the fix).
 *
 * Exit status: 0 every claim holds (or there was nothing to revert: a
 * commit changing only tests, said so and nothing recorded); 1 a cited
 * test is not what it is cited as; 2 usage or environment error (unknown
 * or root commit, bare or shallow repository, --all without a DEBUG.md, the
 * fix commit itself not building).
 *
 * Variants (tdaudit.lua's variant { }, variant.h): each fix is judged once
 * per variant named with --variant or --variants, else under the one
 * chosen for the fix commit. Both states build with that variant and its
 * tests run with its environment; a state that does not build falls back to
 * the variant's fallback when it names one (said, counted, recorded). A
 * cited guard or pin holds when one variant bears it out; each verdict
 * line names its variant and the ledger keeps one row per variant.
 *
 * Never: write outside root/.tdaudit/; touch the user's working tree,
 * index or HEAD; report a state that did not build as a pass.
 */
#ifndef TD_REPRODUCE_H
#define TD_REPRODUCE_H

#define TD_REPRODUCE_RUNS 2 /* runs per test per state unless told */

/* Zero is every default: td_reproduce_opts o = {0}, or {.runs = 3, .all = 1}. */
typedef struct {
	char *const *guards; /* --guard names; NULL: from DEBUG.md, else from the diff */
	int runs;            /* runs per test per state (>= 1); 0: TD_REPRODUCE_RUNS */
	int all;             /* every finding of DEBUG.md with a fix commit */
	double timeout;      /* seconds per test run; 0: the defaults above */
	const char *command; /* the command line, recorded with the run in the ledger */
	int at_head;         /* revert the fix at HEAD instead (see above); not with all */
	char *const *variants;   /* --variant NAMEs (variant.h); NULL: chosen per commit */
	const char *variant_set; /* --variants: "all" or "a,b"; NULL: none */
} td_reproduce_opts;

/*
 * Reproduces commit (any revision; ignored with opts->all) in the
 * repository at root, prints the table, records every verdict in the
 * ledger (one run) and returns the exit status above. Messages go to
 * stderr, progress and the table to stdout.
 */
int td_reproduce(const char *root, const char *commit, const td_reproduce_opts *opts);

/*
 * The verdict for n runs in each state (before_built = 0: the before state
 * did not build, before[] unused). Returns "guard", "pin", "broken",
 * "no-build" or "flaky"; *k gets how many of the n run pairs, taken alone,
 * give that verdict (for flaky: the most that agree with one another).
 * Outcomes are enum td_test_result values (testrun.h).
 */
const char *td_reproduce_verdict(int *k, const int *before, int before_built, const int *after,
				 int n);

#endif
