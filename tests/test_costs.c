/*
 * test_costs.c - the benchmark's cost model (bench/cases.h) against what
 * runs: the GEMM operations it claims for each case equal, exactly, twice
 * the multiply-adds td_gemm counts during that case's forward and
 * backward. The README's roofline (each case's floor, its GFLOP/s) is
 * computed from this model; a term for a product that never runs makes a
 * case look closer to the machine's peak than it is.
 */
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>

#include "../bench/cases.h"
#include "../core/gemm.h"
#include "../core/rng.h"
#include "tdtest.h"

/* 2 x the multiply-adds td_gemm is asked for in one step of case c at shape sh. */
static double counted_gemm_ops(const bench_shape *sh, const bench_case *c, const td_lattice *lat)
{
	const size_t n =
	    sh->batch * sh->side * sh->side * (sh->width > sh->out ? sh->width : sh->out);
	td_real *x = td_reals_alloc(n), *dy = td_reals_alloc(n), *y = td_reals_alloc(n);
	td_real *dx = td_reals_alloc(n);
	subject s;
	uint64_t count;

	assert_true(x && dy && y && dx);
	td_rng_fill_normal(1, 1, 0, n, 0, 1, x); /* as bench/core */
	td_rng_fill_normal(1, 2, 0, n, 0, 1, dy);
	assert_int_equal(subject_new(&s, sh, c, lat, 1), 0);
	td_gemm_count_begin();
	assert_int_equal(subject_step(&s, y, dx, x, dy), 0);
	count = td_gemm_count_end();
	subject_free(&s);
	free(x), free(dy), free(y), free(dx);
	return 2.0 * (double)count;
}

/*
 * Every case of bench/core at a small shape, and the complex LRU, which
 * the bench does not time, bare and in the kernel family (its lines of
 * one step take one map, as the LRU's do). The failure lists every case
 * that disagrees.
 */
static void test_bench_cost_model_claims_the_gemm_work_that_runs(void **state)
{
	const bench_shape sh = {2, 5, 8, 2, 3, 3, 2};
	bench_case cases[N_CASES + 2];
	size_t n = make_cases(cases);
	td_lattice *lat = NULL;
	char bad[2048] = "";
	int n_bad = 0;

	(void)state;
	cases[n++] = (bench_case){BARE, TD_BLOCK_SCAN, TD_MIXER_CLRU, "mixer/clru"};
	cases[n++] = (bench_case){BLOCK, TD_BLOCK_KERNEL, TD_MIXER_CLRU, "kernel/clru"};
	assert_int_equal(bench_lattice(&lat, &sh), 0);
	for (size_t i = 0; i < n; i++) {
		const double claimed = cost_of(&sh, &cases[i]).gemm;
		const double counted = counted_gemm_ops(&sh, &cases[i], lat);

		if (claimed != counted) {
			size_t used = strlen(bad);

			snprintf(bad + used, sizeof bad - used, "\n  %s: claims %.0f, ran %.0f",
				 cases[i].name, claimed, counted);
			n_bad++;
		}
	}
	td_lattice_free(lat);
	if (n_bad)
		fail_msg("%d of %zu cases claim GEMM operations other than those that ran:%s",
			 n_bad, n, bad);
}

#ifndef TD_BUILD_DIR
#define TD_BUILD_DIR "build"
#endif

/*
 * bench/core exits 0 when both thread counts agree bitwise and the cost
 * model's GEMM count is the one that ran: its status is what a script
 * running the benchmark reads. One GEMM case, one repetition.
 */
static void test_bench_core_exits_0_when_a_case_agrees(void **state)
{
	char line[1024], out[8192] = "";
	FILE *p;
	int status;

	(void)state;
	p = popen(TD_BUILD_DIR "/bench/core 1 --only mixer/gru 2>&1", "r");
	assert_non_null(p);
	while (fgets(line, sizeof line, p))
		if (strlen(out) + strlen(line) < sizeof out)
			strcat(out, line);
	status = pclose(p);
	if (!strstr(out, "mixer/gru") || !strstr(out, "bitwise equal"))
		fail_msg("bench/core printed no agreeing mixer/gru line:\n%s", out);
	if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
		fail_msg("bench/core exited with status %d after an agreeing case:\n%s",
			 WIFEXITED(status) ? WEXITSTATUS(status) : -1, out);
}

static const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_bench_cost_model_claims_the_gemm_work_that_runs),
    cmocka_unit_test(test_bench_core_exits_0_when_a_case_agrees),
};

TD_TEST_GROUP(costs, tests);
