-- mutations/core/gemm_kernel.lua: the mutants of core/gemm_kernel.inc, the
-- packed-panel kernel of gemm.c, written once for a vector width and included
-- once per width (gemm.c defines KERNEL_VEC_BYTES, KERNEL_SUFFIX and
-- KERNEL_TARGET before each include).
--
-- Each entry re-introduces one bug class into the module and names the tests
-- that must notice; every name starts with "gemm_kernel-". Format:
-- harness/catalogue.h; layout, naming and listing: mutations/README.md.

mutant {
  name = "gemm_kernel-sums-k-backwards",
  file = "core/gemm_kernel.inc",
  find = "\tfor (size_t p = 0; p < kc; p++) {\n\t\tconst KNAME(vec) b0 = KNAME(vload)(b + p * brs), b1 = KNAME(vload)(b + p * brs + KLANES);\n\t\tconst td_real *ap = a + p * aps;\n\t\tconst td_real a0 = ap[0]",
  replace = "\tfor (size_t p = kc; p-- > 0;) {\n\t\tconst KNAME(vec) b0 = KNAME(vload)(b + p * brs), b1 = KNAME(vload)(b + p * brs + KLANES);\n\t\tconst td_real *ap = a + p * aps;\n\t\tconst td_real a0 = ap[0]",
  guards = { "test_gemm_every_element_is_its_sum_in_k_order_bitwise" },
  designed_against = "a faster kernel that reorders a sum: results agree to rounding with a reference, and differ in the last bits from the documented order and from other kernels",
  why = "runs the register block's k loop from the end of the panel",
}

mutant {
  name = "gemm_kernel-six-row-block-sums-k-backwards",
  file = "core/gemm_kernel.inc",
  find = "\tfor (size_t p = 0; p < kc; p++) {\n\t\tconst KNAME(vec) b0 = KNAME(vload)(b + p * brs), b1 = KNAME(vload)(b + p * brs + KLANES);\n\t\tconst td_real *ap = a + p * aps;\n\n\t\tc00 += ap[0] * b0",
  replace = "\tfor (size_t p = kc; p-- > 0;) {\n\t\tconst KNAME(vec) b0 = KNAME(vload)(b + p * brs), b1 = KNAME(vload)(b + p * brs + KLANES);\n\t\tconst td_real *ap = a + p * aps;\n\n\t\tc00 += ap[0] * b0",
  guards = { "test_gemm_every_element_is_its_sum_in_k_order_bitwise" },
  designed_against = "a wider register block added for speed must keep the order every other block keeps",
  why = "runs the six-row block's k loop from the end of the panel",
}

mutant {
  name = "gemm_kernel-six-row-block-reads-a-row-twice",
  file = "core/gemm_kernel.inc",
  find = "c50 += ap[5 * ars] * b0",
  replace = "c50 += ap[4 * ars] * b0",
  guards = { "test_gemm_matches_a_naive_triple_loop" },
  designed_against = "an unrolled register block whose last row copies its neighbour's index",
  why = "the sixth row's first vector of sums takes the fifth row's A",
}

mutant {
  name = "gemm_kernel-narrow-block-sums-k-backwards",
  file = "core/gemm_kernel.inc",
  find = "\tfor (size_t p = 0; p < kc; p++) {\n\t\tconst KNAME(vec) b0 = KNAME(vload)(b + p * brs);\n",
  replace = "\tfor (size_t p = kc; p-- > 0;) {\n\t\tconst KNAME(vec) b0 = KNAME(vload)(b + p * brs);\n",
  guards = { "test_gemm_every_element_is_its_sum_in_k_order_bitwise" },
  designed_against = "a kernel added for one shape (n = 8) must keep the order every other shape keeps",
  why = "runs the one-vector column block's k loop from the end of the panel",
}

mutant {
  name = "gemm_kernel-wide-tail-computes-one-vector",
  file = "core/gemm_kernel.inc",
  find = "const size_t w = n < KLANES ? KLANES : 2 * KLANES;",
  replace = "const size_t w = KLANES + 0 * n;",
  guards = { "test_gemm_every_element_is_its_sum_in_k_order_bitwise" },
  designed_against = "a padded tail wider than one vector computed as if it were one",
  why = "the last nc mod 2 KLANES columns of a packed B^T, when more than KLANES, get only one vector's sums",
}

mutant {
  name = "gemm_kernel-tail-forgets-the-earlier-panels",
  file = "core/gemm_kernel.inc",
  find = "for (size_t i = 0; !pn->first && i < 4; i++)",
  replace = "for (size_t i = 0; 0 && i < 4; i++)",
  guards = { "test_gemm_every_element_is_its_sum_in_k_order_bitwise" },
  designed_against = "a padded copy of an accumulator must start from the sums so far, not from zero, when k spans several panels",
  why = "with k over one panel the tail columns hold only the last panel's sum",
}

mutant {
  name = "gemm_kernel-tail-drops-its-last-column",
  file = "core/gemm_kernel.inc",
  find = "\t\tmemcpy(acc + i * pn->ts, t + i * w, n * sizeof *t);",
  replace = "\t\tmemcpy(acc + i * pn->ts, t + i * w, (n - 1) * sizeof *t);",
  guards = { "test_gemm_every_element_is_its_sum_in_k_order_bitwise" },
  designed_against = "a tail done through a padded copy must copy back exactly the columns it stands for",
  why = "the last column of every product whose width is not a multiple of the vector width keeps its old value",
}

mutant {
  name = "gemm_kernel-one-row-forgets-the-earlier-panels",
  file = "core/gemm_kernel.inc",
  find = "\tif (!first)\n\t\tc0 = KNAME(vload)(acc), c1 = KNAME(vload)(acc + KLANES);\n\tfor (size_t p = 0; p < kc; p++) {\n\t\tconst td_real ap",
  replace = "\tif (0 && !first)\n\t\tc0 = KNAME(vload)(acc), c1 = KNAME(vload)(acc + KLANES);\n\tfor (size_t p = 0; p < kc; p++) {\n\t\tconst td_real ap",
  guards = { "test_gemm_every_element_is_its_sum_in_k_order_bitwise" },
  designed_against = "a register-blocked kernel that starts each panel from zero instead of the sums so far",
  why = "a row past the last four keeps only its last k-panel's sum",
}
