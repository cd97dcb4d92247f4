-- mutations/harness/sanitize.lua: the mutants of harness/sanitize.c,
-- mutate --sanitize: the sanitizers' options, and their reports read as kills.
--
-- Each entry re-introduces one bug class into the module and names the tests
-- that must notice; every name starts with "sanitize-". Format:
-- harness/catalogue.h; layout, naming and listing: mutations/README.md.

mutant {
  name = "sanitize-leaks-not-checked",
  file = "harness/sanitize.c",
  find = "halt_on_error=1:detect_leaks=1:exitcode=",
  replace = "halt_on_error=1:detect_leaks=0:exitcode=",
  guards = { "test_sanitize_kills_a_leak_and_a_read_past_the_end_that_the_plain_run_misses" },
  designed_against = "under --sanitize a leak is a kill: a mutant that removes a free must not survive",
  why = "turns LeakSanitizer off, so a mutant that leaks survives the sanitized run as it does the plain one",
}

mutant {
  name = "sanitize-report-not-recognised",
  file = "harness/sanitize.c",
  find = "if (!found && report_line(p, len)) {",
  replace = "if (0 && !found && report_line(p, len)) {",
  guards = { "test_sanitize_kills_a_leak_and_a_read_past_the_end_that_the_plain_run_misses" },
  designed_against = "a kill by a sanitizer is recorded with the report's first lines, not a bare exit status",
  why = "never finds the report, so the kill's detail says only \"exit 86\"",
}
