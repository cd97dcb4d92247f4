/*
 * family_scan.c - the axial scan: one plan step of an axial model.
 *
 * Forward, for the step's axis a and direction:
 *   sel = select_present(x)              absent cells become 0
 *   xf  = fold_a(sel)                    [batch * lines][size_a][width]
 *   yf  = mixer(xf)                      along a, reversed if the step is
 *   y   = select_present(unfold_a(yf))   absent cells written as 0
 * Backward runs the same chain adjoint: select, fold, mixer backward,
 * unfold, select.
 *
 * Workspace, for P = max_batch * n_cells * width values:
 *   sel [P]    the selected input, then the selected gradient (scratch)
 *   xf  [P]    folded input / gradient (scratch: the mixer saves its own copy)
 *   yf  [P]    folded output / input gradient (scratch)
 *   mix [...]  the mixer's chunk workspaces (saved for the backward)
 *
 * Must never: let an absent cell's value reach the mixer, or read the
 * direction from anywhere but the step.
 */
#include <stdlib.h>
#include <string.h>

#include "block_int.h"
#include "error.h"

typedef struct {
	td_fold *fold; /* around the step's axis */
	size_t p;      /* max_batch * n_cells * width */
} scan_state;

typedef struct {
	td_real *sel, *xf, *yf, *mix;
} scan_ws;

static scan_ws carve(const td_block *b)
{
	const scan_state *s = b->fam;
	scan_ws w;

	w.sel = b->ws;
	w.xf = w.sel + s->p;
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
	return td_mixer_size_muladd(&b->ws_len, 3, s->p, mix, "the scan workspace");
}

static int scan_forward(td_block *b, td_real *y, const td_real *x, size_t batch)
{
	const scan_state *s = b->fam;
	scan_ws w = carve(b);
	size_t n = batch * b->n_cells * b->width;
	int err;

	memcpy(w.sel, x, n * sizeof *x);
	td_block_select(b, batch, b->width, w.sel);
	td_fold_apply(s->fold, batch, b->width, w.sel, w.xf);
	if ((err = td_block_mix_forward(b, w.yf, w.xf, batch * s->fold->lines, s->fold->length,
					w.mix)))
		return err;
	td_fold_undo(s->fold, batch, b->width, w.yf, y);
	td_block_select(b, batch, b->width, y);
	return 0;
}

static int scan_backward(td_block *b, td_real *dx, const td_real *dy, size_t batch)
{
	const scan_state *s = b->fam;
	scan_ws w = carve(b);
	size_t n = batch * b->n_cells * b->width;
	int err;

	memcpy(w.sel, dy, n * sizeof *dy);
	td_block_select(b, batch, b->width, w.sel);
	td_fold_apply(s->fold, batch, b->width, w.sel, w.xf);
	if ((err = td_block_mix_backward(b, w.yf, w.xf, batch * s->fold->lines, s->fold->length,
					 w.mix)))
		return err;
	td_fold_undo(s->fold, batch, b->width, w.yf, dx);
	td_block_select(b, batch, b->width, dx);
	return 0;
}

static void scan_free(td_block *b)
{
	scan_state *s = b->fam;

	td_fold_free(s->fold);
	free(s);
}

const td_block_ops td_family_scan_ops = {"scan", scan_setup, scan_forward, scan_backward, NULL,
					 scan_free};
