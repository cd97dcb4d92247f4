/*
 * xtrain.h - training steps on an executor (exec.h): the model (xmodel.h),
 * the batch, the loss and AdamW with its firewall, all in the executor's
 * memory, so that a step only queues work and never waits for it. What
 * the steps leave (the loss sums, the optimizer's counts, its skips) stays
 * there until the host reads it with td_xtrain_read: core/train.c does at
 * each log point, evaluation and checkpoint, not inside a step.
 *
 * It is core/train.c's step, operation for operation: td_op_xent is
 * td_train_xent, the sums are run_batch's and evaluate's, the optimizer is
 * td_adamw_step (kernels/ops.h), the learning rate lr(s) is taken on the
 * host, which counts the steps itself, and 1 - beta^t comes from tables
 * made on the host with its pow. On the host executor a run is therefore
 * the CPU run bit for bit (tests/test_xtrain.c checks whole run
 * directories); on the GPU only the products and the norm's parts differ.
 *
 * Must never: wait on the executor inside td_xtrain_batch for anything but
 * the upload of the batch two batches back (whose host memory it reuses:
 * the host runs at most two steps ahead); lose a skip (every one is
 * counted when read, the first TD_OPS_SKIPS_KEPT between two reads with
 * their reasons).
 */
#ifndef TD_XTRAIN_H
#define TD_XTRAIN_H

#include <stddef.h>
#include <stdint.h>

#include "adamw.h"
#include "counters.h"
#include "exec.h"
#include "model.h"

typedef struct td_xtrain td_xtrain;

/* The sums of td_xtrain_batch since they were last zeroed, as read. */
typedef struct {
	double mean_sum; /* the batches' mean losses, summed */
	double loss_sum; /* the batches' means times their sizes, summed */
	double correct;	 /* examples whose arg max was their label */
} td_xtrain_sums;

/* What td_xtrain_read found: the sums, and the optimizer's last step. */
typedef struct {
	td_xtrain_sums train, eval; /* the sums of training and of evaluation batches */
	int64_t steps;		    /* the optimizer's s: steps taken */
	double lr, grad_norm;	    /* the last step's (td_adamw_last's figures) */
} td_xtrain_read_out;

/*
 * Training steps for m on x: m's structure and parameters (xmodel.h),
 * classes outputs per cell, examples with cells of their own absent when
 * masked, and AdamW with o's options; opt's state (steps, moments) is
 * taken as the starting state. Refused as td_xmodel_new refuses, and
 * TD_EINVAL for more classes than TD_TRAIN_MAX_CLASSES.
 */
int td_xtrain_new(td_xtrain **out, const td_exec *x, td_model *m, const td_adamw_opts *o,
		  const td_adamw *opt, int masked);

/* Frees xt and its executor memory; accepts NULL. */
void td_xtrain_free(td_xtrain *xt);

/*
 * One batch of n examples (host memory: x [n][cell], emask [n][cell] when
 * masked, labels [n]): uploaded, forward, loss and dy. With train, the
 * gradient, and the optimizer's step at lr(s). Queues, never waits; its
 * loss is added to the training sums (train) or the evaluation sums.
 */
int td_xtrain_batch(td_xtrain *xt, const td_real *x, const uint8_t *emask, const int *labels,
		    size_t n, int train);

/* Zeroes the training sums (train 1) or the evaluation sums (0). Queues. */
int td_xtrain_zero_sums(td_xtrain *xt, int train);

/*
 * Waits for the queued work and reads what it left into *out. Every step
 * skipped since the last read is counted in c ("nan_step_skipped", as
 * td_adamw_step counts it) and every step taken since then is recorded in
 * fw (td_firewall_step; the firewall counts a window's steps and applied
 * steps, which is what it is told).
 */
int td_xtrain_read(td_xtrain *xt, td_xtrain_read_out *out, td_counters *c, td_firewall *fw);

/* Downloads the parameters into m and the optimizer's state into opt. Waits. */
int td_xtrain_store(td_xtrain *xt, td_model *m, td_adamw *opt);

/* Uploads m's parameters and opt's state over the executor's (a resume). */
int td_xtrain_load(td_xtrain *xt, td_model *m, const td_adamw *opt);

#endif
