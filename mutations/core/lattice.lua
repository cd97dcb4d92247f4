-- mutations/core/lattice.lua: the mutants of core/lattice.c, immutable N-D
-- lattices with absent cells (see lattice.h).
--
-- Each entry re-introduces one bug class into the module and names the tests
-- that must notice; every name starts with "lattice-". Format:
-- harness/catalogue.h; layout, naming and listing: mutations/README.md.

mutant {
  name = "lattice-duplicate-names-accepted",
  file = "core/lattice.c",
  find = "if (strcmp(s->names[j], name) == 0)",
  replace = "if (0)",
  guards = { "test_bad_lattice_specs_are_refused_with_a_message" },
  designed_against = "two axes with one name make every lookup by name ambiguous",
  why = "accepts two axes with the same name",
}

mutant {
  name = "lattice-zero-size-axis-accepted",
  file = "core/lattice.c",
  find = "if (s->shape[i] == 0)",
  replace = "if (0)",
  guards = { "test_bad_lattice_specs_are_refused_with_a_message" },
  designed_against = "a zero-size axis makes an empty lattice that fails far from its cause",
  why = "accepts an axis of size 0",
}

mutant {
  name = "lattice-mask-length-unchecked",
  file = "core/lattice.c",
  find = "if (s->mask && s->mask_len != n)",
  replace = "if (0)",
  guards = { "test_bad_lattice_specs_are_refused_with_a_message" },
  designed_against = "a mask of the wrong size is read out of bounds or silently truncated",
  why = "never compares the mask length with the cell count",
}

mutant {
  name = "lattice-mask-aliased",
  file = "core/lattice.c",
  find = "lat->mask = malloc(lat->n_cells);",
  replace = "lat->mask = mask ? (uint8_t *)mask : malloc(lat->n_cells);",
  guards = { "test_a_lattice_copies_the_mask_it_is_given" },
  designed_against = "a lattice that aliases the caller's mask goes stale when the caller reuses it",
  why = "keeps the caller's mask buffer instead of a copy",
}

mutant {
  name = "lattice-all-absent-accepted",
  file = "core/lattice.c",
  find = "if (lat->n_present == 0)",
  replace = "if (0)",
  guards = { "test_bad_lattice_specs_are_refused_with_a_message" },
  designed_against = "a lattice with no present cell has nothing to compute on",
  why = "accepts a mask with every cell absent",
}

mutant {
  name = "lattice-mask-handed-out-shared",
  file = "core/lattice.c",
  find = "*out = malloc(lat->n_cells);",
  replace = "*out = lat->mask;",
  guards = { "test_a_mask_handed_out_is_a_fresh_copy" },
  designed_against = "a mask handed out as a view lets callers change an immutable lattice",
  why = "hands out the lattice's own mask instead of a copy",
}

mutant {
  name = "lattice-gather-batch-folded",
  file = "core/lattice.c",
  find = "const td_real *src = dense + b * lat->n_cells * channels;",
  replace = "const td_real *src = dense;",
  guards = { "test_gather_keeps_batches_apart" },
  designed_against = "batch dimensions folded into the cell index mix examples",
  why = "reads every batch from the first example",
}

mutant {
  name = "lattice-gather-ignores-present-index",
  file = "core/lattice.c",
  find = "memcpy(dst + p * channels, src + lat->present[p] * channels,",
  replace = "memcpy(dst + p * channels, src + p * channels,",
  guards = { "test_gather_then_scatter_restores_present_cells" },
  designed_against = "gather must take the present cells, not the first n",
  why = "gathers the first n_present cells whether present or not",
}

mutant {
  name = "lattice-scatter-leaves-absent-cells",
  file = "core/lattice.c",
  find = "memset(dense, 0, batch * lat->n_cells * channels * sizeof *dense);",
  replace = "",
  guards = { "test_scatter_zeroes_every_absent_cell" },
  designed_against = "stale values in absent cells must never reach an output",
  why = "scatter leaves whatever was in the absent cells",
}
