/*
 * test_tensor.c - tensors: shape, contiguous strides, zero fill, refusals.
 *
 * What these tests guard: tdaudit mutate --list --file core/tensor.c
 *
 * Edits seen breaking these tests that the catalogue may not hold:
 *   - strides computed left to right (column-major) -> strides_are_row_major
 *   - malloc instead of calloc -> a_new_tensor_is_zero (under ASan/valgrind
 *     garbage; in practice fresh pages are often zero, so this one is
 *     weak on its own: a pin for the zero-fill contract)
 *   - dropping the zero-dimension or rank check -> bad_shapes_are_refused
 */
#include "tdtest.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../base/error.h"
#include "../core/tensor.h"

static void test_strides_are_row_major_and_contiguous(void **state)
{
	const size_t shape[] = {2, 3, 4};
	td_tensor *t;

	(void)state;
	assert_int_equal(td_tensor_new(&t, 3, shape), 0);
	assert_int_equal(td_tensor_numel(t), 24);
	assert_int_equal(td_tensor_stride(t, 0), 12);
	assert_int_equal(td_tensor_stride(t, 1), 4);
	assert_int_equal(td_tensor_stride(t, 2), 1);
	assert_int_equal(td_tensor_dim(t, 1), 3);
	assert_int_equal(td_tensor_dim(t, 3), 0);
	td_tensor_free(t);
}

static void test_a_new_tensor_is_zero(void **state)
{
	const size_t shape[] = {1000};
	td_tensor *t;

	(void)state;
	assert_int_equal(td_tensor_new(&t, 1, shape), 0);
	for (size_t i = 0; i < 1000; i++)
		assert_true(td_tensor_cdata(t)[i] == 0);
	td_tensor_free(t);
}

static void test_a_copy_owns_its_values(void **state)
{
	const size_t shape[] = {2, 2};
	td_tensor *a, *b;

	(void)state;
	assert_int_equal(td_tensor_new(&a, 2, shape), 0);
	td_tensor_data(a)[3] = 7;
	assert_int_equal(td_tensor_copy(&b, a), 0);
	td_tensor_data(a)[3] = 8;
	assert_true(td_tensor_cdata(b)[3] == 7);
	assert_int_equal(td_tensor_rank(b), 2);
	td_tensor_free(a);
	td_tensor_free(b);
}

static void test_bad_tensor_shapes_are_refused(void **state)
{
	const size_t zero[] = {3, 0}, huge[] = {SIZE_MAX / 2, 4};
	td_tensor *t = (td_tensor *)&t;

	(void)state;
	TD_ASSERT_REFUSED(td_tensor_new(&t, 2, zero), TD_EINVAL, "dimension 1 is 0");
	assert_null(t);
	TD_ASSERT_REFUSED(td_tensor_new(&t, 9, zero), TD_EINVAL, "rank 9");
	TD_ASSERT_REFUSED(td_tensor_new(&t, 2, huge), TD_ENOMEM, "overflows");
	assert_int_equal(td_tensor_new(&t, 0, NULL), 0); /* a scalar */
	assert_int_equal(td_tensor_numel(t), 1);
	td_tensor_free(t);
}

/* rank TD_TENSOR_MAX_RANK is the most a tensor takes, one more is refused. */
static void test_the_most_axes_are_accepted_and_one_more_refused(void **state)
{
	const size_t shape[TD_TENSOR_MAX_RANK + 1] = {1, 1, 1, 1, 1, 1, 2, 3, 1};
	td_tensor *t;

	(void)state;
	TD_ASSERT_REFUSED(td_tensor_new(&t, TD_TENSOR_MAX_RANK + 1, shape), TD_EINVAL,
			  "rank 9 is outside 0..8");
	assert_int_equal(td_tensor_new(&t, TD_TENSOR_MAX_RANK, shape), 0);
	assert_int_equal(td_tensor_rank(t), TD_TENSOR_MAX_RANK);
	assert_int_equal(td_tensor_numel(t), 6);
	td_tensor_free(t);
}

/*
 * An axis outside 0..rank-1 has size 0 and stride 0 on every side, with
 * the most axes too (where one past the last is no spare slot), and axis
 * 0 is an axis like the others.
 */
static void test_an_axis_outside_the_rank_has_no_size_and_no_stride(void **state)
{
	const size_t most[TD_TENSOR_MAX_RANK] = {1, 1, 1, 1, 1, 1, 2, 3}, three[] = {2, 3, 4};
	td_tensor *t;

	(void)state;
	assert_int_equal(td_tensor_new(&t, TD_TENSOR_MAX_RANK, most), 0);
	assert_int_equal(td_tensor_dim(t, 0), 1);
	assert_int_equal(td_tensor_dim(t, 7), 3);
	assert_int_equal(td_tensor_stride(t, 0), 6);
	assert_int_equal(td_tensor_dim(t, -1), 0);
	assert_int_equal(td_tensor_dim(t, TD_TENSOR_MAX_RANK), 0);
	assert_int_equal(td_tensor_stride(t, -1), 0);
	assert_int_equal(td_tensor_stride(t, TD_TENSOR_MAX_RANK), 0);
	td_tensor_free(t);
	assert_int_equal(td_tensor_new(&t, 3, three), 0);
	assert_int_equal(td_tensor_dim(t, 0), 2);
	assert_int_equal(td_tensor_dim(t, -1), 0);
	assert_int_equal(td_tensor_stride(t, -1), 0);
	assert_int_equal(td_tensor_stride(t, 3), 0);
	td_tensor_free(t);
}

/*
 * A shape with sizes but no array is refused from rank 1. A shape is
 * refused as an overflow before any allocation when its element count
 * wraps size_t (2^32 x 2^32 is 0 modulo 2^64: not an empty tensor) and
 * when the count fits but its bytes do not (2^31 x 2^31 values).
 */
static void test_a_missing_or_wrapping_shape_is_refused(void **state)
{
	const size_t wraps[] = {(size_t)1 << 32, (size_t)1 << 32};
	const size_t bytes_wrap[] = {(size_t)1 << 31, (size_t)1 << 31};
	td_tensor *t = (td_tensor *)&t;

	(void)state;
	TD_ASSERT_REFUSED(td_tensor_new(&t, 1, NULL), TD_EINVAL, "shape is NULL for rank 1");
	assert_null(t);
	TD_ASSERT_REFUSED(td_tensor_new(&t, 2, wraps), TD_ENOMEM,
			  "shape overflows memory at dimension 1");
	assert_null(t);
	TD_ASSERT_REFUSED(td_tensor_new(&t, 2, bytes_wrap), TD_ENOMEM,
			  "shape overflows memory at dimension 1");
	assert_null(t);
}

/*
 * td_reals_alloc: every size starts on a 64-byte line (1 << 20 values is
 * an mmap'd block, which malloc starts 16 bytes into a page) and is zero
 * even where the heap held other bits (a larger block, filled and freed
 * just before, which the allocation is carved from), and n = 0 still
 * gives a value; a size that overflows gives NULL.
 */
static void test_reals_are_cache_line_aligned_and_zero(void **state)
{
	static const size_t sizes[] = {0, 1, 15, 16, 17, 1000, 4099, (size_t)1 << 20};

	(void)state;
	for (size_t i = 0; i < sizeof sizes / sizeof *sizes; i++) {
		const size_t n = sizes[i] ? sizes[i] : 1, junk = n * sizeof(td_real) + 4096;
		unsigned char *dirty = malloc(junk);
		td_real *p;

		assert_non_null(dirty);
		memset(dirty, 0xff, junk);
		free(dirty);
		p = td_reals_alloc(sizes[i]);
		assert_non_null(p);
		if ((uintptr_t)p % 64)
			fail_msg("%zu values start at %p, not on a 64-byte line", sizes[i], (void *)p);
		for (size_t k = 0; k < n; k++)
			if (p[k] != 0)
				fail_msg("%zu values: value %zu is %g, not 0", sizes[i], k, (double)p[k]);
		free(p);
	}
	assert_null(td_reals_alloc(SIZE_MAX / 2));
}

static const struct CMUnitTest tests[] = {
	cmocka_unit_test(test_strides_are_row_major_and_contiguous),
	cmocka_unit_test(test_a_new_tensor_is_zero),
	cmocka_unit_test(test_a_copy_owns_its_values),
	cmocka_unit_test(test_bad_tensor_shapes_are_refused),
	cmocka_unit_test(test_the_most_axes_are_accepted_and_one_more_refused),
	cmocka_unit_test(test_an_axis_outside_the_rank_has_no_size_and_no_stride),
	cmocka_unit_test(test_a_missing_or_wrapping_shape_is_refused),
	cmocka_unit_test(test_reals_are_cache_line_aligned_and_zero),
};
TD_TEST_GROUP(tensor, tests);
