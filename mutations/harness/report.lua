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

mutant {
  name = "report-timeout-counts-as-killed",
  file = "harness/report.c",
  find = "*score = judged ? 100.0 * (double)count[TD_KILLED] / (double)judged : 0;",
  replace = "*score = judged ? 100.0 * (double)(count[TD_KILLED] + count[TD_TIMEOUT]) / (double)judged : 0;",
  guards = { "test_the_score_counts_timeouts_and_kills_elsewhere_as_not_killed", "test_fail_under_fails_a_passing_run_whose_score_is_below" },
  designed_against = "the score is the one docs/mutate.md defines: a timeout is noticed by a clock, not a kill",
  why = "counts timeouts as kills, so a suite that only hangs on mutants scores 100",
}

mutant {
  name = "report-fail-under-is-ignored",
  file = "harness/report.c",
  find = "return n_bad || below ? 1 : 0;",
  replace = "return n_bad ? 1 : 0;",
  guards = { "test_fail_under_fails_a_passing_run_whose_score_is_below" },
  designed_against = "--fail-under is a gate: a run below it must not exit 0",
  why = "prints that the score is below --fail-under and exits 0 anyway",
}

mutant {
  name = "report-undefined-score-is-below",
  file = "harness/report.c",
  find = "if (fail_under < 0 || td_report_score(&score, count) != 0)",
  replace = "if (fail_under < 0 || (td_report_score(&score, count), 0))",
  guards = { "test_the_score_counts_timeouts_and_kills_elsewhere_as_not_killed" },
  designed_against = "a shard may hold no judged mutant: an undefined score must not fail the gate",
  why = "fails --fail-under for a run that judged no mutant (its score reads as 0)",
}

mutant {
  name = "report-build-failed-counts-hand-written-entries",
  file = "harness/report.c",
  find = "if (m->v[i].generated && res[i].outcome == TD_BUILD_FAILED && td_strv_find(*keys, key) < 0)",
  replace = "if (res[i].outcome == TD_BUILD_FAILED && td_strv_find(*keys, key) < 0)",
  guards = { "test_generated_mutants_that_do_not_build_are_counted_by_operator_and_file" },
  designed_against = "the build-failed counts by operator and file are of generated mutants: a hand-written entry that does not build is a failure of its own",
  why = "adds the hand-written entries' operator, \"catalogue\", to the counts (with 0)",
}

mutant {
  name = "report-build-failed-counts-not-in-json",
  file = "harness/report.c",
  find = "if (put_build_failed(f, m, res, 1) != 0) {",
  replace = "if (0) {",
  guards = { "test_generated_mutants_that_do_not_build_are_counted_by_operator_and_file" },
  designed_against = "the JSON report carries what the summary prints",
  why = "leaves build_failed_generated's counts out of the JSON (an invalid object follows)",
}

mutant {
  name = "report-equivalents-not-listed",
  file = "harness/report.c",
  find = "\tprint_equivalents(m, res);\n",
  replace = "\t(void)print_equivalents;\n",
  guards = { "test_a_generated_mutant_declared_equivalent_is_reported_with_its_reason" },
  designed_against = "a declaration silences a mutant, so every run says which and why",
  why = "counts the equivalent mutants but never says which they are or why",
}

mutant {
  name = "report-files-in-name-order",
  file = "harness/report.c",
  find = "return sx < sy ? -1 : sx > sy ? 1 : strcmp(x->file, y->file);",
  replace = "return sx < sy ? 0 : strcmp(x->file, y->file);",
  guards = { "test_the_score_of_each_file_is_reported_worst_first" },
  designed_against = "a run over many files lists the score of each; in name order the files with the most survivors sink among the rest",
  why = "orders the files by name, not by score",
}

mutant {
  name = "report-files-at-100-listed",
  file = "harness/report.c",
  find = "} else if (n > 1 && !(!undefined && s == 100.0)) {",
  replace = "} else if (n > 1) {",
  guards = { "test_the_score_of_each_file_is_reported_worst_first" },
  designed_against = "the summary lists only the files below 100%, so that a run over a hundred files prints its holes, not a page of full scores",
  why = "lists every file, those at 100% too",
}
