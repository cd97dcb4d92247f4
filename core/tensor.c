/*
 * tensor.c - owned, contiguous td_real buffers (see tensor.h).
 *
 * Must never hand out a stride that disagrees with row-major contiguity: the
 * kernels index with strides and trust them.
 */
#include "tensor.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../base/error.h"

struct td_tensor {
	int rank;
	size_t shape[TD_TENSOR_MAX_RANK];
	size_t stride[TD_TENSOR_MAX_RANK];
	size_t numel;
	td_real *data; /* numel values, row-major */
};

int td_tensor_new(td_tensor **out, int rank, const size_t *shape)
{
	td_tensor *t;
	size_t numel = 1, stride = 1;

	*out = NULL;
	if (rank < 0 || rank > TD_TENSOR_MAX_RANK)
		return TD_FAIL(TD_EINVAL, "rank %d is outside 0..%d", rank, TD_TENSOR_MAX_RANK);
	if (rank > 0 && !shape)
		return TD_FAIL(TD_EINVAL, "shape is NULL for rank %d; pass %d sizes", rank, rank);
	for (int i = 0; i < rank; i++) {
		if (shape[i] == 0)
			return TD_FAIL(TD_EINVAL, "dimension %d is 0; every dimension needs at least 1 element", i);
		if (numel > SIZE_MAX / sizeof(td_real) / shape[i])
			return TD_FAIL(TD_ENOMEM, "shape overflows memory at dimension %d (%zu)", i, shape[i]);
		numel *= shape[i];
	}
	t = calloc(1, sizeof *t);
	if (!t)
		return TD_FAIL(TD_ENOMEM, "out of memory for the tensor header");
	t->data = calloc(numel, sizeof *t->data);
	if (!t->data) {
		free(t);
		return TD_FAIL(TD_ENOMEM, "out of memory for %zu values", numel);
	}
	t->rank = rank;
	t->numel = numel;
	for (int i = rank - 1; i >= 0; i--) {
		t->shape[i] = shape[i];
		t->stride[i] = stride;
		stride *= shape[i];
	}
	*out = t;
	return 0;
}

int td_tensor_copy(td_tensor **out, const td_tensor *src)
{
	int err = td_tensor_new(out, src->rank, src->shape);

	if (err)
		return err;
	memcpy((*out)->data, src->data, src->numel * sizeof *src->data);
	return 0;
}

void td_tensor_free(td_tensor *t)
{
	if (!t)
		return;
	free(t->data);
	free(t);
}

int td_tensor_rank(const td_tensor *t)
{
	return t->rank;
}

size_t td_tensor_dim(const td_tensor *t, int axis)
{
	return axis >= 0 && axis < t->rank ? t->shape[axis] : 0;
}

size_t td_tensor_stride(const td_tensor *t, int axis)
{
	return axis >= 0 && axis < t->rank ? t->stride[axis] : 0;
}

size_t td_tensor_numel(const td_tensor *t)
{
	return t->numel;
}

td_real *td_reals_alloc(size_t n)
{
	const size_t line = 64, most = (SIZE_MAX - line) / sizeof(td_real);
	size_t bytes;
	td_real *p;

	if (n > most)
		return NULL;
	bytes = ((n ? n : 1) * sizeof(td_real) + line - 1) / line * line;
	if ((p = aligned_alloc(line, bytes)))
		memset(p, 0, bytes);
	return p;
}

td_real *td_tensor_data(td_tensor *t)
{
	return t->data;
}

const td_real *td_tensor_cdata(const td_tensor *t)
{
	return t->data;
}
