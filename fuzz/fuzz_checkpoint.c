/*
 * fuzz_checkpoint.c - libFuzzer target: the checkpoint loader
 * (core/checkpoint.c) on any bytes as a checkpoint file. The header's
 * checksum is recomputed over the input first (a fuzzer would almost
 * never guess it), so the section parser behind it sees the input too.
 */
#include "fuzz.h"

#include "../base/hash.h"
#include "../core/checkpoint.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	unsigned char *file = malloc(size ? size : 1);
	td_checkpoint *ck = NULL;
	char path[4200];

	if (!file)
		return 0;
	memcpy(file, data, size);
	if (size >= TD_CHECKPOINT_HEADER) { /* checkpoint.h's layout: FNV-1a at 32 */
		uint64_t h = td_fnv1a64(TD_FNV1A64_OFFSET, file, 32);

		h = td_fnv1a64(h, file + TD_CHECKPOINT_HEADER, size - TD_CHECKPOINT_HEADER);
		for (int k = 0; k < 8; k++)
			file[32 + k] = (unsigned char)(h >> (8 * k));
	}
	fuzz_write(path, sizeof path, "fuzz.ckpt", file, size);
	free(file);
	if (td_checkpoint_load(&ck, path, NULL) == 0) {
		const td_checkpoint_data *d = td_checkpoint_get(ck);

		if (!d->signature || !d->config_text || (d->n_weights && !d->weights))
			abort(); /* loaded without its fields */
	}
	td_checkpoint_free(ck);
	return 0;
}
