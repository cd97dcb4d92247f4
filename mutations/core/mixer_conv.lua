-- mutations/core/mixer_conv.lua: the mutants of core/mixer_conv.c, the causal
-- depthwise convolution.
--
-- Each entry re-introduces one bug class into the module and names the tests
-- that must notice; every name starts with "mixer_conv-". Format:
-- harness/catalogue.h; layout, naming and listing: mutations/README.md.
--
-- Gradient-only bugs (the bias gradient) are caught by the double-precision
-- gradcheck, which skips in the float build mutate uses, and have no entry
-- here; the PyTorch fixture tests (float too) catch some: the
-- mixer_conv-reference-* entries.

mutant {
  name = "mixer_conv-kernel-size-unchecked",
  file = "core/mixer_conv.c",
  find = "if (k == 0)",
  replace = "if (0)",
  guards = { "test_mixer_bad_options_are_refused_with_a_message" },
  designed_against = "a convolution with no tap is a mixer that outputs only its bias; refuse it naming kernel_size",
  why = "accepts kernel_size 0",
}

mutant {
  name = "mixer_conv-reverse-tap-past-the-line",
  file = "core/mixer_conv.c",
  find = "return off < length - t ? t + off : SIZE_MAX;",
  replace = "return off <= length - t ? t + off : SIZE_MAX;",
  guards = { "test_mixer_reverse_is_forward_of_the_flipped_line_flipped_back",
             "test_mixer_backward_adds_parameter_gradients_and_overwrites_dx" },
  designed_against = "a tap that falls off the end of the line must add nothing, not read the next line",
  why = "in reverse, reads one position past the end of the line",
}

mutant {
  name = "mixer_conv-reference-taps-anticausal",
  file = "core/mixer_conv.c",
  find = "return off <= t ? t - off : SIZE_MAX;",
  replace = "return off < length - t ? t + off : SIZE_MAX;",
  guards = { "test_the_conv_matches_pytorch_conv1d_forward_and_backward" },
  designed_against = "a causal convolution must read only the past",
  why = "reads the future in a forward sweep (the reverse sweep's taps)",
}

mutant {
  name = "mixer_conv-saves-every-range-at-the-start",
  file = "core/mixer_conv.c",
  find = "memcpy(j->ws + l0 * j->length * c, j->x + l0 * j->length * c,",
  replace = "memcpy(j->ws, j->x + l0 * j->length * c,",
  guards = { "test_mixer_results_are_bitwise_equal_for_any_thread_count",
             "test_a_model_gives_the_same_bits_for_any_thread_count" },
  designed_against = "a range of lines written where the whole call's data starts: right with one thread, wrong with several",
  why = "every thread saves its lines' input over the first range's, so the weight gradients read stale input for all but one range",
}

mutant {
  name = "mixer_conv-fused-first-tap-drops-the-bias",
  file = "core/mixer_conv.c",
  find = "yt[k] = bias[k] + w[k] * xt[k];",
  replace = "yt[k] = w[k] * xt[k] + 0 * bias[k];",
  guards = { "test_the_conv_matches_pytorch_conv1d_forward_and_backward" },
  designed_against = "an initialisation folded into the first term that loses what it used to start from",
  why = "the forward's first tap, taking the place of the bias copy, forgets the bias",
}

mutant {
  name = "mixer_conv-dx-drops-the-farthest-tap",
  file = "core/mixer_conv.c",
  find = "const size_t n = room / d + 1 < taps ? room / d + 1 : taps;",
  replace = "const size_t n = room / d < taps ? room / d : taps;",
  guards = { "test_mixer_conv_backward_is_its_sums_in_position_order",
             "test_the_conv_matches_pytorch_conv1d_forward_and_backward" },
  designed_against = "an off-by-one in how many taps reach a position from the room left on the line",
  why = "counts the taps that reach a position one short, dropping the farthest one's term",
}

mutant {
  name = "mixer_conv-dx-reverse-taps-in-forward-order",
  file = "core/mixer_conv.c",
  find = "\t*first = m->o.reverse ? n - 1 : 0;\n\t*step = m->o.reverse ? SIZE_MAX : 1;",
  replace = "\t*first = 0;\n\t*step = 1;",
  guards = { "test_mixer_conv_backward_is_its_sums_in_position_order" },
  designed_against = "a scatter rewritten as a gather that keeps the terms but not their order: ascending positions are descending taps in reverse",
  why = "a reverse conv's dx sums its taps ascending, where the positions that reach it come in descending tap order",
}

mutant {
  name = "mixer_conv-grad-sums-positions-backwards",
  file = "core/mixer_conv.c",
  find = "\tfor (size_t t = 0; t < n; t++)\n#pragma GCC unroll 4",
  replace = "\tfor (size_t t = n; t-- > 0;)\n#pragma GCC unroll 4",
  guards = { "test_mixer_conv_backward_is_its_sums_in_position_order" },
  designed_against = "a gradient loop restructured for speed that reorders a sum: right to rounding against PyTorch, other bits than the contract's order",
  why = "sums a line's positions from its end",
}

mutant {
  name = "mixer_conv-grad-reverse-reads-the-forward-rows",
  file = "core/mixer_conv.c",
  find = "dy = j->dy + (l * len + (m->o.reverse ? 0 : off)) * c;",
  replace = "dy = j->dy + (l * len + (m->o.reverse ? off : 0)) * c;",
  guards = { "test_mixer_conv_backward_is_its_sums_in_position_order",
             "test_the_conv_matches_pytorch_conv1d_forward_and_backward" },
  designed_against = "an offset written for one direction of a sweep and used for both",
  why = "a reverse conv pairs dy of position t + off with x of position t, the forward sweep's pairing",
}

mutant {
  name = "mixer_conv-grad-vectors-run-past-the-row",
  file = "core/mixer_conv.c",
  find = "\tfor (; k + LANES <= c; k += LANES)\n\t\trow_vectors",
  replace = "\tfor (; k < c; k += LANES)\n\t\trow_vectors",
  guards = { "test_mixer_conv_backward_is_its_sums_in_position_order" },
  designed_against = "a short last block of channels treated as a whole one: reads past a row, writes past the block",
  why = "the last channels' sums take a whole vector, reading the next row and adding into the next tap's sums",
}
