/*
 * grow.h - growing an array by doubling: the one helper for the harness's
 * and the ledger's lists.
 */
#ifndef TD_GROW_H
#define TD_GROW_H

#include <stddef.h>

/*
 * Grows *(T **)v, an array of elements of size elem with capacity *cap, to
 * hold at least need elements (doubling from 8). Leaves it as it is when it
 * already does. TD_ENOMEM (and *v untouched) when memory runs out.
 */
int td_grow(void *v, size_t *cap, size_t need, size_t elem);

#endif
