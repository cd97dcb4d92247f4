-- mutations/core/jsonl.lua: the mutants of core/jsonl.c, the append-only
-- JSON-lines log (see jsonl.h).
--
-- Each entry re-introduces one bug class into the module and names the tests
-- that must notice; every name starts with "jsonl-". Format:
-- harness/catalogue.h; layout, naming and listing: mutations/README.md.

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
  name = "jsonl-null-not-counted",
  file = "core/jsonl.c",
  find = "if (!j->counters)",
  replace = "if (1)",
  guards = { "test_every_line_is_valid_json_even_with_nan_inf_and_control_bytes" },
  designed_against = "a value replaced by null without a counter is SILENT",
  why = "writes null for NaN without counting it",
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
  name = "jsonl-final-eval-not-logged",
  file = "core/jsonl.c",
  find = "return step % every == 0 || step == steps;",
  replace = "return step % every == 0;",
  guards = { "test_the_final_eval_is_written_like_every_other_eval",
             "test_log_due_marks_every_multiple_and_the_last_step" },
  designed_against = "the final eval was logged but never reached the JSON sink",
  why = "logs only at multiples of the cadence, so a final step off the cadence is never evaluated",
}
