/*
 * exec.c - carving one allocation of executor memory (see exec.h).
 *
 * Under AddressSanitizer (whose builds have no CUDA, so every pool is
 * host memory) each piece is followed by TD_EXEC_REDZONE poisoned bytes,
 * so that a body writing past its buffer is reported as it would be
 * were each buffer an allocation of its own.
 */
#include "exec.h"

#include <stdint.h>
#include <string.h>

#if TD_EXEC_REDZONE
#include <sanitizer/asan_interface.h>
#else
#define ASAN_POISON_MEMORY_REGION(p, n) ((void)(p), (void)(n))
#endif

void td_exec_take(td_exec_pool *p, void *out, size_t count, size_t size)
{
	size_t at = p->used, rem = at % TD_EXEC_ALIGN;
	void *got = NULL;

	if (rem)
		at = at > SIZE_MAX - (TD_EXEC_ALIGN - rem) ? SIZE_MAX : at + (TD_EXEC_ALIGN - rem);
	if (at >= SIZE_MAX - TD_EXEC_REDZONE ||
	    (size && count > (SIZE_MAX - TD_EXEC_REDZONE - at) / size))
		p->used = SIZE_MAX;
	else {
		p->used = at + count * size + TD_EXEC_REDZONE;
		got = p->base ? p->base + at : NULL;
		if (got)
			ASAN_POISON_MEMORY_REGION(p->base + at + count * size, TD_EXEC_REDZONE);
	}
	memcpy(out, &got, sizeof got);
}
