-- mutations/harness/commands.lua: the mutants of harness/commands.c, what
-- every tdaudit command's argument parsing shares.
--
-- Each entry re-introduces one bug class into the module and names the tests
-- that must notice; every name starts with "commands-". Format:
-- harness/catalogue.h; layout, naming and listing: mutations/README.md.

mutant {
  name = "commands-option-given-twice-accepted",
  file = "harness/commands.c",
  find = "if (!strcmp(s->name[i], name))",
  replace = "if (0 && !strcmp(s->name[i], name))",
  guards = { "test_a_value_option_given_twice_is_refused" },
  finding = 21,
  why = "an option given twice keeps its last value without a word",
}
