-- mutations/harness/capture.lua: the mutants of harness/capture.c, a
-- child's output read from a pipe and bounded (capture.h).
--
-- Each entry re-introduces one bug class into the module and names the tests
-- that must notice; every name starts with "capture-". Format:
-- harness/catalogue.h; layout, naming and listing: mutations/README.md.

mutant {
  name = "capture-no-limit",
  file = "harness/capture.c",
  find = "\tif (c->seen < c->limit)\n",
  replace = "\tif (1)\n",
  guards = { "test_output_past_the_limit_is_cut_counted_and_its_tail_kept",
             "test_a_small_output_limit_is_honoured" },
  designed_against = "a mutant that prints gigabytes must not fill the disk",
  why = "writes every byte of the output to its file",
}

mutant {
  name = "capture-tail-dropped",
  file = "harness/capture.c",
  find = "\t\tif (c->tail) {\n\t\t\tput(",
  replace = "\t\tif (0) {\n\t\t\tput(",
  guards = { "test_output_past_the_limit_is_cut_counted_and_its_tail_kept" },
  designed_against = "a runner's verdict at the end of a long output must still be read",
  why = "keeps the head of a cut output but not its end",
}
