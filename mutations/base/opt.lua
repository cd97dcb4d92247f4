-- mutations/base/opt.lua: the mutants of base/opt.c, the table-driven option
-- parser and its generated usage (see opt.h).
--
-- Each entry re-introduces one bug class into the module and names the tests
-- that must notice; every name starts with "opt-". Format:
-- harness/catalogue.h; layout, naming and listing: mutations/README.md.

mutant {
  name = "opt-number-trailing-garbage-accepted",
  file = "base/opt.c",
  find = "return !*end && !errno;",
  replace = "return !errno;",
  guards = { "test_opt_a_number_is_read_in_full_and_range_checked_or_refused",
             "test_tdtrain_refuses_a_stop_after_that_is_not_a_whole_number" },
  finding = 30,
  why = "a number is read up to its first non-digit: --stop-after 10x stops after 10 steps, -j 4x runs 4 workers, without a word",
}

mutant {
  name = "opt-unknown-option-ignored",
  file = "base/opt.c",
  find = "if (!o)\n\t\treturn td_opt_error(cmd, \"unknown option '%s'\", word);",
  replace = "if (!o)\n\t\treturn 0;",
  guards = { "test_opt_an_unknown_option_or_a_stray_operand_is_refused" },
  designed_against = "a mistyped option must stop the command, not run it without what the user asked for",
  why = "an unknown option is skipped: --tiemout 5 runs with the default timeout",
}

mutant {
  name = "opt-option-given-twice-accepted",
  file = "base/opt.c",
  find = "if (seen[o - cmd->opts]++ && !o->repeatable)",
  replace = "if (seen[o - cmd->opts]++ && 0)",
  guards = { "test_a_value_option_given_twice_is_refused",
             "test_opt_an_option_given_twice_is_refused_unless_repeatable",
             "test_tdtrain_refuses_an_option_given_twice" },
  finding = 21,
  why = "an option given twice keeps its last value without a word",
}
