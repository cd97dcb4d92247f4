-- mutations/harness/testrun.lua: the mutants of harness/testrun.c, builds and
-- single test runs in scratch trees (testrun.h).
--
-- Each entry re-introduces one bug class into the module and names the tests
-- that must notice; every name starts with "testrun-". Format:
-- harness/catalogue.h; layout, naming and listing: mutations/README.md.

mutant {
  name = "testrun-fail-text-ignored",
  file = "harness/testrun.c",
  find = "td_testrun_log_mentions(log, p->runners[k].fail_text))",
  replace = "0)",
  guards = { "test_fail_text_marks_a_zero_exit_as_a_failure" },
  designed_against = "a runner that exits 0 on failure hides every kill",
  why = "ignores the runner's fail_text (in testrun.c, which mutate, reproduce and bisect share)",
}

mutant {
  name = "testrun-cut-build-tree-kept",
  file = "harness/testrun.c",
  find = "if (access(mark, F_OK) != 0)\n\t\treturn 0;",
  replace = "if (1)\n\t\treturn 0;",
  guards = { "test_a_build_killed_halfway_is_built_again_by_the_next_run" },
  designed_against = "a run killed during a build leaves a half-written output the next build takes as up to date",
  why = "never removes a tree whose last build was cut short",
}
