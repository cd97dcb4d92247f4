-- mutations/core/mixer_rnn.lua: the mutants of core/mixer_rnn.c, the block
-- driver the recurrences (mixer_gru.c, mixer_lstm.c) share.
--
-- Each entry re-introduces one bug class into the module and names the tests
-- that must notice; every name starts with "mixer_rnn-". Format:
-- harness/catalogue.h; layout, naming and listing: mutations/README.md.

mutant {
  name = "mixer_rnn-gru-block-input-saved-for-the-first-block-only",
  file = "core/mixer_rnn.c",
  find = "\t\tmemcpy(j->w->x + b0 * t * h, j->x + b0 * t * h, (b1 - b0) * t * h * sizeof *j->x);",
  replace = "\t\tmemcpy(j->w->x, j->x, (b1 - b0) * t * h * sizeof *j->x);",
  guards = { "test_mixer_lines_in_blocks_give_each_line_its_own_result" },
  designed_against = "a per-block step applied at the start of the buffer whatever the block",
  why = "every block saves its input over the first block's (in the driver the gru and lstm share), so the later blocks project what the workspace held",
}

mutant {
  name = "mixer_rnn-gru-block-grads-read-the-first-block-s-rows",
  file = "core/mixer_rnn.c",
  find = "j->w->x + p0 * h, sc->hp, p1 - p0, j->length);",
  replace = "j->w->x, sc->hp, p1 - p0, j->length);",
  guards = { "test_mixer_lines_in_blocks_give_each_line_its_own_result" },
  designed_against = "an offset applied to one operand of a per-block product and not the other",
  why = "every block's dW pairs its dgx with the first block's inputs (the driver the gru and lstm share)",
}

mutant {
  name = "mixer_rnn-lstm-bias-sums-the-gate-adjoints-unpadded",
  file = "core/mixer_rnn.c",
  find = "\t\t\t\tdb[c] += sc->dgx[i * ld + c];",
  replace = "\t\t\t\tdb[c] += sc->dgx[i * gh + c];",
  guards = { "test_the_lstm_matches_torch_nn_lstm_forward_and_backward" },
  designed_against = "a buffer whose rows are padded for speed, read by one of its users as if they were not",
  why = "where 4H is a multiple of 32, db and dc sum the padded rows at the unpadded stride",
}

mutant {
  name = "mixer_rnn-gru-block-dx-written-at-the-block-s-line",
  file = "core/mixer_rnn.c",
  find = "td_gemm(j->dx + b0 * length * h, h, sc->dgx, w->ld,",
  replace = "td_gemm(j->dx + b0 * h, h, sc->dgx, w->ld,",
  guards = { "test_mixer_lines_in_blocks_give_each_line_its_own_result" },
  designed_against = "an offset written for lines where the buffer is laid out by positions",
  why = "each block of lines past the first writes its dx at the row of its first line, not of its first position (the driver the gru and lstm share)",
}

mutant {
  name = "mixer_rnn-lstm-dx-reads-the-gate-adjoints-unpadded",
  file = "core/mixer_rnn.c",
  find = "td_gemm(j->dx + b0 * length * h, h, sc->dgx, w->ld,",
  replace = "td_gemm(j->dx + b0 * length * h, h, sc->dgx, gh,",
  guards = { "test_the_lstm_matches_torch_nn_lstm_forward_and_backward" },
  designed_against = "a buffer whose rows are padded for speed, read by one of its users as if they were not",
  why = "where 4H is a multiple of 32 (the wide fixture's channels 8), dx reads each position's gate adjoints 16 values per row early",
}
