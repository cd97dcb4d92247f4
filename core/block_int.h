/*
 * block_int.h - what the families share with block.c; not public.
 *
 * block.c owns the object, the option checks, the mask, the mixer and the
 * chunked mixer calls. A family (family_*.c) supplies a td_block_ops:
 * setup builds its state and says how much workspace it needs; forward and
 * backward run on arguments block.c has already validated.
 */
#ifndef TD_BLOCK_INT_H
#define TD_BLOCK_INT_H

#include "axial.h"
#include "block.h"
#include "mixer_int.h" /* td_mixer_size_muladd */

typedef struct {
	const char *name;
	/* Builds family state in b->fam, declares groups, sets b->ws_len. */
	int (*setup)(td_block *b);
	int (*forward)(td_block *b, td_real *y, const td_real *x, size_t batch);
	int (*backward)(td_block *b, td_real *dx, const td_real *dy, size_t batch);
	/* Initialises the family's own parameters (the mixer is done by block.c). */
	void (*init)(td_block *b, uint64_t seed, uint64_t stream);
	void (*free_fam)(td_block *b);
} td_block_ops;

struct td_block {
	td_block_opts o;
	char axis[TD_AXIS_NAME_MAX + 1]; /* SCAN: o.axis copied; o.axis points here */
	const td_lattice *lat;		 /* borrowed */
	const td_block_ops *ops;
	uint8_t *mask;	     /* [n_cells] 1 present, 0 absent: the lattice's, copied */
	const uint8_t *emask; /* [max_batch][n_cells] per example, or NULL: borrowed */
	size_t n_cells;	     /* cells of one example */
	size_t width;	     /* channels of x and y */
	td_mixer *mixer;     /* owned */
	size_t n_groups;
	td_param_group group[TD_BLOCK_MAX_GROUPS]; /* group 0 is the mixer's */
	int owned[TD_BLOCK_MAX_GROUPS];		   /* block.c allocated the group's slabs */
	td_real *ws;	     /* [ws_len] owned workspace, carved by the family */
	size_t ws_len;
	void *fam;	     /* the family's state, freed by ops->free_fam */
};

/* Whether no cell can be absent, on the lattice or in an example (no example mask set). */
int td_block_no_absent(const td_block *b);

/*
 * xf = fold(select(x)) in one pass: xf [batch][n_cells][channels] gets, at
 * folded position k, cell f->fold[k]'s row of x, or 0 when that cell is
 * absent on the lattice or in its example. Selection, not multiplication:
 * an absent cell's NaN or infinity never reaches xf. Returns 0; TD_EINVAL
 * only if the pool broke its contract (TD_REQUIRE).
 */
int td_block_fold_select(const td_block *b, const td_fold *f, size_t batch, size_t channels,
			 const td_real *x, td_real *xf);

/* x = select(unfold(xf)) in one pass: the inverse of the above, absent cells written as 0. */
int td_block_unfold_select(const td_block *b, const td_fold *f, size_t batch, size_t channels,
			   const td_real *xf, td_real *x);

/*
 * A flatten block's sequence: seq [*n] the cell at each position, the
 * present cells in its canonical order (family_flatten.c). Borrowed.
 */
const size_t *td_block_flatten_seq(const td_block *b, size_t *n);

/* A kernel block's spatial axis, as family_kernel.c contracts it. */
typedef struct {
	size_t n;     /* its size */
	size_t inner; /* cells of one step along it */
	size_t outer; /* its blocks in one example: n_cells / (n inner) */
	td_real *k;   /* its kernel [n][n] in the block's parameter slab */
	td_real *dk;  /* and its gradient */
} td_block_kernel_axis;

/*
 * A kernel block's spatial axes, in the order it contracts them, into
 * ax [TD_LATTICE_MAX_RANK]; returns how many (family_kernel.c).
 */
int td_block_kernel_axes(const td_block *b, td_block_kernel_axis *ax);

extern const td_block_ops td_family_scan_ops;
extern const td_block_ops td_family_kernel_ops;
extern const td_block_ops td_family_flatten_ops;

/*
 * Workspace values for the mixer over up to `lines` lines of `length`,
 * chunk lines per call: one chunk workspace per chunk, all kept for the
 * backward.
 */
int td_block_mix_ws(size_t *out, const td_block *b, size_t lines, size_t length);

/* The mixer over lines x length in chunks of o.chunk lines, on mix_ws. */
int td_block_mix_forward(td_block *b, td_real *y, const td_real *x, size_t lines, size_t length,
			 td_real *mix_ws);
int td_block_mix_backward(td_block *b, td_real *dx, const td_real *dy, size_t lines,
			  size_t length, td_real *mix_ws);

/*
 * Adds a group of count parameters (name copied) with zeroed slabs that
 * block.c owns (until td_block_use_slabs moves them); *index gets its
 * number. A family reads its parameters through b->group[index] only, so
 * the slabs may move.
 */
int td_block_new_group(td_block *b, const char *name, size_t count, size_t *index);

#endif
