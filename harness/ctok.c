/*
 * ctok.c - a C tokenizer over a byte buffer (see ctok.h).
 *
 * Must never read past the buffer: every byte is read through at(), which
 * answers -1 beyond the end. Must never guess: an unterminated comment or
 * literal is refused with the line it starts on, never closed silently,
 * because a mutant generated from a misread file would edit a comment.
 */
#include "ctok.h"

#include <stdlib.h>
#include <string.h>

#include "../base/error.h"
#include "../base/grow.h"

struct lexer {
	const char *src;
	size_t len;
	const char *name; /* for messages; never NULL */
	size_t pos;
	int line;	   /* line of src[pos] */
	size_t line_start; /* offset of the first byte of that line */
	int bol;	   /* only whitespace or comments since the line began */
	td_ctok *toks;
	size_t n, cap;
};

/* The byte k places ahead of the cursor, or -1 past the end. */
static int at(const struct lexer *lx, size_t k)
{
	if (k >= lx->len - lx->pos)
		return -1;
	return (unsigned char)lx->src[lx->pos + k];
}

/* Moves the cursor n bytes on (never past the end), counting lines. */
static void advance(struct lexer *lx, size_t n)
{
	for (; n > 0 && lx->pos < lx->len; n--) {
		if (lx->src[lx->pos++] == '\n') {
			lx->line++;
			lx->line_start = lx->pos;
			lx->bol = 1;
		}
	}
}

/* Length of a line splice (backslash, optional CR, newline) k bytes ahead, or 0. */
static size_t splice_at(const struct lexer *lx, size_t k)
{
	if (at(lx, k) != '\\')
		return 0;
	if (at(lx, k + 1) == '\n')
		return 2;
	if (at(lx, k + 1) == '\r' && at(lx, k + 2) == '\n')
		return 3;
	return 0;
}

static int is_ident_byte(int c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
	       c == '_' || c == '$' || c >= 0x80;
}

static int is_digit(int c)
{
	return c >= '0' && c <= '9';
}

static int is_space(int c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f';
}

/* Appends a token from start (with its line and column) to the cursor. */
static int emit(struct lexer *lx, td_ctok_kind kind, size_t start, int line, int col)
{
	int err = td_grow(&lx->toks, &lx->cap, lx->n + 1, sizeof *lx->toks);

	if (err)
		return err;
	lx->toks[lx->n++] = (td_ctok){kind, start, lx->pos - start, line, col};
	lx->bol = 0;
	return 0;
}

/* Skips a block comment whose opening is at the cursor. */
static int skip_block_comment(struct lexer *lx)
{
	int line = lx->line;

	advance(lx, 2);
	while (!(at(lx, 0) == '*' && at(lx, 1) == '/')) {
		if (at(lx, 0) < 0)
			return TD_FAIL(TD_EINVAL,
				       "%s:%d: unterminated /* comment; close it with */", lx->name,
				       line);
		advance(lx, 1);
	}
	advance(lx, 2);
	return 0;
}

/* Skips a // comment up to (not including) the newline that ends it; splices continue it. */
static void skip_line_comment(struct lexer *lx)
{
	while (at(lx, 0) >= 0 && at(lx, 0) != '\n')
		advance(lx, splice_at(lx, 0) ? splice_at(lx, 0) : 1);
}

/*
 * Skips a string or character literal whose opening quote is at the cursor.
 * strict: an unescaped newline or the end of the buffer is an error (code);
 * otherwise (inside a directive, where `#error don't` is seen) the literal
 * just ends before the newline.
 */
static int skip_quoted(struct lexer *lx, int strict)
{
	int quote = at(lx, 0), line = lx->line;

	advance(lx, 1);
	for (;;) {
		int c = at(lx, 0);

		if (c == quote) {
			advance(lx, 1);
			return 0;
		}
		if (c < 0 || c == '\n') {
			if (!strict)
				return 0;
			return TD_FAIL(TD_EINVAL,
				       "%s:%d: unterminated %s literal; close it with %c", lx->name,
				       line, quote == '"' ? "string" : "character", quote);
		}
		if (splice_at(lx, 0))
			advance(lx, splice_at(lx, 0));
		else
			advance(lx, c == '\\' ? 2 : 1); /* an escape takes the byte after it */
	}
}

/*
 * Skips a whole directive: from the `#` at the cursor to the newline that is
 * not spliced, passing over comments (a block comment may span lines) and
 * literals inside it.
 */
static int skip_directive(struct lexer *lx)
{
	advance(lx, 1);
	while (at(lx, 0) >= 0 && at(lx, 0) != '\n') {
		int c = at(lx, 0), err = 0;

		if (splice_at(lx, 0))
			advance(lx, splice_at(lx, 0));
		else if (c == '/' && at(lx, 1) == '*')
			err = skip_block_comment(lx);
		else if (c == '/' && at(lx, 1) == '/')
			skip_line_comment(lx);
		else if (c == '"' || c == '\'')
			err = skip_quoted(lx, 0);
		else
			advance(lx, 1);
		if (err)
			return err;
	}
	return 0;
}

static int is_exponent_mark(char c)
{
	return c == 'e' || c == 'E' || c == 'p' || c == 'P';
}

/* Skips a pp-number: digits, letters, `_`, `.`, a sign after e/E/p/P, C23 `'` separators. */
static void skip_number(struct lexer *lx)
{
	advance(lx, 1);
	for (;;) {
		int c = at(lx, 0);

		if ((c == '+' || c == '-') && is_exponent_mark(lx->src[lx->pos - 1]))
			advance(lx, 1);
		else if (is_ident_byte(c) || c == '.')
			advance(lx, 1);
		else if (c == '\'' && is_ident_byte(at(lx, 1)))
			advance(lx, 2);
		else
			return;
	}
}

/* Punctuators, longest first so that the first match is the longest. */
static const char *const puncts[] = {
    "%:%:", "<<=", ">>=", "...", "->", "++", "--", "<<", ">>", "<=", ">=", "==", "!=", "&&",
    "||",   "*=",  "/=",  "%=",	 "+=", "-=", "&=", "^=", "|=", "##", "<:", ":>", "<%", "%>",
    "%:",   "[",   "]",	  "(",	 ")",  "{",  "}",  ".",	 "&",  "*",  "+",  "-",	 "~",  "!",
    "/",    "%",   "<",	  ">",	 "^",  "|",  "?",  ":",	 ";",  "=",  ",",  "#",
};

/* Length of the punctuator at the cursor, or 0. */
static size_t punct_len(const struct lexer *lx)
{
	for (size_t i = 0; i < sizeof puncts / sizeof puncts[0]; i++) {
		size_t n = strlen(puncts[i]);

		if (n <= lx->len - lx->pos && memcmp(lx->src + lx->pos, puncts[i], n) == 0)
			return n;
	}
	return 0;
}

static const char *const keywords[] = {
    "auto",	     "break",	   "case",	     "char",
    "const",	     "continue",   "default",	     "do",
    "double",	     "else",	   "enum",	     "extern",
    "float",	     "for",	   "goto",	     "if",
    "inline",	     "int",	   "long",	     "register",
    "restrict",	     "return",	   "short",	     "signed",
    "sizeof",	     "static",	   "struct",	     "switch",
    "typedef",	     "union",	   "unsigned",	     "void",
    "volatile",	     "while",	   "_Alignas",	     "_Alignof",
    "_Atomic",	     "_Bool",	   "_Complex",	     "_Generic",
    "_Imaginary",    "_Noreturn",  "_Static_assert", "_Thread_local",
    "__attribute__", "__typeof__", "typeof",	     "asm",
    "__asm__",	     "__inline__", "__restrict__",   "__extension__",
};

static int is_keyword(const char *s, size_t n)
{
	for (size_t i = 0; i < sizeof keywords / sizeof keywords[0]; i++)
		if (strlen(keywords[i]) == n && memcmp(keywords[i], s, n) == 0)
			return 1;
	return 0;
}

/* Lexes an identifier or keyword, or a prefixed literal (u8"x", L'c'). */
static int lex_word(struct lexer *lx, td_ctok_kind *kind)
{
	size_t start = lx->pos, n;

	while (is_ident_byte(at(lx, 0)))
		advance(lx, 1);
	n = lx->pos - start;
	if ((at(lx, 0) == '"' || at(lx, 0) == '\'') &&
	    ((n == 1 && strchr("LuU", lx->src[start])) ||
	     (n == 2 && memcmp(lx->src + start, "u8", 2) == 0))) {
		*kind = at(lx, 0) == '"' ? TD_CTOK_STRING : TD_CTOK_CHAR;
		return skip_quoted(lx, 1);
	}
	*kind = is_keyword(lx->src + start, n) ? TD_CTOK_KEYWORD : TD_CTOK_IDENT;
	return 0;
}

/*
 * Lexes the token at the cursor (whitespace already skipped) and sets its
 * kind. One dispatch on the first byte(s), kept in one function so that the
 * order of the tests, which is what makes `//` a comment and not two
 * divisions, reads top to bottom.
 */
static int lex_token(struct lexer *lx, td_ctok_kind *kind)
{
	int c = at(lx, 0), c1 = at(lx, 1);
	size_t n;

	if (c == '#' && lx->bol) {
		*kind = TD_CTOK_PREPROC;
		return skip_directive(lx);
	}
	*kind = TD_CTOK_COMMENT;
	if (c == '/' && c1 == '/') {
		skip_line_comment(lx);
		return 0;
	}
	if (c == '/' && c1 == '*')
		return skip_block_comment(lx);
	if (c == '"' || c == '\'') {
		*kind = c == '"' ? TD_CTOK_STRING : TD_CTOK_CHAR;
		return skip_quoted(lx, 1);
	}
	if (is_ident_byte(c) && !is_digit(c))
		return lex_word(lx, kind);
	if (is_digit(c) || (c == '.' && is_digit(c1))) {
		*kind = TD_CTOK_NUMBER;
		skip_number(lx);
		return 0;
	}
	n = punct_len(lx);
	*kind = n ? TD_CTOK_PUNCT : TD_CTOK_OTHER;
	advance(lx, n ? n : 1);
	return 0;
}

/* Runs the lexer over the whole buffer. */
static int lex_all(struct lexer *lx)
{
	while (lx->pos < lx->len) {
		size_t start = lx->pos;
		int line = lx->line, col = (int)(lx->pos - lx->line_start) + 1, bol = lx->bol;
		td_ctok_kind kind;
		int err;

		if (is_space(at(lx, 0)) || splice_at(lx, 0)) {
			advance(lx, splice_at(lx, 0) ? splice_at(lx, 0) : 1);
			continue;
		}
		err = lex_token(lx, &kind);
		if (!err)
			err = emit(lx, kind, start, line, col);
		if (err)
			return err;
		if (kind == TD_CTOK_COMMENT && lx->line == line)
			lx->bol = bol; /* a comment does not end the whitespace before a `#` */
	}
	return 0;
}

int td_ctok_lex(td_ctok_list **out, const char *src, size_t len, const char *name)
{
	struct lexer lx = {src, len, name ? name : "<buffer>", 0, 1, 0, 1, NULL, 0, 0};
	td_ctok_list *l;
	int err;

	*out = NULL;
	if (!src && len > 0)
		return TD_FAIL(TD_EINVAL, "no buffer given for %zu bytes of %s", len, lx.name);
	err = lex_all(&lx);
	if (err) {
		free(lx.toks);
		return err;
	}
	l = malloc(sizeof *l);
	if (!l) {
		free(lx.toks);
		return TD_FAIL(TD_ENOMEM, "out of memory for the token list of %s", lx.name);
	}
	*l = (td_ctok_list){lx.toks, lx.n, src, len};
	*out = l;
	return 0;
}

void td_ctok_list_free(td_ctok_list *l)
{
	if (!l)
		return;
	free(l->toks);
	free(l);
}

int td_ctok_is(const td_ctok_list *l, const td_ctok *t, const char *s)
{
	size_t n = strlen(s);

	return t->len == n && memcmp(l->src + t->off, s, n) == 0;
}

const char *td_ctok_kind_name(td_ctok_kind k)
{
	static const char *const names[] = {"ident",   "keyword", "number", "string", "char",
					    "comment", "preproc", "punct",  "other"};

	if ((unsigned)k < sizeof names / sizeof names[0])
		return names[k];
	return "unknown";
}
