/*
 * test_matrix.c - the kill matrix of the ledger's latest mutation run and
 * what reads it: a sharded run's shards read as one, the refusal to merge
 * shards of different runs, the mutation score, and tdaudit gates.
 * Ledgers are written through the ledger API, so each matrix is exactly
 * the one the test means.
 *
 * What these tests guard: tdaudit mutate --list --file harness/gates.c
 *   and --list --file harness/cmd_gates.c
 *   and --list --file ledger/ledger.c
 *
 * Edits seen breaking these tests:
 *   - judged() counting build-failed mutants -> a_kill_of_an_unjudged_...
 *     (test_d reads as redundant)
 *   - test_kills() testing len(killers) >= 1 for "alone"
 *       -> every_gate_is_read_off_the_kill_matrix (test_b reads load-bearing)
 *   - group_runs() without the missing-shard refusal -> a_missing_shard_...
 *   - same_sharded_run() not comparing the catalogue -> shards_of_different_...
 *   - merge_sql without run_tests -> a_merge_carries_each_shards_tests
 *   - LATEST_MUTATION_RUN without its parentheses (" AND shard_n IS NOT
 *     NULL" then binds to half the OR) -> shards_of_different_...
 *   - td_report_score() counting timeouts as killed -> the_score_counts_...
 *   - cmd_ledger.c's merge() merging each source into OUT in turn (the old
 *     code) -> a_merge_that_fails_at_a_later_source_merges_none
 */
#define _GNU_SOURCE
#include "tdtest.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <sqlite3.h>

#include "../base/error.h"
#include "../base/strv.h"
#include "../harness/gates.h"
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
	int dirty; /* run on a tree with uncommitted changes */
} run;

static const char *kill_matrix = "first-kill"; /* the mode write_run records */

static void write_run(const char *path, const run *r)
{
	td_ledger *lg;
	td_ledger_run_info info = {.command = "tdaudit mutate", .tool_version = "0.1",
				   .head_commit = r->commit, .shard_k = r->k, .shard_n = r->n,
				   .catalogue = r->catalogue, .kill_matrix = kill_matrix,
				   .dirty = r->dirty};

	assert_int_equal(td_ledger_open(&lg, path, TD_LEDGER_CREATE), 0);
	assert_int_equal(td_ledger_run_begin(lg, &info), 0);
	for (size_t i = 0; i < 6 && r->tests[i]; i++)
		assert_int_equal(td_ledger_put_run_test(lg, r->tests[i]), 0);
	for (size_t i = 0; i < r->n_rows; i++) {
		const row *x = &r->rows[i];
		td_ledger_mutant m = {.id = x->id, .catalogue = "cat.lua", .name = x->id,
				      .file = x->file, .line = 1, .designed_against = "x",
				      .why = "y", .function = x->function};
		td_ledger_outcome o = {x->id, x->outcome, x->killers[0], 1, 0, 1, NULL};

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
			  rows, sizeof rows / sizeof rows[0], 0};

static td_gates *gates_of(const char *path)
{
	td_gates *g = NULL;

	assert_int_equal(td_gates_compute(&g, path), 0);
	return g;
}

static void test_every_gate_is_read_off_the_kill_matrix(void **state)
{
	td_gates *g;

	(void)state;
	write_run("l.db", &plain);
	g = gates_of("l.db");
	assert_int_equal(g->n_load_bearing, 1);
	assert_string_equal(g->load_bearing[0].test, "test_a");
	assert_string_equal(g->load_bearing[0].mutants[0], "m1");
	assert_int_equal(g->n_redundant, 2);
	assert_string_equal(g->redundant[0].test, "test_b");
	assert_string_equal(g->redundant[1].test, "test_c");
	assert_int_equal(g->n_no_gate, 2); /* files first, then functions */
	assert_string_equal(g->no_gate[0].file, "h.c");
	assert_null(g->no_gate[0].function);
	assert_string_equal(g->no_gate[1].file, "f.c");
	assert_string_equal(g->no_gate[1].function, "two");
	assert_int_equal(g->count[TD_SURVIVED], 2);
	td_gates_free(g);
}

static void test_a_kill_of_an_unjudged_mutant_does_not_count(void **state)
{
	td_gates *g;

	(void)state;
	write_run("l.db", &plain);
	g = gates_of("l.db");
	assert_non_null(g->killed_nothing);
	assert_string_equal(g->killed_nothing[0], "test_d");
	assert_null(g->killed_nothing[1]);
	td_gates_free(g);
}

static void test_a_full_matrix_is_named_and_an_unknown_test_list_claims_nothing(void **state)
{
	const run no_tests = {0, 0, COMMIT_A, "c0ffee", {NULL}, rows, sizeof rows / sizeof rows[0], 0};
	td_gates *g;
	char *json = NULL;

	(void)state;
	kill_matrix = "full";
	write_run("l.db", &no_tests);
	kill_matrix = "first-kill";
	g = gates_of("l.db");
	assert_true(g->run.full);
	assert_false(g->tests_known);
	assert_null(g->killed_nothing); /* not "none": the run did not say which tests it had */
	assert_int_equal(td_gates_json(&json, g), 0);
	assert_non_null(strstr(json, "\"kill_matrix\": \"full\""));
	assert_non_null(strstr(json, "\"killed_nothing\": null"));
	assert_non_null(strstr(json, "\"tests\": null"));
	free(json);
	td_gates_free(g);
}

static void test_the_json_names_the_schema_and_each_list(void **state)
{
	td_gates *g;
	char *json = NULL;

	(void)state;
	write_run("l.db", &plain);
	g = gates_of("l.db");
	assert_int_equal(td_gates_json(&json, g), 0);
	assert_non_null(strstr(json, "\"schema\": \"tdaudit.gates/1\""));
	assert_non_null(strstr(json, "\"score\": 25.0000"));
	assert_non_null(strstr(json, "{\"test\": \"test_a\", \"mutants\": [\"m1\"]}"));
	assert_non_null(strstr(json, "\"killed_nothing\": [\"test_d\"]"));
	assert_non_null(strstr(json, "{\"file\": \"f.c\", \"function\": \"two\", \"mutants\": 1}"));
	free(json);
	td_gates_free(g);
}

/* The same mutants as plain, split in two shards (by hand: the ledger does not care how). */
static const run shard1 = {1, 2, COMMIT_A, "c0ffee", {"test_a", "test_b", "test_c", "test_d"},
			   rows, 3, 0};
static const run shard2 = {2, 2, COMMIT_A, "c0ffee", {"test_a", "test_b", "test_c", "test_d"},
			   rows + 3, 3, 0};

static void test_the_shards_of_a_run_are_read_as_one(void **state)
{
	td_gates *whole, *merged;
	long added;

	(void)state;
	write_run("whole.db", &plain);
	write_run("s1.db", &shard1);
	write_run("s2.db", &shard2);
	assert_int_equal(td_ledger_merge(&added, "m.db", "s1.db"), 0);
	assert_int_equal(td_ledger_merge(&added, "m.db", "s2.db"), 0);
	whole = gates_of("whole.db");
	merged = gates_of("m.db");
	assert_int_equal(merged->run.shard_n, 2);
	assert_int_equal(merged->n_mutants, whole->n_mutants);
	assert_memory_equal(merged->count, whole->count, sizeof whole->count);
	assert_int_equal(merged->n_load_bearing, whole->n_load_bearing);
	assert_int_equal(merged->n_redundant, whole->n_redundant);
	assert_int_equal(merged->n_no_gate, whole->n_no_gate);
	assert_true(merged->tests_known); /* merge carried each shard's tests */
	assert_string_equal(merged->killed_nothing[0], whole->killed_nothing[0]);
	td_gates_free(whole);
	td_gates_free(merged);
}

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
	const run rerun = {1, 2, COMMIT_A, "c0ffee", {"test_a"}, again, 3, 0};
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
	const run other_commit = {2, 2, COMMIT_B, "c0ffee", {"test_a"}, rows + 3, 3, 0};
	const run other_catalogue = {2, 2, COMMIT_A, "decade", {"test_a"}, rows + 3, 3, 0};
	const run uncommitted = {2, 2, COMMIT_A, "c0ffee", {"test_a"}, rows + 3, 3, 1};
	const char *ab[] = {"s1.db", "b.db"}, *ac[] = {"s1.db", "c.db"}, *aa[] = {"s1.db", "d.db"};
	const char *ae[] = {"s1.db", "e.db"};
	const char *ok[] = {"s1.db", "s2.db"};
	const char *cli[] = {"ledger", "merge", "../s1.db", "../b.db", "-o", "../out.db", NULL};

	(void)state;
	write_run("s1.db", &shard1);
	write_run("s2.db", &shard2);
	write_run("b.db", &other_commit);
	write_run("c.db", &other_catalogue);
	write_run("d.db", &shard1);
	write_run("e.db", &uncommitted);
	TD_ASSERT_REFUSED(td_ledger_check_shards(ab, 2), TD_EINVAL, "commit bbbbbbbbbbbb");
	assert_non_null(strstr(td_error_last(), "s1.db holds shard 1/2 of commit aaaaaaaaaaaa"));
	TD_ASSERT_REFUSED(td_ledger_check_shards(ac, 2), TD_EINVAL, "(catalogue decade)");
	assert_non_null(strstr(td_error_last(), "(catalogue c0ffee)"));
	TD_ASSERT_REFUSED(td_ledger_check_shards(aa, 2), TD_EINVAL, "give each shard once");
	/* the same commit, but one shard tested uncommitted changes to it */
	TD_ASSERT_REFUSED(td_ledger_check_shards(ae, 2), TD_EINVAL,
			  "e.db holds shard 2/2 of commit aaaaaaaaaaaa with uncommitted changes");
	assert_int_equal(td_ledger_check_shards(ok, 2), 0);
	write_run("s1.db", &plain); /* a later unsharded run does not hide s1's shard */
	assert_int_equal(td_ledger_check_shards(ok, 2), 0);
	mkdir("w", 0755); /* fx_tdaudit's log goes beside the directory it runs in */
	assert_int_equal(fx_tdaudit("w", "merge.log", cli), 2);
	assert_non_null(strstr(fx_slurp("merge.log"), "b.db holds shard 2/2 of commit bbbbbbbbbbbb"));
	assert_int_equal(access("out.db", F_OK), -1); /* nothing was merged */
}

static void test_a_merge_that_fails_at_a_later_source_merges_none(void **state)
{
	const char *cli[] = {"ledger", "merge", "../s1.db", "../bad.db", "-o", "../out.db", NULL};
	const char *good[] = {"ledger", "merge", "../s1.db", "../s2.db", "-o", "../out.db", NULL};
	sqlite3 *db;

	(void)state;
	write_run("s1.db", &shard1);
	write_run("s2.db", &shard2);
	write_run("bad.db", &plain);
	/* an outcome of a mutant the ledger lacks, as a ledger written with foreign keys off
	 * would hold: the shard check reads past it; the merge's foreign keys refuse it */
	assert_int_equal(sqlite3_open("bad.db", &db), SQLITE_OK);
	assert_int_equal(sqlite3_exec(db, "PRAGMA foreign_keys = OFF; INSERT INTO mutant_outcomes"
					  "(run, mutant, outcome, duration_ms) SELECT id, 'ghost', "
					  "'killed', 1 FROM runs", NULL, NULL, NULL),
			 SQLITE_OK);
	sqlite3_close(db);
	mkdir("w", 0755);
	assert_int_equal(fx_tdaudit("w", "merge.log", cli), 2);
	if (access("out.db", F_OK) == 0) /* the first source's rows must not be there alone */
		fail_msg("out.db was written: %s", fx_slurp("merge.log"));
	assert_non_null(strstr(fx_slurp("merge.log"), "bad.db: "));
	assert_non_null(strstr(fx_slurp("merge.log"), "nothing was merged into ../out.db"));
	/* the control: two good shards merge, in one step */
	assert_int_equal(fx_tdaudit("w", "merge.log", good), 0);
	assert_non_null(strstr(fx_slurp("merge.log"), "merged 2 ledgers into ../out.db: "));
	assert_int_equal(access("out.db", F_OK), 0);
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

static void test_gates_fail_under_gates_on_the_ledgers_score(void **state)
{
	const char *low[] = {"gates", "--ledger", "../l.db", "--fail-under", "25.5", NULL};
	const char *at[] = {"gates", "--ledger", "../l.db", "--fail-under", "25", "--json",
			    "../g.json", NULL};
	const char *nan[] = {"gates", "--ledger", "../l.db", "--fail-under", "nan", NULL};

	(void)state;
	write_run("l.db", &plain);
	mkdir("w", 0755);
	assert_int_equal(fx_tdaudit("w", "gates.log", low), 1);
	assert_non_null(strstr(fx_slurp("gates.log"), "mutation score: 25.0% (1 killed of 4 judged)"));
	assert_int_equal(fx_tdaudit("w", "gates.log", at), 0);
	assert_non_null(strstr(fx_slurp("gates.log"), "test_a"));
	assert_non_null(strstr(fx_slurp("g.json"), "\"load_bearing\""));
	assert_int_equal(fx_tdaudit("w", "gates.log", nan), 2);
	assert_non_null(strstr(fx_slurp("gates.log"), "--fail-under is a mutation score"));
}

static const struct CMUnitTest tests[] = {
	cmocka_unit_test(test_every_gate_is_read_off_the_kill_matrix),
	cmocka_unit_test(test_a_kill_of_an_unjudged_mutant_does_not_count),
	cmocka_unit_test(test_a_full_matrix_is_named_and_an_unknown_test_list_claims_nothing),
	cmocka_unit_test(test_the_json_names_the_schema_and_each_list),
	cmocka_unit_test(test_the_shards_of_a_run_are_read_as_one),
	cmocka_unit_test(test_a_missing_shard_is_refused_by_name),
	cmocka_unit_test(test_a_later_run_of_a_shard_replaces_the_earlier),
	cmocka_unit_test(test_a_merge_carries_each_shards_tests),
	cmocka_unit_test(test_shards_of_different_commits_or_catalogues_are_not_merged),
	cmocka_unit_test(test_a_merge_that_fails_at_a_later_source_merges_none),
	cmocka_unit_test(test_the_score_counts_timeouts_and_kills_elsewhere_as_not_killed),
	cmocka_unit_test(test_gates_fail_under_gates_on_the_ledgers_score),
};
TD_TEST_GROUP(matrix, tests);
