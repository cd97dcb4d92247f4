-- mutations/core/xmodel.lua: the mutants of core/xmodel.c, the model an
-- executor computes (see xmodel.h), checked on the host's executor against
-- the core.
--
-- Each entry re-introduces one bug class into the module and names the tests
-- that must notice; every name starts with "xmodel-". Format:
-- harness/catalogue.h; layout, naming and listing: mutations/README.md.

mutant {
  name = "xmodel-residual-add-drops-the-block",
  file = "core/xmodel.c",
  find = "(err = sel(xm, mid, h, xm->u, r, w)))",
  replace = "(err = sel(xm, mid, h, NULL, r, w)))",
  guards = { "test_the_host_executors_forward_gives_the_models_bits" },
  designed_against = "an orchestration step that passes the wrong operand to a fused kernel",
  why = "every layer's block output is lost from the residual stream",
}

mutant {
  name = "xmodel-next-norm-reads-this-layers-gain",
  file = "core/xmodel.c",
  find = "xm->params + xm->gain + next * w, r, w);",
  replace = "xm->params + xm->gain + (next - 1) * w, r, w);",
  guards = { "test_the_host_executors_forward_gives_the_models_bits" },
  designed_against = "a per-layer tensor read at the neighbouring layer's offset",
  why = "each layer after the first normalises with the previous layer's gain",
}

mutant {
  name = "xmodel-mlp-second-bias-from-the-first",
  file = "core/xmodel.c",
  find = "xm->w2 + lu * w * f, xm->b2 + lu * w)",
  replace = "xm->w2 + lu * w * f, xm->b1 + lu * f)",
  guards = { "test_the_host_executors_forward_gives_the_models_bits" },
  designed_against = "a slab offset taken from the wrong group of the host model's layout",
  why = "the MLP adds its first layer's bias where its second belongs",
}

mutant {
  name = "xmodel-attention-parts-over-the-whole-call",
  file = "core/xmodel.c",
  find = "nb = len > 1 ? td_mixer_blocks(nl, len) : 1;",
  replace = "nb = 1;",
  guards = { "test_the_host_executors_backward_gives_the_models_bits",
             "test_the_recurrences_run_in_block_cs_chunks_and_no_others" },
  designed_against = "a gradient summed in another grouping than the core's, equal in exact arithmetic",
  why = "attention's weight gradients are rounded once per call rather than once per block",
}

mutant {
  name = "xmodel-one-step-map-drops-the-diagonal",
  file = "core/xmodel.c",
  find = "pr + t[LRU_D], 0);",
  replace = "NULL, 0);",
  guards = { "test_lines_of_one_step_sum_the_gradient_in_the_cores_chunks" },
  designed_against = "a special case of the core (the LRU's map on lines of one step) rebuilt without one of its terms",
  why = "M loses D on its diagonal, so the skip path vanishes on lines of one step",
}

mutant {
  name = "xmodel-flatten-sequence-reversed",
  file = "core/xmodel.c",
  find = "memcpy(*fold, seq, *n * sizeof *seq);",
  replace = "for (size_t p = 0; p < *n; p++) (*fold)[p] = seq[*n - 1 - p];",
  guards = { "test_the_host_executors_forward_gives_the_models_bits" },
  designed_against = "a sequence order rebuilt on the device instead of read from the core's block",
  why = "the flatten mixer reads the cells in another order than the one it scatters back in",
}

mutant {
  name = "xmodel-kernel-time-axis-ignored",
  file = "core/xmodel.c",
  find = "td_block_family_of(b) == TD_BLOCK_KERNEL && td_lattice_time_axis(b->lat) < 0",
  replace = "td_block_family_of(b) == TD_BLOCK_KERNEL",
  guards = { "test_the_kernel_family_mixes_along_time_as_the_core_does" },
  designed_against = "a fallback for the common case (no time axis) taken where the lattice has one",
  why = "the kernel block's mixer runs on every cell alone instead of along time",
}

mutant {
  name = "xmodel-conv-gradient-summed-in-one-chunk",
  file = "core/xmodel.c",
  find = "xl->chunk = b->o.chunk > SIZE_MAX / most ? SIZE_MAX : b->o.chunk * most;",
  replace = "xl->chunk = SIZE_MAX;",
  guards = { "test_the_host_executors_backward_gives_the_models_bits" },
  designed_against = "a sum regrouped on the device: the core adds a gradient chunk by chunk",
  why = "the mixer's weight gradient takes its terms in another grouping, and the bits part from the core's",
}

mutant {
  name = "xmodel-mlp-backward-skips-the-relu",
  file = "core/xmodel.c",
  find = "(err = x->relu_backward(x, xm->dact, pre, r * f)) ||",
  replace = "",
  guards = { "test_the_host_executors_backward_gives_the_models_bits" },
  designed_against = "an activation's derivative left out of a hand-written backward",
  why = "gradient flows through units the ReLU switched off",
}

mutant {
  name = "xmodel-norm-backward-overwrites-the-residual-gradient",
  file = "core/xmodel.c",
  find = "xm->inv + (size_t)l * xm->rows, xm->params + go, r, w, 1)))",
  replace = "xm->inv + (size_t)l * xm->rows, xm->params + go, r, w, 0)))",
  guards = { "test_the_host_executors_backward_gives_the_models_bits" },
  designed_against = "a residual branch's gradient written over the skip path's instead of added to it",
  why = "the gradient through each layer's skip connection is lost",
}

mutant {
  name = "xmodel-lru-input-gradient-overwrites-the-weight-gradient",
  file = "core/xmodel.c",
  find = "(err = x->gemm(x, gr + xl->t[LRU_B], c, gc, n, xc, c, n, c, p, 1, 0, 1, 1)))",
  replace = "(err = x->gemm(x, gr + xl->t[LRU_B], c, gc, n, xc, c, n, c, p, 1, 0, 1, 0)))",
  guards = { "test_the_host_executors_backward_gives_the_models_bits" },
  designed_against = "a per-chunk gradient product written with beta 0 where it must accumulate",
  why = "each chunk's dB replaces the chunks before it and the layers' sums",
}

mutant {
  name = "xmodel-lru-adjoint-ignores-the-sweep-direction",
  file = "core/xmodel.c",
  find = "(err = x->lru_scan(x, gc, a, nl, len, n, xl->conv.reverse, 1)) ||",
  replace = "(err = x->lru_scan(x, gc, a, nl, len, n, 0, 1)) ||",
  guards = { "test_the_host_executors_backward_gives_the_models_bits" },
  designed_against = "an adjoint recurrence run in the forward's direction on a reversed sweep",
  why = "every backward layer's state gradient flows the wrong way along its lines",
}

mutant {
  name = "xmodel-clru-imaginary-output-added",
  file = "core/xmodel.c",
  find = "err = x->gemm(x, yc, c, hc + n, 2 * n, pr + t[CLRU_CIM], n, p, c, n, 0, 1, -1, 1);",
  replace = "err = x->gemm(x, yc, c, hc + n, 2 * n, pr + t[CLRU_CIM], n, p, c, n, 0, 1, 1, 1);",
  guards = { "test_the_host_executors_forward_gives_the_models_bits" },
  designed_against = "the real part of a complex product taken with the imaginary parts' product added, not subtracted",
  why = "y gains C_im h_im where Re(C h) takes it away",
}

mutant {
  name = "xmodel-clru-decay-gradients-swapped",
  file = "core/xmodel.c",
  find = "(err = x->clru_grads(x, gr + t[CLRU_NU], gr + t[CLRU_THETA], gr + t[CLRU_D], gc,",
  replace = "(err = x->clru_grads(x, gr + t[CLRU_THETA], gr + t[CLRU_NU], gr + t[CLRU_D], gc,",
  guards = { "test_the_host_executors_backward_gives_the_models_bits" },
  designed_against = "two gradients of neighbouring tensors of one shape written into each other's places",
  why = "the decay's magnitude learns from its phase's gradient and the phase from the magnitude's",
}

mutant {
  name = "xmodel-clru-input-gradient-without-the-imaginary-half",
  file = "core/xmodel.c",
  find = "err = x->gemm(x, dxc, c, gc + n, 2 * n, pr + t[CLRU_BIM], c, p, c, n, 0, 0, 1, 1);",
  replace = "err = 0;",
  guards = { "test_the_host_executors_backward_gives_the_models_bits" },
  designed_against = "a complex product's backward that keeps the real half's path and drops the imaginary one",
  why = "dx misses g_im B_im, the input's gradient through the states' imaginary parts",
}

mutant {
  name = "xmodel-recurrence-calls-a-line-longer-than-block-cs",
  file = "core/xmodel.c",
  find = "const size_t chunk = xm->layer[l].chunk;",
  replace = "const size_t chunk = xm->layer[l].chunk + 1;",
  guards = { "test_the_host_executors_backward_gives_the_models_bits" },
  designed_against = "a device path that groups a mixer's lines into calls other than the core's",
  why = "the GRU's and the LSTM's weight gradients are summed per call and per block of a call: other calls are another rounding",
}

mutant {
  name = "xmodel-gru-recurrent-bias-summed-from-the-input-adjoint",
  file = "core/xmodel.c",
  find = "err = x->bias_grad(x, part + t[RNN_C] - mx, dgh + p0 * gh, rows, gh);",
  replace = "err = x->bias_grad(x, part + t[RNN_C] - mx, dgx + p0 * gh, rows, gh);",
  guards = { "test_the_host_executors_backward_gives_the_models_bits" },
  designed_against = "the LSTM's shortcut (one adjoint for both biases) taken for the GRU, whose n gate differs",
  why = "dc_n would miss the reset gate's factor r that dgh carries and dgx does not",
}

mutant {
  name = "xmodel-lstm-carry-added-to-the-step-after",
  file = "core/xmodel.c",
  find = "len * 4 * h, u, h, nl, h, 4 * h, 0, 0, 1, 0)))",
  replace = "len * 4 * h, u, h, nl, h, 4 * h, 0, 0, 1, 1)))",
  guards = { "test_the_host_executors_backward_gives_the_models_bits" },
  designed_against = "the GRU's carry (dgh U added to the direct path) taken for the LSTM, whose carry is the product alone",
  why = "dL/dh_{t-1} would keep the adjoint of every later step as well as its own",
}
