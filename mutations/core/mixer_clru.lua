-- mutations/core/mixer_clru.lua: the mutants of core/mixer_clru.c, the
-- complex diagonal linear recurrence (the LRU paper's, Orvieto et al.
--
-- Each entry re-introduces one bug class into the module and names the tests
-- that must notice; every name starts with "mixer_clru-". Format:
-- harness/catalogue.h; layout, naming and listing: mutations/README.md.
--
-- Its mathematics (gradient signs, the conjugate) is checked against PyTorch
-- in the float build too: the mixer_clru-reference-* entries; the others are
-- the bugs its own tests must notice.

mutant {
  name = "mixer_clru-workspace-undercounted",
  file = "core/mixer_clru.c",
  find = "per = c + 4 * n;",
  replace = "per = c + 3 * n;",
  guards = { "test_mixer_never_writes_past_the_workspace_it_asked_for" },
  designed_against = "the workspace a kind asks for must cover everything it carves (DEBUG.md #7's class)",
  why = "counts a complex state as 1.5 values per position in each of h and g instead of 2",
}

mutant {
  name = "mixer_clru-one-step-workspace-undercounted",
  file = "core/mixer_clru.c",
  find = "4 * n + c + 2 * c * c,",
  replace = "4 * n + c + c * c,",
  guards = { "test_mixer_never_writes_past_the_workspace_it_asked_for" },
  designed_against = "a workspace carved for more than it asked for writes past its end",
  why = "asks for room for M but not for dM",
}

mutant {
  name = "mixer_clru-reference-adjoint-without-the-conjugate",
  file = "core/mixer_clru.c",
  find = "td_real sign = adjoint ? -1 : 1;",
  replace = "td_real sign = 1;",
  guards = { "test_the_complex_lru_matches_a_torch_complex_loop_forward_and_backward" },
  designed_against = "the adjoint of multiplying by lambda is multiplying by conj(lambda), not lambda",
  why = "runs the adjoint recurrence with lambda instead of its conjugate",
}

mutant {
  name = "mixer_clru-one-step-map-adds-the-imaginary-part",
  file = "core/mixer_clru.c",
  find = "NULL, -1);",
  replace = "NULL, 1);",
  guards = { "test_the_complex_lru_matches_a_torch_complex_loop_forward_and_backward" },
  designed_against = "Re(C h) = C_re h_re - C_im h_im: a sign lost where two halves are folded into one map",
  why = "lines of one step add B_im^T C_im^T to M instead of subtracting it",
}

mutant {
  name = "mixer_clru-one-step-grads-of-im-not-negated",
  file = "core/mixer_clru.c",
  find = "const int mode = im ? -1 : 1;",
  replace = "const int mode = 1;",
  guards = { "test_the_complex_lru_matches_a_torch_complex_loop_forward_and_backward" },
  designed_against = "the adjoint of a subtracted term is subtracted",
  why = "lines of one step add dB_im and dC_im where they must be taken away",
}

mutant {
  name = "mixer_clru-reverse-ignored",
  file = "core/mixer_clru.c",
  find = "scan(w.h, w.a, lines, length, n, m->o.reverse, 0);",
  replace = "scan(w.h, w.a, lines, length, n, 0, 0);",
  guards = { "test_mixer_reverse_is_forward_of_the_flipped_line_flipped_back" },
  designed_against = "a direction flag dropped: a reverse sweep that runs forward halves the receptive field",
  why = "the complex lru's forward scans forward whatever reverse says",
}

mutant {
  name = "mixer_clru-reference-real-part-sign",
  file = "core/mixer_clru.c",
  find = "o.alpha = -1;",
  replace = "o.alpha = 1;",
  guards = { "test_the_complex_lru_matches_a_torch_complex_loop_forward_and_backward" },
  designed_against = "Re(C h) = C_re h_re - C_im h_im: the minus is the whole of complex multiplication",
  why = "adds C_im h_im to the output instead of subtracting it",
}

mutant {
  name = "mixer_clru-reference-theta-gradient-sign",
  file = "core/mixer_clru.c",
  find = "gtheta[k] += (td_real)(-dre * aim + dim * are);",
  replace = "gtheta[k] += (td_real)(dre * aim - dim * are);",
  guards = { "test_the_complex_lru_matches_a_torch_complex_loop_forward_and_backward" },
  designed_against = "d lambda / d theta = i lambda: its sign decides whether training turns the phase the right way",
  why = "flips the sign of dL/dtheta",
}

mutant {
  name = "mixer_clru-dd-overwrites-the-gradient",
  file = "core/mixer_clru.c",
  find = "gd[j] += w->dd[j];",
  replace = "gd[j] = w->dd[j];",
  guards = { "test_mixer_backward_adds_parameter_gradients_and_overwrites_dx" },
  designed_against = "backward must add to the parameter gradients: accumulation over micro-batches depends on it",
  why = "the complex lru writes dD with = instead of +=",
}
