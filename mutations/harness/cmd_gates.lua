-- mutations/harness/cmd_gates.lua: the mutants of harness/cmd_gates.c, the
-- command line of `tdaudit gates`.
--
-- Each entry re-introduces one bug class into the module and names the tests
-- that must notice; every name starts with "cmd_gates-". Format:
-- harness/catalogue.h; layout, naming and listing: mutations/README.md.

mutant {
  name = "cmd_gates-fail-under-is-ignored",
  file = "harness/cmd_gates.c",
  find = "rc = td_report_below(g->count, a.fail_under);",
  replace = "rc = 0;",
  guards = { "test_gates_fail_under_gates_on_the_ledgers_score" },
  designed_against = "a score gate that never fails lets a merged run below the bar pass CI",
  why = "exits 0 whatever the merged ledger's score",
}
