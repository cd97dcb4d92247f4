/*
 * norm.c - RMSNorm forward and backward (see norm.h).
 *
 * Must never: let a gradient's summation order depend on anything but the
 * row order (fixed, serial).
 */
#include "norm.h"

#include <math.h>
#include <string.h>

void td_rmsnorm_forward(td_real *y, td_real *inv, const td_real *x, const td_real *gain,
			size_t rows, size_t width)
{
	for (size_t r = 0; r < rows; r++) {
		const td_real *xr = x + r * width;
		double ss = 0;

		for (size_t j = 0; j < width; j++)
			ss += (double)xr[j] * (double)xr[j];
		inv[r] = (td_real)(1 / sqrt(ss / (double)width + TD_RMSNORM_EPS));
		for (size_t j = 0; j < width; j++)
			y[r * width + j] = xr[j] * inv[r] * gain[j];
	}
}

/*
 * With n_j = x_j * inv * g_j and inv = (mean x^2 + eps)^-1/2:
 *   dx_j = inv * g_j * dy_j - inv^3 * x_j * (sum_k g_k dy_k x_k) / width.
 */
void td_rmsnorm_backward(td_real *dx, td_real *dgain, td_real *scratch, const td_real *dy,
			 const td_real *x, const td_real *inv, const td_real *gain, size_t rows,
			 size_t width)
{
	memset(scratch, 0, width * sizeof *scratch);
	for (size_t r = 0; r < rows; r++) {
		const td_real *xr = x + r * width, *dyr = dy + r * width;
		double dot = 0, iv = (double)inv[r];

		for (size_t j = 0; j < width; j++) {
			dot += (double)gain[j] * (double)dyr[j] * (double)xr[j];
			scratch[j] += dyr[j] * xr[j] * inv[r];
		}
		for (size_t j = 0; j < width; j++)
			dx[r * width + j] = (td_real)(iv * (double)gain[j] * (double)dyr[j] -
						      iv * iv * iv * (double)xr[j] * dot /
							  (double)width);
	}
	for (size_t j = 0; j < width; j++)
		dgain[j] += scratch[j];
}
