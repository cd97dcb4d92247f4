/*
 * mixer_gru.c - the gated recurrent unit (equations in mixer.h), H = channels.
 *
 * Lines run in blocks (td_mixer_blocks), so that a block's gates stay
 * in the caches from its steps forward to its steps backward. Each step
 * of a block's recurrence takes its lines' input projections x_t W^T
 * with one GEMM (b is added where the step's gates read them) and gh =
 * h_{t-1} U^T + c with one more (the lines' rows are length * H apart,
 * which is just a leading dimension); at a sweep's first step gh is c
 * itself. The saved gates are step-major within a block
 * (td_mixer_saved_at), so that a step's rows are one contiguous run. The gate blocks
 * are ordered r, z, n in W, U, b and c. Backward, a block's weight and
 * bias gradients are summed while its dgx and dgh are in the caches, into
 * the block's own part, and the parts are added in block order. The
 * backward's dgx, dgh and hp are scratch: a thread's blocks all use the
 * slot of its first block (td_mixer_slot_rows), so that they stay in the
 * caches rather than go out to memory and come back, a block at a time.
 *
 * Workspace, for P = lines * length positions, L = lines and S = the
 * slots' rows (blocks * td_mixer_slot_rows >= P):
 *   x     [P][H]    a copy of the input (saved)
 *   h     [P][H]    the hidden states = the outputs (saved)
 *   gates [P][4H]   r, z, n and Un h_{t-1} + cn per position, step-major
 *                   by block (saved)
 *   gh    [L][3H]   one step's h_{t-1} U^T + c (forward scratch)
 *   wt, ut [H][3H]  W^T and U^T, which every step's GEMMs read as they are
 *                   stored (forward scratch)
 *   dgx   [S][3H]   dL/d(gx) (backward scratch, by slot)
 *   dgh   [S][3H]   dL/d(gh) (backward scratch, by slot)
 *   hp    [S][H]    h_{t-1} per position, 0 at a line's start (backward
 *                   scratch, by slot)
 *   carry [L][H]    dL/dh_{t-1} flowing to the previous step (backward scratch)
 *   part  [B][n]    each block's dW, dU, db and dc, n the parameter count
 *                   (backward scratch)
 *
 * Must never: let a gradient's summation order depend on the thread count;
 * read h_{t-1} at the first step of a sweep (it is zero by definition).
 */
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "../base/error.h"
#include "fastmath.h"
#include "gemm.h"
#include "mixer_int.h"
#include "pool.h"
#include "transpose.h"

enum { T_W, T_U, T_B, T_C };

static int gru_setup(td_mixer *m)
{
	size_t h = m->o.channels;
	td_real s = (td_real)(1 / sqrt((double)h));
	int err;

	if (h > SIZE_MAX / 16) /* so that 3H, 4H ... 16H below never wrap */
		return TD_FAIL(TD_EINVAL, "channels %zu is too large for a gru", h);
	if ((err = td_mixer_add_tensor(m, "W", 3 * h, h, (td_init_rule){TD_INIT_NORMAL, 0, s})) ||
	    (err = td_mixer_add_tensor(m, "U", 3 * h, h, (td_init_rule){TD_INIT_NORMAL, 0, s})) ||
	    (err = td_mixer_add_tensor(m, "b", 1, 3 * h, (td_init_rule){TD_INIT_UNIFORM, -s, s})) ||
	    (err = td_mixer_add_tensor(m, "c", 1, 3 * h, (td_init_rule){TD_INIT_UNIFORM, -s, s})))
		return err;
	return 0;
}

/* 16H fits (gru_setup checked); the products are checked here. */
static int gru_ws_size(size_t *out, const td_mixer *m, size_t lines, size_t length)
{
	size_t h = m->o.channels, blocks = td_mixer_blocks(lines, length), per_line, parts, rows,
	       slots;
	int err = td_mixer_size_muladd(&parts, blocks, m->n_params, 0, "the gru workspace");

	if (!err)
		err = td_mixer_size_muladd(&parts, 6 * h, h, parts, "the gru workspace");
	if (!err)
		err = td_mixer_size_muladd(&per_line, lines, 4 * h, parts, "the gru workspace");
	if (!err)
		err = td_mixer_size_muladd(&rows, blocks, td_mixer_slot_rows(lines, length), 0,
					   "the gru workspace");
	if (!err)
		err = td_mixer_size_muladd(&slots, rows, 7 * h, per_line, "the gru workspace");
	if (!err)
		err = td_mixer_size_muladd(out, lines * length, 6 * h, slots, "the gru workspace");
	return err;
}

typedef struct {
	td_real *x, *h, *gates, *gh, *wt, *ut, *dgx, *dgh, *hp, *carry, *part;
} gru_ws;

static gru_ws carve(const td_mixer *m, td_real *ws, size_t lines, size_t length)
{
	size_t h = m->o.channels, p = lines * length;
	size_t sr = td_mixer_blocks(lines, length) * td_mixer_slot_rows(lines, length);
	gru_ws w;

	w.x = ws;
	w.h = w.x + p * h;
	w.gates = w.h + p * h;
	w.gh = w.gates + p * 4 * h;
	w.wt = w.gh + lines * 3 * h;
	w.ut = w.wt + 3 * h * h;
	w.dgx = w.ut + 3 * h * h;
	w.dgh = w.dgx + sr * 3 * h;
	w.hp = w.dgh + sr * 3 * h;
	w.carry = w.hp + sr * h;
	w.part = w.carry + lines * h;
	return w;
}

/* The position in a line of step s of the sweep. */
static size_t at(size_t s, size_t length, int reverse)
{
	return reverse ? length - 1 - s : s;
}

/*
 * The blocks of one call, forward or backward: a thread runs a range of
 * them (td_pool_ranges). Every line's recurrence is its own; the GEMMs
 * inside run on one thread, over the block's rows.
 */
typedef struct {
	td_mixer *m;
	gru_ws *w;
	const td_real *x;  /* forward only */
	td_real *y;	   /* forward only */
	const td_real *dy; /* backward only */
	td_real *dx;	   /* backward only */
	size_t lines, length, blocks;
} gru_lines;

/*
 * Step s's products for the block of lines l0 .. l1-1: gx = x_t W^T into
 * the first 3H columns of its gate rows, and for s >= 1 gh = h_{t-1} U^T +
 * c (at s = 0 gh is c itself, which step_forward reads in place). W^T and
 * U^T come from w->wt and w->ut: a GEMM would pack them on every step.
 */
static int step_in(td_mixer *m, gru_ws *w, size_t l0, size_t l1, size_t length, size_t s)
{
	const size_t h = m->o.channels, t = at(s, length, m->o.reverse);
	const td_real *c = td_mixer_slab_at(m, m->params, T_C);
	const td_real *prev = s ? w->h + (l0 * length + at(s - 1, length, m->o.reverse)) * h : NULL;
	int err;

	if ((err = td_gemm(w->gates + td_mixer_saved_at(l0, l1, length, l0, t) * 4 * h, 4 * h,
			   w->x + (l0 * length + t) * h, length * h, w->wt, 3 * h, l1 - l0, 3 * h,
			   h, NULL)))
		return err;
	if (s == 0)
		return 0;
	if ((err = td_gemm(w->gh + l0 * 3 * h, 3 * h, prev, length * h, w->ut, 3 * h, l1 - l0,
			   3 * h, h, NULL)))
		return err;
	for (size_t l = l0; l < l1; l++) {
		td_real *row = w->gh + l * 3 * h;

		for (size_t k = 0; k < 3 * h; k++)
			row[k] += c[k];
	}
	return 0;
}

/*
 * One line's gates: rz holds the r and z pre-activations from x (2H, x W^T
 * without b) and gets the gates, n holds n's (H) and gets n, ghn gets Un
 * h_{t-1} + cn; b is the input bias (3H), added first, and gh the line's
 * h_{t-1} U^T + c (3H). A simple loop per gate over the row, so that each
 * vectorises (td_sigmoid and td_tanh are inline).
 */
static void gates_row(td_real *restrict rz, td_real *restrict n, td_real *restrict ghn,
		      const td_real *restrict b, const td_real *restrict gh, size_t h)
{
	for (size_t k = 0; k < 2 * h; k++)
		rz[k] = td_sigmoid((rz[k] + b[k]) + gh[k]);
	for (size_t k = 0; k < h; k++) {
		ghn[k] = gh[2 * h + k];
		n[k] = td_tanh((n[k] + b[2 * h + k]) + rz[k] * gh[2 * h + k]);
	}
}

/* h_t = (1 - z) n + z h_{t-1} for one line; hp NULL at the sweep's first step (h_{-1} = 0). */
static void state_row(td_real *restrict ht, const td_real *restrict z, const td_real *restrict n,
		      const td_real *restrict hp, size_t h)
{
	if (hp)
		for (size_t k = 0; k < h; k++)
			ht[k] = (1 - z[k]) * n[k] + z[k] * hp[k];
	else
		for (size_t k = 0; k < h; k++)
			ht[k] = (1 - z[k]) * n[k];
}

/* Step s of lines l0 .. l1-1: gates from gx (already in gates), b and gh, then h_t. */
static void step_forward(td_mixer *m, gru_ws *w, size_t l0, size_t l1, size_t length, size_t s)
{
	const size_t h = m->o.channels, t = at(s, length, m->o.reverse);
	const td_real *b = td_mixer_slab_at(m, m->params, T_B);
	const td_real *c = td_mixer_slab_at(m, m->params, T_C);

	for (size_t l = l0; l < l1; l++) {
		td_real *g = w->gates + td_mixer_saved_at(l0, l1, length, l, t) * 4 * h;
		td_real *ht = w->h + (l * length + t) * h;
		const td_real *hp =
		    s ? w->h + (l * length + at(s - 1, length, m->o.reverse)) * h : NULL;

		if (s + 1 < length) { /* the rows the next step's products read and write */
			const size_t next = at(s + 1, length, m->o.reverse);

			td_mixer_prefetch(w->x + (l * length + next) * h, h);
			td_mixer_prefetch_write(
			    w->gates + td_mixer_saved_at(l0, l1, length, l, next) * 4 * h, 4 * h);
		}
		gates_row(g, g + 2 * h, g + 3 * h, b, s ? w->gh + l * 3 * h : c, h);
		state_row(ht, g + h, g + 2 * h, hp, h);
	}
}

/* Blocks k0 .. k1-1 forward: a block's copy of x (saved), its recurrence, then its y. */
static int forward_blocks(void *arg, size_t k0, size_t k1)
{
	const gru_lines *j = arg;
	const size_t h = j->m->o.channels, t = j->length;
	int err;

	for (size_t k = k0; k < k1; k++) {
		size_t b0, b1;

		td_mixer_block(j->lines, j->blocks, k, &b0, &b1);
		memcpy(j->w->x + b0 * t * h, j->x + b0 * t * h, (b1 - b0) * t * h * sizeof *j->x);
		for (size_t s = 0; s < t; s++) {
			if ((err = step_in(j->m, j->w, b0, b1, t, s)))
				return err;
			step_forward(j->m, j->w, b0, b1, t, s);
		}
		memcpy(j->y + b0 * t * h, j->w->h + b0 * t * h, (b1 - b0) * t * h * sizeof *j->y);
	}
	return 0;
}

static int gru_forward(td_mixer *m, td_real *y, const td_real *x, size_t lines, size_t length,
		       td_real *ws)
{
	gru_ws w = carve(m, ws, lines, length);
	gru_lines j = {m, &w, x, y, NULL, NULL, lines, length, td_mixer_blocks(lines, length)};

	td_transpose(w.wt, 3 * m->o.channels, td_mixer_slab_at(m, m->params, T_W), m->o.channels,
		     3 * m->o.channels, m->o.channels);
	td_transpose(w.ut, 3 * m->o.channels, td_mixer_slab_at(m, m->params, T_U), m->o.channels,
		     3 * m->o.channels, m->o.channels);
	return td_pool_ranges(m->o.threads, j.blocks, forward_blocks, &j);
}

/*
 * One position of one line, backwards: from dh = dy + carry, the gate
 * adjoints into dgx and dgh (3H each), and carry = dh * z (the direct path
 * to h_{t-1}). g is the position's saved r, z, n and Un h_{t-1} + cn, hp
 * its h_{t-1} (zeros at the sweep's first step).
 */
static void back_row(td_real *restrict dgx, td_real *restrict dgh, td_real *restrict carry,
		     const td_real *restrict g, const td_real *restrict dy,
		     const td_real *restrict hp, size_t h)
{
	for (size_t k = 0; k < h; k++) {
		td_real r = g[k], z = g[h + k], n = g[2 * h + k], ghn = g[3 * h + k];
		td_real dh = dy[k] + carry[k];
		td_real dz = dh * (hp[k] - n) * z * (1 - z);
		td_real dn = dh * (1 - z) * (1 - n * n);
		td_real dr = dn * ghn * r * (1 - r);

		dgx[k] = dr, dgx[h + k] = dz, dgx[2 * h + k] = dn;
		dgh[k] = dr, dgh[h + k] = dz, dgh[2 * h + k] = dn * r;
		carry[k] = dh * z;
	}
}

/*
 * Step s of lines l0 .. l1-1, backwards, into sc, the block's slot (its
 * rows from line l0's first); needs the slot's hp (td_mixer_shift_prev of
 * w->h).
 */
static void step_backward(const td_mixer *m, gru_ws *w, const gru_ws *sc, const td_real *dy,
			  size_t l0, size_t l1, size_t length, size_t s)
{
	const size_t h = m->o.channels, t = at(s, length, m->o.reverse);
	const size_t next = s ? at(s - 1, length, m->o.reverse) : t;

	for (size_t l = l0; l < l1; l++) {
		const size_t r = td_mixer_saved_at(l0, l1, length, l, t);
		const size_t rn = td_mixer_saved_at(l0, l1, length, l, next);
		size_t pos = l * length + t, q = (l - l0) * length + t;

		if (s) { /* the rows the step before reads next (td_mixer_prefetch) */
			td_mixer_prefetch(w->gates + rn * 4 * h, 4 * h);
			td_mixer_prefetch(dy + (l * length + next) * h, h);
		}
		back_row(sc->dgx + q * 3 * h, sc->dgh + q * 3 * h, w->carry + l * h,
			 w->gates + r * 4 * h, dy + pos * h, sc->hp + q * h, h);
	}
}

/*
 * Block k's gradient sums into its part: dW = dgx^T x and dU = dgh^T hp
 * ([3H x rows] [rows x H]; on lines of one step, the kernel family's, hp
 * is 0 throughout and dU gets nothing), db and dc the column sums of dgx
 * and dgh, rows ascending. The block's positions are p0 .. p1-1; sc is
 * its slot.
 */
static int block_grads(td_mixer *m, gru_ws *w, const gru_ws *sc, size_t k, size_t p0, size_t p1,
		       size_t length)
{
	const size_t h = m->o.channels, h3 = 3 * h;
	td_real *part = w->part + k * m->n_params;
	td_real *db = td_mixer_slab_at(m, part, T_B), *dc = td_mixer_slab_at(m, part, T_C);
	int err = td_mixer_block_weights(m, part, T_W, T_U, sc->dgx, sc->dgh, h3, w->x + p0 * h,
					 sc->hp, p1 - p0, length);

	if (err)
		return err;
	memset(db, 0, h3 * sizeof *db);
	memset(dc, 0, h3 * sizeof *dc);
	for (size_t i = 0; i < p1 - p0; i++)
		for (size_t c = 0; c < h3; c++) {
			db[c] += sc->dgx[i * h3 + c];
			dc[c] += sc->dgh[i * h3 + c];
		}
	return 0;
}

/*
 * Blocks k0 .. k1-1 backwards, in the slot of block k0: a block's h_{t-1},
 * its recurrence filling its dgx and dgh, then its dx = dgx W and its
 * gradient sums while dgx and dgh are still in the caches.
 */
static int backward_blocks(void *arg, size_t k0, size_t k1)
{
	const gru_lines *j = arg;
	td_mixer *m = j->m;
	gru_ws *w = j->w, sc = *w;
	const size_t h = m->o.channels, length = j->length;
	const size_t slot = k0 * td_mixer_slot_rows(j->lines, length);
	td_gemm_opts o = TD_GEMM_OPTS_INIT, put = TD_GEMM_OPTS_INIT;
	int err;

	sc.dgx += slot * 3 * h, sc.dgh += slot * 3 * h, sc.hp += slot * h;
	o.beta = 1;
	for (size_t k = k0; k < k1; k++) {
		size_t b0, b1;

		td_mixer_block(j->lines, j->blocks, k, &b0, &b1);
		td_mixer_shift_prev(sc.hp, w->h + b0 * length * h, b1 - b0, length, h,
				    m->o.reverse);
		memset(w->carry + b0 * h, 0, (b1 - b0) * h * sizeof *w->carry);
		for (size_t s = length; s-- > 0;) {
			step_backward(m, w, &sc, j->dy, b0, b1, length, s);
			if (s == 0)
				break; /* h_{-1} is a constant: nothing flows further */
			/* carry += dgh_t U: [lines x 3H] [3H x H] */
			err =
			    td_gemm(w->carry + b0 * h, h,
				    sc.dgh + at(s, length, m->o.reverse) * 3 * h, length * 3 * h,
				    td_mixer_slab_at(m, m->params, T_U), h, b1 - b0, h, 3 * h, &o);
			if (err)
				return err;
		}
		/* dx = dgx W: [positions x 3H] [3H x H] */
		if ((err = td_gemm(j->dx + b0 * length * h, h, sc.dgx, 3 * h,
				   td_mixer_slab_at(m, m->params, T_W), h, (b1 - b0) * length, h,
				   3 * h, &put)) ||
		    (err = block_grads(m, w, &sc, k, b0 * length, b1 * length, length)))
			return err;
	}
	return 0;
}

static int gru_backward(td_mixer *m, td_real *dx, const td_real *dy, size_t lines, size_t length,
			td_real *ws)
{
	gru_ws w = carve(m, ws, lines, length);
	gru_lines j = {m, &w, NULL, NULL, dy, dx, lines, length, td_mixer_blocks(lines, length)};
	int err = td_pool_ranges(m->o.threads, j.blocks, backward_blocks, &j);

	if (!err)
		td_mixer_add_parts(m, w.part, j.blocks, T_U, length);
	return err;
}

const td_mixer_ops td_mixer_gru_ops = {"gru", gru_setup, gru_ws_size, gru_forward, gru_backward};
