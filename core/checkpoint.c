/*
 * checkpoint.c - writing and loading checkpoints (the layout is in
 * checkpoint.h).
 *
 * Must never write a checkpoint in place (td_file_write_atomic only), never
 * hand out anything from a file whose checksum, length or sections do not
 * check, and never accept a checkpoint of another model or config when the
 * caller says which one it expects.
 */
#include "checkpoint.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../base/error.h"
#include "../base/fileio.h"
#include "../base/hash.h"

#define NAME_LEN 16   /* bytes of a section name on disk */
#define N_SECTIONS 7

/* The sections of version 1, in file order. */
static const char *const section_names[N_SECTIONS] = {
    "signature", "weights", "optimizer", "step", "position", "config", "config_hash",
};

struct td_checkpoint {
	td_checkpoint_data d; /* points into the fields below */
	char *file;	      /* the whole file, read */
	td_real *weights;     /* [d.n_weights], decoded */
	char *signature, *config;
};

/* --- little-endian bytes ------------------------------------------------- */

static void put_le(unsigned char *p, uint64_t x, size_t n)
{
	for (size_t k = 0; k < n; k++)
		p[k] = (unsigned char)(x >> (8 * k));
}

static uint64_t get_le(const unsigned char *p, size_t n)
{
	uint64_t x = 0;

	for (size_t k = 0; k < n; k++)
		x |= (uint64_t)p[k] << (8 * k);
	return x;
}

static void put_real(unsigned char *p, td_real x)
{
	uint64_t bits = 0;

	memcpy(&bits, &x, sizeof x);
	put_le(p, bits, sizeof x);
}

static td_real get_real(const unsigned char *p)
{
	uint64_t bits = get_le(p, sizeof(td_real));
	td_real x;

	memcpy(&x, &bits, sizeof x);
	return x;
}

/* --- writing ------------------------------------------------------------- */

/* A byte sink: with p NULL it only measures. */
typedef struct {
	unsigned char *p;
	size_t len;
} sink;

/* Writes a section header for a section of len bytes; returns where its data goes. */
static unsigned char *section(sink *w, const char *name, size_t len)
{
	unsigned char *at = w->p ? w->p + w->len : NULL;

	if (at) {
		memset(at, 0, NAME_LEN);
		memcpy(at, name, strlen(name));
		put_le(at + NAME_LEN, (uint64_t)len, 8);
		at += NAME_LEN + 8;
	}
	w->len += NAME_LEN + 8 + len;
	return at;
}

static void section_bytes(sink *w, const char *name, const void *data, size_t len)
{
	unsigned char *at = section(w, name, len);

	if (at && len)
		memcpy(at, data, len);
}

static void section_u64s(sink *w, const char *name, const uint64_t *x, size_t n)
{
	unsigned char *at = section(w, name, 8 * n);

	for (size_t i = 0; at && i < n; i++)
		put_le(at + 8 * i, x[i], 8);
}

/* The payload: every section, in order. */
static void payload(sink *w, const td_checkpoint_data *d)
{
	uint64_t step = (uint64_t)d->step, pos[2] = {d->data_position, d->rng_counter};
	unsigned char *at;

	section_bytes(w, "signature", d->signature, strlen(d->signature));
	at = section(w, "weights", d->n_weights * sizeof(td_real));
	for (size_t i = 0; at && i < d->n_weights; i++)
		put_real(at + i * sizeof(td_real), d->weights[i]);
	section_bytes(w, "optimizer", d->optimizer, d->optimizer_len);
	section_u64s(w, "step", &step, 1);
	section_u64s(w, "position", pos, 2);
	section_bytes(w, "config", d->config_text, strlen(d->config_text));
	section_u64s(w, "config_hash", &d->config_hash, 1);
}

/* FNV-1a 64 over the header without its checksum field, then the payload. */
static uint64_t checksum(const unsigned char *file, size_t payload_len)
{
	uint64_t h = td_fnv1a64(TD_FNV1A64_OFFSET, file, 32);

	return td_fnv1a64(h, file + TD_CHECKPOINT_HEADER, payload_len);
}

static int check_data(const char *path, const td_checkpoint_data *d)
{
	if (!d->signature || !*d->signature || !d->weights || d->n_weights == 0 ||
	    !d->config_text || (d->optimizer_len && !d->optimizer))
		return TD_FAIL(TD_EINVAL,
			       "checkpoint %s: signature, weights, config text (and optimizer bytes "
			       "when optimizer_len > 0) are required",
			       path);
	if (d->step < 0)
		return TD_FAIL(TD_EINVAL, "checkpoint %s: step %lld is negative", path,
			       (long long)d->step);
	if (td_fnv1a64(TD_FNV1A64_OFFSET, d->config_text, strlen(d->config_text)) != d->config_hash)
		return TD_FAIL(TD_EINVAL,
			       "checkpoint %s: config_hash %016llx is not the hash of config_text; "
			       "pass td_config_hash of the same config",
			       path, (unsigned long long)d->config_hash);
	return 0;
}

int td_checkpoint_write(const char *path, const td_checkpoint_data *d)
{
	sink w = {NULL, 0};
	unsigned char *file;
	size_t size;
	int err = check_data(path, d);

	if (err)
		return err;
	payload(&w, d);
	size = TD_CHECKPOINT_HEADER + w.len;
	file = malloc(size);
	if (!file)
		return TD_FAIL(TD_ENOMEM, "no memory for the %zu-byte checkpoint %s", size, path);
	memcpy(file, TD_CHECKPOINT_MAGIC, 8);
	put_le(file + 8, TD_CHECKPOINT_VERSION, 4);
	put_le(file + 12, sizeof(td_real), 4);
	put_le(file + 16, N_SECTIONS, 8);
	put_le(file + 24, (uint64_t)w.len, 8);
	w.p = file + TD_CHECKPOINT_HEADER, w.len = 0;
	payload(&w, d);
	put_le(file + 32, checksum(file, w.len), 8);
	err = td_file_write_atomic(path, file, size, 0644);
	free(file);
	return err;
}

/* --- loading ------------------------------------------------------------- */

/* Checks the header and the checksum of the len bytes of file. */
static int check_header(const char *path, const unsigned char *file, size_t len)
{
	uint64_t version, real, payload_len, stored, computed;

	if (len < TD_CHECKPOINT_HEADER)
		return TD_FAIL(TD_EINVAL,
			       "checkpoint %s is truncated: %zu bytes, shorter than the %d-byte header",
			       path, len, TD_CHECKPOINT_HEADER);
	if (memcmp(file, TD_CHECKPOINT_MAGIC, 8) != 0)
		return TD_FAIL(TD_EINVAL, "%s is not a tdaudit checkpoint (wrong magic number)", path);
	version = get_le(file + 8, 4), real = get_le(file + 12, 4);
	if (version > TD_CHECKPOINT_VERSION)
		return TD_FAIL(TD_EINVAL,
			       "checkpoint %s has format version %llu, newer than this build reads "
			       "(%d); use a newer tdtrain",
			       path, (unsigned long long)version, TD_CHECKPOINT_VERSION);
	if (version != TD_CHECKPOINT_VERSION)
		return TD_FAIL(TD_EINVAL, "checkpoint %s has unknown format version %llu (this build "
					  "reads %d)", path, (unsigned long long)version, TD_CHECKPOINT_VERSION);
	if (real != sizeof(td_real))
		return TD_FAIL(TD_EINVAL,
			       "checkpoint %s holds %llu-byte reals; this build uses %zu (%s): load it "
			       "with the matching build",
			       path, (unsigned long long)real, sizeof(td_real), TD_REAL_NAME);
	payload_len = get_le(file + 24, 8);
	if (payload_len > len - TD_CHECKPOINT_HEADER)
		return TD_FAIL(TD_EINVAL,
			       "checkpoint %s is truncated: the header promises %llu payload bytes, "
			       "the file has %zu",
			       path, (unsigned long long)payload_len, len - TD_CHECKPOINT_HEADER);
	if (payload_len < len - TD_CHECKPOINT_HEADER)
		return TD_FAIL(TD_EINVAL, "checkpoint %s has %zu bytes after its payload; it is corrupt",
			       path, len - TD_CHECKPOINT_HEADER - (size_t)payload_len);
	stored = get_le(file + 32, 8), computed = checksum(file, (size_t)payload_len);
	if (stored != computed)
		return TD_FAIL(TD_EINVAL,
			       "checkpoint %s is corrupt: checksum %016llx stored, %016llx computed; "
			       "restore it from a copy or use an earlier checkpoint",
			       path, (unsigned long long)stored, (unsigned long long)computed);
	return 0;
}

/* A section found in the payload. */
typedef struct {
	const unsigned char *data;
	size_t len;
} span;

/* Splits the payload into the N_SECTIONS sections, checking names and order. */
static int split(span *sec, const char *path, const unsigned char *file, size_t len)
{
	size_t at = TD_CHECKPOINT_HEADER;

	if (get_le(file + 16, 8) != N_SECTIONS)
		return TD_FAIL(TD_EINVAL, "checkpoint %s has %llu sections; version 1 has %d", path,
			       (unsigned long long)get_le(file + 16, 8), N_SECTIONS);
	for (int i = 0; i < N_SECTIONS; i++) {
		uint64_t n;

		if (len - at < NAME_LEN + 8)
			return TD_FAIL(TD_EINVAL, "checkpoint %s ends inside section %d", path, i);
		if (memchr(file + at, '\0', NAME_LEN) == NULL ||
		    strcmp((const char *)file + at, section_names[i]) != 0)
			return TD_FAIL(TD_EINVAL, "checkpoint %s: section %d is not '%s'", path, i,
				       section_names[i]);
		n = get_le(file + at + NAME_LEN, 8);
		at += NAME_LEN + 8;
		if (n > len - at)
			return TD_FAIL(TD_EINVAL, "checkpoint %s: section '%s' runs past the end", path,
				       section_names[i]);
		sec[i].data = file + at, sec[i].len = (size_t)n;
		at += (size_t)n;
	}
	if (at != len)
		return TD_FAIL(TD_EINVAL, "checkpoint %s has %zu bytes after its last section", path,
			       len - at);
	return 0;
}

static char *dup_text(const span *s)
{
	char *t = malloc(s->len + 1);

	if (t) {
		memcpy(t, s->data, s->len);
		t[s->len] = '\0';
	}
	return t;
}

/* Fills ck from its sections. */
static int decode(td_checkpoint *ck, const char *path, const span *sec)
{
	td_checkpoint_data *d = &ck->d;

	if (sec[1].len % sizeof(td_real) || sec[1].len == 0 || sec[3].len != 8 || sec[4].len != 16 ||
	    sec[6].len != 8)
		return TD_FAIL(TD_EINVAL, "checkpoint %s: a section has the wrong length", path);
	d->n_weights = sec[1].len / sizeof(td_real);
	ck->signature = dup_text(&sec[0]);
	ck->config = dup_text(&sec[5]);
	ck->weights = malloc(sec[1].len);
	if (!ck->signature || !ck->config || !ck->weights)
		return TD_FAIL(TD_ENOMEM, "no memory to load checkpoint %s", path);
	for (size_t i = 0; i < d->n_weights; i++)
		ck->weights[i] = get_real(sec[1].data + i * sizeof(td_real));
	d->signature = ck->signature, d->config_text = ck->config, d->weights = ck->weights;
	d->optimizer = sec[2].len ? sec[2].data : NULL, d->optimizer_len = sec[2].len;
	d->step = (int64_t)get_le(sec[3].data, 8);
	d->data_position = get_le(sec[4].data, 8), d->rng_counter = get_le(sec[4].data + 8, 8);
	d->config_hash = get_le(sec[6].data, 8);
	if (td_fnv1a64(TD_FNV1A64_OFFSET, ck->config, sec[5].len) != d->config_hash)
		return TD_FAIL(TD_EINVAL, "checkpoint %s: its config text does not hash to its "
					  "config_hash; the file is inconsistent", path);
	return 0;
}

/* Compares what was loaded with what the caller expects. */
static int check_expect(const char *path, const td_checkpoint_data *d, const td_checkpoint_expect *e)
{
	if (!e)
		return 0;
	if (e->signature && strcmp(e->signature, d->signature) != 0)
		return TD_FAIL(TD_EINVAL,
			       "checkpoint %s is for model '%s'; this run builds '%s': load it with "
			       "the config it was trained with",
			       path, d->signature, e->signature);
	if (e->n_weights && e->n_weights != d->n_weights)
		return TD_FAIL(TD_EINVAL,
			       "checkpoint %s holds %zu weights; this model has %zu: it is from "
			       "another model",
			       path, d->n_weights, e->n_weights);
	if (e->check_config_hash && e->config_hash != d->config_hash)
		return TD_FAIL(TD_EINVAL,
			       "checkpoint %s was written under config hash %016llx; this run's config "
			       "hashes to %016llx: resume with the checkpoint's config or start a new run",
			       path, (unsigned long long)d->config_hash,
			       (unsigned long long)e->config_hash);
	return 0;
}

int td_checkpoint_load(td_checkpoint **out, const char *path, const td_checkpoint_expect *expect)
{
	td_checkpoint *ck = calloc(1, sizeof *ck);
	span sec[N_SECTIONS];
	size_t len = 0;
	int err;

	*out = NULL;
	if (!ck)
		return TD_FAIL(TD_ENOMEM, "no memory to load checkpoint %s", path);
	if ((err = td_file_read(path, &ck->file, &len)) != 0)
		goto done;
	if ((err = check_header(path, (unsigned char *)ck->file, len)) != 0 ||
	    (err = split(sec, path, (unsigned char *)ck->file, len)) != 0 ||
	    (err = decode(ck, path, sec)) != 0 || (err = check_expect(path, &ck->d, expect)) != 0)
		goto done;
	*out = ck;
	ck = NULL;
done:
	td_checkpoint_free(ck);
	return err;
}

const td_checkpoint_data *td_checkpoint_get(const td_checkpoint *ck)
{
	return &ck->d;
}

void td_checkpoint_free(td_checkpoint *ck)
{
	if (!ck)
		return;
	free(ck->file);
	free(ck->weights);
	free(ck->signature);
	free(ck->config);
	free(ck);
}
