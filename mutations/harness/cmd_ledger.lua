-- mutations/harness/cmd_ledger.lua: the mutants of harness/cmd_ledger.c,
-- tdaudit ledger check | export | merge (see docs/ledger.md).
--
-- Each entry re-introduces one bug class into the module and names the tests
-- that must notice; every name starts with "cmd_ledger-". Format:
-- harness/catalogue.h; layout, naming and listing: mutations/README.md.

mutant {
  name = "cmd_ledger-merge-each-source-into-out",
  file = "harness/cmd_ledger.c",
  find = "if ((err = td_ledger_merge(&added, scratch, dbs[i])) != 0)",
  replace = "if ((err = td_ledger_merge(&added, out, dbs[i])) != 0)",
  guards = { "test_a_merge_that_fails_at_a_later_source_merges_none" },
  finding = 83,
  why = "merges each source straight into OUT: a later failure leaves the earlier ones merged",
}
