/*
 * model.h - an N-D sequence model over a lattice: a linear input embedding,
 * a stack of layers, a linear output head.
 *
 *   h_0     = select(embed(select(x)))                embed: W_e x + b_e
 *   m_l     = select(h_l + block_l(rmsnorm_l(h_l)))   one layer, residual
 *   h_{l+1} = m_l                                     without ffn, else
 *   h_{l+1} = select(m_l + W2 relu(W1 rmsnorm'_l(m_l) + b1) + b2)
 *   y       = select(head(h_L))                       head: W_o h + b_o
 *
 * The optional channel MLP (ffn > 0 hidden units, ReLU: GELU's erf cost
 * a third of a step) is the model's nonlinearity across channels: without it
 * an LRU or conv model is linear but for its norms. With head_per_cell
 * every cell has its own head weights W_o[cell] (one bias for all), so the
 * mean of y over the present cells is a full linear readout of the last
 * stream, position included; the weights follow the lattice's storage
 * order of cells.
 *
 * select(v) = (present ? v : 0) per cell, by selection, never by
 * multiplication (a NaN or an infinity times 0 is still NaN). It runs on
 * entry and after every layer, residual path included, so no value in an
 * absent cell can reach any output, and the backward gives exactly zero
 * gradient at absent inputs.
 *
 * Layers: a SCAN model has one layer per plan step (layer i sweeps step i);
 * a KERNEL or FLATTEN model has n_layers layers. When a plan and an
 * explicit n_layers disagree, the plan wins and the model says so: the
 * counter "plan_overrides_n_layers" in td_model_counters, with its reason
 * (COUNTED, never a silently shallower model).
 *
 * Memory: every parameter in one slab and every gradient in another of the
 * same layout (the groups name its parts); a workspace sized at
 * construction for max_batch examples. Forward and backward allocate
 * nothing. Initial values are a pure function of the seed.
 */
#ifndef TD_MODEL_H
#define TD_MODEL_H

#include <stddef.h>
#include <stdint.h>

#include "block.h"
#include "counters.h"
#include "lattice.h"
#include "plan.h"

typedef struct {
	td_block_family family;
	td_mixer_opts mixer; /* every layer's mixer; channels 0 or equal to width */
	size_t in;	     /* input channels per cell, >= 1 */
	size_t width;	     /* the residual stream's channels, >= 1 */
	size_t out;	     /* output channels per cell, >= 1 */
	int n_layers;	     /* layers; 0 with a plan: one per step */
	const td_plan *plan; /* SCAN (required): read during td_model_new only */
	size_t max_batch;    /* the largest batch forward accepts, >= 1 */
	size_t chunk;	     /* lines per mixer call, >= 1 (see block.h) */
	double cancel;	     /* KERNEL: the relative cancellation guard (see block.h) */
	size_t ffn;	     /* hidden units of each layer's channel MLP; 0: none */
	int head_per_cell;   /* nonzero: a head weight matrix per cell */
} td_model_opts;

#define TD_MODEL_OPTS_INIT                                                                         \
	{                                                                                          \
		.family = TD_BLOCK_SCAN, .mixer = TD_MIXER_OPTS_INIT, .in = 1, .width = 8,         \
		.out = 1, .max_batch = 1, .chunk = 256, .cancel = TD_BLOCK_CANCEL_DEFAULT          \
	}

typedef struct td_model td_model;

/*
 * Builds a model over lat with zeroed parameters (call td_model_init).
 * lat is borrowed: it must outlive the model; the plan is read now and not
 * kept. Refused with TD_EINVAL and a message naming the option: in, width
 * or out 0, mixer.channels that is neither 0 nor width, a SCAN model
 * without a plan, a plan on another family, n_layers < 0, or 0 without a
 * plan; chunk 0 and the blocks' other refusals pass up unchanged. On
 * success the caller frees *out with td_model_free; on failure *out is NULL.
 */
int td_model_new(td_model **out, const td_lattice *lat, const td_model_opts *opts);

/* Frees m; accepts NULL. */
void td_model_free(td_model *m);

/* Overwrites every parameter with its initial value for seed. */
void td_model_init(td_model *m, uint64_t seed);

/*
 * y [batch][cell][out] = model(x [batch][cell][in]). Refused with
 * TD_EINVAL: NULL buffers, batch 0 or above max_batch.
 */
int td_model_forward(td_model *m, td_real *y, const td_real *x, size_t batch);

/*
 * The backward of the last forward (same batch): adds dL/dparams to the
 * gradient slab and, when dx is not NULL, writes dL/dx there.
 */
int td_model_backward(td_model *m, td_real *dx, const td_real *dy, size_t batch);

/*
 * Absent cells per example: mask [max_batch][n_cells], 1 present, on top
 * of the lattice's mask, for every forward and backward until the next
 * call (NULL: the lattice's mask alone). The contract of select() holds
 * per example: nothing in a cell absent from its example reaches any
 * output, and its input gradient is exactly 0. Borrowed: it must stay
 * valid and unchanged from a forward to its backward. Refused with
 * TD_ENOTSUP, changing nothing, when a layer's family cannot take it (see
 * td_block_set_example_mask).
 */
int td_model_set_example_mask(td_model *m, const uint8_t *mask);

size_t td_model_n_params(const td_model *m);
/* The slabs, td_model_n_params values each. Borrowed: valid until td_model_free(m). */
td_real *td_model_params(td_model *m);
td_real *td_model_grads(td_model *m);
void td_model_zero_grads(td_model *m);

size_t td_model_n_groups(const td_model *m);
/* Group i of the slabs ("embed.w", "layer0.mixer", ...); pointers borrowed from m. */
td_param_group td_model_group(const td_model *m, size_t i);

/* The options the model was built with (plan NULL: it is not kept). Borrowed. */
const td_model_opts *td_model_options(const td_model *m);

int td_model_n_layers(const td_model *m);
/* Layer i's block. Borrowed: valid until td_model_free(m); NULL out of range. */
td_block *td_model_block(const td_model *m, int i);
size_t td_model_in(const td_model *m);
size_t td_model_out(const td_model *m);
size_t td_model_width(const td_model *m);

/*
 * The residual stream entering layer l after the last forward
 * ([batch][cell][width]; l = n_layers is what enters the head), or NULL
 * for l out of range. Absent cells hold exactly 0 at every layer.
 * Borrowed: valid until the next forward or td_model_free(m).
 */
const td_real *td_model_stream(const td_model *m, int l);

/* The model's counters (COUNTED fallbacks). Borrowed: valid until td_model_free(m). */
const td_counters *td_model_counters(const td_model *m);

#endif
