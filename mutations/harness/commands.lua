-- mutations/harness/commands.lua: the mutants of harness/commands.c, what the
-- tdaudit commands share.
--
-- Each entry re-introduces one bug class into the module and names the tests
-- that must notice; every name starts with "commands-". Format:
-- harness/catalogue.h; layout, naming and listing: mutations/README.md.

mutant {
  name = "commands-score-accepts-nan",
  file = "harness/commands.c",
  find = "if (!plain || *end || !(s >= 0 && s <= 100))",
  replace = "if (!plain || *end || s < 0 || s > 100)",
  guards = { "test_a_bad_shard_or_score_is_refused", "test_gates_fail_under_gates_on_the_ledgers_score" },
  designed_against = "every comparison with NaN is false, so a range check written as two refusals lets NaN through",
  why = "would accept --fail-under nan, a gate that no score is below: it never fails",
  equivalent = "only digits with an optional fraction reach strtod now, and they never read as NaN",
}

mutant {
  name = "commands-score-reads-any-strtod-number",
  file = "harness/commands.c",
  find = "double s = plain ? strtod(v, &end) : -1;",
  replace = "double s = strtod(v, &end); plain = end != v;",
  guards = { "test_a_bad_shard_or_score_is_refused" },
  finding = 77,
  why = "reads --fail-under 0x10 as 16 and 5e1 as 50: a typo becomes a gate",
}
