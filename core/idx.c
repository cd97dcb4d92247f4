/*
 * idx.c - the IDX reader and the Fashion-MNIST loader (see idx.h).
 *
 * Must never hand out a file read in part: every byte count is checked
 * against the header, in both directions, and zlib's end-of-stream state
 * (trailer, CRC) is checked by reading one byte past the promised data.
 */
#include "idx.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "../base/error.h"
#include "rng.h"

#define CHUNK (1u << 20) /* bytes per gzread call */

struct td_idx {
	int ndims;
	uint32_t dims[TD_IDX_MAX_DIMS]; /* dims[0] counts the items */
	size_t item_bytes;		/* product of dims[1..] */
	size_t n_bytes;			/* dims[0] * item_bytes */
	uint8_t *data;			/* n_bytes, owned */
};

struct td_fmnist {
	td_fmnist_split split;
	size_t n;	/* images (= labels) */
	td_idx *images; /* n x 28 x 28 bytes */
	td_idx *labels; /* n bytes, each 0..9 */
};

/* zlib's message for f's error state; errnum receives its code. */
static const char *gz_message(gzFile f, int *errnum)
{
	const char *msg = gzerror(f, errnum);

	return *errnum == Z_ERRNO ? strerror(errno) : msg;
}

/*
 * Reads up to n bytes into buf; *got receives how many. Stops early only at
 * the end of the file. A zlib error other than a cut-off stream is refused.
 */
static int read_upto(gzFile f, uint8_t *buf, size_t n, size_t *got, const char *path)
{
	int errnum;

	*got = 0;
	while (*got < n) {
		unsigned ask = (unsigned)(n - *got < CHUNK ? n - *got : CHUNK);
		int r = gzread(f, buf + *got, ask);

		if (r < 0) {
			const char *msg = gz_message(f, &errnum);

			if (errnum == Z_ERRNO)
				return TD_FAIL(TD_EIO, "cannot read %s: %s", path, msg);
			return TD_FAIL(TD_EINVAL, "%s: the gzip stream is corrupt: %s", path, msg);
		}
		if (r == 0)
			break;
		*got += (size_t)r;
	}
	return 0;
}

/* Whether f stopped because its gzip stream was cut off (no trailer, or mid-stream). */
static int gz_cut_off(gzFile f)
{
	int errnum;

	gzerror(f, &errnum);
	return errnum == Z_BUF_ERROR;
}

static uint32_t be32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

static int check_magic(const uint8_t m[4], const char *path, int ndims)
{
	if (m[0] || m[1])
		return TD_FAIL(
		    TD_EINVAL,
		    "%s: magic number %02x%02x%02x%02x does not start with two zero bytes; "
		    "not an IDX file",
		    path, m[0], m[1], m[2], m[3]);
	if (m[2] != 0x08)
		return TD_FAIL(
		    TD_EINVAL,
		    "%s: data type 0x%02x is not 0x08 (unsigned byte), the only type read", path,
		    m[2]);
	if (m[3] != ndims)
		return TD_FAIL(TD_EINVAL, "%s: has %d dimensions where %d were expected", path,
			       m[3], ndims);
	return 0;
}

static int read_header(td_idx *idx, gzFile f, const char *path, int ndims)
{
	uint8_t head[4 + 4 * TD_IDX_MAX_DIMS];
	size_t want = 4 + 4 * (size_t)ndims, got;
	int err = read_upto(f, head, want, &got, path);

	if (err)
		return err;
	if (got < want)
		return TD_FAIL(TD_EINVAL,
			       "%s: the file ends inside the header (%zu of %zu bytes)%s", path,
			       got, want, gz_cut_off(f) ? "; the gzip stream is cut off" : "");
	err = check_magic(head, path, ndims);
	if (err)
		return err;
	idx->ndims = ndims;
	idx->item_bytes = 1;
	for (int d = 0; d < ndims; d++) {
		idx->dims[d] = be32(head + 4 + 4 * d);
		if (idx->dims[d] == 0)
			return TD_FAIL(TD_EINVAL, "%s: dimension %d has size 0", path, d);
		if (d > 0)
			idx->item_bytes *= idx->dims[d]; /* < 2^32 * 2^30 fits once checked below */
		if (idx->item_bytes > TD_IDX_MAX_BYTES)
			return TD_FAIL(TD_ENOMEM, "%s: one item would hold more than %lu bytes",
				       path, TD_IDX_MAX_BYTES);
	}
	if (idx->dims[0] > TD_IDX_MAX_BYTES / idx->item_bytes)
		return TD_FAIL(TD_ENOMEM,
			       "%s: the header promises %u items of %zu bytes, more than %lu", path,
			       idx->dims[0], idx->item_bytes, TD_IDX_MAX_BYTES);
	idx->n_bytes = idx->dims[0] * idx->item_bytes;
	return 0;
}

static int read_data(td_idx *idx, gzFile f, const char *path)
{
	uint8_t extra;
	size_t got;
	int err;

	idx->data = malloc(idx->n_bytes);
	if (!idx->data)
		return TD_FAIL(TD_ENOMEM, "%s: no memory for %zu bytes of data", path,
			       idx->n_bytes);
	err = read_upto(f, idx->data, idx->n_bytes, &got, path);
	if (err)
		return err;
	if (got < idx->n_bytes)
		return TD_FAIL(
		    TD_EINVAL,
		    "%s: holds %zu of the %zu data bytes its header promises (%u items of "
		    "%zu bytes); the file is truncated%s",
		    path, got, idx->n_bytes, idx->dims[0], idx->item_bytes,
		    gz_cut_off(f) ? " (the gzip stream is cut off)" : "");
	err = read_upto(f, &extra, 1, &got, path);
	if (err)
		return err;
	if (got)
		return TD_FAIL(
		    TD_EINVAL,
		    "%s: holds more than the %zu data bytes its header promises (%u items "
		    "of %zu bytes)",
		    path, idx->n_bytes, idx->dims[0], idx->item_bytes);
	if (gz_cut_off(f))
		return TD_FAIL(TD_EINVAL,
			       "%s: the gzip stream is cut off after the data (no trailer)", path);
	return 0;
}

int td_idx_read(td_idx **out, const char *path, int ndims)
{
	td_idx *idx;
	gzFile f;
	int err;

	*out = NULL;
	if (ndims < 1 || ndims > TD_IDX_MAX_DIMS)
		return TD_FAIL(TD_EINVAL, "ndims %d is outside 1..%d", ndims, TD_IDX_MAX_DIMS);
	errno = 0;
	f = gzopen(path, "rb");
	if (!f)
		return TD_FAIL(TD_EIO, "cannot open %s: %s", path,
			       errno ? strerror(errno) : "out of memory");
	idx = calloc(1, sizeof *idx);
	if (!idx) {
		gzclose(f);
		return TD_FAIL(TD_ENOMEM, "no memory to read %s", path);
	}
	gzbuffer(f, 1u << 17);
	err = read_header(idx, f, path, ndims);
	if (!err)
		err = read_data(idx, f, path);
	gzclose(f);
	if (err) {
		td_idx_free(idx);
		return err;
	}
	*out = idx;
	return 0;
}

void td_idx_free(td_idx *idx)
{
	if (!idx)
		return;
	free(idx->data);
	free(idx);
}

int td_idx_ndims(const td_idx *idx)
{
	return idx->ndims;
}

uint32_t td_idx_dim(const td_idx *idx, int d)
{
	return d >= 0 && d < idx->ndims ? idx->dims[d] : 0;
}

size_t td_idx_item_bytes(const td_idx *idx)
{
	return idx->item_bytes;
}

const uint8_t *td_idx_data(const td_idx *idx)
{
	return idx->data;
}

/* --- Fashion-MNIST ------------------------------------------------------ */

static int check_pair(const td_idx *images, const td_idx *labels, const char *ipath,
		      const char *lpath)
{
	const uint8_t *y = labels->data;

	if (images->dims[1] != TD_FMNIST_SIDE || images->dims[2] != TD_FMNIST_SIDE)
		return TD_FAIL(TD_EINVAL, "%s: images are %ux%u, not %dx%d", ipath, images->dims[1],
			       images->dims[2], TD_FMNIST_SIDE, TD_FMNIST_SIDE);
	if (images->dims[0] != labels->dims[0])
		return TD_FAIL(TD_EINVAL,
			       "%s holds %u images but %s holds %u labels; they must agree", ipath,
			       images->dims[0], lpath, labels->dims[0]);
	for (size_t i = 0; i < labels->n_bytes; i++)
		if (y[i] >= TD_FMNIST_CLASSES)
			return TD_FAIL(TD_EINVAL, "%s: label %zu is %u, outside 0..%d", lpath, i,
				       y[i], TD_FMNIST_CLASSES - 1);
	return 0;
}

int td_fmnist_load_files(td_fmnist **out, const char *images, const char *labels,
			 td_fmnist_split split)
{
	td_fmnist *ds = calloc(1, sizeof *ds);
	int err;

	*out = NULL;
	if (!ds)
		return TD_FAIL(TD_ENOMEM, "no memory for a data set");
	err = td_idx_read(&ds->images, images, 3);
	if (!err)
		err = td_idx_read(&ds->labels, labels, 1);
	if (!err)
		err = check_pair(ds->images, ds->labels, images, labels);
	if (err) {
		td_fmnist_free(ds);
		return err;
	}
	ds->split = split;
	ds->n = ds->images->dims[0];
	*out = ds;
	return 0;
}

int td_fmnist_load(td_fmnist **out, const char *dir, td_fmnist_split split)
{
	const char *prefix = split == TD_FMNIST_TRAIN ? "train" : "t10k";
	size_t want = split == TD_FMNIST_TRAIN ? 60000 : 10000;
	char images[4096], labels[4096];
	int err;

	*out = NULL;
	if (split != TD_FMNIST_TRAIN && split != TD_FMNIST_TEST)
		return TD_FAIL(TD_EINVAL, "split %d is neither TD_FMNIST_TRAIN nor TD_FMNIST_TEST",
			       (int)split);
	dir = dir ? dir : TD_FMNIST_DIR;
	snprintf(images, sizeof images, "%s/%s-images-idx3-ubyte.gz", dir, prefix);
	snprintf(labels, sizeof labels, "%s/%s-labels-idx1-ubyte.gz", dir, prefix);
	err = td_fmnist_load_files(out, images, labels, split);
	if (!err && (*out)->n != want) {
		err = TD_FAIL(TD_EINVAL, "%s holds %zu images; the shipped %s split has %zu",
			      images, (*out)->n, prefix, want);
		td_fmnist_free(*out);
		*out = NULL;
	}
	return err;
}

void td_fmnist_free(td_fmnist *ds)
{
	if (!ds)
		return;
	td_idx_free(ds->images);
	td_idx_free(ds->labels);
	free(ds);
}

size_t td_fmnist_count(const td_fmnist *ds)
{
	return ds->n;
}

int td_fmnist_label(const td_fmnist *ds, size_t i)
{
	return i < ds->n ? ds->labels->data[i] : -1;
}

int td_fmnist_image(const td_fmnist *ds, size_t i, td_real *out)
{
	const uint8_t *px;

	if (i >= ds->n)
		return TD_FAIL(TD_EINVAL, "image %zu is out of range (the set holds %zu)", i,
			       ds->n);
	px = ds->images->data + i * TD_FMNIST_PIXELS;
	for (size_t p = 0; p < TD_FMNIST_PIXELS; p++)
		out[p] = (td_real)px[p] / (td_real)255;
	return 0;
}

int td_fmnist_absent_mask(uint8_t *mask, uint64_t seed, td_fmnist_split split, size_t index,
			  double fraction)
{
	uint16_t perm[TD_FMNIST_PIXELS];
	uint64_t stream = UINT64_C(0x464D) << 48 | (uint64_t)split << 32 | (uint64_t)index;
	size_t n_absent;

	if (!(fraction >= 0 && fraction <= TD_FMNIST_ABSENT_MAX))
		return TD_FAIL(TD_EINVAL, "absent fraction %g is outside [0, %g]", fraction,
			       TD_FMNIST_ABSENT_MAX);
	if ((uint64_t)index >> 32)
		return TD_FAIL(TD_EINVAL, "image index %zu is at or above 2^32", index);
	n_absent = (size_t)lround(fraction * TD_FMNIST_PIXELS);
	for (size_t p = 0; p < TD_FMNIST_PIXELS; p++)
		perm[p] = (uint16_t)p, mask[p] = 1;
	for (size_t k = 0; k < n_absent; k++) {
		double u = td_rng_uniform(seed, stream, k); /* in (0, 1): j < TD_FMNIST_PIXELS */
		size_t j = k + (size_t)(u * (double)(TD_FMNIST_PIXELS - k));
		uint16_t t = perm[j];

		perm[j] = perm[k], perm[k] = t;
		mask[t] = 0;
	}
	return 0;
}

int td_fmnist_image_absent(td_real *out, uint8_t *mask, const td_fmnist *ds, size_t i,
			   uint64_t seed, double fraction)
{
	int err = td_fmnist_image(ds, i, out);

	if (!err)
		err = td_fmnist_absent_mask(mask, seed, ds->split, i, fraction);
	for (size_t p = 0; !err && p < TD_FMNIST_PIXELS; p++)
		if (!mask[p])
			out[p] = 0;
	return err;
}
