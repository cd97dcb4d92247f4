/*
 * mixer_rnn.c - the block driver the recurrences (mixer_gru.c,
 * mixer_lstm.c) share: it runs a call's blocks of lines on the pool, a
 * block's steps in sweep order, and backward the products that carry a
 * step's adjoints to the step before and to dx, then the block's weight
 * and bias gradients into the block's own part. The kinds supply their
 * steps (td_mixer_rnn_ops, mixer_int.h) and their workspace's layout.
 *
 * Must never: let a gradient's summation order depend on the thread
 * count (each block sums into its own part, td_mixer_add_parts adds the
 * parts in block order); change the order of any sum a kind took before
 * the driver was shared (bench/core's hashes compare the two).
 */
#include <string.h>

#include "../base/error.h"
#include "gemm.h"
#include "mixer_int.h"
#include "pool.h"
#include "transpose.h"

enum { T_W, T_U, T_B, T_C };

/* The position in a line of step s of the sweep. */
static size_t at(size_t s, size_t length, int reverse)
{
	return reverse ? length - 1 - s : s;
}

/* Blocks k0 .. k1-1 forward: a block's copy of x (saved), its steps, then forward_end. */
static int forward_blocks(void *arg, size_t k0, size_t k1)
{
	const td_mixer_rnn *j = arg;
	const size_t h = j->m->o.channels, t = j->length;
	int err;

	for (size_t k = k0; k < k1; k++) {
		size_t b0, b1;

		td_mixer_block(j->lines, j->blocks, k, &b0, &b1);
		memcpy(j->w->x + b0 * t * h, j->x + b0 * t * h, (b1 - b0) * t * h * sizeof *j->x);
		for (size_t s = 0; s < t; s++) {
			if ((err = j->ops->step_in(j, b0, b1, s)))
				return err;
			j->ops->step_forward(j, b0, b1, s);
		}
		if (j->ops->forward_end)
			j->ops->forward_end(j, b0, b1);
	}
	return 0;
}

int td_mixer_rnn_forward(const td_mixer_rnn_ops *ops, td_mixer *m, td_mixer_rnn_ws *w, td_real *y,
			 const td_real *x, size_t lines, size_t length)
{
	const size_t h = m->o.channels, gh = ops->gates * h;
	td_mixer_rnn j = {.ops = ops, .m = m, .w = w, .x = x, .y = y, .lines = lines,
			  .length = length, .blocks = td_mixer_blocks(lines, length)};

	td_transpose(w->wt, gh, td_mixer_slab_at(m, m->params, T_W), h, gh, h);
	td_transpose(w->ut, gh, td_mixer_slab_at(m, m->params, T_U), h, gh, h);
	return td_pool_ranges(m->o.threads, j.blocks, forward_blocks, &j);
}

/*
 * Block k's gradient sums into its part: dW = dgx^T x and dU = dgh^T hp
 * ([GH x rows] [rows x H]; on lines of one step hp is 0 throughout and dU
 * gets nothing; a kind may take dW itself there, one_step_weights), db and
 * dc the column sums of dgx and dgh, rows ascending (dc = db where dgh is
 * dgx). The block's positions are p0 .. p1-1; sc is its slot.
 */
static int block_grads(const td_mixer_rnn *j, const td_mixer_rnn_ws *sc, size_t k, size_t p0,
		       size_t p1)
{
	td_mixer *m = j->m;
	const size_t h = m->o.channels, gh = j->ops->gates * h, ld = sc->ld;
	td_real *part = j->w->part + k * m->n_params;
	td_real *db = td_mixer_slab_at(m, part, T_B), *dc = td_mixer_slab_at(m, part, T_C);
	int err;

	if (j->length == 1 && j->ops->one_step_weights)
		err = j->ops->one_step_weights(j, sc, part, p0, p1);
	else
		err = td_mixer_block_weights(m, part, T_W, T_U, sc->dgx, sc->dgh, ld,
					     j->w->x + p0 * h, sc->hp, p1 - p0, j->length);
	if (err)
		return err;
	memset(db, 0, gh * sizeof *db);
	if (sc->dgh == sc->dgx) { /* one adjoint for both products: dc = db */
		for (size_t i = 0; i < p1 - p0; i++)
			for (size_t c = 0; c < gh; c++)
				db[c] += sc->dgx[i * ld + c];
		memcpy(dc, db, gh * sizeof *db);
		return 0;
	}
	memset(dc, 0, gh * sizeof *dc);
	for (size_t i = 0; i < p1 - p0; i++)
		for (size_t c = 0; c < gh; c++) {
			db[c] += sc->dgx[i * ld + c];
			dc[c] += sc->dgh[i * ld + c];
		}
	return 0;
}

/*
 * One block backwards in the slot sc: backward_begin, its steps from the
 * last, each but the first carrying dgh_t U to the step before, then dx =
 * dgx W, backward_end and its gradient sums while dgx and dgh are still
 * in the caches.
 */
static int backward_block(const td_mixer_rnn *j, const td_mixer_rnn_ws *sc, size_t k)
{
	const td_mixer_rnn_ops *ops = j->ops;
	td_mixer *m = j->m;
	const td_mixer_rnn_ws *w = j->w;
	const size_t h = m->o.channels, gh = ops->gates * h, length = j->length;
	td_gemm_opts carry = TD_GEMM_OPTS_INIT, put = TD_GEMM_OPTS_INIT;
	size_t b0, b1;
	int err;

	carry.beta = (td_real)ops->carry_adds;
	td_mixer_block(j->lines, j->blocks, k, &b0, &b1);
	ops->backward_begin(j, sc, b0, b1);
	for (size_t s = length; s-- > 0;) {
		ops->step_backward(j, sc, b0, b1, s);
		if (s == 0)
			break; /* h_{-1} is a constant: nothing flows further */
		/* carry (+)= dgh_t U: [lines x GH] [GH x H] */
		err = td_gemm(w->carry + b0 * h, h, sc->dgh + at(s, length, m->o.reverse) * w->ld,
			      length * w->ld, td_mixer_slab_at(m, m->params, T_U), h, b1 - b0, h,
			      gh, &carry);
		if (err)
			return err;
	}
	/* dx = dgx W: [positions x GH] [GH x H] */
	if ((err =
		 td_gemm(j->dx + b0 * length * h, h, sc->dgx, w->ld,
			 td_mixer_slab_at(m, m->params, T_W), h, (b1 - b0) * length, h, gh, &put)))
		return err;
	if (ops->backward_end)
		ops->backward_end(j, sc, b0, b1);
	return block_grads(j, sc, k, b0 * length, b1 * length);
}

/* Blocks k0 .. k1-1 backwards, all in the slot of block k0 (td_mixer_slot_rows). */
static int backward_blocks(void *arg, size_t k0, size_t k1)
{
	const td_mixer_rnn *j = arg;
	td_mixer_rnn_ws sc = *j->w;
	const size_t h = j->m->o.channels;
	const size_t slot = k0 * td_mixer_slot_rows(j->lines, j->length);
	int err;

	sc.dgx += slot * sc.ld, sc.dgh += slot * sc.ld, sc.hp += slot * h;
	for (size_t k = k0; k < k1; k++)
		if ((err = backward_block(j, &sc, k)))
			return err;
	return 0;
}

int td_mixer_rnn_backward(const td_mixer_rnn_ops *ops, td_mixer *m, td_mixer_rnn_ws *w, td_real *dx,
			  const td_real *dy, size_t lines, size_t length)
{
	td_mixer_rnn j = {.ops = ops, .m = m, .w = w, .dy = dy, .dx = dx, .lines = lines,
			  .length = length, .blocks = td_mixer_blocks(lines, length)};
	int err = td_pool_ranges(m->o.threads, j.blocks, backward_blocks, &j);

	if (!err)
		td_mixer_add_parts(m, w->part, j.blocks, T_U, length);
	return err;
}
