-- mutations/harness/ledgercheck.lua: the mutants of harness/ledgercheck.c,
-- tdaudit ledger check.
--
-- Each entry re-introduces one bug class into the module and names the tests
-- that must notice; every name starts with "ledgercheck-". Format:
-- harness/catalogue.h; layout, naming and listing: mutations/README.md.

mutant {
  name = "ledgercheck-missing-debug-md-unexplained",
  file = "harness/ledgercheck.c",
  find = "if (!err && access(path, F_OK) != 0)",
  replace = "if (0)",
  guards = { "test_ledger_check_without_debug_md_says_what_it_needs" },
  designed_against = "a missing input is named with what to do, not passed on as an errno",
  why = "reports a missing DEBUG.md as the parser's open error",
}
