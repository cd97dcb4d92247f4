/*
 * idx.h - IDX files (the MNIST format) and the Fashion-MNIST data set.
 *
 * An IDX file is a 4-byte magic number (0, 0, data type, number of
 * dimensions), one big-endian uint32 size per dimension, then the data in
 * row-major order; dimension 0 counts the items. Only data type 0x08
 * (unsigned byte) is read. Files may be gzip-compressed or raw: zlib tells
 * them apart. A file is accepted only if it holds exactly the bytes its
 * header promises: a short, over-long, corrupt or wrongly-typed file is
 * refused with a message naming the file and what was wrong, never read in
 * part.
 *
 * Fashion-MNIST comes from Debian's dataset-fashion-mnist package, in the
 * shipped split (60000 training, 10000 test images of 28x28 pixels, labels
 * 0..9). The absent-pixel variant marks a fixed number of pixels of each
 * image absent, chosen by a pure function of (seed, split, image index).
 */
#ifndef TD_IDX_H
#define TD_IDX_H

#include <stddef.h>
#include <stdint.h>

#include "real.h"

#define TD_IDX_MAX_DIMS 8	     /* more dimensions than this are refused */
#define TD_IDX_MAX_BYTES (1ul << 30) /* a header promising more data is refused */

typedef struct td_idx td_idx;

/*
 * Reads the IDX file at path, which must have ndims dimensions (1..
 * TD_IDX_MAX_DIMS), each at least 1, and data type 0x08. Refused: TD_EIO
 * when the file cannot be opened or read; TD_EINVAL for a wrong magic
 * number, data type or dimension count, a zero size, a file shorter or
 * longer than its header promises, a corrupt or cut-off gzip stream (a bad
 * CRC, a missing trailer); TD_ENOMEM when the
 * promised data exceeds TD_IDX_MAX_BYTES or cannot be allocated. On
 * success the caller frees *out with td_idx_free; on failure *out is NULL.
 */
int td_idx_read(td_idx **out, const char *path, int ndims);

/* Frees idx; accepts NULL. */
void td_idx_free(td_idx *idx);

int td_idx_ndims(const td_idx *idx);
uint32_t td_idx_dim(const td_idx *idx, int d); /* 0 if d is out of range */
size_t td_idx_item_bytes(const td_idx *idx);   /* product of dimensions 1.. */

/* The data, dim(0) * item_bytes bytes. Borrowed: valid until td_idx_free(idx). */
const uint8_t *td_idx_data(const td_idx *idx);

/* --- Fashion-MNIST ------------------------------------------------------ */

#define TD_FMNIST_DIR "/usr/share/datasets/fashion-mnist"
#define TD_FMNIST_SIDE 28
#define TD_FMNIST_PIXELS (TD_FMNIST_SIDE * TD_FMNIST_SIDE)
#define TD_FMNIST_CLASSES 10
#define TD_FMNIST_ABSENT_MAX 0.99 /* absent fractions above this are refused */

typedef enum { TD_FMNIST_TRAIN, TD_FMNIST_TEST } td_fmnist_split;

typedef struct td_fmnist td_fmnist;

/*
 * Loads an image file (IDX, 3 dimensions, 28x28 items) and a label file (IDX,
 * 1 dimension, labels 0..9) that must agree in count, as the given split
 * (which fixes the absent masks). Refused (TD_EINVAL, naming the file):
 * anything td_idx_read refuses, images that are not 28x28, a label out of
 * range (with its index), counts that disagree. The caller frees *out with
 * td_fmnist_free; on failure *out is NULL.
 */
int td_fmnist_load_files(td_fmnist **out, const char *images, const char *labels,
			 td_fmnist_split split);

/*
 * Loads the shipped split from dir (NULL: TD_FMNIST_DIR):
 * {train,t10k}-{images-idx3,labels-idx1}-ubyte.gz, refusing a count other
 * than 60000 (train) or 10000 (test). As td_fmnist_load_files otherwise.
 */
int td_fmnist_load(td_fmnist **out, const char *dir, td_fmnist_split split);

/* Frees ds; accepts NULL. */
void td_fmnist_free(td_fmnist *ds);

size_t td_fmnist_count(const td_fmnist *ds);

/* The label of image i, 0..9; -1 when i is out of range. */
int td_fmnist_label(const td_fmnist *ds, size_t i);

/*
 * Image i as TD_FMNIST_PIXELS values in [0, 1] (byte / 255), row-major
 * (h, w), into out. TD_EINVAL when i is out of range.
 */
int td_fmnist_image(const td_fmnist *ds, size_t i, td_real *out);

/*
 * The absent mask of image `index` of split: TD_FMNIST_PIXELS bytes, 1 =
 * present, 0 = absent, exactly lround(fraction * TD_FMNIST_PIXELS) of them
 * absent. A pure function of (seed, split, index, fraction): Philox stream
 * (0x464D << 48) | (split << 32) | index ("FM"), draws 0..n_absent-1 picking
 * by partial Fisher-Yates. Refused: fraction outside [0, TD_FMNIST_ABSENT_MAX]
 * or NaN, index at or above 2^32.
 */
int td_fmnist_absent_mask(uint8_t *mask, uint64_t seed, td_fmnist_split split, size_t index,
			  double fraction);

/*
 * Image i with its absent mask (as td_fmnist_absent_mask with ds's split):
 * absent pixels are 0 in out and 0 in mask.
 */
int td_fmnist_image_absent(td_real *out, uint8_t *mask, const td_fmnist *ds, size_t i,
			   uint64_t seed, double fraction);

#endif
