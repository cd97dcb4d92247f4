/*
 * test_fastmath.c - td_exp, td_sigmoid and td_tanh (core/fastmath.h), and
 * td_vec8_exps (core/vec8.h).
 *
 * Independent reference: libm in double precision, which is accurate far
 * beyond a float's ulp. The float build's functions are our own; the sweeps
 * visit every 509th float bit pattern (8.4 million arguments, every binade
 * of both signs, NaNs and infinities included) and hold each function to
 * the largest error an exhaustive run over all 2^32 floats measured
 * (x86-64, GCC 12, vectorised and scalar agreeing bit for bit everywhere):
 *   td_exp      0.9903 ulp at x = 70.4031
 *   td_sigmoid  2.4019 ulp at x = -4.15729
 *   td_tanh     1.3303 ulp at x = 0.628310
 * with an ulp measured at the exact result (2^-149 for denormal results), so
 * the bound is relative for normal results and absolute among denormals.
 * An exact result beyond FLT_MAX must give inf, and an exact result below
 * half the smallest denormal must give 0. In the double build the functions
 * are libm's, which the tests check bit for bit instead.
 *
 * What these tests guard: tdaudit mutate --list --file core/fastmath.h
 *   and --list --file core/vec8.h
 *
 * Edits seen breaking these tests that the catalogue may not hold:
 *   - the exp polynomial's 1/24 coefficient 4.1665795894e-2f -> 4.1e-2f
 *       -> exp_is_within_one_ulp (and the sigmoid and tanh bounds)
 *   - the tanh polynomial's -1/3 written -3.3e-1f -> tanh_is_within
 *   - the exp clamp at |x| <= 104 (0x42d00000) lowered to 88 (0x42b00000)
 *       -> exp_is_within_one_ulp (no inf above 88.7, no denormals)
 *   - sigmoid as 1 / (1 + exp(-x)) -> sigmoid_is_within (0 for
 *     x < -88.7, where the exact value is a denormal)
 *   - td_vec8_exps leaving exp(0) in its lanes below -104, or reducing
 *     every vector by the first vector's n ln2 -> vec8_exps_give_td_exp_bits
 */
#include "tdtest.h"

#include <math.h>
#include <string.h>

#include "../core/fastmath.h"
#include "../core/vec8.h"

#define STRIDE 509u /* a prime, so the sweep's low bits take every value */

typedef td_real (*fn)(td_real);

/* Called through pointers, these are out-of-line and never vectorised. */
static td_real call_exp(td_real x)
{
	return td_exp(x);
}

static td_real call_sigmoid(td_real x)
{
	return td_sigmoid(x);
}

static td_real call_tanh(td_real x)
{
	return td_tanh(x);
}

static double ref_exp(double x)
{
	return exp(x);
}

static double ref_sigmoid(double x)
{
	return 1 / (1 + exp(-x));
}

static double ref_tanh(double x)
{
	return tanh(x);
}

static int same_bits(td_real a, td_real b)
{
	return memcmp(&a, &b, sizeof a) == 0;
}

#ifndef TD_REAL_DOUBLE

static float from_bits(uint32_t u)
{
	float f;

	memcpy(&f, &u, sizeof f);
	return f;
}

/* A float's ulp at the exact value d: 2^(e - 23) for 2^e <= |d| < 2^(e+1), at least 2^-149. */
static double ulp_at(double d)
{
	int e;

	(void)frexp(d, &e);
	return ldexp(1, (e - 1 < -126 ? -126 : e - 1) - 23);
}

/*
 * Sweeps every STRIDE-th float through f and returns the largest error in
 * ulps against ref; a NaN argument must give NaN, and a result that
 * rounds to +-inf must be that inf (either failing returns INFINITY).
 */
static double max_ulp_error(fn f, double (*ref)(double), float *worst_x)
{
	double worst = 0;

	for (uint64_t b = 0; b < (UINT64_C(1) << 32); b += STRIDE) {
		float x = from_bits((uint32_t)b), y = f(x);
		double d = ref((double)x), err;

		if (isnan(x) || isinf((float)d) || isinf(y)) {
			if (isnan(x) ? !isnan(y) : !same_bits(y, (float)d))
				return *worst_x = x, INFINITY;
			continue;
		}
		err = fabs((double)y - d) / ulp_at(d);
		if (!(err <= worst)) /* a NaN error counts as the worst */
			worst = err, *worst_x = x;
	}
	return worst;
}

static void check_bound(fn f, double (*ref)(double), double bound, const char *name)
{
	float x = 0;
	double err = max_ulp_error(f, ref, &x);

	if (!(err <= bound))
		fail_msg("%s: %.4f ulp at x = %a (%.9g), bound %.4f", name, err, (double)x, (double)x,
			 bound);
}

static void test_fastmath_exp_is_within_one_ulp_of_libm(void **state)
{
	(void)state;
	check_bound(call_exp, ref_exp, 1.0, "td_exp");
}

static void test_fastmath_sigmoid_is_within_two_and_a_half_ulp_of_libm(void **state)
{
	(void)state;
	check_bound(call_sigmoid, ref_sigmoid, 2.5, "td_sigmoid");
}

static void test_fastmath_tanh_is_within_one_and_a_half_ulp_of_libm(void **state)
{
	(void)state;
	check_bound(call_tanh, ref_tanh, 1.5, "td_tanh");
}

/* Denormal results: nonzero, correctly scaled, and exactly 0 past half the smallest. */
static void test_fastmath_denormal_results_are_kept(void **state)
{
	(void)state;
	assert_true(td_exp(-100.0f) > 0 && td_exp(-100.0f) < FLT_MIN);
	assert_true(fabs((double)td_exp(-100.0f) - exp(-100.0)) <= 0x1p-149);
	assert_true(fabs((double)td_exp(-103.9f) - exp(-103.9)) <= 0x1p-149);
	assert_true(td_exp(-103.98f) == 0 && td_exp(-104.0f) == 0);
	assert_true(fabs((double)td_sigmoid(-100.0f) - exp(-100.0)) <= 0x1p-149);
	assert_true(td_sigmoid(-95.0f) > 0);
	assert_true(same_bits(td_tanh(0x1p-140f), 0x1p-140f));
	assert_true(same_bits(td_tanh(-0x1p-149f), -0x1p-149f));
}

#else /* TD_REAL_DOUBLE */

/* In the double build the functions are libm's, bit for bit. */
static void test_fastmath_is_libm_in_the_double_build(void **state)
{
	(void)state;
	for (double x = -750; x < 750; x += 0.37) {
		assert_true(same_bits(td_exp(x), ref_exp(x)));
		assert_true(same_bits(td_sigmoid(x), ref_sigmoid(x)));
		assert_true(same_bits(td_tanh(x), ref_tanh(x)));
	}
}

#endif

/* What callers rely on at the ends of the range, in either build. */
static void test_fastmath_edge_cases_are_exact(void **state)
{
	const td_real inf = (td_real)INFINITY, huge = (td_real)1e30;

	(void)state;
	assert_true(td_exp(0) == 1 && td_exp(-(td_real)0) == 1);
	assert_true(td_exp(inf) == inf && td_exp(huge) == inf && td_exp(1000) == inf);
	assert_true(same_bits(td_exp(-inf), 0) && same_bits(td_exp(-huge), 0));
	assert_true(td_sigmoid(0) == (td_real)0.5 && td_sigmoid(-(td_real)0) == (td_real)0.5);
	assert_true(td_sigmoid(inf) == 1 && td_sigmoid(huge) == 1 && td_sigmoid(50) == 1);
	assert_true(same_bits(td_sigmoid(-inf), 0) && same_bits(td_sigmoid(-huge), 0));
	assert_true(same_bits(td_tanh(0), 0) && same_bits(td_tanh(-(td_real)0), -(td_real)0));
	assert_true(td_tanh(inf) == 1 && td_tanh(-inf) == -1);
	assert_true(td_tanh(huge) == 1 && td_tanh(-huge) == -1 && td_tanh(20) == 1);
	assert_true(same_bits(td_tanh((td_real)1e-30), (td_real)1e-30));
	assert_true(isnan(td_exp((td_real)NAN)) && isnan(td_exp(-(td_real)NAN)));
	assert_true(isnan(td_sigmoid((td_real)NAN)) && isnan(td_sigmoid(-(td_real)NAN)));
	assert_true(isnan(td_tanh((td_real)NAN)) && isnan(td_tanh(-(td_real)NAN)));
}

/*
 * A loop GCC vectorises (-O2 -fvect-cost-model=dynamic: 4 or 8 lanes, then
 * a scalar remainder) gives the bits of one out-of-line call per argument.
 * The arguments span the useful range, the clamps and the tanh switch.
 */
static void test_fastmath_a_vectorised_loop_gives_the_scalar_bits(void **state)
{
	enum { N = 4099 };
	static td_real x[N], e[N], s[N], t[N];
	static const fn call[] = {call_exp, call_sigmoid, call_tanh};
	fn volatile one;

	(void)state;
	for (int i = 0; i < N; i++)
		x[i] = (td_real)((i - N / 2) * (110.0 / (N / 2)) + 1e-3 * (i % 7));
	for (int i = 0; i < N; i++)
		e[i] = td_exp(x[i]);
	for (int i = 0; i < N; i++)
		s[i] = td_sigmoid(x[i]);
	for (int i = 0; i < N; i++)
		t[i] = td_tanh(x[i] * (td_real)0.05);
	for (int i = 0; i < N; i++) {
		one = call[0];
		assert_true(same_bits(e[i], one(x[i])));
		one = call[1];
		assert_true(same_bits(s[i], one(x[i])));
		one = call[2];
		assert_true(same_bits(t[i], one(x[i] * (td_real)0.05)));
	}
}

/*
 * Checks td_vec8_exps (vec8.h) on n arguments from arg, TD_VEC8_EXPS
 * vectors at a time and then one vector at a time: each lane must give
 * td_exp's bits, out of line.
 */
static void check_vec8_exps(const td_real *arg, size_t n)
{
	td_vec8 x[TD_VEC8_EXPS], one;
	fn volatile call = call_exp;

	for (size_t i = 0; i + TD_VEC8_EXPS * TD_VEC8_LANES <= n; i += TD_VEC8_EXPS * TD_VEC8_LANES) {
		for (size_t u = 0; u < TD_VEC8_EXPS; u++)
			x[u] = td_vec8_load(arg + i + u * TD_VEC8_LANES);
		one = x[0];
		td_vec8_exps(x, TD_VEC8_EXPS);
		td_vec8_exps(&one, 1);
		for (size_t k = 0; k < TD_VEC8_EXPS * TD_VEC8_LANES; k++)
			if (!same_bits(x[k / TD_VEC8_LANES][k % TD_VEC8_LANES], call(arg[i + k])))
				fail_msg("td_vec8_exps: lane %zu of %zu at x = %a gives %a, td_exp %a",
					 k % TD_VEC8_LANES, k / TD_VEC8_LANES, (double)arg[i + k],
					 (double)x[k / TD_VEC8_LANES][k % TD_VEC8_LANES],
					 (double)call(arg[i + k]));
		for (size_t k = 0; k < TD_VEC8_LANES; k++)
			if (!same_bits(one[k], x[0][k]))
				fail_msg("td_vec8_exps of one vector: lane %zu at x = %a gives %a, of %d %a",
					 k, (double)arg[i + k], (double)one[k], TD_VEC8_EXPS,
					 (double)x[0][k]);
	}
}

/*
 * td_vec8_exps gives td_exp's bits lane by lane: in the float build on
 * every STRIDE-th float (NaNs, infinities, the clamps and the denormal
 * results included), in the double build (libm's exp) on a spread of
 * arguments past both ends of the range.
 */
static void test_fastmath_vec8_exps_give_td_exp_bits(void **state)
{
	enum { N = TD_VEC8_EXPS * TD_VEC8_LANES * 64 };
	static td_real arg[N];
	size_t n = 0;

	(void)state;
#ifndef TD_REAL_DOUBLE
	for (uint64_t b = 0; b < (UINT64_C(1) << 32); b += STRIDE) {
		arg[n++] = from_bits((uint32_t)b);
		if (n == N)
			check_vec8_exps(arg, n), n = 0;
	}
#else
	for (double x = -800; x < 800; x += 0.37) {
		arg[n++] = x;
		if (n == N)
			check_vec8_exps(arg, n), n = 0;
	}
#endif
	check_vec8_exps(arg, n);
}

static const struct CMUnitTest tests[] = {
#ifndef TD_REAL_DOUBLE
	cmocka_unit_test(test_fastmath_exp_is_within_one_ulp_of_libm),
	cmocka_unit_test(test_fastmath_sigmoid_is_within_two_and_a_half_ulp_of_libm),
	cmocka_unit_test(test_fastmath_tanh_is_within_one_and_a_half_ulp_of_libm),
	cmocka_unit_test(test_fastmath_denormal_results_are_kept),
#else
	cmocka_unit_test(test_fastmath_is_libm_in_the_double_build),
#endif
	cmocka_unit_test(test_fastmath_edge_cases_are_exact),
	cmocka_unit_test(test_fastmath_a_vectorised_loop_gives_the_scalar_bits),
	cmocka_unit_test(test_fastmath_vec8_exps_give_td_exp_bits),
};
TD_TEST_GROUP(fastmath, tests);
