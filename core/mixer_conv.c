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
 * then backward's scratch: per group of CONV_GROUP channels, dw [K][group]
 * and dbias [group]. A gradient is summed whole there and added to the
 * slab once, so a backward adds exactly this call's gradient.
 *
 * Threads (td_pool_ranges) take ranges of lines for y and dx, whose sums
 * stay within a line, and ranges of channel groups for the weight
 * gradients, whose sums run over every line: each sum is in the same
 * order whichever thread runs it.
 *
 * Must never: read outside the line (a tap that falls off either end adds
 * nothing), or sum in an order that depends on anything but the sizes.
 */
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "error.h"
#include "mixer_int.h"
#include "pool.h"

enum { T_W, T_BIAS };

enum { CONV_GROUP = 16 }; /* channels whose weight gradients one thread sums (64 bytes) */

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

/* The channels in groups of CONV_GROUP, the last one possibly short. */
static size_t groups(const td_mixer *m)
{
	return (m->o.channels + CONV_GROUP - 1) / CONV_GROUP;
}

static int conv_ws_size(size_t *out, const td_mixer *m, size_t lines, size_t length)
{
	size_t positions = lines * length, sums;
	int err = td_mixer_size_muladd(&sums, groups(m) * CONV_GROUP, m->o.kernel_size + 1, 0,
				       "the conv workspace");

	return err ? err
		   : td_mixer_size_muladd(out, positions, m->o.channels, sums, "the conv workspace");
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

/* One call's arguments, shared read-only by the threads' ranges. */
typedef struct {
	const td_mixer *m;
	td_real *y;	   /* forward: the output; backward: dx */
	td_real *ws;	   /* the saved input, then (backward) the scratch sums */
	const td_real *x;  /* forward only: the input */
	const td_real *dy; /* backward only */
	size_t lines, length;
} conv_job;

/* Lines l0 .. l1-1: the input saved, then bias plus the taps at every position. */
static int forward_lines(void *arg, size_t l0, size_t l1)
{
	const conv_job *j = arg;
	const td_mixer *m = j->m;
	const size_t c = m->o.channels;
	const td_real *w = td_mixer_slab_at(m, m->params, T_W);
	const td_real *bias = td_mixer_slab_at(m, m->params, T_BIAS);

	memcpy(j->ws + l0 * j->length * c, j->x + l0 * j->length * c,
	       (l1 - l0) * j->length * c * sizeof *j->x);
	for (size_t l = l0; l < l1; l++)
		for (size_t t = 0; t < j->length; t++) {
			td_real *restrict yt = j->y + (l * j->length + t) * c;
			const td_real *xt = j->x + (l * j->length + t) * c;

			/* bias, then tap 0 (x_t itself, always on the line): no call to copy the bias */
			for (size_t k = 0; k < c; k++)
				yt[k] = bias[k] + w[k] * xt[k];
			for (size_t i = 1; i < m->o.kernel_size; i++) {
				size_t src = tap(m, t, i, j->length);
				const td_real *xs, *wi = w + i * c;

				if (src == SIZE_MAX)
					break; /* later taps are further off */
				xs = j->x + (l * j->length + src) * c;
				for (size_t k = 0; k < c; k++)
					yt[k] += wi[k] * xs[k];
			}
		}
	return 0;
}

static int conv_forward(td_mixer *m, td_real *y, const td_real *x, size_t lines, size_t length,
			td_real *ws)
{
	conv_job j = {m, y, ws, x, NULL, lines, length};

	return td_pool_ranges(m->o.threads, lines, forward_lines, &j);
}

/* Lines l0 .. l1-1 of dx: every position t adds w[i] dy[t] to dx[src] of its taps. */
static int dx_lines(void *arg, size_t l0, size_t l1)
{
	const conv_job *j = arg;
	const td_mixer *m = j->m;
	const size_t c = m->o.channels;
	const td_real *w = td_mixer_slab_at(m, m->params, T_W);

	memset(j->y + l0 * j->length * c, 0, (l1 - l0) * j->length * c * sizeof *j->y);
	for (size_t l = l0; l < l1; l++)
		for (size_t t = 0; t < j->length; t++) {
			const td_real *dyt = j->dy + (l * j->length + t) * c;

			for (size_t i = 0; i < m->o.kernel_size; i++) {
				size_t src = tap(m, t, i, j->length);
				const td_real *wi = w + i * c;
				td_real *restrict dxs;

				if (src == SIZE_MAX)
					break; /* later taps are further off */
				dxs = j->y + (l * j->length + src) * c;
				for (size_t k = 0; k < c; k++)
					dxs[k] += wi[k] * dyt[k];
			}
		}
	return 0;
}

/*
 * One group's sums at position t of line l: acc [K + 1][CONV_GROUP] gets
 * dy[t] x[src] for each tap, then dy[t] for the bias, for the n channels
 * from k0. Inlined with n a constant for whole groups, so that it
 * vectorises.
 */
static inline void group_sums_at(const conv_job *j, td_real *restrict acc, size_t l, size_t t,
				 size_t k0, size_t n)
{
	const td_mixer *m = j->m;
	const size_t c = m->o.channels, taps = m->o.kernel_size;
	const td_real *dyt = j->dy + (l * j->length + t) * c + k0;

	for (size_t k = 0; k < n; k++)
		acc[taps * CONV_GROUP + k] += dyt[k];
	for (size_t i = 0; i < taps; i++) {
		size_t src = tap(m, t, i, j->length);
		const td_real *xs;

		if (src == SIZE_MAX)
			break; /* later taps are further off */
		xs = j->ws + (l * j->length + src) * c + k0;
		for (size_t k = 0; k < n; k++)
			acc[i * CONV_GROUP + k] += dyt[k] * xs[k];
	}
}

/*
 * Channel groups g0 .. g1-1 (CONV_GROUP channels each): their weight and
 * bias gradients, each summed over every (line, position) in order in the
 * group's own scratch [K + 1][CONV_GROUP] (contiguous, so two threads
 * never write one cache line), then added to the slab once.
 */
static int grad_groups(void *arg, size_t g0, size_t g1)
{
	const conv_job *j = arg;
	const td_mixer *m = j->m;
	const size_t c = m->o.channels, taps = m->o.kernel_size;
	td_real *g = td_mixer_slab_at(m, m->grads, T_W); /* w [K][C], then bias [C] */

	for (size_t grp = g0; grp < g1; grp++) {
		const size_t k0 = grp * CONV_GROUP, n = c - k0 < CONV_GROUP ? c - k0 : CONV_GROUP;
		td_real *acc = j->ws + j->lines * j->length * c + grp * (taps + 1) * CONV_GROUP;

		memset(acc, 0, (taps + 1) * CONV_GROUP * sizeof *acc);
		for (size_t l = 0; l < j->lines; l++)
			for (size_t t = 0; t < j->length; t++)
				if (n == CONV_GROUP)
					group_sums_at(j, acc, l, t, k0, CONV_GROUP);
				else
					group_sums_at(j, acc, l, t, k0, n);
		for (size_t i = 0; i <= taps; i++)
			for (size_t k = 0; k < n; k++)
				g[i * c + k0 + k] += acc[i * CONV_GROUP + k];
	}
	return 0;
}

static int conv_backward(td_mixer *m, td_real *dx, const td_real *dy, size_t lines, size_t length,
			 td_real *ws)
{
	conv_job j = {m, dx, ws, NULL, dy, lines, length};
	int err = td_pool_ranges(m->o.threads, lines, dx_lines, &j);

	return err ? err : td_pool_ranges(m->o.threads, groups(m), grad_groups, &j);
}

const td_mixer_ops td_mixer_conv_ops = {"conv", conv_setup, conv_ws_size, conv_forward,
					conv_backward};
