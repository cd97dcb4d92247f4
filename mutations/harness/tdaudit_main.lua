-- mutations/harness/tdaudit_main.lua: the mutants of harness/tdaudit_main.c,
-- the command line's dispatch and the thread that takes SIGINT, SIGTERM and
-- SIGHUP.
--
-- Each entry re-introduces one bug class into the module and names the tests
-- that must notice; every name starts with "tdaudit_main-". Format:
-- harness/catalogue.h; layout, naming and listing: mutations/README.md.

mutant {
  name = "tdaudit_main-signals-not-caught",
  file = "harness/tdaudit_main.c",
  find = "\tcatch_signals();\n",
  replace = "\t(void)catch_signals;\n",
  guards = { "test_a_stopped_run_kills_its_test_and_exits_128_plus_the_signal" },
  designed_against = "Ctrl-C or SIGTERM to tdaudit must kill the running test and end with 128+N",
  why = "lets SIGTERM end tdaudit with no cleanup and no conventional status",
}

mutant {
  name = "tdaudit_main-stop-keeps-the-command-status",
  file = "harness/tdaudit_main.c",
  find = "return 128 + sig;\n}\n\nstatic const struct",
  replace = "return rc;\n}\n\nstatic const struct",
  guards = { "test_a_stopped_run_kills_its_test_and_exits_128_plus_the_signal" },
  designed_against = "a stopped run must not read as an ordinary error or a result",
  why = "ends a stopped run with the command's own status (2)",
}
