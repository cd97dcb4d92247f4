/*
 * mixer_conv.c - the causal depthwise convolution.
 *
 *   y_t[c] = bias[c] + sum_{j < K} w[j][c] * x_{t - j*d}[c]
 *
 * with K = kernel_size, d = dilation, and x before the start of the line
 * taken as zero. With reverse, t - j*d becomes t + j*d and "before the
 * start" becomes "after the end". Each channel has its own taps; channels
 * never mix. The weights are stored tap-major ([K][C]) so the inner loops
 * run across channels.
 *
 * Workspace: x [lines * length][C], a copy of the input (saved by forward),
 * then dw [K][C] and dbias [C], backward's scratch: a gradient is summed
 * whole there and added to the slab once, so a backward adds exactly this
 * call's gradient.
 *
 * Must never: read outside the line (a tap that falls off either end adds
 * nothing), or sum in an order that depends on anything but the sizes.
 */
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "error.h"
#include "mixer_int.h"

enum { T_W, T_BIAS };

static int conv_setup(td_mixer *m)
{
	size_t c = m->o.channels, k = m->o.kernel_size, d = m->o.dilation;
	int err;

	if (k == 0)
		return TD_FAIL(TD_EINVAL, "kernel_size is 0; a convolution needs at least 1 tap");
	if (d == 0)
		return TD_FAIL(TD_EINVAL, "dilation is 0; use 1 for adjacent taps");
	if (d > SIZE_MAX / k)
		return TD_FAIL(TD_EINVAL, "kernel_size %zu x dilation %zu overflows", k, d);
	if ((err = td_mixer_add_tensor(
		 m, "w", k, c,
		 (td_init_rule){TD_INIT_NORMAL, 0, (td_real)(1 / sqrt((double)k))})) ||
	    (err = td_mixer_add_tensor(m, "bias", 1, c, (td_init_rule){TD_INIT_ZERO, 0, 0})))
		return err;
	return 0;
}

static int conv_ws_size(size_t *out, const td_mixer *m, size_t lines, size_t length)
{
	size_t positions = lines * length;
	size_t taps = (m->o.kernel_size + 1) * m->o.channels; /* no overflow: setup counted it */

	return td_mixer_size_muladd(out, positions, m->o.channels, taps, "the conv workspace");
}

/*
 * The position tap j reads when computing position t, or SIZE_MAX when the
 * tap falls off the line.
 */
static size_t tap(const td_mixer *m, size_t t, size_t j, size_t length)
{
	size_t off = j * m->o.dilation;

	if (m->o.reverse)
		return off < length - t ? t + off : SIZE_MAX;
	return off <= t ? t - off : SIZE_MAX;
}

static int conv_forward(td_mixer *m, td_real *y, const td_real *x, size_t lines, size_t length,
			td_real *ws)
{
	const size_t c = m->o.channels;
	const td_real *w = td_mixer_slab_at(m, m->params, T_W);
	const td_real *bias = td_mixer_slab_at(m, m->params, T_BIAS);

	memcpy(ws, x, lines * length * c * sizeof *x);
	for (size_t l = 0; l < lines; l++)
		for (size_t t = 0; t < length; t++) {
			td_real *yt = y + (l * length + t) * c;

			memcpy(yt, bias, c * sizeof *yt);
			for (size_t j = 0; j < m->o.kernel_size; j++) {
				size_t src = tap(m, t, j, length);
				const td_real *xs, *wj = w + j * c;

				if (src == SIZE_MAX)
					break; /* later taps are further off */
				xs = x + (l * length + src) * c;
				for (size_t k = 0; k < c; k++)
					yt[k] += wj[k] * xs[k];
			}
		}
	return 0;
}

/*
 * Position t of line l: adds its taps' share to dx (dx[src] += w[j] dy[t])
 * and to the weight gradients (gw[j] += dy[t] x[src]); and dy[t] to gbias.
 */
static void conv_backward_at(const td_mixer *m, td_real *dx, td_real *gw, td_real *gbias,
			     const td_real *dy, const td_real *x, size_t l, size_t t, size_t length)
{
	const size_t c = m->o.channels;
	const td_real *w = td_mixer_slab_at(m, m->params, T_W);
	const td_real *dyt = dy + (l * length + t) * c;

	for (size_t k = 0; k < c; k++)
		gbias[k] += dyt[k];
	for (size_t j = 0; j < m->o.kernel_size; j++) {
		size_t src = tap(m, t, j, length);
		td_real *dxs, *gwj = gw + j * c;
		const td_real *xs, *wj = w + j * c;

		if (src == SIZE_MAX)
			break; /* later taps are further off */
		dxs = dx + (l * length + src) * c;
		xs = x + (l * length + src) * c;
		for (size_t k = 0; k < c; k++) {
			dxs[k] += wj[k] * dyt[k];
			gwj[k] += dyt[k] * xs[k];
		}
	}
}

static int conv_backward(td_mixer *m, td_real *dx, const td_real *dy, size_t lines, size_t length,
			 td_real *ws)
{
	const size_t c = m->o.channels, k = m->o.kernel_size;
	td_real *gw = ws + lines * length * c, *gbias = gw + k * c; /* scratch sums */
	td_real *g = td_mixer_slab_at(m, m->grads, T_W); /* w, then bias right after it */

	memset(dx, 0, lines * length * c * sizeof *dx);
	memset(gw, 0, (k + 1) * c * sizeof *gw);
	for (size_t l = 0; l < lines; l++)
		for (size_t t = 0; t < length; t++)
			conv_backward_at(m, dx, gw, gbias, dy, ws, l, t, length);
	for (size_t i = 0; i < (k + 1) * c; i++) /* w then bias: the slab's order too */
		g[i] += gw[i];
	return 0;
}

const td_mixer_ops td_mixer_conv_ops = {"conv", conv_setup, conv_ws_size, conv_forward,
					conv_backward};
