/*
 * schema.c - mutant schemata (see schema.h).
 *
 * Works on code tokens (comments and directives are not code; a directive
 * inside an expression stops its rewrite). Each point becomes an interval
 * of code tokens, [first, last], that its rewrite wraps; intervals nest
 * like the expressions they are, and the text is written once, opening a
 * wrapper before the first token of each interval (outer ones first) and
 * closing it after the last (inner ones first). Must never change what the
 * file does with no mutant on: where the operand of an operator cannot be
 * read with certainty, the point is left out, never guessed.
 */
#include "schema.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../base/error.h"
#include "../base/grow.h"
#include "ctok.h"

#define NONE ((size_t)-1)
#define FAILED ((size_t)-2)

struct sch {
	const td_ctok_list *tl;
	size_t *sig; /* indices into tl->toks of the code tokens (no comments) */
	size_t n;
	size_t *match; /* per code token: its matching bracket, or NONE */
};

/* A point's interval and how it is wrapped. */
struct span {
	size_t first, last; /* code token indices */
	size_t op;          /* the replaced token (binary, constant); NONE otherwise */
	td_schema_point *p;
};

static const td_ctok *tok(const struct sch *s, size_t i)
{
	return i < s->n ? &s->tl->toks[s->sig[i]] : NULL;
}

static int is(const struct sch *s, size_t i, const char *text)
{
	const td_ctok *t = tok(s, i);

	return t && (t->kind == TD_CTOK_PUNCT || t->kind == TD_CTOK_KEYWORD) &&
	       td_ctok_is(s->tl, t, text);
}

static int kind_is(const struct sch *s, size_t i, td_ctok_kind k)
{
	const td_ctok *t = tok(s, i);

	return t && t->kind == k;
}

static int is_any(const struct sch *s, size_t i, const char *const *words)
{
	for (; *words; words++)
		if (is(s, i, *words))
			return 1;
	return 0;
}

/* The precedence of token i as a binary operator (13 for * / %), or 0. */
static int binary_prec(const struct sch *s, size_t i)
{
	static const struct {
		const char *op;
		int prec;
	} ops[] = {
	    {"*", 13},  {"/", 13}, {"%", 13}, {"+", 12}, {"-", 12}, {"<<", 11}, {">>", 11},
	    {"<", 10},  {"<=", 10}, {">", 10}, {">=", 10}, {"==", 9}, {"!=", 9},  {"&", 8},
	    {"^", 7},   {"|", 6},  {"&&", 5}, {"||", 4},
	};

	if (!kind_is(s, i, TD_CTOK_PUNCT))
		return 0;
	for (size_t k = 0; k < sizeof ops / sizeof ops[0]; k++)
		if (is(s, i, ops[k].op))
			return ops[k].prec;
	return 0;
}

/* Tokens that are binary after an operand and unary otherwise. */
static const char *const ambiguous[] = {"*", "&", "+", "-", NULL};
static const char *const incdec[] = {"++", "--", NULL};
static const char *const sizeof_words[] = {"sizeof", "_Alignof", "alignof", NULL};
static const char *const header_words[] = {"if", "while", "for", "switch", NULL};

/* Whether an operand ends at token i (so an ambiguous token after it is binary). */
static int ends_operand(const struct sch *s, size_t i)
{
	if (i == NONE || i >= s->n)
		return 0;
	if (kind_is(s, i, TD_CTOK_IDENT) || kind_is(s, i, TD_CTOK_NUMBER) ||
	    kind_is(s, i, TD_CTOK_STRING) || kind_is(s, i, TD_CTOK_CHAR))
		return 1;
	if (is(s, i, ")") || is(s, i, "]"))
		return 1;
	return is_any(s, i, incdec) && i > 0 && ends_operand(s, i - 1);
}

/* Whether the tokens strictly between brackets o and c could be a type name. */
static int type_like(const struct sch *s, size_t o, size_t c)
{
	if (c <= o + 1)
		return 0;
	for (size_t i = o + 1; i < c; i++)
		if (!kind_is(s, i, TD_CTOK_IDENT) && !kind_is(s, i, TD_CTOK_KEYWORD) && !is(s, i, "*"))
			return 0;
	return 1;
}

/* --- operands, backwards ----------------------------------------------------- */

/* The first token of the postfix expression that ends at token i, or FAILED. */
static size_t postfix_back(const struct sch *s, size_t i)
{
	size_t st;

	if (i == NONE || i >= s->n)
		return FAILED;
	if (is(s, i, ")") || is(s, i, "]")) {
		size_t o = s->match[i];

		if (o == NONE || o == 0)
			return FAILED;
		if (is(s, i, "]") || kind_is(s, o - 1, TD_CTOK_IDENT) || is(s, o - 1, ")") ||
		    is(s, o - 1, "]"))
			st = postfix_back(s, o - 1); /* a call or a subscript: its base */
		else
			st = o; /* a parenthesised primary */
	} else if (kind_is(s, i, TD_CTOK_IDENT) || kind_is(s, i, TD_CTOK_NUMBER) ||
		   kind_is(s, i, TD_CTOK_CHAR)) {
		st = i;
	} else if (kind_is(s, i, TD_CTOK_STRING)) {
		st = i;
		while (st > 0 && kind_is(s, st - 1, TD_CTOK_STRING))
			st--;
	} else if (is_any(s, i, incdec) && i > 0 && ends_operand(s, i - 1)) {
		st = postfix_back(s, i - 1);
	} else {
		return FAILED;
	}
	while (st != FAILED && st >= 2 && (is(s, st - 1, ".") || is(s, st - 1, "->")))
		st = postfix_back(s, st - 2);
	return st;
}

/* The first token of the unary expression that ends at token i, or FAILED. */
static size_t unary_back(const struct sch *s, size_t i)
{
	size_t st = postfix_back(s, i);

	while (st != FAILED && st > 0) {
		size_t k = st - 1;

		if (is(s, k, "!") || is(s, k, "~") || is_any(s, k, sizeof_words) ||
		    ((is_any(s, k, ambiguous) || is_any(s, k, incdec)) && !ends_operand(s, k - 1))) {
			st = k;
		} else if (is(s, k, ")") && s->match[k] != NONE && s->match[k] > 0 &&
			   type_like(s, s->match[k], k) && !is_any(s, s->match[k] - 1, header_words) &&
			   !kind_is(s, s->match[k] - 1, TD_CTOK_IDENT)) {
			st = s->match[k]; /* a cast */
		} else {
			break;
		}
	}
	return st;
}

/*
 * Whether token k, just before an operand, ends the left operand of an
 * operator of precedence prec there: a bracket, a statement's or a
 * clause's edge, or an operator that binds more loosely.
 */
static int left_edge(const struct sch *s, size_t k, int prec)
{
	static const char *const edges[] = {
	    "(", "[", "{", "}", ";", ",", "?", ":", "=", "+=", "-=", "*=", "/=", "%=", "<<=",
	    ">>=", "&=", "^=", "|=", "return", "else", "do", "case", NULL,
	};
	int p;

	if (k == NONE)
		return 1;
	if (is_any(s, k, edges))
		return 1;
	p = binary_prec(s, k);
	if (is_any(s, k, ambiguous) && is(s, k - 1, ")") && s->match[k - 1] != NONE &&
	    type_like(s, s->match[k - 1], k - 1))
		return 0; /* (x) - y: a cast of -y, or x minus y; undecided */
	return p && p < prec;
}

/* The first token of the left operand of the binary operator at o, or FAILED. */
static size_t left_operand(const struct sch *s, size_t o, int prec)
{
	size_t i = o - 1;

	for (;;) {
		size_t st = unary_back(s, i);

		if (st == FAILED)
			return FAILED;
		if (st == 0 || left_edge(s, st - 1, prec))
			return st;
		if (binary_prec(s, st - 1) >= prec && st >= 2)
			i = st - 2;
		else
			return FAILED;
	}
}

/* --- operands, forwards ------------------------------------------------------ */

/* The last token of the postfix expression that starts at token i, or FAILED. */
static size_t postfix_fwd(const struct sch *s, size_t i)
{
	size_t e;

	if (i >= s->n)
		return FAILED;
	if (is(s, i, "(")) {
		if (s->match[i] == NONE || is(s, i + 1, "{"))
			return FAILED;
		e = s->match[i];
	} else if (kind_is(s, i, TD_CTOK_IDENT) || kind_is(s, i, TD_CTOK_NUMBER) ||
		   kind_is(s, i, TD_CTOK_CHAR)) {
		e = i;
	} else if (kind_is(s, i, TD_CTOK_STRING)) {
		e = i;
		while (kind_is(s, e + 1, TD_CTOK_STRING))
			e++;
	} else {
		return FAILED;
	}
	for (;;) {
		if ((is(s, e + 1, "(") || is(s, e + 1, "[")) && s->match[e + 1] != NONE)
			e = s->match[e + 1];
		else if ((is(s, e + 1, ".") || is(s, e + 1, "->")) && kind_is(s, e + 2, TD_CTOK_IDENT))
			e += 2;
		else if (is_any(s, e + 1, incdec))
			e++;
		else
			return e;
	}
}

/* The last token of the unary expression that starts at token i, or FAILED. */
static size_t unary_fwd(const struct sch *s, size_t i)
{
	while (i < s->n) {
		if (is(s, i, "!") || is(s, i, "~") || is_any(s, i, ambiguous) || is_any(s, i, incdec)) {
			i++;
		} else if (is_any(s, i, sizeof_words)) {
			if (is(s, i + 1, "(") && s->match[i + 1] != NONE &&
			    type_like(s, i + 1, s->match[i + 1]))
				return s->match[i + 1];
			i++;
		} else if (is(s, i, "(") && s->match[i] != NONE && type_like(s, i, s->match[i])) {
			size_t c = s->match[i];

			if (is_any(s, c + 1, ambiguous))
				return FAILED; /* (x) - y: undecided, as above */
			if (binary_prec(s, c + 1) || is(s, c + 1, ")") || is(s, c + 1, ";") ||
			    is(s, c + 1, ",") || is(s, c + 1, "]") || is(s, c + 1, "?") || is(s, c + 1, ":"))
				return postfix_fwd(s, i); /* (x) < y: a parenthesised name */
			i = c + 1; /* a cast */
		} else {
			return postfix_fwd(s, i);
		}
	}
	return FAILED;
}

/* The last token of the right operand of the binary operator at o, or FAILED. */
static size_t right_operand(const struct sch *s, size_t o, int prec)
{
	static const char *const edges[] = {
	    ")", "]", "}", ";", ",", "?", ":", "=", "+=", "-=", "*=", "/=", "%=", "<<=", ">>=",
	    "&=", "^=", "|=", NULL,
	};
	size_t i = o + 1;

	for (;;) {
		size_t e = unary_fwd(s, i);
		int p;

		if (e == FAILED || e + 1 >= s->n)
			return FAILED;
		p = binary_prec(s, e + 1);
		if (p > prec)
			i = e + 2;
		else if (p || is_any(s, e + 1, edges))
			return e;
		else
			return FAILED;
	}
}

/* --- the points ------------------------------------------------------------ */

/* The code token that starts at byte off, or NONE. */
static size_t token_at(const struct sch *s, size_t off)
{
	size_t lo = 0, hi = s->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (tok(s, mid)->off < off)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < s->n && tok(s, lo)->off == off ? lo : NONE;
}

/* The code token that ends at byte end, searching from token i, or NONE. */
static size_t token_ending(const struct sch *s, size_t i, size_t end)
{
	for (; i < s->n && tok(s, i)->off < end; i++)
		if (tok(s, i)->off + tok(s, i)->len == end)
			return i;
	return NONE;
}

/*
 * Why the statement around token i rules a rewrite out (a case label, a
 * static or _Static_assert line: constant expressions), or NULL.
 */
static const char *statement_rules_out(const struct sch *s, size_t i)
{
	size_t st = i;
	int open = 0;

	while (st > 0 && !is(s, st - 1, ";") && !is(s, st - 1, "{") && !is(s, st - 1, "}"))
		st--;
	if (is(s, st, "static") || is(s, st, "_Static_assert") || is(s, st, "static_assert"))
		return "in a static declaration (a constant expression)";
	if (!is(s, st, "case"))
		return NULL;
	for (size_t k = st + 1; k < i; k++) { /* the label's `:`, not a `?:`'s, ends it */
		if (is(s, k, "?"))
			open++;
		else if (is(s, k, ":") && open-- == 0)
			return NULL;
	}
	return "in a case label (a constant expression)";
}

/* Words a declaration's type may end with, before its declarator's name. */
static const char *const type_words[] = {
	"void",	    "char",    "short",	   "int",   "long",	"float", "double", "signed",
	"unsigned", "_Bool",   "_Complex", "const", "volatile", "restrict", "_Atomic", NULL,
};

/*
 * Whether the statement that holds token k (before it, groups and
 * initialisers skipped) starts as a declaration: a type word, struct,
 * union or enum, or a name followed by a name or a `*`.
 */
static int starts_declaration(const struct sch *s, size_t k)
{
	static const char *const starts[] = {"struct", "union", "enum", "register", NULL};

	while (k > 0 && !is(s, k - 1, ";") && !is(s, k - 1, "{")) {
		size_t m = s->match[k - 1];

		if (is(s, k - 1, "}") && (m == NONE || m == 0 || !is(s, m - 1, "=")))
			break; /* a block's end; an initialiser's is skipped */
		if ((is(s, k - 1, ")") || is(s, k - 1, "]") || is(s, k - 1, "}")) && m != NONE)
			k = m;
		else
			k--;
	}
	return is_any(s, k, type_words) || is_any(s, k, starts) ||
	       (kind_is(s, k, TD_CTOK_IDENT) &&
		(kind_is(s, k + 1, TD_CTOK_IDENT) || is(s, k + 1, "*")));
}

/*
 * Whether token i lies in the size of an array declarator: `T name[...]`,
 * `T *name[...]` or a later dimension, `T name[2][...]`, where T ends in a
 * name or a type word, or a later declarator of a declaration, `T a,
 * b[...]`. A run-time choice there makes a variable-length array, which
 * may not be initialised, and a size is a constant the type may need
 * elsewhere. The statement must start as a declaration does, so
 * that `return a * b[2]` is an expression; `x * b[2];` alone would read as
 * a declaration, which only sends it to be built one by one.
 */
static int in_array_size(const struct sch *s, size_t i)
{
	for (size_t k = i; k-- > 0;) {
		if ((is(s, k, ")") || is(s, k, "]")) && s->match[k] != NONE && s->match[k] < k) {
			k = s->match[k]; /* a whole group before i */
			continue;
		}
		if (is(s, k, ";") || is(s, k, "{") || is(s, k, "}"))
			return 0;
		if (!is(s, k, "["))
			continue;
		while (k > 0 && is(s, k - 1, "]") && s->match[k - 1] != NONE)
			k = s->match[k - 1]; /* back over the earlier dimensions */
		if (k < 2 || !kind_is(s, k - 1, TD_CTOK_IDENT))
			return 0;
		k -= 2; /* the token before the name */
		if (is(s, k, "*") && k > 0)
			k--;
		return (is(s, k, ",") || kind_is(s, k, TD_CTOK_IDENT) || is_any(s, k, type_words)) &&
		       starts_declaration(s, k);
	}
	return 0;
}

/* Whether the source between code tokens a and b holds a directive or a line break in a token. */
static int unsafe_between(const struct sch *s, size_t a, size_t b)
{
	const td_ctok *t0 = &s->tl->toks[s->sig[a]], *t1 = &s->tl->toks[s->sig[b]];

	for (const td_ctok *t = t0; t <= t1; t++)
		if (t->kind == TD_CTOK_PREPROC ||
		    (t->kind != TD_CTOK_COMMENT && memchr(s->tl->src + t->off, '\n', t->len)))
			return 1;
	return 0;
}

/* Sets sp from point p, or p->why_not; TD_EINVAL when p is at no token of its class. */
static int place(const struct sch *s, td_schema_point *p, struct span *sp, const char *path)
{
	size_t t = token_at(s, p->off);
	const char *why;

	sp->p = p, sp->op = NONE;
	if (strcmp(p->cls, "macro") == 0) {
		p->why_not = "in a macro body";
		return 0;
	}
	if (t == NONE)
		return TD_FAIL(TD_EINVAL, "%s: a mutant at byte %zu starts at no token", path, p->off);
	if (strcmp(p->cls, "relational") == 0 || strcmp(p->cls, "arithmetic") == 0 ||
	    strcmp(p->cls, "logical") == 0) {
		int prec = binary_prec(s, t);

		if (!prec || p->len != tok(s, t)->len)
			return TD_FAIL(TD_EINVAL, "%s: the mutant at byte %zu is at no operator", path,
				       p->off);
		sp->op = t;
		sp->first = t > 0 ? left_operand(s, t, prec) : FAILED;
		sp->last = right_operand(s, t, prec);
	} else if (strcmp(p->cls, "constant") == 0) {
		sp->op = sp->first = sp->last = t;
	} else if (strcmp(p->cls, "negated-condition") == 0 ||
		   strcmp(p->cls, "removed-call") == 0) {
		sp->first = t;
		sp->last = token_ending(s, t, p->off + p->len);
		if (sp->last == NONE)
			return TD_FAIL(TD_EINVAL, "%s: the mutant at byte %zu ends at no token", path,
				       p->off);
	} else {
		p->why_not = "of a class schemata do not rewrite";
		return 0;
	}
	if (sp->first == FAILED || sp->last == FAILED)
		p->why_not = "its operands cannot be read from the tokens with certainty";
	else if ((why = statement_rules_out(s, sp->first)))
		p->why_not = why;
	else if (in_array_size(s, sp->first))
		p->why_not = "in an array size of a declaration (a constant the type may need)";
	else if (unsafe_between(s, sp->first, sp->last))
		p->why_not = "a directive or a multi-line token inside its expression";
	else
		for (size_t i = sp->first; i <= sp->last && !p->why_not; i++)
			if (is(s, i, "{") && strcmp(p->cls, "removed-call") != 0)
				p->why_not = "a brace inside its expression";
	return 0;
}

/* Outer spans first: by first token, then the longer; ties in input order. */
static int span_cmp(const void *a, const void *b)
{
	const struct span *x = a, *y = b;

	if (x->first != y->first)
		return x->first < y->first ? -1 : 1;
	if (x->last != y->last)
		return x->last > y->last ? -1 : 1;
	return x->p < y->p ? -1 : x->p > y->p;
}

/* --- writing ------------------------------------------------------------------ */

struct out {
	char *buf;
	size_t len, cap;
	int err;
};

static void put(struct out *o, const char *text, size_t n)
{
	if (o->err)
		return;
	if ((o->err = td_grow(&o->buf, &o->cap, o->len + n + 1, 1)))
		return;
	memcpy(o->buf + o->len, text, n);
	o->len += n;
	o->buf[o->len] = '\0';
}

static void puts_(struct out *o, const char *text)
{
	put(o, text, strlen(text));
}

/* The original tokens of sp, one space apart, its own token replaced by its replacement. */
static void put_copy(struct out *o, const struct sch *s, const struct span *sp)
{
	for (size_t i = sp->first; i <= sp->last; i++) {
		const td_ctok *t = tok(s, i);

		if (i > sp->first)
			puts_(o, " ");
		if (i == sp->op)
			puts_(o, sp->p->repl);
		else
			put(o, s->tl->src + t->off, t->len);
	}
}

/*
 * "(td_schema_hit_HASH[k] || td_schema_mark_(...))": the point is reached,
 * written once to the coverage file (the first time only: a load and a
 * branch after that).
 */
static void put_hit(struct out *o, const char *tag, size_t k, unsigned number)
{
	char text[160];

	snprintf(text, sizeof text,
		 "(void)(td_schema_hit_%s[%zu] || td_schema_mark_(&td_schema_hit_%s[%zu], %uu))", tag,
		 k, tag, k, number);
	puts_(o, text);
}

static void put_open(struct out *o, const struct sch *s, const struct span *sp, const char *tag,
		     size_t k)
{
	char head[80];

	if (strcmp(sp->p->cls, "removed-call") == 0) {
		snprintf(head, sizeof head, "{ if (td_schema_on_ != %u) { ", sp->p->number);
		puts_(o, head);
		put_hit(o, tag, k, sp->p->number);
		puts_(o, "; ");
		return;
	}
	snprintf(head, sizeof head, "(td_schema_on_ == %u ? ", sp->p->number);
	puts_(o, head);
	if (strcmp(sp->p->cls, "negated-condition") == 0)
		puts_(o, "!(");
	put_copy(o, s, sp);
	puts_(o, strcmp(sp->p->cls, "negated-condition") == 0 ? ") : (" : " : (");
	put_hit(o, tag, k, sp->p->number);
	puts_(o, strcmp(sp->p->cls, "negated-condition") == 0 ? ", (" : ", ");
}

static void put_close(struct out *o, const struct span *sp)
{
	if (strcmp(sp->p->cls, "removed-call") == 0)
		puts_(o, " } }");
	else if (strcmp(sp->p->cls, "negated-condition") == 0)
		puts_(o, ")))");
	else
		puts_(o, "))");
}

/*
 * Declares getenv, open and write without a header (a header here would
 * come before the file's own feature macros); reads the mutant number
 * and opens the coverage file once, before main. The guard lets a file
 * that includes another schema's file hold one copy; each file's reached
 * points have an array of their own (its tag, from its path).
 */
static const char prologue[] =
	"#ifndef TD_SCHEMA_PROLOGUE_\n"
	"#define TD_SCHEMA_PROLOGUE_ /* tdaudit mutate: a mutant schema (docs/mutate.md) */\n"
	"extern char *getenv(const char *);\n"
	"extern int open(const char *, int, ...);\n"
	"extern long write(int, const void *, unsigned long);\n"
	"static unsigned td_schema_on_;\n"
	"static int td_schema_fd_ = -1;\n"
	"__attribute__((constructor, used)) static void td_schema_init_(void)\n"
	"{ const char *s = getenv(\"" TD_SCHEMA_ENV "\"), *c = getenv(\"" TD_SCHEMA_COVERAGE_ENV "\");\n"
	"  for (; s && *s >= '0' && *s <= '9'; s++) td_schema_on_ = td_schema_on_ * 10u + (unsigned)(*s - '0');\n"
	"  if (c && *c) td_schema_fd_ = open(c, 02002101 /* O_WRONLY|O_CREAT|O_APPEND|O_CLOEXEC */, 0644); }\n"
	"__attribute__((unused)) static int td_schema_mark_(unsigned char *hit, unsigned n)\n"
	"{ char b[12]; int i = 11; b[11] = '\\n'; do b[--i] = (char)('0' + n % 10u); while (n /= 10u);\n"
	"  *hit = 1; if (td_schema_fd_ >= 0) (void)!write(td_schema_fd_, b + i, (unsigned long)(12 - i)); return 1; }\n"
	"#endif\n";

static int index_code(struct sch *s)
{
	size_t *stack, depth = 0;

	s->sig = malloc((s->tl->n + 1) * sizeof *s->sig);
	s->match = malloc((s->tl->n + 1) * sizeof *s->match);
	stack = malloc((s->tl->n + 1) * sizeof *stack);
	if (!s->sig || !s->match || !stack) {
		free(stack);
		return TD_FAIL(TD_ENOMEM, "out of memory for a schema");
	}
	for (size_t i = 0; i < s->tl->n; i++)
		if (s->tl->toks[i].kind != TD_CTOK_COMMENT && s->tl->toks[i].kind != TD_CTOK_PREPROC)
			s->sig[s->n++] = i;
	for (size_t i = 0; i < s->n; i++) {
		s->match[i] = NONE;
		if (is(s, i, "(") || is(s, i, "[") || is(s, i, "{")) {
			stack[depth++] = i;
		} else if ((is(s, i, ")") || is(s, i, "]") || is(s, i, "}")) && depth) {
			s->match[i] = stack[--depth];
			s->match[s->match[i]] = i;
		}
	}
	free(stack);
	return 0;
}

/*
 * Keeps the spans that nest: a span that starts inside an earlier one and
 * ends after it is left out. Returns how many are kept at the front.
 */
static size_t keep_nested(struct span *sp, size_t n)
{
	size_t *stack = malloc((n + 1) * sizeof *stack), depth = 0, k = 0;

	if (!stack)
		return (size_t)-1;
	for (size_t i = 0; i < n; i++) {
		while (depth && sp[stack[depth - 1]].last < sp[i].first)
			depth--;
		if (depth && sp[i].last > sp[stack[depth - 1]].last) {
			sp[i].p->why_not = "its expression overlaps another mutant's without nesting";
			continue;
		}
		sp[k] = sp[i];
		stack[depth++] = k++;
	}
	free(stack);
	return k;
}

int td_schema_write(char **out, size_t *out_len, size_t *n_in, const char *path, const char *src,
		    size_t len, td_schema_point *pts, size_t n)
{
	td_ctok_list *tl = NULL;
	struct sch s = {0};
	struct span *sp = NULL;
	struct out o = {0};
	size_t ns = 0, k = 0, at = 0;
	char tag[17] = "";
	int err;

	*out = NULL;
	*n_in = 0;
	err = td_ctok_lex(&tl, src, len, path);
	s.tl = tl;
	if (!err)
		err = index_code(&s);
	if (!err && !(sp = calloc(n + 1, sizeof *sp)))
		err = TD_FAIL(TD_ENOMEM, "out of memory for a schema of %s", path);
	for (size_t i = 0; i < n && !err; i++) {
		pts[i].why_not = pts[i].leave_out ? "left out" : NULL;
		if (!pts[i].why_not)
			err = place(&s, &pts[i], &sp[ns], path);
		if (!err && !pts[i].why_not)
			ns++;
	}
	if (!err) {
		qsort(sp, ns, sizeof *sp, span_cmp);
		ns = keep_nested(sp, ns);
		if (ns == (size_t)-1)
			err = TD_FAIL(TD_ENOMEM, "out of memory for a schema of %s", path);
	}
	if (!err) {
		char decl[160];
		uint64_t h = 1469598103934665603ull;

		for (const char *c = path; *c; c++)
			h = (h ^ (unsigned char)*c) * 1099511628211ull;
		snprintf(tag, sizeof tag, "%016llx", (unsigned long long)h);
		snprintf(decl, sizeof decl, "static unsigned char td_schema_hit_%s[%zu];\n#line 1\n", tag,
			 ns ? ns : 1);
		puts_(&o, prologue);
		puts_(&o, decl);
	}
	/*
	 * Token by token: the source before it, the opens that start there,
	 * the token, then the closes that end there, innermost first: the
	 * spans open at a token are the last ones pushed.
	 */
	size_t *open = err ? NULL : malloc((ns + 1) * sizeof *open), depth = 0;
	if (!err && !open)
		err = TD_FAIL(TD_ENOMEM, "out of memory for a schema of %s", path);
	for (size_t i = 0; i < s.n && !err; i++) {
		const td_ctok *t = tok(&s, i);

		put(&o, src + at, t->off - at);
		for (; k < ns && sp[k].first == i; k++) {
			put_open(&o, &s, &sp[k], tag, k);
			open[depth++] = k;
		}
		put(&o, src + t->off, t->len);
		at = t->off + t->len;
		while (depth && sp[open[depth - 1]].last == i)
			put_close(&o, &sp[open[--depth]]);
		err = o.err;
	}
	if (!err)
		put(&o, src + at, len - at);
	if (!err && o.err)
		err = TD_FAIL(TD_ENOMEM, "out of memory for a schema of %s", path);
	free(open);
	free(sp);
	free(s.sig);
	free(s.match);
	td_ctok_list_free(tl);
	if (err) {
		free(o.buf);
		return err;
	}
	*out = o.buf;
	*out_len = o.len;
	*n_in = ns;
	return 0;
}
