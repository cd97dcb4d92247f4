-- mutations/harness/report.lua: the mutants of harness/report.c, mutate's
-- reports: the printed summary, the JSON and the JUnit files.
--
-- Each entry re-introduces one bug class into the module and names the tests
-- that must notice; every name starts with "report-". Format:
-- harness/catalogue.h; layout, naming and listing: mutations/README.md.

mutant {
  name = "report-empty-selection-claims-every-mutant-caught",
  file = "harness/report.c",
  find = "else if (m->n == 0)",
  replace = "else if (m->n == 0 && 0)",
  guards = { "test_a_diff_that_selects_no_mutant_claims_nothing" },
  designed_against = "an empty selection is not a clean result: a run that tested nothing must not read as one that caught everything",
  why = "ends a run of 0 mutants with \"every mutant was caught\"",
}
