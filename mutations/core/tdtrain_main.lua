-- mutations/core/tdtrain_main.lua: the mutants of core/tdtrain_main.c, the
-- tdtrain command line.
--
-- Each entry re-introduces one bug class into the module and names the tests
-- that must notice; every name starts with "tdtrain_main-". Format:
-- harness/catalogue.h; layout, naming and listing: mutations/README.md.

mutant {
  name = "tdtrain_main-option-given-twice-keeps-the-last",
  file = "core/tdtrain_main.c",
  find = "{.name = \"--config\", .arg = \"F\", .type = TD_OPT_STRING,",
  replace = "{.name = \"--config\", .arg = \"F\", .repeatable = 1, .type = TD_OPT_STRING,",
  guards = { "test_tdtrain_refuses_an_option_given_twice" },
  finding = 29,
  why = "a second --config replaces the first without a word: the run reads another config than the one named first",
}

mutant {
  name = "tdtrain_main-stop-after-read-by-atoll",
  file = "core/tdtrain_main.c",
  find = ".min = 1, .unit = \"steps\",",
  replace = ".min = 0, .unit = \"steps\",",
  guards = { "test_tdtrain_refuses_a_stop_after_that_is_not_a_whole_number" },
  finding = 30,
  why = "--stop-after 0, what atoll made of abc, is taken: the run goes to the end instead of stopping with a checkpoint",
}
