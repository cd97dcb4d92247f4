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
  name = "mutate-only-matching-nothing-accepted",
  file = "harness/mutate.c",
  find = "\t\tif (hits == 0)\n\t\t\treturn TD_FAIL(TD_EINVAL,",
  replace = "\t\tif (hits == 0 && 0)\n\t\t\treturn TD_FAIL(TD_EINVAL,",
  guards = { "test_an_only_pattern_that_matches_no_mutant_is_refused" },
  finding = 20,
  why = "a mistyped --only runs no mutant and reports every mutant caught",
}

mutant {
  name = "mutate-only-keeps-the-last-pattern",
  file = "harness/cmd_mutate.c",
  find = "\ta.o.only = (const char *const *)a.only;\n\ta.o.n_only = td_strv_len(a.only);",
  replace = "\ta.o.n_only = a.only ? 1 : 0;\n\ta.o.only = (const char *const *)a.only + (a.only ? td_strv_len(a.only) - 1 : 0);",
  guards = { "test_only_given_twice_keeps_the_mutants_of_both_patterns" },
  finding = 21,
  why = "a second --only replaces the first: half the mutants asked for never run, and the summary says all were caught",
}

mutant {
  name = "option-given-twice-accepted",
  file = "base/opt.c",
  find = "if (seen[o - cmd->opts]++ && !o->repeatable)",
  replace = "if (seen[o - cmd->opts]++ && 0)",
  guards = { "test_a_value_option_given_twice_is_refused",
             "test_opt_an_option_given_twice_is_refused_unless_repeatable",
             "test_tdtrain_refuses_an_option_given_twice" },
  finding = 21,
  why = "an option given twice keeps its last value without a word",
}

mutant {
  name = "opt-number-trailing-garbage-accepted",
  file = "base/opt.c",
  find = "return !*end && !errno;",
  replace = "return !errno;",
  guards = { "test_opt_a_number_is_read_in_full_and_range_checked_or_refused",
             "test_tdtrain_refuses_a_stop_after_that_is_not_a_whole_number" },
  finding = 30,
  why = "a number is read up to its first non-digit: --stop-after 10x stops after 10 steps, -j 4x runs 4 workers, without a word",
}

mutant {
  name = "opt-unknown-option-ignored",
  file = "base/opt.c",
  find = "if (!o)\n\t\treturn td_opt_error(cmd, \"unknown option '%s'\", word);",
  replace = "if (!o)\n\t\treturn 0;",
  guards = { "test_opt_an_unknown_option_or_a_stray_operand_is_refused" },
  designed_against = "a mistyped option must stop the command, not run it without what the user asked for",
  why = "an unknown option is skipped: --tiemout 5 runs with the default timeout",
}

mutant {
  name = "debugmd-continuation-lines-unwatched",
  file = "ledger/debugmd.c",
  find = "\t\tp->field_line = p->line, p->field_pin = pin; /* its continuation lines are watched */",
  replace = "\t\t(void)0; /* its continuation lines are watched */",
  guards = { "test_a_test_named_on_a_wrapped_guarded_by_line_is_reported" },
  finding = 22,
  why = "a guard wrapped onto the line after **Guarded by** is dropped, and ledger check says nothing",
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
  occurrence = 2, -- judge(); the first is judge_whole_suite() (--cold)
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
  find = "else if (!err && !program_is_the_test(r, &r->tests[i]) &&",
  replace = "else if (0 && !program_is_the_test(r, &r->tests[i]) &&",
  guards = { "test_a_runner_that_never_names_its_test_stops_the_run" },
  designed_against = "a run-one command that runs nothing makes every mutant survive or every one die",
  why = "never checks that the runner ran the named test",
}

mutant {
  name = "mutate-silent-test-program-refused",
  file = "harness/mutate.c",
  find = "return strstr(r->proj->runners[t->runner].run[0], \"{test}\") != NULL;",
  replace = "return (void)r, (void)t, 0;",
  guards = { "test_a_test_that_is_its_own_program_need_not_print_its_name" },
  designed_against = "where each test is a binary that prints nothing when it passes, the suite is still usable",
  why = "asks a test binary run by its own name to print that name too",
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
  file = "harness/testrun.c",
  find = "td_testrun_log_mentions(log, p->runners[k].fail_text))",
  replace = "0)",
  guards = { "test_fail_text_marks_a_zero_exit_as_a_failure" },
  designed_against = "a runner that exits 0 on failure hides every kill",
  why = "ignores the runner's fail_text (in testrun.c, which mutate, reproduce and bisect share)",
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

-- tdaudit reproduce and bisect (harness/reproduce.c, bisect.c, repo.c):
-- the verdicts must be honest, a state must be what it claims to be, and
-- the user's tree is never written.

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
  name = "reproduce-missing-debug-md-refused",
  file = "harness/reproduce.c",
  find = "err = load_doc(r, 0);",
  replace = "err = load_doc(r, 1);",
  guards = { "test_without_debug_md_the_commits_own_tests_are_run" },
  finding = 27,
  why = "refuses one commit of a repository without DEBUG.md instead of reading its diff",
}

mutant {
  name = "reproduce-test-file-names-not-taken",
  file = "harness/reproduce.c",
  find = "if (!td_project_matches(r->proj->tests, changed[i]) || len == 0",
  replace = "if (1 || len == 0",
  guards = { "test_a_changed_test_file_named_as_a_test_is_run" },
  designed_against = "where each test file is one test (ctest), a fix's changed test file names its guard",
  why = "takes test_ names only, so a ctest project's fix has no test to run",
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
  name = "reproduce-nothing-to-infer-built-anyway",
  file = "harness/reproduce.c",
  find = "if (c->n == 0) /* nothing to look for: no build */",
  replace = "if (0) /* nothing to look for: no build */",
  guards = { "test_a_commit_with_no_test_to_infer_is_refused_saying_what_to_do" },
  designed_against = "a commit with no test to run is refused at once, saying how to name one",
  why = "builds the fix before finding out there is nothing to run",
}

mutant {
  name = "ledger-check-missing-debug-md-unexplained",
  file = "harness/ledgercheck.c",
  find = "if (!err && access(path, F_OK) != 0)",
  replace = "if (0)",
  guards = { "test_ledger_check_without_debug_md_says_what_it_needs" },
  designed_against = "a missing input is named with what to do, not passed on as an errno",
  why = "reports a missing DEBUG.md as the parser's open error",
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
  name = "reproduce-no-build-read-as-pass",
  file = "harness/reproduce.c",
  find = "c->t[i].before_built = ok;",
  replace = "c->t[i].before_built = 1;",
  guards = { "test_pre_fix_code_that_does_not_build_is_no_build_never_a_pass" },
  designed_against = "pre-fix code that does not build against the new tests is no evidence, never a pass",
  why = "reads the unrun before state as passes",
}

mutant {
  name = "reproduce-added-file-left-in-before",
  file = "harness/repo.c",
  find = "err = prune_state(&n, dst, manifest, &l);",
  replace = "err = prune_state(&n, dst, \"\", &l);",
  guards = { "test_pre_fix_code_that_does_not_build_is_no_build_never_a_pass" },
  designed_against = "the before state must not keep the files the fix added",
  why = "never removes the files the previous state had (it reads no manifest)",
}

mutant {
  name = "reproduce-stale-build-after-a-removal",
  file = "harness/repo.c",
  find = "if (!err && n > n_kept)",
  replace = "if (!err && n_kept > n)",
  guards = { "test_pre_fix_code_that_does_not_build_is_no_build_never_a_pass" },
  finding = 5,
  why = "never touches the state after a file was removed, so make keeps the stale program",
}

mutant {
  name = "reproduce-broken-not-reported",
  file = "harness/reproduce.c",
  find = "if (after != TD_TEST_PASS)\n\t\treturn \"broken\";",
  replace = "if (after != TD_TEST_PASS && after == TD_TEST_PASS)\n\t\treturn \"broken\";",
  guards = { "test_a_test_failing_after_the_fix_is_broken" },
  designed_against = "a test failing with the fix in place guards nothing",
  why = "judges a test that fails after the fix by its before state only",
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
  name = "reproduce-before-is-the-fix",
  file = "harness/reproduce.c",
  find = "err = build_state(&ok, r, info->parent, info->id, 0);",
  replace = "err = build_state(&ok, r, info->id, NULL, 0);",
  guards = { "test_a_guard_fails_before_the_fix_and_passes_after" },
  designed_against = "the pre-fix state must differ from the fix",
  why = "builds the fix itself as the before state",
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

mutant {
  name = "reproduce-wrong-claim-exits-0",
  file = "harness/reproduce.c",
  find = "if (!guessed && strcmp(t->verdict, want)) {",
  replace = "if (0) {",
  guards = { "test_a_test_that_passes_both_ways_is_a_pin_not_a_guard" },
  designed_against = "CI must fail when DEBUG.md calls a pin a guard",
  why = "prints the table but never fails on a wrong citation",
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
  name = "reproduce-shallow-clone-walked",
  file = "harness/repo.c",
  find = "if (!err && git_repository_is_shallow(r->repo) == 1)",
  replace = "if (0)",
  guards = { "test_bad_input_exits_2_with_a_clear_message" },
  designed_against = "libgit2 1.5 cannot walk a shallow clone: say so, never guess",
  why = "accepts a shallow clone",
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
  name = "bisect-skip-read-as-new",
  file = "harness/bisect.c",
  find = "if (!err && r->state[mid] == want)",
  replace = "if (!err && (r->state[mid] == want || r->state[mid] == SKIPPED))",
  guards = { "test_finds_the_fix_in_log2_builds_skipping_a_commit_that_does_not_build" },
  designed_against = "a commit that does not build says nothing about the guard (git bisect's exit 125)",
  why = "treats a commit that does not build as showing the new outcome",
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
  name = "bisect-no-flip-accepted",
  file = "harness/bisect.c",
  find = "if (r->state[lo] == want) {",
  replace = "if (0) {",
  guards = { "test_no_flip_between_the_ends_exits_2" },
  designed_against = "an answer must rest on two adjacent observations that differ",
  why = "names a commit even when the guard already shows the new outcome at the good end",
}

mutant {
  name = "mutate-diff-keeps-everything",
  file = "harness/mutate.c",
  find = "if (r->res[i].outcome == TD_STALE || td_diffrange_has(d, m->file, m->line)) {",
  replace = "if (m->line >= 0) {",
  guards = { "test_diff_keeps_only_mutants_on_changed_lines" },
  designed_against = "--diff must narrow the run to the change, or it reviews nothing in particular",
  why = "keeps every mutant whatever changed",
}

mutant {
  name = "catalogue-generated-located-by-text",
  file = "harness/catalogue.c",
  find = "if (m->generated) { /* by offset: the token must still be there */",
  replace = "if (0) {",
  guards = { "test_generated_mutants_run_and_skip_comments_are_counted" },
  designed_against = "a generated mutant's token occurs many times; searching for it mutates the wrong one",
  why = "locates generated mutants by searching for their token",
}

mutant {
  name = "mutate-rev-reads-the-working-tree",
  file = "harness/mutate.c",
  find = "snprintf(path, sizeof path, \"%s/%s\", r->src, m->file);",
  replace = "snprintf(path, sizeof path, \"%s/%s\", r->proj->root, m->file);",
  guards = { "test_rev_mutates_the_committed_revision_not_the_working_tree" },
  designed_against = "--rev must judge the revision asked for, not whatever the working tree holds",
  why = "locates the mutants in the working tree even with --rev",
}

-- Child processes and the Lua sandbox -------------------------------------

mutant {
  name = "proc-timeout-kills-the-child-only",
  file = "harness/proc.c",
  find = "kill(-pid, SIGKILL);\n\t\t\twaitpid(pid, &st, 0);",
  replace = "kill(pid, SIGKILL);\n\t\t\twaitpid(pid, &st, 0);",
  guards = { "test_a_timeout_kills_the_whole_process_group" },
  designed_against = "a test that forks a server and hangs must not leave it running",
  why = "kills the test's process but not its group on timeout",
  equivalent = "the sweep after every wait kills the whole group anyway (proc-no-sweep-after-exit)",
}

mutant {
  name = "proc-no-sweep-after-exit",
  file = "harness/proc.c",
  find = "kill(-pid, SIGKILL); /* sweep grandchildren left in the group */",
  replace = "",
  guards = { "test_grandchildren_do_not_outlive_a_finished_run" },
  designed_against = "a background process a test leaves behind would outlive the harness",
  why = "leaves grandchildren running after a normal exit",
}

mutant {
  name = "luahost-io-library-opened",
  file = "harness/luahost.c",
  find = "{LUA_UTF8LIBNAME, luaopen_utf8}, {NULL, NULL}};",
  replace = "{LUA_UTF8LIBNAME, luaopen_utf8}, {LUA_IOLIBNAME, luaopen_io}, {NULL, NULL}};",
  guards = { "test_only_safe_libraries_are_there" },
  designed_against = "Lua is a trust boundary: a catalogue must not write files",
  why = "opens the io library in the sandbox",
}

mutant {
  name = "luahost-dotdot-accepted",
  file = "harness/luahost.c",
  find = "if (strncmp(p, \"..\", 2) == 0 && (p[2] == '/' || p[2] == '\\0'))",
  replace = "if (0)",
  guards = { "test_reads_are_confined_to_the_root" },
  designed_against = "reads are confined to the repository",
  why = "lets a script climb out of the root with ..",
}

mutant {
  name = "luahost-symlink-escape",
  file = "harness/luahost.c",
  find = "if (strncmp(real, rroot, strlen(rroot)) != 0 || real[strlen(rroot)] != '/')",
  replace = "if (0)",
  guards = { "test_a_symlink_out_of_the_root_is_refused" },
  designed_against = "a symlink in the repository must not lead a script outside it",
  why = "follows symlinks out of the root",
}

mutant {
  name = "luahost-budget-message",
  file = "harness/luahost.c",
  find = "luaL_error(L, \"%s\", msg);",
  replace = "luaL_error(L, \"instruction budget exceeded (%ld)\", h->instr_limit);",
  guards = { "test_a_script_that_loops_forever_is_stopped" },
  finding = 4,
  why = "formats the budget message with a printf option Lua does not know",
}

-- Test support -------------------------------------------------------------

mutant {
  name = "fixture-log-appends-across-runs",
  file = "tests/fixture.c",
  find = "unlink(out); /* each run's log holds that run only */",
  replace = "",
  guards = { "test_generated_mutants_run_and_skip_comments_are_counted" },
  finding = 3,
  why = "lets a fixture run's log keep the output of the runs before it",
}

-- reproduce --at-head, bisect in the ledger, ledger v2, repository owner (issue 4)

mutant {
  name = "reproduce-at-head-writes-objects",
  file = "harness/repo.c",
  find = "\tif (!err)\n\t\terr = writes_to_memory(r, root);",
  replace = "\tif (0)\n\t\terr = writes_to_memory(r, root);",
  guards = { "test_at_head_writes_no_object_and_leaves_the_users_index_tree_and_head" },
  finding = 9,
  why = "lets the in-memory revert's merged blobs land in .git/objects",
}

mutant {
  name = "reproduce-at-head-test-file-conflict-counts",
  file = "harness/repo.c",
  find = "if (any && !td_project_matches(test_globs, any->path))",
  replace = "if (any && (test_globs || 1))",
  guards = { "test_at_head_a_fix_that_still_reverts_shows_its_guard_still_guards",
             "test_at_head_a_fix_that_no_longer_reverts_is_a_conflict_never_a_pass" },
  designed_against = "test files come from HEAD, so a conflict in one says nothing about the fix; counting it would make --at-head useless once tests grow",
  why = "reports a conflict in a test file as the fix no longer reverting",
}

mutant {
  name = "reproduce-at-head-tests-not-from-head",
  file = "harness/repo.c",
  find = "\tif (!err)\n\t\terr = walk_commit(l, r, head);",
  replace = "\tif (0)\n\t\terr = walk_commit(l, r, head);",
  guards = { "test_at_head_a_fix_that_still_reverts_shows_its_guard_still_guards" },
  designed_against = "before at HEAD must run today's tests against today's code without the fix",
  why = "leaves the test files out of the reverted state instead of taking HEAD's",
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
  name = "repo-owner-refusal-unexplained",
  file = "harness/repo.c",
  find = "return owner_problem(root, sizeof root, path) ? owner_fail(root) : err;",
  replace = "return owner_problem(root, sizeof root, path) && 0 ? owner_fail(root) : err;",
  guards = { "test_a_repository_owned_by_another_user_is_refused_saying_what_to_do" },
  finding = 10,
  why = "passes libgit2's own message on for a repository owned by another user",
}

mutant {
  name = "bisect-result-not-recorded",
  file = "harness/bisect.c",
  find = "\tif (!err && status < 2)\n\t\terr = record(&r, hi, want, status);",
  replace = "\tif (0)\n\t\terr = record(&r, hi, want, status);",
  guards = { "test_a_bisect_result_is_recorded_in_the_ledger_in_one_run",
             "test_an_ambiguous_bisect_is_recorded_with_no_commit_found" },
  designed_against = "every bisect that reaches a result is in the ledger",
  why = "prints the result and records nothing",
}

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
  name = "bisect-tests-at-without-tests-setting",
  file = "harness/bisect.c",
  find = "\tif (!r->proj->tests)\n\t\treturn TD_FAIL",
  replace = "\tif (0)\n\t\treturn TD_FAIL",
  guards = { "test_tests_held_at_a_later_commit_find_the_fix_they_check" },
  designed_against = "--tests-at with no tests globs would hold nothing: refuse it, saying what it needs",
  why = "accepts --tests-at when tdaudit.lua names no test files",
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
  name = "ledger-json-drops-at-head",
  file = "ledger/ledger.c",
  find = "\" stable_n, at_head FROM reproductions",
  replace = "\" stable_n, NULL FROM reproductions",
  guards = { "test_the_json_export_names_its_format_and_version" },
  finding = 28,
  why = "exports every reproduction as judged against the fix's parent, at-head ones included",
}

mutant {
  name = "ledger-json-drops-bisects",
  file = "ledger/ledger.c",
  find = "\" ORDER BY runs.started, bisects.run, guard_test\",",
  replace = "\" AND 0 ORDER BY runs.started, bisects.run, guard_test\",",
  guards = { "test_the_json_export_names_its_format_and_version" },
  designed_against = "every table the ledger records is in its JSON export",
  why = "writes an empty bisects array",
}

mutant {
  name = "ledger-v1-not-migrated",
  file = "ledger/ledger.c",
  find = "\t{2, schema_v2},",
  replace = "\t{1, schema_v2},",
  guards = { "test_a_version_1_ledger_is_migrated_to_version_2_keeping_its_rows" },
  designed_against = "a ledger written by an older tdaudit is migrated forward when opened",
  why = "numbers step 2 as step 1, so a version-1 ledger never gets it",
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
  name = "ledger-check-lists-a-stale-copy",
  file = "harness/mutate.c",
  find = "\tsnprintf(r.src, sizeof r.src, \"%s\", proj->root); /* the tree to list: the working tree */\n",
  replace = "",
  guards = { "test_ledger_check_lists_the_tests_of_the_working_tree_not_a_stale_copy" },
  finding = 17,
  why = "ledger check lists the tests of whatever scratch copy the last mutate left (and cannot build one where none exists)",
}
