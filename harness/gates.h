/*
 * gates.h - tdaudit gates: how strong each test is as a gate, read off the
 * kill matrix of the ledger's latest mutation run (a sharded run read as
 * one, see td_ledger_matrix_load).
 *
 * Over the mutants that were judged (killed, killed-elsewhere, survived,
 * timeout) and the kills recorded for them:
 *   load-bearing    a test that is the only recorded killer of some mutant
 *   killed nothing  a test the run listed that no kill names
 *   redundant       a test that killed something, where every mutant it
 *                   killed has another recorded killer
 *   no gate         a file, or a generated mutant's function, with judged
 *                   mutants that all survived
 * What the figures mean depends on the matrix: with --cold ("full") every
 * failing test of every mutant is recorded, and the lists are exact; in the
 * normal mode ("first-kill") a killed mutant records only the test that
 * killed it first (guards first, in order), so load-bearing and killed
 * nothing may name tests that a full run would not, while a redundant test
 * is still redundant (the lists are upper, upper and lower bounds).
 */
#ifndef TD_GATES_H
#define TD_GATES_H

#include <stddef.h>

#include "../ledger/ledger.h"
#include "mutate.h"

typedef struct {
	char *test;
	char **mutants; /* load-bearing: the mutants it alone kills; redundant: those it
			   kills; sorted (a td_strv) */
} td_gates_test;

typedef struct {
	char *file;
	char *function; /* NULL for a file */
	size_t mutants; /* how many judged mutants it holds, all survivors */
} td_gates_place;

typedef struct {
	td_ledger_mutation_run run; /* the latest mutation run (one of its shards) */
	size_t count[TD_N_OUTCOMES]; /* mutants per outcome, by enum td_outcome */
	size_t n_mutants;           /* mutants in the run, every outcome */
	size_t n_tests;             /* tests the run listed (0: not recorded) */
	int tests_known;            /* 0: the run predates the ledger's list of tests */
	td_gates_test *load_bearing;
	size_t n_load_bearing;
	char **killed_nothing; /* a td_strv, sorted; NULL: none (or not known) */
	td_gates_test *redundant;
	size_t n_redundant;
	td_gates_place *no_gate; /* files first, then functions, each sorted */
	size_t n_no_gate;
} td_gates;

/*
 * Computes the gates of the latest mutation run in the ledger at path.
 * Refused: a missing ledger (TD_EIO), one without a mutation run or
 * missing a shard of its latest (TD_ESTATE). Caller frees *out with
 * td_gates_free.
 */
int td_gates_compute(td_gates **out, const char *ledger_path);

/* The same from a matrix already loaded (borrowed; nothing of it is kept). */
int td_gates_from_matrix(td_gates **out, const td_ledger_matrix *m);

void td_gates_free(td_gates *g);

/* The table for people, to stdout. */
void td_gates_print(const td_gates *g);

/*
 * The JSON, schema "tdaudit.gates/1" (fields only ever added within it):
 *   {"schema": "tdaudit.gates/1", "run": id, "commit": s | null,
 *    "shards": N (0 unsharded), "kill_matrix": "first-kill" | "full",
 *    "score": percent | null, "summary": {"<outcome>": count, ...},
 *    "tests": n | null,
 *    "load_bearing": [{"test", "mutants": [ids]}...],
 *    "killed_nothing": [tests] | null,
 *    "redundant": [{"test", "mutants": [ids]}...],
 *    "no_gate": [{"file", "function": s | null, "mutants": n}...]}
 * Caller frees *out with free().
 */
int td_gates_json(char **out, const td_gates *g);

#endif
