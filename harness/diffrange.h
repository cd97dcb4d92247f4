/*
 * diffrange.h - the lines a working tree changed since a revision, for
 * `tdaudit mutate --diff REV` (only mutants on changed lines).
 */
#ifndef TD_DIFFRANGE_H
#define TD_DIFFRANGE_H

typedef struct td_diffrange td_diffrange;

/*
 * The lines added or changed in the working tree (index and untracked
 * files included) relative to rev's tree, read with libgit2; the user's
 * repository is not written. Caller frees with td_diffrange_free.
 */
int td_diffrange_new(td_diffrange **out, const char *root, const char *rev);
void td_diffrange_free(td_diffrange *d);

/* Whether line (1-based) of file (relative to the root) changed. */
int td_diffrange_has(const td_diffrange *d, const char *file, int line);

/* How many changed lines there are in all. */
long td_diffrange_count(const td_diffrange *d);

#endif
