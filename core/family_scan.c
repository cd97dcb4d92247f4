/*
 * family_scan.c - the axial scan: one plan step of an axial model.
 *
 * Forward, for the step's axis a and direction:
 *   xf  = fold_a(select_present(x))      [batch * lines][size_a][width],
 *                                        absent cells 0
 *   yf  = mixer(xf)                      along a, reversed if the step is
 *   y   = select_present(unfold_a(yf))   absent cells written as 0
 * Backward runs the same chain adjoint: select and fold, mixer backward,
 * unfold and select. Each select-and-(un)fold is one pass (block.c), and
 * none at all when it would only copy: a step along the innermost axis of
 * a lattice with no absent cell mixes x into y directly.
 *
 * Workspace, for P = max_batch * n_cells * width values:
 *   xf  [P]    folded input / gradient (scratch: the mixer saves its own copy)
 *   yf  [P]    folded output / input gradient (scratch)
 *   mix [...]  the mixer's chunk workspaces (saved for the backward)
 *
 * Must never: let an absent cell's value reach the mixer, or read the
 * direction from anywhere but the step.
 */
#include <stdlib.h>

#include "block_int.h"
#include "../base/error.h"

typedef struct {
	td_fold *fold; /* around the step's axis */
	size_t p;      /* max_batch * n_cells * width */
} scan_state;

typedef struct {
	td_real *xf, *yf, *mix;
} scan_ws;

static scan_ws carve(const td_block *b)
{
	const scan_state *s = b->fam;
	scan_ws w;

	w.xf = b->ws;
	w.yf = w.xf + s->p;
	w.mix = w.yf + s->p;
	return w;
}

static int scan_setup(td_block *b)
{
	scan_state *s = calloc(1, sizeof *s);
	size_t mix = 0;
	int err;

	if (!s)
		return TD_FAIL(TD_ENOMEM, "out of memory for a scan block");
	b->fam = s;
	if ((err = td_fold_new(&s->fold, b->lat, td_lattice_axis(b->lat, b->o.axis))))
		return err;
	if ((err = td_mixer_size_muladd(&s->p, b->o.max_batch * b->n_cells, b->width, 0,
					"the scan buffers")) ||
	    (err = td_block_mix_ws(&mix, b, b->o.max_batch * s->fold->lines, s->fold->length)))
		return err;
	return td_mixer_size_muladd(&b->ws_len, 2, s->p, mix, "the scan workspace");
}

/*
 * Whether selecting and folding would only copy: the fold is the identity
 * (the step's axis is the innermost in storage) and no cell can be absent,
 * on the lattice or in an example. The mixer then reads x and writes y.
 */
static int is_plain_copy(const td_block *b, const scan_state *s)
{
	return s->fold->n_runs == 1 && td_block_no_absent(b);
}

static int scan_forward(td_block *b, td_real *y, const td_real *x, size_t batch)
{
	const scan_state *s = b->fam;
	scan_ws w = carve(b);
	int err;

	if (is_plain_copy(b, s))
		return td_block_mix_forward(b, y, x, batch * s->fold->lines, s->fold->length,
					    w.mix);

	if ((err = td_block_fold_select(b, s->fold, batch, b->width, x, w.xf)) ||
	    (err = td_block_mix_forward(b, w.yf, w.xf, batch * s->fold->lines, s->fold->length,
					w.mix)))
		return err;
	return td_block_unfold_select(b, s->fold, batch, b->width, w.yf, y);
}

static int scan_backward(td_block *b, td_real *dx, const td_real *dy, size_t batch)
{
	const scan_state *s = b->fam;
	scan_ws w = carve(b);
	int err;

	if (is_plain_copy(b, s))
		return td_block_mix_backward(b, dx, dy, batch * s->fold->lines, s->fold->length,
					     w.mix);
	if ((err = td_block_fold_select(b, s->fold, batch, b->width, dy, w.xf)) ||
	    (err = td_block_mix_backward(b, w.yf, w.xf, batch * s->fold->lines, s->fold->length,
					 w.mix)))
		return err;
	return td_block_unfold_select(b, s->fold, batch, b->width, w.yf, dx);
}

static void scan_free(td_block *b)
{
	scan_state *s = b->fam;

	td_fold_free(s->fold);
	free(s);
}

const td_block_ops td_family_scan_ops = {"scan", scan_setup, scan_forward, scan_backward, NULL,
					 scan_free};
