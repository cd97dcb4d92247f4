/*
 * xtrain.c - training steps on an executor (see xtrain.h).
 *
 * Executor memory, carved from the extra bytes of the model's one
 * allocation (td_xmodel_new_pooled; B = max_batch, C = cells, K =
 * classes, P = parameters):
 *   bx [B][C], bemask [B][C], labels [B]   the batch, uploaded per step
 *   stage [2], host memory of the upload kind (exec.h's host_alloc): the
 *     batch is copied into one and uploaded from it, so the upload is
 *     queued; the next batch goes to the other, and a slot is reused only
 *     once its upload is done (wait_mark), which waits only when the host
 *     is two steps ahead of the device
 *   y, dy [B][C][K], loss [B], best [B], present [B][C]   the loss's
 *   mask [C]                               the lattice's
 *   acc [2][3]                             the training and evaluation sums
 *   m, v [P], st, part and bad [parts]     the optimizer's
 *   bc1, bc2 [total_steps + 1]             1 - beta^t, made on the host
 */
#include "xtrain.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../base/error.h"
#include "../kernels/ops.h"
#include "block_int.h"
#include "train.h"
#include "xmodel.h"

struct td_xtrain {
	const td_exec *x;
	td_xmodel *xm;
	td_adamw_opts o;
	int masked;
	size_t n_cells, k, max_batch, n, n_parts;
	int64_t s;	/* steps queued: the optimizer's s as the host counts it */
	int64_t read_s; /* s at the last read */
	td_real *bx, *y, *dy, *m, *v;
	uint8_t *bemask, *present, *mask;
	int *labels, *best;
	double *loss, *acc, *part, *bc1, *bc2;
	size_t *bad;
	td_op_opt_state *st;
	unsigned char *stage[2]; /* x [B][C] td_real, labels [B] int, emask [B][C] */
	int slot;		 /* the stage the next batch goes to */
};

/* The buffers, taken from p (counted while its base is NULL). */
static void take_buffers(td_xtrain *xt, td_exec_pool *p)
{
	const size_t b = xt->max_batch, c = xt->n_cells, k = xt->k, t = (size_t)xt->o.total_steps;

	td_exec_take(p, &xt->bx, b * c, sizeof *xt->bx), td_exec_take(p, &xt->bemask, b * c, 1);
	td_exec_take(p, &xt->labels, b, sizeof *xt->labels);
	td_exec_take(p, &xt->y, b * c * k, sizeof *xt->y);
	td_exec_take(p, &xt->dy, b * c * k, sizeof *xt->dy);
	td_exec_take(p, &xt->loss, b, sizeof *xt->loss);
	td_exec_take(p, &xt->best, b, sizeof *xt->best);
	td_exec_take(p, &xt->present, b * c, 1), td_exec_take(p, &xt->mask, c, 1);
	td_exec_take(p, &xt->acc, 6, sizeof *xt->acc);
	td_exec_take(p, &xt->m, xt->n, sizeof *xt->m), td_exec_take(p, &xt->v, xt->n, sizeof *xt->v);
	td_exec_take(p, &xt->st, 1, sizeof *xt->st);
	td_exec_take(p, &xt->part, xt->n_parts, sizeof *xt->part);
	td_exec_take(p, &xt->bad, xt->n_parts, sizeof *xt->bad);
	td_exec_take(p, &xt->bc1, t + 1, sizeof *xt->bc1);
	td_exec_take(p, &xt->bc2, t + 1, sizeof *xt->bc2);
}

/*
 * The model and these buffers in one pool, the upload stages, and what is
 * uploaded once: the mask and the tables of 1 - beta^t.
 */
static int build(td_xtrain *xt, td_model *m)
{
	const size_t b = xt->max_batch, c = xt->n_cells, steps = (size_t)xt->o.total_steps;
	const size_t stage = b * c * sizeof(td_real) + b * sizeof(int) + b * c;
	td_exec_pool pool = {0};
	uint8_t *mask = NULL;
	double *bc = malloc(2 * (steps + 1) * sizeof *bc);
	int err = bc ? 0 : TD_FAIL(TD_ENOMEM, "out of memory for %zu steps' bias corrections", steps);

	take_buffers(xt, &pool);
	if (!err && pool.used == SIZE_MAX)
		err = TD_FAIL(TD_EINVAL, "the training step's executor memory for batches of %zu "
					 "and %zu steps does not fit in a size_t",
			      b, steps);
	if (!err && !(err = td_xmodel_new_pooled(&xt->xm, xt->x, m, pool.used))) {
		pool = (td_exec_pool){td_xmodel_extra(xt->xm), 0};
		take_buffers(xt, &pool);
	}
	if (!err && !(err = xt->x->host_alloc(xt->x, &xt->stage[0], stage)) &&
	    !(err = xt->x->host_alloc(xt->x, &xt->stage[1], stage)) &&
	    !(err = td_lattice_mask(td_model_block(m, 0)->lat, &mask)))
		err = xt->x->upload(xt->x, xt->mask, mask, c);
	for (size_t t = 0; bc && t <= steps; t++) { /* adamw.c's update, its pow */
		bc[t] = 1.0 - pow(xt->o.beta1, (double)t);
		bc[steps + 1 + t] = 1.0 - pow(xt->o.beta2, (double)t);
	}
	if (!err && !(err = xt->x->upload(xt->x, xt->bc1, bc, (steps + 1) * sizeof *bc)))
		err = xt->x->upload(xt->x, xt->bc2, bc + steps + 1, (steps + 1) * sizeof *bc);
	free(mask);
	free(bc);
	return err;
}

int td_xtrain_new(td_xtrain **out, const td_exec *x, td_model *m, const td_adamw_opts *o,
		  const td_adamw *opt, int masked)
{
	td_xtrain *xt;
	int err;

	*out = NULL;
	if (td_model_out(m) > TD_TRAIN_MAX_CLASSES)
		return TD_FAIL(TD_EINVAL, "%zu classes; the loss takes at most %d",
			       td_model_out(m), TD_TRAIN_MAX_CLASSES);
	if (!(xt = calloc(1, sizeof *xt)))
		return TD_FAIL(TD_ENOMEM, "out of memory for the executor's training state");
	xt->x = x, xt->o = *o, xt->masked = masked;
	xt->n_cells = td_lattice_n_cells(td_model_block(m, 0)->lat);
	xt->k = td_model_out(m), xt->max_batch = td_model_options(m)->max_batch;
	xt->n = td_model_n_params(m);
	xt->n_parts = x->norm_part ? (xt->n + x->norm_part - 1) / x->norm_part : 1;
	err = build(xt, m);
	if (!err)
		err = td_xtrain_load(xt, m, opt);
	if (!err && masked)
		err = td_xmodel_set_example_mask(xt->xm, xt->bemask);
	if (err) {
		td_xtrain_free(xt);
		return err;
	}
	*out = xt;
	return 0;
}

void td_xtrain_free(td_xtrain *xt)
{
	const td_exec *x;

	if (!xt)
		return;
	x = xt->x;
	x->host_release(x, xt->stage[0]), x->host_release(x, xt->stage[1]);
	td_xmodel_free(xt->xm);
	free(xt);
}

int td_xtrain_load(td_xtrain *xt, td_model *m, const td_adamw *opt)
{
	const size_t bytes = xt->n * sizeof(td_real);
	td_op_opt_state st;
	int err;

	memset(&st, 0, sizeof st);
	st.s = td_adamw_steps(opt), st.t = td_adamw_updates(opt), st.skips = td_adamw_skipped(opt);
	st.step.beta1 = xt->o.beta1, st.step.beta2 = xt->o.beta2, st.step.eps = xt->o.eps;
	xt->s = xt->read_s = st.s;
	if ((err = td_xmodel_upload_params(xt->xm, td_model_params(m))) ||
	    (err = xt->x->upload(xt->x, xt->m, td_adamw_m(opt), bytes)) ||
	    (err = xt->x->upload(xt->x, xt->v, td_adamw_v(opt), bytes)) ||
	    (err = xt->x->upload(xt->x, xt->st, &st, sizeof st)))
		return err;
	return xt->x->zero(xt->x, xt->acc, 6 * sizeof *xt->acc);
}

/* The batch into the next stage, and its upload queued from there. */
static int upload_batch(td_xtrain *xt, const td_real *x, const uint8_t *emask, const int *labels,
			size_t n)
{
	const td_exec *e = xt->x;
	const size_t c = xt->n_cells, b = xt->max_batch;
	const int k = xt->slot;
	td_real *sx = (td_real *)(void *)xt->stage[k];
	int *sl = (int *)(void *)(xt->stage[k] + b * c * sizeof *sx);
	uint8_t *se = (uint8_t *)(sl + b);
	int err = e->wait_mark(e, k);

	if (err)
		return err;
	memcpy(sx, x, n * c * sizeof *x), memcpy(sl, labels, n * sizeof *labels);
	if (xt->masked)
		memcpy(se, emask, n * c);
	if ((err = e->upload(e, xt->bx, sx, n * c * sizeof *x)) ||
	    (xt->masked && (err = e->upload(e, xt->bemask, se, n * c))) ||
	    (err = e->upload(e, xt->labels, sl, n * sizeof *labels)))
		return err;
	xt->slot ^= 1;
	return e->mark(e, k);
}

int td_xtrain_batch(td_xtrain *xt, const td_real *x, const uint8_t *emask, const int *labels,
		    size_t n, int train)
{
	const td_exec *e = xt->x;
	const size_t c = xt->n_cells;
	int err;

	if (n < 1 || n > xt->max_batch)
		return TD_FAIL(TD_EINVAL, "batch %zu is outside 1..%zu (the model's max_batch)", n,
			       xt->max_batch);
	if (train && xt->s >= xt->o.total_steps)
		return TD_FAIL(TD_ESTATE, "step %lld is past the schedule's %lld steps",
			       (long long)xt->s + 1, (long long)xt->o.total_steps);
	if ((err = upload_batch(xt, x, emask, labels, n)) ||
	    (err = td_xmodel_forward(xt->xm, xt->y, xt->bx, n)) ||
	    (err = e->xent(e, xt->dy, xt->acc + (train ? 0 : 3), xt->loss, xt->best, xt->present,
			   xt->y, xt->labels, xt->mask, xt->masked ? xt->bemask : NULL, n, c, xt->k)))
		return err;
	if (!train)
		return 0;
	if ((err = td_xmodel_zero_grads(xt->xm)) ||
	    (err = td_xmodel_backward(xt->xm, NULL, xt->dy, n)) ||
	    (err = e->opt_step(e, xt->st, td_xmodel_params(xt->xm), xt->m, xt->v,
			       td_xmodel_grads(xt->xm), xt->n, xt->part, xt->bad,
			       td_adamw_lr(&xt->o, xt->s), xt->o.clip, xt->o.weight_decay, xt->bc1,
			       xt->bc2)))
		return err;
	xt->s++;
	return 0;
}

int td_xtrain_zero_sums(td_xtrain *xt, int train)
{
	return xt->x->zero(xt->x, xt->acc + (train ? 0 : 3), 3 * sizeof *xt->acc);
}

/* Counts the skips the device kept (and any past them) as td_adamw_step would have. */
static int count_skips(const td_op_opt_state *st, int64_t from, td_counters *c)
{
	const int64_t kept = st->unread < TD_OPS_SKIPS_KEPT ? st->unread : TD_OPS_SKIPS_KEPT;
	int err = 0;

	for (int64_t i = 0; !err && i < kept; i++)
		err = td_adamw_count_skip(c, st->skip[i].s, st->skip[i].index, st->skip[i].nan,
					  st->skip[i].norm);
	for (int64_t i = kept; !err && i < st->unread; i++)
		err = td_counter_addf(c, "nan_step_skipped",
				      "a step of %lld..%lld (skip %lld of %lld there; the executor "
				      "describes the first %d)",
				      (long long)from + 1, (long long)st->s, (long long)i + 1,
				      (long long)st->unread, TD_OPS_SKIPS_KEPT);
	return err;
}

int td_xtrain_read(td_xtrain *xt, td_xtrain_read_out *out, td_counters *c, td_firewall *fw)
{
	double acc[6];
	td_op_opt_state st;
	int err;

	if ((err = xt->x->download(xt->x, acc, xt->acc, sizeof acc)) ||
	    (err = xt->x->download(xt->x, &st, xt->st, sizeof st)))
		return err;
	if (st.s != xt->s)
		return TD_FAIL(TD_ESTATE, "the executor took %lld steps; %lld were queued",
			       (long long)st.s, (long long)xt->s);
	out->train = (td_xtrain_sums){acc[0], acc[1], acc[2]};
	out->eval = (td_xtrain_sums){acc[3], acc[4], acc[5]};
	out->steps = st.s, out->grad_norm = st.norm;
	out->lr = st.s > 0 ? td_adamw_lr(&xt->o, st.s - 1) : 0;
	if ((err = count_skips(&st, xt->read_s, c)))
		return err;
	for (int64_t s = xt->read_s; s < st.s; s++) /* the skips first: only the counts matter */
		td_firewall_step(fw, s + 1, s - xt->read_s >= st.unread);
	xt->read_s = st.s;
	if (!st.unread)
		return 0;
	st.unread = 0;
	return xt->x->upload(xt->x, xt->st, &st, sizeof st);
}

int td_xtrain_store(td_xtrain *xt, td_model *m, td_adamw *opt)
{
	const size_t bytes = xt->n * sizeof(td_real);
	td_real *mv = malloc(2 * bytes);
	td_op_opt_state st;
	int err = mv ? 0 : TD_FAIL(TD_ENOMEM, "out of memory for the optimizer's moments");

	if (!err && !(err = td_xmodel_download(xt->xm, td_model_params(m), NULL)) &&
	    !(err = xt->x->download(xt->x, mv, xt->m, bytes)) &&
	    !(err = xt->x->download(xt->x, mv + xt->n, xt->v, bytes)) &&
	    !(err = xt->x->download(xt->x, &st, xt->st, sizeof st)))
		err = td_adamw_set_state(opt, st.s, st.t, st.skips, mv, mv + xt->n);
	free(mv);
	return err;
}
