/*
 * tensor.h - a minimal owned buffer of td_real with a shape.
 *
 * A tensor is rank 0..TD_TENSOR_MAX_RANK, row-major and contiguous: the last
 * axis has stride 1. It owns its buffer; the shape never changes after
 * construction (the values do: a tensor is storage, not a value object).
 */
#ifndef TD_TENSOR_H
#define TD_TENSOR_H

#include <stddef.h>

#include "real.h"

#define TD_TENSOR_MAX_RANK 8

typedef struct td_tensor td_tensor;

/*
 * Allocates a zero-filled tensor of the given shape. Every dimension must be
 * at least 1 and the element count must fit in size_t. On success *out owns
 * the tensor: free it with td_tensor_free. On failure *out is NULL.
 */
int td_tensor_new(td_tensor **out, int rank, const size_t *shape);

/* A deep copy of src (shape and values). Caller frees with td_tensor_free. */
int td_tensor_copy(td_tensor **out, const td_tensor *src);

/* Frees t; accepts NULL. */
void td_tensor_free(td_tensor *t);

int td_tensor_rank(const td_tensor *t);
size_t td_tensor_dim(const td_tensor *t, int axis);    /* 0 if axis is out of range */
size_t td_tensor_stride(const td_tensor *t, int axis); /* in elements; 0 if out of range */
size_t td_tensor_numel(const td_tensor *t);

/*
 * n zeroed values (at least one) at an address that is a multiple of 64
 * bytes, a cache line: a workspace whose rows are multiples of 16 values
 * then never has a vector load cross a line (malloc's large blocks start
 * 16 bytes into a page, which split every other 32-byte load: the bare
 * LSTM ran 4% slower). NULL when out of memory. Free with free().
 */
td_real *td_reals_alloc(size_t n);

/* The values, numel of them. Borrowed: valid until td_tensor_free(t). */
td_real *td_tensor_data(td_tensor *t);
const td_real *td_tensor_cdata(const td_tensor *t);

#endif
