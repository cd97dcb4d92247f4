/*
 * family_flatten.c - flatten: the present cells of each example as one
 * joint sequence through the mixer.
 *
 * The sequence holds the present cells only (sparsity is a saving here),
 * in row-major order over the axes taken in td_axial_order (time first,
 * then by name): seq[p] is the cell at sequence position p. Storage order
 * never decides the sequence, so the same data laid out in another axis
 * order gives the same sequence.
 *
 *   xs[b][p] = x[b][seq[p]]       (absent cells are never read)
 *   ys = mixer(xs)                one line of n_present per example
 *   y = 0; y[b][seq[p]] = ys[b][p]
 * The copies go a run of consecutive cells at a time, and y is cleared only
 * when some cell is absent. When the sequence is every cell in storage
 * order, the mixer reads x and writes y directly: no copy at all.
 *
 * Workspace, for Q = max_batch * n_present * width:
 *   xs  [Q]    the gathered sequence, then its gradient (scratch)
 *   ys  [Q]    the mixed sequence, then the input gradient (scratch)
 *   mix [...]  the mixer's chunk workspaces (saved)
 *
 * Must never: read an absent cell, leave anything but 0 in one, or order
 * the sequence by storage order.
 */
#include <stdlib.h>
#include <string.h>

#include "block_int.h"
#include "../base/error.h"

typedef struct {
	size_t n;    /* present cells: the sequence length */
	size_t *seq; /* [n] sequence position -> cell */
	size_t q;    /* max_batch * n * width */
	td_run *run; /* [n_runs] seq's runs of consecutive cells (axial.h) */
	size_t n_runs;
} flat_state;

/* The cell's row-major index over the axes in canonical order. */
static size_t canonical_index(const td_lattice *lat, const int *order, size_t cell)
{
	size_t st[TD_LATTICE_MAX_RANK], s = 1, key = 0;
	int rank = td_lattice_rank(lat);

	for (int i = rank; i-- > 0;) {
		st[i] = s;
		s *= td_lattice_size(lat, i);
	}
	for (int i = 0; i < rank; i++)
		key = key * td_lattice_size(lat, order[i]) +
		      (cell / st[order[i]]) % td_lattice_size(lat, order[i]);
	return key;
}

/* seq: the present cells by ascending canonical index (keys are a permutation). */
static int build_seq(flat_state *s, const td_block *b)
{
	int order[TD_LATTICE_MAX_RANK];
	size_t *by_key = malloc(b->n_cells * sizeof *by_key), p = 0;

	if (!by_key)
		return TD_FAIL(TD_ENOMEM, "out of memory for a flatten order");
	td_axial_order(b->lat, order);
	for (size_t c = 0; c < b->n_cells; c++)
		by_key[canonical_index(b->lat, order, c)] = c;
	for (size_t k = 0; k < b->n_cells; k++)
		if (b->mask[by_key[k]])
			s->seq[p++] = by_key[k];
	free(by_key);
	return 0;
}

static int flat_setup(td_block *b)
{
	flat_state *s = calloc(1, sizeof *s);
	size_t mix = 0;
	int err;

	if (!s)
		return TD_FAIL(TD_ENOMEM, "out of memory for a flatten block");
	b->fam = s;
	s->n = td_lattice_n_present(b->lat);
	if (!(s->seq = malloc(s->n * sizeof *s->seq)))
		return TD_FAIL(TD_ENOMEM, "out of memory for a flatten order");
	if ((err = build_seq(s, b)) || (err = td_axial_runs(&s->run, &s->n_runs, s->seq, s->n)) ||
	    (err = td_mixer_size_muladd(&s->q, b->o.max_batch * s->n, b->width, 0,
					"the flatten buffers")) ||
	    (err = td_block_mix_ws(&mix, b, b->o.max_batch, s->n)))
		return err;
	return td_mixer_size_muladd(&b->ws_len, 2, s->q, mix, "the flatten workspace");
}

/* dst[b][p] = src[b][seq[p]], a run at a time. */
static void gather(const td_block *b, const flat_state *s, td_real *dst, const td_real *src,
		   size_t batch)
{
	const size_t c = b->width;

	for (size_t e = 0; e < batch; e++)
		for (const td_run *r = s->run; r < s->run + s->n_runs; r++)
			memcpy(dst + (e * s->n + r->pos) * c, src + (e * b->n_cells + r->cell) * c,
			       r->len * c * sizeof *dst);
}

/* dst = 0 (where some cell is absent); dst[b][seq[p]] = src[b][p], a run at a time. */
static void scatter(const td_block *b, const flat_state *s, td_real *dst, const td_real *src,
		    size_t batch)
{
	const size_t c = b->width;

	if (s->n < b->n_cells)
		memset(dst, 0, batch * b->n_cells * c * sizeof *dst);
	for (size_t e = 0; e < batch; e++)
		for (const td_run *r = s->run; r < s->run + s->n_runs; r++)
			memcpy(dst + (e * b->n_cells + r->cell) * c, src + (e * s->n + r->pos) * c,
			       r->len * c * sizeof *dst);
}

/*
 * Whether the sequence is every cell in storage order (a dense lattice
 * whose canonical axis order is its storage order): then x is already the
 * sequence, and gathering and scattering would only copy it.
 */
static int is_identity(const td_block *b, const flat_state *s)
{
	return s->n == b->n_cells && s->n_runs == 1;
}

static int flat_forward(td_block *b, td_real *y, const td_real *x, size_t batch)
{
	const flat_state *s = b->fam;
	td_real *xs = b->ws, *ys = xs + s->q;
	int err;

	if (is_identity(b, s))
		return td_block_mix_forward(b, y, x, batch, s->n, ys + s->q);
	gather(b, s, xs, x, batch);
	if ((err = td_block_mix_forward(b, ys, xs, batch, s->n, ys + s->q)))
		return err;
	scatter(b, s, y, ys, batch);
	return 0;
}

static int flat_backward(td_block *b, td_real *dx, const td_real *dy, size_t batch)
{
	const flat_state *s = b->fam;
	td_real *gs = b->ws, *dxs = gs + s->q;
	int err;

	if (is_identity(b, s))
		return td_block_mix_backward(b, dx, dy, batch, s->n, dxs + s->q);
	gather(b, s, gs, dy, batch);
	if ((err = td_block_mix_backward(b, dxs, gs, batch, s->n, dxs + s->q)))
		return err;
	scatter(b, s, dx, dxs, batch);
	return 0;
}

const size_t *td_block_flatten_seq(const td_block *b, size_t *n)
{
	const flat_state *s = b->fam;

	*n = s->n;
	return s->seq;
}

static void flat_free(td_block *b)
{
	flat_state *s = b->fam;

	free(s->seq);
	free(s->run);
	free(s);
}

const td_block_ops td_family_flatten_ops = {"flatten", flat_setup, flat_forward, flat_backward,
					    NULL, flat_free};
