/*
 * grow.c - doubling arrays (see grow.h).
 */
#include "grow.h"

#include <stdint.h>
#include <stdlib.h>

#include "error.h"

int td_grow(void *v, size_t *cap, size_t need, size_t elem)
{
	void **pv = v;
	size_t n = *cap ? *cap : 8;
	void *p;

	if (need <= *cap)
		return 0;
	while (n < need)
		n *= 2;
	if (elem && n > SIZE_MAX / elem)
		return TD_FAIL(TD_ENOMEM, "%zu items of %zu bytes overflow memory", need, elem);
	p = realloc(*pv, n * elem);
	if (!p)
		return TD_FAIL(TD_ENOMEM, "out of memory for %zu items of %zu bytes", need, elem);
	*pv = p;
	*cap = n;
	return 0;
}
