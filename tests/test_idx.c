/*
 * test_idx.c - the IDX reader refuses every file that does not hold exactly
 * what its header promises; Fashion-MNIST loads in its shipped split; the
 * absent masks are pure functions of (seed, split, index).
 *
 * The files are written here, raw and gzipped, in the test's temporary
 * directory. The Fashion-MNIST test reads Debian's dataset-fashion-mnist and
 * skips (counted) where it is not installed.
 *
 * What these tests guard: tdaudit mutate --list --file core/idx.c
 */
#include "tdtest.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

#include "../base/error.h"
#include "../core/idx.h"
#include "../core/real.h"

/* The pattern the data bytes of a written file follow. */
static uint8_t byte_at(size_t i)
{
	return (uint8_t)(i * 7 + 3);
}

/* An IDX file's bytes: magic (0, 0, type, ndims), sizes, n_data pattern bytes. */
static size_t idx_bytes(uint8_t *buf, uint8_t type, int ndims, const uint32_t *dims, size_t n_data)
{
	size_t at = 0;

	buf[at++] = 0, buf[at++] = 0, buf[at++] = type, buf[at++] = (uint8_t)ndims;
	for (int d = 0; d < ndims; d++)
		for (int s = 24; s >= 0; s -= 8)
			buf[at++] = (uint8_t)(dims[d] >> s);
	for (size_t i = 0; i < n_data; i++)
		buf[at++] = byte_at(i);
	return at;
}

static void write_raw(const char *path, const void *buf, size_t n)
{
	FILE *f = fopen(path, "wb");

	assert_non_null(f);
	assert_int_equal(fwrite(buf, 1, n, f), n);
	assert_int_equal(fclose(f), 0);
}

static void write_gz(const char *path, const void *buf, size_t n)
{
	gzFile f = gzopen(path, "wb");

	assert_non_null(f);
	assert_int_equal(gzwrite(f, buf, (unsigned)n), (int)n);
	assert_int_equal(gzclose(f), Z_OK);
}

/* Writes an unsigned-byte IDX file, gzipped when gz, with n_data data bytes. */
static void write_idx(const char *path, int gz, int ndims, const uint32_t *dims, size_t n_data)
{
	static uint8_t buf[1 << 16];
	size_t n = idx_bytes(buf, 0x08, ndims, dims, n_data);

	(gz ? write_gz : write_raw)(path, buf, n);
}

static long file_size(const char *path)
{
	FILE *f = fopen(path, "rb");
	long n;

	assert_non_null(f);
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	fclose(f);
	return n;
}

static const uint32_t dims_5x3x4[] = {5, 3, 4};

static void test_raw_and_gzipped_files_read_back_the_same_bytes(void **state)
{
	const char *paths[] = {"a.idx", "a.idx.gz"};

	(void)state;
	for (int gz = 0; gz < 2; gz++) {
		td_idx *idx;

		write_idx(paths[gz], gz, 3, dims_5x3x4, 60);
		assert_int_equal(td_idx_read(&idx, paths[gz], 3), 0);
		assert_int_equal(td_idx_ndims(idx), 3);
		assert_int_equal(td_idx_dim(idx, 0), 5);
		assert_int_equal(td_idx_dim(idx, 2), 4);
		assert_int_equal(td_idx_dim(idx, 3), 0);
		assert_int_equal(td_idx_item_bytes(idx), 12);
		for (size_t i = 0; i < 60; i++)
			assert_int_equal(td_idx_data(idx)[i], byte_at(i));
		td_idx_free(idx);
	}
	td_idx_free(NULL);
}

static void test_a_file_shorter_than_its_header_promises_is_refused(void **state)
{
	td_idx *idx = (td_idx *)1;
	uint8_t head[6] = {0, 0, 8, 3, 0, 0};

	(void)state;
	write_idx("short.idx", 0, 3, dims_5x3x4, 59);
	TD_ASSERT_REFUSED(td_idx_read(&idx, "short.idx", 3), TD_EINVAL,
			  "short.idx: holds 59 of the 60 data bytes its header promises");
	assert_null(idx);
	write_idx("short.idx.gz", 1, 3, dims_5x3x4, 48);
	TD_ASSERT_REFUSED(td_idx_read(&idx, "short.idx.gz", 3), TD_EINVAL,
			  "short.idx.gz: holds 48 of the 60 data bytes");
	write_raw("head.idx", head, sizeof head);
	TD_ASSERT_REFUSED(td_idx_read(&idx, "head.idx", 3), TD_EINVAL,
			  "head.idx: the file ends inside the header (6 of 16 bytes)");
}

static void test_a_gzip_stream_cut_off_is_refused(void **state)
{
	td_idx *idx;
	long n;

	(void)state;
	write_idx("cut.gz", 1, 3, dims_5x3x4, 60);
	n = file_size("cut.gz");
	assert_int_equal(truncate("cut.gz", n - 4), 0); /* the length field of the trailer */
	TD_ASSERT_REFUSED(td_idx_read(&idx, "cut.gz", 3), TD_EINVAL,
			  "cut.gz: the gzip stream is cut off after the data");
	write_idx("half.gz", 1, 3, dims_5x3x4, 60);
	assert_int_equal(truncate("half.gz", file_size("half.gz") / 2), 0);
	TD_ASSERT_REFUSED(td_idx_read(&idx, "half.gz", 3), TD_EINVAL, "cut off");
	assert_non_null(strstr(td_error_last(), "half.gz: "));
}

static void test_a_gzip_stream_with_a_bad_checksum_is_refused(void **state)
{
	td_idx *idx;
	FILE *f;
	long n;
	int c;

	(void)state;
	write_idx("crc.gz", 1, 3, dims_5x3x4, 60);
	n = file_size("crc.gz");
	f = fopen("crc.gz", "r+b");
	assert_non_null(f);
	fseek(f, n - 8, SEEK_SET); /* the first byte of the CRC-32 */
	c = fgetc(f);
	fseek(f, n - 8, SEEK_SET);
	fputc(c ^ 0x55, f);
	fclose(f);
	TD_ASSERT_REFUSED(td_idx_read(&idx, "crc.gz", 3), TD_EINVAL,
			  "crc.gz: the gzip stream is corrupt");
}

static void test_a_file_longer_than_its_header_promises_is_refused(void **state)
{
	td_idx *idx;

	(void)state;
	write_idx("long.idx", 0, 3, dims_5x3x4, 61);
	TD_ASSERT_REFUSED(td_idx_read(&idx, "long.idx", 3), TD_EINVAL,
			  "long.idx: holds more than the 60 data bytes its header promises");
	write_idx("long.idx.gz", 1, 3, dims_5x3x4, 1000);
	TD_ASSERT_REFUSED(td_idx_read(&idx, "long.idx.gz", 3), TD_EINVAL,
			  "long.idx.gz: holds more");
}

static void test_a_wrong_magic_type_or_dimension_count_is_refused(void **state)
{
	static uint8_t buf[256];
	const uint32_t zero[] = {5, 0, 4}, huge[] = {0xffffffffu, 0xffffffffu, 2};
	td_idx *idx;
	size_t n;

	(void)state;
	n = idx_bytes(buf, 0x08, 3, dims_5x3x4, 60);
	buf[1] = 1;
	write_raw("magic.idx", buf, n);
	TD_ASSERT_REFUSED(td_idx_read(&idx, "magic.idx", 3), TD_EINVAL,
			  "magic.idx: magic number 00010803 does not start with two zero bytes");
	n = idx_bytes(buf, 0x0D, 3, dims_5x3x4, 240);
	write_gz("float.idx.gz", buf, n);
	TD_ASSERT_REFUSED(td_idx_read(&idx, "float.idx.gz", 3), TD_EINVAL,
			  "float.idx.gz: data type 0x0d is not 0x08");
	write_idx("dims.idx", 0, 3, dims_5x3x4, 60);
	TD_ASSERT_REFUSED(td_idx_read(&idx, "dims.idx", 1), TD_EINVAL,
			  "dims.idx: has 3 dimensions where 1 were expected");
	write_idx("zero.idx", 0, 3, zero, 0);
	TD_ASSERT_REFUSED(td_idx_read(&idx, "zero.idx", 3), TD_EINVAL, "dimension 1 has size 0");
	write_idx("huge.idx", 0, 3, huge, 0);
	TD_ASSERT_REFUSED(td_idx_read(&idx, "huge.idx", 3), TD_ENOMEM, "huge.idx");
	TD_ASSERT_REFUSED(td_idx_read(&idx, "missing.idx", 3), TD_EIO, "cannot open missing.idx");
}

/* Images (n of rows x cols, every pixel 255) and labels (0, 1, ...) files. */
static void write_pair(const char *images, const char *labels, uint32_t n, uint32_t rows,
		       uint32_t nl)
{
	static uint8_t buf[1 << 16];
	const uint32_t idims[] = {n, rows, 28}, ldims[] = {nl};
	size_t at = idx_bytes(buf, 0x08, 3, idims, 0);

	memset(buf + at, 255, (size_t)n * rows * 28);
	write_gz(images, buf, at + (size_t)n * rows * 28);
	at = idx_bytes(buf, 0x08, 1, ldims, 0);
	for (uint32_t i = 0; i < nl; i++)
		buf[at + i] = (uint8_t)(i % 10);
	write_gz(labels, buf, at + nl);
}

static void test_images_and_labels_that_disagree_are_refused(void **state)
{
	static uint8_t buf[64];
	const uint32_t ldims[] = {3};
	td_fmnist *ds = (td_fmnist *)1;
	size_t at;

	(void)state;
	write_pair("i.gz", "l.gz", 3, 28, 4);
	TD_ASSERT_REFUSED(td_fmnist_load_files(&ds, "i.gz", "l.gz", TD_FMNIST_TRAIN), TD_EINVAL,
			  "i.gz holds 3 images but l.gz holds 4 labels");
	assert_null(ds);
	write_pair("i.gz", "l.gz", 3, 27, 3);
	TD_ASSERT_REFUSED(td_fmnist_load_files(&ds, "i.gz", "l.gz", TD_FMNIST_TRAIN), TD_EINVAL,
			  "i.gz: images are 27x28, not 28x28");
	write_pair("i.gz", "l.gz", 3, 28, 3);
	at = idx_bytes(buf, 0x08, 1, ldims, 0);
	buf[at] = 0, buf[at + 1] = 1, buf[at + 2] = 10;
	write_gz("l.gz", buf, at + 3);
	TD_ASSERT_REFUSED(td_fmnist_load_files(&ds, "i.gz", "l.gz", TD_FMNIST_TRAIN), TD_EINVAL,
			  "l.gz: label 2 is 10, outside 0..9");
}

static void test_a_split_of_the_wrong_size_is_refused(void **state)
{
	td_fmnist *ds;

	(void)state;
	write_pair("t10k-images-idx3-ubyte.gz", "t10k-labels-idx1-ubyte.gz", 3, 28, 3);
	TD_ASSERT_REFUSED(
	    td_fmnist_load(&ds, ".", TD_FMNIST_TEST), TD_EINVAL,
	    "./t10k-images-idx3-ubyte.gz holds 3 images; the shipped t10k split has 10000");
	TD_ASSERT_REFUSED(td_fmnist_load(&ds, ".", TD_FMNIST_TRAIN), TD_EIO,
			  "./train-images-idx3-ubyte.gz");
}

/* Checks one split: count, 1/10 of the images per class, the mean pixel. */
static void check_split(td_fmnist_split split, size_t count, double mean, const int first[3])
{
	td_fmnist *ds;
	size_t per_class[TD_FMNIST_CLASSES] = {0};
	td_real img[TD_FMNIST_PIXELS];
	double sum = 0;

	assert_int_equal(td_fmnist_load(&ds, NULL, split), 0);
	assert_int_equal(td_fmnist_count(ds), count);
	for (size_t i = 0; i < count; i++) {
		int y = td_fmnist_label(ds, i);

		assert_true(y >= 0 && y < TD_FMNIST_CLASSES);
		per_class[y]++;
		assert_int_equal(td_fmnist_image(ds, i, img), 0);
		for (size_t p = 0; p < TD_FMNIST_PIXELS; p++) {
			assert_true(img[p] >= 0 && img[p] <= 1);
			sum += img[p];
		}
	}
	for (int c = 0; c < TD_FMNIST_CLASSES; c++)
		assert_int_equal(per_class[c], count / TD_FMNIST_CLASSES);
	for (int i = 0; i < 3; i++)
		assert_int_equal(td_fmnist_label(ds, (size_t)i), first[i]);
	assert_int_equal(td_fmnist_label(ds, count), -1);
	if (fabs(sum / (double)(count * TD_FMNIST_PIXELS) - mean) > 1e-5)
		fail_msg("mean pixel %.7f, expected %.7f", sum / (double)(count * TD_FMNIST_PIXELS),
			 mean);
	td_fmnist_free(ds);
}

static void test_fashion_mnist_loads_the_shipped_split_with_its_known_statistics(void **state)
{
	static const int train_first[3] = {9, 0, 0}, test_first[3] = {9, 2, 1};

	(void)state;
	if (access(TD_FMNIST_DIR "/train-images-idx3-ubyte.gz", R_OK) != 0 ||
	    access(TD_FMNIST_DIR "/t10k-labels-idx1-ubyte.gz", R_OK) != 0)
		TD_SKIP("dataset-fashion-mnist is not installed: no " TD_FMNIST_DIR
			"; install the Debian package dataset-fashion-mnist (ci/deps does)");
	/* Mean pixel / 255 over each split, computed independently with Python's gzip. */
	check_split(TD_FMNIST_TRAIN, 60000, 0.2860406, train_first);
	check_split(TD_FMNIST_TEST, 10000, 0.2868493, test_first);
}

static size_t n_absent(const uint8_t *mask)
{
	size_t n = 0;

	for (size_t p = 0; p < TD_FMNIST_PIXELS; p++)
		n += mask[p] == 0;
	return n;
}

static void test_an_absent_mask_is_a_pure_function_of_seed_split_and_index(void **state)
{
	uint8_t a[TD_FMNIST_PIXELS], b[TD_FMNIST_PIXELS];

	(void)state;
	assert_int_equal(td_fmnist_absent_mask(a, 7, TD_FMNIST_TRAIN, 5, 0.3), 0);
	assert_int_equal(td_fmnist_absent_mask(b, 7, TD_FMNIST_TRAIN, 5, 0.3), 0);
	assert_memory_equal(a, b, sizeof a);
	assert_int_equal(n_absent(a), 235); /* lround(0.3 * 784) */
	assert_int_equal(td_fmnist_absent_mask(b, 8, TD_FMNIST_TRAIN, 5, 0.3), 0);
	assert_memory_not_equal(a, b, sizeof a);
	assert_int_equal(td_fmnist_absent_mask(b, 7, TD_FMNIST_TRAIN, 6, 0.3), 0);
	assert_memory_not_equal(a, b, sizeof a);
	assert_int_equal(td_fmnist_absent_mask(b, 7, TD_FMNIST_TEST, 5, 0.3), 0);
	assert_memory_not_equal(a, b, sizeof a);
	assert_int_equal(n_absent(b), 235);
	assert_int_equal(td_fmnist_absent_mask(b, 7, TD_FMNIST_TEST, 5, 0), 0);
	assert_int_equal(n_absent(b), 0);
	assert_int_equal(td_fmnist_absent_mask(b, 7, TD_FMNIST_TEST, 5, 0.99), 0);
	assert_int_equal(n_absent(b), 776);
	TD_ASSERT_REFUSED(td_fmnist_absent_mask(b, 7, TD_FMNIST_TEST, 5, 1.0), TD_EINVAL,
			  "absent fraction 1 is outside [0, 0.99]");
	TD_ASSERT_REFUSED(td_fmnist_absent_mask(b, 7, TD_FMNIST_TEST, 5, NAN), TD_EINVAL,
			  "absent fraction");
}

static void test_absent_pixels_read_as_zero_and_present_ones_as_their_value(void **state)
{
	td_fmnist *ds;
	td_real img[TD_FMNIST_PIXELS];
	uint8_t mask[TD_FMNIST_PIXELS], want[TD_FMNIST_PIXELS];

	(void)state;
	write_pair("i.gz", "l.gz", 3, 28, 3);
	assert_int_equal(td_fmnist_load_files(&ds, "i.gz", "l.gz", TD_FMNIST_TEST), 0);
	assert_int_equal(td_fmnist_image_absent(img, mask, ds, 2, 11, 0.5), 0);
	assert_int_equal(td_fmnist_absent_mask(want, 11, TD_FMNIST_TEST, 2, 0.5), 0);
	assert_memory_equal(mask, want, sizeof mask);
	for (size_t p = 0; p < TD_FMNIST_PIXELS; p++)
		assert_true(img[p] == (mask[p] ? 1 : 0));
	TD_ASSERT_REFUSED(td_fmnist_image(ds, 3, img), TD_EINVAL, "image 3 is out of range");
	td_fmnist_free(ds);
	td_fmnist_free(NULL);
}

static const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_raw_and_gzipped_files_read_back_the_same_bytes),
    cmocka_unit_test(test_a_file_shorter_than_its_header_promises_is_refused),
    cmocka_unit_test(test_a_gzip_stream_cut_off_is_refused),
    cmocka_unit_test(test_a_gzip_stream_with_a_bad_checksum_is_refused),
    cmocka_unit_test(test_a_file_longer_than_its_header_promises_is_refused),
    cmocka_unit_test(test_a_wrong_magic_type_or_dimension_count_is_refused),
    cmocka_unit_test(test_images_and_labels_that_disagree_are_refused),
    cmocka_unit_test(test_a_split_of_the_wrong_size_is_refused),
    cmocka_unit_test(test_fashion_mnist_loads_the_shipped_split_with_its_known_statistics),
    cmocka_unit_test(test_an_absent_mask_is_a_pure_function_of_seed_split_and_index),
    cmocka_unit_test(test_absent_pixels_read_as_zero_and_present_ones_as_their_value),
};

TD_TEST_GROUP(idx, tests);
