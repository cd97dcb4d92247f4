-- mutations/core.lua: one entry per invariant of the training core.
--
-- Each entry re-introduces a bug class into one file and names the tests
-- that must notice. `finding = N` points at the DEBUG.md entry the mutant
-- brings back; `designed_against` says why the invariant exists when no bug
-- of this project has broken it yet. Format: harness/catalogue.h.

-- Scan plans -------------------------------------------------------------

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
  name = "plan-bidir-ignored",
  file = "core/plan.c",
  find = "is_bidir[a] = 1;",
  replace = "is_bidir[a] = 0;",
  guards = { "test_bidirectional_cyclic_gives_every_axis_both_directions" },
  designed_against = "a model asked to sweep both ways must not silently sweep one",
  why = "accepts the bidirectional axes and then ignores them",
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
  name = "plan-names-not-copied",
  file = "core/plan.c",
  find = "strcpy(p->axes[p->n_axes++], axes[i]);",
  replace = "p->n_axes++;",
  guards = { "test_a_plan_copies_the_axis_names_it_is_given" },
  designed_against = "a plan must own its axis names; the caller's buffers change",
  why = "keeps no copy of the axis names",
}

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

-- Lattices -----------------------------------------------------------------

mutant {
  name = "lattice-mask-aliased",
  file = "core/lattice.c",
  find = "lat->mask = malloc(lat->n_cells);",
  replace = "lat->mask = mask ? (uint8_t *)mask : malloc(lat->n_cells);",
  guards = { "test_a_lattice_copies_the_mask_it_is_given" },
  designed_against = "a lattice that aliases the caller's mask goes stale when the caller reuses it",
  why = "keeps the caller's mask buffer instead of a copy",
}

mutant {
  name = "lattice-mask-handed-out-shared",
  file = "core/lattice.c",
  find = "*out = malloc(lat->n_cells);",
  replace = "*out = lat->mask;",
  guards = { "test_a_mask_handed_out_is_a_fresh_copy" },
  designed_against = "a mask handed out as a view lets callers change an immutable lattice",
  why = "hands out the lattice's own mask instead of a copy",
}

mutant {
  name = "lattice-zero-size-axis-accepted",
  file = "core/lattice.c",
  find = "if (s->shape[i] == 0)",
  replace = "if (0)",
  guards = { "test_bad_lattice_specs_are_refused_with_a_message" },
  designed_against = "a zero-size axis makes an empty lattice that fails far from its cause",
  why = "accepts an axis of size 0",
}

mutant {
  name = "lattice-duplicate-names-accepted",
  file = "core/lattice.c",
  find = "if (strcmp(s->names[j], name) == 0)",
  replace = "if (0)",
  guards = { "test_bad_lattice_specs_are_refused_with_a_message" },
  designed_against = "two axes with one name make every lookup by name ambiguous",
  why = "accepts two axes with the same name",
}

mutant {
  name = "lattice-mask-length-unchecked",
  file = "core/lattice.c",
  find = "if (s->mask && s->mask_len != n)",
  replace = "if (0)",
  guards = { "test_bad_lattice_specs_are_refused_with_a_message" },
  designed_against = "a mask of the wrong size is read out of bounds or silently truncated",
  why = "never compares the mask length with the cell count",
}

mutant {
  name = "lattice-all-absent-accepted",
  file = "core/lattice.c",
  find = "if (lat->n_present == 0)",
  replace = "if (0)",
  guards = { "test_bad_lattice_specs_are_refused_with_a_message" },
  designed_against = "a lattice with no present cell has nothing to compute on",
  why = "accepts a mask with every cell absent",
}

mutant {
  name = "lattice-scatter-leaves-absent-cells",
  file = "core/lattice.c",
  find = "memset(dense, 0, batch * lat->n_cells * channels * sizeof *dense);",
  replace = "",
  guards = { "test_scatter_zeroes_every_absent_cell" },
  designed_against = "stale values in absent cells must never reach an output",
  why = "scatter leaves whatever was in the absent cells",
}

mutant {
  name = "lattice-gather-ignores-present-index",
  file = "core/lattice.c",
  find = "memcpy(dst + p * channels, src + lat->present[p] * channels,",
  replace = "memcpy(dst + p * channels, src + p * channels,",
  guards = { "test_gather_then_scatter_restores_present_cells" },
  designed_against = "gather must take the present cells, not the first n",
  why = "gathers the first n_present cells whether present or not",
}

mutant {
  name = "lattice-gather-batch-folded",
  file = "core/lattice.c",
  find = "const td_real *src = dense + b * lat->n_cells * channels;",
  replace = "const td_real *src = dense;",
  guards = { "test_gather_keeps_batches_apart" },
  designed_against = "batch dimensions folded into the cell index mix examples",
  why = "reads every batch from the first example",
}

-- Random numbers -------------------------------------------------------------

mutant {
  name = "rng-stream-ignored",
  file = "core/rng.c",
  find = "(uint32_t)stream,",
  replace = "0,",
  guards = { "test_different_seeds_streams_and_indices_give_different_draws" },
  designed_against = "two parameter tensors must not draw the same numbers",
  why = "leaves the stream's low word out of the counter",
}

mutant {
  name = "rng-seed-high-word-ignored",
  file = "core/rng.c",
  find = "(uint32_t)(seed >> 32)}",
  replace = "0}",
  guards = { "test_different_seeds_streams_and_indices_give_different_draws" },
  finding = 1,
  why = "drops the seed's high word from the key",
}

mutant {
  name = "rng-block-counter-per-element",
  file = "core/rng.c",
  find = "block(seed, stream, index / 4, r);",
  replace = "block(seed, stream, index, r);",
  guards = { "test_a_fill_matches_single_draws_at_any_offset" },
  designed_against = "single draws and block fills must agree, or CPU and GPU init differ",
  why = "counts blocks per element in single draws but per four in fills",
}

mutant {
  name = "rng-philox-wrong-key-bump",
  file = "core/rng.c",
  find = "k[1] += PHILOX_W1;",
  replace = "k[1] += PHILOX_W0;",
  guards = { "test_philox_matches_the_published_known_answer_vectors" },
  designed_against = "a Philox that is not Philox breaks every published statistical guarantee",
  why = "bumps the second key word with the wrong constant",
}

mutant {
  name = "rng-philox-round-lanes-swapped",
  file = "core/rng.c",
  find = "c[1] = lo1;\n\tc[2] = hi0 ^ c[3] ^ k[1];\n\tc[3] = lo0;",
  replace = "c[1] = lo0;\n\tc[2] = hi0 ^ c[3] ^ k[1];\n\tc[3] = lo1;",
  guards = { "test_philox_matches_the_published_known_answer_vectors" },
  designed_against = "a Philox that is not Philox breaks every published statistical guarantee",
  why = "swaps the low product halves between the two lanes",
}

mutant {
  name = "rng-unit-interval-closed",
  file = "core/rng.c",
  find = "return ((double)x + 0.5) * (1.0 / 4294967296.0);",
  replace = "return (double)x * (1.0 / 4294967296.0);",
  guards = { "test_uniforms_lie_in_the_open_interval_with_the_right_moments" },
  designed_against = "a uniform of exactly 0 makes the normal draw take log(0)",
  why = "lets the uniform draw reach 0",
}

-- Tensors and errors -----------------------------------------------------------

mutant {
  name = "tensor-strides-column-major",
  file = "core/tensor.c",
  find = "stride *= shape[i];",
  replace = "stride *= 1;",
  guards = { "test_strides_are_row_major_and_contiguous" },
  designed_against = "kernels index with strides and trust them",
  why = "hands out unit strides on every axis",
}

mutant {
  name = "tensor-zero-dimension-accepted",
  file = "core/tensor.c",
  find = "if (shape[i] == 0)",
  replace = "if (0)",
  guards = { "test_bad_tensor_shapes_are_refused" },
  designed_against = "an empty tensor fails far from its cause",
  why = "accepts a dimension of 0",
}

mutant {
  name = "tensor-copy-does-not-copy",
  file = "core/tensor.c",
  find = "memcpy((*out)->data, src->data, src->numel * sizeof *src->data);",
  replace = "",
  guards = { "test_a_copy_owns_its_values" },
  designed_against = "a copy must carry the values it copies",
  why = "returns a zero tensor of the right shape",
}

mutant {
  name = "error-last-null",
  file = "core/error.c",
  find = [[return last_code ? last_msg : "no error";]],
  replace = [[return last_code ? last_msg : NULL;]],
  guards = { "test_last_error_is_never_null" },
  designed_against = "callers print td_error_last() unguarded",
  why = "returns NULL when there is no error",
}

mutant {
  name = "error-message-unplaced",
  file = "core/error.c",
  find = [[snprintf(last_msg, sizeof last_msg, "%s: %s: ", file, func);]],
  replace = [[snprintf(last_msg, sizeof last_msg, "%.0s%.0s", file, func);]],
  guards = { "test_a_message_names_file_and_function" },
  designed_against = "a message must say where it came from",
  why = "drops the file and function from every message",
}

-- The test runner (the harness drives exactly this interface) ---------------

mutant {
  name = "runner-exit-0-on-failure",
  file = "tests/tdtest.c",
  find = "return failed ? 1 : 0;",
  replace = "return 0;",
  guards = { "test_a_failing_test_makes_the_runner_exit_1" },
  designed_against = "a runner that exits 0 on failure makes every mutant survive",
  why = "exits 0 whatever failed",
}

mutant {
  name = "runner-unknown-name-not-refused",
  file = "tests/tdtest.c",
  find = [[tdtest --list prints every name\n",
				argv[2]);
			return 2;]],
  replace = [[tdtest --list prints every name\n",
				argv[2]);
			return 0;]],
  guards = { "test_an_unknown_test_name_exits_2" },
  designed_against = "a misspelt guard must not read as a passing test",
  why = "exits 0 for a test name it does not know",
}
