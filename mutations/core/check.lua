-- mutations/core/check.lua: the mutants of core/check.c, the conformance
-- suite (see check.h).
--
-- Each entry re-introduces one bug class into the module and names the tests
-- that must notice; every name starts with "check-". Format:
-- harness/catalogue.h; layout, naming and listing: mutations/README.md.

mutant {
  name = "check-substitutes-its-own-width",
  file = "core/check.c",
  find = "shape = (td_check_shape){g->lat, o->width, o->width, o->width, o->batch};",
  replace = "shape = (td_check_shape){g->lat, 2, 2, 2, o->batch};",
  guards = { "test_checks_run_only_at_the_ranks_and_width_asked_for" },
  designed_against = "a check substituting its own width (torch-dimensions DEBUG.md #23)",
  why = "builds every checked model at width 2",
}

mutant {
  name = "check-covariance-compares-with-itself",
  file = "core/check.c",
  find = "mism += memcmp(h.y + at(&h, b, rev_cell(g->c, c)), g->y + at(g, b, c),",
  replace = "mism += memcmp(g->y + at(g, b, c), g->y + at(g, b, c),",
  guards = { "test_the_suite_catches_a_schedule_taken_from_storage_order" },
  designed_against = "a covariance check that cannot fail (torch-dimensions DEBUG.md #6, #22)",
  why = "compares the output with itself instead of with the reversed layout's",
}

mutant {
  name = "check-skip-reported-as-pass",
  file = "core/check.c",
  find = "report_add(r, \"gradient\", g->c->where, TD_CHECK_SKIP,",
  replace = "report_add(r, \"gradient\", g->c->where, TD_CHECK_OK,",
  guards = { "test_a_skip_is_reported_as_a_skip_never_as_a_pass" },
  designed_against = "a skip that reads as a pass",
  why = "reports the float build's gradient check as ok",
}

mutant {
  name = "check-runs-ranks-not-asked-for",
  file = "core/check.c",
  find = "config c = {opts->ranks[i], sp, t, \"\"};",
  replace = "config c = {i + 1, sp, t, \"\"};",
  guards = { "test_checks_run_only_at_the_ranks_and_width_asked_for" },
  designed_against = "a check running a rank the caller did not ask for (torch-dimensions DEBUG.md #16)",
  why = "checks ranks 1..n instead of the ranks requested",
}

mutant {
  name = "check-trainable-fixed-batch",
  file = "core/check.c",
  find = "return (uint64_t)step + 1; /* index 0 is the held-out batch */",
  replace = "return (uint64_t)step * 0 + 1;",
  guards = { "test_training_draws_a_fresh_batch_every_step_and_never_the_held_out_one" },
  designed_against = "trainability measured on a fixed batch: capacity, not learning (torch-dimensions DEBUG.md #5)",
  why = "trains on the same batch every step",
}

mutant {
  name = "check-trainable-control-ignored",
  file = "core/check.c",
  find = "s.control < opts->pass ? TD_CHECK_FAIL : TD_CHECK_OK,",
  replace = "TD_CHECK_OK,",
  guards = { "test_the_trainable_check_fails_when_the_control_learns_too" },
  designed_against = "a trainability check whose negative control cannot fail it (torch-dimensions DEBUG.md #5)",
  why = "passes the control whatever it scored",
}
