-- mutations/harness/gates.lua: the mutants of harness/gates.c, the gates of a
-- kill matrix: load-bearing, dead and redundant tests, code with no gate.
--
-- Each entry re-introduces one bug class into the module and names the tests
-- that must notice; every name starts with "gates-". Format:
-- harness/catalogue.h; layout, naming and listing: mutations/README.md.

mutant {
  name = "gates-unjudged-mutants-count",
  file = "harness/gates.c",
  find = "return o == TD_KILLED || o == TD_KILLED_ELSEWHERE || o == TD_SURVIVED ||\n\t       o == TD_NO_COVERAGE || o == TD_TIMEOUT;",
  replace = "return o != TD_STALE && o != TD_EQUIVALENT;",
  guards = { "test_a_kill_of_an_unjudged_mutant_does_not_count" },
  designed_against = "a mutant that did not build judged nothing: a kill recorded for it must not make a test look useful",
  why = "counts build-failed mutants as judged, so a test that only 'kills' unbuildable code reads as a gate",
}

mutant {
  name = "gates-any-killer-is-load-bearing",
  file = "harness/gates.c",
  find = "td_strv_len(x->killers) == 1 ? alone : shared",
  replace = "td_strv_len(x->killers) >= 1 ? alone : shared",
  guards = { "test_every_gate_is_read_off_the_kill_matrix" },
  designed_against = "load-bearing means the only killer: a test sharing every kill is redundant, not load-bearing",
  why = "lists every test that killed anything as load-bearing, and no test as redundant",
}

mutant {
  name = "gates-no-gate-ignores-kills",
  file = "harness/gates.c",
  find = "if (o != TD_SURVIVED && o != TD_NO_COVERAGE)\n\t\t\treturn 0;",
  replace = "(void)o;",
  guards = { "test_every_gate_is_read_off_the_kill_matrix" },
  designed_against = "a place with no gate is one where every judged mutant survived, not one with any survivor",
  why = "reports a file as having no gate although a test kills some of its mutants",
}

mutant {
  name = "gates-unknown-tests-read-as-none-dead",
  file = "harness/gates.c",
  find = "} else if (!err && g->tests_known) {",
  replace = "} else if (!err) {",
  guards = { "test_a_full_matrix_is_named_and_an_unknown_test_list_claims_nothing" },
  designed_against = "a run that did not record its tests cannot say which killed nothing; the killers alone are not the suite",
  why = "claims a list of dead tests for a run whose test list is unknown",
}
