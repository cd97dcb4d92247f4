/*
 * fuzz_gen.c - libFuzzer target: the mutant generator (harness/gen.c) on
 * any bytes as a C file, then each mutant applied to them. Every mutant
 * the generator lists must apply to the text it came from.
 */
#include "fuzz.h"

#include "../harness/gen.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *src = (const char *)data;
	td_gen_result *r = NULL;

	if (td_gen_file(&r, "core/fuzz.c", src, size, NULL) == 0)
		for (size_t i = 0; i < r->n_mutants; i++) {
			char *out = NULL;
			size_t len = 0;

			if (td_gen_apply(&out, &len, src, size, &r->mutants[i]) != 0)
				abort(); /* a fresh mutant that does not apply */
			free(out);
		}
	td_gen_result_free(r);
	return 0;
}
