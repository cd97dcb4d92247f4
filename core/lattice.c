/*
 * lattice.c - immutable N-D lattices with absent cells (see lattice.h).
 *
 * Must never alias a caller's buffer or hand out a writable view of its own
 * mask: the present count and the present index are derived once, at
 * construction, and are only right while the mask cannot change.
 */
#include "lattice.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../base/error.h"

struct td_lattice {
	int rank;
	int time_axis;
	size_t shape[TD_LATTICE_MAX_RANK];
	char names[TD_LATTICE_MAX_RANK][TD_AXIS_NAME_MAX + 1];
	size_t n_cells;
	size_t n_present;
	uint8_t *mask;   /* n_cells bytes, 0 or 1: our own copy */
	size_t *present; /* n_present flat indices, ascending */
};

static int check_axes(const td_lattice_spec *s, size_t *n_cells)
{
	size_t n = 1;

	if (s->rank < 1 || s->rank > TD_LATTICE_MAX_RANK)
		return TD_FAIL(TD_EINVAL, "rank %d is outside 1..%d", s->rank, TD_LATTICE_MAX_RANK);
	if (!s->shape || !s->names)
		return TD_FAIL(TD_EINVAL, "spec.shape and spec.names must both be given (%d of each)",
			       s->rank);
	for (int i = 0; i < s->rank; i++) {
		const char *name = s->names[i];

		if (!name || !name[0])
			return TD_FAIL(TD_EINVAL, "axis %d has no name; give every axis a non-empty name", i);
		if (strlen(name) > TD_AXIS_NAME_MAX)
			return TD_FAIL(TD_EINVAL, "axis %d's name is longer than %d characters", i,
				       TD_AXIS_NAME_MAX);
		for (int j = 0; j < i; j++)
			if (strcmp(s->names[j], name) == 0)
				return TD_FAIL(TD_EINVAL, "axes %d and %d are both named '%s'; names must be distinct",
					       j, i, name);
		if (s->shape[i] == 0)
			return TD_FAIL(TD_EINVAL, "axis %d ('%s') has size 0; every axis needs at least one cell",
				       i, name);
		if (n > SIZE_MAX / sizeof(size_t) / s->shape[i])
			return TD_FAIL(TD_ENOMEM, "the cell count overflows at axis %d ('%s')", i, name);
		n *= s->shape[i];
	}
	if (s->time_axis < -1 || s->time_axis >= s->rank)
		return TD_FAIL(TD_EINVAL, "time_axis %d is outside -1..%d (-1 means none)", s->time_axis,
			       s->rank - 1);
	if (s->mask && s->mask_len != n)
		return TD_FAIL(TD_EINVAL, "the mask has %zu entries but the lattice has %zu cells", s->mask_len,
			       n);
	*n_cells = n;
	return 0;
}

/* Copies the mask (normalised to 0/1) and derives the present index. */
static int derive_cells(td_lattice *lat, const uint8_t *mask)
{
	size_t p = 0;

	lat->mask = malloc(lat->n_cells);
	if (!lat->mask)
		return TD_FAIL(TD_ENOMEM, "out of memory for a %zu-cell mask", lat->n_cells);
	for (size_t i = 0; i < lat->n_cells; i++) {
		lat->mask[i] = mask ? (mask[i] != 0) : 1;
		lat->n_present += lat->mask[i];
	}
	if (lat->n_present == 0)
		return TD_FAIL(TD_EINVAL, "the mask marks all %zu cells absent; at least one must be present",
			       lat->n_cells);
	lat->present = malloc(lat->n_present * sizeof *lat->present);
	if (!lat->present)
		return TD_FAIL(TD_ENOMEM, "out of memory for %zu present indices", lat->n_present);
	for (size_t i = 0; i < lat->n_cells; i++)
		if (lat->mask[i])
			lat->present[p++] = i;
	return 0;
}

int td_lattice_new(td_lattice **out, const td_lattice_spec *spec)
{
	td_lattice *lat = NULL;
	size_t n_cells = 0;
	int err;

	*out = NULL;
	if (!spec)
		return TD_FAIL(TD_EINVAL, "spec is NULL");
	err = check_axes(spec, &n_cells);
	if (err)
		return err;
	lat = calloc(1, sizeof *lat);
	if (!lat)
		return TD_FAIL(TD_ENOMEM, "out of memory for a lattice");
	lat->rank = spec->rank;
	lat->time_axis = spec->time_axis;
	lat->n_cells = n_cells;
	for (int i = 0; i < spec->rank; i++) {
		lat->shape[i] = spec->shape[i];
		strcpy(lat->names[i], spec->names[i]);
	}
	err = derive_cells(lat, spec->mask);
	if (err) {
		td_lattice_free(lat);
		return err;
	}
	*out = lat;
	return 0;
}

void td_lattice_free(td_lattice *lat)
{
	if (!lat)
		return;
	free(lat->present);
	free(lat->mask);
	free(lat);
}

int td_lattice_rank(const td_lattice *lat)
{
	return lat->rank;
}

size_t td_lattice_size(const td_lattice *lat, int axis)
{
	return axis >= 0 && axis < lat->rank ? lat->shape[axis] : 0;
}

const char *td_lattice_axis_name(const td_lattice *lat, int axis)
{
	return axis >= 0 && axis < lat->rank ? lat->names[axis] : NULL;
}

int td_lattice_axis(const td_lattice *lat, const char *name)
{
	for (int i = 0; name && i < lat->rank; i++)
		if (strcmp(lat->names[i], name) == 0)
			return i;
	return -1;
}

int td_lattice_time_axis(const td_lattice *lat)
{
	return lat->time_axis;
}

size_t td_lattice_n_cells(const td_lattice *lat)
{
	return lat->n_cells;
}

size_t td_lattice_n_present(const td_lattice *lat)
{
	return lat->n_present;
}

int td_lattice_is_present(const td_lattice *lat, size_t cell)
{
	return cell < lat->n_cells && lat->mask[cell];
}

const size_t *td_lattice_present(const td_lattice *lat)
{
	return lat->present;
}

int td_lattice_mask(const td_lattice *lat, uint8_t **out)
{
	*out = malloc(lat->n_cells);
	if (!*out)
		return TD_FAIL(TD_ENOMEM, "out of memory for a %zu-cell mask", lat->n_cells);
	memcpy(*out, lat->mask, lat->n_cells);
	return 0;
}

static int check_layout(size_t batch, size_t channels, const void *a, const void *b)
{
	if (batch == 0 || channels == 0)
		return TD_FAIL(TD_EINVAL, "batch (%zu) and channels (%zu) must both be >= 1", batch, channels);
	if (!a || !b)
		return TD_FAIL(TD_EINVAL, "a data pointer is NULL");
	return 0;
}

int td_lattice_gather(const td_lattice *lat, size_t batch, size_t channels, const td_real *dense,
		      td_real *packed)
{
	int err = check_layout(batch, channels, dense, packed);

	if (err)
		return err;
	for (size_t b = 0; b < batch; b++) {
		const td_real *src = dense + b * lat->n_cells * channels;
		td_real *dst = packed + b * lat->n_present * channels;

		for (size_t p = 0; p < lat->n_present; p++)
			memcpy(dst + p * channels, src + lat->present[p] * channels,
			       channels * sizeof *dst);
	}
	return 0;
}

int td_lattice_scatter(const td_lattice *lat, size_t batch, size_t channels, const td_real *packed,
		       td_real *dense)
{
	int err = check_layout(batch, channels, packed, dense);

	if (err)
		return err;
	memset(dense, 0, batch * lat->n_cells * channels * sizeof *dense);
	for (size_t b = 0; b < batch; b++) {
		const td_real *src = packed + b * lat->n_present * channels;
		td_real *dst = dense + b * lat->n_cells * channels;

		for (size_t p = 0; p < lat->n_present; p++)
			memcpy(dst + lat->present[p] * channels, src + p * channels,
			       channels * sizeof *dst);
	}
	return 0;
}
