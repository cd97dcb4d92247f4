-- mutations/reference.lua: the mixers against PyTorch. Each mutant changes
-- the mathematics of one mixer in a way its own tests need not notice; the
-- fixtures computed by PyTorch (tests/fixtures/mixers.py) must.

mutant {
  name = "reference-lru-skip-path-dropped",
  file = "core/mixer_lru.c",
  find = "\t\t\tj->y[i * c + k] = dv[k] * xk;",
  replace = "\t\t\tj->y[i * c + k] = 0 * dv[k] * xk;",
  guards = { "test_the_lru_matches_pytorch_forward_and_backward" },
  designed_against = "a mixer that computes something plausible but not the published layer",
  why = "drops the D * x skip path from the LRU's output",
}

mutant {
  name = "reference-gru-reset-gate-placement",
  file = "core/mixer_gru.c",
  find = "n[k] = td_tanh((n[k] + b[2 * h + k]) + rz[k] * gh[2 * h + k]);",
  replace = "n[k] = td_tanh((n[k] + b[2 * h + k]) + gh[2 * h + k]);",
  guards = { "test_the_gru_matches_torch_nn_gru_forward_and_backward" },
  designed_against = "the GRU's reset gate applies to the recurrent term (PyTorch's convention)",
  why = "forgets the reset gate on the candidate state",
}

mutant {
  name = "reference-conv-taps-anticausal",
  file = "core/mixer_conv.c",
  find = "return off <= t ? t - off : SIZE_MAX;",
  replace = "return off < length - t ? t + off : SIZE_MAX;",
  guards = { "test_the_conv_matches_pytorch_conv1d_forward_and_backward" },
  designed_against = "a causal convolution must read only the past",
  why = "reads the future in a forward sweep (the reverse sweep's taps)",
}

mutant {
  name = "reference-attention-softmax-backward-drops-the-mean",
  file = "core/mixer_attention.c",
  find = "di[k] = j->scale * pi[k] * (di[k] - pdp[i - i0]);",
  replace = "di[k] = j->scale * pi[k] * di[k], (void)pdp;",
  guards = { "test_attention_matches_torch_nn_multiheadattention_forward_and_backward" },
  designed_against = "a softmax's Jacobian is diag(p) - p p^T: the second term is easy to forget",
  why = "back-propagates through the softmax as if it were an elementwise exp",
}

mutant {
  name = "reference-attention-causal-ignored",
  file = "core/mixer_attention.c",
  find = "return causal ? i + 1 : length;",
  replace = "return (void)causal, (void)i, length;",
  guards = { "test_attention_matches_torch_nn_multiheadattention_forward_and_backward",
             "test_mixer_causal_attention_never_reads_the_future" },
  designed_against = "a causal mixer must read only the past (a mask applied to the wrong side, or not at all)",
  why = "lets every query attend to the whole line whatever causal says",
}

mutant {
  name = "reference-lstm-forget-gate-wrong-slice",
  file = "core/mixer_lstm.c",
  find = "const td_real *i = g, *f = g + h, *gg = g + 2 * h, *o = g + 3 * h;",
  replace = "const td_real *i = g, *f = g, *gg = g + 2 * h, *o = g + 3 * h;",
  guards = { "test_the_lstm_matches_torch_nn_lstm_forward_and_backward" },
  designed_against = "torch.nn.LSTM's gate blocks are i, f, g, o: a slice off by one block is still a plausible LSTM",
  why = "reads the forget gate from the input gate's block",
}

mutant {
  name = "reference-lstm-df-without-the-sigmoid-derivative",
  file = "core/mixer_lstm.c",
  find = "dg[h + k] = ds * sp[k] * f * (1 - f);",
  replace = "dg[h + k] = ds * sp[k] * f;",
  guards = { "test_the_lstm_matches_torch_nn_lstm_forward_and_backward" },
  designed_against = "a gate's adjoint goes through its nonlinearity: sigmoid' = s (1 - s)",
  why = "drops (1 - f) from the forget gate's gradient",
}

mutant {
  name = "reference-lstm-backward-reads-h-for-s",
  file = "core/mixer_lstm.c",
  find = "prev_rows(sc->hp, w, l0, l1, j->length, h, j->m->o.reverse, 0);",
  replace = "prev_rows(sc->hp, w, l0, l1, j->length, h, j->m->o.reverse, 1);",
  guards = { "test_the_lstm_matches_torch_nn_lstm_forward_and_backward" },
  designed_against = "the hp scratch holds s_{t-1} during the recurrence and h_{t-1} after it: the two are the same shape and easy to swap",
  why = "gives the forget gate's adjoint h_{t-1} where it needs s_{t-1}",
}

mutant {
  name = "reference-clru-theta-gradient-sign",
  file = "core/mixer_clru.c",
  find = "gtheta[k] += (td_real)(-dre * aim + dim * are);",
  replace = "gtheta[k] += (td_real)(dre * aim - dim * are);",
  guards = { "test_the_complex_lru_matches_a_torch_complex_loop_forward_and_backward" },
  designed_against = "d lambda / d theta = i lambda: its sign decides whether training turns the phase the right way",
  why = "flips the sign of dL/dtheta",
}

mutant {
  name = "reference-clru-adjoint-without-the-conjugate",
  file = "core/mixer_clru.c",
  find = "td_real sign = adjoint ? -1 : 1;",
  replace = "td_real sign = 1;",
  guards = { "test_the_complex_lru_matches_a_torch_complex_loop_forward_and_backward" },
  designed_against = "the adjoint of multiplying by lambda is multiplying by conj(lambda), not lambda",
  why = "runs the adjoint recurrence with lambda instead of its conjugate",
}

mutant {
  name = "reference-clru-real-part-sign",
  file = "core/mixer_clru.c",
  find = "o.alpha = -1;",
  replace = "o.alpha = 1;",
  guards = { "test_the_complex_lru_matches_a_torch_complex_loop_forward_and_backward" },
  designed_against = "Re(C h) = C_re h_re - C_im h_im: the minus is the whole of complex multiplication",
  why = "adds C_im h_im to the output instead of subtracting it",
}
