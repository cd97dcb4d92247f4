/*
 * test_ctok.c - the C tokenizer: longest-match punctuators, literals,
 * comments and directives as single tokens, positions, refusals, bounds.
 *
 * What these tests guard: tdaudit mutate --list --file harness/ctok.c
 */
#include "tdtest.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../base/error.h"
#include "../harness/ctok.h"

/*
 * The tokens of src as "kind:text" joined by single spaces, into a static
 * buffer (a test helper: one call per assertion).
 */
static const char *lexed(const char *src)
{
	static char buf[4096];
	td_ctok_list *l;
	size_t n = 0;

	assert_int_equal(td_ctok_lex(&l, src, strlen(src), "t.c"), 0);
	buf[0] = '\0';
	for (size_t i = 0; i < l->n; i++) {
		const td_ctok *t = &l->toks[i];

		n += (size_t)snprintf(buf + n, sizeof buf - n, "%s%s:%.*s", i ? " " : "",
				      td_ctok_kind_name(t->kind), (int)t->len, src + t->off);
		assert_true(n < sizeof buf);
	}
	td_ctok_list_free(l);
	return buf;
}

static void test_compound_operators_lex_as_one_token_by_longest_match(void **state)
{
	(void)state;
	assert_string_equal(lexed("a<<=b"), "ident:a punct:<<= ident:b");
	assert_string_equal(lexed("x->y"), "ident:x punct:-> ident:y");
	assert_string_equal(lexed("a<=b>=c==d!=e&&f||g"),
			    "ident:a punct:<= ident:b punct:>= ident:c punct:== ident:d "
			    "punct:!= ident:e punct:&& ident:f punct:|| ident:g");
	assert_string_equal(lexed("i++ - --j"), "ident:i punct:++ punct:- punct:-- ident:j");
	assert_string_equal(lexed("f(...)>>=2"),
			    "ident:f punct:( punct:... punct:) punct:>>= number:2");
	assert_string_equal(lexed("if (a) return"),
			    "keyword:if punct:( ident:a punct:) keyword:return");
}

static void test_literals_hide_operators_and_comment_markers(void **state)
{
	(void)state;
	assert_string_equal(lexed("\"a<b /* not a comment */\""),
			    "string:\"a<b /* not a comment */\"");
	assert_string_equal(lexed("c = '<';"), "ident:c punct:= char:'<' punct:;");
	assert_string_equal(lexed("\"q\\\"<\" \"adj\""), "string:\"q\\\"<\" string:\"adj\"");
	assert_string_equal(lexed("'\\''"), "char:'\\''");
	assert_string_equal(lexed("u8\"x\" L'c' U\"y\""), "string:u8\"x\" char:L'c' string:U\"y\"");
	assert_string_equal(lexed("\"// no\" x"), "string:\"// no\" ident:x");
}

static void test_comments_are_single_tokens(void **state)
{
	(void)state;
	assert_string_equal(lexed("a // c < d\nb"), "ident:a comment:// c < d ident:b");
	assert_string_equal(lexed("a /* x\n < y */ b"), "ident:a comment:/* x\n < y */ ident:b");
	assert_string_equal(lexed("a/**/b/ c"), "ident:a comment:/**/ ident:b punct:/ ident:c");
	assert_string_equal(lexed("// one \\\n still the comment\nx"),
			    "comment:// one \\\n still the comment ident:x");
}

static void test_a_directive_with_its_continuation_lines_is_one_token(void **state)
{
	const char *src = "#define LT(a,b) ((a)<(b)) \\\n\t&& 1\nint x;\n  # include <a//b.h>\n";
	td_ctok_list *l;

	(void)state;
	assert_string_equal(lexed(src), "preproc:#define LT(a,b) ((a)<(b)) \\\n\t&& 1 keyword:int "
					"ident:x punct:; preproc:# include <a//b.h>");
	assert_int_equal(td_ctok_lex(&l, src, strlen(src), "t.c"), 0);
	assert_int_equal(l->toks[1].line, 3); /* `int` after the two-line directive */
	td_ctok_list_free(l);
	assert_string_equal(lexed("#if A /* spans\n lines */ && B\nx"),
			    "preproc:#if A /* spans\n lines */ && B ident:x");
	assert_string_equal(lexed("a # b"), "ident:a punct:# ident:b"); /* not at a line start */
	assert_string_equal(lexed("/* c */ #x\ny"), "comment:/* c */ preproc:#x ident:y");
}

static void test_numbers_lex_as_whole_pp_numbers(void **state)
{
	(void)state;
	assert_string_equal(lexed("1e-5f 0x1F .5 10ul 1.5E+3 0x1p-3 07"),
			    "number:1e-5f number:0x1F number:.5 number:10ul number:1.5E+3 "
			    "number:0x1p-3 number:07");
	assert_string_equal(lexed("a-1+b"), "ident:a punct:- number:1 punct:+ ident:b");
	assert_string_equal(lexed("x.y"), "ident:x punct:. ident:y");
}

static void test_tokens_record_offset_length_line_and_column(void **state)
{
	const char *src = "int a;\n\tb <= 10;\n";
	td_ctok_list *l;

	(void)state;
	assert_int_equal(td_ctok_lex(&l, src, strlen(src), NULL), 0);
	assert_int_equal(l->n, 7);
	assert_int_equal(l->toks[3].kind, TD_CTOK_IDENT); /* b */
	assert_int_equal(l->toks[3].off, 8);
	assert_int_equal(l->toks[3].line, 2);
	assert_int_equal(l->toks[3].col, 2);
	assert_int_equal(l->toks[4].off, 10); /* <= */
	assert_int_equal(l->toks[4].len, 2);
	assert_int_equal(l->toks[4].col, 4);
	assert_int_equal(l->toks[5].len, 2); /* 10 */
	assert_int_equal(l->toks[5].line, 2);
	assert_true(td_ctok_is(l, &l->toks[4], "<="));
	assert_false(td_ctok_is(l, &l->toks[4], "<"));
	td_ctok_list_free(l);
}

static void test_an_unterminated_comment_or_literal_is_refused_with_its_line(void **state)
{
	static const char comment[] = "int a;\n\n/* open\n never closed\n";
	static const char string[] = "int a;\nchar *s = \"abc\n\";\n";
	static const char chr[] = "x = '";
	td_ctok_list *l = (td_ctok_list *)&l;

	(void)state;
	TD_ASSERT_REFUSED(td_ctok_lex(&l, comment, strlen(comment), "t.c"), TD_EINVAL,
			  "t.c:3: unterminated /* comment");
	assert_null(l);
	TD_ASSERT_REFUSED(td_ctok_lex(&l, string, strlen(string), "t.c"), TD_EINVAL,
			  "t.c:2: unterminated string");
	TD_ASSERT_REFUSED(td_ctok_lex(&l, chr, strlen(chr), "t.c"), TD_EINVAL,
			  "t.c:1: unterminated character");
}

/*
 * Lexes the first len bytes of src. exact: from an exact-size heap copy, so
 * that ASan sees any read past the end; otherwise from a copy of the whole
 * string, so that a read past len changes the tokens and is seen anywhere.
 * Returns NULL when the prefix is refused (an unterminated literal).
 */
static td_ctok_list *lex_prefix(const char *src, size_t len, int exact)
{
	size_t size = exact ? (len ? len : 1) : strlen(src) + 1;
	char *copy = malloc(size);
	td_ctok_list *l;
	int err;

	assert_non_null(copy);
	memcpy(copy, src, exact ? len : size);
	err = td_ctok_lex(&l, copy, len, "t.c");
	if (err == 0) {
		for (size_t i = 0; i < l->n; i++)
			assert_true(l->toks[i].len > 0 && l->toks[i].off + l->toks[i].len <= len);
		l->src = NULL; /* the copy goes now; only positions are kept */
	}
	free(copy);
	return err ? NULL : l;
}

static void test_the_lexer_never_reads_past_the_buffer(void **state)
{
	static const char *const cuts[] = {"a<<=b", "x /=",	"0x1F",	   "#define A \\\n",
					   "'\\n'", "\"ab\\\"", "/* x */", "a\\\nb",
					   "L'x'",  "u8\"\"",	"...",	   "->",
					   "1e-5"};
	td_ctok_list *l;

	(void)state;
	for (size_t i = 0; i < sizeof cuts / sizeof cuts[0]; i++)
		for (size_t n = 0; n <= strlen(cuts[i]); n++) {
			td_ctok_list_free(lex_prefix(cuts[i], n, 1));
			td_ctok_list_free(lex_prefix(cuts[i], n, 0));
		}
	l = lex_prefix("0x1F", 3, 0); /* the F lies beyond len */
	assert_int_equal(l->n, 1);
	assert_int_equal(l->toks[0].len, 3);
	td_ctok_list_free(l);
	l = lex_prefix("a<<=b", 2, 0);
	assert_int_equal(l->n, 2);
	assert_int_equal(l->toks[1].len, 1); /* `<`, not `<<=` */
	td_ctok_list_free(l);
	l = lex_prefix("a\0b @", 5, 1); /* a NUL byte is a byte, not the end */
	assert_int_equal(l->n, 4);
	assert_int_equal(l->toks[1].kind, TD_CTOK_OTHER);
	assert_int_equal(l->toks[3].kind, TD_CTOK_OTHER);
	td_ctok_list_free(l);
}

static const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_compound_operators_lex_as_one_token_by_longest_match),
    cmocka_unit_test(test_literals_hide_operators_and_comment_markers),
    cmocka_unit_test(test_comments_are_single_tokens),
    cmocka_unit_test(test_a_directive_with_its_continuation_lines_is_one_token),
    cmocka_unit_test(test_numbers_lex_as_whole_pp_numbers),
    cmocka_unit_test(test_tokens_record_offset_length_line_and_column),
    cmocka_unit_test(test_an_unterminated_comment_or_literal_is_refused_with_its_line),
    cmocka_unit_test(test_the_lexer_never_reads_past_the_buffer),
};
TD_TEST_GROUP(ctok, tests);
