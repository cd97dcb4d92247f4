/*
 * record.h - writing a harness run into the findings ledger.
 *
 * One function per kind of run; each opens the project's ledger (created
 * if missing), writes the whole run in one transaction and closes it, so a
 * crash at any point leaves either the whole run or none of it.
 */
#ifndef TD_RECORD_H
#define TD_RECORD_H

#include "catalogue.h"
#include "project.h"
#include "report.h"

/* The tool's version string, as the ledger records it. */
#define TD_TOOL_VERSION "tdaudit 0.1.0"

/* What a mutation run records beside its mutants. Plain data; zero: unsharded. */
typedef struct {
	int shard_k, shard_n;  /* --shard K/N; shard_n 0: unsharded */
	const char *catalogue; /* the fingerprint of the mutants selected before sharding */
	int full;              /* 1: --cold, every failing test is in the kill matrix */
	char *const *tests;    /* every test the run listed (NULL-terminated) */
} td_record_mutation_info;

/*
 * Records a finished mutation run: every mutant, its outcome, every test
 * recorded as failing for it (the kill matrix) and every test listed.
 * commit is the revision that was mutated (--rev), or NULL for the working
 * tree (HEAD and its dirty flag are recorded). status is the run's exit
 * status (0 -> "ok", 1 -> "findings", else "error").
 */
int td_record_mutation_run(const td_project *p, const char *command, const char *commit,
			   const td_mutants *m, const td_mutation_result *res, int status,
			   const td_record_mutation_info *x);

/* The ledger's path: p->ledger made absolute against p->root. */
void td_record_ledger_path(char *out, size_t size, const td_project *p);

/*
 * Whether a run's results could be recorded: the project's ledger opens
 * (created, or migrated forward, if needed) and can be written. The check
 * before a long run, so that nothing it finds is lost at the end.
 */
int td_record_check(const td_project *p);

#endif
