/*
 * block.c - the block object: option checks, the mask, the mixer, the
 * workspace and the chunked mixer calls (see block.h; the families are in
 * family_*.c).
 *
 * Must never: allocate after td_block_new, or accept a chunk of 0 and fail
 * later somewhere that does not mention chunk.
 */
#include "block.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "block_int.h"
#include "../base/error.h"
#include "pool.h"

static const td_block_ops *ops_for(td_block_family f)
{
	switch (f) {
	case TD_BLOCK_SCAN:
		return &td_family_scan_ops;
	case TD_BLOCK_KERNEL:
		return &td_family_kernel_ops;
	case TD_BLOCK_FLATTEN:
		return &td_family_flatten_ops;
	}
	return NULL;
}

/* The option checks every family shares, then the scan-only ones. */
static int check_opts(const td_lattice *lat, const td_block_opts *o)
{
	if (!ops_for(o->family))
		return TD_FAIL(TD_EINVAL,
			       "family %d is not a block family; use TD_BLOCK_SCAN, _KERNEL or "
			       "_FLATTEN",
			       (int)o->family);
	if (o->chunk < 1)
		return TD_FAIL(TD_EINVAL, "chunk is %zu; chunk is the number of lines per mixer "
					  "call and must be >= 1",
			       o->chunk);
	if (o->max_batch < 1)
		return TD_FAIL(TD_EINVAL, "max_batch is 0; a block needs room for 1 example");
	if (!(o->cancel >= 0 && o->cancel < 1))
		return TD_FAIL(TD_EINVAL, "cancel is %g; it is a fraction in [0, 1)", o->cancel);
	if (o->family != TD_BLOCK_SCAN)
		return 0;
	if (!o->axis || td_lattice_axis(lat, o->axis) < 0)
		return TD_FAIL(TD_EINVAL, "axis %s%s%s is not an axis of the lattice; a scan "
					  "block sweeps one of its axes",
			       o->axis ? "'" : "", o->axis ? o->axis : "(NULL)", o->axis ? "'" : "");
	if (o->mixer.reverse)
		return TD_FAIL(TD_EINVAL, "mixer.reverse is set; a scan block's direction is its "
					  "step's: set opts.reverse instead");
	return 0;
}

/* The mixer, the mask and the family's state; then the workspace. */
static int build(td_block *b)
{
	td_mixer_opts mo = b->o.mixer;
	int err;

	if (b->o.family == TD_BLOCK_SCAN)
		mo.reverse = b->o.reverse;
	if ((err = td_mixer_new(&b->mixer, &mo)) || (err = td_lattice_mask(b->lat, &b->mask)))
		return err;
	snprintf(b->group[0].name, sizeof b->group[0].name, "mixer");
	b->group[0].value = td_mixer_params(b->mixer);
	b->group[0].grad = td_mixer_grads(b->mixer);
	b->group[0].count = td_mixer_n_params(b->mixer);
	b->n_groups = 1;
	if ((err = b->ops->setup(b)))
		return err;
	/*
	 * calloc, not td_reals_alloc: on a 64-byte line the flatten conv
	 * model ran 30% slower (16.3 against 12.4 ms, 8 runs each), and no
	 * case was faster beyond the noise. Its time by the workspace's
	 * offset from a page (the model's on a line): 16 or 32 bytes, 11.5 to
	 * 12.2 ms; 0, 64, 128 ... 2048 bytes, 15 to 18 ms. Not understood; a
	 * guess is that the flatten gather's and scatter's copies between the
	 * model's buffers and the block's then collide in the store-to-load
	 * address check (4K aliasing).
	 */
	if (!(b->ws = calloc(b->ws_len ? b->ws_len : 1, sizeof *b->ws)))
		return TD_FAIL(TD_ENOMEM, "out of memory for a %zu-value block workspace",
			       b->ws_len);
	return 0;
}

int td_block_new(td_block **out, const td_lattice *lat, const td_block_opts *opts)
{
	td_block *b;
	int err;

	*out = NULL;
	if (!lat || !opts)
		return TD_FAIL(TD_EINVAL, "%s is NULL", !lat ? "lat" : "opts");
	if ((err = check_opts(lat, opts)))
		return err;
	if (!(b = calloc(1, sizeof *b)))
		return TD_FAIL(TD_ENOMEM, "out of memory for a block");
	b->o = *opts;
	if (opts->family == TD_BLOCK_SCAN) {
		snprintf(b->axis, sizeof b->axis, "%s", opts->axis);
		b->o.axis = b->axis;
	}
	b->lat = lat;
	b->ops = ops_for(opts->family);
	b->n_cells = td_lattice_n_cells(lat);
	b->width = opts->mixer.channels;
	if ((err = build(b))) {
		td_block_free(b);
		return err;
	}
	*out = b;
	return 0;
}

void td_block_free(td_block *b)
{
	if (!b)
		return;
	if (b->fam)
		b->ops->free_fam(b);
	for (size_t i = 0; i < b->n_groups; i++)
		if (b->owned[i]) {
			free(b->group[i].value);
			free(b->group[i].grad);
		}
	free(b->ws);
	free(b->mask);
	td_mixer_free(b->mixer);
	free(b);
}

td_block_family td_block_family_of(const td_block *b)
{
	return b->o.family;
}

size_t td_block_width(const td_block *b)
{
	return b->width;
}

td_mixer *td_block_mixer(const td_block *b)
{
	return b->mixer;
}

void td_block_init(td_block *b, uint64_t seed, uint64_t stream)
{
	td_mixer_init(b->mixer, seed, stream);
	if (b->ops->init)
		b->ops->init(b, seed, stream);
}

size_t td_block_n_groups(const td_block *b)
{
	return b->n_groups;
}

td_param_group td_block_group(const td_block *b, size_t i)
{
	td_param_group none = {"", NULL, NULL, 0};

	return i < b->n_groups ? b->group[i] : none;
}

void td_block_zero_grads(td_block *b)
{
	for (size_t i = 0; i < b->n_groups; i++)
		memset(b->group[i].grad, 0, b->group[i].count * sizeof(td_real));
}

int td_block_new_group(td_block *b, const char *name, size_t count, size_t *index)
{
	td_param_group *g = &b->group[b->n_groups];

	snprintf(g->name, sizeof g->name, "%s", name);
	g->value = calloc(count ? count : 1, sizeof *g->value);
	g->grad = calloc(count ? count : 1, sizeof *g->grad);
	g->count = count;
	b->owned[b->n_groups] = 1;
	*index = b->n_groups++;
	if (!g->value || !g->grad)
		return TD_FAIL(TD_ENOMEM, "out of memory for %zu %s parameters", count, name);
	return 0;
}

size_t td_block_n_params(const td_block *b)
{
	size_t n = 0;

	for (size_t i = 0; i < b->n_groups; i++)
		n += b->group[i].count;
	return n;
}

int td_block_use_slabs(td_block *b, td_real *params, td_real *grads)
{
	size_t at = b->group[0].count;
	int err;

	if ((err = td_mixer_use_slabs(b->mixer, params, grads)))
		return err;
	b->group[0].value = params, b->group[0].grad = grads;
	for (size_t i = 1; i < b->n_groups; i++) {
		td_param_group *g = &b->group[i];

		memcpy(params + at, g->value, g->count * sizeof *params);
		memcpy(grads + at, g->grad, g->count * sizeof *grads);
		if (b->owned[i]) {
			free(g->value);
			free(g->grad);
		}
		b->owned[i] = 0;
		g->value = params + at, g->grad = grads + at;
		at += g->count;
	}
	return 0;
}

/* The checks forward and backward share. */
static int check_call(const td_block *b, const void *out, const void *in, size_t batch)
{
	if (!out || !in)
		return TD_FAIL(TD_EINVAL, "%s is NULL", !out ? "the output" : "the input");
	if (batch < 1 || batch > b->o.max_batch)
		return TD_FAIL(TD_EINVAL, "batch %zu is outside 1..%zu (the block's max_batch)",
			       batch, b->o.max_batch);
	return 0;
}

int td_block_no_absent(const td_block *b)
{
	return td_lattice_n_present(b->lat) == b->n_cells && !b->emask;
}

/* Whether cell c of example e is present: on the lattice, and in the example's own mask if set. */
static int present(const td_block *b, size_t e, size_t c)
{
	return b->mask[c] && (!b->emask || b->emask[e * b->n_cells + c]);
}

/*
 * dst row i = src row i for i < len where cell + i is present in example
 * e, a stretch of consecutive present cells per memcpy; 0 where it is
 * absent: a selection, never a multiplication.
 */
static void select_rows(const td_block *b, size_t e, size_t cell, size_t len, size_t channels,
			td_real *dst, const td_real *src)
{
	for (size_t i = 0, j; i < len; i = j) {
		const int keep = present(b, e, cell + i);

		for (j = i + 1; j < len && present(b, e, cell + j) == keep;)
			j++;
		if (keep)
			memcpy(dst + i * channels, src + i * channels,
			       (j - i) * channels * sizeof *dst);
		else
			memset(dst + i * channels, 0, (j - i) * channels * sizeof *dst);
	}
}

/* One fold or unfold with selection; threads take ranges of examples. */
typedef struct {
	const td_block *b;
	const td_fold *f;
	size_t channels;
	const td_real *src;
	td_real *dst;
	int unfold;
} fold_job;

static int fold_examples(void *arg, size_t e0, size_t e1)
{
	const fold_job *j = arg;
	const size_t n = j->f->n_cells, ch = j->channels;
	const int dense = td_block_no_absent(j->b); /* select_rows would copy every run whole */

	for (size_t e = e0; e < e1; e++)
		for (const td_run *r = j->f->run; r < j->f->run + j->f->n_runs; r++) {
			const size_t cell = (e * n + r->cell) * ch, pos = (e * n + r->pos) * ch;
			td_real *dst = j->dst + (j->unfold ? cell : pos);
			const td_real *src = j->src + (j->unfold ? pos : cell);

			if (dense)
				memcpy(dst, src, r->len * ch * sizeof *dst);
			else
				select_rows(j->b, e, r->cell, r->len, ch, dst, src);
		}
	return 0;
}

int td_block_fold_select(const td_block *b, const td_fold *f, size_t batch, size_t channels,
			 const td_real *x, td_real *xf)
{
	fold_job j = {b, f, channels, x, xf, 0};
	int err = td_pool_ranges(b->o.mixer.threads, batch, fold_examples, &j);

	TD_REQUIRE(err == 0); /* fold_examples never fails, and the pool fails only where it does */
	return 0;
}

int td_block_unfold_select(const td_block *b, const td_fold *f, size_t batch, size_t channels,
			   const td_real *xf, td_real *x)
{
	fold_job j = {b, f, channels, xf, x, 1};
	int err = td_pool_ranges(b->o.mixer.threads, batch, fold_examples, &j);

	TD_REQUIRE(err == 0); /* as in td_block_fold_select */
	return 0;
}

int td_block_set_example_mask(td_block *b, const uint8_t *mask)
{
	if (mask && b->ops != &td_family_scan_ops)
		return TD_FAIL(TD_ENOTSUP, "absent cells per example: the %s family builds its masks "
					   "once from the lattice and cannot take them; use the scan "
					   "family (composition = axial_scan)",
			       b->ops->name);
	b->emask = mask;
	return 0;
}

int td_block_forward(td_block *b, td_real *y, const td_real *x, size_t batch)
{
	int err = check_call(b, y, x, batch);

	return err ? err : b->ops->forward(b, y, x, batch);
}

int td_block_backward(td_block *b, td_real *dx, const td_real *dy, size_t batch)
{
	int err = check_call(b, dx, dy, batch);

	return err ? err : b->ops->backward(b, dx, dy, batch);
}

/*
 * Lines per mixer call: chunk, or on lines of one step (a family's mixer
 * on every cell) chunk lattice lines' worth of cells, chunk times the
 * longest axis, so that such a call holds as many positions as chunk
 * lines along that axis would. (The kernel family's 25088 one-step lines
 * took 98 calls of 256 positions, each too small for its GEMMs to share
 * among threads: the kernel LRU block 7.9 -> 7.0 ms at 2 threads with
 * 7168 lines a call.)
 */
static size_t call_lines(const td_block *b, size_t length)
{
	size_t most = 1;

	for (int a = 0; length == 1 && a < td_lattice_rank(b->lat); a++)
		if (td_lattice_size(b->lat, a) > most)
			most = td_lattice_size(b->lat, a);
	return b->o.chunk > SIZE_MAX / most ? SIZE_MAX : b->o.chunk * most;
}

/* One chunk's workspace for calls over `lines` lines. */
static int chunk_ws(size_t *out, const td_block *b, size_t lines, size_t length)
{
	const size_t per = call_lines(b, length);

	return td_mixer_ws_size(out, b->mixer, lines < per ? lines : per, length);
}

int td_block_mix_ws(size_t *out, const td_block *b, size_t lines, size_t length)
{
	const size_t call = call_lines(b, length);
	size_t per, n_chunks = lines / call + (lines % call != 0);
	int err = chunk_ws(&per, b, lines, length);

	return err ? err : td_mixer_size_muladd(out, n_chunks, per, 0, "the chunked workspace");
}

/* Runs forward (dir 0) or backward (dir 1) chunk by chunk. */
static int mix(td_block *b, int dir, td_real *out, const td_real *in, size_t lines, size_t length,
	       td_real *mix_ws)
{
	const size_t step = length * b->width, call = call_lines(b, length);
	size_t per;
	int err = chunk_ws(&per, b, lines, length);

	for (size_t at = 0, k = 0; !err && at < lines; at += call, k++) {
		size_t n = lines - at < call ? lines - at : call;
		td_real *ws = mix_ws + k * per;

		err = dir ? td_mixer_backward(b->mixer, out + at * step, in + at * step, n, length,
					      ws, per)
			  : td_mixer_forward(b->mixer, out + at * step, in + at * step, n, length, ws,
					     per);
	}
	return err;
}

int td_block_mix_forward(td_block *b, td_real *y, const td_real *x, size_t lines, size_t length,
			 td_real *mix_ws)
{
	return mix(b, 0, y, x, lines, length, mix_ws);
}

int td_block_mix_backward(td_block *b, td_real *dx, const td_real *dy, size_t lines,
			  size_t length, td_real *mix_ws)
{
	return mix(b, 1, dx, dy, lines, length, mix_ws);
}
