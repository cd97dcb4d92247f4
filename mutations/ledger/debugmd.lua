-- mutations/ledger/debugmd.lua: the mutants of ledger/debugmd.c, reads the
-- claims in DEBUG.md (the format is in debugmd.h) and checks them against the
-- ledger.
--
-- Each entry re-introduces one bug class into the module and names the tests
-- that must notice; every name starts with "debugmd-". Format:
-- harness/catalogue.h; layout, naming and listing: mutations/README.md.

mutant {
  name = "debugmd-any-cell-count-accepted",
  file = "ledger/debugmd.c",
  find = "if (n != 5)",
  replace = "if (n < 0)",
  guards = { "test_a_malformed_table_row_is_reported_with_its_line" },
  designed_against = "every malformed claim in DEBUG.md is reported with its line",
  why = "check_row() accepts a summary row of any cell count",
}

mutant {
  name = "debugmd-continuation-lines-unwatched",
  file = "ledger/debugmd.c",
  find = "\t\tp->field_line = p->line, p->field_pin = pin; /* its continuation lines are watched */",
  replace = "\t\t(void)0; /* its continuation lines are watched */",
  guards = { "test_a_test_named_on_a_wrapped_guarded_by_line_is_reported" },
  finding = 22,
  why = "a guard wrapped onto the line after **Guarded by** is dropped, and ledger check says nothing",
}

mutant {
  name = "debugmd-near-miss-labels-ignored",
  file = "ledger/debugmd.c",
  find = "if (strncasecmp(line, \"**Guarded\", 9) == 0 || strncasecmp(line, \"**Pin\", 5) == 0)",
  replace = "if (0)",
  guards = { "test_a_malformed_section_line_is_reported_with_its_line" },
  designed_against = "a line that looks like a claim is never skipped without a word",
  why = "section_line() loses its strncasecmp() catch-all, so a misspelt **Guarded by** or **Pins** label is silently read as prose",
}

mutant {
  name = "debugmd-headings-read-inside-fences",
  file = "ledger/debugmd.c",
  find = "if (!p->in_fence && (starts_with(line, \"# \") || starts_with(line, \"## \")))",
  replace = "if (starts_with(line, \"# \") || starts_with(line, \"## \"))",
  guards = { "test_a_heading_inside_a_code_fence_does_not_end_the_section" },
  designed_against = "a # line inside a code fence (a shell comment) is code, not a heading",
  why = "parse_line() reads headings inside code fences, so a fenced `# comment` ends the finding's section",
}

mutant {
  name = "debugmd-row-without-section-unreported",
  file = "ledger/debugmd.c",
  find = "if (!f->section_line)",
  replace = "if (0)",
  guards = { "test_rows_without_sections_and_sections_without_rows_are_reported" },
  designed_against = "every finding in the summary table has a section that says what guards it",
  why = "finish() loses the \"table row but no section\" problem",
}

mutant {
  name = "debugmd-lines-counted-late",
  file = "ledger/debugmd.c",
  -- two lines: the edit is their order
  find = "p.line++;\n\t\terr = parse_line(&p, buf);",
  replace = "err = parse_line(&p, buf);\n\t\tp.line++;",
  guards = { "test_a_good_debugmd_yields_every_field_with_its_line" },
  designed_against = "every field is reported with the line it came from",
  why = "td_debugmd_parse() counts a line after parsing it, so every field and problem names the line before",
}

mutant {
  name = "debugmd-unverified-guards-accepted",
  file = "ledger/debugmd.c",
  find = "if (err || by_repro || by_mutant)",
  replace = "if (1)",
  guards = { "test_the_cross_check_names_the_debugmd_line_of_each_disagreement" },
  designed_against = "a guard DEBUG.md cites is one the ledger has seen fail",
  why = "check_guards() counts every cited guard as verified, with no reproduction or killed mutant behind it",
}

mutant {
  name = "debugmd-sorts-a-null-array",
  file = "ledger/debugmd.c",
  find = "\tif (p.doc->n_findings) /* qsort's array must not be NULL, even for 0 elements */\n",
  replace = "\tif (1)\n",
  guards = { "test_an_empty_debug_md_is_one_problem" },
  finding = 61,
  why = "hands qsort a NULL array for an empty DEBUG.md (caught under make asan only)",
  equivalent = "in the release build qsort of 0 elements reads nothing: only UBSan (make asan) sees it",
}
