-- mutations/core/mixer_int.lua: the mutants of core/mixer_int.h, what the
-- mixer kinds share with mixer.c; not public.
--
-- Each entry re-introduces one bug class into the module and names the tests
-- that must notice; every name starts with "mixer_int-". Format:
-- harness/catalogue.h; layout, naming and listing: mutations/README.md.

mutant {
  name = "mixer_int-recurrence-saved-row-counts-the-line-from-the-batch-s-first",
  file = "core/mixer_int.h",
  find = "\treturn b0 * length + t * (b1 - b0) + (l - b0);",
  replace = "\treturn b0 * length + t * (b1 - b0) + l;",
  guards = { "test_mixer_lines_in_blocks_give_each_line_its_own_result" },
  designed_against = "an index into a block's own layout (here step-major) that counts the line from the whole batch's first",
  why = "every block but the first saves its rows shifted by its first line, over the next block's (the last one's past the gates), so blocks read each other's gates and states",
}
