-- mutations/harness/cmd_mutate.lua: the mutants of harness/cmd_mutate.c, the
-- command line of `tdaudit mutate` (see mutate.h for what a run does).
--
-- Each entry re-introduces one bug class into the module and names the tests
-- that must notice; every name starts with "cmd_mutate-". Format:
-- harness/catalogue.h; layout, naming and listing: mutations/README.md.

mutant {
  name = "cmd_mutate-shard-beyond-n",
  file = "harness/cmd_mutate.c",
  find = "k > n || v[0] < '0'",
  replace = "v[0] < '0'",
  guards = { "test_a_bad_shard_or_score_is_refused" },
  designed_against = "a CI matrix passing a wrong index must be refused, not run as some other shard",
  why = "accepts --shard 4/3, which selects no mutant and reports the shard green",
}

mutant {
  name = "cmd_mutate-variant-mutate-runs-one-variant",
  file = "harness/cmd_mutate.c",
  find = "if (n <= 1 || a->o.list) {",
  replace = "if (n >= 1 || a->o.list) {",
  guards = { "test_several_variants_run_mutate_and_bisect_once_each" },
  designed_against = "mutate --variants all running the first variant only",
  why = "the variants asked for are silently not run",
}

mutant {
  name = "cmd_mutate-only-keeps-the-last-pattern",
  file = "harness/cmd_mutate.c",
  find = "\ta.o.only = (const char *const *)a.only;\n\ta.o.n_only = td_strv_len(a.only);",
  replace = "\ta.o.n_only = a.only ? 1 : 0;\n\ta.o.only = (const char *const *)a.only + (a.only ? td_strv_len(a.only) - 1 : 0);",
  guards = { "test_only_given_twice_keeps_the_mutants_of_both_patterns" },
  finding = 21,
  why = "a second --only replaces the first: half the mutants asked for never run, and the summary says all were caught",
}
