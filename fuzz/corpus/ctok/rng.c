/*
 * rng.c - Philox4x32-10 and the draws built on it (see rng.h).
 *
 * Must never keep state between calls: purity in (seed, stream, index) is
 * the whole contract, and the seed audit relies on it.
 */
#include "rng.h"

#include <math.h>

#define PHILOX_M0 0xD2511F53u
#define PHILOX_M1 0xCD9E8D57u
#define PHILOX_W0 0x9E3779B9u /* golden ratio */
#define PHILOX_W1 0xBB67AE85u /* sqrt(3) - 1 */

static void philox_round(uint32_t c[4], const uint32_t k[2])
{
	uint64_t p0 = (uint64_t)PHILOX_M0 * c[0];
	uint64_t p1 = (uint64_t)PHILOX_M1 * c[2];
	uint32_t hi0 = (uint32_t)(p0 >> 32), lo0 = (uint32_t)p0;
	uint32_t hi1 = (uint32_t)(p1 >> 32), lo1 = (uint32_t)p1;

	c[0] = hi1 ^ c[1] ^ k[0];
	c[1] = lo1;
	c[2] = hi0 ^ c[3] ^ k[1];
	c[3] = lo0;
}

void td_philox4x32_10(const uint32_t ctr[4], const uint32_t key[2], uint32_t out[4])
{
	uint32_t c[4] = {ctr[0], ctr[1], ctr[2], ctr[3]};
	uint32_t k[2] = {key[0], key[1]};

	for (int r = 0; r < 10; r++) {
		if (r > 0) {
			k[0] += PHILOX_W0;
			k[1] += PHILOX_W1;
		}
		philox_round(c, k);
	}
	for (int i = 0; i < 4; i++)
		out[i] = c[i];
}

static void block(uint64_t seed, uint64_t stream, uint64_t blk, uint32_t out[4])
{
	const uint32_t key[2] = {(uint32_t)seed, (uint32_t)(seed >> 32)};
	const uint32_t ctr[4] = {(uint32_t)blk, (uint32_t)(blk >> 32), (uint32_t)stream,
				 (uint32_t)(stream >> 32)};

	td_philox4x32_10(ctr, key, out);
}

double td_rng_unit(uint32_t x)
{
	return ((double)x + 0.5) * (1.0 / 4294967296.0);
}

static double box_muller(uint32_t a, uint32_t b)
{
	const double two_pi = 6.283185307179586476925286766559;

	return sqrt(-2.0 * log(td_rng_unit(a))) * cos(two_pi * td_rng_unit(b));
}

double td_rng_uniform(uint64_t seed, uint64_t stream, uint64_t index)
{
	uint32_t r[4];

	block(seed, stream, index / 4, r);
	return td_rng_unit(r[index % 4]);
}

double td_rng_normal(uint64_t seed, uint64_t stream, uint64_t index)
{
	uint32_t r[4];
	unsigned lane = (unsigned)(index % 2) * 2;

	block(seed, stream, index / 2, r);
	return box_muller(r[lane], r[lane + 1]);
}

void td_rng_fill_uniform(uint64_t seed, uint64_t stream, uint64_t first, size_t n,
			 td_real lo, td_real hi, td_real *out)
{
	uint32_t r[4];
	uint64_t cached = UINT64_MAX;

	for (size_t k = 0; k < n; k++) {
		uint64_t i = first + k;

		if (i / 4 != cached) {
			cached = i / 4;
			block(seed, stream, cached, r);
		}
		out[k] = (td_real)(lo + (hi - lo) * td_rng_unit(r[i % 4]));
	}
}

void td_rng_fill_normal(uint64_t seed, uint64_t stream, uint64_t first, size_t n,
			td_real mean, td_real std, td_real *out)
{
	uint32_t r[4];
	uint64_t cached = UINT64_MAX;

	for (size_t k = 0; k < n; k++) {
		uint64_t i = first + k;
		unsigned lane = (unsigned)(i % 2) * 2;

		if (i / 2 != cached) {
			cached = i / 2;
			block(seed, stream, cached, r);
		}
		out[k] = (td_real)(mean + std * box_muller(r[lane], r[lane + 1]));
	}
}
