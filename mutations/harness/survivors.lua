-- mutations/harness/survivors.lua: the mutants of harness/survivors.c,
-- mutate --survivors: the previous run's survivors read back from the ledger.
--
-- Each entry re-introduces one bug class into the module and names the tests
-- that must notice; every name starts with "survivors-". Format:
-- harness/catalogue.h; layout, naming and listing: mutations/README.md.

mutant {
  name = "survivors-gone-dropped-in-silence",
  file = "harness/survivors.c",
  find = "if (!has_mutant(m, ids[i])) {",
  replace = "if (0 && !has_mutant(m, ids[i])) {",
  guards = { "test_a_survivor_gone_from_the_catalogues_is_listed_as_gone" },
  designed_against = "a survivor whose mutant is gone from the catalogues is listed as gone, never dropped in silence",
  why = "runs the survivors still in the catalogues and says nothing of the others",
}

mutant {
  name = "survivors-every-mutant-kept",
  file = "harness/survivors.c",
  find = "if (td_strv_find(ids, m->v[i].id) >= 0)",
  replace = "if (1)",
  guards = { "test_survivors_runs_again_only_what_the_previous_run_let_through" },
  designed_against = "--survivors runs only the mutants that survived the previous run",
  why = "names the previous run and its survivors, then runs every mutant of the catalogues",
}
