/*
 * fuzz_ctok.c - libFuzzer target: the C tokenizer (harness/ctok.c) on any
 * bytes. The tokens must be non-empty, inside the buffer and in order.
 */
#include "fuzz.h"

#include "../harness/ctok.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	td_ctok_list *l = NULL;

	if (td_ctok_lex(&l, (const char *)data, size, "fuzz.c") == 0) {
		size_t end = 0;

		for (size_t i = 0; i < l->n; i++) {
			const td_ctok *t = &l->toks[i];

			if (t->len == 0 || t->off < end || t->off + t->len > size)
				abort(); /* an empty token, or one outside the buffer or out of order */
			end = t->off + t->len;
		}
	}
	td_ctok_list_free(l);
	return 0;
}
