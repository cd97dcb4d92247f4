-- mutations/core/model.lua: the mutants of core/model.c, the model:
-- embedding, layers of RMSNorm + block + residual, head (see model.h).
--
-- Each entry re-introduces one bug class into the module and names the tests
-- that must notice; every name starts with "model-". Format:
-- harness/catalogue.h; layout, naming and listing: mutations/README.md.

mutant {
  name = "model-plan-override-not-counted",
  file = "core/model.c",
  find = "if (!o->plan || o->n_layers == 0 || o->n_layers == m->n_layers)",
  replace = "if (1)",
  guards = { "test_a_plan_that_disagrees_with_n_layers_is_counted_with_its_reason" },
  designed_against = "a plan silently overriding n_layers (torch-dimensions DEBUG.md #10)",
  why = "builds the plan's layer count without counting the override",
}

mutant {
  name = "model-blocks-share-one-slab-region",
  file = "core/model.c",
  find = "at += td_block_n_params(b);",
  replace = "at += 0;",
  guards = { "test_every_parameter_lives_in_one_slab",
             "test_initial_weights_are_a_pure_function_of_the_seed" },
  designed_against = "parameters that alias or live outside the slab the optimizer steps",
  why = "binds every layer's block to the same part of the slab",
}

mutant {
  name = "model-layers-share-rng-streams",
  file = "core/model.c",
  find = "(uint64_t)(i + 1) << 20",
  replace = "(uint64_t)1 << 20",
  guards = { "test_initial_weights_are_a_pure_function_of_the_seed" },
  designed_against = "two layers drawing the same initial weights",
  why = "gives every layer the same rng streams",
}

mutant {
  name = "model-select-skipped-on-a-lattice-with-holes",
  file = "core/model.c",
  find = "return !m->emask && td_lattice_n_present(m->lat) == m->n_cells;",
  replace = "return !m->emask;",
  guards = { "test_the_residual_stream_is_zero_at_absent_cells_after_every_layer" },
  designed_against = "a shortcut for dense lattices taken where cells are absent",
  why = "with no per-example mask the model never selects on entry or exit, so absent cells carry their input",
}

mutant {
  name = "model-dense-residual-add-drops-the-block",
  file = "core/model.c",
  find = "\t\t\t\tdst[k] = a[k] + b[k];",
  replace = "\t\t\t\tdst[k] = a[k] + 0 * b[k];",
  guards = { "test_a_model_that_sweeps_w_learns_the_running_sum" },
  designed_against = "a fast path for the common case (no absent cell) that the tests of the general case never reach",
  why = "on a lattice with no absent cell each layer's output is its input: the blocks drop out of the model",
}

mutant {
  name = "model-example-mask-not-applied",
  file = "core/model.c",
  find = "(!m->emask || m->emask[i]);",
  replace = "(!m->emask || !j->b || m->emask[i]);",
  guards = { "test_a_cell_absent_from_its_example_cannot_reach_any_output" },
  designed_against = "a cell absent from its example must reach no output, whatever it holds",
  why = "the model selects by the lattice's mask alone: NaN in an example's hole reaches the head",
}

mutant {
  name = "model-residual-ignores-example-mask",
  file = "core/model.c",
  find = "(!m->emask || m->emask[i]);",
  replace = "(!m->emask || j->b || m->emask[i]);",
  guards = { "test_a_cell_absent_from_its_example_cannot_reach_any_output" },
  designed_against = "absent cells zeroed after every layer, residual path included, by each example's own mask",
  why = "the residual stream keeps the values of cells absent from their example",
}

mutant {
  name = "model-selects-by-range-offset",
  file = "core/model.c",
  find = "(!m->emask || m->emask[i]);",
  replace = "(!m->emask || m->emask[i - i0]);",
  guards = { "test_a_model_gives_the_same_bits_for_any_thread_count" },
  designed_against = "a per-example mask indexed from the start of the thread's range",
  why = "with several threads the later ranges keep and zero the cells of the first range's examples",
}

mutant {
  name = "model-next-norm-saves-this-layer-s-scales",
  file = "core/model.c",
  find = "*n = s->n, *inv = s->inv + next * m->rows,",
  replace = "*n = s->n, *inv = s->inv + (next - 1) * m->rows,",
  guards = { "test_the_gradient_predicts_the_output_s_change_along_it" },
  designed_against = "a step moved into the pass before it that keeps the indices of the pass it left",
  why = "each layer's norm scales overwrite the previous layer's, which its backward then reads",
}

mutant {
  name = "model-next-norm-takes-this-layer-s-gain",
  file = "core/model.c",
  find = "*gain = m->params + m->gain + next * m->o.width;",
  replace = "*gain = m->params + m->gain + (next - 1) * m->o.width;",
  guards = { "test_the_gradient_predicts_the_output_s_change_along_it" },
  designed_against = "a step moved into the pass before it that keeps the indices of the pass it left",
  why = "each layer's norm, made in the previous layer's last pass, scales by the previous layer's gain",
}

mutant {
  name = "model-mlp-norm-takes-the-block-s-gain",
  file = "core/model.c",
  find = "gain = m->params + m->g2 + (size_t)l * w;",
  replace = "gain = m->params + m->gain + (size_t)l * w;",
  guards = { "test_the_gradient_predicts_the_output_s_change_along_it" },
  designed_against = "a step moved into the pass before it that keeps the indices of the pass it left",
  why = "the MLP's norm, made in the block's residual pass, scales by the block norm's gain",
}

mutant {
  name = "model-input-saved-unselected",
  file = "core/model.c",
  find = "(err = model_select(m, batch, m->o.in, s.xs))",
  replace = "(err = 0)",
  guards = { "test_every_scan_model_passes_the_conformance_suite" },
  designed_against = "a NaN in an absent input reaching the weight gradient through NaN * 0",
  why = "keeps the raw input for the backward, absent cells included",
}

mutant {
  name = "model-stream-not-reselected-after-embedding",
  file = "core/model.c",
  find = "(err = model_select(m, batch, w, s.h))",
  replace = "(err = 0)",
  guards = { "test_the_residual_stream_is_zero_at_absent_cells_after_every_layer" },
  designed_against = "the residual path not re-masked: absent cells carry the embedding bias down the stream (torch-dimensions DEBUG.md #27)",
  why = "skips the selection after the embedding",
}
