-- mutations/harness/scratch.lua: the mutants of harness/scratch.c, the warm
-- scratch copies mutate's workers build in, synced from the working tree.
--
-- Each entry re-introduces one bug class into the module and names the tests
-- that must notice; every name starts with "scratch-". Format:
-- harness/catalogue.h; layout, naming and listing: mutations/README.md.

mutant {
  name = "scratch-prune-with-the-shared-cursor",
  file = "harness/scratch.c",
  find = "for (char *line = strtok_r(old, \"\\n\", &save); line;",
  replace = "for (char *line = ((void)save, strtok(old, \"\\n\")); line;",
  guards = { "test_no_harness_source_calls_strtok" },
  finding = 35,
  why = "walks the manifest with strtok's process-wide cursor while other workers walk theirs",
}
