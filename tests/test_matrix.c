/*
 * test_matrix.c - the kill matrix of the ledger's latest mutation run and
 * what reads it: a sharded run's shards read as one, the refusal to merge
 * shards of different runs, and the mutation score.
 * Ledgers are written through the ledger API, so each matrix is exactly
 * the one the test means.
 *
 * What these tests guard: tdaudit mutate --list --file ledger/ledger.c
 *
 * Edits seen breaking these tests:
 *   - group_runs() without the missing-shard refusal -> a_missing_shard_...
 *   - same_sharded_run() not comparing the catalogue -> shards_of_different_...
 *   - merge_sql without run_tests -> a_merge_carries_each_shards_tests
 *   - LATEST_MUTATION_RUN without its parentheses (" AND shard_n IS NOT
 *     NULL" then binds to half the OR) -> shards_of_different_...
 *   - td_report_score() counting timeouts as killed -> the_score_counts_...
 */
#define _GNU_SOURCE
#include "tdtest.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../base/error.h"
#include "../base/strv.h"
#include "../harness/report.h"
#include "../ledger/ledger.h"
#include "fixture.h"

#define COMMIT_A "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
#define COMMIT_B "bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb"

/* One mutant of a run: id, file, function, outcome, killers ("" ends them). */
typedef struct {
	const char *id, *file, *function, *outcome;
	const char *killers[4];
} row;

/* One mutation run: shard K/N (n 0: unsharded), commit, catalogue, tests, mutants. */
typedef struct {
	int k, n;
	const char *commit, *catalogue;
	const char *tests[6];
	const row *rows;
	size_t n_rows;
} run;

static void write_run(const char *path, const run *r)
{
	td_ledger *lg;
	td_ledger_run_info info = {.command = "tdaudit mutate", .tool_version = "0.1",
				   .head_commit = r->commit, .shard_k = r->k, .shard_n = r->n,
				   .catalogue = r->catalogue, .kill_matrix = "first-kill"};

	assert_int_equal(td_ledger_open(&lg, path, TD_LEDGER_CREATE), 0);
	assert_int_equal(td_ledger_run_begin(lg, &info), 0);
	for (size_t i = 0; i < 6 && r->tests[i]; i++)
		assert_int_equal(td_ledger_put_run_test(lg, r->tests[i]), 0);
	for (size_t i = 0; i < r->n_rows; i++) {
		const row *x = &r->rows[i];
		td_ledger_mutant m = {.id = x->id, .catalogue = "cat.lua", .name = x->id,
				      .file = x->file, .line = 1, .designed_against = "x",
				      .why = "y", .function = x->function};
		td_ledger_outcome o = {x->id, x->outcome, x->killers[0], 1, 0, 1};

		assert_int_equal(td_ledger_put_mutant(lg, &m), 0);
		assert_int_equal(td_ledger_put_outcome(lg, &o), 0);
		for (size_t k = 0; x->killers[k]; k++)
			assert_int_equal(td_ledger_put_kill(lg, x->id, x->killers[k]), 0);
	}
	assert_int_equal(td_ledger_run_finish(lg, "findings"), 0);
	td_ledger_free(lg);
	usleep(3000); /* runs are ordered by start time, kept to the millisecond */
}

static const row rows[] = {
	{"m1", "f.c", "one", "killed", {"test_a"}},
	{"m2", "f.c", "one", "killed-elsewhere", {"test_b", "test_c"}},
	{"m3", "f.c", "two", "survived", {NULL}},
	{"m4", "h.c", NULL, "survived", {NULL}},
	{"m5", "f.c", "one", "build-failed", {"test_d"}}, /* a kill no real run records */
	{"m6", "f.c", "one", "stale", {NULL}},
};

static const run plain = {0, 0, COMMIT_A, "c0ffee", {"test_a", "test_b", "test_c", "test_d"},
			  rows, sizeof rows / sizeof rows[0]};

/* The same mutants as plain, split in two shards (by hand: the ledger does not care how). */
static const run shard1 = {1, 2, COMMIT_A, "c0ffee", {"test_a", "test_b", "test_c", "test_d"},
			   rows, 3};
static const run shard2 = {2, 2, COMMIT_A, "c0ffee", {"test_a", "test_b", "test_c", "test_d"},
			   rows + 3, 3};

static void test_a_missing_shard_is_refused_by_name(void **state)
{
	td_ledger *lg;
	td_ledger_matrix *m = NULL;

	(void)state;
	write_run("s1.db", &shard1);
	assert_int_equal(td_ledger_open(&lg, "s1.db", 0), 0);
	TD_ASSERT_REFUSED(td_ledger_matrix_load(&m, lg), TD_ESTATE, "shard 2/2 is not in the ledger");
	assert_null(m);
	td_ledger_free(lg);
}

static void test_a_later_run_of_a_shard_replaces_the_earlier(void **state)
{
	static const row again[] = {{"m1", "f.c", "one", "survived", {NULL}},
				    {"m2", "f.c", "one", "survived", {NULL}},
				    {"m3", "f.c", "two", "survived", {NULL}}};
	const run rerun = {1, 2, COMMIT_A, "c0ffee", {"test_a"}, again, 3};
	td_ledger *lg;
	td_ledger_matrix *m = NULL;

	(void)state;
	write_run("l.db", &shard1);
	write_run("l.db", &shard2);
	write_run("l.db", &rerun);
	assert_int_equal(td_ledger_open(&lg, "l.db", 0), 0);
	assert_int_equal(td_ledger_matrix_load(&m, lg), 0);
	assert_int_equal(m->n, 6); /* the rerun's 3 and shard 2's 3, not shard 1's first run */
	assert_string_equal(m->v[0].id, "m1");
	assert_string_equal(m->v[0].outcome, "survived");
	assert_null(m->v[0].killers);
	assert_string_equal(m->v[3].id, "m4");
	td_ledger_matrix_free(m);
	td_ledger_free(lg);
}

static void test_a_merge_carries_each_shards_tests(void **state)
{
	td_ledger *lg;
	td_ledger_matrix *m = NULL;
	long added;

	(void)state;
	write_run("s1.db", &shard1);
	write_run("s2.db", &shard2);
	assert_int_equal(td_ledger_merge(&added, "m.db", "s1.db"), 0);
	assert_int_equal(td_ledger_merge(&added, "m.db", "s2.db"), 0);
	assert_int_equal(td_ledger_open(&lg, "m.db", 0), 0);
	assert_int_equal(td_ledger_matrix_load(&m, lg), 0);
	assert_int_equal(m->n, 6);
	assert_int_equal(td_strv_len(m->tests), 4);
	assert_int_equal(m->run.shard_n, 2);
	td_ledger_matrix_free(m);
	td_ledger_free(lg);
}

static void test_shards_of_different_commits_or_catalogues_are_not_merged(void **state)
{
	const run other_commit = {2, 2, COMMIT_B, "c0ffee", {"test_a"}, rows + 3, 3};
	const run other_catalogue = {2, 2, COMMIT_A, "decade", {"test_a"}, rows + 3, 3};
	const char *ab[] = {"s1.db", "b.db"}, *ac[] = {"s1.db", "c.db"}, *aa[] = {"s1.db", "d.db"};
	const char *ok[] = {"s1.db", "s2.db"};
	const char *cli[] = {"ledger", "merge", "../s1.db", "../b.db", "-o", "../out.db", NULL};

	(void)state;
	write_run("s1.db", &shard1);
	write_run("s2.db", &shard2);
	write_run("b.db", &other_commit);
	write_run("c.db", &other_catalogue);
	write_run("d.db", &shard1);
	TD_ASSERT_REFUSED(td_ledger_check_shards(ab, 2), TD_EINVAL, "commit bbbbbbbbbbbb");
	assert_non_null(strstr(td_error_last(), "s1.db holds shard 1/2 of commit aaaaaaaaaaaa"));
	TD_ASSERT_REFUSED(td_ledger_check_shards(ac, 2), TD_EINVAL, "(catalogue decade)");
	assert_non_null(strstr(td_error_last(), "(catalogue c0ffee)"));
	TD_ASSERT_REFUSED(td_ledger_check_shards(aa, 2), TD_EINVAL, "give each shard once");
	assert_int_equal(td_ledger_check_shards(ok, 2), 0);
	write_run("s1.db", &plain); /* a later unsharded run does not hide s1's shard */
	assert_int_equal(td_ledger_check_shards(ok, 2), 0);
	mkdir("w", 0755); /* fx_tdaudit's log goes beside the directory it runs in */
	assert_int_equal(fx_tdaudit("w", "merge.log", cli), 2);
	assert_non_null(strstr(fx_slurp("merge.log"), "b.db holds shard 2/2 of commit bbbbbbbbbbbb"));
	assert_int_equal(access("out.db", F_OK), -1); /* nothing was merged */
}

static void test_the_score_counts_timeouts_and_kills_elsewhere_as_not_killed(void **state)
{
	size_t c[TD_N_OUTCOMES] = {0};
	double s;

	(void)state;
	c[TD_BUILD_FAILED] = 5, c[TD_STALE] = 1, c[TD_EQUIVALENT] = 1;
	assert_int_equal(td_report_score(&s, c), 1); /* nothing judged: undefined */
	assert_int_equal(td_report_below(c, 100), 0);
	c[TD_KILLED] = 1, c[TD_TIMEOUT] = 1, c[TD_KILLED_ELSEWHERE] = 1, c[TD_SURVIVED] = 1;
	assert_int_equal(td_report_score(&s, c), 0);
	assert_true(s == 25.0);
	assert_int_equal(td_report_below(c, 25), 0);
	assert_int_equal(td_report_below(c, 25.5), 1);
}

static const struct CMUnitTest tests[] = {
	cmocka_unit_test(test_a_missing_shard_is_refused_by_name),
	cmocka_unit_test(test_a_later_run_of_a_shard_replaces_the_earlier),
	cmocka_unit_test(test_a_merge_carries_each_shards_tests),
	cmocka_unit_test(test_shards_of_different_commits_or_catalogues_are_not_merged),
	cmocka_unit_test(test_the_score_counts_timeouts_and_kills_elsewhere_as_not_killed),
};
TD_TEST_GROUP(matrix, tests);
