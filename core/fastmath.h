/*
 * fastmath.h - exp, sigmoid and tanh on td_real for the mixers' hot loops.
 *
 * In the double build (TD_REAL_DOUBLE) they are libm's: td_exp is exp,
 * td_sigmoid is 1 / (1 + exp(-x)) and td_tanh is tanh, so the double
 * build's gradient checks and PyTorch fixtures see the same bits as before.
 *
 * In the float build they are our own, written so that GCC vectorises a
 * loop that calls them: static inline, branch-free (a select is a mask on
 * the bits), only +, -, *, / and integer bit operations. Largest errors
 * over all 2^32 float arguments, against double libm, in ulps of the exact
 * result (tests/test_fastmath.c holds them on a dense sweep):
 *   td_exp      0.99 ulp; +inf exactly where exp(x) > FLT_MAX, 0 below
 *               -103.97, and correctly scaled denormals in between
 *   td_sigmoid  2.40 ulp, denormal results included
 *   td_tanh     1.33 ulp, relative everywhere: an odd polynomial below
 *               |x| = 0.625, so tanh(x) = x for tiny x
 * NaN in gives NaN out; sigmoid(+-inf) = 1 and 0, tanh(+-inf) = +-1.
 *
 * Must never: depend on how it is compiled. The same argument gives the
 * same bits scalar or vectorised, on x86-64 or arm64, because every
 * operation is one IEEE single-precision operation in round-to-nearest
 * and none is contracted into a fused multiply-add (C11 mode: GCC never
 * contracts; clang is told so below). No fma(), no float-to-int
 * conversion (the integer of 2^n comes from the bits of a rounded float),
 * no lookup table.
 */
#ifndef TD_FASTMATH_H
#define TD_FASTMATH_H

#include <math.h>
#include <stdint.h>
#include <string.h>

#include "hd.h"
#include "real.h"

#ifdef TD_REAL_DOUBLE

TD_HD double td_exp(double x)
{
	return exp(x);
}

TD_HD double td_sigmoid(double x)
{
	return 1 / (1 + exp(-x));
}

TD_HD double td_tanh(double x)
{
	return tanh(x);
}

#else

#if defined(__clang__)
#pragma STDC FP_CONTRACT OFF /* clang contracts a * b + c by default, even in C11 */
#endif

/*
 * Helpers. A select is done on the bits, not with ?: on floats: GCC keeps
 * a float ?: as a branch, sinks the arithmetic of each arm into it, and
 * then (with -ftrapping-math, the default) refuses to vectorise a loop
 * whose floating-point operations sit under a condition.
 */
TD_HD uint32_t td_fm_bits(float f)
{
	uint32_t u;

	memcpy(&u, &f, sizeof u);
	return u;
}

TD_HD float td_fm_float(uint32_t u)
{
	float f;

	memcpy(&f, &u, sizeof f);
	return f;
}

/* c ? a : b for c 0 or 1, without a branch. */
TD_HD float td_fm_select(int c, float a, float b)
{
	uint32_t m = 0u - (uint32_t)c;

	return td_fm_float((td_fm_bits(a) & m) | (td_fm_bits(b) & ~m));
}

/* 2^k for -126 <= k <= 127, built from its bits. */
TD_HD float td_fm_pow2(int32_t k)
{
	return td_fm_float((uint32_t)(k + 127) << 23);
}

/* |x| is clamped to this (104.0f): exp(104) overflows to inf, exp(-104) rounds to 0. */
#define TD_FM_EXP_LIMIT 0x42d00000u

/*
 * exp(x) = 2^n exp(r), x = n ln2 + r, |r| <= ln2 / 2 (Cody-Waite: ln2 in
 * two parts, the first with few enough bits that n * part is exact), then
 * exp(r) by Cephes's expf polynomial. Adding 1.5 * 2^23 rounds x log2(e)
 * to the integer n and leaves n in the low bits of the sum. 2^n is applied
 * as two factors 2^(n/2) 2^(n - n/2), both normal even when 2^n is not, so
 * a denormal result is rounded once, correctly, by the last product, and
 * overflow is the last product's. |x| is clamped on its bits (NaN's bits
 * are above the limit and are kept), so that n stays in range.
 */
TD_HD float td_exp(float x)
{
	const float shift = 0x1.8p23f;
	uint32_t u = td_fm_bits(x), a = u & 0x7fffffffu;
	uint32_t lim = TD_FM_EXP_LIMIT | (0u - (uint32_t)(a > 0x7f800000u)); /* NaN: no limit */
	float t, n, r, p;
	int32_t bits, k;

	x = td_fm_float((u & 0x80000000u) | (a < lim ? a : lim));
	t = x * 1.44269504089f + shift;
	n = t - shift;
	r = x - n * 0.693359375f;
	r = r - n * -2.12194440e-4f;
	p = 1.9875691500e-4f;
	p = p * r + 1.3981999507e-3f;
	p = p * r + 8.3334519073e-3f;
	p = p * r + 4.1665795894e-2f;
	p = p * r + 1.6666665459e-1f;
	p = p * r + 5.0000001201e-1f;
	p = p * (r * r) + r + 1.0f;
	memcpy(&bits, &t, sizeof bits);
	bits -= 0x4b400000; /* n; for NaN, garbage that cannot overflow (p is NaN) */
	k = bits / 2;
	return p * td_fm_pow2(k) * td_fm_pow2(bits - k);
}

/*
 * 1 / (1 + exp(-x)), evaluated as e / (1 + e) for x < 0 with e = exp(x),
 * so that exp never overflows and very negative x gives the tiny (even
 * denormal) result rather than 1 / inf = 0.
 */
TD_HD float td_sigmoid(float x)
{
	float e = td_exp(-fabsf(x));

	return td_fm_select(x < 0, e, 1.0f) / (1.0f + e);
}

/*
 * tanh(x) = sign(x) tanh(|x|): below |x| = 0.625 Cephes's tanhf odd
 * polynomial a + a^3 P(a^2) (relative accuracy down to the denormals),
 * above it 1 - 2 / (exp(2a) + 1) (no cancellation: the result is above
 * 0.55). Both are computed, one is selected, and x's sign is put on it,
 * so tanh(-0) = -0 and tanh(-x) = -tanh(x) exactly.
 */
TD_HD float td_tanh(float x)
{
	float a = fabsf(x), z = a * a, p, big;

	p = -5.70498872745e-3f;
	p = p * z + 2.06390887954e-2f;
	p = p * z - 5.37397155531e-2f;
	p = p * z + 1.33314422036e-1f;
	p = p * z - 3.33332819422e-1f;
	p = p * z * a + a;
	big = 1.0f - 2.0f / (td_exp(2.0f * a) + 1.0f); /* NaN for NaN */
	p = td_fm_select(a < 0.625f, p, big);
	return td_fm_float(td_fm_bits(p) | (td_fm_bits(x) & 0x80000000u));
}

#endif

#endif
