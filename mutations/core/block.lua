-- mutations/core/block.lua: the mutants of core/block.c, the block object.
--
-- Each entry re-introduces one bug class into the module and names the tests
-- that must notice; every name starts with "block-". Format:
-- harness/catalogue.h; layout, naming and listing: mutations/README.md.

mutant {
  name = "block-chunk-unchecked",
  file = "core/block.c",
  find = "if (o->chunk < 1)",
  replace = "if (0)",
  guards = { "test_chunk_must_be_at_least_1_and_the_refusal_names_it",
             "test_bad_block_options_are_refused_with_a_message" },
  designed_against = "chunk=0 failing deep inside without naming chunk (torch-dimensions DEBUG.md #17)",
  why = "accepts chunk 0 and divides by it later",
}

mutant {
  name = "block-scan-step-direction-ignored",
  file = "core/block.c",
  find = "mo.reverse = b->o.reverse;",
  replace = "mo.reverse = 0;",
  guards = { "test_a_reverse_step_is_the_forward_step_over_the_flipped_axis" },
  designed_against = "a plan's direction silently dropped: half the receptive field (torch-dimensions DEBUG.md #4)",
  why = "sweeps every scan step forward whatever the step says",
}

mutant {
  name = "block-scan-shortcut-ignores-example-masks",
  file = "core/block.c",
  find = "return td_lattice_n_present(b->lat) == b->n_cells && !b->emask;",
  replace = "return td_lattice_n_present(b->lat) == b->n_cells;",
  guards = { "test_a_scan_block_obeys_a_mask_per_example" },
  designed_against = "a no-copy shortcut that skips the selection where a cell can still be absent",
  why = "a step along the innermost axis mixes the values of cells absent from their example",
}

mutant {
  name = "block-scan-shortcut-ignores-absent-cells",
  file = "core/block.c",
  find = "return td_lattice_n_present(b->lat) == b->n_cells && !b->emask;",
  replace = "return !b->emask;",
  guards = { "test_every_scan_model_passes_the_conformance_suite" },
  designed_against = "a no-copy shortcut that skips the selection where a cell can still be absent",
  why = "a step along the innermost axis of a sparse lattice lets absent cells reach the mixer",
}

mutant {
  name = "block-example-mask-not-applied",
  file = "core/block.c",
  find = "return b->mask[c] && (!b->emask || b->emask[e * b->n_cells + c]);",
  replace = "return b->mask[c] && (!b->emask || b->emask[e * b->n_cells + c] || 1);",
  guards = { "test_a_scan_block_obeys_a_mask_per_example" },
  designed_against = "a block used alone must obey the example's mask too, not rely on its caller",
  why = "the scan block mixes the values of cells absent from their example",
}

mutant {
  name = "block-fold-dense-copy-drops-the-last-value",
  file = "core/block.c",
  find = "memcpy(dst, src, r->len * ch * sizeof *dst);",
  replace = "memcpy(dst, src, (r->len * ch - 1) * sizeof *dst);",
  guards = { "test_a_scan_step_runs_the_mixer_along_its_own_axis" },
  designed_against = "a fast path beside a general one, written again instead of shared, with its own bound",
  why = "on a lattice with no absent cell every run of a fold loses its last channel",
}

mutant {
  name = "block-fold-selects-by-range-offset",
  file = "core/block.c",
  find = "select_rows(j->b, e, r->cell, r->len, ch, dst, src);",
  replace = "select_rows(j->b, e - e0, r->cell, r->len, ch, dst, src);",
  guards = { "test_a_model_gives_the_same_bits_for_any_thread_count" },
  designed_against = "a per-example mask indexed from the start of the thread's range",
  why = "with several threads a fold selects later examples' cells by the first example's mask",
}

mutant {
  name = "block-example-mask-accepted-by-every-family",
  file = "core/block.c",
  find = "if (mask && b->ops != &td_family_scan_ops)",
  replace = "if (0)",
  guards = { "test_families_that_cannot_take_a_mask_per_example_refuse_it" },
  designed_against = "a family that cannot honour a mask must refuse it, not ignore it",
  why = "the kernel and flatten families accept a mask they never read",
}

mutant {
  name = "block-call-workspace-sized-by-chunk-alone",
  file = "core/block.c",
  find = "const size_t per = call_lines(b, length);",
  replace = "const size_t per = b->o.chunk;",
  guards = { "test_a_kernel_block_gives_each_cell_its_result_whatever_the_chunk" },
  designed_against = "a size computed in two places that drift apart: a call takes more lines than its workspace was sized for",
  why = "a kernel block's per-cell mixer calls take chunk times the longest axis's lines in a workspace sized for chunk lines",
}

mutant {
  name = "block-calls-skip-a-line-between-calls",
  file = "core/block.c",
  find = "at < lines; at += call, k++) {",
  replace = "at < lines; at += call + 1, k++) {",
  guards = { "test_a_kernel_block_gives_each_cell_its_result_whatever_the_chunk" },
  designed_against = "a blocked loop whose step and block end disagree: a line between two blocks never runs",
  why = "the line after each mixer call never gets its y or dx",
}
