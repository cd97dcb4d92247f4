-- mutations/core/plan.lua: the mutants of core/plan.c, immutable scan plans
-- (see plan.h).
--
-- Each entry re-introduces one bug class into the module and names the tests
-- that must notice; every name starts with "plan-". Format:
-- harness/catalogue.h; layout, naming and listing: mutations/README.md.

mutant {
  name = "plan-duplicate-axis-accepted",
  file = "core/plan.c",
  find = "if (find_axis(p, axes[i]) >= 0) {",
  replace = "if (0) {",
  guards = { "test_bad_plans_are_refused_with_a_message" },
  designed_against = "a repeated axis makes the cycle period wrong",
  why = "accepts an axis listed twice",
}

mutant {
  name = "plan-names-not-copied",
  file = "core/plan.c",
  find = "strcpy(p->axes[p->n_axes++], axes[i]);",
  replace = "p->n_axes++;",
  guards = { "test_a_plan_copies_the_axis_names_it_is_given" },
  designed_against = "a plan must own its axis names; the caller's buffers change",
  why = "keeps no copy of the axis names",
}

mutant {
  name = "plan-one-step-short",
  file = "core/plan.c",
  find = "p->n_steps = (int)n_steps;",
  replace = "p->n_steps = (int)n_steps - 1;",
  guards = { "test_cyclic_builds_exactly_the_layers_asked_for" },
  designed_against = "a plan that disagrees with the layer count builds a shallower model silently",
  why = "builds one layer fewer than asked for",
}

mutant {
  name = "plan-bidir-ignored",
  file = "core/plan.c",
  find = "is_bidir[a] = 1;",
  replace = "is_bidir[a] = 0;",
  guards = { "test_bidirectional_cyclic_gives_every_axis_both_directions" },
  designed_against = "a model asked to sweep both ways must not silently sweep one",
  why = "accepts the bidirectional axes and then ignores them",
}

mutant {
  name = "plan-flip-per-layer",
  file = "core/plan.c",
  find = "(i / n_axes) % 2 == 1",
  replace = "i % 2 == 1",
  guards = { "test_bidirectional_cyclic_gives_every_axis_both_directions",
             "test_cyclic_cycles_axes_and_flips_once_per_cycle" },
  designed_against = "a per-layer flip phase-locks with an even axis count: each axis swept one way only",
  why = "flips direction every layer instead of every full cycle",
}

mutant {
  name = "plan-check-skipped",
  file = "core/plan.c",
  find = "if (td_lattice_axis(lat, plan->axes[i]) < 0)",
  replace = "if (0)",
  guards = { "test_a_plan_over_an_axis_the_lattice_lacks_is_refused" },
  designed_against = "a plan over an axis the lattice lacks must be refused, not swept as nothing",
  why = "never checks the plan's axes against the lattice",
}

mutant {
  name = "plan-table-directions-swapped",
  file = "core/plan.c",
  find = [[plan->steps[i].reverse ? "backward" : "forward"]],
  replace = [[plan->steps[i].reverse ? "forward" : "backward"]],
  guards = { "test_paired_sweeps_each_axis_forward_then_backward" },
  designed_against = "the printed plan is what a person checks the model against",
  why = "prints each direction as its opposite",
}
