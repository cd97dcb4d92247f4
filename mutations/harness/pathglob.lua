-- mutations/harness/pathglob.lua: the mutants of harness/pathglob.c, the
-- repository's glob walker (see pathglob.h).
--
-- Each entry re-introduces one bug class into the module and names the tests
-- that must notice; every name starts with "pathglob-". Format:
-- harness/catalogue.h; layout, naming and listing: mutations/README.md.

mutant {
  name = "pathglob-generate-reads-a-directory",
  file = "harness/pathglob.c",
  find = "w->skips.dirs += (size_t)hit;",
  replace = "if (hit) err = td_strv_push(&w->found, sub);",
  guards = { "test_a_generate_glob_skips_directories" },
  finding = 47,
  why = "lists a directory a glob matched, which generate then reads as a file",
}
