-- mutations/bench/cases.lua: the mutants of bench/cases.h, the cases
-- bench/core times, and what each one costs.
--
-- Each entry re-introduces one bug class into the module and names the tests
-- that must notice; every name starts with "cases-". Format:
-- harness/catalogue.h; layout, naming and listing: mutations/README.md.

mutant {
  name = "cases-cost-counts-du-on-one-step-lines",
  file = "bench/cases.h",
  find = "return 2 * gate_ops * lines + (length == 1 ? gate_ops * lines : 0);",
  replace = "return 2 * gate_ops * lines + 0 * length;",
  guards = { "test_bench_cost_model_claims_the_gemm_work_that_runs" },
  designed_against = "a cost model derived by hand claims a product the code skips, and the roofline puts the case nearer the peak than it is (DEBUG.md #25)",
  why = "charges the GRU's and LSTM's dU on lines of one step, which the mixers skip",
}

mutant {
  name = "cases-cost-attention-one-step-full-projections",
  file = "bench/cases.h",
  find = "k.gemm = t == 1 ? 12 * p * c * c : 24 * p * c * c;",
  replace = "k.gemm = 24 * p * c * c;",
  guards = { "test_bench_cost_model_claims_the_gemm_work_that_runs" },
  designed_against = "a cost model that ignores a fast path claims the work of the slow one (DEBUG.md #25)",
  why = "charges attention's q and k projections on lines of one step, where its one-step path computes v alone",
}
