-- mutations/core/counters.lua: the mutants of core/counters.c, named counters
-- with their reasons, and the NaN firewall (see counters.h).
--
-- Each entry re-introduces one bug class into the module and names the tests
-- that must notice; every name starts with "counters-". Format:
-- harness/catalogue.h; layout, naming and listing: mutations/README.md.

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
  designed_against = "counters.why never reached the log line",
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
  designed_against = "the JSON row was built from the counts alone and dropped why",
  why = "writes an empty why list to the JSON log",
}

mutant {
  name = "counters-firewall-streak-not-reset",
  file = "core/counters.c",
  find = "fw->dead_in_row = 0;",
  replace = "",
  guards = { "test_a_finite_window_between_dead_ones_resets_the_streak" },
  designed_against = "only consecutive dead windows stop a run; a recovered run must not be killed later",
  why = "stops a run after two dead windows however far apart",
}

mutant {
  name = "counters-firewall-never-stops",
  file = "core/counters.c",
  find = "if (fw->dead_in_row >= 2)",
  replace = "if (0)",
  guards = { "test_two_windows_without_a_finite_step_stop_the_run_loudly" },
  designed_against = "a run that is entirely non-finite must stop loudly, not exit 0",
  why = "counts dead windows for ever and never stops the run",
}

mutant {
  name = "counters-formatted-reason-cut-before-its-mark",
  file = "core/counters.c",
  find = "char why[TD_COUNTER_WHY_MAX + 2];",
  replace = "char why[TD_COUNTER_WHY_MAX + 1];",
  guards = { "test_a_formatted_reason_is_cut_as_a_plain_one" },
  finding = 103,
  why = "vsnprintf cuts a long formatted reason before copy_why can mark it with ...",
}
