-- mutations/core/vec8.lua: the mutants of core/vec8.h, a vector of eight
-- td_real for loops written with GCC's vector extensions (the attention
-- pairs' products and softmax, the conv's sums).
--
-- Each entry re-introduces one bug class into the module and names the tests
-- that must notice; every name starts with "vec8-". Format:
-- harness/catalogue.h; layout, naming and listing: mutations/README.md.

mutant {
  name = "vec8-exps-takes-the-first-vectors-n",
  file = "core/vec8.h",
  find = "TD_VEC8_EACH r[u] = x[u] - p[u] * 0.693359375f;",
  replace = "TD_VEC8_EACH r[u] = x[u] - p[0] * 0.693359375f;",
  guards = { "test_fastmath_vec8_exps_give_td_exp_bits" },
  designed_against = "steps interleaved across vectors reading another vector's value: right for the first vector, wrong for the rest",
  why = "reduces every vector by the first vector's n ln2",
}

mutant {
  name = "vec8-exps-low-lanes-not-zeroed",
  file = "core/vec8.h",
  find = "TD_VEC8_EACH x[u] = (td_vec8)((vint)x[u] & ~low[u]);\n#endif",
  replace = "TD_VEC8_EACH x[u] = (td_vec8)((vint)x[u] & ~(low[u] & 0));\n#endif",
  guards = { "test_fastmath_vec8_exps_give_td_exp_bits" },
  designed_against = "the vector exp drifting from td_exp: a lane below -104 computes exp(0) to spare an underflow, and must still give 0 (a masked softmax key's exp(-inf))",
  why = "leaves exp(0) = 1 in the lanes below -104",
}
