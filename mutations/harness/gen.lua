-- mutations/harness/gen.lua: the mutants of harness/gen.c, operator mutants
-- from the tokens of one C file (see gen.h).
--
-- Each entry re-introduces one bug class into the module and names the tests
-- that must notice; every name starts with "gen-". Format:
-- harness/catalogue.h; layout, naming and listing: mutations/README.md.

mutant {
  name = "gen-ordinals-always-one",
  file = "harness/gen.c",
  find = "return ++g->ords[i].count;",
  replace = "return 1;",
  guards = {
    "test_identical_operators_in_one_function_get_distinct_ids",
    "test_every_mutant_of_the_core_applies_and_has_a_unique_id",
  },
  designed_against = "every generated mutant has an id of its own",
  why = "next_ordinal() answers 1 for every (class, token) pair, so identical operators in one function share an id",
}

mutant {
  name = "gen-pointer-declarations-multiplied",
  file = "harness/gen.c",
  find = "static const char *const quals[] = {\"*\", \"const\", \"volatile\", \"restrict\", NULL};",
  replace = "static const char *const quals[] = {\"*\", \"const\", \"volatile\", \"restrict\", NULL};\n\n\treturn 0;",
  guards = { "test_unary_minus_and_pointer_derefs_are_not_arithmetic" },
  designed_against = "a declarator's star is not an operator, and a mutant of it does not build",
  why = "declares_pointer() answers 0, so `T *p;` becomes a multiplication to swap",
}

mutant {
  name = "gen-less-than-swaps-to-greater",
  file = "harness/gen.c",
  find = "{\"<\", \"<=\", \"r\"}",
  replace = "{\"<\", \">\", \"r\"}",
  guards = { "test_relational_operators_swap_with_their_neighbours" },
  designed_against = "a relational mutant is the off-by-one neighbour, the bug people write",
  why = "maps < to > instead of <= in visit_punct()'s swaps[]",
}

mutant {
  name = "gen-logical-or-not-swapped",
  file = "harness/gen.c",
  find = "{\"&&\", \"||\", \"l\"}, {\"||\", \"&&\", \"l\"},",
  replace = "{\"&&\", \"||\", \"l\"},",
  guards = { "test_logical_operators_swap" },
  designed_against = "both logical operators are mutated",
  why = "drops the || entry of swaps[], so || is never swapped for &&",
}

mutant {
  name = "gen-star-swaps-to-itself",
  file = "harness/gen.c",
  find = "{\"*\", \"/\", \"a\"}",
  replace = "{\"*\", \"*\", \"a\"}",
  guards = { "test_binary_arithmetic_operators_swap" },
  designed_against = "an arithmetic mutant changes the operator",
  why = "maps * to * in swaps[], a mutant that changes nothing",
}

mutant {
  name = "gen-unary-operators-mutated",
  file = "harness/gen.c",
  find = "if (!is(g, j, \"/\") && !ends_operand(g, j - 1))",
  replace = "if (0 && !ends_operand(g, j - 1))",
  guards = { "test_unary_minus_and_pointer_derefs_are_not_arithmetic" },
  designed_against = "only binary + - * / are arithmetic; a unary minus or a deref is not",
  why = "visit_punct() no longer asks ends_operand(), so unary minus and plus and derefs become arithmetic mutants",
}

mutant {
  name = "gen-one-becomes-two",
  file = "harness/gen.c",
  find = "put_digits(out + i, v == 0 ? 1 : v == 1 ? 0 : v + 1, base, upper);",
  replace = "put_digits(out + i, v == 0 ? 1 : v + 1, base, upper);",
  guards = { "test_integer_constants_step_and_floats_are_left_alone" },
  designed_against = "the constant class maps 0 to 1, 1 to 0 and n to n+1",
  why = "integer_next() loses its 1 -> 0 case, so 1 becomes 2",
}

mutant {
  name = "gen-condition-wrapped-short",
  file = "harness/gen.c",
  find = "last = tok(g, c - 1);",
  replace = "last = tok(g, c - 2);",
  guards = { "test_negated_condition_wraps_if_and_while_conditions" },
  designed_against = "a negated condition wraps the whole condition and builds",
  why = "visit_condition() wraps one token too few, so `a < b` becomes `!(a <)`",
}

mutant {
  name = "gen-call-removed-from-any-statement",
  file = "harness/gen.c",
  find = "if (p == g->open || is(g, p, \";\") || is(g, p, \"{\") || is(g, p, \"}\") || is(g, p, \"else\") ||",
  replace = "if (1 || p == g->open || is(g, p, \";\") || is(g, p, \"{\") || is(g, p, \"}\") || is(g, p, \"else\") ||",
  guards = { "test_removed_call_only_for_bare_call_statements" },
  designed_against = "a removed call is only a statement that is nothing but a call",
  why = "starts_statement_after() answers 1 for any token, so `x = g(n);` and `return g(n);` lose their call",
}

mutant {
  name = "gen-ordinals-run-across-functions",
  file = "harness/gen.c",
  find = "forget_ordinals(g);",
  occurrence = 1, -- visit_body(); the second is gen_release()
  replace = "",
  guards = { "test_ids_are_stable_when_a_function_is_inserted_above" },
  designed_against = "ids do not change when code is added elsewhere in the file",
  why = "visit_body() no longer forgets the ordinals, so they run on across functions and a function added above renumbers those below",
}

mutant {
  name = "gen-calls-in-parentheses-removed",
  file = "harness/gen.c",
  find = "else if (t->kind == TD_CTOK_IDENT && depth == 0)",
  replace = "else if (t->kind == TD_CTOK_IDENT)",
  guards = { "test_removed_call_only_for_bare_call_statements" },
  designed_against = "a removed call is only a statement that is nothing but a call",
  why = "visit_body() ignores the ( depth, so `for (i = 0; g(i); i++)` loses its condition's call",
}

mutant {
  name = "gen-extern-c-block-stepped-over",
  file = "harness/gen.c",
  find = 'if (i >= 2 && kind_is(g, i - 1, TD_CTOK_STRING) && is(g, i - 2, "extern")) {',
  replace = 'if (0) {',
  guards = { "test_functions_inside_an_extern_c_block_get_mutants" },
  finding = 87,
  why = "takes a header's extern \"C\" block for an initialiser: its functions get no mutant",
}

mutant {
  name = "gen-function-named-by-the-wrong-token",
  file = "harness/gen.c",
  find = "name = tok(g, o - 1);",
  replace = "name = tok(g, o - 2);",
  guards = { "test_only_function_bodies_are_mutated_and_named" },
  designed_against = "each generated id names the function it is in",
  why = "visit_file() takes the function's name from the token two before its `(`",
}

mutant {
  name = "gen-line-ranges-ignored",
  file = "harness/gen.c",
  find = "if (!o->lines)",
  replace = "if (1)",
  guards = { "test_filters_keep_only_the_asked_classes_and_lines_without_renumbering" },
  designed_against = "a line filter keeps only the mutants on those lines",
  why = "wanted() ignores the line ranges, so every line's mutants are kept",
}

mutant {
  name = "gen-skip-comments-ignored",
  file = "harness/gen.c",
  find = "if (!err && wanted(m, o) && !why) {",
  replace = "if (!err && wanted(m, o)) {",
  guards = { "test_a_skip_comment_suppresses_its_line_and_is_counted_by_reason" },
  designed_against = "a `tdaudit: skip` comment suppresses its line's mutants, counted by reason",
  why = "select_mutants() ignores skip_reason(), so a skipped line's mutants are kept",
}

mutant {
  name = "gen-lexed-without-a-name",
  file = "harness/gen.c",
  find = "err = td_ctok_lex(&tl, src, len, g.path);",
  replace = "err = td_ctok_lex(&tl, src, len, NULL);",
  guards = { "test_an_unterminated_comment_passes_up_with_file_and_line" },
  designed_against = "a file the generator cannot lex is refused with its path and line",
  why = "td_gen_file() lexes with a NULL name, so the lexer's message says <buffer> instead of the path",
}

mutant {
  name = "gen-apply-keeps-the-replaced-text",
  file = "harness/gen.c",
  find = "memcpy(buf + m->off + rlen, src + m->off + m->len, len - m->off - m->len);",
  replace = "memcpy(buf + m->off + rlen, src + m->off, len - m->off - m->len);",
  guards = { "test_applying_a_mutant_gives_the_expected_text_and_a_stale_one_is_refused" },
  designed_against = "applying a mutant replaces exactly its token",
  why = "td_gen_apply() copies the tail from m->off instead of m->off + m->len, so the replaced text stays after its replacement",
}
