-- mutations/bench/core.lua: the mutants of bench/core.c, the benchmark of
-- the core's cases: its exit status says whether every case agreed.
--
-- Each entry re-introduces one bug class into the module and names the tests
-- that must notice; every name starts with "core-". Format:
-- harness/catalogue.h; layout, naming and listing: mutations/README.md.

mutant {
  name = "core-verdict-read-after-the-free",
  file = "bench/core.c",
  find = "return bad;",
  replace = "return (void)bad, !eq || k.gemm != r1.gemm_ops;",
  guards = { "test_bench_core_exits_0_when_a_case_agrees" },
  finding = 31,
  why = "takes the verdict from a result after result_free zeroed it, so every GEMM case fails",
}
