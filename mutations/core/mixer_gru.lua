-- mutations/core/mixer_gru.lua: the mutants of core/mixer_gru.c, the gated
-- recurrent unit (equations in mixer.h), H = channels.
--
-- Each entry re-introduces one bug class into the module and names the tests
-- that must notice; every name starts with "mixer_gru-". Format:
-- harness/catalogue.h; layout, naming and listing: mutations/README.md.
--
-- Gradient-only bugs (dn * r, an early exit) are caught by the
-- double-precision gradcheck, which skips in the float build mutate uses, and
-- have no entry here; the PyTorch fixture tests (float too) catch some: the
-- mixer_gru-reference-* entries.

mutant {
  name = "mixer_gru-workspace-undercounted",
  file = "core/mixer_gru.c",
  find = "err = td_mixer_size_muladd(out, lines * length, 6 * h, slots, \"the gru workspace\");",
  replace = "err = td_mixer_size_muladd(out, lines * length, 5 * h, slots, \"the gru workspace\");",
  guards = { "test_mixer_never_writes_past_the_workspace_it_asked_for" },
  finding = 7,
  why = "asks for 5H values per position where the carving uses 6H",
}

mutant {
  name = "mixer_gru-step-projects-the-first-block-s-inputs",
  file = "core/mixer_gru.c",
  find = "w->r.x + (l0 * length + t) * h, length * h,",
  replace = "w->r.x + t * h, length * h,",
  guards = { "test_mixer_lines_in_blocks_give_each_line_its_own_result" },
  designed_against = "a loop split across blocks whose inner call still indexes from the start of the whole batch",
  why = "every block's gates are made from the first block's inputs",
}

mutant {
  name = "mixer_gru-step-reads-w-where-it-wants-w-transposed",
  file = "core/mixer_gru.c",
  find = "length * h, w->r.wt, 3 * h,",
  replace = "length * h, td_mixer_slab_at(m, m->params, T_W), 3 * h,",
  guards = { "test_the_gru_matches_torch_nn_gru_forward_and_backward" },
  designed_against = "a weight kept in two layouts (as stored, and transposed for a product) where the product reads the wrong one: same size, so nothing faults",
  why = "every step's x_t W^T reads W's values in W^T's places",
}

mutant {
  name = "mixer_gru-step-reads-u-where-it-wants-u-transposed",
  file = "core/mixer_gru.c",
  find = "\tif ((err = td_gemm(w->gh + l0 * 3 * h, 3 * h, prev, length * h, w->r.ut, 3 * h, l1 - l0,",
  replace = "\tif ((err = td_gemm(w->gh + l0 * 3 * h, 3 * h, prev, length * h, td_mixer_slab_at(m, m->params, T_U), 3 * h, l1 - l0,",
  guards = { "test_the_gru_matches_torch_nn_gru_forward_and_backward" },
  designed_against = "a weight kept in two layouts (as stored, and transposed for a product) where the product reads the wrong one: same size, so nothing faults",
  why = "every step's h_{t-1} U^T reads U's values in U^T's places",
}

mutant {
  name = "mixer_gru-step-gemm-writes-the-first-range",
  file = "core/mixer_gru.c",
  find = "if ((err = td_gemm(w->gh + l0 * 3 * h, 3 * h, prev, length * h,",
  replace = "if ((err = td_gemm(w->gh, 3 * h, prev, length * h,",
  guards = { "test_mixer_lines_in_blocks_give_each_line_its_own_result" },
  designed_against = "a loop split across threads whose inner call still indexes from the start of the whole batch",
  why = "every block writes its lines' h U^T over the first block's rows, and reads its own rows unwritten",
}

mutant {
  name = "mixer_gru-reference-reset-gate-placement",
  file = "core/mixer_gru.c",
  find = "n[k] = td_tanh((n[k] + b[2 * h + k]) + rz[k] * gh[2 * h + k]);",
  replace = "n[k] = td_tanh((n[k] + b[2 * h + k]) + gh[2 * h + k]);",
  guards = { "test_the_gru_matches_torch_nn_gru_forward_and_backward" },
  designed_against = "the GRU's reset gate applies to the recurrent term (PyTorch's convention)",
  why = "forgets the reset gate on the candidate state",
}

mutant {
  name = "mixer_gru-backward-scratch-at-the-line-s-own-row",
  file = "core/mixer_gru.c",
  find = "\t\tsize_t pos = l * length + t, q = (l - l0) * length + t;",
  replace = "\t\tsize_t pos = l * length + t, q = l * length + t;",
  guards = { "test_mixer_lines_in_blocks_give_each_line_its_own_result" },
  designed_against = "an index into a per-block scratch taken from the whole buffer's layout",
  why = "the blocks past the first write their gate adjoints beyond their slot, and their dx and gradients read the slot's stale rows",
}
