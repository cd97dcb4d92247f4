/*
 * test_ledger.c - the SQLite ledger: schema version and identity, runs as
 * one transaction, parameterised writes, merge, exports.
 *
 * Each test runs in a fresh temporary directory, so ledgers are relative
 * paths. The file is inspected with sqlite3 directly where the point is what
 * another process would see.
 *
 * What these tests guard: tdaudit mutate --list --file ledger/ledger.c
 *
 * Edits seen breaking these tests that the catalogue may not hold:
 *   - mkdir_parents() never calling mkdir()
 *       -> a_new_ledger_has_the_schema_version_magic_and_wal_mode
 *   - deleting the `ver > TD_LEDGER_SCHEMA_VERSION` refusal in check_identity()
 *       -> a_ledger_from_a_newer_tdaudit_is_refused_naming_both_versions
 *   - dropping `app != 0 ||` from check_identity()'s not-a-ledger test
 *       -> a_file_that_is_not_a_ledger_is_refused
 *   - td_ledger_free() running "COMMIT" instead of "ROLLBACK"
 *       -> an_unfinished_run_leaves_no_trace_when_the_ledger_is_closed
 *   - td_ledger_run_begin() without its "BEGIN IMMEDIATE"
 *       -> a_process_that_dies_mid_run_leaves_no_trace
 *   - td_ledger_run_finish() not setting `ended`
 *       -> a_finished_run_has_a_uuid_its_status_and_an_end_time
 *   - deleting require_run() from td_ledger_put_finding()
 *       -> writes_outside_a_run_are_refused
 *   - td_ledger_put_guard() building its INSERT with snprintf("... '%s' ...")
 *       -> a_test_name_with_quotes_is_stored_verbatim
 *   - removing PRIMARY KEY (run, fix_commit, test) from the reproductions table
 *       -> merging_the_same_ledger_twice_adds_nothing
 *   - check_merge_paths() without its same-file (st_dev, st_ino) refusal
 *       -> a_ledger_is_not_merged_into_itself
 *   - md_cell() not escaping '|'
 *       -> the_markdown_export_is_the_debugmd_summary_table
 *   - removing the CHECK on guards.role
 *       -> an_unknown_role_is_refused
 *   - td_ledger_commits_match() comparing with strcasecmp (whole strings)
 *       -> a_guard_is_verified_by_a_full_commit_id_cited_short
 *   - merge_sql without the bisects statement; join_commits() without
 *     the space between ids -> a_bisect_result_is_recorded_and_merged_once
 */
#include "tdtest.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <sqlite3.h>

#include "../base/error.h"
#include "../base/fileio.h"
#include "../ledger/ledger.h"

/* The integer in the first column of sql's first row, read by a separate connection. */
static long raw_int(const char *path, const char *sql)
{
	sqlite3 *db;
	sqlite3_stmt *st;
	long v = -1;

	assert_int_equal(sqlite3_open_v2(path, &db, SQLITE_OPEN_READWRITE, NULL), SQLITE_OK);
	assert_int_equal(sqlite3_prepare_v2(db, sql, -1, &st, NULL), SQLITE_OK);
	if (sqlite3_step(st) == SQLITE_ROW)
		v = (long)sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	sqlite3_close(db);
	return v;
}

static void raw_exec(const char *path, const char *sql)
{
	sqlite3 *db;

	assert_int_equal(sqlite3_open_v2(path, &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, NULL),
			 SQLITE_OK);
	assert_int_equal(sqlite3_exec(db, sql, NULL, NULL, NULL), SQLITE_OK);
	sqlite3_close(db);
}

static char *slurp(const char *path)
{
	FILE *f = fopen(path, "rb");
	char *s = calloc(1, 1 << 16);

	assert_non_null(f);
	assert_non_null(s);
	fread(s, 1, (1 << 16) - 1, f);
	fclose(f);
	return s;
}

static void begin(td_ledger *lg)
{
	td_ledger_run_info info = {0};

	info.command = "tdaudit test";
	info.tool_version = "0.1";
	info.head_commit = "0123456789abcdef0123456789abcdef01234567";
	assert_int_equal(td_ledger_run_begin(lg, &info), 0);
}

static void put_finding(td_ledger *lg, int n, const char *where, const char *status,
			const char *commit)
{
	td_ledger_finding f = {n, "a title", where, "high", "mutation", status, commit};

	assert_int_equal(td_ledger_put_finding(lg, &f), 0);
}

/* A ledger with one of everything, in one finished run. */
static void make_full_ledger(const char *path)
{
	td_ledger *lg;
	td_ledger_reproduction r = {"abc1234", "test_g", "fail", "pass", "guard", 2, 2, NULL, NULL, NULL, NULL};
	td_ledger_mutant m = {"m1", "core", "flip", "core/plan.c", 10, 1, NULL, "re-introduces #1", NULL};
	td_ledger_outcome o = {"m1", "killed", "test_g", 1, 0, 12, "/state/logs/runs/r/0001-m1.log"};

	assert_int_equal(td_ledger_open(&lg, path, TD_LEDGER_CREATE), 0);
	begin(lg);
	put_finding(lg, 1, "`plan.c`", "fixed", "abc1234");
	assert_int_equal(td_ledger_put_guard(lg, 1, "test_g", "guard"), 0);
	assert_int_equal(td_ledger_put_reproduction(lg, &r), 0);
	assert_int_equal(td_ledger_put_mutant(lg, &m), 0);
	assert_int_equal(td_ledger_put_outcome(lg, &o), 0);
	assert_int_equal(td_ledger_put_kill(lg, "m1", "test_g"), 0);
	assert_int_equal(td_ledger_run_finish(lg, "ok"), 0);
	td_ledger_free(lg);
}

static long total_rows(const char *path)
{
	return raw_int(path, "SELECT (SELECT count(*) FROM runs) + (SELECT count(*) FROM findings)"
			     " + (SELECT count(*) FROM guards) + (SELECT count(*) FROM reproductions)"
			     " + (SELECT count(*) FROM mutants) + (SELECT count(*) FROM mutant_outcomes)"
			     " + (SELECT count(*) FROM kills)");
}

/*
 * The schema of version 1 exactly as tdaudit 0.1.0 wrote it (a frozen copy:
 * ledger.c's migration step 1 may be read by this test, never the other way).
 */
static const char frozen_v1[] =
	"PRAGMA application_id = 1413762119;\n"
	"CREATE TABLE runs (\n"
	"  id TEXT PRIMARY KEY,\n"
	"  command TEXT NOT NULL,\n"
	"  started TEXT NOT NULL,\n"
	"  ended TEXT,\n"
	"  head_commit TEXT,\n"
	"  dirty INTEGER NOT NULL CHECK (dirty IN (0, 1)),\n"
	"  tool_version TEXT NOT NULL,\n"
	"  status TEXT NOT NULL CHECK (status IN ('running', 'ok', 'findings', 'error')));\n"
	"CREATE TABLE findings (\n"
	"  number INTEGER PRIMARY KEY CHECK (number > 0),\n"
	"  title TEXT NOT NULL,\n"
	"  location TEXT NOT NULL,\n"
	"  severity TEXT NOT NULL,\n"
	"  found_by TEXT NOT NULL,\n"
	"  status TEXT NOT NULL,\n"
	"  fix_commit TEXT);\n"
	"CREATE TABLE guards (\n"
	"  finding INTEGER NOT NULL REFERENCES findings(number),\n"
	"  test TEXT NOT NULL,\n"
	"  role TEXT NOT NULL CHECK (role IN ('guard', 'pin', 'broken', 'unverified')),\n"
	"  PRIMARY KEY (finding, test));\n"
	"CREATE TABLE reproductions (\n"
	"  run TEXT NOT NULL REFERENCES runs(id),\n"
	"  fix_commit TEXT NOT NULL,\n"
	"  test TEXT NOT NULL,\n"
	"  outcome_before TEXT NOT NULL\n"
	"    CHECK (outcome_before IN ('pass', 'fail', 'no-build', 'timeout', 'mixed')),\n"
	"  outcome_after TEXT NOT NULL\n"
	"    CHECK (outcome_after IN ('pass', 'fail', 'no-build', 'timeout', 'mixed')),\n"
	"  verdict TEXT NOT NULL CHECK (verdict IN ('guard', 'pin', 'broken', 'no-build', 'flaky')),\n"
	"  stable_k INTEGER NOT NULL,\n"
	"  stable_n INTEGER NOT NULL,\n"
	"  CHECK (stable_n >= 1 AND stable_k >= 0 AND stable_k <= stable_n),\n"
	"  PRIMARY KEY (run, fix_commit, test));\n"
	"CREATE TABLE mutants (\n"
	"  id TEXT PRIMARY KEY,\n"
	"  catalogue TEXT NOT NULL,\n"
	"  name TEXT NOT NULL,\n"
	"  file TEXT NOT NULL,\n"
	"  line INTEGER NOT NULL CHECK (line >= 1),\n"
	"  finding INTEGER,\n"
	"  designed_against TEXT,\n"
	"  why TEXT NOT NULL,\n"
	"  CHECK (finding IS NOT NULL OR designed_against IS NOT NULL));\n"
	"CREATE TABLE mutant_outcomes (\n"
	"  run TEXT NOT NULL REFERENCES runs(id),\n"
	"  mutant TEXT NOT NULL REFERENCES mutants(id),\n"
	"  outcome TEXT NOT NULL CHECK (outcome IN\n"
	"    ('killed', 'killed-elsewhere', 'survived', 'timeout', 'build-failed', 'stale',\n"
	"     'equivalent')),\n"
	"  killing_test TEXT,\n"
	"  exit_status INTEGER,\n"
	"  signal INTEGER,\n"
	"  duration_ms INTEGER NOT NULL CHECK (duration_ms >= 0),\n"
	"  PRIMARY KEY (run, mutant));\n"
	"CREATE TABLE kills (\n"
	"  run TEXT NOT NULL,\n"
	"  mutant TEXT NOT NULL,\n"
	"  test TEXT NOT NULL,\n"
	"  PRIMARY KEY (run, mutant, test),\n"
	"  FOREIGN KEY (run, mutant) REFERENCES mutant_outcomes(run, mutant));\n"
	"CREATE INDEX reproductions_by_test ON reproductions(test);\n"
	"PRAGMA user_version = 1;\n";

static void test_a_version_1_ledger_is_migrated_forward_keeping_its_rows(void **state)
{
	td_ledger_reproduction r = {"abc1234", "test_new", "fail", "pass", "guard", 2, 2, NULL, NULL, NULL, NULL};
	td_ledger_bisect b = {"test_g", "1111111", "2222222", "2222222", "fix", NULL, 3, NULL, NULL, NULL};
	td_ledger *lg;
	int ok = 0;

	(void)state;
	raw_exec("v1.db", frozen_v1);
	raw_exec("v1.db", "INSERT INTO runs VALUES ('r1', 'tdaudit reproduce', '2024-01-01T00:00:00Z',"
			  " '2024-01-01T00:01:00Z', NULL, 0, '0.1.0', 'ok');"
			  "INSERT INTO reproductions VALUES ('r1', 'abc1234', 'test_g', 'fail', 'pass',"
			  " 'guard', 2, 2);"
			  "INSERT INTO mutants VALUES ('m1', 'c.lua', 'm', 'a.c', 3, 1, NULL, 'w');"
			  "INSERT INTO mutant_outcomes VALUES ('r1', 'm1', 'killed', 'test_g', 1, 0, 5);"
			  "INSERT INTO kills VALUES ('r1', 'm1', 'test_g');");
	assert_int_equal(raw_int("v1.db", "PRAGMA user_version"), 1);
	assert_int_equal(td_ledger_open(&lg, "v1.db", 0), 0);
	assert_int_equal(raw_int("v1.db", "PRAGMA user_version"), TD_LEDGER_SCHEMA_VERSION);
	/* version 5 made mutant_outcomes again: its row and the kill that names it are kept */
	assert_int_equal(raw_int("v1.db", "SELECT count(*) FROM mutant_outcomes WHERE mutant = 'm1'"
					  " AND outcome = 'killed' AND killing_test = 'test_g'"
					  " AND duration_ms = 5"), 1);
	assert_int_equal(raw_int("v1.db", "SELECT count(*) FROM kills JOIN mutant_outcomes"
					  " USING (run, mutant)"), 1);
	assert_int_equal(raw_int("v1.db", "SELECT count(*) FROM sqlite_schema"
					  " WHERE name IN ('mutant_outcomes_v5', 'kills_v4',"
					  " 'mutant_outcomes_v8', 'kills_v7')"), 0);
	/* version 8 admits no-coverage, and keeps a row's log when it makes the table again */
	raw_exec("v1.db", "INSERT INTO mutants VALUES ('m2', 'c.lua', 'n', 'a.c', 4, 1, NULL, 'w', NULL);"
			  "INSERT INTO mutant_outcomes VALUES ('r1', 'm2', 'no-coverage', NULL, -1, 0, 0,"
			  " 'logs/m2.log');"
			  "PRAGMA user_version = 7;");
	td_ledger_free(lg);
	assert_int_equal(td_ledger_open(&lg, "v1.db", 0), 0);
	assert_int_equal(raw_int("v1.db", "SELECT count(*) FROM mutant_outcomes WHERE mutant = 'm2'"
					  " AND outcome = 'no-coverage' AND log = 'logs/m2.log'"), 1);
	assert_int_equal(raw_int("v1.db", "SELECT count(*) FROM kills JOIN mutant_outcomes"
					  " USING (run, mutant)"), 1);
	assert_int_equal(raw_int("v1.db", "SELECT count(*) FROM audit_results"), 0); /* version 3 */
	assert_int_equal(raw_int("v1.db", "SELECT count(*) FROM run_tests"), 0);     /* version 4 */
	assert_int_equal(raw_int("v1.db", "SELECT count(*) FROM runs WHERE shard_n IS NOT NULL"), 0);
	assert_int_equal(td_ledger_guard_verified(&ok, lg, "abc1234", "test_g"), 0);
	assert_int_equal(ok, 1); /* the old row is still there, and still evidence */
	assert_int_equal(raw_int("v1.db", "SELECT count(*) FROM reproductions WHERE at_head IS NULL"), 1);
	begin(lg);
	assert_int_equal(td_ledger_put_reproduction_at(lg, &r, "3333333"), 0);
	assert_int_equal(td_ledger_put_bisect(lg, &b), 0);
	assert_int_equal(td_ledger_run_finish(lg, "ok"), 0);
	td_ledger_free(lg);
	assert_int_equal(raw_int("v1.db", "SELECT count(*) FROM reproductions WHERE at_head = '3333333'"
					  " AND test = 'test_new'"), 1);
	assert_int_equal(raw_int("v1.db", "SELECT count(*) FROM bisects"), 1);
	assert_int_equal(td_ledger_open(&lg, "v1.db", 0), 0); /* opening again migrates nothing */
	td_ledger_free(lg);
	assert_int_equal(raw_int("v1.db", "PRAGMA user_version"), TD_LEDGER_SCHEMA_VERSION);
}

/*
 * A merge reads its source and never writes it: an older ledger is merged
 * from a migrated copy and stays at its version, byte for byte; an empty
 * file is refused and stays empty. The source used to be opened
 * read-write: migrated in place, and a 0-byte file given a schema
 * (DEBUG.md #51).
 */
static void test_a_merge_never_writes_its_source(void **state)
{
	long added = 0;
	char *before = NULL, *after = NULL;
	size_t n_before, n_after;
	FILE *f;

	(void)state;
	raw_exec("v1.db", frozen_v1);
	raw_exec("v1.db", "INSERT INTO runs VALUES ('r1', 'tdaudit reproduce', '2024-01-01T00:00:00Z',"
			  " '2024-01-01T00:01:00Z', NULL, 0, '0.1.0', 'ok');");
	assert_int_equal(td_file_read("v1.db", &before, &n_before), 0);
	assert_int_equal(td_ledger_merge(&added, "out.db", "v1.db"), 0);
	assert_true(added >= 1);
	assert_int_equal(raw_int("out.db", "SELECT count(*) FROM runs WHERE id = 'r1'"), 1);
	assert_int_equal(td_file_read("v1.db", &after, &n_after), 0);
	assert_int_equal(n_before, n_after);
	assert_memory_equal(before, after, n_before);
	assert_int_equal(raw_int("v1.db", "PRAGMA user_version"), 1);
	free(before), free(after);
	f = fopen("empty.db", "w");
	assert_non_null(f);
	fclose(f);
	TD_ASSERT_REFUSED(td_ledger_merge(&added, "out.db", "empty.db"), TD_EINVAL,
			  "empty.db is not a tdaudit ledger (an empty file)");
	TD_ASSERT_REFUSED(td_ledger_check_shards((const char *const[]){"empty.db"}, 1), TD_EINVAL,
			  "empty.db is not a tdaudit ledger (an empty file)");
	if (strstr(td_error_last(), "nothing was merged")) /* the command says it, once */
		fail_msg("the refusal says what its caller adds: %s", td_error_last());
	assert_int_equal(td_file_read("empty.db", &after, &n_after), 0);
	assert_int_equal(n_after, 0);
	free(after);
}

static void test_a_bisect_result_is_recorded_and_merged_once(void **state)
{
	char *skipped[] = {"aaaaaaa", "bbbbbbb", NULL};
	td_ledger_bisect b = {"test_g", "1111111", "9999999", NULL, "regression", skipped, 5, NULL, NULL, NULL};
	td_ledger_bisect bad = {"test_h", "1111111", "9999999", NULL, "sideways", NULL, 5, NULL, NULL, NULL};
	td_ledger *lg;
	long added;

	(void)state;
	assert_int_equal(td_ledger_open(&lg, "l.db", TD_LEDGER_CREATE), 0);
	TD_ASSERT_REFUSED(td_ledger_put_bisect(lg, &b), TD_ESTATE, "outside a run");
	begin(lg);
	assert_int_equal(td_ledger_put_bisect(lg, &b), 0);
	TD_ASSERT_REFUSED(td_ledger_put_bisect(lg, &bad), TD_EINVAL, "CHECK");
	assert_int_equal(td_ledger_run_finish(lg, "findings"), 0);
	td_ledger_free(lg);
	assert_int_equal(raw_int("l.db", "SELECT count(*) FROM bisects WHERE guard_test = 'test_g'"
					 " AND good = '1111111' AND bad = '9999999' AND found IS NULL"
					 " AND direction = 'regression' AND skipped = 'aaaaaaa bbbbbbb'"
					 " AND builds = 5 AND run = (SELECT id FROM runs)"),
			 1);
	assert_int_equal(td_ledger_merge(&added, "m.db", "l.db"), 0);
	assert_int_equal(added, 2); /* the run and its bisect */
	assert_int_equal(td_ledger_merge(&added, "m.db", "l.db"), 0);
	assert_int_equal(added, 0);
	assert_int_equal(raw_int("m.db", "SELECT count(*) FROM bisects WHERE skipped = 'aaaaaaa bbbbbbb'"),
			 1);
}

/* An audit run's rows: written in one run, refused outside one, carried by merge. */
static void test_audit_results_are_recorded_refused_outside_a_run_and_merged(void **state)
{
	td_ledger_audit_run ar = {"tdaudit.lua:3", "c.conf", 2, 1, 1, 0};
	td_ledger_audit_result ok = {"seed", "pass", "-", "same seed, same weights", NULL, "[\"a\"]", 5};
	td_ledger_audit_result bad = {"eval", "fail", "LOUDISH", "x", "y", "[]", 5};
	td_ledger_audit_result fail = {"eval", "fail", "SILENT", "evals differ", "no rewind", "[]", 7};
	td_ledger *lg;
	long added;

	(void)state;
	assert_int_equal(td_ledger_open(&lg, "a.db", TD_LEDGER_CREATE), 0);
	TD_ASSERT_REFUSED(td_ledger_put_audit_run(lg, &ar), TD_ESTATE, "outside a run");
	begin(lg);
	assert_int_equal(td_ledger_put_audit_run(lg, &ar), 0);
	assert_int_equal(td_ledger_put_audit_result(lg, &ok), 0);
	TD_ASSERT_REFUSED(td_ledger_put_audit_result(lg, &bad), TD_EINVAL, "CHECK");
	assert_int_equal(td_ledger_put_audit_result(lg, &fail), 0);
	assert_int_equal(td_ledger_run_finish(lg, "findings"), 0);
	td_ledger_free(lg);
	assert_int_equal(raw_int("a.db", "SELECT count(*) FROM audit_results WHERE audit = 'eval'"
					 " AND status = 'fail' AND class = 'SILENT' AND reason = 'no rewind'"),
			 1);
	assert_int_equal(td_ledger_merge(&added, "m.db", "a.db"), 0);
	assert_int_equal(added, 4); /* the run, the audit run, two results */
	assert_int_equal(td_ledger_merge(&added, "m.db", "a.db"), 0);
	assert_int_equal(added, 0);
	assert_int_equal(raw_int("m.db", "SELECT passed + failed FROM audit_runs"), 2);
}

/* One writer process: a run of n mutants and their outcomes; exit 0 when it was recorded. */
static int write_one_run(const char *path, int k, int n)
{
	td_ledger_run_info info = {.command = "writer", .tool_version = "test"};
	td_ledger *lg = NULL;
	char id[32];
	int err = td_ledger_open(&lg, path, TD_LEDGER_CREATE);

	if (!err)
		err = td_ledger_run_begin(lg, &info);
	for (int i = 0; !err && i < n; i++) {
		td_ledger_mutant m = {id, "cat.lua", "m", "calc.c", 1, 0, "x", "y", NULL};
		td_ledger_outcome o = {id, "killed", "test_add", 1, 0, 1, NULL};

		snprintf(id, sizeof id, "w%d-m%d", k, i);
		err = td_ledger_put_mutant(lg, &m);
		if (!err)
			err = td_ledger_put_outcome(lg, &o);
	}
	if (!err)
		err = td_ledger_run_finish(lg, "ok");
	if (err)
		fprintf(stderr, "writer %d: %s\n", k, td_error_last());
	td_ledger_free(lg);
	return err != 0;
}

/*
 * Eight processes writing one ledger at once lose no row: each waits for
 * the others' write lock (TD_LEDGER_BUSY_MS) instead of failing, and every
 * run and every outcome is there afterwards, counted with SQL.
 */
static void test_eight_writers_at_once_lose_no_rows(void **state)
{
	enum { WRITERS = 8, MUTANTS = 50 };
	pid_t pid[WRITERS];
	td_ledger *lg = NULL;
	sqlite3 *db;
	sqlite3_stmt *st;
	int status;

	(void)state;
	if (getenv("TDTEST_VALGRIND"))
		TD_SKIP("under valgrind (make valgrind): eight writers at memcheck's speed outlast "
			"SQLite's 5 s lock wait, a deadline, not a memory error");
	assert_int_equal(td_ledger_open(&lg, "shared.db", TD_LEDGER_CREATE), 0); /* the schema first */
	td_ledger_free(lg);
	for (int k = 0; k < WRITERS; k++) {
		pid[k] = fork();
		assert_true(pid[k] >= 0);
		if (pid[k] == 0)
			_exit(write_one_run("shared.db", k, MUTANTS));
	}
	for (int k = 0; k < WRITERS; k++) {
		assert_int_equal(waitpid(pid[k], &status, 0), pid[k]);
		assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	}
	assert_int_equal(sqlite3_open("shared.db", &db), SQLITE_OK);
	assert_int_equal(sqlite3_prepare_v2(db, "SELECT (SELECT count(*) FROM runs WHERE status = 'ok'),"
					       " (SELECT count(*) FROM mutant_outcomes)", -1, &st, NULL),
			 SQLITE_OK);
	assert_int_equal(sqlite3_step(st), SQLITE_ROW);
	assert_int_equal(sqlite3_column_int(st, 0), WRITERS);
	assert_int_equal(sqlite3_column_int(st, 1), WRITERS * MUTANTS);
	sqlite3_finalize(st);
	sqlite3_close(db);
}

static void test_a_new_ledger_has_the_schema_version_magic_and_wal_mode(void **state)
{
	td_ledger *lg;

	(void)state;
	assert_int_equal(td_ledger_open(&lg, "deep/er/ledger.db", TD_LEDGER_CREATE), 0);
	td_ledger_free(lg);
	assert_int_equal(raw_int("deep/er/ledger.db", "PRAGMA user_version"), TD_LEDGER_SCHEMA_VERSION);
	assert_int_equal(raw_int("deep/er/ledger.db", "PRAGMA application_id"), TD_LEDGER_MAGIC);
	assert_int_equal(raw_int("deep/er/ledger.db", "SELECT count(*) FROM pragma_journal_mode"
						      " WHERE journal_mode = 'wal'"), 1);
	/* Opening again is a no-op, and without TD_LEDGER_CREATE a missing file is refused. */
	assert_int_equal(td_ledger_open(&lg, "deep/er/ledger.db", 0), 0);
	td_ledger_free(lg);
	TD_ASSERT_REFUSED(td_ledger_open(&lg, "missing.db", 0), TD_EIO, "missing.db");
	assert_null(lg);
}

static void test_a_ledger_from_a_newer_tdaudit_is_refused_naming_both_versions(void **state)
{
	td_ledger *lg;
	char want[64];

	(void)state;
	assert_int_equal(td_ledger_open(&lg, "l.db", TD_LEDGER_CREATE), 0);
	td_ledger_free(lg);
	raw_exec("l.db", "PRAGMA user_version = 99");
	snprintf(want, sizeof want, "version %d", TD_LEDGER_SCHEMA_VERSION);
	TD_ASSERT_REFUSED(td_ledger_open(&lg, "l.db", 0), TD_ENOTSUP, "schema version 99");
	assert_non_null(strstr(td_error_last(), want));
	assert_null(lg);
	assert_int_equal(raw_int("l.db", "PRAGMA user_version"), 99); /* untouched */
	/* named by the path given, not by the temporary copy a merge reads */
	TD_ASSERT_REFUSED(td_ledger_merge(NULL, "out.db", "l.db"), TD_ENOTSUP,
			  "ledger l.db has schema version 99");
}

static void test_a_file_that_is_not_a_ledger_is_refused(void **state)
{
	td_ledger *lg;
	FILE *f = fopen("text.db", "w");

	(void)state;
	fputs("this is not a database, it is a long enough line of text to have a header\n", f);
	fclose(f);
	TD_ASSERT_REFUSED(td_ledger_open(&lg, "text.db", 0), TD_EINVAL, "text.db");
	raw_exec("other.db", "CREATE TABLE t(x)");
	TD_ASSERT_REFUSED(td_ledger_open(&lg, "other.db", 0), TD_EINVAL, "not a tdaudit ledger");
	assert_int_equal(raw_int("other.db", "PRAGMA user_version"), 0);
	raw_exec("foreign.db", "PRAGMA application_id = 42"); /* another program's empty file */
	TD_ASSERT_REFUSED(td_ledger_open(&lg, "foreign.db", 0), TD_EINVAL, "application_id 42");
	assert_null(lg);
}

static void test_an_unfinished_run_leaves_no_trace_when_the_ledger_is_closed(void **state)
{
	td_ledger *lg;

	(void)state;
	assert_int_equal(td_ledger_open(&lg, "l.db", TD_LEDGER_CREATE), 0);
	begin(lg);
	put_finding(lg, 1, "here", "open", NULL);
	td_ledger_free(lg);
	assert_int_equal(raw_int("l.db", "SELECT count(*) FROM runs"), 0);
	assert_int_equal(raw_int("l.db", "SELECT count(*) FROM findings"), 0);

	assert_int_equal(td_ledger_open(&lg, "l.db", 0), 0); /* and abandoning is the same */
	begin(lg);
	put_finding(lg, 1, "here", "open", NULL);
	assert_int_equal(td_ledger_run_abandon(lg), 0);
	assert_null(td_ledger_run_id(lg));
	td_ledger_free(lg);
	assert_int_equal(raw_int("l.db", "SELECT count(*) FROM findings"), 0);
}

static void test_a_process_that_dies_mid_run_leaves_no_trace(void **state)
{
	td_ledger *lg;
	int status;
	pid_t pid;

	(void)state;
	assert_int_equal(td_ledger_open(&lg, "l.db", TD_LEDGER_CREATE), 0);
	td_ledger_free(lg);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) { /* the child records half a run and dies without closing anything */
		if (td_ledger_open(&lg, "l.db", 0) == 0) {
			td_ledger_run_info info = {.command = "tdaudit mutate", .tool_version = "0.1"};
			td_ledger_finding f = {7, "t", "w", "low", "x", "open", NULL};

			if (td_ledger_run_begin(lg, &info) == 0)
				td_ledger_put_finding(lg, &f);
		}
		_exit(0);
	}
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_int_equal(raw_int("l.db", "SELECT count(*) FROM runs"), 0);
	assert_int_equal(raw_int("l.db", "SELECT count(*) FROM findings"), 0);
	assert_int_equal(td_ledger_open(&lg, "l.db", 0), 0); /* and the lock died with it */
	begin(lg);
	assert_int_equal(td_ledger_run_finish(lg, "ok"), 0);
	td_ledger_free(lg);
	assert_int_equal(raw_int("l.db", "SELECT count(*) FROM runs WHERE status = 'ok'"), 1);
}

static void test_a_finished_run_has_a_uuid_its_status_and_an_end_time(void **state)
{
	td_ledger *lg;
	char id[TD_LEDGER_RUN_ID_LEN + 1];

	(void)state;
	assert_int_equal(td_ledger_open(&lg, "l.db", TD_LEDGER_CREATE), 0);
	begin(lg);
	assert_non_null(td_ledger_run_id(lg));
	strcpy(id, td_ledger_run_id(lg));
	assert_int_equal(strlen(id), 36);
	assert_int_equal(id[14], '4');
	TD_ASSERT_REFUSED(td_ledger_run_finish(lg, "running"), TD_EINVAL, "running");
	assert_int_equal(td_ledger_run_finish(lg, "findings"), 0);
	TD_ASSERT_REFUSED(td_ledger_run_finish(lg, "ok"), TD_ESTATE, "outside a run");
	td_ledger_free(lg);
	assert_int_equal(raw_int("l.db", "SELECT count(*) FROM runs WHERE status = 'findings'"
					 " AND ended IS NOT NULL AND ended >= started AND dirty = 0"),
			 1);
}

static void test_writes_outside_a_run_are_refused(void **state)
{
	td_ledger *lg;
	td_ledger_finding f = {1, "t", "w", "low", "x", "open", NULL};

	(void)state;
	assert_int_equal(td_ledger_open(&lg, "l.db", TD_LEDGER_CREATE), 0);
	TD_ASSERT_REFUSED(td_ledger_put_finding(lg, &f), TD_ESTATE, "outside a run");
	TD_ASSERT_REFUSED(td_ledger_put_kill(lg, "m", "t"), TD_ESTATE, "outside a run");
	td_ledger_free(lg);
	assert_int_equal(raw_int("l.db", "SELECT count(*) FROM findings"), 0);
}

static void test_a_test_name_with_quotes_is_stored_verbatim(void **state)
{
	static const char name[] = "test_it's \"x\"'); DROP TABLE guards; --";
	td_ledger_reproduction r = {"abc1234", name, "fail", "pass", "guard", 2, 2, NULL, NULL, NULL, NULL};
	td_ledger_findings *fs;
	td_ledger *lg;
	FILE *f;
	char *json;
	int ok;

	(void)state;
	assert_int_equal(td_ledger_open(&lg, "l.db", TD_LEDGER_CREATE), 0);
	begin(lg);
	put_finding(lg, 1, "it's", "fixed", "abc1234");
	assert_int_equal(td_ledger_put_guard(lg, 1, name, "guard"), 0);
	assert_int_equal(td_ledger_put_reproduction(lg, &r), 0);
	assert_int_equal(td_ledger_run_finish(lg, "ok"), 0);
	assert_int_equal(td_ledger_findings_load(&fs, lg), 0);
	assert_int_equal(fs->n, 1);
	assert_int_equal(fs->v[0].n_guards, 1);
	assert_string_equal(fs->v[0].guards[0].test, name);
	td_ledger_findings_free(fs);
	assert_int_equal(td_ledger_guard_verified(&ok, lg, "abc1234", name), 0);
	assert_true(ok);
	f = fopen("out.json", "w");
	assert_int_equal(td_ledger_export_json(f, lg), 0);
	fclose(f);
	td_ledger_free(lg);
	json = slurp("out.json");
	assert_non_null(strstr(json, "\"test\": \"test_it's \\\"x\\\"'); DROP TABLE guards; --\""));
	free(json);
}

static void test_merging_the_same_ledger_twice_adds_nothing(void **state)
{
	long added, rows;

	(void)state;
	make_full_ledger("a.db");
	assert_int_equal(td_ledger_merge(&added, "out/merged.db", "a.db"), 0);
	assert_int_equal(added, 7);
	rows = total_rows("out/merged.db");
	assert_int_equal(rows, 7);
	assert_int_equal(raw_int("out/merged.db", "SELECT count(*) FROM mutant_outcomes"
						  " WHERE log = '/state/logs/runs/r/0001-m1.log'"), 1);
	assert_int_equal(td_ledger_merge(&added, "out/merged.db", "a.db"), 0);
	assert_int_equal(added, 0);
	assert_int_equal(total_rows("out/merged.db"), rows);
	make_full_ledger("b.db"); /* the same finding and mutant, a new run */
	assert_int_equal(td_ledger_merge(&added, "out/merged.db", "b.db"), 0);
	assert_int_equal(added, 4); /* run, reproduction, outcome, kill */
	assert_int_equal(td_ledger_merge(&added, "out/merged.db", "b.db"), 0);
	assert_int_equal(added, 0);
	TD_ASSERT_REFUSED(td_ledger_merge(&added, "out/merged.db", "nonesuch.db"), TD_EIO,
			  "nonesuch.db");
}

static void test_a_ledger_is_not_merged_into_itself(void **state)
{
	long added;

	(void)state;
	make_full_ledger("a.db");
	TD_ASSERT_REFUSED(td_ledger_merge(&added, "a.db", "./a.db"), TD_EINVAL, "into itself");
	assert_int_equal(total_rows("a.db"), 7);
}

static void test_the_markdown_export_is_the_debugmd_summary_table(void **state)
{
	static const char want[] = "| # | Where | Severity | Found by | Status |\n"
				   "|---|---|---|---|---|\n"
				   "| 1 | `plan.c` — a \\| b | high | mutation | fixed, `7c3f812` |\n"
				   "| 2 | `lattice.c` | high | mutation | open |\n";
	td_ledger *lg;
	FILE *f;
	char *md;

	(void)state;
	assert_int_equal(td_ledger_open(&lg, "l.db", TD_LEDGER_CREATE), 0);
	begin(lg);
	put_finding(lg, 2, "`lattice.c`", "open", NULL);
	put_finding(lg, 1, "`plan.c` — a | b", "fixed", "7c3f812");
	assert_int_equal(td_ledger_run_finish(lg, "ok"), 0);
	f = fopen("out.md", "w");
	assert_int_equal(td_ledger_export_md(f, lg), 0);
	fclose(f);
	td_ledger_free(lg);
	md = slurp("out.md");
	assert_string_equal(md, want);
	free(md);
}

static void test_the_json_export_names_its_format_and_version(void **state)
{
	td_ledger_reproduction at = {"abc1234", "test_g", "pass", "pass", "pin", 1, 1, NULL, NULL, NULL, NULL};
	char *skipped[] = {"s4", "s5", NULL};
	td_ledger_bisect b = {"test_g", "g0", "b9", NULL, "fix", skipped, 5, NULL, NULL, NULL};
	td_ledger *lg;
	FILE *f;
	char *json, want[128];

	(void)state;
	make_full_ledger("l.db");
	assert_int_equal(td_ledger_open(&lg, "l.db", 0), 0);
	begin(lg);
	put_finding(lg, 2, "`lattice.c`", "open", NULL);
	assert_int_equal(td_ledger_put_reproduction_at(lg, &at, "def5678"), 0);
	assert_int_equal(td_ledger_put_bisect(lg, &b), 0);
	assert_int_equal(td_ledger_run_finish(lg, "ok"), 0);
	f = fopen("out.json", "w");
	assert_int_equal(td_ledger_export_json(f, lg), 0);
	fclose(f);
	td_ledger_free(lg);
	json = slurp("out.json");
	snprintf(want, sizeof want, "{\"format\": \"tdaudit-ledger\", \"version\": %d, \"schema\": %d,",
		 TD_LEDGER_JSON_VERSION, TD_LEDGER_SCHEMA_VERSION);
	assert_true(strncmp(json, want, strlen(want)) == 0);
	assert_non_null(strstr(json, "\"guards\": [{\"test\": \"test_g\", \"role\": \"guard\"}]"));
	assert_non_null(strstr(json, "\"status\": \"open\", \"fix_commit\": null, \"guards\": []"));
	assert_non_null(strstr(json, "\"verdict\": \"guard\", \"stable_k\": 2, \"stable_n\": 2, "
				     "\"at_head\": null, \"variant\": \"default\", \"build\": null, "
				     "\"build_env\": null, \"fallback\": null}"));
	/* an at-head verdict says so: without at_head it reads as one about the fix */
	assert_non_null(strstr(json, "\"verdict\": \"pin\", \"stable_k\": 1, \"stable_n\": 1, "
				     "\"at_head\": \"def5678\", \"variant\": \"default\""));
	assert_non_null(strstr(json, "\"guard\": \"test_g\", \"good\": \"g0\", \"bad\": \"b9\", "
				     "\"found\": null, \"direction\": \"fix\", \"skipped\": [\"s4\", \"s5\"], "
				     "\"builds\": 5, \"variant\": null, \"build\": null, \"build_env\": null}"));
	free(json);
}

static void test_an_unknown_role_is_refused(void **state)
{
	td_ledger *lg;

	(void)state;
	assert_int_equal(td_ledger_open(&lg, "l.db", TD_LEDGER_CREATE), 0);
	begin(lg);
	put_finding(lg, 1, "w", "open", NULL);
	TD_ASSERT_REFUSED(td_ledger_put_guard(lg, 1, "test_x", "maybe"), TD_EINVAL, "role");
	TD_ASSERT_REFUSED(td_ledger_put_guard(lg, 2, "test_x", "guard"), TD_EINVAL, "FOREIGN KEY");
	assert_int_equal(td_ledger_run_finish(lg, "ok"), 0);
	td_ledger_free(lg);
	assert_int_equal(raw_int("l.db", "SELECT count(*) FROM guards"), 0);
}

static void test_a_guard_is_verified_by_a_full_commit_id_cited_short(void **state)
{
	static const char full[] = "7c3f8120aaaabbbbccccddddeeeeffff00001111";
	td_ledger_reproduction g = {full, "test_g", "fail", "pass", "guard", 2, 2, NULL, NULL, NULL, NULL};
	td_ledger_reproduction p = {full, "test_p", "pass", "pass", "pin", 2, 2, NULL, NULL, NULL, NULL};
	td_ledger *lg;
	int ok;

	(void)state;
	assert_int_equal(td_ledger_open(&lg, "l.db", TD_LEDGER_CREATE), 0);
	begin(lg);
	assert_int_equal(td_ledger_put_reproduction(lg, &g), 0);
	assert_int_equal(td_ledger_put_reproduction(lg, &p), 0);
	assert_int_equal(td_ledger_run_finish(lg, "ok"), 0);
	assert_int_equal(td_ledger_guard_verified(&ok, lg, "7c3f812", "test_g"), 0);
	assert_true(ok);
	assert_int_equal(td_ledger_guard_verified(&ok, lg, "7C3F812", "test_g"), 0);
	assert_true(ok);
	assert_int_equal(td_ledger_guard_verified(&ok, lg, "7c3f812", "test_p"), 0);
	assert_false(ok); /* a pin is not a guard */
	assert_int_equal(td_ledger_guard_verified(&ok, lg, "7c3f813", "test_g"), 0);
	assert_false(ok);
	assert_int_equal(td_ledger_guard_verified(&ok, lg, "7c3", "test_g"), 0);
	assert_false(ok); /* too short to name anything */
	td_ledger_free(lg);
}

static const struct CMUnitTest tests[] = {
	cmocka_unit_test(test_a_new_ledger_has_the_schema_version_magic_and_wal_mode),
	cmocka_unit_test(test_eight_writers_at_once_lose_no_rows),
	cmocka_unit_test(test_a_merge_never_writes_its_source),
	cmocka_unit_test(test_audit_results_are_recorded_refused_outside_a_run_and_merged),
	cmocka_unit_test(test_a_ledger_from_a_newer_tdaudit_is_refused_naming_both_versions),
	cmocka_unit_test(test_a_file_that_is_not_a_ledger_is_refused),
	cmocka_unit_test(test_an_unfinished_run_leaves_no_trace_when_the_ledger_is_closed),
	cmocka_unit_test(test_a_process_that_dies_mid_run_leaves_no_trace),
	cmocka_unit_test(test_a_finished_run_has_a_uuid_its_status_and_an_end_time),
	cmocka_unit_test(test_writes_outside_a_run_are_refused),
	cmocka_unit_test(test_a_test_name_with_quotes_is_stored_verbatim),
	cmocka_unit_test(test_merging_the_same_ledger_twice_adds_nothing),
	cmocka_unit_test(test_a_ledger_is_not_merged_into_itself),
	cmocka_unit_test(test_the_markdown_export_is_the_debugmd_summary_table),
	cmocka_unit_test(test_the_json_export_names_its_format_and_version),
	cmocka_unit_test(test_an_unknown_role_is_refused),
	cmocka_unit_test(test_a_guard_is_verified_by_a_full_commit_id_cited_short),
	cmocka_unit_test(test_a_version_1_ledger_is_migrated_forward_keeping_its_rows),
	cmocka_unit_test(test_a_bisect_result_is_recorded_and_merged_once),
};

TD_TEST_GROUP(ledger, tests);
