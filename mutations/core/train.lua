-- mutations/core/train.lua: the mutants of core/train.c, the training loop
-- (see train.h).
--
-- Each entry re-introduces one bug class into the module and names the tests
-- that must notice; every name starts with "train-". Format:
-- harness/catalogue.h; layout, naming and listing: mutations/README.md.

mutant {
  name = "train-bidirectional-without-effect-accepted",
  file = "core/train.c",
  find = "if (!strcmp(t->plan, \"cyclic\") && t->bidir && t->layers < 4 &&",
  replace = "if (!strcmp(t->plan, \"cyclic\") && t->bidir && t->layers < 0 &&",
  guards = { "test_keys_this_version_cannot_honour_are_refused" },
  finding = 12,
  why = "accepts bidirectional = true when no layer can run backward",
}

mutant {
  name = "train-example-mask-not-loaded",
  file = "core/train.c",
  find = "memcpy(mask, ex->mask, t->n_cells);",
  replace = "(void)0;",
  guards = { "test_a_task_with_absent_cells_per_example_trains" },
  designed_against = "an example's absent cells must come from the example, not a stale buffer",
  why = "leaves every cell absent: the logits stay exactly 0",
}

mutant {
  name = "train-lstm-built-as-conv",
  file = "core/train.c",
  find = "!strcmp(t->mixer, \"lstm\")",
  replace = "0",
  guards = { "test_every_built_mixer_and_family_trains" },
  designed_against = "a config choice must build what it names, not fall through to another mixer",
  why = "trains mixer = lstm as a conv",
}

mutant {
  name = "train-init-not-seeded",
  file = "core/train.c",
  find = "td_model_init(t->model, (uint64_t)t->seed);",
  replace = "td_model_init(t->model, 1);",
  guards = { "test_different_seeds_give_different_initial_weights" },
  designed_against = "a seed that does not fix the initial weights is not a property of the run",
  why = "initialises every run's weights from seed 1",
}

mutant {
  name = "train-logits-averaged-over-the-lattice-not-the-example",
  file = "core/train.c",
  find = "np += present[i] != 0;",
  replace = "np++;",
  guards = { "test_the_loss_averages_over_the_cells_present_in_the_example" },
  designed_against = "a mean over present cells must count the example's own present cells",
  why = "divides by every lattice cell, absent ones included",
}

mutant {
  name = "train-eval-not-rewound",
  file = "core/train.c",
  find = "uint64_t total = (uint64_t)(t->eval_batches * t->batch), i = 0;",
  replace = "uint64_t total = (uint64_t)(t->eval_batches * t->batch), i = (uint64_t)(t->x[0] != 0);",
  guards = { "test_the_final_eval_is_logged_and_scores_what_eval_scores" },
  designed_against = "two evaluations of the same weights must score the same examples",
  why = "starts an evaluation at an example that depends on what ran before it",
}

mutant {
  name = "train-resume-ignores-the-config",
  file = "core/train.c",
  find = "err = td_config_check_resume(t->cfg, td_checkpoint_get(ck)->config_text, path);",
  replace = "err = 0;",
  guards = { "test_a_corrupt_checkpoint_is_refused_on_resume" },
  designed_against = "resuming under another config is a run no config describes",
  why = "resumes with lr = 0.5 a run written with the default",
}

mutant {
  name = "train-resume-drops-the-optimizer",
  file = "core/train.c",
  find = "err = td_adamw_import(t->opt, d->optimizer, d->optimizer_len);",
  replace = "err = d->optimizer_len ? 0 : 1;",
  guards = { "test_a_resumed_run_equals_the_uninterrupted_run_bitwise" },
  designed_against = "a resume that restores the weights but not the moments drifts from the run it continues",
  why = "resumes with fresh optimizer moments",
}

mutant {
  name = "train-progress-reports-the-last-batch",
  file = "core/train.c",
  find = "err = window_figures(t, window, since, &loss, &lr, &norm);",
  replace = "err = window_figures(t, loss * (double)since, since, &loss, &lr, &norm);",
  guards = { "test_a_progress_line_reports_the_mean_loss_of_its_window" },
  designed_against = "a progress loss must describe the steps it summarises, not the last batch",
  why = "prints the last step's batch loss as the window's",
}

mutant {
  name = "train-checkpoints-not-logged",
  file = "core/train.c",
  find = "err = save_logged(t, log, ckpt, done);",
  replace = "err = save(t, ckpt, done);",
  guards = { "test_every_config_key_changes_the_run_or_is_refused" },
  designed_against = "a config key whose effect leaves no trace in the run cannot be told from one that does nothing",
  why = "writes periodic checkpoints without saying so in the log",
}

mutant {
  name = "train-final-eval-not-logged",
  file = "core/train.c",
  find = "if (!err && end == t->steps)",
  replace = "if (0)",
  guards = { "test_the_final_eval_is_logged_and_scores_what_eval_scores" },
  designed_against = "the number a run reports must be in its log like every other eval",
  why = "prints nothing for the final evaluation",
}

mutant {
  name = "train-config-not-written",
  file = "core/train.c",
  find = "err = td_config_write(cfg, path);",
  replace = "err = path[0] ? 0 : 1;",
  guards = { "test_the_resolved_config_is_written_beside_the_run" },
  designed_against = "a run without its resolved config cannot be reproduced",
  why = "never writes config.txt",
}

-- The run audits' own mutants (audits/, docs/audit.md): each re-introduces
-- into tdtrain the defect one audit exists to catch, and that audit alone
-- is its guard ("audit:NAME": tdaudit mutate runs the audit in the
-- mutant's scratch tree, against the tdtrain built there).

mutant {
  name = "train-init-from-an-unseeded-source",
  file = "core/train.c",
  find = "td_model_init(t->model, (uint64_t)t->seed);",
  replace = "{ struct timespec ts_; clock_gettime(CLOCK_MONOTONIC, &ts_); "
    .. "td_model_init(t->model, (uint64_t)ts_.tv_nsec); }",
  guards = { "audit:seed" },
  designed_against = "a seed that does not fix the initial weights is not a property of the run",
  why = "draws the initial weights from the clock: two runs with one seed start apart",
}

mutant {
  name = "train-eval-drawn-from-the-training-range",
  file = "core/train.c",
  find = "index = (eval ? t->eval_range.first : t->train_range.first) + i;",
  replace = "index = (eval ? t->train_range.first : t->train_range.first) + i;",
  guards = { "audit:overlap" },
  designed_against = "an evaluation must never score the examples the model was trained on",
  why = "reads the evaluation set from the start of the training generator, past the split check",
}

mutant {
  name = "train-weight-decay-read-and-ignored",
  file = "core/train.c",
  find = "o.weight_decay = t->wd,",
  replace = "o.weight_decay = 0.01,",
  guards = { "audit:config" },
  designed_against = "a config key that is accepted must reach the code it names",
  why = "reads weight_decay and hands the optimizer the default whatever it says",
}

mutant {
  name = "train-eval-continues-after-the-last",
  file = "core/train.c",
  find = "uint64_t total = (uint64_t)(t->eval_batches * t->batch), i = 0;",
  replace = "uint64_t total = (uint64_t)(t->eval_batches * t->batch), "
    .. "i = (uint64_t)t->evaluated * (uint64_t)t->batch;",
  guards = { "audit:eval" },
  designed_against = "two evaluations of the same weights must score the same examples",
  why = "starts every evaluation after the first one batch in, so the run's last differs from a fresh one",
}

mutant {
  name = "train-resume-leaves-the-moments-behind",
  file = "core/train.c",
  find = "err = td_adamw_import(t->opt, d->optimizer, d->optimizer_len);",
  replace = "err = 0;",
  guards = { "audit:resume" },
  designed_against = "a resume must restore everything the step depends on, not the weights alone",
  why = "resumes with fresh optimizer moments and step count",
}

mutant {
  name = "train-progress-line-without-its-counters",
  file = "core/train.c",
  find = "t->shown.len ? t->shown.s : \"\");",
  replace = "\"\");",
  guards = { "audit:counters" },
  designed_against = "a counter's reason must reach the text output as well as the JSON log",
  why = "prints progress lines without the counters, which the JSON line carries",
}

mutant {
  name = "train-counted-reason-printed-before-it-is-counted",
  file = "core/train.c",
  -- the text line before the JSON line, and no counters line at the end
  find = [==[
	int err = td_jsonl_step(log, step, loss, lr, norm, t->ctr);

	if (!quiet) {
		td_json_buf_clear(&t->shown);
		td_counters_line(&t->shown, t->ctr);
		printf("step %lld/%lld  loss %.4f  %.0f ex/s  eta %.0fs%s%s\n", (long long)step,
		       (long long)t->steps, loss, (double)t->batch / per,
		       per * (double)(t->steps - step), t->shown.len ? "  " : "",
		       t->shown.len ? t->shown.s : "");
	}
	return err;
}

/*
 * The counters once more at the end of the run when they changed after the
 * last progress line (an evaluation, the last lines): every reason the
 * JSON log holds reaches the text output too.
 */
static void counters_tail(trainer *t, int quiet)
{
	td_json_buf line = TD_JSON_BUF_INIT;

	td_counters_line(&line, t->ctr);
	if (!quiet && line.len && (!t->shown.s || strcmp(line.s, t->shown.s)))
		printf("counters  %s\n", line.s);
	td_json_buf_free(&line);
}
]==],
  replace = [==[
	int err = 0;

	if (!quiet) {
		td_json_buf_clear(&t->shown);
		td_counters_line(&t->shown, t->ctr);
		printf("step %lld/%lld  loss %.4f  %.0f ex/s  eta %.0fs%s%s\n", (long long)step,
		       (long long)t->steps, loss, (double)t->batch / per,
		       per * (double)(t->steps - step), t->shown.len ? "  " : "",
		       t->shown.len ? t->shown.s : "");
	}
	return err ? err : td_jsonl_step(log, step, loss, lr, norm, t->ctr);
}

/*
 * The counters once more at the end of the run when they changed after the
 * last progress line (an evaluation, the last lines): every reason the
 * JSON log holds reaches the text output too.
 */
static void counters_tail(trainer *t, int quiet)
{
	td_json_buf line = TD_JSON_BUF_INIT;

	td_counters_line(&line, t->ctr);
	if (quiet < 0) /* never */
		printf("counters  %s\n", line.s);
	td_json_buf_free(&line);
}
]==],
  guards = { "test_every_counted_reason_reaches_the_text_output" },
  finding = 38,
  why = "prints a progress line before its JSON line counts, and never again",
}

mutant {
  name = "train-eval-read-from-a-constant",
  file = "core/train.c",
  find = "index = (eval ? t->eval_range.first : t->train_range.first) + i;",
  replace = "index = (eval ? TD_SYNTH_EVAL_FIRST : 0) + i;",
  guards = { "audit:overlap" },
  finding = 39,
  why = "reads the evaluation at a constant instead of the range the split check checked",
  equivalent = "td_synth_ranges returns exactly these values today: the defect is latent, "
    .. "and train-eval-drawn-from-the-training-range is what it would let through",
}

mutant {
  name = "train-firewall-told-steps-from-zero",
  file = "core/train.c",
  find = "td_firewall_step(&t->fw, step + 1, applied);",
  replace = "td_firewall_step(&t->fw, step, applied);",
  guards = { "test_the_firewall_names_the_windows_it_stopped_on_by_their_steps" },
  finding = 99,
  why = "names each window without a finite step from the step before it began",
}

mutant {
  name = "train-device-window-sum-kept",
  file = "core/train.c",
  find = "return td_xtrain_zero_sums(t->xt, 1);",
  replace = "return 0;",
  guards = { "test_the_host_executor_trains_the_cpu_run_bit_for_bit" },
  designed_against = "a progress line on the GPU must average its own window's steps",
  why = "adds every earlier window's losses to each progress line",
}
