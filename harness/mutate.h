/*
 * mutate.h - tdaudit mutate: break the code on purpose, one mutant at a
 * time, in scratch copies, and check that the named guard tests notice.
 *
 * Outcomes (td_outcome_name gives the words used in every report):
 *   killed            a named guard failed
 *   killed-elsewhere  no guard failed, another test did: the catalogue
 *                     names the wrong guard
 *   survived          every test passed: a hole in the suite
 *   timeout           a test ran past its limit (the group was killed)
 *   build-failed      the mutant did not build: invalid, never a kill
 *   stale             the text to find is no longer in the file
 *   equivalent        declared to change nothing observable; not run
 *   not-rebuilt       the build wrote no file, so the tests ran the
 *                     unmutated code: the build misses a dependency;
 *                     never a kill, never a survivor
 *   no-coverage       (--schemata) no test reached its point with no
 *                     mutant on, so no test can notice it; judged without
 *                     running anything, counted as a survivor
 * Every completed run is written to the project's ledger as one
 * transaction (see ledger/ledger.h); a run that stops early writes nothing.
 * Exit status: 0 all caught (or, with survivors, nothing to run again), 1 a mutant survived, was stale, was killed
 * only elsewhere, was not rebuilt, was reached by no test, or is a catalogue entry that does not build (a generated
 * mutant that does not build is only counted), 2 usage or environment error
 * (red baseline included; with survivors, no previous run in the ledger).
 */
#ifndef TD_MUTATE_H
#define TD_MUTATE_H

#include <stddef.h>

enum td_outcome {
	TD_KILLED,
	TD_KILLED_ELSEWHERE,
	TD_SURVIVED,
	TD_TIMEOUT,
	TD_BUILD_FAILED,
	TD_STALE,
	TD_EQUIVALENT,
	TD_NOT_REBUILT,
	TD_NO_COVERAGE,
	TD_N_OUTCOMES
};

const char *td_outcome_name(enum td_outcome o);

/* Zero is every default: td_mutate_opts o = {0}, or {.jobs = 2, .list = 1}. */
typedef struct {
	int jobs;            /* scratch workers; 0: number of cores */
	char *const *catalogues; /* catalogue globs (relative to the root) used instead of
				    tdaudit.lua's catalogues { }; NULL: those */
	const char *const *only; /* fnmatch(3) patterns on mutant ids, any may match */
	size_t n_only;           /* how many; 0: every mutant */
	int list;            /* print the mutants with their ids; run nothing */
	double timeout;      /* seconds per test; 0: factor x baseline, with a floor */
	const char *json;    /* write the JSON report here (atomically) */
	const char *junit;   /* write a JUnit XML report here (atomically) */
	int color;           /* colour the outcome words */
	const char *command; /* the command line, recorded in the ledger; NULL: "tdaudit mutate" */
	const char *diff;    /* only mutants on lines changed since this revision; NULL: all */
	const char *rev;     /* mutate this committed revision, not the working tree; NULL: the tree */
	int cold;            /* the naive way, for benchmarks: a fresh copy and clean build per
				mutant, the whole suite without fail-fast */
	char *const *files;  /* only mutants of files matching one of these globs, NULL-ended
				(tdaudit.lua's globs, pathglob.h: '*' does not cross '/');
				NULL: all */
	const char *guard;   /* with list only: the entries naming a guard matching this
				shell pattern; NULL: all */
	int shard_k, shard_n; /* only shard K of N (1 <= K <= N) of the selected mutants, by
				 td_mutate_shard_of; shard_n 0: all */
	double fail_under;   /* exit 1 when the mutation score (td_report_score) is below this
				percentage; 0: no gate */
	const char *ledger;  /* record the run in this ledger instead of the one tdaudit.lua
				names (one per shard on one machine); NULL: that one */
	const char *variant; /* build every mutant with this variant of tdaudit.lua; NULL: the
				one chosen for the mutated commit (variant.h), else default */
	int survivors;       /* only the survivors of the previous run, read from the ledger
				(survivors.h) */
	int sanitize;        /* build with the variant "sanitize" (or variant) under the
				sanitizers' options (sanitize.h) */
	int schemata;        /* generated mutants of .c files judged in one schema build per
				file (schema.h), the rest built one by one */
	int keep_werror;     /* build mutants with the project's -Werror; 0: a shim per compiler
				on PATH appends -Wno-error */
	int run_unreached;   /* with schemata: run the suite for a mutant no test reached
				unmutated; 0: its outcome is no-coverage, nothing run */
} td_mutate_opts;

/*
 * The shard (1..n) mutant id belongs to: FNV-1a 64 of the id, mod n, plus
 * one. A function of the id alone, so shards partition any set of mutants,
 * and adding or removing a mutant moves no other.
 */
int td_mutate_shard_of(const char *id, int n);

/*
 * Runs the project at root (which has a tdaudit.lua). Never writes outside
 * root/.tdaudit/ and the report paths. Returns the exit status described
 * above; messages go to stderr, progress and summary to stdout.
 */
int td_mutate(const char *root, const td_mutate_opts *opts);

/*
 * The names of every test the project's runners list, read in an
 * up-to-date scratch tree (.tdaudit/work/0, synced and built as for a run).
 * Caller frees *names with td_strv_free.
 */
struct td_project_s;
int td_mutate_list_tests(char ***names, struct td_project_s *proj);

#endif
