/*
 * synth.c - synthetic task families (see synth.h).
 *
 * Must never keep state between calls or draw from a stream another module
 * may use: an example is a pure function of (family, seed, index), and the
 * train/eval disjointness the audits rely on is only as good as that.
 */
#include "synth.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../base/error.h"
#include "../base/hash.h"
#include "rng.h"

#define STREAM_TAG (UINT64_C(0x5359) << 48) /* "SY": synthetic data */
#define SIDE 8				    /* row and absent: 8x8 */
#define TSTEPS 16			    /* time: 16 steps ... */
#define TWIDTH 16			    /* ... of 16 cells */
#define ABSENT_P 0.3			    /* absent family: P(cell absent) */

/* What a draw is for; part of the draw number. */
enum { P_NOISE, P_MARKER, P_MASK, P_TIMES };

static const td_synth_info infos[TD_SYNTH_N_FAMILIES] = {
    {"row", 2, {SIDE, SIDE}, {"h", "w"}, -1, SIDE},
    {"absent", 2, {SIDE, SIDE}, {"h", "w"}, -1, 4},
    {"time", 2, {TSTEPS, TWIDTH}, {"t", "x"}, 0, 3},
};

const td_synth_info *td_synth_info_of(td_synth_family f)
{
	return (unsigned)f < TD_SYNTH_N_FAMILIES ? &infos[f] : NULL;
}

int td_synth_family_named(td_synth_family *out, const char *name)
{
	for (int f = 0; f < TD_SYNTH_N_FAMILIES; f++)
		if (name && strcmp(name, infos[f].name) == 0) {
			*out = (td_synth_family)f;
			return 0;
		}
	return TD_FAIL(TD_EINVAL,
		       "no synthetic family is named '%s'; the families are row, absent, time",
		       name ? name : "(null)");
}

/* Draw k of the given purpose for example ex: uniform in (0, 1). */
static double draw(const td_synth_example *ex, unsigned purpose, uint64_t k)
{
	uint64_t n = (uint64_t)ex->family << 40 | (uint64_t)purpose << 32 | k;

	return td_rng_uniform(ex->seed, STREAM_TAG | ex->index, n);
}

/* floor(u * n) for a draw u in (0, 1): a uniform integer in 0..n-1. */
static size_t pick(const td_synth_example *ex, unsigned purpose, uint64_t k, size_t n)
{
	return (size_t)(draw(ex, purpose, k) * (double)n);
}

static void gen_row(td_synth_example *ex)
{
	size_t r = pick(ex, P_MARKER, 0, SIDE), c = pick(ex, P_MARKER, 1, SIDE);

	for (size_t i = 0; i < ex->n_cells; i++)
		ex->x[i] = (td_real)(0.5 * draw(ex, P_NOISE, i));
	ex->x[r * SIDE + c] = 1;
}

static void gen_absent(td_synth_example *ex)
{
	size_t n_present = 0;

	for (size_t i = 0; i < ex->n_cells; i++) {
		ex->mask[i] = draw(ex, P_MASK, i) >= ABSENT_P;
		n_present += ex->mask[i];
	}
	if (n_present == 0)
		ex->mask[pick(ex, P_MASK, ex->n_cells, ex->n_cells)] = 1;
	for (size_t i = 0; i < ex->n_cells; i++)
		ex->x[i] = ex->mask[i] ? (td_real)(2 * draw(ex, P_NOISE, i) - 1) : 0;
}

static void gen_time(td_synth_example *ex)
{
	long v = (long)pick(ex, P_MARKER, 0, 3) - 1;
	long p0 = (long)pick(ex, P_MARKER, 1, TWIDTH);

	for (size_t i = 0; i < ex->n_cells; i++)
		ex->x[i] = (td_real)(0.3 * draw(ex, P_NOISE, i));
	for (long t = 0; t < TSTEPS; t++) {
		long p = ((p0 + v * t) % TWIDTH + TWIDTH) % TWIDTH;

		ex->x[(size_t)(t * TWIDTH + p)] = 1;
		ex->times[t] = (double)t + 0.5 * draw(ex, P_TIMES, (uint64_t)t);
	}
}

/* Index of the largest x[i] with mask[i] set (mask NULL: all); the first on a tie. */
static size_t argmax_present(const td_real *x, const uint8_t *mask, size_t n)
{
	size_t best = SIZE_MAX;

	for (size_t i = 0; i < n; i++)
		if ((!mask || mask[i]) && (best == SIZE_MAX || x[i] > x[best]))
			best = i;
	return best;
}

/* The marker's velocity from its positions at t = 0 and t = 1, as a label 0..2. */
static int time_label(const td_real *x)
{
	size_t p0 = argmax_present(x, NULL, TWIDTH);
	size_t p1 = argmax_present(x + TWIDTH, NULL, TWIDTH);
	size_t d = (p1 + TWIDTH - p0) % TWIDTH;

	return d == 0 ? 1 : d == 1 ? 2 : d == TWIDTH - 1 ? 0 : -1;
}

int td_synth_label(int *out, td_synth_family f, const td_real *x, const uint8_t *mask)
{
	size_t m;

	switch (f) {
	case TD_SYNTH_ROW:
		*out = (int)(argmax_present(x, NULL, SIDE * SIDE) / SIDE);
		return 0;
	case TD_SYNTH_ABSENT:
		m = argmax_present(x, mask, SIDE * SIDE);
		if (m == SIZE_MAX)
			return TD_FAIL(TD_EINVAL, "the mask has no present cell; no label");
		*out = 2 * (m / SIDE >= SIDE / 2) + (m % SIDE >= SIDE / 2);
		return 0;
	case TD_SYNTH_TIME:
		*out = time_label(x);
		if (*out < 0)
			return TD_FAIL(TD_EINVAL,
				       "the marker moves by more than one cell; no label");
		return 0;
	case TD_SYNTH_N_FAMILIES:
		break;
	}
	return TD_FAIL(TD_EINVAL, "family %d is not a synthetic family", (int)f);
}

/* An example of family f with its buffers allocated, every cell present. */
static int example_alloc(td_synth_example **out, td_synth_family f)
{
	const td_synth_info *info = &infos[f];
	td_synth_example *ex = calloc(1, sizeof *ex);

	*out = NULL;
	if (!ex)
		return TD_FAIL(TD_ENOMEM, "no memory for an example");
	ex->family = f;
	ex->n_cells = info->shape[0] * info->shape[1];
	ex->n_times = info->time_axis < 0 ? 0 : info->shape[info->time_axis];
	ex->x = calloc(ex->n_cells, sizeof *ex->x);
	ex->mask = malloc(ex->n_cells);
	ex->times = ex->n_times ? calloc(ex->n_times, sizeof *ex->times) : NULL;
	if (!ex->x || !ex->mask || (ex->n_times && !ex->times)) {
		size_t n = ex->n_cells;

		td_synth_example_free(ex);
		return TD_FAIL(TD_ENOMEM, "no memory for an example of %zu cells", n);
	}
	memset(ex->mask, 1, ex->n_cells);
	*out = ex;
	return 0;
}

int td_synth_example_new(td_synth_example **out, td_synth_family family, uint64_t seed,
			 uint64_t index)
{
	td_synth_example *ex;
	int err;

	*out = NULL;
	if ((unsigned)family >= TD_SYNTH_N_FAMILIES)
		return TD_FAIL(TD_EINVAL, "family %d is not a synthetic family", (int)family);
	if (index >= TD_SYNTH_INDEX_LIMIT)
		return TD_FAIL(TD_EINVAL, "index %llu is at or above 2^48",
			       (unsigned long long)index);
	err = example_alloc(&ex, family);
	if (err)
		return err;
	ex->seed = seed, ex->index = index;
	if (family == TD_SYNTH_ROW)
		gen_row(ex);
	else if (family == TD_SYNTH_ABSENT)
		gen_absent(ex);
	else
		gen_time(ex);
	ex->has_target = 1;
	err = td_synth_label(&ex->target, family, ex->x,
			     ex->mask); /* cannot fail: a bug if it does */
	if (err) {
		td_synth_example_free(ex);
		return err;
	}
	*out = ex;
	return 0;
}

void td_synth_example_free(td_synth_example *ex)
{
	if (!ex)
		return;
	free(ex->x);
	free(ex->mask);
	free(ex->times);
	free(ex);
}

uint64_t td_synth_content_hash(const td_synth_example *ex)
{
	uint64_t h = TD_FNV1A64_OFFSET;
	uint64_t head[3] = {(uint64_t)ex->family, ex->n_cells, ex->n_times};

	h = td_fnv1a64(h, head, sizeof head);
	h = td_fnv1a64(h, ex->x, ex->n_cells * sizeof *ex->x);
	h = td_fnv1a64(h, ex->mask, ex->n_cells);
	if (ex->times)
		h = td_fnv1a64(h, ex->times, ex->n_times * sizeof *ex->times);
	return h;
}

int td_synth_example_lattice(td_lattice **out, const td_synth_example *ex)
{
	const td_synth_info *info = td_synth_info_of(ex->family);
	td_lattice_spec s = TD_LATTICE_SPEC_INIT;

	*out = NULL;
	if (!info)
		return TD_FAIL(TD_EINVAL, "family %d is not a synthetic family", (int)ex->family);
	s.rank = info->rank, s.shape = info->shape, s.names = info->axes;
	s.time_axis = info->time_axis, s.mask = ex->mask, s.mask_len = ex->n_cells;
	return td_lattice_new(out, &s);
}

int td_synth_ranges(td_synth_range *train, td_synth_range *eval, uint64_t n_train, uint64_t n_eval)
{
	if (n_train == 0 || n_eval == 0)
		return TD_FAIL(TD_EINVAL, "n_train %llu and n_eval %llu must both be at least 1",
			       (unsigned long long)n_train, (unsigned long long)n_eval);
	if (n_train > TD_SYNTH_EVAL_FIRST)
		return TD_FAIL(TD_EINVAL,
			       "n_train %llu would run into the evaluation range at 2^40",
			       (unsigned long long)n_train);
	if (n_eval > TD_SYNTH_INDEX_LIMIT - TD_SYNTH_EVAL_FIRST)
		return TD_FAIL(TD_EINVAL, "n_eval %llu would run past index 2^48",
			       (unsigned long long)n_eval);
	train->first = 0, train->count = n_train;
	eval->first = TD_SYNTH_EVAL_FIRST, eval->count = n_eval;
	return 0;
}

/* --- disjointness ------------------------------------------------------- */

/* What the overlap checks compare: the id and the content hash. */
typedef struct {
	uint64_t hash, seed, index;
	int family;
} entry;

static int cmp_u64(uint64_t a, uint64_t b)
{
	return (a > b) - (a < b);
}

static int cmp_id(const void *pa, const void *pb)
{
	const entry *a = pa, *b = pb;

	if (a->family != b->family)
		return (a->family > b->family) - (a->family < b->family);
	if (a->seed != b->seed)
		return cmp_u64(a->seed, b->seed);
	return cmp_u64(a->index, b->index);
}

static int cmp_hash(const void *pa, const void *pb)
{
	return cmp_u64(((const entry *)pa)->hash, ((const entry *)pb)->hash);
}

static entry entry_of(const td_synth_example *ex)
{
	entry e = {td_synth_content_hash(ex), ex->seed, ex->index, (int)ex->family};

	return e;
}

/* "family:seed:index" */
static const char *id_text(char *buf, size_t n, const entry *e)
{
	const td_synth_info *info = td_synth_info_of((td_synth_family)e->family);

	snprintf(buf, n, "%s:%llu:%llu", info ? info->name : "?", (unsigned long long)e->seed,
		 (unsigned long long)e->index);
	return buf;
}

/* The training set, sorted twice: by id and by content hash. */
typedef struct {
	entry *by_id, *by_hash;
	size_t n;
} train_index;

static int index_alloc(train_index *t, size_t n)
{
	t->n = n;
	t->by_id = n <= SIZE_MAX / sizeof(entry) ? malloc(n * sizeof(entry)) : NULL;
	t->by_hash = n <= SIZE_MAX / sizeof(entry) ? malloc(n * sizeof(entry)) : NULL;
	if (!t->by_id || !t->by_hash)
		return TD_FAIL(TD_ENOMEM, "no memory to index %zu training examples", n);
	return 0;
}

static void index_sort(train_index *t)
{
	memcpy(t->by_hash, t->by_id, t->n * sizeof(entry));
	qsort(t->by_id, t->n, sizeof(entry), cmp_id);
	qsort(t->by_hash, t->n, sizeof(entry), cmp_hash);
}

static void index_free(train_index *t)
{
	free(t->by_id);
	free(t->by_hash);
}

/* Refuses e if its id or its content is in the training index. */
static int check_one(const train_index *t, const entry *e)
{
	char a[96], b[96];
	const entry *hit = bsearch(e, t->by_id, t->n, sizeof(entry), cmp_id);

	if (hit)
		return TD_FAIL(
		    TD_EINVAL,
		    "training example %s and evaluation example %s are the same example; "
		    "draw evaluation from a disjoint range",
		    id_text(a, sizeof a, hit), id_text(b, sizeof b, e));
	hit = bsearch(e, t->by_hash, t->n, sizeof(entry), cmp_hash);
	if (hit)
		return TD_FAIL(
		    TD_EINVAL,
		    "training example %s and evaluation example %s have the same content "
		    "(hash %016llx); the evaluation would score a training example",
		    id_text(a, sizeof a, hit), id_text(b, sizeof b, e),
		    (unsigned long long)e->hash);
	return 0;
}

int td_synth_check_disjoint(const td_synth_example *const *train, size_t n_train,
			    const td_synth_example *const *eval, size_t n_eval)
{
	train_index t = {NULL, NULL, 0};
	int err = index_alloc(&t, n_train);

	for (size_t i = 0; !err && i < n_train; i++)
		t.by_id[i] = entry_of(train[i]);
	if (!err)
		index_sort(&t);
	for (size_t i = 0; !err && i < n_eval; i++) {
		entry e = entry_of(eval[i]);

		err = check_one(&t, &e);
	}
	index_free(&t);
	return err;
}

/* The entry of example index of family with seed, generated. */
static int generated_entry(entry *out, td_synth_family family, uint64_t seed, uint64_t index)
{
	td_synth_example *ex;
	int err = td_synth_example_new(&ex, family, seed, index);

	if (!err)
		*out = entry_of(ex);
	td_synth_example_free(ex);
	return err;
}

static int check_ranges_apart(td_synth_family family, uint64_t seed, td_synth_range train,
			      td_synth_range eval)
{
	uint64_t first;
	char a[96];
	entry e;

	if (train.first < eval.first + eval.count && eval.first < train.first + train.count) {
		first = train.first > eval.first ? train.first : eval.first;
		e.family = (int)family, e.seed = seed, e.index = first;
		return TD_FAIL(
		    TD_EINVAL,
		    "training example %s and evaluation example %s are the same example: "
		    "the ranges [%llu, +%llu) and [%llu, +%llu) overlap",
		    id_text(a, sizeof a, &e), a, (unsigned long long)train.first,
		    (unsigned long long)train.count, (unsigned long long)eval.first,
		    (unsigned long long)eval.count);
	}
	if (train.count > SIZE_MAX)
		return TD_FAIL(TD_ENOMEM, "%llu training examples cannot be indexed here",
			       (unsigned long long)train.count);
	return 0;
}

int td_synth_check_split(td_synth_family family, uint64_t seed, td_synth_range train,
			 td_synth_range eval)
{
	train_index t = {NULL, NULL, 0};
	int err = check_ranges_apart(family, seed, train, eval);

	if (!err)
		err = index_alloc(&t, (size_t)train.count);
	for (size_t i = 0; !err && i < t.n; i++)
		err = generated_entry(&t.by_id[i], family, seed, train.first + i);
	if (!err)
		index_sort(&t);
	for (uint64_t i = 0; !err && i < eval.count; i++) {
		entry e;

		err = generated_entry(&e, family, seed, eval.first + i);
		if (!err)
			err = check_one(&t, &e);
	}
	index_free(&t);
	return err;
}

/* --- batches and series ------------------------------------------------- */

/* Refuses a set of examples that cannot be one batch. */
static int check_batchable(const td_synth_example *const *ex, size_t n)
{
	char a[96], b[96];

	if (n == 0)
		return TD_FAIL(TD_EINVAL, "a batch needs at least one example");
	for (size_t i = 1; i < n; i++) {
		entry e0 = entry_of(ex[0]), ei = entry_of(ex[i]);

		if (ex[i]->family != ex[0]->family || ex[i]->n_cells != ex[0]->n_cells ||
		    ex[i]->n_times != ex[0]->n_times)
			return TD_FAIL(TD_EINVAL,
				       "examples 0 (%s) and %zu (%s) differ in family or size",
				       id_text(a, sizeof a, &e0), i, id_text(b, sizeof b, &ei));
		if (!ex[i]->has_target != !ex[0]->has_target)
			return TD_FAIL(
			    TD_EINVAL,
			    "example 0 (%s) %s a target but example %zu (%s) %s; a batch is "
			    "all labelled or all unlabelled",
			    id_text(a, sizeof a, &e0), ex[0]->has_target ? "carries" : "lacks", i,
			    id_text(b, sizeof b, &ei),
			    ex[i]->has_target ? "carries one" : "does not");
	}
	return 0;
}

static int batch_alloc(td_synth_batch *b)
{
	b->index = calloc(b->n, sizeof *b->index);
	b->x = calloc(b->n * b->n_cells, sizeof *b->x);
	b->mask = calloc(b->n * b->n_cells, 1);
	b->times = b->n_times ? calloc(b->n * b->n_times, sizeof *b->times) : NULL;
	b->target = b->has_target ? calloc(b->n, sizeof *b->target) : NULL;
	if (!b->index || !b->x || !b->mask || (b->n_times && !b->times) ||
	    (b->has_target && !b->target))
		return TD_FAIL(TD_ENOMEM, "no memory for a batch of %zu examples", b->n);
	return 0;
}

int td_synth_batch_new(td_synth_batch **out, const td_synth_example *const *ex, size_t n)
{
	td_synth_batch *b;
	int err = check_batchable(ex, n);

	*out = NULL;
	if (err)
		return err;
	b = calloc(1, sizeof *b);
	if (!b)
		return TD_FAIL(TD_ENOMEM, "no memory for a batch");
	b->family = ex[0]->family, b->n = n, b->n_cells = ex[0]->n_cells;
	b->n_times = ex[0]->n_times, b->has_target = ex[0]->has_target != 0;
	err = batch_alloc(b);
	for (size_t i = 0; !err && i < n; i++) {
		b->index[i] = ex[i]->index;
		memcpy(b->x + i * b->n_cells, ex[i]->x, b->n_cells * sizeof *b->x);
		memcpy(b->mask + i * b->n_cells, ex[i]->mask, b->n_cells);
		if (b->n_times)
			memcpy(b->times + i * b->n_times, ex[i]->times,
			       b->n_times * sizeof *b->times);
		if (b->has_target)
			b->target[i] = ex[i]->target;
	}
	if (err) {
		td_synth_batch_free(b);
		return err;
	}
	*out = b;
	return 0;
}

void td_synth_batch_free(td_synth_batch *b)
{
	if (!b)
		return;
	free(b->index);
	free(b->x);
	free(b->mask);
	free(b->times);
	free(b->target);
	free(b);
}

int td_synth_split_at_time(size_t *out, const double *times, size_t n, double t)
{
	size_t k = 0;

	if (isnan(t))
		return TD_FAIL(TD_EINVAL, "the split time is NaN");
	for (size_t i = 0; i < n; i++) {
		if (isnan(times[i]))
			return TD_FAIL(TD_EINVAL, "time %zu is NaN", i);
		if (i > 0 && !(times[i] > times[i - 1]))
			return TD_FAIL(TD_EINVAL,
				       "times are not strictly increasing: time %zu is %.17g after "
				       "time %zu = %.17g; sort the series before splitting it",
				       i, times[i], i - 1, times[i - 1]);
		k += times[i] < t;
	}
	*out = k;
	return 0;
}
