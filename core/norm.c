/*
 * norm.c - RMSNorm forward and backward (see norm.h).
 *
 * A row's sums (of x^2, and of g dy x) are td_dot_fixed's (fixedsum.h):
 * double, in a fixed order that vectorises (one running sum, a chain of
 * dependent adds, was most of this file's time).
 *
 * Must never: let a gradient's summation order depend on anything but the
 * row order (fixed, serial).
 */
#include "norm.h"

#include <math.h>
#include <string.h>

#include "fixedsum.h"

void td_rmsnorm_forward(td_real *y, td_real *inv, const td_real *x, const td_real *gain,
			size_t rows, size_t width)
{
	for (size_t r = 0; r < rows; r++) {
		const td_real *xr = x + r * width;
		const td_real ivr = (td_real)(1 / sqrt(td_dot_fixed(xr, xr, width) / (double)width +
						       TD_RMSNORM_EPS));

		inv[r] = ivr;
		for (size_t j = 0; j < width; j++)
			y[r * width + j] = xr[j] * ivr * gain[j];
	}
}

/*
 * With n_j = x_j * inv * g_j and inv = (mean x^2 + eps)^-1/2:
 *   dx_j = inv * g_j * dy_j - inv^3 * x_j * (sum_k g_k dy_k x_k) / width,
 * with g_j dy_j formed once in td_real (in dx's row, before dx is written).
 */
void td_rmsnorm_backward(td_real *dx, td_real *dgain, td_real *scratch, const td_real *dy,
			 const td_real *x, const td_real *inv, const td_real *gain, size_t rows,
			 size_t width)
{
	memset(scratch, 0, width * sizeof *scratch);
	for (size_t r = 0; r < rows; r++) {
		const td_real *xr = x + r * width, *dyr = dy + r * width;
		td_real *restrict dxr = dx + r * width;
		const td_real ivr = inv[r];
		const double iv = (double)ivr;
		double c;

		for (size_t j = 0; j < width; j++) {
			scratch[j] += dyr[j] * xr[j] * ivr;
			dxr[j] = gain[j] * dyr[j];
		}
		c = iv * iv * iv * td_dot_fixed(dxr, xr, width) / (double)width;
		for (size_t j = 0; j < width; j++)
			dxr[j] = (td_real)(iv * (double)dxr[j] - c * (double)xr[j]);
	}
	for (size_t j = 0; j < width; j++)
		dgain[j] += scratch[j];
}
