/*
 * test_lattice.c - lattices: immutability, copies, refusals, gather/scatter.
 *
 * What these tests guard: tdaudit mutate --list --file core/lattice.c
 *
 * Edits seen breaking these tests that the catalogue may not hold:
 *   - dropping the zero-size / duplicate-name / empty-name / mask-length /
 *     no-present-cell check -> the matching refusal test
 */
#include "tdtest.h"

#include <stdlib.h>
#include <string.h>

#include "../base/error.h"
#include "../core/lattice.h"

static const char *const hw[] = {"h", "w"};

/* A 3x4 lattice over (h, w) with the given mask (NULL: dense). */
static td_lattice *make_3x4(const uint8_t *mask)
{
	static const size_t shape[] = {3, 4};
	td_lattice_spec s = TD_LATTICE_SPEC_INIT;
	td_lattice *lat = NULL;

	s.rank = 2, s.shape = shape, s.names = hw, s.mask = mask, s.mask_len = mask ? 12 : 0;
	assert_int_equal(td_lattice_new(&lat, &s), 0);
	return lat;
}

static void test_a_lattice_reports_what_it_was_built_with(void **state)
{
	static const size_t shape[] = {2, 3, 5};
	static const char *const names[] = {"t", "y", "x"};
	td_lattice_spec s = TD_LATTICE_SPEC_INIT;
	td_lattice *lat;

	(void)state;
	s.rank = 3, s.shape = shape, s.names = names, s.time_axis = 0;
	assert_int_equal(td_lattice_new(&lat, &s), 0);
	assert_int_equal(td_lattice_rank(lat), 3);
	assert_int_equal(td_lattice_size(lat, 2), 5);
	assert_string_equal(td_lattice_axis_name(lat, 1), "y");
	assert_int_equal(td_lattice_axis(lat, "x"), 2);
	assert_int_equal(td_lattice_axis(lat, "z"), -1);
	assert_int_equal(td_lattice_time_axis(lat), 0);
	assert_int_equal(td_lattice_n_cells(lat), 30);
	assert_int_equal(td_lattice_n_present(lat), 30);
	assert_null(td_lattice_axis_name(lat, 3));
	td_lattice_free(lat);
}

static void test_a_lattice_copies_the_mask_it_is_given(void **state)
{
	uint8_t mask[12] = {1, 0, 1, 1, 0, 1, 1, 1, 1, 0, 0, 1};
	td_lattice *lat = make_3x4(mask);
	size_t before[8];

	(void)state;
	assert_int_equal(td_lattice_n_present(lat), 8);
	memcpy(before, td_lattice_present(lat), sizeof before);
	memset(mask, 0, sizeof mask); /* the caller changes its buffer ... */
	mask[1] = 1;
	for (size_t i = 0; i < 12; i++) /* ... and the lattice does not see it */
		assert_int_equal(td_lattice_is_present(lat, i),
				 (int)(i != 1 && i != 4 && i != 9 && i != 10));
	assert_memory_equal(td_lattice_present(lat), before, sizeof before);
	td_lattice_free(lat);
}

static void test_a_mask_handed_out_is_a_fresh_copy(void **state)
{
	const uint8_t mask[12] = {1, 1, 0, 1, 1, 1, 1, 1, 1, 1, 1, 0};
	td_lattice *lat = make_3x4(mask);
	uint8_t *a, *b;

	(void)state;
	assert_int_equal(td_lattice_mask(lat, &a), 0);
	assert_memory_equal(a, mask, 12);
	memset(a, 0, 12);
	assert_int_equal(td_lattice_mask(lat, &b), 0);
	assert_ptr_not_equal(a, b);
	assert_memory_equal(b, mask, 12);
	assert_int_equal(td_lattice_is_present(lat, 0), 1);
	assert_int_equal(td_lattice_n_present(lat), 10);
	free(a);
	free(b);
	td_lattice_free(lat);
}

static void test_a_lattice_copies_its_axis_names(void **state)
{
	char h[] = "h", w[] = "w";
	const char *names[] = {h, w};
	const size_t shape[] = {2, 2};
	td_lattice_spec s = TD_LATTICE_SPEC_INIT;
	td_lattice *lat;

	(void)state;
	s.rank = 2, s.shape = shape, s.names = names;
	assert_int_equal(td_lattice_new(&lat, &s), 0);
	h[0] = 'q';
	assert_string_equal(td_lattice_axis_name(lat, 0), "h");
	assert_int_equal(td_lattice_axis(lat, "q"), -1);
	td_lattice_free(lat);
}

static void test_bad_lattice_specs_are_refused_with_a_message(void **state)
{
	const size_t shape[] = {3, 4}, zero[] = {3, 0};
	const char *const dup[] = {"h", "h"}, *const empty[] = {"h", ""};
	const char *const nul[] = {"h", NULL};
	const uint8_t none[12] = {0};
	td_lattice_spec s = TD_LATTICE_SPEC_INIT;
	td_lattice *lat = (td_lattice *)&s; /* must come back NULL */

	(void)state;
	s.rank = 2, s.shape = zero, s.names = hw;
	TD_ASSERT_REFUSED(td_lattice_new(&lat, &s), TD_EINVAL, "axis 1 ('w') has size 0");
	assert_null(lat);
	s.shape = shape, s.names = dup;
	TD_ASSERT_REFUSED(td_lattice_new(&lat, &s), TD_EINVAL, "both named 'h'");
	s.names = empty;
	TD_ASSERT_REFUSED(td_lattice_new(&lat, &s), TD_EINVAL, "axis 1 has no name");
	s.names = nul;
	TD_ASSERT_REFUSED(td_lattice_new(&lat, &s), TD_EINVAL, "axis 1 has no name");
	s.names = hw, s.mask = none, s.mask_len = 11;
	TD_ASSERT_REFUSED(td_lattice_new(&lat, &s), TD_EINVAL, "mask has 11 entries but the lattice has 12");
	s.mask_len = 12;
	TD_ASSERT_REFUSED(td_lattice_new(&lat, &s), TD_EINVAL, "at least one must be present");
	s.mask = NULL, s.mask_len = 0, s.time_axis = 2;
	TD_ASSERT_REFUSED(td_lattice_new(&lat, &s), TD_EINVAL, "time_axis 2");
	s.time_axis = -1, s.rank = 0;
	TD_ASSERT_REFUSED(td_lattice_new(&lat, &s), TD_EINVAL, "rank 0");
	s.rank = TD_LATTICE_MAX_RANK + 1;
	TD_ASSERT_REFUSED(td_lattice_new(&lat, &s), TD_EINVAL, "rank 9");
	assert_null(lat);
}

static void test_the_present_index_lists_present_cells_in_order(void **state)
{
	const uint8_t mask[12] = {0, 1, 0, 0, 7, 1, 0, 0, 0, 0, 0, 1}; /* any nonzero is present */
	const size_t want[] = {1, 4, 5, 11};
	td_lattice *lat = make_3x4(mask);

	(void)state;
	assert_int_equal(td_lattice_n_present(lat), 4);
	assert_memory_equal(td_lattice_present(lat), want, sizeof want);
	td_lattice_free(lat);
}

static void test_gather_then_scatter_restores_present_cells(void **state)
{
	const uint8_t mask[12] = {1, 0, 1, 1, 0, 1, 1, 1, 1, 0, 0, 1};
	td_lattice *lat = make_3x4(mask);
	td_real dense[2 * 12 * 3], packed[2 * 8 * 3], back[2 * 12 * 3];

	(void)state;
	for (size_t i = 0; i < 72; i++)
		dense[i] = (td_real)(i + 1);
	assert_int_equal(td_lattice_gather(lat, 2, 3, dense, packed), 0);
	/* packed cell 1 of batch 0 is dense cell 2 (the second present one) */
	assert_true(packed[3] == dense[2 * 3]);
	assert_int_equal(td_lattice_scatter(lat, 2, 3, packed, back), 0);
	for (size_t b = 0; b < 2; b++)
		for (size_t c = 0; c < 12; c++)
			for (size_t k = 0; k < 3; k++) {
				size_t i = (b * 12 + c) * 3 + k;

				assert_true(back[i] == (mask[c] ? dense[i] : 0));
			}
	td_lattice_free(lat);
}

static void test_scatter_zeroes_every_absent_cell(void **state)
{
	const uint8_t mask[12] = {1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1};
	td_lattice *lat = make_3x4(mask);
	td_real packed[2] = {5, 6}, dense[12];

	(void)state;
	for (size_t i = 0; i < 12; i++)
		dense[i] = (td_real)-99; /* stale values from a previous use */
	assert_int_equal(td_lattice_scatter(lat, 1, 1, packed, dense), 0);
	for (size_t i = 0; i < 12; i++)
		assert_true(dense[i] == (i == 0 ? 5 : i == 11 ? 6 : 0));
	td_lattice_free(lat);
}

static void test_gather_keeps_batches_apart(void **state)
{
	const uint8_t mask[12] = {0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0};
	td_lattice *lat = make_3x4(mask);
	td_real dense[3 * 12], packed[3];

	(void)state;
	for (size_t i = 0; i < 36; i++)
		dense[i] = (td_real)i;
	assert_int_equal(td_lattice_gather(lat, 3, 1, dense, packed), 0);
	assert_true(packed[0] == 5 && packed[1] == 17 && packed[2] == 29);
	TD_ASSERT_REFUSED(td_lattice_gather(lat, 0, 1, dense, packed), TD_EINVAL, "batch (0)");
	td_lattice_free(lat);
}

/* The limits themselves are allowed, one past them refused; lookups past them find nothing. */
static void test_a_lattice_takes_the_most_axes_and_longest_names_and_no_more(void **state)
{
	static const char *const names[] = {"a", "b", "c", "d", "e", "f", "g", "h"};
	static const size_t twos[] = {2, 2, 2, 2, 2, 2, 2, 2};
	char long_name[TD_AXIS_NAME_MAX + 2];
	const char *one[] = {long_name};
	td_lattice_spec s = TD_LATTICE_SPEC_INIT;
	td_lattice *lat;

	(void)state;
	assert_int_equal((int)(sizeof names / sizeof *names), TD_LATTICE_MAX_RANK);
	s.rank = TD_LATTICE_MAX_RANK, s.shape = twos, s.names = names;
	assert_int_equal(td_lattice_new(&lat, &s), 0);
	assert_int_equal(td_lattice_n_cells(lat), 256);
	assert_int_equal(td_lattice_axis(lat, "h"), 7);
	assert_int_equal(td_lattice_axis(lat, "z"), -1); /* every name read, none past them */
	assert_int_equal(td_lattice_size(lat, TD_LATTICE_MAX_RANK), 0);
	assert_int_equal(td_lattice_size(lat, -1), 0);
	assert_null(td_lattice_axis_name(lat, TD_LATTICE_MAX_RANK));
	assert_int_equal(td_lattice_is_present(lat, 255), 1);
	assert_int_equal(td_lattice_is_present(lat, 256), 0); /* one past the last cell */
	td_lattice_free(lat);
	td_lattice_free(NULL); /* nothing to free, as free(NULL) */
	/*
	 * A name spelled as the bytes that follow the last name in memory (the
	 * cell count, 3 here, on a little-endian machine): a lookup that read
	 * one name too many would find it there.
	 */
	s.shape = (const size_t[]){3, 1, 1, 1, 1, 1, 1, 1};
	assert_int_equal(td_lattice_new(&lat, &s), 0);
	assert_int_equal(td_lattice_axis(lat, "\x03"), -1);
	td_lattice_free(lat);
	memset(long_name, 'n', TD_AXIS_NAME_MAX + 1);
	long_name[TD_AXIS_NAME_MAX + 1] = '\0';
	s.rank = 1, s.names = one;
	TD_ASSERT_REFUSED(td_lattice_new(&lat, &s), TD_EINVAL, "longer than 63 characters");
	long_name[TD_AXIS_NAME_MAX] = '\0'; /* the longest allowed */
	assert_int_equal(td_lattice_new(&lat, &s), 0);
	assert_string_equal(td_lattice_axis_name(lat, 0), long_name);
	td_lattice_free(lat);
}

/* Refusals the first test does not reach: half a spec, a count that overflows, the time axis's range. */
static void test_a_half_given_or_overflowing_spec_is_refused(void **state)
{
	const size_t shape[] = {3, 4}, huge[] = {(size_t)1 << 31, (size_t)1 << 30};
	td_lattice_spec s = TD_LATTICE_SPEC_INIT;
	td_lattice *lat;

	(void)state;
	s.rank = 2, s.shape = NULL, s.names = hw;
	TD_ASSERT_REFUSED(td_lattice_new(&lat, &s), TD_EINVAL, "must both be given");
	s.shape = shape, s.names = NULL;
	TD_ASSERT_REFUSED(td_lattice_new(&lat, &s), TD_EINVAL, "must both be given");
	/* 2^61 cells fit a size_t, but not 2^61 present indices of 8 bytes */
	s.shape = huge, s.names = hw;
	TD_ASSERT_REFUSED(td_lattice_new(&lat, &s), TD_ENOMEM, "the cell count overflows at axis 1");
	s.shape = shape, s.time_axis = 2;
	TD_ASSERT_REFUSED(td_lattice_new(&lat, &s), TD_EINVAL, "outside -1..1 (-1 means none)");
}

/* gather and scatter refuse a NULL buffer on either side. */
static void test_gather_and_scatter_refuse_a_null_buffer(void **state)
{
	td_lattice *lat = make_3x4(NULL);
	td_real dense[12] = {0}, packed[12] = {0};

	(void)state;
	TD_ASSERT_REFUSED(td_lattice_gather(lat, 1, 1, NULL, packed), TD_EINVAL, "NULL");
	TD_ASSERT_REFUSED(td_lattice_gather(lat, 1, 1, dense, NULL), TD_EINVAL, "NULL");
	TD_ASSERT_REFUSED(td_lattice_scatter(lat, 1, 1, NULL, dense), TD_EINVAL, "NULL");
	TD_ASSERT_REFUSED(td_lattice_scatter(lat, 1, 1, packed, NULL), TD_EINVAL, "NULL");
	td_lattice_free(lat);
}

static const struct CMUnitTest tests[] = {
	cmocka_unit_test(test_a_lattice_reports_what_it_was_built_with),
	cmocka_unit_test(test_a_lattice_copies_the_mask_it_is_given),
	cmocka_unit_test(test_a_mask_handed_out_is_a_fresh_copy),
	cmocka_unit_test(test_a_lattice_copies_its_axis_names),
	cmocka_unit_test(test_bad_lattice_specs_are_refused_with_a_message),
	cmocka_unit_test(test_a_lattice_takes_the_most_axes_and_longest_names_and_no_more),
	cmocka_unit_test(test_a_half_given_or_overflowing_spec_is_refused),
	cmocka_unit_test(test_gather_and_scatter_refuse_a_null_buffer),
	cmocka_unit_test(test_the_present_index_lists_present_cells_in_order),
	cmocka_unit_test(test_gather_then_scatter_restores_present_cells),
	cmocka_unit_test(test_scatter_zeroes_every_absent_cell),
	cmocka_unit_test(test_gather_keeps_batches_apart),
};
TD_TEST_GROUP(lattice, tests);
