/*
 * test_transpose.c - td_transpose (core/transpose.h) against its
 * definition, dst[c][r] = src[r][c], one value at a time.
 *
 * Every shape up to 19 x 19 (none, part of and whole 8 x 8 blocks, with
 * edges of rows, of columns and of both), with strides wider than the
 * blocks; the values around the destination block must stay as they were.
 *
 * What these tests guard: tdaudit mutate --list --file core/transpose.c
 *
 * Edits seen breaking these tests that the catalogue may not hold:
 *   - block8's first shuffle pairing columns 0 1 2 3 (lo1 = {0, 8, 1, 9,
 *     2, 10, 3, 11})
 *   - td_transpose's edge loop starting every row at column c8
 *   - td_transpose's blocks stopping a block short (r < r8 - 8)
 */
#include "tdtest.h"

#include <string.h>

#include "../core/transpose.h"

enum { MAX = 19, LDS = MAX + 3, LDD = MAX + 5 };

static void test_transpose_matches_its_definition_for_every_shape(void **state)
{
	static td_real src[MAX * LDS], dst[MAX * LDD];

	(void)state;
	for (size_t i = 0; i < MAX * LDS; i++)
		src[i] = (td_real)i + (td_real)0.5;
	for (size_t rows = 0; rows <= MAX; rows++)
		for (size_t cols = 0; cols <= MAX; cols++) {
			for (size_t i = 0; i < MAX * LDD; i++)
				dst[i] = -1;
			td_transpose(dst, LDD, src, LDS, rows, cols);
			for (size_t c = 0; c < MAX; c++)
				for (size_t r = 0; r < LDD; r++) {
					const td_real want =
					    c < cols && r < rows ? src[r * LDS + c] : -1;

					if (dst[c * LDD + r] != want)
						fail_msg("%zu x %zu: dst[%zu][%zu] = %g, want %g",
							 rows, cols, c, r, (double)dst[c * LDD + r],
							 (double)want);
				}
		}
}

static const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_transpose_matches_its_definition_for_every_shape),
};
TD_TEST_GROUP(transpose, tests);
