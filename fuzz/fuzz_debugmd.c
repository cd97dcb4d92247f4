/*
 * fuzz_debugmd.c - libFuzzer target: the DEBUG.md parser
 * (ledger/debugmd.c) on any bytes. Parsing never fails but for memory, so
 * every input must come back parsed, problems and all.
 */
#include "fuzz.h"

#include "../ledger/debugmd.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	td_debugmd *doc = NULL;

	if (td_debugmd_parse(&doc, (const char *)data, size) == 0 && !doc)
		abort(); /* success without a document */
	td_debugmd_free(doc);
	return 0;
}
