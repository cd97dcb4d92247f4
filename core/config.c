/*
 * config.c - the strict training config (see config.h).
 *
 * Must never accept a key or value it cannot check, never silently prefer
 * one of two values given for a key in the same layer, and never write the
 * resolved config in place. The key table below is the only list of keys:
 * the parser, the serialisation and the hash all walk it, so a key added
 * here is at once accepted, written and hashed.
 */
#include "config.h"

#include <assert.h>
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../base/error.h"
#include "../base/fileio.h"
#include "../base/hash.h"

#define BIG 1000000000			   /* a practical ceiling for counts of steps */
#define SEED_MAX INT64_C(9007199254740991) /* 2^53 - 1: exact in a double and in JSON */

/*
 * The keys. Each must later change the run (or be refused by the command
 * at hand); affects_weights says whether the change is to the weights.
 * Fields: name, type, default, imin, imax, fmin, fmax, allowed, weights, doc.
 */
static const td_config_key key_table[] = {
    {"seed", TD_CFG_INT, "1", 0, SEED_MAX, 0, 0, NULL, 1,
     "fixes the initial weights, the data order, the absent cells and every other draw"},
    {"steps", TD_CFG_INT, "1000", 1, BIG, 0, 0, NULL, 1, "optimizer steps to train"},
    {"batch", TD_CFG_INT, "64", 1, 65536, 0, 0, NULL, 1, "examples per optimizer step"},
    {"lr", TD_CFG_FLOAT, "0.001", 0, 0, 1e-9, 10, NULL, 1,
     "peak learning rate of AdamW, reached after warmup, then cosine decay to 0"},
    {"weight_decay", TD_CFG_FLOAT, "0.01", 0, 0, 0, 1, NULL, 1, "AdamW decoupled weight decay"},
    {"adam_beta1", TD_CFG_FLOAT, "0.9", 0, 0, 0, 0.999999, NULL, 1, "AdamW first-moment decay"},
    {"adam_beta2", TD_CFG_FLOAT, "0.999", 0, 0, 0, 0.999999, NULL, 1, "AdamW second-moment decay"},
    {"adam_eps", TD_CFG_FLOAT, "1e-08", 0, 0, 1e-30, 1, NULL, 1, "AdamW denominator epsilon"},
    {"warmup", TD_CFG_INT, "100", 0, BIG, 0, 0, NULL, 1,
     "steps of linear learning-rate warm-up; must be below steps"},
    {"clip", TD_CFG_FLOAT, "1", 0, 0, 0, 1e6, NULL, 1,
     "global gradient-norm clip; 0 turns clipping off"},
    {"width", TD_CFG_INT, "64", 1, 4096, 0, 0, NULL, 1, "channels per lattice cell"},
    {"layers", TD_CFG_INT, "4", 1, 4096, 0, 0, NULL, 1, "mixing layers, one plan step each"},
    {"plan", TD_CFG_STRING, "cyclic", 0, 0, 0, 0, "cyclic|paired", 1,
     "scan plan: cycle the axes (td_plan_cyclic) or each axis both ways (td_plan_paired)"},
    {"bidirectional", TD_CFG_BOOL, "true", 0, 0, 0, 0, NULL, 1,
     "a cyclic plan flips every axis once per cycle; paired plans require true"},
    {"mixer", TD_CFG_STRING, "lru", 0, 0, 0, 0, "lru|clru|gru|lstm|conv|attention", 1,
     "the 1-D mixer run along each swept line (clru: the LRU with a complex state)"},
    {"ffn", TD_CFG_INT, "0", 0, 65536, 0, 0, NULL, 1,
     "hidden units of each layer's channel MLP (ReLU) after its block; 0: none"},
    {"head", TD_CFG_STRING, "shared", 0, 0, 0, 0, "shared|per_cell", 1,
     "output head: one weight matrix for every cell, or one per cell (a position-aware readout)"},
    {"composition", TD_CFG_STRING, "axial_scan", 0, 0, 0, 0, "axial_scan|axial_kernel|flatten", 1,
     "how the 1-D mixer is composed over the lattice"},
    {"dataset", TD_CFG_STRING, "fashion-mnist", 0, 0, 0, 0,
     "fashion-mnist|synth-row|synth-absent|synth-time", 1,
     "the data: Fashion-MNIST (Debian dataset-fashion-mnist) or a synthetic family"},
    {"absent_fraction", TD_CFG_FLOAT, "0", 0, 0, 0, 0.99, NULL, 1,
     "fraction of Fashion-MNIST pixels marked absent, fixed per image by the seed"},
    {"eval_every", TD_CFG_INT, "500", 1, BIG, 0, 0, NULL, 0, "steps between evaluations"},
    {"eval_batches", TD_CFG_INT, "10", 1, BIG, 0, 0, NULL, 0,
     "batches scored by each evaluation, from the start of the evaluation range"},
    {"log_every", TD_CFG_INT, "50", 1, BIG, 0, 0, NULL, 0, "steps between progress lines"},
    {"threads", TD_CFG_INT, "1", 1, 256, 0, 0, NULL, 0,
     "worker threads; must not change any result bit"},
    {"device", TD_CFG_STRING, "cpu", 0, 0, 0, 0, "cpu|cuda", 0,
     "where the run computes: the CPU, or an NVIDIA GPU (refused where the build or the "
     "machine has none)"},
    {"checkpoint_every", TD_CFG_INT, "0", 0, BIG, 0, 0, NULL, 0,
     "steps between checkpoints; 0: one checkpoint at the end"},
    {"inject_nonfinite_every", TD_CFG_INT, "0", 0, BIG, 0, 0, NULL, 1,
     "fault injection: every Nth step reads a NaN input cell, which the firewall skips "
     "(counted); 0: off"},
};

#define N_KEYS (sizeof key_table / sizeof key_table[0])
#define ORIGIN_MAX 512

typedef struct {
	char text[TD_CONFIG_VALUE_MAX + 1]; /* canonical form */
	int64_t i;			    /* TD_CFG_INT */
	double f;			    /* TD_CFG_FLOAT */
	int b;				    /* TD_CFG_BOOL */
	char origin[ORIGIN_MAX];	    /* "default", "PATH:LINE" or "--set" */
	int file_line;			    /* the file line that set it, 0 if none */
	int by_override;		    /* 1 once an override has set it */
} cfg_value;

struct td_config {
	cfg_value v[N_KEYS]; /* in key_table order */
};

/* Where a value being parsed comes from, for messages. */
typedef enum { SRC_DEFAULT, SRC_FILE, SRC_OVERRIDE } source_kind;
typedef struct {
	source_kind kind;
	const char *path; /* SRC_FILE: the file */
	int line;	  /* SRC_FILE: the line, from 1 */
	const char *text; /* SRC_OVERRIDE: the override as given; SRC_DEFAULT: the key */
} source;

const td_config_key *td_config_keys(size_t *n)
{
	*n = N_KEYS;
	return key_table;
}

static int key_index(const char *name)
{
	for (size_t k = 0; k < N_KEYS; k++)
		if (strcmp(key_table[k].name, name) == 0)
			return (int)k;
	return -1;
}

const td_config_key *td_config_key_find(const char *name)
{
	int k = name ? key_index(name) : -1;

	return k < 0 ? NULL : &key_table[k];
}

/* "PATH:LINE", "--set TEXT" or "the default of KEY", for the start of a message. */
static const char *where(char *buf, size_t n, const source *src)
{
	switch (src->kind) {
	case SRC_FILE:
		snprintf(buf, n, "%s:%d", src->path, src->line);
		break;
	case SRC_OVERRIDE:
		snprintf(buf, n, "--set %s", src->text);
		break;
	case SRC_DEFAULT:
		snprintf(buf, n, "the default of '%s'", src->text);
		break;
	}
	return buf;
}

/*
 * Levenshtein distance between a and b, letters compared case-blind, b at
 * most 63 characters (a declared key). Only used to suggest a key.
 */
static size_t edit_distance(const char *a, const char *b)
{
	size_t row[64], lb = strlen(b);

	for (size_t j = 0; j <= lb && j < 64; j++)
		row[j] = j;
	for (size_t i = 1; a[i - 1]; i++) {
		size_t diag = row[0];

		row[0] = i;
		for (size_t j = 1; j <= lb && j < 64; j++) {
			size_t up = row[j];
			int same =
			    tolower((unsigned char)a[i - 1]) == tolower((unsigned char)b[j - 1]);
			size_t best = diag + (same ? 0 : 1);

			if (up + 1 < best)
				best = up + 1;
			if (row[j - 1] + 1 < best)
				best = row[j - 1] + 1;
			diag = up;
			row[j] = best;
		}
	}
	return row[lb < 64 ? lb : 63];
}

/* The declared key nearest to name; the first in the table on a tie. */
static const char *nearest_key(const char *name)
{
	size_t best = SIZE_MAX;
	const char *pick = key_table[0].name;

	for (size_t k = 0; k < N_KEYS; k++) {
		size_t d = edit_distance(name, key_table[k].name);

		if (d < best)
			best = d, pick = key_table[k].name;
	}
	return pick;
}

/* Whether value is one of the '|'-separated words of allowed. */
static int is_allowed(const char *allowed, const char *value)
{
	size_t n = strlen(value);

	for (const char *p = allowed; *p;) {
		const char *bar = strchr(p, '|');
		size_t len = bar ? (size_t)(bar - p) : strlen(p);

		if (len == n && strncmp(p, value, n) == 0)
			return 1;
		p += len + (bar ? 1 : 0);
	}
	return 0;
}

/* The shortest %g text that reads back to f; 0 and -0 both become "0". */
static void canon_float(char *buf, size_t n, double f)
{
	if (f == 0)
		f = 0;
	for (int p = 1; p <= 17; p++) {
		snprintf(buf, n, "%.*g", p, f);
		if (strtod(buf, NULL) == f)
			return;
	}
}

static int parse_int(cfg_value *v, const td_config_key *k, const char *text, const char *at)
{
	char *end;
	long long x;

	errno = 0;
	x = strtoll(text, &end, 10);
	if (end == text || *end || errno == ERANGE)
		return TD_FAIL(TD_EINVAL, "%s: %s = '%s' is not an integer", at, k->name, text);
	if (x < k->imin || x > k->imax)
		return TD_FAIL(TD_EINVAL, "%s: %s = %lld is out of range [%lld, %lld]", at, k->name,
			       x, (long long)k->imin, (long long)k->imax);
	v->i = x;
	snprintf(v->text, sizeof v->text, "%lld", x);
	return 0;
}

static int parse_float(cfg_value *v, const td_config_key *k, const char *text, const char *at)
{
	char *end;
	double x = strtod(text, &end);

	if (end == text || *end || !isfinite(x))
		return TD_FAIL(TD_EINVAL, "%s: %s = '%s' is not a finite number", at, k->name,
			       text);
	if (x < k->fmin || x > k->fmax)
		return TD_FAIL(TD_EINVAL, "%s: %s = %s is out of range [%g, %g]", at, k->name, text,
			       k->fmin, k->fmax);
	v->f = x;
	canon_float(v->text, sizeof v->text, x);
	return 0;
}

static int parse_bool(cfg_value *v, const td_config_key *k, const char *text, const char *at)
{
	if (strcmp(text, "true") != 0 && strcmp(text, "false") != 0)
		return TD_FAIL(TD_EINVAL, "%s: %s = '%s' is not a bool; write true or false", at,
			       k->name, text);
	v->b = text[0] == 't';
	snprintf(v->text, sizeof v->text, "%s", text);
	return 0;
}

static int parse_string(cfg_value *v, const td_config_key *k, const char *text, const char *at)
{
	for (const char *p = text; *p; p++)
		if (isspace((unsigned char)*p) || !isprint((unsigned char)*p))
			return TD_FAIL(TD_EINVAL,
				       "%s: %s = '%s' holds a space or a control character", at,
				       k->name, text);
	if (k->allowed && !is_allowed(k->allowed, text))
		return TD_FAIL(TD_EINVAL, "%s: %s = '%s' is not one of %s", at, k->name, text,
			       k->allowed);
	snprintf(v->text, sizeof v->text, "%s", text);
	return 0;
}

/* Checks text against key k and stores it, canonicalised, in v. */
static int parse_value(cfg_value *v, const td_config_key *k, const char *text, const source *src)
{
	char at[ORIGIN_MAX];

	where(at, sizeof at, src);
	if (!text[0])
		return TD_FAIL(TD_EINVAL, "%s: %s has no value", at, k->name);
	if (strlen(text) > TD_CONFIG_VALUE_MAX)
		return TD_FAIL(TD_EINVAL, "%s: the value of %s is longer than %d bytes", at,
			       k->name, TD_CONFIG_VALUE_MAX);
	switch (k->type) {
	case TD_CFG_INT:
		return parse_int(v, k, text, at);
	case TD_CFG_FLOAT:
		return parse_float(v, k, text, at);
	case TD_CFG_BOOL:
		return parse_bool(v, k, text, at);
	case TD_CFG_STRING:
		return parse_string(v, k, text, at);
	}
	return TD_FAIL(TD_ESTATE, "key %s has an unknown type %d in the key table", k->name,
		       (int)k->type);
}

/* Sets key name to value from src, refusing unknown keys and repeats within a layer. */
static int set_key(td_config *cfg, const char *name, const char *value, const source *src)
{
	int k = key_index(name);
	char at[ORIGIN_MAX];
	cfg_value *v;
	int err;

	where(at, sizeof at, src);
	if (k < 0)
		return TD_FAIL(TD_EINVAL, "%s: unknown key '%s'; did you mean '%s'?", at, name,
			       nearest_key(name));
	v = &cfg->v[k];
	if (src->kind == SRC_FILE && v->file_line)
		return TD_FAIL(TD_EINVAL,
			       "%s: key '%s' is given twice (first at line %d); remove one", at,
			       name, v->file_line);
	if (src->kind == SRC_OVERRIDE && v->by_override)
		return TD_FAIL(TD_EINVAL,
			       "%s: key '%s' is overridden twice; give one --set per key", at,
			       name);
	err = parse_value(v, &key_table[k], value, src);
	if (err)
		return err;
	if (src->kind == SRC_FILE)
		v->file_line = src->line;
	if (src->kind == SRC_OVERRIDE)
		v->by_override = 1;
	snprintf(v->origin, sizeof v->origin, "%s",
		 src->kind == SRC_FILE	     ? at
		 : src->kind == SRC_OVERRIDE ? "--set"
					     : "default");
	return 0;
}

/* Trims leading and trailing white space in place. */
static char *trim(char *s)
{
	char *e;

	while (isspace((unsigned char)*s))
		s++;
	e = s + strlen(s);
	while (e > s && isspace((unsigned char)e[-1]))
		*--e = '\0';
	return s;
}

/* One `key = value` (comment already stripped) from a line or an override. */
static int parse_assignment(td_config *cfg, char *s, const source *src)
{
	char *eq = strchr(s, '='), at[ORIGIN_MAX];

	if (!eq)
		return TD_FAIL(TD_EINVAL, "%s: '%s' is not of the form key = value",
			       where(at, sizeof at, src), s);
	*eq = '\0';
	if (!trim(s)[0])
		return TD_FAIL(TD_EINVAL, "%s: an assignment has no key before '='",
			       where(at, sizeof at, src));
	return set_key(cfg, trim(s), trim(eq + 1), src);
}

static int parse_line(td_config *cfg, char *line, const source *src)
{
	char *hash = strchr(line, '#');

	if (hash)
		*hash = '\0';
	line = trim(line);
	if (!line[0])
		return 0;
	return parse_assignment(cfg, line, src);
}

static int load_file(td_config *cfg, const char *path)
{
	FILE *f = fopen(path, "r");
	char *line = NULL;
	size_t cap = 0;
	source src = {SRC_FILE, path, 0, NULL};
	ssize_t len;
	int err = 0;

	if (!f)
		return TD_FAIL(TD_EIO, "cannot open config %s: %s", path, strerror(errno));
	while (!err && (len = getline(&line, &cap, f)) >= 0) {
		src.line++;
		if (strlen(line) != (size_t)len)
			err =
			    TD_FAIL(TD_EINVAL, "%s:%d: the line holds a NUL byte", path, src.line);
		else
			err = parse_line(cfg, line, &src);
	}
	if (!err && ferror(f))
		err = TD_FAIL(TD_EIO, "cannot read config %s: %s", path, strerror(errno));
	free(line);
	fclose(f);
	return err;
}

static int apply_override(td_config *cfg, const char *text)
{
	size_t n = strlen(text);
	char *copy = malloc(n + 1);
	source src = {SRC_OVERRIDE, NULL, 0, text};
	int err;

	if (!copy)
		return TD_FAIL(TD_ENOMEM, "no memory for an override of %zu bytes", n);
	memcpy(copy, text, n + 1);
	if (strchr(copy, '#'))
		err = TD_FAIL(TD_EINVAL, "--set %s: a value cannot contain '#'", text);
	else
		err = parse_assignment(cfg, copy, &src);
	free(copy);
	return err;
}

static int set_defaults(td_config *cfg)
{
	for (size_t k = 0; k < N_KEYS; k++) {
		source src = {SRC_DEFAULT, NULL, 0, key_table[k].name};
		int err = set_key(cfg, key_table[k].name, key_table[k].def, &src);

		if (err) /* the message names "the default of KEY": the table is wrong */
			return err;
	}
	return 0;
}

/* The value of a key this file names itself; the key must be in the table. */
static const cfg_value *value_of(const td_config *cfg, const char *name)
{
	int k = key_index(name);

	assert(k >= 0);
	return &cfg->v[k];
}

/* Combinations of valid values that cannot mean anything. */
static int check_combinations(const td_config *cfg)
{
	const cfg_value *steps = value_of(cfg, "steps"), *warmup = value_of(cfg, "warmup");
	const cfg_value *plan = value_of(cfg, "plan"), *bidir = value_of(cfg, "bidirectional");

	if (warmup->i >= steps->i)
		return TD_FAIL(
		    TD_EINVAL,
		    "warmup = %lld (%s) is not below steps = %lld (%s); the run would never "
		    "reach its peak learning rate",
		    (long long)warmup->i, warmup->origin, (long long)steps->i, steps->origin);
	if (strcmp(plan->text, "paired") == 0 && !bidir->b)
		return TD_FAIL(
		    TD_EINVAL,
		    "plan = paired (%s) always sweeps both ways, but bidirectional = false "
		    "(%s); drop one",
		    plan->origin, bidir->origin);
	return 0;
}

int td_config_new(td_config **out, const td_config_spec *spec)
{
	td_config *cfg = calloc(1, sizeof *cfg);
	int err;

	*out = NULL;
	if (!cfg)
		return TD_FAIL(TD_ENOMEM, "no memory for a config");
	err = set_defaults(cfg);
	if (!err && spec && spec->path)
		err = load_file(cfg, spec->path);
	for (size_t i = 0; !err && spec && i < spec->n_overrides; i++)
		err = apply_override(cfg, spec->overrides[i]);
	if (!err)
		err = check_combinations(cfg);
	if (err) {
		free(cfg);
		return err;
	}
	*out = cfg;
	return 0;
}

void td_config_free(td_config *cfg)
{
	free(cfg);
}

/* The value of key if it is declared with type t; refused otherwise. */
static int lookup(const cfg_value **out, const td_config *cfg, const char *key, td_cfg_type t)
{
	static const char *const type_names[] = {"int", "float", "string", "bool"};
	int k = key ? key_index(key) : -1;

	if (k < 0)
		return TD_FAIL(TD_EINVAL, "unknown key '%s'; did you mean '%s'?",
			       key ? key : "(null)", nearest_key(key ? key : ""));
	if (key_table[k].type != t)
		return TD_FAIL(TD_EINVAL, "key '%s' holds a %s; read it with td_config_%s", key,
			       type_names[key_table[k].type], type_names[key_table[k].type]);
	*out = &cfg->v[k];
	return 0;
}

int td_config_int(int64_t *out, const td_config *cfg, const char *key)
{
	const cfg_value *v = NULL;
	int err = lookup(&v, cfg, key, TD_CFG_INT);

	if (!err)
		*out = v->i;
	return err;
}

int td_config_float(double *out, const td_config *cfg, const char *key)
{
	const cfg_value *v = NULL;
	int err = lookup(&v, cfg, key, TD_CFG_FLOAT);

	if (!err)
		*out = v->f;
	return err;
}

int td_config_string(const char **out, const td_config *cfg, const char *key)
{
	const cfg_value *v = NULL;
	int err = lookup(&v, cfg, key, TD_CFG_STRING);

	if (!err)
		*out = v->text;
	return err;
}

int td_config_bool(int *out, const td_config *cfg, const char *key)
{
	const cfg_value *v = NULL;
	int err = lookup(&v, cfg, key, TD_CFG_BOOL);

	if (!err)
		*out = v->b;
	return err;
}

const char *td_config_origin(const td_config *cfg, const char *key)
{
	int k = key ? key_index(key) : -1;

	return k < 0 ? NULL : cfg->v[k].origin;
}

static int by_name(const void *a, const void *b)
{
	return strcmp(key_table[*(const size_t *)a].name, key_table[*(const size_t *)b].name);
}

int td_config_serialize(char **out, const td_config *cfg)
{
	size_t order[N_KEYS], len = strlen(TD_CONFIG_MAGIC) + 2, at;
	char *text;

	*out = NULL;
	for (size_t k = 0; k < N_KEYS; k++) {
		order[k] = k;
		len += strlen(key_table[k].name) + strlen(" = \n") + strlen(cfg->v[k].text);
	}
	qsort(order, N_KEYS, sizeof order[0], by_name);
	text = malloc(len);
	if (!text)
		return TD_FAIL(TD_ENOMEM, "no memory for a %zu-byte config text", len);
	at = (size_t)snprintf(text, len, "%s\n", TD_CONFIG_MAGIC);
	for (size_t k = 0; k < N_KEYS; k++)
		at += (size_t)snprintf(text + at, len - at, "%s = %s\n", key_table[order[k]].name,
				       cfg->v[order[k]].text);
	*out = text;
	return 0;
}

int td_config_hash(uint64_t *out, const td_config *cfg)
{
	char *text;
	int err = td_config_serialize(&text, cfg);

	if (err)
		return err;
	*out = td_fnv1a64(TD_FNV1A64_OFFSET, text, strlen(text));
	free(text);
	return 0;
}

int td_config_check_resume(const td_config *cfg, const char *snapshot, const char *what)
{
	int seen[N_KEYS] = {0};
	const char *line = snapshot;

	if (strncmp(line, TD_CONFIG_MAGIC "\n", strlen(TD_CONFIG_MAGIC) + 1))
		return TD_FAIL(TD_EINVAL, "%s: its config does not start with '%s'", what,
			       TD_CONFIG_MAGIC);
	for (line = strchr(line, '\n') + 1; *line; line = strchr(line, '\n') + 1) {
		const char *eq = strstr(line, " = "), *end = strchr(line, '\n');
		char name[64];
		int k;

		if (!end || !eq || eq > end || (size_t)(eq - line) >= sizeof name)
			return TD_FAIL(TD_EINVAL, "%s: its config has a line that is not 'key = value'",
				       what);
		snprintf(name, sizeof name, "%.*s", (int)(eq - line), line);
		if ((k = key_index(name)) < 0)
			return TD_FAIL(TD_EINVAL, "%s: its config has key '%s', which this version does "
						  "not know; resume with the version that wrote it",
				       what, name);
		seen[k] = 1;
		eq += 3;
		if (key_table[k].affects_weights &&
		    (strlen(cfg->v[k].text) != (size_t)(end - eq) ||
		     strncmp(cfg->v[k].text, eq, (size_t)(end - eq))))
			return TD_FAIL(TD_EINVAL, "%s was written with %s = %.*s; this run has %s = %s. "
						  "Resume with the checkpoint's value or start a new run",
				       what, name, (int)(end - eq), eq, name, cfg->v[k].text);
	}
	for (size_t k = 0; k < N_KEYS; k++)
		if (!seen[k] && key_table[k].affects_weights)
			return TD_FAIL(TD_EINVAL, "%s: its config has no key '%s' (an older version "
						  "wrote it); start a new run",
				       what, key_table[k].name);
	return 0;
}

int td_config_write(const td_config *cfg, const char *path)
{
	char *text = NULL;
	int err = td_config_serialize(&text, cfg);

	if (!err)
		err = td_file_write_atomic(path, text, strlen(text), 0644);
	free(text);
	return err;
}
