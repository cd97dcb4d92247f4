-- mutations/harness/project.lua: the mutants of harness/project.c, loading
-- tdaudit.lua (see project.h).
--
-- Each entry re-introduces one bug class into the module and names the tests
-- that must notice; every name starts with "project-". Format:
-- harness/catalogue.h; layout, naming and listing: mutations/README.md.

mutant {
  name = "project-repeated-setting-accepted",
  file = "harness/project.c",
  find = "fail_at(L, \"%s is given twice; give it once\", what);",
  replace = "(void)0;",
  guards = { "test_a_malformed_config_is_refused_with_its_line" },
  designed_against = "a setting given twice means one of them is silently ignored",
  why = "accepts a setting given twice (and leaks the first)",
}
