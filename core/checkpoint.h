/*
 * checkpoint.h - training checkpoints: one versioned binary file per
 * checkpoint, written atomically, checked whole on load.
 *
 * A checkpoint holds everything a resumed run needs to continue bitwise as
 * the uninterrupted run would: the weights, the optimizer state, the step,
 * the data position and RNG counter, and the resolved config as its
 * canonical text with its hash, plus a model signature that names the
 * model's kind and shape.
 *
 * Layout (format version 1; every integer little-endian):
 *
 *   offset  size  field
 *   0       8     magic "TDCKPT\r\n"
 *   8       4     u32 format version (1)
 *   12      4     u32 sizeof(td_real) of the writer (4: float, 8: double)
 *   16      8     u64 number of sections (7)
 *   24      8     u64 payload length P: the bytes after the header
 *   32      8     u64 checksum: FNV-1a 64 (core/hash.h) over bytes 0..31,
 *                 then over the P payload bytes (everything but itself)
 *   40      P     the sections, each:
 *                   16 bytes  name, NUL-padded (at most 15 bytes)
 *                   8 bytes   u64 length L
 *                   L bytes   data
 *
 *   The file is exactly 40 + P bytes. Sections, in this order:
 *     signature    the model signature text (no NUL)
 *     weights      n_weights td_real values, each little-endian
 *     optimizer    td_adamw_export's bytes (may be empty)
 *     step         u64: optimizer steps done
 *     position     u64 data position, u64 RNG counter
 *     config       the canonical config text (td_config_serialize, no NUL)
 *     config_hash  u64: td_config_hash, FNV-1a 64 of the config text
 *
 * The checksum detects corruption (a flipped bit, a torn or truncated
 * copy), not tampering: FNV-1a is not a cryptographic hash, and anyone can
 * recompute it. A single changed byte always changes it.
 *
 * Loading refuses, with a message naming the file (TD_EIO when it cannot
 * be read, TD_EINVAL for the rest): a file shorter than the header or than
 * the header's payload length (truncated), a longer one, a wrong magic, a
 * format version other than 1 (a newer one says so), another td_real size,
 * a checksum mismatch, a missing, unknown, repeated or misplaced section, a
 * config text that does not hash to the stored hash, and, when the caller
 * gives them, another model signature, another weight count or another
 * config hash (both values named).
 * Files are written with td_file_write_atomic: a reader sees the old
 * checkpoint or the whole new one, never a part.
 */
#ifndef TD_CHECKPOINT_H
#define TD_CHECKPOINT_H

#include <stddef.h>
#include <stdint.h>

#include "real.h"

#define TD_CHECKPOINT_MAGIC "TDCKPT\r\n"
#define TD_CHECKPOINT_VERSION 1
#define TD_CHECKPOINT_HEADER 40

/*
 * What a checkpoint holds. For td_checkpoint_write every pointer is
 * borrowed from the caller for the duration of the call; from
 * td_checkpoint_get they are borrowed from the loaded checkpoint.
 */
typedef struct {
	const char *signature;	 /* model kind and shape, e.g. "axial_scan lru w=64 l=4 n=12345" */
	const td_real *weights;	 /* [n_weights] */
	size_t n_weights;	 /* >= 1 */
	const void *optimizer;	 /* td_adamw_export's bytes; NULL when optimizer_len is 0 */
	size_t optimizer_len;
	int64_t step;		 /* optimizer steps done, >= 0 */
	uint64_t data_position;	 /* the next training example index */
	uint64_t rng_counter;	 /* the next unused index of the run's random stream */
	const char *config_text; /* td_config_serialize's text */
	uint64_t config_hash;	 /* td_config_hash: FNV-1a 64 of config_text */
} td_checkpoint_data;

#define TD_CHECKPOINT_DATA_INIT                                                                    \
	{                                                                                          \
		0                                                                                  \
	}

/* What the loader must find; a field left at its _INIT value is not checked. */
typedef struct {
	const char *signature;	 /* NULL: any */
	size_t n_weights;	 /* 0: any */
	int check_config_hash;	 /* nonzero: config_hash must match */
	uint64_t config_hash;
} td_checkpoint_expect;

#define TD_CHECKPOINT_EXPECT_INIT                                                                  \
	{                                                                                          \
		0                                                                                  \
	}

typedef struct td_checkpoint td_checkpoint;

/*
 * Writes d to path atomically (temporary file beside it, fsync, rename,
 * fsync of the directory); on failure the old file at path is untouched.
 * Refused with TD_EINVAL: a missing signature, weights or config text, a
 * negative step, and a config_hash that is not the FNV-1a of config_text.
 * TD_EIO from the write, naming the path.
 */
int td_checkpoint_write(const char *path, const td_checkpoint_data *d);

/*
 * Reads and checks path (see the top of this file); expect may be NULL
 * (nothing beyond the file's own consistency is checked). On success the
 * caller frees *out with td_checkpoint_free; on failure *out is NULL.
 */
int td_checkpoint_load(td_checkpoint **out, const char *path, const td_checkpoint_expect *expect);

/*
 * The loaded contents. Borrowed: the struct and everything it points to
 * are valid until td_checkpoint_free(ck). The strings are NUL-terminated.
 */
const td_checkpoint_data *td_checkpoint_get(const td_checkpoint *ck);

/* Frees ck; accepts NULL. */
void td_checkpoint_free(td_checkpoint *ck);

#endif
