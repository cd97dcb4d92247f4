-- mutations/core/adamw.lua: the mutants of core/adamw.c, AdamW with schedule,
-- clipping and the NaN firewall (see adamw.h).
--
-- Each entry re-introduces one bug class into the module and names the tests
-- that must notice; every name starts with "adamw-". Format:
-- harness/catalogue.h; layout, naming and listing: mutations/README.md.

mutant {
  name = "adamw-skip-not-counted",
  file = "core/adamw.c",
  find = "if (!c)",
  replace = "if (c)",
  guards = { "test_a_non_finite_gradient_skips_the_step_and_leaves_params_and_moments_bitwise" },
  designed_against = "a skip that is not counted with its reason is SILENT",
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
  name = "adamw-firewall-off",
  file = "core/adamw.c",
  find = "if (!isfinite(norm)) {",
  replace = "if (0) {",
  guards = { "test_a_non_finite_gradient_skips_the_step_and_leaves_params_and_moments_bitwise",
             "test_two_windows_without_a_finite_step_stop_the_run_loudly" },
  designed_against = "a NaN step applied to the weights poisons every later step; the firewall must skip it",
  why = "applies a step whose gradient norm is NaN or inf",
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
  name = "adamw-resume-drops-schedule-step",
  file = "core/adamw.c",
  find = "	a->s = (int64_t)get_u64(p + 24);",
  replace = "",
  guards = { "test_export_import_then_k_steps_equals_the_uninterrupted_run_bitwise" },
  designed_against = "a resumed run must continue the learning-rate schedule, not restart its warm-up",
  why = "restores the moments but restarts the schedule at step 0",
}

mutant {
  name = "adamw-resume-drops-second-moment",
  file = "core/adamw.c",
  find = "	get_reals(a->v, p + STATE_HEADER",
  replace = "	if (0) get_reals(a->v, p + STATE_HEADER",
  guards = { "test_export_import_then_k_steps_equals_the_uninterrupted_run_bitwise",
             "test_resuming_from_a_checkpoint_equals_the_uninterrupted_run_bitwise" },
  designed_against = "a resume that restores some state and resets the rest is a different run under the same step count",
  why = "imports the first moment but leaves the second at zero",
}

mutant {
  name = "adamw-skip-reason-swaps-nan-and-inf",
  file = "core/adamw.c",
  find = "return td_adamw_count_skip(c, a->s, i < a->n ? i : SIZE_MAX, i < a->n && isnan(g[i]),",
  replace = "return td_adamw_count_skip(c, a->s, i < a->n ? i : SIZE_MAX, i < a->n && isinf(g[i]),",
  guards = { "test_a_non_finite_gradient_skips_the_step_and_leaves_params_and_moments_bitwise" },
  designed_against = "a classification inverted at its edge: an infinity reported as a NaN",
  why = "the skip's reason names the wrong kind of value, sending its reader after the wrong bug",
}
