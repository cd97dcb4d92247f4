-- mutations/harness/catalogue.lua: the mutants of harness/catalogue.c,
-- loading mutation catalogues (see catalogue.h).
--
-- Each entry re-introduces one bug class into the module and names the tests
-- that must notice; every name starts with "catalogue-". Format:
-- harness/catalogue.h; layout, naming and listing: mutations/README.md.

mutant {
  name = "catalogue-generated-located-by-text",
  file = "harness/catalogue.c",
  find = "if (m->generated) { /* by offset: the token must still be there */",
  replace = "if (0) {",
  guards = { "test_generated_mutants_run_and_skip_comments_are_counted" },
  designed_against = "a generated mutant's token occurs many times; searching for it mutates the wrong one",
  why = "locates generated mutants by searching for their token",
}
