/*
 * axial.h - the lattice plumbing every composition family shares: folding
 * one example's cells around an axis, selecting present cells, and the
 * canonical order of a lattice's axes.
 *
 * A fold around axis a reorders the n_cells cells of one example so that
 * each line along a is contiguous: folded position k = line * length + t
 * holds cell fold[k], where t is the cell's coordinate on a and the lines
 * enumerate the other axes in row-major order. fold is a permutation;
 * unfold is its inverse, computed by inverting fold, never by a second
 * formula (a test checks it against an argsort of fold).
 *
 * Must never: multiply by a mask to zero a cell (NaN * 0 is NaN, so does an
 * infinity); order anything by storage order where a model's meaning is at
 * stake (td_axial_order gives the order to use instead).
 */
#ifndef TD_AXIAL_H
#define TD_AXIAL_H

#include <stddef.h>
#include <stdint.h>

#include "lattice.h"
#include "real.h"

/* Positions pos .. pos + len - 1 of a map hold cells cell .. cell + len - 1. */
typedef struct {
	size_t pos, cell, len;
} td_run;

/*
 * Cuts map[0 .. n) (position -> cell) into its maximal runs of consecutive
 * cells at consecutive positions, in position order, so that a copy along
 * the map is one memcpy per run. *out (the caller frees it with free) gets
 * the runs and *n_runs their count; on failure *out is NULL.
 */
int td_axial_runs(td_run **out, size_t *n_runs, const size_t *map, size_t n);

typedef struct {
	size_t n_cells; /* cells of one example */
	size_t length;  /* the size of the folded axis */
	size_t lines;   /* n_cells / length */
	size_t *fold;   /* [n_cells] folded position -> cell */
	size_t *unfold; /* [n_cells] cell -> folded position: the inverse of fold */
	td_run *run;	/* [n_runs] fold's runs (one per example when the axis is the
			   innermost: the fold is then the identity) */
	size_t n_runs;
} td_fold;

/*
 * The fold of lat around axis. Refused with TD_EINVAL for an axis out of
 * range. Caller frees *out with td_fold_free; on failure *out is NULL.
 */
int td_fold_new(td_fold **out, const td_lattice *lat, int axis);

/* Frees f; accepts NULL. */
void td_fold_free(td_fold *f);

/*
 * xf[b][k][:] = x[b][fold[k]][:] for batch examples of channels values per
 * cell: dense [batch][cell][channel] to folded [batch * lines][length][channel].
 */
void td_fold_apply(const td_fold *f, size_t batch, size_t channels, const td_real *x, td_real *xf);

/* The inverse: x[b][cell][:] = xf[b][unfold[cell]][:]. */
void td_fold_undo(const td_fold *f, size_t batch, size_t channels, const td_real *xf, td_real *x);

/*
 * x[b][cell][:] = mask[cell] ? x[b][cell][:] : 0 for every example, by
 * selection: a NaN or an infinity in an absent cell becomes exactly 0.
 */
void td_select_present(const uint8_t *mask, size_t n_cells, size_t batch, size_t channels,
		       td_real *x);

/* The same with a mask per example: x[b][cell][:] = mask[b][cell] ? x[b][cell][:] : 0. */
void td_select_present_each(const uint8_t *mask, size_t n_cells, size_t batch, size_t channels,
			    td_real *x);

/*
 * The canonical order of lat's axes in order[0 .. rank-1]: the time axis
 * first when there is one, then the other axes by name (strcmp). It depends
 * on names only, so the same model over the same data stored in another
 * axis order computes the same thing. Returns the rank.
 */
int td_axial_order(const td_lattice *lat, int order[TD_LATTICE_MAX_RANK]);

/* A stable 64-bit hash of an axis name (FNV-1a), for name-keyed rng streams. */
uint64_t td_axial_name_hash(const char *name);

#endif
