-- mutations/core/norm.lua: the mutants of core/norm.c, RMSNorm forward and
-- backward (see norm.h).
--
-- Each entry re-introduces one bug class into the module and names the tests
-- that must notice; every name starts with "norm-". Format:
-- harness/catalogue.h; layout, naming and listing: mutations/README.md.

mutant {
  name = "norm-backward-sum-scaled-by-inv-squared",
  file = "core/norm.c",
  find = "cb[r - b0] = iv * iv * iv *",
  replace = "cb[r - b0] = iv * iv *",
  guards = { "test_rmsnorm_backward_matches_its_definition" },
  designed_against = "a chain-rule power dropped: inv depends on x too, and brings inv^3",
  why = "the backward's second term is off by a factor of inv",
}

mutant {
  name = "norm-rows-read-inv-by-range-offset",
  file = "core/norm.c",
  find = "const td_real ivr = j->inv_in[r];\n\t\t\tconst double iv",
  replace = "const td_real ivr = j->inv_in[r - r0];\n\t\t\tconst double iv",
  guards = { "test_a_model_gives_the_same_bits_for_any_thread_count" },
  designed_against = "a per-row value indexed from the start of the thread's range instead of the array's",
  why = "with several threads every range but the first normalises its dx with other rows' scales",
}

mutant {
  name = "norm-backward-block-takes-its-first-rows-c",
  file = "core/norm.c",
  find = "const double iv = (double)ivr, c = cb[r - b0];",
  replace = "const double iv = (double)ivr, c = cb[0];",
  guards = { "test_rmsnorm_backward_matches_its_definition" },
  designed_against = "a loop split in two passes over a block, the second reading the first's results by the wrong index",
  why = "every row of a block of 16 takes the first row's c: right for one row in 16",
}

mutant {
  name = "norm-residual-add-dropped",
  file = "core/norm.c",
  find = "dxr[k] = dxr[k] + (td_real)(iv",
  replace = "dxr[k] = 0 * dxr[k] + (td_real)(iv",
  guards = { "test_add_mode_adds_the_gradient_to_dx" },
  designed_against = "a fused residual path that overwrites the gradient it was to add to",
  why = "the model's backward loses every gradient that came down the residual stream",
}

mutant {
  name = "norm-gain-group-taken-whole-at-the-end",
  file = "core/norm.c",
  find = "n = j->width - k0 < GROUP ? j->width - k0 : GROUP;",
  replace = "n = GROUP;",
  guards = { "test_a_model_gives_the_same_bits_for_any_thread_count" },
  designed_against = "a short last block of channels treated as a whole one: reads past a row, writes past the block",
  why = "with several threads the last group of gain gradients reads the next row and adds past the gains",
}
