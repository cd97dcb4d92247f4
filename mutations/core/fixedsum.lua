-- mutations/core/fixedsum.lua: the mutants of core/fixedsum.h, a dot product
-- in double whose order of additions is fixed and vectorises.
--
-- Each entry re-introduces one bug class into the module and names the tests
-- that must notice; every name starts with "fixedsum-". Format:
-- harness/catalogue.h; layout, naming and listing: mutations/README.md.

mutant {
  name = "fixedsum-dot3-product-kept-in-double",
  file = "core/fixedsum.h",
  find = "part[q] += (double)(td_real)(a[j + q] * b[j + q]) * (double)c[j + q];",
  replace = "part[q] += (double)a[j + q] * (double)b[j + q] * (double)c[j + q];",
  guards = { "test_dot3_is_dot_fixed_of_the_stored_products" },
  designed_against = "a fused version of a computation that rounds differently from the one it replaces",
  why = "RMSNorm's backward sums products that were never rounded to td_real: not the bits it had",
}
