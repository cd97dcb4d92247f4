-- mutations/core/mixer.lua: the mutants of core/mixer.c, the mixer object.
--
-- Each entry re-introduces one bug class into the module and names the tests
-- that must notice; every name starts with "mixer-". Format:
-- harness/catalogue.h; layout, naming and listing: mutations/README.md.

mutant {
  name = "mixer-shift-prev-ignores-reverse",
  file = "core/mixer.c",
  find = "before = reverse ? t + 1 : t - 1;",
  replace = "before = t - 1;",
  guards = { "test_the_gru_matches_torch_nn_gru_forward_and_backward",
             "test_the_lstm_matches_torch_nn_lstm_forward_and_backward" },
  designed_against = "a reverse sweep's h_{t-1} is the next position, not the previous one",
  why = "the recurrent weight gradient of a reverse GRU or LSTM pairs each step with the wrong state",
}

mutant {
  name = "mixer-recurrence-blocks-skip-a-line",
  file = "core/mixer.c",
  find = "\t*l1 = (b + 1) * lines / n;",
  replace = "\t*l1 = (b + 1) * lines / n - 1;",
  guards = { "test_mixer_lines_in_blocks_give_each_line_its_own_result" },
  designed_against = "a blocked loop whose block ends and the next block's start disagree: a line between two blocks never runs",
  why = "the last line of each gru or lstm block never gets its gates, states, y or dx",
}

mutant {
  name = "mixer-recurrence-slot-rows-of-the-smallest-block",
  file = "core/mixer.c",
  find = "\treturn (lines / n + (lines % n != 0)) * length; /* at most lines * length: no wrap */",
  replace = "\treturn lines / n * length; /* at most lines * length: no wrap */",
  guards = { "test_mixer_every_recurrence_block_fits_a_scratch_slot" },
  designed_against = "a buffer sized for the average share where the shares differ by one",
  why = "a slot holds the smaller blocks' rows: a larger block's scratch runs into the next slot, or past the last",
}

mutant {
  name = "mixer-recurrence-du-skipped-beyond-one-step-lines",
  file = "core/mixer.c",
  find = "\treturn length > 1 ? td_gemm(part + m->tensor[tu].offset,",
  replace = "\treturn length > 64 ? td_gemm(part + m->tensor[tu].offset,",
  guards = { "test_the_gru_matches_torch_nn_gru_forward_and_backward",
             "test_the_lstm_matches_torch_nn_lstm_forward_and_backward" },
  designed_against = "a shortcut for a special shape (nothing to add on one-step lines) taken for shapes where it is wrong",
  why = "the gru's and lstm's dU is never summed on ordinary lines: the parts' dU is whatever the workspace held",
}

mutant {
  name = "mixer-recurrence-parts-skip-the-second-block",
  file = "core/mixer.c",
  find = "for (size_t b = 1; b < n; b++)",
  replace = "for (size_t b = 2; b < n; b++)",
  guards = { "test_mixer_lines_in_blocks_give_each_line_its_own_result" },
  designed_against = "per-block partial sums reduced by a loop that misses one of them",
  why = "the second block's weight and bias gradients never reach the slab",
}

mutant {
  name = "mixer-block-parts-overwrite-the-gradient",
  file = "core/mixer.c",
  find = "\t\tgrads[e] += parts[e];",
  replace = "\t\tgrads[e] = parts[e];",
  guards = { "test_mixer_backward_adds_parameter_gradients_and_overwrites_dx" },
  designed_against = "backward must add to the parameter gradients: accumulation over micro-batches depends on it",
  why = "the gru and the lstm write their summed blocks' gradients with = instead of +=",
}

mutant {
  name = "mixer-lru-one-step-map-drops-d",
  file = "core/mixer.c",
  find = "acc[u] = diag && r == s0 + u ? (double)diag[r] : 0;",
  replace = "acc[u] = diag && r == s0 + u ? 0 * (double)diag[r] : 0;",
  guards = { "test_the_lru_matches_pytorch_forward_and_backward" },
  designed_against = "a fast path that folds two products into one map must keep every term of the slow one",
  why = "lines of one step take y = C B x and lose the skip path D x",
}

mutant {
  name = "mixer-lru-one-step-products-second-span-from-the-first",
  file = "core/mixer.c",
  find = "acc[u] += pv * (double)q.v[(s0 + u) * q.rs + t * q.ts];",
  replace = "acc[u] += pv * (double)q.v[u * q.rs + t * q.ts];",
  guards = { "test_the_lru_matches_pytorch_forward_and_backward" },
  designed_against = "a loop cut into spans must offset each span; a width within one span never shows it",
  why = "the one-step map's columns past the first 8 sum the first 8's products",
}

mutant {
  name = "mixer-one-step-products-subtract-adds",
  file = "core/mixer.c",
  find = "mode < 0 ? *o - (td_real)acc[u]",
  replace = "mode < 0 ? *o + (td_real)acc[u]",
  guards = { "test_the_complex_lru_matches_a_torch_complex_loop_forward_and_backward" },
  designed_against = "a mode flag whose third value nobody but one caller uses is where a sign goes missing",
  why = "td_mixer_products adds where it is asked to subtract: the complex LRU's one-step M and dB_im, dC_im",
}

mutant {
  name = "mixer-lru-one-step-dx-through-m-untransposed",
  file = "core/mixer.c",
  find = "o.trans_a = 0, o.trans_b = 1;",
  replace = "o.trans_a = 0, o.trans_b = 0;",
  guards = { "test_the_lru_matches_pytorch_forward_and_backward" },
  designed_against = "the adjoint of x M is dy M^T; a square M hides the missing transpose from every shape check",
  why = "lines of one step get dx = dy M instead of dy M^T",
}

mutant {
  name = "mixer-init-seed-ignored",
  file = "core/mixer.c",
  find = "td_rng_fill_normal(seed, stream + i, 0, n, r->a, r->b, v);",
  replace = "td_rng_fill_normal(1, stream + i, 0, n, r->a, r->b, v);",
  guards = { "test_mixer_initial_parameters_are_a_pure_function_of_the_seed" },
  designed_against = "initial weights must be a function of the seed: two seeds, two models",
  why = "draws every normal tensor with seed 1 whatever the seed",
}

mutant {
  name = "mixer-init-one-stream-for-every-tensor",
  file = "core/mixer.c",
  find = "td_rng_fill_normal(seed, stream + i, 0, n, r->a, r->b, v);",
  replace = "td_rng_fill_normal(seed, stream, 0, n, r->a, r->b, v);",
  guards = { "test_mixer_each_tensor_draws_from_its_own_stream" },
  designed_against = "two tensors drawn from one stream start identical (B = C), a symmetry training may never break",
  why = "draws every normal tensor from the same stream",
}

mutant {
  name = "mixer-ws-len-unchecked",
  file = "core/mixer.c",
  find = "if (ws_len < need)",
  replace = "if (0)",
  guards = { "test_mixer_bad_calls_are_refused_with_a_message" },
  designed_against = "a workspace smaller than td_mixer_ws_size is written past its end",
  why = "accepts a workspace one value too small",
}
