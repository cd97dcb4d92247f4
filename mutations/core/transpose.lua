-- mutations/core/transpose.lua: the mutants of core/transpose.c, see
-- transpose.h.
--
-- Each entry re-introduces one bug class into the module and names the tests
-- that must notice; every name starts with "transpose-". Format:
-- harness/catalogue.h; layout, naming and listing: mutations/README.md.

mutant {
  name = "transpose-first-shuffle-pairs-the-wrong-columns",
  file = "core/transpose.c",
  find = "#define LO1 0, 8, 1, 9, 4, 12, 5, 13",
  replace = "#define LO1 0, 8, 1, 9, 2, 10, 3, 11",
  guards = { "test_transpose_matches_its_definition_for_every_shape" },
  designed_against = "a shuffle mask that moves plausible values to the wrong lanes: no value is lost, only misplaced",
  why = "the first interleave takes columns 2 and 3 where 4 and 5 belong: whole blocks come out scrambled",
}

mutant {
  name = "transpose-blocks-stop-one-block-short",
  file = "core/transpose.c",
  find = "for (size_t r = 0; r < r8; r += 8)",
  replace = "for (size_t r = 0; r + 8 < r8; r += 8)",
  guards = { "test_transpose_matches_its_definition_for_every_shape" },
  designed_against = "an off-by-one-block bound on a blocked loop",
  why = "the last whole block of rows is never transposed (from 16 rows on)",
}

mutant {
  name = "transpose-edges-skip-the-rows-below-the-blocks",
  file = "core/transpose.c",
  find = "for (size_t c = r < r8 ? c8 : 0; c < cols; c++)",
  replace = "for (size_t c = c8; c < cols; c++)",
  guards = { "test_transpose_matches_its_definition_for_every_shape" },
  designed_against = "a blocked loop whose remainder covers one edge of the block grid but not the other",
  why = "the rows past the last whole block keep their first c8 columns untransposed",
}
