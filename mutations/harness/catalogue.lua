-- mutations/harness/catalogue.lua: the mutants of harness/catalogue.c,
-- loading mutation catalogues (see catalogue.h).
--
-- Each entry re-introduces one bug class into the module and names the tests
-- that must notice; every name starts with "catalogue-". Format:
-- harness/catalogue.h; layout, naming and listing: mutations/README.md.

mutant {
  name = "catalogue-name-not-checked-against-its-file",
  file = "harness/catalogue.c",
  find = "if (!named_for_its_file(m->name, m->file, stem, sizeof stem))",
  replace = "if (0 && !named_for_its_file(m->name, m->file, stem, sizeof stem))",
  guards = { "test_an_entry_not_named_for_its_file_is_refused" },
  designed_against = "a name that does not start with its file's stem breaks --only 'plan-*' and hides which file a report line is about",
  why = "accepts an entry whatever its name, so a misnamed one slips into its catalogue",
}

mutant {
  name = "catalogue-refused-entry-not-collected",
  file = "harness/catalogue.c",
  find = [[lua_setfield(L, -2, "__gc");]],
  occurrence = 2, -- the pending entry's; the first is strv_box's
  replace = "lua_pop(L, 1);",
  guards = { "test_a_refused_entry_leaves_nothing_allocated" },
  finding = 32,
  why = "builds the entry in a userdata without __gc, so a refusal's Lua error loses the copied fields",
}

mutant {
  name = "catalogue-generated-located-by-text",
  file = "harness/catalogue.c",
  find = "if (m->generated) { /* by offset: the token must still be there */",
  replace = "if (0) {",
  guards = { "test_generated_mutants_run_and_skip_comments_are_counted" },
  designed_against = "a generated mutant's token occurs many times; searching for it mutates the wrong one",
  why = "locates generated mutants by searching for their token",
}

mutant {
  name = "catalogue-file-outside-the-repository-accepted",
  file = "harness/catalogue.c",
  find = "\tcheck_file(L, m->file);\n",
  replace = "",
  guards = { "test_a_mutant_file_outside_the_repository_is_refused" },
  finding = 42,
  why = "lets a mutant's file be ../../calc.c, the user's own file",
}

mutant {
  name = "catalogue-file-through-a-link-accepted",
  file = "harness/catalogue.c",
  find = "if (lstat(path, &st) == 0 && S_ISLNK(st.st_mode))",
  replace = "if (lstat(path, &st) == 0 && S_ISLNK(st.st_mode) && 0)",
  guards = { "test_a_mutant_file_outside_the_repository_is_refused" },
  finding = 42,
  why = "writes a mutant through a tracked symbolic link that points outside",
}

mutant {
  name = "catalogue-refusal-location-said-twice",
  file = "harness/catalogue.c",
  find = "\tva_end(ap);\n\treturn lua_error(L);\n",
  replace = "\tva_end(ap);\n\treturn luaL_error(L, \"%s\", lua_tostring(L, -1));\n",
  guards = { "test_an_entry_not_named_for_its_file_is_refused" },
  finding = 46,
  why = "prefixes every refusal's file:line with the same position again",
}

mutant {
  name = "catalogue-stale-equivalent-passed-over",
  file = "harness/catalogue.c",
  find = "if (!hit)\n\t\t\treturn TD_FAIL",
  replace = "if (!hit)\n\t\t\tcontinue;\n\t\tif (0)\n\t\t\treturn TD_FAIL",
  guards = { "test_an_equivalent_declaration_that_matches_nothing_is_refused" },
  designed_against = "an equivalent { } whose id no generated mutant has is refused: a stale declaration must not be silent",
  why = "passes over a declaration that matches nothing, which then stays in the catalogue unnoticed",
}

mutant {
  name = "catalogue-equivalent-of-a-hand-written-entry-taken",
  file = "harness/catalogue.c",
  find = "if (!hit->generated)",
  replace = "if (0 && !hit->generated)",
  guards = { "test_an_equivalent_declaration_that_matches_nothing_is_refused" },
  designed_against = "equivalent { } declares generated mutants; a hand-written entry says equivalent = \"...\" itself",
  why = "lets an equivalent { } silence a hand-written entry from another catalogue",
}
