/*
 * schema.h - mutant schemata: many generated mutants of one C file in one
 * build, each chosen at run time.
 *
 * td_schema_write() rewrites a C file so that each of the given mutation
 * points (generated mutants, gen.h) becomes a run-time choice: the
 * mutated code when the process's mutant number is that point's, else the
 * original. The number is read once, before main(), from the environment
 * variable TDAUDIT_MUTANT (decimal; unset or 0: no mutant, the original
 * behaviour). One build of the rewritten file then serves every mutant in
 * it. The rewritten forms, with N the point's number and X' the original
 * text with the points inside it rewritten in turn:
 *
 *   binary operator   L op R    -> (td_schema_on_ == N ? L new R : (HIT, L' op R'))
 *   integer literal   0         -> (td_schema_on_ == N ? 1 : (HIT, 0))
 *   negated condition if (c)    -> if ((td_schema_on_ == N ? !(c) : (HIT, (c'))))
 *   removed call      f(x);     -> { if (td_schema_on_ != N) { HIT; f(x'); } }
 *
 * where HIT records, the first time the point is reached in the process,
 * its number in the coverage file (TD_SCHEMA_COVERAGE_ENV).
 *
 * The mutated branch holds the original tokens of the expression, one
 * space apart, so that only one mutant is ever on and no line is added:
 * line numbers (__LINE__, diagnostics) are those of the original, after a
 * prologue of a few lines closed by `#line 1`.
 *
 * The operands of a binary operator are found from its precedence on the
 * tokens alone. Where that reading could be wrong (a parenthesised name
 * before a `-`, which may be a cast), or where a rewrite cannot work (a
 * macro body, a case label, a static or _Static_assert line, an operand
 * holding a brace or a directive, an expression that overlaps another
 * point's without nesting), the point is left out of the schema with its
 * reason, for a build of its own. Code the compiler requires to be a
 * constant expression elsewhere (an array size, a static initialiser not
 * caught above) makes the schema fail to build: the caller splits it.
 */
#ifndef TD_SCHEMA_H
#define TD_SCHEMA_H

#include <stddef.h>

/* The environment variable a schema build reads its mutant number from. */
#define TD_SCHEMA_ENV "TDAUDIT_MUTANT"

/*
 * The file a schema build appends the number of each point it reaches to,
 * once per process and point ("N\n"), while its mutant is off: which
 * tests reach which mutants. Unset: nothing is written.
 */
#define TD_SCHEMA_COVERAGE_ENV "TDAUDIT_COVERAGE"

/* One generated mutant offered to a schema. */
typedef struct td_schema_point {
	const char *cls;     /* its class, as in ids: "relational", "removed-call", ... */
	size_t off, len;     /* the text it replaces in the source (gen.h) */
	const char *repl;    /* what replaces it */
	unsigned number;     /* > 0: the value of TDAUDIT_MUTANT that turns it on */
	int leave_out;       /* in: 1 to leave it out of this schema (a split) */
	const char *why_not; /* out: NULL when in the schema, else why it is not (static text) */
} td_schema_point;

/*
 * Writes the schema of the len bytes at src (the file at path, used in
 * messages only) for the n points at pts, setting each point's why_not.
 * A point with leave_out set is left out with why_not "left out".
 * *n_in gets the number of points in the schema. Returns 0, TD_EINVAL
 * (the source does not tokenize; a point that is not at a token of its
 * class: the message names it) or TD_ENOMEM.
 * Ownership: *out (plus a terminating NUL) is the caller's, freed with
 * free(); NULL on failure.
 */
int td_schema_write(char **out, size_t *out_len, size_t *n_in, const char *path, const char *src,
		    size_t len, td_schema_point *pts, size_t n);

#endif
