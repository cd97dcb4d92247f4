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

mutant {
  name = "pathglob-glob-follows-a-link-out",
  file = "harness/pathglob.c",
  find = "if (link_inside(w, full, &is_dir))",
  replace = "if (link_inside(w, full, &is_dir) || !is_dir)",
  guards = { "test_glob_lists_nothing_through_a_link_out_of_the_repository" },
  finding = 71,
  why = "lists a file outside the repository that a link inside it points to",
}

mutant {
  name = "pathglob-glob-lists-a-directory",
  file = "harness/pathglob.c",
  find = "w->skips.dirs += (size_t)hit;",
  replace = "w->skips.dirs += (size_t)hit;\n\t\t\tif (hit)\n\t\t\t\terr = td_strv_push(&w->found, sub);",
  guards = { "test_glob_lists_no_directory_and_read_file_refuses_one_by_name" },
  finding = 71,
  why = "lists a directory a glob matched, for read_file to fail on",
}
