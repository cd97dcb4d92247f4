/*
 * ledger.c - the findings ledger on SQLite (see ledger.h for the contract
 * and the schema).
 *
 * Must never build SQL text from data (everything goes through
 * sqlite3_bind_*), never commit part of a run, and never write to a ledger
 * whose schema version is newer than TD_LEDGER_SCHEMA_VERSION.
 */
#include "ledger.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include <sqlite3.h>

#include "../base/error.h"
#include "../base/grow.h"
#include "../base/json.h"
#include "../base/strv.h"

struct td_ledger {
	sqlite3 *db;
	char *path;                              /* our copy, for messages */
	char run_id[TD_LEDGER_RUN_ID_LEN + 1];   /* the open run, "" when none */
};

/* --- schema ---------------------------------------------------------------- */

/*
 * Version 1. Each migration step is constant SQL that ends by setting
 * user_version to its own number, so the version moves inside the step's
 * transaction and no SQL is ever formatted.
 */
static const char schema_v1[] =
	"PRAGMA application_id = 1413762119;\n" /* TD_LEDGER_MAGIC, "TDLG" */
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

/*
 * Version 2: reproductions.at_head (the HEAD a fix was reverted on by
 * `reproduce --at-head`; NULL for a reproduction against the fix's parent)
 * and the bisects table. Old rows keep at_head NULL: they were all ordinary
 * reproductions.
 */
static const char schema_v2[] =
	"ALTER TABLE reproductions ADD COLUMN at_head TEXT;\n"
	"CREATE TABLE bisects (\n"
	"  run TEXT NOT NULL REFERENCES runs(id),\n"
	"  guard_test TEXT NOT NULL,\n"
	"  good TEXT NOT NULL,\n"
	"  bad TEXT NOT NULL,\n"
	"  found TEXT,\n"
	"  direction TEXT NOT NULL CHECK (direction IN ('fix', 'regression')),\n"
	"  skipped TEXT NOT NULL,\n"
	"  builds INTEGER NOT NULL CHECK (builds >= 1),\n"
	"  PRIMARY KEY (run, guard_test));\n"
	"PRAGMA user_version = 2;\n";

/*
 * Version 3: the runs of `tdaudit audit`. audit_runs has one row per audit
 * run (which trainer block, which config, the counts); audit_results one
 * per audit in it, its evidence a JSON array of lines (the commands run
 * with their exit statuses and hashes, then the script's own lines).
 * Older ledgers have no audit runs, so nothing else changes.
 */
static const char schema_v3[] =
	"CREATE TABLE audit_runs (\n"
	"  run TEXT PRIMARY KEY REFERENCES runs(id),\n"
	"  trainer TEXT,\n"
	"  config TEXT,\n"
	"  audits INTEGER NOT NULL CHECK (audits >= 0),\n"
	"  passed INTEGER NOT NULL CHECK (passed >= 0),\n"
	"  failed INTEGER NOT NULL CHECK (failed >= 0),\n"
	"  skipped INTEGER NOT NULL CHECK (skipped >= 0));\n"
	"CREATE TABLE audit_results (\n"
	"  run TEXT NOT NULL REFERENCES audit_runs(run),\n"
	"  audit TEXT NOT NULL,\n"
	"  status TEXT NOT NULL CHECK (status IN ('pass', 'fail', 'skip', 'error')),\n"
	"  class TEXT NOT NULL CHECK (class IN ('LOUD', 'COUNTED', 'SILENT', '-')),\n"
	"  summary TEXT NOT NULL,\n"
	"  reason TEXT,\n"
	"  evidence TEXT NOT NULL,\n"
	"  duration_ms INTEGER NOT NULL,\n"
	"  PRIMARY KEY (run, audit));\n"
	"PRAGMA user_version = 3;\n";

/*
 * Version 4: what a mutation run needs to be merged and read back as one.
 * runs gets shard_k/shard_n (`mutate --shard K/N`, NULL unsharded),
 * catalogue (a fingerprint of every mutant the run selected before sharding,
 * so shards of different catalogues can be told apart) and kill_matrix
 * (first-kill: a killed mutant records the test that killed it; full:
 * --cold, every failing test). mutants gets function (the enclosing
 * function of a generated mutant, NULL for a catalogue entry), and
 * run_tests lists every test a mutation run listed, so a test that killed
 * nothing can be named. Older runs keep NULL: they were never sharded.
 */
static const char schema_v4[] =
	"ALTER TABLE runs ADD COLUMN shard_k INTEGER;\n"
	"ALTER TABLE runs ADD COLUMN shard_n INTEGER;\n"
	"ALTER TABLE runs ADD COLUMN catalogue TEXT;\n"
	"ALTER TABLE runs ADD COLUMN kill_matrix TEXT"
	" CHECK (kill_matrix IN ('first-kill', 'full'));\n"
	"ALTER TABLE mutants ADD COLUMN function TEXT;\n"
	"CREATE TABLE run_tests (\n"
	"  run TEXT NOT NULL REFERENCES runs(id),\n"
	"  test TEXT NOT NULL,\n"
	"  PRIMARY KEY (run, test));\n"
	"PRAGMA user_version = 4;\n";

/*
 * Version 5: mutant_outcomes admits 'not-rebuilt' (a mutant whose build
 * wrote no file, so its tests ran the unmutated code). Until then it was
 * stored as build-failed and a merged ledger lost it. SQLite cannot alter
 * a CHECK, so the table is made again with its rows. Foreign keys hold
 * inside the migration's transaction, so kills (which references it) is
 * set aside first and made again after, rows and all.
 */
static const char schema_v5[] =
	"CREATE TABLE mutant_outcomes_v5 (\n"
	"  run TEXT NOT NULL REFERENCES runs(id),\n"
	"  mutant TEXT NOT NULL REFERENCES mutants(id),\n"
	"  outcome TEXT NOT NULL CHECK (outcome IN\n"
	"    ('killed', 'killed-elsewhere', 'survived', 'timeout', 'build-failed', 'stale',\n"
	"     'equivalent', 'not-rebuilt')),\n"
	"  killing_test TEXT,\n"
	"  exit_status INTEGER,\n"
	"  signal INTEGER,\n"
	"  duration_ms INTEGER NOT NULL CHECK (duration_ms >= 0),\n"
	"  PRIMARY KEY (run, mutant));\n"
	"INSERT INTO mutant_outcomes_v5 SELECT run, mutant, outcome, killing_test, exit_status,\n"
	"  signal, duration_ms FROM mutant_outcomes;\n"
	"CREATE TABLE kills_v4 AS SELECT run, mutant, test FROM kills;\n"
	"DROP TABLE kills;\n"
	"DROP TABLE mutant_outcomes;\n"
	"ALTER TABLE mutant_outcomes_v5 RENAME TO mutant_outcomes;\n"
	"CREATE TABLE kills (\n"
	"  run TEXT NOT NULL,\n"
	"  mutant TEXT NOT NULL,\n"
	"  test TEXT NOT NULL,\n"
	"  PRIMARY KEY (run, mutant, test),\n"
	"  FOREIGN KEY (run, mutant) REFERENCES mutant_outcomes(run, mutant));\n"
	"INSERT INTO kills SELECT run, mutant, test FROM kills_v4;\n"
	"DROP TABLE kills_v4;\n"
	"PRAGMA user_version = 5;\n";

/*
 * Version 6: mutant_outcomes.log, the path of the mutant's log (its build's
 * and tests' output, kept per run by tdaudit mutate); NULL for older rows.
 */
static const char schema_v6[] =
	"ALTER TABLE mutant_outcomes ADD COLUMN log TEXT;\n"
	"PRAGMA user_version = 6;\n";

/*
 * Version 7: build variants (tdaudit.lua's variant { }). A run records the
 * variant it built with, its build argv and its environment (mutate; bisect
 * with the variants it used; NULL for older runs and for a reproduce run,
 * whose rows say it). A fix is judged once per variant, so reproductions
 * gets variant, build, build_env and fallback (the variant a state that did
 * not build fell back to) and a key that holds the variant: the table is
 * made again with its rows, all of them 'default'.
 */
static const char schema_v7[] =
	"ALTER TABLE runs ADD COLUMN variant TEXT;\n"
	"ALTER TABLE runs ADD COLUMN build TEXT;\n"
	"ALTER TABLE runs ADD COLUMN build_env TEXT;\n"
	"ALTER TABLE bisects ADD COLUMN variant TEXT;\n"
	"ALTER TABLE bisects ADD COLUMN build TEXT;\n"
	"ALTER TABLE bisects ADD COLUMN build_env TEXT;\n"
	"CREATE TABLE reproductions_v7 (\n"
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
	"  at_head TEXT,\n"
	"  variant TEXT NOT NULL DEFAULT 'default',\n"
	"  build TEXT,\n"
	"  build_env TEXT,\n"
	"  fallback TEXT,\n"
	"  CHECK (stable_n >= 1 AND stable_k >= 0 AND stable_k <= stable_n),\n"
	"  PRIMARY KEY (run, fix_commit, test, variant));\n"
	"INSERT INTO reproductions_v7(run, fix_commit, test, outcome_before, outcome_after, verdict,\n"
	"  stable_k, stable_n, at_head) SELECT run, fix_commit, test, outcome_before, outcome_after,\n"
	"  verdict, stable_k, stable_n, at_head FROM reproductions;\n"
	"DROP TABLE reproductions;\n"
	"ALTER TABLE reproductions_v7 RENAME TO reproductions;\n"
	"CREATE INDEX reproductions_by_test ON reproductions(test);\n"
	"PRAGMA user_version = 7;\n";

/*
 * Version 8: mutant_outcomes admits 'no-coverage' (a mutant of a schema
 * build that no test reached with no mutant on). Made again with its rows,
 * kills set aside and made again around it, as in version 5.
 */
static const char schema_v8[] =
	"CREATE TABLE mutant_outcomes_v8 (\n"
	"  run TEXT NOT NULL REFERENCES runs(id),\n"
	"  mutant TEXT NOT NULL REFERENCES mutants(id),\n"
	"  outcome TEXT NOT NULL CHECK (outcome IN\n"
	"    ('killed', 'killed-elsewhere', 'survived', 'timeout', 'build-failed', 'stale',\n"
	"     'equivalent', 'not-rebuilt', 'no-coverage')),\n"
	"  killing_test TEXT,\n"
	"  exit_status INTEGER,\n"
	"  signal INTEGER,\n"
	"  duration_ms INTEGER NOT NULL CHECK (duration_ms >= 0),\n"
	"  log TEXT,\n"
	"  PRIMARY KEY (run, mutant));\n"
	"INSERT INTO mutant_outcomes_v8 SELECT run, mutant, outcome, killing_test, exit_status,\n"
	"  signal, duration_ms, log FROM mutant_outcomes;\n"
	"CREATE TABLE kills_v7 AS SELECT run, mutant, test FROM kills;\n"
	"DROP TABLE kills;\n"
	"DROP TABLE mutant_outcomes;\n"
	"ALTER TABLE mutant_outcomes_v8 RENAME TO mutant_outcomes;\n"
	"CREATE TABLE kills (\n"
	"  run TEXT NOT NULL,\n"
	"  mutant TEXT NOT NULL,\n"
	"  test TEXT NOT NULL,\n"
	"  PRIMARY KEY (run, mutant, test),\n"
	"  FOREIGN KEY (run, mutant) REFERENCES mutant_outcomes(run, mutant));\n"
	"INSERT INTO kills SELECT run, mutant, test FROM kills_v7;\n"
	"DROP TABLE kills_v7;\n"
	"PRAGMA user_version = 8;\n";

/* Step i takes a ledger from version migrations[i].version - 1 to .version. */
static const struct {
	int version;
	const char *sql;
} migrations[] = {
	{1, schema_v1},
	{2, schema_v2},
	{3, schema_v3},
	{4, schema_v4},
	{5, schema_v5},
	{6, schema_v6},
	{7, schema_v7},
	{8, schema_v8},
};

/* --- SQLite plumbing ------------------------------------------------------------ */

/* Fails with a code for SQLite's rc and its message, naming the ledger and what we were doing. */
static int sql_fail(const td_ledger *lg, int rc, const char *what)
{
	int code = TD_EIO;

	switch (rc & 0xff) {
	case SQLITE_NOMEM: code = TD_ENOMEM; break;
	case SQLITE_CONSTRAINT:
	case SQLITE_NOTADB:
	case SQLITE_MISMATCH: code = TD_EINVAL; break;
	}
	if ((rc & 0xff) == SQLITE_BUSY)
		return TD_FAIL(TD_EIO, "ledger %s: %s: another process held the lock for over %d ms (%s)",
			       lg->path, what, TD_LEDGER_BUSY_MS, sqlite3_errmsg(lg->db));
	return TD_FAIL(code, "ledger %s: %s: %s", lg->path, what, sqlite3_errmsg(lg->db));
}

/* Runs constant SQL (one or more statements, no data in it). */
static int exec_sql(td_ledger *lg, const char *sql, const char *what)
{
	int rc = sqlite3_exec(lg->db, sql, NULL, NULL, NULL);

	return rc == SQLITE_OK ? 0 : sql_fail(lg, rc, what);
}

/*
 * Binds the variadic arguments to st as types says, one letter each:
 * 't' const char * (NULL binds NULL), 'i' int, 'n' int where 0 binds NULL,
 * 'l' long.
 */
static int bind_args(sqlite3_stmt *st, const char *types, va_list ap)
{
	int rc = SQLITE_OK;

	for (int i = 1; types[i - 1] && rc == SQLITE_OK; i++) {
		switch (types[i - 1]) {
		case 't': {
			const char *s = va_arg(ap, const char *);

			rc = s ? sqlite3_bind_text(st, i, s, -1, SQLITE_TRANSIENT) : sqlite3_bind_null(st, i);
			break;
		}
		case 'i': rc = sqlite3_bind_int(st, i, va_arg(ap, int)); break;
		case 'n': {
			int v = va_arg(ap, int);

			rc = v ? sqlite3_bind_int(st, i, v) : sqlite3_bind_null(st, i);
			break;
		}
		case 'l': rc = sqlite3_bind_int64(st, i, (sqlite3_int64)va_arg(ap, long)); break;
		default: rc = SQLITE_MISUSE;
		}
	}
	return rc;
}

/* Prepares sql and binds the arguments (see bind_args). *out is finalized by the caller. */
static int prepare(sqlite3_stmt **out, td_ledger *lg, const char *what, const char *sql,
		   const char *types, ...)
{
	va_list ap;
	int rc = sqlite3_prepare_v2(lg->db, sql, -1, out, NULL);

	if (rc != SQLITE_OK)
		return sql_fail(lg, rc, what);
	va_start(ap, types);
	rc = bind_args(*out, types, ap);
	va_end(ap);
	if (rc != SQLITE_OK) {
		int err = sql_fail(lg, rc, what);

		sqlite3_finalize(*out);
		*out = NULL;
		return err;
	}
	return 0;
}

/* Runs a statement that returns no rows, with its arguments bound (see bind_args). */
static int exec_bound(td_ledger *lg, const char *what, const char *sql, const char *types, ...)
{
	sqlite3_stmt *st;
	va_list ap;
	int rc = sqlite3_prepare_v2(lg->db, sql, -1, &st, NULL);

	if (rc != SQLITE_OK)
		return sql_fail(lg, rc, what);
	va_start(ap, types);
	rc = bind_args(st, types, ap);
	va_end(ap);
	while (rc == SQLITE_OK || rc == SQLITE_ROW)
		rc = sqlite3_step(st);
	sqlite3_finalize(st);
	return rc == SQLITE_DONE ? 0 : sql_fail(lg, rc, what);
}

/* *out = the integer in the first column of constant query sql's first row. */
static int query_int(int *out, td_ledger *lg, const char *sql)
{
	sqlite3_stmt *st;
	int rc = sqlite3_prepare_v2(lg->db, sql, -1, &st, NULL);

	if (rc != SQLITE_OK)
		return sql_fail(lg, rc, sql);
	rc = sqlite3_step(st);
	*out = rc == SQLITE_ROW ? sqlite3_column_int(st, 0) : 0;
	sqlite3_finalize(st);
	return rc == SQLITE_ROW || rc == SQLITE_DONE ? 0 : sql_fail(lg, rc, sql);
}

/* A copy of column i's text into *out (NULL for SQL NULL). */
static int column_dup(char **out, sqlite3_stmt *st, int i)
{
	const unsigned char *s = sqlite3_column_text(st, i);

	*out = NULL;
	if (!s)
		return sqlite3_column_type(st, i) == SQLITE_NULL
			       ? 0
			       : TD_FAIL(TD_ENOMEM, "out of memory reading ledger column %d", i);
	*out = strdup((const char *)s);
	return *out ? 0 : TD_FAIL(TD_ENOMEM, "out of memory copying ledger column %d", i);
}

/* --- opening ---------------------------------------------------------------- */

/* Creates every missing parent directory of path (like mkdir -p "$(dirname path)"). */
static int mkdir_parents(const char *path)
{
	char *p = strdup(path);
	int err = 0;

	if (!p)
		return TD_FAIL(TD_ENOMEM, "out of memory for path %s", path);
	for (char *s = strchr(p + 1, '/'); s && !err; s = strchr(s + 1, '/')) {
		*s = '\0';
		if (mkdir(p, 0777) != 0 && errno != EEXIST)
			err = TD_FAIL(TD_EIO, "cannot create directory %s for the ledger: %s", p,
				      strerror(errno));
		*s = '/';
	}
	free(p);
	return err;
}

/* Refuses a file that is not a ledger, and a ledger newer than this code. Reads only. */
static int check_identity(td_ledger *lg)
{
	int app, ver, n_objects, err;

	if ((err = query_int(&app, lg, "PRAGMA application_id")) ||
	    (err = query_int(&ver, lg, "PRAGMA user_version")) ||
	    (err = query_int(&n_objects, lg, "SELECT count(*) FROM sqlite_master")))
		return err;
	if (app != TD_LEDGER_MAGIC && (app != 0 || ver != 0 || n_objects != 0))
		return TD_FAIL(TD_EINVAL,
			       "%s is not a tdaudit ledger (application_id %d, user_version %d, "
			       "%d schema objects); give a ledger's path or a new file's",
			       lg->path, app, ver, n_objects);
	if (ver > TD_LEDGER_SCHEMA_VERSION)
		return TD_FAIL(TD_ENOTSUP,
			       "ledger %s has schema version %d, newer than this tdaudit's version %d; "
			       "use a tdaudit at least as new as the one that wrote it",
			       lg->path, ver, TD_LEDGER_SCHEMA_VERSION);
	return 0;
}

/* Applies every pending migration step in one transaction. */
static int migrate(td_ledger *lg)
{
	int ver, err;

	if ((err = query_int(&ver, lg, "PRAGMA user_version")) || ver == TD_LEDGER_SCHEMA_VERSION)
		return err;
	if ((err = exec_sql(lg, "BEGIN IMMEDIATE", "locking the ledger to migrate it")))
		return err;
	err = check_identity(lg); /* again, under the lock: another process may have migrated */
	if (!err)
		err = query_int(&ver, lg, "PRAGMA user_version");
	for (size_t i = 0; !err && i < sizeof migrations / sizeof migrations[0]; i++)
		if (migrations[i].version > ver)
			err = exec_sql(lg, migrations[i].sql, "migrating the schema");
	if (!err)
		err = exec_sql(lg, "COMMIT", "committing the migration");
	if (err)
		sqlite3_exec(lg->db, "ROLLBACK", NULL, NULL, NULL);
	return err;
}

/* WAL, foreign keys, the busy timeout: per connection, outside any transaction. */
static int configure(td_ledger *lg)
{
	sqlite3_stmt *st;
	int err = prepare(&st, lg, "switching to WAL", "PRAGMA journal_mode = WAL", "");
	const char *mode;
	int rc;

	if (err)
		return err;
	rc = sqlite3_step(st);
	mode = rc == SQLITE_ROW ? (const char *)sqlite3_column_text(st, 0) : NULL;
	if (rc != SQLITE_ROW)
		err = sql_fail(lg, rc, "switching to WAL");
	else if (!mode || strcmp(mode, "wal") != 0)
		err = TD_FAIL(TD_EIO, "ledger %s: cannot use WAL here (journal mode stays %s); "
				      "put the ledger on a local file system",
			      lg->path, mode ? mode : "unknown");
	sqlite3_finalize(st);
	if (!err)
		err = exec_sql(lg, "PRAGMA foreign_keys = ON", "enabling foreign keys");
	return err;
}

int td_ledger_open(td_ledger **out, const char *path, unsigned flags)
{
	int oflags = SQLITE_OPEN_READWRITE | (flags & TD_LEDGER_CREATE ? SQLITE_OPEN_CREATE : 0);
	td_ledger *lg = NULL;
	int err = 0, rc;

	*out = NULL;
	if (!path || !*path)
		return TD_FAIL(TD_EINVAL, "no ledger path given");
	if ((flags & TD_LEDGER_CREATE) && (err = mkdir_parents(path)))
		return err;
	lg = calloc(1, sizeof *lg);
	if (!lg || !(lg->path = strdup(path))) {
		err = TD_FAIL(TD_ENOMEM, "out of memory opening ledger %s", path);
		goto done;
	}
	rc = sqlite3_open_v2(path, &lg->db, oflags, NULL);
	if (rc != SQLITE_OK) {
		err = TD_FAIL(TD_EIO, "cannot open ledger %s: %s%s", path,
			      lg->db ? sqlite3_errmsg(lg->db) : "out of memory",
			      flags & TD_LEDGER_CREATE ? "" : " (it must exist)");
		goto done;
	}
	sqlite3_extended_result_codes(lg->db, 1);
	sqlite3_busy_timeout(lg->db, TD_LEDGER_BUSY_MS);
	if ((err = check_identity(lg)) || (err = configure(lg)) || (err = migrate(lg)))
		goto done;
	*out = lg;
	lg = NULL;
done:
	td_ledger_free(lg);
	return err;
}

int td_ledger_check_writable(td_ledger *lg)
{
	int err;

	if (sqlite3_db_readonly(lg->db, "main") == 1)
		return TD_FAIL(TD_EIO, "the ledger %s is read-only; make it writable or give another "
				       "(ledger in tdaudit.lua)", lg->path);
	err = exec_sql(lg, "BEGIN IMMEDIATE", "checking that the ledger can be written");
	return err ? err : exec_sql(lg, "ROLLBACK", "checking that the ledger can be written");
}

void td_ledger_free(td_ledger *lg)
{
	if (!lg)
		return;
	if (lg->db && !sqlite3_get_autocommit(lg->db))
		sqlite3_exec(lg->db, "ROLLBACK", NULL, NULL, NULL); /* an unfinished run leaves no trace */
	sqlite3_close(lg->db);
	free(lg->path);
	free(lg);
}

/* --- runs -------------------------------------------------------------------- */

/* A random (version 4) UUID from /dev/urandom into out[TD_LEDGER_RUN_ID_LEN + 1]. */
static int make_uuid(char *out)
{
	static const char hex[] = "0123456789abcdef";
	unsigned char b[16];
	int fd = open("/dev/urandom", O_RDONLY);
	ssize_t n = fd >= 0 ? read(fd, b, sizeof b) : -1;

	if (fd >= 0)
		close(fd);
	if (n != (ssize_t)sizeof b)
		return TD_FAIL(TD_EIO, "cannot read /dev/urandom for a run id: %s",
			       n < 0 ? strerror(errno) : "short read");
	b[6] = (unsigned char)((b[6] & 0x0f) | 0x40); /* version 4 */
	b[8] = (unsigned char)((b[8] & 0x3f) | 0x80); /* RFC 4122 variant */
	for (int i = 0, j = 0; i < 16; i++) {
		if (i == 4 || i == 6 || i == 8 || i == 10)
			out[j++] = '-';
		out[j++] = hex[b[i] >> 4];
		out[j++] = hex[b[i] & 15];
	}
	out[TD_LEDGER_RUN_ID_LEN] = '\0';
	return 0;
}

/*
 * Checks that a run is open and its transaction is still alive: after some
 * errors (a full disk, an I/O error) SQLite rolls back on its own, and
 * writing on would commit each row by itself, half a run.
 */
static int require_run(const td_ledger *lg, const char *what)
{
	if (!lg->run_id[0])
		return TD_FAIL(TD_ESTATE, "ledger %s: cannot record %s outside a run; "
					  "call td_ledger_run_begin first",
				lg->path, what);
	if (sqlite3_get_autocommit(lg->db))
		return TD_FAIL(TD_ESTATE, "ledger %s: run %s was rolled back after an earlier error; "
					  "abandon it with td_ledger_run_abandon",
				lg->path, lg->run_id);
	return 0;
}

int td_ledger_run_begin(td_ledger *lg, const td_ledger_run_info *info)
{
	char id[TD_LEDGER_RUN_ID_LEN + 1];
	int err;

	if (lg->run_id[0])
		return TD_FAIL(TD_ESTATE, "ledger %s: run %s is still open; finish or abandon it first",
			       lg->path, lg->run_id);
	if (!info || !info->command || !info->tool_version)
		return TD_FAIL(TD_EINVAL, "a run needs a command and a tool version");
	if ((err = make_uuid(id)) || (err = exec_sql(lg, "BEGIN IMMEDIATE", "beginning a run")))
		return err;
	err = exec_bound(lg, "recording the run", /* status 'running' is never committed */
			 "INSERT INTO runs(id, command, started, head_commit, dirty, tool_version, status,"
			 " shard_k, shard_n, catalogue, kill_matrix, variant, build, build_env)"
			 " VALUES (?1, ?2, strftime('%Y-%m-%dT%H:%M:%fZ', 'now'), ?3, ?4, ?5, 'running',"
			 " ?6, ?7, ?8, ?9, ?10, ?11, ?12)",
			 "tttitnnttttt", id, info->command, info->head_commit, info->dirty ? 1 : 0,
			 info->tool_version, info->shard_n ? info->shard_k : 0, info->shard_n,
			 info->catalogue, info->kill_matrix, info->variant, info->build, info->build_env);
	if (err) {
		sqlite3_exec(lg->db, "ROLLBACK", NULL, NULL, NULL);
		return err;
	}
	memcpy(lg->run_id, id, sizeof id);
	return 0;
}

const char *td_ledger_run_id(const td_ledger *lg)
{
	return lg && lg->run_id[0] ? lg->run_id : NULL;
}

int td_ledger_run_finish(td_ledger *lg, const char *status)
{
	int err = require_run(lg, "the end of a run");

	if (err)
		return err;
	if (!status || (strcmp(status, "ok") && strcmp(status, "findings") && strcmp(status, "error")))
		return TD_FAIL(TD_EINVAL, "a run finishes as \"ok\", \"findings\" or \"error\", not \"%s\"",
			       status ? status : "(null)");
	err = exec_bound(lg, "finishing the run",
			 "UPDATE runs SET status = ?2, ended = strftime('%Y-%m-%dT%H:%M:%fZ', 'now')"
			 " WHERE id = ?1",
			 "tt", lg->run_id, status);
	if (!err)
		err = exec_sql(lg, "COMMIT", "committing the run");
	if (!err)
		lg->run_id[0] = '\0';
	return err;
}

int td_ledger_run_abandon(td_ledger *lg)
{
	if (!lg->run_id[0])
		return TD_FAIL(TD_ESTATE, "ledger %s: no run is open to abandon", lg->path);
	lg->run_id[0] = '\0';
	if (sqlite3_get_autocommit(lg->db))
		return 0; /* SQLite already rolled it back */
	return exec_sql(lg, "ROLLBACK", "abandoning the run");
}

/* --- writes --------------------------------------------------------------------- */

int td_ledger_put_finding(td_ledger *lg, const td_ledger_finding *f)
{
	int err = require_run(lg, "a finding");

	if (err)
		return err;
	if (!f->title || !f->where || !f->severity || !f->found_by || !f->status)
		return TD_FAIL(TD_EINVAL, "finding %d lacks a title, where, severity, found-by or status",
			       f->number);
	return exec_bound(lg, "recording a finding",
			  "INSERT INTO findings(number, title, location, severity, found_by, status,"
			  " fix_commit) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)"
			  " ON CONFLICT(number) DO UPDATE SET title = excluded.title,"
			  " location = excluded.location, severity = excluded.severity,"
			  " found_by = excluded.found_by, status = excluded.status,"
			  " fix_commit = excluded.fix_commit",
			  "ittttt" "t", f->number, f->title, f->where, f->severity, f->found_by,
			  f->status, f->fix_commit);
}

int td_ledger_put_guard(td_ledger *lg, int finding, const char *test, const char *role)
{
	int err = require_run(lg, "a guard");

	if (err)
		return err;
	if (!test || !*test || !role)
		return TD_FAIL(TD_EINVAL, "a guard of finding %d needs a test name and a role", finding);
	return exec_bound(lg, "recording a guard (is the finding in the ledger?)",
			  "INSERT INTO guards(finding, test, role) VALUES (?1, ?2, ?3)"
			  " ON CONFLICT(finding, test) DO UPDATE SET role = excluded.role",
			  "itt", finding, test, role);
}

int td_ledger_put_reproduction(td_ledger *lg, const td_ledger_reproduction *r)
{
	return td_ledger_put_reproduction_at(lg, r, NULL);
}

int td_ledger_put_reproduction_at(td_ledger *lg, const td_ledger_reproduction *r,
				  const char *at_head)
{
	int err = require_run(lg, "a reproduction");

	if (err)
		return err;
	if (!r->fix_commit || !r->test || !r->before || !r->after || !r->verdict)
		return TD_FAIL(TD_EINVAL, "a reproduction needs a commit, a test, both outcomes and a verdict");
	return exec_bound(lg, "recording a reproduction",
			  "INSERT INTO reproductions(run, fix_commit, test, outcome_before, outcome_after,"
			  " verdict, stable_k, stable_n, at_head, variant, build, build_env, fallback)"
			  " VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13)"
			  " ON CONFLICT(run, fix_commit, test, variant) DO UPDATE SET"
			  " outcome_before = excluded.outcome_before, outcome_after = excluded.outcome_after,"
			  " verdict = excluded.verdict, stable_k = excluded.stable_k,"
			  " stable_n = excluded.stable_n, at_head = excluded.at_head,"
			  " build = excluded.build, build_env = excluded.build_env,"
			  " fallback = excluded.fallback",
			  "ttttttiittttt", lg->run_id, r->fix_commit, r->test, r->before, r->after,
			  r->verdict, r->stable_k, r->stable_n, at_head,
			  r->variant ? r->variant : "default", r->build, r->build_env, r->fallback);
}

/* The skipped commits as one string, space-separated ("" for none). Caller frees. */
static char *join_commits(char *const *v)
{
	size_t len = 1;
	char *s;

	for (size_t i = 0; v && v[i]; i++)
		len += strlen(v[i]) + 1;
	if (!(s = malloc(len)))
		return NULL;
	s[0] = '\0';
	for (size_t i = 0; v && v[i]; i++) {
		if (i)
			strcat(s, " ");
		strcat(s, v[i]);
	}
	return s;
}

int td_ledger_put_bisect(td_ledger *lg, const td_ledger_bisect *b)
{
	int err = require_run(lg, "a bisect result");
	char *skipped;

	if (err)
		return err;
	if (!b->guard || !b->good || !b->bad || !b->direction)
		return TD_FAIL(TD_EINVAL, "a bisect result needs a guard, both ends and a direction");
	if (!(skipped = join_commits(b->skipped)))
		return TD_FAIL(TD_ENOMEM, "out of memory recording a bisect result");
	err = exec_bound(lg, "recording a bisect result",
			 "INSERT INTO bisects(run, guard_test, good, bad, found, direction, skipped, builds,"
			 " variant, build, build_env) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11)",
			 "tttttttlttt", lg->run_id, b->guard, b->good, b->bad, b->found, b->direction,
			 skipped, (long)b->builds, b->variant, b->build, b->build_env);
	free(skipped);
	return err;
}

int td_ledger_put_mutant(td_ledger *lg, const td_ledger_mutant *m)
{
	int err = require_run(lg, "a mutant");

	if (err)
		return err;
	if (!m->id || !m->catalogue || !m->name || !m->file || !m->why)
		return TD_FAIL(TD_EINVAL, "a mutant needs an id, catalogue, name, file and why");
	return exec_bound(lg, "recording a mutant",
			  "INSERT INTO mutants(id, catalogue, name, file, line, finding, designed_against,"
			  " why, function) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)"
			  " ON CONFLICT(id) DO UPDATE SET catalogue = excluded.catalogue,"
			  " name = excluded.name, file = excluded.file, line = excluded.line,"
			  " finding = excluded.finding, designed_against = excluded.designed_against,"
			  " why = excluded.why, function = excluded.function",
			  "ttttinttt", m->id, m->catalogue, m->name, m->file, m->line, m->finding,
			  m->designed_against, m->why, m->function);
}

int td_ledger_put_outcome(td_ledger *lg, const td_ledger_outcome *o)
{
	int err = require_run(lg, "a mutant's outcome");

	if (err)
		return err;
	if (!o->mutant || !o->outcome)
		return TD_FAIL(TD_EINVAL, "a mutant outcome needs the mutant's id and the outcome");
	return exec_bound(lg, "recording a mutant's outcome (is the mutant in the ledger?)",
			  "INSERT INTO mutant_outcomes(run, mutant, outcome, killing_test, exit_status,"
			  " signal, duration_ms, log) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)",
			  "ttttiilt", lg->run_id, o->mutant, o->outcome, o->killing_test, o->exit_status,
			  o->signal, o->duration_ms, o->log);
}

int td_ledger_put_kill(td_ledger *lg, const char *mutant, const char *test)
{
	int err = require_run(lg, "a kill");

	if (err)
		return err;
	if (!mutant || !test)
		return TD_FAIL(TD_EINVAL, "a kill needs a mutant id and a test name");
	return exec_bound(lg, "recording a kill (is the mutant's outcome recorded?)",
			  "INSERT INTO kills(run, mutant, test) VALUES (?1, ?2, ?3)"
			  " ON CONFLICT DO NOTHING",
			  "ttt", lg->run_id, mutant, test);
}

int td_ledger_put_run_test(td_ledger *lg, const char *test)
{
	int err = require_run(lg, "a run's test");

	if (err)
		return err;
	if (!test)
		return TD_FAIL(TD_EINVAL, "a run's test needs a name");
	return exec_bound(lg, "recording a run's test",
			  "INSERT INTO run_tests(run, test) VALUES (?1, ?2) ON CONFLICT DO NOTHING", "tt",
			  lg->run_id, test);
}

int td_ledger_put_audit_run(td_ledger *lg, const td_ledger_audit_run *a)
{
	int err = require_run(lg, "an audit run");

	if (err)
		return err;
	return exec_bound(lg, "recording an audit run",
			  "INSERT INTO audit_runs(run, trainer, config, audits, passed, failed, skipped)"
			  " VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
			  "tttiiii", lg->run_id, a->trainer, a->config, a->audits, a->passed, a->failed,
			  a->skipped);
}

int td_ledger_put_audit_result(td_ledger *lg, const td_ledger_audit_result *r)
{
	int err = require_run(lg, "an audit result");

	if (err)
		return err;
	if (!r->audit || !r->status || !r->class_ || !r->summary || !r->evidence)
		return TD_FAIL(TD_EINVAL, "an audit result needs its audit, status, class, summary "
					  "and evidence");
	return exec_bound(lg, "recording an audit result (is the audit run recorded?)",
			  "INSERT INTO audit_results(run, audit, status, class, summary, reason,"
			  " evidence, duration_ms) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)",
			  "tttttttl", lg->run_id, r->audit, r->status, r->class_, r->summary, r->reason,
			  r->evidence, r->duration_ms);
}

/* --- merge -------------------------------------------------------------------- */

/*
 * Parents before children, for the foreign keys. ON CONFLICT DO NOTHING
 * skips only rows whose unique key dst already has (INSERT OR IGNORE would
 * also skip rows failing a CHECK, silently). "WHERE true" lets SQLite parse
 * the ON CONFLICT clause after a SELECT.
 */
static const char *const merge_sql[] = {
	"INSERT INTO main.runs(id, command, started, ended, head_commit, dirty, tool_version, status,"
	" shard_k, shard_n, catalogue, kill_matrix, variant, build, build_env)"
	" SELECT id, command, started, ended, head_commit, dirty, tool_version, status,"
	" shard_k, shard_n, catalogue, kill_matrix, variant, build, build_env FROM src.runs"
	" WHERE true ON CONFLICT DO NOTHING",
	"INSERT INTO main.run_tests(run, test) SELECT run, test FROM src.run_tests WHERE true"
	" ON CONFLICT DO NOTHING",
	"INSERT INTO main.findings(number, title, location, severity, found_by, status, fix_commit)"
	" SELECT number, title, location, severity, found_by, status, fix_commit"
	" FROM src.findings WHERE true ON CONFLICT DO NOTHING",
	"INSERT INTO main.guards(finding, test, role) SELECT finding, test, role"
	" FROM src.guards WHERE true ON CONFLICT DO NOTHING",
	"INSERT INTO main.reproductions(run, fix_commit, test, outcome_before, outcome_after,"
	" verdict, stable_k, stable_n, at_head, variant, build, build_env, fallback)"
	" SELECT run, fix_commit, test, outcome_before, outcome_after, verdict, stable_k,"
	" stable_n, at_head, variant, build, build_env, fallback FROM src.reproductions WHERE true"
	" ON CONFLICT DO NOTHING",
	"INSERT INTO main.bisects(run, guard_test, good, bad, found, direction, skipped, builds,"
	" variant, build, build_env) SELECT run, guard_test, good, bad, found, direction, skipped,"
	" builds, variant, build, build_env FROM src.bisects WHERE true ON CONFLICT DO NOTHING",
	"INSERT INTO main.mutants(id, catalogue, name, file, line, finding, designed_against, why,"
	" function) SELECT id, catalogue, name, file, line, finding, designed_against, why, function"
	" FROM src.mutants WHERE true ON CONFLICT DO NOTHING",
	"INSERT INTO main.mutant_outcomes(run, mutant, outcome, killing_test, exit_status, signal,"
	" duration_ms, log) SELECT run, mutant, outcome, killing_test, exit_status, signal,"
	" duration_ms, log FROM src.mutant_outcomes WHERE true ON CONFLICT DO NOTHING",
	"INSERT INTO main.kills(run, mutant, test) SELECT run, mutant, test"
	" FROM src.kills WHERE true ON CONFLICT DO NOTHING",
	"INSERT INTO main.audit_runs(run, trainer, config, audits, passed, failed, skipped)"
	" SELECT run, trainer, config, audits, passed, failed, skipped"
	" FROM src.audit_runs WHERE true ON CONFLICT DO NOTHING",
	"INSERT INTO main.audit_results(run, audit, status, class, summary, reason, evidence,"
	" duration_ms) SELECT run, audit, status, class, summary, reason, evidence, duration_ms"
	" FROM src.audit_results WHERE true ON CONFLICT DO NOTHING",
};

/* Refuses a missing src, and src and dst being one file (dst may not exist yet). */
static int check_merge_paths(const char *dst_path, const char *src_path)
{
	struct stat s, d;

	if (stat(src_path, &s) != 0)
		return TD_FAIL(TD_EIO, "cannot merge ledger %s: %s", src_path, strerror(errno));
	if (stat(dst_path, &d) == 0 && s.st_dev == d.st_dev && s.st_ino == d.st_ino)
		return TD_FAIL(TD_EINVAL, "cannot merge ledger %s into itself (%s)", src_path, dst_path);
	return 0;
}

/* Copies src's rows into dst's main schema in one transaction; src is attached. */
static int merge_attached(long *added, td_ledger *dst)
{
	int before = sqlite3_total_changes(dst->db);
	int err = exec_sql(dst, "BEGIN IMMEDIATE", "locking the ledger to merge into it");

	for (size_t i = 0; !err && i < sizeof merge_sql / sizeof merge_sql[0]; i++)
		err = exec_sql(dst, merge_sql[i], "merging");
	if (!err)
		err = exec_sql(dst, "COMMIT", "committing the merge");
	if (err)
		sqlite3_exec(dst->db, "ROLLBACK", NULL, NULL, NULL);
	else if (added)
		*added = (long)sqlite3_total_changes(dst->db) - before;
	return err;
}

/*
 * Copies the ledger at src_path, opened read-only, into a new temporary
 * file (its name into tmp), with SQLite's backup API so that a WAL's
 * committed pages come too. A merge reads only the copy: its source is
 * never written, not even to migrate it forward. Refused: a file that is
 * not a tdaudit ledger, an empty one included (TD_EINVAL).
 */
static int snapshot_source(char *tmp, size_t size, const char *src_path)
{
	const char *dir = getenv("TMPDIR");
	sqlite3 *s = NULL, *d = NULL;
	sqlite3_backup *b;
	sqlite3_stmt *st = NULL;
	int err = 0, fd, app = 0, objects = 0, ver = 0;

	snprintf(tmp, size, "%s/tdaudit-merge-XXXXXX", dir && *dir ? dir : "/tmp");
	if (sqlite3_open_v2(src_path, &s, SQLITE_OPEN_READONLY, NULL) != SQLITE_OK ||
	    sqlite3_prepare_v2(s, "SELECT (SELECT application_id FROM pragma_application_id),"
				  " (SELECT count(*) FROM sqlite_master),"
				  " (SELECT user_version FROM pragma_user_version)", -1, &st, NULL) != SQLITE_OK ||
	    sqlite3_step(st) != SQLITE_ROW)
		err = TD_FAIL(TD_EIO, "cannot read the ledger %s: %s", src_path,
			      s ? sqlite3_errmsg(s) : "out of memory");
	else
		app = sqlite3_column_int(st, 0), objects = sqlite3_column_int(st, 1),
		ver = sqlite3_column_int(st, 2);
	sqlite3_finalize(st);
	if (!err && (app != TD_LEDGER_MAGIC || objects == 0))
		err = TD_FAIL(TD_EINVAL, "%s is not a tdaudit ledger (%s)", src_path,
			      objects ? "another SQLite database" : "an empty file");
	if (!err && ver > TD_LEDGER_SCHEMA_VERSION) /* named here: the copy's name means nothing */
		err = TD_FAIL(TD_ENOTSUP,
			      "ledger %s has schema version %d, newer than this tdaudit's version %d; "
			      "use a tdaudit at least as new as the one that wrote it",
			      src_path, ver, TD_LEDGER_SCHEMA_VERSION);
	if (!err && (fd = mkstemp(tmp)) >= 0)
		close(fd);
	else if (!err)
		err = TD_FAIL(TD_EIO, "cannot make a temporary copy of %s in %s: %s", src_path,
			      dir && *dir ? dir : "/tmp", strerror(errno));
	if (!err && sqlite3_open(tmp, &d) == SQLITE_OK && (b = sqlite3_backup_init(d, "main", s, "main"))) {
		if (sqlite3_backup_step(b, -1) != SQLITE_DONE)
			err = TD_FAIL(TD_EIO, "cannot copy the ledger %s: %s", src_path, sqlite3_errmsg(d));
		sqlite3_backup_finish(b);
	} else if (!err) {
		err = TD_FAIL(TD_EIO, "cannot copy the ledger %s: %s", src_path,
			      d ? sqlite3_errmsg(d) : "out of memory");
	}
	sqlite3_close(d);
	sqlite3_close(s);
	if (err && tmp[0] && strstr(tmp, "XXXXXX") == NULL)
		unlink(tmp);
	return err;
}

int td_ledger_merge(long *added, const char *dst_path, const char *src_path)
{
	td_ledger *src = NULL, *dst = NULL;
	char copy[4096] = "";
	int err;

	if (added)
		*added = 0;
	if (!dst_path || !src_path)
		return TD_FAIL(TD_EINVAL, "merge needs a destination and a source ledger path");
	if ((err = check_merge_paths(dst_path, src_path)) ||
	    (err = snapshot_source(copy, sizeof copy, src_path)))
		return err;
	if ((err = td_ledger_open(&src, copy, 0))) { /* refuses a newer one, migrates the copy */
		unlink(copy);
		return err;
	}
	td_ledger_free(src);
	if ((err = td_ledger_open(&dst, dst_path, TD_LEDGER_CREATE))) {
		unlink(copy);
		return err;
	}
	err = exec_bound(dst, "attaching the ledger to merge", "ATTACH DATABASE ?1 AS src", "t",
			 copy);
	if (!err) {
		err = merge_attached(added, dst);
		sqlite3_exec(dst->db, "DETACH DATABASE src", NULL, NULL, NULL);
	}
	td_ledger_free(dst);
	unlink(copy);
	return err;
}

/* --- mutation runs read back: shards and the kill matrix ------------------------- */

/* The latest mutation run (a run with a catalogue fingerprint or outcomes), as SQL. */
#define LATEST_MUTATION_RUN                                                                        \
	"SELECT id, head_commit, shard_k, shard_n, catalogue, kill_matrix, command, dirty, started" \
	" FROM runs"                                                                                \
	" WHERE (catalogue IS NOT NULL OR id IN (SELECT run FROM mutant_outcomes))"

/* Copies column i's text (or "" for NULL) into out[size]. */
static void column_copy(char *out, size_t size, sqlite3_stmt *st, int i)
{
	const unsigned char *s = sqlite3_column_text(st, i);

	snprintf(out, size, "%s", s ? (const char *)s : "");
}

/* Fills r from a row of LATEST_MUTATION_RUN. */
static void read_run(td_ledger_mutation_run *r, sqlite3_stmt *st)
{
	const unsigned char *matrix = sqlite3_column_text(st, 5);
	const unsigned char *command = sqlite3_column_text(st, 6);

	memset(r, 0, sizeof *r);
	r->found = 1;
	r->dirty = sqlite3_column_int(st, 7);
	column_copy(r->run, sizeof r->run, st, 0);
	column_copy(r->head_commit, sizeof r->head_commit, st, 1);
	r->shard_k = sqlite3_column_int(st, 2);
	r->shard_n = sqlite3_column_int(st, 3);
	column_copy(r->catalogue, sizeof r->catalogue, st, 4);
	column_copy(r->started, sizeof r->started, st, 8);
	if (matrix) /* a ledger older than version 4: --cold is only in the command line */
		r->full = !strcmp((const char *)matrix, "full");
	else
		r->full = command && strstr((const char *)command, " --cold") != NULL;
}

/* *out = the latest mutation run, sharded only when shard is 1; found 0 when none. */
static int latest_run(td_ledger_mutation_run *out, td_ledger *lg, int sharded)
{
	sqlite3_stmt *st;
	int rc, err = prepare(&st, lg, "reading the latest mutation run",
			      sharded ? LATEST_MUTATION_RUN " AND shard_n IS NOT NULL"
					" ORDER BY started DESC, id DESC LIMIT 1"
				      : LATEST_MUTATION_RUN " ORDER BY started DESC, id DESC LIMIT 1",
			      "");

	memset(out, 0, sizeof *out);
	if (err)
		return err;
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW)
		read_run(out, st);
	sqlite3_finalize(st);
	return rc == SQLITE_ROW || rc == SQLITE_DONE ? 0 : sql_fail(lg, rc, "reading the latest mutation run");
}

int td_ledger_latest_mutation_run(td_ledger_mutation_run *out, td_ledger *lg)
{
	return latest_run(out, lg, 0);
}

int td_ledger_survivors(td_ledger_mutation_run *out, char ***ids, td_ledger *lg)
{
	sqlite3_stmt *st;
	int rc, err = prepare(&st, lg, "reading the latest unsharded mutation run",
			      LATEST_MUTATION_RUN " AND shard_n IS NULL AND ended IS NOT NULL"
						  " ORDER BY started DESC, id DESC LIMIT 1", "");

	memset(out, 0, sizeof *out);
	*ids = NULL;
	if (err)
		return err;
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW)
		read_run(out, st);
	sqlite3_finalize(st);
	if (rc != SQLITE_ROW && rc != SQLITE_DONE)
		return sql_fail(lg, rc, "reading the latest unsharded mutation run");
	if (!out->found)
		return 0;
	err = prepare(&st, lg, "reading the survivors of a mutation run",
		      "SELECT mutant FROM mutant_outcomes WHERE run = ?1"
		      " AND outcome IN ('survived', 'no-coverage')"
		      " ORDER BY mutant", "t", out->run);
	while (!err && (rc = sqlite3_step(st)) == SQLITE_ROW)
		err = td_strv_push(ids, (const char *)sqlite3_column_text(st, 0));
	if (!err && rc != SQLITE_DONE)
		err = sql_fail(lg, rc, "reading the survivors of a mutation run");
	if (st)
		sqlite3_finalize(st);
	return err;
}

/* "shard 2/3 of commit 0123456789ab (catalogue 89abcdef01234567)" into buf. */
static const char *describe_shard(char *buf, size_t size, const td_ledger_mutation_run *r)
{
	snprintf(buf, size, "shard %d/%d of commit %.12s%s (catalogue %s)", r->shard_k, r->shard_n,
		 r->head_commit[0] ? r->head_commit : "(none)",
		 r->dirty ? " with uncommitted changes" : "", r->catalogue[0] ? r->catalogue : "(none)");
	return buf;
}

/*
 * Whether two shards belong to one sharded run: one commit, one catalogue,
 * one N, and both run on a clean tree or both not (a shard of the commit
 * and one of uncommitted changes to it tested different code).
 */
static int same_sharded_run(const td_ledger_mutation_run *a, const td_ledger_mutation_run *b)
{
	return a->shard_n == b->shard_n && !strcmp(a->head_commit, b->head_commit) &&
	       !strcmp(a->catalogue, b->catalogue) && a->dirty == b->dirty;
}

int td_ledger_check_shards(const char *const *paths, size_t n)
{
	td_ledger_mutation_run *runs = calloc(n ? n : 1, sizeof *runs);
	int err = runs ? 0 : TD_FAIL(TD_ENOMEM, "out of memory");
	long first = -1;

	for (size_t i = 0; !err && i < n; i++) {
		td_ledger *lg = NULL;
		char a[160], b[160], copy[4096] = "";

		/* a snapshot, as merge reads it: the source itself is never written */
		if ((err = snapshot_source(copy, sizeof copy, paths[i])) == 0) {
			if ((err = td_ledger_open(&lg, copy, 0)) == 0)
				err = latest_run(&runs[i], lg, 1);
			td_ledger_free(lg);
			unlink(copy);
		}
		if (err || !runs[i].found)
			continue;
		if (first < 0) {
			first = (long)i;
			continue;
		}
		if (!same_sharded_run(&runs[first], &runs[i]))
			err = TD_FAIL(TD_EINVAL, "%s holds %s but %s holds %s: they are shards of "
						 "different runs and cannot be merged as one",
				      paths[first], describe_shard(a, sizeof a, &runs[first]), paths[i],
				      describe_shard(b, sizeof b, &runs[i]));
		for (size_t j = (size_t)first; !err && j < i; j++)
			if (runs[j].found && runs[j].shard_k == runs[i].shard_k)
				err = TD_FAIL(TD_EINVAL, "%s and %s both hold %s; give each shard once",
					      paths[j], paths[i], describe_shard(a, sizeof a, &runs[i]));
	}
	free(runs);
	return err;
}

/* The ids of the runs that make up run r: r alone, or the latest run of each of its shards. */
static int group_runs(char ***ids, td_ledger *lg, const td_ledger_mutation_run *r)
{
	sqlite3_stmt *st;
	int *seen, rc = SQLITE_DONE, err;

	*ids = NULL;
	if (!r->shard_n)
		return td_strv_push(ids, r->run);
	if (!(seen = calloc((size_t)r->shard_n + 1, sizeof *seen)))
		return TD_FAIL(TD_ENOMEM, "out of memory");
	err = prepare(&st, lg, "reading the shards of the latest mutation run",
		      "SELECT id, shard_k FROM runs WHERE shard_n = ?1 AND catalogue IS ?2"
		      " AND COALESCE(head_commit, '') = ?3 ORDER BY started DESC, id DESC",
		      "itt", r->shard_n, r->catalogue[0] ? r->catalogue : NULL, r->head_commit);
	while (!err && (rc = sqlite3_step(st)) == SQLITE_ROW) {
		int k = sqlite3_column_int(st, 1);

		if (k < 1 || k > r->shard_n || seen[k]++)
			continue; /* an older run of a shard already taken */
		err = td_strv_push(ids, (const char *)sqlite3_column_text(st, 0));
	}
	if (!err && rc != SQLITE_DONE)
		err = sql_fail(lg, rc, "reading the shards of the latest mutation run");
	if (st)
		sqlite3_finalize(st);
	for (int k = 1; !err && k <= r->shard_n; k++)
		if (!seen[k])
			err = TD_FAIL(TD_ESTATE, "the latest mutation run (commit %.12s) was split into "
						 "%d shards and shard %d/%d is not in the ledger; merge it "
						 "first (tdaudit ledger merge)",
				      r->head_commit[0] ? r->head_commit : "(none)", r->shard_n, k, r->shard_n);
	free(seen);
	return err;
}

/* Appends one row of (mutant, file, function, outcome) to m. */
static int add_matrix_mutant(td_ledger_matrix *m, size_t *cap, sqlite3_stmt *st)
{
	td_ledger_matrix_mutant *x;
	int err = td_grow(&m->v, cap, m->n + 1, sizeof *m->v);

	if (err)
		return err;
	x = &m->v[m->n++];
	memset(x, 0, sizeof *x);
	if ((err = column_dup(&x->id, st, 0)) || (err = column_dup(&x->file, st, 1)) ||
	    (err = column_dup(&x->function, st, 2)) || (err = column_dup(&x->outcome, st, 3)))
		return err;
	return 0;
}

/* Runs a one-run query (?1 = run) and hands each row to fn. */
static int each_row(td_ledger *lg, const char *what, const char *sql, const char *run,
		    int (*fn)(td_ledger_matrix *, size_t *, sqlite3_stmt *), td_ledger_matrix *m,
		    size_t *cap)
{
	sqlite3_stmt *st;
	int rc = SQLITE_DONE, err = prepare(&st, lg, what, sql, "t", run);

	while (!err && (rc = sqlite3_step(st)) == SQLITE_ROW)
		err = fn(m, cap, st);
	if (!err && rc != SQLITE_DONE)
		err = sql_fail(lg, rc, what);
	if (st)
		sqlite3_finalize(st);
	return err;
}

static int by_mutant_id(const void *a, const void *b)
{
	return strcmp(((const td_ledger_matrix_mutant *)a)->id, ((const td_ledger_matrix_mutant *)b)->id);
}

static int by_string(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The mutant of m with id, by binary search (m->v sorted by id); NULL if absent. */
static td_ledger_matrix_mutant *matrix_find(td_ledger_matrix *m, const char *id)
{
	td_ledger_matrix_mutant key = {.id = (char *)id};

	return m->n ? bsearch(&key, m->v, m->n, sizeof *m->v, by_mutant_id) : NULL;
}

static int add_kill(td_ledger_matrix *m, size_t *cap, sqlite3_stmt *st)
{
	td_ledger_matrix_mutant *x = matrix_find(m, (const char *)sqlite3_column_text(st, 0));

	(void)cap;
	if (!x || td_strv_find(x->killers, (const char *)sqlite3_column_text(st, 1)) >= 0)
		return 0;
	return td_strv_push(&x->killers, (const char *)sqlite3_column_text(st, 1));
}

static int add_test(td_ledger_matrix *m, size_t *cap, sqlite3_stmt *st)
{
	(void)cap;
	if (td_strv_find(m->tests, (const char *)sqlite3_column_text(st, 0)) >= 0)
		return 0;
	return td_strv_push(&m->tests, (const char *)sqlite3_column_text(st, 0));
}

/* Reads the outcomes, then the kills and tests, of every run in ids into m. */
static int load_matrix(td_ledger_matrix *m, td_ledger *lg, char *const *ids)
{
	size_t cap = 0;
	int err = 0;

	for (size_t i = 0; !err && ids[i]; i++)
		err = each_row(lg, "reading mutant outcomes",
			       "SELECT o.mutant, m.file, m.function, o.outcome FROM mutant_outcomes o"
			       " JOIN mutants m ON m.id = o.mutant WHERE o.run = ?1",
			       ids[i], add_matrix_mutant, m, &cap);
	if (!err && m->n)
		qsort(m->v, m->n, sizeof *m->v, by_mutant_id);
	for (size_t i = 0; !err && ids[i]; i++)
		err = each_row(lg, "reading the kill matrix",
			       "SELECT mutant, test FROM kills WHERE run = ?1 ORDER BY mutant, test",
			       ids[i], add_kill, m, &cap);
	for (size_t i = 0; !err && ids[i]; i++)
		err = each_row(lg, "reading the run's tests", "SELECT test FROM run_tests WHERE run = ?1",
			       ids[i], add_test, m, &cap);
	for (size_t i = 0; !err && i < m->n; i++)
		if (m->v[i].killers)
			qsort(m->v[i].killers, td_strv_len(m->v[i].killers), sizeof(char *), by_string);
	if (!err && m->tests)
		qsort(m->tests, td_strv_len(m->tests), sizeof(char *), by_string);
	return err;
}

int td_ledger_matrix_load(td_ledger_matrix **out, td_ledger *lg)
{
	td_ledger_matrix *m = calloc(1, sizeof *m);
	char **ids = NULL;
	int err = m ? 0 : TD_FAIL(TD_ENOMEM, "out of memory");

	*out = NULL;
	if (!err)
		err = td_ledger_latest_mutation_run(&m->run, lg);
	if (!err && !m->run.found)
		err = TD_FAIL(TD_ESTATE, "ledger %s holds no mutation run; run tdaudit mutate first",
			      lg->path);
	if (!err)
		err = group_runs(&ids, lg, &m->run);
	if (!err)
		err = load_matrix(m, lg, ids);
	td_strv_free(ids);
	if (err)
		td_ledger_matrix_free(m);
	else
		*out = m;
	return err;
}

void td_ledger_matrix_free(td_ledger_matrix *m)
{
	if (!m)
		return;
	for (size_t i = 0; i < m->n; i++) {
		free(m->v[i].id), free(m->v[i].file), free(m->v[i].function), free(m->v[i].outcome);
		td_strv_free(m->v[i].killers);
	}
	free(m->v);
	td_strv_free(m->tests);
	free(m);
}

/* --- the latest results, for reports ------------------------------------------- */

/* Appends the outcome row st is on (the columns of OUTCOME_ROWS) to o. */
static int add_outcome(td_ledger_outcomes *o, size_t *cap, sqlite3_stmt *st)
{
	td_ledger_outcome_row *x;
	int err = td_grow(&o->v, cap, o->n + 1, sizeof *o->v);

	if (err)
		return err;
	x = &o->v[o->n++];
	memset(x, 0, sizeof *x);
	x->line = sqlite3_column_int(st, 4);
	x->finding = sqlite3_column_int(st, 5);
	x->duration_ms = (long)sqlite3_column_int64(st, 11);
	if ((err = column_dup(&x->id, st, 0)) || (err = column_dup(&x->catalogue, st, 1)) ||
	    (err = column_dup(&x->name, st, 2)) || (err = column_dup(&x->file, st, 3)) ||
	    (err = column_dup(&x->designed_against, st, 6)) || (err = column_dup(&x->why, st, 7)) ||
	    (err = column_dup(&x->function, st, 8)) || (err = column_dup(&x->outcome, st, 9)) ||
	    (err = column_dup(&x->killing_test, st, 10)))
		return err;
	return 0;
}

#define OUTCOME_ROWS                                                                               \
	"SELECT m.id, m.catalogue, m.name, m.file, m.line, COALESCE(m.finding, 0),"                \
	" m.designed_against, m.why, m.function, o.outcome, o.killing_test, o.duration_ms"         \
	" FROM mutant_outcomes o JOIN mutants m ON m.id = o.mutant WHERE o.run = ?1"

/* Reads the outcomes of every run in ids into o. */
static int load_outcomes(td_ledger_outcomes *o, td_ledger *lg, char *const *ids)
{
	size_t cap = 0;
	int err = 0;

	for (size_t i = 0; !err && ids && ids[i]; i++) {
		sqlite3_stmt *st;
		int rc = SQLITE_DONE;

		err = prepare(&st, lg, "reading mutant outcomes", OUTCOME_ROWS, "t", ids[i]);
		while (!err && (rc = sqlite3_step(st)) == SQLITE_ROW)
			err = add_outcome(o, &cap, st);
		if (!err && rc != SQLITE_DONE)
			err = sql_fail(lg, rc, "reading mutant outcomes");
		if (st)
			sqlite3_finalize(st);
	}
	return err;
}

static int by_outcome_id(const void *a, const void *b)
{
	return strcmp(((const td_ledger_outcome_row *)a)->id, ((const td_ledger_outcome_row *)b)->id);
}

int td_ledger_outcomes_load(td_ledger_outcomes **out, td_ledger *lg)
{
	td_ledger_outcomes *o = calloc(1, sizeof *o);
	char **ids = NULL;
	int err = o ? 0 : TD_FAIL(TD_ENOMEM, "out of memory reading mutant outcomes");

	*out = NULL;
	if (!err)
		err = td_ledger_latest_mutation_run(&o->run, lg);
	if (!err && o->run.found)
		err = group_runs(&ids, lg, &o->run);
	if (!err)
		err = load_outcomes(o, lg, ids);
	if (!err && o->n)
		qsort(o->v, o->n, sizeof *o->v, by_outcome_id);
	td_strv_free(ids);
	if (err)
		td_ledger_outcomes_free(o);
	else
		*out = o;
	return err;
}

void td_ledger_outcomes_free(td_ledger_outcomes *o)
{
	if (!o)
		return;
	for (size_t i = 0; i < o->n; i++) {
		td_ledger_outcome_row *x = &o->v[i];

		free(x->id), free(x->catalogue), free(x->name), free(x->file);
		free(x->designed_against), free(x->why), free(x->function), free(x->outcome);
		free(x->killing_test);
	}
	free(o->v);
	free(o);
}

/* Fills a's run, started and trainer from the latest audit run; a->run "" when none. */
static int latest_audit_run(td_ledger_audits *a, td_ledger *lg)
{
	sqlite3_stmt *st;
	int rc, err = prepare(&st, lg, "reading the latest audit run",
			      "SELECT r.id, r.started, a.trainer FROM audit_runs a JOIN runs r ON r.id = a.run"
			      " ORDER BY r.started DESC, r.id DESC LIMIT 1",
			      "");

	if (err)
		return err;
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW) {
		column_copy(a->run, sizeof a->run, st, 0);
		column_copy(a->started, sizeof a->started, st, 1);
		column_copy(a->trainer, sizeof a->trainer, st, 2);
	}
	sqlite3_finalize(st);
	return rc == SQLITE_ROW || rc == SQLITE_DONE ? 0 : sql_fail(lg, rc, "reading the latest audit run");
}

/* Appends the audit result row st is on to a. */
static int add_audit(td_ledger_audits *a, size_t *cap, sqlite3_stmt *st)
{
	td_ledger_audit_row *x;
	int err = td_grow(&a->v, cap, a->n + 1, sizeof *a->v);

	if (err)
		return err;
	x = &a->v[a->n++];
	memset(x, 0, sizeof *x);
	x->duration_ms = (long)sqlite3_column_int64(st, 5);
	if ((err = column_dup(&x->audit, st, 0)) || (err = column_dup(&x->status, st, 1)) ||
	    (err = column_dup(&x->class_, st, 2)) || (err = column_dup(&x->summary, st, 3)) ||
	    (err = column_dup(&x->reason, st, 4)))
		return err;
	return 0;
}

int td_ledger_audits_load(td_ledger_audits **out, td_ledger *lg)
{
	td_ledger_audits *a = calloc(1, sizeof *a);
	sqlite3_stmt *st = NULL;
	size_t cap = 0;
	int rc = SQLITE_DONE, err = a ? 0 : TD_FAIL(TD_ENOMEM, "out of memory reading audit results");

	*out = NULL;
	if (!err)
		err = latest_audit_run(a, lg);
	if (!err && a->run[0])
		err = prepare(&st, lg, "reading audit results",
			      "SELECT audit, status, class, summary, reason, duration_ms FROM audit_results"
			      " WHERE run = ?1 ORDER BY audit",
			      "t", a->run);
	while (!err && st && (rc = sqlite3_step(st)) == SQLITE_ROW)
		err = add_audit(a, &cap, st);
	if (!err && rc != SQLITE_DONE)
		err = sql_fail(lg, rc, "reading audit results");
	if (st)
		sqlite3_finalize(st);
	if (err)
		td_ledger_audits_free(a);
	else
		*out = a;
	return err;
}

void td_ledger_audits_free(td_ledger_audits *a)
{
	if (!a)
		return;
	for (size_t i = 0; i < a->n; i++) {
		td_ledger_audit_row *x = &a->v[i];

		free(x->audit), free(x->status), free(x->class_), free(x->summary), free(x->reason);
	}
	free(a->v);
	free(a);
}

/* --- reads ------------------------------------------------------------------------ */

static int load_finding(td_ledger_finding_row *f, sqlite3_stmt *st)
{
	int err;

	memset(f, 0, sizeof *f);
	f->number = sqlite3_column_int(st, 0);
	if ((err = column_dup(&f->title, st, 1)) || (err = column_dup(&f->where, st, 2)) ||
	    (err = column_dup(&f->severity, st, 3)) || (err = column_dup(&f->found_by, st, 4)) ||
	    (err = column_dup(&f->status, st, 5)) || (err = column_dup(&f->fix_commit, st, 6)))
		return err;
	return 0;
}

/* Appends every finding row to fs, by number. */
static int load_findings(td_ledger_findings *fs, td_ledger *lg)
{
	sqlite3_stmt *st;
	size_t cap = 0;
	int rc = SQLITE_DONE, err = prepare(&st, lg, "reading findings",
			      "SELECT number, title, location, severity, found_by, status, fix_commit"
			      " FROM findings ORDER BY number",
			      "");

	while (!err && (rc = sqlite3_step(st)) == SQLITE_ROW) {
		if ((err = td_grow(&fs->v, &cap, fs->n + 1, sizeof *fs->v)))
			break;
		err = load_finding(&fs->v[fs->n++], st);
	}
	if (!err && rc != SQLITE_DONE)
		err = sql_fail(lg, rc, "reading findings");
	sqlite3_finalize(st);
	return err;
}

static td_ledger_finding_row *find_row(td_ledger_findings *fs, int number)
{
	for (size_t i = 0; i < fs->n; i++)
		if (fs->v[i].number == number)
			return &fs->v[i];
	return NULL;
}

/* Appends the guard row st is on to finding f, whose guards have room for *cap. */
static int add_guard(td_ledger_finding_row *f, size_t *cap, sqlite3_stmt *st)
{
	int err;

	TD_REQUIRE(f != NULL); /* guards.finding is a foreign key of findings */
	if ((err = td_grow(&f->guards, cap, f->n_guards + 1, sizeof *f->guards)))
		return err;
	f->guards[f->n_guards] = (td_ledger_guard_row){NULL, NULL};
	err = column_dup(&f->guards[f->n_guards].test, st, 1);
	if (!err)
		err = column_dup(&f->guards[f->n_guards].role, st, 2);
	f->n_guards++;
	return err;
}

/* Attaches every guard row to its finding in fs, by test. */
static int load_guards(td_ledger_findings *fs, td_ledger *lg)
{
	sqlite3_stmt *st;
	int rc = SQLITE_DONE, err = prepare(&st, lg, "reading guards",
			      "SELECT finding, test, role FROM guards ORDER BY finding, test", "");

	td_ledger_finding_row *f = NULL;
	size_t cap = 0; /* of f->guards; rows come grouped by finding */

	while (!err && (rc = sqlite3_step(st)) == SQLITE_ROW) {
		if (!f || f->number != sqlite3_column_int(st, 0)) {
			f = find_row(fs, sqlite3_column_int(st, 0));
			cap = 0;
		}
		err = add_guard(f, &cap, st);
	}
	if (!err && rc != SQLITE_DONE)
		err = sql_fail(lg, rc, "reading guards");
	sqlite3_finalize(st);
	return err;
}

int td_ledger_findings_load(td_ledger_findings **out, td_ledger *lg)
{
	td_ledger_findings *fs = calloc(1, sizeof *fs);
	int err;

	*out = NULL;
	if (!fs)
		return TD_FAIL(TD_ENOMEM, "out of memory reading findings");
	err = load_findings(fs, lg);
	if (!err)
		err = load_guards(fs, lg);
	if (err)
		td_ledger_findings_free(fs);
	else
		*out = fs;
	return err;
}

void td_ledger_findings_free(td_ledger_findings *fs)
{
	if (!fs)
		return;
	for (size_t i = 0; i < fs->n; i++) {
		td_ledger_finding_row *f = &fs->v[i];

		free(f->title), free(f->where), free(f->severity);
		free(f->found_by), free(f->status), free(f->fix_commit);
		for (size_t j = 0; j < f->n_guards; j++)
			free(f->guards[j].test), free(f->guards[j].role);
		free(f->guards);
	}
	free(fs->v);
	free(fs);
}

int td_ledger_commits_match(const char *a, const char *b)
{
	size_t la, lb;

	if (!a || !b)
		return 0;
	la = strlen(a), lb = strlen(b);
	if ((la < lb ? la : lb) < 4)
		return 0;
	return strncasecmp(a, b, la < lb ? la : lb) == 0;
}

int td_ledger_guard_verified(int *out, td_ledger *lg, const char *fix_commit, const char *test)
{
	sqlite3_stmt *st;
	int rc = SQLITE_DONE, err = prepare(&st, lg, "reading reproductions",
			      "SELECT fix_commit FROM reproductions WHERE test = ?1 AND verdict = 'guard'",
			      "t", test);

	*out = 0;
	while (!err && !*out && (rc = sqlite3_step(st)) == SQLITE_ROW)
		*out = td_ledger_commits_match((const char *)sqlite3_column_text(st, 0), fix_commit);
	if (!err && !*out && rc != SQLITE_DONE)
		err = sql_fail(lg, rc, "reading reproductions");
	sqlite3_finalize(st);
	return err;
}

int td_ledger_guard_killed(int *out, td_ledger *lg, int finding, const char *test)
{
	sqlite3_stmt *st;
	int rc, err = prepare(&st, lg, "reading mutant outcomes",
			      "SELECT 1 FROM mutant_outcomes o JOIN mutants m ON m.id = o.mutant "
			      "WHERE m.finding = ?1 AND o.outcome = 'killed' AND o.killing_test = ?2 "
			      "LIMIT 1",
			      "it", finding, test);

	*out = 0;
	if (err)
		return err;
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW)
		*out = 1;
	else if (rc != SQLITE_DONE)
		err = sql_fail(lg, rc, "reading mutant outcomes");
	sqlite3_finalize(st);
	return err;
}

/* --- exports ------------------------------------------------------------------------- */

/* One table cell: '|' escaped as "\|", line breaks as spaces. */
static void md_cell(FILE *f, const char *s)
{
	fputc(' ', f);
	for (; *s; s++) {
		if (*s == '|')
			fputc('\\', f);
		fputc(*s == '\n' || *s == '\r' ? ' ' : *s, f);
	}
	fputs(" |", f);
}

/*
 * The audit results, after the findings: a second table, only when some
 * audit run is in the ledger (a ledger without any exports as before).
 */
static int md_audits(FILE *f, td_ledger *lg)
{
	sqlite3_stmt *st;
	int n = 0, rc = SQLITE_DONE,
	    err = prepare(&st, lg, "reading audit results",
			  "SELECT audit_results.run, runs.started, audit, audit_results.status, class,"
			  " summary, reason FROM audit_results JOIN runs ON runs.id = audit_results.run"
			  " ORDER BY runs.started, audit_results.run, audit", "");

	while (!err && (rc = sqlite3_step(st)) == SQLITE_ROW) {
		if (!n++)
			fputs("\n| Audit | Result | Class | Summary | Run |\n|---|---|---|---|---|\n", f);
		fputs("|", f);
		md_cell(f, (const char *)sqlite3_column_text(st, 2));
		md_cell(f, (const char *)sqlite3_column_text(st, 3));
		md_cell(f, (const char *)sqlite3_column_text(st, 4));
		md_cell(f, (const char *)sqlite3_column_text(st, 5));
		fprintf(f, " %.8s %s |\n", (const char *)sqlite3_column_text(st, 0),
			(const char *)sqlite3_column_text(st, 1));
	}
	if (!err && rc != SQLITE_DONE)
		err = sql_fail(lg, rc, "reading audit results");
	sqlite3_finalize(st);
	return err;
}

int td_ledger_export_md(FILE *f, td_ledger *lg)
{
	td_ledger_findings *fs;
	int err = td_ledger_findings_load(&fs, lg);

	if (err)
		return err;
	fputs("| # | Where | Severity | Found by | Status |\n|---|---|---|---|---|\n", f);
	for (size_t i = 0; i < fs->n; i++) {
		const td_ledger_finding_row *r = &fs->v[i];

		fprintf(f, "| %d |", r->number);
		md_cell(f, r->where);
		md_cell(f, r->severity);
		md_cell(f, r->found_by);
		if (r->fix_commit)
			fprintf(f, " %s, `%s` |\n", r->status, r->fix_commit);
		else
			fprintf(f, " %s |\n", r->status);
	}
	td_ledger_findings_free(fs);
	err = md_audits(f, lg);
	if (err)
		return err;
	return ferror(f) ? TD_FAIL(TD_EIO, "writing the markdown export failed") : 0;
}

static void json_finding(FILE *f, const td_ledger_finding_row *r)
{
	fprintf(f, "    {\"number\": %d, \"title\": ", r->number);
	td_json_fput_string(f, r->title);
	fputs(", \"where\": ", f);
	td_json_fput_string(f, r->where);
	fputs(", \"severity\": ", f);
	td_json_fput_string(f, r->severity);
	fputs(", \"found_by\": ", f);
	td_json_fput_string(f, r->found_by);
	fputs(", \"status\": ", f);
	td_json_fput_string(f, r->status);
	fputs(", \"fix_commit\": ", f);
	td_json_fput_string(f, r->fix_commit);
	fputs(", \"guards\": [", f);
	for (size_t j = 0; j < r->n_guards; j++) {
		fputs(j ? ", {\"test\": " : "{\"test\": ", f);
		td_json_fput_string(f, r->guards[j].test);
		fputs(", \"role\": ", f);
		td_json_fput_string(f, r->guards[j].role);
		fputc('}', f);
	}
	fputs("]}", f);
}

/* Columns 0 .. n-1 of st's row as strings (null for NULL) under keys. */
static void json_strings(FILE *f, sqlite3_stmt *st, const char *const *keys, int n)
{
	for (int i = 0; i < n; i++) {
		fprintf(f, "%s\"%s\": ", i ? ", " : "", keys[i]);
		td_json_fput_string(f, (const char *)sqlite3_column_text(st, i));
	}
}

static void json_reproduction(FILE *f, sqlite3_stmt *st)
{
	static const char *const keys[] = {"run", "fix_commit", "test", "before", "after", "verdict"};

	static const char *const more[] = {"variant", "build", "build_env", "fallback"};

	fputs("    {", f);
	json_strings(f, st, keys, 6);
	fprintf(f, ", \"stable_k\": %d, \"stable_n\": %d, \"at_head\": ", sqlite3_column_int(st, 6),
		sqlite3_column_int(st, 7));
	td_json_fput_string(f, (const char *)sqlite3_column_text(st, 8));
	for (int i = 0; i < 4; i++) {
		fprintf(f, ", \"%s\": ", more[i]);
		td_json_fput_string(f, (const char *)sqlite3_column_text(st, 9 + i));
	}
	fputc('}', f);
}

/* skipped is space-separated ids in the table, an array of them here. */
static void json_bisect(FILE *f, sqlite3_stmt *st)
{
	static const char *const keys[] = {"run", "command", "guard", "good", "bad", "found",
					   "direction"};
	const char *sk = (const char *)sqlite3_column_text(st, 7);
	int n = 0;

	fputs("    {", f);
	json_strings(f, st, keys, 7);
	fputs(", \"skipped\": [", f);
	for (const char *p = sk ? sk : ""; *p;) {
		size_t len = strcspn(p, " ");
		char id[64];

		if (len && len < sizeof id) {
			snprintf(id, sizeof id, "%.*s", (int)len, p);
			fputs(n++ ? ", " : "", f);
			td_json_fput_string(f, id);
		}
		p += len + (p[len] == ' ');
	}
	fprintf(f, "], \"builds\": %d", sqlite3_column_int(st, 8));
	for (int i = 0; i < 3; i++) {
		static const char *const more[] = {"variant", "build", "build_env"};

		fprintf(f, ", \"%s\": ", more[i]);
		td_json_fput_string(f, (const char *)sqlite3_column_text(st, 9 + i));
	}
	fputc('}', f);
}

/* evidence is a JSON array already (written by the harness): copied as it is. */
static void json_audit(FILE *f, sqlite3_stmt *st)
{
	static const char *const keys[] = {"run", "command", "audit", "status", "class", "summary",
					   "reason"};

	fputs("    {", f);
	json_strings(f, st, keys, 7);
	fprintf(f, ", \"evidence\": %s, \"duration_ms\": %lld}",
		(const char *)sqlite3_column_text(st, 7), (long long)sqlite3_column_int64(st, 8));
}

/* Every row of sql as one JSON object each (write), comma-separated. */
static int json_rows(FILE *f, td_ledger *lg, const char *what, const char *sql,
		     void (*write)(FILE *, sqlite3_stmt *))
{
	sqlite3_stmt *st;
	int n = 0, rc = SQLITE_DONE, err = prepare(&st, lg, what, sql, "");

	while (!err && (rc = sqlite3_step(st)) == SQLITE_ROW) {
		fputs(n++ ? ",\n" : "\n", f);
		write(f, st);
	}
	if (!err && rc != SQLITE_DONE)
		err = sql_fail(lg, rc, what);
	sqlite3_finalize(st);
	return err;
}

int td_ledger_export_json(FILE *f, td_ledger *lg)
{
	td_ledger_findings *fs;
	int ver, err;

	if ((err = query_int(&ver, lg, "PRAGMA user_version")) ||
	    (err = td_ledger_findings_load(&fs, lg)))
		return err;
	fprintf(f, "{\"format\": \"tdaudit-ledger\", \"version\": %d, \"schema\": %d,\n"
		   "  \"findings\": [",
		TD_LEDGER_JSON_VERSION, ver);
	for (size_t i = 0; i < fs->n; i++) {
		fputs(i ? ",\n" : "\n", f);
		json_finding(f, &fs->v[i]);
	}
	td_ledger_findings_free(fs);
	fputs("],\n  \"reproductions\": [", f);
	err = json_rows(f, lg, "reading reproductions",
			"SELECT run, fix_commit, test, outcome_before, outcome_after, verdict, stable_k,"
			" stable_n, at_head, variant, build, build_env, fallback FROM reproductions"
			" ORDER BY fix_commit, test, run, variant",
			json_reproduction);
	fputs("],\n  \"bisects\": [", f);
	if (!err)
		err = json_rows(f, lg, "reading bisects",
				"SELECT bisects.run, runs.command, guard_test, good, bad, found,"
				" direction, skipped,"
				" builds, bisects.variant, bisects.build, bisects.build_env"
				" FROM bisects JOIN runs ON runs.id = bisects.run"
				" ORDER BY runs.started, bisects.run, guard_test",
				json_bisect);
	fputs("],\n  \"audits\": [", f);
	if (!err)
		err = json_rows(f, lg, "reading audit results",
				"SELECT audit_results.run, runs.command, audit, audit_results.status, class,"
				" summary, reason, evidence, duration_ms FROM audit_results"
				" JOIN runs ON runs.id = audit_results.run"
				" ORDER BY runs.started, audit_results.run, audit",
				json_audit);
	fputs("]}\n", f);
	if (!err && ferror(f))
		err = TD_FAIL(TD_EIO, "writing the JSON export failed");
	return err;
}
