-- mutations/harness/mutate.lua: the mutants of harness/mutate.c, the mutation
-- run (see mutate.h).
--
-- Each entry re-introduces one bug class into the module and names the tests
-- that must notice; every name starts with "mutate-". Format:
-- harness/catalogue.h; layout, naming and listing: mutations/README.md.

mutant {
  name = "mutate-silent-test-program-refused",
  file = "harness/mutate.c",
  find = "strstr(r->proj->runners[t->runner].run[0], \"{test}\") != NULL;",
  replace = "0;",
  guards = { "test_a_test_that_is_its_own_program_need_not_print_its_name" },
  equivalent = "the baseline's negative control accepts such a runner too: given a name no runner lists, it runs a program that does not exist, which fails",
  designed_against = "where each test is a binary that prints nothing when it passes, the suite is still usable",
  why = "asks a test binary run by its own name to print that name too",
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
  name = "mutate-timeout-read-as-kill",
  file = "harness/mutate.c",
  find = "res->outcome = timed_out ? TD_TIMEOUT : TD_KILLED;\n\t\t\treturn err;",
  replace = "res->outcome = TD_KILLED;\n\t\t\treturn err;",
  guards = { "test_every_outcome_is_reported" },
  designed_against = "a test that hangs is not a test that caught the mutant",
  why = "reports a guard's timeout as a kill",
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
  name = "mutate-writes-the-users-tree",
  file = "harness/mutate.c",
  find = "err = td_scratch_put(w->tree, m->file, mut, mlen);",
  replace = "err = td_scratch_put(r->proj->root, m->file, mut, mlen);",
  guards = { "test_the_users_tree_index_and_head_are_untouched" },
  designed_against = "the harness never edits the user's working tree",
  why = "applies the mutant to the user's file instead of the scratch copy",
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
  name = "mutate-file-not-restored",
  file = "harness/mutate.c",
  find = "if (td_scratch_put(w->tree, m->file, orig, len) != 0 && !err)",
  replace = "if (0 && td_scratch_put(w->tree, m->file, orig, len) != 0 && !err)",
  guards = { "test_every_outcome_is_reported" },
  designed_against = "each mutant must start from the unmutated code",
  why = "leaves each mutant applied for the next one",
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

mutant {
  name = "mutate-only-matching-nothing-accepted",
  file = "harness/mutate.c",
  find = "if (hits == 0)",
  replace = "if (hits == 0 && 0)",
  guards = { "test_an_only_pattern_that_matches_no_mutant_is_refused" },
  finding = 20,
  why = "a mistyped --only runs no mutant and reports every mutant caught",
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
  name = "mutate-ledger-check-lists-a-stale-copy",
  file = "harness/mutate.c",
  find = "snprintf(r.src, sizeof r.src, \"%s\", proj->root); /* the tree to list: the working tree */",
  replace = "",
  guards = { "test_ledger_check_lists_the_tests_of_the_working_tree_not_a_stale_copy" },
  finding = 17,
  why = "ledger check lists the tests of whatever scratch copy the last mutate left (and cannot build one where none exists)",
}

mutant {
  name = "mutate-guard-run-accepted",
  file = "harness/mutate.c",
  find = "if (!err && opts->guard && !opts->list)",
  replace = "if (0 && !err && opts->guard && !opts->list)",
  guards = { "test_list_guard_shows_the_entries_naming_the_test" },
  designed_against = "a run by guard would run mutants whose other guards decide the outcome; only a listing has a clear meaning",
  why = "runs the mutants a test guards instead of refusing --guard without --list",
}

mutant {
  name = "mutate-one-unmatched-file-glob-accepted",
  file = "harness/mutate.c",
  find = "const char *bad = globs ? unmatched_glob(m, globs) : NULL;",
  replace = "const char *bad = NULL;",
  guards = { "test_list_file_shows_the_mutants_of_matching_files_and_their_guards" },
  designed_against = "a mistyped --file beside a right one must not pass unnoticed",
  why = "refuses a --file glob that matches nothing only when no other glob matches anything",
}

mutant {
  name = "mutate-file-and-guard-filters-ignored",
  file = "harness/mutate.c",
  find = "if (!err && (opts->files || opts->guard))",
  replace = "if (0 && !err && (opts->files || opts->guard))",
  guards = { "test_list_file_shows_the_mutants_of_matching_files_and_their_guards",
             "test_file_runs_only_the_mutants_of_matching_files",
             "test_list_guard_shows_the_entries_naming_the_test" },
  designed_against = "what breaks core/plan.c, and who guards it, must not be answered with every mutant of the catalogue",
  why = "--file and --guard keep every mutant: the listing answers for the whole catalogue, a --file run runs them all",
}

mutant {
  name = "mutate-reports-and-ledger-checked-after-the-run",
  file = "harness/mutate.c",
  find = "err = preflight(&r);",
  replace = "err = preflight(&r) && 0;",
  guards = { "test_unwritable_reports_and_ledger_are_refused_before_the_run" },
  finding = 44,
  why = "runs every mutant before finding that the results cannot be written",
}

mutant {
  name = "mutate-worker-failure-loses-its-message",
  file = "harness/mutate.c",
  find = "return TD_FAIL(ws[i].err, \"%s\", ws[i].msg);",
  replace = "return ws[i].err;",
  guards = { "test_a_worker_s_failure_is_reported_with_its_message" },
  finding = 50,
  why = "passes a worker's error code back without its message: the user reads 'no error'",
}

mutant {
  name = "mutate-scratch-trees-in-the-repository",
  file = "harness/mutate.c",
  find = "int err = td_testrun_state_dir(r->dir, sizeof r->dir, r->proj->root);",
  replace = "int err = snprintf(r->dir, sizeof r->dir, \"%s/.tdaudit\", r->proj->root) < 0;",
  guards = { "test_a_mutant_that_writes_up_its_tree_reaches_no_user_file" },
  finding = 49,
  why = "puts the scratch trees back inside the user's repository",
}

mutant {
  name = "mutate-shard-numbers-from-zero",
  file = "harness/mutate.c",
  find = "return n > 0 ? (int)(h % (uint64_t)n) + 1 : 1;",
  replace = "return n > 0 ? (int)(h % (uint64_t)n) : 1;",
  guards = { "test_shards_cover_every_mutant_exactly_once" },
  designed_against = "shards are numbered 1..N on the command line: an off-by-one drops a shard's mutants from every run",
  why = "puts mutants in shards 0..N-1, so shard N is empty and the mutants of 'shard 0' are never run",
}

mutant {
  name = "mutate-shard-by-position",
  file = "harness/mutate.c",
  find = "if (td_mutate_shard_of(r->muts.v[i].id, n) == k) {",
  replace = "if ((int)(i % (size_t)n) + 1 == k) {",
  guards = { "test_adding_a_mutant_moves_no_other_between_shards" },
  designed_against = "a shard is a function of the mutant's id: by position, one new catalogue entry reshuffles every shard",
  why = "deals mutants to shards by their position, so adding one moves most of the others",
}

mutant {
  name = "mutate-fingerprint-of-the-shard",
  file = "harness/mutate.c",
  find = "\tif (!err)\n\t\tfingerprint(&r);\n\tif (!err && opts->shard_n)\n\t\tfilter_shard(&r, opts->shard_k, opts->shard_n);",
  replace = "\tif (!err && opts->shard_n)\n\t\tfilter_shard(&r, opts->shard_k, opts->shard_n);\n\tif (!err)\n\t\tfingerprint(&r);",
  guards = { "test_merged_shards_give_the_outcomes_of_one_run" },
  designed_against = "the fingerprint says which mutants were partitioned: taken after sharding, no two shards of one run agree",
  why = "fingerprints each shard's own mutants, so the shards of one run read as different runs",
}

mutant {
  name = "mutate-sanitizer-report-not-read",
  file = "harness/mutate.c",
  find = "td_sanitize_report(res->detail, sizeof res->detail, res->tail, sizeof res->tail, w->log);",
  replace = "(void)0;",
  guards = { "test_sanitize_kills_a_leak_and_a_read_past_the_end_that_the_plain_run_misses" },
  designed_against = "a kill by a sanitizer is recorded with the report's first lines, not a bare exit status",
  why = "records a sanitizer's kill as \"exit 86\" and the last lines of its stack trace",
}

mutant {
  name = "mutate-generated-equivalent-not-honoured",
  file = "harness/mutate.c",
  find = "} else if (m->equivalent) {",
  replace = "} else if (m->equivalent && !m->generated) {",
  guards = { "test_a_generated_mutant_declared_equivalent_is_reported_with_its_reason" },
  designed_against = "a generated mutant declared equivalent in a catalogue is reported with its reason, not run",
  why = "accepts the declaration and runs the mutant anyway, so it survives as before",
}

mutant {
  name = "mutate-sanitize-without-its-variant-builds-default",
  file = "harness/mutate.c",
  find = "if (v < 0 && !r->opts->variant)\n",
  replace = "if (v < 0 && !r->opts->variant)\n\t\tv = 0;\n\tif (0)\n",
  guards = { "test_sanitize_without_a_sanitize_variant_is_refused_with_an_example" },
  designed_against = "--sanitize without a variant that builds with the sanitizers is refused, not run without them",
  why = "builds with default, so a run that claims the sanitizers ran has none",
}

mutant {
  name = "mutate-survivors-none-left-runs-anyway",
  file = "harness/mutate.c",
  find = "if (!err && opts->survivors && r.muts.n == 0) {",
  replace = "if (0) {",
  guards = { "test_survivors_without_a_previous_run_or_without_survivors_say_so" },
  designed_against = "--survivors with nothing to run again builds nothing and records no run",
  why = "builds and runs the baseline for no mutant, and records an empty run as the previous one",
}

mutant {
  name = "mutate-schema-mutant-never-turned-on",
  file = "harness/mutate.c",
  find = "snprintf(w->env, sizeof w->env, TD_SCHEMA_ENV \"=%u\", p[k].number);",
  replace = "snprintf(w->env, sizeof w->env, TD_SCHEMA_ENV \"=%u\", 0u);",
  guards = { "test_schemata_judge_every_mutant_as_its_own_build_does" },
  designed_against = "a schema's tests must run with their mutant's number, or the schema judges the original code",
  why = "runs every mutant's tests on the unmutated schema, so every one survives",
}

mutant {
  name = "mutate-schema-split-gives-up",
  file = "harness/mutate.c",
  find = "err = split(t, lo, lo + (hi - lo) / 2);\n\treturn err ? err : split(t, lo + (hi - lo) / 2, hi);",
  replace = "return 0;",
  guards = { "test_schemata_judge_every_mutant_as_its_own_build_does" },
  designed_against = "one function that does not build in a schema must not send the whole file back to builds one by one",
  why = "never splits a schema that does not build: every mutant of the file is built alone",
}

mutant {
  name = "mutate-schema-unmutated-suite-not-run",
  file = "harness/mutate.c",
  find = "if (!err && !why[0] && !cached)\n\t\terr = schema_baseline(",
  replace = "if (0)\n\t\terr = schema_baseline(",
  guards = { "test_a_schema_the_unmutated_suite_fails_on_falls_back_to_builds_one_by_one" },
  designed_against = "a schema build the suite fails on unmutated cannot judge a mutant",
  why = "judges mutants in a schema build without first seeing the suite pass on it (and with no coverage to order the tests by)",
}

mutant {
  name = "mutate-werror-shim-keeps-werror",
  file = "harness/mutate.c",
  find = "exec '%s' \\\"$@\\\" -Wno-error\\n\",",
  replace = "exec '%s' \\\"$@\\\"\\n\",",
  guards = { "test_mutants_build_without_werror_unless_told_to_keep_it" },
  designed_against = "a mutant that only provokes a warning is a mutant, not a build failure",
  why = "the compiler shims run the compiler with the project's -Werror, so warned mutants are build-failed",
}

mutant {
  name = "mutate-schema-tests-in-list-order",
  file = "harness/mutate.c",
  find = "\t\tw->order = order;\n",
  replace = "\t\tw->order = NULL;\n",
  guards = { "test_schemata_judge_every_mutant_as_its_own_build_does" },
  designed_against = "the tests that reach a mutant should run first, so that a kill comes sooner",
  why = "runs a schema's mutant's tests in list order, ignoring what the unmutated run reached",
}

mutant {
  name = "mutate-werror-shim-ignores-keep",
  file = "harness/mutate.c",
  find = "\"[ \\\"$\" WERROR_ENV \"\\\" = keep ] && exec '%s' \\\"$@\\\"\\n\"",
  replace = "\"[ \\\"$\" WERROR_ENV \"\\\" = never ] && exec '%s' \\\"$@\\\"\\n\"",
  guards = { "test_keep_werror_holds_under_a_mutate_that_dropped_it" },
  designed_against = "a --keep-werror run under a mutate that dropped -Werror built with -Wno-error through the outer run's shims",
  why = "the shims append -Wno-error even where the run they serve asked to keep -Werror",
}

mutant {
  name = "mutate-schema-unreached-mutant-run",
  file = "harness/mutate.c",
  find = "if (!reached && known && !r->opts->run_unreached) {",
  replace = "if (0) {",
  guards = { "test_schemata_judge_every_mutant_as_its_own_build_does" },
  designed_against = "a mutant no test reaches is no-coverage, judged without running the suite",
  why = "runs the whole suite for a mutant no test reaches and calls it survived, hiding that nothing even runs its code",
}

mutant {
  name = "mutate-schema-run-unreached-ignored",
  file = "harness/mutate.c",
  find = "if (!reached && known && !r->opts->run_unreached) {",
  replace = "if (!reached && known) {",
  guards = { "test_schemata_judge_every_mutant_as_its_own_build_does" },
  designed_against = "--run-unreached must run the suite for mutants the coverage says no test reaches",
  why = "ignores --run-unreached, so a reach the coverage file missed can never be checked",
}

mutant {
  name = "mutate-rev-generates-from-the-working-tree",
  file = "harness/mutate.c",
  find = "err = td_catalogue_load_at(&r.muts, r.proj->root, r.src,",
  replace = "err = td_catalogue_load_at(&r.muts, r.proj->root, r.proj->root,",
  guards = { "test_rev_generates_its_mutants_from_the_revisions_files" },
  finding = 101,
  why = "generates --rev's mutants from the working tree's files, so REV's code is never mutated by them",
}

mutant {
  name = "mutate-coverage-key-ignores-the-tree",
  file = "harness/mutate.c",
  find = "if (td_scratch_content_hash(&h, w->tree, manifest) != 0)",
  replace = "if (0 && td_scratch_content_hash(&h, w->tree, manifest) != 0)",
  guards = { "test_the_coverage_of_an_unchanged_schema_is_kept_and_a_changed_test_measures_it_again" },
  designed_against = "kept coverage must be keyed by the bytes of the tree it was measured on",
  why = "reuses the coverage of an older tree after a test changed, so a mutant the new test reaches stays no-coverage",
}

mutant {
  name = "mutate-coverage-lost-read-as-reached-nothing",
  file = "harness/mutate.c",
  find = "if (lstat(file, &st) != 0 || !S_ISREG(st.st_mode))",
  replace = "if (0)",
  guards = { "test_a_test_that_empties_its_tmpdir_never_makes_a_mutant_no_coverage" },
  finding = 94,
  why = "reads a test that cleaned its TMPDIR as reaching no point, so every mutant is no-coverage",
}

mutant {
  name = "mutate-catalogue-option-ignored",
  file = "harness/mutate.c",
  find = "opts->catalogues ? opts->catalogues : r.proj->catalogues);",
  replace = "r.proj->catalogues);",
  guards = { "test_catalogue_runs_the_named_catalogues_instead_of_the_configured_ones" },
  designed_against = "a weekly job names a generated catalogue too big for every run; ignoring it runs the everyday catalogues and reports their score as the whole tree's",
  why = "loads tdaudit.lua's catalogues whatever --catalogue says",
}
