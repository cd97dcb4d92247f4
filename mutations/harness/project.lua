-- mutations/harness/project.lua: the mutants of harness/project.c, loading
-- tdaudit.lua (see project.h).
--
-- Each entry re-introduces one bug class into the module and names the tests
-- that must notice; every name starts with "project-". Format:
-- harness/catalogue.h; layout, naming and listing: mutations/README.md.

mutant {
  name = "project-repeated-setting-accepted",
  file = "harness/project.c",
  find = "fail_at(L, \"%s is given twice; give it once\", what);",
  replace = "(void)0;",
  guards = { "test_a_malformed_config_is_refused_with_its_line" },
  designed_against = "a setting given twice means one of them is silently ignored",
  why = "accepts a setting given twice (and leaks the first)",
}

mutant {
  name = "project-nan-timeout-accepted",
  file = "harness/project.c",
  find = "if (!lua_isnumber(L, -1) || !isfinite(v = lua_tonumber(L, -1)) || v <= 0)",
  replace = "if (!lua_isnumber(L, -1) || (v = lua_tonumber(L, -1)) <= 0)",
  guards = { "test_a_timeout_that_is_not_a_finite_positive_number_is_refused" },
  finding = 33,
  why = "refuses only v <= 0, which NaN never is, so a NaN or infinite timeout turns every limit off",
}

mutant {
  name = "project-second-timeout-merged",
  file = "harness/project.c",
  find = "if (p->timeout_given++)",
  replace = "if (p->timeout_given++ < 0)",
  guards = { "test_a_timeout_given_twice_is_refused" },
  finding = 36,
  why = "lets a second timeout { } replace some fields of the first without a word",
}

mutant {
  name = "project-variant-env-limit-not-checked",
  file = "harness/project.c",
  find = "if (td_strv_len(v->env) == TD_VARIANT_ENV_MAX)",
  replace = "if (0)",
  guards = { "test_variants_that_are_malformed_are_refused_with_their_line" },
  designed_against = "an env of more variables than the jail holds accepted",
  why = "the variables past the jail's array are dropped silently",
}
