/*
 * strv.h - NULL-terminated arrays of owned strings (argv lists, globs,
 * test names). The harness's one small container.
 *
 * A list is made and grown by td_strv_push alone (it doubles, as td_grow,
 * from a capacity it infers from the length): never hand it an array
 * allocated some other way.
 */
#ifndef TD_STRV_H
#define TD_STRV_H

#include <stddef.h>

/* Appends a copy of s to *v (which may be NULL). TD_ENOMEM on failure. */
int td_strv_push(char ***v, const char *s);

/* Number of entries; 0 for NULL. */
size_t td_strv_len(char *const *v);

/* Index of s in v, or -1. */
long td_strv_find(char *const *v, const char *s);

/* Frees every string and the array; accepts NULL. */
void td_strv_free(char **v);

/*
 * A copy of argv with every "{test}" word (or part of a word) replaced by
 * name. Caller frees with td_strv_free.
 */
int td_strv_subst(char ***out, char *const *argv, const char *key, const char *value);

#endif
