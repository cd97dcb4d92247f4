-- mutations/harness.lua: the harness's own invariants. tdaudit checks
-- itself: each mutant below breaks a promise `tdaudit mutate` makes, and
-- the end-to-end tests on a fixture repository must notice.

mutant {
  name = "mutate-timeout-read-as-kill",
  file = "harness/mutate.c",
  find = "res->outcome = timed_out ? TD_TIMEOUT : TD_KILLED;\n\t\t\treturn err;",
  replace = "res->outcome = TD_KILLED;\n\t\t\treturn err;",
  guards = { "test_every_outcome_is_reported" },
  designed_against = "a test that hangs is not a test that caught the mutant",
  why = "reports a guard's timeout as a kill",
}

mutant {
  name = "mutate-build-failure-read-as-kill",
  file = "harness/mutate.c",
  find = "res->outcome = TD_BUILD_FAILED;",
  replace = "res->outcome = TD_KILLED;",
  guards = { "test_every_outcome_is_reported" },
  designed_against = "the commonest failure of mutation tools: an invalid mutant counted as caught",
  why = "counts a mutant that does not build as killed",
}

mutant {
  name = "mutate-rest-of-suite-ignored",
  file = "harness/mutate.c",
  find = "res->outcome = res->killers ? TD_KILLED_ELSEWHERE : TD_SURVIVED;",
  replace = "res->outcome = TD_SURVIVED;",
  guards = { "test_every_outcome_is_reported" },
  designed_against = "a catalogue naming the wrong guard must be told so",
  why = "never reports killed-elsewhere",
}

mutant {
  name = "mutate-red-baseline-accepted",
  file = "harness/mutate.c",
  find = "if (!err && failed) {",
  replace = "if (0) {",
  guards = { "test_a_red_baseline_stops_the_run" },
  designed_against = "mutation testing on a red suite means nothing",
  why = "ignores failing tests in the baseline",
}

mutant {
  name = "mutate-silent-runner-accepted",
  file = "harness/mutate.c",
  find = "else if (!err && !log_mentions(w->log, r->tests[i].name))",
  replace = "else if (0)",
  guards = { "test_a_runner_that_never_names_its_test_stops_the_run" },
  designed_against = "a run-one command that runs nothing makes every mutant survive or every one die",
  why = "never checks that the runner ran the named test",
}

mutant {
  name = "mutate-file-not-restored",
  file = "harness/mutate.c",
  find = "if (td_scratch_put(w->tree, m->file, orig, len) != 0 && !err)",
  replace = "if (0 && td_scratch_put(w->tree, m->file, orig, len) != 0 && !err)",
  guards = { "test_every_outcome_is_reported" },
  designed_against = "each mutant must start from the unmutated code",
  why = "leaves each mutant applied for the next one",
}

mutant {
  name = "mutate-writes-the-users-tree",
  file = "harness/mutate.c",
  find = "err = td_scratch_put(w->tree, m->file, mut, mlen);",
  replace = "err = td_scratch_put(r->proj->root, m->file, mut, mlen);",
  guards = { "test_the_users_tree_index_and_head_are_untouched" },
  designed_against = "the harness never edits the user's working tree",
  why = "applies the mutant to the user's file instead of the scratch copy",
}

mutant {
  name = "mutate-fail-text-ignored",
  file = "harness/mutate.c",
  find = "log_mentions(log, r->proj->runners[t->runner].fail_text));",
  replace = "0);",
  guards = { "test_fail_text_marks_a_zero_exit_as_a_failure" },
  designed_against = "a runner that exits 0 on failure hides every kill",
  why = "ignores the runner's fail_text",
}

mutant {
  name = "project-repeated-setting-accepted",
  file = "harness/project.c",
  find = "if (*out)\n\t\tfail_at(L, \"%s is given twice; give it once\", what);",
  replace = "",
  guards = { "test_a_malformed_config_is_refused_with_its_line" },
  designed_against = "a setting given twice means one of them is silently ignored",
  why = "accepts a setting given twice (and leaks the first)",
}
