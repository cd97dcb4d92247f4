-- mutations/harness/luapat.lua: the mutants of harness/luapat.c, Lua's
-- pattern matching with a budget.
--
-- Each entry re-introduces one bug class into the module and names the tests
-- that must notice; every name starts with "luapat-". Format:
-- harness/catalogue.h; layout, naming and listing: mutations/README.md.

mutant {
  name = "luapat-steps-not-charged",
  file = "harness/luapat.c",
  find = "if (l_unlikely(++ms->steps % TD_STEPS == 0)) td_lua_charge(ms->L, TD_STEPS);",
  replace = "++ms->steps;",
  guards = { "test_a_pattern_that_backtracks_without_end_is_stopped" },
  designed_against = "a pattern that backtracks without end must not hang tdaudit",
  why = "runs the matcher with no budget, as Lua's own does",
}

mutant {
  name = "luapat-stock-functions-kept",
  file = "harness/luapat.c",
  find = "\tluaL_setfuncs(L, fns, 0);\n",
  replace = "\t(void)fns;\n",
  guards = { "test_a_pattern_that_backtracks_without_end_is_stopped" },
  designed_against = "a pattern that backtracks without end must not hang tdaudit",
  why = "leaves Lua's unbudgeted string.find, match, gmatch and gsub in place",
}
