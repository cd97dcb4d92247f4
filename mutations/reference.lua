-- mutations/reference.lua: the mixers against PyTorch. Each mutant changes
-- the mathematics of one mixer in a way its own tests need not notice; the
-- fixtures computed by PyTorch (tests/fixtures/mixers.py) must.

mutant {
  name = "reference-lru-skip-path-dropped",
  file = "core/mixer_lru.c",
  find = "y[i * c + j] = dv[j] * x[i * c + j];",
  replace = "y[i * c + j] = 0 * dv[j] * x[i * c + j];",
  guards = { "test_the_lru_matches_pytorch_forward_and_backward" },
  designed_against = "a mixer that computes something plausible but not the published layer",
  why = "drops the D * x skip path from the LRU's output",
}

mutant {
  name = "reference-gru-reset-gate-placement",
  file = "core/mixer_gru.c",
  find = "td_real n = (td_real)tanh((double)(g[2 * h + k] + r * gh[2 * h + k]));",
  replace = "td_real n = (td_real)tanh((double)(g[2 * h + k] + gh[2 * h + k]));",
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
  find = "td_real ds = scale * p[s] * (w->dp[s] - pdp);",
  replace = "td_real ds = scale * p[s] * w->dp[s];",
  guards = { "test_attention_matches_torch_nn_multiheadattention_forward_and_backward" },
  designed_against = "a softmax's Jacobian is diag(p) - p p^T: the second term is easy to forget",
  why = "back-propagates through the softmax as if it were an elementwise exp",
}

mutant {
  name = "reference-attention-causal-ignored",
  file = "core/mixer_attention.c",
  find = "return m->o.causal ? i + 1 : length;",
  replace = "return (void)m, (void)i, length;",
  guards = { "test_attention_matches_torch_nn_multiheadattention_forward_and_backward",
             "test_mixer_causal_attention_never_reads_the_future" },
  designed_against = "a causal mixer must read only the past (a mask applied to the wrong side, or not at all)",
  why = "lets every query attend to the whole line whatever causal says",
}
