/*
 * norm.h - RMSNorm over the channels of each row, with its backward.
 *
 *   inv[r] = 1 / sqrt(mean_j x[r][j]^2 + TD_RMSNORM_EPS)
 *   y[r][j] = x[r][j] * inv[r] * gain[j]
 *
 * A row of zeros (an absent cell) maps to zeros. Plain functions over
 * caller-owned buffers: nothing here allocates.
 */
#ifndef TD_NORM_H
#define TD_NORM_H

#include <stddef.h>

#include "real.h"

#define TD_RMSNORM_EPS 1e-6

/*
 * y and inv[rows] from x; y may not overlap x. threads (at least 1 is
 * used) share the rows; the result is the same bits for any count.
 * Returns 0; TD_EINVAL only if the pool broke its contract (TD_REQUIRE).
 */
int td_rmsnorm_forward(td_real *y, td_real *inv, const td_real *x, const td_real *gain,
			size_t rows, size_t width, int threads);

/*
 * One row of td_rmsnorm_forward: y[width] and *inv from x[width] (the same
 * bits), for a caller that makes x in a pass of its own and norms each row
 * while it is in the caches.
 */
void td_rmsnorm_row(td_real *y, td_real *inv, const td_real *x, const td_real *gain,
		    size_t width);

/*
 * The backward of td_rmsnorm_forward given dy: writes dx (overwriting it,
 * or with add, dx = dx + the gradient, in that order: a residual path's
 * sum without a pass of its own) and adds dL/dgain to dgain, summed whole
 * in scratch[width] first. x and inv are what the forward read and saved.
 * dx may not overlap dy or x. threads share the rows, then the channels
 * of dgain; the same bits for any count. Returns 0, as td_rmsnorm_forward.
 */
int td_rmsnorm_backward(td_real *dx, td_real *dgain, td_real *scratch, const td_real *dy,
			 const td_real *x, const td_real *inv, const td_real *gain, size_t rows,
			 size_t width, int threads, int add);

#endif
