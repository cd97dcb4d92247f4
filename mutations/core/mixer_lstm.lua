-- mutations/core/mixer_lstm.lua: the mutants of core/mixer_lstm.c, the long
-- short-term memory (equations in mixer.h), H = channels.
--
-- Each entry re-introduces one bug class into the module and names the tests
-- that must notice; every name starts with "mixer_lstm-". Format:
-- harness/catalogue.h; layout, naming and listing: mutations/README.md.
--
-- Its mathematics (gate slices, gradient signs) is checked against PyTorch in
-- the float build too: the mixer_lstm-reference-* entries; the others are the
-- bugs its own tests must notice.

mutant {
  name = "mixer_lstm-workspace-without-the-adjoint-padding",
  file = "core/mixer_lstm.c",
  find = "err = td_mixer_size_muladd(&slots, rows, dg_ld(h, lines, length) + h, fixed,",
  replace = "err = td_mixer_size_muladd(&slots, rows, 5 * h, fixed,",
  guards = { "test_mixer_never_writes_past_the_workspace_it_asked_for" },
  designed_against = "the workspace a kind asks for must cover everything it carves (DEBUG.md #7's class)",
  why = "asks for 4H values per slot row of gate adjoints where the carving pads them to 4H + 16 (channels 8)",
}

mutant {
  name = "mixer_lstm-workspace-undercounted",
  file = "core/mixer_lstm.c",
  find = "err = td_mixer_size_muladd(out, lines * length, 7 * h, slots, \"the lstm workspace\");",
  replace = "err = td_mixer_size_muladd(out, lines * length, 6 * h, slots, \"the lstm workspace\");",
  guards = { "test_mixer_never_writes_past_the_workspace_it_asked_for" },
  designed_against = "the workspace a kind asks for must cover everything it carves (DEBUG.md #7's class)",
  why = "asks for 6H values per position where the carving uses 7H",
}

mutant {
  name = "mixer_lstm-step-projects-the-first-block-s-inputs",
  file = "core/mixer_lstm.c",
  find = "const td_real *xt = w->r.x + (l0 * length + t) * h;",
  replace = "const td_real *xt = w->r.x + t * h;",
  guards = { "test_mixer_lines_in_blocks_give_each_line_its_own_result" },
  designed_against = "a loop split across blocks whose inner call still indexes from the start of the whole batch",
  why = "every block's gates are made from the first block's inputs",
}

mutant {
  name = "mixer_lstm-step-reads-w-where-it-wants-w-transposed",
  file = "core/mixer_lstm.c",
  find = "length * h, w->r.wt, 4 * h,",
  replace = "length * h, td_mixer_slab_at(m, m->params, T_W), 4 * h,",
  guards = { "test_the_lstm_matches_torch_nn_lstm_forward_and_backward" },
  designed_against = "a weight kept in two layouts (as stored, and transposed for a product) where the product reads the wrong one: same size, so nothing faults",
  why = "every step's x_t W^T reads W's values in W^T's places",
}

mutant {
  name = "mixer_lstm-one-step-g-and-o-from-f-columns",
  file = "core/mixer_lstm.c",
  find = "td_gemm(g + 2 * h, 4 * h, xt, h, w->r.wt + 2 * h, 4 * h, l1 - l0, 2 * h, h, &o);",
  replace = "td_gemm(g + 2 * h, 4 * h, xt, h, w->r.wt + h, 4 * h, l1 - l0, 2 * h, h, &o);",
  guards = { "test_the_lstm_matches_torch_nn_lstm_forward_and_backward" },
  designed_against = "a product cut in two must offset both operands of its second part",
  why = "on lines of one step g and o are projected with f's and g's weights",
}

mutant {
  name = "mixer_lstm-step-gemm-reads-the-first-range",
  file = "core/mixer_lstm.c",
  find = "td_gemm(g, 4 * h, y + (l0 * length + at(s - 1, length, m->o.reverse)) * h,",
  replace = "td_gemm(g, 4 * h, y + at(s - 1, length, m->o.reverse) * h,",
  guards = { "test_mixer_lines_in_blocks_give_each_line_its_own_result" },
  designed_against = "a loop split across threads whose inner call still indexes from the start of the whole batch",
  why = "every block's lines take h_{t-1} of the first block's lines",
}

mutant {
  name = "mixer_lstm-reverse-reads-the-wrong-neighbour",
  file = "core/mixer_lstm.c",
  find = "y + (l0 * length + at(s - 1, length, m->o.reverse)) * h,",
  replace = "y + (l0 * length + at(s - 1, length, 0)) * h,",
  guards = { "test_mixer_reverse_is_forward_of_the_flipped_line_flipped_back" },
  designed_against = "a reverse sweep must take h_{t-1} from t + 1, the step it just computed",
  why = "the lstm's recurrent GEMM reads h at t - 1 whatever reverse says",
}

mutant {
  name = "mixer_lstm-lines-read-each-other",
  file = "core/mixer_lstm.c",
  find = "\t\t       length * h, w->r.ut, 4 * h, l1 - l0, 4 * h, h, &o);",
  replace = "\t\t       h, w->r.ut, 4 * h, l1 - l0, 4 * h, h, &o);",
  guards = { "test_every_scan_model_passes_the_conformance_suite",
             "test_every_kernel_model_passes_the_conformance_suite",
             "test_every_flatten_model_passes_the_conformance_suite" },
  designed_against = "lines are independent: a leading dimension of one position instead of one line mixes them",
  why = "the lstm's recurrent GEMM steps one position between lines, so line l reads another line's state",
}

mutant {
  name = "mixer_lstm-step-reads-u-where-it-wants-u-transposed",
  file = "core/mixer_lstm.c",
  find = "\t\t       length * h, w->r.ut, 4 * h, l1 - l0, 4 * h, h, &o);",
  replace = "\t\t       length * h, td_mixer_slab_at(m, m->params, T_U), 4 * h, l1 - l0, 4 * h, h, &o);",
  guards = { "test_the_lstm_matches_torch_nn_lstm_forward_and_backward" },
  designed_against = "a weight kept in two layouts (as stored, and transposed for a product) where the product reads the wrong one: same size, so nothing faults",
  why = "every step's h_{t-1} U^T reads U's values in U^T's places",
}

mutant {
  name = "mixer_lstm-one-step-f-left-as-found",
  file = "core/mixer_lstm.c",
  find = "memset(ifg + h, 0, h * sizeof *ifg);",
  replace = "(void)0;",
  guards = { "test_mixer_never_reads_workspace_it_did_not_write" },
  designed_against = "a value skipped because it cannot matter must still be defined where it is read",
  why = "on lines of one step f keeps whatever the workspace held, and the backward multiplies it by 0",
}

mutant {
  name = "mixer_lstm-reference-forget-gate-wrong-slice",
  file = "core/mixer_lstm.c",
  find = "const td_real *i = g, *f = g + h, *gg = g + 2 * h, *o = g + 3 * h;",
  replace = "const td_real *i = g, *f = g, *gg = g + 2 * h, *o = g + 3 * h;",
  guards = { "test_the_lstm_matches_torch_nn_lstm_forward_and_backward" },
  designed_against = "torch.nn.LSTM's gate blocks are i, f, g, o: a slice off by one block is still a plausible LSTM",
  why = "reads the forget gate from the input gate's block",
}

mutant {
  name = "mixer_lstm-reference-df-without-the-sigmoid-derivative",
  file = "core/mixer_lstm.c",
  find = "dg[h + k] = ds * sp[k] * f * (1 - f);",
  replace = "dg[h + k] = ds * sp[k] * f;",
  guards = { "test_the_lstm_matches_torch_nn_lstm_forward_and_backward" },
  designed_against = "a gate's adjoint goes through its nonlinearity: sigmoid' = s (1 - s)",
  why = "drops (1 - f) from the forget gate's gradient",
}

mutant {
  name = "mixer_lstm-backward-scratch-at-the-line-s-own-row",
  file = "core/mixer_lstm.c",
  find = "\t\tsize_t q = (l - l0) * length + t;",
  replace = "\t\tsize_t q = l * length + t;",
  guards = { "test_mixer_lines_in_blocks_give_each_line_its_own_result" },
  designed_against = "an index into a per-block scratch taken from the whole buffer's layout",
  why = "the blocks past the first write their gate adjoints beyond their slot, and their dx and gradients read the slot's stale rows",
}

mutant {
  name = "mixer_lstm-backward-takes-the-cell-state-for-its-tanh",
  file = "core/mixer_lstm.c",
  find = "w->gates + r * 4 * h, w->ts + r * h, sc->hp + q * h,",
  replace = "w->gates + r * 4 * h, w->s + r * h, sc->hp + q * h,",
  guards = { "test_the_lstm_matches_torch_nn_lstm_forward_and_backward" },
  designed_against = "a value saved by the forward to spare the backward a recomputation: the backward must read the saved value, not its argument",
  why = "the backward uses s_t where tanh(s_t) belongs",
}

mutant {
  name = "mixer_lstm-one-step-dw-of-g-and-o-from-f-rows",
  file = "core/mixer_lstm.c",
  find = "err = td_gemm(dw + 2 * h * h, h, sc->dgx + 2 * h, sc->ld",
  replace = "err = td_gemm(dw + 2 * h * h, h, sc->dgx + h, sc->ld",
  guards = { "test_the_lstm_matches_torch_nn_lstm_forward_and_backward" },
  designed_against = "a product cut in two must offset both operands of its second part",
  why = "on lines of one step dW of g and o sums f's and g's adjoints",
}

mutant {
  name = "mixer_lstm-one-step-dw-of-f-left-as-found",
  file = "core/mixer_lstm.c",
  find = "memset(dw + h * h, 0, h * h * sizeof *dw);",
  replace = "(void)0;",
  guards = { "test_mixer_never_reads_workspace_it_did_not_write" },
  designed_against = "rows a product skips must still be written when the block's part is added up",
  why = "on lines of one step dW's rows of f keep whatever the block's part held",
}

mutant {
  name = "mixer_lstm-backward-h-before-at-the-line-s-own-row",
  file = "core/mixer_lstm.c",
  find = "\t\t\ttd_real *restrict dst = hp + ((l - l0) * length + t) * h;",
  replace = "\t\t\ttd_real *restrict dst = hp + (l * length + t) * h;",
  guards = { "test_mixer_lines_in_blocks_give_each_line_its_own_result" },
  designed_against = "an index into a per-block scratch taken from the whole buffer's layout",
  why = "the blocks past the first rebuild h_{t-1} beyond their slot, and their dU reads the slot's stale rows",
}

mutant {
  name = "mixer_lstm-backward-h-before-from-the-step-itself",
  file = "core/mixer_lstm.c",
  find = "\t\t\tconst td_real *restrict o = w->gates + r * 4 * h + 3 * h;",
  replace = "\t\t\tconst td_real *restrict o = w->gates + td_mixer_saved_at(l0, l1, length, l, t) * 4 * h + 3 * h;",
  guards = { "test_the_lstm_matches_torch_nn_lstm_forward_and_backward" },
  designed_against = "a value rebuilt in the backward from saved parts, one of them taken at the wrong step",
  why = "h_{t-1} is rebuilt as o_t tanh(s_{t-1}): dU pairs each step's adjoint with a state that never was",
}

mutant {
  name = "mixer_lstm-reference-backward-reads-h-for-s",
  file = "core/mixer_lstm.c",
  find = "prev_rows(sc->hp, w, l0, l1, j->length, h, j->m->o.reverse, 0);",
  replace = "prev_rows(sc->hp, w, l0, l1, j->length, h, j->m->o.reverse, 1);",
  guards = { "test_the_lstm_matches_torch_nn_lstm_forward_and_backward" },
  designed_against = "the hp scratch holds s_{t-1} during the recurrence and h_{t-1} after it: the two are the same shape and easy to swap",
  why = "gives the forget gate's adjoint h_{t-1} where it needs s_{t-1}",
}

mutant {
  name = "mixer_lstm-backward-block-keeps-the-last-block-s-dh",
  file = "core/mixer_lstm.c",
  find = "\tmemset(w->r.carry + l0 * h, 0, (l1 - l0) * h * sizeof *w->r.carry);",
  replace = "\tmemset(w->r.carry, 0, (l1 - l0) * h * sizeof *w->r.carry);",
  guards = { "test_mixer_lines_in_blocks_give_each_line_its_own_result" },
  designed_against = "a per-block reset of state applied to the first block only",
  why = "the blocks past the first start their backward recurrence from whatever dh held, not from 0",
}
