/*
 * catalogue.h - mutation catalogues: Lua files of mutant { ... } entries.
 *
 *   mutant {
 *     name = "plan-flip-per-layer",          -- unique; starts with the file's stem
 *     file = "core/plan.c",                  -- relative to the root
 *     find = "(i / n_axes) % 2 == 1",        -- exact text, must match once
 *     replace = "i % 2 == 1",
 *     occurrence = 2,                        -- optional: the k-th match
 *     guards = { "test_bidirectional_..." }, -- tests that must fail
 *     finding = 3,                           -- the DEBUG.md entry it re-introduces
 *     -- or: designed_against = "why the invariant exists",
 *     why = "what the mutant breaks, in a sentence",
 *     equivalent = "reason",                 -- optional: changes nothing observable
 *   }
 *
 * A missing or unknown field, a wrong type, finding and designed_against
 * both given or both missing, a duplicated name, or a name that does not
 * start with its file's stem and a '-' (the base name up to its first '.':
 * "plan-" for core/plan.c, "Makefile-" for Makefile) is refused with the
 * catalogue's file:line.
 *
 * Generated operator mutants (harness/gen.h) over files matching globs:
 *
 *   generate {
 *     files = { "core/plan.c" },             -- globs relative to the root
 *     operators = { "relational", "logical" }, -- default: every class
 *     guards = { "test_..." },               -- optional; without guards any
 *   }                                        -- failing test kills
 *
 * A generated mutant is declared equivalent by its id, with a reason:
 *
 *   equivalent { id = "core/plan.c:td_plan_cyclic:relational:<:2:<=",
 *                reason = "i < n and i <= n agree: i never reaches n here" }
 *
 * checked once every catalogue has run: an id no generated mutant has (a
 * stale declaration), a hand-written entry's id, or one declared twice is
 * refused with the declaration's file:line.
 *
 * Each generated mutant's id is the generator's stable id; it is located
 * by offset, and is stale when its token is no longer there. Mutants that
 * a `tdaudit: skip REASON` comment suppresses are counted by reason and
 * reported when the catalogue loads.
 */
#ifndef TD_CATALOGUE_H
#define TD_CATALOGUE_H

#include <stddef.h>

typedef struct {
	char *id;        /* stable id: the name for catalogue entries */
	char *name;
	char *catalogue; /* the catalogue file, relative to the root */
	char *where;     /* "catalogue:line" of the entry */
	char *file;      /* the file it edits, relative to the root */
	char *find, *replace;
	int occurrence;  /* 1-based; 0: find must match exactly once */
	char **guards;   /* NULL-terminated */
	int finding;     /* DEBUG.md finding number, or 0 */
	char *designed_against, *why, *equivalent; /* may be NULL */
	char *equivalent_where; /* a generated mutant's equivalent { }: its "catalogue:line"; else NULL */
	char *op;        /* "catalogue", or a generator's operator class */
	size_t offset;   /* where find starts in file: set by td_mutant_locate */
	int line;        /* 1-based line of offset */
	int generated;   /* 1: from generate{}, located by offset (already set), not by search */
	char *func;      /* a generated mutant's enclosing function; NULL for a catalogue entry */
} td_mutant;

typedef struct {
	td_mutant *v;
	size_t n, cap;
	size_t n_skipped; /* generated mutants suppressed by skip comments */
} td_mutants;

/*
 * Runs every catalogue matched by globs (relative to root, sorted) and
 * appends their entries to *out. Caller frees with td_mutants_free.
 */
int td_catalogue_load(td_mutants *out, const char *root, char *const *globs);

/*
 * td_catalogue_load, but the files the catalogues name (generate's globs
 * and what they read, a mutant's file) are those under src: mutate
 * --rev's tree of a revision.
 */
int td_catalogue_load_at(td_mutants *out, const char *root, const char *src, char *const *globs);

void td_mutants_free(td_mutants *m);

/* Frees what one entry owns (not the entry itself). */
void td_mutant_free(td_mutant *m);

enum { TD_LOCATE_OK = 0, TD_LOCATE_STALE = 1, TD_LOCATE_AMBIGUOUS = 2 };

/*
 * Finds m->find in text (len bytes) and sets m->offset and m->line.
 * Returns TD_LOCATE_OK, TD_LOCATE_STALE (no match, or fewer than
 * occurrence) or TD_LOCATE_AMBIGUOUS (several matches, no occurrence);
 * *count gets the number of matches.
 */
int td_mutant_locate(td_mutant *m, const char *text, size_t len, size_t *count);

/*
 * The mutated text: text with m->find at m->offset replaced by m->replace.
 * Caller frees *out with free().
 */
int td_mutant_apply(const td_mutant *m, const char *text, size_t len, char **out, size_t *out_len);

#endif
