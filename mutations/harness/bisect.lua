-- mutations/harness/bisect.lua: the mutants of harness/bisect.c, tdaudit
-- bisect (see bisect.h).
--
-- Each entry re-introduces one bug class into the module and names the tests
-- that must notice; every name starts with "bisect-". Format:
-- harness/catalogue.h; layout, naming and listing: mutations/README.md.

mutant {
  name = "bisect-tests-at-ignored",
  file = "harness/bisect.c",
  find = "r->tests_at[0] ? r->tests_at : NULL,",
  replace = "NULL,",
  guards = { "test_tests_held_at_a_later_commit_find_the_fix_they_check" },
  designed_against = "an option that is accepted must change the run",
  why = "says the tests are held at REV but builds each commit's own",
}

mutant {
  name = "bisect-linear-walk",
  file = "harness/bisect.c",
  find = "size_t mid = lo + (hi - lo) / 2;",
  replace = "size_t mid = lo + 1;",
  guards = { "test_finds_the_fix_in_log2_builds_skipping_a_commit_that_does_not_build" },
  designed_against = "bisect must take about log2 N builds, not N",
  why = "walks the range one commit at a time",
}

mutant {
  name = "bisect-skip-read-as-new",
  file = "harness/bisect.c",
  find = "if (!err && r->state[mid] == want)",
  replace = "if (!err && (r->state[mid] == want || r->state[mid] == SKIPPED))",
  guards = { "test_finds_the_fix_in_log2_builds_skipping_a_commit_that_does_not_build" },
  designed_against = "a commit that does not build says nothing about the guard (git bisect's exit 125)",
  why = "treats a commit that does not build as showing the new outcome",
}

mutant {
  name = "bisect-skip-read-as-old",
  file = "harness/bisect.c",
  find = "else if (!err && r->state[mid] != SKIPPED)",
  replace = "else if (!err)",
  guards = { "test_skipped_commits_next_to_the_flip_leave_it_ambiguous" },
  designed_against = "a commit that does not build says nothing about the guard (git bisect's exit 125)",
  why = "treats a commit that does not build as showing the old outcome",
}

mutant {
  name = "bisect-no-flip-accepted",
  file = "harness/bisect.c",
  find = "if (r->state[lo] == want) {",
  replace = "if (0) {",
  guards = { "test_no_flip_between_the_ends_exits_2" },
  designed_against = "an answer must rest on two adjacent observations that differ",
  why = "names a commit even when the guard already shows the new outcome at the good end",
}

mutant {
  name = "bisect-ambiguous-recorded-as-found",
  file = "harness/bisect.c",
  find = "status == 0 ? r->chain[hi] : NULL,",
  replace = "r->chain[hi],",
  guards = { "test_an_ambiguous_bisect_is_recorded_with_no_commit_found" },
  designed_against = "when skipped commits hide the flip, the ledger must not name a commit as found",
  why = "records the newest candidate as the commit found",
}

mutant {
  name = "bisect-tests-at-without-tests-setting",
  file = "harness/bisect.c",
  find = "if (!r->proj->tests)",
  replace = "if (0)",
  guards = { "test_tests_held_at_a_later_commit_find_the_fix_they_check" },
  designed_against = "--tests-at with no tests globs would hold nothing: refuse it, saying what it needs",
  why = "accepts --tests-at when tdaudit.lua names no test files",
}

mutant {
  name = "bisect-result-not-recorded",
  file = "harness/bisect.c",
  find = "if (!err && status < 2)",
  replace = "if (0)",
  guards = { "test_a_bisect_result_is_recorded_in_the_ledger_in_one_run",
             "test_an_ambiguous_bisect_is_recorded_with_no_commit_found" },
  designed_against = "every bisect that reaches a result is in the ledger",
  why = "prints the result and records nothing",
}

mutant {
  name = "bisect-not-rebuilt-judged",
  file = "harness/bisect.c",
  find = "!(err = td_testrun_tree_stamp(&s1, r->tree)) && s0 == s1)",
  replace = "!(err = td_testrun_tree_stamp(&s1, r->tree)) && s0 == s1 && 0)",
  guards = { "test_a_commit_the_build_did_not_rebuild_is_no_verdict" },
  finding = 102,
  why = "judges a commit by the program the previous commit built when the build did not notice a changed header",
}

mutant {
  name = "bisect-held-state-forgotten-between-runs",
  file = "harness/bisect.c",
  find = "		read_held(&r);",
  replace = "		(void)read_held;",
  guards = { "test_a_commit_the_build_did_not_rebuild_is_no_verdict" },
  finding = 102,
  why = "checks a run's first commit against nothing, though the tree holds the last run's build",
}
