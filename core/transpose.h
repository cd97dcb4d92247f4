/*
 * transpose.h - a block of td_real transposed, 8 x 8 at a time through
 * vector registers.
 */
#ifndef TD_TRANSPOSE_H
#define TD_TRANSPOSE_H

#include <stddef.h>

#include "real.h"

/*
 * dst[c * ldd + r] = src[r * lds + c] for r < rows and c < cols. dst and
 * src must not overlap. Only moves values: the bits are src's.
 */
void td_transpose(td_real *dst, size_t ldd, const td_real *src, size_t lds, size_t rows,
		  size_t cols);

#endif
