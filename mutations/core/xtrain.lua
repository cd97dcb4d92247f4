-- mutations/core/xtrain.lua: the mutants of core/xtrain.c, training steps
-- on an executor (see xtrain.h), checked on the host's executor against the
-- CPU run, whole run directories byte for byte (tests/test_xtrain.c).
--
-- Each entry re-introduces one bug class into the module and names the tests
-- that must notice; every name starts with "xtrain-". Format:
-- harness/catalogue.h; layout, naming and listing: mutations/README.md.

mutant {
  name = "xtrain-skips-not-counted",
  file = "core/xtrain.c",
  find = "if ((err = count_skips(&st, xt->read_s, c)))",
  replace = "if (0 && (err = count_skips(&st, xt->read_s, c)))",
  guards = { "test_skipped_steps_are_counted_as_the_cpu_counts_them" },
  designed_against = "a step the GPU's firewall skipped must be counted with its reason, as the CPU's is",
  why = "skips steps on the device and never says so",
}

mutant {
  name = "xtrain-firewall-told-every-step-applied",
  file = "core/xtrain.c",
  find = "td_firewall_step(fw, s + 1, s - xt->read_s >= st.unread);",
  replace = "td_firewall_step(fw, s + 1, 1);",
  guards = { "test_the_firewall_stops_a_run_with_no_finite_step_as_on_the_cpu" },
  designed_against = "a GPU run whose every gradient is NaN must stop as the CPU run does",
  why = "lets a run whose weights never move train on to the end",
}

mutant {
  name = "xtrain-moments-not-loaded",
  file = "core/xtrain.c",
  find = "(err = xt->x->upload(xt->x, xt->m, td_adamw_m(opt), bytes)) ||",
  replace = "",
  guards = { "test_a_run_resumed_on_the_executor_equals_the_whole_cpu_run" },
  designed_against = "a run resumed on the GPU must continue with the checkpoint's moments",
  why = "resumes with the first moment at zero",
}

mutant {
  name = "xtrain-rate-of-the-next-step",
  file = "core/xtrain.c",
  find = "td_adamw_lr(&xt->o, xt->s), xt->o.clip",
  replace = "td_adamw_lr(&xt->o, xt->s + 1), xt->o.clip",
  guards = { "test_the_host_executor_trains_the_cpu_run_bit_for_bit" },
  designed_against = "the GPU's step s must use the schedule's rate at s, counted on the host",
  why = "runs the schedule one step ahead",
}

mutant {
  name = "xtrain-evaluation-sums-into-training",
  file = "core/xtrain.c",
  find = "e->xent(e, xt->dy, xt->acc + (train ? 0 : 3),",
  replace = "e->xent(e, xt->dy, xt->acc,",
  guards = { "test_the_host_executor_trains_the_cpu_run_bit_for_bit" },
  designed_against = "an evaluation's loss must be its own, apart from the training window's",
  why = "adds the evaluation's losses to the training window and scores evaluations as 0",
}
