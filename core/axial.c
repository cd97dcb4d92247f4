/*
 * axial.c - folds, selection and the canonical axis order (see axial.h).
 *
 * Must never: derive unfold from its own formula (it is fold inverted), or
 * zero an absent cell by multiplying it.
 */
#include "axial.h"

#include <stdlib.h>
#include <string.h>

#include "../base/error.h"

/* Row-major strides of lat's axes, in cells. */
static void strides(const td_lattice *lat, size_t st[TD_LATTICE_MAX_RANK])
{
	size_t s = 1;

	for (int i = td_lattice_rank(lat); i-- > 0;) {
		st[i] = s;
		s *= td_lattice_size(lat, i);
	}
}

/* fold[line * length + t] for every cell: line counts the other axes row-major. */
static void fill_fold(td_fold *f, const td_lattice *lat, int axis)
{
	size_t st[TD_LATTICE_MAX_RANK];
	int rank = td_lattice_rank(lat);

	strides(lat, st);
	for (size_t cell = 0; cell < f->n_cells; cell++) {
		size_t line = 0, t = (cell / st[axis]) % f->length;

		for (int i = 0; i < rank; i++)
			if (i != axis)
				line = line * td_lattice_size(lat, i) +
				       (cell / st[i]) % td_lattice_size(lat, i);
		f->fold[line * f->length + t] = cell;
	}
}

int td_axial_runs(td_run **out, size_t *n_runs, const size_t *map, size_t n)
{
	td_run *run = malloc((n ? n : 1) * sizeof *run);
	size_t k = 0;

	*out = NULL, *n_runs = 0;
	if (!run)
		return TD_FAIL(TD_ENOMEM, "out of memory for the runs of a map of %zu cells", n);
	for (size_t p = 0; p < n; p++)
		if (k > 0 && map[p] == run[k - 1].cell + run[k - 1].len)
			run[k - 1].len++;
		else
			run[k++] = (td_run){p, map[p], 1};
	*out = run, *n_runs = k;
	return 0;
}

int td_fold_new(td_fold **out, const td_lattice *lat, int axis)
{
	td_fold *f;
	int err;

	*out = NULL;
	if (axis < 0 || axis >= td_lattice_rank(lat))
		return TD_FAIL(TD_EINVAL, "axis %d is outside 0..%d", axis,
			       td_lattice_rank(lat) - 1);
	if (!(f = calloc(1, sizeof *f)))
		return TD_FAIL(TD_ENOMEM, "out of memory for a fold");
	f->n_cells = td_lattice_n_cells(lat);
	f->length = td_lattice_size(lat, axis);
	f->lines = f->n_cells / f->length;
	f->fold = malloc(f->n_cells * sizeof *f->fold);
	f->unfold = malloc(f->n_cells * sizeof *f->unfold);
	if (!f->fold || !f->unfold) {
		td_fold_free(f);
		return TD_FAIL(TD_ENOMEM, "out of memory for a fold of %zu cells",
			       td_lattice_n_cells(lat));
	}
	fill_fold(f, lat, axis);
	for (size_t k = 0; k < f->n_cells; k++)
		f->unfold[f->fold[k]] = k;
	if ((err = td_axial_runs(&f->run, &f->n_runs, f->fold, f->n_cells))) {
		td_fold_free(f);
		return err;
	}
	*out = f;
	return 0;
}

void td_fold_free(td_fold *f)
{
	if (!f)
		return;
	free(f->fold);
	free(f->unfold);
	free(f->run);
	free(f);
}

void td_fold_apply(const td_fold *f, size_t batch, size_t channels, const td_real *x, td_real *xf)
{
	const size_t n = f->n_cells;

	for (size_t b = 0; b < batch; b++)
		for (const td_run *r = f->run; r < f->run + f->n_runs; r++)
			memcpy(xf + (b * n + r->pos) * channels, x + (b * n + r->cell) * channels,
			       r->len * channels * sizeof *x);
}

void td_fold_undo(const td_fold *f, size_t batch, size_t channels, const td_real *xf, td_real *x)
{
	const size_t n = f->n_cells;

	for (size_t b = 0; b < batch; b++)
		for (const td_run *r = f->run; r < f->run + f->n_runs; r++)
			memcpy(x + (b * n + r->cell) * channels, xf + (b * n + r->pos) * channels,
			       r->len * channels * sizeof *x);
}

void td_select_present(const uint8_t *mask, size_t n_cells, size_t batch, size_t channels,
		       td_real *x)
{
	for (size_t b = 0; b < batch; b++)
		for (size_t c = 0; c < n_cells; c++) {
			td_real *v = x + (b * n_cells + c) * channels;

			if (!mask[c]) /* a store, never a product: NaN * 0 is NaN */
				memset(v, 0, channels * sizeof *v);
		}
}

void td_select_present_each(const uint8_t *mask, size_t n_cells, size_t batch, size_t channels,
			    td_real *x)
{
	for (size_t b = 0; b < batch; b++)
		td_select_present(mask + b * n_cells, n_cells, 1, channels, x + b * n_cells * channels);
}

int td_axial_order(const td_lattice *lat, int order[TD_LATTICE_MAX_RANK])
{
	int rank = td_lattice_rank(lat), n = 0, t = td_lattice_time_axis(lat);

	if (t >= 0)
		order[n++] = t;
	for (int i = 0; i < rank; i++) {
		int j;

		if (i == t)
			continue;
		/* insertion by name: storage order must not leak into the result */
		for (j = n; j > (t >= 0) && strcmp(td_lattice_axis_name(lat, order[j - 1]),
						    td_lattice_axis_name(lat, i)) > 0;
		     j--)
			order[j] = order[j - 1];
		order[j] = i;
		n++;
	}
	return rank;
}

uint64_t td_axial_name_hash(const char *name)
{
	uint64_t h = 14695981039346656037u;

	for (const unsigned char *p = (const unsigned char *)name; *p; p++)
		h = (h ^ *p) * 1099511628211u;
	return h;
}
