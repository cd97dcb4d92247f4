/*
 * block.h - one layer of token mixing over a lattice: the composition
 * families' common interface.
 *
 * A block maps x of shape [batch][cell][width] over a lattice to y of the
 * same shape. Families:
 *   TD_BLOCK_SCAN     axial scan (family_scan.c): fold every axis but the
 *                     step's into the batch, run the mixer along the step's
 *                     axis in the step's direction, unfold.
 *   TD_BLOCK_KERNEL   axial kernel (family_kernel.c): contract each spatial
 *                     axis with a learned kernel, renormalised over present
 *                     cells (relative cancellation guard, NaNs pass through),
 *                     then run the mixer along time (every cell its own
 *                     length-1 line when the lattice has no time axis).
 *   TD_BLOCK_FLATTEN  flatten (family_flatten.c): the present cells only, as
 *                     one joint sequence per example, through the mixer.
 *
 * Absent cells: a block reads nothing from them (they are selected to zero
 * on entry) and writes exactly zero into them; its backward gives exactly
 * zero gradient at them. Orders that change meaning (the kernel family's
 * contraction order, the flatten sequence order) come from td_axial_order,
 * never from storage order.
 *
 * Memory: a block owns its parameters (in slabs, listed as parameter
 * groups) and a workspace sized at construction for up to max_batch
 * examples; forward and backward allocate nothing. Backward must follow the
 * forward it differentiates, with the same batch; it overwrites dx and adds
 * to the gradient slabs. Calls on one block must not run concurrently.
 */
#ifndef TD_BLOCK_H
#define TD_BLOCK_H

#include <stddef.h>
#include <stdint.h>

#include "lattice.h"
#include "mixer.h"
#include "real.h"

typedef enum {
	TD_BLOCK_SCAN = 1,
	TD_BLOCK_KERNEL = 2,
	TD_BLOCK_FLATTEN = 3,
} td_block_family;

typedef struct {
	td_block_family family;
	td_mixer_opts mixer; /* the mixer; mixer.channels is the block's width */
	const char *axis;    /* SCAN: the axis swept (copied); must exist on the lattice */
	int reverse;	     /* SCAN: sweep from the end of each line; mixer.reverse must be 0 */
	size_t max_batch;    /* the largest batch forward accepts, >= 1 */
	size_t chunk;	     /* lines per mixer call, >= 1: bounds one call's size; on lines
				of one step, chunk times the lattice's longest axis */
	double cancel;	     /* KERNEL: a line is degenerate when |signed mass| <= cancel *
				absolute mass; in [0, 1) */
} td_block_opts;

#define TD_BLOCK_CANCEL_DEFAULT 1e-2

#define TD_BLOCK_OPTS_INIT                                                                         \
	{                                                                                          \
		.family = TD_BLOCK_SCAN, .mixer = TD_MIXER_OPTS_INIT, .max_batch = 1,              \
		.chunk = 256, .cancel = TD_BLOCK_CANCEL_DEFAULT                                    \
	}

/* One slab of parameters and its gradients, as its owner lays it out. */
typedef struct {
	char name[48];	/* "mixer", "kernel.h", "layer1.mixer" ... */
	td_real *value; /* count values; borrowed from the owner */
	td_real *grad;	/* count values, the same layout */
	size_t count;
} td_param_group;

#define TD_BLOCK_MAX_GROUPS 2

typedef struct td_block td_block;

/*
 * Builds a block over lat with parameters zeroed (call td_block_init).
 * lat is borrowed: it must outlive the block. Refused with TD_EINVAL and a
 * message naming the option: an unknown family, chunk 0, max_batch 0, a
 * SCAN axis that is missing or not on lat, a SCAN mixer with reverse set, a
 * cancel outside [0, 1); the mixer's own refusals pass up unchanged. On
 * success the caller frees *out with td_block_free; on failure *out is NULL.
 */
int td_block_new(td_block **out, const td_lattice *lat, const td_block_opts *opts);

/* Frees b; accepts NULL. */
void td_block_free(td_block *b);

td_block_family td_block_family_of(const td_block *b);
size_t td_block_width(const td_block *b);

/* The block's mixer. Borrowed: valid until td_block_free(b). */
td_mixer *td_block_mixer(const td_block *b);

/*
 * Overwrites every parameter with its initial value: a pure function of
 * (seed, stream, the tensor's name). The block uses streams
 * stream .. stream + 2^20 - 1; give each block a disjoint range.
 */
void td_block_init(td_block *b, uint64_t seed, uint64_t stream);

size_t td_block_n_groups(const td_block *b);
/* Group i (i < td_block_n_groups); its pointers are borrowed from b. */
td_param_group td_block_group(const td_block *b, size_t i);
void td_block_zero_grads(td_block *b);

/* The number of parameters: the sum of the groups' counts. */
size_t td_block_n_params(const td_block *b);

/*
 * Moves every group into caller-owned slabs of td_block_n_params(b) values
 * each, groups back to back in group order, copying their values. The
 * slabs must outlive b; td_block_free does not free them. Refused with
 * TD_EINVAL: a NULL slab.
 */
int td_block_use_slabs(td_block *b, td_real *params, td_real *grads);

/*
 * y = block(x) for batch examples: x and y hold batch * n_cells * width
 * values and must not overlap. Refused with TD_EINVAL: NULL buffers, batch
 * 0 or above max_batch.
 */
int td_block_forward(td_block *b, td_real *y, const td_real *x, size_t batch);

/* The backward of the last forward (same batch): dx from dy; adds parameter gradients. */
int td_block_backward(td_block *b, td_real *dx, const td_real *dy, size_t batch);

/*
 * Absent cells per example: mask [max_batch][n_cells], 1 present, on top
 * of the lattice's mask (a cell is present when both say so), for every
 * forward and backward until the next call; NULL returns to the lattice's
 * mask alone. Borrowed: it must stay valid and unchanged from a forward to
 * its backward. Refused with TD_ENOTSUP by the KERNEL and FLATTEN
 * families, whose per-line masses and sequences are built once from the
 * lattice.
 */
int td_block_set_example_mask(td_block *b, const uint8_t *mask);

#endif
