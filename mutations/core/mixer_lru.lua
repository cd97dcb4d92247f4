-- mutations/core/mixer_lru.lua: the mutants of core/mixer_lru.c, the real
-- diagonal linear recurrence (S4D/LRU-like).
--
-- Each entry re-introduces one bug class into the module and names the tests
-- that must notice; every name starts with "mixer_lru-". Format:
-- harness/catalogue.h; layout, naming and listing: mutations/README.md.
--
-- Gradient-only bugs (the dw sign, the adjoint's start, the skip D) are
-- caught by the double-precision gradcheck, which skips in the float build
-- mutate uses, and have no entry here; the PyTorch fixture tests (float too)
-- catch some: the mixer_lru-reference-* entries.

mutant {
  name = "mixer_lru-one-step-workspace-undercounted",
  file = "core/mixer_lru.c",
  find = "c + 2 * n, 2 * n + c + 2 * c * c,",
  replace = "c + 2 * n, 2 * n + c + c * c,",
  guards = { "test_mixer_never_writes_past_the_workspace_it_asked_for" },
  designed_against = "a workspace carved for more than it asked for writes past its end",
  why = "asks for room for M but not for dM",
}

mutant {
  name = "mixer_lru-reverse-ignored",
  file = "core/mixer_lru.c",
  find = "scan(j->w->h + l0 * j->length * n, j->w->a, l1 - l0, j->length, n, j->m->o.reverse);",
  replace = "scan(j->w->h + l0 * j->length * n, j->w->a, l1 - l0, j->length, n, 0);",
  guards = { "test_mixer_reverse_is_forward_of_the_flipped_line_flipped_back" },
  designed_against = "a direction flag dropped: a reverse sweep that runs forward halves the receptive field",
  why = "the lru forward scans forward whatever reverse says",
}

mutant {
  name = "mixer_lru-scans-every-range-from-the-first-line",
  file = "core/mixer_lru.c",
  find = "scan(j->w->h + l0 * j->length * n, j->w->a, l1 - l0,",
  replace = "scan(j->w->h, j->w->a, l1 - l0,",
  guards = { "test_mixer_results_are_bitwise_equal_for_any_thread_count" },
  designed_against = "a range of lines processed where the whole call's data starts: right with one thread, wrong with several",
  why = "every thread runs the recurrence over the first lines, so the later lines keep their inputs as states",
}

mutant {
  name = "mixer_lru-input-saved-for-the-first-range-only",
  file = "core/mixer_lru.c",
  find = "\t\t\tj->w->x[i * c + k] = xk;",
  replace = "\t\t\tj->w->x[(i - l0 * j->length) * c + k] = xk;",
  guards = { "test_mixer_results_are_bitwise_equal_for_any_thread_count" },
  designed_against = "a loop split across threads whose inner call still indexes from the start of the whole batch",
  why = "every thread saves its lines' input over the first range's, so dB reads stale input for all but one range",
}

mutant {
  name = "mixer_lru-reference-skip-path-dropped",
  file = "core/mixer_lru.c",
  find = "\t\t\tj->y[i * c + k] = dv[k] * xk;",
  replace = "\t\t\tj->y[i * c + k] = 0 * dv[k] * xk;",
  guards = { "test_the_lru_matches_pytorch_forward_and_backward" },
  designed_against = "a mixer that computes something plausible but not the published layer",
  why = "drops the D * x skip path from the LRU's output",
}

mutant {
  name = "mixer_lru-skip-gradient-groups-numbered-after-the-states",
  file = "core/mixer_lru.c",
  find = "const size_t k0 = (q < gn ? q : q - gn) * GROUP,",
  replace = "const size_t k0 = q * GROUP,",
  guards = { "test_the_lru_matches_pytorch_forward_and_backward" },
  designed_against = "two kinds of work items in one numbering: the second kind must count from its own start",
  why = "dD's channel groups start after the state groups' count, so dD is never summed for the first channels",
}

mutant {
  name = "mixer_lru-dd-summed-into-the-slab",
  file = "core/mixer_lru.c",
  find = "acc[k] += j->x[i * c + k0 + k] * j->w->x[i * c + k0 + k];",
  replace = "td_mixer_slab_at(j->m, j->m->grads, T_D)[k0 + k] += j->x[i * c + k0 + k] * j->w->x[i * c + k0 + k];",
  guards = { "test_mixer_backward_adds_parameter_gradients_and_overwrites_dx" },
  finding = 6,
  why = "sums dD term by term into the gradient slab, so a second backward adds a rounding-different amount",
}

mutant {
  name = "mixer_lru-one-step-db-overwrites-the-gradient",
  file = "core/mixer_lru.c",
  find = "(td_mixer_strided){w->dm, c, 1}, n, c, c, NULL, 1);",
  replace = "(td_mixer_strided){w->dm, c, 1}, n, c, c, NULL, 0);",
  guards = { "test_mixer_backward_adds_parameter_gradients_and_overwrites_dx" },
  designed_against = "backward must add to the parameter gradients: accumulation over micro-batches depends on it",
  why = "lines of one step write dB with = instead of +=",
}

mutant {
  name = "mixer_lru-one-step-dc-pairs-dm-transposed",
  file = "core/mixer_lru.c",
  find = "(td_mixer_strided){w->dm, 1, c},",
  replace = "(td_mixer_strided){w->dm, c, 1},",
  guards = { "test_the_lru_matches_pytorch_forward_and_backward" },
  designed_against = "dC = dM^T B^T: an index pair swapped in a hand-written chain rule",
  why = "lines of one step pair dC with dM's transpose",
}

mutant {
  name = "mixer_lru-dd-overwrites-the-gradient",
  file = "core/mixer_lru.c",
  find = "gd[k] += w.dd[k];",
  replace = "gd[k] = w.dd[k];",
  guards = { "test_mixer_backward_adds_parameter_gradients_and_overwrites_dx" },
  designed_against = "backward must add to the parameter gradients: accumulation over micro-batches depends on it",
  why = "the lru writes dD with = instead of +=",
}
