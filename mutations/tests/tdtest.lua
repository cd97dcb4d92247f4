-- mutations/tests/tdtest.lua: the mutants of tests/tdtest.c, the test runner:
-- every group, or one named test.
--
-- Each entry re-introduces one bug class into the module and names the tests
-- that must notice; every name starts with "tdtest-". Format:
-- harness/catalogue.h; layout, naming and listing: mutations/README.md.

mutant {
  name = "tdtest-unknown-name-not-refused",
  file = "tests/tdtest.c",
  find = [[tdtest --list prints every name\n",
				argv[2]);
			return 2;]],
  replace = [[tdtest --list prints every name\n",
				argv[2]);
			return 0;]],
  guards = { "test_an_unknown_test_name_exits_2" },
  designed_against = "a misspelt guard must not read as a passing test",
  why = "exits 0 for a test name it does not know",
}

mutant {
  name = "tdtest-exit-0-on-failure",
  file = "tests/tdtest.c",
  find = "return failed ? 1 : 0;",
  replace = "return 0;",
  guards = { "test_a_failing_test_makes_the_runner_exit_1" },
  designed_against = "a runner that exits 0 on failure makes every mutant survive",
  why = "exits 0 whatever failed",
}
