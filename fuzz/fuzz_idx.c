/*
 * fuzz_idx.c - libFuzzer target: the IDX reader (core/idx.c) on any bytes
 * as a file, raw or gzipped, read with the dimension count its fourth
 * byte claims (so that good headers get past the check) and with 3.
 */
#include "fuzz.h"

#include "../core/idx.h"

static void read_as(const char *path, int ndims)
{
	td_idx *idx = NULL;

	if (td_idx_read(&idx, path, ndims) == 0) {
		size_t bytes = td_idx_item_bytes(idx) * td_idx_dim(idx, 0);
		const uint8_t *p = td_idx_data(idx);
		unsigned sum = 0;

		for (size_t i = 0; i < bytes; i++) /* every promised byte is there to read */
			sum += p[i];
		(void)sum;
	}
	td_idx_free(idx);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char path[4200];

	fuzz_write(path, sizeof path, "fuzz.idx", data, size);
	if (size >= 4 && data[3] != 3)
		read_as(path, data[3]);
	read_as(path, 3);
	return 0;
}
