-- mutations/harness/ctok.lua: the mutants of harness/ctok.c, the C tokenizer
-- that generate{} reads source files with (see ctok.h).
--
-- Each entry re-introduces one bug class into the module and names the tests
-- that must notice; every name starts with "ctok-". Format:
-- harness/catalogue.h; layout, naming and listing: mutations/README.md.

mutant {
  name = "ctok-advance-steps-past-the-end",
  file = "harness/ctok.c",
  find = "for (; n > 0 && lx->pos < lx->len; n--) {",
  replace = "for (; n > 0; n--) {",
  guards = { "test_the_lexer_never_reads_past_the_buffer" },
  designed_against = "the lexer never reads past the buffer it is given",
  why = "a backslash that ends the buffer steps two bytes, so its token ends past len (under ASan a heap-buffer-overflow)",
}

mutant {
  name = "ctok-columns-run-on",
  file = "harness/ctok.c",
  find = "lx->line_start = lx->pos;",
  replace = "",
  guards = { "test_tokens_record_offset_length_line_and_column" },
  designed_against = "a mutant's position is reported as line and column of its file",
  why = "a newline no longer starts a line, so columns count from the start of the buffer",
}

mutant {
  name = "ctok-unterminated-comment-names-the-last-line",
  file = "harness/ctok.c",
  find = "if (at(lx, 0) < 0)",
  replace = "if (at(lx, 0) < 0 && (line = lx->line) > 0)",
  guards = { "test_an_unterminated_comment_or_literal_is_refused_with_its_line" },
  designed_against = "an unterminated comment is refused with the line it opens on, where the fix is",
  why = "skip_block_comment() names the line where the buffer ends instead of the line the comment opens on",
}

mutant {
  name = "ctok-escape-takes-one-byte",
  file = "harness/ctok.c",
  find = "advance(lx, c == '\\\\' ? 2 : 1);",
  replace = "advance(lx, 1);",
  guards = { "test_literals_hide_operators_and_comment_markers" },
  designed_against = "nothing inside a literal is code, an escaped quote included",
  why = "skip_quoted() steps one byte past a backslash, so an escaped quote closes the string",
}

mutant {
  name = "ctok-directive-ends-at-a-splice",
  file = "harness/ctok.c",
  find = "if (splice_at(lx, 0))",
  occurrence = 2, -- skip_directive(); the first is skip_quoted()
  replace = "if (0)",
  guards = { "test_a_directive_with_its_continuation_lines_is_one_token" },
  designed_against = "a multi-line macro is one directive, never code to mutate",
  why = "skip_directive() stops at the first backslash-newline, so the continuation lines lex as code",
}

mutant {
  name = "ctok-exponent-sign-splits-a-number",
  file = "harness/ctok.c",
  find = "if ((c == '+' || c == '-') && is_exponent_mark(lx->src[lx->pos - 1]))",
  replace = "if (0 && is_exponent_mark(lx->src[lx->pos - 1]))",
  guards = { "test_numbers_lex_as_whole_pp_numbers" },
  designed_against = "a pp-number such as 1e-5f is one token, never a subtraction",
  why = "skip_number() stops at the sign after e/E/p/P, so 1e-5f lexes as 1e - 5f",
}

mutant {
  name = "ctok-shift-assign-splits",
  file = "harness/ctok.c",
  find = "\"%:%:\", \"<<=\",",
  replace = "\"%:%:\",",
  guards = { "test_compound_operators_lex_as_one_token_by_longest_match" },
  designed_against = "punctuators lex by longest match",
  why = "drops <<= from puncts[], so it lexes as << and =",
}

mutant {
  name = "ctok-line-comment-lexes-as-divisions",
  file = "harness/ctok.c",
  find = "if (c == '/' && c1 == '/') {",
  replace = "if (0) {",
  guards = { "test_comments_are_single_tokens" },
  designed_against = "a comment is one token, never code to mutate",
  why = "lex_token() loses its // branch, so a line comment lexes as two divisions and its words",
}

mutant {
  name = "ctok-block-comment-lexes-as-code",
  file = "harness/ctok.c",
  find = "if (c == '/' && c1 == '*')",
  replace = "if (0)",
  guards = { "test_nothing_inside_comments_strings_chars_or_directives_is_mutated" },
  designed_against = "no generated mutant lands inside a comment",
  why = "lex_token() loses its /* branch, so the operators inside a block comment are mutated",
}
