-- mutations/harness/cmd_bisect.lua: the mutants of harness/cmd_bisect.c, the command line of
-- `tdaudit bisect` (see bisect.h).
--
-- Each entry re-introduces one bug class into the module and names the tests
-- that must notice; every name starts with "cmd_bisect-". Format:
-- harness/catalogue.h; layout, naming and listing: mutations/README.md.

mutant {
  name = "cmd_bisect-variant-bisect-keeps-the-last-status",
  file = "harness/cmd_bisect.c",
  find = "rc = one > rc ? one : rc;",
  replace = "rc = one;",
  guards = { "test_several_variants_run_mutate_and_bisect_once_each" },
  designed_against = "bisect over several variants exiting with the last search's status",
  why = "a failed search under one variant reads as success",
}
