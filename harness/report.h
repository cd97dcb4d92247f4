/*
 * report.h - what a mutation run tells people and machines.
 *
 * Human output: a summary grouped by outcome (the generated mutants that
 * did not build also counted by operator and by file), the score of each
 * file below 100% when there are several files, each equivalent
 * mutant with its reason, then each survivor, stale and killed-elsewhere
 * mutant with its file, line, edit and why. Machine
 * output on request, each written atomically:
 *
 * JSON (--json FILE), schema "tdaudit.mutate/1":
 *   { "schema": "tdaudit.mutate/1",
 *     "summary": { "<outcome>": count, ... },      -- every outcome, 0 included
 *     "isolation": { "confinement": "landlock" | "none",
 *                    "unconfined_runs": N,         -- builds and tests run unconfined
 *                    "resynced_trees": N },        -- trees synced again after a mutant
 *     "build_failed_generated": {                  -- generated mutants that did not build
 *         "by_operator": { "<class>": N, ... },    -- by operator class, sorted
 *         "by_file": { "<file>": N, ... } },       -- by file, sorted
 *     "score_by_file": [ { "file", "killed", "judged",   -- every file with a mutant,
 *                          "score": percent | null } ],  -- worst first
 *     "mutants": [ { "id", "name", "catalogue", "where", "file", "line",
 *                    "operator", "find", "replace", "guards": [...],
 *                    "finding": N | null, "designed_against": s | null,
 *                    "why", "outcome", "killed_by": [...],
 *                    "equivalent": reason | null, "detail",
 *                    "seconds" }, ... ] }
 *   Fields are only ever added within a schema version.
 *
 * JUnit XML (--junit FILE): one <testcase> per mutant, classname = its
 * file, name = its id; survived, stale and killed-elsewhere are <failure>,
 * equivalent is <skipped>.
 */
#ifndef TD_REPORT_H
#define TD_REPORT_H

#include "catalogue.h"
#include "mutate.h"

typedef struct {
	int outcome;     /* enum td_outcome */
	int settled;     /* 1 once the outcome is known */
	char **killers;  /* tests that failed, the deciding one first (NULL-terminated) */
	char detail[160];/* exit status / signal / timeout of the first failure, or a reason */
	char tail[240];  /* the last lines the first failure printed (one line), or "" */
	char log[4500];  /* this mutant's log (its build's and tests' output), or "" */
	int exit_status; /* the deciding test's exit status, or -1 */
	int signal;      /* the signal that ended it, or 0 */
	double seconds;
} td_mutation_result;

/* The ANSI colour for an outcome (TD_N_OUTCOMES: reset), or "" when !color. */
const char *td_report_color(int color, int outcome);

/*
 * How many mutants were judged by the suite: killed, killed-elsewhere,
 * survived, no-coverage (a survivor no test reaches) and timeout; count is
 * indexed by enum td_outcome.
 */
size_t td_report_judged(const size_t count[TD_N_OUTCOMES]);

/*
 * The mutation score, in percent: killed / td_report_judged, count indexed
 * by enum td_outcome. A kill elsewhere
 * is not the named guard's catch, and a timeout is noticed by a clock, not
 * by an assertion, so neither counts as killed; build-failed, stale and
 * equivalent mutants judged nothing and are left out. Returns 0, or 1 (and
 * *score 0) when no mutant was judged: the score is then undefined.
 */
int td_report_score(double *score, const size_t count[TD_N_OUTCOMES]);

/*
 * Whether the score is below fail_under (a percentage; negative: no gate).
 * An undefined score is never below: a shard may hold no judged mutant.
 */
int td_report_below(const size_t count[TD_N_OUTCOMES], double fail_under);

/* One file's outcome counts (td_report_by_file). */
typedef struct {
	const char *file;               /* borrowed from the caller's array */
	size_t count[TD_N_OUTCOMES];
} td_report_file;

/*
 * Tallies n mutants' outcomes (outcomes[i], enum td_outcome, of a mutant
 * in files[i]) by file into *out (*n_out files; caller frees *out), worst
 * score first: a file whose score is undefined (nothing judged) last, ties
 * by name. Returns 0 or TD_ENOMEM.
 */
int td_report_by_file(td_report_file **out, size_t *n_out, const char *const *files,
		      const int *outcomes, size_t n);

/* How a run's builds and tests were kept from the user's files (mutate.c). */
typedef struct {
	int confined;           /* 1: Landlock confined their writes (confine.h) */
	size_t unconfined_runs; /* builds, listings and tests that ran unconfined */
	size_t resynced;        /* scratch trees synced again after a mutant changed them */
} td_report_isolation;

/*
 * Prints the summary (with the mutation score and, with iso, the run's
 * isolation) and writes the JSON and
 * JUnit reports where their paths are not NULL. Returns the run's exit
 * status: 0 all caught, 1 something survived, was stale or was killed only
 * elsewhere, or the score is below fail_under (negative: no gate), 2 when
 * a report could not be written.
 */
int td_report_all(const td_mutants *m, const td_mutation_result *res, const char *json,
		  const char *junit, int color, double fail_under, const td_report_isolation *iso);

/* The JSON report as a string (iso NULL: no "isolation"). Caller frees with free(). */
int td_report_json(char **out, const td_mutants *m, const td_mutation_result *res,
		   const td_report_isolation *iso);

/* The JUnit XML report as a string. Caller frees with free(). */
int td_report_junit(char **out, const td_mutants *m, const td_mutation_result *res);

#endif
