/*
 * test_rng.c - Philox4x32-10 and the draws built on it.
 *
 * Independent reference: the known-answer vectors published with Random123
 * (Salmon et al., SC'11, kat_vectors), not our own output.
 *
 * What these tests guard: tdaudit mutate --list --file core/rng.c
 *
 * Edits seen breaking these tests that the catalogue may not hold:
 *   - a wrong round constant or key bump in td_philox4x32_10 -> the KAT test
 *   - swapping hi/lo in philox_round                           -> the KAT test
 *   - counting the block as index, not index / 4              -> fill_matches_single_draws
 *   - td_rng_unit() returning x * 2^-32 (can be 0)            -> uniforms_lie_in_the_open_interval
 */
#include "tdtest.h"

#include <math.h>
#include <string.h>

#include "../core/rng.h"

static void test_philox_matches_the_published_known_answer_vectors(void **state)
{
	static const struct {
		uint32_t ctr[4], key[2], want[4];
	} kat[] = {
		{{0, 0, 0, 0}, {0, 0}, {0x6627e8d5, 0xe169c58d, 0xbc57ac4c, 0x9b00dbd8}},
		{{0xffffffff, 0xffffffff, 0xffffffff, 0xffffffff},
		 {0xffffffff, 0xffffffff},
		 {0x408f276d, 0x41c83b0e, 0xa20bc7c6, 0x6d5451fd}},
		{{0x243f6a88, 0x85a308d3, 0x13198a2e, 0x03707344},
		 {0xa4093822, 0x299f31d0},
		 {0xd16cfe09, 0x94fdcceb, 0x5001e420, 0x24126ea1}},
	};
	(void)state;
	for (size_t k = 0; k < sizeof kat / sizeof kat[0]; k++) {
		uint32_t out[4];

		td_philox4x32_10(kat[k].ctr, kat[k].key, out);
		for (int i = 0; i < 4; i++)
			assert_int_equal(out[i], kat[k].want[i]);
	}
}

/*
 * rng.h's layout of seed, stream and block in Philox's key and counter,
 * spelled out here with every high half nonzero: a draw whose seed,
 * stream or block lost a bit of its high half would still pass the tests
 * that use small ones.
 */
static void test_every_bit_of_seed_stream_and_block_reaches_the_counter_and_key(void **state)
{
	const uint64_t seed = 0x299f31d0a4093822u, stream = 0x0370734413198a2eu;
	const uint64_t blk = 0x05a308d3243f6a88u; /* below 2^62, so that 4 * blk is an index */
	const uint32_t key[2] = {0xa4093822u, 0x299f31d0u};
	const uint32_t ctr[4] = {0x243f6a88u, 0x05a308d3u, 0x13198a2eu, 0x03707344u};
	uint32_t want[4];
	td_real fill[4];

	(void)state;
	td_philox4x32_10(ctr, key, want);
	td_rng_fill_uniform(seed, stream, 4 * blk, 4, 0, 1, fill);
	for (unsigned i = 0; i < 4; i++) {
		assert_true(td_rng_uniform(seed, stream, 4 * blk + i) == td_rng_unit(want[i]));
		assert_true(fill[i] == (td_real)td_rng_unit(want[i]));
	}
	/* normals take two words a draw: blocks of 2 indices */
	td_rng_fill_normal(seed, stream, 2 * blk, 2, 0, 1, fill);
	for (unsigned i = 0; i < 2; i++)
		assert_true(fill[i] == (td_real)td_rng_normal(seed, stream, 2 * blk + i));
	assert_true(td_rng_normal(seed, stream, 2 * blk) ==
		    sqrt(-2.0 * log(td_rng_unit(want[0]))) *
			cos(6.283185307179586476925286766559 * td_rng_unit(want[1])));
}

static void test_a_draw_is_a_pure_function_of_seed_stream_and_index(void **state)
{
	(void)state;
	/* Backwards, twice, interleaved with other draws: always the same value. */
	for (uint64_t i = 40; i-- > 0;) {
		double u = td_rng_uniform(7, 3, i), n = td_rng_normal(7, 4, i);

		(void)td_rng_uniform(8, 3, i + 1);
		assert_true(td_rng_uniform(7, 3, i) == u);
		assert_true(td_rng_normal(7, 4, i) == n);
	}
}

static void test_a_fill_matches_single_draws_at_any_offset(void **state)
{
	td_real u[37], n[37];

	(void)state;
	for (uint64_t first = 0; first < 6; first++) {
		td_rng_fill_uniform(11, 2, first, 37, -1, 3, u);
		td_rng_fill_normal(11, 5, first, 37, 0.5, 2, n);
		for (size_t k = 0; k < 37; k++) {
			assert_true(u[k] == (td_real)(-1 + 4 * td_rng_uniform(11, 2, first + k)));
			assert_true(n[k] == (td_real)(0.5 + 2 * td_rng_normal(11, 5, first + k)));
		}
	}
}

static void test_different_seeds_streams_and_indices_give_different_draws(void **state)
{
	(void)state;
	for (uint64_t i = 0; i < 64; i++) {
		double base = td_rng_uniform(1, 1, i);

		assert_true(base != td_rng_uniform(2, 1, i));
		assert_true(base != td_rng_uniform(1, 2, i));
		/* Only the high word differs (low words equal): it must count too. */
		assert_true(base != td_rng_uniform(1ull << 40 | 1, 1, i));
		assert_true(base != td_rng_uniform(1, 1ull << 40 | 1, i));
		assert_true(base != td_rng_uniform(1, 1, i + 1));
	}
}

static void test_uniforms_lie_in_the_open_interval_with_the_right_moments(void **state)
{
	const int n = 200000;
	double sum = 0, sq = 0;

	(void)state;
	for (int i = 0; i < n; i++) {
		double u = td_rng_uniform(42, 0, (uint64_t)i);

		assert_true(u > 0 && u < 1);
		sum += u;
		sq += u * u;
	}
	/* mean 1/2 and variance 1/12, within ~5 standard errors */
	assert_true(fabs(sum / n - 0.5) < 5 * sqrt(1.0 / 12 / n));
	assert_true(fabs(sq / n - (sum / n) * (sum / n) - 1.0 / 12) < 0.002);
	/* the extremes of the mapping are still inside (0, 1): log(u) stays finite */
	assert_true(td_rng_unit(0) > 0);
	assert_true(td_rng_unit(UINT32_MAX) < 1);
}

static void test_normals_have_zero_mean_and_unit_variance(void **state)
{
	const int n = 200000;
	double sum = 0, sq = 0;

	(void)state;
	for (int i = 0; i < n; i++) {
		double z = td_rng_normal(42, 1, (uint64_t)i);

		assert_true(isfinite(z));
		sum += z;
		sq += z * z;
	}
	assert_true(fabs(sum / n) < 5 / sqrt(n));
	assert_true(fabs(sq / n - 1) < 0.02);
}

static const struct CMUnitTest tests[] = {
	cmocka_unit_test(test_philox_matches_the_published_known_answer_vectors),
	cmocka_unit_test(test_every_bit_of_seed_stream_and_block_reaches_the_counter_and_key),
	cmocka_unit_test(test_a_draw_is_a_pure_function_of_seed_stream_and_index),
	cmocka_unit_test(test_a_fill_matches_single_draws_at_any_offset),
	cmocka_unit_test(test_different_seeds_streams_and_indices_give_different_draws),
	cmocka_unit_test(test_uniforms_lie_in_the_open_interval_with_the_right_moments),
	cmocka_unit_test(test_normals_have_zero_mean_and_unit_variance),
};
TD_TEST_GROUP(rng, tests);
