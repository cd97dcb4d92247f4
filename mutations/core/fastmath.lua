-- mutations/core/fastmath.lua: the mutants of core/fastmath.h, exp, sigmoid
-- and tanh on td_real for the mixers' hot loops.
--
-- Each entry re-introduces one bug class into the module and names the tests
-- that must notice; every name starts with "fastmath-". Format:
-- harness/catalogue.h; layout, naming and listing: mutations/README.md.
--
-- The float build's exp, sigmoid and tanh. The double build uses libm, so
-- only the float tests can see these.

mutant {
  name = "fastmath-exp-clamp-too-tight",
  file = "core/fastmath.h",
  find = "#define TD_FM_EXP_LIMIT 0x42d00000u",
  replace = "#define TD_FM_EXP_LIMIT 0x42b00000u",
  guards = { "test_fastmath_exp_is_within_one_ulp_of_libm",
             "test_fastmath_denormal_results_are_kept" },
  designed_against = "a clamp at |x| <= 88 looks safe but makes exp finite where it must overflow and 0 where it must be denormal",
  why = "clamps |x| to 88 instead of 104",
}

mutant {
  name = "fastmath-exp-coefficient",
  file = "core/fastmath.h",
  find = "p = p * r + 4.1665795894e-2f;",
  replace = "p = p * r + 4.1e-2f;",
  guards = { "test_fastmath_exp_is_within_one_ulp_of_libm",
             "test_fastmath_sigmoid_is_within_two_and_a_half_ulp_of_libm",
             "test_fastmath_tanh_is_within_one_and_a_half_ulp_of_libm" },
  designed_against = "a polynomial coefficient off in the third digit still gives plausible values (about 1e-5 relative), and training hides it",
  why = "perturbs exp's r^4 coefficient",
}

mutant {
  name = "fastmath-sigmoid-naive",
  file = "core/fastmath.h",
  find = "return td_fm_select(x < 0, e, 1.0f) / (1.0f + e);",
  replace = "return (void)e, 1.0f / (1.0f + td_exp(-x));",
  guards = { "test_fastmath_sigmoid_is_within_two_and_a_half_ulp_of_libm",
             "test_fastmath_denormal_results_are_kept" },
  designed_against = "1 / (1 + exp(-x)) overflows exp for x < -88.7 and returns 0 where the sigmoid is a denormal",
  why = "computes the sigmoid as 1 / (1 + exp(-x)) for every x",
}

mutant {
  name = "fastmath-tanh-small-branch-dropped",
  file = "core/fastmath.h",
  find = "p = td_fm_select(a < 0.625f, p, big);",
  replace = "p = big;",
  guards = { "test_fastmath_tanh_is_within_one_and_a_half_ulp_of_libm",
             "test_fastmath_edge_cases_are_exact" },
  designed_against = "1 - 2 / (exp(2x) + 1) alone cancels near 0: tanh(1e-30) becomes 0",
  why = "uses the large-argument formula for every x",
}
