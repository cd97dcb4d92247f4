-- mutations/core/synth.lua: the mutants of core/synth.c, synthetic task
-- families (see synth.h).
--
-- Each entry re-introduces one bug class into the module and names the tests
-- that must notice; every name starts with "synth-". Format:
-- harness/catalogue.h; layout, naming and listing: mutations/README.md.

mutant {
  name = "synth-draw-keeps-state",
  file = "core/synth.c",
  find = "uint64_t n = (uint64_t)ex->family << 40 | (uint64_t)purpose << 32 | k;",
  replace = "static uint64_t calls;\n\tuint64_t n = ((uint64_t)ex->family << 40 | (uint64_t)purpose << 32 | k) + calls++;",
  guards = { "test_an_example_is_a_pure_function_of_family_seed_and_index" },
  designed_against = "an example must be a pure function of (family, seed, index); state between calls breaks train/eval disjointness",
  why = "adds a static call counter to the draw number",
}

mutant {
  name = "synth-absent-cells-given-a-value",
  file = "core/synth.c",
  find = "ex->x[i] = ex->mask[i] ? (td_real)(2 * draw(ex, P_NOISE, i) - 1) : 0;",
  replace = "ex->x[i] = (td_real)(2 * draw(ex, P_NOISE, i) - 1);",
  guards = { "test_generated_targets_follow_each_family_rule" },
  designed_against = "an absent cell that holds a value leaks information a model must not see",
  why = "gives absent cells a noise value",
}

mutant {
  name = "synth-argmax-ignores-the-mask",
  file = "core/synth.c",
  find = "if ((!mask || mask[i]) && (best == SIZE_MAX || x[i] > x[best]))",
  replace = "if ((!mask || mask[i] || 1) && (best == SIZE_MAX || x[i] > x[best]))",
  guards = { "test_absent_cells_cannot_change_the_absent_label" },
  designed_against = "an absent cell must not decide the label",
  why = "lets absent cells win the argmax",
}

mutant {
  name = "synth-row-label-is-the-column",
  file = "core/synth.c",
  find = "*out = (int)(argmax_present(x, NULL, SIDE * SIDE) / SIDE);",
  replace = "*out = (int)(argmax_present(x, NULL, SIDE * SIDE) % SIDE);",
  guards = { "test_the_row_label_depends_on_the_h_axis_only" },
  designed_against = "the row task's label must depend on h only, or it does not test sweeping along h",
  why = "labels the row task with the marker's column",
}

mutant {
  name = "synth-index-limit-unchecked",
  file = "core/synth.c",
  find = "if (index >= TD_SYNTH_INDEX_LIMIT)",
  replace = "if (0)",
  guards = { "test_family_names_resolve_and_bad_requests_are_refused" },
  designed_against = "an index at or above 2^48 runs into the draw number's other fields and repeats examples",
  why = "accepts any 64-bit index",
}

mutant {
  name = "synth-lattice-mask-dropped",
  file = "core/synth.c",
  find = "s.mask = ex->mask, s.mask_len = ex->n_cells;",
  replace = "s.mask = NULL, s.mask_len = 0;",
  guards = { "test_an_example_lattice_carries_its_mask_and_time_axis" },
  designed_against = "an example's lattice without its mask computes on absent cells",
  why = "builds the example's lattice with every cell present",
}

mutant {
  name = "synth-eval-range-inside-train",
  file = "core/synth.c",
  find = "eval->first = TD_SYNTH_EVAL_FIRST, eval->count = n_eval;",
  replace = "eval->first = n_train / 2, eval->count = n_eval;",
  guards = { "test_training_and_evaluation_ranges_are_disjoint_and_pass_the_check" },
  designed_against = "evaluating on training examples scores memorisation",
  why = "starts the evaluation range halfway into the training range",
}

mutant {
  name = "synth-content-not-searched",
  file = "core/synth.c",
  find = "hit = bsearch(e, t->by_hash, t->n, sizeof(entry), cmp_hash);",
  replace = "hit = NULL;",
  guards = { "test_a_copied_example_under_another_id_is_refused_by_content" },
  designed_against = "a training example copied under another id is still a training example",
  why = "checks evaluation examples by id only, never by content",
}

mutant {
  name = "synth-overlap-checked-one-way",
  file = "core/synth.c",
  find = "if (train.first < eval.first + eval.count && eval.first < train.first + train.count) {",
  replace = "if (eval.first >= train.first && eval.first < train.first + train.count) {",
  guards = { "test_overlapping_ranges_are_refused_naming_both_ids" },
  designed_against = "an interval overlap test must be symmetric; an eval range starting before train still overlaps it",
  why = "tests only whether evaluation starts inside the training range",
}

mutant {
  name = "synth-batch-target-unchecked",
  file = "core/synth.c",
  find = "if (!ex[i]->has_target != !ex[0]->has_target)",
  replace = "if (0)",
  guards = { "test_a_batch_refuses_examples_that_disagree_on_carrying_a_target" },
  designed_against = "a batch of labelled and unlabelled examples has targets that are half garbage",
  why = "batches examples whether or not they carry a target",
}

mutant {
  name = "synth-split-accepts-equal-times",
  file = "core/synth.c",
  find = "if (i > 0 && !(times[i] > times[i - 1]))",
  replace = "if (i > 0 && times[i] < times[i - 1])",
  guards = { "test_splitting_a_series_at_a_time_refuses_unsorted_times" },
  designed_against = "a series split at a time needs strictly increasing times; a repeat puts one instant on both sides",
  why = "accepts two equal times",
}
