/*
 * lattice.h - an N-dimensional lattice whose cells may be absent.
 *
 * A lattice is a value object: rank, per-axis size and name, an optional time
 * axis, and a validity mask saying which cells are present. It is immutable
 * after construction (opaque type, no setters), it copies the mask it is
 * given, and a mask it hands out is a fresh copy, so nothing a caller does
 * can make its derived data (present count, present index) go stale.
 *
 * Cells are numbered in row-major order over the axes (the last axis varies
 * fastest). Data laid over a lattice is [batch][cell][channel] when dense
 * and [batch][present cell][channel] when packed.
 */
#ifndef TD_LATTICE_H
#define TD_LATTICE_H

#include <stddef.h>
#include <stdint.h>

#include "real.h"

#define TD_LATTICE_MAX_RANK 8
#define TD_AXIS_NAME_MAX 63

typedef struct td_lattice td_lattice;

typedef struct {
	int rank;                 /* number of axes, 1..TD_LATTICE_MAX_RANK */
	const size_t *shape;      /* rank sizes, each >= 1 */
	const char *const *names; /* rank distinct, non-empty axis names */
	int time_axis;            /* the axis that is time, or -1 for none */
	const uint8_t *mask;      /* mask_len bytes, nonzero = present; NULL = all present */
	size_t mask_len;          /* must equal the cell count when mask is given */
} td_lattice_spec;

#define TD_LATTICE_SPEC_INIT                                                                       \
	{                                                                                          \
		.time_axis = -1                                                                    \
	}

/*
 * Builds a lattice from spec. Copies shape, names and mask: the caller may
 * free or change them afterwards. Refused with TD_EINVAL and a message: a
 * rank out of range, a zero-size axis, a missing, empty, over-long or
 * duplicate name, a time axis out of range, a mask of the wrong length, a
 * mask with no present cell. On success the caller frees *out with
 * td_lattice_free; on failure *out is NULL.
 */
int td_lattice_new(td_lattice **out, const td_lattice_spec *spec);

/* Frees lat; accepts NULL. */
void td_lattice_free(td_lattice *lat);

int td_lattice_rank(const td_lattice *lat);
size_t td_lattice_size(const td_lattice *lat, int axis);            /* 0 if out of range */
const char *td_lattice_axis_name(const td_lattice *lat, int axis);  /* borrowed; NULL if out of range */
int td_lattice_axis(const td_lattice *lat, const char *name);       /* axis index, or -1 */
int td_lattice_time_axis(const td_lattice *lat);                     /* -1 if none */
size_t td_lattice_n_cells(const td_lattice *lat);
size_t td_lattice_n_present(const td_lattice *lat);
int td_lattice_is_present(const td_lattice *lat, size_t cell);       /* 0 out of range */

/*
 * The flat indices of the present cells, ascending, n_present of them.
 * Borrowed and read-only: valid until td_lattice_free(lat).
 */
const size_t *td_lattice_present(const td_lattice *lat);

/*
 * A fresh copy of the mask (n_cells bytes, 1 = present, 0 = absent) in *out.
 * Caller frees with free(). Changing it changes nothing in lat.
 */
int td_lattice_mask(const td_lattice *lat, uint8_t **out);

/*
 * gather: packed[b][p][c] = dense[b][present[p]][c], dense to present-only.
 * scatter: the inverse; every absent cell of dense is set to zero.
 * dense holds batch * n_cells * channels values, packed batch * n_present *
 * channels. batch and channels must be >= 1.
 */
int td_lattice_gather(const td_lattice *lat, size_t batch, size_t channels, const td_real *dense,
		      td_real *packed);
int td_lattice_scatter(const td_lattice *lat, size_t batch, size_t channels, const td_real *packed,
		       td_real *dense);

#endif
