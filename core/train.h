/*
 * train.h - the training loop behind tdtrain: config in, a run directory out.
 *
 * A run is a pure function of its config: the seed fixes the initial
 * weights (td_model_init), the order of the training data (example i of
 * step s is drawn from rng stream TD_TRAIN_DATA_STREAM at index
 * s * batch + i) and every other draw; the thread count changes no bit.
 * Evaluation always starts again at the first example of the evaluation
 * range, so two evaluations of the same weights score the same bytes.
 *
 * The run directory holds config.txt (the full resolved config, written
 * before the first step), log.jsonl (a line per log point, per eval, the
 * final eval included) and checkpoint.bin (weights, optimizer state, step,
 * data position and the config snapshot; written atomically every
 * checkpoint_every steps and at the end). A run resumed from a checkpoint
 * equals the uninterrupted run bit for bit.
 *
 * Config keys this version refuses for training (loudly, naming the key):
 * dataset = synth-absent and absent_fraction > 0 (per-example masks are
 * not built yet: the model is built over one lattice). mixer = attention uses 4 heads when they divide
 * the width, else 1, and is not causal.
 */
#ifndef TD_TRAIN_H
#define TD_TRAIN_H

#include <stdint.h>

#include "config.h"

#define TD_TRAIN_DATA_STREAM UINT64_C(0x44415441) /* "DATA": the training order */

typedef struct {
	const char *out_dir; /* the run directory (created); required for td_train */
	const char *resume;  /* a checkpoint to continue from, or NULL */
	int quiet;	     /* 1: no progress lines on stdout */
	int64_t stop_after;  /* stop after this many steps done (checkpointing); 0: run to the end */
} td_train_opts;

#define TD_TRAIN_OPTS_INIT {NULL, NULL, 0, 0}

/*
 * Trains as cfg says. Returns 0, or a TD_E* code with the reason in
 * td_error_last(): a config this version cannot honour, data that cannot
 * be read, a checkpoint of another model or config, or two log windows in
 * a row without a finite step (TD_ESTATE: the run stopped loudly).
 */
int td_train(const td_config *cfg, const td_train_opts *opts);

/*
 * FNV-1a 64 of the initial weights' bytes for cfg, without training: the
 * seed audit's probe.
 */
int td_train_hash(uint64_t *out, const td_config *cfg);

/* What an evaluation found. */
typedef struct {
	double loss, accuracy;
	int64_t examples; /* counted while reading */
} td_train_eval_result;

/*
 * Evaluates the weights of a checkpoint (its own config snapshot decides
 * the model and data). Caller passes *out.
 */
int td_train_eval_checkpoint(td_train_eval_result *out, const char *checkpoint);

#endif
