/*
 * config.h - the training program's strict plain-text configuration.
 *
 * A config file is lines of `key = value`, `#` comments (a `#` starts a
 * comment anywhere on a line, so no value contains one) and blank lines.
 * Every key is declared once, typed, in the table in config.c (name, type,
 * default, range or allowed values, one line of documentation); nothing
 * outside that table is accepted. A resolved config is built in one call from
 * the defaults, then one file, then `key=value` overrides (--set), each layer
 * replacing the one before; after that it cannot change.
 *
 * Refused, loudly, with the origin (file:line, or --set) in the message: an
 * unknown key (with the nearest valid key suggested), a key given twice in
 * the file or twice in the overrides, a value of the wrong type, a value out
 * of range or not among the allowed ones, a line that is not `key = value`,
 * and a few combinations of keys that cannot mean anything (see
 * td_config_new).
 *
 * The contract for whoever consumes a key: every key in the table must
 * change the run, or the command at hand must refuse it. A key with
 * affects_weights set changes the trained weights; the others (how often to
 * log, evaluate or checkpoint, how many threads) change only what is
 * observed or how fast, and must leave the weights bitwise unchanged.
 */
#ifndef TD_CONFIG_H
#define TD_CONFIG_H

#include <stddef.h>
#include <stdint.h>

#define TD_CONFIG_VALUE_MAX 255	       /* longest accepted value, in bytes */
#define TD_CONFIG_MAGIC "# tdconfig 1" /* first line of a serialised config */

typedef enum { TD_CFG_INT, TD_CFG_FLOAT, TD_CFG_STRING, TD_CFG_BOOL } td_cfg_type;

/* One declared key. Ranges are inclusive; bools are written true or false. */
typedef struct {
	const char *name; /* [a-z0-9_]+ */
	td_cfg_type type;
	const char *def;     /* the default, written as in a file */
	int64_t imin, imax;  /* TD_CFG_INT: the accepted range */
	double fmin, fmax;   /* TD_CFG_FLOAT: the accepted range (finite values only) */
	const char *allowed; /* TD_CFG_STRING: "a|b|c", the only accepted values */
	int affects_weights; /* 1: changes the trained weights; 0: only logs, timing, speed */
	const char *doc;     /* one line: what it does */
} td_config_key;

typedef struct td_config td_config;

/* Where a config comes from. */
typedef struct {
	const char *path;	      /* a config file, or NULL for the defaults alone */
	const char *const *overrides; /* n_overrides "key=value" strings (--set), or NULL */
	size_t n_overrides;
} td_config_spec;

#define TD_CONFIG_SPEC_INIT                                                                        \
	{                                                                                          \
		0                                                                                  \
	}

/*
 * The declared keys, in table order; *n receives their number. Borrowed,
 * static: valid for the life of the program.
 */
const td_config_key *td_config_keys(size_t *n);

/* The declared key named name, or NULL. Borrowed, static. */
const td_config_key *td_config_key_find(const char *name);

/*
 * Resolves defaults, then spec->path (when given), then spec->overrides in
 * order; spec may be NULL for the defaults alone. Refused (TD_EINVAL, message naming the origin,
 * key and value): see the top of this file; also warmup not below steps, and plan = paired with
 * bidirectional = false (a paired plan always sweeps both ways). A file that
 * cannot be read is TD_EIO. On success the caller frees *out with
 * td_config_free; on failure *out is NULL.
 */
int td_config_new(td_config **out, const td_config_spec *spec);

/* Frees cfg; accepts NULL. */
void td_config_free(td_config *cfg);

/*
 * Typed lookups. Refused with TD_EINVAL: an unknown key, or a key of another
 * type (no conversions). The string is borrowed: valid until
 * td_config_free(cfg).
 */
int td_config_int(int64_t *out, const td_config *cfg, const char *key);
int td_config_float(double *out, const td_config *cfg, const char *key);
int td_config_string(const char **out, const td_config *cfg, const char *key);
int td_config_bool(int *out, const td_config *cfg, const char *key);

/*
 * Where key's value came from: "default", "PATH:LINE" or "--set"; NULL for
 * an unknown key. Borrowed: valid until td_config_free(cfg).
 */
const char *td_config_origin(const td_config *cfg, const char *key);

/*
 * The canonical text of the resolved config: the line TD_CONFIG_MAGIC, then
 * every declared key, defaults included, one `key = value` line each, sorted
 * by key (strcmp), values in canonical form (ints in decimal, floats in the
 * shortest %g form that reads back to the same double, bools as true/false,
 * strings as given). The text is itself a valid config file that resolves to
 * the same config. Caller frees *out with free().
 */
int td_config_serialize(char **out, const td_config *cfg);

/*
 * The 64-bit FNV-1a hash (offset basis 0xcbf29ce484222325, prime
 * 0x100000001b3) of td_config_serialize's bytes, without the final NUL. Any
 * change of any key's value changes the text, so (barring a 64-bit
 * collision) the hash.
 */
int td_config_hash(uint64_t *out, const td_config *cfg);

/*
 * Whether a run under cfg may continue one written under snapshot (a
 * td_config_serialize text, as a checkpoint holds it): every key with
 * affects_weights must hold the same value in both. Keys that change only
 * logs, timing or speed (threads, log_every ...) may differ. Refused with
 * TD_EINVAL naming the first key that differs, both values and `what`
 * (the snapshot's origin), or a snapshot line that is not a known key.
 */
int td_config_check_resume(const td_config *cfg, const char *snapshot, const char *what);

/*
 * Writes td_config_serialize's text to path atomically: a temporary file in
 * the same directory, fsync, rename over path, fsync of the directory. A
 * reader sees the old file or the whole new one, never a part. TD_EIO with
 * the path and the failing step; the temporary file is removed on failure.
 */
int td_config_write(const td_config *cfg, const char *path);

#endif
