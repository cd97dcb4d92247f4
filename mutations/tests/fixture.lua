-- mutations/tests/fixture.lua: the mutants of tests/fixture.c, fixture
-- repositories for end-to-end tests (see fixture.h).
--
-- Each entry re-introduces one bug class into the module and names the tests
-- that must notice; every name starts with "fixture-". Format:
-- harness/catalogue.h; layout, naming and listing: mutations/README.md.

mutant {
  name = "fixture-log-appends-across-runs",
  file = "tests/fixture.c",
  find = "unlink(out); /* each run's log holds that run only */",
  replace = "",
  guards = { "test_generated_mutants_run_and_skip_comments_are_counted" },
  finding = 3,
  why = "lets a fixture run's log keep the output of the runs before it",
}
