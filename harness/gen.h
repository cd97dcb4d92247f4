/*
 * gen.h - operator mutants generated from the tokens of one C file.
 *
 * From one source buffer, td_gen_file() lists candidate mutants of seven
 * classes, the first six inside function bodies:
 *
 *   relational         < -> <=, <= -> <, > -> >=, >= -> >, == -> !=, != -> ==
 *   arithmetic         binary + <-> -, binary * <-> /  (never unary minus or
 *                      plus, a pointer deref or declarator, ++ or --)
 *   logical            && <-> ||
 *   constant           integer literal 0 -> 1, 1 -> 0, n -> n+1 (base and
 *                      suffix kept)
 *   removed-call       a statement that is only a call, `f(x);` or
 *                      `p->f(x);`, becomes `;` (a call whose result is used,
 *                      or `return f();`, is never removed)
 *   negated-condition  `if (c)` / `while (c)` -> `if (!(c))` / `while (!(c))`
 *   macro              the relational, logical and arithmetic swaps above, in
 *                      the body of a #define (object-like, or function-like
 *                      after its parameter list); FUNCTION in its id is the
 *                      macro's name (NAME.2 for its second #define in the
 *                      file, and so on)
 *
 * Working on tokens (ctok.h) is what guarantees that nothing inside a
 * comment, a string or character literal or a preprocessor directive other
 * than a #define's body is ever mutated. What is not mutated is counted
 * with its reason, like a skip comment's: operators at file scope
 * (initialisers, enum values, array sizes: such mutants mostly do not build
 * or change nothing), in a #if or #elif condition, next to # or ## in a
 * macro body, and in a macro body that does not tokenize. At file scope
 * the count takes relational and logical operators and binary + - /
 * (a file-scope * is nearly always a pointer declarator).
 *
 * Each mutant carries a stable id,
 *   PATH:FUNCTION:CLASS:KEY:ORDINAL:REPLACEMENT
 * e.g. "core/plan.c:td_plan_cyclic:relational:<:2:<=", where KEY is the
 * original token (the keyword `if`/`while` for negated-condition, whose
 * replacement reads `!`; the callee, e.g. `free` or `p->f`, for
 * removed-call, whose replacement reads `;`) and ORDINAL counts, from 1, the
 * (CLASS, KEY) pairs of that function in source order. Ids therefore do not
 * change when lines are added elsewhere in the file, and two identical
 * operators in one function get different ids. Ordinals are counted before
 * any filter or skip, so filtering never renumbers.
 *
 * A comment containing `tdaudit: skip REASON` suppresses the mutants whose
 * line is the line the comment starts on; they are counted per reason
 * (COUNTED, never silent).
 */
#ifndef TD_GEN_H
#define TD_GEN_H

#include <stddef.h>

/* Operator classes; values are bits so that a set is a mask. */
typedef enum td_gen_class {
	TD_GEN_RELATIONAL = 1 << 0,
	TD_GEN_ARITHMETIC = 1 << 1,
	TD_GEN_LOGICAL = 1 << 2,
	TD_GEN_CONSTANT = 1 << 3,
	TD_GEN_REMOVED_CALL = 1 << 4,
	TD_GEN_NEGATED_CONDITION = 1 << 5,
	TD_GEN_MACRO = 1 << 6,
} td_gen_class;
#define TD_GEN_ALL 0x7fu

/* One candidate mutant: replace len bytes at off with repl. Plain data. */
typedef struct td_gen_mutant {
	td_gen_class cls;
	size_t off; /* byte offset of the replaced text in the source */
	size_t len; /* its length in bytes */
	char *orig; /* the replaced text (len bytes, NUL-terminated) */
	char *repl; /* what replaces it */
	int line;   /* line of the operator, literal, keyword or callee */
	char *func; /* the enclosing function's name */
	char *id;   /* the stable id described above */
} td_gen_mutant;

/* How many mutants one skip reason suppressed. */
typedef struct td_gen_skip {
	char *reason; /* the text after `tdaudit: skip`, or "no reason given" */
	int count;
} td_gen_skip;

/* An inclusive range of 1-based lines. */
typedef struct td_gen_lines {
	int first, last;
} td_gen_lines;

/* Which mutants to keep; zero keeps every one: td_gen_opts o = {0}, or {.classes = ...}. */
typedef struct td_gen_opts {
	unsigned classes;	   /* a mask of td_gen_class; 0 or TD_GEN_ALL keeps every class */
	const td_gen_lines *lines; /* borrowed; NULL keeps every line, else only these */
	size_t n_lines;
} td_gen_opts;

/* What td_gen_file found. Plain data; free with td_gen_result_free. */
typedef struct td_gen_result {
	td_gen_mutant *mutants; /* n_mutants, in source order */
	size_t n_mutants;
	td_gen_skip *skips; /* n_skips, one per reason, sorted by reason (strcmp) */
	size_t n_skips, cap_skips;
} td_gen_result;

/*
 * Lists the mutants of the len bytes at src, the text of the file at path
 * (used in ids and messages; nothing is read from disk). opts may be NULL
 * (every class, every line); filtered-out mutants are neither returned nor
 * counted as skipped. Returns 0, TD_EINVAL (the source does not tokenize:
 * the message names the line; or a bad option), or TD_ENOMEM.
 * Ownership: *out is the caller's, freed with td_gen_result_free; it copies
 * everything it holds. On failure *out is NULL.
 */
int td_gen_file(td_gen_result **out, const char *path, const char *src, size_t len,
		const td_gen_opts *opts);

/* Frees a result and every string in it; NULL is fine. */
void td_gen_result_free(td_gen_result *r);

/*
 * Applies mutant m to the len bytes at src, giving a new buffer of *out_len
 * bytes plus a terminating NUL. Returns 0, or TD_EINVAL when src no longer
 * holds m->orig at m->off (a stale mutant: the message names the id), or
 * TD_ENOMEM. Ownership: *out is the caller's, freed with free(); NULL on
 * failure. src is not modified.
 */
int td_gen_apply(char **out, size_t *out_len, const char *src, size_t len, const td_gen_mutant *m);

/* The class's name as used in ids ("removed-call"); "unknown" for anything else. */
const char *td_gen_class_name(td_gen_class c);

/* The class named name; TD_EINVAL (listing the names) if there is none. */
int td_gen_class_parse(td_gen_class *out, const char *name);

#endif
