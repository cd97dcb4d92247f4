-- mutations/base/error.lua: the mutants of base/error.c and base/error.h,
-- per-thread last-error message (see error.h).
--
-- Each entry re-introduces one bug class into the module and names the tests
-- that must notice; every name starts with "error-". Format:
-- harness/catalogue.h; layout, naming and listing: mutations/README.md.

mutant {
  name = "error-origin-unplaced",
  file = "base/error.c",
  find = [[snprintf(last_origin, sizeof last_origin, "%s: %s", file, func);]],
  replace = [[snprintf(last_origin, sizeof last_origin, "%.0s%.0s", file, func);]],
  guards = { "test_the_origin_of_a_failure_names_file_and_function" },
  designed_against = "a developer must be able to learn where a failure was raised",
  why = "drops the file and function from every failure's origin",
}

mutant {
  name = "error-message-opens-with-its-origin",
  file = "base/error.c",
  find = [[vsnprintf(last_msg, sizeof last_msg, fmt, ap);]],
  replace = [[vsnprintf(last_msg + strlen(strcpy(last_msg, last_origin)), sizeof last_msg - strlen(last_origin), fmt, ap);]],
  guards = { "test_a_message_is_what_was_formatted" },
  finding = 48,
  why = "opens every message a user reads with the source file and function that raised it",
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
  find = "__func__, __LINE__, #expr);",
  replace = "__func__, __LINE__, \"?\");",
  guards = { "test_a_broken_requirement_returns_einval_naming_expression_and_line" },
  designed_against = "a failed check must say which check failed, or nobody can act on it",
  why = "a broken TD_REQUIRE's message no longer names the expression",
}
