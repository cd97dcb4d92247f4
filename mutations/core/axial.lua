-- mutations/core/axial.lua: the mutants of core/axial.c, folds, selection and
-- the canonical axis order (see axial.h).
--
-- Each entry re-introduces one bug class into the module and names the tests
-- that must notice; every name starts with "axial-". Format:
-- harness/catalogue.h; layout, naming and listing: mutations/README.md.

mutant {
  name = "axial-fold-ignores-its-axis",
  file = "core/axial.c",
  find = "t = (cell / st[axis]) % f->length;",
  replace = "t = (cell / st[0]) % f->length;",
  guards = { "test_each_folded_line_runs_along_its_axis",
             "test_a_scan_step_runs_the_mixer_along_its_own_axis" },
  designed_against = "batch or other axes folded into the swept axis (torch-dimensions DEBUG.md #8)",
  why = "reads the position along the line from axis 0 whatever axis is folded",
}

mutant {
  name = "axial-runs-span-a-jump",
  file = "core/axial.c",
  find = "if (k > 0 && map[p] == run[k - 1].cell + run[k - 1].len)",
  replace = "if (k > 0 && map[p] >= run[k - 1].cell + run[k - 1].len)",
  guards = { "test_fold_apply_and_undo_move_every_row_where_fold_says" },
  designed_against = "a copy coalesced over a range the map does not cover moves the wrong rows",
  why = "extends a run over any increasing cell, so a fold across rows copies neighbours instead",
}

mutant {
  name = "axial-fold-inverse-is-the-fold",
  file = "core/axial.c",
  find = "f->unfold[f->fold[k]] = k;",
  replace = "f->unfold[k] = f->fold[k];",
  guards = { "test_a_folds_inverse_is_the_argsort_of_the_fold" },
  designed_against = "a fold's inverse derived by hand instead of checked against an argsort (torch-dimensions DEBUG.md §B2)",
  why = "takes the fold permutation for its own inverse",
}

mutant {
  name = "axial-select-by-multiplication",
  file = "core/axial.c",
  find = "if (!mask[c]) /* a store, never a product: NaN * 0 is NaN */",
  replace = "for (size_t k = 0; k < channels; k++)\n\t\t\t\tv[k] = v[k] * (td_real)mask[c];\n\t\t\tif (0)",
  guards = { "test_selection_zeroes_nan_and_infinities_in_absent_cells",
             "test_every_scan_model_passes_the_conformance_suite" },
  designed_against = "masking by multiplication instead of selection: NaN * 0 and inf * 0 are NaN",
  why = "zeroes absent cells by multiplying them by the mask",
}

mutant {
  name = "axial-axis-order-from-storage",
  file = "core/axial.c",
  find = "j > (t >= 0) && strcmp(",
  replace = "j > (t >= 0) && 0 && strcmp(",
  guards = { "test_the_canonical_axis_order_is_time_first_then_by_name",
             "test_every_kernel_model_passes_the_conformance_suite",
             "test_every_flatten_model_passes_the_conformance_suite" },
  designed_against = "an order taken from storage order, not from the axes' names (torch-dimensions DEBUG.md #22)",
  why = "leaves the spatial axes in storage order: contraction and sequence order then depend on layout",
}
