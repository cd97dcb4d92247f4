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
  file = "core/jsonl.c",
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
