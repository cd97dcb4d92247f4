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
  file = "base/error.c",
  find = [[return last_code ? last_msg : "no error";]],
  replace = [[return last_code ? last_msg : NULL;]],
  guards = { "test_last_error_is_never_null" },
  designed_against = "callers print td_error_last() unguarded",
  why = "returns NULL when there is no error",
}

mutant {
  name = "error-message-unplaced",
  file = "base/error.c",
  find = [[snprintf(last_msg, sizeof last_msg, "%s: %s: ", file, func);]],
  replace = [[snprintf(last_msg, sizeof last_msg, "%.0s%.0s", file, func);]],
  guards = { "test_a_message_names_file_and_function" },
  designed_against = "a message must say where it came from",
  why = "drops the file and function from every message",
}

mutant {
  name = "error-require-returns-0",
  file = "base/error.h",
  find = "\t\t\treturn td_error_set(TD_EINVAL, __FILE__, __func__,",
  replace = "\t\t\treturn 0 * td_error_set(TD_EINVAL, __FILE__, __func__,",
  guards = { "test_a_broken_requirement_returns_einval_naming_expression_and_line" },
  designed_against = "an invariant check that reports a breach as success is only a comment again",
  why = "a broken TD_REQUIRE sets its message but returns 0, so the caller carries on",
}

mutant {
  name = "error-require-message-without-the-expression",
  file = "base/error.h",
  find = "\"line %d: requirement failed: %s\", __LINE__, #expr);",
  replace = "\"line %d: requirement failed: %s\", __LINE__, \"?\");",
  guards = { "test_a_broken_requirement_returns_einval_naming_expression_and_line" },
  designed_against = "a failed check must say which check failed, or nobody can act on it",
  why = "a broken TD_REQUIRE's message no longer names the expression",
}

mutant {
  name = "strv-implied-capacity-too-large",
  file = "base/strv.c",
  find = "\tsize_t cap = 8;",
  replace = "\tsize_t cap = 16;",
  guards = { "test_a_list_keeps_every_push_across_its_growths" },
  designed_against = "a capacity inferred rather than stored must be the one the allocator gave",
  why = "td_strv_push believes a list of 8 slots holds 16 and writes past its end",
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

-- Training: AdamW, the NaN firewall, counters, the JSON-lines log, checkpoints --

mutant {
  name = "adamw-firewall-off",
  file = "core/adamw.c",
  find = "if (!isfinite(norm)) {",
  replace = "if (0) {",
  guards = { "test_a_non_finite_gradient_skips_the_step_and_leaves_params_and_moments_bitwise",
             "test_two_windows_without_a_finite_step_stop_the_run_loudly" },
  designed_against = "a NaN step applied to the weights poisons every later step; the firewall must skip it (issue 6)",
  why = "applies a step whose gradient norm is NaN or inf",
}

mutant {
  name = "adamw-skip-not-counted",
  file = "core/adamw.c",
  find = [[	a->skips++;
	if (!c)
		return 0;]],
  replace = [[	a->skips++;
	if (c)
		return 0;]],
  guards = { "test_a_non_finite_gradient_skips_the_step_and_leaves_params_and_moments_bitwise" },
  designed_against = "a skip that is not counted with its reason is SILENT (dormouse audit M2)",
  why = "skips the step but never bumps nan_step_skipped",
}

mutant {
  name = "adamw-no-bias-correction",
  file = "core/adamw.c",
  find = "const double bc1 = 1.0 - pow(b1, (double)a->t)",
  replace = "const double bc1 = 1.0",
  guards = { "test_the_first_step_is_bias_corrected_to_lr_times_the_sign",
             "test_matches_a_double_precision_reference_for_six_steps" },
  designed_against = "without bias correction the first steps are ten times too small: a config's lr lies",
  why = "drops the first-moment bias correction",
}

mutant {
  name = "adamw-clip-scale-inverted",
  file = "core/adamw.c",
  find = "scale = a->o.clip / norm;",
  replace = "scale = norm / a->o.clip;",
  guards = { "test_clipping_keeps_the_direction_and_puts_the_norm_at_the_limit" },
  designed_against = "clipping must bound the update, never amplify it",
  why = "scales a too-large gradient up instead of down to the limit",
}

mutant {
  name = "adamw-resume-drops-second-moment",
  file = "core/adamw.c",
  find = "	get_reals(a->v, p + STATE_HEADER",
  replace = "	if (0) get_reals(a->v, p + STATE_HEADER",
  guards = { "test_export_import_then_k_steps_equals_the_uninterrupted_run_bitwise",
             "test_resuming_from_a_checkpoint_equals_the_uninterrupted_run_bitwise" },
  designed_against = "a resume that restores some state and resets the rest is a different run under the same step count (dormouse audit M8)",
  why = "imports the first moment but leaves the second at zero",
}

mutant {
  name = "adamw-resume-drops-schedule-step",
  file = "core/adamw.c",
  find = "	a->s = (int64_t)get_u64(p + 24);",
  replace = "",
  guards = { "test_export_import_then_k_steps_equals_the_uninterrupted_run_bitwise" },
  designed_against = "a resumed run must continue the learning-rate schedule, not restart its warm-up (dormouse audit M8)",
  why = "restores the moments but restarts the schedule at step 0",
}

mutant {
  name = "counters-why-dropped-from-text-line",
  file = "core/counters.c",
  find = [[	for (size_t k = 0; k < s->n_why; k++) {
		if (k)
			td_json_put_raw(out, "; ");]],
  replace = [[	for (size_t k = s->n_why; k < s->n_why; k++) {
		if (k)
			td_json_put_raw(out, "; ");]],
  guards = { "test_a_counters_reason_appears_in_both_the_text_line_and_the_json" },
  designed_against = "counters.why never reached the log line (dormouse audit M2)",
  why = "prints name=count in the text log without the reasons",
}

mutant {
  name = "counters-why-dropped-from-json",
  file = "core/counters.c",
  find = [[	for (size_t k = 0; k < s->n_why; k++) {
		if (k)
			td_json_put_raw(out, ",");]],
  replace = [[	for (size_t k = s->n_why; k < s->n_why; k++) {
		if (k)
			td_json_put_raw(out, ",");]],
  guards = { "test_a_counters_reason_appears_in_both_the_text_line_and_the_json" },
  designed_against = "the JSON row was built from the counts alone and dropped why (dormouse audit M2)",
  why = "writes an empty why list to the JSON log",
}

mutant {
  name = "firewall-never-stops",
  file = "core/counters.c",
  find = "if (fw->dead_in_row >= 2)",
  replace = "if (0)",
  guards = { "test_two_windows_without_a_finite_step_stop_the_run_loudly" },
  designed_against = "a run that is entirely non-finite must stop loudly, not exit 0 (issue 6)",
  why = "counts dead windows for ever and never stops the run",
}

mutant {
  name = "firewall-streak-not-reset",
  file = "core/counters.c",
  find = [[		fw->dead_in_row = 0;
]],
  replace = "",
  guards = { "test_a_finite_window_between_dead_ones_resets_the_streak" },
  designed_against = "only consecutive dead windows stop a run; a recovered run must not be killed later",
  why = "stops a run after two dead windows however far apart",
}

mutant {
  name = "jsonl-nan-written-as-nan",
  file = "base/json.c",
  find = [[	if (!isfinite(v)) {
		td_json_put_raw(b, "null");
		return 1;
	}]],
  replace = "",
  guards = { "test_every_line_is_valid_json_even_with_nan_inf_and_control_bytes" },
  designed_against = "printf's nan and inf are not JSON: one NaN loss makes the whole log unreadable to a parser",
  why = "prints a non-finite number with %g",
}

mutant {
  name = "jsonl-null-not-counted",
  file = "core/jsonl.c",
  find = [[	if (!j->counters)
		return;]],
  replace = "	return;",
  guards = { "test_every_line_is_valid_json_even_with_nan_inf_and_control_bytes" },
  designed_against = "a value replaced by null without a counter is SILENT (dormouse audit M2)",
  why = "writes null for NaN without counting it",
}

mutant {
  name = "jsonl-final-eval-not-logged",
  file = "core/jsonl.c",
  find = "return step % every == 0 || step == steps;",
  replace = "return step % every == 0;",
  guards = { "test_the_final_eval_is_written_like_every_other_eval",
             "test_log_due_marks_every_multiple_and_the_last_step" },
  designed_against = "the final eval was logged but never reached the JSON sink (dormouse audit minor 1)",
  why = "logs only at multiples of the cadence, so a final step off the cadence is never evaluated",
}

mutant {
  name = "jsonl-line-not-flushed",
  file = "core/jsonl.c",
  find = " || fflush(j->f) != 0",
  replace = "",
  guards = { "test_each_line_is_flushed_and_reopening_appends" },
  designed_against = "a crashed run must leave its log up to the last line, not up to the last buffer",
  why = "leaves lines in stdio's buffer",
}

mutant {
  name = "jsonl-log-truncated-on-open",
  file = "core/jsonl.c",
  find = [[j->f = fopen(path, "a");]],
  replace = [[j->f = fopen(path, "w");]],
  guards = { "test_each_line_is_flushed_and_reopening_appends" },
  designed_against = "a resumed run must append to its log, not erase the history before the resume",
  why = "truncates an existing log when it is opened",
}

mutant {
  name = "checkpoint-written-in-place",
  file = "core/checkpoint.c",
  find = "err = td_file_write_atomic(path, file, size, 0644);",
  replace = [[{ FILE *fp = fopen(path, "wb"); err = fp && fwrite(file, 1, size, fp) == size ? 0 : TD_FAIL(TD_EIO, "cannot write %s", path); if (fp) fclose(fp); }]],
  guards = { "test_an_existing_checkpoint_survives_a_failed_write" },
  designed_against = "a snapshot written in place leaves a truncated file after a crash (dormouse audit minor 2)",
  why = "truncates the old checkpoint and writes the new one over it",
}

mutant {
  name = "checkpoint-checksum-not-checked",
  file = "core/checkpoint.c",
  find = "	if (stored != computed)",
  replace = "	if (0)",
  guards = { "test_every_flipped_byte_is_refused" },
  designed_against = "a corrupt checkpoint must be refused, not resumed from",
  why = "loads a checkpoint whatever its checksum says",
}

mutant {
  name = "checkpoint-config-hash-not-checked",
  file = "core/checkpoint.c",
  find = "if (e->check_config_hash && e->config_hash != d->config_hash)",
  replace = "if (0)",
  guards = { "test_another_config_is_refused_naming_both_hashes" },
  designed_against = "resuming under another config is a run no config describes (dormouse audit M4: a config that lies)",
  why = "resumes a checkpoint written under another config",
}

mutant {
  name = "checkpoint-model-not-checked",
  file = "core/checkpoint.c",
  find = "if (e->signature && strcmp(e->signature, d->signature) != 0)",
  replace = "if (0)",
  guards = { "test_another_model_is_refused_naming_both" },
  designed_against = "weights of another model must never be loaded into this one",
  why = "loads a checkpoint of another model kind or shape",
}

mutant {
  name = "checkpoint-newer-version-accepted",
  file = "core/checkpoint.c",
  find = "if (version > TD_CHECKPOINT_VERSION)",
  replace = "if (version > 255)",
  guards = { "test_a_wrong_magic_or_a_newer_version_is_refused" },
  designed_against = "persisted formats carry a version; a reader must not guess at a newer layout",
  why = "reads a checkpoint of a newer format version as if it were version 1",
}

-- Composition: folds, selection, the three families, the model --------------

mutant {
  name = "fold-inverse-is-the-fold",
  file = "core/axial.c",
  find = "f->unfold[f->fold[k]] = k;",
  replace = "f->unfold[k] = f->fold[k];",
  guards = { "test_a_folds_inverse_is_the_argsort_of_the_fold" },
  designed_against = "a fold's inverse derived by hand instead of checked against an argsort (torch-dimensions DEBUG.md §B2)",
  why = "takes the fold permutation for its own inverse",
}

mutant {
  name = "fold-ignores-its-axis",
  file = "core/axial.c",
  find = "t = (cell / st[axis]) % f->length;",
  replace = "t = (cell / st[0]) % f->length;",
  guards = { "test_each_folded_line_runs_along_its_axis",
             "test_a_scan_step_runs_the_mixer_along_its_own_axis" },
  designed_against = "batch or other axes folded into the swept axis (torch-dimensions DEBUG.md #8)",
  why = "reads the position along the line from axis 0 whatever axis is folded",
}

mutant {
  name = "select-by-multiplication",
  file = "core/axial.c",
  find = "\t\t\tif (!mask[c]) /* a store, never a product: NaN * 0 is NaN */\n\t\t\t\tmemset(v, 0, channels * sizeof *v);",
  replace = "\t\t\tfor (size_t k = 0; k < channels; k++)\n\t\t\t\tv[k] = v[k] * (td_real)mask[c];",
  guards = { "test_selection_zeroes_nan_and_infinities_in_absent_cells",
             "test_every_scan_model_passes_the_conformance_suite" },
  designed_against = "masking by multiplication instead of selection: NaN * 0 and inf * 0 are NaN",
  why = "zeroes absent cells by multiplying them by the mask",
}

mutant {
  name = "axis-order-from-storage",
  file = "core/axial.c",
  find = "j > (t >= 0) && strcmp(",
  replace = "j > (t >= 0) && 0 && strcmp(",
  guards = { "test_the_canonical_axis_order_is_time_first_then_by_name",
             "test_every_kernel_model_passes_the_conformance_suite",
             "test_every_flatten_model_passes_the_conformance_suite" },
  designed_against = "an order taken from storage order, not from the axes' names (torch-dimensions DEBUG.md #22)",
  why = "leaves the spatial axes in storage order: contraction and sequence order then depend on layout",
}

mutant {
  name = "kernel-absolute-epsilon",
  file = "core/family_kernel.c",
  find = "deg[at] = !(fabs(sg) > b->o.cancel * ab);",
  replace = "deg[at] = !(fabs(sg) > 1e-6);",
  guards = { "test_a_near_cancelled_kernel_line_is_not_amplified" },
  designed_against = "an absolute epsilon in the renormaliser: cancellation is relative (torch-dimensions DEBUG.md #12)",
  why = "calls a line degenerate only when its signed mass is below 1e-6",
}

mutant {
  name = "kernel-guard-not-scaled-by-the-mass",
  file = "core/family_kernel.c",
  find = "deg[at] = !(fabs(sg) > b->o.cancel * ab);",
  replace = "deg[at] = !(fabs(sg) > b->o.cancel);",
  guards = { "test_a_genuinely_small_mass_still_renormalises_exactly" },
  designed_against = "a guard that overreaches: a small mass of one sign must still renormalise (torch-dimensions DEBUG.md #12)",
  why = "compares the signed mass with a fixed threshold instead of the absolute mass",
}

mutant {
  name = "kernel-clamped-signed-denominator",
  file = "core/family_kernel.c",
  find = "\t\t\telse if (deg[at] == 0)\n\t\t\t\tfor (size_t ch = 0; ch < c; ch++)\n\t\t\t\t\to[ch] = o[ch] / d;",
  replace = "\t\t\telse\n\t\t\t\tfor (size_t ch = 0; ch < c; ch++)\n\t\t\t\t\to[ch] = o[ch] / (d > (td_real)1e-6 ? d : (td_real)1e-6) + 0 * deg[at];",
  guards = { "test_a_near_cancelled_kernel_line_is_not_amplified" },
  designed_against = "clamp_min on a signed denominator (torch-dimensions DEBUG.md #3)",
  why = "divides by the signed mass clamped below at 1e-6",
}

mutant {
  name = "kernel-nan-laundered",
  file = "core/family_kernel.c",
  find = "\t\t\t\t\to[ch] = o[ch] / d;",
  replace = "\t\t\t\t\to[ch] = o[ch] != o[ch] ? 0 : o[ch] / d;",
  guards = { "test_a_nan_in_a_present_cell_leaves_the_kernel_contraction" },
  designed_against = "nan_to_num style laundering: a NaN that arrives must leave (torch-dimensions DEBUG.md #11)",
  why = "maps a NaN numerator to 0",
}

mutant {
  name = "kernel-degenerate-line-divided",
  file = "core/family_kernel.c",
  find = "\t\t\telse if (deg[at] == 0)\n",
  replace = "\t\t\telse if (deg[at] == 0 || 1)\n",
  guards = { "test_a_kernel_row_that_sees_no_present_cell_gives_zero" },
  designed_against = "a renormaliser that makes a fresh NaN (0/0) where a row sees no present mass (torch-dimensions DEBUG.md #3)",
  why = "divides even when the line is degenerate",
}

mutant {
  name = "kernel-mass-counts-absent-cells",
  file = "core/family_kernel.c",
  find = "if (m[(o * n + j) * inner + in]) {",
  replace = "if (m[(o * n + j) * inner + in] || 1) {",
  guards = { "test_a_constant_input_stays_constant_over_holes" },
  designed_against = "a renormaliser whose mass counts cells the numerator never saw (torch-dimensions DEBUG.md §B3)",
  why = "counts absent cells in the signed and absolute mass",
}

mutant {
  name = "kernel-holes-filled-between-axes",
  file = "core/family_kernel.c",
  find = "if (!b->mask[at]) /* selection",
  replace = "if (0 && !b->mask[at]) /* selection",
  guards = { "test_a_constant_input_stays_constant_over_holes" },
  designed_against = "absent cells re-zeroed after every contraction, not only at the end",
  why = "lets one axis's contraction write into absent cells that the next axis then reads",
}

mutant {
  name = "kernel-streams-keyed-by-storage-index",
  file = "core/family_kernel.c",
  find = "td_axial_name_hash(name) % ((1u << 20) - 64)",
  replace = "(uint64_t)s->ax[a].axis + 0 * td_axial_name_hash(name)",
  guards = { "test_every_kernel_model_passes_the_conformance_suite" },
  designed_against = "parameters keyed by storage position change meaning when the axes are stored differently (torch-dimensions DEBUG.md #22)",
  why = "draws each axis's kernel from a stream chosen by its storage index",
}

mutant {
  name = "scan-step-direction-ignored",
  file = "core/block.c",
  find = "mo.reverse = b->o.reverse;",
  replace = "mo.reverse = 0;",
  guards = { "test_a_reverse_step_is_the_forward_step_over_the_flipped_axis" },
  designed_against = "a plan's direction silently dropped: half the receptive field (torch-dimensions DEBUG.md #4)",
  why = "sweeps every scan step forward whatever the step says",
}

mutant {
  name = "block-chunk-unchecked",
  file = "core/block.c",
  find = "if (o->chunk < 1)",
  replace = "if (0)",
  guards = { "test_chunk_must_be_at_least_1_and_the_refusal_names_it",
             "test_bad_block_options_are_refused_with_a_message" },
  designed_against = "chunk=0 failing deep inside without naming chunk (torch-dimensions DEBUG.md #17)",
  why = "accepts chunk 0 and divides by it later",
}

mutant {
  name = "axial-runs-span-a-jump",
  file = "core/axial.c",
  find = "if (k > 0 && map[p] == run[k - 1].cell + run[k - 1].len)",
  replace = "if (k > 0 && map[p] >= run[k - 1].cell + run[k - 1].len)",
  guards = { "test_fold_apply_and_undo_move_every_row_where_fold_says" },
  designed_against = "a copy coalesced over a range the map does not cover moves the wrong rows",
  why = "extends a run over any increasing cell, so a fold across rows copies neighbours instead",
}

mutant {
  name = "flatten-sequence-in-storage-order",
  file = "core/family_flatten.c",
  find = "by_key[canonical_index(b->lat, order, c)] = c;",
  replace = "by_key[c + 0 * canonical_index(b->lat, order, c)] = c;",
  guards = { "test_flatten_runs_the_present_cells_only_in_canonical_order",
             "test_every_flatten_model_passes_the_conformance_suite" },
  designed_against = "a joint sequence ordered by storage order (torch-dimensions DEBUG.md #22)",
  why = "orders the flattened sequence by storage order",
}

mutant {
  name = "scan-shortcut-ignores-example-masks",
  file = "core/block.c",
  find = "return td_lattice_n_present(b->lat) == b->n_cells && !b->emask;",
  replace = "return td_lattice_n_present(b->lat) == b->n_cells;",
  guards = { "test_a_scan_block_obeys_a_mask_per_example" },
  designed_against = "a no-copy shortcut that skips the selection where a cell can still be absent",
  why = "a step along the innermost axis mixes the values of cells absent from their example",
}

mutant {
  name = "scan-shortcut-ignores-absent-cells",
  file = "core/block.c",
  find = "return td_lattice_n_present(b->lat) == b->n_cells && !b->emask;",
  replace = "return !b->emask;",
  guards = { "test_every_scan_model_passes_the_conformance_suite" },
  designed_against = "a no-copy shortcut that skips the selection where a cell can still be absent",
  why = "a step along the innermost axis of a sparse lattice lets absent cells reach the mixer",
}

mutant {
  name = "flatten-shortcut-ignores-the-order",
  file = "core/family_flatten.c",
  find = "return s->n == b->n_cells && s->n_runs == 1;",
  replace = "return s->n == b->n_cells;",
  guards = { "test_every_flatten_model_passes_the_conformance_suite" },
  designed_against = "a no-copy shortcut taken for every dense lattice, not only the ones whose storage order is the sequence",
  why = "a dense lattice stored in another axis order is mixed in storage order",
}

mutant {
  name = "flatten-absent-cells-left-stale",
  file = "core/family_flatten.c",
  find = "\tif (s->n < b->n_cells)\n\t\tmemset(dst, 0, batch * b->n_cells * c * sizeof *dst);\n",
  replace = "",
  guards = { "test_flatten_runs_the_present_cells_only_in_canonical_order" },
  designed_against = "out of the sequence is not out of the output (torch-dimensions DEBUG.md #27)",
  why = "leaves whatever was in the absent cells of the output",
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
  name = "block-example-mask-not-applied",
  file = "core/block.c",
  find = "return b->mask[c] && (!b->emask || b->emask[e * b->n_cells + c]);",
  replace = "return b->mask[c] && (!b->emask || b->emask[e * b->n_cells + c] || 1);",
  guards = { "test_a_scan_block_obeys_a_mask_per_example" },
  designed_against = "a block used alone must obey the example's mask too, not rely on its caller",
  why = "the scan block mixes the values of cells absent from their example",
}

mutant {
  name = "block-example-mask-accepted-by-every-family",
  file = "core/block.c",
  find = "if (mask && b->ops != &td_family_scan_ops)",
  replace = "if (0)",
  guards = { "test_families_that_cannot_take_a_mask_per_example_refuse_it" },
  designed_against = "a family that cannot honour a mask must refuse it, not ignore it",
  why = "the kernel and flatten families accept a mask they never read",
}

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

-- The conformance suite ----------------------------------------------------------

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
  name = "check-substitutes-its-own-width",
  file = "core/check.c",
  find = "shape = (td_check_shape){g->lat, o->width, o->width, o->width, o->batch};",
  replace = "shape = (td_check_shape){g->lat, 2, 2, 2, o->batch};",
  guards = { "test_checks_run_only_at_the_ranks_and_width_asked_for" },
  designed_against = "a check substituting its own width (torch-dimensions DEBUG.md #23)",
  why = "builds every checked model at width 2",
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
  name = "check-covariance-compares-with-itself",
  file = "core/check.c",
  find = "mism += memcmp(h.y + at(&h, b, rev_cell(g->c, c)), g->y + at(g, b, c),",
  replace = "mism += memcmp(g->y + at(g, b, c), g->y + at(g, b, c),",
  guards = { "test_the_suite_catches_a_schedule_taken_from_storage_order" },
  designed_against = "a covariance check that cannot fail (torch-dimensions DEBUG.md #6, #22)",
  why = "compares the output with itself instead of with the reversed layout's",
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

mutant {
  name = "check-trainable-fixed-batch",
  file = "core/check.c",
  find = "return (uint64_t)step + 1; /* index 0 is the held-out batch */",
  replace = "return (uint64_t)step * 0 + 1;",
  guards = { "test_training_draws_a_fresh_batch_every_step_and_never_the_held_out_one" },
  designed_against = "trainability measured on a fixed batch: capacity, not learning (torch-dimensions DEBUG.md #5)",
  why = "trains on the same batch every step",
}

-- The build --------------------------------------------------------------------------

mutant {
  name = "build-objects-ignore-their-flags",
  file = "Makefile",
  find = "$(BUILD)/core/%.o: core/%.c $(BUILD)/.flags",
  replace = "$(BUILD)/core/%.o: core/%.c",
  guards = { "test_changing_the_compiler_flags_rebuilds_an_object" },
  finding = 16,
  why = "a core object is rebuilt when its source changes, not when ARCH or CFLAGS do",
}

-- The deterministic GEMM ---------------------------------------------------------

mutant {
  name = "gemm-trans-b-ignored",
  file = "core/gemm.c",
  find = "if (!g->o.trans_b) {",
  replace = "if (1) {",
  guards = { "test_gemm_matches_a_naive_triple_loop" },
  designed_against = "a transpose flag that is accepted and then not honoured computes with the wrong matrix",
  why = "reads B as stored whatever trans_b says",
}

mutant {
  name = "gemm-last-partial-k-panel-dropped",
  file = "core/gemm.c",
  find = "for (size_t p0 = 0; p0 < g->k; p0 += kc, pn.first = 0) {",
  replace = "for (size_t p0 = 0; p0 + kc <= g->k; p0 += kc, pn.first = 0) {",
  guards = { "test_gemm_matches_a_naive_triple_loop",
             "test_gemm_with_beta_zero_the_old_c_is_never_read" },
  designed_against = "a blocked loop that only visits whole panels silently drops the tail of every sum",
  why = "skips the last k-panel when k is not a multiple of KC (all of it when k < KC)",
}

mutant {
  name = "gemm-k-panels-in-worker-order",
  file = "core/gemm.c",
  find = "\tfor (size_t p0 = 0; p0 < g->k; p0 += kc, pn.first = 0) {\n\t\tpanel_at(g, s, &pn, bi, bj, p0, kc);",
  replace = "\tfor (size_t q = 0, panels = (g->k + kc - 1) / kc; q < panels; q++, pn.first = 0) {\n\t\tsize_t p0 = (q + (bi * g->n_bj + bj) % g->workers) % panels * kc;\n\t\tpanel_at(g, s, &pn, bi, bj, p0, kc);",
  guards = { "test_gemm_results_are_bitwise_equal_for_any_thread_count",
             "test_mixer_results_are_bitwise_equal_for_any_thread_count" },
  designed_against = "a summation order that depends on the thread count makes results differ in the last bits between runs",
  why = "starts each block's k-panels at its worker's index, \"to spread memory traffic\"",
}

mutant {
  name = "gemm-small-product-k-backwards",
  file = "core/gemm.c",
  find = "for (size_t p = 0; p < g->k; p++)",
  replace = "for (size_t p = g->k; p-- > 0;)",
  guards = { "test_gemm_every_element_is_its_sum_in_k_order_bitwise" },
  designed_against = "the small-product shortcut must keep the contract's order, or a product's bits depend on its size class",
  why = "sums a small product's k terms from the last to the first",
}

mutant {
  name = "gemm-small-product-beta-zero-reads-c",
  file = "core/gemm.c",
  find = "*cij = g->o.beta == 0 ?",
  replace = "*cij = 0 ?",
  guards = { "test_gemm_with_beta_zero_the_old_c_is_never_read" },
  designed_against = "BLAS semantics hold for every product size: with beta 0 the old C is not read",
  why = "computes a small product as alpha * s + 0 * C, reading C (NaN * 0 is NaN)",
}

mutant {
  name = "gemm-beta-zero-reads-c",
  file = "core/gemm.c",
  find = "if (beta == 0)\n\t\t\tfor (size_t j = 0; j < nc; j++)",
  replace = "if (0)\n\t\t\tfor (size_t j = 0; j < nc; j++)",
  guards = { "test_gemm_with_beta_zero_the_old_c_is_never_read" },
  finding = 24,
  why = "computes alpha * acc + 0 * C, reading C (NaN * 0 is NaN)",
}

mutant {
  name = "gemm-store-past-the-block",
  file = "core/gemm.c",
  find = "for (size_t j = 0; j < nc; j++)\n\t\t\t\tcrow[j] = alpha * arow[j];",
  replace = "for (size_t j = 0; j <= nc; j++)\n\t\t\t\tcrow[j] = alpha * arow[j];",
  guards = { "test_gemm_leaves_the_padding_outside_the_matrix_untouched" },
  designed_against = "an off-by-one store writes into the caller's padding past the leading dimension's n columns",
  why = "stores one column past each output block",
}

mutant {
  name = "gemm-count-ignores-k",
  file = "core/gemm.c",
  find = "atomic_fetch_add_explicit(&counted, (uint64_t)m * n * k, memory_order_relaxed);",
  replace = "atomic_fetch_add_explicit(&counted, (uint64_t)m * n, memory_order_relaxed);",
  guards = { "test_gemm_counts_the_multiply_adds_asked_of_it" },
  designed_against = "a work counter that counts calls or outputs instead of multiply-adds makes a roofline check pass on a wrong cost model",
  why = "counts the outputs of each call, not its multiply-adds",
}

mutant {
  name = "gemm-count-not-zeroed-at-begin",
  file = "core/gemm.c",
  find = "\tatomic_store(&counted, 0);\n",
  replace = "",
  guards = { "test_gemm_counts_the_multiply_adds_asked_of_it" },
  designed_against = "a counter that carries one measurement into the next charges a case with the work of the one before",
  why = "begins counting from whatever the last count left",
}

mutant {
  name = "bench-cost-counts-du-on-one-step-lines",
  file = "bench/cases.h",
  find = "return 2 * gate_ops * lines + (length == 1 ? gate_ops * lines : 0);",
  replace = "return 2 * gate_ops * lines + 0 * length;",
  guards = { "test_bench_cost_model_claims_the_gemm_work_that_runs" },
  designed_against = "a cost model derived by hand claims a product the code skips, and the roofline puts the case nearer the peak than it is (DEBUG.md #25)",
  why = "charges the GRU's and LSTM's dU on lines of one step, which the mixers skip",
}

mutant {
  name = "bench-cost-attention-one-step-full-projections",
  file = "bench/cases.h",
  find = "k.gemm = t == 1 ? 12 * p * c * c : 24 * p * c * c;",
  replace = "k.gemm = 24 * p * c * c;",
  guards = { "test_bench_cost_model_claims_the_gemm_work_that_runs" },
  designed_against = "a cost model that ignores a fast path claims the work of the slow one (DEBUG.md #25)",
  why = "charges attention's q and k projections on lines of one step, where its one-step path computes v alone",
}

mutant {
  name = "gemm-wide-tile-written-into-c",
  file = "core/gemm.c",
  find = "\t\t    !in_c && g->o.trans_b};",
  replace = "\t\t    g->o.trans_b};",
  guards = { "test_gemm_leaves_the_padding_outside_the_matrix_untouched" },
  designed_against = "a kernel that writes whole vectors past a block's last column must write them where there is room, never into the caller's C",
  why = "lets the kernel write a packed B^T's last columns whole vectors wide when its tile is C",
}

mutant {
  name = "gemm-whole-tile-always-wide",
  file = "core/gemm.c",
  find = "return g->m * padded(g->n) <= MC * NC ? padded(g->n) : g->n;",
  replace = "return padded(g->n);",
  guards = { "test_gemm_every_element_is_its_sum_in_k_order_bitwise" },
  designed_against = "a tile laid out with room for padding must still fit its scratch buffer",
  why = "lays run_panels' tile out with rows padded to 16 even when they overflow it",
}

mutant {
  name = "gemm-narrow-tile-taken-as-wide",
  file = "core/gemm.c",
  find = "const int wide = g->o.trans_b && ts == padded(n);",
  replace = "const int wide = g->o.trans_b;",
  guards = { "test_gemm_every_element_is_its_sum_in_k_order_bitwise" },
  designed_against = "whole vectors written past a row's last column land on the next row's sums when the rows are exactly n apart",
  why = "lets the kernel write whole vectors into a tile whose rows are n apart",
}

mutant {
  name = "gemm-trans-a-strides-swapped",
  file = "core/gemm.c",
  find = "pn->a = g->a + p0 * g->lda + i0, pn->ars = 1, pn->aps = g->lda;",
  replace = "pn->a = g->a + p0 * g->lda + i0, pn->ars = g->lda, pn->aps = 1;",
  guards = { "test_gemm_matches_a_naive_triple_loop" },
  designed_against = "reading a matrix in place through strides: swapping the row and column strides reads the transpose",
  why = "walks a transposed A along its stored rows as if it were not transposed",
}

mutant {
  name = "gemm-kernel-sums-k-backwards",
  file = "core/gemm_kernel.inc",
  find = "\tfor (size_t p = 0; p < kc; p++) {\n\t\tconst KNAME(vec) b0 = KNAME(vload)(b + p * brs), b1 = KNAME(vload)(b + p * brs + KLANES);\n\t\tconst td_real *ap = a + p * aps;\n\t\tconst td_real a0 = ap[0]",
  replace = "\tfor (size_t p = kc; p-- > 0;) {\n\t\tconst KNAME(vec) b0 = KNAME(vload)(b + p * brs), b1 = KNAME(vload)(b + p * brs + KLANES);\n\t\tconst td_real *ap = a + p * aps;\n\t\tconst td_real a0 = ap[0]",
  guards = { "test_gemm_every_element_is_its_sum_in_k_order_bitwise" },
  designed_against = "a faster kernel that reorders a sum: results agree to rounding with a reference, and differ in the last bits from the documented order and from other kernels",
  why = "runs the register block's k loop from the end of the panel",
}

mutant {
  name = "gemm-six-row-block-sums-k-backwards",
  file = "core/gemm_kernel.inc",
  find = "\tfor (size_t p = 0; p < kc; p++) {\n\t\tconst KNAME(vec) b0 = KNAME(vload)(b + p * brs), b1 = KNAME(vload)(b + p * brs + KLANES);\n\t\tconst td_real *ap = a + p * aps;\n\n\t\tc00 += ap[0] * b0",
  replace = "\tfor (size_t p = kc; p-- > 0;) {\n\t\tconst KNAME(vec) b0 = KNAME(vload)(b + p * brs), b1 = KNAME(vload)(b + p * brs + KLANES);\n\t\tconst td_real *ap = a + p * aps;\n\n\t\tc00 += ap[0] * b0",
  guards = { "test_gemm_every_element_is_its_sum_in_k_order_bitwise" },
  designed_against = "a wider register block added for speed must keep the order every other block keeps",
  why = "runs the six-row block's k loop from the end of the panel",
}

mutant {
  name = "gemm-six-row-block-reads-a-row-twice",
  file = "core/gemm_kernel.inc",
  find = "c50 += ap[5 * ars] * b0",
  replace = "c50 += ap[4 * ars] * b0",
  guards = { "test_gemm_matches_a_naive_triple_loop" },
  designed_against = "an unrolled register block whose last row copies its neighbour's index",
  why = "the sixth row's first vector of sums takes the fifth row's A",
}

mutant {
  name = "gemm-narrow-block-sums-k-backwards",
  file = "core/gemm_kernel.inc",
  find = "\tfor (size_t p = 0; p < kc; p++) {\n\t\tconst KNAME(vec) b0 = KNAME(vload)(b + p * brs);\n",
  replace = "\tfor (size_t p = kc; p-- > 0;) {\n\t\tconst KNAME(vec) b0 = KNAME(vload)(b + p * brs);\n",
  guards = { "test_gemm_every_element_is_its_sum_in_k_order_bitwise" },
  designed_against = "a kernel added for one shape (n = 8) must keep the order every other shape keeps",
  why = "runs the one-vector column block's k loop from the end of the panel",
}

mutant {
  name = "gemm-direct-write-ignores-beta",
  file = "core/gemm.c",
  find = "const int direct = g->k > 0 && g->k <= kc && g->o.alpha == 1 && g->o.beta == 0 && !g->swapped;",
  replace = "const int direct = g->k > 0 && g->k <= kc && g->o.alpha == 1 && !g->swapped;",
  guards = { "test_gemm_matches_a_naive_triple_loop" },
  designed_against = "a shortcut taken under a weaker condition than the one that makes it exact",
  why = "writes the sums straight into C when beta asks to add to it, dropping beta * C",
}

mutant {
  name = "gemm-swapped-job-stores-untransposed",
  file = "core/gemm.c",
  find = "td_real *cji = g->c + (j0 + j) * g->ldc + i0 + i;",
  replace = "td_real *cji = g->c + (i0 + i) * g->ldc + j0 + j;",
  guards = { "test_gemm_every_element_is_its_sum_in_k_order_bitwise" },
  designed_against = "a product computed transposed for speed and written back in the layout of the transpose",
  why = "A^T B with fewer than 8 columns is computed as C^T and stored as if it were C",
}

mutant {
  name = "gemm-swapped-job-keeps-a-transposed-b-unread",
  file = "core/gemm.c",
  find = "g.o.trans_a = !o->trans_b, g.o.trans_b = !o->trans_a;",
  replace = "g.o.trans_a = !o->trans_b, g.o.trans_b = o->trans_a;",
  guards = { "test_gemm_every_element_is_its_sum_in_k_order_bitwise" },
  designed_against = "a product rewritten as its transpose whose operands keep the original's transpose flags",
  why = "A B with fewer than 8 columns, computed as C^T, reads A as C^T's B without transposing it",
}

mutant {
  name = "gemm-swapped-job-writes-c-directly",
  file = "core/gemm.c",
  find = "const int direct = g->k > 0 && g->k <= kc && g->o.alpha == 1 && g->o.beta == 0 && !g->swapped;",
  replace = "const int direct = g->k > 0 && g->k <= kc && g->o.alpha == 1 && g->o.beta == 0;",
  guards = { "test_gemm_every_element_is_its_sum_in_k_order_bitwise" },
  designed_against = "a shortcut (the kernel writing into C as its tile) taken by a job whose tile is not C's layout",
  why = "a swapped job of one panel writes C^T's rows over C",
}

mutant {
  name = "gemm-one-row-forgets-the-earlier-panels",
  file = "core/gemm_kernel.inc",
  find = "\tif (!first)\n\t\tc0 = KNAME(vload)(acc), c1 = KNAME(vload)(acc + KLANES);\n\tfor (size_t p = 0; p < kc; p++) {\n\t\tconst td_real ap",
  replace = "\tif (0 && !first)\n\t\tc0 = KNAME(vload)(acc), c1 = KNAME(vload)(acc + KLANES);\n\tfor (size_t p = 0; p < kc; p++) {\n\t\tconst td_real ap",
  guards = { "test_gemm_every_element_is_its_sum_in_k_order_bitwise" },
  designed_against = "a register-blocked kernel that starts each panel from zero instead of the sums so far",
  why = "a row past the last four keeps only its last k-panel's sum",
}

mutant {
  name = "gemm-k-zero-tile-not-cleared",
  file = "core/gemm.c",
  find = "for (size_t i = 0; g->k == 0 && i < mc; i++)",
  replace = "for (size_t i = 0; 0 && i < mc; i++)",
  guards = { "test_gemm_matches_a_naive_triple_loop" },
  designed_against = "a kernel that starts its sums in registers leaves the tile unwritten when there is nothing to sum",
  why = "with k = 0 no panel runs, so C = alpha * (stale stack) + beta * C instead of beta * C",
}

mutant {
  name = "pool-kept-across-fork",
  file = "core/pool.c",
  find = "\tpthread_atfork(NULL, NULL, pool_after_fork);",
  replace = "\t(void)pool_after_fork;",
  guards = { "test_gemm_with_threads_works_in_a_child_after_fork" },
  designed_against = "a process-wide thread pool copied by fork(): the child inherits the bookkeeping of workers that do not exist in it",
  why = "a child that multiplies with threads waits for the parent's workers forever",
}

mutant {
  name = "pool-shared-by-two-calls",
  file = "core/pool.c",
  find = "if (n <= 1 || pthread_mutex_trylock(&pool.use) != 0) {",
  replace = "if (n <= 1 || (pthread_mutex_trylock(&pool.use) != 0 && 0)) {",
  guards = { "test_pool_a_call_made_while_the_workers_are_busy_runs_in_its_caller" },
  finding = 19,
  why = "a second caller posts its job over the first's: shares run on the wrong matrices, or a caller waits forever",
}

mutant {
  name = "gemm-unknown-kernel-accepted",
  file = "core/gemm.c",
  find = "\treturn TD_FAIL(TD_EINVAL, \"no GEMM kernel is called",
  replace = "\treturn 0;\n\treturn TD_FAIL(TD_EINVAL, \"no GEMM kernel is called",
  guards = { "test_gemm_kernels_are_chosen_by_name_and_unknown_names_refused" },
  designed_against = "a setting that names nothing must be refused, not silently ignored",
  why = "accepts a kernel name this build does not have and keeps running another",
}

mutant {
  name = "gemm-ldb-unchecked",
  file = "core/gemm.c",
  find = "if (ldb < b_cols)",
  replace = "if (0)",
  guards = { "test_gemm_bad_arguments_are_refused_with_a_message" },
  designed_against = "a leading dimension smaller than the row reads rows that overlap, silently",
  why = "accepts an ldb smaller than B's stored columns",
}

-- The 1-D mixers ------------------------------------------------------------------
-- Gradient-only bugs (lru dw sign, lru adjoint start, lru skip D, conv dbias,
-- gru dn * r, gru early exit) are caught by the double-precision gradcheck,
-- which skips in the float build mutate uses, and have no entry here; the
-- PyTorch fixture tests (float too) catch some, such as the one below.

mutant {
  name = "mixer-shift-prev-ignores-reverse",
  file = "core/mixer.c",
  find = "before = reverse ? t + 1 : t - 1;",
  replace = "before = t - 1;",
  guards = { "test_the_gru_matches_torch_nn_gru_forward_and_backward",
             "test_the_lstm_matches_torch_nn_lstm_forward_and_backward" },
  designed_against = "a reverse sweep's h_{t-1} is the next position, not the previous one",
  why = "the recurrent weight gradient of a reverse GRU or LSTM pairs each step with the wrong state",
}

mutant {
  name = "mixer-lru-reverse-ignored",
  file = "core/mixer_lru.c",
  find = "scan(j->w->h + l0 * j->length * n, j->w->a, l1 - l0, j->length, n, j->m->o.reverse);",
  replace = "scan(j->w->h + l0 * j->length * n, j->w->a, l1 - l0, j->length, n, 0);",
  guards = { "test_mixer_reverse_is_forward_of_the_flipped_line_flipped_back" },
  designed_against = "a direction flag dropped: a reverse sweep that runs forward halves the receptive field",
  why = "the lru forward scans forward whatever reverse says",
}

mutant {
  name = "conv-fused-first-tap-drops-the-bias",
  file = "core/mixer_conv.c",
  find = "yt[k] = bias[k] + w[k] * xt[k];",
  replace = "yt[k] = w[k] * xt[k] + 0 * bias[k];",
  guards = { "test_the_conv_matches_pytorch_conv1d_forward_and_backward" },
  designed_against = "an initialisation folded into the first term that loses what it used to start from",
  why = "the forward's first tap, taking the place of the bias copy, forgets the bias",
}

mutant {
  name = "mixer-conv-reverse-tap-past-the-line",
  file = "core/mixer_conv.c",
  find = "return off < length - t ? t + off : SIZE_MAX;",
  replace = "return off <= length - t ? t + off : SIZE_MAX;",
  guards = { "test_mixer_reverse_is_forward_of_the_flipped_line_flipped_back",
             "test_mixer_backward_adds_parameter_gradients_and_overwrites_dx" },
  designed_against = "a tap that falls off the end of the line must add nothing, not read the next line",
  why = "in reverse, reads one position past the end of the line",
}

mutant {
  name = "mixer-init-seed-ignored",
  file = "core/mixer.c",
  find = "td_rng_fill_normal(seed, stream + i, 0, n, r->a, r->b, v);",
  replace = "td_rng_fill_normal(1, stream + i, 0, n, r->a, r->b, v);",
  guards = { "test_mixer_initial_parameters_are_a_pure_function_of_the_seed" },
  designed_against = "initial weights must be a function of the seed: two seeds, two models",
  why = "draws every normal tensor with seed 1 whatever the seed",
}

mutant {
  name = "mixer-init-one-stream-for-every-tensor",
  file = "core/mixer.c",
  find = "td_rng_fill_normal(seed, stream + i, 0, n, r->a, r->b, v);",
  replace = "td_rng_fill_normal(seed, stream, 0, n, r->a, r->b, v);",
  guards = { "test_mixer_each_tensor_draws_from_its_own_stream" },
  designed_against = "two tensors drawn from one stream start identical (B = C), a symmetry training may never break",
  why = "draws every normal tensor from the same stream",
}

mutant {
  name = "mixer-lru-dd-overwrites-the-gradient",
  file = "core/mixer_lru.c",
  find = "gd[k] += w.dd[k];",
  replace = "gd[k] = w.dd[k];",
  guards = { "test_mixer_backward_adds_parameter_gradients_and_overwrites_dx" },
  designed_against = "backward must add to the parameter gradients: accumulation over micro-batches depends on it",
  why = "the lru writes dD with = instead of +=",
}

mutant {
  name = "mixer-lru-dd-summed-into-the-slab",
  file = "core/mixer_lru.c",
  find = "acc[k] += j->x[i * c + k0 + k] * j->w->x[i * c + k0 + k];",
  replace = "td_mixer_slab_at(j->m, j->m->grads, T_D)[k0 + k] += j->x[i * c + k0 + k] * j->w->x[i * c + k0 + k];",
  guards = { "test_mixer_backward_adds_parameter_gradients_and_overwrites_dx" },
  finding = 6,
  why = "sums dD term by term into the gradient slab, so a second backward adds a rounding-different amount",
}

mutant {
  name = "mixer-lru-one-step-map-drops-d",
  file = "core/mixer.c",
  find = "acc[u] = diag && r == s0 + u ? (double)diag[r] : 0;",
  replace = "acc[u] = diag && r == s0 + u ? 0 * (double)diag[r] : 0;",
  guards = { "test_the_lru_matches_pytorch_forward_and_backward" },
  designed_against = "a fast path that folds two products into one map must keep every term of the slow one",
  why = "lines of one step take y = C B x and lose the skip path D x",
}

mutant {
  name = "mixer-lru-one-step-dx-through-m-untransposed",
  file = "core/mixer.c",
  find = "o.trans_a = 0, o.trans_b = 1;",
  replace = "o.trans_a = 0, o.trans_b = 0;",
  guards = { "test_the_lru_matches_pytorch_forward_and_backward" },
  designed_against = "the adjoint of x M is dy M^T; a square M hides the missing transpose from every shape check",
  why = "lines of one step get dx = dy M instead of dy M^T",
}

mutant {
  name = "mixer-lru-one-step-dc-pairs-dm-transposed",
  file = "core/mixer_lru.c",
  find = "(td_mixer_strided){w->dm, 1, c},",
  replace = "(td_mixer_strided){w->dm, c, 1},",
  guards = { "test_the_lru_matches_pytorch_forward_and_backward" },
  designed_against = "dC = dM^T B^T: an index pair swapped in a hand-written chain rule",
  why = "lines of one step pair dC with dM's transpose",
}

mutant {
  name = "mixer-lru-one-step-db-overwrites-the-gradient",
  file = "core/mixer_lru.c",
  find = "(td_mixer_strided){w->dm, c, 1}, n, c, c, NULL, 1);",
  replace = "(td_mixer_strided){w->dm, c, 1}, n, c, c, NULL, 0);",
  guards = { "test_mixer_backward_adds_parameter_gradients_and_overwrites_dx" },
  designed_against = "backward must add to the parameter gradients: accumulation over micro-batches depends on it",
  why = "lines of one step write dB with = instead of +=",
}

mutant {
  name = "mixer-lru-one-step-products-second-span-from-the-first",
  file = "core/mixer.c",
  find = "acc[u] += pv * (double)q.v[(s0 + u) * q.rs + t * q.ts];",
  replace = "acc[u] += pv * (double)q.v[u * q.rs + t * q.ts];",
  guards = { "test_the_lru_matches_pytorch_forward_and_backward" },
  designed_against = "a loop cut into spans must offset each span; a width within one span never shows it",
  why = "the one-step map's columns past the first 8 sum the first 8's products",
}

mutant {
  name = "mixer-lru-one-step-workspace-undercounted",
  file = "core/mixer_lru.c",
  find = "c + 2 * n, 2 * n + c + 2 * c * c,",
  replace = "c + 2 * n, 2 * n + c + c * c,",
  guards = { "test_mixer_never_writes_past_the_workspace_it_asked_for" },
  designed_against = "a workspace carved for more than it asked for writes past its end",
  why = "asks for room for M but not for dM",
}

mutant {
  name = "mixer-gru-workspace-undercounted",
  file = "core/mixer_gru.c",
  find = "err = td_mixer_size_muladd(out, lines * length, 6 * h, slots, \"the gru workspace\");",
  replace = "err = td_mixer_size_muladd(out, lines * length, 5 * h, slots, \"the gru workspace\");",
  guards = { "test_mixer_never_writes_past_the_workspace_it_asked_for" },
  finding = 7,
  why = "asks for 5H values per position where the carving uses 6H",
}

mutant {
  name = "mixer-conv-kernel-size-unchecked",
  file = "core/mixer_conv.c",
  find = "if (k == 0)",
  replace = "if (0)",
  guards = { "test_mixer_bad_options_are_refused_with_a_message" },
  designed_against = "a convolution with no tap is a mixer that outputs only its bias; refuse it naming kernel_size",
  why = "accepts kernel_size 0",
}

mutant {
  name = "mixer-ws-len-unchecked",
  file = "core/mixer.c",
  find = "if (ws_len < need)",
  replace = "if (0)",
  guards = { "test_mixer_bad_calls_are_refused_with_a_message" },
  designed_against = "a workspace smaller than td_mixer_ws_size is written past its end",
  why = "accepts a workspace one value too small",
}

-- The LSTM and the complex LRU. Their mathematics (gate slices, gradient signs)
-- is checked against PyTorch in the float build too: those mutants are in
-- reference.lua; these are the bugs their own tests must notice.

mutant {
  name = "mixer-lstm-one-step-f-left-as-found",
  file = "core/mixer_lstm.c",
  find = "memset(ifg + h, 0, h * sizeof *ifg);",
  replace = "(void)0;",
  guards = { "test_mixer_never_reads_workspace_it_did_not_write" },
  designed_against = "a value skipped because it cannot matter must still be defined where it is read",
  why = "on lines of one step f keeps whatever the workspace held, and the backward multiplies it by 0",
}

mutant {
  name = "mixer-lstm-one-step-g-and-o-from-f-columns",
  file = "core/mixer_lstm.c",
  find = "td_gemm(g + 2 * h, 4 * h, xt, h, w->r.wt + 2 * h, 4 * h, l1 - l0, 2 * h, h, &o);",
  replace = "td_gemm(g + 2 * h, 4 * h, xt, h, w->r.wt + h, 4 * h, l1 - l0, 2 * h, h, &o);",
  guards = { "test_the_lstm_matches_torch_nn_lstm_forward_and_backward" },
  designed_against = "a product cut in two must offset both operands of its second part",
  why = "on lines of one step g and o are projected with f's and g's weights",
}

mutant {
  name = "mixer-lstm-one-step-dw-of-g-and-o-from-f-rows",
  file = "core/mixer_lstm.c",
  find = "err = td_gemm(dw + 2 * h * h, h, sc->dgx + 2 * h, sc->ld",
  replace = "err = td_gemm(dw + 2 * h * h, h, sc->dgx + h, sc->ld",
  guards = { "test_the_lstm_matches_torch_nn_lstm_forward_and_backward" },
  designed_against = "a product cut in two must offset both operands of its second part",
  why = "on lines of one step dW of g and o sums f's and g's adjoints",
}

mutant {
  name = "mixer-lstm-one-step-dw-of-f-left-as-found",
  file = "core/mixer_lstm.c",
  find = "memset(dw + h * h, 0, h * h * sizeof *dw);",
  replace = "(void)0;",
  guards = { "test_mixer_never_reads_workspace_it_did_not_write" },
  designed_against = "rows a product skips must still be written when the block's part is added up",
  why = "on lines of one step dW's rows of f keep whatever the block's part held",
}

mutant {
  name = "mixer-lstm-reverse-reads-the-wrong-neighbour",
  file = "core/mixer_lstm.c",
  find = "y + (l0 * length + at(s - 1, length, m->o.reverse)) * h,",
  replace = "y + (l0 * length + at(s - 1, length, 0)) * h,",
  guards = { "test_mixer_reverse_is_forward_of_the_flipped_line_flipped_back" },
  designed_against = "a reverse sweep must take h_{t-1} from t + 1, the step it just computed",
  why = "the lstm's recurrent GEMM reads h at t - 1 whatever reverse says",
}

mutant {
  name = "mixer-lstm-lines-read-each-other",
  file = "core/mixer_lstm.c",
  find = "\t\t       length * h, w->r.ut, 4 * h, l1 - l0, 4 * h, h, &o);",
  replace = "\t\t       h, w->r.ut, 4 * h, l1 - l0, 4 * h, h, &o);",
  guards = { "test_every_scan_model_passes_the_conformance_suite",
             "test_every_kernel_model_passes_the_conformance_suite",
             "test_every_flatten_model_passes_the_conformance_suite" },
  designed_against = "lines are independent: a leading dimension of one position instead of one line mixes them",
  why = "the lstm's recurrent GEMM steps one position between lines, so line l reads another line's state",
}

mutant {
  name = "mixer-lstm-workspace-undercounted",
  file = "core/mixer_lstm.c",
  find = "err = td_mixer_size_muladd(out, lines * length, 7 * h, slots, \"the lstm workspace\");",
  replace = "err = td_mixer_size_muladd(out, lines * length, 6 * h, slots, \"the lstm workspace\");",
  guards = { "test_mixer_never_writes_past_the_workspace_it_asked_for" },
  designed_against = "the workspace a kind asks for must cover everything it carves (DEBUG.md #7's class)",
  why = "asks for 6H values per position where the carving uses 7H",
}

mutant {
  name = "mixer-block-parts-overwrite-the-gradient",
  file = "core/mixer.c",
  find = "\t\tgrads[e] += parts[e];",
  replace = "\t\tgrads[e] = parts[e];",
  guards = { "test_mixer_backward_adds_parameter_gradients_and_overwrites_dx" },
  designed_against = "backward must add to the parameter gradients: accumulation over micro-batches depends on it",
  why = "the gru and the lstm write their summed blocks' gradients with = instead of +=",
}

mutant {
  name = "mixer-clru-one-step-map-adds-the-imaginary-part",
  file = "core/mixer_clru.c",
  find = "NULL, -1);",
  replace = "NULL, 1);",
  guards = { "test_the_complex_lru_matches_a_torch_complex_loop_forward_and_backward" },
  designed_against = "Re(C h) = C_re h_re - C_im h_im: a sign lost where two halves are folded into one map",
  why = "lines of one step add B_im^T C_im^T to M instead of subtracting it",
}

mutant {
  name = "mixer-clru-one-step-grads-of-im-not-negated",
  file = "core/mixer_clru.c",
  find = "const int mode = im ? -1 : 1;",
  replace = "const int mode = 1;",
  guards = { "test_the_complex_lru_matches_a_torch_complex_loop_forward_and_backward" },
  designed_against = "the adjoint of a subtracted term is subtracted",
  why = "lines of one step add dB_im and dC_im where they must be taken away",
}

mutant {
  name = "mixer-one-step-products-subtract-adds",
  file = "core/mixer.c",
  find = "mode < 0 ? *o - (td_real)acc[u]",
  replace = "mode < 0 ? *o + (td_real)acc[u]",
  guards = { "test_the_complex_lru_matches_a_torch_complex_loop_forward_and_backward" },
  designed_against = "a mode flag whose third value nobody but one caller uses is where a sign goes missing",
  why = "td_mixer_products adds where it is asked to subtract: the complex LRU's one-step M and dB_im, dC_im",
}

mutant {
  name = "mixer-clru-one-step-workspace-undercounted",
  file = "core/mixer_clru.c",
  find = "4 * n + c + 2 * c * c,",
  replace = "4 * n + c + c * c,",
  guards = { "test_mixer_never_writes_past_the_workspace_it_asked_for" },
  designed_against = "a workspace carved for more than it asked for writes past its end",
  why = "asks for room for M but not for dM",
}

mutant {
  name = "mixer-clru-reverse-ignored",
  file = "core/mixer_clru.c",
  find = "scan(w.h, w.a, lines, length, n, m->o.reverse, 0);",
  replace = "scan(w.h, w.a, lines, length, n, 0, 0);",
  guards = { "test_mixer_reverse_is_forward_of_the_flipped_line_flipped_back" },
  designed_against = "a direction flag dropped: a reverse sweep that runs forward halves the receptive field",
  why = "the complex lru's forward scans forward whatever reverse says",
}

mutant {
  name = "mixer-clru-workspace-undercounted",
  file = "core/mixer_clru.c",
  find = "per = c + 4 * n;",
  replace = "per = c + 3 * n;",
  guards = { "test_mixer_never_writes_past_the_workspace_it_asked_for" },
  designed_against = "the workspace a kind asks for must cover everything it carves (DEBUG.md #7's class)",
  why = "counts a complex state as 1.5 values per position in each of h and g instead of 2",
}

mutant {
  name = "mixer-clru-dd-overwrites-the-gradient",
  file = "core/mixer_clru.c",
  find = "gd[j] += w->dd[j];",
  replace = "gd[j] = w->dd[j];",
  guards = { "test_mixer_backward_adds_parameter_gradients_and_overwrites_dx" },
  designed_against = "backward must add to the parameter gradients: accumulation over micro-batches depends on it",
  why = "the complex lru writes dD with = instead of +=",
}

-- Fast math (core/fastmath.h): the float build's exp, sigmoid and tanh. The
-- double build uses libm, so only the float tests can see these.

mutant {
  name = "fastmath-exp-coefficient",
  file = "core/fastmath.h",
  find = "p = p * r + 4.1665795894e-2f;",
  replace = "p = p * r + 4.1e-2f;",
  guards = { "test_fastmath_exp_is_within_one_ulp_of_libm",
             "test_fastmath_sigmoid_is_within_two_and_a_half_ulp_of_libm",
             "test_fastmath_tanh_is_within_one_and_a_half_ulp_of_libm" },
  designed_against = "a polynomial coefficient off in the third digit still gives plausible values (about 1e-5 relative), and training hides it",
  why = "perturbs exp's r^4 coefficient",
}

mutant {
  name = "fastmath-exp-clamp-too-tight",
  file = "core/fastmath.h",
  find = "#define TD_FM_EXP_LIMIT 0x42d00000u",
  replace = "#define TD_FM_EXP_LIMIT 0x42b00000u",
  guards = { "test_fastmath_exp_is_within_one_ulp_of_libm",
             "test_fastmath_denormal_results_are_kept" },
  designed_against = "a clamp at |x| <= 88 looks safe but makes exp finite where it must overflow and 0 where it must be denormal",
  why = "clamps |x| to 88 instead of 104",
}

mutant {
  name = "fastmath-tanh-small-branch-dropped",
  file = "core/fastmath.h",
  find = "p = td_fm_select(a < 0.625f, p, big);",
  replace = "p = big;",
  guards = { "test_fastmath_tanh_is_within_one_and_a_half_ulp_of_libm",
             "test_fastmath_edge_cases_are_exact" },
  designed_against = "1 - 2 / (exp(2x) + 1) alone cancels near 0: tanh(1e-30) becomes 0",
  why = "uses the large-argument formula for every x",
}

mutant {
  name = "fastmath-sigmoid-naive",
  file = "core/fastmath.h",
  find = "return td_fm_select(x < 0, e, 1.0f) / (1.0f + e);",
  replace = "return (void)e, 1.0f / (1.0f + td_exp(-x));",
  guards = { "test_fastmath_sigmoid_is_within_two_and_a_half_ulp_of_libm",
             "test_fastmath_denormal_results_are_kept" },
  designed_against = "1 / (1 + exp(-x)) overflows exp for x < -88.7 and returns 0 where the sigmoid is a denormal",
  why = "computes the sigmoid as 1 / (1 + exp(-x)) for every x",
}

mutant {
  name = "vec8-exps-low-lanes-not-zeroed",
  file = "core/vec8.h",
  find = "TD_VEC8_EACH x[u] = (td_vec8)((vint)x[u] & ~low[u]);\n#endif",
  replace = "TD_VEC8_EACH x[u] = (td_vec8)((vint)x[u] & ~(low[u] & 0));\n#endif",
  guards = { "test_fastmath_vec8_exps_give_td_exp_bits" },
  designed_against = "the vector exp drifting from td_exp: a lane below -104 computes exp(0) to spare an underflow, and must still give 0 (a masked softmax key's exp(-inf))",
  why = "leaves exp(0) = 1 in the lanes below -104",
}

mutant {
  name = "vec8-exps-takes-the-first-vectors-n",
  file = "core/vec8.h",
  find = "TD_VEC8_EACH r[u] = x[u] - p[u] * 0.693359375f;",
  replace = "TD_VEC8_EACH r[u] = x[u] - p[0] * 0.693359375f;",
  guards = { "test_fastmath_vec8_exps_give_td_exp_bits" },
  designed_against = "steps interleaved across vectors reading another vector's value: right for the first vector, wrong for the rest",
  why = "reduces every vector by the first vector's n ln2",
}

-- The strict config ---------------------------------------------------------------

mutant {
  name = "config-lookup-type-unchecked",
  file = "core/config.c",
  find = "if (key_table[k].type != t)",
  replace = "if (key_table[k].type != t && t > TD_CFG_BOOL)", -- no declared type passes it; "if (0)" trips a false -Wmaybe-uninitialized
  guards = { "test_defaults_resolve_and_read_back_typed" },
  designed_against = "reading a key as the wrong type reads a field that was never set",
  why = "lets td_config_int read a float key (and so on) without refusing",
}

mutant {
  name = "config-suggestion-charges-every-substitution",
  file = "core/config.c",
  find = "size_t best = diag + (same ? 0 : 1);",
  replace = "size_t best = diag + 1 + 0 * (size_t)same;",
  guards = { "test_an_unknown_key_is_refused_with_the_nearest_key_suggested" },
  designed_against = "a misspelt key must be answered with the key meant, not a random one",
  why = "charges a matching letter as a substitution: \"wieght_decay\" is told \"did you mean 'seed'?\"",
}

mutant {
  name = "config-int-trailing-text-accepted",
  file = "core/config.c",
  find = "if (end == text || *end || errno == ERANGE)",
  replace = "if (end == text || errno == ERANGE)",
  guards = { "test_a_value_of_the_wrong_type_names_the_key_value_and_line" },
  designed_against = "a value that is not an integer must be refused, not read up to its first odd character",
  why = "reads \"1.5\" as 1",
}

mutant {
  name = "config-int-minimum-unchecked",
  file = "core/config.c",
  find = "if (x < k->imin || x > k->imax)",
  replace = "if (x > k->imax)",
  guards = { "test_a_value_out_of_range_names_the_key_value_and_line" },
  designed_against = "a value below a key's range (steps = 0, batch = -1) must be refused where it was written",
  why = "checks integers against the maximum only",
}

mutant {
  name = "config-key-twice-in-the-file-accepted",
  file = "core/config.c",
  find = "if (src->kind == SRC_FILE && v->file_line)",
  replace = "if (0 && v->file_line)",
  guards = { "test_a_key_given_twice_in_the_file_or_the_overrides_is_refused" },
  designed_against = "two values for one key in one layer: silently preferring one is a config that lies",
  why = "lets the second line of a key in a file win",
}

mutant {
  name = "config-empty-value-accepted",
  file = "core/config.c",
  find = "if (!text[0])",
  replace = "if (0)",
  guards = { "test_malformed_lines_are_refused_with_their_line" },
  designed_against = "\"lr =\" is a line missing its value, and must be refused as that",
  why = "passes an empty value on to the type parsers (\"not a finite number\")",
}

mutant {
  name = "config-comment-not-cut",
  file = "core/config.c",
  find = "if (hash)\n\t\t*hash = '\\0';",
  replace = "if (0)\n\t\t*hash = '\\0';",
  guards = { "test_comments_blank_lines_and_spacing_are_ignored" },
  designed_against = "a trailing comment read as part of the value",
  why = "never cuts a line at '#'",
}

mutant {
  name = "config-overrides-before-the-file",
  file = "core/config.c",
  find = "\tif (!err && spec && spec->path)\n\t\terr = load_file(cfg, spec->path);\n\tfor (size_t i = 0; !err && spec && i < spec->n_overrides; i++)\n\t\terr = apply_override(cfg, spec->overrides[i]);",
  replace = "\tfor (size_t i = 0; !err && spec && i < spec->n_overrides; i++)\n\t\terr = apply_override(cfg, spec->overrides[i]);\n\tif (!err && spec && spec->path)\n\t\terr = load_file(cfg, spec->path);",
  guards = { "test_overrides_beat_the_file_and_the_file_beats_the_defaults" },
  designed_against = "a --set must beat the file, or the command line lies about the run",
  why = "applies the overrides first, so the file's values win",
}

mutant {
  name = "config-warmup-equal-to-steps-accepted",
  file = "core/config.c",
  find = "if (warmup->i >= steps->i)",
  replace = "if (warmup->i > steps->i)",
  guards = { "test_combinations_that_cannot_mean_anything_are_refused" },
  designed_against = "warmup = steps never reaches the peak learning rate",
  why = "accepts warmup equal to steps",
}

mutant {
  name = "config-bools-left-out-of-the-text",
  file = "core/config.c",
  find = "at += (size_t)snprintf(text + at, len - at, \"%s = %s\\n\", key_table[order[k]].name,",
  replace = "at += key_table[order[k]].type == TD_CFG_BOOL ? 0 : (size_t)snprintf(text + at, len - at, \"%s = %s\\n\", key_table[order[k]].name,",
  guards = { "test_changing_any_one_key_changes_the_hash" },
  designed_against = "a key left out of the canonical text is left out of the hash: two configs, one hash",
  why = "leaves bool keys out of the serialisation (--set bidirectional=false keeps the hash)",
}

mutant {
  name = "config-key-named-twice",
  file = "core/config.c",
  find = "{\"log_every\", TD_CFG_INT,",
  replace = "{\"eval_every\", TD_CFG_INT,",
  guards = { "test_every_key_is_documented_and_named_once" },
  designed_against = "a key table with a repeated name: the second entry can never be set",
  why = "names the log_every entry eval_every, a second time",
}

mutant {
  name = "config-text-unsorted",
  file = "core/config.c",
  find = "qsort(order, N_KEYS, sizeof order[0], by_name);",
  replace = "(void)by_name;",
  guards = { "test_the_text_is_sorted_complete_and_reads_back_to_the_same_config" },
  designed_against = "the canonical text (and its hash) must not depend on the key table's order",
  why = "writes the keys in table order",
}

mutant {
  name = "config-unopenable-file-accepted",
  file = "core/config.c",
  find = "\tif (!f)\n\t\treturn TD_FAIL(TD_EIO, \"cannot open config %s: %s\", path, strerror(errno));",
  replace = "\tif (!f)\n\t\treturn 0;",
  guards = { "test_an_unreadable_file_is_refused_naming_it" },
  designed_against = "a config path that cannot be read must not train on the defaults",
  why = "treats a missing config file as an empty one",
}

-- The IDX reader and Fashion-MNIST --------------------------------------------------

mutant {
  name = "idx-be32-little-endian",
  file = "core/idx.c",
  find = "return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];",
  replace = "return (uint32_t)p[3] << 24 | (uint32_t)p[2] << 16 | (uint32_t)p[1] << 8 | p[0];",
  guards = { "test_raw_and_gzipped_files_read_back_the_same_bytes" },
  designed_against = "IDX headers are big-endian; reading them in host order gets every size wrong",
  why = "reads the header's sizes little-endian",
}

mutant {
  name = "idx-short-file-accepted",
  file = "core/idx.c",
  find = "if (got < idx->n_bytes)",
  replace = "if (0)",
  guards = { "test_a_file_shorter_than_its_header_promises_is_refused" },
  designed_against = "a truncated file read in part trains on uninitialised bytes",
  why = "accepts fewer data bytes than the header promises",
}

mutant {
  name = "idx-gzip-trailer-unchecked",
  file = "core/idx.c",
  find = "if (gz_cut_off(f))",
  replace = "if (0)",
  guards = { "test_a_gzip_stream_cut_off_is_refused" },
  designed_against = "a download cut off after the data but before the gzip trailer is a file never checked",
  why = "accepts a gzip stream without its trailer",
}

mutant {
  name = "idx-gzip-error-read-as-end-of-file",
  file = "core/idx.c",
  find = "int r = gzread(f, buf + *got, ask);",
  replace = "int r = gzread(f, buf + *got, ask);\n\n\t\tr = r < 0 ? 0 : r;",
  guards = { "test_a_gzip_stream_with_a_bad_checksum_is_refused" },
  designed_against = "gzread's -1 is an error (a bad CRC), not the end of the file",
  why = "treats a failed gzread as the end of the file, so a CRC error passes",
}

mutant {
  name = "idx-long-file-accepted",
  file = "core/idx.c",
  find = "if (got)",
  replace = "if (0)",
  guards = { "test_a_file_longer_than_its_header_promises_is_refused" },
  designed_against = "bytes past what the header promises mean the header is wrong or the file is two files",
  why = "ignores data past the promised bytes",
}

mutant {
  name = "idx-data-type-unchecked",
  file = "core/idx.c",
  find = "if (m[2] != 0x08)",
  replace = "if (0)",
  guards = { "test_a_wrong_magic_type_or_dimension_count_is_refused" },
  designed_against = "a file of floats or ints read as bytes is garbage that still looks like data",
  why = "accepts any IDX data type as unsigned bytes",
}

mutant {
  name = "idx-image-label-count-unchecked",
  file = "core/idx.c",
  find = "if (images->dims[0] != labels->dims[0])",
  replace = "if (0)",
  guards = { "test_images_and_labels_that_disagree_are_refused" },
  designed_against = "images and labels of different counts pair every example with a wrong label or read past one",
  why = "accepts image and label files of different lengths",
}

mutant {
  name = "idx-split-size-unchecked",
  file = "core/idx.c",
  find = "if (!err && (*out)->n != want) {",
  replace = "if (0 && (*out)->n != want) {",
  guards = { "test_a_split_of_the_wrong_size_is_refused" },
  designed_against = "a Fashion-MNIST split that is not the shipped size is not the data set the results claim",
  why = "accepts a split of any size",
}

mutant {
  name = "idx-pixels-divided-by-256",
  file = "core/idx.c",
  find = "out[p] = (td_real)px[p] / (td_real)255;",
  replace = "out[p] = (td_real)px[p] / (td_real)256;",
  guards = { "test_fashion_mnist_loads_the_shipped_split_with_its_known_statistics" },
  designed_against = "pixels scaled to [0, 1] exactly: the known mean pins the scaling",
  why = "scales pixels by 1/256 (mean 0.2849233, not 0.2860406)",
}

mutant {
  name = "idx-absent-mask-ignores-the-split",
  file = "core/idx.c",
  find = "(uint64_t)split << 32 |",
  replace = "(0 * (uint64_t)split) << 32 |",
  guards = { "test_an_absent_mask_is_a_pure_function_of_seed_split_and_index" },
  designed_against = "train image i and test image i must not share an absent mask",
  why = "leaves the split out of the mask's stream",
}

mutant {
  name = "idx-absent-pixels-kept",
  file = "core/idx.c",
  find = "if (!mask[p])\n\t\t\tout[p] = 0;",
  replace = "if (!mask[p])\n\t\t\tout[p] += 0;",
  guards = { "test_absent_pixels_read_as_zero_and_present_ones_as_their_value" },
  designed_against = "an absent pixel's value must never reach the model",
  why = "leaves absent pixels at their value",
}

-- Synthetic task families -----------------------------------------------------------

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
  name = "synth-row-label-is-the-column",
  file = "core/synth.c",
  find = "*out = (int)(argmax_present(x, NULL, SIDE * SIDE) / SIDE);",
  replace = "*out = (int)(argmax_present(x, NULL, SIDE * SIDE) % SIDE);",
  guards = { "test_the_row_label_depends_on_the_h_axis_only" },
  designed_against = "the row task's label must depend on h only, or it does not test sweeping along h",
  why = "labels the row task with the marker's column",
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
  name = "synth-eval-range-inside-train",
  file = "core/synth.c",
  find = "eval->first = TD_SYNTH_EVAL_FIRST, eval->count = n_eval;",
  replace = "eval->first = n_train / 2, eval->count = n_eval;",
  guards = { "test_training_and_evaluation_ranges_are_disjoint_and_pass_the_check" },
  designed_against = "evaluating on training examples scores memorisation",
  why = "starts the evaluation range halfway into the training range",
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
  name = "synth-content-not-searched",
  file = "core/synth.c",
  find = "hit = bsearch(e, t->by_hash, t->n, sizeof(entry), cmp_hash);",
  replace = "hit = NULL;",
  guards = { "test_a_copied_example_under_another_id_is_refused_by_content" },
  designed_against = "a training example copied under another id is still a training example",
  why = "checks evaluation examples by id only, never by content",
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
  name = "synth-index-limit-unchecked",
  file = "core/synth.c",
  find = "if (index >= TD_SYNTH_INDEX_LIMIT)",
  replace = "if (0)",
  guards = { "test_family_names_resolve_and_bad_requests_are_refused" },
  designed_against = "an index at or above 2^48 runs into the draw number's other fields and repeats examples",
  why = "accepts any 64-bit index",
}

-- Atomic writes -------------------------------------------------------------------

mutant {
  name = "fileio-write-in-place",
  file = "base/fileio.c",
  find = "fd = mkstemp(tmp);",
  replace = "fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600), strcpy(tmp, path);",
  guards = { "test_a_failed_write_leaves_the_old_file_whole" },
  designed_against = "never write a user's file in place: a write that fails halfway leaves neither the old file nor the new",
  why = "writes straight into the target, truncating it first",
}

mutant {
  name = "fileio-temporary-left-after-a-failure",
  file = "base/fileio.c",
  find = "unlink(tmp);",
  replace = "(void)tmp;",
  guards = { "test_a_failed_write_leaves_no_temporary_file" },
  designed_against = "a failed write must clean up: temporaries pile up beside the user's files",
  why = "leaves the temporary file behind when the write or the rename fails",
}

mutant {
  name = "fileio-mode-ignored",
  file = "base/fileio.c",
  find = "fchmod(fd, (mode_t)mode) != 0 ||",
  replace = "((void)mode, 0) != 0 ||",
  guards = { "test_a_written_file_gets_the_mode_asked_for" },
  designed_against = "the file must get the mode asked for, not mkstemp's 0600",
  why = "never applies the mode",
}

mutant {
  name = "fileio-data-written-to-the-target-not-the-temporary",
  file = "base/fileio.c",
  find = "fd = mkstemp(tmp);",
  replace = "fd = mkstemp(tmp), close(fd), fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);",
  guards = { "test_a_write_replaces_the_old_file_whole",
             "test_the_write_replaces_the_file_whole_and_leaves_no_temporary" },
  designed_against = "the bytes written through the wrong descriptor: the target written in place, then the empty temporary renamed over it",
  why = "writes the data into the target and renames the empty temporary over it",
}

mutant {
  name = "fileio-mkdirs-no-parents",
  file = "base/fileio.c",
  find = "for (char *p = buf + 1; *p; p++) {",
  replace = "for (char *p = buf + 1; 0 && *p; p++) {",
  guards = { "test_mkdirs_creates_the_missing_parents" },
  designed_against = "mkdir -p semantics: a run directory several levels deep must be created whole",
  why = "creates only the last component of the path",
}

mutant {
  name = "fileio-read-message-unnamed",
  file = "base/fileio.c",
  find = "return TD_FAIL(TD_EIO, \"cannot open %s: %s\", path, strerror(errno));",
  replace = "return TD_FAIL(TD_EIO, \"cannot open %.0s%s\", path, strerror(errno));",
  guards = { "test_reading_a_missing_file_is_refused_naming_it" },
  designed_against = "a refusal must name the file it could not read",
  why = "drops the path from the message for a file that cannot be opened",
}

mutant {
  name = "mixer-attention-one-step-softmax-skipped",
  file = "core/mixer_attention.c",
  find = "\t*p = e / (0 + e);\n",
  replace = "\t*p = z, (void)e;\n",
  guards = { "test_mixer_attention_one_step_takes_q_and_k_only_where_a_score_needs_them" },
  designed_against = "a shortcut for a special shape must compute what the general path computes there",
  why = "on one-step lines weighs the value by the raw score instead of its softmax (1)",
}

mutant {
  name = "mixer-attention-one-step-softmax-backward-skipped",
  file = "core/mixer_attention.c",
  find = "\treturn j->scale * p * (ds - (0 + p * ds));\n",
  replace = "\treturn ds + 0 * p;\n",
  guards = { "test_mixer_attention_one_step_takes_q_and_k_only_where_a_score_needs_them" },
  designed_against = "a shortcut for a special shape must compute what the general path computes there",
  why = "on one-step lines sends dp itself to q and k, where the softmax over one key sends 0",
}

mutant {
  name = "mixer-attention-heads-not-checked",
  file = "core/mixer_attention.c",
  find = "if (c % m->o.heads != 0)",
  replace = "if (0)",
  guards = { "test_mixer_attention_heads_that_do_not_divide_channels_are_refused" },
  designed_against = "heads that do not divide the width leave channels in no head (silently dropped)",
  why = "accepts a head count that does not divide channels",
}

mutant {
  name = "mixer-attention-softmax-unshifted",
  file = "core/mixer_attention.c",
  find = "x[u] = td_vec8_load(s + j + u * LANES) - mx;",
  replace = "x[u] = td_vec8_load(s + j + u * LANES);",
  guards = { "test_mixer_attention_softmax_stays_finite_for_large_scores" },
  designed_against = "exp of a raw score overflows to inf for large scores, and inf / inf is NaN",
  why = "takes exp of the score without subtracting the row maximum, where a row's exps go four vectors at a time",
}

mutant {
  name = "mixer-attention-softmax-rest-unshifted",
  file = "core/mixer_attention.c",
  find = "x[0] = td_vec8_load(s + j) - mx;",
  replace = "x[0] = td_vec8_load(s + j);",
  guards = { "test_mixer_attention_softmax_stays_finite_for_large_scores" },
  designed_against = "exp of a raw score overflows to inf for large scores, and inf / inf is NaN",
  why = "takes exp of the score without subtracting the row maximum, for a row's exps past its groups of four vectors",
}

mutant {
  name = "mixer-attention-reverse-ignored",
  file = "core/mixer_attention.c",
  find = "if (!j->m->o.reverse)",
  replace = "if (!j->m->o.reverse || 1)",
  guards = { "test_mixer_reverse_is_forward_of_the_flipped_line_flipped_back",
             "test_mixer_causal_attention_never_reads_the_future" },
  designed_against = "with reverse and causal, the past is the later positions; a dropped flag looks the wrong way",
  why = "attention sweeps forward whatever reverse says",
}

mutant {
  name = "mixer-attention-masked-scores-kept",
  file = "core/mixer_attention.c",
  find = "const size_t j0 = j + v * LANES, nk = n_keys(causal, i + r, sj->t);",
  replace = "const size_t j0 = j + v * LANES, nk = sj->t;",
  guards = { "test_mixer_causal_attention_never_reads_the_future" },
  designed_against = "the score product computes every key's score, masked or not; a masked key must still get weight 0",
  why = "leaves the masked keys' raw scores in the weights that o = p v reads",
}

mutant {
  name = "attention-ws-scratch-without-the-tail",
  file = "core/mixer_attention.c",
  find = "(err = td_mixer_size_muladd(&per, LANES, d, kt, \"the attention scratch\"))",
  replace = "(err = td_mixer_size_muladd(&per, 0, d, kt, \"the attention scratch\"))",
  guards = { "test_mixer_never_writes_past_the_workspace_it_asked_for" },
  designed_against = "each worker's scratch is carved past the saved tensors; a size that forgets a slice writes past the workspace",
  why = "asks for no room for transpose_rows's padded copy of the last rows",
}

mutant {
  name = "attention-transpose-tail-drops-the-last-row",
  file = "core/mixer_attention.c",
  find = "for (size_t j = whole; j < n; j++)",
  replace = "for (size_t j = whole; j + 1 < n; j++)",
  guards = { "test_attention_matches_torch_nn_multiheadattention_forward_and_backward",
             "test_mixer_gradients_agree_with_finite_differences" },
  designed_against = "rows past the last whole block of 8 take another path through the transpose; an off-by-one there loses the last key",
  why = "leaves the last key's row out of k^T (and v^T): its column is 0",
}

mutant {
  name = "mixer-attention-ws-scratch-short",
  file = "core/mixer_attention.c",
  find = "(err = td_mixer_size_muladd(&kt, d, stride(length), tt, \"the attention scratch\"))",
  replace = "(err = td_mixer_size_muladd(&kt, d - 1, stride(length), tt, \"the attention scratch\"))",
  guards = { "test_mixer_never_writes_past_the_workspace_it_asked_for" },
  designed_against = "each worker's scratch is carved past the saved tensors; a size that forgets a slice writes past the workspace",
  why = "asks for Tp fewer values per worker than k^T (or v^T) takes",
}

mutant {
  name = "mixer-attention-reverse-keys-in-storage-order",
  file = "core/mixer_attention.c",
  find = "for (size_t i = 0, k = n - 1; i < k; i++, k--) {",
  replace = "for (size_t i = 0, k = n - 1; i < k && 0; i++, k--) {",
  guards = { "test_mixer_reverse_is_forward_of_the_flipped_line_flipped_back",
             "test_attention_matches_torch_nn_multiheadattention_forward_and_backward" },
  designed_against = "a reverse sweep reads its rows in place a negative stride apart; k^T taken as the rows are stored puts key j at column T-1-j",
  why = "leaves k^T (v^T backward) in storage order: each query's scores meet the keys mirrored",
}

mutant {
  name = "pool-ranges-drop-an-item",
  file = "core/pool.c",
  find = "j->err[w] = j->fn(j->arg, j->n * w / j->shares, j->n * (w + 1) / j->shares);",
  replace = "j->err[w] = j->fn(j->arg, j->n * w / j->shares, j->n * (w + 1) / j->shares - (w + 1 < j->shares));",
  guards = { "test_pool_ranges_cover_each_item_once_and_carry_a_failure_back",
             "test_mixer_results_are_bitwise_equal_for_any_thread_count" },
  designed_against = "work split into ranges whose bounds leave a gap: an off-by-one between one range's end and the next's start",
  why = "the last item of every range but the last is never computed: a recurrence's lines, with several threads",
}

mutant {
  name = "pool-ranges-lose-a-workers-message",
  file = "core/pool.c",
  find = "\t\tsnprintf(j->msg[w], sizeof j->msg[w], \"%s\", td_error_last());",
  replace = "\t\t(void)0;",
  guards = { "test_pool_ranges_cover_each_item_once_and_carry_a_failure_back" },
  designed_against = "an error message kept per thread, read in another thread than the one that failed",
  why = "a failure on a worker reaches the caller with an empty message",
}

mutant {
  name = "gru-step-gemm-writes-the-first-range",
  file = "core/mixer_gru.c",
  find = "if ((err = td_gemm(w->gh + l0 * 3 * h, 3 * h, prev, length * h,",
  replace = "if ((err = td_gemm(w->gh, 3 * h, prev, length * h,",
  guards = { "test_mixer_lines_in_blocks_give_each_line_its_own_result" },
  designed_against = "a loop split across threads whose inner call still indexes from the start of the whole batch",
  why = "every block writes its lines' h U^T over the first block's rows, and reads its own rows unwritten",
}

mutant {
  name = "lstm-step-gemm-reads-the-first-range",
  file = "core/mixer_lstm.c",
  find = "td_gemm(g, 4 * h, y + (l0 * length + at(s - 1, length, m->o.reverse)) * h,",
  replace = "td_gemm(g, 4 * h, y + at(s - 1, length, m->o.reverse) * h,",
  guards = { "test_mixer_lines_in_blocks_give_each_line_its_own_result" },
  designed_against = "a loop split across threads whose inner call still indexes from the start of the whole batch",
  why = "every block's lines take h_{t-1} of the first block's lines",
}

mutant {
  name = "pool-caller-stops-waiting-after-its-spin",
  file = "core/pool.c",
  find = "\twhile (atomic_load(&pool.pending) > 0)\n\t\tpthread_cond_wait(&pool.done, &pool.lock);",
  replace = "\t(void)0;",
  guards = { "test_pool_run_returns_after_every_share_has_finished" },
  designed_against = "a bounded busy-wait taken for the wait itself: the spin ends, the work has not",
  why = "td_pool_run returns while a worker still writes its share",
}

mutant {
  name = "kernel-dk-rows-zeroed-from-the-first",
  file = "core/family_kernel.c",
  find = "memset(j->w->dk + i0 * n, 0, (i1 - i0) * n * sizeof *j->w->dk);",
  replace = "memset(j->w->dk, 0, (i1 - i0) * n * sizeof *j->w->dk);",
  guards = { "test_every_family_gives_the_same_bits_for_any_thread_count" },
  designed_against = "a loop split across threads whose inner call still indexes from the start of the whole batch",
  why = "with several threads the later rows of dK keep the previous call's sums",
}

mutant {
  name = "kernel-line-sums-indexed-by-range",
  file = "core/family_kernel.c",
  find = "(err = td_gemm(j->w->sk + u * n * n, n, j->rows + base, ld, j->z + base, ld, n, n,",
  replace = "(err = td_gemm(j->w->sk + (u - u0) * n * n, n, j->rows + base, ld, j->z + base, ld, n, n,",
  guards = { "test_every_family_gives_the_same_bits_for_any_thread_count" },
  designed_against = "a loop split across threads whose inner call still indexes from the start of the whole batch",
  why = "threads write their blocks' R Z^T over each other's, and dK sums the wrong blocks",
}

mutant {
  name = "kernel-inner-stride-from-the-axes-before",
  file = "core/family_kernel.c",
  find = "for (int a = order[i] + 1; a < td_lattice_rank(b->lat); a++)",
  replace = "for (int a = 0; a < order[i]; a++)",
  guards = { "test_every_kernel_model_passes_the_conformance_suite" },
  designed_against = "a stride taken from the wrong side of the axis: row-major cells step by the sizes of the axes after it",
  why = "contracts every axis along the wrong stride, mixing cells of different lines",
}

mutant {
  name = "kernel-full-line-ignores-its-holes",
  file = "core/family_kernel.c",
  find = "x->full[line] &= x->mt[line * n + j];",
  replace = "x->full[line] &= 1;",
  guards = { "test_the_kernel_gradients_over_holes_agree_with_finite_differences" },
  designed_against = "a fast path for dense lines taken by lines with absent cells",
  why = "dK subtracts q_i at absent cells j too, as if every line were dense",
}

mutant {
  name = "kernel-dy-used-unselected-over-holes",
  file = "core/family_kernel.c",
  find = "if (td_lattice_n_present(b->lat) < b->n_cells) {",
  replace = "if (0 && td_lattice_n_present(b->lat) < b->n_cells) {",
  guards = { "test_every_kernel_model_passes_the_conformance_suite" },
  designed_against = "a shortcut for dense lattices taken by a lattice with holes",
  why = "the mixer's backward reads dy at absent cells, where it must read zeros",
}

mutant {
  name = "kernel-time-alone-drops-the-gradient",
  file = "core/family_kernel.c",
  find = "\tif (s->n_sp == 0) /* time alone: nothing to contract */\n\t\tmemcpy(dx, w.g, n * sizeof *w.g);\n",
  replace = "",
  guards = { "test_every_kernel_model_passes_the_conformance_suite" },
  designed_against = "an output written only inside a loop that may run zero times",
  why = "on a lattice with only a time axis dx keeps dy instead of the mixer's gradient",
}

-- The elementwise passes split across threads (norm, selection, folds, conv).

mutant {
  name = "conv-saves-every-range-at-the-start",
  file = "core/mixer_conv.c",
  find = "memcpy(j->ws + l0 * j->length * c, j->x + l0 * j->length * c,",
  replace = "memcpy(j->ws, j->x + l0 * j->length * c,",
  guards = { "test_mixer_results_are_bitwise_equal_for_any_thread_count",
             "test_a_model_gives_the_same_bits_for_any_thread_count" },
  designed_against = "a range of lines written where the whole call's data starts: right with one thread, wrong with several",
  why = "every thread saves its lines' input over the first range's, so the weight gradients read stale input for all but one range",
}

mutant {
  name = "conv-dx-reverse-taps-in-forward-order",
  file = "core/mixer_conv.c",
  find = "\t*first = m->o.reverse ? n - 1 : 0;\n\t*step = m->o.reverse ? SIZE_MAX : 1;",
  replace = "\t*first = 0;\n\t*step = 1;",
  guards = { "test_mixer_conv_backward_is_its_sums_in_position_order" },
  designed_against = "a scatter rewritten as a gather that keeps the terms but not their order: ascending positions are descending taps in reverse",
  why = "a reverse conv's dx sums its taps ascending, where the positions that reach it come in descending tap order",
}

mutant {
  name = "conv-dx-drops-the-farthest-tap",
  file = "core/mixer_conv.c",
  find = "const size_t n = room / d + 1 < taps ? room / d + 1 : taps;",
  replace = "const size_t n = room / d < taps ? room / d : taps;",
  guards = { "test_mixer_conv_backward_is_its_sums_in_position_order",
             "test_the_conv_matches_pytorch_conv1d_forward_and_backward" },
  designed_against = "an off-by-one in how many taps reach a position from the room left on the line",
  why = "counts the taps that reach a position one short, dropping the farthest one's term",
}

mutant {
  name = "conv-grad-vectors-run-past-the-row",
  file = "core/mixer_conv.c",
  find = "\tfor (; k + LANES <= c; k += LANES)\n\t\trow_vectors",
  replace = "\tfor (; k < c; k += LANES)\n\t\trow_vectors",
  guards = { "test_mixer_conv_backward_is_its_sums_in_position_order" },
  designed_against = "a short last block of channels treated as a whole one: reads past a row, writes past the block",
  why = "the last channels' sums take a whole vector, reading the next row and adding into the next tap's sums",
}

mutant {
  name = "conv-grad-sums-positions-backwards",
  file = "core/mixer_conv.c",
  find = "\tfor (size_t t = 0; t < n; t++)\n#pragma GCC unroll 4",
  replace = "\tfor (size_t t = n; t-- > 0;)\n#pragma GCC unroll 4",
  guards = { "test_mixer_conv_backward_is_its_sums_in_position_order" },
  designed_against = "a gradient loop restructured for speed that reorders a sum: right to rounding against PyTorch, other bits than the contract's order",
  why = "sums a line's positions from its end",
}

mutant {
  name = "conv-grad-reverse-reads-the-forward-rows",
  file = "core/mixer_conv.c",
  find = "dy = j->dy + (l * len + (m->o.reverse ? 0 : off)) * c;",
  replace = "dy = j->dy + (l * len + (m->o.reverse ? off : 0)) * c;",
  guards = { "test_mixer_conv_backward_is_its_sums_in_position_order",
             "test_the_conv_matches_pytorch_conv1d_forward_and_backward" },
  designed_against = "an offset written for one direction of a sweep and used for both",
  why = "a reverse conv pairs dy of position t + off with x of position t, the forward sweep's pairing",
}

mutant {
  name = "norm-rows-read-inv-by-range-offset",
  file = "core/norm.c",
  find = "const td_real ivr = j->inv_in[r];\n\t\t\tconst double iv",
  replace = "const td_real ivr = j->inv_in[r - r0];\n\t\t\tconst double iv",
  guards = { "test_a_model_gives_the_same_bits_for_any_thread_count" },
  designed_against = "a per-row value indexed from the start of the thread's range instead of the array's",
  why = "with several threads every range but the first normalises its dx with other rows' scales",
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
  name = "fold-selects-by-range-offset",
  file = "core/block.c",
  find = "select_rows(j->b, e, r->cell, r->len, ch, dst, src);",
  replace = "select_rows(j->b, e - e0, r->cell, r->len, ch, dst, src);",
  guards = { "test_a_model_gives_the_same_bits_for_any_thread_count" },
  designed_against = "a per-example mask indexed from the start of the thread's range",
  why = "with several threads a fold selects later examples' cells by the first example's mask",
}

-- The GEMM's last columns (nc mod the vector width) and the softmax's last group.

mutant {
  name = "gemm-tail-drops-its-last-column",
  file = "core/gemm_kernel.inc",
  find = "\t\tmemcpy(acc + i * pn->ts, t + i * w, n * sizeof *t);",
  replace = "\t\tmemcpy(acc + i * pn->ts, t + i * w, (n - 1) * sizeof *t);",
  guards = { "test_gemm_every_element_is_its_sum_in_k_order_bitwise" },
  designed_against = "a tail done through a padded copy must copy back exactly the columns it stands for",
  why = "the last column of every product whose width is not a multiple of the vector width keeps its old value",
}

mutant {
  name = "gemm-tail-forgets-the-earlier-panels",
  file = "core/gemm_kernel.inc",
  find = "\tfor (size_t i = 0; !pn->first && i < 4; i++)\n\t\tmemcpy(t + i * w",
  replace = "\tfor (size_t i = 0; 0 && i < 4; i++)\n\t\tmemcpy(t + i * w",
  guards = { "test_gemm_every_element_is_its_sum_in_k_order_bitwise" },
  designed_against = "a padded copy of an accumulator must start from the sums so far, not from zero, when k spans several panels",
  why = "with k over one panel the tail columns hold only the last panel's sum",
}

mutant {
  name = "gemm-panels-each-start-from-zero",
  file = "core/gemm.c",
  find = "min_size(NC, n - bj * NC), 0, p0 == 0, ts, g->o.trans_b, wide};",
  replace = "min_size(NC, n - bj * NC), 0, 1, ts, g->o.trans_b, wide};",
  guards = { "test_gemm_every_element_is_its_sum_in_k_order_bitwise" },
  designed_against = "a sum split across panels that restarts at each one",
  why = "run_panels keeps only the last panel's sum of every element",
}

mutant {
  name = "gemm-packed-panel-kept-across-panels",
  file = "core/gemm.c",
  find = "\tif (g->k > kc || s->bp_bj != bj) /* with one k-panel, a row block reuses it */\n\t\tpack_bt(g, s->bp, p0, pn->kc, j0, pn->nc);\n\ts->bp_bj = g->k > kc ? SIZE_MAX : bj;",
  replace = "\tif (g->k > KC || s->bp_bj != bj) /* with one k-panel, a row block reuses it */\n\t\tpack_bt(g, s->bp, p0, pn->kc, j0, pn->nc);\n\ts->bp_bj = g->k > KC ? SIZE_MAX : bj;",
  guards = { "test_gemm_every_element_is_its_sum_in_k_order_bitwise" },
  designed_against = "a reuse test written for one panel depth while another is in force",
  why = "with a transposed A and B and k between 64 and 128 every panel after the first reads the first panel's packed B",
}

mutant {
  name = "gemm-wide-tail-computes-one-vector",
  file = "core/gemm_kernel.inc",
  find = "const size_t w = n < KLANES ? KLANES : 2 * KLANES;",
  replace = "const size_t w = KLANES + 0 * n;",
  guards = { "test_gemm_every_element_is_its_sum_in_k_order_bitwise" },
  designed_against = "a padded tail wider than one vector computed as if it were one",
  why = "the last nc mod 2 KLANES columns of a packed B^T, when more than KLANES, get only one vector's sums",
}

mutant {
  name = "attention-softmax-pads-scores-with-zero",
  file = "core/mixer_attention.c",
  find = "-INFINITY};\n\n\ttranspose_rows(kt, tp, in.k.base, in.k.ld, t, d, kt + d * tp);",
  replace = "0};\n\n\ttranspose_rows(kt, tp, in.k.base, in.k.ld, t, d, kt + d * tp);",
  guards = { "test_attention_matches_torch_nn_multiheadattention_forward_and_backward" },
  designed_against = "padding a row to the vector width must add nothing to its sums: exp of the pad must be 0",
  why = "every padded lane adds exp(0 - max) to the softmax's denominator",
}

mutant {
  name = "attention-softmax-backward-padding-not-zeroed",
  file = "core/mixer_attention.c",
  find = "score_job sj = {j->m->o.causal, ds, dout.base, vt, p, dout.ld, tp, t, d, 0, 1, 0};",
  replace = "score_job sj = {j->m->o.causal, ds, dout.base, vt, p, dout.ld, tp, t, d, 0, 1, NAN};",
  guards = { "test_attention_matches_torch_nn_multiheadattention_forward_and_backward" },
  designed_against = "padding a row to the vector width must add nothing to its sums",
  why = "the padding holds garbage: 0 x NaN in the sum of p dp poisons the row",
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
  name = "lru-scans-every-range-from-the-first-line",
  file = "core/mixer_lru.c",
  find = "scan(j->w->h + l0 * j->length * n, j->w->a, l1 - l0,",
  replace = "scan(j->w->h, j->w->a, l1 - l0,",
  guards = { "test_mixer_results_are_bitwise_equal_for_any_thread_count" },
  designed_against = "a range of lines processed where the whole call's data starts: right with one thread, wrong with several",
  why = "every thread runs the recurrence over the first lines, so the later lines keep their inputs as states",
}

mutant {
  name = "lru-skip-gradient-groups-numbered-after-the-states",
  file = "core/mixer_lru.c",
  find = "const size_t k0 = (q < gn ? q : q - gn) * GROUP,",
  replace = "const size_t k0 = q * GROUP,",
  guards = { "test_the_lru_matches_pytorch_forward_and_backward" },
  designed_against = "two kinds of work items in one numbering: the second kind must count from its own start",
  why = "dD's channel groups start after the state groups' count, so dD is never summed for the first channels",
}

mutant {
  name = "recurrence-du-skipped-beyond-one-step-lines",
  file = "core/mixer.c",
  find = "\treturn length > 1 ? td_gemm(part + m->tensor[tu].offset,",
  replace = "\treturn length > 64 ? td_gemm(part + m->tensor[tu].offset,",
  guards = { "test_the_gru_matches_torch_nn_gru_forward_and_backward",
             "test_the_lstm_matches_torch_nn_lstm_forward_and_backward" },
  designed_against = "a shortcut for a special shape (nothing to add on one-step lines) taken for shapes where it is wrong",
  why = "the gru's and lstm's dU is never summed on ordinary lines: the parts' dU is whatever the workspace held",
}

mutant {
  name = "norm-gain-group-taken-whole-at-the-end",
  file = "core/norm.c",
  find = "n = j->width - k0 < GROUP ? j->width - k0 : GROUP;",
  replace = "n = GROUP;",
  guards = { "test_a_model_gives_the_same_bits_for_any_thread_count" },
  designed_against = "a short last block of channels treated as a whole one: reads past a row, writes past the block",
  why = "with several threads the last group of gain gradients reads the next row and adds past the gains",
}

mutant {
  name = "norm-residual-add-dropped",
  file = "core/norm.c",
  find = "dxr[k] = dxr[k] + (td_real)(iv",
  replace = "dxr[k] = 0 * dxr[k] + (td_real)(iv",
  guards = { "test_add_mode_adds_the_gradient_to_dx" },
  designed_against = "a fused residual path that overwrites the gradient it was to add to",
  why = "the model's backward loses every gradient that came down the residual stream",
}

mutant {
  name = "norm-backward-block-takes-its-first-rows-c",
  file = "core/norm.c",
  find = "const double iv = (double)ivr, c = cb[r - b0];",
  replace = "const double iv = (double)ivr, c = cb[0];",
  guards = { "test_rmsnorm_backward_matches_its_definition" },
  designed_against = "a loop split in two passes over a block, the second reading the first's results by the wrong index",
  why = "every row of a block of 16 takes the first row's c: right for one row in 16",
}

mutant {
  name = "norm-backward-sum-scaled-by-inv-squared",
  file = "core/norm.c",
  find = "cb[r - b0] = iv * iv * iv *",
  replace = "cb[r - b0] = iv * iv *",
  guards = { "test_rmsnorm_backward_matches_its_definition" },
  designed_against = "a chain-rule power dropped: inv depends on x too, and brings inv^3",
  why = "the backward's second term is off by a factor of inv",
}

mutant {
  name = "fixedsum-dot3-product-kept-in-double",
  file = "core/fixedsum.h",
  find = "part[q] += (double)(td_real)(a[j + q] * b[j + q]) * (double)c[j + q];",
  replace = "part[q] += (double)a[j + q] * (double)b[j + q] * (double)c[j + q];",
  guards = { "test_dot3_is_dot_fixed_of_the_stored_products" },
  designed_against = "a fused version of a computation that rounds differently from the one it replaces",
  why = "RMSNorm's backward sums products that were never rounded to td_real: not the bits it had",
}

mutant {
  name = "attention-products-drop-the-columns-past-the-vectors",
  file = "core/mixer_attention.c",
  find = "for (; e < d; e++)",
  replace = "for (; e < d && e < LANES; e++)",
  guards = { "test_mixer_attention_with_wide_heads_on_odd_lines_matches_its_definition" },
  designed_against = "a loop vectorised by whole vectors whose remainder is never reached by the small shapes the tests use",
  why = "heads wider than a vector lose their columns past it in o = p v and the backward's products",
}

mutant {
  name = "attention-products-drop-the-rows-past-the-blocks",
  file = "core/mixer_attention.c",
  find = "rows_tile(out, ldo, a, ars, aps, b, ldb, kn, i, e, 1);",
  replace = "(void)0;",
  guards = { "test_mixer_attention_with_wide_heads_on_odd_lines_matches_its_definition" },
  designed_against = "a loop blocked by rows whose remainder is never reached by the small shapes the tests use",
  why = "a line whose length is not a multiple of 4 leaves its last rows of o, dq, dk, dv unwritten",
}

mutant {
  name = "attention-scores-mask-one-key-late",
  file = "core/mixer_attention.c",
  find = "const vmask keep = lane < (vmask){0} + (lane_int)(nk > j0 ? nk - j0 : 0);",
  replace = "const vmask keep = lane <= (vmask){0} + (lane_int)(nk > j0 ? nk - j0 : 0);",
  guards = { "test_mixer_causal_attention_never_reads_the_future",
             "test_mixer_attention_with_wide_heads_on_odd_lines_matches_its_definition" },
  designed_against = "an off-by-one at the boundary of the keys a query sees",
  why = "each row keeps one key past the last it sees: the next step for causal rows, a padding lane of 0 for the rest",
}

mutant {
  name = "attention-unseen-keys-keep-stale-weights",
  file = "core/mixer_attention.c",
  find = "memset(w + n, 0, (tp - n) * sizeof *w);",
  replace = "(void)0;",
  guards = { "test_mixer_causal_attention_on_long_lines_keeps_the_future_out",
             "test_mixer_never_reads_workspace_it_did_not_write" },
  designed_against = "a buffer reused from call to call: what a pass does not write still holds the last pass's values",
  why = "a causal query's weights past its last group of keys keep whatever the workspace held, and o = p v reads them",
}

mutant {
  name = "lstm-backward-takes-the-cell-state-for-its-tanh",
  file = "core/mixer_lstm.c",
  find = "w->gates + r * 4 * h, w->ts + r * h, sc->hp + q * h,",
  replace = "w->gates + r * 4 * h, w->s + r * h, sc->hp + q * h,",
  guards = { "test_the_lstm_matches_torch_nn_lstm_forward_and_backward" },
  designed_against = "a value saved by the forward to spare the backward a recomputation: the backward must read the saved value, not its argument",
  why = "the backward uses s_t where tanh(s_t) belongs",
}

mutant {
  name = "transpose-first-shuffle-pairs-the-wrong-columns",
  file = "core/transpose.c",
  find = "const idx8 lo1 = {0, 8, 1, 9, 4, 12, 5, 13}",
  replace = "const idx8 lo1 = {0, 8, 1, 9, 2, 10, 3, 11}",
  guards = { "test_transpose_matches_its_definition_for_every_shape" },
  designed_against = "a shuffle mask that moves plausible values to the wrong lanes: no value is lost, only misplaced",
  why = "the first interleave takes columns 2 and 3 where 4 and 5 belong: whole blocks come out scrambled",
}

mutant {
  name = "transpose-edges-skip-the-rows-below-the-blocks",
  file = "core/transpose.c",
  find = "for (size_t c = r < r8 ? c8 : 0; c < cols; c++)",
  replace = "for (size_t c = c8; c < cols; c++)",
  guards = { "test_transpose_matches_its_definition_for_every_shape" },
  designed_against = "a blocked loop whose remainder covers one edge of the block grid but not the other",
  why = "the rows past the last whole block keep their first c8 columns untransposed",
}

mutant {
  name = "transpose-blocks-stop-one-block-short",
  file = "core/transpose.c",
  find = "for (size_t r = 0; r < r8; r += 8)",
  replace = "for (size_t r = 0; r + 8 < r8; r += 8)",
  guards = { "test_transpose_matches_its_definition_for_every_shape" },
  designed_against = "an off-by-one-block bound on a blocked loop",
  why = "the last whole block of rows is never transposed (from 16 rows on)",
}

mutant {
  name = "gemm-split-rows-keeps-the-old-block-count",
  file = "core/gemm.c",
  find = "\tg->n_bi = (g->m + g->mb - 1) / g->mb;\n",
  replace = "",
  guards = { "test_gemm_results_are_bitwise_equal_for_any_thread_count" },
  designed_against = "a block size changed without the count of blocks that depends on it",
  why = "a weight gradient cut into blocks of 24 rows for 2 threads still counts 3 blocks of 32: its last rows are never computed",
}

mutant {
  name = "attention-one-step-value-path-without-its-bound",
  file = "core/mixer_attention.c",
  find = "\treturn q <= TD_REAL_MAX && k <= TD_REAL_MAX && qk <= TD_REAL_MAX; /* each false for a NaN */",
  replace = "\treturn 1 || (q <= TD_REAL_MAX && k <= TD_REAL_MAX && qk <= TD_REAL_MAX);",
  guards = { "test_mixer_attention_on_one_step_lines_is_its_value_path",
             "test_mixer_attention_one_step_takes_q_and_k_only_where_a_score_needs_them" },
  designed_against = "a shortcut that is exact for finite values and hides a NaN: the softmax over one key is 1 only when its score is finite",
  why = "lines of one step take v alone even when a score is inf or NaN, so the NaN never reaches y",
}

mutant {
  name = "attention-one-step-bound-misses-a-nan-weight",
  file = "core/mixer_attention.c",
  find = "\treturn (bias + (double)xmax * sums) * rounding_growth(m) + 0 * all;",
  replace = "\treturn (bias + (double)xmax * sums) * rounding_growth(m) + 0 * (all < 0);",
  guards = { "test_mixer_attention_one_step_takes_q_and_k_only_where_a_score_needs_them" },
  designed_against = "a NaN that a maximum skips (NaN > m is false): a bound built from comparisons must check finiteness apart",
  why = "a NaN in Wq or Wk never enters the largest row sum, so the scores it makes NaN are taken as bounded and y stays finite",
}

mutant {
  name = "attention-one-step-bound-ignores-the-input",
  file = "core/mixer_attention.c",
  find = "\treturn (bias + (double)xmax * sums) * rounding_growth(m) + 0 * all;",
  replace = "\treturn (bias + sums + 0 * (double)xmax) * rounding_growth(m) + 0 * all;",
  guards = { "test_mixer_attention_one_step_takes_q_and_k_only_where_a_score_needs_them" },
  designed_against = "an overflow bound taken from the weights alone: finite inputs can still overflow a product",
  why = "a line whose finite x makes its scores overflow takes the value path: its y is finite where the softmax gives NaN",
}

mutant {
  name = "attention-one-step-ds-never-checked",
  file = "core/mixer_attention.c",
  find = "\t\t\tunsettled |= attend_one_ds(j, l, h) != 0;",
  replace = "\t\t\t(void)attend_one_ds(j, l, h);",
  guards = { "test_mixer_attention_one_step_takes_q_and_k_only_where_a_score_needs_them" },
  designed_against = "a shortcut that is exact for finite values and hides a NaN, backward",
  why = "a NaN dL/dy makes ds NaN, and dq and dk with it, but dWq and dWk are left as if they were 0",
}

mutant {
  name = "attention-one-step-q-and-k-not-computed-again",
  file = "core/mixer_attention.c",
  find = "\telse if ((err = project(m, &w, w.x, 0, p, 0, m->o.threads)) == 0)",
  replace = "\telse if ((err = 0) == 0)",
  guards = { "test_mixer_attention_one_step_takes_q_and_k_only_where_a_score_needs_them" },
  designed_against = "a buffer that one path leaves unwritten, read by another path that assumed it written",
  why = "after the value path's forward, the backward's whole path reads q and k the forward never wrote",
}

mutant {
  name = "attention-one-step-ds-reads-v-where-the-value-path-left-none",
  file = "core/mixer_attention.c",
  find = "\t\t\t\t\t\t : j->w->ctx + l * c + h * d; /* the value path's */",
  replace = "\t\t\t\t\t\t : j->w->qkv + l * 3 * c + 2 * c + h * d;",
  guards = { "test_mixer_attention_one_step_backward_bound_covers_do_and_v" },
  designed_against = "a buffer that one path leaves unwritten, read by another path that assumed it written",
  why = "the value path projects v into ctx; ds_share reads qkv's stale v, finds every dp finite and keeps the value path where a dp overflowed",
}

mutant {
  name = "attention-block-parts-shared-by-every-block",
  file = "core/mixer_attention.c",
  find = "\tif ((err = block_grads(j, w->parts + b * m->n_params, r0, r1)))",
  replace = "\tif ((err = block_grads(j, w->parts + 0 * b * m->n_params, r0, r1)))",
  guards = { "test_attention_matches_torch_nn_multiheadattention_forward_and_backward",
             "test_mixer_lines_in_blocks_give_each_line_its_own_result" },
  designed_against = "a partial sum kept per block for a fixed order, written to a slot another block also writes",
  why = "every block writes its parameter gradients into block 0's part: only the last block's survive, beside the other parts' stale values",
}

mutant {
  name = "attention-ws-size-one-part-short",
  file = "core/mixer_attention.c",
  find = "\t    (err = td_mixer_size_muladd(&scratch, n_parts(lines, length), m->n_params, scratch,",
  replace = "\t    (err = td_mixer_size_muladd(&scratch, n_parts(lines, length) - 1, m->n_params, scratch,",
  guards = { "test_mixer_never_writes_past_the_workspace_it_asked_for" },
  designed_against = "a workspace size that leaves out part of a region the code carves",
  why = "the last block's parameter gradients are written past the workspace the caller was told to allocate",
}

mutant {
  name = "attention-one-block-pairs-ignore-the-share",
  file = "core/mixer_attention.c",
  find = "\tfor (size_t b = w; b < j->pj.lines * nh; b += j->inner)",
  replace = "\tfor (size_t b = 0 * w; b < j->pj.lines * nh; b += j->inner)",
  guards = { "test_mixer_lines_in_blocks_give_each_line_its_own_result" },
  designed_against = "work shared round-robin among workers, each of which starts at the first item instead of its own",
  why = "a single line's pairs shared between two threads: both take head 0 and none takes head 1, so the line's y is not its y in a block",
}

mutant {
  name = "attention-block-share-stops-a-block-short",
  file = "core/mixer_attention.c",
  find = "\t     !err && b < j->blocks * w1 / j->pj.workers; b++) {",
  replace = "\t     !err && b + 1 < j->blocks * w1 / j->pj.workers; b++) {",
  guards = { "test_attention_matches_torch_nn_multiheadattention_forward_and_backward",
             "test_mixer_lines_in_blocks_give_each_line_its_own_result" },
  designed_against = "a worker's share of blocks whose bound leaves its last block to nobody",
  why = "each worker's last block of lines is never run: its y, dx and gradients are missing",
}

mutant {
  name = "attention-block-dctx-from-the-first-block",
  file = "core/mixer_attention.c",
  find = "\tif ((err = td_gemm(w->dctx + r0 * c, c, j->in + r0 * c, c,",
  replace = "\tif ((err = td_gemm(w->dctx + r0 * c, c, j->in, c,",
  guards = { "test_attention_matches_torch_nn_multiheadattention_forward_and_backward",
             "test_mixer_lines_in_blocks_give_each_line_its_own_result" },
  designed_against = "a block's product that reads the first block's rows instead of its own",
  why = "every block's dL/do is made from block 0's dL/dy",
}

mutant {
  name = "attention-one-step-line-share-drops-the-last",
  file = "core/mixer_attention.c",
  find = "\t*l1 = j->lines * (w + 1) / j->workers;",
  replace = "\t*l1 = j->lines * (w + 1) / j->workers - 1;",
  guards = { "test_mixer_attention_one_step_takes_q_and_k_only_where_a_score_needs_them" },
  designed_against = "the end of a share off by one: a line no worker computes",
  why = "each worker's last line of one step never gets its weights or its o",
}

mutant {
  name = "fold-dense-copy-drops-the-last-value",
  file = "core/block.c",
  find = "memcpy(dst, src, r->len * ch * sizeof *dst);",
  replace = "memcpy(dst, src, (r->len * ch - 1) * sizeof *dst);",
  guards = { "test_a_scan_step_runs_the_mixer_along_its_own_axis" },
  designed_against = "a fast path beside a general one, written again instead of shared, with its own bound",
  why = "on a lattice with no absent cell every run of a fold loses its last channel",
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
  name = "block-call-workspace-sized-by-chunk-alone",
  file = "core/block.c",
  find = "\tconst size_t per = call_lines(b, length);\n",
  replace = "\tconst size_t per = b->o.chunk;\n",
  guards = { "test_a_kernel_block_gives_each_cell_its_result_whatever_the_chunk" },
  designed_against = "a size computed in two places that drift apart: a call takes more lines than its workspace was sized for",
  why = "a kernel block's per-cell mixer calls take chunk times the longest axis's lines in a workspace sized for chunk lines",
}

mutant {
  name = "block-calls-skip-a-line-between-calls",
  file = "core/block.c",
  find = "at < lines; at += call, k++) {",
  replace = "at < lines; at += call + 1, k++) {",
  guards = { "test_a_kernel_block_gives_each_cell_its_result_whatever_the_chunk" },
  designed_against = "a blocked loop whose step and block end disagree: a line between two blocks never runs",
  why = "the line after each mixer call never gets its y or dx",
}

mutant {
  name = "gru-block-input-saved-for-the-first-block-only",
  file = "core/mixer_rnn.c",
  find = "\t\tmemcpy(j->w->x + b0 * t * h, j->x + b0 * t * h, (b1 - b0) * t * h * sizeof *j->x);",
  replace = "\t\tmemcpy(j->w->x, j->x, (b1 - b0) * t * h * sizeof *j->x);",
  guards = { "test_mixer_lines_in_blocks_give_each_line_its_own_result" },
  designed_against = "a per-block step applied at the start of the buffer whatever the block",
  why = "every block saves its input over the first block's (in the driver the gru and lstm share), so the later blocks project what the workspace held",
}

mutant {
  name = "lstm-backward-h-before-at-the-line-s-own-row",
  file = "core/mixer_lstm.c",
  find = "\t\t\ttd_real *restrict dst = hp + ((l - l0) * length + t) * h;",
  replace = "\t\t\ttd_real *restrict dst = hp + (l * length + t) * h;",
  guards = { "test_mixer_lines_in_blocks_give_each_line_its_own_result" },
  designed_against = "an index into a per-block scratch taken from the whole buffer's layout",
  why = "the blocks past the first rebuild h_{t-1} beyond their slot, and their dU reads the slot's stale rows",
}

mutant {
  name = "lru-input-saved-for-the-first-range-only",
  file = "core/mixer_lru.c",
  find = "\t\t\tj->w->x[i * c + k] = xk;",
  replace = "\t\t\tj->w->x[(i - l0 * j->length) * c + k] = xk;",
  guards = { "test_mixer_results_are_bitwise_equal_for_any_thread_count" },
  designed_against = "a loop split across threads whose inner call still indexes from the start of the whole batch",
  why = "every thread saves its lines' input over the first range's, so dB reads stale input for all but one range",
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
  name = "model-next-norm-saves-this-layer-s-scales",
  file = "core/model.c",
  find = "*n = s->n, *inv = s->inv + next * m->rows,",
  replace = "*n = s->n, *inv = s->inv + (next - 1) * m->rows,",
  guards = { "test_the_gradient_predicts_the_output_s_change_along_it" },
  designed_against = "a step moved into the pass before it that keeps the indices of the pass it left",
  why = "each layer's norm scales overwrite the previous layer's, which its backward then reads",
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
  name = "gru-block-dx-written-at-the-block-s-line",
  file = "core/mixer_rnn.c",
  find = "td_gemm(j->dx + b0 * length * h, h, sc->dgx, w->ld,",
  replace = "td_gemm(j->dx + b0 * h, h, sc->dgx, w->ld,",
  guards = { "test_mixer_lines_in_blocks_give_each_line_its_own_result" },
  designed_against = "an offset written for lines where the buffer is laid out by positions",
  why = "each block of lines past the first writes its dx at the row of its first line, not of its first position (the driver the gru and lstm share)",
}

mutant {
  name = "recurrence-blocks-skip-a-line",
  file = "core/mixer.c",
  find = "\t*l1 = (b + 1) * lines / n;",
  replace = "\t*l1 = (b + 1) * lines / n - 1;",
  guards = { "test_mixer_lines_in_blocks_give_each_line_its_own_result" },
  designed_against = "a blocked loop whose block ends and the next block's start disagree: a line between two blocks never runs",
  why = "the last line of each gru or lstm block never gets its gates, states, y or dx",
}

mutant {
  name = "recurrence-slot-rows-of-the-smallest-block",
  file = "core/mixer.c",
  find = "\treturn (lines / n + (lines % n != 0)) * length; /* at most lines * length: no wrap */",
  replace = "\treturn lines / n * length; /* at most lines * length: no wrap */",
  guards = { "test_mixer_every_recurrence_block_fits_a_scratch_slot" },
  designed_against = "a buffer sized for the average share where the shares differ by one",
  why = "a slot holds the smaller blocks' rows: a larger block's scratch runs into the next slot, or past the last",
}

mutant {
  name = "gru-step-reads-w-where-it-wants-w-transposed",
  file = "core/mixer_gru.c",
  find = "length * h, w->r.wt, 3 * h,",
  replace = "length * h, td_mixer_slab_at(m, m->params, T_W), 3 * h,",
  guards = { "test_the_gru_matches_torch_nn_gru_forward_and_backward" },
  designed_against = "a weight kept in two layouts (as stored, and transposed for a product) where the product reads the wrong one: same size, so nothing faults",
  why = "every step's x_t W^T reads W's values in W^T's places",
}

mutant {
  name = "gru-step-projects-the-first-block-s-inputs",
  file = "core/mixer_gru.c",
  find = "w->r.x + (l0 * length + t) * h, length * h,",
  replace = "w->r.x + t * h, length * h,",
  guards = { "test_mixer_lines_in_blocks_give_each_line_its_own_result" },
  designed_against = "a loop split across blocks whose inner call still indexes from the start of the whole batch",
  why = "every block's gates are made from the first block's inputs",
}

mutant {
  name = "gru-step-reads-u-where-it-wants-u-transposed",
  file = "core/mixer_gru.c",
  find = "\tif ((err = td_gemm(w->gh + l0 * 3 * h, 3 * h, prev, length * h, w->r.ut, 3 * h, l1 - l0,",
  replace = "\tif ((err = td_gemm(w->gh + l0 * 3 * h, 3 * h, prev, length * h, td_mixer_slab_at(m, m->params, T_U), 3 * h, l1 - l0,",
  guards = { "test_the_gru_matches_torch_nn_gru_forward_and_backward" },
  designed_against = "a weight kept in two layouts (as stored, and transposed for a product) where the product reads the wrong one: same size, so nothing faults",
  why = "every step's h_{t-1} U^T reads U's values in U^T's places",
}

mutant {
  name = "lstm-step-reads-w-where-it-wants-w-transposed",
  file = "core/mixer_lstm.c",
  find = "length * h, w->r.wt, 4 * h,",
  replace = "length * h, td_mixer_slab_at(m, m->params, T_W), 4 * h,",
  guards = { "test_the_lstm_matches_torch_nn_lstm_forward_and_backward" },
  designed_against = "a weight kept in two layouts (as stored, and transposed for a product) where the product reads the wrong one: same size, so nothing faults",
  why = "every step's x_t W^T reads W's values in W^T's places",
}

mutant {
  name = "lstm-step-projects-the-first-block-s-inputs",
  file = "core/mixer_lstm.c",
  find = "const td_real *xt = w->r.x + (l0 * length + t) * h;",
  replace = "const td_real *xt = w->r.x + t * h;",
  guards = { "test_mixer_lines_in_blocks_give_each_line_its_own_result" },
  designed_against = "a loop split across blocks whose inner call still indexes from the start of the whole batch",
  why = "every block's gates are made from the first block's inputs",
}

mutant {
  name = "recurrence-saved-row-counts-the-line-from-the-batch-s-first",
  file = "core/mixer_int.h",
  find = "\treturn b0 * length + t * (b1 - b0) + (l - b0);",
  replace = "\treturn b0 * length + t * (b1 - b0) + l;",
  guards = { "test_mixer_lines_in_blocks_give_each_line_its_own_result" },
  designed_against = "an index into a block's own layout (here step-major) that counts the line from the whole batch's first",
  why = "every block but the first saves its rows shifted by its first line, over the next block's (the last one's past the gates), so blocks read each other's gates and states",
}

mutant {
  name = "lstm-dx-reads-the-gate-adjoints-unpadded",
  file = "core/mixer_rnn.c",
  find = "td_gemm(j->dx + b0 * length * h, h, sc->dgx, w->ld,",
  replace = "td_gemm(j->dx + b0 * length * h, h, sc->dgx, gh,",
  guards = { "test_the_lstm_matches_torch_nn_lstm_forward_and_backward" },
  designed_against = "a buffer whose rows are padded for speed, read by one of its users as if they were not",
  why = "where 4H is a multiple of 32 (the wide fixture's channels 8), dx reads each position's gate adjoints 16 values per row early",
}

mutant {
  name = "lstm-bias-sums-the-gate-adjoints-unpadded",
  file = "core/mixer_rnn.c",
  find = "\t\t\t\tdb[c] += sc->dgx[i * ld + c];",
  replace = "\t\t\t\tdb[c] += sc->dgx[i * gh + c];",
  guards = { "test_the_lstm_matches_torch_nn_lstm_forward_and_backward" },
  designed_against = "a buffer whose rows are padded for speed, read by one of its users as if they were not",
  why = "where 4H is a multiple of 32, db and dc sum the padded rows at the unpadded stride",
}

mutant {
  name = "lstm-workspace-without-the-adjoint-padding",
  file = "core/mixer_lstm.c",
  find = "err = td_mixer_size_muladd(&slots, rows, dg_ld(h, lines, length) + h, fixed,",
  replace = "err = td_mixer_size_muladd(&slots, rows, 5 * h, fixed,",
  guards = { "test_mixer_never_writes_past_the_workspace_it_asked_for" },
  designed_against = "the workspace a kind asks for must cover everything it carves (DEBUG.md #7's class)",
  why = "asks for 4H values per slot row of gate adjoints where the carving pads them to 4H + 16 (channels 8)",
}

mutant {
  name = "lstm-step-reads-u-where-it-wants-u-transposed",
  file = "core/mixer_lstm.c",
  find = "\t\t       length * h, w->r.ut, 4 * h, l1 - l0, 4 * h, h, &o);",
  replace = "\t\t       length * h, td_mixer_slab_at(m, m->params, T_U), 4 * h, l1 - l0, 4 * h, h, &o);",
  guards = { "test_the_lstm_matches_torch_nn_lstm_forward_and_backward" },
  designed_against = "a weight kept in two layouts (as stored, and transposed for a product) where the product reads the wrong one: same size, so nothing faults",
  why = "every step's h_{t-1} U^T reads U's values in U^T's places",
}

mutant {
  name = "lstm-backward-h-before-from-the-step-itself",
  file = "core/mixer_lstm.c",
  find = "\t\t\tconst td_real *restrict o = w->gates + r * 4 * h + 3 * h;",
  replace = "\t\t\tconst td_real *restrict o = w->gates + td_mixer_saved_at(l0, l1, length, l, t) * 4 * h + 3 * h;",
  guards = { "test_the_lstm_matches_torch_nn_lstm_forward_and_backward" },
  designed_against = "a value rebuilt in the backward from saved parts, one of them taken at the wrong step",
  why = "h_{t-1} is rebuilt as o_t tanh(s_{t-1}): dU pairs each step's adjoint with a state that never was",
}

mutant {
  name = "reals-alloc-on-16-byte-lines",
  file = "core/tensor.c",
  find = "\tconst size_t line = 64, most = (SIZE_MAX - line) / sizeof(td_real);",
  replace = "\tconst size_t line = 16, most = (SIZE_MAX - line) / sizeof(td_real);",
  guards = { "test_reals_are_cache_line_aligned_and_zero" },
  designed_against = "a workspace whose 32-byte vectors straddle cache lines: the same bits, silently slower",
  why = "the workspaces start where malloc would put them, 16 bytes past a line",
}

mutant {
  name = "reals-alloc-hands-out-old-bits",
  file = "core/tensor.c",
  find = "\tif ((p = aligned_alloc(line, bytes)))\n\t\tmemset(p, 0, bytes);",
  replace = "\tp = aligned_alloc(line, bytes);",
  guards = { "test_reals_are_cache_line_aligned_and_zero" },
  designed_against = "an allocation that replaced calloc and dropped its zero fill",
  why = "a workspace starts with whatever the heap held, where its callers' NaN checks expect zeros",
}

mutant {
  name = "gru-backward-scratch-at-the-line-s-own-row",
  file = "core/mixer_gru.c",
  find = "\t\tsize_t pos = l * length + t, q = (l - l0) * length + t;",
  replace = "\t\tsize_t pos = l * length + t, q = l * length + t;",
  guards = { "test_mixer_lines_in_blocks_give_each_line_its_own_result" },
  designed_against = "an index into a per-block scratch taken from the whole buffer's layout",
  why = "the blocks past the first write their gate adjoints beyond their slot, and their dx and gradients read the slot's stale rows",
}

mutant {
  name = "lstm-backward-scratch-at-the-line-s-own-row",
  file = "core/mixer_lstm.c",
  find = "\t\tsize_t q = (l - l0) * length + t;",
  replace = "\t\tsize_t q = l * length + t;",
  guards = { "test_mixer_lines_in_blocks_give_each_line_its_own_result" },
  designed_against = "an index into a per-block scratch taken from the whole buffer's layout",
  why = "the blocks past the first write their gate adjoints beyond their slot, and their dx and gradients read the slot's stale rows",
}

mutant {
  name = "recurrence-parts-skip-the-second-block",
  file = "core/mixer.c",
  find = "\tfor (size_t b = 1; b < n; b++)\n\t\tfor (size_t e = from; e < to; e++)",
  replace = "\tfor (size_t b = 2; b < n; b++)\n\t\tfor (size_t e = from; e < to; e++)",
  guards = { "test_mixer_lines_in_blocks_give_each_line_its_own_result" },
  designed_against = "per-block partial sums reduced by a loop that misses one of them",
  why = "the second block's weight and bias gradients never reach the slab",
}

mutant {
  name = "gru-block-grads-read-the-first-block-s-rows",
  file = "core/mixer_rnn.c",
  find = "j->w->x + p0 * h, sc->hp, p1 - p0, j->length);",
  replace = "j->w->x, sc->hp, p1 - p0, j->length);",
  guards = { "test_mixer_lines_in_blocks_give_each_line_its_own_result" },
  designed_against = "an offset applied to one operand of a per-block product and not the other",
  why = "every block's dW pairs its dgx with the first block's inputs (the driver the gru and lstm share)",
}

mutant {
  name = "lstm-backward-block-keeps-the-last-block-s-dh",
  file = "core/mixer_lstm.c",
  find = "\tmemset(w->r.carry + l0 * h, 0, (l1 - l0) * h * sizeof *w->r.carry);",
  replace = "\tmemset(w->r.carry, 0, (l1 - l0) * h * sizeof *w->r.carry);",
  guards = { "test_mixer_lines_in_blocks_give_each_line_its_own_result" },
  designed_against = "a per-block reset of state applied to the first block only",
  why = "the blocks past the first start their backward recurrence from whatever dh held, not from 0",
}

mutant {
  name = "attention-one-step-v-gradient-from-the-unwritten-dv",
  file = "core/mixer_attention.c",
  find = "\t\tfirst = 2, g = w.dctx, ld = c;",
  replace = "\t\tfirst = 2, g = w.dqkv + 2 * c;",
  guards = { "test_mixer_attention_one_step_takes_q_and_k_only_where_a_score_needs_them" },
  designed_against = "a buffer that one path leaves unwritten, read by another path that assumed it written",
  why = "the value path's backward takes dWv, dbv and dx from dv, which it no longer writes, instead of from do",
}

mutant {
  name = "attention-one-step-bound-scaled-like-the-score",
  file = "core/mixer_attention.c",
  find = "\tconst double d = (double)(m->o.channels / m->o.heads), qk = d * q * k * rounding_growth(m);",
  replace = "\tconst double d = (double)(m->o.channels / m->o.heads), qk = d * q * k * rounding_growth(m) / sqrt(d);",
  finding = 23,
  guards = { "test_mixer_attention_one_step_bound_covers_the_unscaled_score_and_each_q" },
  why = "the score's sum of q_e k_e is bounded after its scale of 1 / sqrt(d), so a sum that overflows takes the value path and its NaN never reaches y",
}

mutant {
  name = "attention-one-step-bound-without-q-and-k-alone",
  file = "core/mixer_attention.c",
  find = "\treturn q <= TD_REAL_MAX && k <= TD_REAL_MAX && qk <= TD_REAL_MAX; /* each false for a NaN */",
  replace = "\treturn qk <= TD_REAL_MAX;",
  finding = 23,
  guards = { "test_mixer_attention_one_step_bound_covers_the_unscaled_score_and_each_q" },
  why = "with every k 0 the product bound is 0, so a q that overflows (inf times 0: a NaN score) takes the value path",
}

mutant {
  name = "attention-one-step-o-taken-as-v-whatever-p",
  file = "core/mixer_attention.c",
  find = "\t\to[i] = 0 + *p * v[i];",
  replace = "\t\to[i] = v[i];",
  guards = { "test_mixer_attention_one_step_takes_q_and_k_only_where_a_score_needs_them" },
  designed_against = "a shortcut that is exact for finite values and hides a NaN: o is v only where p is 1",
  why = "on lines of one step o is v even where a NaN score made p NaN, so y and dWo stay finite",
}

mutant {
  name = "attention-one-step-ds-bound-ignores-dy",
  file = "core/mixer_attention.c",
  find = "\tdout = (double)max_abs(NULL, dy, p * c) * cols * rounding_growth(m);",
  replace = "\tdout = 0 * (double)max_abs(NULL, dy, p * c) + cols * rounding_growth(m);",
  guards = { "test_mixer_attention_one_step_backward_bound_covers_do_and_v" },
  designed_against = "an overflow bound taken from the weights alone: finite inputs can still overflow a product",
  why = "a dL/dy large enough to overflow do and dp is not in the bound, so the NaN ds it makes never reaches dWq and dWk",
}

mutant {
  name = "attention-one-step-ds-bound-ignores-v",
  file = "core/mixer_attention.c",
  find = "\treturn (double)(c / m->o.heads) * dout * (double)w->vmax[0] * rounding_growth(m) <=",
  replace = "\treturn (double)(c / m->o.heads) * dout * (0 * (double)w->vmax[0] + 1) * rounding_growth(m) <=",
  guards = { "test_mixer_attention_one_step_backward_bound_covers_do_and_v" },
  designed_against = "an overflow bound on a product that leaves one factor out",
  why = "a v large enough to overflow dp with a finite do is not in the bound, so the NaN ds it makes never reaches dWq and dWk",
}

mutant {
  name = "attention-ws-size-without-vmax",
  file = "core/mixer_attention.c",
  find = "\tif ((err = td_mixer_size_muladd(&scratch, n_workers(m, lines), per, 4 * c + 16,",
  replace = "\tif ((err = td_mixer_size_muladd(&scratch, n_workers(m, lines), per, 4 * c + 15,",
  guards = { "test_mixer_never_writes_past_the_workspace_it_asked_for" },
  designed_against = "a value added to a carved layout but not to the size that pays for it",
  why = "the workspace size pays for 15 of the 16 values that hold the forward's saved bound on |v| and pad the scratch onto a line, so the last worker's scratch runs one value past it",
}
