/*
 * vec8.h - a vector of eight td_real for loops written with GCC's vector
 * extensions (the attention pairs' products and softmax, the conv's
 * sums): its lanes are independent IEEE operations in round-to-nearest,
 * so a lane gives the scalar code's bits whatever width the compiler
 * gives the vector.
 *
 * Loads and stores go through memcpy: the rows they touch are only
 * td_real-aligned. In the double build a vector is 64 bytes, which GCC
 * warns changes the ABI of a function that passes one; every such
 * function is static, so the warning is off for the files that include
 * this.
 */
#ifndef TD_VEC8_H
#define TD_VEC8_H

#include <string.h>

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

#endif
