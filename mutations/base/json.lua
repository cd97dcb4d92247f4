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

mutant {
  name = "json-bytes-that-are-not-utf8-written-raw",
  file = "base/json.c",
  find = [[td_json_put_raw(b, "\\ufffd"), n = 1;]],
  replace = [[put_bytes(b, p, 1), n = 1;]],
  guards = { "test_reports_are_valid_json_and_xml_whatever_the_catalogue_holds",
             "test_utf8_sequences_are_judged_as_the_standard_says" },
  finding = 43,
  why = "writes a byte that is not UTF-8 into a JSON string as it is: invalid JSON",
}

mutant {
  name = "json-overlong-forms-accepted",
  file = "base/json.c",
  find = "if (p[0] >= 0xc2 && p[0] <= 0xdf)",
  replace = "if (p[0] >= 0xc0 && p[0] <= 0xdf)",
  guards = { "test_utf8_sequences_are_judged_as_the_standard_says" },
  designed_against = "an overlong form is not UTF-8: a parser may refuse it or read it as another character",
  why = "passes C0 80 (an overlong NUL) through as valid UTF-8",
}
