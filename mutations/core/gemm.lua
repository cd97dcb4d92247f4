-- mutations/core/gemm.lua: the mutants of core/gemm.c, cache-blocked GEMM
-- with a fixed reduction order (see gemm.h).
--
-- Each entry re-introduces one bug class into the module and names the tests
-- that must notice; every name starts with "gemm-". Format:
-- harness/catalogue.h; layout, naming and listing: mutations/README.md.

mutant {
  name = "gemm-unknown-kernel-accepted",
  file = "core/gemm.c",
  find = "\treturn TD_FAIL(TD_EINVAL, \"no GEMM kernel is called",
  replace = "\treturn 0;\n\treturn TD_FAIL(TD_EINVAL, \"no GEMM kernel is called",
  guards = { "test_gemm_kernels_are_chosen_by_name_and_unknown_names_refused" },
  designed_against = "a setting that names nothing must be refused, not silently ignored",
  why = "accepts a kernel name this build does not have and keeps running another",
}

mutant {
  name = "gemm-swapped-job-stores-untransposed",
  file = "core/gemm.c",
  find = "td_real *cji = g->c + (j0 + j) * g->ldc + i0 + i;",
  replace = "td_real *cji = g->c + (i0 + i) * g->ldc + j0 + j;",
  guards = { "test_gemm_every_element_is_its_sum_in_k_order_bitwise" },
  designed_against = "a product computed transposed for speed and written back in the layout of the transpose",
  why = "A^T B with fewer than 8 columns is computed as C^T and stored as if it were C",
}

mutant {
  name = "gemm-beta-zero-reads-c",
  file = "core/gemm.c",
  find = "if (beta == 0)",
  replace = "if (0)",
  guards = { "test_gemm_with_beta_zero_the_old_c_is_never_read" },
  finding = 24,
  why = "computes alpha * acc + 0 * C, reading C (NaN * 0 is NaN)",
}

mutant {
  name = "gemm-store-past-the-block",
  file = "core/gemm.c",
  find = "for (size_t j = 0; j < nc; j++)\n\t\t\t\tcrow[j] = alpha * arow[j];",
  replace = "for (size_t j = 0; j <= nc; j++)\n\t\t\t\tcrow[j] = alpha * arow[j];",
  guards = { "test_gemm_leaves_the_padding_outside_the_matrix_untouched" },
  designed_against = "an off-by-one store writes into the caller's padding past the leading dimension's n columns",
  why = "stores one column past each output block",
}

mutant {
  name = "gemm-trans-a-strides-swapped",
  file = "core/gemm.c",
  find = "pn->a = g->a + p0 * g->lda + i0, pn->ars = 1, pn->aps = g->lda;",
  replace = "pn->a = g->a + p0 * g->lda + i0, pn->ars = g->lda, pn->aps = 1;",
  guards = { "test_gemm_matches_a_naive_triple_loop" },
  designed_against = "reading a matrix in place through strides: swapping the row and column strides reads the transpose",
  why = "walks a transposed A along its stored rows as if it were not transposed",
}

mutant {
  name = "gemm-trans-b-ignored",
  file = "core/gemm.c",
  find = "if (!g->o.trans_b) {",
  replace = "if (1) {",
  guards = { "test_gemm_matches_a_naive_triple_loop" },
  designed_against = "a transpose flag that is accepted and then not honoured computes with the wrong matrix",
  why = "reads B as stored whatever trans_b says",
}

mutant {
  name = "gemm-packed-panel-kept-across-panels",
  file = "core/gemm.c",
  find = "\tif (g->k > kc || s->bp_bj != bj) /* with one k-panel, a row block reuses it */\n\t\tpack_bt(g, s->bp, p0, pn->kc, j0, pn->nc);\n\ts->bp_bj = g->k > kc ? SIZE_MAX : bj;",
  replace = "\tif (g->k > KC || s->bp_bj != bj) /* with one k-panel, a row block reuses it */\n\t\tpack_bt(g, s->bp, p0, pn->kc, j0, pn->nc);\n\ts->bp_bj = g->k > KC ? SIZE_MAX : bj;",
  guards = { "test_gemm_every_element_is_its_sum_in_k_order_bitwise" },
  designed_against = "a reuse test written for one panel depth while another is in force",
  why = "with a transposed A and B and k between 64 and 128 every panel after the first reads the first panel's packed B",
}

mutant {
  name = "gemm-direct-write-ignores-beta",
  file = "core/gemm.c",
  find = "const int direct = g->k > 0 && g->k <= kc && g->o.alpha == 1 && g->o.beta == 0 && !g->swapped;",
  replace = "const int direct = g->k > 0 && g->k <= kc && g->o.alpha == 1 && !g->swapped;",
  guards = { "test_gemm_matches_a_naive_triple_loop" },
  designed_against = "a shortcut taken under a weaker condition than the one that makes it exact",
  why = "writes the sums straight into C when beta asks to add to it, dropping beta * C",
}

mutant {
  name = "gemm-swapped-job-writes-c-directly",
  file = "core/gemm.c",
  find = "const int direct = g->k > 0 && g->k <= kc && g->o.alpha == 1 && g->o.beta == 0 && !g->swapped;",
  replace = "const int direct = g->k > 0 && g->k <= kc && g->o.alpha == 1 && g->o.beta == 0;",
  guards = { "test_gemm_every_element_is_its_sum_in_k_order_bitwise" },
  designed_against = "a shortcut (the kernel writing into C as its tile) taken by a job whose tile is not C's layout",
  why = "a swapped job of one panel writes C^T's rows over C",
}

mutant {
  name = "gemm-wide-tile-written-into-c",
  file = "core/gemm.c",
  find = "\t\t    !in_c && g->o.trans_b};",
  replace = "\t\t    g->o.trans_b};",
  guards = { "test_gemm_leaves_the_padding_outside_the_matrix_untouched" },
  designed_against = "a kernel that writes whole vectors past a block's last column must write them where there is room, never into the caller's C",
  why = "lets the kernel write a packed B^T's last columns whole vectors wide when its tile is C",
}

mutant {
  name = "gemm-k-zero-tile-not-cleared",
  file = "core/gemm.c",
  find = "for (size_t i = 0; g->k == 0 && i < mc; i++)",
  replace = "for (size_t i = 0; 0 && i < mc; i++)",
  guards = { "test_gemm_matches_a_naive_triple_loop" },
  designed_against = "a kernel that starts its sums in registers leaves the tile unwritten when there is nothing to sum",
  why = "with k = 0 no panel runs, so C = alpha * (stale stack) + beta * C instead of beta * C",
}

mutant {
  name = "gemm-last-partial-k-panel-dropped",
  file = "core/gemm.c",
  find = "for (size_t p0 = 0; p0 < g->k; p0 += kc, pn.first = 0) {",
  replace = "for (size_t p0 = 0; p0 + kc <= g->k; p0 += kc, pn.first = 0) {",
  guards = { "test_gemm_matches_a_naive_triple_loop",
             "test_gemm_with_beta_zero_the_old_c_is_never_read" },
  designed_against = "a blocked loop that only visits whole panels silently drops the tail of every sum",
  why = "skips the last k-panel when k is not a multiple of KC (all of it when k < KC)",
}

mutant {
  name = "gemm-k-panels-in-worker-order",
  file = "core/gemm.c",
  find = "for (size_t p0 = 0; p0 < g->k; p0 += kc, pn.first = 0) {",
  replace = "for (size_t q = 0, panels = (g->k + kc - 1) / kc; q < panels; q++, pn.first = 0) {\n\t\tsize_t p0 = (q + (bi * g->n_bj + bj) % g->workers) % panels * kc;",
  guards = { "test_gemm_results_are_bitwise_equal_for_any_thread_count",
             "test_mixer_results_are_bitwise_equal_for_any_thread_count" },
  designed_against = "a summation order that depends on the thread count makes results differ in the last bits between runs",
  why = "starts each block's k-panels at its worker's index, \"to spread memory traffic\"",
}

mutant {
  name = "gemm-whole-tile-always-wide",
  file = "core/gemm.c",
  find = "return g->m * padded(g->n) <= MC * NC ? padded(g->n) : g->n;",
  replace = "return padded(g->n);",
  guards = { "test_gemm_every_element_is_its_sum_in_k_order_bitwise" },
  designed_against = "a tile laid out with room for padding must still fit its scratch buffer",
  why = "lays run_panels' tile out with rows padded to 16 even when they overflow it",
}

mutant {
  name = "gemm-narrow-tile-taken-as-wide",
  file = "core/gemm.c",
  find = "const int wide = g->o.trans_b && ts == padded(n);",
  replace = "const int wide = g->o.trans_b;",
  guards = { "test_gemm_every_element_is_its_sum_in_k_order_bitwise" },
  designed_against = "whole vectors written past a row's last column land on the next row's sums when the rows are exactly n apart",
  why = "lets the kernel write whole vectors into a tile whose rows are n apart",
}

mutant {
  name = "gemm-panels-each-start-from-zero",
  file = "core/gemm.c",
  find = "min_size(NC, n - bj * NC), 0, p0 == 0, ts, g->o.trans_b, wide};",
  replace = "min_size(NC, n - bj * NC), 0, 1, ts, g->o.trans_b, wide};",
  guards = { "test_gemm_every_element_is_its_sum_in_k_order_bitwise" },
  designed_against = "a sum split across panels that restarts at each one",
  why = "run_panels keeps only the last panel's sum of every element",
}

mutant {
  name = "gemm-small-product-k-backwards",
  file = "core/gemm.c",
  find = "for (size_t p = 0; p < g->k; p++)",
  replace = "for (size_t p = g->k; p-- > 0;)",
  guards = { "test_gemm_every_element_is_its_sum_in_k_order_bitwise" },
  designed_against = "the small-product shortcut must keep the contract's order, or a product's bits depend on its size class",
  why = "sums a small product's k terms from the last to the first",
}

mutant {
  name = "gemm-small-product-beta-zero-reads-c",
  file = "core/gemm.c",
  find = "*cij = g->o.beta == 0 ?",
  replace = "*cij = 0 ?",
  guards = { "test_gemm_with_beta_zero_the_old_c_is_never_read" },
  designed_against = "BLAS semantics hold for every product size: with beta 0 the old C is not read",
  why = "computes a small product as alpha * s + 0 * C, reading C (NaN * 0 is NaN)",
}

mutant {
  name = "gemm-split-rows-keeps-the-old-block-count",
  file = "core/gemm.c",
  find = "g->n_bi = (g->m + g->mb - 1) / g->mb;",
  replace = "",
  guards = { "test_gemm_results_are_bitwise_equal_for_any_thread_count" },
  designed_against = "a block size changed without the count of blocks that depends on it",
  why = "a weight gradient cut into blocks of 24 rows for 2 threads still counts 3 blocks of 32: its last rows are never computed",
}

mutant {
  name = "gemm-ldb-unchecked",
  file = "core/gemm.c",
  find = "if (ldb < b_cols)",
  replace = "if (0)",
  guards = { "test_gemm_bad_arguments_are_refused_with_a_message" },
  designed_against = "a leading dimension smaller than the row reads rows that overlap, silently",
  why = "accepts an ldb smaller than B's stored columns",
}

mutant {
  name = "gemm-count-not-zeroed-at-begin",
  file = "core/gemm.c",
  find = "atomic_store(&counted, 0);",
  replace = "",
  guards = { "test_gemm_counts_the_multiply_adds_asked_of_it" },
  designed_against = "a counter that carries one measurement into the next charges a case with the work of the one before",
  why = "begins counting from whatever the last count left",
}

mutant {
  name = "gemm-count-ignores-k",
  file = "core/gemm.c",
  find = "atomic_fetch_add_explicit(&counted, (uint64_t)m * n * k, memory_order_relaxed);",
  replace = "atomic_fetch_add_explicit(&counted, (uint64_t)m * n, memory_order_relaxed);",
  guards = { "test_gemm_counts_the_multiply_adds_asked_of_it" },
  designed_against = "a work counter that counts calls or outputs instead of multiply-adds makes a roofline check pass on a wrong cost model",
  why = "counts the outputs of each call, not its multiply-adds",
}

mutant {
  name = "gemm-swapped-job-keeps-a-transposed-b-unread",
  file = "core/gemm.c",
  find = "g.o.trans_a = !o->trans_b, g.o.trans_b = !o->trans_a;",
  replace = "g.o.trans_a = !o->trans_b, g.o.trans_b = o->trans_a;",
  guards = { "test_gemm_every_element_is_its_sum_in_k_order_bitwise" },
  designed_against = "a product rewritten as its transpose whose operands keep the original's transpose flags",
  why = "A B with fewer than 8 columns, computed as C^T, reads A as C^T's B without transposing it",
}
