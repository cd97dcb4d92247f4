/*
 * transpose.c - see transpose.h.
 *
 * Whole 8 x 8 blocks go through eight vector registers: pairs of rows
 * interleaved, then pairs of pairs, then the halves of four rows with
 * those of the other four (12 shuffles, which GCC's vector extensions
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

/* Rows a, b interleaved by block8's masks lo1, hi1: lo has columns 0 1 4 5, hi 2 3 6 7. */
#define PAIR(lo, hi, a, b) (lo = __builtin_shuffle(a, b, lo1), hi = __builtin_shuffle(a, b, hi1))

/*
 * dst[c][r] = src[r][c] for one 8 x 8 block, in named variables (in
 * arrays GCC kept the rows on the stack, and each shuffle waited on a
 * store's forwarding).
 */
static void block8(td_real *restrict dst, size_t ldd, const td_real *restrict src, size_t lds)
{
	/* lane i of a shuffle's result: lane m[i] of (a, b) side by side */
	const idx8 lo1 = {0, 8, 1, 9, 4, 12, 5, 13}, hi1 = {2, 10, 3, 11, 6, 14, 7, 15};
	const idx8 lo2 = {0, 1, 8, 9, 4, 5, 12, 13}, hi2 = {2, 3, 10, 11, 6, 7, 14, 15};
	const idx8 lo4 = {0, 1, 2, 3, 8, 9, 10, 11}, hi4 = {4, 5, 6, 7, 12, 13, 14, 15};
	vec8 t0, t1, t2, t3, t4, t5, t6, t7, u0, u1, u2, u3, u4, u5, u6, u7;

	PAIR(t0, t1, load8(src), load8(src + lds));
	PAIR(t2, t3, load8(src + 2 * lds), load8(src + 3 * lds));
	PAIR(t4, t5, load8(src + 4 * lds), load8(src + 5 * lds));
	PAIR(t6, t7, load8(src + 6 * lds), load8(src + 7 * lds));
	/* four rows' columns c and c + 4 in u_c (rows 0-3) and u_(c+4) (rows 4-7) */
	u0 = __builtin_shuffle(t0, t2, lo2), u1 = __builtin_shuffle(t0, t2, hi2);
	u2 = __builtin_shuffle(t1, t3, lo2), u3 = __builtin_shuffle(t1, t3, hi2);
	u4 = __builtin_shuffle(t4, t6, lo2), u5 = __builtin_shuffle(t4, t6, hi2);
	u6 = __builtin_shuffle(t5, t7, lo2), u7 = __builtin_shuffle(t5, t7, hi2);
	/* rows 0-3 with rows 4-7: columns c and c + 4 whole */
	store8(dst, __builtin_shuffle(u0, u4, lo4));
	store8(dst + ldd, __builtin_shuffle(u1, u5, lo4));
	store8(dst + 2 * ldd, __builtin_shuffle(u2, u6, lo4));
	store8(dst + 3 * ldd, __builtin_shuffle(u3, u7, lo4));
	store8(dst + 4 * ldd, __builtin_shuffle(u0, u4, hi4));
	store8(dst + 5 * ldd, __builtin_shuffle(u1, u5, hi4));
	store8(dst + 6 * ldd, __builtin_shuffle(u2, u6, hi4));
	store8(dst + 7 * ldd, __builtin_shuffle(u3, u7, hi4));
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
