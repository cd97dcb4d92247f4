/*
 * norm.c - RMSNorm forward and backward (see norm.h).
 *
 * A row's sums (of x^2, and of g dy x) are td_dot_fixed's (fixedsum.h):
 * double, in a fixed order that vectorises (one running sum, a chain of
 * dependent adds, was most of this file's time).
 *
 * Threads take ranges of rows (td_pool_ranges), each row computed alone;
 * dL/dgain, a sum over rows, is a second pass whose threads take groups
 * of 16 channels, each channel summed over every row in row order (with
 * one thread, the same sums are taken in the row pass, saving a second
 * read).
 *
 * Must never: let a gradient's summation order depend on anything but the
 * row order (fixed, serial), or on which thread sums it.
 */
#include "norm.h"

#include <math.h>
#include <string.h>

#include "../base/error.h"
#include "fixedsum.h"
#include "pool.h"

/* One call's arguments, shared read-only by the ranges. */
typedef struct {
	td_real *out, *inv, *dgain, *scratch;
	const td_real *x, *dy, *gain, *inv_in;
	size_t rows, width;
	int fused; /* one thread: backward_rows sums dL/dgain too, while the row is in cache */
	int add;   /* backward: out = out + the gradient */
} norm_job;

void td_rmsnorm_row(td_real *restrict y, td_real *inv, const td_real *restrict x,
		    const td_real *restrict gain, size_t width)
{
	const td_real ivr =
	    (td_real)(1 / sqrt(td_dot_fixed(x, x, width) / (double)width + TD_RMSNORM_EPS));

	*inv = ivr;
	for (size_t k = 0; k < width; k++)
		y[k] = x[k] * ivr * gain[k];
}

static int forward_rows(void *arg, size_t r0, size_t r1)
{
	const norm_job *j = arg;

	for (size_t r = r0; r < r1; r++)
		td_rmsnorm_row(j->out + r * j->width, j->inv + r, j->x + r * j->width, j->gain,
			       j->width);
	return 0;
}

int td_rmsnorm_forward(td_real *y, td_real *inv, const td_real *x, const td_real *gain, size_t rows,
		       size_t width, int threads)
{
	norm_job j = {y, inv, NULL, NULL, x, NULL, gain, NULL, rows, width, 0, 0};
	int err = td_pool_ranges(threads, rows, forward_rows, &j);

	TD_REQUIRE(err == 0); /* forward_rows never fails, and the pool fails only where it does */
	return 0;
}

/*
 * With n_j = x_j * inv * g_j and inv = (mean x^2 + eps)^-1/2:
 *   dx_j = inv * g_j * dy_j - inv^3 * x_j * (sum_k g_k dy_k x_k) / width,
 * with g_j dy_j formed in td_real (td_dot3_fixed forms it for the sum
 * without storing it, so that dx's row can be added to: the model's
 * residual path). Rows are taken BLOCK at a time, each step across the
 * block before the next (the rows' c, then their dx): c is a chain of
 * dependent steps (the sum's tree, a division), and one row's chain then
 * overlaps the next one's instead of holding up its own row's dx (25088
 * rows of 32 from memory: 0.60 -> 0.53 ms; the forward's scales taken the
 * same way were slower).
 */
enum { BLOCK = 16 };

static int backward_rows(void *arg, size_t r0, size_t r1)
{
	const norm_job *j = arg;
	const size_t width = j->width;
	const td_real *restrict gain = j->gain;
	td_real *restrict sum = j->scratch;

	double cb[BLOCK];

	for (size_t b0 = r0; b0 < r1; b0 += BLOCK) {
		const size_t b1 = r1 - b0 < BLOCK ? r1 : b0 + BLOCK;

		for (size_t r = b0; r < b1; r++) { /* the rows' c, as forward_rows' scales */
			const double iv = (double)j->inv_in[r];

			cb[r - b0] = iv * iv * iv *
				     td_dot3_fixed(gain, j->dy + r * width, j->x + r * width, width) /
				     (double)width;
		}
		for (size_t r = b0; r < b1; r++) {
			const td_real *restrict xr = j->x + r * width, *restrict dyr = j->dy + r * width;
			td_real *restrict dxr = j->out + r * width;
			const td_real ivr = j->inv_in[r];
			const double iv = (double)ivr, c = cb[r - b0];

			if (j->fused) /* gain_groups' sums, in the same order */
				for (size_t k = 0; k < width; k++)
					sum[k] += dyr[k] * xr[k] * ivr;
			if (j->add)
				for (size_t k = 0; k < width; k++)
					dxr[k] = dxr[k] + (td_real)(iv * (double)(td_real)(gain[k] * dyr[k]) -
								    c * (double)xr[k]);
			else
				for (size_t k = 0; k < width; k++)
					dxr[k] = (td_real)(iv * (double)(td_real)(gain[k] * dyr[k]) -
							   c * (double)xr[k]);
		}
	}
	return 0;
}

enum { GROUP = 16 }; /* channels whose dL/dgain one thread sums (64 bytes of floats) */

/*
 * dgain[k] += sum over rows, in row order, of dy x inv, for the channels
 * of groups g0 .. g1-1, each group summed in a local accumulator so that
 * two threads never write one cache line row after row.
 */
static int gain_groups(void *arg, size_t g0, size_t g1)
{
	const norm_job *j = arg;

	for (size_t g = g0; g < g1; g++) {
		const size_t k0 = g * GROUP, n = j->width - k0 < GROUP ? j->width - k0 : GROUP;
		td_real acc[GROUP] = {0};

		for (size_t r = 0; r < j->rows; r++) {
			const td_real *xr = j->x + r * j->width + k0, *dyr = j->dy + r * j->width + k0;
			const td_real ivr = j->inv_in[r];

			for (size_t k = 0; k < n; k++)
				acc[k] += dyr[k] * xr[k] * ivr;
		}
		for (size_t k = 0; k < n; k++)
			j->dgain[k0 + k] += acc[k];
	}
	return 0;
}

int td_rmsnorm_backward(td_real *dx, td_real *dgain, td_real *scratch, const td_real *dy,
			const td_real *x, const td_real *inv, const td_real *gain, size_t rows,
			size_t width, int threads, int add)
{
	norm_job j = {dx, NULL, dgain, scratch, x, dy, gain, inv, rows, width, threads <= 1, add};
	int err;

	if (j.fused) {
		memset(scratch, 0, width * sizeof *scratch);
		err = backward_rows(&j, 0, rows);
		TD_REQUIRE(err == 0); /* backward_rows and gain_groups never fail */
		for (size_t k = 0; k < width; k++)
			dgain[k] += scratch[k];
		return 0;
	}
	err = td_pool_ranges(threads, rows, backward_rows, &j);
	TD_REQUIRE(err == 0);
	err = td_pool_ranges(threads, (width + GROUP - 1) / GROUP, gain_groups, &j);
	TD_REQUIRE(err == 0);
	return 0;
}
