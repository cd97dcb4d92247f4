/*
 * vec8.h - a vector of eight td_real for loops written with GCC's vector
 * extensions (the attention pairs' products and softmax, the conv's
 * sums): its lanes are independent IEEE operations in round-to-nearest,
 * so a lane gives the scalar code's bits whatever width the compiler
 * gives the vector; and td_exp on a few such vectors at once.
 *
 * Loads and stores go through memcpy: the rows they touch are only
 * td_real-aligned. In the double build a vector is 64 bytes, which GCC
 * warns changes the ABI of a function that passes one; every such
 * function is static, so the warning is off for the files that include
 * this.
 */
#ifndef TD_VEC8_H
#define TD_VEC8_H

#include <stdint.h>
#include <string.h>

#include "fastmath.h"
#include "real.h"

#pragma GCC diagnostic ignored "-Wpsabi"

enum { TD_VEC8_LANES = 8 };

typedef td_real td_vec8 __attribute__((vector_size(TD_VEC8_LANES * sizeof(td_real))));

static inline td_vec8 td_vec8_load(const td_real *p)
{
	td_vec8 v;

	memcpy(&v, p, sizeof v);
	return v;
}

static inline void td_vec8_store(td_real *p, td_vec8 v)
{
	memcpy(p, &v, sizeof v);
}

enum { TD_VEC8_EXPS = 4 }; /* the most vectors td_vec8_exps takes at once */

/*
 * x[u] = td_exp(x[u]), lane by lane, for u < count <= TD_VEC8_EXPS (a
 * constant where this is inlined), bit for bit. In the float build these
 * are td_exp's steps written for vectors and taken one step at a time
 * across the vectors, so that count chains of dependent steps are in
 * flight together: a loop of td_exp leaves the processor's scheduler
 * holding one or two chains' steps, each waiting on the one before (a
 * softmax row of 32 exps took 8.3 ns a vector one at a time, 5.7 ns four
 * at a time, on the README's machine). Three steps are written
 * differently for the same bits:
 *   - x is clamped to 104 by a float comparison, which a NaN fails and so
 *     passes, as td_exp's clamp on the bits lets it;
 *   - below -104, where td_exp gives +0, the lane computes exp(0) and is
 *     set to +0 at the end: td_exp gets its 0 from a last product that
 *     underflows, which the processor finishes in microcode (a row of 32
 *     exps whose last 4 are of -inf, the softmax's padding: 11.1 ns a
 *     vector against 6.0);
 *   - n = k + (n - k) with k = n >> 1 (rounded down) rather than n / 2:
 *     2^k and 2^(n - k) are normal either way, and p 2^k is exact, so the
 *     last product rounds p 2^n once either way.
 * test_fastmath compares every 509th float with td_exp.
 */
static inline __attribute__((always_inline)) void td_vec8_exps(td_vec8 *x, size_t count)
{
#define TD_VEC8_EACH _Pragma("GCC unroll 4") for (size_t u = 0; u < count; u++)
#ifdef TD_REAL_DOUBLE
	TD_VEC8_EACH
		for (size_t k = 0; k < TD_VEC8_LANES; k++)
			x[u][k] = td_exp(x[u][k]);
#else
	typedef int32_t vint __attribute__((vector_size(sizeof(td_vec8))));
	const td_vec8 hi = (td_vec8){0} + td_fm_float(TD_FM_EXP_LIMIT), lo = -hi;
	const float shift = 0x1.8p23f;
	td_vec8 t[TD_VEC8_EXPS], r[TD_VEC8_EXPS], p[TD_VEC8_EXPS];
	vint m[TD_VEC8_EXPS], e[TD_VEC8_EXPS], low[TD_VEC8_EXPS];

	TD_VEC8_EACH m[u] = x[u] > hi;
	TD_VEC8_EACH x[u] = (td_vec8)(((vint)x[u] & ~m[u]) | ((vint)hi & m[u]));
	TD_VEC8_EACH low[u] = x[u] < lo;
	TD_VEC8_EACH x[u] = (td_vec8)((vint)x[u] & ~low[u]); /* 0 for now: see below */
	TD_VEC8_EACH t[u] = x[u] * 1.44269504089f + shift;
	TD_VEC8_EACH p[u] = t[u] - shift; /* n */
	TD_VEC8_EACH r[u] = x[u] - p[u] * 0.693359375f;
	TD_VEC8_EACH r[u] = r[u] - p[u] * -2.12194440e-4f;
	TD_VEC8_EACH p[u] = r[u] * 1.9875691500e-4f + 1.3981999507e-3f;
	TD_VEC8_EACH p[u] = p[u] * r[u] + 8.3334519073e-3f;
	TD_VEC8_EACH p[u] = p[u] * r[u] + 4.1665795894e-2f;
	TD_VEC8_EACH p[u] = p[u] * r[u] + 1.6666665459e-1f;
	TD_VEC8_EACH p[u] = p[u] * r[u] + 5.0000001201e-1f;
	TD_VEC8_EACH p[u] = p[u] * (r[u] * r[u]) + r[u] + 1.0f;
	TD_VEC8_EACH e[u] = (vint)t[u] - 0x4b400000; /* n; for a NaN, garbage (p is NaN) */
	TD_VEC8_EACH m[u] = e[u] >> 1; /* k */
	TD_VEC8_EACH x[u] = p[u] * (td_vec8)((m[u] + 127) << 23) *
			    (td_vec8)((e[u] - m[u] + 127) << 23);
	TD_VEC8_EACH x[u] = (td_vec8)((vint)x[u] & ~low[u]);
#endif
#undef TD_VEC8_EACH
}

#endif
