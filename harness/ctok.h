/*
 * ctok.h - a C tokenizer for the mutation generator.
 *
 * Splits one C source buffer into tokens: identifiers, keywords, numbers
 * (pp-numbers: hex, suffixes, floats with exponents), string and character
 * literals (with their u8/u/U/L prefixes), comments, preprocessor directives
 * and punctuators (longest match). It exists so that the generator mutates
 * code and never text inside a comment, a literal or a directive: a whole
 * directive, from the `#` that starts its line through every
 * backslash-continued line, is one TD_CTOK_PREPROC token.
 *
 * It is a lexer, not a preprocessor: macros are not expanded, `#if 0` blocks
 * are tokenized like any other code, trigraphs are not replaced. It never
 * reads past the buffer (NUL bytes are ordinary bytes), and it refuses an
 * unterminated comment, string or character literal with the line it
 * started on rather than closing it silently.
 */
#ifndef TD_CTOK_H
#define TD_CTOK_H

#include <stddef.h>

typedef enum td_ctok_kind {
	TD_CTOK_IDENT,	 /* foo, _x1, and any identifier that is not a keyword */
	TD_CTOK_KEYWORD, /* a C11 keyword, or a GNU one such as __attribute__ */
	TD_CTOK_NUMBER,	 /* a pp-number: 0x1F, 10u, 1e-5f, .5 */
	TD_CTOK_STRING,	 /* "a\"b", u8"x"; adjacent literals are separate tokens */
	TD_CTOK_CHAR,	 /* '<', L'\n' */
	TD_CTOK_COMMENT, /* a // or a block comment, delimiters included */
	TD_CTOK_PREPROC, /* a whole directive, continuation lines included */
	TD_CTOK_PUNCT,	 /* an operator or punctuator: <<= -> ... { */
	TD_CTOK_OTHER,	 /* one byte that starts no C token (`@`, a stray `\`) */
} td_ctok_kind;

/* One token: where its text lies in the buffer and where it starts. */
typedef struct td_ctok {
	td_ctok_kind kind;
	size_t off; /* byte offset of its first byte in the buffer */
	size_t len; /* its length in bytes; never 0 */
	int line;   /* 1-based line of its first byte */
	int col;    /* 1-based byte column of its first byte */
} td_ctok;

/* The tokens of one buffer, in source order. Plain data. */
typedef struct td_ctok_list {
	td_ctok *toks; /* n tokens; whitespace and line splices make none */
	size_t n;
	const char *src; /* borrowed: the buffer given to td_ctok_lex */
	size_t src_len;
} td_ctok_list;

/*
 * Tokenizes the len bytes at src. name (may be NULL) is used only in error
 * messages, which read "name:LINE: unterminated ...". Returns 0, or
 * TD_EINVAL for an unterminated comment, string or character literal (the
 * message names the line where it starts), or TD_ENOMEM.
 * Ownership: *out is the caller's, freed with td_ctok_list_free; it borrows
 * src, which must outlive it. On failure *out is NULL.
 */
int td_ctok_lex(td_ctok_list **out, const char *src, size_t len, const char *name);

/* Frees a list; NULL is fine. The borrowed buffer is untouched. */
void td_ctok_list_free(td_ctok_list *l);

/* 1 if token t of list l has exactly the text s, else 0. */
int td_ctok_is(const td_ctok_list *l, const td_ctok *t, const char *s);

/* A stable lower-case name for a kind ("ident", "preproc"); never NULL. */
const char *td_ctok_kind_name(td_ctok_kind k);

#endif
