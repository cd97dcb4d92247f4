/*
 * transpose.c - see transpose.h.
 *
 * Whole 8 x 8 blocks go through eight vector registers: pairs of rows
 * interleaved, then pairs of pairs, then the halves of four rows with
 * those of the other four (12 shuffles, which the compiler's vector
 * extensions - GCC's __builtin_shuffle, clang's __builtin_shufflevector -
 * turn into the target's unpack, shuffle and lane-permute instructions,
 * or pairs of 16-byte ones without AVX). The edges past the last whole
 * block go one value at a time. The one scalar store per value this
 * replaces, each to another row of dst, was most of the time of the
 * GEMM's packing of B^T (attention's k^T goes through here too, but its
 * time is the first read of a line's rows).
 */
#include "transpose.h"

#include <stdint.h>
#include <string.h>

/* vec8 values are passed only between this file's static functions. */
#pragma GCC diagnostic ignored "-Wpsabi"

#ifdef TD_REAL_DOUBLE
typedef int64_t lane_index;
#else
typedef int32_t lane_index;
#endif
typedef td_real vec8 __attribute__((vector_size(8 * sizeof(td_real))));
typedef lane_index idx8 __attribute__((vector_size(8 * sizeof(td_real))));

/*
 * SHUF(a, b, mask): lane i of the result is lane mask[i] of (a, b) side
 * by side. The masks are lists of constants, which clang's builtin takes
 * as its arguments and GCC's as one vector.
 */
#ifdef __clang__
#define SHUF(a, b, ...) __builtin_shufflevector(a, b, __VA_ARGS__)
#else
#define SHUF(a, b, ...) __builtin_shuffle(a, b, (idx8){__VA_ARGS__})
#endif
#define LO1 0, 8, 1, 9, 4, 12, 5, 13
#define HI1 2, 10, 3, 11, 6, 14, 7, 15
#define LO2 0, 1, 8, 9, 4, 5, 12, 13
#define HI2 2, 3, 10, 11, 6, 7, 14, 15
#define LO4 0, 1, 2, 3, 8, 9, 10, 11
#define HI4 4, 5, 6, 7, 12, 13, 14, 15

static vec8 load8(const td_real *p)
{
	vec8 v;

	memcpy(&v, p, sizeof v);
	return v;
}

static void store8(td_real *p, vec8 v)
{
	memcpy(p, &v, sizeof v);
}

/* Rows a, b interleaved by the masks LO1, HI1: lo has columns 0 1 4 5, hi 2 3 6 7. */
#define PAIR(lo, hi, a, b) (lo = SHUF(a, b, LO1), hi = SHUF(a, b, HI1))

/*
 * dst[c][r] = src[r][c] for one 8 x 8 block, in named variables (in
 * arrays GCC kept the rows on the stack, and each shuffle waited on a
 * store's forwarding).
 */
static void block8(td_real *restrict dst, size_t ldd, const td_real *restrict src, size_t lds)
{
	vec8 t0, t1, t2, t3, t4, t5, t6, t7, u0, u1, u2, u3, u4, u5, u6, u7;

	PAIR(t0, t1, load8(src), load8(src + lds));
	PAIR(t2, t3, load8(src + 2 * lds), load8(src + 3 * lds));
	PAIR(t4, t5, load8(src + 4 * lds), load8(src + 5 * lds));
	PAIR(t6, t7, load8(src + 6 * lds), load8(src + 7 * lds));
	/* four rows' columns c and c + 4 in u_c (rows 0-3) and u_(c+4) (rows 4-7) */
	u0 = SHUF(t0, t2, LO2), u1 = SHUF(t0, t2, HI2);
	u2 = SHUF(t1, t3, LO2), u3 = SHUF(t1, t3, HI2);
	u4 = SHUF(t4, t6, LO2), u5 = SHUF(t4, t6, HI2);
	u6 = SHUF(t5, t7, LO2), u7 = SHUF(t5, t7, HI2);
	/* rows 0-3 with rows 4-7: columns c and c + 4 whole */
	store8(dst, SHUF(u0, u4, LO4));
	store8(dst + ldd, SHUF(u1, u5, LO4));
	store8(dst + 2 * ldd, SHUF(u2, u6, LO4));
	store8(dst + 3 * ldd, SHUF(u3, u7, LO4));
	store8(dst + 4 * ldd, SHUF(u0, u4, HI4));
	store8(dst + 5 * ldd, SHUF(u1, u5, HI4));
	store8(dst + 6 * ldd, SHUF(u2, u6, HI4));
	store8(dst + 7 * ldd, SHUF(u3, u7, HI4));
}

void td_transpose(td_real *dst, size_t ldd, const td_real *src, size_t lds, size_t rows,
		  size_t cols)
{
	const size_t r8 = rows - rows % 8, c8 = cols - cols % 8;

	for (size_t r = 0; r < r8; r += 8)
		for (size_t c = 0; c < c8; c += 8)
			block8(dst + c * ldd + r, ldd, src + r * lds + c, lds);
	for (size_t r = 0; r < rows; r++) /* the edges: columns past c8, then rows past r8 */
		for (size_t c = r < r8 ? c8 : 0; c < cols; c++)
			dst[c * ldd + r] = src[r * lds + c];
}
