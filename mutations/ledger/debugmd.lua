-- mutations/ledger/debugmd.lua: the mutants of ledger/debugmd.c, reads the
-- claims in DEBUG.md (the format is in debugmd.h) and checks them against the
-- ledger.
--
-- Each entry re-introduces one bug class into the module and names the tests
-- that must notice; every name starts with "debugmd-". Format:
-- harness/catalogue.h; layout, naming and listing: mutations/README.md.

mutant {
  name = "debugmd-continuation-lines-unwatched",
  file = "ledger/debugmd.c",
  find = "\t\tp->field_line = p->line, p->field_pin = pin; /* its continuation lines are watched */",
  replace = "\t\t(void)0; /* its continuation lines are watched */",
  guards = { "test_a_test_named_on_a_wrapped_guarded_by_line_is_reported" },
  finding = 22,
  why = "a guard wrapped onto the line after **Guarded by** is dropped, and ledger check says nothing",
}
