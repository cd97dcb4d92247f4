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
