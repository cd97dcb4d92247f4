-- mutations/harness/testrun.lua: the mutants of harness/testrun.c, builds and
-- single test runs in scratch trees (testrun.h).
--
-- Each entry re-introduces one bug class into the module and names the tests
-- that must notice; every name starts with "testrun-". Format:
-- harness/catalogue.h; layout, naming and listing: mutations/README.md.

mutant {
  name = "testrun-variant-env-not-passed",
  file = "harness/testrun.c",
  find = "j->env[n++] = venv[i];",
  replace = "(void)venv[i];",
  guards = { "test_a_variants_environment_reaches_its_build" },
  designed_against = "a variant's env dropped before its builds and tests",
  why = "an env-only variant builds exactly as default does",
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

mutant {
  name = "testrun-variant-build-ignores-the-variant",
  file = "harness/testrun.c",
  find = "po.argv = (const char *const *)argv;",
  replace = "po.argv = (const char *const *)p->build;",
  occurrence = 1, -- td_testrun_build(); the second is the test run's
  guards = { "test_one_fix_is_a_guard_under_one_variant_and_a_pin_under_another" },
  designed_against = "every variant built with build { } itself",
  why = "a variant's flags never reach the build: a guard under its configuration reads as a pin",
}

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
  name = "testrun-prune-a-running-runs-logs",
  file = "harness/testrun.c",
  find = "strcmp(old, out) && !running(v[i]->d_name))",
  replace = "strcmp(old, out))",
  guards = { "test_a_running_runs_logs_are_never_pruned" },
  finding = 81,
  why = "prunes by age alone: a long run loses the logs it is still writing",
}
