-- mutations/harness/confine.lua: the mutants of harness/confine.c, the
-- kernel's confinement of what builds and tests may write (confine.h).
--
-- Each entry re-introduces one bug class into the module and names the tests
-- that must notice; every name starts with "confine-". Format:
-- harness/catalogue.h; layout, naming and listing: mutations/README.md.

mutant {
  name = "confine-coverage-file-not-writable",
  file = "harness/confine.c",
  find = "if (!err && cov && cov[0] == '/')",
  replace = "if (0)",
  guards = { "test_a_confined_child_of_a_schema_run_can_record_its_coverage" },
  designed_against = "a tdaudit run inside a schema run's test must let its confined children record coverage",
  why = "a point reached only through a nested tdaudit run goes unrecorded, and its mutant reads as no-coverage",
}
