/*
 * synth.h - synthetic task families: examples that are pure functions of
 * (family, seed, index), disjoint training and evaluation ranges, batching.
 *
 * Families (each a fixed lattice shape and a class label):
 *   row     8x8 (h, w), all present. Noise in [0, 0.5) everywhere and one
 *           marker cell of value 1; the label is the marker's row (h). The
 *           label depends on the h axis only: permuting w leaves it as it
 *           is, so a model that never sweeps h cannot learn it (the
 *           trainability negative control).
 *   absent  8x8 (h, w), about 30% of cells absent per example (at least one
 *           present). Present cells hold values in [-1, 1), absent ones 0;
 *           the label is the quadrant (2 * (h >= 4) + (w >= 4)) of the
 *           largest present value. Absent cells cannot change the label.
 *   time    16x16 (t, x), time axis t, with strictly increasing sample
 *           times. A marker moves by v in {-1, 0, +1} cells per step along x
 *           (wrapping) over noise in [0, 0.3); the label is v + 1.
 *
 * Randomness: example `index` of any family draws from Philox stream
 * (0x5359 << 48) | index ("SY"), so indices must be below 2^48; the draw
 * number carries the family (bits 40..47) and the purpose (bits 32..39), so
 * no two families, examples or purposes share a draw.
 *
 * Training and evaluation: training draws indices from [0, n_train),
 * evaluation from [TD_SYNTH_EVAL_FIRST, TD_SYNTH_EVAL_FIRST + n_eval), which
 * are disjoint by construction; td_synth_check_split checks it anyway, by id
 * and by content hash, and refuses any overlap.
 */
#ifndef TD_SYNTH_H
#define TD_SYNTH_H

#include <stddef.h>
#include <stdint.h>

#include "lattice.h"
#include "real.h"

#define TD_SYNTH_EVAL_FIRST (UINT64_C(1) << 40)	 /* first evaluation index */
#define TD_SYNTH_INDEX_LIMIT (UINT64_C(1) << 48) /* indices must be below this */

typedef enum { TD_SYNTH_ROW, TD_SYNTH_ABSENT, TD_SYNTH_TIME, TD_SYNTH_N_FAMILIES } td_synth_family;

/* What a family's examples look like. */
typedef struct {
	const char *name;    /* "row", "absent", "time" */
	int rank;	     /* 2 */
	size_t shape[2];     /* cells per axis */
	const char *axes[2]; /* axis names */
	int time_axis;	     /* -1 for none */
	int n_classes;	     /* labels are 0..n_classes-1 */
} td_synth_info;

/* The description of family f, or NULL when f is not a family. Static. */
const td_synth_info *td_synth_info_of(td_synth_family f);

/* The family named name ("row", ...); TD_EINVAL listing the names if none. */
int td_synth_family_named(td_synth_family *out, const char *name);

/*
 * One example: plain data, owned by whoever holds it. Generated examples
 * carry a target; a caller may build one without (has_target = 0), e.g. to
 * ask for a prediction.
 */
typedef struct {
	td_synth_family family;
	uint64_t seed, index; /* with family, the example's id */
	size_t n_cells;	      /* product of the family's shape */
	td_real *x;	      /* n_cells values, row-major; absent cells hold 0 */
	uint8_t *mask;	      /* n_cells bytes, 1 = present */
	size_t n_times;	      /* the time axis' size, or 0 */
	double *times;	      /* n_times strictly increasing times, or NULL */
	int has_target;
	int target; /* the label when has_target */
} td_synth_example;

/*
 * Generates example index of family with seed: a pure function of the three
 * (bitwise the same on every call, every machine). Refused: an unknown
 * family, index at or above TD_SYNTH_INDEX_LIMIT. The caller frees *out with
 * td_synth_example_free.
 */
int td_synth_example_new(td_synth_example **out, td_synth_family family, uint64_t seed,
			 uint64_t index);

/* Frees ex and its buffers; accepts NULL. */
void td_synth_example_free(td_synth_example *ex);

/*
 * The label the family's rule gives to the content (x, mask) of an example of
 * family f (row and time read x alone; mask may be NULL for them). Generated
 * examples satisfy target == td_synth_label(...); the tests use it to show
 * what the label depends on.
 */
int td_synth_label(int *out, td_synth_family f, const td_real *x, const uint8_t *mask);

/*
 * 64-bit FNV-1a over what a model is shown: family, n_cells, n_times and the
 * bytes of x, mask and times; not the id (seed, index) and not the target.
 * An evaluation input that was trained on is a leak whatever its label, so
 * two examples with the same input hash the same.
 */
uint64_t td_synth_content_hash(const td_synth_example *ex);

/*
 * A lattice over ex's family shape with ex's mask. Caller frees *out with
 * td_lattice_free.
 */
int td_synth_example_lattice(td_lattice **out, const td_synth_example *ex);

/* A half-open index range [first, first + count). */
typedef struct {
	uint64_t first, count;
} td_synth_range;

/*
 * The training range [0, n_train) and the evaluation range
 * [TD_SYNTH_EVAL_FIRST, + n_eval). Refused: n_train above
 * TD_SYNTH_EVAL_FIRST, n_eval past TD_SYNTH_INDEX_LIMIT, either zero.
 */
int td_synth_ranges(td_synth_range *train, td_synth_range *eval, uint64_t n_train, uint64_t n_eval);

/*
 * Refuses (TD_EINVAL, naming both ids) any example that appears in both
 * sets: the same id (family, seed, index), or the same content hash under
 * different ids. Sets of mixed families are fine.
 */
int td_synth_check_disjoint(const td_synth_example *const *train, size_t n_train,
			    const td_synth_example *const *eval, size_t n_eval);

/*
 * Generates both ranges of family with seed and checks them as
 * td_synth_check_disjoint does (overlapping ranges are refused before any
 * generation). Costs one generation per example.
 */
int td_synth_check_split(td_synth_family family, uint64_t seed, td_synth_range train,
			 td_synth_range eval);

/* A batch: n examples of one family stacked, owned by the batch. */
typedef struct {
	td_synth_family family;
	size_t n, n_cells, n_times;
	uint64_t *index; /* [n] */
	td_real *x;	 /* [n][n_cells] */
	uint8_t *mask;	 /* [n][n_cells] */
	double *times;	 /* [n][n_times], NULL when n_times is 0 */
	int has_target;	 /* every example carries a target, or none */
	int *target;	 /* [n], NULL when has_target is 0 */
} td_synth_batch;

/*
 * Stacks ex[0..n) into a new batch (copies). Refused (TD_EINVAL): n = 0,
 * examples of different families or sizes, examples that disagree on
 * whether they carry a target (naming one of each). Caller frees *out with
 * td_synth_batch_free.
 */
int td_synth_batch_new(td_synth_batch **out, const td_synth_example *const *ex, size_t n);

/* Frees b; accepts NULL. */
void td_synth_batch_free(td_synth_batch *b);

/*
 * The number of samples strictly before time t in times[0..n), that is the
 * index at which a series splits into [0, k) before t and [k, n) at or after
 * it. Refused: times not strictly increasing (naming the position and both
 * values), a NaN among times or as t.
 */
int td_synth_split_at_time(size_t *out, const double *times, size_t n, double t);

#endif
