/*
 * xmodel.h - a td_model computed by an executor (exec.h): the GPU's path,
 * and on the host executor the same orchestration checked against the
 * core bit for bit.
 *
 * Built from a host model, whose structure it takes (layers, folds,
 * masks, where each tensor lies in the slab) and whose parameters it
 * uploads once: the initial weights are the host's, drawn with the core's
 * Philox, so a seed gives the same model on every executor. Every buffer
 * (parameters, activations, the saved inputs of each layer) is carved
 * from one allocation of the executor's memory at construction; forward
 * allocates nothing and, on the GPU, only queues work.
 *
 * What it computes so far: models of every family (axial_scan, flatten,
 * axial_kernel) with the conv mixer, the LRU, the complex LRU, the GRU or
 * the LSTM, with or without the channel MLP, with a shared head or one
 * per cell; forward and backward. Anything else is refused with TD_ENOTSUP, saying what is
 * not there yet, never computed another way.
 */
#ifndef TD_XMODEL_H
#define TD_XMODEL_H

#include <stddef.h>
#include <stdint.h>

#include "exec.h"
#include "model.h"

typedef struct td_xmodel td_xmodel;

/*
 * The executor's copy of m with m's parameters; m is read now and not
 * kept. Refused: TD_ENOTSUP for a family or mixer the executor path does
 * not have; allocation failures pass up. On failure *out is NULL.
 */
int td_xmodel_new(td_xmodel **out, const td_exec *x, td_model *m);

/*
 * The same, with extra zeroed bytes of executor memory for the caller
 * (td_xmodel_extra) in the model's one allocation, so that a training
 * step's buffers and the model's are one pool.
 */
int td_xmodel_new_pooled(td_xmodel **out, const td_exec *x, td_model *m, size_t extra);

/* The extra bytes of td_xmodel_new_pooled, TD_EXEC_ALIGN-aligned. */
void *td_xmodel_extra(td_xmodel *xm);

/* Frees xm and its executor memory; accepts NULL. */
void td_xmodel_free(td_xmodel *xm);

/* Uploads m's parameters (td_model_n_params values, host memory) over the copy's. */
int td_xmodel_upload_params(td_xmodel *xm, const td_real *params);

/*
 * Absent cells per example, mask [max_batch][n_cells] in the executor's
 * memory (NULL: the lattice's mask alone), as td_model_set_example_mask:
 * refused with TD_ENOTSUP for a model with a flatten layer. Borrowed
 * until the next call.
 */
int td_xmodel_set_example_mask(td_xmodel *xm, const uint8_t *mask);

/*
 * y [batch][cell][out] = model(x [batch][cell][in]), both in the
 * executor's memory. Refused with TD_EINVAL: batch 0 or above max_batch.
 */
int td_xmodel_forward(td_xmodel *xm, td_real *y, const td_real *x, size_t batch);

/*
 * The backward of the last forward (same batch), as td_model_backward:
 * adds dL/dparams to the gradient slab and, when dx is not NULL, writes
 * dL/dx there; dy and dx in the executor's memory.
 */
int td_xmodel_backward(td_xmodel *xm, td_real *dx, const td_real *dy, size_t batch);

/* Sets every gradient to zero. */
int td_xmodel_zero_grads(td_xmodel *xm);

/*
 * The slabs in the executor's memory (td_model_n_params values each), for
 * an optimizer that runs there. Borrowed until td_xmodel_free.
 */
td_real *td_xmodel_params(td_xmodel *xm);
td_real *td_xmodel_grads(td_xmodel *xm);
size_t td_xmodel_n_params(const td_xmodel *xm);

/* Downloads the parameters and the gradients (the host model's layout; either may be NULL). */
int td_xmodel_download(td_xmodel *xm, td_real *params, td_real *grads);

#endif
