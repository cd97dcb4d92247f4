-- mutations/harness/reproduce.lua: the mutants of harness/reproduce.c,
-- tdaudit reproduce (see reproduce.h for what it decides).
--
-- Each entry re-introduces one bug class into the module and names the tests
-- that must notice; every name starts with "reproduce-". Format:
-- harness/catalogue.h; layout, naming and listing: mutations/README.md.

mutant {
  name = "reproduce-fail-and-timeout-read-as-flaky",
  file = "harness/reproduce.c",
  find = [[return passes ? "mixed" : "fail";]],
  replace = [[return "mixed";]],
  guards = { "test_a_fail_and_a_timeout_before_the_fix_make_a_guard" },
  finding = 40,
  why = "calls a guard whose failing runs were one fail and one timeout flaky",
}

mutant {
  name = "reproduce-broken-not-reported",
  file = "harness/reproduce.c",
  find = "if (after != TD_TEST_PASS)",
  replace = "if (after != TD_TEST_PASS && after == TD_TEST_PASS)",
  guards = { "test_a_test_failing_after_the_fix_is_broken" },
  designed_against = "a test failing with the fix in place guards nothing",
  why = "judges a test that fails after the fix by its before state only",
}

mutant {
  name = "reproduce-pin-read-as-guard",
  file = "harness/reproduce.c",
  find = "return before == TD_TEST_PASS ? \"pin\" : \"guard\";",
  replace = "return (void)before, \"guard\";",
  guards = { "test_a_test_that_passes_both_ways_is_a_pin_not_a_guard" },
  designed_against = "a cited guard that passes on the buggy code too (torch-dimensions #1, #3)",
  why = "calls a test that passes before and after the fix a guard",
}

mutant {
  name = "reproduce-flaky-read-as-stable",
  file = "harness/reproduce.c",
  find = "if (!strcmp(a, \"mixed\") || (before_built && !strcmp(state_word(before, n), \"mixed\")))",
  replace = "if (0)",
  guards = { "test_outcomes_that_differ_between_runs_are_flaky" },
  designed_against = "a single run cannot tell a bug from a flake",
  why = "takes the first run's outcome as the verdict",
}

mutant {
  name = "reproduce-test-file-names-not-taken",
  file = "harness/reproduce.c",
  find = "if (err || any || len == 0 || len >= sizeof name)",
  replace = "if (1 || err || any || len == 0 || len >= sizeof name)",
  guards = { "test_a_changed_test_file_named_as_a_test_is_run" },
  designed_against = "where each test file is one test (ctest), a fix's changed test file names its guard",
  why = "takes test_ names only, so a ctest project's fix has no test to run",
}

mutant {
  name = "reproduce-missing-debug-md-refused",
  file = "harness/reproduce.c",
  find = "err = load_doc(r, 0);",
  replace = "err = load_doc(r, 1);",
  guards = { "test_without_debug_md_the_commits_own_tests_are_run" },
  finding = 27,
  why = "refuses one commit of a repository without DEBUG.md instead of reading its diff",
}

mutant {
  name = "reproduce-writes-the-users-tree",
  file = "harness/reproduce.c",
  find = "r->keep ? r->keep : r->proj->tests, r->tree, r->manifest);",
  replace = "r->keep ? r->keep : r->proj->tests, r->proj->root, r->manifest);",
  guards = { "test_no_command_touches_the_users_tree_index_or_head" },
  designed_against = "the harness never edits the user's working tree",
  why = "writes the states into the user's tree instead of the scratch tree",
}

mutant {
  name = "reproduce-stale-before-state-judged",
  file = "harness/reproduce.c",
  find = "if (!err && *ok && code && n && (err = td_testrun_tree_stamp(&s1, r->tree)) == 0 &&",
  replace = "if (!err && *ok && code && !n && (err = td_testrun_tree_stamp(&s1, r->tree)) == 0 &&",
  guards = { "test_a_before_state_the_build_did_not_rebuild_is_no_verdict" },
  finding = 88,
  why = "judges a before state the build never rebuilt: a guard reads as a pin",
}

mutant {
  name = "reproduce-variant-fallback-never-tried",
  file = "harness/reproduce.c",
  find = "if (err || *ok || fb < 0)",
  replace = "if (err || *ok || fb < 0 || 1)",
  guards = { "test_a_state_that_does_not_build_falls_back_when_told" },
  designed_against = "a declared fallback never used",
  why = "a fix whose old state needs the fallback to build is an error instead of a verdict",
}

mutant {
  name = "reproduce-unlisted-test-file-kept",
  file = "harness/reproduce.c",
  find = "if (!err && t->runner < 0 && t->role == INFERRED_FILE) {",
  replace = "if (0) {",
  guards = { "test_a_changed_test_file_named_as_a_test_is_run" },
  designed_against = "a changed test file that no runner lists is a file, not a test to run",
  why = "runs every changed test file's name as a test, the Makefile included",
}

mutant {
  name = "reproduce-dropped-name-called-a-helper",
  file = "harness/reproduce.c",
  find = "no runner lists this name from a changed line: not a test, ",
  replace = "no runner lists it (a helper, not a test): ",
  guards = { "test_without_citations_the_commits_own_tests_are_run" },
  finding = 26,
  why = "says a name it dropped is a helper's, when it may be a file's named in a comment",
}

mutant {
  name = "reproduce-unlisted-guard-run-anyway",
  file = "harness/reproduce.c",
  find = [[if (!err && t->runner < 0 && r->opts->guards)]],
  replace = [[if (0)]],
  guards = { "test_a_guard_no_runner_lists_is_refused" },
  finding = 41,
  why = "runs a --guard name no runner lists and records it as broken",
}

mutant {
  name = "reproduce-every-variant-with-one-unjudged",
  file = "harness/reproduce.c",
  find = "const int every = !unjudged[0];",
  replace = "const int every = 1; (void)unjudged;",
  guards = { "test_a_variant_that_cannot_be_judged_is_named_never_counted_in_every" },
  finding = 85,
  why = "sums up the verdicts as 'every variant' though one variant was never judged",
}

mutant {
  name = "reproduce-variant-claims-judged-by-one-variant",
  file = "harness/reproduce.c",
  find = "inferred_guard += guessed && guard;",
  replace = 'inferred_guard += guessed && !strcmp(t->verdict, "guard");',
  guards = { "test_one_fix_is_a_guard_under_one_variant_and_a_pin_under_another" },
  designed_against = "a fix judged under several variants by the first one alone",
  why = "a guard under strict and a pin under default reads NO GUARD",
}

mutant {
  name = "reproduce-wrong-claim-exits-0",
  file = "harness/reproduce.c",
  find = "if (!guessed && !holds) {",
  replace = "if (0) {",
  guards = { "test_a_test_that_passes_both_ways_is_a_pin_not_a_guard" },
  designed_against = "CI must fail when DEBUG.md calls a pin a guard",
  why = "prints the table but never fails on a wrong citation",
}

mutant {
  name = "reproduce-sources-ignored",
  file = "harness/reproduce.c",
  find = "return !r->proj->sources || td_project_matches(r->proj->sources, path) ? 1 : 2;",
  replace = "return r->proj->sources ? 1 : 1;",
  guards = { "test_files_outside_sources_are_kept_as_in_the_fix" },
  designed_against = "a setting that tdaudit.lua accepts must change something",
  why = "reverts every non-test file whatever sources says",
}

mutant {
  name = "reproduce-nothing-to-infer-built-anyway",
  file = "harness/reproduce.c",
  find = "if (c->n == 0) /* nothing to look for: no build */",
  replace = "if (0) /* nothing to look for: no build */",
  guards = { "test_a_commit_with_no_test_to_infer_is_refused_saying_what_to_do" },
  designed_against = "a commit with no test to run is refused at once, saying how to name one",
  why = "builds the fix before finding out there is nothing to run",
}

mutant {
  name = "reproduce-before-is-the-fix",
  file = "harness/reproduce.c",
  find = "err = build_state(&ok, r, c, info->parent, info->id, 0);",
  replace = "err = build_state(&ok, r, c, info->id, NULL, 0);",
  guards = { "test_a_guard_fails_before_the_fix_and_passes_after" },
  designed_against = "the pre-fix state must differ from the fix",
  why = "builds the fix itself as the before state",
}

mutant {
  name = "reproduce-no-build-read-as-pass",
  file = "harness/reproduce.c",
  find = "c->t[i].before_built = ok;",
  replace = "c->t[i].before_built = 1;",
  guards = { "test_pre_fix_code_that_does_not_build_is_no_build_never_a_pass" },
  designed_against = "pre-fix code that does not build against the new tests is no evidence, never a pass",
  why = "reads the unrun before state as passes",
}

mutant {
  name = "reproduce-at-head-conflict-not-reported",
  file = "harness/reproduce.c",
  find = "\t\t*status = 1;\n\t} else if",
  replace = "\t\t*status = 0;\n\t} else if",
  guards = { "test_at_head_a_fix_that_no_longer_reverts_is_a_conflict_never_a_pass" },
  designed_against = "a fix that no longer reverts cleanly at HEAD is a conflict, reported as such with exit 1, never a pass",
  why = "goes on past a conflicting revert as if it were clean",
}

mutant {
  name = "reproduce-test-only-commit-run",
  file = "harness/reproduce.c",
  find = "if (!err && n_code == 0) {",
  replace = "if (0) {",
  guards = { "test_a_commit_changing_only_tests_has_nothing_to_revert" },
  designed_against = "reverting nothing proves nothing; say so instead of running",
  why = "runs a test-only commit as if it had code to revert",
}
