/*
 * ledger.h - the findings ledger: one SQLite file recording runs, findings,
 * guards, reproductions, mutants, mutant outcomes and the kill matrix.
 *
 * The file (default .tdaudit/ledger.db) is opened in WAL mode with a busy
 * timeout of TD_LEDGER_BUSY_MS and foreign keys on. It carries a magic number
 * in PRAGMA application_id (TD_LEDGER_MAGIC, "TDLG") and its schema version in
 * PRAGMA user_version. Opening an older ledger migrates it forward, every
 * pending step in one transaction; a ledger written by a newer tdaudit is
 * refused, naming both versions, and is never touched.
 *
 * Runs. Every write belongs to a run. td_ledger_run_begin starts ONE
 * transaction (BEGIN IMMEDIATE) and inserts the run's row with status
 * 'running'; every td_ledger_put_* writes inside it; td_ledger_run_finish sets
 * the end time and final status and commits. A process that dies mid-run,
 * or calls td_ledger_free or td_ledger_run_abandon before finishing, leaves
 * NO TRACE of that run: SQLite rolls the transaction back, so no other
 * reader ever sees a 'running' row or any of the run's rows. The price is
 * that a run holds the write lock while it lasts: shards write their own
 * ledgers and td_ledger_merge combines them.
 *
 * All SQL with data in it is parameterised (sqlite3_bind_*); the only SQL text
 * is constant. Enumerated columns are enforced by CHECK constraints, so a bad
 * value is refused with TD_EINVAL naming it.
 *
 * Schema (version 8; version 1 lacked reproductions.at_head and bisects,
 * version 2 the audit tables, version 3 the shard, catalogue and
 * kill_matrix columns of runs, mutants.function and run_tests, and each is
 * migrated forward by adding them; version 4 did not admit the outcome
 * not-rebuilt, and its mutant_outcomes is made again with its rows;
 * version 5 lacked mutant_outcomes.log, version 6 the variant columns,
 * version 7 did not admit the outcome no-coverage); "commit" and "where" are SQL
 * keywords, so the columns
 * are named head_commit, fix_commit and location:
 *   runs(id, command, started, ended, head_commit, dirty, tool_version, status,
 *       shard_k, shard_n, catalogue, kill_matrix)
 *       id is a random UUID (v4) made at run start; times are UTC ISO 8601;
 *       status: running | ok | findings | error; for mutation runs: shard_k of
 *       shard_n (NULL unsharded), catalogue the fingerprint of the selected
 *       mutants, kill_matrix first-kill | full (NULL for other runs)
 *   run_tests(run, test)          every test a mutation run listed
 *   findings(number, title, location, severity, found_by, status, fix_commit)
 *   guards(finding, test, role)   role: guard | pin | broken | unverified
 *   reproductions(run, fix_commit, test, outcome_before, outcome_after,
 *       verdict, stable_k, stable_n, at_head)
 *       outcomes: pass | fail | no-build | timeout | mixed
 *       verdict: guard | pin | broken | no-build | flaky
 *       at_head: NULL for a reproduction against the fix's parent; for
 *       `reproduce --at-head`, the HEAD commit the fix was reverted on
 *       (before = HEAD without the fix, after = HEAD)
 *   bisects(run, guard_test, good, bad, found, direction, skipped, builds)
 *       one per bisect run; good and bad are the ends' full ids; found is
 *       the first commit where the outcome flips, NULL when commits that
 *       do not build hide which it is; direction: fix | regression;
 *       skipped: the commits that did not build, full ids oldest first,
 *       space-separated ("" for none); builds: how many builds it took
 *   mutants(id, catalogue, name, file, line, finding, designed_against, why,
 *       function)  function: a generated mutant's enclosing function, else NULL
 *       finding is deliberately not a foreign key: `ledger check` reports a
 *       catalogue entry naming a finding that does not exist
 *   mutant_outcomes(run, mutant, outcome, killing_test, exit_status, signal,
 *       duration_ms, log)
 *       outcome: killed | killed-elsewhere | survived | timeout | build-failed | stale | equivalent | not-rebuilt | no-coverage
 *   kills(run, mutant, test)      the kill matrix
 *   audit_runs(run, trainer, config, audits, passed, failed, skipped)
 *       one per `tdaudit audit` run: the trainer block's tdaudit.lua:LINE
 *       (NULL without one), its config file, how many audits ran and how
 *       many passed, failed and skipped (the rest errored)
 *   audit_results(run, audit, status, class, summary, reason, evidence,
 *       duration_ms)
 *       status: pass | fail | skip | error; class: LOUD | COUNTED | SILENT | -
 *       evidence: a JSON array of strings (commands with exit statuses and
 *       hashes, then the script's own lines)
 *
 * Never: build SQL from data; commit part of a run; write a ledger whose
 * schema is newer than this code's.
 */
#ifndef TD_LEDGER_H
#define TD_LEDGER_H

#include <stdio.h>

#define TD_LEDGER_SCHEMA_VERSION 8
#define TD_LEDGER_MAGIC 0x54444C47 /* "TDLG" in PRAGMA application_id */
#define TD_LEDGER_BUSY_MS 5000     /* how long a write waits for another writer */
#define TD_LEDGER_RUN_ID_LEN 36    /* xxxxxxxx-xxxx-4xxx-yxxx-xxxxxxxxxxxx */

typedef struct td_ledger td_ledger;

enum {
	TD_LEDGER_CREATE = 1, /* create the file (and its parent directories) if missing */
};

/*
 * Opens the ledger at path and brings its schema up to
 * TD_LEDGER_SCHEMA_VERSION. With TD_LEDGER_CREATE a missing file is created,
 * parent directories included; without it a missing file is TD_EIO.
 * Refused: a file that is not a tdaudit ledger (TD_EINVAL), a ledger whose
 * user_version is newer than this code's (TD_ENOTSUP, naming both versions).
 * Caller frees *out with td_ledger_free.
 */
int td_ledger_open(td_ledger **out, const char *path, unsigned flags);

/* Closes lg, first rolling back a run that was not finished; accepts NULL. */
void td_ledger_free(td_ledger *lg);

/* --- runs ---------------------------------------------------------------- */

/* Plain data, zero when unknown: td_ledger_run_info info = {.command = ...}. */
typedef struct {
	const char *command;      /* the command line as one string, e.g. "tdaudit mutate -j 4" */
	const char *head_commit;  /* HEAD's commit id, or NULL outside git */
	int dirty;                /* 1 when the working tree had uncommitted changes */
	const char *tool_version; /* tdaudit's version string */
	int shard_k, shard_n;     /* mutate --shard K/N (1 <= K <= N); shard_n 0: unsharded */
	const char *catalogue;    /* mutate: the fingerprint of the mutants selected before
				     sharding (16 hex digits); NULL for other runs */
	const char *kill_matrix;  /* mutate: "first-kill" or "full" (--cold); NULL otherwise */
	const char *variant;      /* the build variant the run used (mutate, bisect); NULL: none
				     recorded for the run (reproduce records it per row) */
	const char *build;        /* that variant's build argv as one line; NULL with variant */
	const char *build_env;    /* its environment, "A=1 B=2" ("" none); NULL with variant */
} td_ledger_run_info;

/*
 * Begins a run: opens the run's transaction and inserts its row (status
 * 'running', a fresh UUID, the start time). TD_ESTATE if a run is already
 * open on lg; TD_EIO if another process holds the write lock for longer
 * than TD_LEDGER_BUSY_MS.
 */
int td_ledger_run_begin(td_ledger *lg, const td_ledger_run_info *info);

/* The open run's id, or NULL when none is open. Borrowed: valid until the run ends. */
const char *td_ledger_run_id(const td_ledger *lg);

/*
 * Finishes the open run with status "ok" (nothing found), "findings" (it
 * completed and found something) or "error" (it could not complete), sets its
 * end time and commits everything it wrote. TD_ESTATE without an open run;
 * TD_EINVAL for another status (the run stays open).
 */
int td_ledger_run_finish(td_ledger *lg, const char *status);

/* Rolls the open run back: none of it is kept. TD_ESTATE without an open run. */
int td_ledger_run_abandon(td_ledger *lg);

/* --- writes; each needs an open run (TD_ESTATE otherwise) ---------------- */

typedef struct {
	int number;             /* the DEBUG.md number, >= 1 */
	const char *title;      /* the section heading's title */
	const char *where;      /* the summary table's Where cell, verbatim */
	const char *severity;   /* high | medium | low ..., verbatim */
	const char *found_by;   /* verbatim */
	const char *status;     /* "fixed", "open", "never shipped" ...: the words before the comma */
	const char *fix_commit; /* the commit after the comma, or NULL */
} td_ledger_finding;

/* Inserts finding f, or replaces every field of the finding with its number. */
int td_ledger_put_finding(td_ledger *lg, const td_ledger_finding *f);

/*
 * Records test as a guard of finding with role "guard", "pin", "broken" or
 * "unverified", replacing the role of an existing (finding, test) row.
 * TD_EINVAL if the finding is not in the ledger or role is not one of those.
 */
int td_ledger_put_guard(td_ledger *lg, int finding, const char *test, const char *role);

typedef struct {
	const char *fix_commit;     /* the commit reproduced */
	const char *test;           /* the test run before and after it */
	const char *before, *after; /* pass | fail | no-build | timeout | mixed */
	const char *verdict;        /* guard | pin | broken | no-build | flaky */
	int stable_k, stable_n;     /* k of n repeated runs agreed with the verdict */
	const char *variant;        /* the build variant; NULL: "default" */
	const char *build;          /* its build argv as one line, or NULL */
	const char *build_env;      /* its environment, "A=1 B=2" ("" none), or NULL */
	const char *fallback;       /* "before=NAME", "after=NAME" ...: states built with the
				       variant's fallback; NULL: none */
} td_ledger_reproduction;

/* Records a reproduction in the open run, replacing one for the same commit and test. */
int td_ledger_put_reproduction(td_ledger *lg, const td_ledger_reproduction *r);

/*
 * The same for a reproduction of `reproduce --at-head`: at_head is the
 * HEAD commit the fix was reverted on (NULL: an ordinary reproduction).
 */
int td_ledger_put_reproduction_at(td_ledger *lg, const td_ledger_reproduction *r,
				  const char *at_head);

typedef struct {
	const char *guard;     /* the test bisected */
	const char *good;      /* the old end, full id */
	const char *bad;       /* the new end, full id */
	const char *found;     /* the first commit where it flips; NULL: ambiguous */
	const char *direction; /* "fix" or "regression" */
	char *const *skipped;  /* commits that did not build, oldest first, NULL-terminated; NULL: none */
	int builds;            /* builds the search took, >= 1 */
	const char *variant;   /* the variants the commits were built with ("default", or
				  "default,old-gcc" when chosen per commit), or NULL */
	const char *build, *build_env; /* the build argv and environment, one variant only; or NULL */
} td_ledger_bisect;

/* Records the open run's bisect result (one per run and guard). TD_EINVAL for a bad direction. */
int td_ledger_put_bisect(td_ledger *lg, const td_ledger_bisect *b);

typedef struct {
	const char *id;               /* stable id, chosen by the catalogue loader */
	const char *catalogue, *name; /* which catalogue, which entry */
	const char *file;             /* the file it edits */
	int line;                     /* the line it edits (1-based) */
	int finding;                  /* the finding it re-introduces, or 0 */
	const char *designed_against; /* or the bug class it is designed against; NULL if finding */
	const char *why;
	const char *function;         /* the enclosing function (generated mutants), or NULL */
} td_ledger_mutant;

/* Inserts mutant m, or replaces every field of the mutant with its id. */
int td_ledger_put_mutant(td_ledger *lg, const td_ledger_mutant *m);

typedef struct {
	const char *mutant;       /* a mutant id already put */
	const char *outcome;      /* killed | killed-elsewhere | survived | timeout | build-failed | stale | equivalent | not-rebuilt | no-coverage */
	const char *killing_test; /* the first test that failed, or NULL */
	int exit_status;          /* the killing test's exit status, or -1 */
	int signal;               /* the signal that ended it, or 0 */
	long duration_ms;
	const char *log;          /* the mutant's log file, or NULL */
} td_ledger_outcome;

/* Records mutant o->mutant's outcome in the open run (one per mutant per run). */
int td_ledger_put_outcome(td_ledger *lg, const td_ledger_outcome *o);

/* Records that test killed mutant in the open run (the kill matrix); needs its outcome first. */
int td_ledger_put_kill(td_ledger *lg, const char *mutant, const char *test);

/* Records that the open (mutation) run listed test: the suite the kill matrix is over. */
int td_ledger_put_run_test(td_ledger *lg, const char *test);

/* One `tdaudit audit` run's summary (needs an open run). */
typedef struct {
	const char *trainer; /* "tdaudit.lua:LINE" of the trainer block, or NULL */
	const char *config;  /* the trainer's config file, or NULL */
	int audits, passed, failed, skipped;
} td_ledger_audit_run;
int td_ledger_put_audit_run(td_ledger *lg, const td_ledger_audit_run *a);

typedef struct {
	const char *audit;    /* the audit's name */
	const char *status;   /* pass | fail | skip | error */
	const char *class_;   /* LOUD | COUNTED | SILENT | - */
	const char *summary;  /* one line */
	const char *reason;   /* NULL for a pass */
	const char *evidence; /* a JSON array of strings */
	long duration_ms;
} td_ledger_audit_result;
/* Records one audit's result in the open run; the audit run's row must come first. */
int td_ledger_put_audit_result(td_ledger *lg, const td_ledger_audit_result *r);

/*
 * Whether a run could be written to lg: takes the write lock and lets it
 * go (BEGIN IMMEDIATE, ROLLBACK). TD_EIO naming the ledger when it is
 * read-only or cannot be locked; the check before a long run, so that its
 * results are not lost at the end.
 */
int td_ledger_check_writable(td_ledger *lg);

/* --- merge ------------------------------------------------------------------ */

/*
 * Merges the ledger at src_path into the one at dst_path (created if
 * missing), in one transaction on dst. Rows are matched by their natural
 * keys (a run's UUID, a finding's number, a mutant's id, (finding, test),
 * (run, commit, test), (run, mutant), (run, mutant, test), (run, test)); where dst
 * already has a row with the key, dst's row is kept. So merging the same
 * ledger twice adds nothing. src must exist; it is migrated forward first if
 * older. *added (may be NULL) gets the number of rows added to dst.
 * Refused: src and dst being the same file, and as td_ledger_open.
 */
int td_ledger_merge(long *added, const char *dst_path, const char *src_path);

/* --- mutation runs: shards and the kill matrix ------------------------------ */

/* A mutation run's row, as the readers below need it. Plain data. */
typedef struct {
	int found;              /* 0: the ledger holds no such run (the rest is zero) */
	char run[TD_LEDGER_RUN_ID_LEN + 1];
	char head_commit[64];   /* "" when the run recorded none */
	int shard_k, shard_n;   /* shard_n 0: unsharded */
	char catalogue[32];     /* the fingerprint of the selected mutants; "" before version 4 */
	int full;               /* 1: the kill matrix is full (--cold); 0: first-kill */
	int dirty;              /* 1: run on a working tree with uncommitted changes */
	char started[40];       /* its start, UTC ISO 8601 */
} td_ledger_mutation_run;

/* *out = the latest mutation run (by start time); out->found 0 when there is none. */
int td_ledger_latest_mutation_run(td_ledger_mutation_run *out, td_ledger *lg);

/*
 * The latest finished unsharded mutation run (by start time; out->found 0
 * when there is none) and the ids of the mutants that survived it, sorted
 * (*ids: a td_strv, NULL when none survived; caller frees with
 * td_strv_free). What `tdaudit mutate --survivors` runs again.
 */
int td_ledger_survivors(td_ledger_mutation_run *out, char ***ids, td_ledger *lg);

/*
 * Refuses (TD_EINVAL) ledgers that cannot be merged as the shards of one
 * run: the latest sharded mutation run of each ledger at paths (those with
 * none are skipped) must have the same commit, catalogue fingerprint and
 * shard count, and no shard may come twice. The message names both
 * ledgers and both shards. Opens each ledger read-only in effect (an older
 * one is migrated forward, as td_ledger_merge would).
 */
int td_ledger_check_shards(const char *const *paths, size_t n);

typedef struct {
	char *id, *file;
	char *function; /* NULL when unknown (a catalogue entry) */
	char *outcome;  /* as mutant_outcomes.outcome */
	char **killers; /* the tests recorded as killing it, sorted (a td_strv; NULL: none) */
} td_ledger_matrix_mutant;

typedef struct {
	td_ledger_mutation_run run;  /* the latest mutation run (for a sharded run: one shard) */
	char **tests;                /* every test the run listed, sorted (td_strv); NULL
					for runs recorded before version 4 */
	size_t n;
	td_ledger_matrix_mutant *v;  /* by id */
} td_ledger_matrix;

/*
 * The kill matrix of the latest mutation run. A sharded run is read as one:
 * the latest run of each of its shards (same commit, catalogue and shard
 * count), and a missing shard is refused (TD_ESTATE, naming it), since the
 * matrix would silently lack its mutants. TD_ESTATE too when the ledger
 * holds no mutation run. Caller frees *out with td_ledger_matrix_free.
 */
int td_ledger_matrix_load(td_ledger_matrix **out, td_ledger *lg);
void td_ledger_matrix_free(td_ledger_matrix *m);

/* --- the latest results, for reports (SARIF, JUnit, HTML) ------------------ */

/* One mutant of a mutation run with its outcome. Plain data, owned by td_ledger_outcomes. */
typedef struct {
	char *id, *catalogue, *name; /* the stable id; which catalogue, which entry */
	char *file;                  /* the file it edits, relative to the repository root */
	int line;                    /* the line it edits (1-based) */
	int finding;                 /* the finding it re-introduces, or 0 */
	char *designed_against;      /* or the bug class; NULL when finding */
	char *why;
	char *function;              /* a generated mutant's enclosing function; NULL: a catalogue entry */
	char *outcome;               /* as mutant_outcomes.outcome */
	char *killing_test;          /* NULL when no test failed */
	long duration_ms;
} td_ledger_outcome_row;

typedef struct {
	td_ledger_mutation_run run;  /* the latest mutation run; run.found 0 when there is none */
	size_t n;
	td_ledger_outcome_row *v;    /* by id */
} td_ledger_outcomes;

/*
 * Every mutant of the latest mutation run with its outcome, by id. A
 * sharded run is read as one, as td_ledger_matrix_load reads it (a missing
 * shard is refused, TD_ESTATE, naming it). A ledger without a mutation run
 * gives run.found 0 and no rows: not an error. Caller frees *out with
 * td_ledger_outcomes_free.
 */
int td_ledger_outcomes_load(td_ledger_outcomes **out, td_ledger *lg);
void td_ledger_outcomes_free(td_ledger_outcomes *o);

/* One audit's result. Plain data, owned by td_ledger_audits. */
typedef struct {
	char *audit;    /* the script's stem */
	char *status;   /* pass | fail | skip | error */
	char *class_;   /* LOUD | COUNTED | SILENT | - */
	char *summary;  /* one line */
	char *reason;   /* NULL when none */
	long duration_ms;
} td_ledger_audit_row;

typedef struct {
	char run[TD_LEDGER_RUN_ID_LEN + 1]; /* the latest audit run; "" when there is none */
	char started[40];                   /* its start, UTC ISO 8601 */
	char trainer[256];                  /* its trainer block's tdaudit.lua:LINE, "" without one */
	size_t n;
	td_ledger_audit_row *v;             /* by audit */
} td_ledger_audits;

/*
 * The results of the latest `tdaudit audit` run (by start time), by audit
 * name; none (run "") when the ledger holds no audit run. Caller frees
 * *out with td_ledger_audits_free.
 */
int td_ledger_audits_load(td_ledger_audits **out, td_ledger *lg);
void td_ledger_audits_free(td_ledger_audits *a);

/* --- reads ------------------------------------------------------------------ */

typedef struct {
	char *test;
	char *role;
} td_ledger_guard_row;

typedef struct {
	int number;
	char *title, *where, *severity, *found_by, *status;
	char *fix_commit; /* NULL when none */
	size_t n_guards;
	td_ledger_guard_row *guards; /* sorted by test */
} td_ledger_finding_row;

typedef struct {
	size_t n;
	td_ledger_finding_row *v; /* sorted by number */
} td_ledger_findings;

/* Every finding with its guards. Caller frees *out with td_ledger_findings_free. */
int td_ledger_findings_load(td_ledger_findings **out, td_ledger *lg);

void td_ledger_findings_free(td_ledger_findings *fs);

/*
 * Whether commits a and b name the same commit: the shorter (at least 4
 * characters) is a prefix of the longer, ignoring case. DEBUG.md cites short
 * ids; the harness records full ones.
 */
int td_ledger_commits_match(const char *a, const char *b);

/*
 * *out = 1 when some run recorded a reproduction of fix_commit (matched as
 * td_ledger_commits_match) with verdict "guard" for test, else 0.
 */
int td_ledger_guard_verified(int *out, td_ledger *lg, const char *fix_commit, const char *test);

/*
 * *out = 1 when some run recorded a mutant whose catalogue entry names
 * finding (finding = N) as killed by test, else 0. This is the evidence for
 * a guard whose fix changed only tests (nothing for reproduce to revert):
 * the mutant re-introduces the bug, and the guard catches it.
 */
int td_ledger_guard_killed(int *out, td_ledger *lg, int finding, const char *test);

/* --- exports ------------------------------------------------------------------ */

/*
 * Writes the DEBUG.md summary table, sorted by number:
 *     | # | Where | Severity | Found by | Status |
 *     |---|---|---|---|---|
 *     | 1 | `plan.c` — ... | high | mutation | fixed, `7c3f812` |
 * A '|' inside a cell is written as "\|". The output parses back with
 * td_debugmd_parse to the same fields. TD_EIO if writing to f fails.
 */
int td_ledger_export_md(FILE *f, td_ledger *lg);

/*
 * Writes findings, guards, reproductions and bisects as JSON (UTF-8, keys
 * in this order, arrays sorted as stated; a column that is NULL is null):
 *   {"format": "tdaudit-ledger", "version": 2, "schema": <user_version>,
 *    "findings": [ {"number", "title", "where", "severity", "found_by",
 *                   "status", "fix_commit",
 *                   "guards": [ {"test", "role"} ... by test ] } ... by number ],
 *    "reproductions": [ {"run", "fix_commit", "test", "before", "after",
 *                        "verdict", "stable_k", "stable_n", "at_head", "variant",
 *                        "build", "build_env", "fallback"} ...
 *                       by fix_commit, test, run, variant ],
 *    "bisects": [ {"run", "command", "guard", "good", "bad", "found", "direction",
 *                  "skipped": [ids, oldest first], "builds", "variant", "build",
 *                  "build_env"} ... by run start ],
 *    "audits": [ {"run", "command", "audit", "status", "class", "summary",
 *                 "reason", "evidence": [lines], "duration_ms"} ... by run start, audit ] }
 * at_head is null for a reproduction against the fix's parent, else the
 * HEAD it was judged on (reproduce --at-head); found is null when skipped
 * commits hide it; command is the run's command line (--tests-at changes
 * what is found). "version" is this export format's version
 * (TD_LEDGER_JSON_VERSION): a consumer must refuse a version it does not
 * know. Version 1 had no at_head and no bisects, so an at-head verdict
 * read as one about the fix itself; version 2 had no audits; version 3
 * had no variants, so a fix and test had at most one row per run.
 * The markdown export adds, after the findings and only when the ledger
 * holds audit results, a second table: | Audit | Result | Class | Summary | Run |.
 */
#define TD_LEDGER_JSON_VERSION 4
int td_ledger_export_json(FILE *f, td_ledger *lg);

#endif
