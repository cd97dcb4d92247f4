-- mutations/harness/variant.lua: the mutants of harness/variant.c, the
-- choice of build variants (see variant.h), and of the places that use
-- a variant's build line and environment.
--
-- Each entry re-introduces one bug class and names the tests that must
-- notice; every name starts with "variant-". Format: harness/catalogue.h;
-- layout, naming and listing: mutations/README.md.

mutant {
  name = "variant-since-ignored",
  file = "harness/variant.c",
  find = "in = in && c->time >= var->since;",
  replace = "in = in;",
  guards = { "test_a_variant_chosen_by_date_or_range_is_used_without_being_named" },
  designed_against = "a variant with since = DATE chosen for every commit, older ones too",
  why = "old commits get the flags meant for new ones and fail to build",
}

mutant {
  name = "variant-range-answer-ignored",
  file = "harness/variant.c",
  find = "in = yes;",
  replace = "in = 1;",
  guards = { "test_a_variant_chosen_by_date_or_range_is_used_without_being_named" },
  designed_against = "a variant with range = A..B chosen for commits outside the range",
  why = "a variant meant for one stretch of history applies to all of it",
}

mutant {
  name = "variant-report-path-not-renamed",
  file = "harness/variant.c",
  find = 'snprintf(buf, size, "%.*s-%s%s", (int)(dot - path), path, variant, dot);',
  replace = 'snprintf(buf, size, "%.*s%s", (int)(dot - path), path, dot); (void)variant;',
  guards = { "test_several_variants_run_mutate_and_bisect_once_each" },
  designed_against = "each variant's --json report written over the one before",
  why = "one run per variant leaves only the last variant's report: the others are lost",
}
