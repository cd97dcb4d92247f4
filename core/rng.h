/*
 * rng.h - counter-based random numbers (Philox4x32-10, Salmon et al., SC'11).
 *
 * There is no generator state. Every draw is a pure function of
 * (seed, stream, index): the seed fixes a run, the stream names what is being
 * drawn (one parameter tensor, the data order, dropout of layer 3 ...), and
 * the index is the element's position. So a weight's initial value does not
 * depend on the order in which parameters are built, on the thread that draws
 * it, or on whether it is drawn on the CPU or the GPU.
 *
 * Counter layout: key = (seed low 32 bits, seed high 32 bits),
 * counter = (block low, block high, stream low, stream high), where block is
 * the index divided by the number of draws one Philox call yields (4 for
 * uniforms, 2 for normals). Use one stream for one distribution only.
 */
#ifndef TD_RNG_H
#define TD_RNG_H

#include <stddef.h>
#include <stdint.h>

#include "real.h"

/* One Philox4x32-10 block: out = philox(ctr, key). The published function. */
void td_philox4x32_10(const uint32_t ctr[4], const uint32_t key[2], uint32_t out[4]);

/*
 * Maps 32 random bits to the open interval (0, 1): (x + 1/2) / 2^32. Never 0
 * (the normal draw takes its log), never 1.
 */
double td_rng_unit(uint32_t x);

/* A uniform draw in the open interval (0, 1). */
double td_rng_uniform(uint64_t seed, uint64_t stream, uint64_t index);

/* A standard normal draw (Box-Muller over two uniforms of one block). */
double td_rng_normal(uint64_t seed, uint64_t stream, uint64_t index);

/*
 * out[k] = lo + (hi - lo) * td_rng_uniform(seed, stream, first + k) for k < n,
 * computed a block at a time. The same values as the one-at-a-time calls.
 */
void td_rng_fill_uniform(uint64_t seed, uint64_t stream, uint64_t first, size_t n,
			 td_real lo, td_real hi, td_real *out);

/* out[k] = mean + std * td_rng_normal(seed, stream, first + k) for k < n. */
void td_rng_fill_normal(uint64_t seed, uint64_t stream, uint64_t first, size_t n,
			td_real mean, td_real std, td_real *out);

#endif
