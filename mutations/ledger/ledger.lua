-- mutations/ledger/ledger.lua: the mutants of ledger/ledger.c, the findings
-- ledger on SQLite (see ledger.h for the contract and the schema).
--
-- Each entry re-introduces one bug class into the module and names the tests
-- that must notice; every name starts with "ledger-". Format:
-- harness/catalogue.h; layout, naming and listing: mutations/README.md.

mutant {
  name = "ledger-v1-not-migrated",
  file = "ledger/ledger.c",
  find = "\t{2, schema_v2},",
  replace = "\t{1, schema_v2},",
  guards = { "test_a_version_1_ledger_is_migrated_forward_keeping_its_rows" },
  designed_against = "a ledger written by an older tdaudit is migrated forward when opened",
  why = "numbers step 2 as step 1, so a version-1 ledger never gets it",
}

mutant {
  name = "ledger-md-commit-without-backticks",
  file = "ledger/ledger.c",
  find = "fprintf(f, \" %s, `%s` |\\n\", r->status, r->fix_commit);",
  replace = "fprintf(f, \" %s, %s |\\n\", r->status, r->fix_commit);",
  guards = { "test_the_ledger_export_parses_back_to_the_same_findings" },
  designed_against = "the ledger's markdown export is a summary table DEBUG.md can take as it is",
  why = "td_ledger_export_md() writes the fix commit without its backticks, a status the DEBUG.md parser refuses",
}

mutant {
  name = "ledger-json-drops-at-head",
  file = "ledger/ledger.c",
  find = "\" stable_n, at_head, variant, build, build_env, fallback FROM reproductions\"",
  replace = "\" stable_n, NULL, variant, build, build_env, fallback FROM reproductions\"",
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
  name = "ledger-writers-do-not-wait-for-each-other",
  file = "ledger/ledger.c",
  find = "sqlite3_busy_timeout(lg->db, TD_LEDGER_BUSY_MS);",
  replace = "sqlite3_busy_timeout(lg->db, 0);",
  guards = { "test_eight_writers_at_once_lose_no_rows" },
  designed_against = "two tdaudit runs ending at once must both be recorded",
  why = "fails a writer at once when another holds the lock, losing its run",
}

mutant {
  name = "ledger-shards-of-other-catalogues-merge",
  file = "ledger/ledger.c",
  find = "return a->shard_n == b->shard_n && !strcmp(a->head_commit, b->head_commit) &&\n\t       !strcmp(a->catalogue, b->catalogue) && a->dirty == b->dirty;",
  replace = "return a->shard_n == b->shard_n && !strcmp(a->head_commit, b->head_commit) &&\n\t       a->dirty == b->dirty;",
  guards = { "test_shards_of_different_commits_or_catalogues_are_not_merged" },
  designed_against = "shards of two catalogues partition two different sets: merged, some mutants are in no shard and others in two",
  why = "merges shards whose catalogues differ as if they were one run",
}

mutant {
  name = "ledger-shard-of-uncommitted-changes-merges",
  file = "ledger/ledger.c",
  find = "!strcmp(a->catalogue, b->catalogue) && a->dirty == b->dirty;",
  replace = "!strcmp(a->catalogue, b->catalogue);",
  guards = { "test_shards_of_different_commits_or_catalogues_are_not_merged" },
  finding = 79,
  why = "merges a shard of uncommitted changes with one of the commit, two versions of the code, as one run",
}

mutant {
  name = "ledger-missing-shard-is-read",
  file = "ledger/ledger.c",
  find = "\t\tif (!seen[k])\n",
  replace = "\t\tif (!seen[k] && 0)\n",
  guards = { "test_a_missing_shard_is_refused_by_name" },
  designed_against = "a merged ledger without one shard silently lacks its mutants: the gates and score would be of part of the run",
  why = "reads a sharded run with a shard missing as complete",
}

mutant {
  name = "ledger-oldest-run-of-a-shard-wins",
  file = "ledger/ledger.c",
  find = "\" AND COALESCE(head_commit, '') = ?3 ORDER BY started DESC, id DESC\",",
  replace = "\" AND COALESCE(head_commit, '') = ?3 ORDER BY started ASC, id DESC\",",
  guards = { "test_a_later_run_of_a_shard_replaces_the_earlier" },
  designed_against = "a shard run again replaces its earlier run; reading the oldest reports outcomes the code no longer has",
  why = "takes the first run of each shard instead of the latest",
}

mutant {
  name = "ledger-merge-drops-run-tests",
  file = "ledger/ledger.c",
  find = "\t\"INSERT INTO main.run_tests(run, test) SELECT run, test FROM src.run_tests WHERE true\"\n\t\" ON CONFLICT DO NOTHING\",\n",
  replace = "",
  guards = { "test_a_merge_carries_each_shards_tests" },
  designed_against = "a merged ledger must carry every table the readers need: without run_tests no test can be named as killing nothing",
  why = "merges shard ledgers without their lists of tests",
}

mutant {
  name = "ledger-latest-shard-ignores-the-or",
  file = "ledger/ledger.c",
  find = "\" WHERE (catalogue IS NOT NULL OR id IN (SELECT run FROM mutant_outcomes))\"",
  replace = "\" WHERE catalogue IS NOT NULL OR id IN (SELECT run FROM mutant_outcomes)\"",
  guards = { "test_shards_of_different_commits_or_catalogues_are_not_merged" },
  designed_against = "AND binds tighter than OR: a condition appended to an OR without parentheses filters only its second half",
  why = "takes a later unsharded run for a source's latest shard, and refuses a merge of two matching shards",
}

mutant {
  name = "ledger-merge-writes-its-source",
  file = "ledger/ledger.c",
  find = "\t    (err = snapshot_source(copy, sizeof copy, src_path)))\n\t\treturn err;\n\tif ((err = td_ledger_open(&src, copy, 0))) {",
  replace = "\t    (err = snapshot_source(copy, sizeof copy, src_path)))\n\t\treturn err;\n\tif ((err = td_ledger_open(&src, src_path, 0))) {",
  guards = { "test_a_merge_never_writes_its_source" },
  finding = 51,
  why = "opens the merge's source read-write again, migrating it in place",
}

mutant {
  name = "ledger-merge-takes-an-empty-file",
  file = "ledger/ledger.c",
  find = "if (!err && (app != TD_LEDGER_MAGIC || objects == 0))",
  replace = "if (!err && app != TD_LEDGER_MAGIC && objects != 0)",
  guards = { "test_a_merge_never_writes_its_source" },
  finding = 51,
  why = "takes an empty file as a source ledger",
}

mutant {
  name = "ledger-survivors-of-a-shard",
  file = "ledger/ledger.c",
  find = "LATEST_MUTATION_RUN \" AND shard_n IS NULL AND ended IS NOT NULL\"",
  replace = "LATEST_MUTATION_RUN \" AND ended IS NOT NULL\"",
  guards = { "test_survivors_runs_again_only_what_the_previous_run_let_through" },
  designed_against = "--survivors reads the latest unsharded run: a shard's survivors are only part of the run's",
  why = "takes the survivors of a later shard, which held only part of the mutants",
}

mutant {
  name = "ledger-no-coverage-not-admitted",
  file = "ledger/ledger.c",
  find = "\"     'equivalent', 'not-rebuilt', 'no-coverage')),\\n\"",
  replace = "\"     'equivalent', 'not-rebuilt')),\\n\"",
  guards = { "test_a_version_1_ledger_is_migrated_forward_keeping_its_rows" },
  designed_against = "the ledger must store a no-coverage mutant as no-coverage",
  why = "refuses every no-coverage outcome, so a schema run with a mutant no test reaches cannot be recorded",
}
