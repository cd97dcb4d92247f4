-- mutations/harness/report.lua: the mutants of harness/report.c, what a
-- mutation run prints and writes (summary, JSON, JUnit).
--
-- Each entry re-introduces one bug class into the module and names the tests
-- that must notice; every name starts with "report-". Format:
-- harness/catalogue.h; layout, naming and listing: mutations/README.md.

mutant {
  name = "report-files-in-name-order",
  file = "harness/report.c",
  find = "return sx < sy ? -1 : sx > sy ? 1 : strcmp(x->file, y->file);",
  replace = "return sx < sy ? 0 : strcmp(x->file, y->file);",
  guards = { "test_the_score_of_each_file_is_reported_worst_first" },
  designed_against = "a run over many files lists the score of each; in name order the files with the most survivors sink among the rest",
  why = "orders the files by name, not by score",
}

mutant {
  name = "report-files-at-100-listed",
  file = "harness/report.c",
  find = "} else if (n > 1 && !(!undefined && s == 100.0)) {",
  replace = "} else if (n > 1) {",
  guards = { "test_the_score_of_each_file_is_reported_worst_first" },
  designed_against = "the summary lists only the files below 100%, so that a run over a hundred files prints its holes, not a page of full scores",
  why = "lists every file, those at 100% too",
}
