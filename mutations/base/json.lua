-- mutations/base/json.lua: the mutants of base/json.c, JSON text built in a
-- growable buffer (see json.h).
--
-- Each entry re-introduces one bug class into the module and names the tests
-- that must notice; every name starts with "json-". Format:
-- harness/catalogue.h; layout, naming and listing: mutations/README.md.

mutant {
  name = "json-nan-written-as-nan",
  file = "base/json.c",
  find = "if (!isfinite(v)) {",
  replace = "if (0) {",
  guards = { "test_every_line_is_valid_json_even_with_nan_inf_and_control_bytes" },
  designed_against = "printf's nan and inf are not JSON: one NaN loss makes the whole log unreadable to a parser",
  why = "prints a non-finite number with %g",
}
