-- mutations/core/family_kernel.lua: the mutants of core/family_kernel.c, the
-- axial kernel.
--
-- Each entry re-introduces one bug class into the module and names the tests
-- that must notice; every name starts with "family_kernel-". Format:
-- harness/catalogue.h; layout, naming and listing: mutations/README.md.

mutant {
  name = "family_kernel-inner-stride-from-the-axes-before",
  file = "core/family_kernel.c",
  find = "for (int a = order[i] + 1; a < td_lattice_rank(b->lat); a++)",
  replace = "for (int a = 0; a < order[i]; a++)",
  guards = { "test_every_kernel_model_passes_the_conformance_suite" },
  designed_against = "a stride taken from the wrong side of the axis: row-major cells step by the sizes of the axes after it",
  why = "contracts every axis along the wrong stride, mixing cells of different lines",
}

mutant {
  name = "family_kernel-full-line-ignores-its-holes",
  file = "core/family_kernel.c",
  find = "x->full[line] &= x->mt[line * n + j];",
  replace = "x->full[line] &= 1;",
  guards = { "test_the_kernel_gradients_over_holes_agree_with_finite_differences" },
  designed_against = "a fast path for dense lines taken by lines with absent cells",
  why = "dK subtracts q_i at absent cells j too, as if every line were dense",
}

mutant {
  name = "family_kernel-streams-keyed-by-storage-index",
  file = "core/family_kernel.c",
  find = "td_axial_name_hash(name) % ((1u << 20) - 64)",
  replace = "(uint64_t)s->ax[a].axis + 0 * td_axial_name_hash(name)",
  guards = { "test_every_kernel_model_passes_the_conformance_suite" },
  designed_against = "parameters keyed by storage position change meaning when the axes are stored differently (torch-dimensions DEBUG.md #22)",
  why = "draws each axis's kernel from a stream chosen by its storage index",
}

mutant {
  name = "family_kernel-mass-counts-absent-cells",
  file = "core/family_kernel.c",
  find = "if (m[(o * n + j) * inner + in]) {",
  replace = "if (m[(o * n + j) * inner + in] || 1) {",
  guards = { "test_a_constant_input_stays_constant_over_holes" },
  designed_against = "a renormaliser whose mass counts cells the numerator never saw (torch-dimensions DEBUG.md §B3)",
  why = "counts absent cells in the signed and absolute mass",
}

mutant {
  name = "family_kernel-absolute-epsilon",
  file = "core/family_kernel.c",
  find = "deg[at] = !(fabs(sg) > b->o.cancel * ab);",
  replace = "deg[at] = !(fabs(sg) > 1e-6);",
  guards = { "test_a_near_cancelled_kernel_line_is_not_amplified" },
  designed_against = "an absolute epsilon in the renormaliser: cancellation is relative (torch-dimensions DEBUG.md #12)",
  why = "calls a line degenerate only when its signed mass is below 1e-6",
}

mutant {
  name = "family_kernel-guard-not-scaled-by-the-mass",
  file = "core/family_kernel.c",
  find = "deg[at] = !(fabs(sg) > b->o.cancel * ab);",
  replace = "deg[at] = !(fabs(sg) > b->o.cancel);",
  guards = { "test_a_genuinely_small_mass_still_renormalises_exactly" },
  designed_against = "a guard that overreaches: a small mass of one sign must still renormalise (torch-dimensions DEBUG.md #12)",
  why = "compares the signed mass with a fixed threshold instead of the absolute mass",
}

mutant {
  name = "family_kernel-holes-filled-between-axes",
  file = "core/family_kernel.c",
  find = "if (!b->mask[at]) /* selection",
  replace = "if (0 && !b->mask[at]) /* selection",
  guards = { "test_a_constant_input_stays_constant_over_holes" },
  designed_against = "absent cells re-zeroed after every contraction, not only at the end",
  why = "lets one axis's contraction write into absent cells that the next axis then reads",
}

mutant {
  name = "family_kernel-clamped-signed-denominator",
  file = "core/family_kernel.c",
  find = "\t\t\telse if (deg[at] == 0)\n\t\t\t\tfor (size_t ch = 0; ch < c; ch++)\n\t\t\t\t\to[ch] = o[ch] / d;",
  replace = "\t\t\telse\n\t\t\t\tfor (size_t ch = 0; ch < c; ch++)\n\t\t\t\t\to[ch] = o[ch] / (d > (td_real)1e-6 ? d : (td_real)1e-6) + 0 * deg[at];",
  guards = { "test_a_near_cancelled_kernel_line_is_not_amplified" },
  designed_against = "clamp_min on a signed denominator (torch-dimensions DEBUG.md #3)",
  why = "divides by the signed mass clamped below at 1e-6",
}

mutant {
  name = "family_kernel-degenerate-line-divided",
  file = "core/family_kernel.c",
  find = "else if (deg[at] == 0)",
  replace = "else if (deg[at] == 0 || 1)",
  guards = { "test_a_kernel_row_that_sees_no_present_cell_gives_zero" },
  designed_against = "a renormaliser that makes a fresh NaN (0/0) where a row sees no present mass (torch-dimensions DEBUG.md #3)",
  why = "divides even when the line is degenerate",
}

mutant {
  name = "family_kernel-nan-laundered",
  file = "core/family_kernel.c",
  find = "\t\t\t\t\to[ch] = o[ch] / d;",
  replace = "\t\t\t\t\to[ch] = o[ch] != o[ch] ? 0 : o[ch] / d;",
  guards = { "test_a_nan_in_a_present_cell_leaves_the_kernel_contraction" },
  designed_against = "nan_to_num style laundering: a NaN that arrives must leave (torch-dimensions DEBUG.md #11)",
  why = "maps a NaN numerator to 0",
}

mutant {
  name = "family_kernel-line-sums-indexed-by-range",
  file = "core/family_kernel.c",
  find = "(err = td_gemm(j->w->sk + u * n * n, n, j->rows + base, ld, j->z + base, ld, n, n,",
  replace = "(err = td_gemm(j->w->sk + (u - u0) * n * n, n, j->rows + base, ld, j->z + base, ld, n, n,",
  guards = { "test_every_family_gives_the_same_bits_for_any_thread_count" },
  designed_against = "a loop split across threads whose inner call still indexes from the start of the whole batch",
  why = "threads write their blocks' R Z^T over each other's, and dK sums the wrong blocks",
}

mutant {
  name = "family_kernel-dk-rows-zeroed-from-the-first",
  file = "core/family_kernel.c",
  find = "memset(j->w->dk + i0 * n, 0, (i1 - i0) * n * sizeof *j->w->dk);",
  replace = "memset(j->w->dk, 0, (i1 - i0) * n * sizeof *j->w->dk);",
  guards = { "test_every_family_gives_the_same_bits_for_any_thread_count" },
  designed_against = "a loop split across threads whose inner call still indexes from the start of the whole batch",
  why = "with several threads the later rows of dK keep the previous call's sums",
}

mutant {
  name = "family_kernel-dy-used-unselected-over-holes",
  file = "core/family_kernel.c",
  find = "if (td_lattice_n_present(b->lat) < b->n_cells) {",
  replace = "if (0 && td_lattice_n_present(b->lat) < b->n_cells) {",
  guards = { "test_every_kernel_model_passes_the_conformance_suite" },
  designed_against = "a shortcut for dense lattices taken by a lattice with holes",
  why = "the mixer's backward reads dy at absent cells, where it must read zeros",
}

mutant {
  name = "family_kernel-time-alone-drops-the-gradient",
  file = "core/family_kernel.c",
  find = "if (s->n_sp == 0) /* time alone: nothing to contract */",
  replace = "if (0)",
  guards = { "test_every_kernel_model_passes_the_conformance_suite" },
  designed_against = "an output written only inside a loop that may run zero times",
  why = "on a lattice with only a time axis dx keeps dy instead of the mixer's gradient",
}
