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
 * checkpoint_every steps and at the end), and the manifests train.jsonl
 * and eval.jsonl: one {"id":...,"hash":...} line per example the run read
 * for training, and per example of the evaluation set (docs/tdtrain.md).
 * A run resumed from a checkpoint equals the uninterrupted run bit for
 * bit.
 *
 * Config keys this version refuses for training (loudly, naming the key):
 * device = cuda where the build or the machine has no GPU (device.h),
 * and for a model the GPU path does not compute yet (xmodel.h says which);
 * dataset = synth-absent or absent_fraction > 0 with composition
 * axial_kernel or flatten (absent cells per example are built for the scan
 * family only); absent_fraction > 0 with a synthetic dataset. mixer =
 * attention uses 4 heads when they divide the width, else 1, and is not
 * causal.
 */
#ifndef TD_TRAIN_H
#define TD_TRAIN_H

#include <stddef.h>
#include <stdint.h>

#include "config.h"
#include "exec.h"
#include "real.h"

#define TD_TRAIN_DATA_STREAM UINT64_C(0x44415441) /* "DATA": the training order */

typedef struct {
	const char *out_dir; /* the run directory (created); required for td_train */
	const char *resume;  /* a checkpoint to continue from, or NULL */
	int quiet;	     /* 1: no progress lines on stdout */
	int64_t stop_after;  /* stop after this many steps done (checkpointing); 0: run to the end */
	/*
	 * The executor the steps run on (xtrain.h), for tests: td_exec_host()
	 * gives the CPU run bit for bit through the GPU's code path. NULL: the
	 * config's device decides (cpu: the core; cuda: the GPU's executor).
	 */
	const td_exec *exec;
	/* Where Debian's Fashion-MNIST files are read (NULL: core/idx.h's TD_FMNIST_DIR). */
	const char *fmnist_dir;
} td_train_opts;

#define TD_TRAIN_OPTS_INIT                                                                         \
	{                                                                                          \
		0                                                                                  \
	}

#define TD_TRAIN_MAX_CLASSES 64

/*
 * The loss of one example: its logits are the mean of the per-cell
 * outputs y [n_cells][k] over the cells with present[i] != 0 (the count
 * is this example's own), and the loss is the softmax cross-entropy
 * against label. Writes dy [n_cells][k] = scale * dL/dy (0 at absent
 * cells) and the arg max of the logits in *best. An example with no
 * present cell has logits 0. k <= TD_TRAIN_MAX_CLASSES.
 */
double td_train_xent(td_real *dy, int *best, const td_real *y, const uint8_t *present,
		     size_t n_cells, size_t k, int label, double scale);


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
	uint64_t content; /* FNV-1a 64 over the scored examples' manifest hashes, in order */
} td_train_eval_result;

/*
 * Evaluates the weights of a checkpoint (its own config snapshot decides
 * the model and data) on device ("cpu" or "cuda"; NULL: the snapshot's
 * device, cpu when it has none). Caller passes *out.
 */
int td_train_eval_checkpoint(td_train_eval_result *out, const char *checkpoint,
			     const char *device);

#endif
