-- mutations/ci/weekly.lua: the mutants of ci/weekly, the weekly mutation job.
--
-- Each entry re-introduces one bug class into the script and names the tests
-- that must notice; every name starts with "weekly-". Format:
-- harness/catalogue.h; layout, naming and listing: mutations/README.md.

mutant {
  name = "weekly-no-coverage-not-counted",
  file = "ci/weekly",
  find = "survived\\|no-coverage\\|stale",
  replace = "survived\\|stale",
  guards = { "test_a_weekly_merge_fails_on_a_no_coverage_mutant" },
  finding = 96,
  why = "leaves no-coverage out of the merge's count of mutants not caught",
}

mutant {
  name = "weekly-mutate-options-dropped",
  file = "ci/weekly",
  find = "\"${mutate_args[@]}\" --shard",
  replace = "--shard",
  guards = { "test_the_weekly_job_runs_a_named_catalogue_in_schemata" },
  designed_against = "the weekly job's generated catalogue and --schemata reach each shard's mutate; dropped, the shards run the everyday catalogues under the generated job's name",
  why = "runs each shard without the --catalogue and --schemata it was given",
}

mutant {
  name = "weekly-sanitize-dropped",
  file = "ci/weekly",
  find = "--sanitize) mutate_args+=(--sanitize); shift ;;",
  replace = "--sanitize) shift ;;",
  guards = { "test_the_weekly_job_passes_sanitize_to_its_shards" },
  designed_against = "the generated job's mutants are judged under the sanitizers; dropped, a removed free() survives and the report blames the tests",
  why = "accepts --sanitize and runs each shard without it",
}
