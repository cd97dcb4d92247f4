/*
 * hash.h - FNV-1a, 64 bits: the one non-cryptographic hash of the core
 * (config hashes, content hashes of examples). Stable across builds and
 * machines for the same bytes; never use it where an adversary chooses
 * the input.
 */
#ifndef TD_HASH_H
#define TD_HASH_H

#include <stddef.h>
#include <stdint.h>

#define TD_FNV1A64_OFFSET UINT64_C(0xcbf29ce484222325)

/* Continues hash h over n bytes of data: start with TD_FNV1A64_OFFSET. */
static inline uint64_t td_fnv1a64(uint64_t h, const void *data, size_t n)
{
	const unsigned char *p = data;

	for (size_t i = 0; i < n; i++)
		h = (h ^ p[i]) * UINT64_C(0x100000001b3);
	return h;
}

#endif
