/*
 * gen.c - operator mutants from the tokens of one C file (see gen.h).
 *
 * Works only on code tokens: comments and directives are dropped before any
 * decision, so no mutant can land inside a comment, a literal or a
 * directive; a #define's body is lexed again on its own and walked like a
 * function body (visit_define). Must never emit a mutant it cannot name stably, and never drop
 * a mutant silently: a skipped one is counted with its reason.
 *
 * Whether `-`, `+` or `*` is binary is decided from the tokens around it
 * (an operand must end just before it; `T *p` at a statement start is a
 * declaration; `(T *)` and `(T)` are types). Without the typedefs of the
 * headers this is a heuristic: `(x) - 1` reads as a cast of a negative
 * number and is not mutated. A mutant misread the other way fails to build
 * or changes behaviour; it is never hidden.
 */
#include "gen.h"

#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../base/error.h"
#include "../base/grow.h"
#include "../base/strv.h"
#include "ctok.h"

#define NONE ((size_t)-1)

/* How often a (class, key) pair has been seen in the current function. */
struct ordinal {
	td_gen_class cls;
	char *key;
	int count;
};

/* A `tdaudit: skip` comment. */
struct skipline {
	int line;
	char *reason;
};

/* A candidate the generator will not make, counted under reason. */
struct held {
	int line;
	td_gen_class cls;   /* the class it would have had (for the class filter) */
	const char *reason; /* static text */
};

struct gen {
	const char *path;
	const td_ctok_list *tl;
	size_t *sig; /* indices into tl->toks of the code tokens */
	size_t n_sig;
	size_t *match;	     /* per code token: its matching bracket's index in sig, or NONE */
	size_t open;	     /* sig index of the current body's `{` */
	char func_name[256]; /* the current function's name */
	struct ordinal *ords;
	size_t n_ords, cap_ords;
	td_gen_mutant *all; /* every candidate, before filters and skips */
	size_t n_all, cap_all;
	struct skipline *skips;
	size_t n_skips, cap_skips;
	struct held *held;
	size_t n_held, cap_held;
	td_gen_class force; /* nonzero: every mutant recorded gets this class (a macro's) */
	char **macros;      /* td_strv: the #define names seen, one entry per definition */
};

/* --- token access -------------------------------------------------------- */

static const td_ctok *tok(const struct gen *g, size_t i)
{
	return i < g->n_sig ? &g->tl->toks[g->sig[i]] : NULL;
}

static int is(const struct gen *g, size_t i, const char *s)
{
	const td_ctok *t = tok(g, i);

	return t && (t->kind == TD_CTOK_PUNCT || t->kind == TD_CTOK_KEYWORD) &&
	       td_ctok_is(g->tl, t, s);
}

static int kind_is(const struct gen *g, size_t i, td_ctok_kind k)
{
	const td_ctok *t = tok(g, i);

	return t && t->kind == k;
}

/* 1 if token i is one of the words in the NULL-terminated list. */
static int is_any(const struct gen *g, size_t i, const char *const *words)
{
	for (; *words; words++)
		if (is(g, i, *words))
			return 1;
	return 0;
}

static const char *const type_words[] = {
    "void",	    "char",	"short", "int",	     "long",	"float",    "double",
    "signed",	    "unsigned", "_Bool", "_Complex", "const",	"volatile", "restrict",
    "__restrict__", "struct",	"union", "enum",     "_Atomic", NULL,
};
static const char *const storage_words[] = {
    "static", "extern", "register", "auto", "typedef", "inline", "_Thread_local", NULL,
};
static const char *const header_words[] = {"if", "while", "for", "switch", NULL};
static const char *const sizeof_words[] = {"sizeof", "_Alignof", "typeof", "__typeof__", NULL};

/* --- setup ---------------------------------------------------------------- */

/* Collects the code tokens and pairs their brackets. */
static int index_code(struct gen *g)
{
	size_t *stack, depth = 0;

	g->sig = malloc((g->tl->n + 1) * sizeof *g->sig);
	g->match = malloc((g->tl->n + 1) * sizeof *g->match);
	stack = malloc((g->tl->n + 1) * sizeof *stack);
	if (!g->sig || !g->match || !stack) {
		free(stack);
		return TD_FAIL(TD_ENOMEM, "out of memory indexing %zu tokens of %s", g->tl->n,
			       g->path);
	}
	for (size_t i = 0; i < g->tl->n; i++)
		if (g->tl->toks[i].kind != TD_CTOK_COMMENT &&
		    g->tl->toks[i].kind != TD_CTOK_PREPROC)
			g->sig[g->n_sig++] = i;
	for (size_t i = 0; i < g->n_sig; i++) {
		g->match[i] = NONE;
		if (is(g, i, "(") || is(g, i, "[") || is(g, i, "{"))
			stack[depth++] = i;
		else if (depth > 0 && ((is(g, i, ")") && is(g, stack[depth - 1], "(")) ||
				       (is(g, i, "]") && is(g, stack[depth - 1], "[")) ||
				       (is(g, i, "}") && is(g, stack[depth - 1], "{")))) {
			g->match[i] = stack[--depth];
			g->match[g->match[i]] = i;
		}
	}
	free(stack);
	return 0;
}

/* Trims spaces and a closing star-slash from the reason at s (n bytes). */
static char *reason_dup(const char *s, size_t n)
{
	const char *nl = memchr(s, '\n', n);

	if (nl)
		n = (size_t)(nl - s);
	while (n > 0 && (*s == ' ' || *s == '\t'))
		s++, n--;
	if (n >= 2 && s[n - 2] == '*' && s[n - 1] == '/')
		n -= 2;
	while (n > 0 && s[n - 1] != '\0' && strchr(" \t\r*", s[n - 1]))
		n--;
	return n ? strndup(s, n) : strdup("no reason given");
}

/* Finds the `tdaudit: skip REASON` comments. */
static int find_skips(struct gen *g)
{
	static const char mark[] = "tdaudit: skip";
	const size_t mlen = sizeof mark - 1;

	for (size_t i = 0; i < g->tl->n; i++) {
		const td_ctok *t = &g->tl->toks[i];
		const char *s = g->tl->src + t->off;

		if (t->kind != TD_CTOK_COMMENT)
			continue;
		for (size_t k = 0; k + mlen <= t->len; k++) {
			struct skipline *sk;

			if (memcmp(s + k, mark, mlen) != 0)
				continue;
			int err =
			    td_grow(&g->skips, &g->cap_skips, g->n_skips + 1, sizeof *g->skips);

			if (err)
				return err;
			sk = g->skips;
			sk[g->n_skips].line = t->line;
			sk[g->n_skips].reason = reason_dup(s + k + mlen, t->len - k - mlen);
			if (!sk[g->n_skips++].reason)
				return TD_FAIL(TD_ENOMEM, "out of memory for a skip reason in %s",
					       g->path);
			break;
		}
	}
	return 0;
}

/* --- recording a mutant --------------------------------------------------- */

/* The next ordinal, from 1, of (cls, key) in the current function. */
static int next_ordinal(struct gen *g, td_gen_class cls, const char *key)
{
	int err;

	for (size_t i = 0; i < g->n_ords; i++)
		if (g->ords[i].cls == cls && strcmp(g->ords[i].key, key) == 0)
			return ++g->ords[i].count;
	if ((err = td_grow(&g->ords, &g->cap_ords, g->n_ords + 1, sizeof *g->ords)))
		return err;
	g->ords[g->n_ords].key = strdup(key);
	if (!g->ords[g->n_ords].key)
		return TD_FAIL(TD_ENOMEM, "out of memory counting operators in %s", g->path);
	g->ords[g->n_ords].cls = cls;
	g->ords[g->n_ords].count = 1;
	return g->ords[g->n_ords++].count;
}

static void forget_ordinals(struct gen *g)
{
	for (size_t i = 0; i < g->n_ords; i++)
		free(g->ords[i].key);
	g->n_ords = 0;
}

/* printf into a new string; NULL when out of memory. */
static char *fmt(const char *f, ...) __attribute__((format(printf, 1, 2)));
static char *fmt(const char *f, ...)
{
	va_list ap;
	int n;
	char *s;

	va_start(ap, f);
	n = vsnprintf(NULL, 0, f, ap);
	va_end(ap);
	if (n < 0 || !(s = malloc((size_t)n + 1)))
		return NULL;
	va_start(ap, f);
	vsnprintf(s, (size_t)n + 1, f, ap);
	va_end(ap);
	return s;
}

static void mutant_clear(td_gen_mutant *m)
{
	free(m->orig);
	free(m->repl);
	free(m->func);
	free(m->id);
}

/* What a mutant replaces and why: text [off, off+len) becomes repl; key names it. */
struct edit {
	td_gen_class cls;
	size_t at; /* sig index of the operator, literal, keyword or callee */
	size_t off, len;
	const char *repl;
	const char *key, *key_repl;
};

/* Records a candidate with its stable id. */
static int add(struct gen *g, const struct edit *e)
{
	const td_gen_class cls = g->force ? g->force : e->cls;
	td_gen_mutant m = {cls, e->off, e->len, NULL, NULL, tok(g, e->at)->line, NULL, NULL};
	int ord = next_ordinal(g, cls, e->key), err;

	if (ord < 0)
		return ord;
	if ((err = td_grow(&g->all, &g->cap_all, g->n_all + 1, sizeof *g->all)))
		return err;
	m.orig = malloc(e->len + 1); /* not strndup: a NUL byte in the span would cut it short */
	if (m.orig) {
		memcpy(m.orig, g->tl->src + e->off, e->len);
		m.orig[e->len] = '\0';
	}
	m.repl = strdup(e->repl);
	m.func = strdup(g->func_name);
	m.id = fmt("%s:%s:%s:%s:%d:%s", g->path, g->func_name, td_gen_class_name(cls), e->key,
		   ord, e->key_repl);
	if (!m.orig || !m.repl || !m.func || !m.id) {
		mutant_clear(&m);
		return TD_FAIL(TD_ENOMEM, "out of memory for a mutant of %s", g->path);
	}
	g->all[g->n_all++] = m;
	return 0;
}

/* Records a one-token replacement of token i by repl (text and key alike). */
static int add_token(struct gen *g, td_gen_class cls, size_t i, const char *repl)
{
	const td_ctok *t = tok(g, i);
	char key[128];
	struct edit e = {cls, i, t->off, t->len, repl, key, repl};

	if (t->len >= sizeof key)
		return 0; /* no operator or integer literal we mutate is this long */
	memcpy(key, g->tl->src + t->off, t->len);
	key[t->len] = '\0';
	return add(g, &e);
}

/* --- which tokens are operators ------------------------------------------ */

/*
 * Whether the parenthesised group o..c (sig indices) can only be a type
 * name: words first (`const struct foo`, `size_t`), then only stars and
 * qualifiers (`*const *`). A lone `(x)` counts as a type: in a function
 * body it is nearly always a cast such as `(td_real)-4.5`; in a macro body
 * it is a parameter in parentheses, `(a) - (b)`. `(a * b)` is an expression.
 */
static int looks_like_type(const struct gen *g, size_t o, size_t c)
{
	static const char *const quals[] = {"const", "volatile", "restrict", NULL};
	int type_word = 0, idents = 0, stars = 0;

	for (size_t k = o + 1; k < c; k++) {
		if (is(g, k, "*"))
			stars++;
		else if (stars && !is_any(g, k, quals))
			return 0;
		else if (is_any(g, k, type_words))
			type_word = 1;
		else if (kind_is(g, k, TD_CTOK_IDENT))
			idents++;
		else if (!stars)
			return 0;
	}
	if (g->force == TD_GEN_MACRO && !type_word && !stars && idents == 1 && c == o + 2)
		return 0; /* in a macro body a lone (x) is a parameter in parentheses */
	return type_word || stars || idents >= 1;
}

/* Whether the `)` at j closes a cast or an if/while/for/switch header. */
static int closes_cast_or_header(const struct gen *g, size_t j)
{
	size_t o = g->match[j];

	if (o == NONE)
		return 0;
	if (o > 0 && (is_any(g, o - 1, sizeof_words) || kind_is(g, o - 1, TD_CTOK_IDENT) ||
		      is(g, o - 1, ")") || is(g, o - 1, "]")))
		return 0; /* a call's arguments or sizeof's operand */
	if (o > 0 && is_any(g, o - 1, header_words))
		return 1;
	return looks_like_type(g, o, j);
}

/* Whether an operand (an expression that could be added to) ends at token j. */
static int ends_operand(const struct gen *g, size_t j)
{
	while (j > g->open && (is(g, j, "++") || is(g, j, "--")))
		j--; /* postfix: a++ ends an operand if a does */
	if (j <= g->open)
		return 0;
	switch (tok(g, j)->kind) {
	case TD_CTOK_IDENT:
	case TD_CTOK_NUMBER:
	case TD_CTOK_STRING:
	case TD_CTOK_CHAR:
		return 1;
	case TD_CTOK_PUNCT:
		return is(g, j, "]") || (is(g, j, ")") && !closes_cast_or_header(g, j));
	default:
		return 0;
	}
}

/* Whether an operand can start at token j. */
static int starts_operand(const struct gen *g, size_t j)
{
	static const char *const unary[] = {"(", "-", "+", "!", "~", "&", "*", "++", "--", NULL};
	const td_ctok *t = tok(g, j);

	if (!t)
		return 0;
	return t->kind == TD_CTOK_IDENT || t->kind == TD_CTOK_NUMBER || t->kind == TD_CTOK_STRING ||
	       t->kind == TD_CTOK_CHAR || is_any(g, j, sizeof_words) || is_any(g, j, unary);
}

/* Whether the `*` at j declares a pointer: `T *p` where T starts a statement. */
static int declares_pointer(const struct gen *g, size_t j)
{
	size_t k = j + 1, pp = j - 2;
	static const char *const quals[] = {"*", "const", "volatile", "restrict", NULL};

	while (is_any(g, k, quals))
		k++;
	if (!starts_operand(g, k))
		return 1; /* (T *), sizeof(T **): a type name */
	if (!kind_is(g, j - 1, TD_CTOK_IDENT))
		return 0;
	return pp == g->open || is(g, pp, ";") || is(g, pp, "{") || is(g, pp, "}") ||
	       is_any(g, pp, type_words) || is_any(g, pp, storage_words) ||
	       (is(g, pp, "(") && is(g, pp - 1, "for"));
}

/* --- the six classes ------------------------------------------------------ */

static int visit_punct(struct gen *g, size_t j)
{
	static const char *const swaps[][3] = {
	    {"<", "<=", "r"},  {"<=", "<", "r"},  {">", ">=", "r"},  {">=", ">", "r"},
	    {"==", "!=", "r"}, {"!=", "==", "r"}, {"&&", "||", "l"}, {"||", "&&", "l"},
	    {"+", "-", "a"},   {"-", "+", "a"},	  {"*", "/", "a"},   {"/", "*", "a"},
	};

	for (size_t k = 0; k < sizeof swaps / sizeof swaps[0]; k++) {
		if (!is(g, j, swaps[k][0]))
			continue;
		if (swaps[k][2][0] == 'r')
			return add_token(g, TD_GEN_RELATIONAL, j, swaps[k][1]);
		if (swaps[k][2][0] == 'l')
			return add_token(g, TD_GEN_LOGICAL, j, swaps[k][1]);
		if (!is(g, j, "/") && !ends_operand(g, j - 1))
			return 0; /* unary minus or plus, a deref */
		if (is(g, j, "*") && declares_pointer(g, j))
			return 0;
		return add_token(g, TD_GEN_ARITHMETIC, j, swaps[k][1]);
	}
	return 0;
}

/* The digits of v in base (upper-case hex if upper), written at out. */
static void put_digits(char *out, unsigned long long v, unsigned base, int upper)
{
	const char *digits = upper ? "0123456789ABCDEF" : "0123456789abcdef";
	char tmp[72];
	size_t n = 0;

	do {
		tmp[n++] = digits[v % base];
		v /= base;
	} while (v);
	while (n)
		*out++ = tmp[--n];
	*out = '\0';
}

static int digit_value(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return 99;
}

/*
 * The mutated text of integer literal s (n bytes) into out (size >= 160):
 * 0 -> 1, 1 -> 0, n -> n+1, keeping prefix, base, digit case and suffix.
 * Returns 0 when s is not an integer literal we can mutate (a float, too
 * long, an overflow).
 */
static int integer_next(char *out, const char *s, size_t n)
{
	size_t i = 0, j;
	unsigned base = 10;
	unsigned long long v = 0;
	int upper = 0;

	if (n > 90)
		return 0;
	if (n > 2 && s[0] == '0' && s[1] != '\0' && strchr("xXbB", s[1]))
		base = (s[1] == 'x' || s[1] == 'X') ? 16 : 2, i = 2;
	else if (n > 1 && s[0] == '0' && digit_value(s[1]) < 10)
		base = 8, i = 1;
	for (j = i; j < n && (unsigned)digit_value(s[j]) < base; j++) {
		if (v > (~0ULL - (unsigned)digit_value(s[j])) / base)
			return 0;
		v = v * base + (unsigned)digit_value(s[j]);
		upper |= s[j] >= 'A' && s[j] <= 'F';
	}
	if (j == i || strspn(s + j, "uUlL") < n - j || v == ~0ULL)
		return 0;
	memcpy(out, s, i);
	put_digits(out + i, v == 0 ? 1 : v == 1 ? 0 : v + 1, base, upper);
	strncat(out, s + j, n - j);
	return 1;
}

static int visit_number(struct gen *g, size_t j)
{
	const td_ctok *t = tok(g, j);
	char repl[160];

	if (!integer_next(repl, g->tl->src + t->off, t->len))
		return 0;
	return add_token(g, TD_GEN_CONSTANT, j, repl);
}

/* `if (c)` / `while (c)` -> `if (!(c))`. */
static int visit_condition(struct gen *g, size_t j)
{
	size_t c = is(g, j + 1, "(") ? g->match[j + 1] : NONE;
	const td_ctok *first, *last;
	struct edit e = {TD_GEN_NEGATED_CONDITION, j, 0, 0, NULL, NULL, "!"};
	char *repl;
	int err;

	if (c == NONE || c < j + 3)
		return 0;
	first = tok(g, j + 2);
	last = tok(g, c - 1);
	e.off = first->off;
	e.len = last->off + last->len - first->off;
	e.key = is(g, j, "if") ? "if" : "while";
	repl = fmt("!(%.*s)", (int)e.len, g->tl->src + e.off);
	if (!repl)
		return TD_FAIL(TD_ENOMEM, "out of memory for a mutant of %s", g->path);
	e.repl = repl;
	err = add(g, &e);
	free(repl);
	return err;
}

/* Whether the `:` at p ends a `case X:`, `default:` or `label:`. */
static int ends_label(const struct gen *g, size_t p)
{
	size_t k = p;

	while (k > g->open + 1 && !is(g, k - 1, ";") && !is(g, k - 1, "{") && !is(g, k - 1, "}"))
		k--;
	return is(g, k, "case") || is(g, k, "default") ||
	       (k + 1 == p && kind_is(g, k, TD_CTOK_IDENT));
}

/* Whether a statement can start right after token p. */
static int starts_statement_after(const struct gen *g, size_t p)
{
	if (p == g->open || is(g, p, ";") || is(g, p, "{") || is(g, p, "}") || is(g, p, "else") ||
	    is(g, p, "do"))
		return 1;
	if (is(g, p, ")") && g->match[p] != NONE && g->match[p] > 0)
		return is_any(g, g->match[p] - 1, header_words);
	return is(g, p, ":") && ends_label(g, p);
}

/* `f(x);` or `p->f(x);` at a statement start -> `;`. */
static int visit_call(struct gen *g, size_t j)
{
	size_t k = j, c, klen;
	char key[128];
	struct edit e = {TD_GEN_REMOVED_CALL, j, 0, 0, ";", key, ";"};

	if (!starts_statement_after(g, j - 1))
		return 0;
	while ((is(g, k + 1, ".") || is(g, k + 1, "->")) && kind_is(g, k + 2, TD_CTOK_IDENT))
		k += 2;
	c = is(g, k + 1, "(") ? g->match[k + 1] : NONE;
	if (c == NONE || !is(g, c + 1, ";"))
		return 0;
	klen = tok(g, k)->off + tok(g, k)->len - tok(g, j)->off;
	if (k - j + 1 >= sizeof key || klen >= sizeof key)
		return 0; /* a callee chain this long is not a plain call */
	key[0] = '\0';
	for (size_t i = j; i <= k; i++) /* the chain without spaces: p->f */
		strncat(key, g->tl->src + tok(g, i)->off, tok(g, i)->len);
	e.off = tok(g, j)->off;
	e.len = tok(g, c + 1)->off + 1 - e.off;
	return add(g, &e);
}

/* --- what is not mutated, and macros ---------------------------------------- */

static int hold(struct gen *g, int line, td_gen_class cls, const char *reason)
{
	int err = td_grow(&g->held, &g->cap_held, g->n_held + 1, sizeof *g->held);

	if (!err)
		g->held[g->n_held++] = (struct held){line, cls, reason};
	return err;
}

/*
 * The class a mutant of token j would have where its context is unknown:
 * relational, logical, or arithmetic for + - / after an operand; 0 for any
 * other token (a file-scope * is nearly always a pointer declarator).
 */
static td_gen_class op_class(const struct gen *g, size_t j)
{
	static const char *const rel[] = {"<", "<=", ">", ">=", "==", "!=", NULL};
	static const char *const logic[] = {"&&", "||", NULL};
	static const char *const arith[] = {"+", "-", "/", NULL};

	if (is_any(g, j, rel))
		return TD_GEN_RELATIONAL;
	if (is_any(g, j, logic))
		return TD_GEN_LOGICAL;
	return is_any(g, j, arith) && j > 0 && ends_operand(g, j - 1) ? TD_GEN_ARITHMETIC : 0;
}

/* Holds every operator of the code tokens [from, to) of g under reason. */
static int hold_ops(struct gen *g, size_t from, size_t to, int line0, const char *reason)
{
	int err = 0;

	for (size_t j = from; j < to && !err; j++) {
		td_gen_class c = op_class(g, j);

		if (c)
			err = hold(g, tok(g, j)->line + line0, c, reason);
	}
	return err;
}

/* Lines before offset off of g's source (0 at its start). */
static int lines_before(const struct gen *g, size_t off)
{
	int n = 0;

	for (size_t i = 0; i < off; i++)
		n += g->tl->src[i] == '\n';
	return n;
}

static int visit_body(struct gen *g, size_t open, size_t close);

/*
 * Walks the macro body that starts at byte start of g's source (at the
 * macro's name, or at the `(` of its parameter list) and runs to end: the
 * relational, logical and arithmetic swaps of a function body, as class
 * macro. An operator next to # or ## (stringified or pasted) is held.
 */
static int walk_macro(struct gen *g, size_t start, size_t end, const char *name, int fnlike)
{
	static const char *const body_ops[] = {"<", "<=", ">", ">=", "==", "!=", "&&", "||",
					       "+", "-", "*", "/", NULL};
	struct gen m = {.path = g->path, .force = TD_GEN_MACRO};
	td_ctok_list *tl = NULL;
	int line0 = lines_before(g, start), err, nth = 1;

	for (size_t i = 0; g->macros && g->macros[i]; i++)
		nth += !strcmp(g->macros[i], name);
	if ((err = td_strv_push(&g->macros, name)))
		return err;
	if (td_ctok_lex(&tl, g->tl->src + start, end - start, g->path) != 0)
		return hold(g, line0 + 1, TD_GEN_MACRO, "in a macro body that does not tokenize");
	m.tl = tl;
	err = find_skips(&m); /* a skip comment inside the #define */
	for (size_t i = 0; !err && i < m.n_skips; i++) {
		if ((err = td_grow(&g->skips, &g->cap_skips, g->n_skips + 1, sizeof *g->skips)))
			break;
		g->skips[g->n_skips].line = m.skips[i].line + line0;
		g->skips[g->n_skips++].reason = m.skips[i].reason;
		m.skips[i].reason = NULL;
	}
	snprintf(m.func_name, sizeof m.func_name, nth > 1 ? "%s.%d" : "%s", name, nth);
	if (!err)
		err = index_code(&m);
	m.open = fnlike && !err ? m.match[0] : 0;
	for (size_t j = m.open + 1; !err && m.open != NONE && j < m.n_sig; j++) {
		if (!is_any(&m, j, body_ops))
			continue;
		if (is(&m, j - 1, "#") || is(&m, j - 1, "##") || is(&m, j + 1, "#") ||
		    is(&m, j + 1, "##"))
			err = hold(g, tok(&m, j)->line + line0, TD_GEN_MACRO,
				   "next to # or ## in a macro body (stringified or pasted)");
		else
			err = visit_punct(&m, j);
	}
	for (size_t i = 0; !err && i < m.n_all; i++) { /* into g, at their place in the file */
		if ((err = td_grow(&g->all, &g->cap_all, g->n_all + 1, sizeof *g->all)))
			break;
		m.all[i].off += start;
		m.all[i].line += line0;
		g->all[g->n_all++] = m.all[i];
		m.all[i] = (td_gen_mutant){0};
	}
	for (size_t i = 0; i < m.n_skips; i++)
		free(m.skips[i].reason);
	free(m.skips);
	forget_ordinals(&m);
	free(m.ords);
	for (size_t i = 0; i < m.n_all; i++)
		mutant_clear(&m.all[i]);
	free(m.all);
	free(m.sig);
	free(m.match);
	td_ctok_list_free(tl);
	return err;
}

/*
 * A directive: a #define's body is walked (walk_macro); the operators of a
 * #if or #elif condition are held, as the preprocessor evaluates them.
 */
static int visit_directive(struct gen *g, const td_ctok *d)
{
	const char *s = g->tl->src, *p = s + d->off + 1, *end = s + d->off + d->len, *q;
	char name[200];

	while (p < end && (*p == ' ' || *p == '\t'))
		p++;
	for (q = p; q < end && (isalnum((unsigned char)*q) || *q == '_'); q++)
		;
	if ((q - p == 2 && !strncmp(p, "if", 2)) || (q - p == 4 && !strncmp(p, "elif", 4))) {
		td_ctok_list *tl = NULL;
		struct gen c = {.path = g->path};
		int line0 = lines_before(g, (size_t)(q - s)), err = 0;

		if (td_ctok_lex(&tl, q, (size_t)(end - q), g->path) != 0)
			return 0; /* nothing to hold: it would not have been mutated */
		c.tl = tl;
		err = index_code(&c);
		if (!err)
			err = hold_ops(&c, 0, c.n_sig, line0, "in a #if or #elif condition");
		for (size_t i = 0; !err && i < c.n_held; i++)
			err = hold(g, c.held[i].line, c.held[i].cls, c.held[i].reason);
		free(c.held);
		free(c.sig);
		free(c.match);
		td_ctok_list_free(tl);
		return err;
	}
	if (q - p != 6 || strncmp(p, "define", 6))
		return 0;
	for (p = q; p < end && (*p == ' ' || *p == '\t'); p++)
		;
	for (q = p; q < end && (isalnum((unsigned char)*q) || *q == '_'); q++)
		;
	if (q == p || (size_t)(q - p) >= sizeof name)
		return 0; /* no name: the compiler refuses it */
	snprintf(name, sizeof name, "%.*s", (int)(q - p), p);
	if (q < end && *q == '(')
		return walk_macro(g, (size_t)(q - s), d->off + d->len, name, 1);
	return walk_macro(g, (size_t)(p - s), d->off + d->len, name, 0);
}

static int visit_directives(struct gen *g)
{
	int err = 0;

	for (size_t i = 0; i < g->tl->n && !err; i++)
		if (g->tl->toks[i].kind == TD_CTOK_PREPROC)
			err = visit_directive(g, &g->tl->toks[i]);
	return err;
}

/* Walks one function body (sig indices open..close) recording candidates. */
static int visit_body(struct gen *g, size_t open, size_t close)
{
	int depth = 0, err = 0; /* ( and [ depth: a call statement sits at depth 0 */

	g->open = open;
	forget_ordinals(g);
	for (size_t j = open + 1; j < close && !err; j++) {
		const td_ctok *t = tok(g, j);

		if (is(g, j, "(") || is(g, j, "["))
			depth++;
		else if ((is(g, j, ")") || is(g, j, "]")) && depth > 0)
			depth--;
		if (t->kind == TD_CTOK_PUNCT)
			err = visit_punct(g, j);
		else if (t->kind == TD_CTOK_NUMBER)
			err = visit_number(g, j);
		else if (is(g, j, "if") || is(g, j, "while"))
			err = visit_condition(g, j);
		else if (t->kind == TD_CTOK_IDENT && depth == 0)
			err = visit_call(g, j);
	}
	return err;
}

/*
 * Walks the file scope: a `{` after `NAME(...)` opens a function body; the
 * `{` of a linkage block (`extern "C" {`, a header's C++ guard) is walked
 * into, since what it holds is at file scope; any other `{` (a struct, an
 * initialiser) is stepped over.
 */
static int visit_file(struct gen *g)
{
	static const char scope[] = "at file scope (an initialiser, enum value or array size)";
	size_t from = 0; /* the first token not yet walked or held */

	for (size_t i = 0; i < g->n_sig; i++) {
		size_t close = g->match[i], o;
		const td_ctok *name;
		int err;

		if (!is(g, i, "{"))
			continue;
		if (close == NONE)
			return hold_ops(g, from, g->n_sig, 0,
					"after a bracket never closed (nothing safe to mutate)");
		o = i > 0 && is(g, i - 1, ")") ? g->match[i - 1] : NONE;
		g->open = 0;
		if ((err = hold_ops(g, from, i, 0, scope)))
			return err;
		if (i >= 2 && kind_is(g, i - 1, TD_CTOK_STRING) && is(g, i - 2, "extern")) {
			from = i + 1; /* its closing } is no operator: walked over as file scope */
			continue;
		}
		if (o != NONE && o > 0 && kind_is(g, o - 1, TD_CTOK_IDENT)) {
			name = tok(g, o - 1);
			snprintf(g->func_name, sizeof g->func_name, "%.*s", (int)name->len,
				 g->tl->src + name->off);
			err = visit_body(g, i, close);
		} else {
			g->open = 0;
			err = hold_ops(g, i, close, 0, scope);
		}
		if (err)
			return err;
		i = close;
		from = close + 1;
	}
	g->open = 0;
	return hold_ops(g, from, g->n_sig, 0, scope);
}

/* --- filters, skips, result ------------------------------------------------ */

static int wanted_at(td_gen_class cls, int line, const td_gen_opts *o)
{
	if (o->classes && !(o->classes & (unsigned)cls))
		return 0;
	if (!o->lines)
		return 1;
	for (size_t i = 0; i < o->n_lines; i++)
		if (line >= o->lines[i].first && line <= o->lines[i].last)
			return 1;
	return 0;
}

static int wanted(const td_gen_mutant *m, const td_gen_opts *o)
{
	return wanted_at(m->cls, m->line, o);
}

static const char *skip_reason(const struct gen *g, int line)
{
	for (size_t i = 0; i < g->n_skips; i++)
		if (g->skips[i].line == line)
			return g->skips[i].reason;
	return NULL;
}

/* Adds one to reason's count in r. */
static int count_skip(td_gen_result *r, const char *reason)
{
	td_gen_skip *s;
	int err;

	for (size_t i = 0; i < r->n_skips; i++)
		if (strcmp(r->skips[i].reason, reason) == 0)
			return r->skips[i].count++, 0;
	if ((err = td_grow(&r->skips, &r->cap_skips, r->n_skips + 1, sizeof *r->skips)))
		return err;
	s = r->skips;
	s[r->n_skips].reason = strdup(reason);
	if (!s[r->n_skips].reason)
		return TD_FAIL(TD_ENOMEM, "out of memory counting skips");
	s[r->n_skips++].count = 1;
	return 0;
}

static int by_reason(const void *a, const void *b)
{
	return strcmp(((const td_gen_skip *)a)->reason, ((const td_gen_skip *)b)->reason);
}

/* Moves the wanted, unskipped candidates into r; frees the rest. */
static int select_mutants(struct gen *g, td_gen_result *r, const td_gen_opts *o)
{
	int err = 0;

	for (size_t i = 0; i < g->n_all; i++) {
		td_gen_mutant *m = &g->all[i];
		const char *why = skip_reason(g, m->line);

		if (!err && wanted(m, o) && !why) {
			g->all[r->n_mutants++] = *m;
			continue;
		}
		if (!err && wanted(m, o))
			err = count_skip(r, why);
		mutant_clear(m);
	}
	for (size_t i = 0; !err && i < g->n_held; i++)
		if (wanted_at(g->held[i].cls, g->held[i].line, o))
			err = count_skip(r, g->held[i].reason);
	g->n_all = 0;
	r->mutants = g->all;
	g->all = NULL;
	if (r->n_skips > 1)
		qsort(r->skips, r->n_skips, sizeof *r->skips, by_reason);
	return err;
}

static int by_offset(const void *a, const void *b)
{
	const td_gen_mutant *x = a, *y = b;

	return x->off < y->off ? -1 : x->off > y->off;
}

static int check_opts(const td_gen_opts *o, const char *path)
{
	if (o->classes & ~TD_GEN_ALL)
		return TD_FAIL(TD_EINVAL,
			       "class mask 0x%x for %s has unknown bits; use td_gen_class values",
			       o->classes, path);
	if (o->n_lines > 0 && !o->lines)
		return TD_FAIL(TD_EINVAL, "%zu line ranges for %s but no array", o->n_lines, path);
	for (size_t i = 0; i < o->n_lines; i++)
		if (o->lines[i].first > o->lines[i].last)
			return TD_FAIL(TD_EINVAL, "line range %d-%d for %s is backwards",
				       o->lines[i].first, o->lines[i].last, path);
	return 0;
}

static void gen_release(struct gen *g)
{
	forget_ordinals(g);
	free(g->ords);
	for (size_t i = 0; i < g->n_all; i++)
		mutant_clear(&g->all[i]);
	free(g->all);
	for (size_t i = 0; i < g->n_skips; i++)
		free(g->skips[i].reason);
	free(g->skips);
	free(g->held);
	td_strv_free(g->macros);
	free(g->sig);
	free(g->match);
}

int td_gen_file(td_gen_result **out, const char *path, const char *src, size_t len,
		const td_gen_opts *opts)
{
	static const td_gen_opts all = {0};
	td_ctok_list *tl = NULL;
	td_gen_result *r = NULL;
	struct gen g = {0};
	int err;

	*out = NULL;
	g.path = path ? path : "<buffer>";
	opts = opts ? opts : &all;
	err = check_opts(opts, g.path);
	if (!err)
		err = td_ctok_lex(&tl, src, len, g.path);
	g.tl = tl;
	if (!err)
		err = index_code(&g);
	if (!err)
		err = find_skips(&g);
	if (!err)
		err = visit_file(&g);
	if (!err)
		err = visit_directives(&g);
	if (!err && g.n_all > 1) /* macros come last: back into source order */
		qsort(g.all, g.n_all, sizeof *g.all, by_offset);
	if (!err && !(r = calloc(1, sizeof *r)))
		err = TD_FAIL(TD_ENOMEM, "out of memory for the mutants of %s", g.path);
	if (!err)
		err = select_mutants(&g, r, opts);
	gen_release(&g);
	td_ctok_list_free(tl);
	if (err) {
		td_gen_result_free(r);
		return err;
	}
	*out = r;
	return 0;
}

void td_gen_result_free(td_gen_result *r)
{
	if (!r)
		return;
	for (size_t i = 0; i < r->n_mutants; i++)
		mutant_clear(&r->mutants[i]);
	free(r->mutants);
	for (size_t i = 0; i < r->n_skips; i++)
		free(r->skips[i].reason);
	free(r->skips);
	free(r);
}

int td_gen_apply(char **out, size_t *out_len, const char *src, size_t len, const td_gen_mutant *m)
{
	size_t rlen = strlen(m->repl), n;
	char *buf;

	*out = NULL;
	if (m->off > len || m->len > len - m->off || memcmp(src + m->off, m->orig, m->len) != 0)
		return TD_FAIL(TD_EINVAL, "mutant %s is stale: line %d no longer holds '%s'", m->id,
			       m->line, m->orig);
	n = len - m->len + rlen;
	buf = malloc(n + 1);
	if (!buf)
		return TD_FAIL(TD_ENOMEM, "out of memory applying mutant %s (%zu bytes)", m->id, n);
	memcpy(buf, src, m->off);
	memcpy(buf + m->off, m->repl, rlen);
	memcpy(buf + m->off + rlen, src + m->off + m->len, len - m->off - m->len);
	buf[n] = '\0';
	*out = buf;
	*out_len = n;
	return 0;
}

static const char *const class_names[] = {"relational", "arithmetic",	"logical",	    "constant",
					  "removed-call", "negated-condition", "macro"};

const char *td_gen_class_name(td_gen_class c)
{
	for (unsigned i = 0; i < 7; i++)
		if ((unsigned)c == 1u << i)
			return class_names[i];
	return "unknown";
}

int td_gen_class_parse(td_gen_class *out, const char *name)
{
	for (unsigned i = 0; i < 7; i++)
		if (name && strcmp(name, class_names[i]) == 0) {
			*out = (td_gen_class)(1u << i);
			return 0;
		}
	return TD_FAIL(TD_EINVAL,
		       "no mutant class '%s'; use relational, arithmetic, logical, constant, "
		       "removed-call, negated-condition or macro",
		       name ? name : "(null)");
}
